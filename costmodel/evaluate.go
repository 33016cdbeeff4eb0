package costmodel

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// Evaluate validates the scenario, simulates one step op by op and returns the report with its
// timeline. Training: one optimizer step of the global batch. Inference: serving every request
// (continuous batching, costmodel/serve).
func Evaluate(s model.Scenario) (Report, error) { return evaluate(s, modeTimeline) }

// EvaluateFast is Evaluate without the timeline: the same simulation and numbers, no op list.
func EvaluateFast(s model.Scenario) (Report, error) { return evaluate(s, modeFast) }

// evalMode is how much work an evaluation does.
type evalMode int

const (
	modeTimeline evalMode = iota // simulate and record every op
	modeFast                     // simulate, keep only the totals
	modeEstimate                 // closed-form pipeline time (Search's first pass over many layouts)
)

func evaluate(s model.Scenario, mode evalMode) (Report, error) {
	if err := s.Validate(); err != nil {
		return Report{}, err
	}
	var r Report
	var err error
	switch {
	case s.Workload.Mode == model.Infer && s.Layout.Disagg.On():
		r, err = inferDisagg(s, mode == modeTimeline)
	case s.Workload.Mode == model.Infer:
		r, err = newPlan(s).infer(mode == modeTimeline)
	case mode == modeTimeline:
		var p plan
		p.init(s)
		r, err = p.train(mode)
	default:
		// The training plan does not outlive the call, but it escapes (train hands it on) and
		// is some 8 KB with its buffers: the fast path takes one from Search's pool and gives it
		// back (a fifth of its time was the allocation and its collection). The report holds
		// nothing of the plan's buffers (TestEvaluateFastPooledPlan).
		p := reusePlan(s, nil)
		r, err = p.train(mode)
		planPool.Put(p)
	}
	if err != nil {
		return Report{}, err
	}
	return finishReport(s, r), nil
}

// finishReport adds the scenario's setting warnings to a report and clears any NaN or Inf.
func finishReport(s model.Scenario, r Report) Report {
	r.Warnings = append(r.Warnings, settingWarnings(s)...)
	sanitize(&r)
	return r
}

// plan is a validated scenario with its derived quantities.
type plan struct {
	// serveRun, when set, simulates serving in place of serve.Run (a disaggregated closed loop
	// runs both pools in one clock and hands each pool's part back: disagg.go).
	serveRun func(serve.Config, []serve.Request, serve.StepCost) (serve.Result, error)

	s          model.Scenario
	a          model.Arch
	l          model.Layout
	c          model.Cluster
	t, p, d, v int
	// dc is d × CP: the GPUs that hold the same weights and sync their gradients (and ZeRO's
	// shards); d without context parallelism. cpx is the CP group (cp.go).
	dc  int
	cpx cpPlan
	// ep is the expert-parallel size (1 for dense models): ep replicas share each MoE layer's
	// experts, exchanging tokens over epc; the replicas holding the same experts sync their
	// gradients over expDP (d/ep of them).
	ep int
	// etp is the GPUs each expert is split over (t for dense models and by default); fold =
	// ep × t/etp the GPUs a MoE layer's experts are spread over by expert, its all-to-all group
	// (epc); etpc the ETP GPUs that all-reduce an expert's output when 1 < etp < t.
	etp, fold int
	etpc      comms
	b, m      int
	// mv is the micro-batches each virtual stage runs: m, or DualPipe's m/2 (a direction's).
	mv float64
	e  float64
	hw hw
	// hwAttn is the GPU the attention core runs on: hw, but BF16 in FP8 training.
	hwAttn hw
	// layers[vs] is the number of transformer layers of virtual stage vs = chunk·p + rank;
	// kinds[vs] how many of them are of each of the model's layer kinds (arch).
	layers []int
	kinds  [][]int
	k      arch.Model
	tp     comms
	dp     comms
	epc    comms
	expDP  comms
	// ppStride is the distance between the first GPUs of neighbouring pipeline ranks (the rank
	// order's); tpStride between neighbouring GPUs of a TP group.
	ppStride, tpStride int
	// crossNode[vs] says whether the boundary between virtual stages vs and vs+1 leaves the node.
	crossNode []bool
	// Computed once and remembered (rankInfos, layerActBytes, dpSync, trainInput's sends).
	ranks []rankInfo
	// class[rk] is rank rk's group of ranks with the same rankInfo (the same at the end of the
	// pipeline); reps[i] the first rank of group i (rankClasses).
	class, reps []int
	// memReps is, of each group, the rank with the most micro-batches in flight (peakMemory).
	memReps []int
	// infoOf[rk] is the first rank with rank rk's rankInfo (sameInfo).
	infoOf  []int
	dpCache []dpMemo
	// dpClass is dpSync's memo by rank group and ZeRO kind of sync (classSync).
	dpClass []dpMemo
	tailBuf []tailClass
	sends   []float64
	// hostCap is one GPU's share of its node's host memory.
	hostCap float64
	// The TP group's collectives asked so far: the layer's passes, the report's detail and its
	// list of collectives ask the same few.
	tpMemo [4]tpRunMemo
	tpN    int
	// Buffers reused by each trainStages and trainInput call on the plan.
	stBuf []vstage
	lcBuf []layerCost
	// endBuf holds the stages' pieces around the layers (trainStages).
	endBuf [4]seg
	inBuf  []float64
	ovBuf  []float64 // DualPipe's overlap a virtual stage, rewritten by trainInput
	// busyBuf, inFlight and inFlightOf are runTrain's estimate: its busy times, and the in-flight
	// counts of schedule inFlightOf.
	busyBuf    []float64
	inFlight   []int
	inFlightOf model.Schedule
	// lcMemo, in a search, holds the layer costs of the splits that differ from this plan's in
	// the schedule and the interleaving alone (layerMemo); nil elsewhere.
	lcMemo *layerMemo
	// lcTable is the memo's table of this plan's split (layerMemo.costs), once asked.
	lcTable *knobTable
	// spare is the backing of the remembered slices above, kept when a search's pool hands the
	// plan to its next split (reusePlan): each is refilled before it is read.
	spare planSpare
	act   struct {
		k  knobs
		v  []float64
		ok bool
	}
}

