package export

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
)

// WinnerMark follows the best value of a row of the comparison table.
const WinnerMark = "★"

// Markdown writes the report of s as Markdown — scenario, layout, step time and its breakdown,
// efficiency, inference latency, memory per GPU and warnings — then the comparison of c, the
// Compare tab's contenders under the same labels (TP only, PP only, the best layout, the best
// hybrid) side by side (what is split, communication per layer, latency, throughput,
// interconnect needs, memory per GPU, fits), each row's winner among the layouts that fit
// marked ★; then, when c carries it, the sequence sweep (TP vs CP vs both).
// lang "fr" writes French, anything else English.
func Markdown(w io.Writer, s model.Scenario, r costmodel.Report, c common.Compare, lang string) error {
	m := &mdWriter{t: newTexts(lang, nil)}
	m.report(s, r)
	m.compare(s, c)
	if c.Seq != nil && c.Seq.Err == nil && len(c.Seq.Points) > 0 {
		m.seqSweep(*c.Seq)
	}
	// Every number of the document, tables included, in the language's format: "4,67 s",
	// "18,5 %", "72,0 Gio" in French.
	_, err := io.WriteString(w, m.t.num(m.b.String()))
	return err
}

type mdWriter struct {
	b bytes.Buffer
	t texts
}

func (m *mdWriter) line(s string) { m.b.WriteString(s + "\n") }

// mdEsc makes text safe in Markdown and in a table cell: HTML and the characters that start
// emphasis, code or a cell are escaped.
func mdEsc(s string) string {
	return strings.NewReplacer(
		`\`, `\\`, "&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`,
		"*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "\n", " ",
	).Replace(s)
}

// table writes a Markdown table; align holds "l" or "r" per column.
func (m *mdWriter) table(head []string, align string, rows [][]string) {
	m.line("| " + strings.Join(head, " | ") + " |")
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
		if i < len(align) && align[i] == 'r' {
			seps[i] = "---:"
		}
	}
	m.line("|" + strings.Join(seps, "|") + "|")
	for _, r := range rows {
		m.line("| " + strings.Join(r, " | ") + " |")
	}
	m.line("")
}

func share(part, whole float64) string {
	if whole == 0 {
		return "—"
	}
	return static.Percent(part / whole)
}

// closedForm is the bubble's closed form where one applies (Report.ClosedFormBubble), else "".
func (m *mdWriter) closedForm(r costmodel.Report) string {
	f, ok := r.ClosedFormBubble()
	switch {
	case !ok:
		return ""
	case r.Inference != nil:
		return m.t.get("md.bubble.note.infer", "closed", static.Percent(f))
	}
	return m.t.get("md.bubble.note", "closed", static.Percent(f))
}

