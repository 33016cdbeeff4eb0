package costmodel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// searchRefine is how many of the best estimated layouts Search re-evaluates with the full
// simulation before the final ranking.
const searchRefine = 24

// Search enumerates every layout of the scenario's GPUs — TP × PP × DP, micro-batch size
// (powers of two), schedule and interleaving — ranks the feasible ones by the objective and lists
// the rest with the reason they fail. The model, hardware and workload come from base; its
// layout's recompute, sequence-parallel, ZeRO and software settings are kept.
//
// opt.Fix narrows the sweep to the sizes given; a size that no layout of the GPUs can have is an
// error naming it.
//
// Every layout is first evaluated with the closed-form pipeline time (no simulation); the best
// searchRefine are then simulated op by op and re-ranked, so the top of the list is exact.
func Search(base model.Scenario, opt SearchOptions) (SearchResult, error) {
	return search(base, opt, searchRefine)
}

// search is Search with the number of layouts simulated after the closed-form ranking.
func search(base model.Scenario, opt SearchOptions, refine int) (SearchResult, error) {
	return searchMemo(base, opt, refine, newLayerMemo)
}

// searchMemo is search with each worker's layer-cost memo from newMemo, or none (every layer
// cost computed where it is asked) when newMemo is nil: the tests compare the two.
func searchMemo(base model.Scenario, opt SearchOptions, refine int, newMemo func() *layerMemo) (SearchResult, error) {
	if err := checkSearchBase(base); err != nil {
		return SearchResult{}, err
	}
	fix := opt.Fix
	if err := checkFix(base, fix); err != nil {
		return SearchResult{}, err
	}
	maxB := opt.MaxMicroBatch
	if maxB <= 0 {
		maxB = model.MaxBatch
	}
	maxB = min(maxB, model.MaxBatch)
	maxV := opt.MaxChunks
	switch {
	case maxV < 0:
		maxV = maxChunks
	case maxV == 0:
		maxV = defaultMaxChunks
	}
	maxV = min(maxV, maxChunks)
	a := base.Arch
	gpus := base.Cluster.GPUs
	units := base.BatchUnits()
	infer := base.Workload.Mode == model.Infer
	// sizes(d) are the micro-batch sizes tried with DP d: the fixed one, else every divisor of
	// the batch's share of one replica up to maxB. Serving has no micro-batch to choose: the
	// engine batches what runs.
	sizes := func(d int) []int {
		switch {
		case infer:
			return []int{1}
		case fix.MicroBatch > 0:
			return []int{fix.MicroBatch}
		case units%d != 0:
			return nil
		}
		return microBatchSizes(units/d, maxB)
	}
	first := 1
	if fix.MicroBatch > 0 {
		first = fix.MicroBatch
	}

	var feasible, infeasible []Candidate
	var jobs []splitJob
	// kvs are the knob values of each split and micro-batch size, which its jobs index (a job
	// holds no pointer: Search lists tens of thousands).
	var kvs []knobValues
	// reject lists a TP × PP × DP split that no micro-batch or schedule makes work, as the layout
	// with the first micro-batch size and the fixed schedule.
	var dis model.Disagg // the pools of the splits enumerated: none, or a disaggregated split's
	reject := func(t, cp, pp, d int, reason string) {
		l := base.Layout
		l.TP, l.PP, l.DP, l.MicroBatch, l.Disagg = t, pp, d, first, dis
		if cp > 1 {
			l.CP = cp
		}
		if sc := schedulesFor(base, pp, 0, 2, infer, fix); len(sc) > 0 {
			l.Schedule, l.Chunks = sc[0].s, sc[0].v
		}
		infeasible = append(infeasible, Candidate{Layout: l, Reason: reason})
	}
	// Serving with --disagg: each pool split (model.Disagg) is a space of its own, the layout's
	// sizes the decode pool's on the GPUs the prefill pool leaves (disaggOptions).
	for _, dis = range disaggOptions(base, fix) {
		pool := gpus - dis.PrefillGPUs
		for _, t := range model.Divisors(pool) {
			if fix.TP > 0 && t != fix.TP {
				continue
			}
			if reason := tpProblem(a, t); reason != "" {
				// Listed once, with the PP and DP fixed if any (checkFix: they then divide).
				pp := max(fix.PP, 1)
				d := pool / (t * pp)
				if fix.DP > 0 && fix.PP == 0 {
					pp, d = pool/(t*fix.DP), fix.DP
				}
				if t*pp*d == pool && (fix.DP == 0 || d == fix.DP) {
					reject(t, 1, pp, d, reason)
				}
				continue
			}
			lay := base.Layout
			lay.TP, lay.Disagg = t, dis
			for _, cp := range cpSizes(base, fix, t, dis.On()) {
				lay.CP = cp
				cpc := max(cp, 1)
				kinds := cpKinds(base, fix, t, cpc)
				for _, pp := range model.Divisors(pool / (t * cpc)) {
					d := pool / (t * cpc * pp)
					if fix.PP > 0 && pp != fix.PP || fix.DP > 0 && d != fix.DP {
						continue
					}
					lay.PP, lay.DP = pp, d
					if pp > a.Layers {
						reject(t, cpc, pp, d, fmt.Sprintf("PP %d above the %d layers", pp, a.Layers))
						continue
					}
					eps := epSizes(a, d, base.Layout.EP, fix.EP)
					if len(eps) == 0 {
						continue // the fixed EP does not divide this DP
					}
					tried := 0
					for _, b := range sizes(d) {
						if !infer && units%(b*d) != 0 {
							continue
						}
						tried++
						lay.MicroBatch = b
						kvs = append(kvs, knobsFor(base, fix, t, cpc, pp, d))
						kv := int32(len(kvs) - 1)
						for _, sv := range schedulesFor(base, pp, units/(b*d), maxV, infer, fix) {
							for _, ep := range eps {
								for _, etp := range etpSizes(a, t, ep, base.Layout.ETP, fix.ETP) {
									for _, k := range kinds {
										lay.EP, lay.ETP, lay.CPComm = ep, etp, k
										lay.Schedule, lay.Chunks = sv.s, sv.v
										jobs = append(jobs, splitJob{lay, kv})
									}
								}
							}
						}
					}
					if tried == 0 {
						what := "global batch"
						if infer {
							what = "requests"
						}
						of := fmt.Sprintf("1…%d", maxB)
						switch {
						case maxB >= model.MaxBatch:
							of = "any size"
						case infer:
							of = "1"
						case fix.MicroBatch > 0:
							of = fmt.Sprint(fix.MicroBatch)
						}
						reject(t, cpc, pp, d, fmt.Sprintf("%s %d does not split over DP %d in micro-batches of %s", what, units, d, of))
					}
				}
			}
		}
	}
	// Every split on every core; each writes its own slot, so the order is the enumeration's.
	// The candidates stay in this one array to the end (feasible and infeasible apart, ranked,
	// refined): a candidate is large, and Search lists tens of thousands.
	// Room for the rejected splits too: the result lists them after the candidates, in this array.
	cands := make([]Candidate, len(jobs), len(jobs)+len(infeasible))
	splitCounts := make([]SearchCounts, len(jobs))
	ns := make([]int, 0, len(jobs))
	for _, j := range jobs {
		ns = append(ns, j.layout.PP*max(j.layout.Chunks, 1))
		if searchNewSchedules && j.layout.Chunks <= 1 {
			ns = append(ns, 2*j.layout.PP) // the V schedules' 2·pp stages
		}
	}
	ss := newStageSplits(base.Arch, base.Workload.Seq, base.Cluster, ns)
	// Each worker remembers the layer costs its splits computed (layerMemo).
	memos := make([]*layerMemo, workersFor(len(jobs)))
	for w := range memos {
		if newMemo != nil {
			memos[w] = newMemo()
			memos[w].coll = &collMemo{c: base.Cluster, m: map[collKey]collective.Result{}, own: true}
		}
	}
	// The jobs of one knob set (a TP × PP × DP split and micro-batch size: its schedules, EP and
	// ETP) are one worker's, in order, each seeded with the pick of the one before: the seeds,
	// and so the counts, do not depend on which worker ran what.
	var groups []int // each group's first job
	for i, j := range jobs {
		if i == 0 || j.knobs != jobs[i-1].knobs {
			groups = append(groups, i)
		}
	}
	groups = append(groups, len(jobs))
	parallelForWorkers(len(groups)-1, len(memos), func(w, g int) {
		var try [3]knobs // the previous pick, then seeds
		prev := false
		for i := groups[g]; i < groups[g+1]; i++ {
			s := base
			s.Layout = jobs[i].layout
			kv := kvs[jobs[i].knobs]
			sd := seeds(kv)
			try[1], try[2] = sd[0], sd[1]
			from := 1
			if prev {
				from = 0
			}
			o := searchSplitSeeded(s, kv, opt.Objective, ss, memos[w], try[from:])
			cands[i], splitCounts[i] = o.cand, o.counts
			if prev = o.picked; prev {
				try[0] = o.pick
			}
		}
	})
	var counts SearchCounts
	for _, c := range splitCounts {
		counts.add(c)
	}
	// The feasible ones to the front in order (in place: each moves down, never over one not yet
	// read), the others after the splits rejected before any evaluation.
	feasible = cands[:0]
	for i := range cands {
		if cands[i].Feasible {
			feasible = append(feasible, cands[i])
		} else {
			infeasible = append(infeasible, cands[i])
		}
	}

	if opt.Objective == ObjGoodput {
		return goodputSearch(base, feasible, infeasible, opt.SLO, counts)
	}
	rank := func() { rankCandidates(feasible, opt.Objective, infer) }
	rank()
	// Refine the head with the exact simulation, then rank again. Serving has no closed form: its
	// candidates were simulated request by request already (evaluate's estimate is the run), so
	// its head is counted and not run again.
	head := feasible[:min(refine, len(feasible))]
	if infer {
		counts.Simulated += len(head)
		head = nil
	}
	// The simulations on every core, each into its own slot; then taken in order.
	sims := make([]Report, len(head))
	simErrs := make([]error, len(head))
	parallelFor(len(head), func(i int) {
		s := base
		s.Layout = head[i].Layout
		sims[i], simErrs[i] = evaluate(s, modeFast)
	})
	for i := range head {
		if r, err := sims[i], simErrs[i]; err == nil {
			counts.Simulated++
			head[i].Report = r
			if !r.Memory.Fits {
				head[i].Feasible = false
				head[i].Reason = OverMemory(r)
			}
		}
	}
	// Rank again: refined and estimated reports side by side keep one order.
	rank()
	for _, c := range feasible {
		if !c.Feasible {
			infeasible = append(infeasible, c)
		}
	}
	sort.SliceStable(infeasible, func(i, j int) bool {
		return infeasible[i].Report.Memory.Total < infeasible[j].Report.Memory.Total
	})
	// The result in the candidates' array: the feasible ones still feasible, in order (in place,
	// as above), then the others; infeasible is an array of its own.
	out := cands[:0]
	for i := range feasible {
		if feasible[i].Feasible {
			out = append(out, feasible[i])
		}
	}
	nFeasible := len(out)
	if nFeasible == 0 {
		out = nil // no candidate at all lists none (null in JSON), as it always has
	}
	if len(out)+len(infeasible) <= cap(out) {
		out = append(out, infeasible...)
	} else {
		out = append(slices.Clip(out), infeasible...)
	}
	warnings := append(ScenarioWarnings(base), sharedLayoutWarnings(base, out)...)
	if w := confidenceWarning(out); w != "" {
		warnings = append(warnings, w)
	}
	return SearchResult{Candidates: out, Feasible: nFeasible, Warnings: warnings, Counts: counts}, nil
}

