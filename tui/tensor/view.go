package tensor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// View renders the pane in exactly its size.
func (m *Model) View() string {
	if m.h < 1 {
		return ""
	}
	if m.w < 1 {
		return strings.Repeat("\n", m.h-1)
	}
	m.cv.reset(m.w, m.h)
	m.draw(&m.cv)
	pal := &m.pal
	if m.data.Stale {
		pal = &m.dimPal
	}
	return m.cv.render(pal, &m.plain)
}

// ringKind is how much of the ring fits.
type ringKind uint8

const (
	ringNone    ringKind = iota // TP = 1
	ringCompact                 // one line: G0→G1→…→G0
	ringMedium                  // boxes with each GPU's chunks
	ringFull                    // and a marker under the chunk being sent
	ringBig                     // and the chunk numbers
)

// plan is what the pane shows at its size, chosen in plan().
type plan struct {
	barLabels, thick, axisTicks, gapBars, gapNums bool
	segList                                       bool
	// arLine: the collective's line (always with TP > 1; TP = 1: what TP would do); noteLine:
	// what each GPU moves; legendLine: the formula's symbols.
	arLine, noteLine, legendLine bool
	ringHeader, legend, explain  bool
	ring                         ringKind
	vgap                         int
	geo                          ringGeo
	anim                         animKind
	curve                        curveKind
	plotH                        int
	gapCurve                     bool
	// a2a: the all-to-all's drawing, its lines (0: none; a2aMinLines: its header and a strip).
	a2a int
	// cp: the CP exchange's drawing, its lines (0: none; cpMinLines or cpFullLines).
	cp int
}

// layer is what the pane draws, gathered from the data once a view.
type layer struct {
	t         int
	infer     bool
	rows      [][]costmodel.Segment // forward (or the decode step), then backward
	names     []string
	totals    []float64
	maxTotal  float64
	nComm     int     // TP collectives per layer
	nRegather int     // of which sequence parallelism's extra all-gathers for the weight gradients
	nEP       int     // expert-parallel all-to-alls per layer (a MoE layer under EP)
	ep        float64 // their time in the layer, all rows
}

func (m *Model) layer() layer {
	d := m.data.Report.Detail.Layer
	ly := layer{t: m.tp(), infer: m.data.Scenario.Workload.Mode == model.Infer || m.data.Report.Inference != nil}
	if len(d.Forward) > 0 {
		ly.rows = append(ly.rows, d.Forward)
		if ly.infer {
			ly.names = append(ly.names, "step")
		} else {
			ly.names = append(ly.names, "fwd")
		}
	}
	if len(d.Backward) > 0 && !ly.infer {
		ly.rows = append(ly.rows, d.Backward)
		ly.names = append(ly.names, "bwd")
	}
	for _, r := range ly.rows {
		tot := 0.0
		for _, s := range r {
			tot += segDur(s)
			if s.Kind == costmodel.SegTPComm {
				ly.nComm++
				if strings.Contains(s.Label, "wgrad") {
					ly.nRegather++
				}
			}
			if s.Kind == costmodel.SegEPComm && segDur(s) > 0 {
				ly.nEP++
				ly.ep += segDur(s)
			}
		}
		ly.totals = append(ly.totals, tot)
		ly.maxTotal = max(ly.maxTotal, tot)
	}
	return ly
}

func segDur(s costmodel.Segment) float64 {
	d := s.End - s.Start
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		return 0
	}
	return d
}

// draw lays the pane out on the canvas.
func (m *Model) draw(cv *canvas) {
	w, h := cv.w, cv.h
	if !m.has {
		cv.text(0, 0, fit(w, "Tensor: no result yet", "no result"), stDim)
		return
	}
	ly := m.layer()
	p := m.plan(ly, w, h)
	y := 0
	m.drawHeader(cv, ly, y)
	y++
	y = m.drawBars(cv, ly, p, y)
	if p.gapBars {
		y++
	}
	y = m.drawNumbers(cv, ly, p, y)
	if p.gapNums {
		y++
	}
	if p.curve != curveNone {
		y = m.drawCurve(cv, p, y)
		if p.gapCurve {
			y++
		}
	}
	if p.ring != ringNone {
		y = m.drawAnim(cv, ly, p, y)
	}
	if p.a2a > 0 {
		m.drawA2A(cv, y, y+p.a2a)
		y += p.a2a
	}
	if p.cp > 0 {
		m.drawCP(cv, y, y+p.cp)
	}
}

