package costmodel

import (
	"fmt"
	"math"
	"strconv"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// Inference is served as an engine serves it (costmodel/serve): continuous batching of decode
// tokens and prefill chunks within a token budget, a paged KV cache in what is left of the
// GPU's memory, PP batches in flight, DP replicas behind a balancer. The time of each engine
// step comes from the same roofline kernels and collectives as training, on the step's own
// batch: every step reads the stage's weights once (÷ t), each decode sequence reads its KV
// cache, and the tokens' FLOPs run at the GPU's sustained matmul rate.

// The fixed costs of an engine step that the roofline does not see (calibrated together on
// published decode speeds at light load, docs/costmodel.md § Serving):
//
//   - engineStepOverhead, once a step: sampling and the host's scheduling and input preparation
//     between CUDA-graph launches;
//   - layerKernels × kernelFloor, once a layer: a decode layer runs about a dozen kernels (two
//     norms, the QKV projection, rotary embedding, the KV-cache write, attention, the output
//     projection, the residual adds, the gate-up projection, the activation, the down
//     projection), and a kernel too small to fill the GPU pays a few microseconds of launch gap,
//     ramp and tail even inside a CUDA graph.
//
// Fitted on three light-load TPOTs: IOG's 1×H100 PCIe and 1×RTX 4090 serving Llama-3-8B (10.64 and
// 19.51 ms) and NIM's 2×H100 serving Llama-3.3-70B in fp8 (18.58 ms), to within 5%; the other
// serving checks of validate are hold-outs.
//
// The floor is a number of cycles, not of microseconds (kernelFloorCycles): the GPU's front end
// dispatching the graph's next kernel, the blocks' prologue (parameters, index arithmetic), the
// split-K reduction and epilogue, and the wait for the last block before the next kernel may
// start are all work of the SMs and the front end at the GPU's clock (model.GPU.BoostClockMHz),
// while the weight streaming beside it runs at the memory's. 4 µs is 7920 cycles at H100 SXM's
// 1980 MHz; an A100 (1410 MHz) pays 5.6 µs a kernel, an RTX 4090 (2520 MHz) 3.1 µs. Not fitted:
// the fit above is on H100s and a 4090, and the A100 runs are hold-outs. On them the floor in
// microseconds had put vLLM's batch-1 step of Qwen3-1.7B on an A100 80GB (TT340: 336 kernels
// against 3.4 GB of weights, so most of its step is the floor) at 3.6–3.8 ms against 4.6–5.0
// measured (−21% to −24%); in cycles 4.2–4.3 ms (−8% to −14%). That the whole floor scales with
// the clock is the model's assumption (U): a published microbenchmark of a CUDA graph's
// per-kernel time on A100 against H100 was not found; an A100's SM clock measured under load
// is bimodal at 1275 and 1410 MHz (openfabric-systems/simllm PR #109), which would lengthen it
// further. A GPU whose clock is not known pays kernelFloor.
//
// The cycles are NVIDIA's; a GPU family may set its own (model.GPU.KernelFloorCycles, the
// preset's kernel_floor_cycles). AMD's CDNA 3 (MI300X, MI325X) pays 21,500, 10.2 µs at its
// 2100 MHz: fitted on one figure, dstack's TGI decode of one sequence of Llama 3.1 405B on 8 ×
// MI300X (43.5 ms, with TGI's RCCL all-reduces); held out, SGLang 0.5.9's DeepSeek-R1 on 8 ×
// MI325X, whose step is mostly kernel floors, went from −62%/−56% to −28%/−24% (TPOT at 4 and
// 8 clients; costmodel/published/mi300xruns.go says why the cost is the kernels' and not the
// memory's).
const (
	// fp4OverFP8 is what Blackwell's FP4 matmuls (NVFP4: FP4 weights and activations, an FP8
	// scale every 16 elements) run at over its FP8 ones. The datasheet's dense peaks say 2 (B200: 9
	// PFLOPS FP4 against 4.5 FP8, GK-B200); 2 put TensorRT-LLM 1.0's five B200 Llama 3.3 70B cells
	// 21–37% high (the scales and the activations' quantization are not free). Fitted on those
	// five cells served as trtllm-bench ran them (its own max batch and max tokens, 3000 or 1500
	// requests, TensorRT-LLM's no-evict admission: published.trtBenchLimits): 1.45 puts them at +4.5% to
	// +19.9%; only the compute-bound two (128/128, 2048/128) move with it, and they want 1.35 on
	// B200 while the RTX PRO 6000's 128/128 cells, same engine and checkpoint, want more (−12% at
	// PP 1). It was 1.5 on the cells served with 2048 sequences, 8192 tokens and 1000 requests.
	fp4OverFP8 = 1.45

	engineStepOverhead = 0.3e-3
	layerKernels       = 12
	kernelFloor        = 4e-6
	// kernelFloorCycles is kernelFloor in cycles of the clock it was fitted at (H100 SXM's
	// 1980 MHz boost), kernelFloorOn's unit.
	kernelFloorCycles = kernelFloor * 1980e6

	// trtPPHostPerSeq and trtPPHostPerActive are the host's work in one micro-batch step of
	// TensorRT-LLM's PyTorch executor under pipeline parallelism. Its PP loop
	// (PyExecutor._executor_loop_pp, 1.0) runs the whole executor on every rank, one thread:
	// fetch and schedule, KV block bookkeeping, input preparation, then the forward, and
	// _forward_step_inter_pp waits for that forward (sampler_event.synchronize()) before the
	// rank receives the sampled tokens of an earlier micro-batch from the previous rank
	// (recv_object, pickled through MPI), passes them on, and updates each request and its
	// response in Python. So a stage's step is its GPU time plus that host work, which does not
	// shrink with the stage's layers: at PP 8 a stage's GPU time is an eighth of the model's and
	// the host work is as long as at PP 2 or longer. (At PP 1 the overlap scheduler prepares
	// step i+1 while step i runs; vLLM's PP overlaps its scheduler the same way, so neither pays
	// it.) The host work has two parts (TRT-SRC):
	//
	//   - trtPPHostPerSeq, per sequence of the micro-batch: its inputs prepared, its KV blocks
	//     updated, its sampled token received, passed on and added to it;
	//   - trtPPHostPerActive, per active request, whether in this micro-batch or not: every step
	//     the scheduler is handed all of active_requests and _handle_responses walks all of them
	//     (a create_response call and a dozen bound attributes each, stream_interval 1). The
	//     executor fetches requests into active_requests up to max_num_active_requests, which
	//     PyTorchModelEngine.get_max_num_sequences sets to the max batch size times the PP size,
	//     whether or not the KV cache has room for them (the capacity scheduler leaves those
	//     waiting there). So at PP 8 every micro-batch step walks 8 micro-batches' worth of
	//     requests, twice PP 4's: with 3000 requests of 1000 + 1000 tokens, 3000 of them (the
	//     cache holds about 2050) against PP 4's 1536, behind micro-batches of 257 and 242.
	//
	// Fitted together on TensorRT-LLM 1.0's RTX PRO 6000 PP 4 and PP 8 cells of Llama 3.3 70B
	// (U: no profile of the loop is published; 2 µs a request is a Python loop over bound
	// objects): 13 and 2 µs put them at −11.0% to +10.3% (22 µs a sequence alone, before, had
	// PP 8 at +13.5% to +24.8%: the walk over the active requests is why PP 8 came out fast.
	// PP 8's micro-batches are as large as PP 4's, so a cost a sequence alone slows both alike:
	// 27 µs brings PP 8 at 1000/1000 to +18.8% but PP 2 at 128/128, a hold-out, to −20.7%).
	// PP 2, the later overview's PP 2 cells and Llama 3.1 405B's PP 8 cells are hold-outs.
	// Not modelled: the last rank does not wait for its own forward (it samples asynchronously
	// and waits for the micro-batch before), so its host work could hide behind its GPU time,
	// while every other rank's NCCL send of the hidden states and the residual, on the
	// forward's stream, holds its synchronize until the next rank receives; here every stage
	// pays its host work and the sends only delay the micro-batch. At PP 8 and 1000/1000 the
	// model's slowest stage is the last, 1.7 ms (its bf16 output projection) over a middle
	// one, where the loop as written would be held by a middle rank and its two sends of
	// 257 × 32 KiB, 2 × 0.16 ms at RTXPRO's 53 GB/s peer-to-peer: the fit absorbs the
	// difference (U).
	trtPPHostPerSeq    = 13e-6
	trtPPHostPerActive = 2e-6
)

// ServingDefaults are the engine's step overhead and GPU g's kernel floor (its clock's,
// kernelFloorOn), seconds: what g pays without a serving calibration (model.GPU.StepOverhead,
// KernelFloor).
func ServingDefaults(g model.GPU) (stepOverhead, kernelFloorS float64) {
	return engineStepOverhead, kernelFloorOn(g)
}

// The ends of a quantized checkpoint: a quantized checkpoint (--weights fp8, fp4, int4…) leaves the embedding and
// the output projection in the compute format. TensorRT Model Optimizer exports its FP8, NVFP4
// and INT4-AWQ checkpoints (the ones TensorRT-LLM's perf overview runs) with exclude_modules
// ["lm_head"] (MODELOPT), and vLLM's fp8 and AWQ methods quantize linear layers, not the
// vocabulary embedding and projection. So the last stage reads Llama 3 70B's 128k × 8192 output
// projection in bf16, 2.1 GB, and runs its matmul at the bf16 rate, a third of Blackwell's FP4
// one: with 10 layers a stage (PP 8) a third more weight bytes than the other stages, and the
// pipeline runs at its slowest stage. (Before: the projection at the --weights width and rate.)

// ServeConfidence is how far an open-loop serving run's latencies can be trusted: the steady
// window they are measured over (warm-up and drain left out), whether the queue is steady, 95%
// intervals from batch means, and a warning when the run is too short or not steady.
type ServeConfidence = serve.Confidence

// ServeStage is one stage of a rate schedule as it ran (serve.StageStats).
type ServeStage = serve.StageStats

// maxServeTrace is the most engine steps the timeline keeps (replica 0, every stage).
const maxServeTrace = 4096

// servingCost times engine steps on the plan's hardware; it implements serve.StepCost.
type servingCost struct {
	p        *plan
	layers   []int   // per stage
	kinds    [][]int // per stage, its layers of each kind
	gemm     hw      // the matmuls' path (fp8 weights on FP8 cores run at the FP8 rate)
	head     hw      // the output projection's: the compute format's rate, the matmuls' streaming
	wb, kvb  float64 // bytes of a stored weight and of a cached key or value element
	wbExpert float64 // bytes of a stored routed expert weight
	// Caches: the last batch's layer of each kind (every stage of a step asks for the same
	// batch), and one TP all-reduce by the step's tokens (a step has at most max-batch-tokens of
	// them).
	last      serve.Batch
	lastLayer []serve.StageTime
	haveLast  bool
	arByToken []float64
	// xferByToken[s][tok] is the send from stage s to s+1 of tok tokens' activations.
	xferByToken [][]float64
	// eng is the engine the scenario names; eager[s] is its host's time to issue stage s's
	// layers in a step outside CUDA graphs (eagerHost).
	eng   model.EngineProfile
	eager []float64
	// stepOverhead and kernelFloor are engineStepOverhead and kernelFloor, or the box's own
	// where a calibration put them on the GPU (model.ServingCalibration).
	stepOverhead, kernelFloor float64
	// maxActive is the most requests the engine holds active: max sequences × PP size
	// (activeRequests).
	maxActive int
	// gemmShift is what a GEMM kernel's fixed time on this box differs from the built-in GEMM
	// curve's (the GPU's GEMMLatency, fitted to a profiler trace's GEMM kernels, less
	// gemmLatency): each GEMM kernel of a layer (gemmKernels) pays the floor plus it, never
	// less than nothing. 0 without such a calibration: the floor alone, as fitted.
	gemmShift float64
	// spec is the drafter of a speculative engine (spec.go); nil without speculation.
	spec *specCost
	// cpMerges caches the CP merge of decode outputs (cpMerge); nil without CP.
	cpMerges map[cpMergeKey]float64
}

func (p *plan) servingCost() *servingCost {
	w := p.s.Workload
	layers, experts := p.s.ServeWeights()
	c := &servingCost{p: p, layers: p.rankLayers(), kinds: p.rankKinds(), gemm: p.hw,
		wb: w.FormatBytes(layers), wbExpert: w.FormatBytes(experts), kvb: w.KVBytes()}
	c.lastLayer = make([]serve.StageTime, len(p.k.Shapes))
	c.stepOverhead, c.kernelFloor = engineStepOverhead, kernelFloorOn(p.c.GPU)
	if g := p.c.GPU; g.StepOverhead > 0 {
		c.stepOverhead = g.StepOverhead
	}
	if g := p.c.GPU; g.KernelFloor > 0 {
		c.kernelFloor = g.KernelFloor
	}
	if g := p.c.GPU; g.GEMMLatency > 0 && !math.IsInf(g.GEMMLatency, 0) {
		c.gemmShift = g.GEMMLatency - gemmLatency
	}
	c.eng, _ = model.Engine(w.Engine)
	maxSeqs, _ := p.serveLimits()
	c.maxActive = maxSeqs * p.p
	c.eager = make([]float64, len(c.kinds))
	for s := range c.eager {
		c.eager[s] = c.eagerHost(s)
	}
	if layers == "fp8" && p.c.GPU.PeakFP8 > 0 {
		c.gemm = newHW(p.c.GPU, model.FP8)
	}
	if layers == "fp4" && p.c.GPU.FP4 && p.c.GPU.PeakFP8 > 0 {
		// NVFP4 checkpoints quantize the activations too (W4A4): Blackwell runs them on its FP4
		// tensor cores, at fp4OverFP8 times the FP8 rate, with the FP8 matmuls' efficiency (U: no
		// FP4 MAMF measured).
		c.gemm = newHW(p.c.GPU, model.FP8)
		c.gemm.flops *= fp4OverFP8
	}
	if p.t > 1 {
		_, maxTokens := p.serveLimits()
		c.arByToken = unknowns(min(maxTokens, maxCachedTokens) + 1)
	}
	if p.p > 1 {
		_, maxTokens := p.serveLimits()
		c.xferByToken = make([][]float64, p.p-1)
		for s := range c.xferByToken {
			c.xferByToken[s] = unknowns(min(maxTokens, maxCachedTokens) + 1)
		}
	}
	// Weight streaming at a few tokens a matmul: the GPU's GEMM efficiency where it has one
	// (Ampere's, model.GPU.GEMMMemoryEff), in every precision's path and the output projection's.
	c.gemm.bw = p.c.GPU.HBMBandwidth * p.c.GPU.GEMMStreamEff()
	c.head = p.hw
	c.head.bw = c.gemm.bw
	c.spec = c.newSpecCost()
	return c
}

// maxCachedTokens bounds the caches by token count (a step of more tokens is timed directly): a
// user may allow millions of tokens a step, and a pipeline has a cache per boundary.
const maxCachedTokens = 1 << 14

// unknowns is a cache of n values, none known yet (−1).
func unknowns(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

// allReduce is one TP all-reduce of the activations of tok tokens.
func (c *servingCost) allReduce(tok int, bytes float64) float64 {
	if tok >= 0 && tok < len(c.arByToken) {
		if c.arByToken[tok] < 0 {
			c.arByToken[tok] = c.p.tpAllReduce(bytes)
		}
		return c.arByToken[tok]
	}
	return c.p.tpAllReduce(bytes)
}

// layer is one transformer layer of kind k of the batch on one GPU.
func (c *servingCost) layer(k int, b *serve.Batch) serve.StageTime {
	key := *b
	key.InSystem = 0 // the GPU's work does not depend on what waits
	if !c.haveLast || key != c.last {
		for i, sh := range c.p.k.Shapes {
			c.lastLayer[i] = c.layerTime(sh, b)
		}
		c.last, c.haveLast = key, true
	}
	return c.lastLayer[k]
}

func (c *servingCost) layerTime(sh arch.Shape, b *serve.Batch) serve.StageTime {
	p := c.p
	a := p.a
	t := float64(p.t)
	h := float64(a.Hidden)
	k := sh.Mats
	e := p.e
	tok := float64(b.Tokens())
	// Context parallelism (cp.go; docs/costmodel.md § Context parallelism in serving): each of
	// the replica's cp GPUs runs the linear layers on every decode token (the weights are read
	// by every rank anyway) and on its 1/cp of the prompt tokens, the largest share gating.
	cp := float64(p.cpx.n)
	tokKey := b.Tokens()
	if p.cpx.n > 1 {
		tok = float64(b.DecodeSeqs*(1+b.Spec)) + math.Ceil(float64(b.PrefillTokens)/cp)
		tokKey = int(tok)
	}

	// Projections: the weights once, the tokens' activations in and out.
	projW := sh.ProjSplit/t + sh.ProjRep
	attn := kernel{flops: 2 * tok * projW, bytes: projW*c.wb + tok*(2*h+sh.ProjIO/t)*e}
	mlp, mlpSlow := mlpKernelW(sh, h, p.l, tok, e, c.wb, c.wbExpert) // experts.go
	// Attention: decode queries read their sequence's cached keys and values (MLA: its latent,
	// in the absorbed form); prefill chunks attend to what came before them and write their own.
	// A window bounds both: a sequence reads at most its window; linear layers read and write
	// their state instead.
	// A sparse indexed layer's indexer scores every cached token (its own keys, IdxCache a
	// token) and the attention reads its top-k.
	kvTok := sh.KVCacheOnGPU(p.t) - sh.IdxCache
	decCtx, preCtx, preAttn := b.DecodeCtx, b.PrefillCtx, b.PrefillAttn
	idx := kernel{flops: sh.IdxPair * (decCtx*float64(1+b.Spec) + preAttn), bytes: (decCtx + preCtx + float64(b.PrefillTokens)) * sh.IdxCache * c.kvb}
	if w := float64(sh.Keys(math.Inf(1))); sh.Window > 0 || sh.TopKeys > 0 {
		decCtx = math.Min(decCtx, float64(b.DecodeSeqs)*w)
		preCtx = math.Min(preCtx, float64(b.PrefillSeqs)*w+float64(b.PrefillTokens))
		preAttn = math.Min(preAttn, float64(b.PrefillTokens)*w)
	}
	state := sh.StateOnGPU(p.t)
	// A speculative step's sequences run 1 + Spec queries each over the keys they read once
	// (spec.go); q is 1 otherwise.
	q := float64(1 + b.Spec)
	dec := kernel{flops: sh.DecPair*decCtx*q/t + sh.StateFLOPs*float64(b.DecodeSeqs)*q/t,
		bytes: float64(b.DecodeSeqs)*q*sh.CoreIO/t*e + decCtx*kvTok*c.kvb + 2*float64(b.DecodeSeqs)*state*c.kvb}
	pre := kernel{flops: sh.Pair*preAttn/t + sh.StateFLOPs*float64(b.PrefillTokens)/t,
		bytes: float64(b.PrefillTokens)*sh.CoreIO/t*e + (preCtx+float64(b.PrefillTokens))*kvTok*c.kvb + 2*float64(b.PrefillSeqs)*state*c.kvb}
	if p.cpx.n > 1 {
		// Decode: a rank's queries (every decode token's) read its 1/cp of each sequence's keys
		// and values; a linear layer's state is whole on every rank. Prefill: the 2·cp chunks
		// balance the causal work, 1/cp of it a rank; its attention reads every block of the
		// context as the ring (or the gather) brings it, and writes its own 1/cp.
		preTok := math.Ceil(float64(b.PrefillTokens) / cp)
		dec = kernel{flops: sh.DecPair*decCtx*q/t/cp + sh.StateFLOPs*float64(b.DecodeSeqs)*q/t,
			bytes: float64(b.DecodeSeqs)*q*sh.CoreIO/t*e + decCtx*kvTok*c.kvb/cp + 2*float64(b.DecodeSeqs)*state*c.kvb}
		pre = kernel{flops: sh.Pair*preAttn/t/cp + sh.StateFLOPs*preTok/t,
			bytes: preTok*sh.CoreIO/t*e + (preCtx+preTok)*kvTok*c.kvb + 2*float64(b.PrefillSeqs)*state*c.kvb}
	}
	elem := kernel{bytes: tok * (elementwisePerHidden*h + k*sh.ActiveFFN()/t) * e}
	ar := c.allReduce(tokKey, tok*h*e)
	arMLP := ar
	if sh.Kind.MoE && p.etp < p.t {
		// Experts split over etp < t GPUs: their output is reduced over those alone.
		arMLP = 0
		if p.etp > 1 {
			arMLP = p.etpc.run(collective.AllReduce, tok*h*e).Seconds
		}
	}
	out := serve.StageTime{TP: ar + arMLP}
	if sh.Kind.MoE && p.fold > 1 {
		bytes := a2aBytes(sh, h, p.l, tok, e)
		one := epAllToAll(p.epc, p.a, p.l, p.c, bytes)
		if b.PrefillTokens == 0 && p.l.EPDispatch == model.EPDispatchTwoHop {
			// DeepEP decodes with its low-latency kernels (dispatch.go).
			if ll, ok := lowLatencyAllToAll(p.epc, bytes); ok {
				one = ll
			}
		}
		out.EP = 2 * one
	}
	elem = elem.add(routingKernel(sh, h, p.l, tok, e))
	fixed := shapeKernels(sh) * c.kernelFloor
	if c.gemmShift != 0 {
		// The box's GEMM curve (calibrate --from TRACE): its GEMM kernels' fixed time against the
		// built-in curve's, on each of the layer's GEMMs.
		g := gemmKernels(sh)
		fixed = (shapeKernels(sh)-g)*c.kernelFloor + g*math.Max(c.kernelFloor+c.gemmShift, 0)
	}
	if p.cpx.n > 1 {
		// The CP exchange, exposed: the breakdown's CP comm, as in training.
		out.CP = c.cpServe(sh, b, preCtx, p.hw.time(pre))
	}
	out.Seconds = c.gemm.time(attn) + c.gemm.time(mlp.slowed(mlpSlow)) + p.hw.time(dec) + p.hw.time(pre) + p.hw.time(idx) + p.hw.time(elem) + out.TP + out.EP +
		fixed
	if out.CP > 0 {
		out.Seconds += out.CP
	}
	return out
}

// kernelFloorOn is the per-kernel floor on GPU g: its family's cycles (model.GPU.KernelFloorCycles,
// else kernelFloorCycles) at its boost clock, or kernelFloor where the clock is not known.
func kernelFloorOn(g model.GPU) float64 {
	if !(g.BoostClockMHz > 0) || math.IsInf(g.BoostClockMHz, 0) {
		return kernelFloor
	}
	cycles := kernelFloorCycles
	if c := g.KernelFloorCycles; c > 0 && !math.IsInf(c, 0) {
		cycles = c
	}
	return cycles / (g.BoostClockMHz * 1e6)
}

// Stage is the batch on pipeline stage s: its layers, the embedding on the first, the logits of
// the sampled positions on the last, and the engine's step overhead on the first.
func (c *servingCost) Stage(s int, b *serve.Batch) serve.StageTime {
	p := c.p
	var d, tp, epc, cpc float64
	for kind, n := range c.kinds[s] {
		if n > 0 {
			l, k := c.layer(kind, b), float64(n)
			d += k * l.Seconds
			tp += k * l.TP
			epc += k * l.EP
			cpc += k * l.CP
		}
	}
	if b.PrefillTokens > 0 || c.eng.GraphMaxBatch > 0 && b.DecodeSeqs > c.eng.GraphMaxBatch {
		// A prompt step, or a decode step over the largest CUDA graph, launched from the host
		// (model.EagerPrefill, model.EagerDense04).
		d = max(d, c.eager[s])
	}
	if s == 0 {
		d += p.hw.time(kernel{bytes: float64(b.Tokens()) * float64(p.a.Hidden) * p.e * 2})
		d += c.stepOverhead + c.eng.HostPerSeqS*float64(b.DecodeSeqs+b.PrefillSeqs)
	}
	if p.p > 1 && c.eng.PPHost {
		// Every rank runs the executor's loop and waits for its own forward: its work on the
		// micro-batch's sequences (trtPPHostPerSeq) and its walk over every active request
		// (trtPPHostPerActive).
		d += trtPPHostPerSeq*float64(b.DecodeSeqs+b.PrefillSeqs) + trtPPHostPerActive*float64(c.activeRequests(b))
		if s > 0 {
			d += c.stepOverhead
		}
	}
	if s == p.p-1 {
		// The output projection stays in the compute format in a quantized checkpoint
		// (the ends of a quantized checkpoint, above): its weights are read at that width, its matmul runs at that rate.
		d += c.head.time(logits(p.a, p.l, float64(b.Samples), p.e))
		d += c.drafter(b) // speculative decoding's proposals (spec.go); 0 without
	}
	return serve.StageTime{Seconds: d, TP: tp, EP: epc, CP: cpc}
}

// activeRequests is TensorRT-LLM's active_requests when batch b is built: every request that
// has reached the executor and not finished, at most max_num_active_requests, which
// PyTorchModelEngine.get_max_num_sequences sets to the max batch size times the PP size
// (trtPPHostPerActive).
func (c *servingCost) activeRequests(b *serve.Batch) int {
	return min(b.InSystem, c.maxActive)
}

// Transfer sends the batch's hidden states to the next stage, each TP rank its share.
func (c *servingCost) Transfer(s int, b *serve.Batch) float64 {
	tok := b.Tokens()
	if s >= 0 && s < len(c.xferByToken) && tok >= 0 && tok < len(c.xferByToken[s]) {
		if x := c.xferByToken[s][tok]; x >= 0 {
			return x
		}
		x := c.p.p2p(s, float64(tok)*float64(c.p.a.Hidden)*c.p.e)
		c.xferByToken[s][tok] = x
		return x
	}
	return c.p.p2p(s, float64(tok)*float64(c.p.a.Hidden)*c.p.e)
}

// kvPlan is the KV cache one replica gets: per stage what is left of 90% of the GPU after the
// weights, the working set of a full step and the reserve, in tokens; the replica holds as many
// tokens as its tightest stage.
type kvPlan struct {
	weights, work, pool []float64 // bytes per GPU, by stage
	tokens              float64   // tokens the replica's cache holds
	blocks              int
}

func (p *plan) kvPlan(c *servingCost, maxSeqs, maxTokens int) kvPlan {
	kp := kvPlan{weights: make([]float64, p.p), work: make([]float64, p.p), pool: make([]float64, p.p)}
	usable := model.ServeMemoryUtilization * p.c.GPU.MemoryBytes
	h := float64(p.a.Hidden)
	// A sliding window's or a linear layer's cache does not grow with the context: over a
	// request of the workload's mean length L it keeps min(L, window) tokens, or its state, so
	// per token of the pool it costs that over L (vLLM's hybrid allocator frees a window's old
	// blocks and gives each request one state).
	meanLen := max(p.s.Workload.Prompts().Mean+p.s.Workload.Gens().Mean, 1)
	// Under CP each GPU of the replica keeps 1/cp of every sequence's keys and values (the cache
	// is sharded by token), so the replica holds cp times the tokens; a linear layer's state is
	// whole on every GPU.
	cp := float64(p.cpx.n)
	perTok := func(sh arch.Shape) float64 {
		kv := sh.KVCacheOnGPU(p.t)
		if w := float64(sh.Window); w > 0 {
			kv *= math.Min(1, w/meanLen)
		}
		if p.cpx.n > 1 {
			kv /= cp
		}
		return (kv + sh.StateOnGPU(p.t)/meanLen) * c.kvb
	}
	kp.tokens = math.Inf(1)
	for r := 0; r < p.p; r++ {
		params, layerParams := p.stageParams(r, c.kinds[r])
		// The layers' weights are stored at the --weights width; the embedding and the output
		// projection in the compute format (the ends of a quantized checkpoint, above).
		expert := p.stageExpertParams(c.kinds[r])
		kp.weights[r] = (layerParams-expert)*c.wb + expert*c.wbExpert + (params-layerParams)*p.e
		// A step's live activations per token: the hidden state, the residual and the
		// attention's projections (4h), and the MLP's intermediate, k·f/t (gate and up, then the
		// activation's output), of the widest layer (one expert's and the shared ones' for MoE).
		f := 0.0
		for kind, n := range c.kinds[r] {
			if sh := p.k.Shapes[kind]; n > 0 {
				f = math.Max(f, (sh.FFN+sh.Shared)*sh.Mats/float64(p.t))
			}
		}
		work := float64(maxTokens)
		if p.cpx.n > 1 {
			// A rank's share of the step's prompt tokens, and every decode token.
			work = math.Ceil(work/cp) + float64(min(maxSeqs, maxTokens))
		}
		kp.work[r] = work * (4*h + f) * p.e
		if r == p.p-1 {
			kp.work[r] += float64(min(maxSeqs, maxTokens)) * float64(p.a.Vocab) / float64(p.t) * 4
		}
		perToken := p.k.Sum(c.kinds[r], perTok)
		if r == p.p-1 {
			// A drafter's weights and KV cache (spec.go).
			dw, dt := c.drafterMemory()
			kp.weights[r] += dw
			perToken += dt
		}
		left := usable - kp.weights[r] - kp.work[r] - p.s.ReserveBytes
		if perToken > 0 {
			kp.tokens = math.Min(kp.tokens, math.Max(left, 0)/perToken)
		}
	}
	if math.IsInf(kp.tokens, 1) {
		kp.tokens = 0
	}
	kp.blocks = int(math.Min(kp.tokens/model.ServeBlockTokens, 1<<40))
	for r := range kp.pool {
		kp.pool[r] = float64(kp.blocks*model.ServeBlockTokens) * p.k.Sum(c.kinds[r], perTok)
		if r == p.p-1 {
			_, dt := c.drafterMemory()
			kp.pool[r] += float64(kp.blocks*model.ServeBlockTokens) * dt
		}
	}
	return kp
}

// hostTier is the host tier of a replica's KV cache (serve.Config.HostBlocks) when each GPU
// keeps bytes of host memory for it: the blocks its fullest stage's share fits, and the time to
// load one block, each stage its share over its GPUs' own PCIe links at once (the slowest).
func (kp kvPlan) hostTier(p *plan, bytes float64) (blocks int, load float64) {
	if bytes <= 0 || kp.blocks <= 0 {
		return 0, 0
	}
	most := 0.0 // bytes a GPU holds of one block, its fullest stage
	for _, pool := range kp.pool {
		most = math.Max(most, pool/float64(kp.blocks))
	}
	if most <= 0 {
		return 0, 0
	}
	return int(math.Min(bytes/most, 1<<40)), math.Min(p.hostSeconds(most), 1)
}

// serveLimits are the engine's max-seqs and max-batch-tokens: the workload's, else the
// engine's defaults (vLLM V0's chunked prefill of long contexts included).
func (p *plan) serveLimits() (int, int) {
	w := p.s.Workload
	eng, _ := model.Engine(w.Engine)
	seqs, toks := eng.Limits(p.c.GPU, p.a.MaxSeq)
	if _, _, budget := eng.Schedule(p.a.MaxSeq); budget > 0 {
		toks = budget
	}
	if w.MaxSeqs > 0 {
		seqs = w.MaxSeqs
	}
	if cp := p.l.CPSize(); cp > 1 {
		// Each CP rank runs 1/cp of a step's prompt tokens: the engine's default budget is a
		// GPU's, so the replica's is cp of them (the workload's own budget is the replica's).
		toks *= cp
	}
	if w.MaxBatchTokens > 0 {
		toks = w.MaxBatchTokens
	}
	return seqs, toks
}

func (p *plan) infer(record bool) (Report, error) {
	reqs, spans, err := serveRequests(p.s.Workload)
	if err != nil {
		return Report{}, err
	}
	r, _, err := p.inferRun(record, reqs, spans, p.s.Workload.Offline)
	return r, err
}

// serveRequests draws the workload's requests: their arrivals, lengths and cached prefixes, and
// a rate schedule's stages.
func serveRequests(w model.Workload) ([]serve.Request, []serve.Span, error) {
	reqs, spans := serve.GenerateStages(serve.Workload{N: w.Requests, Rate: w.Rate, Prompt: w.Prompts(), Gen: w.Gens(), Seed: w.Seed,
		System: w.SystemPrompt, SystemShare: w.SystemShare, SystemCached: !w.SystemUncached, Stages: w.StageList(),
		Turns: w.Turns, ThinkS: w.ThinkS})
	if len(reqs) == 0 {
		return nil, nil, &model.FieldError{Field: "stages", Value: "drew 0 requests", Allowed: "give a stage more time or requests"}
	}
	for i := range reqs {
		hit := int(math.Round(w.PrefixHit * float64(reqs[i].Prompt)))
		reqs[i].Cached = max(reqs[i].Cached, w.PrefixCached, hit)
	}
	return reqs, spans, nil
}

// inferRun serves reqs on p's replicas and reports the run; offline leaves out the engine's front
// end (the requests come tokenized).
func (p *plan) inferRun(record bool, reqs []serve.Request, spans []serve.Span, offline bool) (Report, serve.Result, error) {
	w := p.s.Workload
	c := p.servingCost()
	maxSeqs, maxTokens := p.serveLimits()
	kp := p.kvPlan(c, maxSeqs, maxTokens)

	r := Report{Layout: p.layoutSummary()}
	// Memory: the fullest GPU holds its weights, the working set, the KV pool and the reserve.
	stages := make([]StageDetail, p.p)
	gpus0 := p.stageGPUs()
	full := 0
	for rk := range stages {
		sd := &stages[rk]
		sd.Layers = c.layers[rk]
		sd.Embedding, sd.Logits = rk == 0, rk == p.p-1
		sd.GPUs = gpus0[rk]
		params, layerParams := p.stageParams(rk, c.kinds[rk])
		sd.ParamsOnGPU, sd.LayerParams = params, layerParams
		sd.Parts = p.paramParts(rk, c.kinds[rk])
		sd.PeakActBytes = kp.work[rk]
		sd.Memory = p.memory(rk, kp.weights[rk], 0, 0, kp.work[rk], kp.pool[rk])
		if sd.Memory.Total > stages[full].Memory.Total {
			full = rk
		}
	}
	longest := 0
	for _, q := range reqs {
		longest = max(longest, q.Prompt+q.Gen+w.SpecTokensOr()) // and the speculative slots
	}
	fits := kp.tokens >= float64(longest)
	hostTier := w.KVHostGiB * model.GiB
	for rk := range stages {
		m := &stages[rk].Memory
		m.Host, m.HostCapacity = hostTier, p.hostCap
		m.Fits = fits && m.Total <= m.Capacity && m.Host <= m.HostCapacity
	}
	r.Memory = stages[full].Memory
	r.Detail.Stages = stages

	eng, _ := model.Engine(w.Engine)
	inf := &Inference{KVCacheTokens: kp.tokens, Engine: eng.ID, MaxSeqs: maxSeqs, MaxBatchTokens: maxTokens}
	r.Inference = inf
	// One sequence alone at the average context: the floor of TPOT (and each stage's share, the
	// stage table's F).
	mid := float64(w.Prompts().MeanValue() + w.Gens().MeanValue()/2)
	one := serve.Batch{DecodeSeqs: 1, DecodeCtx: mid, Samples: 1}
	for s := 0; s < p.p; s++ {
		stages[s].F = c.Stage(s, &one).Seconds
		inf.DecodeStepS += stages[s].F
		if s+1 < p.p {
			inf.DecodeStepS += c.Transfer(s, &one)
		}
	}
	// The engine's profile (model.Engines): overlap (a step built while the one before it
	// runs: vLLM V1's async scheduling, SGLang's and TensorRT-LLM's overlap schedulers; a request
	// arriving mid-step waits a step more for its first token), prompts first or decodes first,
	// whole prompts or chunks, what it admits, its front end (docs/costmodel.md §
	// Serving).
	prefillFirst, whole, _ := eng.Schedule(p.a.MaxSeq)
	cfg := serve.Config{Replicas: p.d, Stages: p.p, MaxSeqs: maxSeqs, MaxBatchTokens: maxTokens,
		KVBlocks: kp.blocks, BlockTokens: model.ServeBlockTokens, Concurrency: w.Concurrency, ReserveWhole: eng.ReserveWhole,
		Record: record, MaxRecord: maxServeTrace, ITL: record, Overlap: eng.Overlap, HostAsync: eng.HostLoadAsync,
		PrefillFirst: prefillFirst, WholePrompts: whole, FrontEndS: eng.FrontEndS, MultiStep: eng.MultiStep,
		RecvInterval: w.SchedulerRecvInterval}
	if k := w.SpecTokensOr(); k > 0 {
		cfg.SpecTokens, cfg.SpecAccepted = k, model.ExpectedAccepted(k, w.SpecAcceptance())
	}
	if offline {
		cfg.FrontEndS = 0
	}
	cfg.HostBlocks, cfg.HostLoadS = kp.hostTier(p, hostTier)
	if eng.HostLoadLayerwise && !eng.HostLoadAsync && cfg.HostBlocks > 0 {
		// Each stage loads its own layers' share beside them: the fullest stage's layers.
		for _, n := range p.rankLayers() {
			cfg.HostLayers = max(cfg.HostLayers, n)
		}
	}
	inf.KVHostTokens = float64(cfg.HostBlocks * model.ServeBlockTokens)
	if !fits {
		// Served as if the memory were there (a cache for every request at once, as far as the
		// engine's limits go), as a training step that does not fit is still timed.
		seqs := min(w.Requests, maxSeqs) * p.p
		cfg.KVBlocks = p.p * seqs * ((longest + model.ServeBlockTokens - 1) / model.ServeBlockTokens)
	}
	run := serve.Run
	if p.serveRun != nil {
		run = p.serveRun
	}
	res, err := run(cfg, reqs, c)
	if err != nil {
		return Report{}, res, fmt.Errorf("costmodel: simulate serving: %w", err)
	}
	// The Tensor tab's layer: a decode step of the run's mean decode batch.
	typical := one
	if res.Steps0 > 0 {
		typical.DecodeSeqs = max(1, int(math.Round(res.Decodes0/float64(res.Steps0))))
		typical.DecodeCtx, typical.Samples = mid*float64(typical.DecodeSeqs), typical.DecodeSeqs
	}
	p.serveDetail(&r, c, typical)
	inf.Spec = c.specReport(res, typical)
	// Open loop: the latencies of the steady window, with their interval (serve.Window).
	open := w.Rate
	if w.Concurrency > 0 || len(spans) > 1 || w.Turns > 1 {
		// A closed loop, a rate schedule (measured stage by stage), or conversations (whose later
		// turns arrive when the turns before them end): the whole run.
		open = 0
	}
	if len(w.StageList()) > 0 {
		inf.Stages = serve.Stages(reqs, res, spans)
	}
	keep, conf := serve.Window(reqs, res, open)
	st := serve.SummarizeWindow(reqs, res, keep)
	inf.fill(st, res, float64(p.c.GPUs))
	if keep != nil {
		all := serve.Summarize(reqs, res)
		conf.WholeTTFTMean, conf.WholeTPOTMean = all.TTFTMean, all.TPOTMean
		inf.Confidence = &conf
	}
	if slo := WorkloadSLO(w); slo != (SLO{}) {
		// A queue that keeps growing misses any target in the end, whatever this run measured.
		meets := fits && st.Rejected == 0 && slo.Meets(*inf) && (inf.Confidence == nil || !inf.Confidence.Rising())
		inf.MeetsSLO = &meets
	}
	r.StepTime = res.Duration
	r.TokensPerS = inf.TokensPerS
	for i := range reqs {
		inf.PrefillS = max(inf.PrefillS, res.FirstToken[i])
	}

	// Breakdown on replica 0's busiest stage: its compute, its TP and expert communication, and
	// the rest of the run idle (waiting for requests, for other stages, for transfers).
	crit := 0
	for s := range res.Busy {
		if res.Busy[s] > res.Busy[crit] {
			crit = s
		}
		stages[s].Busy = res.Busy[s]
	}
	busy, tpc, epc, cpc := res.Busy[crit], res.BusyTP[crit], res.BusyEP[crit], res.BusyCP[crit]
	r.Breakdown = Breakdown{Compute: busy - tpc - epc, TPComm: tpc, EPComm: epc, Bubble: max(res.Duration-busy, 0)}
	if cpc > 0 {
		r.Breakdown.Compute -= cpc
		r.Breakdown.CPComm = cpc
	}
	r.BubbleFraction = ratio(r.Breakdown.Bubble, res.Duration)
	r.CommFraction = ratio(tpc+epc, res.Duration)
	if cpc > 0 {
		r.CommFraction = ratio(tpc+epc+cpc, res.Duration)
	}

	var prompt, gen float64
	for i, q := range reqs {
		if !res.Rejected[i] {
			prompt += float64(q.Prompt)
			gen += float64(q.Gen)
		}
	}
	n := float64(max(st.Completed, 1))
	modelFLOPs := forwardFLOPs(p.k, prompt, prompt/n/2, n) + forwardFLOPs(p.k, gen, prompt/n+gen/n/2, gen)
	r.Detail.ModelFLOPs, r.Detail.HWFLOPs = modelFLOPs, modelFLOPs
	r.ModelTFLOPS = ratio(modelFLOPs, res.Duration*float64(p.c.GPUs)) / 1e12
	r.HWTFLOPS = r.ModelTFLOPS
	r.MFU = ratio(r.ModelTFLOPS*1e12, p.c.GPU.Peak(w.Precision))

	r.Warnings = append(p.commonWarnings(&r), p.serveWarnings(st, res)...)
	if inf.Confidence != nil && inf.Confidence.Warning != "" {
		r.Warnings = append(r.Warnings, inf.Confidence.Warning)
	}
	for i, st := range inf.Stages {
		if st.Saturated {
			r.Warnings = append(r.Warnings, fmt.Sprintf("stage %d (%s req/s): %s: its latencies only reflect how long the stage lasted", i+1, trimRate(st.Rate), st.State))
		}
	}
	if !fits {
		r.Warnings = append(r.Warnings, p.serveFitWarning(kp, longest))
	}
	if record {
		r.Timeline = p.serveTimeline(res, c)
		active := p.d // the replicas the balancer uses: a closed loop of fewer clients uses fewer
		if w.Concurrency > 0 {
			active = min(p.d, w.Concurrency)
		}
		for i, q := range reqs {
			if i%active == 0 && !res.Rejected[i] {
				r.Timeline.Requests = append(r.Timeline.Requests, ServeRequest{Arrival: res.Arrival[i],
					FirstToken: res.FirstToken[i], Done: res.Done[i], Gen: q.Gen})
			}
		}
		r.Collectives = p.inferCollectives(c.layers[crit], c.kinds[crit], res)
	}
	return r, res, nil
}

// serveDetail fills the Tensor tab's layer: a decode step of b's sequences, its TP all-reduce.
func (p *plan) serveDetail(r *Report, c *servingCost, b serve.Batch) {
	h := float64(p.a.Hidden)
	n := float64(b.DecodeSeqs)
	ps := layerPass(p.k.Shapes[p.mainKind()], p.a, p.l, n, b.DecodeCtx/n, n, p.e, false, true)
	dec := p.passTimes(ps)
	if dec.a2a > 0 && p.l.EPDispatch == model.EPDispatchTwoHop {
		if ll, ok := lowLatencyAllToAll(p.epc, ps.a2aBytes); ok {
			dec.a2a = ll // DeepEP decodes with its low-latency kernels (dispatch.go)
		}
	}
	r.Detail.Layer = LayerDetail{Forward: forwardSegments(dec, tpLabel(p.l), dec.ar, dec.arMLP)}
	r.Detail.Layer.CommShare = commShare(r.Detail.Layer.Forward, nil)
	decBytes := n * h * p.e
	r.Detail.TPAllReduceBytes = decBytes
	r.Detail.TPAllReduceS = p.tpAllReduce(decBytes)
	r.Detail.TPLink = p.tpLink().ID
	r.Detail.TPLinkAlpha, r.Detail.TPLinkBW = p.tp.ringParams()
	r.Detail.P2PBytes = decBytes
	if p.p > 1 {
		r.Detail.P2PS = c.Transfer(0, &b)
	}
	if u := p.tpUses("decode activations", decBytes, 1, 0); len(u) > 0 {
		r.Detail.TPCollective = u[0]
	}
	// With fewer requests a replica than stages, fewer batches than stages are in flight: each
	// stage idles at least max(p − requests, 0)/p of the time.
	if per := p.s.Workload.Requests / max(p.d, 1); p.p > per {
		r.Detail.BubbleClosedForm = float64(p.p-per) / float64(p.p)
	}
}

func (inf *Inference) fill(st serve.Stats, res serve.Result, gpus float64) {
	inf.TTFT, inf.TPOT = st.TTFTMean, st.TPOTMean
	inf.TTFTP50, inf.TTFTP90, inf.TTFTP99 = st.TTFTP50, st.TTFTP90, st.TTFTP99
	inf.TPOTP50, inf.TPOTP90, inf.TPOTP99 = st.TPOTP50, st.TPOTP90, st.TPOTP99
	inf.E2EMean, inf.E2EP50, inf.E2EP90, inf.E2EP99 = st.E2EMean, st.E2EP50, st.E2EP90, st.E2EP99
	inf.ITL, inf.ITLP50, inf.ITLP90, inf.ITLP99 = st.ITLMean, st.ITLP50, st.ITLP90, st.ITLP99
	inf.TokensPerS = st.OutputTokensPerS
	inf.OutputTokensPerS = st.OutputTokensPerS
	inf.TotalTokensPerS = st.TotalTokensPerS
	inf.OutputTokensPerSPerGPU = ratio(st.OutputTokensPerS, gpus)
	inf.RequestsPerS = st.RequestsPerS
	inf.KVCachePeakFraction = res.KVPeak
	inf.PrefixHitRate = ratio(res.CacheHitTokens, res.PromptTokens)
	inf.PrefixCachePeakFraction = res.PrefixPeak
	inf.HostHitRate = ratio(res.HostHitTokens, res.PromptTokens)
	inf.Preemptions = res.Preemptions
	inf.MaxConcurrency = res.MaxRunning
	inf.Completed, inf.Rejected = st.Completed, st.Rejected
	inf.Steps = res.Steps
	inf.MeanInSystem = res.MeanInSystem
}

func (p *plan) serveFitWarning(kp kvPlan, longest int) string {
	return fmt.Sprintf("the KV cache holds %.0f tokens per replica (what is left of %.0f%% of %s after weights %s and a step's working set %s), "+
		"less than one request of %d tokens: timed as if the memory were there", kp.tokens, 100*model.ServeMemoryUtilization,
		gib(p.c.GPU.MemoryBytes), gib(kp.weights[0]), gib(kp.work[0]), longest)
}

func (p *plan) serveWarnings(st serve.Stats, res serve.Result) []string {
	var w []string
	if st.Rejected > 0 {
		w = append(w, fmt.Sprintf("%d request(s) refused: longer than the KV cache holds", st.Rejected))
	}
	if res.Preemptions > 0 {
		w = append(w, fmt.Sprintf("%d preemption(s): the KV cache filled and running requests were evicted and recomputed", res.Preemptions))
	}
	return w
}

// serveTimeline draws replica 0's first engine steps: one op per step and stage (Micro: the
// batch in flight; Token 0 for a step with prefill chunks, 1 for a decode-only step).
func (p *plan) serveTimeline(res serve.Result, c *servingCost) *Timeline {
	tl := &Timeline{Stages: p.p, Chunks: 1, MicroBatches: p.p, Mode: model.Infer, StageGPUs: p.stageGPUs()}
	tl.Ops = make([]schedule.Op, len(res.Trace))
	tl.Segments = make([][]Segment, len(res.Trace))
	tl.Serve = make([]ServeState, len(res.Trace))
	var preSeg, decSeg [][]Segment
	preSeg, decSeg = make([][]Segment, p.p), make([][]Segment, p.p)
	for i, st := range res.Trace {
		op := schedule.Op{Stage: st.Stage, Micro: st.Engine, Kind: schedule.F, Start: st.Start, End: st.End, Dep: -1}
		if st.Stage > 0 && i > 0 {
			op.Dep = i - 1 // the same step on the stage before (the trace lists a step's stages in order)
		}
		if st.PrefillTokens == 0 {
			op.Token = st.Index
		}
		tl.Ops[i] = op
		tl.Serve[i] = ServeState{DecodeSeqs: st.DecodeSeqs, PrefillTokens: st.PrefillTokens, KVUsed: st.KVUsed,
			Waiting: st.Waiting, Running: st.Running}
		tl.Makespan = max(tl.Makespan, st.End)
		// Segments of a representative step of each kind, scaled to the op.
		segs := &decSeg[st.Stage]
		b := serve.Batch{DecodeSeqs: st.DecodeSeqs, PrefillTokens: st.PrefillTokens, Samples: st.DecodeSeqs}
		if st.PrefillTokens > 0 {
			segs = &preSeg[st.Stage]
		}
		if *segs == nil {
			*segs = c.segments(st.Stage, &b)
		}
		tl.Segments[i] = *segs
	}
	return tl
}

// segments lays out a step on a stage as the Pipeline tab draws it: compute and TP collectives.
func (c *servingCost) segments(s int, b *serve.Batch) []Segment {
	st := c.Stage(s, b)
	return segments(seg{SegCompute, "step", st.Seconds - st.TP - st.EP}, seg{SegTPComm, tpLabel(c.p.l), st.TP},
		seg{SegEPComm, "all-to-all", st.EP})
}

func trimRate(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
