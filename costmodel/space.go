package costmodel

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// Search's knob space: beside each split (TP × PP × DP × EP, micro-batch, schedule) it tries
// every value of the training knobs the user did not fix, recompute × sequence parallelism ×
// ZeRO stage, and keeps for the split the setting best by the objective. The knobs do not
// change the plan's communicators, so one plan serves them all; the pipeline depends on
// recompute and sequence parallelism only, so it is built once per pair of those and every ZeRO
// stage is closed from it by trainTail, the function train's report uses. Before any time is
// computed each setting's memory is (activations under the schedule's known in-flight count),
// and a setting that does not fit costs nothing more.

// knobs is one setting of the training knobs.
type knobs struct {
	rc   model.Recompute
	sp   bool
	zero int
	tpo  model.TPOverlap
	off  model.Offload
	// serial turns the DP overlap off: the gradient sync waits for the whole backward.
	serial bool
	// keep keeps the sequence-parallel all-gathered inputs for the backward.
	keep bool
	// order is the rank order: which of DP and PP shares a node with TP.
	order model.RankOrder
}

func (k knobs) apply(l *model.Layout) {
	l.Recompute, l.SequenceParallel, l.ZeRO, l.TPOverlap, l.Offload = k.rc, k.sp, k.zero, k.tpo, k.off
	l.SerialDP, l.RankOrder = k.serial, k.order
	l.SPGather = model.SPGatherRedo
	if k.keep {
		l.SPGather = model.SPGatherKeep
	}
}

// gatherApplies says whether keeping the sequence-parallel all-gather does anything (as
// spKeepsGather says of a layout).
func gatherApplies(sp bool, rc model.Recompute, tp int) bool {
	return sp && tp > 1 && rc != model.RecomputeFull
}

// knobValues are the values Search tries for each knob on one split.
type knobValues struct {
	rcs   []model.Recompute
	sps   []bool
	zeros []int
	tpos  []model.TPOverlap
	offs  []model.Offload
	// serials are the DP overlap's settings: overlapped (false), serial (true).
	serials []bool
	// keeps are the sequence-parallel all-gather's settings: redo (false), keep (true); keep
	// counts only where it does something (gatherApplies).
	keeps []bool
	// orders are the rank orders, every one that places the split differently (searchOrders).
	orders []model.RankOrder
	tp     int
}

func (kv knobValues) size() int {
	triples := 0
	for _, sp := range kv.sps {
		for _, rc := range kv.rcs {
			for _, keep := range kv.keeps {
				if !keep || gatherApplies(sp, rc, kv.tp) {
					triples++
				}
			}
		}
	}
	return triples * len(kv.zeros) * len(kv.tpos) * len(kv.offs) * len(kv.serials) * len(kv.orders)
}

