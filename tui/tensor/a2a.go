package tensor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/static"
)

// A MoE layer under expert parallelism sends every token to the GPUs that hold its top-k
// experts and brings the results back: an all-to-all before the experts (dispatch) and one
// after (combine). The pane labels them in the bars (A2A), names the one the engine runs (its
// size, group, link, algorithm and time) beside TP's all-reduce, and plays it: the pairwise
// exchange of e−1 steps in which GPU i sends GPU i+k the tokens bound for its experts and
// receives GPU i−k's, at the modelled pace.

// a2aMinLines is the least room the all-to-all's drawing needs: its header and a strip.
const a2aMinLines = 2

// a2aShown is how many GPUs the all-to-all's drawing shows.
const a2aShown = 8

// epUse is the report's expert-parallel all-to-all, false when there is none.
func (m *Model) epUse() (costmodel.CollectiveUse, bool) {
	for _, u := range m.data.Report.Collectives {
		if u.Comm == "ep" {
			return u, true
		}
	}
	return costmodel.CollectiveUse{}, false
}

// ep is the EP degree, at least 1.
func (m *Model) ep() int {
	if !m.has {
		return 1
	}
	return max(m.data.Report.Layout.EP, 1)
}

// a2aOn says the layer has all-to-alls to play.
func (m *Model) a2aOn() bool {
	if m.ep() <= 1 {
		return false
	}
	for _, r := range [][]costmodel.Segment{m.data.Report.Detail.Layer.Forward, m.data.Report.Detail.Layer.Backward} {
		for _, s := range r {
			if s.Kind == costmodel.SegEPComm && segDur(s) > 0 {
				return true
			}
		}
	}
	return false
}

// a2aSeconds is one all-to-all as modelled: the collective's time, else the layer's first.
func (m *Model) a2aSeconds() float64 {
	if u, ok := m.epUse(); ok && u.Seconds > 0 {
		return u.Seconds
	}
	for _, s := range m.data.Report.Detail.Layer.Forward {
		if s.Kind == costmodel.SegEPComm {
			return segDur(s)
		}
	}
	return 0
}

// a2aWall is the on-screen duration of one all-to-all at the current speed, seconds.
func (m *Model) a2aWall() float64 { return wallSeconds(m.a2aSeconds()) / speeds[m.speed] }

// a2aPositions is the all-to-all loop's length in steps: e−1 exchanges and the finished state.
func (m *Model) a2aPositions() int { return max(m.ep(), 2) }

// advanceA2A moves the all-to-all's animation by dt seconds of wall time.
func (m *Model) advanceA2A(dt float64) {
	n := m.a2aPositions()
	step := m.a2aWall() / float64(max(n-1, 1))
	if step <= 0 {
		return
	}
	m.a2aPos = math.Mod(m.a2aPos+dt/step, float64(n))
}

// A2AStep is the all-to-all's step under way, 0 … e−1 (the finished state), for tests.
func (m *Model) A2AStep() int { return int(m.a2aPos) }

// epLayerShare is the all-to-alls' share of the layer as drawn, all rows.
func epLayerShare(ly layer) float64 {
	tot := 0.0
	for _, t := range ly.totals {
		tot += t
	}
	if tot <= 0 {
		return 0
	}
	return ly.ep / tot
}

// a2aLine names the all-to-all the engine runs: "EP e = 8 · all-to-all S = 560 KiB a GPU ·
// 8 GPUs · nvlink4 · direct/simple → 25.4 µs, 2 a layer".
func (m *Model) a2aLine(ly layer, w int) []span {
	e := m.ep()
	per := ly.nEP
	u, ok := m.epUse()
	if !ok {
		return fitSpans(w,
			[]span{{fmt.Sprintf("EP e = %d", e), stBold}, {fmt.Sprintf(" · %d all-to-alls a layer, %s", per, static.Seconds(ly.ep)), stLabel}},
			[]span{{fmt.Sprintf("EP %d · %d A2A", e, per), stBold}})
	}
	algo := u.Algorithm + "/" + u.Protocol
	return fitSpans(w,
		[]span{{fmt.Sprintf("EP e = %d", e), stBold}, {" · all-to-all ", stLabel}, {"S = " + static.Bytes(u.Bytes), stBold},
			{" a GPU (tokens·k·h·e/t) · ", stLabel}, {fmt.Sprintf("%d GPUs · %s · %s", u.GPUs, u.Link, algo), stPlain},
			{" → ", stPlain}, {static.Seconds(u.Seconds), stWarn}, {fmt.Sprintf(", %d a layer (dispatch and combine)", per), stLabel}},
		[]span{{fmt.Sprintf("EP e = %d", e), stBold}, {" · all-to-all S = " + static.Bytes(u.Bytes), stLabel},
			{fmt.Sprintf(" · %d GPUs · %s → ", u.GPUs, u.Link), stPlain}, {static.Seconds(u.Seconds), stWarn}, {fmt.Sprintf(", %d a layer", per), stLabel}},
		[]span{{fmt.Sprintf("EP %d", e), stBold}, {" A2A " + static.Bytes(u.Bytes) + " → ", stLabel}, {static.Seconds(u.Seconds), stWarn}},
		[]span{{fmt.Sprintf("EP %d ", e), stBold}, {static.Seconds(u.Seconds), stWarn}},
	)
}