func newPlan(s model.Scenario) *plan {
	p := new(plan)
	p.init(s)
	return p
}

// stageSplits is a model's layer kinds and its layers' split over each number of virtual stages a
// search asks for, computed once before the search's workers start and only read by them (a
// mixed model's split balances work, which costs more than the plan it serves).
type stageSplits struct {
	arch model.Arch
	seq  int
	k    arch.Model
	byN  map[int]stageSplit
	// coll is the collectives timed so far on the search's cluster, which its plans share.
	coll *collMemo
}

type stageSplit struct {
	layers []int
	kinds  [][]int
}

func newStageSplits(a model.Arch, seq int, c model.Cluster, ns []int) *stageSplits {
	ss := &stageSplits{arch: a, seq: seq, k: arch.Of(a), byN: map[int]stageSplit{}, coll: newCollMemo(c)}
	for _, n := range ns {
		if _, ok := ss.byN[n]; !ok && n >= 1 {
			l, k := stageKinds(ss.k, n, seq)
			ss.byN[n] = stageSplit{l, k}
		}
	}
	return ss
}

// init fills a plan for s.
func (p *plan) init(s model.Scenario) { p.initSplit(s, nil) }

// initSplit fills a plan for s, its layer kinds and stage split from ss when ss holds s's model.
func (p *plan) initSplit(s model.Scenario, ss *stageSplits) {
	// A serving calibration fitted on one engine's runs holds where that engine serves, never
	// in training.
	if s.Workload.Mode == model.Infer {
		s.Cluster.GPU = s.Cluster.GPU.ForEngine(s.Workload.Engine)
	} else {
		s.Cluster.GPU.EngineCal = nil
	}
	l := s.Layout
	spare := p.spare // a pooled plan's arrays (reusePlan)
	*p = plan{s: s, a: s.Arch, l: l, c: s.Cluster, t: l.TP, p: l.PP, d: l.DP, v: l.Schedule.VirtualChunks(l.Chunks), b: l.MicroBatch, spare: spare}
	if s.Workload.Mode == model.Infer {
		p.v = 1
	}
	p.m = s.MicroBatches()
	p.mv = float64(p.m)
	if schedule.Bidirectional(p.simSchedule()) {
		p.mv = float64(p.m / 2) // each direction's half through each of a rank's two stages
	}
	p.e = s.Workload.Precision.Bytes()
	p.hw = newHW(s.Cluster.GPU, s.Workload.Precision)
	p.hwAttn = p.hw
	if s.Workload.Precision == model.FP8 && s.Workload.Mode == model.Train {
		// FP8 training runs its GEMMs in FP8 and the attention core (Q·Kᵀ, softmax, P·V) in
		// BF16: Transformer Engine's default (fp8_dot_product_attention off), which NeMo's and
		// Megatron's FP8 recipes keep.
		p.hwAttn = newHW(s.Cluster.GPU, model.BF16)
	}
	p.hostCap = s.Cluster.HostMemoryPerGPU()
	if ss != nil && ss.seq == s.Workload.Seq && ss.arch == s.Arch {
		p.k = ss.k
		if sp, ok := ss.byN[p.modelStages()]; ok {
			p.layers, p.kinds = sp.layers, sp.kinds
		} else {
			p.layers, p.kinds = stageKindsInto(p.k, p.modelStages(), s.Workload.Seq, &p.spare.split)
		}
	} else {
		// In the pooled plan's arrays: the model and its split are the plan's alone (the
		// report copies what it shows of them).
		p.k = arch.OfInto(s.Arch, p.spare.shapes, p.spare.of)
		p.spare.shapes, p.spare.of = p.k.Shapes, p.k.Of
		p.layers, p.kinds = stageKindsInto(p.k, p.modelStages(), s.Workload.Seq, &p.spare.split)
	}
	p.placeChains()
	gpn := s.Cluster.NodeSize()
	// The rank order places every group (model.Layout.Place): each axis' ranks spaced by the
	// sizes of the axes inside it. CP ranks hold the same weights and sync their gradients
	// with the DP replicas (over DP × CP); EP groups are sub-groups of DP.
	pl := l.Place(s.Arch, gpn)
	fab := collective.FabricOf(s.Cluster) // every group's, before its share of the NICs
	p.tp = newCommsOn(fromSpan(pl.TP), fab, gpn)
	p.tp.engine = l.Collectives.UsesEngine(s.Workload.Mode)
	if eng, _ := model.Engine(s.Workload.Engine); eng.LibraryAllReduce {
		p.tp.engine = false // the engine's all-reduce is the library's (TGI's torch.distributed)
	}
	cp := l.CPSize()
	p.dc = p.d * cp
	p.ppStride, p.tpStride = pl.PPStride, pl.TPStride
	if cp > 1 {
		p.initCP(s, gpn, pl)
	} else {
		p.cpx = cpPlan{n: 1, uly: 1, ring: 1}
	}
	p.dp = newCommsOn(fromSpan(pl.DP), fab, gpn)
	p.ep = 1
	if s.Arch.Experts > 1 {
		p.ep = l.EPSize()
	}
	p.etp, p.fold = p.t, p.ep
	if s.Arch.Experts > 1 {
		p.etp, p.fold = min(l.ETPSize(), p.t), l.FoldSize()
	}
	p.epc = newCommsOn(fromSpan(pl.Fold), fab, gpn)
	if p.etp > 1 && p.etp < p.t {
		p.etpc = newCommsOn(fromSpan(pl.ETP), fab, gpn)
	}
	p.expDP = newCommsOn(fromSpan(pl.ExpDP), fab, gpn)
	if ss != nil && ss.coll.c == s.Cluster {
		for _, k := range []*comms{&p.tp, &p.dp, &p.epc, &p.etpc, &p.expDP, &p.cpx.all, &p.cpx.ulyc} {
			k.memo = ss.coll
		}
	}
	n := p.p * p.v
	p.crossNode = resize(p.spare.crossNode, max(n-1, 0))
	p.spare.crossNode = p.crossNode
	sched := p.simSchedule()
	for vs := 0; vs+1 < n; vs++ { // the boundary after chain position vs (schedule.CostIndex)
		r0, r1 := schedule.CostIndex(sched, p.p, vs)%p.p, schedule.CostIndex(sched, p.p, vs+1)%p.p
		p.crossNode[vs] = (r0*p.ppStride)/gpn != (r1*p.ppStride)/gpn
	}
}