// knobsFor lists the knob values worth trying on a split with TP t, PP pp and DP d: the fixed
// ones keep base's value; sequence parallelism needs TP > 1 and a sequence TP divides; TP
// overlap needs TP > 1 inside a node with peer-to-peer (tpOverlapApplies); ZeRO needs DP × CP > 1
// (it shards over DP × CP); the rank orders are those that place the split's groups differently
// (searchOrders). Serving has the rank order alone: base's other values stay.
func knobsFor(base model.Scenario, fix SearchFix, t, cp, pp, d int) knobValues {
	l := base.Layout
	kv := knobValues{rcs: []model.Recompute{l.Recompute}, sps: []bool{l.SequenceParallel}, zeros: []int{l.ZeRO}, tpos: []model.TPOverlap{l.TPOverlap},
		offs: []model.Offload{l.Offload}, serials: []bool{l.SerialDP},
		keeps: []bool{l.SPGather == model.SPGatherKeep}, orders: []model.RankOrder{l.RankOrder}, tp: t}
	if !fix.HasRankOrder {
		sl := l
		sl.TP, sl.CP, sl.PP, sl.DP = t, cp, pp, d
		if o := searchOrders(base.Arch, sl, base.Cluster.NodeSize()); len(o) > 1 {
			kv.orders = o
		}
	}
	if base.Workload.Mode == model.Infer {
		return kv
	}
	if !fix.HasRecompute {
		kv.rcs = []model.Recompute{model.RecomputeNone, model.RecomputeSelective, model.RecomputeFull}
	}
	if !fix.HasSequenceParallel {
		kv.sps = []bool{false}
		if t > 1 && base.Workload.Seq%t == 0 && (base.Workload.Seq/cp)%t == 0 {
			kv.sps = append(kv.sps, true)
		}
	}
	if !fix.HasZeRO {
		kv.zeros = []int{0}
		if d*cp > 1 { // ZeRO shards over DP × CP (model.Layout.GradGroup)
			kv.zeros = []int{0, 1, 2, 3}
		}
	}
	if !fix.HasSPGather {
		kv.keeps = []bool{false, true}
	}
	if !fix.HasSerialDP {
		kv.serials = []bool{false}
		if d*cp > 1 { // the gradient all-reduce spans DP × CP
			kv.serials = []bool{false, true}
		}
	}
	if !fix.HasOffload {
		kv.offs = model.Offloads()
	}
	if !fix.HasTPOverlap {
		kv.tpos = []model.TPOverlap{model.TPOverlapNone}
		probe := base.Layout
		probe.TP, probe.TPOverlap = t, model.TPOverlapRing
		if tpOverlapApplies(probe, base.Cluster, base.Workload.Mode) {
			kv.tpos = []model.TPOverlap{model.TPOverlapNone, model.TPOverlapRing, model.TPOverlapPipe}
		}
	}
	return kv
}

// SearchCounts says how much of the space Search covered and how: every configuration of a
// valid split (knob settings included) is either evaluated with the closed-form step time,
// pruned because its memory (computed first, without any time) does not fit, pruned as
// dominated (never faster than another setting of the same split while using no less memory),
// or pruned by its bound (the pipeline's makespan and the optimizer step after it, already
// slower than the split's best).
type SearchCounts struct {
	Space        int `json:"space"`
	Evaluated    int `json:"evaluated"`
	PrunedMemory int `json:"pruned_memory"`
	Dominated    int `json:"pruned_dominated"`
	PrunedBound  int `json:"pruned_bound"`
	// Simulated is how many of the best were then simulated op by op and ranked again.
	Simulated int `json:"simulated"`
}

func (c *SearchCounts) add(o SearchCounts) {
	c.Space += o.Space
	c.Evaluated += o.Evaluated
	c.PrunedMemory += o.PrunedMemory
	c.Dominated += o.Dominated
	c.PrunedBound += o.PrunedBound
	c.Simulated += o.Simulated
}

// splitOutcome is what Search learns of one split: the candidate with its best knob setting
// (or, when none fits, the one with the least memory and why it fails), and the counts.
type splitOutcome struct {
	cand   Candidate
	counts SearchCounts
	// pick is the knob setting of the candidate when one fits (picked), a seed for the next split.
	pick   knobs
	picked bool
}

// variantScore is one knob setting's closed-form step time and fullest-GPU memory.
type variantScore struct {
	k         knobs
	step, mem float64
	ok        bool
}

// searchSplit evaluates every knob setting of s's split and keeps the best by the objective
// (step time, or memory for ObjMemory; at the same step time no offload first, then less
// memory, then the first setting tried).
//
// memo, when not nil, is the worker's layer costs of the splits it did before (layerMemo).
func searchSplit(s model.Scenario, kv knobValues, obj Objective, ss *stageSplits, memo *layerMemo) splitOutcome {
	sd := seeds(kv)
	return searchSplitSeeded(s, kv, obj, ss, memo, sd[:])
}