// plan picks the richest layout that fits: features join in order of importance while lines
// are left.
func (m *Model) plan(ly layer, w, h int) plan {
	var p plan
	nb := max(len(ly.rows), 1)
	hasRing := ly.t > 1
	if hasRing {
		p.ring = ringCompact
		p.arLine = true // the collective's line: what runs, how, how long
	}
	p.anim = m.coll.anim
	p.vgap = 1
	height := func() int {
		n := 1 + nb + 1 // header, bars, axis labels
		if p.barLabels {
			n += nb
		}
		if p.thick {
			n += nb
		}
		if p.axisTicks {
			n++
		}
		if p.segList {
			n += nb
		}
		if p.gapBars {
			n++
		}
		n += 2 // numbers: shares, formula (TP = 1: the note and one line)
		if ly.nEP > 0 && hasRing {
			n++ // the all-to-all's line
		}
		n += b2i(p.arLine) + b2i(p.noteLine) + b2i(p.legendLine) + b2i(p.gapNums)
		n += curveRows(p.curve, p.plotH) + b2i(p.gapCurve)
		n += p.a2a + p.cp
		if hasRing {
			n += 1 + p.ringHeight() // caption and drawing
			if p.ringHeader {
				n++
			}
			if p.legend {
				n++
			}
			if p.explain {
				n += 2
			}
		}
		return n
	}
	try := func(ok bool, set func(), undo func()) {
		if !ok {
			return
		}
		set()
		if height() > h {
			undo()
		}
	}
	flag := func(ok bool, f *bool) { try(ok, func() { *f = true }, func() { *f = false }) }
	curve := func(k curveKind, rows int) {
		old, oldH := p.curve, p.plotH
		try(hasRing && curveFits(k, w) && (k > p.curve || rows > p.plotH), func() { p.curve, p.plotH = k, rows }, func() { p.curve, p.plotH = old, oldH })
	}
	flag(true, &p.barLabels)
	a2aFull := a2aLines(m.ep())
	try(ly.nEP > 0 && m.a2aOn(), func() { p.a2a = a2aMinLines }, func() { p.a2a = 0 })
	try(m.cpOn(), func() { p.cp = cpMinLines }, func() { p.cp = 0 })
	curve(curveSpark, 0)
	flag(hasRing, &p.ringHeader)
	flag(!hasRing, &p.arLine)
	flag(hasRing && m.coll.gist(w) != "", &p.noteLine)
	flag(true, &p.axisTicks)
	flag(true, &p.gapNums)
	curve(curvePlot, 3)
	upgrade := func(k ringKind) {
		if g, ok := m.animGeometry(ly.t, w-ringIndent(w), k); ok && p.ring == k-1 {
			old, oldGeo := p.ring, p.geo
			try(true, func() { p.ring, p.geo = k, g }, func() { p.ring, p.geo = old, oldGeo })
		}
	}
	if hasRing {
		upgrade(ringMedium)
	}
	flag(hasRing, &p.legend) // what the drawing's cells and arrows mean, before more of it
	try(p.a2a > 0, func() { p.a2a = a2aFull }, func() { p.a2a = a2aMinLines })
	try(p.cp > 0, func() { p.cp = cpFullLines }, func() { p.cp = cpMinLines })
	if hasRing {
		upgrade(ringFull)
	}
	flag(true, &p.gapBars)
	flag(p.curve != curveNone, &p.gapCurve)
	flag(hasRing && w >= 80, &p.explain)
	ringOnly := p.anim == animRing && p.ring >= ringMedium
	try(ringOnly, func() { p.vgap = 2 }, func() { p.vgap = 1 })
	if hasRing {
		upgrade(ringBig)
	}
	for _, rows := range []int{4} {
		if p.curve == curvePlot {
			curve(curvePlot, rows)
		}
	}
	flag(len(ly.rows) > 0, &p.segList)
	flag(hasRing && m.coll.f.Legend != "" && textWidth(m.coll.f.Legend) <= w, &p.legendLine)
	try(ringOnly && p.vgap == 2, func() { p.vgap = 3 }, func() { p.vgap = 2 })
	for _, rows := range []int{6, 8} {
		if p.curve == curvePlot {
			curve(curvePlot, rows)
		}
	}
	flag(len(ly.rows) > 0, &p.thick)
	return p
}

func (p plan) ringHeight() int {
	switch p.ring {
	case ringCompact:
		return 1
	case ringMedium, ringFull, ringBig:
		switch p.anim {
		case animRing:
			return 2*p.geo.boxH + p.vgap
		case animTree:
			return p.geo.rows
		}
		return 2*p.geo.boxH + fabricGap
	}
	return 0
}