// modelStages is how many stages the model is cut into: p·v, or DualPipe's p (each rank holds
// two of them, one a direction).
func (p *plan) modelStages() int {
	if p.s.Workload.Mode == model.Infer {
		return p.p
	}
	return p.l.Schedule.ModelStages(p.p, p.l.Chunks)
}

// placeChains puts the model's stages where ZB-V, DualPipe and DualPipeV run them: p.layers
// and p.kinds, split in model order, become indexed by virtual stage c·p + s (chunk c of rank
// s) as the simulation's costs are (schedule.CostIndex). The others' are that order already.
func (p *plan) placeChains() {
	sched := p.simSchedule()
	if p.s.Workload.Mode == model.Infer || sched.VirtualChunks(1) != 2 {
		return
	}
	n := p.p * p.v
	// In the plan's arrays (not stageKinds', which it reads).
	layers, kinds := resize(p.spare.chain.layers, n), resize(p.spare.chain.kinds, n)
	p.spare.chain.layers, p.spare.chain.kinds = layers, kinds
	for q := range n {
		i, st := schedule.CostIndex(sched, p.p, q), q
		if schedule.Bidirectional(sched) {
			st = q % p.p // both directions run the same p stages
		}
		if st < len(p.layers) {
			layers[i], kinds[i] = p.layers[st], p.kinds[st]
		}
	}
	p.layers, p.kinds = layers, kinds
}

