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
	maxTop := max(len(sheetLines(m.sheet[1:], m.lay.Main.W-2))-page, 0)
	switch msg.String() {
	case "esc", "s", "x", "?":
		m.sheet, m.sheetTop = nil, 0
	default:
		m.sheetTop = scrollKey(msg.String(), m.sheetTop, page, maxTop)
	}
	return m
}

// sheetPage is the sheet as the main body shows it: its title with the scroll position, then
// the lines from sheetTop, h lines in all, each cut to w cells.
func (m *Model) sheetPage(w, h int) string {
	body := max(h-2, 1)
	lines := sheetLines(m.sheet[1:], w)
	top := min(max(m.sheetTop, 0), max(len(lines)-body, 0))
	head := " " + m.sheet[0]
	if len(lines) > body {
		head += fmt.Sprintf(" · %d–%d of %d", top+1, min(top+body, len(lines)), len(lines))
	}
	out := []string{m.styles.Title.Render(ansi.Truncate(head, w, "…")), ""}
	out = append(out, lines[top:min(top+body, len(lines))]...)
	return strings.Join(out, "\n")
}

// sheetLines wraps the sheet's lines to w cells, nothing cut: the student copies them from the
// screen. A line breaks at spaces; a continuation is indented two spaces (YAML folds an indented
// line into the plain value above it, Markdown into its paragraph) and keeps a comment's "#", so
// the copied scenario file reads back the same. Only a word wider than the line is cut.
func sheetLines(lines []string, w int) []string {
	w = max(w, 8)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		cont := "  "
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			cont = "#  "
		}
		prefix, cur := "", ""
		for i, word := range strings.Split(l, " ") {
			cand := word
			if i > 0 && cur != "" {
				cand = cur + " " + word
			}
			if ansi.StringWidth(prefix+cand) <= w {
				cur = cand
				continue
			}
			if cur != "" {
				out = append(out, prefix+cur)
				prefix, cur = cont, ""
			}
			for ansi.StringWidth(prefix+word) > w {
				piece := ansi.Truncate(word, w-ansi.StringWidth(prefix), "")
				out = append(out, prefix+piece)
				prefix, word = cont, word[len(piece):]
			}
			cur = word
		}
		if cur != "" {
			out = append(out, prefix+cur)
		}
	}
	return out
}
