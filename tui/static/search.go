package static

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// MaxInfeasibleShown caps the infeasible layouts RenderSearch lists; the rest are counted.
const MaxInfeasibleShown = 10

// MaxParetoShown caps the layouts of the Pareto front RenderSearch lists; the rest are counted.
const MaxParetoShown = 20

// microBatches is m for a candidate: the report's when it has one, else computed from the layout.
func microBatches(s model.Scenario, c costmodel.Candidate) int {
	if c.Report.Layout.MicroBatches > 0 {
		return c.Report.Layout.MicroBatches
	}
	s.Layout = c.Layout
	return s.MicroBatches()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// splitFeasible is the feasible candidates and the others, each in the order given: slices of
// c when it lists the feasible first (as Search does), copies otherwise (a candidate is large,
// and a search lists tens of thousands).
func splitFeasible(c []costmodel.Candidate) (feasible, infeasible []costmodel.Candidate) {
	n := 0
	for n < len(c) && c[n].Feasible {
		n++
	}
	rest := n
	for rest < len(c) && !c[rest].Feasible {
		rest++
	}
	if rest == len(c) {
		return c[:n:n], c[n:]
	}
	for _, x := range c {
		if x.Feasible {
			feasible = append(feasible, x)
		} else {
			infeasible = append(infeasible, x)
		}
	}
	return feasible, infeasible
}

// RenderSearch writes the ranked feasible layouts of a search (at most top of them; top ≤ 0
// shows all), the Pareto front of step time (serve time in inference) against memory per GPU,
// then the infeasible ones with their reasons, capped at MaxInfeasibleShown, and the warnings
// that hold for every layout tried.
func RenderSearch(w io.Writer, s model.Scenario, res costmodel.SearchResult, top int) error {
	ew := &errWriter{w: w}
	ew.line(ScenarioLine(s))

	feasible, infeasible := splitFeasible(res.Candidates)
	shown := feasible
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	ew.line(fmt.Sprintf("%d of %d layouts feasible; best %d first", len(feasible), len(res.Candidates), len(shown)))
	if line := countsLine(s, res.Counts); line != "" {
		ew.line(line)
	}

	infer := s.Workload.Mode == model.Infer
	if len(shown) > 0 {
		ew.line("")
		moe := layoutCols{moe: s.Arch.Experts > 1, cp: anyCP(res.Candidates)}
		goodput := slices.ContainsFunc(shown, func(c costmodel.Candidate) bool { return c.Goodput > 0 })
		pools := slices.ContainsFunc(res.Candidates, func(c costmodel.Candidate) bool { return c.Layout.Disagg.On() })
		var head []string
		if infer {
			head = layoutHead(moe)[:len(layoutHead(moe))-4]
			if pools {
				head = append(head, "pools")
			}
			head = append(head, "order", "TTFT p90", "TPOT p90", "out tok/s")
			if goodput {
				head = append(head, "goodput")
			}
		} else {
			head = append(append(layoutHead(moe), knobHead...), "step time", "tokens/s")
		}
		head = append(head, "mem/GPU", "bubble", "comm", "fits")
		right := make([]bool, len(head))
		for i := range right {
			right[i] = true
		}
		if i := slices.Index(head, "schedule"); i >= 0 {
			right[i] = false
		}
		right[len(right)-1] = false
		t := newTable("", right...)
		t.add(head...)
		for i, c := range shown {
			r, l := c.Report, c.Layout
			row := append([]string{strconv.Itoa(i + 1)}, layoutCells(l, moe)...)
			if infer {
				ttft, tpot, tok := "-", "-", Count(r.TokensPerS)
				if r.Inference != nil {
					// The run ranked: the offline one, or with goodput the run at the goodput rate.
					ttft, tpot, tok = Seconds(r.Inference.TTFTP90), Seconds(r.Inference.TPOTP90), Count(r.Inference.OutputTokensPerS)
				}
				if pools {
					row = append(row, PoolsCell(l, s.Cluster.GPUs))
				}
				row = append(row, l.RankOrder.String(), ttft, tpot, tok)
				if goodput {
					row = append(row, trimFloat(c.Goodput)+" req/s")
				}
			} else {
				row = append(row, l.Schedule.String(), strconv.Itoa(l.Chunks), strconv.Itoa(l.MicroBatch), strconv.Itoa(microBatches(s, c)))
				row = append(append(row, knobCells(l)...), Seconds(r.StepTime), Count(r.TokensPerS))
			}
			row = append(row, Bytes(r.Memory.Total), Percent(r.BubbleFraction),
				Percent(r.CommFraction), yesNo(r.Memory.Fits))
			t.add(row...)
		}
		t.write(ew)
		if infer && goodput {
			ew.line("TTFT, TPOT and tokens/s of the run at the goodput rate (the offline run where no rate meets the SLO)")
		}
	}

	renderPareto(ew, s, feasible, costmodel.Pareto(res.Candidates))

	if len(infeasible) > 0 {
		ew.line("")
		ew.line(fmt.Sprintf("infeasible (%d)", len(infeasible)))
		n := min(len(infeasible), MaxInfeasibleShown)
		t := newTable("  ")
		for _, c := range infeasible[:n] {
			l := c.Layout
			name := fmt.Sprintf("TP=%d PP=%d DP=%d", l.TP, l.PP, l.DP)
			if l.CPSize() > 1 {
				name += fmt.Sprintf(" CP=%d %s", l.CP, l.CPComm)
			}
			if l.Disagg.On() {
				name = "pools " + PoolsCell(l, s.Cluster.GPUs) + " · decode " + name
			}
			if l.EP > 1 {
				name += fmt.Sprintf(" EP=%d", l.EP)
			}
			if l.ETP > 0 && l.ETP < l.TP {
				name += fmt.Sprintf(" ETP=%d", l.ETP)
			}
			if !infer {
				name += " " + l.Schedule.String() + fmt.Sprintf(" v=%d b=%d", l.Chunks, l.MicroBatch)
				if c.Report.Layout.TP > 0 {
					name += " " + strings.Join(knobCells(l), " ")
				}
			}
			reason := c.Reason
			if reason == "" {
				reason = "infeasible"
			}
			t.add(name, reason)
		}
		t.write(ew)
		if more := len(infeasible) - n; more > 0 {
			ew.line(fmt.Sprintf("  … and %d more", more))
		}
	}
	renderWarnings(ew, res.Warnings)
	return ew.err
}

// PoolsCell is a serving layout's pools: "1" for one pool (aggregated), else "P:D tpN", the
// GPUs of the prefill and decode pools and the prefill pool's TP (the TP, PP and DP columns are
// the decode pool's).
func PoolsCell(l model.Layout, gpus int) string {
	if !l.Disagg.On() {
		return "1"
	}
	tp := l.Disagg.PrefillTP
	if tp == 0 {
		tp = l.TP
	}
	out := fmt.Sprintf("%s tp%d", l.Disagg.String(gpus), tp)
	if pp := l.Disagg.PrefillPP; pp > 1 {
		out += fmt.Sprintf(" pp%d", pp)
	}
	if cp := l.Disagg.PrefillCP; cp > 1 {
		out += fmt.Sprintf(" cp%d", cp)
	}
	return out
}

// layoutCols says which optional layout columns the search tables show: EP and ETP (the GPUs
// each expert is split over) for MoE models, CP (its size and exchange) where a candidate has
// context parallelism.
type layoutCols struct{ moe, cp bool }

// anyCP says whether a candidate splits the sequence.
func anyCP(cands []costmodel.Candidate) bool {
	return slices.ContainsFunc(cands, func(c costmodel.Candidate) bool { return c.Layout.CPSize() > 1 })
}

// layoutHead is the layout columns of the search tables.
func layoutHead(c layoutCols) []string {
	head := []string{"rank", "TP"}
	if c.cp {
		head = append(head, "CP")
	}
	head = append(head, "PP", "DP")
	if c.moe {
		head = append(head, "EP", "ETP")
	}
	return append(head, "schedule", "v", "b", "m")
}

// layoutCells is a layout's TP, CP, PP, DP (and EP) cells.
func layoutCells(l model.Layout, c layoutCols) []string {
	out := []string{strconv.Itoa(l.TP)}
	if c.cp {
		cp := "1"
		if l.CPSize() > 1 {
			cp = strconv.Itoa(l.CP) + " " + l.CPComm.String()
		}
		out = append(out, cp)
	}
	out = append(out, strconv.Itoa(l.PP), strconv.Itoa(l.DP))
	if c.moe {
		out = append(out, strconv.Itoa(l.EPSize()), strconv.Itoa(min(l.ETPSize(), l.TP)))
	}
	return out
}

// renderPareto writes the Pareto front: the feasible layouts no other beats on both time and
// memory per GPU, fastest first, each with its rank by the search's objective.
func renderPareto(ew *errWriter, s model.Scenario, ranked, front []costmodel.Candidate) {
	if len(front) == 0 {
		return
	}
	infer := s.Workload.Mode == model.Infer
	what := "step time"
	if infer {
		// The engine gives the KV cache whatever memory is left: every layout that fits fills
		// the same share of the GPU, and time against memory has no front to show.
		return
	}
	ew.line("")
	ew.line(fmt.Sprintf("Pareto front: time vs memory (%d layouts; none of the others is both faster and smaller)", len(front)))
	moe := layoutCols{moe: s.Arch.Experts > 1, cp: anyCP(ranked)}
	head := append(append(layoutHead(moe), knobHead...), what, "mem/GPU", "tokens/s")
	right := make([]bool, len(head))
	sc := slices.Index(head, "schedule")
	for i := range right {
		right[i] = i != sc
	}
	t := newTable("", right...)
	t.add(head...)
	n := min(len(front), MaxParetoShown)
	for _, c := range front[:n] {
		rank := "-"
		for i, r := range ranked {
			if r.Layout == c.Layout {
				rank = strconv.Itoa(i + 1)
				break
			}
		}
		l, r := c.Layout, c.Report
		sched := l.Schedule.String()
		if infer {
			sched = "-"
		}
		row := append([]string{rank}, layoutCells(l, moe)...)
		row = append(row, sched, strconv.Itoa(l.Chunks), strconv.Itoa(l.MicroBatch), strconv.Itoa(microBatches(s, c)))
		row = append(append(row, knobCells(l)...), Seconds(r.StepTime), Bytes(r.Memory.Total), Count(r.TokensPerS))
		t.add(row...)
	}
	t.write(ew)
	if more := len(front) - n; more > 0 {
		ew.line(fmt.Sprintf("  … and %d more", more))
	}
}

// knobHead and knobCells are the training knobs' columns: recompute, sequence parallelism, ZeRO,
// TP overlap, the DP sync (overlapped with the last backward or after it), offload, rank order.
var knobHead = []string{"recompute", "SP", "ZeRO", "TP ovl", "DP sync", "offload", "order"}

func knobCells(l model.Layout) []string {
	sp := "-"
	switch {
	case l.SequenceParallel && l.SPGather == model.SPGatherKeep:
		sp = "SP keep"
	case l.SequenceParallel:
		sp = "SP"
	}
	dp := "overlap"
	switch {
	case l.GradGroup() == 1:
		dp = "-"
	case l.SerialDP:
		dp = "serial"
	}
	return []string{l.Recompute.String(), sp, strconv.Itoa(l.ZeRO), l.TPOverlap.String(), dp, l.Offload.String(), l.RankOrder.String()}
}

// countsLine says how much of the space the search covered: the configurations of the valid
// splits (knob settings included), how many had their step time computed, how many memory or
// dominance ruled out first, and how many of the best were simulated op by op.
func countsLine(s model.Scenario, n costmodel.SearchCounts) string {
	if n.Space == 0 {
		return ""
	}
	line := fmt.Sprintf("space: %s configurations", Thousands(n.Space))
	if s.Workload.Mode == model.Train {
		line += " (splits × recompute × SP and its all-gather × ZeRO × TP overlap × DP overlap × offload × rank order)"
	} else {
		line += " (splits × rank order)"
	}
	line += fmt.Sprintf(": %s evaluated", Thousands(n.Evaluated))
	if n.PrunedMemory > 0 {
		line += fmt.Sprintf(", %s pruned over memory before any time", Thousands(n.PrunedMemory))
	}
	if n.Dominated > 0 {
		line += fmt.Sprintf(", %s dominated", Thousands(n.Dominated))
	}
	if n.PrunedBound > 0 {
		line += fmt.Sprintf(", %s bounded out", Thousands(n.PrunedBound))
	}
	if n.Simulated > 0 {
		line += fmt.Sprintf("; best %d simulated op by op", n.Simulated)
	}
	return line
}
