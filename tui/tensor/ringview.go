package tensor

import (
	"fmt"
	"math"
	"strconv"

	"github.com/splitscope/splitscope/tui/static"
)

// ringGeo is the size of the boxed ring drawing.
type ringGeo struct {
	n, top     int // GPUs drawn, of which on the top row
	cells, cw  int // chunk cells per box and their width
	inner      int // box width inside its borders
	boxW, boxH int
	gap        int // columns between boxes, where the arrows go
	width      int
	rows       int // the tree's outline: its height
}

// ringGeometry sizes the boxed ring for t GPUs in avail columns, roomiest first; false when even
// the tightest does not fit.
func ringGeometry(t, avail int, kind ringKind) (ringGeo, bool) {
	n := min(t, shownNodes)
	if n < 2 || kind < ringMedium {
		return ringGeo{}, false
	}
	top := (n + 1) / 2
	cells := min(t, shownNodes)
	name := textWidth("G" + strconv.Itoa(t-1))
	label := textWidth(strconv.Itoa(t - 1))
	if kind == ringBig && t > shownNodes {
		return ringGeo{}, false // cells stand for several chunks: no numbers
	}
	boxH := map[ringKind]int{ringMedium: 3, ringFull: 4, ringBig: 5}[kind]
	for _, c := range []struct{ cw, gap int }{{2, 8}, {2, 6}, {1, 6}, {1, 4}} {
		gap := max(c.gap, label+3)
		inner := max(cells*c.cw, name+1, label+3, 4)
		boxW := inner + 2
		// The down arrow's label sticks out to the right of the last top box.
		width := top*boxW + (top-1)*gap + label
		if width <= avail {
			return ringGeo{n: n, top: top, cells: cells, cw: c.cw, inner: inner, boxW: boxW, boxH: boxH, gap: gap, width: width}, true
		}
	}
	return ringGeo{}, false
}

// frame is the animation's state at the current position.
type frame struct {
	t, k  int
	phase Phase   // the ring's
	frac  float64 // progress of step k
	ids   []int   // the GPUs drawn
}

func (m *Model) frame(t int) frame {
	k := int(m.pos)
	ph, _ := phaseOf(k, t)
	n := t
	if m.coll.anim == animNVLS || m.coll.anim == animOneShot || m.coll.anim == animTwoShot {
		n = m.coll.fabricGPUs()
	}
	return frame{t: t, k: k, phase: ph, frac: m.pos - math.Floor(m.pos), ids: nodeIDs(n)}
}

// hop is the arrow from drawn GPU d to the next one.
type hop struct {
	label     string
	active    bool // a chunk is on the wire
	highlight bool // it carries chunk 0, which the caption follows
	gapped    bool // GPUs between the two are not drawn
}

func (f frame) hop(d int) hop {
	n := len(f.ids)
	from, to := f.ids[d], f.ids[(d+1)%n]
	if mod(from+1, f.t) != to {
		return hop{label: "…", gapped: true}
	}
	if f.phase == Done {
		return hop{}
	}
	c := sentChunk(from, f.k, f.t)
	return hop{label: strconv.Itoa(c), active: true, highlight: c == 0}
}

func (h hop) styles() (line style, lab style) {
	switch {
	case h.highlight:
		return stHighlight, stHighlight
	case h.active:
		return stComm, stComm
	}
	return stAxis, stAxis
}

// drawAnim draws the animation from line y: its header, the drawing of today's algorithm, the
// caption of the step under way, the legend and two lines on the algorithm.
func (m *Model) drawAnim(cv *canvas, ly layer, p plan, y int) int {
	t := ly.t
	f := m.frame(t)
	w := cv.w
	if p.ringHeader {
		cv.spans(0, y, m.animHeader(t, w)...)
		y++
	}
	x0 := ringIndent(w)
	switch {
	case p.ring == ringCompact && p.anim == animRing:
		cv.spans(x0, y, compactRing(f, w-x0)...)
	case p.ring == ringCompact:
		cv.spans(x0, y, m.phaseStrip(f, w-x0)...)
	case p.anim == animRing:
		drawBoxes(cv, p.geo, f, x0, y, p.vgap)
	case p.anim == animTree:
		m.drawTree(cv, f, x0, y, p.geo.rows)
	default:
		m.drawFabric(cv, p.geo, f, x0, y)
	}
	y += p.ringHeight()
	cv.spans(0, y, m.animCaption(f, w)...)
	y++
	if p.legend {
		cv.text(0, y, m.animLegend(p.ring, w), stSub)
		y++
	}
	if p.explain {
		a, b := m.animExplain(w)
		cv.text(0, y, a, stSub)
		cv.text(0, y+1, b, stSub)
		y += 2
	}
	return y
}

