package compare

import (
	"errors"
	"fmt"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
)

// Contender labels. The best layout's label says what it is: "best: TP 2 × PP 4", or "best (=
// PP only)" when it is that contender's layout (Build); NameNone when nothing fits.
const (
	NameTP     = "TP only"
	NamePP     = "PP only"
	NameHybrid = "best hybrid"
	NameEP     = "EP (attention DP)"
	NameDisagg = "disaggregated"
	NameNone   = "best: none fits"
)

// objective is what "best" means on the tab: the shortest step (training) or time to serve all
// requests (inference). For a fixed workload that is also the most tokens per second, which the
// Learn tab's winner section says.
const objective = costmodel.ObjTime

// refineTries bounds how many of a class's candidates Build re-evaluates exactly when the search's
// estimate said they fit and the simulation says they do not.
const refineTries = 3

// CrossMicros are the micro-batch counts of the crossover chart: 1, 2, 4, …, 128.
var CrossMicros = []int{1, 2, 4, 8, 16, 32, 64, 128}

// class is a set of layouts one contender is the best of.
type class struct {
	kind common.RowKind
	name string
	in   func(model.Layout) bool
	what string // the class in words, for a class with no layout at all
}

var (
	classTP     = class{common.RowTPOnly, NameTP, func(l model.Layout) bool { return onePool(l) && l.TP > 1 && l.PP == 1 }, "TP > 1 and PP = 1"}
	classPP     = class{common.RowPPOnly, NamePP, func(l model.Layout) bool { return onePool(l) && l.TP == 1 && l.PP > 1 }, "TP = 1 and PP > 1"}
	classHybrid = class{common.RowHybrid, NameHybrid, isHybrid, "TP > 1 and PP > 1"}
	classEP     = class{common.RowEP, NameEP, func(l model.Layout) bool { return onePool(l) && l.TP == 1 && l.PP == 1 && l.EP > 1 }, "TP = 1, PP = 1 and EP > 1"}
)

func isHybrid(l model.Layout) bool { return onePool(l) && l.TP > 1 && l.PP > 1 }

// onePool says whether l serves on one pool (every contender but the disaggregated one).
func onePool(l model.Layout) bool { return !l.Disagg.On() }

// isDisagg says whether l is a disaggregated serving layout (model.Disagg).
func isDisagg(l model.Layout) bool { return l.Disagg.On() }

