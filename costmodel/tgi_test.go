package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// TGI (the profile "tgi") replays a graph only for a decode batch of at most 32 sequences; a
// larger one, like every prefill, runs eagerly at no less than the host's 0.65 ms a dense layer
// (model.EagerDenseTGI). Every step pays the host's per-request loop (model.HostPerSeqTGI) on
// top, and its all-reduces are RCCL's, not vLLM's one-shot kernel: the same decode step of
// Llama 3.1 405B on 8 × MI300X is longer than vLLM V1's by 252 all-reduces' difference and the
// per-sequence host time, and the all-reduce is the library's (14 µs against 6.7 at 32 KiB).
func TestTGIProfile(t *testing.T) {
	p := presets(t)
	a, err := p.Model("llama-3.1-405b")
	if err != nil {
		t.Fatal(err)
	}
	g := mustGPU(t, p, "mi300x")
	cost := func(engine string) *servingCost {
		s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
			Cluster: model.Cluster{GPU: g, GPUs: 8, GPUsPerNode: 8, Intra: mustLink(t, p, g.NativeLink), Inter: mustLink(t, p, model.DefaultInter), NICsPerNode: 1},
			Layout:  model.Layout{TP: 8, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
			Workload: model.Workload{Mode: model.Infer, PromptTokens: 80, GenTokens: 150, Requests: 64,
				Precision: model.BF16, Engine: engine}}
		return newPlan(s).servingCost()
	}
	step := func(engine string, seqs int) float64 {
		b := serve.Batch{DecodeSeqs: seqs, DecodeCtx: float64(seqs) * 150, Samples: seqs}
		return cost(engine).Stage(0, &b).Seconds
	}
	eager := float64(a.Layers) * model.EagerDenseTGI
	in, out := step("tgi", model.TGIGraphMaxBS), step("tgi", model.TGIGraphMaxBS+1)
	if !(in < eager && out >= eager) {
		t.Errorf("tgi decode step at %d and %d sequences: %.1f and %.1f ms; want under and at least the host's %.1f ms for %d eager layers",
			model.TGIGraphMaxBS, model.TGIGraphMaxBS+1, in*1e3, out*1e3, eager*1e3, a.Layers)
	}
	pre := serve.Batch{PrefillTokens: 80, PrefillSeqs: 1, PrefillAttn: 80 * 40.5, PrefillCtx: 80, Samples: 1}
	if got := cost("tgi").Stage(0, &pre).Seconds; got < eager {
		t.Errorf("tgi prompt step of 80 tokens %.1f ms, under the host's %.1f ms", got*1e3, eager*1e3)
	}
	tgi, vllm := cost("tgi"), cost("vllm")
	const bytes = 16384 * 2 // one token's activations of Llama 3.1 405B in bf16
	arT, arV := tgi.p.tpAllReduce(bytes), vllm.p.tpAllReduce(bytes)
	if !(arT > 12e-6 && arT < 17e-6 && arV < 8e-6) {
		t.Errorf("32 KiB all-reduce on 8 × MI300X: tgi %.1f µs, vllm %.1f µs; want RCCL's 14 (AIS 13.7–14.6) and the one-shot kernel's under 8", arT*1e6, arV*1e6)
	}
	one := serve.Batch{DecodeSeqs: 1, DecodeCtx: 150, Samples: 1}
	d := tgi.Stage(0, &one).Seconds - vllm.Stage(0, &one).Seconds
	want := 2*float64(a.Layers)*(arT-arV) + model.HostPerSeqTGI
	if math.Abs(d-want) > 1e-9 {
		t.Errorf("tgi step at one sequence %.3f ms longer than vllm's, want %.3f (RCCL all-reduces and the per-request host time)", d*1e3, want*1e3)
	}
}