// drawEPNumbers is drawNumbers for TP = 1 under expert parallelism (attention data-parallel,
// experts spread): the all-to-alls' share, the one the engine runs and what it carries.
func (m *Model) drawEPNumbers(cv *canvas, ly layer, p plan, y int) int {
	w := cv.w
	r := m.data.Report
	e := m.ep()
	layerShare := static.Percent(epLayerShare(ly))
	stepShare := "n/a"
	if r.StepTime > 0 {
		stepShare = static.Percent(r.Breakdown.EPComm / r.StepTime)
	}
	stepWhat := "step"
	if ly.infer {
		stepWhat = "run"
	}
	cv.spans(0, y, fitSpans(w,
		[]span{{"TP = 1 · ", stLabel}, {fmt.Sprintf("EP e = %d", e), stBold}, {" · link ", stLabel}, {r.Detail.TPLink, stBold},
			{" · EP comm ", stLabel}, {layerShare, stWarn}, {" of the layer, ", stLabel}, {stepShare, stWarn},
			{fmt.Sprintf(" of the %s (%s of %s)", stepWhat, static.Seconds(r.Breakdown.EPComm), static.Seconds(r.StepTime)), stLabel}},
		[]span{{"TP = 1 · ", stLabel}, {fmt.Sprintf("EP %d", e), stBold}, {" · EP comm ", stLabel}, {layerShare, stWarn},
			{" of layer, ", stLabel}, {stepShare, stWarn}, {" of " + stepWhat, stLabel}},
		[]span{{fmt.Sprintf("EP %d · comm ", e), stBold}, {layerShare, stWarn}},
	)...)
	y++
	cv.spans(0, y, m.a2aLine(ly, w)...)
	y++
	if p.arLine {
		a := m.data.Scenario.Arch
		cv.text(0, y, fit(w,
			fmt.Sprintf("each GPU holds %d of the %d experts a layer and its own attention; a token goes to the GPUs of its top-%d experts and back",
				a.ExpertCount()/e, a.ExpertCount(), a.ActiveExperts()),
			fmt.Sprintf("%d of %d experts a GPU; tokens to their top-%d and back", a.ExpertCount()/e, a.ExpertCount(), a.ActiveExperts()),
			""), stSub)
		y++
	}
	return y
}

// a2aLines is the full drawing's height for EP e: the header, the columns' numbers, a row a
// GPU shown (and a line for those not shown), the caption and the legend.
func a2aLines(e int) int {
	n := 4 + min(e, a2aShown)
	if e > a2aShown {
		n++
	}
	return n
}