func (m *mdWriter) report(s model.Scenario, r costmodel.Report) {
	t := m.t
	infer := isInfer(s, r)
	m.line("# " + t.get("md.title"))
	m.line("")
	m.line("**" + t.get("md.scenario") + ":** " + mdEsc(static.ScenarioLine(s)))
	m.line("")

	m.line("## " + t.get("md.layout"))
	m.line("")
	m.line(mdEsc(static.LayoutLine(s)))
	m.line("")
	l := r.Layout
	rows := [][]string{
		{t.get("md.layout.tp"), strconv.Itoa(l.TP)},
		{t.get("md.layout.pp"), strconv.Itoa(l.PP)},
		{t.get("md.layout.dp"), strconv.Itoa(l.DP)},
	}
	if !infer {
		rows = append(rows, []string{t.get("md.layout.schedule"), mdEsc(l.Schedule)})
		if l.Chunks > 1 {
			rows = append(rows, []string{t.get("md.layout.chunks"), strconv.Itoa(l.Chunks)})
		}
	}
	rows = append(rows, []string{t.get("md.layout.b"), strconv.Itoa(l.MicroBatch)}, []string{t.get("md.layout.m"), strconv.Itoa(l.MicroBatches)})
	m.table([]string{"", ""}, "lr", rows)

	timeKey, totalKey := "md.time.train", "md.total.train"
	if infer {
		timeKey, totalKey = "md.time.infer", "md.total.infer"
	}
	m.line("## " + t.get(timeKey))
	m.line("")
	step, bd := r.StepTime, r.Breakdown
	rows = [][]string{{"**" + t.get(totalKey) + "**", "**" + static.Seconds(step) + "**", share(step, step)}}
	for _, p := range []struct {
		key string
		v   float64
	}{
		{"md.compute", bd.Compute}, {"md.recompute", bd.Recompute}, {"md.tpcomm", bd.TPComm}, {"md.epcomm", bd.EPComm}, {"md.ppcomm", bd.PPComm},
		{"md.dpcomm", bd.DPComm}, {"md.bubble", bd.Bubble}, {"md.optimizer", bd.Optimizer},
	} {
		if p.key == "md.ppcomm" && r.PPSendsInIdle() && r.Layout.PP > 1 {
			// Serving: the sends have no part of their own (Report.PPSendsInIdle).
			rows = append(rows, []string{t.get("md.ppsends"), static.Seconds(r.PPSendTime()), ""})
			continue
		}
		rows = append(rows, []string{t.get(p.key), static.Seconds(p.v), share(p.v, step)})
	}
	m.table([]string{t.get("md.part"), t.get("md.time"), t.get("md.share")}, "lrr", rows)

	m.line("## " + t.get("md.efficiency"))
	m.line("")
	tokNote := "md.tokens.train"
	if infer {
		tokNote = "md.tokens.infer"
	}
	m.table([]string{t.get("md.metric"), t.get("md.value"), t.get("md.note")}, "lrl", [][]string{
		{t.get("md.bubble"), static.Percent(r.BubbleFraction), m.closedForm(r)},
		{t.get("md.comm"), static.Percent(r.CommFraction), t.get("md.comm.note")},
		{t.get("md.tflops"), static.FLOPS(r.ModelTFLOPS * 1e12), ""},
		{t.get("md.mfu"), static.Percent(r.MFU), t.get("md.mfu.note")},
		{t.get("md.tokens"), static.Count(r.TokensPerS), t.get(tokNote)},
	})

	if inf := r.Inference; inf != nil {
		m.line("## " + t.get("md.inference"))
		m.line("")
		m.table([]string{t.get("md.metric"), t.get("md.value"), t.get("md.note")}, "lrl", [][]string{
			{t.get("md.ttft"), static.Seconds(inf.TTFT), t.get("md.ttft.note")},
			{t.get("md.tpot"), static.Seconds(inf.TPOT), t.get("md.tpot.note")},
			{t.get("md.tokens"), static.Count(inf.TokensPerS), t.get("md.tokens.infer")},
		})
	}

	mem := r.Memory
	m.line("## " + t.get("md.memory", "stage", strconv.Itoa(mem.Stage)))
	m.line("")
	verdict := t.get("md.fits")
	if !mem.Fits {
		verdict = "**" + t.get("md.over", "over", static.Bytes(mem.Total-mem.Capacity)) + "**"
	}
	m.table([]string{t.get("md.part"), t.get("md.bytes"), t.get("md.note")}, "lrl", [][]string{
		{t.get("md.weights"), static.Bytes(mem.Weights), ""},
		{t.get("md.gradients"), static.Bytes(mem.Gradients), ""},
		{t.get("md.optstate"), static.Bytes(mem.Optimizer), ""},
		{t.get("md.activations"), static.Bytes(mem.Activations), ""},
		{t.get("md.kv"), static.Bytes(mem.KVCache), ""},
		{t.get("md.reserved"), static.Bytes(mem.Reserved), ""},
		{"**" + t.get("md.total") + "**", "**" + static.Bytes(mem.Total) + "**",
			t.get("md.capacity", "cap", static.Bytes(mem.Capacity), "pct", share(mem.Total, mem.Capacity), "verdict", verdict)},
	})

	m.line("## " + t.get("md.warnings"))
	m.line("")
	if len(r.Warnings) == 0 {
		m.line(t.get("md.nowarnings"))
	}
	for _, wn := range r.Warnings {
		m.line("- " + mdEsc(wn))
	}
	m.line("")
}

// ---- comparison ----

// evaluated reports whether a contender has a report (it may not fit).
func evaluated(r common.CompareRow) bool { return r.Report.Layout.TP > 0 }

