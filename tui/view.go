package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// Rendering: the frame (title, parameter panel, tabbed main pane, tour caption, footer), composed
// line by line.

// View renders the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	if m.width == 0 {
		return "starting splitscope…"
	}
	if m.lay.TooSmall {
		msg := fmt.Sprintf("splitscope needs at least %d×%d; this terminal is %d×%d.\nEnlarge it, or press q to quit.",
			MinWidth, MinHeight, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
	}
	// Compose line by line: lipgloss' joins re-measure every line of both boxes, and the frame
	// is redrawn up to 30 times a second.
	main := strings.Split(m.mainView(), "\n")
	if !m.present {
		params := strings.Split(m.paramsView(), "\n")
		for i := range main {
			if i < len(params) {
				main[i] = params[i] + main[i]
			}
		}
	}
	var b strings.Builder
	b.WriteString(m.titleView())
	for _, l := range main {
		b.WriteString("\n")
		b.WriteString(l)
	}
	if m.tour.on {
		b.WriteString("\n")
		b.WriteString(m.captionView())
	}
	b.WriteString("\n")
	b.WriteString(m.footerView())
	return b.String()
}

func (m Model) titleView() string {
	s := m.cur
	if m.hasData {
		s = m.data.Scenario
	}
	line := " splitscope · " + static.Header(s)
	return m.styles.Title.Width(m.width).Render(ansi.Truncate(line, m.width, "…"))
}

func (m Model) paramsView() string {
	r := m.lay.Params
	innerW, innerH := r.W-2, r.H-2
	notes := m.paramNotes(innerW, innerH)
	vis := visibleFields(m.fields, &m.cur)
	rowsH := innerH - len(notes)
	first := scrollWindow(len(vis), rowsH, indexOf(vis, m.sel))
	var lines []string
	for _, i := range vis[first:min(first+rowsH, len(vis))] {
		f := m.fields[i]
		label := f.label
		val := f.get(&m.cur)
		_, bad := m.fieldErrs[f.name]
		if bad {
			val = "✗ " + val
		}
		marker := " "
		if i == m.sel {
			marker = "›"
		}
		gap := max(innerW-lipgloss.Width(label)-lipgloss.Width(val)-2, 1)
		text := marker + label + strings.Repeat(" ", gap) + val + " "
		text = ansi.Truncate(text, innerW, "…")
		switch {
		case i == m.sel && bad:
			text = m.styles.ValueError.Reverse(true).Render(text)
		case i == m.sel:
			text = m.styles.ValueSelected.Render(text)
		case bad:
			text = m.styles.ValueError.Render(text)
		}
		lines = append(lines, text)
	}
	for len(lines) < rowsH {
		lines = append(lines, "")
	}
	lines = append(lines, notes...)
	content := fitLines(lines, innerW, innerH)
	return box(m.styles.Pane, content, innerW, innerH)
}

// paramNotes is what goes under the parameter rows: the value being typed, or why the selected
// (or some) field is invalid; at most half the panel.
func (m Model) paramNotes(innerW, innerH int) []string {
	var notes []string
	if m.editing {
		notes = append(notes, " "+m.fields[m.sel].label+":", " "+m.input.View())
		if m.inputErr != "" {
			notes = append(notes, wrap(m.styles.ValueError, m.inputErr, innerW)...)
		}
	} else if reason, ok := m.fieldErrs[m.fields[m.sel].name]; ok {
		notes = append(notes, wrap(m.styles.ValueError, reason, innerW)...)
	} else if len(m.fieldErrs) > 0 {
		notes = append(notes, wrap(m.styles.ValueError, fmt.Sprintf("%d invalid field(s): select the red one", len(m.fieldErrs)), innerW)...)
	} else if m.evalErr != nil {
		notes = append(notes, wrap(m.styles.ValueError, m.evalErr.Error(), innerW)...)
	}
	if m.boxErr != "" {
		notes = append(notes, wrap(m.styles.ValueError, m.boxErr, innerW)...)
	} else if len(m.boxNotes) > 0 && sameHardware(m.cur.Cluster, m.boxCluster) {
		for _, n := range m.boxNotes {
			notes = append(notes, wrap(m.styles.Warn, "! "+n, innerW)...)
		}
	}
	if len(notes) > 0 {
		notes = append([]string{""}, notes...)
	}
	return notes[:min(len(notes), innerH/2)]
}

// sameHardware reports whether two clusters have the same GPUs and intra-node link.
func sameHardware(a, b model.Cluster) bool {
	return a.GPU == b.GPU && a.GPUs == b.GPUs && a.GPUsPerNode == b.GPUsPerNode && a.Intra == b.Intra
}

// scrollWindow is the first row to show of n rows in a window of h so that row sel is visible,
// keeping it away from the edges when possible.
func scrollWindow(n, h, sel int) int {
	if h <= 0 || n <= h {
		return 0
	}
	first := sel - h/2
	return min(max(first, 0), n-h)
}

