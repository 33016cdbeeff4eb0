package tensor

import (
	"math"
	"strconv"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/tui/static"
)

// The bus bandwidth of today's TP collective against the message size, as nccl-tests would
// measure it on the same communicator (log x, linear y), today's size marked and the ranges where
// each algorithm and protocol takes over named under the axis. The points are the collective
// model's, one per column, computed when the data or the width changes.

// curveKind is how much of the curve fits.
type curveKind uint8

const (
	curveNone  curveKind = iota
	curveSpark           // one row of eighths and a marker line
	curvePlot            // a chart: title, rows, axis, labels, algorithm bands
)

// curvePoint is the model's collective at one size.
type curvePoint struct {
	bytes, bus float64
	algo       collective.Algo
	proto      collective.Proto
}

// curve is the sweep drawn, cached per data and width.
type curve struct {
	rev, cols int
	lo, hi    float64 // bytes at the first and last column
	pts       []curvePoint
	top       float64 // the y axis' top, bytes/s
	maxBus    float64
	today     int     // today's column
	todayBus  float64 // today's bus bandwidth, bytes/s
	link      float64 // the per-GPU link bandwidth drawn as a reference (0: none)
}

// curveRange is the sizes the curve spans: 1 KiB to 16 GiB, stretched to hold today's size.
func curveRange(s float64) (lo, hi float64) {
	lo, hi = 1<<10, 16<<30
	if s > 0 && s < 4<<10 {
		lo = max(8, math.Exp2(math.Floor(math.Log2(s/4))))
	}
	if s > 4<<30 {
		hi = math.Exp2(math.Ceil(math.Log2(s * 4)))
	}
	return lo, hi
}

// sweep times today's communicator at cols sizes (the serving engine's choice where it runs the
// collective, NCCL's otherwise).
func (m *Model) sweep(cols int) *curve {
	c := &m.coll
	if m.cur.rev == m.rev && m.cur.cols == cols && m.cur.pts != nil {
		return &m.cur
	}
	cu := curve{rev: m.rev, cols: cols, pts: m.cur.pts[:0]}
	cu.lo, cu.hi = curveRange(c.use.Bytes)
	g, f := c.use.Group, c.use.Fabric
	n := c.use.Group.Ranks
	span := math.Log(cu.hi / cu.lo)
	for x := 0; x < cols; x++ {
		b := math.Round(cu.lo * math.Exp(span*float64(x)/float64(max(cols-1, 1))))
		var r collective.Result
		if c.use.Engine {
			r = collective.TimeEngine(c.op, b, g, f)
		} else {
			r = collective.Time(c.op, b, g, f, collective.Auto)
		}
		p := curvePoint{bytes: b, algo: r.Algo, proto: r.Proto}
		if r.Seconds > 0 {
			p.bus = b / r.Seconds * c.op.BusFactor(n)
		}
		cu.maxBus = max(cu.maxBus, p.bus)
		cu.pts = append(cu.pts, p)
	}
	if c.use.Seconds > 0 {
		cu.todayBus = c.use.Bytes / c.use.Seconds * c.op.BusFactor(n)
	}
	cu.today = int(math.Round(math.Log(c.use.Bytes/cu.lo) / span * float64(max(cols-1, 1))))
	cu.today = max(0, min(cu.today, cols-1))
	if c.nodes == 1 {
		cu.link = collective.GroupLink(f.Intra, n) // a mesh's links of the group, the PCIe path
	}
	cu.top = niceCeil(max(cu.maxBus, cu.link, cu.todayBus))
	m.cur = cu
	return &m.cur
}