// searchSplitSeeded is searchSplit, its bound seeded by the first of the settings seed that
// fits (none: unseeded).
func searchSplitSeeded(s model.Scenario, kv knobValues, obj Objective, ss *stageSplits, memo *layerMemo, seed []knobs) splitOutcome {
	n := kv.size()
	first := knobs{kv.rcs[0], kv.sps[0], kv.zeros[0], kv.tpos[0], kv.offs[0], kv.serials[0], kv.keeps[0], kv.orders[0]}
	first.apply(&s.Layout)
	if n == 1 || s.Workload.Mode == model.Infer {
		return orderSplit(s, kv.orders, obj)
	}
	if err := s.Validate(); err != nil {
		c, _ := estimateCandidate(s) // says why; not a configuration
		return splitOutcome{cand: c}
	}
	// One plan per rank order (its communicators and sends); memory does not depend on the
	// order, so the first plan's serves them all.
	plans := make([]*plan, len(kv.orders))
	for i, o := range kv.orders {
		so := s
		so.Layout.RankOrder = o
		plans[i] = reusePlan(so, ss)
		if memo != nil {
			plans[i].useMemo(memo)
		}
	}
	defer func() {
		for _, p := range plans {
			planPool.Put(p)
		}
	}()
	p := plans[0]
	params := paramTable{p: p}
	counts := SearchCounts{Space: n}
	var best, least variantScore
	// bound is the least step time of any setting known to fit: the best's, or before any is
	// evaluated, a seed's (the previous split's pick, then seeds: the settings that most often
	// win). A setting is pruned only when it is strictly slower, so the seed itself is evaluated
	// again in its turn and the pick is the one the settings' order gives, seeded or not; only
	// the counts differ.
	bound := math.Inf(1)
	if obj != ObjMemory {
		for _, k := range seed {
			if step, ok := seedStep(k, kv, p, plans, params); ok {
				bound = step
				break
			}
		}
	}
	better := func(a, b variantScore) bool {
		if !b.ok {
			return true
		}
		ka, kb := a.step, b.step
		if obj == ObjMemory {
			ka, kb = a.mem, b.mem
		}
		if ka != kb {
			return ka < kb
		}
		// At the same step time (an offload the compute hides entirely), keep the host free:
		// no offload beats one.
		if ao, bo := a.k.off == model.OffloadNone, b.k.off == model.OffloadNone; obj != ObjMemory && ao != bo {
			return ao
		}
		return a.mem < b.mem
	}
	// fits are the (ZeRO, offload) pairs of one (recompute, SP) pair whose memory fits.
	type state struct {
		zero int
		off  model.Offload
		mem  float64 // the fullest GPU's
	}
	fits := make([]state, 0, len(kv.zeros)*len(kv.offs))
	var acts []repAct
	// Counts of what one pruned setting stands for: each TP overlap and DP overlap, and each rank
	// order (none of them changes memory).
	nOrd := len(kv.orders)
	nTPO, nOff, nSer := len(kv.tpos)*nOrd, len(kv.offs), len(kv.serials)
	for _, sp := range kv.sps {
		for _, rc := range kv.rcs {
			for _, keep := range kv.keeps {
				if keep && !gatherApplies(sp, rc, s.Layout.TP) {
					continue // keep does nothing here: not a configuration
				}
				p.l.SPGather = model.SPGatherRedo
				if keep {
					p.l.SPGather = model.SPGatherKeep
				}
				// Selective recompute redoes the attention core to drop its s×s scores; with fused
				// attention (nothing of them is kept) it keeps the same activations as none and
				// only adds work, so none dominates it, unless the offload streams (below).
				slowRC := rc == model.RecomputeSelective && !s.Layout.UnfusedAttention && slices.Contains(kv.rcs, model.RecomputeNone)
				p.l.Recompute, p.l.SequenceParallel = rc, sp
				fits = fits[:0]
				acts = p.repActs(acts)
				for _, z := range kv.zeros {
					// ZeRO 2 adds the gradients' sharding to ZeRO 1's at no communication cost
					// (both reduce-scatter the gradients and all-gather the weights).
					if z == 1 && slices.Contains(kv.zeros, 2) {
						counts.Dominated += nTPO * nOff * nSer
						continue
					}
					p.l.ZeRO = z
					for _, off := range kv.offs {
						if slowRC && !streams(off) {
							counts.Dominated += nTPO * nSer
							continue
						}
						p.l.Offload = off
						mem, fit := p.peakMemory(params.get(z, off), acts) // the TP overlap changes no memory
						if v := (variantScore{k: knobs{rc, sp, z, kv.tpos[0], off, kv.serials[0], keep, kv.orders[0]}, mem: mem, ok: true}); !least.ok || mem < least.mem {
							least = v
						}
						if !fit {
							counts.PrunedMemory += nTPO * nSer
							continue
						}
						fits = append(fits, state{z, off, mem})
					}
				}
				if len(fits) == 0 {
					continue
				}
				for _, tpo := range kv.tpos {
					// The ring overlap hides each exchange tile but the first behind a GEMM tile;
					// none hides nothing and pipe exposes one more tile: at the same memory,
					// neither is ever faster (tpExposed), so ring dominates them, unless the
					// offload streams.
					slowTPO := tpo != model.TPOverlapRing && slices.Contains(kv.tpos, model.TPOverlapRing)
					for oi, po := range plans {
						order := kv.orders[oi]
						var st []vstage
						var res schedule.Result
						var ranks []tailRank
						staged, built := false, false
						// lb is the busiest rank's work, which no pipeline finishes sooner than
						// (less a rounding margin): it bounds settings out before the pipeline is
						// timed at all.
						lb := 0.0
						for _, f := range fits {
							if slowTPO && !streams(f.off) {
								counts.Dominated += nSer
								continue
							}
							for _, serial := range kv.serials {
								// The DP sync overlapped with the last backward is never slower than
								// after it (what it hides costs only the SMs it takes), unless
								// something else hides behind the same compute: ZeRO-3's gathers or
								// a streaming offload.
								if serial && slices.Contains(kv.serials, false) && f.zero < 3 && !streams(f.off) {
									counts.Dominated++
									continue
								}
								if !staged {
									po.l = p.l // the recompute, SP and its all-gather set above
									po.l.TPOverlap, po.l.RankOrder = tpo, order
									st, _ = po.trainStages(false, false)
									for rk := range po.p {
										lb = max(lb, po.rankWorkLB(st, rk))
									}
									lb *= 1 - 1e-9
									staged = true
								}
								po.l.ZeRO, po.l.Offload, po.l.SerialDP = f.zero, f.off, serial
								// The step is at least the pipeline's makespan and the optimizer after
								// it: a setting whose bound is already slower than the best cannot win.
								opt := params.optimizer(f.zero, f.off)
								if obj != ObjMemory && lb+opt > bound {
									counts.PrunedBound++
									continue
								}
								if !built {
									r, err := po.runTrain(po.trainInput(st, false), modeEstimate)
									if err != nil {
										break
									}
									res, built = r, true
									ranks = po.tailRanks(st, res)
								}
								if obj != ObjMemory && res.Makespan+opt > bound {
									counts.PrunedBound++
									continue
								}
								counts.Evaluated++
								v := variantScore{k: knobs{rc, sp, f.zero, tpo, f.off, serial, keep, order}, step: po.stepSeconds(st, &res, params.get(f.zero, f.off), ranks, opt),
									mem: f.mem, ok: true}
								if better(v, best) {
									best = v
								}
								bound = min(bound, v.step)
							}
						}
					}
				}
			}
		}
	}
	if !best.ok && !math.IsInf(bound, 1) {
		// The seed bounded out every setting, which its own evaluation in the loop rules out;
		// should it ever, the split is searched again unseeded.
		return searchSplitSeeded(s, kv, obj, ss, memo, nil)
	}
	pick := least
	if best.ok {
		pick = best
	}
	pick.k.apply(&s.Layout)
	// The report of the pick, from its order's plan: what evaluate does after Validate and newPlan.
	p = plans[slices.Index(kv.orders, pick.k.order)]
	p.l = s.Layout
	r, err := p.train(modeEstimate)
	if err == nil {
		r = finishReport(s, r)
	}
	return splitOutcome{cand: candidateOf(s, r, err), counts: counts, pick: pick.k, picked: best.ok}
}