// confidenceWarning says, in serving, how many feasible layouts were ranked on runs whose
// figures should not be trusted as they are (their Confidence's warning: too few requests for
// the rate, a queue not steady), the best-ranked one's warning, and the most requests any of
// them asks for; "" when none. Search's text and JSON carry it among the warnings, where each
// candidate's report carries its own.
func confidenceWarning(cands []Candidate) string {
	n, total, ask := 0, 0, 0
	first := ""
	for _, c := range cands {
		if !c.Feasible {
			continue
		}
		total++
		inf := c.Report.Inference
		if inf == nil || inf.Confidence == nil || inf.Confidence.Warning == "" {
			continue
		}
		if n == 0 {
			l := c.Layout
			split := fmt.Sprintf("TP=%d PP=%d DP=%d", l.TP, l.PP, l.DP)
			if l.CPSize() > 1 { // as the tables name it (the split read TP=4 PP=1 DP=1 for TP 4 × CP 8)
				split += fmt.Sprintf(" CP=%d %s", l.CP, l.CPComm)
			}
			if l.EP > 1 {
				split += fmt.Sprintf(" EP=%d", l.EP)
			}
			first = split + ": " + inf.Confidence.Warning
			if l.Disagg.On() {
				first = fmt.Sprintf("%d GPUs prefilling, decode %s: %s", l.Disagg.PrefillGPUs, split, inf.Confidence.Warning)
			}
		}
		n++
		ask = max(ask, inf.Confidence.SuggestRequests)
	}
	if n == 0 {
		return ""
	}
	are := "are"
	if n == 1 {
		are = "is"
	}
	out := fmt.Sprintf("%d of the %d feasible layouts %s ranked on serving runs not to be trusted as they are (the first, %s)", n, total, are, first)
	if ask > 0 {
		out += fmt.Sprintf("; --requests %d is the most any of them asks for", ask)
	}
	return out
}