// Build compares, for the GPUs and workload of s, tensor parallelism alone (the fastest layout
// with PP = 1), pipeline parallelism alone (the fastest with TP = 1), the fastest layout of all
// and, when that is not a hybrid, the fastest hybrid (TP > 1 and PP > 1). Each is Search's first
// feasible layout of its kind, so micro-batch size, schedule and interleaving are chosen the same
// way for all: a column never loses to another only because it kept the scenario's settings; the
// training knobs stay the scenario's for all, but those set to auto, which search chooses for
// each layout. A
// kind with no feasible layout shows the one closest to fitting (least memory) with its reason.
// It also sweeps the micro-batch count m for TP only and PP only. It is pure and runs in a
// tea.Cmd: one Search, a few exact evaluations and 16 for the sweep.
func Build(s model.Scenario) common.Compare {
	var out common.Compare
	gpus := s.Cluster.GPUs
	if gpus < 1 {
		out.Err = fmt.Errorf("compare: %d GPUs", gpus)
		return out
	}
	fix := costmodel.SearchFix{}.KeepKnobsBut(s.Layout.Auto)
	// Serving: the pool splits too, for the disaggregated contender (the other contenders are
	// one pool's).
	sfix := fix
	disagg := s.Workload.Mode == model.Infer && gpus >= 2
	sfix.DisaggAuto = disagg
	res, err := costmodel.Search(s, costmodel.SearchOptions{Objective: objective, Fix: sfix})
	if err != nil {
		why := reason(err)
		for _, c := range []class{classTP, classPP} {
			out.Rows = append(out.Rows, common.CompareRow{Kind: c.kind, Name: c.name, Reason: why})
		}
		out.Rows = append(out.Rows, common.CompareRow{Kind: common.RowBest, Name: NameNone, Reason: why})
		return out
	}
	out.Searched = len(res.Candidates)
	best, bestOK := first(s, res.Candidates, onePool)
	tp := classRow(s, res.Candidates, classTP, best, bestOK)
	pp := classRow(s, res.Candidates, classPP, best, bestOK)
	out.Rows = append(out.Rows, tp, pp)
	// A MoE model: attention data-parallel with the experts spread, where such a layout exists.
	var ep common.CompareRow
	if s.Arch.ExpertCount() > 1 {
		if ep = classRow(s, res.Candidates, classEP, best, bestOK); ep.Layout.TP > 0 {
			out.Rows = append(out.Rows, ep)
		}
	}
	switch {
	case !bestOK:
		out.Rows = append(out.Rows, noneFits(s, res.Candidates))
	default:
		best.Kind, best.Name = common.RowBest, "best: "+common.SplitName(best.Layout)
		for _, r := range []common.CompareRow{tp, pp, ep} {
			if r.Feasible && r.Layout == best.Layout {
				best.Name, best.SameAs = "best (= "+r.Name+")", r.Kind
			}
		}
		out.Rows = append(out.Rows, best)
		if !isHybrid(best.Layout) {
			if hy, ok := first(s, res.Candidates, classHybrid.in); ok {
				hy.Kind, hy.Name = classHybrid.kind, classHybrid.name
				out.Rows = append(out.Rows, hy)
			}
		}
	}
	if disagg {
		// The best disaggregated layout at the same GPUs, beside one pool's (only when one fits).
		if row, ok := first(s, res.Candidates, isDisagg); ok {
			row.Kind, row.Name = common.RowDisagg, NameDisagg+": "+common.SplitName(row.Layout)
			out.Rows = append(out.Rows, row)
		}
	}
	out.Better, out.Held = better(s, fix, res, best, bestOK)
	out.CrossTP, out.CrossPP = sweepLayout(tp.Layout), sweepLayout(pp.Layout)
	out.Cross = cross(s, out.CrossTP, out.CrossPP)
	if s.Workload.Mode == model.Infer {
		out.Rates = rateSeries(s, out.Rows)
	}
	return out
}

// rateRequests is the fewest requests a contender's rate sweep serves: enough for the queue to
// settle at each rate (the scenario's own when more).
const rateRequests = 200

// rateSeries sweeps the offered rate for TP only, PP only and the best hybrid (or the best
// layout when there is no hybrid row), each that fits.
func rateSeries(s model.Scenario, rows []common.CompareRow) []common.RateSeries {
	var out []common.RateSeries
	seen := map[model.Layout]bool{}
	for _, r := range rows {
		if !r.Feasible || seen[r.Layout] || (r.Kind == common.RowBest && slicesHasKind(rows, common.RowHybrid)) {
			continue
		}
		seen[r.Layout] = true
		sc := s
		sc.Layout = r.Layout
		sc.Workload.Rate, sc.Workload.Concurrency = 0, 0
		sc.Workload.Requests = max(sc.Workload.Requests, rateRequests)
		sw, err := costmodel.SweepRate(sc, costmodel.SLO{})
		if err != nil {
			continue
		}
		rs := common.RateSeries{Kind: r.Kind, Name: r.Name, Layout: r.Layout}
		for _, pt := range sw.Points {
			rs.Points = append(rs.Points, common.RatePoint{Offered: pt.Rate, OutTokS: pt.Inference.OutputTokensPerS,
				TPOTP90: pt.Inference.TPOTP90, TTFTP90: pt.Inference.TTFTP90})
		}
		out = append(out, rs)
	}
	return out
}

func slicesHasKind(rows []common.CompareRow, k common.RowKind) bool {
	for _, r := range rows {
		if r.Kind == k && r.Feasible {
			return true
		}
	}
	return false
}

