package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/tui/common"
)

// columns splits width w into a label column and n equal value columns separated by gaps of
// one cell. The label gets its natural width when the value columns keep at least minCol cells,
// and shrinks (to no less than 1) otherwise; leftover cells go to the value columns from the left.
// The widths returned, plus the gaps, never exceed w.
func columns(w, label, n, minCol int) (labelW int, cols []int) {
	if n <= 0 {
		return min(max(label, 0), max(w, 0)), nil
	}
	labelW = max(label, 0)
	avail := w - n // one gap before each value column
	if avail-labelW < n*minCol {
		labelW = max(avail-n*minCol, min(1, labelW))
	}
	rest := max(avail-labelW, 0)
	cols = make([]int, n)
	for i := range cols {
		cols[i] = rest / n
		if i < rest%n {
			cols[i]++
		}
	}
	return labelW, cols
}

// Crossing is where the leading series of the chart changes (common.Crossing).
type Crossing = common.Crossing

// crossovers finds every change of leader between TP-only and PP-only (common.Crossovers, which
// the Learn tab's facts read too).
func crossovers(pts []common.CrossPoint) []Crossing { return common.Crossovers(pts) }

// leader says which series is ahead at the first point where both have a value: +1 PP-only,
// -1 TP-only, 0 when no point has both.
func leader(pts []common.CrossPoint) int {
	for _, p := range pts {
		if p.TP > 0 && p.PP > 0 && p.TP != p.PP {
			if p.PP > p.TP {
				return 1
			}
			return -1
		}
	}
	return 0
}

// crossSentence states the crossover in words.
func crossSentence(pts []common.CrossPoint) string {
	if len(pts) == 0 {
		return "no data"
	}
	span := strconv.Itoa(pts[0].Micro) + "…" + strconv.Itoa(pts[len(pts)-1].Micro)
	cs := crossovers(pts)
	if len(cs) == 0 {
		switch leader(pts) {
		case 1:
			return "no crossover in " + span + ": PP-only ahead" + throughout(pts, true)
		case -1:
			return "no crossover in " + span + ": TP-only ahead" + throughout(pts, false)
		}
		var tp, pp bool
		for _, p := range pts {
			tp, pp = tp || p.TP > 0, pp || p.PP > 0
		}
		switch {
		case tp && !pp:
			return "no crossover in " + span + ": only TP-only runs"
		case pp && !tp:
			return "no crossover in " + span + ": only PP-only runs"
		case !tp && !pp:
			return "no crossover in " + span + ": neither fits at any m"
		}
		return "no crossover in " + span
	}
	s := crossWords(cs[0]) + fitsUntil(pts, cs)
	if len(cs) > 1 {
		who := "TP-only"
		if cs[1].PPWon {
			who = "PP-only"
		}
		s += "; " + who + " back ahead from m = " + strconv.Itoa(cs[1].Micro)
		if len(cs) > 2 {
			s += " (" + strconv.Itoa(len(cs)) + " crossings)"
		}
	}
	return s
}

// stopsFitting is common.StopsFitting: the m where a series no longer fits, -1 when none.
func stopsFitting(pts []common.CrossPoint, from int, pp bool) int {
	return common.StopsFitting(pts, from, pp)
}

// fitsUntil bounds the first crossing's claim where a layout stops fitting before any second
// crossing: ", until it no longer fits at m = 16" when the new leader does, "; TP-only no longer
// fits from m = 16" when the other does; "" when both run to the end.
func fitsUntil(pts []common.CrossPoint, cs []Crossing) string {
	b := common.Bound(pts, cs, 0)
	if b.Leader >= 0 {
		return ", until it no longer fits at m = " + strconv.Itoa(pts[b.Leader].Micro)
	}
	if b.Other >= 0 {
		other := "PP-only"
		if cs[0].PPWon {
			other = "TP-only"
		}
		return "; " + other + " no longer fits from m = " + strconv.Itoa(pts[b.Other].Micro)
	}
	return ""
}

// throughout is how far "ahead" holds without a crossover: " throughout" while both run to the
// end, else where one stops fitting.
func throughout(pts []common.CrossPoint, ppLeads bool) string {
	other := "PP-only"
	if ppLeads {
		other = "TP-only"
	}
	if i := stopsFitting(pts, 0, ppLeads); i >= 0 {
		return " until it no longer fits at m = " + strconv.Itoa(pts[i].Micro)
	}
	if i := stopsFitting(pts, 0, !ppLeads); i >= 0 {
		return "; " + other + " no longer fits from m = " + strconv.Itoa(pts[i].Micro)
	}
	return " throughout"
}

func crossWords(c Crossing) string {
	if c.PPWon {
		return "PP-only overtakes TP-only from m = " + strconv.Itoa(c.Micro)
	}
	return "TP-only overtakes PP-only from m = " + strconv.Itoa(c.Micro)
}

// niceScale picks an axis top and tick step for values up to maxV with at most maxTicks
// intervals: the step is 1, 2, 2.5 or 5 times a power of ten and the top a multiple of it.
func niceScale(maxV float64, maxTicks int) (top, step float64) {
	if !(maxV > 0) || math.IsInf(maxV, 0) {
		return 1, 1
	}
	maxTicks = max(maxTicks, 1)
	raw := maxV / float64(maxTicks)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw*(1-1e-12) {
			step = f * mag
			break
		}
	}
	top = math.Ceil(maxV/step*(1-1e-12)) * step
	if top < maxV {
		top += step
	}
	return top, step
}

// xPositions spreads n points evenly over columns 0…width-1 (the chart's x axis is log₂ of m and
// the points are powers of two, so even spacing is the log scale).
func xPositions(n, width int) []int {
	out := make([]int, max(n, 0))
	if n == 1 {
		out[0] = max(width-1, 0) / 2
		return out
	}
	for i := range out {
		out[i] = int(math.Round(float64(i) * float64(max(width-1, 0)) / float64(n-1)))
	}
	return out
}

// placeLabels writes each label centred on its position in a line of width cells, skipping a
// label that would touch the previous one or run off the edge.
func placeLabels(pos []int, labels []string, width int) string {
	line := []rune(strings.Repeat(" ", max(width, 0)))
	next := 0 // first free column
	for i, p := range pos {
		if i >= len(labels) {
			break
		}
		l := []rune(labels[i])
		start := p - (len(l)-1)/2
		if start < 0 {
			start = 0
		}
		if start < next || start+len(l) > width {
			continue
		}
		copy(line[start:], l)
		next = start + len(l) + 1
	}
	return strings.TrimRight(string(line), " ")
}

// valueRow is the row of the chart (0 at the top, rows-1 at zero) that value v falls on with
// the axis running from 0 to top.
func valueRow(v, top float64, rows int) int {
	if rows <= 1 || !(top > 0) {
		return max(rows-1, 0)
	}
	r := int(math.Round((1 - v/top) * float64(rows-1)))
	return min(max(r, 0), rows-1)
}

// short formats an axis value compactly: "0", "850", "1.5k", "30k", "1.2M".
func short(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimNum(v/1e9) + "G"
	case a >= 1e6:
		return trimNum(v/1e6) + "M"
	case a >= 1e3:
		return trimNum(v/1e3) + "k"
	}
	return trimNum(v)
}

// trimNum formats v with at most three significant digits and no trailing zeros.
func trimNum(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	p := math.Pow(10, float64(2-int(math.Floor(math.Log10(math.Abs(v))))))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}