// splitJob is one split Search evaluates with the knob values to try on it (their index in the
// search's list).
type splitJob struct {
	layout model.Layout
	knobs  int32
}

// goodputSearch ranks the feasible serving layouts by the highest request rate each serves
// within the SLO (Goodput), a bisection of simulated runs per layout, with serving's tie-breaks
// (rankCandidates): goodputs within TieTolerance are a tie, which the p90 end-to-end latency,
// then fewer GPUs a replica, then less memory break.
func goodputSearch(base model.Scenario, feasible, infeasible []Candidate, slo SLO, counts SearchCounts) (SearchResult, error) {
	if base.Workload.Mode != model.Infer {
		return SearchResult{}, &model.FieldError{Field: "objective", Value: "goodput", Allowed: "goodput ranks serving layouts: use --mode infer"}
	}
	if slo == (SLO{}) {
		slo = WorkloadSLO(base.Workload)
	}
	if slo == (SLO{}) {
		return SearchResult{}, &model.FieldError{Field: "objective", Value: "goodput", Allowed: "needs a latency target: --slo-ttft, --slo-tpot or both"}
	}
	// Every layout's bisection on every core, each into its own slot.
	out := slices.Clone(feasible)
	errs := make([]error, len(out))
	parallelFor(len(out), func(i int) {
		s := base
		s.Layout = out[i].Layout
		g, pt, err := Goodput(s, slo)
		out[i].Goodput, errs[i] = g, err
		if pt != nil {
			out[i].Report.Inference = &pt.Inference
		}
	})
	for _, err := range errs {
		if err != nil {
			return SearchResult{}, err
		}
	}
	rankCandidates(out, ObjGoodput, true)
	sort.SliceStable(infeasible, func(i, j int) bool {
		return infeasible[i].Report.Memory.Total < infeasible[j].Report.Memory.Total
	})
	n := len(out)
	out = append(out, infeasible...)
	warnings := append(ScenarioWarnings(base), sharedLayoutWarnings(base, out)...)
	if w := confidenceWarning(out); w != "" {
		warnings = append(warnings, w)
	}
	return SearchResult{Candidates: out, Feasible: n, Warnings: warnings, Counts: counts}, nil
}