func (m *mdWriter) compare(s model.Scenario, c common.Compare) {
	t := m.t
	m.line("## " + t.get("cmp.heading"))
	m.line("")
	if c.Err != nil || len(c.Rows) == 0 {
		msg := "no contenders"
		if c.Err != nil {
			msg = c.Err.Error()
		}
		m.line(t.get("cmp.none", "err", mdEsc(msg)))
		m.line("")
		return
	}
	m.line(t.get("cmp.intro", "n", strconv.Itoa(c.Searched)))
	m.line("")
	rows := c.Rows
	infer := s.Workload.Mode == model.Infer
	for _, r := range rows {
		infer = infer || r.Report.Inference != nil
	}
	// A layout listed twice (the best one is TP only's or PP only's) competes once for ★.
	ok := make([]bool, len(rows))
	for i, r := range rows {
		ok[i] = r.Feasible && evaluated(r) && c.Twin(i) == i
	}
	head := []string{""}
	for _, r := range rows {
		head = append(head, "**"+mdEsc(m.name(r))+"**")
	}
	var table [][]string
	// text adds a row of per-contender text; metric adds a numeric row with its winner.
	text := func(label string, f func(common.CompareRow) string) {
		row := []string{"**" + label + "**"}
		for _, r := range rows {
			row = append(row, f(r))
		}
		table = append(table, row)
	}
	metric := func(label string, lower, bold bool, v func(costmodel.Report) float64, f func(costmodel.Report) string) {
		vals := make([]float64, len(rows))
		for i, r := range rows {
			vals[i] = v(r.Report)
		}
		shown := make([]string, len(rows))
		for i, r := range rows {
			if r.Feasible && evaluated(r) {
				shown[i] = f(r.Report)
			}
		}
		// Cells that read the same tie, as on the Compare tab.
		win := common.Winners(vals, ok, lower, shown)
		row := []string{"**" + label + "**"}
		for i, r := range rows {
			cell := t.get("cmp.missing")
			if r.Feasible && evaluated(r) {
				cell = f(r.Report)
			}
			switch w := win[c.Twin(i)]; {
			case w && bold:
				cell = "**" + cell + "** " + WinnerMark
			case w:
				cell += " " + WinnerMark
			}
			row = append(row, cell)
		}
		table = append(table, row)
	}

	text(t.get("cmp.layout"), func(r common.CompareRow) string {
		if r.Layout.TP <= 0 {
			return t.get("cmp.missing")
		}
		out := fmt.Sprintf("%d × %d × %d", r.Layout.TP, r.Layout.PP, r.Layout.DP)
		if r.Layout.CPSize() > 1 {
			out += fmt.Sprintf(", CP %d", r.Layout.CP) // the three sizes leave it out
		}
		return out
	})
	text(t.get("cmp.split"), func(r common.CompareRow) string { return m.split(s, r) })
	metric(t.get("cmp.comm"), true, false,
		func(rp costmodel.Report) float64 { return rp.Breakdown.TPComm + rp.Breakdown.PPComm },
		func(rp costmodel.Report) string { return m.comm(rp, infer) })
	if infer {
		metric(t.get("cmp.ttft"), true, true, func(rp costmodel.Report) float64 { return infOf(rp).TTFT },
			func(rp costmodel.Report) string { return static.Seconds(infOf(rp).TTFT) })
		metric(t.get("cmp.tpot"), true, true, func(rp costmodel.Report) float64 { return infOf(rp).TPOT },
			func(rp costmodel.Report) string { return static.Seconds(infOf(rp).TPOT) })
	} else {
		metric(t.get("cmp.latency"), true, true, func(rp costmodel.Report) float64 { return rp.StepTime },
			func(rp costmodel.Report) string { return static.Seconds(rp.StepTime) })
	}
	metric(t.get("cmp.throughput"), false, true, func(rp costmodel.Report) float64 { return rp.TokensPerS },
		func(rp costmodel.Report) string { return t.get("cmp.tokens", "n", static.Count(rp.TokensPerS)) })
	metric(t.get("cmp.interconnect"), true, false,
		func(rp costmodel.Report) float64 { return ratio(rp.Breakdown.TPComm, rp.StepTime) },
		func(rp costmodel.Report) string { return m.interconnect(s, rp) })
	metric(t.get("cmp.memory"), true, true, func(rp costmodel.Report) float64 { return rp.Memory.Total },
		func(rp costmodel.Report) string {
			v := static.Bytes(rp.Memory.Total)
			if rp.Memory.Capacity > 0 {
				v += " (" + share(rp.Memory.Total, rp.Memory.Capacity) + ")"
			}
			return v
		})
	text(t.get("cmp.fits"), func(r common.CompareRow) string {
		switch {
		case r.Feasible:
			return t.get("cmp.yes")
		case r.Reason != "":
			return t.get("cmp.no", "reason", mdEsc(r.Reason))
		}
		return t.get("cmp.no", "reason", t.get("cmp.noreport"))
	})
	m.table(head, "", table)

	if len(c.Cross) > 0 {
		m.line(t.get("cmp.cross"))
		m.line("")
		if i := c.Row(common.RowPPOnly); i >= 0 && c.Rows[i].Layout.Schedule != c.CrossPP.Schedule && !infer {
			m.line(t.get("cmp.cross.sched", "schedule", mdEsc(c.CrossPP.Schedule.String())))
			m.line("")
		}
		var cr [][]string
		cell := func(v float64) string {
			if v > 0 {
				return static.Count(v)
			}
			return t.get("cmp.missing")
		}
		for _, p := range c.Cross {
			cr = append(cr, []string{strconv.Itoa(p.Micro), cell(p.TP), cell(p.PP)})
		}
		m.table([]string{t.get("cmp.cross.m"), mdEsc(t.get("name.TP only")), mdEsc(t.get("name.PP only"))}, "rrr", cr)
	}
}