// ringHeader names the ring, its pace on screen and the player's state.
func (m *Model) ringHeader(t, w int) []span {
	d := m.data.Report.Detail
	steps := ringSteps(t)
	wall := m.wall()
	scale := "n/a"
	if d.TPAllReduceS > 0 && wall > 0 {
		scale = static.Seconds(d.TPAllReduceS / wall)
	}
	state, st := "playing", stOK
	if !m.playing {
		state, st = "paused", stWarn
	}
	speed := "×" + strconv.FormatFloat(speeds[m.speed], 'g', -1, 64)
	title, gpus := "Ring all-reduce", fmt.Sprintf(" over %d GPUs", t)
	if t > shownNodes {
		title, gpus = fmt.Sprintf("Ring of %d GPUs (showing %d)", t, shownNodes), ", all-reduce"
	}
	perStep := static.Seconds(d.TPAllReduceS / float64(max(steps, 1)))
	tail := []span{{" · ", stLabel}, {state + " " + speed, st}}
	return fitSpans(w,
		append([]span{{title, stBold}, {fmt.Sprintf("%s: 2(t−1) = %d steps, each moving S/t = %s a link, ≈ %s modelled", gpus, steps, decBytes(d.TPAllReduceBytes/float64(t)), perStep), stLabel},
			{" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{title, stBold}, {fmt.Sprintf("%s, %d steps", gpus, steps), stLabel},
			{" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{fmt.Sprintf("ring of %d", t), stBold}, {" · 1 s = " + scale, stPlain}}, tail...),
		[]span{{fmt.Sprintf("ring %d · 1 s = %s · ", t, scale), stPlain}, {state, st}},
		[]span{{state, st}},
	)
}

// caption says what the current step does.
func caption(f frame, w int) []span {
	t, k := f.t, f.k
	steps := ringSteps(t)
	if f.phase == Done {
		return fitSpans(w,
			[]span{{"done", stOK}, {fmt.Sprintf(" · after %d steps every GPU holds all %d chunks fully reduced (█); the ring starts over", steps, t), stPlain}},
			[]span{{"done", stOK}, {fmt.Sprintf(" · every GPU holds all %d chunks reduced", t), stPlain}},
			[]span{{"done", stOK}},
		)
	}
	o := mod(k, t)
	chunk := "chunk i"
	if o != 0 {
		chunk = fmt.Sprintf("chunk (i−%d) mod %d", o, t)
	}
	verb, zero := "which adds its share", ""
	if f.phase == ReduceScatter {
		zero = fmt.Sprintf(" (%d/%d summed)", chunkCount(mod(k+1, t), 0, k+1, t), t)
	} else {
		verb, zero = "which keeps a copy", " (reduced)"
	}
	from, to := mod(k, t), mod(k+1, t)
	pos := fmt.Sprintf("step %d/%d", k+1, steps)
	hop0 := fmt.Sprintf("chunk 0: G%d → G%d", from, to)
	return fitSpans(w,
		[]span{{pos, stBold}, {" · " + f.phase.String(), stWarn}, {fmt.Sprintf(" · every G i sends %s to G i+1, %s · ", chunk, verb), stPlain}, {hop0 + zero, stHighlight}},
		[]span{{pos, stBold}, {" · " + f.phase.String(), stWarn}, {fmt.Sprintf(" · G i sends %s → G i+1 · ", chunk), stPlain}, {hop0, stHighlight}},
		[]span{{pos, stBold}, {" · " + f.phase.String(), stWarn}, {" · ", stPlain}, {hop0, stHighlight}},
		[]span{{fmt.Sprintf("%d/%d ", k+1, steps), stBold}, {shortPhase(f.phase), stWarn}, {fmt.Sprintf(" · 0: G%d→G%d", from, to), stHighlight}},
		[]span{{fmt.Sprintf("%d/%d ", k+1, steps), stBold}, {shortPhase(f.phase), stWarn}},
	)
}

func shortPhase(p Phase) string {
	switch p {
	case ReduceScatter:
		return "RS"
	case AllGather:
		return "AG"
	}
	return p.String()
}

func legend(t int, kind ringKind, w int) string {
	if kind == ringCompact {
		return fit(w,
			fmt.Sprintf("every GPU sends one chunk to the next each step, all %d links at once · ⇒ carries chunk 0", t),
			"all links busy each step · ⇒ carries chunk 0", "⇒ chunk 0")
	}
	marker := ""
	if kind >= ringFull {
		marker = " · ^ being sent"
	}
	return fit(w,
		fmt.Sprintf("cells = chunks 0…%d: ▁ own share … █ summed over all %d GPUs · ≈ busy link, digit = chunk in flight%s", t-1, t, marker),
		fmt.Sprintf("chunks 0…%d: ▁ own … █ reduced · ≈ busy link, digit = chunk%s", t-1, marker),
		"▁ own … █ reduced · ≈ busy")
}

// compactRing is the ring on one line, G0→G1→…→G0, with the hop carrying chunk 0 as ⇒; too long
// a ring shows a window around that hop.
func compactRing(f frame, w int) []span {
	n := len(f.ids)
	type piece struct{ node, arrow span }
	pieces := make([]piece, n)
	hl := -1
	for d := 0; d < n; d++ {
		h := f.hop(d)
		a := span{"→", stAxis}
		switch {
		case h.gapped:
			a = span{"→…→", stAxis}
		case h.highlight:
			a, hl = span{"⇒", stHighlight}, d
		case h.active:
			a = span{"→", stComm}
		}
		pieces[d] = piece{span{"G" + strconv.Itoa(f.ids[d]), stBold}, a}
	}
	closing := span{"G" + strconv.Itoa(f.ids[0]), stBold}
	build := func(s, e int) []span { // nodes s…e (e may be n, the closing G0)
		var out []span
		if s > 0 {
			out = append(out, span{"…→", stAxis})
		}
		for d := s; d < e; d++ {
			out = append(out, pieces[d].node, pieces[d].arrow)
		}
		if e == n {
			out = append(out, closing)
		} else {
			out = append(out, pieces[e].node, span{"→…", stAxis})
		}
		return out
	}
	full := build(0, n)
	if spansWidth(full) <= w {
		return full
	}
	s, e := 0, 1
	if hl >= 0 {
		s, e = hl, hl+1
	}
	for grown := true; grown; {
		grown = false
		if e < n && spansWidth(build(s, e+1)) <= w {
			e++
			grown = true
		}
		if s > 0 && spansWidth(build(s-1, e)) <= w {
			s--
			grown = true
		}
	}
	return build(s, e)
}

// drawBoxes draws the GPUs as boxes on a two-row rectangle with the arrows between neighbours.
func drawBoxes(cv *canvas, g ringGeo, f frame, x0, y0, vgap int) {
	slots := ringSlots(g.n)
	boxX := func(col int) int { return x0 + col*(g.boxW+g.gap) }
	rowY := func(row int) int { return y0 + row*(g.boxH+vgap) }
	for d := 0; d < g.n; d++ {
		drawBox(cv, g, f, d, boxX(slots[d].col), rowY(slots[d].row))
	}
	// Arrows run along the row of chunk cells.
	mid := func(row int) int { return rowY(row) + 1 + b2i(g.boxH >= 5) }
	for d := 0; d < g.n; d++ {
		h := f.hop(d)
		line, lab := h.styles()
		glyph := '─'
		if h.active {
			glyph = '≈'
		} else if h.gapped {
			glyph = '┄'
		}
		from, to := slots[d], slots[(d+1)%g.n]
		switch {
		case from.row == 0 && to.row == 0: // rightwards along the top
			x := boxX(from.col) + g.boxW
			cv.fill(x, mid(0), g.gap, glyph, line)
			cv.set(x+g.gap-1, mid(0), '→', line)
			room := g.gap - 1 - textWidth(h.label)
			cv.text(x+int(math.Round(f.frac*float64(room))), mid(0), h.label, lab)
		case from.row == 1 && to.row == 1: // leftwards along the bottom
			x := boxX(to.col) + g.boxW
			cv.fill(x, mid(1), g.gap, glyph, line)
			cv.set(x, mid(1), '←', line)
			room := g.gap - 1 - textWidth(h.label)
			cv.text(x+1+room-int(math.Round(f.frac*float64(room))), mid(1), h.label, lab)
		case from.row == 0: // down the right end
			xv := boxX(from.col) + g.boxW - 2
			y := rowY(0) + g.boxH
			for i := 0; i < vgap; i++ {
				r := '│'
				if i == vgap-1 {
					r = '↓'
				}
				cv.set(xv, y+i, r, line)
			}
			cv.text(xv+1, y+min(int(f.frac*float64(vgap)), vgap-1), h.label, lab)
		default: // back up the left end
			xv := boxX(0) + 1
			y := rowY(0) + g.boxH
			if to.col == from.col { // even: straight up
				for i := 0; i < vgap; i++ {
					r := '│'
					if i == 0 {
						r = '↑'
					}
					cv.set(xv, y+i, r, line)
				}
				cv.text(xv+1, y+vgap-1-min(int(f.frac*float64(vgap)), vgap-1), h.label, lab)
				break
			}
			// odd: the bottom-left slot is empty; the path runs left under it, then up.
			yh := mid(1)
			x1 := boxX(from.col) - 1
			for x := xv + 1; x <= x1; x++ {
				cv.set(x, yh, glyph, line)
			}
			cv.set(xv, yh, '└', line)
			for yy := y; yy < yh; yy++ {
				r := '│'
				if yy == y {
					r = '↑'
				}
				cv.set(xv, yy, r, line)
			}
			room := x1 - xv - textWidth(h.label)
			cv.text(xv+1+room-int(math.Round(f.frac*float64(room-1))), yh, h.label, lab)
		}
	}
}

// drawGPUFrame draws a GPU's box at x, y: its border, with "G<id>" in the top one.
func drawGPUFrame(cv *canvas, g ringGeo, id, x, y int) {
	cv.set(x, y, '╭', stAxis)
	cv.fill(x+1, y, g.inner, '─', stAxis)
	cv.set(x+g.boxW-1, y, '╮', stAxis)
	cv.text(x+1, y, "G"+strconv.Itoa(id), stBold)
	for r := 1; r < g.boxH-1; r++ {
		cv.set(x, y+r, '│', stAxis)
		cv.set(x+g.boxW-1, y+r, '│', stAxis)
	}
	cv.set(x, y+g.boxH-1, '╰', stAxis)
	cv.fill(x+1, y+g.boxH-1, g.inner, '─', stAxis)
	cv.set(x+g.boxW-1, y+g.boxH-1, '╯', stAxis)
}

// drawBox draws drawn GPU d: its name in the top border, the chunk numbers (in boxes of 5 rows),
// one cell per chunk showing how much of it is summed, and a caret under the chunk it sends (in
// boxes of 4 rows or more).
func drawBox(cv *canvas, g ringGeo, f frame, d, x, y int) {
	id := f.ids[d]
	t := f.t
	drawGPUFrame(cv, g, id, x, y)

	numbers := g.boxH >= 5
	cells := y + 1 + b2i(numbers)
	sent := -1
	if f.phase != Done {
		sent = sentChunk(id, f.k, t)
	}
	off := x + 1 + center(g.cells*g.cw, g.inner)
	for j := 0; j < g.cells; j++ {
		lo, hi := j*t/g.cells, (j+1)*t/g.cells
		// A cell standing for many chunks averages a sample of them; a huge TP stays cheap.
		stride := max(1, (hi-lo)/64)
		sum, n := 0, 0
		for c := lo; c < hi; c += stride {
			sum += chunkCount(id, c, f.k, t)
			n++
		}
		shares := float64(sum) / float64(max(n, 1))
		st := stValue
		switch {
		case sent >= lo && sent < hi:
			st = stHighlight
		case shares >= float64(t):
			st = stOK
		}
		cx := off + j*g.cw
		cv.fill(cx, cells, g.cw, levelGlyph(shares, t), st)
		if numbers {
			n := strconv.Itoa(lo)
			if textWidth(n) > g.cw {
				n = n[len(n)-g.cw:] // a ruler: the last digit
			}
			if textWidth(n) <= g.cw {
				cv.text(cx+g.cw-textWidth(n), y+1, n, stDim)
			}
		}
		if g.boxH >= 4 && sent >= lo && sent < hi {
			cv.fill(cx, cells+1, g.cw, '^', stWarn)
		}
	}
}