// epSizes are the expert-parallel sizes Search tries with DP d: for a MoE model every divisor
// of d that divides the experts (or only the fixed one, none when it does not divide d); for a
// dense model the base layout's (expert parallelism does nothing there).
func epSizes(a model.Arch, d, base, fixed int) []int {
	if a.Experts <= 1 {
		return []int{base}
	}
	if fixed > 0 {
		if d%fixed != 0 {
			return nil
		}
		return []int{canonEP(fixed)}
	}
	var out []int
	for _, e := range model.Divisors(d) {
		if a.Experts%e == 0 {
			out = append(out, canonEP(e))
		}
	}
	return out
}

// etpSizes is the expert tensor parallelism tried for a MoE model at TP t and EP ep: the
// experts split over all of TP (0) and over one GPU (MoE parallel folding: the TP group's slices
// hold different experts) where the experts divide over ep × t; the fixed one alone, where it
// divides t; base for a dense model or TP 1.
func etpSizes(a model.Arch, t, ep, base, fixed int) []int {
	if a.Experts <= 1 || t <= 1 {
		return []int{base}
	}
	if fixed > 0 {
		if t%fixed != 0 || a.Experts%(max(ep, 1)*t/fixed) != 0 {
			return nil
		}
		if fixed == t {
			return []int{0}
		}
		return []int{fixed}
	}
	out := []int{0}
	if a.Experts%(max(ep, 1)*t) == 0 {
		out = append(out, 1)
	}
	return out
}

// canonEP stores EP 1 as 0, the layout's "no expert parallelism".
func canonEP(e int) int {
	if e == 1 {
		return 0
	}
	return e
}

// maxChunks is the most virtual stages per GPU a scenario may have (model.Scenario.Validate).
const maxChunks = 64

// defaultMaxChunks bounds the interleaving Search tries unless asked for more: past 8 chunks a
// stage the bubble left is an eighth of 1F1B's, and each chunk more adds its sends for little.
const defaultMaxChunks = 8