// drawA2A draws the all-to-all under way over the EP group on lines y to h: a header, and as
// room allows each GPU's buffer by the GPU its tokens go to, a caption and a legend; else one
// strip.
func (m *Model) drawA2A(cv *canvas, y, h int) {
	w := cv.w
	h = min(h, cv.h)
	e := m.ep()
	n := min(e, a2aShown)
	k := min(int(m.a2aPos), e-1) // exchanges done
	done := k >= e-1
	cv.spans(0, y, m.a2aHeader(w)...)
	y++
	room := h - y
	if room < n+2 {
		// One strip: GPU 0's buffer, then who sends to whom this step.
		x := cv.text(0, y, "G0 │", stLabel)
		for j := range n {
			g, st := a2aCell(0, j, e, k, done)
			cv.set(x, y, g, st)
			x++
		}
		x = cv.text(x, y, "│ ", stLabel)
		cv.spans(x, y, m.a2aCaption(k, done, w-x)...)
		return
	}
	x0 := ringIndent(w)
	// The columns: the GPU each slot's tokens are bound for (and, once received, come from).
	var head strings.Builder
	head.WriteString(strings.Repeat(" ", 5))
	for j := range n {
		head.WriteString(strconv.Itoa(j % 10))
		head.WriteString(" ")
	}
	cv.text(x0, y, head.String(), stAxis)
	y++
	for i := range n {
		x := cv.text(x0, y, fmt.Sprintf("G%-2d│", i), stLabel)
		for j := range n {
			g, st := a2aCell(i, j, e, k, done)
			cv.set(x, y, g, st)
			x += 2
		}
		x = cv.text(x-1, y, "│", stLabel)
		if !done {
			to, from := (i+k+1)%e, (i-k-1+2*e)%e
			cv.text(x+1, y, fmt.Sprintf("→ G%d  ← G%d", to, from), stHighlight)
		}
		y++
	}
	if e > n && y < h {
		cv.text(x0, y, fmt.Sprintf("… %d more GPUs", e-n), stDim)
		y++
	}
	if y < h {
		cv.spans(0, y, m.a2aCaption(k, done, w)...)
		y++
	}
	if y < h {
		cv.text(0, y, fit(w,
			"cells = a GPU's tokens by the GPU of their experts: ○ its own (stay) · waiting ▸ on the wire █ received",
			"○ own · waiting ▸ sending █ received", ""), stSub)
	}
}

// a2aCell is slot j of GPU i after k exchanges of the pairwise schedule (GPU i sends slot i+d
// at exchange d): its own slot stays, sent slots hold what came back from that GPU.
func a2aCell(i, j, e, k int, done bool) (rune, style) {
	d := (j - i + e) % e
	switch {
	case d == 0:
		return '○', stOK
	case d <= k || done:
		return '█', stWarn
	case d == k+1:
		return '▸', stHighlight
	}
	return '·', stDim
}

// a2aHeader names the all-to-all, its pace on screen and the player's state.
func (m *Model) a2aHeader(w int) []span {
	e := m.ep()
	sec := m.a2aSeconds()
	wall := m.a2aWall()
	scale := "n/a"
	if sec > 0 && wall > 0 {
		scale = static.Seconds(sec / wall)
	}
	state, st := "playing", stOK
	if !m.playing {
		state, st = "paused", stWarn
	}
	speed := "×" + strconv.FormatFloat(speeds[m.speed], 'g', -1, 64)
	tail := []span{{" · ", stLabel}, {state + " " + speed, st}}
	return fitSpans(w,
		append([]span{{"All-to-all", stBold}, {fmt.Sprintf(" over EP %d: e−1 = %d pairwise exchanges, ≈ %s modelled each", e, e-1, static.Seconds(sec/float64(max(e-1, 1)))), stLabel},
			{" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{"All-to-all", stBold}, {fmt.Sprintf(" over EP %d, %d steps", e, e-1), stLabel}, {" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{fmt.Sprintf("A2A EP %d", e), stBold}, {" · 1 s = " + scale, stPlain}}, tail...),
		[]span{{state, st}},
	)
}

// a2aCaption says what the exchange under way does.
func (m *Model) a2aCaption(k int, done bool, w int) []span {
	e := m.ep()
	if done {
		return fitSpans(w,
			[]span{{"done", stOK}, {fmt.Sprintf(" · every GPU holds the tokens of its experts from all %d GPUs (█): the experts run, then the combine sends the results back the same way", e), stPlain}},
			[]span{{"done", stOK}, {" · each GPU has its experts' tokens from all GPUs", stPlain}},
			[]span{{"done", stOK}},
		)
	}
	return fitSpans(w,
		[]span{{fmt.Sprintf("step %d/%d", k+1, e-1), stBold}, {fmt.Sprintf(" · GPU i sends GPU i+%d the tokens bound for its experts and receives GPU i−%d's, every link busy at once", k+1, k+1), stPlain}},
		[]span{{fmt.Sprintf("step %d/%d", k+1, e-1), stBold}, {fmt.Sprintf(" · G i → G i+%d, ← G i−%d", k+1, k+1), stPlain}},
		[]span{{fmt.Sprintf("%d/%d", k+1, e-1), stBold}},
	)
}