func indexOf(v []int, x int) int {
	for i, y := range v {
		if y == x {
			return i
		}
	}
	return 0
}

func (m Model) mainView() string {
	r := m.lay.Main
	innerW := r.W - 2
	var tabs []string
	for i, t := range m.tabTitles() {
		st := m.styles.Tab
		if i == m.tab {
			st = m.styles.TabActive
		}
		tabs = append(tabs, st.Render(t))
	}
	tabLine := ansi.Truncate(lipgloss.JoinHorizontal(lipgloss.Top, tabs...), innerW, "…")
	var content string
	if m.hasData || m.tab == TabBox { // the Box tab does not need an evaluation
		content = m.panes[m.tab].View()
	} else if m.evalErr != nil {
		content = m.styles.Error.Render(m.evalErr.Error())
	} else {
		content = m.styles.Dim.Render("evaluating…")
	}
	content = fitLines(strings.Split(content, "\n"), innerW, m.lay.Content.H)
	return box(m.styles.PaneFocused, tabLine+"\n"+content, innerW, r.H-2)
}

// helpView is the key help, cut to the terminal's width; during the tour, how to move through it.
func (m Model) helpView() string {
	if m.tour.on && !m.help.ShowAll {
		line := fmt.Sprintf(" tour %d/%d · ←/→ · esc leaves", m.tour.at+1, len(m.tour.steps))
		rest := m.styles.Dim.Render(" · tab other tabs · w why? · P presentation · q quit")
		return ansi.Truncate(m.styles.Bold.Render(line)+rest, max(m.width, 1), "…")
	}
	lines := strings.Split(m.help.View(m.keys), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, max(m.width, 1), "…")
	}
	return strings.Join(lines, "\n")
}

func (m Model) footerView() string {
	return m.helpView() + "\n" + m.verdict()
}

// verdict is the footer's one-line summary of the current result.
func (m Model) verdict() string {
	if !m.hasData {
		if m.note != "" {
			return ansi.Truncate(" "+m.note, m.width, "…")
		}
		return m.styles.Dim.Render("no result yet")
	}
	r := m.data.Report
	var parts []string
	if r.Inference != nil {
		parts = append(parts, "TTFT "+static.Seconds(r.Inference.TTFT), "TPOT "+static.Seconds(r.Inference.TPOT),
			static.Count(r.TokensPerS)+" tok/s")
	} else {
		parts = append(parts, "step "+static.Seconds(r.StepTime))
	}
	parts = append(parts, "bubble "+static.Percent(r.BubbleFraction), "comm "+static.Percent(r.CommFraction))
	mem := r.Memory
	fits := m.styles.OK.Render(fmt.Sprintf("fits %s / %s", static.Bytes(mem.Total), static.Bytes(mem.Capacity)))
	if !mem.Fits {
		fits = m.styles.Over.Render(fmt.Sprintf("OVER by %s", static.Bytes(mem.Total-mem.Capacity))) +
			m.styles.Dim.Render(" (more GPUs, recompute, ZeRO, or see 4 Memory)")
	}
	parts = append(parts, fits)
	line := " " + strings.Join(parts, " · ")
	if m.note != "" {
		st := m.styles.OK
		if m.noteErr {
			st = m.styles.Error
		}
		line = st.Render(" "+m.note) + m.styles.Dim.Render(" ·") + line
	}
	if m.data.Stale {
		reason := "invalid change"
		if r, ok := m.fieldErrs[m.fields[m.sel].name]; ok {
			reason = r
		} else {
			for _, f := range m.fields {
				if r, ok := m.fieldErrs[f.name]; ok {
					reason = r
					break
				}
			}
		}
		line = m.styles.Warn.Render(" ✗ "+reason+" · last valid:") + m.styles.Dim.Render(line)
	}
	return ansi.Truncate(line, m.width, "…")
}

// box draws a rounded border in the style's border colour around content of exactly h lines
// of at most w cells (fitLines' output), padding each line to w.
func box(st lipgloss.Style, content string, w, h int) string {
	paint := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	side := paint.Render("│")
	var b strings.Builder
	b.WriteString(paint.Render("╭" + strings.Repeat("─", w) + "╮"))
	lines := strings.Split(content, "\n")
	for i := 0; i < h; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString("\n")
		b.WriteString(side)
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", max(w-ansi.StringWidth(l), 0)))
		b.WriteString(side)
	}
	b.WriteString("\n")
	b.WriteString(paint.Render("╰" + strings.Repeat("─", w) + "╯"))
	return b.String()
}

// fitLines pads or cuts lines to exactly h lines of at most w cells.
func fitLines(lines []string, w, h int) string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = ansi.Truncate(lines[i], w, "")
		}
	}
	return strings.Join(out, "\n")
}

// wrap word-wraps text to width w in a style.
func wrap(st lipgloss.Style, text string, w int) []string {
	return strings.Split(st.Width(max(w-1, 1)).Render(text), "\n")
}
