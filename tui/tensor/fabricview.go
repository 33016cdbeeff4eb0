package tensor

import (
	"fmt"
	"math"
	"strconv"
)

// The drawing of the algorithms that go through the fabric rather than round a ring: NVLS (the
// GPUs write to the NVSwitch, which adds and multicasts the sum back) and the serving engine's
// one-shot and two-shot kernels (every GPU reads its peers' buffers over NVLink). The GPUs sit
// in two rows as in the ring drawing, the switch (or the NVLink fabric) between them as a band,
// each GPU joined to it by a vertical link.

// fabricGap is the rows between the two rows of GPUs: the top row's links, the band, the bottom
// row's links.
const fabricGap = 3

// fabricGPUs is how many GPUs the drawing stands for: a node's for NVLS+tree, else the group.
func (c *coll) fabricGPUs() int {
	if c.anim == animNVLS && c.nodes > 1 {
		return c.local
	}
	return c.t
}

// drawFabric draws the GPUs, their links and the band from line y0.
func (m *Model) drawFabric(cv *canvas, g ringGeo, f frame, x0, y0 int) {
	top := g.top
	boxX := func(col int) int { return x0 + col*(g.boxW+g.gap) }
	rowY := func(row int) int { return y0 + row*(g.boxH+fabricGap) }
	bandY := y0 + g.boxH + 1
	for d := 0; d < g.n; d++ {
		row, col := 0, d
		if d >= top {
			row, col = 1, d-top
		}
		m.drawFabricBox(cv, g, f, d, boxX(col), rowY(row))
		// The link to the band.
		cx := boxX(col) + g.boxW/2
		above, below, lab, st := m.fabricLink(f)
		ly, glyph := y0+g.boxH, above
		if row == 1 {
			ly, glyph = bandY+1, below
		}
		cv.set(cx, ly, glyph, st)
		if lab != "" {
			cv.text(cx+1, ly, lab, st)
		}
	}
	// The band: the NVSwitch or the NVLink fabric, across the drawing.
	bw := top*g.boxW + (top-1)*g.gap
	if bw < 4 {
		return
	}
	label, on := m.fabricBand(f, bw-4)
	st := stAxis
	if on {
		st = stComm
	}
	cv.set(x0, bandY, '╞', st)
	cv.fill(x0+1, bandY, bw-2, '═', stAxis)
	if on { // the traffic's progress through this step
		cv.fill(x0+1, bandY, int(f.frac*float64(bw-2)+0.5), '≈', stComm)
	}
	cv.set(x0+bw-1, bandY, '╡', st)
	if label != "" {
		cv.text(x0+center(textWidth(label), bw), bandY, label, stBold)
	}
}

// fabricLink is how a GPU's link to the band looks this step: the glyph for a GPU above the band
// and one below it, a label and a style.
func (m *Model) fabricLink(f frame) (above, below rune, label string, st style) {
	c := &m.coll
	if c.anim != animNVLS {
		if f.k < c.steps() {
			return '↕', '↕', "", stComm
		}
		return '│', '│', "", stAxis
	}
	switch ph, _ := c.treeStep(f.k); ph {
	case chainUp: // the GPUs write their S
		return '↓', '↑', "S", stComm
	case chainDown: // the switch multicasts the sum
		return '↑', '↓', "Σ", stOK
	}
	return '│', '│', "", stAxis
}