// animGeometry sizes the drawing of today's algorithm in avail columns; false when that kind of
// drawing does not fit (or does not exist: the tree has one size).
func (m *Model) animGeometry(t, avail int, kind ringKind) (ringGeo, bool) {
	switch m.coll.anim {
	case animRing:
		return ringGeometry(t, avail, kind)
	case animTree:
		if kind != ringMedium || avail < 36 {
			return ringGeo{}, false
		}
		return ringGeo{rows: treeRows(m.coll.nodes)}, true
	}
	return ringGeometry(m.coll.fabricGPUs(), avail, kind)
}

func ringIndent(w int) int {
	if w >= 40 {
		return 2
	}
	return 0
}

// fit returns the first variant that fits in w cells, else the last.
func fit(w int, vs ...string) string {
	for _, v := range vs {
		if textWidth(v) <= w {
			return v
		}
	}
	return vs[len(vs)-1]
}

// fitSpans returns the first variant that fits in w cells, else the last.
func fitSpans(w int, vs ...[]span) []span {
	for _, v := range vs {
		if spansWidth(v) <= w {
			return v
		}
	}
	return vs[len(vs)-1]
}

func (m *Model) drawHeader(cv *canvas, ly layer, y int) {
	x := 0
	if m.data.Stale {
		x = cv.text(0, y, "last valid result · ", stWarn)
	}
	what := "training: forward and backward"
	if ly.infer {
		what = "one decode step"
	}
	link := m.data.Report.Detail.TPLink
	id := ""
	if a := m.data.Scenario.Arch.ID; a != "" {
		id = " · " + a
	}
	t := ly.t
	head := fitSpans(cv.w-x,
		[]span{{"One layer on one GPU of the TP group", stBold}, {fmt.Sprintf(" · t = %d · %s · %s, to scale%s", t, link, what, id), stSub}},
		[]span{{"One layer on one GPU", stBold}, {fmt.Sprintf(" · t = %d · %s · %s", t, link, what), stSub}},
		[]span{{"One layer, one GPU", stBold}, {fmt.Sprintf(" · t=%d · %s", t, shortMode(ly.infer)), stSub}},
		[]span{{"1 layer", stBold}, {fmt.Sprintf(" t=%d", t), stSub}},
	)
	cv.spans(x, y, head...)
}

func shortMode(infer bool) string {
	if infer {
		return "decode step"
	}
	return "train"
}

// barGeom is where the bars go: the row label's width, the bars' width and the totals' width.
func barGeom(w int) (lw, bw, tw int) {
	switch {
	case w >= 60:
		lw, tw = 5, 10
	case w >= 24:
		lw = 5
	}
	return lw, max(w-lw-tw, 1), tw
}

// drawBars draws the layer's bars to one scale, their labels and the axis; it returns the next line.
func (m *Model) drawBars(cv *canvas, ly layer, p plan, y int) int {
	lw, bw, tw := barGeom(cv.w)
	if len(ly.rows) == 0 {
		cv.text(0, y, fit(cv.w, "no layer detail in this result", "no layer detail"), stDim)
		return y + 1 + b2i(p.barLabels) + 1 + b2i(p.axisTicks) + b2i(p.thick)
	}
	for r, segs := range ly.rows {
		cols := barCols(ly.totals[r], ly.maxTotal, bw)
		durs := make([]float64, len(segs))
		for i, s := range segs {
			durs[i] = segDur(s)
		}
		sc := segmentCols(durs, cols)
		if lw > 0 {
			cv.text(0, y, ly.names[r], stLabel)
		}
		x := lw
		alt := false // compute segments in a row alternate █ and ▓
		for i, s := range segs {
			c := sc[i]
			if c == 0 {
				continue
			}
			if isComm(s.Kind) {
				alt = false
			} else if i > 0 && sc[i-1] > 0 && !isComm(segs[i-1].Kind) {
				alt = !alt
			}
			glyph, fill, txt := theme.GlyphCompute, stComputeFill, stCompute
			margin := 4 // a label keeps a fill glyph each side, so the segment shows without colour
			switch {
			case isComm(s.Kind):
				glyph, fill, txt = theme.GlyphComm, stComm, stComm
			case s.Kind == costmodel.SegMemory:
				glyph = '▒'
			case alt:
				glyph = '▓'
			}
			rows := 1 + b2i(p.thick)
			for k := 0; k < rows; k++ {
				cv.fill(x, y+k, c, glyph, fill)
			}
			inside := ""
			for _, l := range []string{s.Label, shortLabel(s.Label)} {
				if l != "" && textWidth(l)+margin <= c {
					inside = " " + l + " "
					break
				}
			}
			if inside != "" {
				cv.text(x+center(textWidth(inside), c), y, inside, txt)
			}
			if p.barLabels {
				d := static.Seconds(durs[i])
				var vs []string
				if inside == "" {
					vs = []string{s.Label + " " + d, d, shortLabel(s.Label)}
				} else {
					vs = []string{d, strings.Replace(d, " ", "", 1)}
				}
				for _, v := range vs {
					if v != "" && textWidth(v)+1 <= c {
						st := stSub
						if isComm(s.Kind) {
							st = stWarn
						}
						cv.text(x+center(textWidth(v), c), y+rows, v, st)
						break
					}
				}
			}
			x += c
		}
		if tw > 0 {
			cv.text(x+1, y, static.Seconds(ly.totals[r]), stValue)
		}
		y += 1 + b2i(p.thick) + b2i(p.barLabels)
	}
	y = drawAxis(cv, ly, p, y, lw, bw, tw)
	if p.segList {
		for r, segs := range ly.rows {
			cv.spans(0, y, segList(ly.names[r], segs, ly.totals[r], cv.w)...)
			y++
		}
	}
	return y
}

