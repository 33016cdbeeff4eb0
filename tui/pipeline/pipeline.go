// Package pipeline is the explorer's Pipeline tab: the simulated step as a Gantt chart, one lane
// per pipeline stage, with F, B and W ops (prefill and decode steps in inference) drawn to scale,
// the bubble shaded, waits on other stages marked, and a playhead that sweeps simulated time.
//
// A column shows what its slice of time holds (columns.go): a kind's letter where that kind
// holds nearly all the busy time, a mixed glyph where kinds share it, idle where idle holds half.
// The columns are summed once per timeline and width, in one pass over the ops; a frame only
// colours them for the playhead, so a View costs the same for sixty ops or sixty thousand.
package pipeline

import (
	"math"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/overlay"
	"github.com/splitscope/splitscope/tui/theme"
)

// stepWall is how long the playhead takes to sweep a whole step at speed ×1, whatever the step's
// simulated length: long enough to follow micro-batches, short enough to watch twice.
const stepWall = 8.0 // seconds

// Speed is 2^speedExp times the default, within these bounds.
const (
	minSpeedExp = -6
	maxSpeedExp = 6
)

// Model is the Pipeline tab. Use New; the zero value is not ready.
type Model struct {
	styles theme.Styles
	keys   keyMap
	w, h   int

	data common.Data
	tl   *costmodel.Timeline
	ix   *index
	// cols is every lane's columns at the chart's width, rebuilt when the timeline or the
	// width changes.
	cols colCache

	playhead float64 // simulated seconds from the start of the step
	// last is the previous frame's time while playing (zero after a pause): the playhead moves
	// by the wall time between frames.
	last     time.Time
	playing  bool
	speedExp int
	laneOff  int // first stage shown after the top when stages are folded
	// step is the op `.` stopped on, described under the playhead line while paused.
	step stepped
	// large gives lanes more rows (presentation on a projector).
	large bool

	paint painter
	// ov is a measured trace drawn under the chart, nil when none.
	ov *overlay.Overlay
}

var _ common.Pane = (*Model)(nil)

// New returns the tab, playing from the start once it has data.
func New(s theme.Styles) *Model {
	m := &Model{styles: s, keys: DefaultKeyMap(), playing: true, step: noStep}
	m.paint.init(s)
	return m
}

// Title is the tab's label.
func (m *Model) Title() string { return "Pipeline" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = max(w, 0), max(h, 0)
	m.clampScroll()
}

// SetData hands the pane a new evaluation. A new timeline keeps the playhead at the same share of
// the step, so that a paused chart can be compared across a change.
func (m *Model) SetData(d common.Data) {
	m.data = d
	if d.Report.Timeline == m.tl {
		return // the same result, perhaps now stale
	}
	frac := 0.0
	if m.ix != nil && m.ix.span > 0 {
		frac = m.playhead / m.ix.span
	}
	m.tl = d.Report.Timeline
	m.ix = newIndex(m.tl)
	m.step = noStep
	m.playhead = 0
	if m.ix != nil {
		m.playhead = min(max(frac, 0), 1) * m.ix.span
	}
	m.clampScroll()
}

// Animating reports whether the playhead is moving: playing and not yet at the end.
func (m *Model) Animating() bool {
	return m.playing && m.ix != nil && m.playhead < m.ix.span
}

// Keys lists the tab's key bindings; the scroll keys only while stages are folded.
func (m *Model) Keys() []key.Binding {
	k := m.keys
	folded := m.folded()
	k.PageUp.SetEnabled(folded)
	k.PageDown.SetEnabled(folded)
	return k.ShortHelp()
}

// Update handles the tab's keys and advances the playhead on common.FrameMsg.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.FrameMsg:
		now := time.Time(msg)
		if !m.Animating() {
			m.last = time.Time{}
			break
		}
		m.advance(common.FrameStep(m.last, now).Seconds())
		m.last = now
	case tea.KeyMsg:
		m.handleKey(msg)
	}
	return nil
}

func (m *Model) handleKey(msg tea.KeyMsg) {
	switch {
	case key.Matches(msg, m.keys.Play):
		m.step = noStep
		if m.ix != nil && m.playhead >= m.ix.span {
			m.playhead, m.playing = 0, true // at the end: play again from the start
			return
		}
		m.playing = !m.playing
	case key.Matches(msg, m.keys.Step):
		if m.ix != nil {
			m.playhead = m.ix.nextStart(m.playhead)
			m.step = stepAt(m.tl, m.playhead)
		}
		m.playing = false
	case key.Matches(msg, m.keys.Faster):
		m.speedExp = min(m.speedExp+1, maxSpeedExp)
	case key.Matches(msg, m.keys.Slower):
		m.speedExp = max(m.speedExp-1, minSpeedExp)
	case key.Matches(msg, m.keys.Restart):
		m.playhead, m.step = 0, noStep
	case key.Matches(msg, m.keys.PageUp):
		m.scroll(-1)
	case key.Matches(msg, m.keys.PageDown):
		m.scroll(+1)
	}
}

// SetStyles switches the palette (presentation mode's high-contrast theme) and keeps the
// playhead, the step and the scroll where they are.
func (m *Model) SetStyles(s theme.Styles) {
	m.styles = s
	m.paint = painter{}
	m.paint.init(s)
}

// SetLarge asks for taller lanes (up to six rows of ops each when there is room), for a
// projector; the stage table under the legend gives way first.
func (m *Model) SetLarge(on bool) {
	m.large = on
	m.clampScroll()
}

// StepDescription is the line describing the op `.` stopped on, or "" while playing or before
// any step.
func (m *Model) StepDescription() string {
	if m.playing || m.step.op < 0 {
		return ""
	}
	return m.step.desc.String()
}

// rate is simulated seconds per wall second.
func (m *Model) rate() float64 {
	if m.ix == nil {
		return 0
	}
	return m.ix.span / stepWall * math.Ldexp(1, m.speedExp)
}

// advance moves the playhead by dt seconds of wall time, stopping at the end.
func (m *Model) advance(dt float64) {
	if !m.Animating() {
		return
	}
	m.playhead = min(m.playhead+m.rate()*dt, m.ix.span)
}

// seek puts the playhead at t (clamped to the step).
func (m *Model) seek(t float64) {
	if m.ix == nil {
		m.playhead = 0
		return
	}
	m.playhead = min(max(t, 0), m.ix.span)
}

// lanes is the number of stages drawn.
func (m *Model) lanes() int {
	if m.ix == nil {
		return 0
	}
	return len(m.ix.lanes)
}

// folded reports whether some stages do not fit and fold away.
func (m *Model) folded() bool {
	l, ok := m.layout()
	return ok && m.lanes() > l.rows
}

// scroll moves the folded stages by one page.
func (m *Model) scroll(dir int) {
	l, ok := m.layout()
	if !ok {
		return
	}
	_, off, _, page := foldLanes(m.lanes(), l.rows, m.laneOff)
	m.laneOff = off + dir*max(page, 1)
	m.clampScroll()
}

func (m *Model) clampScroll() {
	l, ok := m.layout()
	if !ok {
		m.laneOff = max(m.laneOff, 0)
		return
	}
	_, m.laneOff, _, _ = foldLanes(m.lanes(), l.rows, m.laneOff)
}