// fabricBand is the band's label this step, at most w cells, and whether traffic is on it.
func (m *Model) fabricBand(f frame, w int) (string, bool) {
	c := &m.coll
	active := f.k < c.steps()
	switch c.anim {
	case animNVLS:
		ph, j := c.treeStep(f.k)
		switch ph {
		case chainUp:
			return fit(w, fmt.Sprintf(" NVSwitch: adds the %d GPUs' S as they arrive ", c.local), " NVSwitch: Σ ", " Σ ", ""), true
		case chainDown:
			return fit(w, " NVSwitch: multicasts the sum to every GPU ", " NVSwitch: Σ → all ", " Σ ", ""), true
		case treeUp:
			return fit(w, fmt.Sprintf(" NVSwitch: node sum up the tree, level %d → %d ", c.depth-j, c.depth-j-1), " NVSwitch ⇅ tree ", " ⇅ ", ""), false
		case treeDown:
			return fit(w, fmt.Sprintf(" NVSwitch: total down the tree, level %d → %d ", j, j+1), " NVSwitch ⇅ tree ", " ⇅ ", ""), false
		}
		return fit(w, " NVSwitch ", ""), false
	case animOneShot:
		return fit(w, fmt.Sprintf(" NVLink: every GPU reads its %d peers' buffers (CUDA IPC) ", f.t-1), " NVLink: reads from every peer ", " NVLink ", ""), active
	}
	if f.k == 0 {
		return fit(w, " NVLink: G i reads slice i from every peer ", " NVLink: slice i from each peer ", " NVLink ", ""), true
	}
	return fit(w, " NVLink: G i reads the other sums from their owners ", " NVLink: the sums from each owner ", " NVLink ", ""), active
}

// drawFabricBox draws drawn GPU d: its name, its buffer's cells (how much of the sum each holds)
// and, for NVLS's write, a caret under the part already sent.
func (m *Model) drawFabricBox(cv *canvas, g ringGeo, f frame, d, x, y int) {
	id := f.ids[d]
	drawGPUFrame(cv, g, id, x, y)

	numbers := g.boxH >= 5
	cells := y + 1 + b2i(numbers)
	off := x + 1 + center(g.cells*g.cw, g.inner)
	for j := 0; j < g.cells; j++ {
		shares, st, caret := m.fabricCell(f, id, j, g.cells)
		cx := off + j*g.cw
		cv.fill(cx, cells, g.cw, levelGlyph(shares, f.t), st)
		if numbers {
			n := strconv.Itoa(j * f.t / g.cells)
			if textWidth(n) > g.cw {
				n = n[len(n)-g.cw:]
			}
			cv.text(cx+g.cw-textWidth(n), y+1, n, stDim)
		}
		if caret && g.boxH >= 4 {
			cv.fill(cx, cells+1, g.cw, '^', stWarn)
		}
	}
}

// fabricCell is what cell j of n on GPU id holds this frame: how many GPUs' shares are summed
// in it (1 … t), its style, and whether it is being sent.
func (m *Model) fabricCell(f frame, id, j, n int) (shares float64, st style, caret bool) {
	c := &m.coll
	t := float64(f.t)
	// done(x) says cell j is reached by a sweep that has covered a fraction x of the cells.
	done := func(x float64) bool { return float64(j) < math.Floor(x*float64(n)+1e-9) }
	full := func() (float64, style, bool) { return t, stOK, false }
	own := func() (float64, style, bool) { return 1, stValue, false }
	switch c.anim {
	case animOneShot:
		if f.k >= 1 {
			return full()
		}
		return 1 + f.frac*(t-1), stHighlight, false
	case animTwoShot:
		mine := id * n / max(f.t, 1)
		switch {
		case f.k >= 2:
			return full()
		case j == mine && f.k == 0:
			return 1 + f.frac*(t-1), stHighlight, false
		case j == mine:
			return full()
		case f.k == 1:
			// The other slices arrive in turn, starting after its own.
			rank := (j - mine - 1 + n) % n
			if float64(rank) < f.frac*float64(n-1) {
				return full()
			}
			return 1, stHighlight, false
		}
		return own()
	}
	// NVLS.
	switch ph, _ := c.treeStep(f.k); ph {
	case chainUp:
		return 1, stValue, done(f.frac)
	case chainDown:
		if done(f.frac) {
			return full()
		}
		return 1, stHighlight, false
	case treeDone:
		return full()
	}
	return own()
}
