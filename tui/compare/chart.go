package compare

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

// Chart sizes: below chartMinLines the sweep is a small table of numbers instead.
const (
	chartMinLines = 8
	gridMinLines  = 4
)

// sweep renders the tokens/s-against-m sweep in at most h lines: a chart when there is room,
// else a table of the numbers, else the crossover sentence alone.
func (m *Model) sweep(st theme.Styles, h int) []string {
	if m.infer() && len(m.cmp.Rates) > 0 && h > 0 {
		return m.rateChart(st, h)
	}
	pts := m.cmp.Cross
	// wrapped is the sentence on at most n lines of the pane's width: its bound ("until it no
	// longer fits at m = 16") is part of the claim, so it wraps rather than being cut.
	wrapped := func(n int) []string {
		lines := strings.Split(ansi.Wordwrap(crossSentence(pts), max(m.w, 1), ""), "\n")
		if len(lines) > max(n, 1) {
			lines = lines[:max(n, 1)]
		}
		for i, l := range lines {
			lines[i] = st.Bold.Render(l)
		}
		return lines
	}
	switch {
	case len(pts) == 0 || h <= 0:
		return nil
	case !plottable(pts):
		return wrapped(h)
	case h >= chartMinLines && m.w >= 24:
		return m.chart(st, h, wrapped(2))
	case h >= gridMinLines:
		return append(m.grid(st), wrapped(h-3)...)
	}
	return wrapped(h)
}

// plottable reports whether any point has a value.
func plottable(pts []common.CrossPoint) bool {
	for _, p := range pts {
		if p.TP > 0 || p.PP > 0 {
			return true
		}
	}
	return false
}

// grid is the sweep as numbers: m (requests at once in inference), then TP-only and PP-only
// tokens/s.
func (m *Model) grid(st theme.Styles) []string {
	pts := m.cmp.Cross
	head, tp, pp := []string{"m"}, []string{"TP tok/s"}, []string{"PP tok/s"}
	if m.infer() {
		head[0] = "requests"
	}
	val := func(v float64) string {
		if v > 0 {
			return short(v)
		}
		return "—"
	}
	for _, p := range pts {
		head, tp, pp = append(head, fmt.Sprint(p.Micro)), append(tp, val(p.TP)), append(pp, val(p.PP))
	}
	w := 1
	for i := 1; i < len(head); i++ {
		w = max(w, lipgloss.Width(head[i]), lipgloss.Width(tp[i]), lipgloss.Width(pp[i]))
	}
	row := func(cells []string, s lipgloss.Style) string {
		var b strings.Builder
		b.WriteString(st.Label.Render(pad(cells[0], 8)))
		for _, c := range cells[1:] {
			b.WriteString(" " + s.Render(strings.Repeat(" ", w-lipgloss.Width(c))+c))
		}
		return b.String()
	}
	return []string{row(head, st.Axis), row(tp, st.Series[0]), row(pp, st.Series[1])}
}

// canvas cell styles.
const (
	sNone = iota
	sTP
	sPP
	sCross
	sBoth
)

type canvasCell struct {
	r     rune
	style int
}