// joinDivisors lists n's divisors: "1, 2, 4, 8".
func joinDivisors(n int) string {
	ds := model.Divisors(n)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprint(d)
	}
	return strings.Join(out, ", ")
}

// microBatchSizes are the divisors of n up to maxB, ascending.
func microBatchSizes(n, maxB int) []int {
	var out []int
	for _, b := range model.Divisors(n) {
		if b <= maxB {
			out = append(out, b)
		}
	}
	return out
}

// sharedLayoutWarnings are the LayoutWarnings that every candidate has (ZeRO when every layout
// tried has DP = 1): a property of the search, not of one layout.
func sharedLayoutWarnings(base model.Scenario, cands []Candidate) []string {
	var shared []string
	for i, c := range cands {
		s := base
		s.Layout = c.Layout
		w := LayoutWarnings(s)
		if i == 0 {
			shared = w
			continue
		}
		shared = slices.DeleteFunc(shared, func(x string) bool { return !slices.Contains(w, x) })
		if len(shared) == 0 {
			break
		}
	}
	return shared
}

// checkFix says which fixed sizes no layout of base's GPUs and model can have.
func checkFix(base model.Scenario, f SearchFix) error {
	var errs model.ValidationError
	add := func(field string, v any, allowed string, args ...any) {
		errs = append(errs, &model.FieldError{Field: field, Value: v, Allowed: fmt.Sprintf(allowed, args...)})
	}
	gpus, a := base.Cluster.GPUs, base.Arch
	if f.DisaggAuto || f.Disagg.On() {
		switch {
		case base.Workload.Mode != model.Infer:
			add("disagg", "auto", "applies to serving only (--mode infer)")
		}
	}
	if f.Disagg.On() {
		gpus -= f.Disagg.PrefillGPUs // the layout's sizes are the decode pool's
	}
	rest, restOf := gpus, fmt.Sprintf("gpus (%d)", gpus)
	if f.TP > 0 {
		if gpus%f.TP != 0 {
			add("tp", f.TP, "must divide %s", restOf)
		} else if why := tpProblem(a, f.TP); why != "" {
			add("tp", f.TP, "%s", why)
		} else {
			rest, restOf = gpus/f.TP, fmt.Sprintf("gpus / tp (%d / %d)", gpus, f.TP)
		}
	}
	if f.CP > 1 {
		switch {
		case base.Workload.Mode == model.Infer && (f.DisaggAuto || f.Disagg.On()):
			add("cp", f.CP, "must be 1 with --disagg: context parallelism is modelled for aggregated serving only")
		case rest%f.CP != 0:
			add("cp", f.CP, "must divide %s", restOf)
		default:
			rest, restOf = rest/f.CP, fmt.Sprintf("%s / cp (%d)", restOf, f.CP)
		}
	}
	if f.PP > 0 {
		if f.PP > a.Layers {
			add("pp", f.PP, "must be at most layers (%d)", a.Layers)
		} else if rest%f.PP != 0 {
			add("pp", f.PP, "must divide %s", restOf)
		} else {
			rest, restOf = rest/f.PP, fmt.Sprintf("%s / pp (%d)", restOf, f.PP)
		}
	}
	switch {
	case f.DP > 0 && rest%f.DP != 0:
		add("dp", f.DP, "must divide %s", restOf)
	case f.DP > 0 && f.TP > 0 && f.PP > 0 && f.CP <= 1 && f.TP*f.PP*f.DP != gpus:
		add("dp", f.DP, "tp × pp × dp must equal gpus: %d × %d × %d ≠ %d", f.TP, f.PP, f.DP, gpus)
	case f.DP > 0 && f.TP > 0 && f.PP > 0 && f.CP > 1 && f.TP*f.CP*f.PP*f.DP != gpus:
		add("dp", f.DP, "tp × cp × pp × dp must equal gpus: %d × %d × %d × %d ≠ %d", f.TP, f.CP, f.PP, f.DP, gpus)
	}
	if f.EP > 1 {
		switch {
		case a.Experts <= 1:
			add("ep", f.EP, "must be 1: the model is dense (no experts to divide)")
		case a.Experts%f.EP != 0:
			add("ep", f.EP, "must divide the experts (%d): one of %s", a.Experts, joinDivisors(a.Experts))
		case rest%f.EP != 0:
			add("ep", f.EP, "must divide dp, so %s", restOf)
		}
	}
	if f.MicroBatch > model.MaxBatch {
		add("micro-batch", f.MicroBatch, "must be between 1 and %d", model.MaxBatch)
	}
	if f.Chunks > maxChunks {
		add("chunks", f.Chunks, "must be between 1 and %d", maxChunks)
	}
	if base.Workload.Mode == model.Infer {
		if f.HasSchedule {
			add("schedule", f.Schedule, "inference has no pipeline schedule: serving runs forward passes only, each stage in turn")
		}
		if f.Chunks > 0 {
			add("chunks", f.Chunks, "inference has no interleaving: serving runs forward passes only, each stage in turn")
		}
		return errsOrNil(errs)
	}
	interleaved := f.HasSchedule && f.Schedule == model.Interleaved
	switch {
	case f.Chunks > 1 && f.HasSchedule && !interleaved:
		add("chunks", f.Chunks, "must be 1 unless schedule is interleaved")
	case f.Chunks == 1 && interleaved:
		add("chunks", f.Chunks, "the interleaved schedule needs 2 chunks or more")
	case f.PP == 1 && (f.HasSchedule || f.Chunks > 1):
		add("pp", f.PP, "one stage has no pipeline to schedule or interleave: raise pp or leave schedule and chunks out")
	}
	return errsOrNil(errs)
}

