package tui

import "strings"

// The frame's cache: a frame tick (common.FrameMsg) changes only the active pane, so the parts of
// the screen drawn from the root's state alone (the title, the strip, the parameter panel, the
// footer) are drawn once and reused until something else changes. Update bumps gen for every
// other message (but a key only the pane takes: footGen, the footer alone); the key also holds the state those parts read most, so that a model changed
// without Update (tests) is redrawn too.

// viewCache holds the parts of the last frame; the Model holds it by pointer (View has a value
// receiver), and a nil one draws everything afresh.
type viewCache struct {
	key     viewKey
	ok      bool
	title   string
	strip   string
	footGen int // the footer's: it also changes with the pane's own keys
	footer  string
	params  []string // nil until drawn for this key
	tabs    string   // the main pane's tab line; "" until drawn for this key
}

// viewKey is what the cached parts are drawn from: gen, bumped by every message but a frame
// tick, and a cheap fingerprint of the fields the parts read.
type viewKey struct {
	gen, width, height, tab, sel, rev, tourAt, noteSeq   int
	helpOpen, editing, inputSel, present, hasData, stale bool
	tourOn, sheet, noteErr, evalErr                      bool
	note, moved, inputErr, input                         string
	offer                                                *offer
}

func (m *Model) viewKey() viewKey {
	return viewKey{
		gen: m.gen, width: m.width, height: m.height, tab: m.tab, sel: m.sel, rev: m.rev,
		tourAt: m.tour.at, noteSeq: m.noteSeq,
		helpOpen: m.helpOpen, editing: m.editing, inputSel: m.inputSel, present: m.present,
		hasData: m.hasData, stale: m.data.Stale, tourOn: m.tour.on, sheet: m.sheet != nil,
		noteErr: m.noteErr, evalErr: m.evalErr != nil,
		note: m.note, moved: m.moved, inputErr: m.inputErr, input: m.input.Value(), offer: m.offer,
	}
}

// parts is the cache for this frame, refilled when its key changed; nil without a cache.
func (m *Model) parts() *viewCache {
	c := m.vc
	if c == nil {
		return nil
	}
	if k := m.viewKey(); !c.ok || c.key != k {
		*c = viewCache{key: k, ok: true, title: m.titleView(), strip: m.stripView(), footGen: m.footGen, footer: m.footerView()}
	} else if c.footGen != m.footGen {
		c.footGen, c.footer = m.footGen, m.footerView()
	}
	return c
}

// paramLines is the parameter panel, line by line.
func (m *Model) paramLines(c *viewCache) []string {
	if c == nil {
		return strings.Split(m.paramsView(), "\n")
	}
	if c.params == nil {
		c.params = strings.Split(m.paramsView(), "\n")
	}
	return c.params
}

// uncachedView is View drawn without the cache, for the tests that compare the two.
func (m Model) uncachedView() string {
	m.vc = nil
	return m.View()
}
