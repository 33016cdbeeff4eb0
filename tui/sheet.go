package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// A sheet is text shown over the main body in a served session (WithServed) in place of a file
// written on the server: the scenario file for s, the Markdown report for x. The student copies
// it from the screen; the serving machine's disk is never touched.

// showSheet opens a sheet headed by title (the first line) over the text's lines.
func (m Model) showSheet(title string, text []byte) Model {
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	m.sheet = append([]string{title}, lines...)
	m.sheetTop = 0
	return m
}

// sheetKey scrolls or closes the sheet; other keys do nothing while it is open (q quits).
func (m Model) sheetKey(msg tea.KeyMsg) Model {
	page := max(m.lay.Main.H-5, 1)
	maxTop := max(len(m.sheet)-1-page, 0)
	switch msg.String() {
	case "esc", "s", "x", "?":
		m.sheet, m.sheetTop = nil, 0
		return m
	case "up", "k":
		m.sheetTop--
	case "down", "j":
		m.sheetTop++
	case "pgup", "[":
		m.sheetTop -= page
	case "pgdown", "]", " ":
		m.sheetTop += page
	case "home", "g":
		m.sheetTop = 0
	case "end", "G":
		m.sheetTop = maxTop
	}
	m.sheetTop = min(max(m.sheetTop, 0), maxTop)
	return m
}

// sheetPage is the sheet as the main body shows it: its title with the scroll position, then
// the lines from sheetTop, h lines in all, each cut to w cells.
func (m *Model) sheetPage(w, h int) string {
	body := max(h-2, 1)
	lines := m.sheet[1:]
	top := min(max(m.sheetTop, 0), max(len(lines)-body, 0))
	head := " " + m.sheet[0]
	if len(lines) > body {
		head += fmt.Sprintf(" · %d–%d of %d", top+1, min(top+body, len(lines)), len(lines))
	}
	out := []string{m.styles.Title.Render(ansi.Truncate(head, w, "…")), ""}
	for _, l := range lines[top:min(top+body, len(lines))] {
		out = append(out, ansi.Truncate(l, w, "…"))
	}
	return strings.Join(out, "\n")
}
