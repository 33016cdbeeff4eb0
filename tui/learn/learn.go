// Package learn is the explorer's Learn tab: for the scenario on screen, plain-language
// explanations with the formulas filled in from the Report — the pipeline bubble, the TP
// all-reduce and the algorithm that runs it, why NVLS beats the ring, why a box without
// peer-to-peer pays twice and why serving engines use one-shot all-reduces, where each GiB of
// the fullest GPU goes and why the Compare tab's winner wins. The
// words are templates in assets/text (English, French); the numbers are Facts, taken from the
// Report and formatted as the other tabs format them. It also renders the guided tour's captions.
package learn

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

// keyMap is the Learn tab's own keys: scrolling (↑/↓ belong to the parameter panel).
type keyMap struct {
	PageUp, PageDown, Top, Bottom key.Binding
}

func defaultKeyMap() keyMap {
	return keyMap{
		PageUp:   key.NewBinding(key.WithKeys("pgup", "["), key.WithHelp("pgup/[", "scroll")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "]"), key.WithHelp("pgdn/]", "scroll")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "bottom")),
	}
}

// Model is the Learn pane. Use New.
type Model struct {
	styles theme.Styles
	texts  *Texts
	keys   keyMap
	w, h   int

	data     common.Data
	hasData  bool
	cmp      common.Compare
	cmpReady bool // a Compare for the current data has arrived

	off  int     // first line shown
	want Section // section to scroll to once the document is laid out, or -1

	// The laid-out document, rebuilt when the data, the comparison, the texts or the width change.
	lines  []string
	starts [numSections]int
	err    error
	dirty  bool
	laidW  int
}

var _ common.Pane = (*Model)(nil)

// New returns an empty Learn pane with the templates of one language.
func New(st theme.Styles, texts map[string]string) *Model {
	return &Model{styles: st, texts: NewTexts(texts), keys: defaultKeyMap(), want: -1, dirty: true}
}

// SetStyles switches the palette (presentation mode).
func (m *Model) SetStyles(st theme.Styles) { m.styles, m.dirty = st, true }

// SetTexts switches the language.
func (m *Model) SetTexts(texts map[string]string) { m.texts, m.dirty = NewTexts(texts), true }

// Title is the tab's label.
func (m *Model) Title() string { return "Learn" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = max(w, 0), max(h, 0) }

// SetData hands the pane a new evaluation.
func (m *Model) SetData(d common.Data) { m.data, m.hasData, m.dirty = d, true, true }

// SetCompare hands the pane the Compare tab's contenders (the root forwards them to both).
func (m *Model) SetCompare(c common.Compare) { m.cmp, m.cmpReady, m.dirty = c, true, true }

// Invalidate marks the comparison outdated until the next SetCompare.
func (m *Model) Invalidate() { m.cmpReady, m.dirty = false, true }

// ScrollTo shows a section at the top of the pane (the root's "why?" key).
func (m *Model) ScrollTo(s Section) {
	m.want = s
	m.layout()
}

// Update scrolls.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	m.layout()
	page := max(m.bodyH()-2, 1)
	switch {
	case key.Matches(k, m.keys.PageUp):
		m.off -= page
	case key.Matches(k, m.keys.PageDown):
		m.off += page
	case key.Matches(k, m.keys.Top):
		m.off = 0
	case key.Matches(k, m.keys.Bottom):
		m.off = len(m.lines)
	}
	m.clamp()
	return nil
}

// Animating is always false.
func (m *Model) Animating() bool { return false }

// Keys lists the scroll keys.
func (m *Model) Keys() []key.Binding {
	return []key.Binding{m.keys.PageDown, m.keys.PageUp, m.keys.Top, m.keys.Bottom}
}

// Facts are the numbers the tab explains now.
func (m *Model) Facts() Facts { return NewFacts(m.data, m.cmp, m.cmpReady) }

// Offset is the first line shown and Start the first line of a section, for tests.
func (m *Model) Offset() int { return m.off }

// Start is the line a section's heading is on.
func (m *Model) Start(s Section) int { m.layout(); return m.starts[s] }

// bodyH is the rows for the document: all but the scroll line.
func (m *Model) bodyH() int { return max(m.h-1, 1) }