func errsOrNil(errs model.ValidationError) error {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// checkSearchBase validates everything but the layout.
func checkSearchBase(base model.Scenario) error {
	probe := base
	probe.Layout.TP, probe.Layout.PP, probe.Layout.DP, probe.Layout.CP = 1, 1, max(base.Cluster.GPUs, 1), 0
	probe.Layout.Chunks, probe.Layout.MicroBatch = 1, 1
	err := probe.Validate()
	var ve model.ValidationError
	if errors.As(err, &ve) && ve.OnlyLayout() {
		return nil
	}
	return err
}

// tpProblem says why TP degree t cannot split the model, or "".
func tpProblem(a model.Arch, t int) string {
	switch {
	case a.Heads%t != 0:
		return fmt.Sprintf("TP %d does not divide the %d heads", t, a.Heads)
	case a.KVHeads%t != 0 && t%a.KVHeads != 0:
		return fmt.Sprintf("TP %d neither divides nor is a multiple of the %d KV heads", t, a.KVHeads)
	case a.FFN%t != 0:
		return fmt.Sprintf("TP %d does not divide the FFN size %d", t, a.FFN)
	}
	return ""
}

type schedChoice struct {
	s model.Schedule
	v int
}

// schedulesFor lists the schedules worth trying for a pipeline of pp stages and m micro-batches,
// those fix allows. A fixed interleaving is tried even where it cannot work, so that the
// candidate says why.
func schedulesFor(base model.Scenario, pp, m, maxV int, infer bool, fix SearchFix) []schedChoice {
	if infer || pp == 1 {
		return []schedChoice{{model.OneFOneB, 1}}
	}
	var out []schedChoice
	if fix.Chunks <= 1 {
		for _, s := range []model.Schedule{model.OneFOneB, model.GPipe, model.ZBH1} {
			if !fix.HasSchedule || fix.Schedule == s {
				out = append(out, schedChoice{s, 1})
			}
		}
		// The 2024–25 schedules where their shape rules hold: two chunks a rank need 2·pp
		// layers (the V ones), DualPipe an even pp and m, each at least 2·pp micro-batches.
		for _, s := range []model.Schedule{model.ZBV, model.DualPipe, model.DualPipeV} {
			if fix.HasSchedule && fix.Schedule != s || !(fix.HasSchedule || searchNewSchedules) {
				continue
			}
			field, _ := model.ScheduleShapeRule(s, pp, m)
			if field == "" && s.ModelStages(pp, 1) <= base.Arch.Layers {
				out = append(out, schedChoice{s, 1})
			}
		}
	}
	switch {
	case fix.Chunks == 1 || fix.HasSchedule && fix.Schedule != model.Interleaved:
	case fix.Chunks > 1:
		out = append(out, schedChoice{model.Interleaved, fix.Chunks})
	case fix.HasSchedule:
		for v := 2; v <= maxV; v++ {
			out = append(out, schedChoice{model.Interleaved, v})
		}
	case m%pp == 0:
		for v := 2; v <= maxV && pp*v <= base.Arch.Layers; v++ {
			out = append(out, schedChoice{model.Interleaved, v})
		}
	}
	return out
}

// TieTolerance is the relative difference below which two serving layouts' times to serve (or
// tokens per second) rank as a tie, which the latency then breaks: a serving simulation's
// figures differ by less from one layout to the next when the arrivals, not the GPUs, set the
// pace, and the search's tables show three significant digits.
const TieTolerance = 0.01

// objectiveKey is the figure the objective ranks by, lower first.
func objectiveKey(o Objective, infer bool, r Report) float64 {
	switch o {
	case ObjThroughput:
		return -r.TokensPerS
	case ObjLatency:
		if infer && r.Inference != nil {
			return r.Inference.TPOT
		}
		return r.StepTime
	case ObjMemory:
		return r.Memory.Total
	default:
		return r.StepTime
	}
}

// objectiveLess orders reports best first by the objective's figure alone; ties go to less
// memory. Search ranks serving layouts with servingLess's tie-breaks (rankCandidates); this
// exact order serves where two layouts of one split are compared (the rank orders, orderSplit).
func objectiveLess(o Objective, infer bool) func(a, b Report) bool {
	return func(a, b Report) bool {
		ka, kb := objectiveKey(o, infer, a), objectiveKey(o, infer, b)
		if ka != kb {
			return ka < kb
		}
		return a.Memory.Total < b.Memory.Total
	}
}

// RankCandidates orders feasible candidates best first as Search does (rankCandidates).
func RankCandidates(c []Candidate, o Objective, infer bool) { rankCandidates(c, o, infer) }

// rankCandidates orders candidates best first. Training: by the objective's figure, ties to less
// memory. Serving ranks as a serving engineer does (every objective but memory: time to serve,
// tokens/s, mean TPOT, goodput): first the layouts that meet the scenario's latency target (p90
// TTFT and TPOT, when it sets one; with goodput, a goodput above 0), then by the objective's figure, where
// figures within TieTolerance of the first of a run rank as a tie; a tie goes to the lower p90
// end-to-end latency (a request's wait from arrival to its last token), then to fewer GPUs a
// replica (TP × PP: more replicas, each smaller), then to less memory.
func rankCandidates(c []Candidate, o Objective, infer bool) {
	key := func(x Candidate) float64 {
		if o == ObjGoodput {
			return -x.Goodput
		}
		return objectiveKey(o, infer, x.Report)
	}
	if !infer || o == ObjMemory {
		// Sort each candidate's figures with its index, then move each candidate once, in place:
		// a candidate (its report) is large, and Search ranks thousands.
		type figures struct {
			key, mem float64
			i        int
		}
		fs := make([]figures, len(c))
		for i := range c {
			fs[i] = figures{key(c[i]), c[i].Report.Memory.Total, i}
		}
		slices.SortStableFunc(fs, func(a, b figures) int {
			switch {
			case a.key != b.key:
				return cmp.Compare(a.key, b.key)
			case a.mem < b.mem:
				return -1
			case b.mem < a.mem:
				return 1
			}
			return 0
		})
		// c[k] takes c[fs[k].i]: each cycle of the permutation in turn, in place (one candidate
		// aside), each index marked done (-1) as it is filled.
		for k := range fs {
			if fs[k].i < 0 || fs[k].i == k {
				continue
			}
			aside, j := c[k], k
			for {
				src := fs[j].i
				fs[j].i = -1
				if src == k {
					c[j] = aside
					break
				}
				c[j] = c[src]
				j = src
			}
		}
		return
	}
	// Missing the SLO: the run's p90s over the target; with the goodput objective, no rate
	// meets it (goodput 0).
	miss := func(x Candidate) bool {
		if o == ObjGoodput {
			return x.Goodput <= 0
		}
		r := x.Report
		return r.Inference != nil && r.Inference.MeetsSLO != nil && !*r.Inference.MeetsSLO
	}
	sort.SliceStable(c, func(i, j int) bool {
		mi, mj := miss(c[i]), miss(c[j])
		if mi != mj {
			return mj
		}
		return key(c[i]) < key(c[j])
	})
	// Runs of ties: each run starts at its best figure and holds the next ones within the
	// tolerance of it (and on the same side of the SLO).
	for start := 0; start < len(c); {
		k0, m0 := key(c[start]), miss(c[start])
		end := start + 1
		for end < len(c) && miss(c[end]) == m0 && Tied(key(c[end]), k0) {
			end++
		}
		sort.SliceStable(c[start:end], func(i, j int) bool { return servingLess(c[start+i], c[start+j]) })
		start = end
	}
}

// Tied says whether two figures of one objective differ by at most TieTolerance of the larger.
func Tied(a, b float64) bool {
	return math.Abs(a-b) <= TieTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// servingLess breaks a tie between two serving layouts: lower p90 end-to-end latency, then fewer
// GPUs a replica, then less memory.
func servingLess(a, b Candidate) bool {
	ea, eb := e2e(a.Report), e2e(b.Report)
	if ea != eb {
		return ea < eb
	}
	ga, gb := a.Layout.TP*a.Layout.PP, b.Layout.TP*b.Layout.PP
	if ga != gb {
		return ga < gb
	}
	return a.Report.Memory.Total < b.Report.Memory.Total
}

// e2e is a serving report's p90 end-to-end latency, 0 without one.
func e2e(r Report) float64 {
	if r.Inference == nil {
		return 0
	}
	return r.Inference.E2EP90
}

// searchNewSchedules says whether Search tries ZB-V, DualPipe and DualPipeV unasked (a fixed
// --schedule always is). On since their estimate is closed form (schedule.estimate2025): while it
// simulated them, BenchmarkSearchGPT3175B1024GPU went from 0.37–0.78 s to 5.5–6.2 s with them
// (1.33 GB allocated); closed form, 0.14–0.24 s against 0.22–0.28 s without them (2 cores under
// load).
const searchNewSchedules = true

// Search tries context parallelism where a sequence is long enough for it to matter: from
// cpMinSeq tokens, keeping at least cpMinTokens of each sequence on a GPU. Below them the
// activations CP divides are small beside the weights' state, and the attention work that hides
// the ring's sends shrinks with the sequence while the sends per token stay the same: CP adds
// candidates that lose (a pruning rule, not a figure of the model).
const (
	cpMinSeq    = 8192
	cpMinTokens = 1024
)

// CPMinSeq is the shortest sequence Search tries context parallelism on (cpMinSeq).
const CPMinSeq = cpMinSeq

// cpSizes are the CP sizes Search tries with TP t: the fixed one alone (0 for 1, as a layout
// without CP says it); else 1, and in training at sequences of cpMinSeq or more every divisor c
// of gpus/t that cuts the sequence into 2·c equal chunks of at least cpMinTokens/2 and whose
// TP × CP block tiles the nodes (model validation's rule). Serving: CP 1 with --disagg (the
// pools have none); else the fixed one, or 1 and, where the mean prompt is cpMinSeq tokens or
// more, every divisor whose block tiles the nodes (each prompt is cut as it comes).
func cpSizes(base model.Scenario, fix SearchFix, t int, disagg bool) []int {
	gpus, gpn, seq := base.Cluster.GPUs, base.Cluster.NodeSize(), base.Workload.Seq
	canon := func(c int) int {
		if c <= 1 {
			return 0
		}
		return c
	}
	infer := base.Workload.Mode == model.Infer
	switch {
	case infer && disagg:
		return []int{0}
	case fix.CP > 0:
		if (gpus/t)%fix.CP != 0 {
			return nil
		}
		return []int{canon(fix.CP)}
	}
	out := []int{0}
	if infer {
		seq = int(base.Workload.Prompts().Mean)
	}
	if seq < cpMinSeq {
		return out
	}
	for _, c := range model.Divisors(gpus / t) {
		tc := t * c
		if c > 1 && (infer || seq%(2*c) == 0) && seq/c >= cpMinTokens && (gpus <= gpn || gpn%tc == 0 || tc%gpn == 0) {
			out = append(out, c)
		}
	}
	return out
}

// cpKinds are the CP exchanges tried at CP c with TP t: the fixed one; else ring and
// all-gather, Ulysses where the heads allow it, and the hybrid where it splits in two levels on
// these nodes. At CP 1, the base's (no exchange runs).
func cpKinds(base model.Scenario, fix SearchFix, t, c int) []model.CPComm {
	switch {
	case c <= 1:
		return []model.CPComm{base.Layout.CPComm}
	case fix.HasCPComm:
		return []model.CPComm{fix.CPComm}
	case base.Workload.Mode == model.Infer:
		// Serving tries the ring alone: each candidate is a simulated run, and a long prompt's
		// attention hides the ring's sends (pass-KV, docs/costmodel.md).
		return []model.CPComm{model.CPRing}
	}
	out := []model.CPComm{model.CPRing, model.CPAllGather}
	if model.UlyssesOK(base.Arch, t, c) {
		out = append(out, model.CPUlysses)
	}
	l := model.Layout{TP: t, CP: c, CPComm: model.CPHybrid}
	if u, r := l.CPSplit(base.Arch, base.Cluster.NodeSize()); u > 1 && r > 1 {
		out = append(out, model.CPHybrid)
	}
	return out
}
