package tensor

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/static"
)

// Context parallelism's exchange of one layer, beside TP's all-reduce: the cost model's
// CPDetail played as phases at the modelled pace. Ring: CP−1 steps, each a K/V block moving to
// the next GPU while every GPU computes attention on the block it holds (a step lasts the slower
// of the two; the send's time beyond the block's attention is exposed), then the attention on
// the last block. All-gather: one all-gather of K and V, exposed, then the attention. Ulysses:
// an all-to-all of Q, K and V, the attention (all tokens, heads/CP heads), an all-to-all of the
// output, both exposed. Hybrid: Ulysses' all-to-alls around the ring's steps.

// cpMinLines is the least room the CP drawing needs: its header and one strip.
const cpMinLines = 2

// cpFullLines is the full drawing: header, ring, the attention's row, the K/V row, caption.
const cpFullLines = 5

// cpPhase is one phase of the layer's exchange: attention runs for compute seconds, the link for
// comm seconds (hidden while both run, exposed beyond); ring marks a ring step.
type cpPhase struct {
	compute, comm float64
	ring          bool
	what          string // the caption's words
	short         string // the compact strip's
}

// dur is the phase's length: the slower of its attention and its transfer.
func (p cpPhase) dur() float64 { return max(p.compute, p.comm) }

// cpDetail is the report's CP exchange, nil without one.
func (m *Model) cpDetail() *costmodel.CPDetail {
	if !m.has {
		return nil
	}
	d := m.data.Report.Detail.Layer.CP
	if d == nil || d.Ranks <= 1 {
		return nil
	}
	return d
}

// cpOn says there is a CP exchange to play.
func (m *Model) cpOn() bool { return m.cpDetail() != nil }

// cpPhases lays the exchange out as phases, from the report's numbers alone.
func cpPhases(d *costmodel.CPDetail) []cpPhase {
	if d == nil {
		return nil
	}
	clean := func(x float64) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return 0
		}
		return x
	}
	var out []cpPhase
	if d.BeforeS > 0 {
		out = append(out, cpPhase{comm: clean(d.BeforeS), what: "all-to-all of Q, K, V: each GPU gets all tokens of its heads", short: "A2A QKV"})
	}
	switch {
	case d.GatherS > 0:
		out = append(out, cpPhase{comm: clean(d.GatherS), what: "all-gather of K and V: every GPU gets every block before its attention", short: "all-gather K/V"},
			cpPhase{compute: clean(d.CoreS), what: "attention on all keys", short: "attention"})
	case d.Steps > 0:
		for k := range d.Steps {
			out = append(out, cpPhase{compute: clean(d.BlockS), comm: clean(d.SendS), ring: true,
				what: fmt.Sprintf("ring step %d/%d: each GPU sends the block it holds to the next while its attention runs on it", k+1, d.Steps), short: fmt.Sprintf("step %d/%d", k+1, d.Steps)})
		}
		out = append(out, cpPhase{compute: clean(d.BlockS), what: "attention on the last block, nothing left to send", short: "last block"})
	default:
		out = append(out, cpPhase{compute: clean(d.CoreS), what: "attention on the heads each GPU holds, all tokens", short: "attention"})
	}
	if d.AfterS > 0 {
		out = append(out, cpPhase{comm: clean(d.AfterS), what: "all-to-all of the output: back to each GPU's own tokens", short: "A2A out"})
	}
	return out
}

// cpTotal is the phases' modelled length, seconds.
func cpTotal(ps []cpPhase) float64 {
	t := 0.0
	for _, p := range ps {
		t += p.dur()
	}
	return t
}

// cpWall is the on-screen duration of the layer's exchange at the current speed, seconds.
func (m *Model) cpWall() float64 {
	return wallSeconds(cpTotal(cpPhases(m.cpDetail()))) / speeds[m.speed]
}

// cpPositions is the CP loop's length in phases: the phases and the finished state.
func (m *Model) cpPositions() int { return len(cpPhases(m.cpDetail())) + 1 }

