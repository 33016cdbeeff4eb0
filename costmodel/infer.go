package costmodel

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// Inference: every DP replica serves requests/d requests in m groups of b (the micro-batches).
// A group's prefill runs its whole prompt through the pipeline; then each decode step runs one
// token per request through every stage and needs the previous step's token from the last
// stage. With one group a pipeline never fills (each stage idles while the others work), which
// is why PP alone does not lower latency; with several groups in flight it raises throughput.
// A decode step reads the stage's weights (÷ t) and its KV cache: it is memory-bound until the
// batch is large.

// inferStage is one pipeline rank's per-group costs, seconds.
type inferStage struct {
	prefill, decode     float64
	prefillTP, decodeTP float64
	prefillEP, decodeEP float64 // expert-parallel all-to-alls
	layers              int
	head, tail          []seg // embedding on the first rank, logits on the last
}

// inferLayer is one layer's prefill and decode-step segments on one GPU.
type inferLayer struct{ prefill, decode []Segment }

func (p *plan) inferStages() ([]inferStage, inferLayer) {
	a, l := p.a, p.l
	w := p.s.Workload
	b := float64(p.b)
	prompt, gen := float64(w.PromptTokens), float64(w.GenTokens)
	// Prefill: b·prompt tokens attending to the prompt.
	pre := p.passTimes(layerPass(a, l, b*prompt, prompt, b, p.e, l.UnfusedAttention))
	// Decode: b tokens, each attending to the average context over the generation; serving
	// stacks decode with fused attention kernels.
	dec := p.passTimes(layerPass(a, l, b, prompt+gen/2, b, p.e, false))
	layer := inferLayer{prefill: forwardSegments(pre, tpLabel(p.l)), decode: forwardSegments(dec, tpLabel(p.l))}
	preT, decT := segTotal(layer.prefill), segTotal(layer.decode)
	// Only the last position's logits are needed, in prefill and in every decode step.
	lgT := p.hw.time(logits(a, l, b, p.e))
	embT := p.hw.time(kernel{bytes: b * prompt * float64(a.Hidden) * p.e * 2})

	out := make([]inferStage, p.p)
	for r := range out {
		st := &out[r]
		st.layers = p.layers[r]
		if r == 0 {
			st.head = []seg{{SegMemory, "embedding", embT}}
		}
		if r == p.p-1 {
			st.tail = []seg{{SegCompute, "logits", lgT}}
		}
		k := float64(st.layers)
		st.prefill = segsDur(st.head) + k*preT + segsDur(st.tail)
		st.decode = k*decT + segsDur(st.tail)
		st.prefillTP, st.decodeTP = 2*k*pre.ar, 2*k*dec.ar
		st.prefillEP, st.decodeEP = 2*k*pre.a2a, 2*k*dec.a2a
	}
	return out, layer
}