// first evaluates exactly the first feasible candidates (Search's order, best first) whose layout
// is in the class and returns the first that fits: the search ranks most candidates by an
// estimate, and refineTries bounds how far a disagreement sends it.
func first(s model.Scenario, cands []costmodel.Candidate, in func(model.Layout) bool) (common.CompareRow, bool) {
	tries := 0
	for _, c := range cands {
		if !c.Feasible || !in(c.Layout) {
			continue
		}
		if row := evalRow("", s, c.Layout); row.Feasible {
			return row, true
		}
		if tries++; tries == refineTries {
			break
		}
	}
	return common.CompareRow{}, false
}

// classRow is the contender for class c: the best layout of all when it is of the class (no
// second evaluation), else the class's first feasible candidate, else its closest.
func classRow(s model.Scenario, cands []costmodel.Candidate, c class, best common.CompareRow, bestOK bool) common.CompareRow {
	row, ok := best, bestOK && c.in(best.Layout)
	if !ok {
		row, ok = first(s, cands, c.in)
	}
	if !ok {
		row = closest(s, cands, c)
	}
	row.Kind, row.Name = c.kind, c.name
	return row
}

// closest is class c's row when none of its layouts fits: the evaluated one that needs the least
// memory (Search lists infeasible candidates by memory), else the reason its first layout was
// turned down (TP does not divide the heads, …), else a row saying the GPUs allow none.
func closest(s model.Scenario, cands []costmodel.Candidate, c class) common.CompareRow {
	var rejected *costmodel.Candidate
	for i, cd := range cands {
		if cd.Feasible || !c.in(cd.Layout) {
			continue
		}
		if cd.Report.Layout.TP > 0 && cd.Report.Memory.Total > 0 {
			return evalRow(c.name, s, cd.Layout)
		}
		if rejected == nil {
			rejected = &cands[i]
		}
	}
	if rejected != nil {
		return common.CompareRow{Name: c.name, Layout: rejected.Layout, Reason: rejected.Reason}
	}
	gpus := fmt.Sprintf("%d GPUs", s.Cluster.GPUs)
	if s.Cluster.GPUs == 1 {
		gpus = "1 GPU"
	}
	return common.CompareRow{Name: c.name, Reason: "no layout of " + gpus + " has " + c.what}
}

// noneFits is the best layout's row when nothing fits: the layout closest to fitting overall.
func noneFits(s model.Scenario, cands []costmodel.Candidate) common.CompareRow {
	row := closest(s, cands, class{name: NameNone, in: onePool, what: "a valid split"})
	row.Kind, row.Name = common.RowBest, NameNone
	if evaluated(row) && row.Reason != "" {
		row.Reason = "the closest, " + common.SplitName(row.Layout) + ", is " + row.Reason
	}
	return row
}

// sweepLayout is the layout the chart sweeps over m: l itself, run as 1F1B when it is
// interleaved (which needs m to be a multiple of PP, so most of the sweep would be empty).
func sweepLayout(l model.Layout) model.Layout {
	if l.Schedule == model.Interleaved {
		l.Schedule, l.Chunks = model.OneFOneB, 1
	}
	return l
}

// evalRow evaluates s with layout l; an invalid or non-fitting layout stays a row with its reason.
func evalRow(name string, s model.Scenario, l model.Layout) common.CompareRow {
	s.Layout = l
	row := common.CompareRow{Name: name, Layout: l}
	r, err := costmodel.EvaluateFast(s)
	switch {
	case err != nil:
		row.Reason = reason(err)
	case !r.Memory.Fits:
		row.Report = r
		row.Reason = costmodel.OverMemory(r)
	default:
		row.Report, row.Feasible = r, true
	}
	return row
}

// reason is the short form of an evaluation error: the first invalid field and what it allows.
func reason(err error) string {
	var ve model.ValidationError
	if errors.As(err, &ve) && len(ve) > 0 {
		return ve[0].Field + " " + fmt.Sprint(ve[0].Value) + ": " + ve[0].Allowed
	}
	return err.Error()
}

// cross sweeps the micro-batch count m for the TP-only and PP-only layouts: the batch becomes
// m · b · dp, everything else stays (in inference b is 1: m requests a replica, all at once).
func cross(s model.Scenario, tp, pp model.Layout) []common.CrossPoint {
	out := make([]common.CrossPoint, len(CrossMicros))
	for i, m := range CrossMicros {
		out[i] = common.CrossPoint{Micro: m, TP: tokensAt(s, tp, m), PP: tokensAt(s, pp, m)}
	}
	return out
}