// seqFamilyKeys are the texts of the sequence sweep's families (common.FamNoCP, FamCP, FamBoth).
var seqFamilyKeys = [common.NumSeqFamilies]string{"seq.fam.nocp", "seq.fam.cp", "seq.fam.both"}

// seqSweep writes the sequence sweep: a row a length, a cell a family (its layout, tokens/s and
// memory per GPU; what the closest layout needs where none fits), ★ the most tokens/s.
func (m *mdWriter) seqSweep(sw common.SeqSweep) {
	t := m.t
	m.line("")
	m.line(t.get("seq.intro", "batch", strconv.Itoa(sw.Batch)))
	m.line("")
	head := []string{t.get("seq.len")}
	for _, k := range seqFamilyKeys {
		head = append(head, mdEsc(t.get(k)))
	}
	var rows [][]string
	for _, p := range sw.Points {
		vals := make([]float64, len(p.Fams))
		ok := make([]bool, len(p.Fams))
		shown := make([]string, len(p.Fams))
		for f, r := range p.Fams {
			vals[f], ok[f], shown[f] = r.Report.TokensPerS, r.Feasible, static.Count(r.Report.TokensPerS)
		}
		win := common.Winners(vals, ok, false, shown)
		row := []string{strconv.Itoa(p.Seq)}
		for f, r := range p.Fams {
			cell := t.get("cmp.missing")
			switch {
			case r.Feasible:
				cell = mdEsc(common.SplitName(r.Layout)) + " · " + t.get("cmp.tokens", "n", static.Count(r.Report.TokensPerS)) + " · " + static.Bytes(r.Report.Memory.Total)
				if win[f] {
					cell += " " + WinnerMark
				}
			case evaluated(r):
				cell = mdEsc(common.SplitName(r.Layout)) + " · " + t.get("seq.needs", "mem", static.Bytes(r.Report.Memory.Total))
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	m.table(head, "rlll", rows)
}

// name is a contender's label, the Compare tab's in the export's language.
func (m *mdWriter) name(r common.CompareRow) string {
	t := m.t
	switch r.Kind {
	case common.RowTPOnly:
		return t.get("name.TP only")
	case common.RowPPOnly:
		return t.get("name.PP only")
	case common.RowHybrid:
		return t.get("name.best hybrid")
	case common.RowEP:
		return t.get("name.EP (attention DP)")
	case common.RowDisagg:
		return t.get("name.disaggregated", "split", common.SplitName(r.Layout))
	case common.RowBest:
		switch {
		case r.SameAs == common.RowTPOnly:
			return t.get("name.best.same", "name", t.get("name.TP only"))
		case r.SameAs == common.RowPPOnly:
			return t.get("name.best.same", "name", t.get("name.PP only"))
		case r.SameAs == common.RowEP:
			return t.get("name.best.same", "name", t.get("name.EP (attention DP)"))
		case !r.Feasible:
			return t.get("name.best.none")
		}
		return t.get("name.best", "split", common.SplitName(r.Layout))
	}
	return r.Name
}

func infOf(r costmodel.Report) costmodel.Inference {
	if r.Inference == nil {
		return costmodel.Inference{TTFT: math.NaN(), TPOT: math.NaN()}
	}
	return *r.Inference
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// layerSpan is the transformer layers per stage: "40", or "6–7" when stages differ.
func layerSpan(r costmodel.Report, layers, pp int) string {
	lo, hi := math.MaxInt, 0
	for _, st := range r.Detail.Stages {
		lo, hi = min(lo, st.Layers), max(hi, st.Layers)
	}
	if hi == 0 {
		lo, hi = layers/max(pp, 1), (layers+max(pp, 1)-1)/max(pp, 1)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

func (m *mdWriter) split(s model.Scenario, r common.CompareRow) string {
	l := r.Layout
	if l.TP <= 0 {
		return m.t.get("cmp.missing")
	}
	L := s.Arch.Layers
	lp := layerSpan(r.Report, L, l.PP)
	switch {
	case l.TP > 1 && l.PP > 1:
		return m.t.get("cmp.split.both", "t", strconv.Itoa(l.TP), "p", strconv.Itoa(l.PP), "lp", lp)
	case l.TP > 1:
		return m.t.get("cmp.split.tp", "t", strconv.Itoa(l.TP))
	case l.PP > 1:
		return m.t.get("cmp.split.pp", "lp", lp, "L", strconv.Itoa(L))
	}
	return m.t.get("cmp.split.none")
}

func (m *mdWriter) comm(r costmodel.Report, infer bool) string {
	t, d := m.t, r.Detail
	var parts []string
	if r.Layout.TP > 1 {
		key := "cmp.comm.tp.train"
		if infer {
			key = "cmp.comm.tp.infer"
		}
		algo := "?"
		if u := d.TPCollective; u.Algorithm != "" {
			if _, res, ok := static.UseResult(u); ok {
				algo = static.AlgoProto(res.Algo, res.Proto)
			}
		}
		parts = append(parts, t.get(key, "f", strconv.Itoa(countComm(d.Layer.Forward)), "b", strconv.Itoa(countComm(d.Layer.Backward)),
			"S", static.Bytes(d.TPAllReduceBytes), "time", static.Seconds(d.TPAllReduceS), "algo", mdEsc(algo)))
	}
	if r.Layout.PP > 1 {
		key := "cmp.comm.pp."
		if r.Layout.TP > 1 {
			key = "cmp.comm.pp2."
		}
		if infer {
			key += "infer"
		} else {
			key += "train"
		}
		// What one GPU sends (its 1/TP share), as report's collectives table has it.
		parts = append(parts, t.get(key, "S", static.Bytes(r.PPSendBytesPerGPU()), "time", static.Seconds(d.P2PS)))
	}
	if len(parts) == 0 {
		parts = append(parts, t.get("cmp.comm.none"))
	}
	step := t.get("cmp.comm.step", "tp", static.Seconds(r.Breakdown.TPComm), "pp", static.Seconds(r.Breakdown.PPComm))
	if infer && r.Layout.PP > 1 && r.PPSendsInIdle() {
		step = t.get("cmp.comm.step.infer", "tp", static.Seconds(r.Breakdown.TPComm))
	}
	return strings.Join(parts, "; ") + "<br>" + step
}

// ppLink is the link a stage boundary crosses: the inter-node link when any boundary leaves a
// node, else the intra-node one.
func ppLink(s model.Scenario, r costmodel.Report) string {
	per := s.Cluster.GPUsPerNode
	st := r.Detail.Stages
	for i := 0; i+1 < len(st) && per > 0; i++ {
		if len(st[i].GPUs) > 0 && len(st[i+1].GPUs) > 0 && st[i].GPUs[0]/per != st[i+1].GPUs[0]/per {
			return s.Cluster.Inter.ID
		}
	}
	return s.Cluster.Intra.ID
}

func (m *mdWriter) interconnect(s model.Scenario, r costmodel.Report) string {
	t, l := m.t, r.Layout
	tshare := share(r.Breakdown.TPComm, r.StepTime)
	pshare := share(r.Breakdown.PPComm, r.StepTime)
	if r.PPSendsInIdle() && l.PP > 1 {
		// Serving: the sends have no share of their own to print (Report.PPSendsInIdle).
		if l.TP > 1 {
			return t.get("cmp.ic.both.infer", "intra", mdEsc(r.Detail.TPLink), "tshare", tshare, "pplink", mdEsc(ppLink(s, r)))
		}
		return t.get("cmp.ic.pp.infer")
	}
	switch {
	case l.TP > 1 && l.PP > 1:
		return t.get("cmp.ic.both", "intra", mdEsc(r.Detail.TPLink), "tshare", tshare, "pplink", mdEsc(ppLink(s, r)), "pshare", pshare)
	case l.TP > 1:
		return t.get("cmp.ic.tp", "share", tshare, "link", mdEsc(r.Detail.TPLink))
	case l.PP > 1:
		return t.get("cmp.ic.pp", "share", pshare)
	}
	return t.get("cmp.ic.none")
}
