package costmodel

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// vstage is one virtual pipeline stage's per-micro-batch costs in training, seconds.
type vstage struct {
	f, b, w                 float64 // op times handed to the simulation (w = 0 unless ZB-H1)
	compute, recompute, tp  float64 // what those op times are made of (f + b + w)
	ep                      float64 // expert-parallel all-to-alls, also inside f + b
	layers                  int
	fHead, fTail, bHead     []seg // embedding / logits pieces around the layers
	wHead                   []seg
	modelFLOPs, recompFLOPs float64 // per GPU
}

// trainLayer is one layer's forward, backward and weight-gradient segments on one GPU; every
// virtual stage repeats them. Segments are only expanded per op when a timeline is recorded.
type trainLayer struct {
	f, b, w []Segment
}

// ops returns a virtual stage's F, B and W segments.
func (tl trainLayer) ops(st vstage) (f, b, w []Segment) {
	f = stack(st.fHead, tl.f, st.layers, st.fTail)
	b = stack(st.bHead, tl.b, st.layers, nil)
	if len(tl.w) > 0 {
		w = stack(st.wHead, tl.w, st.layers, nil)
	}
	return
}

// trainStages builds every virtual stage's op costs.
func (p *plan) trainStages() ([]vstage, trainLayer) {
	a, l := p.a, p.l
	seq := float64(p.s.Workload.Seq)
	tokens := float64(p.b) * seq
	ps := layerPass(a, l, tokens, seq, float64(p.b), p.e, l.UnfusedAttention)
	pt := p.passTimes(ps)
	fwd := pt.attn + pt.core + pt.mlp + pt.elem
	wT := pt.attn + pt.mlp
	var recomp, recompTP, recompEP float64
	var recompFLOPs float64
	switch l.Recompute {
	case model.RecomputeFull:
		recomp, recompTP, recompEP = fwd, 2*pt.ar, 2*pt.a2a
		recompFLOPs = ps.forward().flops
	case model.RecomputeSelective:
		recomp = pt.core
		recompFLOPs = ps.attnCore.flops + ps.scores.flops
	}
	lg := logits(a, l, tokens, p.e)
	lgT := p.hw.time(lg)
	lgGEMM := p.hw.time(gemm(tokens, float64(a.Hidden), float64(a.Vocab)/float64(p.t), p.e))
	embT := p.hw.time(kernel{bytes: tokens * float64(a.Hidden) * p.e * 2})

	// Backward splits into B (input gradients: the GEMMs again, the attention core and the
	// element-wise work twice) and W (weight gradients: the GEMMs again), so B ≈ W ≈ forward and
	// zero-bubble schedules can move W; other schedules run W inside B.
	var tl trainLayer
	tl.f = forwardSegments(pt, tpLabel(l))
	// With sequence parallelism each column-parallel GEMM (QKV, MLP up) keeps only its
	// sequence shard of the input, so the backward all-gathers it again to form the weight
	// gradient [Korthikanti et al. 2022, §4.2.2]: one more all-gather per GEMM, two per layer, beside the two
	// reduce-scatters and two all-gathers that mirror the forward.
	regather := 0.0
	if l.SequenceParallel && p.t > 1 {
		regather = pt.ag
	}
	tl.b = segments(
		seg{SegCompute, "recompute", recomp},
		seg{SegTPComm, tpLabel(l), recompTP},
		seg{SegEPComm, "all-to-all", recompEP},
		seg{SegEPComm, "all-to-all", pt.a2a},
		seg{SegCompute, "mlp bwd", pt.mlp + pt.elem},
		seg{SegEPComm, "all-to-all", pt.a2a},
		seg{SegTPComm, tpLabel(l), pt.ar},
		seg{SegTPComm, "all-gather (wgrad)", regather},
		seg{SegCompute, "attention bwd", pt.attn + 2*pt.core + pt.elem},
		seg{SegTPComm, tpLabel(l), pt.ar},
		seg{SegTPComm, "all-gather (wgrad)", regather},
	)
	zb := l.Schedule == model.ZBH1
	layerW := segments(seg{SegCompute, "weight grads", wT})
	if zb {
		tl.w = layerW
	} else {
		tl.b = append(tl.b, shift(layerW, segTotal(tl.b))...)
	}
	fT, bT, wTot := segTotal(tl.f), segTotal(tl.b), segTotal(tl.w)

	n := p.p * p.v
	out := make([]vstage, n)
	layerFLOPs := ps.forward().flops
	for vs := range out {
		k := float64(p.layers[vs])
		st := &out[vs]
		st.layers = p.layers[vs]
		if vs == 0 {
			st.fHead = []seg{{SegMemory, "embedding", embT}}
		}
		if vs == n-1 {
			st.fTail = []seg{{SegCompute, "logits+loss", lgT}}
			st.bHead = []seg{{SegCompute, "logits bwd", lgGEMM}}
			if zb {
				st.wHead = []seg{{SegCompute, "logits wgrad", lgGEMM}}
			} else {
				st.bHead = append(st.bHead, seg{SegCompute, "logits wgrad", lgGEMM})
			}
		}
		st.f = segsDur(st.fHead) + k*fT + segsDur(st.fTail)
		st.b = segsDur(st.bHead) + k*bT
		if zb {
			st.w = segsDur(st.wHead) + k*wTot
		}
		st.ep = k * (4*pt.a2a + recompEP)
		st.tp = k * (4*pt.ar + 2*regather + recompTP)
		st.recompute = k * recomp
		st.compute = st.f + st.b + st.w - st.tp - st.ep - st.recompute
		st.modelFLOPs = 3 * k * layerFLOPs
		st.recompFLOPs = k * recompFLOPs
		if vs == n-1 {
			st.modelFLOPs += 3 * lg.flops
		}
	}
	return out, tl
}

