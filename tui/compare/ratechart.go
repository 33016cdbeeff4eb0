package compare

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// rateMark is the glyph and style that mark a series of the rate chart, by its contender: T TP
// only, P PP only, E attention DP + EP (a MoE model), H the hybrid (or best) layout.
func rateMark(k common.RowKind) (rune, int) {
	switch k {
	case common.RowTPOnly:
		return 'T', sTP
	case common.RowPPOnly:
		return 'P', sPP
	case common.RowEP:
		return 'E', sCross
	case common.RowDisagg:
		return 'D', sCross
	}
	return 'H', sBoth
}

// rateChartMinLines is the least room the rate chart needs; below it the sweep is a sentence.
const rateChartMinLines = 7

// rateChart draws, in inference, p90 TPOT against output tokens/s as the offered rate grows, one
// series per contender (each from 5% to 150% of its own capacity): a caption, the plot, the x
// axis and its labels, the legend.
func (m *Model) rateChart(st theme.Styles, h int) []string {
	series := m.cmp.Rates
	slo := 0.0
	if m.hasData {
		slo = m.data.Scenario.Workload.SLOTPOT
	}
	if h < rateChartMinLines || m.w < 24 {
		return []string{st.Bold.Render(rateSentence(series))}
	}
	maxX, maxY := 0.0, slo
	for _, s := range series {
		for _, p := range s.Points {
			maxX, maxY = max(maxX, p.OutTokS), max(maxY, p.TPOTP90)
		}
	}
	rows := h - 4
	topY, stepY := niceScale(maxY*1e3, max((rows-1)/2, 1)) // ms
	ticks := map[int]string{}
	yw := 1
	for v := 0.0; v <= topY*(1+1e-9); v += stepY {
		l := short(v)
		ticks[valueRow(v, topY, rows)] = l
		yw = max(yw, lipgloss.Width(l))
	}
	pw := max(m.w-yw-2, 3)
	topX, stepX := niceScale(maxX, max(pw/10, 1))
	grid := make([][]canvasCell, rows)
	for r := range grid {
		grid[r] = make([]canvasCell, pw)
		for c := range grid[r] {
			grid[r][c] = canvasCell{' ', sNone}
		}
	}
	col := func(x float64) int { return min(max(int(x/topX*float64(pw-1)+0.5), 0), pw-1) }
	if slo > 0 {
		// The SLO line first: the series' points draw over it.
		r := valueRow(slo*1e3, topY, rows)
		for c := range grid[r] {
			grid[r][c] = canvasCell{'┄', sCross}
		}
	}
	for _, s := range series {
		g, style := rateMark(s.Kind)
		for _, p := range s.Points {
			grid[valueRow(p.TPOTP90*1e3, topY, rows)][col(p.OutTokS)] = canvasCell{g, style}
		}
	}
	paintStyles := [...]lipgloss.Style{sNone: st.Value, sTP: st.Series[0], sPP: st.Series[1], sCross: st.Warn, sBoth: st.Bold}
	var paints [len(paintStyles)]theme.Paint
	for i, s := range paintStyles {
		paints[i] = theme.NewPaint(s)
	}
	out := []string{st.Label.Render("p90 TPOT (ms) against output tokens/s as the offered rate grows")}
	for r := range rows {
		axis, label := "│", ""
		if l, ok := ticks[r]; ok {
			axis, label = "┤", l
		}
		out = append(out, st.Axis.Render(strings.Repeat(" ", yw-lipgloss.Width(label))+label+" "+axis)+renderRow(grid[r], paints[:]))
	}
	var pos []int
	var labels []string
	xa := []rune(strings.Repeat("─", pw))
	for v := 0.0; v <= topX*(1+1e-9); v += stepX {
		c := col(v)
		xa[c] = '┬'
		pos, labels = append(pos, c), append(labels, short(v))
	}
	out = append(out, st.Axis.Render(strings.Repeat(" ", yw+1)+"└"+string(xa)))
	out = append(out, st.Axis.Render(strings.Repeat(" ", yw+2)+placeLabels(pos, labels, pw)))
	var legend []string
	for _, s := range series {
		g, style := rateMark(s.Kind)
		legend = append(legend, paintStyles[style].Render(string(g))+" "+s.Name+" "+common.SplitName(s.Layout))
	}
	if slo > 0 {
		legend = append(legend, paintStyles[sCross].Render("┄")+" SLO p90 TPOT "+static.Seconds(slo))
	}
	return append(out, strings.Join(legend, "   "))
}

// rateSentence says the sweep in one line: each contender's throughput at its capacity.
func rateSentence(series []common.RateSeries) string {
	var parts []string
	for _, s := range series {
		best := 0.0
		for _, p := range s.Points {
			best = max(best, p.OutTokS)
		}
		parts = append(parts, fmt.Sprintf("%s %s tok/s", s.Name, short(best)))
	}
	if len(parts) == 0 {
		return "no layout fits: no rate sweep"
	}
	return "at saturation: " + strings.Join(parts, " · ")
}