// tokensAt is the tokens per second of layout l at m micro-batches, 0 when invalid or over memory.
func tokensAt(s model.Scenario, l model.Layout, m int) float64 {
	s.Layout = l
	units := m * max(l.MicroBatch, 1) * max(l.DP, 1)
	if s.Workload.Mode == model.Infer {
		s.Workload.Requests = units
	} else {
		s.Workload.GlobalBatch = units
	}
	r, err := costmodel.EvaluateFast(s)
	if err != nil || !r.Memory.Fits {
		return 0
	}
	return r.TokensPerS
}

// better is what `splitscope search` finds on s, every training knob free, when it ranks ahead
// of the contenders' best (which hold the panel's knobs, fix): its row and the held knobs it
// turns otherwise. A zero row when the two agree (or are a tie as the tab rounds them).
func better(s model.Scenario, fix costmodel.SearchFix, held costmodel.SearchResult, best common.CompareRow, bestOK bool) (common.CompareRow, []string) {
	res := held
	if fix != (costmodel.SearchFix{}) {
		var err error
		if res, err = costmodel.Search(s, costmodel.SearchOptions{Objective: objective}); err != nil {
			return common.CompareRow{}, nil
		}
	}
	row, ok := first(s, res.Candidates, onePool)
	if !ok || bestOK && (row.Layout == best.Layout || !ahead(s, row, best)) {
		return common.CompareRow{}, nil
	}
	row.Kind, row.Name = common.RowBest, "search's best: "+common.SplitName(row.Layout)
	return row, heldKnobs(s.Layout, row.Layout)
}

// ahead says whether a ranks before b by search's own order, and not as a tie the tab shows
// as one: a training step time that reads the same to the displayed digits is a tie.
func ahead(s model.Scenario, a, b common.CompareRow) bool {
	infer := s.Workload.Mode == model.Infer
	if !infer && static.Seconds(a.Report.StepTime) == static.Seconds(b.Report.StepTime) {
		return false
	}
	c := []costmodel.Candidate{{Layout: b.Layout, Report: b.Report, Feasible: true}, {Layout: a.Layout, Report: a.Report, Feasible: true}}
	costmodel.RankCandidates(c, objective, infer)
	return c[0].Layout == a.Layout
}

// heldKnobs names the knobs the panel holds (not auto) at a value other than next's, as the
// panel's value: "recompute none", "SP off", "ZeRO 0".
func heldKnobs(panel, next model.Layout) []string {
	var out []string
	add := func(bit model.AutoKnobs, differ bool, what string) {
		if panel.Auto&bit == 0 && differ {
			out = append(out, what)
		}
	}
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	add(model.AutoRecompute, panel.Recompute != next.Recompute, "recompute "+panel.Recompute.String())
	add(model.AutoSequenceParallel, panel.SequenceParallel != next.SequenceParallel, "SP "+onOff(panel.SequenceParallel))
	// The all-gather is SP's: held with SP off, "SP off" says it.
	spOff := panel.Auto&model.AutoSequenceParallel == 0 && !panel.SequenceParallel
	add(model.AutoSPGather, panel.SPGather != next.SPGather && next.SequenceParallel && !spOff, "SP all-gather "+panel.SPGather.String())
	add(model.AutoZeRO, panel.ZeRO != next.ZeRO, fmt.Sprintf("ZeRO %d", panel.ZeRO))
	add(model.AutoTPOverlap, panel.TPOverlap != next.TPOverlap, "TP overlap "+panel.TPOverlap.String())
	add(model.AutoSerialDP, panel.SerialDP != next.SerialDP, "serial DP "+onOff(panel.SerialDP))
	add(model.AutoOffload, panel.Offload != next.Offload, "offload "+panel.Offload.String())
	add(model.AutoRankOrder, panel.RankOrder != next.RankOrder, "rank order "+panel.RankOrder.String())
	return out
}