// clamp keeps the offset in the document; it may go past the last full page as far as the last
// section's heading, so that "why?" shows every section at the top.
func (m *Model) clamp() {
	most := len(m.lines) - m.bodyH()
	if len(m.lines) > 0 {
		most = max(most, slices.Max(m.starts[:])) // the last section shown
	}
	m.off = max(min(m.off, most), 0)
}

// layout renders the document into lines of the pane's width when something changed.
func (m *Model) layout() {
	if !m.dirty && m.laidW == m.w {
		m.applyWant()
		return
	}
	m.dirty, m.laidW = false, m.w
	m.lines, m.err = nil, nil
	if !m.hasData || m.w <= 0 {
		return
	}
	doc, err := Document(m.texts, m.Facts())
	if err != nil {
		m.err = err
		return
	}
	st := m.styles
	w := m.w
	m.starts = [numSections]int{}
	n := 0 // the sections shown, numbered in order
	if m.data.Stale {
		if s, err := m.texts.Exec("learn.stale", m.Facts()); err == nil {
			m.lines = append(m.lines, wrapLines(st.Warn.Render, strings.TrimSpace(s), w, "", "")...)
		}
	}
	for _, bl := range doc {
		if bl.Section >= 0 {
			if len(m.lines) > 0 {
				m.lines = append(m.lines, "")
			}
			m.starts[bl.Section] = len(m.lines)
			n++
			head := strconv.Itoa(n) + " · " + bl.Title
			m.lines = append(m.lines, st.Bold.Render(ansi.Truncate(head, w, "…")))
		}
		for i, p := range bl.Paras {
			if i > 0 && p.Kind == ParaText {
				m.lines = append(m.lines, "")
			}
			switch p.Kind {
			case ParaFormula: // kept as written (aligned), cut at the edge
				f := strings.ReplaceAll(p.Text, "\u00a0", " ")
				m.lines = append(m.lines, "    "+st.Playhead.Render(ansi.Truncate(f, max(w-4, 1), "…")))
			case ParaBullet:
				m.lines = append(m.lines, wrapLines(st.Value.Render, p.Text, w, "  • ", "    ")...)
			default:
				m.lines = append(m.lines, wrapLines(st.Value.Render, p.Text, w, "", "")...)
			}
		}
	}
	m.applyWant()
	m.clamp()
}

func (m *Model) applyWant() {
	if m.want >= 0 && m.want < numSections && len(m.lines) > 0 {
		m.off = m.starts[m.want]
		m.want = -1
		m.clamp()
	}
}

// wrapLines word-wraps text to w cells (Wrap), the first line after first and the others after
// rest, each in a style.
func wrapLines(render func(...string) string, text string, w int, first, rest string) []string {
	lines := Wrap(text, max(w-ansi.StringWidth(rest), 8))
	out := make([]string, len(lines))
	for i, l := range lines {
		ind := rest
		if i == 0 {
			ind = first
		}
		out[i] = ind + render(l)
	}
	return out
}

// View renders the pane in exactly its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	m.layout()
	st := m.styles
	switch {
	case !m.hasData:
		return common.Fit([]string{st.Dim.Render("no evaluation yet")}, m.w, m.h)
	case m.err != nil:
		return common.Fit([]string{st.Error.Render(m.err.Error())}, m.w, m.h)
	}
	bh := m.bodyH()
	m.clamp()
	end := min(m.off+bh, len(m.lines))
	out := append([]string(nil), m.lines[m.off:end]...)
	for len(out) < bh {
		out = append(out, "")
	}
	if m.h > 1 {
		out = append(out, m.scrollLine())
	}
	return common.Fit(out, m.w, m.h)
}

// scrollLine says where the view is in the document and how to move.
func (m *Model) scrollLine() string {
	n := len(m.lines)
	if n <= m.bodyH() {
		return ""
	}
	end := min(m.off+m.bodyH(), n)
	arrows := ""
	if m.off > 0 {
		arrows += "↑"
	}
	if end < n {
		arrows += "↓"
	}
	pos := struct{ From, To, Of int }{m.off + 1, end, n}
	hint, err := m.texts.Exec("learn.more", pos)
	if err != nil {
		hint = err.Error()
	}
	hint = strings.TrimSpace(hint)
	return m.styles.Dim.Render(ansi.Truncate(arrows+" "+hint, m.w, "…"))
}