// planPool keeps the plans of splits Search is done with for the next ones: a plan is large and
// its buffers grow to the splits it has served, so a split refills one rather than allocating.
var planPool = sync.Pool{New: func() any { return new(plan) }}

// reusePlan is newPlan with the kinds and splits of ss (initSplit), on a plan of the pool, its
// buffers kept (each call that uses one rewrites what it reads).
func reusePlan(s model.Scenario, ss *stageSplits) *plan {
	p := planPool.Get().(*plan)
	st, lc, tb, in, busy := p.stBuf[:0], p.lcBuf[:0], p.tailBuf[:0], p.inBuf[:0], p.busyBuf[:0]
	p.initSplit(s, ss) // keeps p.spare
	p.stBuf, p.lcBuf, p.tailBuf, p.inBuf, p.busyBuf = st, lc, tb, in, busy
	return p
}

// planSpare holds the backing arrays of a plan's remembered slices (rankInfos, rankClasses,
// repActs, sameInfo, dpSync, tailRanks, runTrain's in-flight counts, the stage boundaries and
// the parameter table), which a pooled plan keeps for its next split.
type planSpare struct {
	ranks                               []rankInfo
	class, reps, memReps, infoOf, inFly []int
	tailOut                             []int
	kept                                []tailRank
	dpCache, dpClass                    []dpMemo
	crossNode                           []bool
	params                              []paramBytes
	act                                 []float64
	// The model's kinds and layers (arch.OfInto), its stage split (stageKindsInto) and the
	// split placed on the chains (placeChains).
	shapes []arch.Shape
	of     []uint8
	split  splitBufs
	chain  struct {
		layers []int
		kinds  [][]int
	}
	// main is the main layer kind's pieces (trainStages, mainParts).
	main *layerParts
	// sim is the simulation's per-rank storage (trainInput).
	sim *schedule.Scratch
}