// endsOf says whether virtual stage vs (c·p + s) is the first of a chain (it embeds) and the
// last (it computes the logits and the loss): DualPipe has two of each, one a direction.
func (p *plan) endsOf(vs int) (head, tail bool) {
	sched := p.simSchedule()
	n := p.p * p.v
	if brk := schedule.ChainBreak(sched, p.p); brk > 0 {
		return vs == schedule.CostIndex(sched, p.p, 0) || vs == schedule.CostIndex(sched, p.p, brk),
			vs == schedule.CostIndex(sched, p.p, brk-1) || vs == schedule.CostIndex(sched, p.p, n-1)
	}
	return vs == 0, vs == schedule.CostIndex(sched, p.p, n-1)
}

// rankEnds says whether rank r holds the embedding and the output layer: rank 0 and p−1 for
// the one-way schedules, rank 0 both for the V ones, both end ranks both for DualPipe.
func (p *plan) rankEnds(r int) (embedding, output bool) {
	for c := 0; c < p.v; c++ {
		h, t := p.endsOf(c*p.p + r)
		embedding, output = embedding || h, output || t
	}
	return
}

// stageKinds splits the model's layers over n virtual stages and counts each stage's layers of
// each kind: evenly (splitLayers) when every layer is one kind; otherwise in contiguous runs that
// balance each stage's work, a layer's forward FLOPs per token at the workload's context, not its
// layer count (a stage of dense layers and one of MoE layers differ).
func stageKinds(m arch.Model, n, seq int) ([]int, [][]int) {
	var b splitBufs
	return stageKindsInto(m, n, seq, &b)
}

// splitBufs are the backing arrays of a stage split (stageKindsInto), which a pooled plan keeps
// for its next evaluation.
type splitBufs struct {
	layers []int
	kinds  [][]int
	counts []int
}

// stageKindsInto is stageKinds in b's arrays where they are large enough (b keeps the arrays
// used): the split holds b's memory until the next call on b.
func stageKindsInto(m arch.Model, n, seq int, b *splitBufs) ([]int, [][]int) {
	n = max(n, 1)
	var layers []int
	if m.Uniform() {
		layers = splitLayersInto(len(m.Of), resize(b.layers, n))
	} else {
		w := make([]float64, len(m.Of))
		for i, k := range m.Of {
			w[i] = layerWork(m.Shapes[k], float64(seq))
		}
		layers = balanceLayers(w, resize(b.layers, n))
	}
	kinds := resize(b.kinds, n)
	nk := len(m.Shapes)
	all := resize(b.counts, n*nk) // one array for every stage's counts
	b.layers, b.kinds, b.counts = layers, kinds, all
	at := 0
	for vs, c := range layers {
		kinds[vs] = m.Counts(at, at+c, all[vs*nk:vs*nk:(vs+1)*nk])
		at += c
	}
	return layers, kinds
}

// layerWork is a layer's forward FLOPs per token with ctx keys per query: what balancing a
// pipeline's stages weighs.
func layerWork(s arch.Shape, ctx float64) float64 {
	return 2*(s.AttnParams+s.ActiveParams) + s.Pair*s.Keys(ctx) + s.StateFLOPs + s.IdxPair*ctx
}

