package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// Speculative decoding (model/spec.go): a decode step of n sequences with K proposals each is
// the drafter's work, then the target's verify forward over n·(K+1) tokens. The verify forward
// is the ordinary step's cost on a batch whose decode sequences run 1 + K tokens (serve.Batch's
// Spec): the stage's weights are read once whatever the tokens, the projections' and the MLP's
// FLOPs and activations grow with the tokens, each sequence's attention reads its cached keys
// and values once for its K+1 queries (FLOPs K+1 times a single query's) and the K proposals'
// own, and the logits are taken at every position. So where a step is bound by reading the
// weights (few sequences) the verify costs little more than a decode, and where it is bound by
// the FLOPs (many) it costs up to K+1 times as much: the batch effect comes out of the
// roofline, not a rule.
//
// The drafter, on the last stage (where the target's hidden states are), K times in a row, each
// on the step's n sequences at their contexts:
//
//   - draft: a forward of the draft model (its own layers, TP as the target's where its heads
//     divide, its logits), timed as the target's step is, less the engine's per-step overhead;
//   - mtp: one layer of the target's most common kind (DeepSeek-V3's MTP module is a full MoE
//     layer) and the logits; eagle: one dense decoder layer of the target's (its most common
//     dense kind; the most common kind on a model with none, U) and the logits (EAGLE-3's fusion
//     of three layers' features, a 3h × h matmul, is left out: U);
//   - ngram: prompt lookup on the host (vLLM's numba NgramProposer), no GPU time.
//
// Not modelled (U): the drafter's first pass over the tokens accepted in the last step (it runs
// on 1 + accepted tokens, here on one), tree verification (EAGLE-2/3's top-k > 1 trees: a chain
// here), and an engine that turns speculation off above a batch size.

// specCost is the drafter of a servingCost.
type specCost struct {
	k      int
	method string
	// draft times the draft model's forward (method draft).
	draft *servingCost
	// head is the target's layer kind an MTP or EAGLE head is timed as.
	head int
}

// newSpecCost builds c's drafter from the scenario, nil without speculation.
func (c *servingCost) newSpecCost() *specCost {
	w := c.p.s.Workload
	k := w.SpecTokensOr()
	if k <= 0 || w.Mode != model.Infer {
		return nil
	}
	sc := &specCost{k: k, method: w.SpecMethodOr(), head: c.p.mainKind()}
	if sc.method == model.SpecEAGLE {
		// An EAGLE head is a dense decoder layer, on a MoE target too: the target's most common
		// dense kind where it has one.
		all, best := c.p.k.All(), -1
		for kind, n := range all {
			if !c.p.k.Shapes[kind].Kind.MoE && n > 0 && (best < 0 || n > all[best]) {
				best = kind
			}
		}
		if best >= 0 {
			sc.head = best
		}
	}
	if sc.method == model.SpecDraft && w.SpecDraft != nil {
		sc.draft = c.p.draftPlan(*w.SpecDraft).servingCost()
	}
	return sc
}

// draftPlan is the plan of the draft model on one TP group of the target's: TP the target's
// where it divides the draft's heads, else 1; no pipeline, no replicas.
func (p *plan) draftPlan(a model.Arch) *plan {
	s := p.s
	s.Arch = a
	t := p.t
	if a.Heads%t != 0 || a.KVHeads%t != 0 {
		t = 1
	}
	s.Layout = model.Layout{TP: t, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1, Collectives: p.l.Collectives}
	s.Cluster.GPUs = t
	s.Workload.SpecTokens, s.Workload.SpecAccept, s.Workload.SpecMethod, s.Workload.SpecDraft = 0, nil, "", nil
	return newPlan(s)
}

