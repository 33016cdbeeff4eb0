package pipeline

import (
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/tui/static"
)

// The pure arithmetic of the chart: time to columns, the axis ticks, lane folding and number
// formatting. Everything here is a function of its arguments, with table tests.

// timeToCol maps a time in [0, span] to one of cols columns, column c covering
// [c·span/cols, (c+1)·span/cols). Times outside the span clamp to the first or last column.
func timeToCol(t, span float64, cols int) int {
	if cols <= 0 {
		return 0
	}
	if !(span > 0) || !(t > 0) || math.IsNaN(t) {
		return 0
	}
	c := int(math.Floor(t / span * float64(cols)))
	return min(max(c, 0), cols-1)
}

// colSlice is the time slice [a, b) that column c of cols covers over [0, span].
func colSlice(c, cols int, span float64) (a, b float64) {
	if cols <= 0 {
		return 0, 0
	}
	w := span / float64(cols)
	return float64(c) * w, float64(c+1) * w
}

// niceStep rounds raw up to the next 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	e := math.Floor(math.Log10(raw))
	p := math.Pow(10, e)
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= raw*(1-1e-9) {
			return f * p
		}
	}
	return 10 * p
}

// nextNice is the nice step after s (1 → 2 → 5 → 10 …).
func nextNice(s float64) float64 { return niceStep(s * 1.01) }

// timeUnit picks the unit the axis of a span is labelled in: the largest of s, ms, µs and ns
// that the span reaches.
func timeUnit(span float64) (scale float64, name string) {
	switch {
	case span >= 1:
		return 1, "s"
	case span >= 1e-3:
		return 1e-3, "ms"
	case span >= 1e-6:
		return 1e-6, "µs"
	default:
		return 1e-9, "ns"
	}
}

// tickLabel writes t in the unit (scale, name) with as many decimals as the step needs.
func tickLabel(t, step, scale float64, name string) string {
	if t == 0 {
		return "0"
	}
	dec := 0
	if r := step / scale; r > 0 && r < 1 {
		dec = int(math.Ceil(-math.Log10(r) - 1e-9))
	}
	return strconv.FormatFloat(t/scale, 'f', dec, 64) + " " + name
}

// tick is one labelled mark of the time axis.
type tick struct {
	Col   int    // column of the mark
	At    int    // column where the label starts (the mark's, or moved left at the right edge)
	Label string // e.g. "200 ms"
}

// axisTicks chooses marks for [0, span] over cols columns: a 1-2-5 step, the smallest whose
// labels fit side by side with at least two spaces between them. The last label moves left to
// end at the edge; a label that still does not fit is dropped.
func axisTicks(span float64, cols int) []tick {
	if cols <= 0 || !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	scale, name := timeUnit(span)
	const gap = 2
	// Start from steps whose labels could fit at all (a label is rarely wider than 8 cells).
	step := niceStep(span / max(float64(cols)/8, 1))
	for range 64 {
		if ts, ok := placeTicks(span, cols, step, scale, name, gap); ok {
			return ts
		}
		step = nextNice(step)
	}
	return []tick{{Col: 0, At: 0, Label: "0"}}
}

func placeTicks(span float64, cols int, step, scale float64, name string, gap int) ([]tick, bool) {
	var out []tick
	end := -gap // first free column after the previous label
	n := int(math.Floor(span/step + 1e-9))
	for i := 0; i <= n; i++ {
		t := float64(i) * step
		label := tickLabel(t, step, scale, name)
		w := cellWidth(label)
		col := timeToCol(t, span, cols)
		at := col
		if at+w > cols {
			at = cols - w
		}
		if at < end+gap || at < 0 {
			if i == n && i > 1 {
				break // the last label may give way; the others must fit
			}
			return nil, false
		}
		out = append(out, tick{Col: col, At: at, Label: label})
		end = at + w
	}
	return out, true
}

// cellWidth counts the cells of plain text (every rune of the labels here is one cell wide).
func cellWidth(s string) int { return len([]rune(s)) }

// laneRow is one row of the lane area: a lane, or a marker for Hidden lanes from From on.
type laneRow struct {
	Lane   int // lane index, or -1 for a fold marker
	From   int // first folded lane (markers)
	Hidden int // folded lanes (markers)
}

// foldLanes lays n lanes into rows rows of one lane each, scrolled so that the first lane shown
// after the top is off. When they do not fit it shows a head of lanes from off, a marker for the
// folded middle and a tail of the last lanes; lanes above off fold into a marker at the top.
// It returns the rows, off clamped, the largest offset and the head's length (a page).
func foldLanes(n, rows, off int) (out []laneRow, offset, maxOff, page int) {
	if n <= 0 || rows <= 0 {
		return nil, 0, 0, 1
	}
	if n <= rows {
		for i := range n {
			out = append(out, laneRow{Lane: i})
		}
		return out, 0, 0, n
	}
	if rows < 3 { // no room for markers: a plain window
		maxOff = n - rows
		off = min(max(off, 0), maxOff)
		for i := off; i < off+rows; i++ {
			out = append(out, laneRow{Lane: i})
		}
		return out, off, maxOff, rows
	}
	// At maxOff a top marker and the lanes from off to the end fill the rows.
	maxOff = n - rows + 1
	off = min(max(off, 0), maxOff)
	lanes := func(from, to int) {
		for i := from; i < to; i++ {
			out = append(out, laneRow{Lane: i})
		}
	}
	marker := func(from, to int) {
		out = append(out, laneRow{Lane: -1, From: from, Hidden: to - from})
	}
	tail := (rows - 1) / 2
	if off == 0 {
		head := rows - 1 - tail
		lanes(0, head)
		marker(head, n-tail)
		lanes(n-tail, n)
		return out, 0, maxOff, head
	}
	marker(0, off)
	if off == maxOff {
		lanes(off, n)
		return out, off, maxOff, n - off
	}
	// Below maxOff at least two lanes stay folded between head and tail.
	tail = min(tail, rows-3)
	head := rows - 2 - tail
	lanes(off, off+head)
	marker(off+head, n-tail)
	lanes(n-tail, n)
	return out, off, maxOff, head
}

// lanePitch chooses how many rows each of n lanes gets in rows rows when they all fit: up to
// maxOps rows of ops plus a blank row between lanes when there is room for it. It returns the
// rows of ops per lane and whether lanes are separated by a blank row.
func lanePitch(n, rows, maxOps int) (opRows int, gap bool) {
	if n <= 0 || rows < n {
		return 1, false
	}
	pitch := (rows + 1) / n // the last lane needs no gap
	if pitch < 2 {
		return 1, false
	}
	return min(pitch-1, max(maxOps, 1)), true
}

// fmtDur writes seconds the way every renderer does (static.Seconds): "873 ms", "1.20 s".
func fmtDur(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "n/a"
	}
	return static.Seconds(s)
}

// fmtPct writes a fraction as a percentage with one decimal: "12.3%".
func fmtPct(f float64) string { return static.Percent(f) }

// gpuList writes GPU ids compactly: runs of three or more as "a-b", the rest with commas:
// [0 1 2 3] → "0-3", [0 2 4] → "0,2,4".
func gpuList(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch {
		case j-i >= 2:
			b.WriteString(strconv.Itoa(ids[i]) + "-" + strconv.Itoa(ids[j]))
			i = j + 1
		default:
			b.WriteString(strconv.Itoa(ids[i]))
			i++
		}
	}
	return b.String()
}