// isComm says a segment is communication inside the layer: TP's collectives or the MoE
// all-to-alls of expert parallelism (drawn alike; only TP's count in the TP share).
func isComm(k costmodel.SegmentKind) bool {
	return k == costmodel.SegTPComm || k == costmodel.SegEPComm
}

// segList spells a bar out: each segment's duration, the total and the comm share.
func segList(name string, segs []costmodel.Segment, total float64, w int) []span {
	long := []span{{name + ": ", stLabel}}
	medium := []span{{name + ": ", stLabel}}
	short := []span{{name + ": ", stLabel}}
	comm, ep := 0.0, 0.0
	for i, s := range segs {
		st := stValue
		if isComm(s.Kind) {
			st = stWarn
		}
		if s.Kind == costmodel.SegTPComm {
			comm += segDur(s)
		}
		if s.Kind == costmodel.SegEPComm {
			ep += segDur(s)
		}
		sep := ""
		if i > 0 {
			sep = " + "
		}
		long = append(long, span{sep + s.Label + " ", stLabel}, span{static.Seconds(segDur(s)), st})
		if l := shortLabel(s.Label); l != "" {
			medium = append(medium, span{sep + l + " ", stLabel}, span{static.Seconds(segDur(s)), st})
		} else {
			medium = append(medium, span{sep, stLabel}, span{static.Seconds(segDur(s)), st})
		}
		short = append(short, span{sep, stLabel}, span{static.Seconds(segDur(s)), st})
	}
	tail := []span{{" = ", stLabel}, {static.Seconds(total), stBold}}
	if comm > 0 && total > 0 {
		tail = append(tail, span{", TP comm ", stLabel}, span{static.Percent(comm / total), stWarn})
	}
	if ep > 0 && total > 0 {
		tail = append(tail, span{", EP comm ", stLabel}, span{static.Percent(ep / total), stWarn})
	}
	return fitSpans(w, append(long, tail...), append(medium, tail...), append(short, tail...), medium, short)
}