// niceCeil is the smallest 1-2-2.5-5 × 10^k at or above x.
func niceCeil(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// eighths are a column's top cell, from empty to full.
var eighths = []rune(" ▁▂▃▄▅▆▇█")

// curveRows is the height of a curve kind with plotH chart rows.
func curveRows(k curveKind, plotH int) int {
	switch k {
	case curveSpark:
		return 2
	case curvePlot:
		return plotH + 4
	}
	return 0
}

// curveFits says whether a curve kind has room in w columns.
func curveFits(k curveKind, w int) bool {
	switch k {
	case curveSpark:
		return w >= 24
	case curvePlot:
		return w >= 44
	}
	return true
}

// drawCurve draws the curve from line y in the kind the plan chose.
func (m *Model) drawCurve(cv *canvas, p plan, y int) int {
	switch p.curve {
	case curveSpark:
		return m.drawSpark(cv, y)
	case curvePlot:
		return m.drawPlot(cv, p.plotH, y)
	}
	return y
}

// todayText is today's point: "S = 33.6 MB: 275 GB/s".
func (m *Model) todayText(cu *curve) string {
	return "S = " + static.DecBytes(m.coll.use.Bytes) + ": " + static.Bandwidth(cu.todayBus)
}

func (m *Model) drawSpark(cv *canvas, y int) int {
	w := cv.w
	lab := "busbw "
	cols := w - textWidth(lab) - 12 // and " ≤ 500 GB/s"
	if cols < 8 {
		return y + 2
	}
	cu := m.sweep(cols)
	x := cv.text(0, y, lab, stLabel)
	for i, pt := range cu.pts {
		lv := int(math.Round(pt.bus / cu.top * 8))
		st := stCurve
		if i == cu.today {
			st = stToday
		}
		cv.set(x+i, y, eighths[max(1, min(lv, 8))], st)
	}
	cv.text(x+cols, y, " ≤ "+static.Bandwidth(cu.top), stLabel)
	// The marker, and today's point on whichever side has room.
	mx := x + cu.today
	cv.set(mx, y+1, '▲', stToday)
	for _, txt := range []string{m.todayText(cu) + " · " + m.coll.name(), m.todayText(cu), static.DecBytes(m.coll.use.Bytes)} {
		l := textWidth(txt)
		if mx+2+l <= w {
			cv.text(mx+2, y+1, txt, stToday)
			break
		}
		if mx-1-l >= 0 {
			cv.text(mx-1-l, y+1, txt, stToday)
			break
		}
	}
	return y + 2
}

// drawPlot draws the chart: a title, h rows of bars, the size axis with today marked, its labels
// and the algorithm bands.
func (m *Model) drawPlot(cv *canvas, h, y int) int {
	w := cv.w
	c := &m.coll
	gw := 9 // the y labels' gutter: "1.00 TB/s"
	cols := w - gw - 1
	cu := m.sweep(cols)
	// Title.
	what := c.op.String()
	if c.pair {
		what = "reduce-scatter (and all-gather)"
	}
	ref := []span{}
	if cu.link > 0 {
		ref = []span{{" · ┄ link " + static.Bandwidth(cu.link), stAxis}}
	}
	cv.spans(0, y, fitSpans(w,
		append([]span{{"busbw vs message size", stBold}, {" · " + what + " on " + c.group() + ", " + c.links() + " · ", stLabel},
			{"▲ today " + m.todayText(cu), stToday}}, ref...),
		append([]span{{"busbw vs size", stBold}, {" · ", stLabel}, {"▲ " + m.todayText(cu), stToday}}, ref...),
		[]span{{"busbw vs size", stBold}, {" · ", stLabel}, {"▲ " + m.todayText(cu), stToday}},
		[]span{{"busbw ", stBold}, {"▲ " + m.todayText(cu), stToday}},
	)...)
	y++
	x0 := gw + 1
	// The y axis: its top and, on a tall chart, its middle.
	for r := 0; r < h; r++ {
		lab := ""
		switch {
		case r == 0:
			lab = static.Bandwidth(cu.top)
		case h >= 4 && h%2 == 0 && r == h/2:
			lab = static.Bandwidth(cu.top * float64(h-r) / float64(h))
		}
		if lab != "" {
			cv.text(gw-textWidth(lab), y+r, lab, stAxis)
			cv.set(gw, y+r, '┤', stAxis)
		} else {
			cv.set(gw, y+r, '│', stAxis)
		}
	}
	// The link's bandwidth as a dotted line, under the bars.
	linkRow := -1
	if cu.link > 0 && cu.link <= cu.top {
		linkRow = h - 1 - int(math.Floor(cu.link/cu.top*float64(h)-1e-9))
	}
	for i, pt := range cu.pts {
		lv := int(math.Round(pt.bus / cu.top * float64(8*h)))
		st := stCurve
		if i == cu.today {
			st = stToday
		}
		for r := 0; r < h; r++ {
			fill := lv - (h-1-r)*8
			switch {
			case fill > 0:
				cv.set(x0+i, y+r, eighths[min(fill, 8)], st)
			case i == cu.today:
				cv.set(x0+i, y+r, '│', stToday)
			case r == linkRow:
				cv.set(x0+i, y+r, '┄', stAxis)
			}
		}
	}
	y += h
	// The size axis: a tick at each decade, today's ▲.
	cv.text(gw-1, y, "0", stAxis)
	cv.set(gw, y, '┼', stAxis)
	cv.fill(x0, y, cols, '─', stAxis)
	col := func(b float64) int {
		return int(math.Round(math.Log(b/cu.lo) / math.Log(cu.hi/cu.lo) * float64(max(cols-1, 1))))
	}
	type tick struct {
		x   int
		lab string
	}
	var ticks []tick
	for d := math.Pow(10, math.Ceil(math.Log10(cu.lo))); d <= cu.hi*(1+1e-9); d *= 10 {
		ticks = append(ticks, tick{col(d), decadeLabel(d)})
	}
	for _, t := range ticks {
		cv.set(x0+t.x, y, '┬', stAxis)
	}
	cv.set(x0+cu.today, y, '▲', stToday)
	// Labels: today's first, then the decades that do not collide with it or each other.
	todayLab := static.DecBytes(c.use.Bytes)
	tx := max(0, min(x0+cu.today-textWidth(todayLab)/2, w-textWidth(todayLab)))
	used := []struct{ a, b int }{{tx - 1, tx + textWidth(todayLab)}}
	cv.text(tx, y+1, todayLab, stToday)
	for _, t := range ticks {
		lx := max(0, min(x0+t.x-textWidth(t.lab)/2, w-textWidth(t.lab)))
		a, b := lx-1, lx+textWidth(t.lab)
		free := true
		for _, u := range used {
			if a <= u.b && b >= u.a {
				free = false
			}
		}
		if free {
			cv.text(lx, y+1, t.lab, stAxis)
			used = append(used, struct{ a, b int }{a, b})
		}
	}
	// The algorithm bands.
	m.drawBands(cv, cu, x0, y+2)
	return y + 3
}

// drawBands names, under the axis, the algorithm and protocol each range of sizes runs.
func (m *Model) drawBands(cv *canvas, cu *curve, x0, y int) {
	cv.text(0, y, fit(x0, "algorithm", "algo", ""), stLabel)
	for a := 0; a < len(cu.pts); {
		b := a
		for b < len(cu.pts) && cu.pts[b].algo == cu.pts[a].algo && cu.pts[b].proto == cu.pts[a].proto {
			b++
		}
		pt := cu.pts[a]
		st := stLabel
		if cu.today >= a && cu.today < b {
			st = stBold
		}
		n := b - a
		cv.fill(x0+a, y, n, '─', stAxis)
		if a > 0 {
			cv.set(x0+a, y, '│', stAxis)
		}
		// A narrow band between bands of the same algorithm is told apart by its protocol.
		short := static.AlgoName(pt.algo)
		if (a > 0 && cu.pts[a-1].algo == pt.algo) || (b < len(cu.pts) && cu.pts[b].algo == pt.algo) {
			short = static.ProtoName(pt.proto)
		}
		for _, l := range []string{static.AlgoProto(pt.algo, pt.proto), short, bandCode(pt.algo)} {
			if textWidth(l)+2 <= n {
				cv.text(x0+a+center(textWidth(l), n), y, l, st)
				break
			}
		}
		a = b
	}
}

// decadeLabel writes a power of ten of bytes short: "10 kB", "1 GB".
func decadeLabel(d float64) string {
	e := int(math.Round(math.Log10(d)))
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	u := min(max(e/3, 0), len(units)-1)
	return strconv.Itoa(int(math.Round(d/math.Pow(10, float64(3*u))))) + " " + units[u]
}

// bandCode is an algorithm in one or two letters, for a narrow band.
func bandCode(a collective.Algo) string {
	switch a {
	case collective.Ring:
		return "R"
	case collective.Tree:
		return "T"
	case collective.NVLS:
		return "N"
	case collective.NVLSTree:
		return "NT"
	case collective.OneShot:
		return "1"
	case collective.TwoShot:
		return "2"
	}
	return strconv.Itoa(int(a))
}
