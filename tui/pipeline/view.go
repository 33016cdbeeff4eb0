package pipeline

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

// Below this size the tab says so instead of drawing.
const (
	minW = 30
	minH = 6
)

// maxOpRows is the tallest a lane grows when there is room; maxOpRowsLarge in presentation.
const (
	maxOpRows      = 3
	maxOpRowsLarge = 6
)

// layout is how the tab's rows are shared out.
type layout struct {
	header int  // summary lines
	status bool // the playhead line
	desc   bool // the line describing the op `.` stopped on
	blank  bool // a blank line between the summary and the lanes
	rows   int  // the lane area
	legend bool
}

// computeLayout shares h rows between the summary (headerWant lines wanted), the playhead line,
// the lanes, the two axis lines and the legend. Lanes come first: the extras are taken only while
// min(lanes, 4) rows stay for them.
func computeLayout(h, lanes, headerWant int) layout {
	return computeLayoutDesc(h, lanes, headerWant, false)
}

// computeLayoutDesc is computeLayout with a line for the stepped op's description when desc is
// wanted, taken right after the playhead line.
func computeLayoutDesc(h, lanes, headerWant int, desc bool) layout {
	l := layout{header: 1, rows: h - 3}
	keep := min(lanes, 4)
	take := func(ok bool) bool {
		if ok && l.rows-1 >= keep {
			l.rows--
			return true
		}
		return false
	}
	l.status = take(h >= 9)
	l.desc = take(desc && l.status)
	if take(headerWant > 1) {
		l.header = 2
	}
	l.legend = take(h >= 12)
	l.blank = take(l.rows-1 >= 2*lanes)
	return l
}

// layout is the current size's layout; false when the tab cannot draw a chart.
func (m *Model) layout() (layout, bool) {
	if m.w < minW || m.h < minH || m.ix == nil {
		return layout{}, false
	}
	return computeLayoutDesc(m.chartH(), m.lanes(), len(wrapParts(m.headerParts(m.w), m.w, 2)), m.StepDescription() != ""), true
}

// View renders the tab: exactly h lines, none wider than w cells.
func (m *Model) View() string {
	w, h := m.w, m.h
	if h <= 0 {
		return ""
	}
	m.paint.prepare(m.data.Stale)
	out := make([]string, 0, h)
	switch {
	case w < minW || h < minH:
		out = append(out, m.paint.line([]seg{{"too small: needs 30×6", cNote}}, w))
	case m.ix == nil:
		out = append(out, m.paint.line([]seg{{"No timeline to draw: the scenario has no simulated step yet.", cNote}}, w))
	default:
		out = m.chart(out, w, m.chartH())
		for len(out) < m.chartH() {
			out = append(out, "")
		}
		out = m.overlayLines(out[:m.chartH()], w, h-m.chartH())
	}
	for len(out) < h {
		out = append(out, "")
	}
	out = out[:h]
	for i, s := range out {
		if common.Width(s) > w {
			out[i] = ansi.Truncate(s, max(w, 0), "")
		}
	}
	return strings.Join(out, "\n")
}