// drawAxis draws the time axis under the bars: ticks at a 1-2-5 step, labelled where they do not
// collide; it returns the next line.
func drawAxis(cv *canvas, ly layer, p plan, y, lw, bw, tw int) int {
	step := niceStep(ly.maxTotal, max(bw/11, 1))
	if p.axisTicks {
		cv.fill(lw, y, bw, '─', stAxis)
	}
	last := -1
	for i := 0; step > 0 && i <= 1000; i++ {
		v := float64(i) * step
		if v > ly.maxTotal*(1+1e-9) {
			break
		}
		col := lw + min(int(math.Round(v/ly.maxTotal*float64(bw))), bw-1)
		yl := y + b2i(p.axisTicks)
		if p.axisTicks {
			cv.set(col, y, '┬', stAxis)
		}
		lab := "0"
		if i > 0 {
			lab = static.Seconds(v)
		}
		if col > last && col+textWidth(lab) <= lw+bw+tw {
			last = cv.text(col, yl, lab, stAxis)
		}
	}
	if lw > 0 {
		cv.text(0, y+b2i(p.axisTicks), "time", stLabel)
	}
	return y + 1 + b2i(p.axisTicks)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shortLabel abbreviates the cost model's segment labels for narrow segments.
func shortLabel(l string) string {
	switch l {
	case "attention":
		return "attn"
	case "all-reduce":
		return "AR"
	case "mlp bwd":
		return "mlp"
	case "attention bwd":
		return "attn"
	case "weight grads":
		return "wgrad"
	case "recompute":
		return "rc"
	case "reduce-scatter":
		return "RS"
	case "all-gather":
		return "AG"
	case "all-to-all":
		return "A2A"
	}
	if len(l) > 4 {
		return ""
	}
	return l
}

// decBytes formats bytes with decimal prefixes, like the link bandwidths: "33.6 MB".
func decBytes(b float64) string { return static.DecBytes(b) }

// coef formats 2(t−1)/t.
func coef(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// drawNumbers writes TP degree, link, comm shares, one all-reduce and its formula.
func (m *Model) drawNumbers(cv *canvas, ly layer, p plan, y int) int {
	w := cv.w
	r := m.data.Report
	d := r.Detail
	if ly.t <= 1 && ly.nEP > 0 {
		return m.drawEPNumbers(cv, ly, p, y)
	}
	if ly.t <= 1 {
		cv.text(0, y, fit(w, "TP = 1: no tensor-parallel communication", "TP = 1: no TP comm", "TP=1"), stBold)
		y++
		var tot []string
		for i, n := range ly.names {
			tot = append(tot, static.Seconds(ly.totals[i])+" "+n)
		}
		cv.text(0, y, fit(w, "each GPU runs the whole layer: "+strings.Join(tot, " + "), strings.Join(tot, " + ")), stSub)
		y++
		if p.arLine {
			cv.text(0, y, fit(w,
				"with t > 1 each GPU computes 1/t of the layer, then all-reduces its output: twice in forward, twice in backward",
				"with t > 1: 1/t of the layer per GPU, plus all-reduces",
				""), stSub)
			y++
		}
		return y
	}
	layerShare := static.Percent(d.Layer.CommShare)
	stepShare := "n/a"
	if r.StepTime > 0 {
		stepShare = static.Percent(r.Breakdown.TPComm / r.StepTime)
	}
	stepWhat := "step"
	if ly.infer {
		stepWhat = "run"
	}
	l1 := fitSpans(w,
		[]span{{"TP ", stLabel}, {fmt.Sprintf("t = %d", ly.t), stBold}, {" · link ", stLabel}, {d.TPLink, stBold},
			{" · TP comm ", stLabel}, {layerShare, stWarn}, {" of the layer, ", stLabel}, {stepShare, stWarn},
			{fmt.Sprintf(" of the %s (%s of %s)", stepWhat, static.Seconds(r.Breakdown.TPComm), static.Seconds(r.StepTime)), stLabel}},
		[]span{{"TP ", stLabel}, {fmt.Sprintf("t = %d", ly.t), stBold}, {" · ", stLabel}, {d.TPLink, stBold},
			{" · comm ", stLabel}, {layerShare, stWarn}, {" of layer, ", stLabel}, {stepShare, stWarn}, {" of " + stepWhat, stLabel}},
		[]span{{fmt.Sprintf("t=%d ", ly.t), stBold}, {d.TPLink, stBold}, {" · comm ", stLabel}, {layerShare, stWarn},
			{" layer ", stLabel}, {stepShare, stWarn}, {" " + stepWhat, stLabel}},
		[]span{{fmt.Sprintf("t=%d ", ly.t), stBold}, {"comm ", stLabel}, {layerShare, stWarn}},
	)
	cv.spans(0, y, l1...)
	y++
	c := &m.coll
	if !c.ok {
		// No collective in the report (a hand-made or broken result): the all-reduce as timed.
		cv.spans(0, y, fitSpans(w,
			[]span{{"one all-reduce: ", stLabel}, {"S = " + decBytes(d.TPAllReduceBytes), stBold}, {" → ", stPlain}, {static.Seconds(d.TPAllReduceS), stWarn}},
			[]span{{"S=" + decBytes(d.TPAllReduceBytes) + " ", stBold}, {static.Seconds(d.TPAllReduceS), stWarn}},
		)...)
		y++
		cv.text(0, y, fit(w, "no collective detail in this result", "no detail"), stDim)
		return y + 1 + b2i(p.noteLine) + b2i(p.legendLine)
	}
	what := " (b·s·h·e)"
	if ly.infer {
		what = " (b·h·e, b sequences a token each)"
	}
	cv.spans(0, y, fitSpans(w, c.headerVariants(what, ly.nComm-ly.nRegather, ly.nRegather, ly.infer)...)...)
	y++
	cv.spans(0, y, fitSpans(w, c.formulaVariants()...)...)
	y++
	if ly.nEP > 0 {
		cv.spans(0, y, m.a2aLine(ly, w)...)
		y++
	}
	if p.noteLine {
		cv.text(0, y, c.gist(w), stSub)
		y++
	}
	if p.legendLine {
		cv.text(0, y, fit(w, c.f.Legend, ""), stSub)
		y++
	}
	return y
}