// stageExpertParams is the expert parameters one GPU of a stage with layers layers holds.
func (p *plan) stageExpertParams(layers int) float64 {
	return float64(layers) * p.a.ExpertParams() / float64(p.t*p.ep)
}

// gradSync is the gradient sync of params parameters over a data-parallel group of n replicas:
// an all-reduce of the fp32 gradients, or under ZeRO a reduce-scatter of them and an all-gather
// of the updated 16-bit weights.
func (p *plan) gradSync(k comms, n int, params float64) float64 {
	if n <= 1 || params <= 0 {
		return 0
	}
	if p.l.ZeRO == 0 {
		return k.allReduce(params * bytesGradients)
	}
	return k.half(params*bytesGradients) + k.half(params*bytesWeights16)
}

// segsDur is the total duration of some pieces.
func segsDur(parts []seg) float64 {
	d := 0.0
	for _, x := range parts {
		d += max(x.dur, 0)
	}
	return d
}

// stack builds an op's segments: head pieces, the layer's segments `count` times, tail pieces.
func stack(head []seg, layer []Segment, count int, tail []seg) []Segment {
	out := segments(head...)
	at := segTotal(out)
	lt := segTotal(layer)
	for i := 0; i < count; i++ {
		out = append(out, shift(layer, at)...)
		at += lt
	}
	for _, x := range segments(tail...) {
		x.Start += at
		x.End += at
		out = append(out, x)
	}
	return out
}

func shift(ss []Segment, by float64) []Segment {
	out := make([]Segment, len(ss))
	for i, x := range ss {
		x.Start += by
		x.End += by
		out[i] = x
	}
	return out
}