// headerParts is the summary: schedule and shape, step time, the bubble beside its closed form;
// in fewer words when w is narrow.
func (m *Model) headerParts(w int) []string {
	r, ix := &m.data.Report, m.ix
	p, mb, v := len(ix.lanes), r.Layout.MicroBatches, ix.chunks
	if m.tl != nil && m.tl.MicroBatches > 0 {
		mb = m.tl.MicroBatches
	}
	var bubble string
	closed, _ := r.ClosedFormBubble() // training's always applies
	for _, words := range [][2]string{{" simulated · ", " closed form "}, {" sim · ", " closed form "}, {" sim · ", " "}} {
		bubble = "bubble " + fmtPct(r.BubbleFraction) + words[0] + fmtPct(closed) + words[1] +
			closedFormText(ix.infer, ix.sched)
		if cellWidth(bubble) <= w {
			break
		}
	}
	if ix.infer {
		// Serving: the idle share of the busiest stage; the closed form only when the pipeline
		// cannot fill (fewer requests than stages).
		idle := "idle " + fmtPct(r.BubbleFraction)
		if f, ok := r.ClosedFormBubble(); ok {
			idle += " · closed form " + fmtPct(f) + " (" + closedFormText(true, ix.sched) + ")"
		}
		reqs := strconv.Itoa(m.data.Scenario.Workload.Requests) + " requests, "
		if w := m.data.Scenario.Workload; w.Turns > 1 {
			reqs = strconv.Itoa(w.Requests) + " chats × " + strconv.Itoa(w.Turns) + " turns, "
		}
		parts := []string{
			"serving  p=" + strconv.Itoa(p) + " · " + reqs + inFlight(p),
			"serve " + fmtDur(r.StepTime),
			idle,
		}
		if inf := r.Inference; inf != nil && inf.Spec != nil {
			// Speculative decoding, second so that a narrow panel keeps it: what a step yields,
			// the acceptance, the drafter's share of a decode step.
			sp := inf.Spec
			tok := strconv.FormatFloat(sp.TokensPerStep, 'f', 2, 64) + " tok/step"
			text := "spec K=" + strconv.Itoa(sp.Tokens) + " " + sp.Method + " accept " + sp.Accept + " · " + tok +
				" · drafter " + fmtPct(sp.DrafterShare) + " of a step"
			if cellWidth(text) > w {
				text = "spec " + tok + " · K=" + strconv.Itoa(sp.Tokens) + " a " + sp.Accept + " · drafter " + fmtPct(sp.DrafterShare)
			}
			parts = append(parts[:1], append([]string{text}, parts[1:]...)...)
		}
		if live, ok := m.livePercentiles(); ok {
			parts = append(parts, live...)
		} else if inf := r.Inference; inf != nil && inf.Completed > 0 {
			parts = append(parts, "TTFT p50 "+fmtDur(inf.TTFTP50)+" p90 "+fmtDur(inf.TTFTP90),
				"TPOT p50 "+fmtDur(inf.TPOTP50)+" p90 "+fmtDur(inf.TPOTP90))
		}
		// A rate schedule's saturated stages, the first of them (the report's table has all).
		if inf := r.Inference; inf != nil {
			for i, st := range inf.Stages {
				if st.Saturated {
					parts = append(parts, "! stage "+strconv.Itoa(i+1)+" saturated: queue grows at "+strconv.FormatFloat(st.QueueGrowthPerS, 'g', 3, 64)+" req/s")
					break
				}
			}
		}
		// The run's own doubt about those figures (the report's warning says it in full).
		if inf := r.Inference; inf != nil && inf.Confidence != nil {
			switch c := inf.Confidence; {
			case c.Overloaded:
				parts = append(parts, "! saturated: queue grows at "+strconv.FormatFloat(c.QueueGrowthPerS, 'g', 3, 64)+" req/s")
			case c.Rising():
				parts = append(parts, "! not steady: queue keeps growing")
			case c.SuggestRequests > 0:
				parts = append(parts, "! too short to be steady: --requests "+strconv.Itoa(c.SuggestRequests))
			}
		}
		return parts
	}
	return []string{
		ix.sched.String() + "  p=" + strconv.Itoa(p) + " m=" + strconv.Itoa(mb) + " v=" + strconv.Itoa(v),
		"step " + fmtDur(r.StepTime),
		bubble,
	}
}

// livePercentiles are the TTFT and TPOT percentiles of replica 0's requests up to the playhead:
// the first tokens come by then, the requests done by then ("—" before any).
func (m *Model) livePercentiles() ([]string, bool) {
	if m.tl == nil || len(m.tl.Requests) == 0 {
		return nil, false
	}
	t := m.playhead
	var ttft, tpot []float64
	for _, q := range m.tl.Requests {
		if q.FirstToken <= t {
			ttft = append(ttft, q.FirstToken-q.Arrival)
		}
		if q.Done <= t && q.Gen > 1 {
			tpot = append(tpot, (q.Done-q.FirstToken)/float64(q.Gen-1))
		}
	}
	pct := func(name string, x []float64) string {
		if len(x) == 0 {
			return name + " —"
		}
		slices.Sort(x)
		return name + " p50 " + fmtDur(serve.Percentile(x, 50)) + " p90 " + fmtDur(serve.Percentile(x, 90))
	}
	return []string{strconv.Itoa(len(ttft)) + "/" + strconv.Itoa(len(m.tl.Requests)) + " answered", pct("TTFT", ttft),
		pct("TPOT", tpot)}, true
}