func (p *plan) infer(record bool) (Report, error) {
	w := p.s.Workload
	st, layer := p.inferStages()
	b := float64(p.b)
	prompt, gen := float64(w.PromptTokens), float64(w.GenTokens)
	h := float64(p.a.Hidden)
	in := schedule.Infer{
		Stages: p.p, Groups: p.m, Gen: w.GenTokens,
		Prefill: make([]float64, p.p), Decode: make([]float64, p.p),
		P2P: make([]float64, max(p.p-1, 0)), P2PTok: make([]float64, max(p.p-1, 0)),
		Record: record,
	}
	for r := range st {
		in.Prefill[r], in.Decode[r] = st[r].prefill, st[r].decode
		if r < p.p-1 {
			in.P2P[r] = p.p2p(r, b*prompt*h*p.e)
			in.P2PTok[r] = p.p2p(r, b*h*p.e)
		}
	}
	res, err := schedule.SimulateInfer(in)
	if err != nil {
		return Report{}, fmt.Errorf("costmodel: simulate inference: %w", err)
	}

	r := Report{Layout: p.layoutSummary()}
	step := res.Makespan
	r.StepTime = step

	inf := &Inference{}
	var ttft, tpot float64
	for g := range res.FirstToken {
		ttft += res.FirstToken[g]
		if w.GenTokens > 1 && g < len(res.Done) {
			tpot += (res.Done[g] - res.FirstToken[g]) / float64(w.GenTokens-1)
		}
		inf.PrefillS = max(inf.PrefillS, res.FirstToken[g])
	}
	groups := float64(max(len(res.FirstToken), 1))
	inf.TTFT = ttft / groups
	inf.TPOT = tpot / groups
	inf.DecodeStepS = sum(in.Decode)
	inf.TokensPerS = ratio(float64(w.Requests)*gen, step)
	r.Inference = inf
	r.TokensPerS = inf.TokensPerS

	// Breakdown on the busiest rank.
	crit := 0
	for rk := range res.Busy {
		if res.Busy[rk] > res.Busy[crit] {
			crit = rk
		}
	}
	m := float64(p.m)
	decodes := gen - 1
	tpc := m * (st[crit].prefillTP + decodes*st[crit].decodeTP)
	epc := m * (st[crit].prefillEP + decodes*st[crit].decodeEP)
	busy := res.Busy[crit]
	// Exposed p2p: with fewer groups than stages every token crosses every boundary on the
	// critical path; with the pipeline full, transfers hide behind other groups' work.
	var pp float64
	if p.p > 1 && p.m < p.p {
		pp = sum(in.P2P) + decodes*sum(in.P2PTok)
	}
	pp = min(pp, max(step-busy, 0))
	r.Breakdown = Breakdown{Compute: busy - tpc - epc, TPComm: tpc, EPComm: epc, PPComm: pp, Bubble: max(step-busy-pp, 0)}
	r.BubbleFraction = ratio(r.Breakdown.Bubble, step)
	r.CommFraction = ratio(tpc+epc+pp, step)

	// FLOPs: prefill of every prompt plus every decode step, logits of one position each.
	reqs := float64(w.Requests)
	modelFLOPs := forwardFLOPs(p.a, reqs*prompt, prompt, reqs) + decodes*forwardFLOPs(p.a, reqs, prompt+gen/2, reqs)
	r.Detail.ModelFLOPs, r.Detail.HWFLOPs = modelFLOPs, modelFLOPs
	gpus := float64(p.c.GPUs)
	r.ModelTFLOPS = ratio(modelFLOPs, step*gpus) / 1e12
	r.HWTFLOPS = r.ModelTFLOPS
	r.MFU = ratio(r.ModelTFLOPS*1e12, p.c.GPU.Peak(w.Precision))

	// Memory: weights, KV cache of every request this replica holds, a working set.
	stages := make([]StageDetail, p.p)
	gpus0 := p.stageGPUs()
	perReplica := reqs / float64(p.d)
	full := 0
	for rk := range stages {
		sd := &stages[rk]
		sd.Layers = p.layers[rk]
		sd.Embedding, sd.Logits = rk == 0, rk == p.p-1
		sd.GPUs = gpus0[rk]
		sd.F = st[rk].prefill
		sd.B = st[rk].decode
		sd.Busy = res.Busy[rk]
		if rk < len(res.PeakInFlight) {
			sd.InFlight = res.PeakInFlight[rk]
		}
		params, layerParams := p.stageParams(rk, sd.Layers)
		sd.ParamsOnGPU, sd.LayerParams = params, layerParams
		kv := kvCacheBytes(p.a, p.l, float64(sd.Layers), perReplica, prompt+gen, p.e)
		work := p.inferWorkingSet(sd.Logits)
		sd.PeakActBytes = work
		sd.Memory = p.memory(rk, params*p.e, 0, 0, work, kv)
		if sd.Memory.Total > stages[full].Memory.Total {
			full = rk
		}
	}
	r.Memory = stages[full].Memory
	r.Detail.Stages = stages
	if p.p > 1 && p.m < p.p {
		// Decoding, a group's next token needs its previous one to leave the last stage: with m
		// groups in flight each stage works m of every p stage-times, idle (p−m)/p of the time.
		r.Detail.BubbleClosedForm = float64(p.p-p.m) / float64(p.p)
	}
	decBytes := b * h * p.e
	r.Detail.TPAllReduceBytes = decBytes
	r.Detail.TPAllReduceS = p.tpAllReduce(decBytes)
	r.Detail.TPLink = p.tpLink().ID
	r.Detail.TPLinkAlpha, r.Detail.TPLinkBW = p.tp.ringParams()
	r.Detail.P2PBytes = b * h * p.e
	if len(in.P2PTok) > 0 {
		r.Detail.P2PS = maxFloat(in.P2PTok)
	}
	r.Detail.Layer = LayerDetail{Forward: layer.decode}
	r.Detail.Layer.CommShare = commShare(r.Detail.Layer.Forward, nil)

	if u := p.tpUses("decode activations", decBytes, 1, 0); len(u) > 0 {
		r.Detail.TPCollective = u[0]
	}
	r.Warnings = append(p.commonWarnings(), p.inferWarnings(r)...)
	if record {
		r.Timeline = p.inferTimeline(res, st, layer)
		r.Collectives = p.inferCollectives(st[crit].layers)
	}
	return r, nil
}

// inferWorkingSet is the transient memory of one group's prefill: the hidden states and MLP
// intermediates of the prompt, and on the last stage one position's fp32 logits.
func (p *plan) inferWorkingSet(logits bool) float64 {
	w := p.s.Workload
	b := float64(p.b)
	h := float64(p.a.Hidden)
	f := float64(p.a.FFN) * p.a.MLPMatrices() / float64(p.t)
	ws := b * float64(w.PromptTokens) * (4*h + 2*f) * p.e
	if logits {
		ws += b * float64(p.a.Vocab) / float64(p.t) * 4
	}
	return ws
}

func (p *plan) inferWarnings(r Report) []string {
	var w []string
	if !r.Memory.Fits {
		w = append(w, fmt.Sprintf("stage %d needs %s (KV cache %s) but the GPU has %s: over by %s", r.Memory.Stage,
			gib(r.Memory.Total), gib(r.Memory.KVCache), gib(r.Memory.Capacity), gib(r.Memory.Total-r.Memory.Capacity)))
	}
	if p.p > 1 && p.m < p.p {
		w = append(w, fmt.Sprintf("%d request group(s) for %d stages: the pipeline cannot fill, so PP adds latency without adding throughput", p.m, p.p))
	}
	return w
}

func (p *plan) inferTimeline(res schedule.Result, st []inferStage, layer inferLayer) *Timeline {
	tl := &Timeline{
		Stages: p.p, Chunks: 1, MicroBatches: p.m, Mode: model.Infer, Makespan: res.Makespan,
		StageGPUs: p.stageGPUs(), Ops: res.Ops, Segments: make([][]Segment, len(res.Ops)),
	}
	pre := make([][]Segment, len(st))
	dec := make([][]Segment, len(st))
	for r := range st {
		pre[r] = stack(st[r].head, layer.prefill, st[r].layers, st[r].tail)
		dec[r] = stack(nil, layer.decode, st[r].layers, st[r].tail)
	}
	for i, op := range res.Ops {
		if op.Stage < 0 || op.Stage >= len(st) {
			continue
		}
		if op.Token == 0 {
			tl.Segments[i] = pre[op.Stage]
		} else {
			tl.Segments[i] = dec[op.Stage]
		}
	}
	return tl
}