// drafter is the drafter's time for batch b's decode sequences on the last stage.
func (c *servingCost) drafter(b *serve.Batch) float64 {
	sc := c.spec
	if sc == nil || b.Spec <= 0 || b.DecodeSeqs <= 0 {
		return 0
	}
	n := b.DecodeSeqs
	// Each proposal step: one token per sequence at the sequence's context.
	one := serve.Batch{DecodeSeqs: n, DecodeCtx: b.DecodeCtx - float64(n*b.Spec), Samples: n}
	var step float64
	switch sc.method {
	case model.SpecNGram:
		return 0
	case model.SpecDraft:
		if sc.draft == nil {
			return 0
		}
		d := sc.draft
		step = d.Stage(0, &one).Seconds - d.stepOverhead - d.eng.HostPerSeqS*float64(n)
	default: // mtp, eagle
		p := c.p
		l := c.layerTime(p.k.Shapes[sc.head], &one)
		step = l.Seconds + c.head.time(logits(p.a, p.l, float64(n), p.e)) +
			p.hw.time(kernel{bytes: float64(n) * float64(p.a.Hidden) * p.e * 2})
	}
	// The proposer's own launch: its inputs prepared on the host from the tokens the verify just
	// accepted (vllm/v1/spec_decode/eagle.py EagleProposer.propose after the rejection sampler),
	// serial with the GPU, one engine step's overhead (engineStepOverhead's host part).
	return float64(sc.k)*max(step, 0) + c.stepOverhead
}

// drafterMemory is what the drafter holds on a GPU of the last stage: its weights, bytes, and
// its KV cache per token of the pool, bytes.
func (c *servingCost) drafterMemory() (weights, perToken float64) {
	sc := c.spec
	if sc == nil {
		return 0, 0
	}
	p := c.p
	switch sc.method {
	case model.SpecNGram:
		return 0, 0
	case model.SpecDraft:
		if sc.draft == nil {
			return 0, 0
		}
		d := sc.draft
		params, layerParams := d.p.stageParams(0, d.kinds[0])
		expert := d.p.stageExpertParams(d.kinds[0])
		weights = (layerParams-expert)*d.wb + expert*d.wbExpert + (params-layerParams)*d.p.e
		for kind, n := range d.kinds[0] {
			perToken += float64(n) * d.p.k.Shapes[kind].KVCacheOnGPU(d.p.t) * d.kvb
		}
		return weights, perToken
	}
	sh := p.k.Shapes[sc.head]
	// One layer (its experts over EP as the target's) and its KV; the embedding and output
	// projection are the target's (DeepSeek-V3's MTP module shares them).
	weights = (sh.Params()-sh.ExpertParams)/float64(p.t)*c.wb + sh.ExpertParams/float64(p.t*p.ep)*c.wbExpert
	return weights, sh.KVCacheOnGPU(p.t) * c.kvb
}

// specReport is the run's speculation as the report shows it: K, the method, the acceptance's
// expected accepted proposals a step, the tokens a speculative step kept per sequence, and the
// drafter's share of a typical decode step (b: the run's mean decode batch).
func (c *servingCost) specReport(res serve.Result, b serve.Batch) *SpecStats {
	sc := c.spec
	if sc == nil {
		return nil
	}
	w := c.p.s.Workload
	st := &SpecStats{Tokens: sc.k, Method: sc.method, Accept: model.SpecAccept(w.SpecAcceptance()).String(),
		ExpectedAccepted: model.ExpectedAccepted(sc.k, w.SpecAcceptance())}
	if res.SpecSeqSteps0 > 0 {
		st.TokensPerStep = res.SpecTokens0 / res.SpecSeqSteps0
	}
	b.Spec = sc.k
	b.DecodeCtx += float64(b.DecodeSeqs * sc.k)
	b.Samples = b.DecodeSeqs * (1 + sc.k)
	var step float64
	for s := 0; s < c.p.p; s++ {
		step += c.Stage(s, &b).Seconds
	}
	st.DrafterShare = ratio(c.drafter(&b), step)
	return st
}

// SpecStats is a serving run's speculative decoding.
type SpecStats struct {
	// Tokens is K, the proposals a step; Method how they are made; Accept the acceptance as given
	// and ExpectedAccepted the proposals a step keeps on average by it.
	Tokens           int     `json:"tokens"`
	Method           string  `json:"method"`
	Accept           string  `json:"accept"`
	ExpectedAccepted float64 `json:"expected_accepted"`
	// TokensPerStep is what a speculative step yielded per sequence in the run (1 + accepted,
	// less at a request's end); DrafterShare the drafter's part of a typical decode step.
	TokensPerStep float64 `json:"tokens_per_step"`
	DrafterShare  float64 `json:"drafter_share"`
}