// chart draws tokens/s against m (log₂ x axis) for TP-only and PP-only in h lines: a caption,
// the plot, the x axis with its labels, the legend and the crossover sentence.
func (m *Model) chart(st theme.Styles, h int, sentence []string) []string {
	pts := m.cmp.Cross
	maxV := 0.0
	for _, p := range pts {
		maxV = max(maxV, p.TP, p.PP)
	}
	rows := h - 4 - len(sentence) // caption, axis, labels, legend, the sentence's lines
	top, step := niceScale(maxV, max((rows-1)/2, 1))
	ticks := map[int]string{}
	yw := 1
	for v := 0.0; v <= top*(1+1e-9); v += step {
		l := short(v)
		ticks[valueRow(v, top, rows)] = l
		yw = max(yw, lipgloss.Width(l))
	}
	pw := max(m.w-yw-2, 3) // plot columns right of the axis
	pos := xPositions(len(pts), pw-2)
	for i := range pos {
		pos[i]++ // one column of air on each side
	}

	grid := make([][]canvasCell, rows)
	for r := range grid {
		grid[r] = make([]canvasCell, pw)
		for c := range grid[r] {
			grid[r][c] = canvasCell{' ', sNone}
		}
	}
	set := func(r, c int, ch rune, s int) {
		if r >= 0 && r < rows && c >= 0 && c < pw {
			grid[r][c] = canvasCell{ch, s}
		}
	}
	cs := crossovers(pts)
	for _, x := range cs {
		for r := range rows {
			set(r, pos[x.Index], glyphCross, sCross)
		}
	}
	series := []struct {
		val         func(common.CrossPoint) float64
		mark, trail rune
		style       int
	}{
		{func(p common.CrossPoint) float64 { return p.TP }, GlyphTP, trailTP, sTP},
		{func(p common.CrossPoint) float64 { return p.PP }, GlyphPP, trailPP, sPP},
	}
	for _, s := range series {
		for i := 0; i+1 < len(pts); i++ {
			v0, v1 := s.val(pts[i]), s.val(pts[i+1])
			if !(v0 > 0) || !(v1 > 0) {
				continue
			}
			x0, x1 := pos[i], pos[i+1]
			for c := x0 + 1; c < x1; c++ {
				v := v0 + (v1-v0)*float64(c-x0)/float64(x1-x0)
				set(valueRow(v, top, rows), c, s.trail, s.style)
			}
		}
	}
	both := false
	for i, p := range pts {
		rt, rp := valueRow(p.TP, top, rows), valueRow(p.PP, top, rows)
		if p.TP > 0 {
			set(rt, pos[i], GlyphTP, sTP)
		}
		if p.PP > 0 {
			if p.TP > 0 && rt == rp {
				set(rp, pos[i], GlyphBoth, sBoth)
				both = true
			} else {
				set(rp, pos[i], GlyphPP, sPP)
			}
		}
	}

	styles := [...]lipgloss.Style{sNone: st.Value, sTP: st.Series[0], sPP: st.Series[1], sCross: st.Warn, sBoth: st.Bold}
	var paints [len(styles)]theme.Paint
	for i, s := range styles {
		paints[i] = theme.NewPaint(s)
	}
	title := "tokens/s against micro-batches m (log₂ axis)"
	if m.infer() {
		title = "tokens/s against requests served at once (log₂ axis)"
	}
	out := []string{st.Label.Render(title)}
	for r := range rows {
		axis := "│"
		label := ""
		if l, ok := ticks[r]; ok {
			axis, label = "┤", l
		}
		out = append(out, st.Axis.Render(strings.Repeat(" ", yw-lipgloss.Width(label))+label+" "+axis)+renderRow(grid[r], paints[:]))
	}
	xa := []rune(strings.Repeat("─", pw))
	for _, p := range pos {
		if p < pw {
			xa[p] = '┬'
		}
	}
	out = append(out, st.Axis.Render(strings.Repeat(" ", yw+1)+"└"+string(xa)))
	labels := make([]string, len(pts))
	for i, p := range pts {
		labels[i] = fmt.Sprint(p.Micro)
	}
	out = append(out, st.Axis.Render(strings.Repeat(" ", yw+2)+placeLabels(pos, labels, pw)))
	out = append(out, m.legend(st, len(cs) > 0, both, styles[:]))
	out = append(out, sentence...)
	return out
}

// legend names the two series (with their layouts) and the crossover marker.
func (m *Model) legend(st theme.Styles, cross, both bool, styles []lipgloss.Style) string {
	// The layouts as the sweep ran them (an interleaved PP only runs as 1F1B).
	name := func(l model.Layout, fallback string) string {
		if l.TP <= 0 {
			return fallback
		}
		out := fmt.Sprintf("%s %d×%d×%d", fallback, l.TP, l.PP, l.DP) + cpSuffix(l)
		if l.PP > 1 && !m.infer() {
			out += " " + l.Schedule.String()
		}
		return out
	}
	parts := []string{
		styles[sTP].Render(string(GlyphTP)+string(trailTP)+string(trailTP)) + " " + name(m.cmp.CrossTP, NameTP),
		styles[sPP].Render(string(GlyphPP)+string(trailPP)+string(trailPP)) + " " + name(m.cmp.CrossPP, NamePP),
	}
	if both {
		parts = append(parts, styles[sBoth].Render(string(GlyphBoth))+" both")
	}
	if cross {
		parts = append(parts, styles[sCross].Render(string(glyphCross))+" crossover")
	}
	missing := false
	for _, p := range m.cmp.Cross {
		missing = missing || !(p.TP > 0) || !(p.PP > 0)
	}
	if missing {
		parts = append(parts, st.Dim.Render("no point: invalid or over memory"))
	}
	return strings.Join(parts, "   ")
}

// renderRow styles runs of equal style at once.
func renderRow(cells []canvasCell, paints []theme.Paint) string {
	var b strings.Builder
	var run []rune
	cur := -1
	flush := func() {
		if len(run) > 0 {
			if cur == sNone {
				b.WriteString(string(run))
			} else {
				b.WriteString(paints[cur].Wrap(string(run)))
			}
		}
		run = run[:0]
	}
	for _, c := range cells {
		if c.style != cur {
			flush()
			cur = c.style
		}
		run = append(run, c.r)
	}
	flush()
	return strings.TrimRight(b.String(), " ")
}