// inFlight says how many engine batches a pipeline of p stages keeps in flight.
func inFlight(p int) string {
	if p == 1 {
		return "one batch at a time"
	}
	return "up to " + strconv.Itoa(p) + " batches in flight"
}

// closedFormText names the textbook bubble the simulation is compared with.
func closedFormText(infer bool, s model.Schedule) string {
	switch {
	case infer:
		return "pipeline fill max(p−requests, 0)/p"
	case s == model.Interleaved:
		return "(p−1)/(v·m+p−1)"
	case s == model.ZBH1:
		return "zb-h1 (p−1)(F+B−W)"
	case s == model.ZBV:
		return "zb-v 0 within a rank's span, (p−1)F to reach the last"
	case s == model.DualPipe:
		return "dualpipe (p/2−1)(F&B+B−3W)"
	case s == model.DualPipeV:
		return "dualpipev (p−1)(F&B+B−3W)"
	default:
		return "(p−1)/(m+p−1)"
	}
}

// wrapParts packs parts joined by " · " into at most maxLines lines of w cells; what is left
// goes on the last line, which View truncates.
func wrapParts(parts []string, w, maxLines int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case cellWidth(cur)+3+cellWidth(p) <= w || len(lines) == maxLines-1:
			cur += " · " + p
		default:
			lines = append(lines, cur)
			cur = p
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// statusSegs is the playhead line: play state, time, speed, and the stale note; shorter when w
// is narrow.
func (m *Model) statusSegs(w int) []seg {
	var ss []seg
	if m.data.Stale {
		note := "last valid result (the scenario being edited is invalid)"
		if w < 110 {
			note = "last valid result"
		}
		ss = append(ss, seg{note, cWarn}, seg{" · ", cPlain})
	}
	state := "‖ paused"
	switch {
	case m.Animating():
		state = "▶ playing"
	case m.playhead >= m.ix.span:
		state = "■ end"
	}
	ss = append(ss, seg{state, cPlay}, seg{" · t = " + fmtDur(m.playhead) + " of " + fmtDur(m.ix.span), cPlain})
	long, short := " · speed "+speedText(m.speedExp, true), " · "+speedText(m.speedExp, false)
	// Serving: the engine's KV cache and queue at the playhead come before the long speed.
	if st, ok := m.serveState(); ok {
		for _, c := range []struct {
			speed string
			long  bool
		}{{long, true}, {short, true}, {short, false}} {
			extra := append([]seg{{c.speed, cPlain}}, serveSegs(st, c.long)...)
			if segsWidth(ss)+segsWidth(extra) <= w {
				return append(ss, extra...)
			}
		}
	}
	if segsWidth(ss)+cellWidth(long) > w {
		return append(ss, seg{short, cPlain})
	}
	return append(ss, seg{long, cPlain})
}

// serveState is the serving engine's state at the playhead: that of the last step stage 0
// started by then (replica 0, as the chart draws it).
func (m *Model) serveState() (costmodel.ServeState, bool) {
	if m.tl == nil || len(m.tl.Serve) != len(m.tl.Ops) || len(m.tl.Serve) == 0 {
		return costmodel.ServeState{}, false
	}
	best := -1
	for i, op := range m.tl.Ops {
		if op.Stage == 0 && op.Start <= m.playhead {
			best = i
		}
	}
	if best < 0 {
		return costmodel.ServeState{}, true // nothing scheduled yet: an empty cache
	}
	return m.tl.Serve[best], true
}

// serveSegs draws an engine state: "KV ▕███░░░░░▏ 38% · queue 12 · 64 running".
func serveSegs(st costmodel.ServeState, long bool) []seg {
	const cells = 8
	n := int(st.KVUsed*cells + 0.5)
	gauge := "▕" + strings.Repeat("█", n) + strings.Repeat("░", cells-n) + "▏"
	if !long {
		return []seg{{" · KV " + fmtPct(st.KVUsed) + " · q " + strconv.Itoa(st.Waiting), cPlain}}
	}
	return []seg{{" · KV ", cPlain}, {gauge, cPlay}, {" " + fmtPct(st.KVUsed) + " · queue " + strconv.Itoa(st.Waiting) +
		" · " + strconv.Itoa(st.Running) + " running", cPlain}}
}

func segsWidth(ss []seg) int {
	n := 0
	for _, s := range ss {
		n += cellWidth(s.s)
	}
	return n
}

// speedText is "×4 (2 s per step)" or "×1/2 (16 s per step)"; "×4" alone when not long.
func speedText(exp int, long bool) string {
	x := "×" + strconv.Itoa(1<<max(exp, 0))
	if exp < 0 {
		x = "×1/" + strconv.Itoa(1<<-exp)
	}
	if !long {
		return x
	}
	wall := stepWall * math.Ldexp(1, -exp)
	return x + " (" + strconv.FormatFloat(wall, 'g', 3, 64) + " s per step)"
}

// legendItems explain the glyphs, one item per glyph, in fewer words when short; mixed is the
// set of kinds that share mixed columns (none: no item for glyphMixed).
func (m *Model) legendItems(mixed uint8, paired, short bool) [][]seg {
	ix := m.ix
	item := func(g string, c cls, long, brief string) []seg {
		if short {
			long = brief
		}
		return []seg{{g, c}, {" " + long, cNote}}
	}
	var out [][]seg
	if ix.infer {
		out = append(out,
			item(string(theme.GlyphPrefill), opCls(kindPrefill, stLit), "engine step with prompt chunks (P3: batch 3)", "prefill"),
			item(string(theme.GlyphDecode), opCls(kindDecode, stLit), "decode-only step (D7: step 7)", "decode"))
	} else {
		out = append(out, item(string(theme.GlyphF), opCls(kindF, stLit), "forward (F3: micro-batch 3)", "forward"))
		switch {
		case ix.sched == model.DualPipe:
			out = append(out, item("f3c1", opCls(kindF, stLit), "the other direction: micro-batches fed in at the last stage, in lower case", "reverse direction"))
		case ix.sched == model.ZBV || ix.sched == model.DualPipeV:
			out = append(out, item("f3c1", opCls(kindF, stLit), "chunk 1, coming back up the V (lower case)", "back up the V"))
		case ix.chunks > 1:
			out = append(out, item("f3c1", opCls(kindF, stLit), "chunk 1 (odd chunks in lower case)", "chunk 1"))
		}
		if splitW(ix.sched) {
			out = append(out,
				item(string(theme.GlyphB), opCls(kindB, stLit), "backward, input grads", "input grads"),
				item(string(theme.GlyphW), opCls(kindW, stLit), "weight grads", "weight grads"))
		} else {
			out = append(out, item(string(theme.GlyphB), opCls(kindB, stLit), "backward", "backward"))
		}
	}
	if paired {
		out = append(out, item(string(glyphPaired), opCls(kindF, stLit),
			"under F and B: a forward–backward pair run overlapped, one's all-to-all under the other's compute", "overlapped F–B pair"))
	}
	if mixed != 0 {
		text := mixedText(mixed)
		out = append(out, item(string(glyphMixed), mixedLegendCls(mixed), text, strings.TrimSuffix(text, " within a column")))
	}
	return append(out,
		item(string(theme.GlyphBubble), cBubble, "idle", "idle"),
		item(string(theme.GlyphP2P), cP2P, "waits for another stage", "wait"),
		item(string(theme.GlyphPlay), cPlay, "playhead", "playhead"))
}

// wrapItems packs items three spaces apart into lines of at most w cells; an item wider than
// a line gets a line of its own (and is cut when drawn).
func wrapItems(items [][]seg, w int) [][]seg {
	var lines [][]seg
	var cur []seg
	used := 0
	for _, it := range items {
		n := segsWidth(it)
		if len(cur) > 0 && used+3+n > w {
			lines = append(lines, cur)
			cur, used = nil, 0
		}
		if len(cur) > 0 {
			cur = append(cur, seg{"   ", cPlain})
			used += 3
		}
		cur = append(cur, it...)
		used += n
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// stageTable is one line per stage under a heading: GPUs, layers, busy share of the step and
// per-op times; nil when the report has no detail for these lanes.
func (m *Model) stageTable() [][]seg {
	ix := m.ix
	st := m.data.Report.Detail.Stages
	if len(st) != len(ix.lanes) || len(st) == 0 {
		return nil
	}
	var rows [][]string
	if ix.infer {
		rows = append(rows, []string{"stage", "GPUs", "layers", "busy", "decode step alone"})
	} else {
		h := []string{"stage", "GPUs", "layers", "busy", "F per mb", "B per mb"}
		if splitW(ix.sched) {
			h = append(h, "W per mb")
		}
		rows = append(rows, append(h, "in flight"))
	}
	for i, sd := range st {
		layers := strconv.Itoa(sd.Layers)
		if sd.Embedding {
			layers += " +embed"
		}
		if sd.Logits {
			layers += " +head"
		}
		r := []string{"S" + strconv.Itoa(i), gpuList(sd.GPUs), layers, fmtPct(m.data.Report.StageBusyShare(i)), fmtDur(sd.F)}
		if !ix.infer {
			r = append(r, fmtDur(sd.B))
		}
		if !ix.infer {
			if splitW(ix.sched) {
				r = append(r, fmtDur(sd.W))
			}
			r = append(r, strconv.Itoa(sd.InFlight))
		}
		rows = append(rows, r)
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			widths[j] = max(widths[j], cellWidth(c))
		}
	}
	out := make([][]seg, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			if j > 0 {
				b.WriteString("  ")
			}
			if j >= 3 { // numbers align right
				b.WriteString(strings.Repeat(" ", widths[j]-cellWidth(c)) + c)
			} else {
				b.WriteString(padRight(c, widths[j]))
			}
		}
		c := cPlain
		if i == 0 {
			c = cLabel
		}
		out[i] = []seg{{strings.TrimRight(b.String(), " "), c}}
	}
	return out
}

// laneLabels are "S0 0-7" (stage and GPU ids), or "S0" when the chart needs the width.
func (m *Model) laneLabels(w int) ([]string, int) {
	labels := make([]string, len(m.ix.lanes))
	lw := 0
	for i, ln := range m.ix.lanes {
		s := "S" + strconv.Itoa(i)
		if len(ln.gpus) > 0 {
			s += " " + gpuList(ln.gpus)
		}
		labels[i] = s
		lw = max(lw, cellWidth(s))
	}
	const maxLabel = 16
	lw = min(lw, maxLabel)
	if w-lw-1 < max(24, w*3/5) {
		lw = 0
		for i := range labels {
			labels[i] = "S" + strconv.Itoa(i)
			lw = max(lw, len(labels[i]))
		}
	}
	for i, s := range labels {
		if cellWidth(s) > lw {
			labels[i] = string([]rune(s)[:lw-1]) + "…"
		}
	}
	return labels, lw
}

// chart draws the summary, the lanes, the axis and the legend.
func (m *Model) chart(out []string, w, h int) []string {
	ix, p := m.ix, &m.paint
	head := wrapParts(m.headerParts(w), w, 2)
	l := computeLayoutDesc(h, len(ix.lanes), len(head), m.StepDescription() != "")
	if l.header == 1 && len(head) > 1 {
		head = []string{strings.Join(head, " · ")}
	}
	for i := 0; i < l.header && i < len(head); i++ {
		ss := []seg{{head[i], cPlain}}
		if i == 0 && m.data.Stale && !l.status { // no playhead line to carry the note
			ss = append([]seg{{"last valid result", cWarn}, {" · ", cPlain}}, ss...)
		}
		out = append(out, p.line(ss, w))
	}
	if l.status {
		out = append(out, p.line(m.statusSegs(w), w))
	}
	if l.desc {
		out = append(out, p.line([]seg{{"▸ ", cPlay}, {m.step.desc.fit(w - 2), cPlain}}, w))
	}
	if l.blank {
		out = append(out, "")
	}

	labels, lw := m.laneLabels(w)
	cw := max(w-lw-1, 1)
	pc := timeToCol(m.playhead, ix.span, cw)
	rows, _, _, _ := foldLanes(len(ix.lanes), max(l.rows, 0), m.laneOff)
	opRows, gap := 1, false
	if len(ix.lanes) <= l.rows {
		most := maxOpRows
		if m.large {
			most = maxOpRowsLarge
		}
		opRows, gap = lanePitch(len(ix.lanes), l.rows, most)
	}
	cc := m.cols.columnsFor(ix, cw)
	row, colour := make([]cell, cw), make([]cls, cw)
	var b strings.Builder
	pad := strings.Repeat(" ", lw+1)
	laneTop := len(out)
	for ri, r := range rows {
		if r.Lane < 0 {
			n := strconv.Itoa(r.Hidden) + " stages"
			if r.Hidden == 1 {
				n = "1 stage"
			}
			txt := string(theme.GlyphFold) + " " + n + " folded (S" + strconv.Itoa(r.From) + "–S" +
				strconv.Itoa(r.From+r.Hidden-1) + ") " + string(theme.GlyphFold)
			out = append(out, p.line([]seg{{pad, cPlain}, {txt, cNote}}, w))
			continue
		}
		lc := &cc.lanes[r.Lane]
		lc.colour(colour, ix.lanes[r.Lane].ops, m.playhead, pc)
		labelRow := (opRows - 1) / 2
		for k := range opRows {
			b.Reset()
			rs := lc.base
			if k == opRows-1 && k != labelRow && lc.low != nil {
				rs = lc.low // the bottom row underlines the paired ops
			}
			if k == labelRow {
				rs = lc.top
				b.WriteString(p.line([]seg{{padRight(labels[r.Lane], lw), cLabel}}, lw))
				if l.desc && r.Lane == m.step.stage {
					b.WriteString(p.line([]seg{{"▸", cPlay}}, 1)) // the lane of the described op
				} else {
					b.WriteByte(' ')
				}
			} else {
				b.WriteString(pad)
			}
			for c, r := range rs {
				row[c] = cell{r, colour[c]}
			}
			row[pc] = cell{theme.GlyphPlay, cPlay}
			p.cells(&b, row)
			out = append(out, b.String())
		}
		if gap && ri < len(rows)-1 {
			b.Reset()
			b.WriteString(pad)
			b.WriteString(strings.Repeat(" ", pc))
			p.cells(&b, []cell{{theme.GlyphPlay, cPlay}})
			out = append(out, b.String())
		}
	}

	laneRows := len(out) - laneTop

	// The axis: a rule with marks, then the labels.
	ticks := axisTicks(ix.span, cw)
	rule := make([]cell, cw)
	for i := range rule {
		rule[i] = cell{'─', cAxis}
	}
	for _, t := range ticks {
		rule[t.Col] = cell{'┬', cAxis}
	}
	rule[pc] = cell{theme.GlyphPlay, cPlay}
	b.Reset()
	b.WriteString(pad)
	p.cells(&b, rule)
	out = append(out, b.String())
	lab := make([]rune, cw)
	for i := range lab {
		lab[i] = ' '
	}
	for _, t := range ticks {
		copy(lab[t.At:], []rune(t.Label))
	}
	out = append(out, p.line([]seg{{pad, cPlain}, {strings.TrimRight(string(lab), " "), cAxis}}, w))
	spare := max(l.rows-laneRows, 0)
	if l.legend {
		lines := wrapItems(m.legendItems(cc.mixed, cc.paired && opRows > 1, false), w)
		if len(lines) > 1+spare { // in fewer words rather than cut
			lines = wrapItems(m.legendItems(cc.mixed, cc.paired && opRows > 1, true), w)
		}
		n := min(len(lines), 1+spare)
		spare -= n - 1
		for _, ln := range lines[:n] {
			out = append(out, p.line(ln, w))
		}
	}
	if len(rows) != len(ix.lanes) || spare < len(ix.lanes)+2 {
		return out // folded, or no room for the table
	}
	if t := m.stageTable(); len(t) > 0 && spare >= len(t)+1 {
		out = append(out, "")
		for _, ln := range t {
			out = append(out, p.line(ln, w))
		}
	}
	return out
}

func padRight(s string, w int) string {
	if n := cellWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// splitW says whether schedule s runs the weight gradients as ops of their own (W).
func splitW(s model.Schedule) bool {
	switch s {
	case model.ZBH1, model.ZBV, model.DualPipe, model.DualPipeV:
		return true
	}
	return false
}