// train evaluates one optimizer step.
func (p *plan) train(mode evalMode) (Report, error) {
	record := mode == modeTimeline
	st, layer := p.trainStages()
	n := len(st)
	in := schedule.Train{
		Schedule: p.l.Schedule, Stages: p.p, Chunks: p.v, Micro: p.m,
		F: make([]float64, n), B: make([]float64, n), W: make([]float64, n),
		P2P: make([]float64, max(n-1, 0)), Record: record,
	}
	if p.p == 1 && in.Schedule == model.GPipe {
		// One stage is plain gradient accumulation: forward and backward per micro-batch, so only
		// one micro-batch's activations live at a time (GPipe's all-forwards-first buys nothing).
		in.Schedule = model.OneFOneB
	}
	seq := float64(p.s.Workload.Seq)
	actBytes := float64(p.b) * seq * float64(p.a.Hidden) * p.e
	for vs := range st {
		in.F[vs], in.B[vs], in.W[vs] = st[vs].f, st[vs].b, st[vs].w
		if vs < n-1 {
			in.P2P[vs] = p.p2p(vs, actBytes)
		}
	}
	res, err := p.runTrain(in, mode)
	if err != nil {
		return Report{}, fmt.Errorf("costmodel: simulate %s: %w", p.l.Schedule, err)
	}
	noP2P := in
	noP2P.P2P = nil
	noP2P.Record = false
	ppExposed := max(schedule.EstimateTrain(in)-schedule.EstimateTrain(noP2P), 0)

	r := Report{Layout: p.layoutSummary()}
	rankLayers := p.rankLayers()
	m := float64(p.m)

	// Per rank: costs, memory, DP sync.
	stages := make([]StageDetail, p.p)
	stepEnd := 0.0
	crit := 0
	for rk := range stages {
		sd := &stages[rk]
		sd.Layers = rankLayers[rk]
		sd.Embedding, sd.Logits = rk == 0, rk == p.p-1
		for c := 0; c < p.v; c++ {
			x := st[c*p.p+rk]
			sd.F += x.f
			sd.B += x.b
			sd.W += x.w
		}
		sd.Busy = res.Busy[rk]
		sd.InFlight = res.PeakInFlight[rk]
		params, layerParams := p.stageParams(rk, sd.Layers)
		sd.ParamsOnGPU, sd.LayerParams = params, layerParams
		// Expert parallelism: the expert matrices are sharded over ep and synced (and ZeRO-
		// sharded) over the d/ep replicas that hold the same experts; the rest over all d.
		expert := p.stageExpertParams(sd.Layers)
		dense := params - expert
		w, g, o := paramState(dense, p.s.Workload.Precision, p.l.ZeRO, p.d)
		we, ge, oe := paramState(expert, p.s.Workload.Precision, p.l.ZeRO, p.d/p.ep)
		w, g, o = w+we, g+ge, o+oe
		perChunk := float64(sd.Layers) / float64(p.v)
		act := float64(sd.InFlight) * perChunk * layerActivationBytes(p.a, p.l, seq, float64(p.b), p.s.Workload.Precision)
		sd.LayerActBytes = act
		if sd.Logits {
			act += float64(p.b) * seq * float64(p.a.Vocab) / float64(p.t) * 4 // fp32 logits of one micro-batch
		}
		sd.PeakActBytes = act
		sd.Memory = p.memory(rk, w, g, o, act, 0)

		// Gradient sync over DP: all-reduce of fp32 gradients (ZeRO: reduce-scatter, then an
		// all-gather of the updated 16-bit weights). It overlaps the last micro-batch's backward
		// unless SerialDP; ZeRO-3 also gathers weights before every forward and backward.
		dpT := p.gradSync(p.dp, p.d, dense) + p.gradSync(p.expDP, p.d/p.ep, expert)
		window := 0.0
		if !p.l.SerialDP {
			last := st[rk]
			window = last.b + last.w
		}
		exposed := max(dpT-window, 0)
		if p.l.ZeRO == 3 && p.d > 1 {
			// Each chunk's forward and backward gathers that chunk's 1/v of the weights.
			gather := 2 * m * float64(p.v) * p.dp.half(dense*bytesWeights16/float64(p.v))
			if p.d/p.ep > 1 {
				gather += 2 * m * float64(p.v) * p.expDP.half(expert*bytesWeights16/float64(p.v))
			}
			exposed += max(gather-(sd.Busy-window), 0)
			dpT += gather
		}
		finish := res.Makespan
		if rk < len(res.Finish) {
			finish = res.Finish[rk]
		}
		stepEnd = max(stepEnd, finish+exposed)
		if res.Busy[rk] > res.Busy[crit] {
			crit = rk
		}
		if rk == 0 || dpT > r.Detail.DPS {
			r.Detail.DPBytes, r.Detail.DPS, r.Detail.DPExposed = params*bytesGradients, dpT, exposed
		}
	}
	stepEnd = max(stepEnd, res.Makespan)

	// Optimizer: one fused AdamW pass over each GPU's (ZeRO-sharded) parameters; the GPU with the
	// most sets the time.
	optParams := 0.0
	for rk := range stages {
		optParams = max(optParams, stages[rk].ParamsOnGPU)
	}
	if p.l.ZeRO >= 1 {
		optParams /= float64(p.d)
	}
	optimizer := p.hw.time(kernel{bytes: optParams * adamTrafficPerParam})
	step := stepEnd + optimizer

	// Breakdown on the critical (busiest) rank: its work, the pipeline's idle time on it, then
	// what the gradient sync and the optimizer add to the step.
	var comp, recomp, tpc, epc float64
	for c := 0; c < p.v; c++ {
		x := st[c*p.p+crit]
		comp += x.compute
		recomp += x.recompute
		tpc += x.tp
		epc += x.ep
	}
	busy := res.Busy[crit]
	bd := Breakdown{
		Compute: comp * m, Recompute: recomp * m, TPComm: tpc * m, EPComm: epc * m,
		PPComm:    min(ppExposed, max(res.Makespan-busy, 0)),
		DPComm:    stepEnd - res.Makespan,
		Optimizer: optimizer,
	}
	bd.Bubble = max(res.Makespan-busy-bd.PPComm, 0)
	r.Breakdown = bd
	r.StepTime = step
	r.BubbleFraction = ratio(bd.Bubble, step)
	r.CommFraction = ratio(bd.TPComm+bd.EPComm+bd.PPComm+bd.DPComm, step)

	// FLOPs: model FLOPs are 3× the forward of the whole batch; hardware adds recompute.
	var modelPerGPU, hwPerGPU float64
	for _, x := range st {
		modelPerGPU += x.modelFLOPs * m
		hwPerGPU += (x.modelFLOPs + x.recompFLOPs) * m
	}
	// Each GPU holds one rank's share; sum over ranks counts one TP rank of each stage.
	gpus := float64(p.c.GPUs)
	totalModel := modelPerGPU * float64(p.t) * float64(p.d)
	totalHW := hwPerGPU * float64(p.t) * float64(p.d)
	r.Detail.ModelFLOPs, r.Detail.HWFLOPs = totalModel, totalHW
	r.ModelTFLOPS = ratio(totalModel, step*gpus) / 1e12
	r.HWTFLOPS = ratio(totalHW, step*gpus) / 1e12
	r.MFU = ratio(r.ModelTFLOPS*1e12, p.c.GPU.Peak(p.s.Workload.Precision))
	r.TokensPerS = ratio(float64(p.s.Workload.GlobalBatch)*seq, step)

	// Memory: the fullest GPU.
	full := 0
	for rk := range stages {
		if stages[rk].Memory.Total > stages[full].Memory.Total {
			full = rk
		}
	}
	r.Memory = stages[full].Memory

	// Detail for the renderers.
	gpus0 := p.stageGPUs()
	for rk := range stages {
		stages[rk].GPUs = gpus0[rk]
	}
	r.Detail.Stages = stages
	r.Detail.BubbleClosedForm = p.closedFormBubble(st)
	r.Detail.TPAllReduceBytes = actBytes
	r.Detail.TPAllReduceS = p.tpAllReduce(actBytes)
	r.Detail.TPLink = p.tpLink().ID
	r.Detail.TPLinkAlpha, r.Detail.TPLinkBW = p.tp.ringParams()
	r.Detail.P2PBytes = actBytes
	if len(in.P2P) > 0 {
		r.Detail.P2PS = maxFloat(in.P2P)
	}
	r.Detail.Layer = LayerDetail{Forward: layer.f, Backward: append(shift(layer.b, 0), shift(layer.w, segTotal(layer.b))...)}
	r.Detail.Layer.CommShare = commShare(r.Detail.Layer.Forward, r.Detail.Layer.Backward)

	if u := p.tpUses("layer activations", actBytes, 1, 0); len(u) > 0 {
		r.Detail.TPCollective = u[0]
	}
	r.Warnings = append(p.commonWarnings(), p.trainWarnings(r)...)
	if record {
		r.Timeline = p.timeline(res, st, layer)
		maxParams := 0.0
		for rk := range stages {
			maxParams = max(maxParams, stages[rk].ParamsOnGPU)
		}
		r.Collectives = p.trainCollectives(stages[crit].Layers, maxParams)
	}
	return r, nil
}