// balanceLayers cuts the weights w into n = len(out) contiguous non-empty runs whose heaviest is
// as light as a bisection on it finds, and returns the runs' lengths in out (n ≤ len(w); with
// fewer layers than stages the last stages are empty, which validation refuses before).
func balanceLayers(w []float64, out []int) []int {
	n := len(out)
	if len(w) == 0 {
		return out
	}
	total, heaviest := 0.0, 0.0
	for _, x := range w {
		total += x
		heaviest = math.Max(heaviest, x)
	}
	// cut packs runs of at most limit greedily and says how many it needed.
	cut := func(limit float64, out []int) int {
		clear(out)
		runs, sum := 0, 0.0
		for i, x := range w {
			if i == 0 || sum+x > limit {
				if runs == len(out) {
					return runs + 1
				}
				runs++
				sum = 0
			}
			sum += x
			out[runs-1]++
		}
		return runs
	}
	lo, hi := math.Max(heaviest, total/float64(n)), total
	for range 60 {
		mid := (lo + hi) / 2
		if cut(mid, out) <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	runs := cut(hi, out)
	// Fewer runs than stages: split the longest runs until every stage has a layer.
	for runs < n {
		j := 0
		for i := range runs {
			if out[i] > out[j] {
				j = i
			}
		}
		if out[j] < 2 {
			break
		}
		copy(out[j+2:runs+1], out[j+1:runs])
		out[j+1] = out[j] / 2
		out[j] -= out[j+1]
		runs++
	}
	return out
}

// splitLayers spreads L layers over n virtual stages as evenly as possible. Extra layers go to
// the middle stages first: the first stage also holds the embedding, the last the logits.
func splitLayers(layers, n int) []int { return splitLayersInto(layers, make([]int, n)) }

// splitLayersInto is splitLayers into out, n = len(out).
func splitLayersInto(layers int, out []int) []int {
	n := len(out)
	base, extra := layers/n, layers%n
	for i := range out {
		out[i] = base
	}
	// Fill from the centre outwards so the end stages get the extras last.
	for lo, hi := (n-1)/2, (n-1)/2+1; extra > 0; lo, hi = lo-1, hi+1 {
		if lo >= 0 {
			out[lo]++
			extra--
		}
		if hi < n && extra > 0 {
			out[hi]++
			extra--
		}
	}
	return out
}

// spanGroup places a communicator of `count` ranks spaced `stride` apart (model.SpanOf).
func spanGroup(stride, count, gpn int) group { return fromSpan(model.SpanOf(stride, count, gpn)) }

// fromSpan is a placed group as the communicators take it.
func fromSpan(g model.Span) group { return group{n: g.N, nodes: g.Nodes, local: g.Local} }

// p2pLink is the link between two virtual stages' GPUs: across nodes, a GPU's share of its
// node's NICs (every GPU of the stage sends at once).
func (p *plan) p2pLink(vs int) model.Link {
	if p.crossNode[vs] {
		l := p.c.Inter
		l.Bandwidth *= float64(p.c.NICsPerNode) / float64(p.c.NodeSize())
		return l
	}
	return p.c.IntraLink()
}

// p2p is the time to send `bytes` of activations across boundary vs. With TP each rank of the
// group sends its 1/t share (Megatron's scatter/gather), so the group's links run in parallel.
func (p *plan) p2p(vs int, bytes float64) float64 {
	if vs < 0 || vs >= len(p.crossNode) || p.p <= 1 {
		return 0
	}
	return sendTime(bytes/float64(p.t), p.p2pLink(vs))
}

// tpLink is the link the TP group's ring is bound by.
func (p *plan) tpLink() model.Link { return p.tp.link() }

// times turns a layer pass into kernel times: attention (projections + core), MLP, element-wise.
type passTimes struct {
	attn, core, mlp, elem float64
	ar                    float64 // one TP all-reduce (sequence parallel: a reduce-scatter and an all-gather)
	ag                    float64 // one TP all-gather of the layer's activations
	arMLP, agMLP          float64 // the MLP's (ar and ag but for a MoE layer with etp < t)
	a2a                   float64 // one expert-parallel all-to-all (dispatch or combine)
}

func (p *plan) passTimes(ps pass) passTimes {
	pt := passTimes{
		attn: p.hw.time(ps.attnGEMM),
		core: p.hwAttn.time(ps.attnCore) + p.hwAttn.time(ps.scores),
		mlp:  p.hw.time(ps.mlp.slowed(ps.mlpSlow)),
		elem: p.hw.time(ps.elem),
		ar:   p.tpAllReduce(ps.tpBytes),
	}
	if p.t > 1 && p.l.SequenceParallel {
		// Only sequence parallelism's re-gathers read it (trainLayerCost): one collective
		// fewer to time on every other layout.
		pt.ag = p.tpRun(collective.ReduceScatter, ps.tpBytes).Seconds
	}
	pt.arMLP, pt.agMLP = pt.ar, pt.ag
	if ps.moe && p.etp < p.t {
		// Experts split over etp < t GPUs: the MLP's output is reduced over those alone (none
		// at etp 1), and its inputs reach the experts by the all-to-all, not a TP gather.
		pt.arMLP, pt.agMLP = 0, 0
		if p.etp > 1 {
			pt.arMLP = p.etpc.run(collective.AllReduce, ps.tpBytes).Seconds
		}
	}
	if p.fold > 1 && ps.a2aBytes > 0 {
		pt.a2a = epAllToAll(p.epc, p.a, p.l, p.c, ps.a2aBytes) // direct or two-hop (dispatch.go)
	}
	return pt
}

// tpLabel names the TP collective of a layout's layer segments.
func tpLabel(l model.Layout) string {
	if l.SequenceParallel {
		return "reduce-scatter + all-gather"
	}
	return "all-reduce"
}

// tpAllReduce is one TP all-reduce of bytes (a reduce-scatter plus an all-gather with sequence
// parallelism: the same ring steps and bytes).
func (p *plan) tpAllReduce(bytes float64) float64 {
	if p.t <= 1 {
		return 0
	}
	if p.l.SequenceParallel {
		return 2 * p.tpRun(collective.ReduceScatter, bytes).Seconds
	}
	return p.tpRun(collective.AllReduce, bytes).Seconds
}

// tpRunMemo is one collective of the TP group, remembered.
type tpRunMemo struct {
	op    collective.Op
	bytes float64
	r     collective.Result
}

// tpRun is p.tp.run, remembered for the first few (op, bytes) asked.
func (p *plan) tpRun(op collective.Op, bytes float64) collective.Result {
	for _, c := range p.tpMemo[:p.tpN] {
		if c.op == op && c.bytes == bytes {
			return c.r
		}
	}
	r := p.tp.run(op, bytes)
	if p.tpN < len(p.tpMemo) {
		p.tpMemo[p.tpN] = tpRunMemo{op, bytes, r}
		p.tpN++
	}
	return r
}

// forwardSegments lays out one layer's forward on one GPU: attention, all-reduce, MLP, all-reduce
// (label names the TP collective; the two TP segments are what each costs on the critical path,
// ar1 after attention and ar2 after the MLP).
func forwardSegments(pt passTimes, label string, ar1, ar2 float64) []Segment {
	parts := forwardParts(pt, label, ar1, ar2)
	return segments(parts[:]...)
}

// forwardParts are forwardSegments' pieces, before they are laid end to end.
func forwardParts(pt passTimes, label string, ar1, ar2 float64) [6]seg {
	return [...]seg{
		{SegCompute, "attention", pt.attn + pt.core + pt.elem/2},
		{SegTPComm, label, ar1},
		{SegEPComm, "all-to-all", pt.a2a},
		{SegCompute, "mlp", pt.mlp + pt.elem/2},
		{SegEPComm, "all-to-all", pt.a2a},
		{SegTPComm, label, ar2},
	}
}

// tpOverlapApplies says whether the layout's TP overlap does anything: in training, with TP > 1,
// on a TP group inside one node whose GPUs reach each other's memory. The userbuffer overlap
// (Megatron-LM, Transformer Engine) exchanges tiles through CUDA IPC peer buffers, so it does not
// cross the network nor run on PCIe cards without peer-to-peer.
func tpOverlapApplies(l model.Layout, c model.Cluster, m model.Mode) bool {
	return l.TPOverlap != model.TPOverlapNone && l.TP > 1 && m == model.Train &&
		l.TP <= c.NodeSize() && !c.IntraLink().Staged
}

// tpExposed is what a TP collective of comm seconds beside a GEMM of gemm seconds costs on the
// critical path under the layout's TP overlap [CAL calculon/llm/layers.py, LinearOverlapped].
// With overlap the GEMM is cut into t tiles (t = TP): the first tile runs alone, then each
// tile's exchange runs beside the next tile's GEMM, which the collective slows by the SMs it
// takes (overlapSlowdown of the exchange), so a tile costs max(g + u·c, c); pipe exposes one
// more exchange tile. Never more than comm, never less than 0: the pair never takes less than
// the GEMM alone nor more than the two in turn. Training only, and only where the frameworks
// have it (tpOverlapApplies).
func (p *plan) tpExposed(gemm, comm float64) float64 {
	if comm <= 0 || !tpOverlapApplies(p.l, p.c, p.s.Workload.Mode) {
		return comm
	}
	t := float64(p.t)
	g, c := gemm/t, comm/t
	u := p.tp.overlapSlowdown()
	pair := g + (t-1)*max(g+u*c, c)
	if p.l.TPOverlap == model.TPOverlapPipe {
		pair += c
	}
	return min(max(pair-gemm, 0), comm)
}

type seg struct {
	kind  SegmentKind
	label string
	dur   float64
}

func segments(parts ...seg) []Segment {
	return appendSegments(make([]Segment, 0, len(parts)), parts...)
}

// appendSegments is segments appended to out (the first starting at 0).
func appendSegments(out []Segment, parts ...seg) []Segment {
	at := 0.0
	for _, x := range parts {
		if x.dur <= 0 {
			continue
		}
		out = append(out, Segment{Kind: x.kind, Label: x.label, Start: at, End: at + x.dur})
		at += x.dur
	}
	return out
}

func segTotal(ss []Segment) float64 {
	if len(ss) == 0 {
		return 0
	}
	return ss[len(ss)-1].End
}

// sanitize guarantees the report holds no NaN or Inf (a zero-cost corner could divide by zero).
func sanitize(r *Report) {
	fix := func(x *float64) {
		if math.IsNaN(*x) || math.IsInf(*x, 0) {
			*x = 0
		}
	}
	for _, x := range []*float64{&r.StepTime, &r.Breakdown.Compute, &r.Breakdown.Recompute,
		&r.Breakdown.TPComm, &r.Breakdown.EPComm, &r.Breakdown.CPComm, &r.Breakdown.PPComm, &r.Breakdown.DPComm, &r.Breakdown.Bubble,
		&r.Breakdown.Optimizer, &r.Breakdown.Offload, &r.Memory.Host, &r.Memory.HostCapacity, &r.BubbleFraction, &r.CommFraction, &r.ModelTFLOPS, &r.HWTFLOPS,
		&r.MFU, &r.TokensPerS, &r.Memory.Weights, &r.Memory.Gradients, &r.Memory.Optimizer,
		&r.Memory.Activations, &r.Memory.KVCache, &r.Memory.Reserved, &r.Memory.Total,
		&r.Memory.Capacity, &r.Detail.BubbleClosedForm} {
		fix(x)
	}
	if r.Inference != nil {
		for _, x := range []*float64{&r.Inference.TTFT, &r.Inference.TPOT, &r.Inference.TokensPerS,
			&r.Inference.PrefillS, &r.Inference.DecodeStepS} {
			fix(x)
		}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func gib(x float64) string { return fmt.Sprintf("%.1f GiB", x/model.GiB) }

// OverMemory says why r does not fit: its fullest GPU over capacity, or a stage whose offload
// needs more host memory than the GPU's share of its node; "" when it fits.
func OverMemory(r Report) string {
	m := r.Memory
	switch {
	case m.Fits:
		return ""
	case m.Total > m.Capacity:
		return fmt.Sprintf("over memory by %s on stage %d (%s of %s)", gib(m.Total-m.Capacity), m.Stage, gib(m.Total), gib(m.Capacity))
	}
	for i, sd := range r.Detail.Stages {
		if h := sd.Memory; h.Host > h.HostCapacity {
			return fmt.Sprintf("over host memory by %s on stage %d (%s of its %s)", gib(h.Host-h.HostCapacity), i, gib(h.Host), gib(h.HostCapacity))
		}
	}
	return "over memory"
}

// fillStageGPUs sets each rank's GPUs to stageGPUs' ids, in one array.
func (p *plan) fillStageGPUs(stages []StageDetail) {
	all := make([]int, p.p*p.t)
	for r := range stages {
		ids := all[r*p.t : (r+1)*p.t : (r+1)*p.t]
		for i := range ids {
			ids[i] = r*p.ppStride + i*p.tpStride
		}
		stages[r].GPUs = ids
	}
}

// stageGPUs lists the GPU ids of DP replica 0's TP group on each pipeline rank.
func (p *plan) stageGPUs() [][]int {
	out := make([][]int, p.p)
	all := make([]int, p.p*p.t) // one allocation for every rank's ids
	for r := range out {
		ids := all[r*p.t : (r+1)*p.t : (r+1)*p.t]
		for i := range ids {
			ids[i] = r*p.ppStride + i*p.tpStride
		}
		out[r] = ids
	}
	return out
}

// layout summarises the layout for the report.
func (p *plan) layoutSummary() LayoutSummary {
	sched := p.l.Schedule.String()
	if p.s.Workload.Mode == model.Infer {
		sched = "forward"
	}
	out := SummaryOf(p.l)
	out.EP, out.Chunks, out.MicroBatches, out.Schedule = p.ep, p.v, p.m, sched
	if p.fold > 1 {
		out.EPImbalance = EPImbalance(p.l)
		out.EPDispatch = p.l.EPDispatch.String()
	}
	if p.etp < p.t {
		out.ETP = p.etp
	}
	return out
}

// rankLayers is the number of layers each rank holds over all its chunks.
func (p *plan) rankLayers() []int {
	out := make([]int, p.p)
	for vs, n := range p.layers {
		out[vs%p.p] += n
	}
	return out
}

// paramParts splits the parameters one GPU of rank r holds with kinds[k] layers of each kind
// (stageParams' total, before ZeRO).
func (p *plan) paramParts(r int, kinds []int) ParamParts {
	t := float64(p.t)
	var out ParamParts
	for k, n := range kinds {
		if n == 0 || k >= len(p.k.Shapes) {
			continue
		}
		sh, c := p.k.Shapes[k], float64(n)
		out.Attention += c * sh.AttnParams / t
		if !sh.Kind.MoE {
			out.DenseMLP += c * sh.MLPParams / t
			continue
		}
		routed := sh.ExpertParams / float64(p.ep)
		out.Routed += c * routed / t
		out.Shared += c * (sh.MLPParams - sh.ExpertParams) / t // shared experts and the router
	}
	emb, outp := p.rankEnds(r)
	if emb {
		out.Ends += p.k.EmbeddingParams() / t
	}
	if outp {
		out.Ends += p.k.OutputParams() / t
	}
	return out
}

// mainKind is the layer kind most layers are (the first such): the one the report's layer detail
// shows.
func (p *plan) mainKind() int {
	all, best := p.k.All(), 0
	for k, n := range all {
		if n > all[best] {
			best = k
		}
	}
	return best
}

// moeLayers is how many of kinds' layers have routed experts.
func (p *plan) moeLayers(kinds []int) float64 {
	n := 0
	for k, c := range kinds {
		if k < len(p.k.Shapes) && p.k.Shapes[k].Kind.MoE {
			n += c
		}
	}
	return float64(n)
}

// rankKinds is, per rank, how many layers of each kind it holds over all its chunks.
func (p *plan) rankKinds() [][]int {
	out := make([][]int, p.p)
	for r := range out {
		out[r] = make([]int, len(p.k.Shapes))
	}
	for vs, ks := range p.kinds {
		for k, n := range ks {
			out[vs%p.p][k] += n
		}
	}
	return out
}

// stageParams is the parameters one GPU of rank r holds with kinds[k] layers of each kind
// (before ZeRO sharding), and of those the transformer layers'. Expert parallelism divides the
// expert matrices by ep.
func (p *plan) stageParams(r int, kinds []int) (total, layerOnly float64) {
	t := float64(p.t)
	layerOnly = p.k.Sum(kinds, func(s arch.Shape) float64 {
		return s.Params() - s.ExpertParams*(1-1/float64(p.ep))
	}) / t
	total = layerOnly
	emb, outp := p.rankEnds(r)
	if emb {
		total += p.k.EmbeddingParams() / t
	}
	if outp {
		total += p.k.OutputParams() / t
	}
	return
}

// commonWarnings are training's and serving's; r holds the breakdown and step time.
func (p *plan) commonWarnings(r *Report) []string {
	var w []string
	if p.tp.g.Nodes > 1 {
		w = append(w, fmt.Sprintf("TP=%d spans %d nodes: every layer's all-reduces cross the %s network", p.t, p.tp.g.Nodes, p.c.Inter.ID))
	}
	if p.t > 1 && p.c.Intra.Kind == model.PCIe && p.tp.g.Nodes == 1 {
		// The cost, not advice: whether another split does better depends on the scenario
		// (on PCIe, search ranks TP 2 × DP 4 first for llama-2-7b training on 8 L40S and
		// TP 4 × DP 2 for serving on 8 RTX 4090s), and search and Compare rank them.
		what := "the step"
		if p.s.Workload.Mode == model.Infer {
			what = "the serve time, every token waits for them"
		}
		w = append(w, fmt.Sprintf("TP=%d over %s: every layer's all-reduces cross PCIe, %.1f%% of %s (search ranks the other splits)",
			p.t, p.c.Intra.ID, 100*r.Share(r.Breakdown.TPComm), what))
	}
	if p.t > p.a.KVHeads {
		w = append(w, fmt.Sprintf("TP=%d exceeds the %d KV heads: KV heads are replicated %d×", p.t, p.a.KVHeads, p.t/p.a.KVHeads))
	}
	for _, n := range p.layers {
		if n != p.layers[0] {
			w = append(w, fmt.Sprintf("%d layers do not split evenly over %d stages: stages hold %d to %d", p.a.Layers, len(p.layers), minInts(p.layers), maxInts(p.layers)))
			break
		}
	}
	return w
}

func minInts(v []int) int {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxInts(v []int) int {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
