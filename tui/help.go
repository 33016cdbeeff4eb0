package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The help page (?): every key that does something now, grouped, in the main pane; it scrolls
// (↑/↓, pgup/pgdn, home/end) when the screen is short, and ? or esc closes it.

// helpRow is one key and what it does; a section title has no key.
type helpRow struct {
	key, desc string
	title     bool
}

// helpSections lists every active key: the parameters (with the mouse), the tabs, the active
// tab's own keys, teaching, files and the screen. Disabled bindings (see activeKeys) are left out.
func (m *Model) helpSections() []helpRow {
	k := m.activeKeys()
	var rows []helpRow
	section := func(title string, entries ...helpRow) {
		var kept []helpRow
		for _, e := range entries {
			if e.key != "" {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			return
		}
		if len(rows) > 0 {
			rows = append(rows, helpRow{})
		}
		rows = append(rows, helpRow{desc: title, title: true})
		rows = append(rows, kept...)
	}
	b := func(bs ...key.Binding) []helpRow {
		var out []helpRow
		for _, x := range bs {
			if x.Enabled() && x.Help().Key != "" {
				out = append(out, helpRow{key: x.Help().Key, desc: x.Help().Desc})
			}
		}
		return out
	}
	var params []helpRow
	params = append(params, b(k.Up, k.Dec, k.Edit, k.Take, k.Cancel)...)
	if k.Up.Enabled() {
		params = append(params, helpRow{key: "mouse", desc: "click a parameter; the wheel changes it"})
	}
	section("Parameters", params...)
	section("Tabs", append(b(k.NextTab, k.PrevTab, k.Tabs[0]), helpRow{key: "mouse", desc: "click a tab"})...)
	section(fmt.Sprintf("This tab (%s)", m.panes[m.tab].Title()), b(k.pane...)...)
	section("Teaching", b(k.Why, k.Tour, k.TourPrev, k.Follow, k.Reveal, k.Presentation)...)
	section("Files", b(k.Save, k.Export)...)
	section("Screen", b(k.Present, k.Help, k.Quit)...)
	return rows
}

// helpLines renders the help rows for a width: key column, then the description, cut to fit.
func (m *Model) helpLines(w int) []string {
	rows := m.helpSections()
	keyW := 0
	for _, r := range rows {
		if !r.title {
			keyW = max(keyW, lipgloss.Width(r.key))
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		switch {
		case r.title:
			out = append(out, m.styles.Bold.Render(" "+r.desc))
		case r.key == "":
			out = append(out, "")
		default:
			pad := strings.Repeat(" ", keyW-lipgloss.Width(r.key))
			line := "   " + m.styles.Bold.Render(r.key) + pad + "  " + r.desc
			out = append(out, ansi.Truncate(line, w, "…"))
		}
	}
	return out
}

// helpPage is the help as the main pane shows it: a heading with the scroll position, then the
// rows from helpTop, h lines in all.
func (m *Model) helpPage(w, h int) string {
	lines := m.helpLines(w)
	body := max(h-2, 1)
	top := min(max(m.helpTop, 0), max(len(lines)-body, 0))
	head := " All keys · ? or esc closes"
	if len(lines) > body {
		head += fmt.Sprintf(" · ↑/↓ pgup/pgdn scroll · %d–%d of %d", top+1, min(top+body, len(lines)), len(lines))
	}
	out := []string{m.styles.Title.Render(ansi.Truncate(head, w, "…")), ""}
	out = append(out, lines[top:min(top+body, len(lines))]...)
	return strings.Join(out, "\n")
}

// helpKey scrolls or closes the help page; other keys do nothing while it is open (q quits).
func (m Model) helpKey(msg tea.KeyMsg) Model {
	page := max(m.lay.Content.H-3, 1)
	maxTop := max(len(m.helpSections())-page+1, 0)
	switch msg.String() {
	case "?", "esc":
		m.helpOpen = false
	default:
		m.helpTop = scrollKey(msg.String(), m.helpTop, page, maxTop)
	}
	return m
}

// scrollKey is a scrolled page's top line after key: a line or a page up or down, the start or
// the end, clamped to [0, maxTop]; other keys leave it.
func scrollKey(key string, top, page, maxTop int) int {
	switch key {
	case "up", "k":
		top--
	case "down", "j":
		top++
	case "pgup", "[":
		top -= page
	case "pgdown", "]", " ":
		top += page
	case "home", "g":
		top = 0
	case "end", "G":
		top = maxTop
	}
	return min(max(top, 0), maxTop)
}