func commShare(fwd, bwd []Segment) float64 {
	var comm, total float64
	for _, ss := range [][]Segment{fwd, bwd} {
		for _, x := range ss {
			total += x.End - x.Start
			if x.Kind == SegTPComm {
				comm += x.End - x.Start
			}
		}
	}
	return ratio(comm, total)
}

func maxFloat(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// closedFormBubble is the textbook idle fraction of the step for the schedule, from the
// critical rank's per-micro-batch times: (p−1)/(m+p−1) for GPipe and 1F1B, (p−1)/(v·m+p−1)
// interleaved, and ZB-H1's (p−1)(F+B−2W) over the step [ZB].
func (p *plan) closedFormBubble(st []vstage) float64 {
	if p.p <= 1 {
		return 0
	}
	pm1, m, v := float64(p.p-1), float64(p.m), float64(p.v)
	switch p.l.Schedule {
	case model.Interleaved:
		return pm1 / (v*m + pm1)
	case model.ZBH1:
		// (p−1)(F+B−2W) with B the whole backward [ZB, DP]; our B op is the input-gradient part
		// alone, so the idle time is (p−1)(F+B_in−W), or (p−1)·F when W > F
		// (schedule.TestZBH1Paper).
		var f, b, w float64
		for vs := range st {
			f, b, w = max(f, st[vs].f), max(b, st[vs].b), max(w, st[vs].w)
		}
		idle := pm1 * max(b+max(f-w, 0), f)
		return ratio(idle, m*(f+b+w)+idle)
	default:
		return pm1 / (m + pm1)
	}
}

func (p *plan) trainWarnings(r Report) []string {
	var w []string
	if p.p > 1 && p.m < p.p {
		w = append(w, fmt.Sprintf("only %d micro-batches for %d stages: the pipeline never fills (raise the batch or lower the micro-batch)", p.m, p.p))
	}
	if !r.Memory.Fits {
		w = append(w, fmt.Sprintf("stage %d needs %s but the GPU has %s: over by %s", r.Memory.Stage, gib(r.Memory.Total), gib(r.Memory.Capacity), gib(r.Memory.Total-r.Memory.Capacity)))
	}
	if p.dp.g.Nodes > 1 && p.c.Inter.Kind == model.Ethernet {
		w = append(w, "data-parallel gradient sync over Ethernet: expect it to dominate")
	}
	return w
}

// memory assembles one GPU's memory.
func (p *plan) memory(rank int, weights, grads, opt, act, kv float64) Memory {
	m := Memory{
		Weights: weights, Gradients: grads, Optimizer: opt, Activations: act, KVCache: kv,
		Reserved: p.s.ReserveBytes, Capacity: p.c.GPU.MemoryBytes, Stage: rank,
	}
	m.Total = m.Weights + m.Gradients + m.Optimizer + m.Activations + m.KVCache + m.Reserved
	m.Fits = m.Total <= m.Capacity
	return m
}

// timeline assembles the recorded simulation with each op's segments; ops of one virtual stage
// and kind share one slice.
func (p *plan) timeline(res schedule.Result, st []vstage, layer trainLayer) *Timeline {
	tl := &Timeline{
		Stages: p.p, Chunks: p.v, MicroBatches: p.m, Schedule: p.l.Schedule, Mode: p.s.Workload.Mode,
		Makespan: res.Makespan, StageGPUs: p.stageGPUs(), Ops: res.Ops,
		Segments: make([][]Segment, len(res.Ops)),
	}
	segs := make([][3][]Segment, len(st))
	for vs := range st {
		segs[vs][0], segs[vs][1], segs[vs][2] = layer.ops(st[vs])
	}
	for i, op := range res.Ops {
		vs := op.Chunk*p.p + op.Stage
		if vs >= 0 && vs < len(st) && int(op.Kind) < 3 {
			tl.Segments[i] = segs[vs][op.Kind]
		}
	}
	return tl
}

// runTrain simulates the step, or in estimate mode (Search's first pass) takes the closed-form
// makespan and the schedules' known in-flight counts.
func (p *plan) runTrain(in schedule.Train, mode evalMode) (schedule.Result, error) {
	if mode != modeEstimate {
		return schedule.SimulateTrain(in)
	}
	res := schedule.Result{
		Makespan:     schedule.EstimateTrain(in),
		Busy:         make([]float64, p.p),
		PeakInFlight: make([]int, p.p),
	}
	for vs := range in.F {
		res.Busy[vs%p.p] += float64(p.m) * (in.F[vs] + in.B[vs] + in.W[vs])
	}
	for r := range res.PeakInFlight {
		switch in.Schedule {
		case model.GPipe:
			res.PeakInFlight[r] = p.m
		case model.Interleaved:
			// Megatron runs every forward first when m = p.
			res.PeakInFlight[r] = min((p.p-r-1)*2+(p.v-1)*p.p+1, p.m*p.v)
			if p.m == p.p {
				res.PeakInFlight[r] = p.m * p.v
			}
		default:
			res.PeakInFlight[r] = min(p.p-r, p.m)
		}
	}
	return res, nil
}
