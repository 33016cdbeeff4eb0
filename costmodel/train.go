package costmodel

import (
	"fmt"
	"slices"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// vstage is one virtual pipeline stage's per-micro-batch costs in training, seconds.
type vstage struct {
	f, b, w                 float64 // op times handed to the simulation (w = 0 unless ZB-H1)
	compute, recompute, tp  float64 // what those op times are made of (f + b + w)
	ep                      float64 // expert-parallel all-to-alls, also inside f + b
	cp                      float64 // context parallelism's exposed K/V exchange, also inside f + b
	layers                  int
	fHead, fTail, bHead     []seg // embedding / logits pieces around the layers
	wHead                   []seg
	modelFLOPs, recompFLOPs float64 // per GPU
}

// trainLayer is one layer's forward, backward and weight-gradient segments on one GPU, per layer
// kind; every virtual stage repeats them, its layers of each kind in turn. Segments are only
// expanded per op when a timeline is recorded.
type trainLayer struct {
	f, b, w [][]Segment
	cp      []CPDetail // each kind's CP exchange (cp.go)
}

// ops returns a virtual stage's F, B and W segments.
func (tl trainLayer) ops(st vstage, kinds []int) (f, b, w []Segment) {
	f = stack(st.fHead, tl.f, kinds, st.fTail)
	b = stack(st.bHead, tl.b, kinds, nil)
	if len(tl.w) > 0 && len(tl.w[0]) > 0 {
		w = stack(st.wHead, tl.w, kinds, nil)
	}
	return
}

// layerCost is one layer kind's costs per micro-batch in training, seconds: its F, B and W op
// times and what they are made of.
type layerCost struct {
	f, b, w            float64
	ep, tp, recompute  float64
	cp                 float64 // context parallelism's exposed K/V exchange (cp.go)
	flops, recompFLOPs float64
}

// layerParts are one layer kind's pieces in training, before they are laid end to end: its
// forward's, its backward's and its weight gradients', and its CP exchange. The report shows the
// main kind's alone (train), so the fast path keeps its pieces here rather than every kind's
// segments.
type layerParts struct {
	f  [7]seg
	b  [13]seg
	w  seg
	cp CPDetail
}

// detail is the layer's forward and backward segments as the report shows them, in one array:
// the backward is B, then W after it (inside B or apart, the same segments).
func (lp *layerParts) detail() (fwd, bwd []Segment) {
	var b [len(lp.b) + 1]seg
	copy(b[:], lp.b[:])
	b[len(lp.b)] = lp.w
	all := make([]Segment, 0, len(lp.f)+len(b))
	fwd = appendSegments(all, lp.f[:]...)
	fwd = fwd[:len(fwd):len(fwd)]
	bwd = appendSegments(all[len(fwd):len(fwd)], b[:]...)
	return fwd, bwd
}

// trainLayerCost is one layer of kind sh in training: its costs, with parts its pieces and with tl
// its segments (the timeline's).
func (p *plan) trainLayerCost(sh arch.Shape, parts *layerParts, tl *trainLayer) layerCost {
	a, l := p.a, p.l
	seq := float64(p.s.Workload.Seq)
	// With CP each GPU holds s/c of the tokens; its queries attend to all s keys (cp.go).
	tokens := float64(p.b) * seq / float64(p.cpx.n)
	ps := layerPass(sh, a, l, tokens, seq, float64(p.b), p.e, l.UnfusedAttention, false)
	pt := p.passTimes(ps)
	cpd := p.cpExchange(sh, tokens, pt.core)
	cpF, cpB := cpd.ExposedS, cpd.BackwardS
	fwd := pt.attn + pt.core + pt.mlp + pt.elem
	wT := pt.attn + pt.mlp
	var recomp, recompTP, recompEP float64
	var recompFLOPs float64
	switch l.Recompute {
	case model.RecomputeFull:
		recomp, recompEP = fwd, 2*pt.a2a
		recompFLOPs = ps.forward().flops
	case model.RecomputeSelective:
		recomp = pt.core
		recompFLOPs = ps.attnCore.flops + ps.scores.flops
	}
	// Recomputing the attention (either recompute) exchanges its K/V again.
	recompCP := 0.0
	if l.Recompute != model.RecomputeNone {
		recompCP = cpF
	}

	// Backward splits into B (input gradients: the GEMMs again, the attention core and the
	// element-wise work twice) and W (weight gradients: the GEMMs again), so B ≈ W ≈ forward and
	// zero-bubble schedules can move W; other schedules run W inside B.
	// Each TP collective is paired with the GEMMs beside it (tpExposed): in forward the
	// attention's and the MLP's; in backward their input-gradient GEMMs, which also hide the
	// sequence-parallel re-gather.
	fwd1, fwd2 := p.tpExposed(pt.attn, pt.ar), p.tpExposed(pt.mlp, pt.arMLP)
	fParts := forwardParts(pt, tpLabel(l), fwd1, fwd2)
	cpLabel := p.cpx.kind.String()
	// The CP exchange before the attention (zero without CP: the sums are today's).
	fAll := [7]seg{{SegCPComm, cpLabel, cpF}}
	copy(fAll[1:], fParts[:])
	// With sequence parallelism each column-parallel GEMM (QKV, MLP up) keeps only its
	// sequence shard of the input, so the backward all-gathers it again to form the weight
	// gradient [Korthikanti et al. 2022, §4.2.2]: one more all-gather per GEMM, two per layer, beside the two
	// reduce-scatters and two all-gathers that mirror the forward.
	regather, regatherMLP := 0.0, 0.0
	if l.SequenceParallel && p.t > 1 && !spKeepsGather(l) {
		regather, regatherMLP = pt.ag, pt.agMLP
	}
	if l.Recompute == model.RecomputeFull {
		recompTP = fwd1 + fwd2
	}
	// The backward pair's exposed share, split between its collective and its re-gather.
	bwdShare := func(gemm, comm float64) float64 { return ratio(p.tpExposed(gemm, comm), comm) }
	mlpShare, attnShare := bwdShare(pt.mlp, pt.arMLP+regatherMLP), bwdShare(pt.attn, pt.ar+regather)
	bParts := [...]seg{
		{SegCPComm, cpLabel, recompCP},
		{SegCompute, "recompute", recomp},
		{SegTPComm, tpLabel(l), recompTP},
		{SegEPComm, "all-to-all", recompEP},
		{SegEPComm, "all-to-all", pt.a2a},
		{SegCompute, "mlp bwd", pt.mlp + pt.elem},
		{SegEPComm, "all-to-all", pt.a2a},
		{SegTPComm, tpLabel(l), pt.arMLP * mlpShare},
		{SegTPComm, "all-gather (wgrad)", regatherMLP * mlpShare},
		{SegCompute, "attention bwd", pt.attn + 2*pt.core + pt.elem},
		{SegCPComm, cpLabel, cpB},
		{SegTPComm, tpLabel(l), pt.ar * attnShare},
		{SegTPComm, "all-gather (wgrad)", regather * attnShare},
	}
	zb := splitsW(l.Schedule)
	wPart := seg{SegCompute, "weight grads", wT}
	// The totals, summed in the segments' order (segTotal of the segments is the same sum).
	c := layerCost{f: segsDur(fAll[:]), b: segsDur(bParts[:])}
	if zb {
		c.w = max(wT, 0)
	} else if wT > 0 {
		c.b += wT
	}
	if parts != nil {
		*parts = layerParts{f: fAll, b: bParts, w: wPart, cp: cpd}
	}
	if tl != nil {
		f, b := segments(fAll[:]...), segments(bParts[:]...)
		layerW := segments(wPart)
		var w []Segment
		if zb {
			w = layerW
		} else {
			b = append(b, shift(layerW, segTotal(b))...)
		}
		tl.f, tl.b, tl.w = append(tl.f, f), append(tl.b, b), append(tl.w, w)
		tl.cp = append(tl.cp, cpd)
	}
	c.ep = 4*pt.a2a + recompEP
	c.tp = fwd1 + fwd2 + (pt.arMLP+regatherMLP)*mlpShare + (pt.ar+regather)*attnShare + recompTP
	c.recompute = recomp
	c.cp = cpF + cpB + recompCP
	c.flops, c.recompFLOPs = ps.forward().flops, recompFLOPs
	return c
}

// trainStages builds every virtual stage's op costs and, with segs, what each stage's ops are made
// of and the main layer kind's pieces (the report's: mainParts), and with timeline each layer
// kind's segments. Without segs it fills the op times (f, b, w) and layers alone, all Search's
// inner loop reads; those are the same sums either way.
func (p *plan) trainStages(segs, timeline bool) ([]vstage, trainLayer) {
	a, l := p.a, p.l
	seq := float64(p.s.Workload.Seq)
	tokens := float64(p.b) * seq / float64(p.cpx.n)
	var tl trainLayer
	if cap(p.lcBuf) < len(p.k.Shapes) {
		p.lcBuf = make([]layerCost, len(p.k.Shapes))
	}
	costs := p.lcBuf[:len(p.k.Shapes)]
	if m := p.lcMemo; m != nil && !segs {
		costs = m.costs(p)
	} else {
		mk, main := -1, (*layerParts)(nil)
		if segs {
			mk, main = p.mainKind(), p.mainParts()
		}
		var segsOf *trainLayer
		if timeline {
			segsOf = &tl
		}
		for k, sh := range p.k.Shapes {
			parts := main
			if k != mk {
				parts = nil
			}
			costs[k] = p.trainLayerCost(sh, parts, segsOf)
		}
	}
	lg := logits(a, l, tokens, p.e)
	lgT := p.hw.time(lg)
	lgGEMM := p.hw.time(gemm(tokens, float64(a.Hidden), float64(a.Vocab)/float64(p.t), p.e))
	embT := p.hw.time(kernel{bytes: tokens * float64(a.Hidden) * p.e * 2})
	zb := splitsW(l.Schedule)
	pairs := l.Schedule == model.DualPipe || l.Schedule == model.DualPipeV

	n := p.p * p.v
	// The plan's buffer: the stages live until the next call (Search builds many on one plan).
	if cap(p.stBuf) < n {
		p.stBuf = make([]vstage, n)
	}
	out := p.stBuf[:n]
	clear(out)
	// The pieces around the layers, in the plan's buffer as the stages are.
	ends := &p.endBuf
	*ends = [...]seg{{SegMemory, "embedding", embT}, {SegCompute, "logits+loss", lgT},
		{SegCompute, "logits bwd", lgGEMM}, {SegCompute, "logits wgrad", lgGEMM}}
	for vs := range out {
		st := &out[vs]
		st.layers = p.layers[vs]
		head, tail := p.endsOf(vs)
		if head {
			st.fHead = ends[0:1:1]
		}
		if tail {
			st.fTail = ends[1:2:2]
			st.bHead = ends[2:4:4] // the weight gradients inside B
			if zb {
				st.bHead, st.wHead = ends[2:3:3], ends[3:4:4]
			}
		}
		var f, b, w float64
		for kind, c := range p.kinds[vs] {
			if c == 0 {
				continue
			}
			k, lc := float64(c), &costs[kind]
			f += k * lc.f
			b += k * lc.b
			w += k * lc.w
			if pairs {
				st.ep += k * lc.ep // DualPipe's pairs hide it (trainInput)
			}
			if !segs {
				continue
			}
			if !pairs {
				st.ep += k * lc.ep
			}
			st.tp += k * lc.tp
			st.cp += k * lc.cp
			st.recompute += k * lc.recompute
			st.modelFLOPs += 3 * k * lc.flops
			st.recompFLOPs += k * lc.recompFLOPs
		}
		st.f = segsDur(st.fHead) + f + segsDur(st.fTail)
		st.b = segsDur(st.bHead) + b
		if zb {
			st.w = segsDur(st.wHead) + w
		}
		if !segs {
			continue
		}
		st.compute = st.f + st.b + st.w - st.tp - st.ep - st.cp - st.recompute
		if tail {
			st.modelFLOPs += 3 * lg.flops
		}
	}
	return out, tl
}

// trainTailResult is what follows the pipeline on each rank and closes the step.
type trainTailResult struct {
	stepEnd   float64 // the last rank's end: its pipeline finish plus its exposed DP sync
	optimizer float64 // the optimizer step after it
	crit      int     // the busiest rank
	full      int     // the rank with the fullest GPU
	// The DP gradient sync of the rank with the most of it: bytes, seconds, seconds exposed.
	dpBytes, dpS, dpExposed float64
	// offload is the most PCIe streaming (weights, activations) a rank's busy time does not
	// hide.
	offload float64
}

// optimizerSeconds is the optimizer step after the pipeline, set by the GPU with the most
// parameters: one fused AdamW pass over its (ZeRO-sharded) parameters on the GPU, or with the
// optimizer offloaded the node's CPU-Adam over its GPUs' shards and the updated weights' return
// over PCIe. It depends on the ZeRO stage and the offload alone, so Search bounds a setting's
// step with it before any other work.
func (p *plan) optimizerSeconds() float64 {
	most := 0.0
	// The most over the ranks is the most over one rank of each group (rankClasses: the ranks
	// of a group have the same rankInfo).
	infos := p.rankInfos()
	_, reps := p.rankClasses()
	for _, rk := range reps {
		ri := infos[rk]
		if p.l.Offload.Optimizer() {
			most = max(most, p.hostParams(ri))
		} else {
			most = max(most, ri.params)
		}
	}
	if !p.l.Offload.Optimizer() {
		if p.l.ZeRO >= 1 {
			most /= float64(p.dc)
		}
		return p.hw.time(kernel{bytes: most * adamTrafficPerParam})
	}
	step := most * float64(max(p.c.NodeSize(), 1)) / cpuAdamParamsPerS
	if !p.l.Offload.Weights() { // the updated weights return to the GPU
		step += p.hostSeconds(most * p.trainWeightBytes())
	}
	return step
}

// hostParams is the parameters of a rank whose optimizer step one GPU runs: its ZeRO-1 shard.
func (p *plan) hostParams(ri rankInfo) float64 {
	if p.l.ZeRO >= 1 {
		return ri.dense/float64(p.dc) + ri.expert/float64(max(p.dc/p.ep, 1))
	}
	return ri.dense + ri.expert
}

// trainWeightBytes is the bytes of one weight (and of one gradient) in the training format.
func (p *plan) trainWeightBytes() float64 {
	if p.s.Workload.Precision == model.FP32 {
		return 4
	}
	return bytesWeights16
}

// dpMemo is a rank's DP gradient sync and ZeRO-3 weight gathers, by its parameters and the
// ZeRO stage's kind of sync.
type dpMemo struct {
	dense, expert, sync, gather float64
	zero                        int // 0: all-reduce; 1: reduce-scatter + all-gather; 3: also gathers
	ok                          bool
}

// dpSync is the DP sync of a rank with these parameters under the plan's ZeRO stage,
// remembered in the plan: it does not depend on recompute or sequence parallelism, which Search
// varies on one plan.
func (p *plan) dpSync(dense, expert float64) dpMemo {
	zk := min(p.l.ZeRO, 1)
	if p.l.ZeRO == 3 {
		zk = 3
	}
	for _, c := range p.dpCache {
		if c.zero == zk && c.dense == dense && c.expert == expert {
			return c
		}
	}
	m := p.mv
	c := dpMemo{dense: dense, expert: expert, zero: zk, ok: true}
	c.sync = p.gradSync(p.dp, p.dc, dense) + p.gradSync(p.expDP, p.dc/p.ep, expert)
	if zk == 3 && p.dc > 1 {
		// Each chunk's forward and backward gathers that chunk's 1/v of the weights.
		c.gather = 2 * m * float64(p.v) * p.dp.half(dense*bytesWeights16/float64(p.v))
		if p.dc/p.ep > 1 {
			c.gather += 2 * m * float64(p.v) * p.expDP.half(expert*bytesWeights16/float64(p.v))
		}
	}
	if p.dpCache == nil {
		p.dpCache = p.spare.dpCache[:0] // the first, middle and last ranks differ
	}
	p.dpCache = append(p.dpCache, c)
	p.spare.dpCache = p.dpCache
	return c
}

// trainTail fills each rank's detail (op times, memory) from the pipeline's result and adds
// what closes the step: the DP gradient sync where the backward does not hide it, ZeRO-3's
// weight gathers and the optimizer. train's report and Search's knob variants both come from
// it, so the two cannot disagree.
func (p *plan) trainTail(st []vstage, res schedule.Result, stages []StageDetail) trainTailResult {
	var out trainTailResult
	ranks := p.rankInfos()
	var memo dpMemo
	var pm paramMemo
	for rk := range stages {
		sd := &stages[rk]
		emb, logits := p.rankEnds(rk)
		*sd = StageDetail{Layers: ranks[rk].layers, Embedding: emb, Logits: logits}
		sd.F, sd.B, sd.W = p.rankOps(st, rk)
		sd.Busy = res.Busy[rk]
		sd.InFlight = res.PeakInFlight[rk]
		rs := p.rankMemory(rk, sd, &pm)
		rt := p.rankTail(rk, st, &res, &rs, sd.F, sd.B, sd.W, &memo)
		out.offload = max(out.offload, rt.offExposed)
		out.stepEnd = max(out.stepEnd, rt.end)
		if res.Busy[rk] > res.Busy[out.crit] {
			out.crit = rk
		}
		if sd.Memory.Total > stages[out.full].Memory.Total {
			out.full = rk
		}
		if rk == 0 || rt.dpT > out.dpS {
			out.dpBytes, out.dpS, out.dpExposed = sd.ParamsOnGPU*bytesGradients, rt.dpT, rt.exposed
		}
	}
	out.stepEnd = max(out.stepEnd, res.Makespan)
	out.optimizer = p.optimizerSeconds()
	return out
}

// stepSeconds is trainTail's step (its end and the optimizer after it, optimizer seconds)
// without the report's details: Search's inner loop, from each group's parameter state (params
// by rankClasses' group, paramMemory's under the plan's ZeRO stage and offload), over the ranks
// tailRanks keeps.
func (p *plan) stepSeconds(st []vstage, res *schedule.Result, params []paramBytes, ranks []tailRank, optimizer float64) float64 {
	end := res.Makespan
	for _, tr := range ranks {
		rs := params[tr.class].rankState
		rs.actMicro = tr.actMicro // as actMemory sets it
		memo := p.classSync(tr.class, rs.dense, rs.expert)
		end = max(end, p.rankTail(tr.rk, st, res, &rs, tr.f, tr.b, tr.w, &memo).end)
	}
	return end + optimizer
}

// classSync is dpSync of a rank of group class (rankClasses) with these parameters, kept per
// group and ZeRO kind of sync: a group's parameters are the same under every ZeRO stage and
// offload (paramMemory), so Search's settings of one plan ask the same few.
func (p *plan) classSync(class int, dense, expert float64) dpMemo {
	zk := min(p.l.ZeRO, 1)
	if p.l.ZeRO == 3 {
		zk = 2
	}
	i := class*3 + zk
	if i >= len(p.dpClass) {
		_, reps := p.rankClasses()
		p.dpClass = resize(p.spare.dpClass, max(len(reps), class+1)*3)
		p.spare.dpClass = p.dpClass
	}
	if c := p.dpClass[i]; c.ok && c.dense == dense && c.expert == expert {
		return c
	}
	c := p.dpSync(dense, expert)
	p.dpClass[i] = c
	return c
}

// tailRank is a rank tailRanks keeps, with what its tail reads that the ZeRO stage, the offload
// and the DP overlap leave as they are: its group (rankClasses), its op times per micro-batch
// (rankOps) and one micro-batch's activation bytes (rankActBytes). Search reads them once per
// pipeline, not once per setting.
type tailRank struct {
	rk, class         int
	f, b, w, actMicro float64
}

// tailClass is what a rank's tail depends on besides its finish and the knobs.
type tailClass struct {
	info                  int // the first rank with the same rankInfo (sameInfo)
	f, b, w, window, busy float64
}

// tailRanks are the ranks whose tails can end the step: of the ranks whose tails are the same
// function of the ZeRO stage, the offload and the DP overlap (the same parameters and layers,
// op times, last backward and busy time: all but the pipeline's ends, when the layers split
// evenly), the one that finishes last. What follows a rank's last op depends on nothing else,
// and floating-point addition is monotone, so the step's end over these is the end over all.
func (p *plan) tailRanks(st []vstage, res schedule.Result) []tailRank {
	classes := p.tailBuf[:0]
	out := p.spare.tailOut[:0]
	finish := func(rk int) float64 {
		if rk < len(res.Finish) {
			return res.Finish[rk]
		}
		return res.Makespan
	}
	for rk, info := range p.sameInfo() {
		f, b, w := p.rankOps(st, rk)
		c := tailClass{info, f, b, w, st[rk].b + st[rk].w, res.Busy[rk]}
		switch i := slices.Index(classes, c); {
		case i < 0:
			classes, out = append(classes, c), append(out, rk)
		case finish(rk) > finish(out[i]):
			out[i] = rk
		}
	}
	p.tailBuf, p.spare.tailOut = classes, out
	infos := p.rankInfos()
	class, _ := p.rankClasses()
	// In the plan's buffer, rewritten by the next call.
	kept := resize(p.spare.kept, len(out))
	p.spare.kept = kept
	for i, rk := range out {
		f, b, w := p.rankOps(st, rk)
		all, _ := p.rankActBytes(infos[rk])
		kept[i] = tailRank{rk: rk, class: class[rk], f: f, b: b, w: w, actMicro: all}
	}
	return kept
}

// sameInfo is, for each rank, the first rank with the same rankInfo: tailRanks compares ranks
// by it rather than by their rankInfos, once per pipeline.
func (p *plan) sameInfo() []int {
	if p.infoOf == nil {
		infos := p.rankInfos()
		p.infoOf = resize(p.spare.infoOf, len(infos))
		p.spare.infoOf = p.infoOf
		for rk, ri := range infos {
			p.infoOf[rk] = slices.Index(infos, ri)
		}
	}
	return p.infoOf
}

// rankOps are a rank's per-micro-batch F, B and W times, summed over its chunks.
func (p *plan) rankOps(st []vstage, rk int) (f, b, w float64) {
	for c := 0; c < p.v; c++ {
		x := st[c*p.p+rk]
		f += x.f
		b += x.b
		w += x.w
	}
	return
}

// rankWorkLB is a lower bound on rank rk's busy time in the step, so on the makespan: each of
// its virtual stages' passes (p.mv of each: DualPipe's half a direction), less what DualPipe's
// and DualPipeV's forward–backward pairs can hide (each F and B at most its overlap,
// trainInput's min(ep/2, f, b), once).
func (p *plan) rankWorkLB(st []vstage, rk int) float64 {
	pair := p.l.Schedule == model.DualPipe || p.l.Schedule == model.DualPipeV
	work := 0.0
	for c := 0; c < p.v; c++ {
		x := st[c*p.p+rk]
		work += x.f + x.b + x.w
		if pair {
			work -= 2 * min(x.ep/2, x.f, x.b)
		}
	}
	return p.mv * max(work, 0)
}

// rankTailResult is what follows one rank's last op.
type rankTailResult struct {
	end        float64 // its pipeline finish and all it exposes after
	dpT        float64 // its DP sync (and ZeRO-3 gathers), seconds
	exposed    float64 // of which, and of the offload, not hidden
	offExposed float64 // what the offload adds
}

// rankTail is what follows rank rk's pipeline: its gradient sync over DP, an all-reduce of the
// fp32 gradients (ZeRO: a reduce-scatter, then an all-gather of the updated 16-bit weights),
// overlapping the last micro-batch's backward unless SerialDP, the hidden part costing
// overlapSlowdown of itself (the SMs NCCL takes); ZeRO-3's gathers before every forward and
// backward; and the offload's traffic (f, b, w: the rank's op times per micro-batch). memo
// keeps the last rank's sync: ranks with the same parameters (all but the ends, layers split
// evenly) sync the same.
func (p *plan) rankTail(rk int, st []vstage, res *schedule.Result, rs *rankState, f, b, w float64, memo *dpMemo) rankTailResult {
	if !memo.ok || rs.dense != memo.dense || rs.expert != memo.expert {
		*memo = p.dpSync(rs.dense, rs.expert)
	}
	dpT := memo.sync
	window := 0.0
	if !p.l.SerialDP {
		window = st[rk].b + st[rk].w
	}
	u := p.dp.overlapSlowdown()
	// Offload: the gradients go down after the sync, in the same window; the streamed weights or
	// activations hide behind the forwards and the backwards (DMA engines: no SMs taken).
	fwdT, bwdT, down := p.offloadTimes(*rs)
	m := p.mv
	stream := max(fwdT-m*f, 0) + max(bwdT-m*(b+w), 0) // not hidden
	exposed := max(dpT+down-window, 0) + u*min(dpT, window)
	// ZeRO-3's gathers (over the DP links) and the offload stream (over PCIe) run beside the
	// compute at once, on different links: the one the busy time hides least sets what sticks
	// out, not their sum.
	hidden := 0.0
	if gather := memo.gather; gather > 0 {
		busy := max(res.Busy[rk]-window, 0)
		hidden = max(gather-busy, 0) + u*min(gather, busy)
		dpT += gather
	}
	offExposed := max(stream-hidden, 0)
	exposed += hidden + offExposed
	finish := res.Makespan
	if rk < len(res.Finish) {
		finish = res.Finish[rk]
	}
	return rankTailResult{end: finish + exposed, dpT: dpT, exposed: exposed, offExposed: offExposed}
}

// rankState is what a rank's memory leaves for its time: its dense and expert parameters per
// GPU, and for offloading the parameters whose optimizer step it runs (its ZeRO-1 shard), the
// 16-bit weight bytes a pass streams in, and one micro-batch's activation bytes.
type rankState struct {
	dense, expert float64
	hostParams    float64
	weights       float64
	actMicro      float64
}

// paramMemo is a rank's parameters by part and their memory, kept for the next ranks with the
// same rankInfo and ends (the middle of a pipeline).
type paramMemo struct {
	info         int // sameInfo's first rank
	emb, out, ok bool
	parts        ParamParts
	ps           paramBytes
}

// rankMemory fills a rank's parameters and memory (sd's Layers, Embedding, Logits and InFlight
// set), the GPU's and, with offload, the host's; memo carries the parameters from one rank to the
// next.
func (p *plan) rankMemory(rk int, sd *StageDetail, memo *paramMemo) rankState {
	ri := p.rankInfos()[rk]
	sd.ParamsOnGPU, sd.LayerParams = ri.params, ri.layerParams
	if info := p.sameInfo()[rk]; !memo.ok || memo.info != info || memo.emb != sd.Embedding || memo.out != sd.Logits {
		*memo = paramMemo{info: info, emb: sd.Embedding, out: sd.Logits, ok: true,
			parts: p.paramParts(rk, ri.kinds[:len(p.k.Shapes)]), ps: p.paramMemory(ri)}
	}
	sd.Parts = memo.parts
	ps := memo.ps
	rs := ps.rankState
	act, actHost := p.actMemory(ri, sd.InFlight, &rs)
	sd.LayerActBytes = act
	act += p.logitsBytes(rk)
	sd.PeakActBytes = act
	sd.Memory = p.memory(rk, ps.w, ps.g, ps.o, act, 0)
	sd.Memory.Host, sd.Memory.HostCapacity = ps.host+actHost, p.hostCap
	sd.Memory.Fits = sd.Memory.Fits && sd.Memory.Host <= sd.Memory.HostCapacity
	return rs
}

// paramBytes is a rank's parameter state on one GPU under the plan's ZeRO stage and offload:
// weights, gradients and optimizer state on the GPU, bytes on the host.
type paramBytes struct {
	w, g, o, host float64
	rankState
}

// paramMemory is a rank's parameter state (it depends on the ZeRO stage and the offload only).
func (p *plan) paramMemory(ri rankInfo) paramBytes {
	out := paramBytes{rankState: rankState{dense: ri.dense, expert: ri.expert}}
	prec, zero, de := p.s.Workload.Precision, p.l.ZeRO, p.dc/p.ep
	off := p.l.Offload
	w, g, o := paramState(ri.dense, prec, zero, p.dc)
	we, ge, oe := paramState(ri.expert, prec, zero, de)
	w, g, o = w+we, g+ge, o+oe
	host := 0.0
	if off.Optimizer() {
		wd, gd, hd := offloadedState(ri.dense, prec, zero, p.dc)
		we, ge, he := offloadedState(ri.expert, prec, zero, de)
		w, g, o, host = wd+we, gd+ge, 0, hd+he
		out.hostParams = p.hostParams(ri)
	}
	out.weights = w
	if off.Weights() {
		// Two layers (or the embedding, or the logits, if larger) on the GPU at a time.
		perLayer := 0.0
		if ri.layers > 0 {
			perLayer = ri.layerParams / float64(ri.layers)
		}
		working := 2 * max(perLayer, ri.params-ri.layerParams) * w / max(ri.params, 1)
		host += w
		w = min(w, working)
	}
	out.w, out.g, out.o, out.host = w, g, o, host
	return out
}

// actMemory is the activations a rank keeps for the backward on the GPU and on the host, with
// inFlight micro-batches in flight (it depends on the recompute, sequence parallelism and the
// offload); it sets rs.actMicro.
func (p *plan) actMemory(ri rankInfo, inFlight int, rs *rankState) (gpu, host float64) {
	all, largest := p.rankActBytes(ri)
	rs.actMicro = all
	return p.actSplit(all, largest, inFlight)
}

// actSplit is actMemory's split of a rank's activations between the GPU and the host, from one
// micro-batch's bytes over its layers (all), its largest layer's and its micro-batches in flight.
func (p *plan) actSplit(all, largest float64, inFlight int) (gpu, host float64) {
	gpu = float64(inFlight) / float64(p.v) * all
	if p.l.Offload.Activations() {
		host = gpu
		gpu = min(gpu, 2*largest)
	}
	return gpu, host
}

// logitsBytes is the fp32 logits of one micro-batch the last rank holds.
func (p *plan) logitsBytes(rk int) float64 {
	if _, out := p.rankEnds(rk); !out {
		return 0
	}
	return float64(p.b) * float64(p.s.Workload.Seq) / float64(p.cpx.n) * float64(p.a.Vocab) / float64(p.t) * 4
}

// rankInfo is what one pipeline rank holds whatever the knobs: its layers and the parameters
// of one of its GPUs (before ZeRO), dense and expert.
type rankInfo struct {
	layers                             int
	kinds                              [arch.MaxKinds]int
	params, layerParams, dense, expert float64
}

// rankInfos computes every rank's rankInfo once per plan (Search tries many knob settings on
// one plan).
func (p *plan) rankInfos() []rankInfo {
	if p.ranks != nil {
		return p.ranks
	}
	p.ranks = resize(p.spare.ranks, p.p)
	p.spare.ranks = p.ranks
	for vs, n := range p.layers { // as rankLayers counts them
		ri := &p.ranks[vs%p.p]
		ri.layers += n
		for k, c := range p.kinds[vs] {
			ri.kinds[k] += c
		}
	}
	for rk := range p.ranks {
		ri := &p.ranks[rk]
		kinds := ri.kinds[:len(p.k.Shapes)]
		ri.params, ri.layerParams = p.stageParams(rk, kinds)
		// Expert parallelism: the expert matrices are sharded over ep and synced (and ZeRO-
		// sharded) over the d/ep replicas that hold the same experts; the rest over all d.
		ri.expert = p.stageExpertParams(kinds)
		ri.dense = ri.params - ri.expert
	}
	return p.ranks
}

// rankClasses groups the ranks whose parameter state is the same function of the knobs: the
// same rankInfo (all but the pipeline's ends when the layers split evenly), the last rank
// (which holds the logits) on its own. Search computes each group's parameter state once.
func (p *plan) rankClasses() (class, reps []int) {
	if p.class != nil {
		return p.class, p.reps
	}
	infos := p.rankInfos()
	p.class = resize(p.spare.class, len(infos))
	p.reps = p.spare.reps[:0]
	for rk, ri := range infos {
		logits := func(r int) bool { _, out := p.rankEnds(r); return out }
		i := slices.IndexFunc(p.reps, func(r int) bool { return infos[r] == ri && !logits(r) })
		if i < 0 || logits(rk) {
			i = len(p.reps)
			p.reps = append(p.reps, rk)
		}
		p.class[rk] = i
	}
	p.spare.class, p.spare.reps = p.class, p.reps
	return p.class, p.reps
}

// layerActBytes is one layer's activations for one micro-batch under the plan's recompute and
// sequence parallelism (and its all-gather kept or redone), per layer kind, remembered for the
// last setting asked.
func (p *plan) layerActBytes() []float64 {
	k := knobs{rc: p.l.Recompute, sp: p.l.SequenceParallel, keep: p.l.SPGather == model.SPGatherKeep}
	if !p.act.ok || p.act.k != k {
		p.act.k, p.act.ok = k, true
		if p.act.v == nil {
			p.act.v = p.spare.act
		}
		p.act.v = p.act.v[:0]
		for _, sh := range p.k.Shapes {
			seq := float64(p.s.Workload.Seq)
			p.act.v = append(p.act.v, layerActivationBytesCtx(sh, p.a, p.l, seq/float64(p.cpx.n), seq, float64(p.b), p.s.Workload.Precision))
		}
		p.spare.act = p.act.v
	}
	return p.act.v
}

// rankActBytes is one micro-batch's activations over a rank's layers, and its largest layer's.
func (p *plan) rankActBytes(ri rankInfo) (all, largest float64) {
	for k, b := range p.layerActBytes() {
		if n := ri.kinds[k]; n > 0 {
			all += float64(n) * b
			largest = max(largest, b)
		}
	}
	return
}

// stageExpertParams is the expert parameters one GPU of a stage with kinds[k] layers of each
// kind holds.
func (p *plan) stageExpertParams(kinds []int) float64 {
	return p.k.Sum(kinds, func(s arch.Shape) float64 { return s.ExpertParams }) / float64(p.t*p.ep)
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
func stack(head []seg, layers [][]Segment, counts []int, tail []seg) []Segment {
	out := segments(head...)
	at := segTotal(out)
	for k, count := range counts {
		if k >= len(layers) {
			break
		}
		layer := layers[k]
		lt := segTotal(layer)
		for i := 0; i < count; i++ {
			out = append(out, shift(layer, at)...)
			at += lt
		}
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

// actBytes is one micro-batch's activations at a layer boundary: what a TP all-reduce reduces
// and a pipeline send carries.
func (p *plan) actBytes() float64 {
	return float64(p.b) * float64(p.s.Workload.Seq) / float64(p.cpx.n) * float64(p.a.Hidden) * p.e
}

// simSchedule is the schedule simulated. One stage is plain gradient accumulation: forward and
// backward per micro-batch, so only one micro-batch's activations live at a time (GPipe's
// all-forwards-first buys nothing there).
func (p *plan) simSchedule() model.Schedule {
	if p.p == 1 && p.l.Schedule == model.GPipe {
		return model.OneFOneB
	}
	return p.l.Schedule
}

// trainInput is the pipeline simulation's input: every virtual stage's op times and sends.
func (p *plan) trainInput(st []vstage, record bool) schedule.Train {
	n := len(st)
	// One buffer per plan for the four slices, rewritten by the next call.
	if cap(p.inBuf) < 5*n {
		// With room for the sends after the input's four slices.
		p.inBuf = make([]float64, 4*n, 5*n)
	}
	buf := p.inBuf[:4*n]
	in := schedule.Train{
		Schedule: p.l.Schedule, Stages: p.p, Chunks: p.v, Micro: p.m,
		F: buf[:n:n], B: buf[n : 2*n : 2*n], W: buf[2*n : 3*n : 3*n],
		P2P: buf[3*n : 3*n+max(n-1, 0) : 3*n+max(n-1, 0)], Record: record,
	}
	in.Schedule = p.simSchedule()
	if !record {
		// The simulation's per-rank results in the plan's storage: train and Search read them
		// before the plan's next run, and the report copies what it shows.
		if p.spare.sim == nil {
			p.spare.sim = new(schedule.Scratch)
		}
		in.Scratch = p.spare.sim
	}
	if p.sends == nil {
		// The sends depend on the split alone: computed once per plan.
		p.sends = p.inBuf[4*n : 4*n+max(n-1, 0)]
		actBytes := p.actBytes()
		// A send depends on its boundary only through whether it leaves the node.
		var within, across float64
		var haveWithin, haveAcross bool
		for vs := range p.sends {
			switch {
			case p.crossNode[vs] && !haveAcross:
				across, haveAcross = p.p2p(vs, actBytes), true
			case !p.crossNode[vs] && !haveWithin:
				within, haveWithin = p.p2p(vs, actBytes), true
			}
			p.sends[vs] = within
			if p.crossNode[vs] {
				p.sends[vs] = across
			}
		}
	}
	copy(in.P2P, p.sends)
	for vs := range st {
		in.F[vs], in.B[vs], in.W[vs] = st[vs].f, st[vs].b, st[vs].w
	}
	if in.Schedule == model.DualPipe || in.Schedule == model.DualPipeV {
		// A forward–backward pair of two micro-batches hides one's expert all-to-alls under
		// the other's compute (DeepSeek-V3 §3.2.1): half of a stage's all-to-all time is its
		// forward's (dispatch and combine), half its backward's.
		if cap(p.ovBuf) < n {
			p.ovBuf = make([]float64, n)
		}
		in.Overlap = p.ovBuf[:n]
		for vs := range st {
			in.Overlap[vs] = min(st[vs].ep/2, in.F[vs], in.B[vs])
		}
	}
	return in
}

// train evaluates one optimizer step.
func (p *plan) train(mode evalMode) (Report, error) {
	record := mode == modeTimeline
	st, layer := p.trainStages(true, record)
	in := p.trainInput(st, record)
	actBytes := p.actBytes()
	res, err := p.runTrain(in, mode)
	if err != nil {
		return Report{}, fmt.Errorf("costmodel: simulate %s: %w", p.l.Schedule, err)
	}
	// In estimate mode the makespan is that closed form already (runTrain). The sends' share is
	// closed form against closed form, for every schedule (the 2025 ones' too, estimate2025).
	var withP2P, noSends float64
	if mode != modeEstimate {
		withP2P, noSends = schedule.EstimateTrainSends(in)
	} else {
		noP2P := in
		noP2P.P2P = nil
		withP2P, noSends = res.Makespan, schedule.EstimateTrain(noP2P)
	}
	ppExposed := max(withP2P-noSends, 0)

	r := Report{Layout: p.layoutSummary()}
	m := p.mv // each virtual stage's passes

	stages := make([]StageDetail, p.p)
	tail := p.trainTail(st, res, stages)
	stepEnd, optimizer, crit := tail.stepEnd, tail.optimizer, tail.crit
	r.Detail.DPBytes, r.Detail.DPS, r.Detail.DPExposed = tail.dpBytes, tail.dpS, tail.dpExposed
	step := stepEnd + optimizer

	// Breakdown on the critical (busiest) rank: its work, the pipeline's idle time on it, then
	// what the gradient sync and the optimizer add to the step.
	var comp, recomp, tpc, epc, cpc float64
	for c := 0; c < p.v; c++ {
		x := st[c*p.p+crit]
		comp += x.compute
		recomp += x.recompute
		tpc += x.tp
		epc += x.ep
		cpc += x.cp
	}
	busy := res.Busy[crit]
	// DualPipe's pairs hide some of the all-to-alls under compute: the rank's ops cost that less
	// than their sum (schedule.Train.Overlap); the breakdown counts only what stays exposed.
	var work float64
	for c := 0; c < p.v; c++ {
		x := st[c*p.p+crit]
		work += m * (x.f + x.b + x.w)
	}
	hidden := 0.0
	if p.l.Schedule == model.DualPipe || p.l.Schedule == model.DualPipeV {
		hidden = max(work-busy, 0)
	}
	bd := Breakdown{
		Compute: comp * m, Recompute: recomp * m, TPComm: tpc * m, EPComm: max(epc*m-hidden, 0), CPComm: cpc * m,
		PPComm:    min(ppExposed, max(res.Makespan-busy, 0)),
		Offload:   tail.offload,
		DPComm:    max(stepEnd-res.Makespan-tail.offload, 0),
		Optimizer: optimizer,
	}
	bd.Bubble = max(res.Makespan-busy-bd.PPComm, 0)
	r.Breakdown = bd
	r.StepTime = step
	r.BubbleFraction = ratio(bd.Bubble, step)
	r.CommFraction = ratio(bd.TPComm+bd.EPComm+bd.CPComm+bd.PPComm+bd.DPComm, step)

	// FLOPs: model FLOPs are 3× the forward of the whole batch; hardware adds recompute.
	var modelPerGPU, hwPerGPU float64
	for _, x := range st {
		modelPerGPU += x.modelFLOPs * m
		hwPerGPU += (x.modelFLOPs + x.recompFLOPs) * m
	}
	// Each GPU holds one rank's share; sum over ranks counts one TP rank of each stage.
	gpus := float64(p.c.GPUs)
	totalModel := modelPerGPU * float64(p.t) * float64(p.dc)
	totalHW := hwPerGPU * float64(p.t) * float64(p.dc)
	r.Detail.ModelFLOPs, r.Detail.HWFLOPs = totalModel, totalHW
	r.ModelTFLOPS = ratio(totalModel, step*gpus) / 1e12
	r.HWTFLOPS = ratio(totalHW, step*gpus) / 1e12
	r.MFU = ratio(r.ModelTFLOPS*1e12, p.c.GPU.Peak(p.s.Workload.Precision))
	r.TokensPerS = ratio(float64(p.s.Workload.GlobalBatch)*float64(p.s.Workload.Seq), step)

	// The fullest GPU's memory, which fits only if every rank does: with offload a rank with
	// less on its GPU can need more host memory than its share.
	r.Memory = stages[tail.full].Memory
	for _, sd := range stages {
		r.Memory.Fits = r.Memory.Fits && sd.Memory.Fits
	}

	// Detail for the renderers.
	p.fillStageGPUs(stages)
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
	// The main layer kind's (trainStages kept its pieces).
	mp := p.mainParts()
	r.Detail.Layer.Forward, r.Detail.Layer.Backward = mp.detail()
	r.Detail.Layer.CommShare = commShare(r.Detail.Layer.Forward, r.Detail.Layer.Backward)
	if mp.cp.Ranks > 1 {
		cpd := mp.cp
		r.Detail.Layer.CP = &cpd
	}

	// The first of tpUses("layer activations", actBytes, 1, 0), without the list.
	if p.t > 1 {
		op := collective.AllReduce
		if p.l.SequenceParallel {
			op = collective.ReduceScatter
		}
		r.Detail.TPCollective = p.tpUse("layer activations", op, actBytes, 1)
	}
	r.Warnings = append(p.commonWarnings(&r), p.trainWarnings(r)...)
	if record {
		r.Timeline = p.timeline(res, st, layer)
		maxParams := 0.0
		for rk := range stages {
			maxParams = max(maxParams, stages[rk].ParamsOnGPU)
		}
		r.Collectives = p.trainCollectives(stages[crit].Layers, p.rankInfos()[crit].kinds[:len(p.k.Shapes)], maxParams)
	}
	return r, nil
}

// mainParts is where trainStages keeps the main layer kind's pieces: the pooled plan's, rewritten
// by each call with segs.
func (p *plan) mainParts() *layerParts {
	if p.spare.main == nil {
		p.spare.main = new(layerParts)
	}
	return p.spare.main
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
	case model.DualPipe, model.DualPipeV:
		// (PP/2 − 1)(F&B + B − 3W), PP the stages (DualPipe p, DualPipeV 2p), B the whole
		// backward, F&B a pair [ZB, DP] (schedule.TestDualPipeBubbleTable).
		var f, b, w, a float64
		for vs := range st {
			f, b, w, a = max(f, st[vs].f), max(b, st[vs].b), max(w, st[vs].w), max(a, st[vs].ep/2)
		}
		full := b + w
		fb := max(f+full-2*a, 2*a)
		half := float64(p.p)/2 - 1
		if p.l.Schedule == model.DualPipeV {
			half = float64(p.p) - 1
		}
		idle := max(half*(fb+full-3*w), 0)
		return ratio(idle, p.mv*float64(p.v)*(f+b+w)+idle)
	case model.ZBV:
		// Zero within each rank's span at equal F, B, W [ZB]; the first micro-batch's way to the
		// last rank, (p−1)·F, before it (schedule.TestZBVPaper).
		var f, b, w float64
		for vs := range st {
			f, b, w = max(f, st[vs].f), max(b, st[vs].b), max(w, st[vs].w)
		}
		idle := pm1 * f
		return ratio(idle, 2*m*(f+b+w)+idle)
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
		what := "micro-batches"
		if p.m == 1 {
			what = "micro-batch"
		}
		w = append(w, fmt.Sprintf("only %d %s for %d stages: the pipeline never fills (raise the batch or lower the micro-batch)", p.m, what, p.p))
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
		segs[vs][0], segs[vs][1], segs[vs][2] = layer.ops(st[vs], p.kinds[vs])
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
	// Busy in the plan's buffer (rewritten by the next call, as the stages are); the in-flight
	// counts depend on the schedule alone, computed once per plan and schedule.
	if cap(p.busyBuf) < p.p {
		p.busyBuf = make([]float64, p.p)
	}
	if p.inFlight == nil || p.inFlightOf != in.Schedule {
		p.inFlight, p.inFlightOf = resize(p.spare.inFly, p.p), in.Schedule
		p.spare.inFly = p.inFlight
		for r := range p.inFlight {
			p.inFlight[r] = p.estimateInFlight(r, in.Schedule)
		}
	}
	res := schedule.Result{
		Makespan:     schedule.EstimateTrain(in),
		Busy:         p.busyBuf[:p.p],
		PeakInFlight: p.inFlight,
	}
	clear(res.Busy)
	for vs := range in.F {
		res.Busy[vs%p.p] += p.mv * (in.F[vs] + in.B[vs] + in.W[vs])
	}
	return res, nil
}

// estimateInFlight is the most micro-batches whose activations rank r holds at once under the
// schedule, the schedules' known counts (the closed form's; the simulation counts them).
func (p *plan) estimateInFlight(r int, sched model.Schedule) int {
	switch sched {
	case model.GPipe:
		return p.m
	case model.Interleaved:
		// Megatron runs every forward first when m = p.
		if p.m == p.p {
			return p.m * p.v
		}
		return min((p.p-r-1)*2+(p.v-1)*p.p+1, p.m*p.v)
	case model.ZBV: // 1F1B's p micro-batches: 2p chunks (schedule.TestZBVPaper)
		return min(2*p.p, 2*p.m)
	case model.DualPipe: // PP + 1 stages' worth [ZB, DP] (schedule.TestDualPipeBubbleTable)
		return p.p + 1
	case model.DualPipeV:
		return 2*p.p + 1
	default:
		return min(p.p-r, p.m)
	}
}

// splitsW says whether schedule s runs the weight gradients apart from the backward (W ops):
// ZB-H1, ZB-V, DualPipe and DualPipeV.
func splitsW(s model.Schedule) bool {
	switch s {
	case model.ZBH1, model.ZBV, model.DualPipe, model.DualPipeV:
		return true
	}
	return false
}