// advanceCP moves the CP animation by dt seconds of wall time, each phase for its modelled
// share (the finished state held for an average phase).
func (m *Model) advanceCP(dt float64) {
	ps := cpPhases(m.cpDetail())
	total, wall := cpTotal(ps), m.cpWall()
	if len(ps) == 0 || wall <= 0 || dt <= 0 {
		return
	}
	n := len(ps)
	share := func(i int) float64 { // phase i's wall seconds
		if total <= 0 || i >= n {
			return wall / float64(n)
		}
		return max(wall*ps[i].dur()/total, wall*1e-3)
	}
	for range 4 * (n + 1) { // bounded: a frame never loops the whole exchange more than a few times
		i := int(m.cpPos)
		left := (1 - (m.cpPos - float64(i))) * share(i)
		if dt < left {
			m.cpPos += dt / share(i)
			break
		}
		dt -= left
		m.cpPos = math.Mod(float64(i+1), float64(n+1))
	}
	m.cpPos = math.Mod(max(m.cpPos, 0), float64(n+1))
}

// CPStep is the CP phase under way, 0 … the phase count (the finished state), for tests.
func (m *Model) CPStep() int { return int(m.cpPos) }

// cpHeader names the exchange with the model's numbers, and the player's state.
func (m *Model) cpHeader(d *costmodel.CPDetail, w int) []span {
	state, st := "playing", stOK
	if !m.playing {
		state, st = "paused", stWarn
	}
	tail := []span{{" · ", stLabel}, {state, st}}
	head := fmt.Sprintf("CP %s over %d GPUs", d.Kind, d.Ranks)
	if d.Kind == "hybrid" {
		head = fmt.Sprintf("CP hybrid %d = %d Ulysses × %d ring", d.Ranks, d.Ulysses, d.Ring)
	}
	exposed := []span{{" → exposed ", stLabel}, {static.Seconds(d.ExposedS), stWarn}, {" a layer (fwd)", stLabel}}
	var long, mid, short []span
	longExposed := exposed
	switch {
	case d.Steps > 0:
		long = []span{{head, stBold}, {" · K/V block " + static.Bytes(d.BlockBytes) + " · send ", stLabel},
			{static.Seconds(d.SendS), stComm}, {" on " + d.Link + " vs attention ", stLabel}, {static.Seconds(d.BlockS), stCompute},
			{" a block → ", stLabel}, {static.Seconds(d.StepExposedS), stWarn}, {fmt.Sprintf(" exposed a step × %d =", d.Steps), stLabel}}
		longExposed = []span{{" ", stLabel}, {static.Seconds(d.ExposedS), stWarn}, {" a layer (fwd)", stLabel}}
		mid = []span{{head, stBold}, {" · send ", stLabel}, {static.Seconds(d.SendS), stComm}, {" vs attn ", stLabel},
			{static.Seconds(d.BlockS), stCompute}, {fmt.Sprintf(" ×%d", d.Steps), stLabel}}
		short = []span{{fmt.Sprintf("CP %s %d", d.Kind, d.Ranks), stBold}, {" " + static.Seconds(d.SendS), stComm}, {"/", stLabel}, {static.Seconds(d.BlockS), stCompute}}
	case d.GatherS > 0:
		long = []span{{head, stBold}, {" · all-gather of K/V (" + static.Bytes(d.BlockBytes*float64(d.Ranks)) + " gathered) ", stLabel},
			{static.Seconds(d.GatherS), stWarn}, {" before attention ", stLabel}, {static.Seconds(d.CoreS), stCompute}}
		mid = []span{{head, stBold}, {" · all-gather ", stLabel}, {static.Seconds(d.GatherS), stWarn}, {" + attn ", stLabel}, {static.Seconds(d.CoreS), stCompute}}
		short = []span{{fmt.Sprintf("CP AG %d", d.Ranks), stBold}, {" " + static.Seconds(d.GatherS), stWarn}}
	default:
		long = []span{{head, stBold}, {" · all-to-all ", stLabel}, {static.Seconds(d.BeforeS), stWarn}, {" before attention ", stLabel},
			{static.Seconds(d.CoreS), stCompute}, {", ", stLabel}, {static.Seconds(d.AfterS), stWarn}, {" after", stLabel}}
		mid = []span{{head, stBold}, {" · A2A ", stLabel}, {static.Seconds(d.BeforeS), stWarn}, {" + attn ", stLabel},
			{static.Seconds(d.CoreS), stCompute}, {" + A2A ", stLabel}, {static.Seconds(d.AfterS), stWarn}}
		short = []span{{fmt.Sprintf("CP %s %d", d.Kind, d.Ranks), stBold}, {" " + static.Seconds(d.BeforeS+d.AfterS), stWarn}}
	}
	cat := func(parts ...[]span) []span {
		var out []span
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	brief := []span{{" → ▓ ", stLabel}, {static.Seconds(d.ExposedS), stWarn}}
	return fitSpans(w, cat(long, longExposed, tail), cat(mid, exposed, tail), cat(mid, brief, tail), cat(mid, brief), cat(short, brief, tail), cat(short, brief), []span{{state, st}})
}

// drawCP draws the CP exchange under way on lines y to h: the header, and as room allows the
// ring of GPUs with the block each holds, the attention's and the link's rows over the layer's
// exchange (played part bright), and the caption; else one strip with the step's caption.
func (m *Model) drawCP(cv *canvas, y, h int) {
	d := m.cpDetail()
	if d == nil {
		return
	}
	w := cv.w
	h = min(h, cv.h)
	ps := cpPhases(d)
	k := min(int(m.cpPos), len(ps))
	done := k >= len(ps)
	frac := m.cpPos - float64(int(m.cpPos))
	cv.spans(0, y, m.cpHeader(d, w)...)
	y++
	if y >= h {
		return
	}
	if h-y < cpFullLines-1 {
		// One strip: the two rows folded into one, then the phase.
		x := cv.text(0, y, "│", stLabel)
		sw := min(max(w/2, 8), w-x-1)
		m.cpStrip(cv, x, y, sw, ps, k, frac)
		x = cv.text(x+sw, y, "│ ", stLabel)
		cv.spans(x, y, cpCaption(ps, k, done, true, w-x)...)
		return
	}
	x0 := ringIndent(w)
	m.cpGPUs(cv, x0, y, d, ps, k, done)
	y++
	lw := 6
	sw := max(w-x0-lw-2, 8)
	cv.text(x0, y, "attn │", stLabel)
	m.cpRow(cv, x0+lw, y, sw, ps, k, frac, false)
	cv.text(x0+lw+sw, y, "│", stLabel)
	y++
	cv.text(x0, y, "K/V  │", stLabel)
	m.cpRow(cv, x0+lw, y, sw, ps, k, frac, true)
	cv.text(x0+lw+sw, y, "│", stLabel)
	y++
	if y < h {
		cv.spans(0, y, cpCaption(ps, k, done, false, w)...)
	}
}

// cpCells places the phases on n cells in proportion to their length, at least one each when
// there is room: cell c belongs to phase of[c], at fraction at[c] of it.
func cpCells(ps []cpPhase, n int) (of []int, at []float64) {
	total := cpTotal(ps)
	of, at = make([]int, n), make([]float64, n)
	if len(ps) == 0 || n <= 0 {
		return
	}
	for c := range n {
		t := (float64(c) + 0.5) / float64(n) * total
		i := 0
		for i < len(ps)-1 && t >= ps[i].dur() {
			t -= ps[i].dur()
			i++
		}
		of[c] = i
		if d := ps[i].dur(); d > 0 {
			at[c] = min(t/d, 1)
		}
	}
	return
}

// cpRow draws the attention's row (comm false) or the link's: attention █, a hidden send ▸, an
// exposed transfer ▓ (the link still busy when the attention has nothing to do), idle ·; the
// cells not yet reached dim and lighter (░ ▹ ▒).
func (m *Model) cpRow(cv *canvas, x, y, n int, ps []cpPhase, k int, frac float64, comm bool) {
	of, at := cpCells(ps, n)
	for c := range n {
		p := ps[of[c]]
		d := p.dur()
		t := at[c] * d
		r, st := '·', stDim
		switch {
		case !comm && t < p.compute:
			r, st = '█', stCompute
		case comm && t < p.comm && t < p.compute:
			r, st = '▸', stComm
		case comm && t < p.comm:
			r, st = '▓', stWarn
		}
		if of[c] > k || of[c] == k && at[c] > frac {
			r, st = cpAhead(r), stDim
		}
		cv.set(x+c, y, r, st)
	}
}

// cpAhead is a cell's glyph before the playhead reaches it: the same thing, lighter, so that the
// progress reads without colour.
func cpAhead(r rune) rune {
	switch r {
	case '█':
		return '░'
	case '▸':
		return '▹'
	case '▓':
		return '▒'
	}
	return r
}

// cpStrip is the compact form: one row, the link's exposed part ▓ over the attention █.
func (m *Model) cpStrip(cv *canvas, x, y, n int, ps []cpPhase, k int, frac float64) {
	of, at := cpCells(ps, n)
	for c := range n {
		p := ps[of[c]]
		t := at[c] * p.dur()
		r, st := '·', stDim
		switch {
		case t < p.compute:
			r, st = '█', stCompute
		case t < p.comm:
			r, st = '▓', stWarn
		}
		if of[c] > k || of[c] == k && at[c] > frac {
			r, st = cpAhead(r), stDim
		}
		cv.set(x+c, y, r, st)
	}
}

// cpCaption says what the phase under way does, and what the rows mean.
func cpCaption(ps []cpPhase, k int, done, short bool, w int) []span {
	if done {
		return fitSpans(w,
			[]span{{"done", stOK}, {" · every GPU's queries met every key; ▓ is what the layer waited for the link", stPlain}},
			[]span{{"done", stOK}, {" · ▓ waited on the link", stPlain}},
			[]span{{"done", stOK}})
	}
	p := ps[k]
	if short {
		return fitSpans(w, []span{{p.short, stBold}, {" · █ attn ▓ exposed", stPlain}}, []span{{p.short, stBold}})
	}
	return fitSpans(w,
		[]span{{p.what, stBold}, {" · █ attention ▸ send hidden ▓ exposed (░ ▹ ▒ to come)", stPlain}},
		[]span{{p.what, stBold}, {" · █ attention ▸ send hidden ▓ exposed", stPlain}},
		[]span{{p.short, stBold}, {" · █ attention ▸ send hidden ▓ exposed", stPlain}},
		[]span{{p.short, stBold}})
}

// cpGPUs draws the CP GPUs and what each holds: the ring with the K/V block each GPU computes on
// (GPU i holds block i − steps done, ▸ while a step sends); all-gather's GPUs with their own
// block, then all of them; Ulysses' with their own tokens, then all tokens of their heads.
func (m *Model) cpGPUs(cv *canvas, x, y int, d *costmodel.CPDetail, ps []cpPhase, k int, done bool) {
	ring := d.Steps > 0
	n := d.Ranks
	if ring {
		n = max(d.Ring, 1)
	}
	shown := min(n, 8)
	steps, commDone := 0, 0 // ring steps done; transfers done (all-gather, Ulysses' first)
	for j := range min(k, len(ps)) {
		if ps[j].ring {
			steps++
		} else if ps[j].comm > 0 {
			commDone++
		}
	}
	name := "G"
	if ring && d.Ulysses > 1 {
		name = "U" // a Ulysses group of the hybrid's ring
	}
	sending := ring && !done && k < len(ps) && ps[k].ring
	for i := range shown {
		var held string
		switch {
		case ring:
			held = fmt.Sprintf("KV%d", ((i-steps)%n+n)%n)
		case d.GatherS > 0 && (commDone > 0 || done):
			held = fmt.Sprintf("KV0–%d", n-1)
		case d.GatherS > 0:
			held = fmt.Sprintf("KV%d", i)
		case commDone > 0 || done:
			held = fmt.Sprintf("heads %d/%d", i+1, n)
		default:
			held = fmt.Sprintf("tokens %d/%d", i+1, n)
		}
		x = cv.text(x, y, fmt.Sprintf("%s%d[%s]", name, i, held), stLabel)
		if i < shown-1 {
			arrow, st := "  ", stDim
			if ring {
				arrow = " → "
				if sending {
					arrow, st = " ▸ ", stHighlight
				}
			}
			x = cv.text(x, y, arrow, st)
		}
	}
	if n > shown {
		x = cv.text(x, y, fmt.Sprintf(" … %d more", n-shown), stDim)
	}
	if ring {
		cv.text(x, y, " ↩ to "+name+"0", stDim)
	} else {
		cv.text(x, y, fmt.Sprintf("  (each GPU exchanges with all %d)", n), stDim)
	}
}