// resize is buf with length n, its values zero, reallocated only when too small.
func resize[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// orderSplit evaluates s under each rank order (one, or serving's two) and keeps the best by the
// objective, the first at a tie.
func orderSplit(s model.Scenario, orders []model.RankOrder, obj Objective) splitOutcome {
	var out splitOutcome
	less := objectiveLess(obj, s.Workload.Mode == model.Infer)
	for i, o := range orders {
		s.Layout.RankOrder = o
		c, err := estimateCandidate(s)
		if err == nil {
			out.counts.Space++
			out.counts.Evaluated++
		}
		if i == 0 || c.Feasible && (!out.cand.Feasible || less(c.Report, out.cand.Report)) {
			out.cand = c
		}
	}
	return out
}

// streams says whether an offload moves data beside the compute (weights streamed in,
// activations out and back): there, more compute hides more of it, so a slower setting of the
// recompute or the TP overlap can finish no later, and neither is dominated.
func streams(off model.Offload) bool { return off.Weights() || off.Activations() }

// peakMemory is the fullest GPU's memory under the schedule's known in-flight counts (no time
// computed), and whether every rank fits (GPU and host memory): rankMemory's sums, from each
// group's parameter state under the plan's ZeRO stage and offload (params by rankClasses'
// group, paramMemory's, which Search computes once per split and setting) and its activations
// under the plan's recompute and sequence parallelism (acts, repActs', once per such setting).
func (p *plan) peakMemory(params []paramBytes, acts []repAct) (peak float64, fits bool) {
	gpuCap, reserve := p.c.GPU.MemoryBytes, p.s.ReserveBytes
	fits = true
	class, _ := p.rankClasses()
	for _, ra := range acts {
		act, actHost := p.actSplit(ra.all, ra.largest, ra.inFlight)
		act += ra.logits
		ps := params[class[ra.rk]]
		total := ps.w + ps.g + ps.o + act + 0 + reserve // as plan.memory adds them
		peak = max(peak, total)
		fits = fits && total <= gpuCap && ps.host+actHost <= p.hostCap
	}
	return peak, fits
}

// repAct is what peakMemory reads of a rank whose memory can be the fullest, which the ZeRO
// stage and the offload leave as they are: one micro-batch's activations over its layers and its
// largest layer's (rankActBytes), its micro-batches in flight and its logits.
type repAct struct {
	rk           int
	all, largest float64
	inFlight     int
	logits       float64
}

// repActs are the repAct of each rank group's fullest rank under the plan's recompute and
// sequence parallelism: of each group (the same parameters), the rank with the most in flight
// holds the most on its GPU and, offloading activations, on the host: the others cannot be
// fuller.
func (p *plan) repActs(buf []repAct) []repAct {
	sched := p.simSchedule()
	infos := p.rankInfos()
	class, reps := p.rankClasses()
	if p.memReps == nil {
		p.memReps = append(p.spare.memReps[:0], reps...)
		p.spare.memReps = p.memReps
		for rk := range infos {
			if i := class[rk]; p.estimateInFlight(rk, sched) > p.estimateInFlight(p.memReps[i], sched) {
				p.memReps[i] = rk
			}
		}
	}
	out := buf[:0]
	for _, rk := range p.memReps {
		all, largest := p.rankActBytes(infos[rk])
		out = append(out, repAct{rk, all, largest, p.estimateInFlight(rk, sched), p.logitsBytes(rk)})
	}
	return out
}

// paramTable is every rank group's paramMemory under ZeRO stage and offload, and the optimizer step
// after the pipeline (which depends on those two knobs alone), each computed once.
type paramTable struct {
	p    *plan
	rows [4][nOffloads]paramRow
}

// nOffloads is the number of offload modes.
const nOffloads = int(model.OffloadAll) + 1

type paramRow struct {
	ranks     []paramBytes
	optimizer float64
	ok        bool
}

func (t *paramTable) row(zero int, off model.Offload) *paramRow {
	r := &t.rows[zero][off]
	if !r.ok {
		t.p.l.ZeRO, t.p.l.Offload = zero, off // paramMemory and optimizerSeconds read these two knobs only
		infos := t.p.rankInfos()
		_, reps := t.p.rankClasses()
		// Every row in one array of the plan's (its spare, which the plan's next split reuses).
		nr := len(reps)
		if len(t.p.spare.params) != len(t.rows)*nOffloads*nr {
			t.p.spare.params = resize(t.p.spare.params, len(t.rows)*nOffloads*nr)
		}
		at := (zero*nOffloads + int(off)) * nr
		r.ranks, r.ok = t.p.spare.params[at:at+nr:at+nr], true
		for i, rk := range reps {
			r.ranks[i] = t.p.paramMemory(infos[rk])
		}
		r.optimizer = t.p.optimizerSeconds()
	}
	return r
}

func (t *paramTable) get(zero int, off model.Offload) []paramBytes { return t.row(zero, off).ranks }

// optimizer is the optimizer step under ZeRO stage zero and the offload, on any rank order.
func (t *paramTable) optimizer(zero int, off model.Offload) float64 {
	return t.row(zero, off).optimizer
}

// estimateCandidate evaluates s with the closed form and says whether it is feasible, and why
// not: the first invalid field, the evaluation's error or the memory it lacks.
func estimateCandidate(s model.Scenario) (Candidate, error) {
	r, err := evaluate(s, modeEstimate)
	return candidateOf(s, r, err), err
}

// candidateOf is s's candidate with its closed-form report r (or the error evaluating it).
func candidateOf(s model.Scenario, r Report, err error) Candidate {
	c := Candidate{Layout: s.Layout, Report: r}
	var ve model.ValidationError
	switch {
	case errors.As(err, &ve):
		c.Reason = ve[0].Field + ": " + ve[0].Allowed
	case err != nil:
		c.Reason = err.Error()
	case !r.Memory.Fits:
		c.Reason = OverMemory(r)
	default:
		c.Feasible = true
	}
	return c
}

// parallelFor runs f(i) for i in [0, n) on every core (GOMAXPROCS); f writes its own slot, so
// the results come out in index order whatever the number of cores.
func parallelFor(n int, f func(i int)) { parallelForWorkers(n, workersFor(n), func(_, i int) { f(i) }) }

// workersFor is the number of workers parallelFor runs for n items: one per core, at most n.
func workersFor(n int) int { return max(min(runtime.GOMAXPROCS(0), n), 1) }

// parallelForWorkers is parallelFor on the given number of workers, telling f which of them
// runs item i (w in [0, workers); each runs its items one at a time: what it keeps by w is its
// own).
func parallelForWorkers(n, workers int, f func(w, i int)) {
	if workers <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// ResolveAuto sets the knobs s's layout marks auto to the values Search would keep for its split
// (step time first; the other knobs, and the split, as given), the explorer's "auto → full".
// Serving has one such knob, the rank order, which takes the order whose run ends first; s comes
// back as it is with no knob auto.
func ResolveAuto(s model.Scenario) (model.Scenario, error) {
	auto := s.Layout.Auto
	if auto == 0 {
		return s, nil
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	if s.Workload.Mode != model.Train {
		l := s.Layout
		orders := searchOrders(s.Arch, l, s.Cluster.NodeSize())
		if auto&model.AutoRankOrder == 0 || len(orders) <= 1 {
			return s, nil
		}
		best, bestT := s, math.Inf(1)
		for _, o := range orders {
			so := s
			so.Layout.RankOrder = o
			r, err := EvaluateFast(so)
			if err != nil {
				return s, err
			}
			if r.StepTime < bestT {
				best, bestT = so, r.StepTime
			}
		}
		return best, nil
	}
	kv := knobsFor(s, SearchFix{}.KeepKnobsBut(auto), s.Layout.TP, s.Layout.CPSize(), s.Layout.PP, s.Layout.DP)
	c := searchSplit(s, kv, ObjTime, nil, nil).cand
	c.Layout.Auto = auto
	s.Layout = c.Layout
	return s, nil
}

// seeds are the knob settings searchSplit bounds a split with before its loop, in turn until
// one fits: nothing recomputed, then everything; sequence parallelism, ZeRO 2 (or none without
// DP), the ring TP overlap where tried, no offload, the DP sync overlapped, the first rank order.
func seeds(kv knobValues) [2]knobs {
	k := knobs{rc: model.RecomputeNone, sp: kv.sps[len(kv.sps)-1], zero: kv.zeros[0], tpo: kv.tpos[0], off: model.OffloadNone,
		serial: kv.serials[0], order: kv.orders[0]}
	if slices.Contains(kv.zeros, 2) {
		k.zero = 2
	}
	if slices.Contains(kv.tpos, model.TPOverlapRing) {
		k.tpo = model.TPOverlapRing
	}
	full := k
	full.rc = model.RecomputeFull
	return [2]knobs{k, full}
}

// seedStep is the step time of the knob setting k on the split the plans are of, when every
// value of k is one the split tries and the setting fits; each plan's state is what searchSplit
// then sets again.
func seedStep(k knobs, kv knobValues, p *plan, plans []*plan, params paramTable) (float64, bool) {
	oi := slices.Index(kv.orders, k.order)
	if oi < 0 || !slices.Contains(kv.rcs, k.rc) || !slices.Contains(kv.sps, k.sp) || !slices.Contains(kv.zeros, k.zero) ||
		!slices.Contains(kv.tpos, k.tpo) || !slices.Contains(kv.offs, k.off) || !slices.Contains(kv.serials, k.serial) ||
		!slices.Contains(kv.keeps, k.keep) || k.keep && !gatherApplies(k.sp, k.rc, p.l.TP) {
		return 0, false
	}
	// Nor one the loop counts as dominated and never evaluates (its rules, in its words there).
	stream := streams(k.off)
	switch {
	case k.zero == 1 && slices.Contains(kv.zeros, 2),
		!stream && k.rc == model.RecomputeSelective && !p.l.UnfusedAttention && slices.Contains(kv.rcs, model.RecomputeNone),
		!stream && k.tpo != model.TPOverlapRing && slices.Contains(kv.tpos, model.TPOverlapRing),
		!stream && k.serial && slices.Contains(kv.serials, false) && k.zero < 3:
		return 0, false
	}
	k.apply(&p.l)
	if _, fit := p.peakMemory(params.get(k.zero, k.off), p.repActs(nil)); !fit {
		return 0, false
	}
	po := plans[oi]
	po.l = p.l
	st, _ := po.trainStages(false, false)
	res, err := po.runTrain(po.trainInput(st, false), modeEstimate)
	if err != nil {
		return 0, false
	}
	opt := params.optimizer(k.zero, k.off)
	step := po.stepSeconds(st, &res, params.get(k.zero, k.off), po.tailRanks(st, res), opt)
	return step, isFinite(step)
}

// searchOrders are the rank orders Search tries on a split (l's sizes, its EP left out): those
// with TP innermost (its all-reduces, a few every layer, are the heaviest traffic; Megatron-core,
// torchtitan and Llama 3 all keep it on neighbouring GPUs), CP right outside it (its K/V
// exchange runs every layer of every micro-batch, against DP's sync once a step and PP's sends
// once a micro-batch; Megatron-core's tp-cp-… orders and Llama 3's keep it there) and EP inside
// DP (its all-to-all every MoE layer beside neighbours, Megatron-core's default), one of each
// set that places the groups alike (model.DistinctRankOrders: axes of size 1 do not count), in
// table order, the default first. Orders under which a group would straddle nodes unevenly are
// left out. searchCPOutside widens the set to CP outside DP or PP too (TestSearchCPOutsideNeverWins:
// it moves no best on the CP searches tried, at twice their time).
func searchOrders(a model.Arch, l model.Layout, gpn int) []model.RankOrder {
	l.EP, l.ETP = 1, 0
	var out []model.RankOrder
	var seen [model.NumRankOrders]model.Placement
	cpNext := l.CPSize() > 1 && !searchCPOutside
	for o := range model.RankOrder(model.NumRankOrders) {
		if !o.TPInnermost() || o.EPOutside() || cpNext && !o.CPNextToTP() {
			continue
		}
		l.RankOrder = o
		if f, _ := l.StraddleRule(gpn, l.GPUs()); f != "" {
			continue
		}
		pl := l.Place(a, gpn)
		if !slices.ContainsFunc(seen[:len(out)], func(q model.Placement) bool { return model.SamePlacement(q, pl) }) {
			seen[len(out)] = pl
			out = append(out, o)
		}
	}
	return out
}

// SearchRankOrders are the rank orders Search tries on s's split (searchOrders): tp-dp-pp, and
// tp-pp-dp where it places the split differently.
func SearchRankOrders(s model.Scenario) []model.RankOrder {
	return searchOrders(s.Arch, s.Layout, s.Cluster.NodeSize())
}

// searchCPOutside lets searchOrders try CP outside DP or PP (tests only).
var searchCPOutside = false
