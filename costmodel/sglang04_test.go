package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// SGLang 0.4 replays a CUDA graph only for a decode batch of at most cuda_graph_max_bs (160)
// sequences; a larger one runs eagerly, and on a dense 70B model at TP 4 its host issues the
// 80 layers slower than the H200s run them (model.EagerDense04). The step time jumps at 161
// sequences, to at least the host's 80 layers; the profile "sglang" (later releases, whose
// dense layers' launches hide under their GPU time) has no such jump.
func TestSGLang04EagerDecodeOverGraphs(t *testing.T) {
	p := presets(t)
	a, err := p.Model("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	g := mustGPU(t, p, "h200-sxm")
	cost := func(engine string) *servingCost {
		s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
			Cluster: model.Cluster{GPU: g, GPUs: 4, GPUsPerNode: 8, Intra: mustLink(t, p, g.NativeLink), Inter: mustLink(t, p, model.DefaultInter), NICsPerNode: 1},
			Layout:  model.Layout{TP: 4, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
			Workload: model.Workload{Mode: model.Infer, PromptTokens: 512, GenTokens: 512, Requests: 100,
				Precision: model.BF16, Engine: engine}}
		return newPlan(s).servingCost()
	}
	step := func(engine string, seqs int) float64 {
		b := serve.Batch{DecodeSeqs: seqs, DecodeCtx: float64(seqs) * 760, Samples: seqs}
		return cost(engine).Stage(0, &b).Seconds
	}
	eager := float64(a.Layers) * model.EagerDense04
	in, out := step("sglang-0.4", model.CUDAGraphMaxBS04), step("sglang-0.4", model.CUDAGraphMaxBS04+1)
	if !(in < eager && out >= eager) {
		t.Errorf("sglang-0.4 decode step at %d and %d sequences: %.1f and %.1f ms; want under and at least the host's %.1f ms for %d eager layers",
			model.CUDAGraphMaxBS04, model.CUDAGraphMaxBS04+1, in*1e3, out*1e3, eager*1e3, a.Layers)
	}
	if later := step("sglang", model.CUDAGraphMaxBS04+1) / step("sglang", model.CUDAGraphMaxBS04); later > 1.05 {
		t.Errorf("sglang decode step 160 → 161 sequences ×%.2f: its dense layers' launches hide under their GPU time", later)
	}
	// A prompt step runs eagerly at any size.
	pre := func(engine string) float64 {
		b := serve.Batch{PrefillTokens: 128, PrefillSeqs: 1, PrefillAttn: 128 * 64.5, PrefillCtx: 128, Samples: 1}
		return cost(engine).Stage(0, &b).Seconds
	}
	if got := pre("sglang-0.4"); got < eager {
		t.Errorf("sglang-0.4 prompt step of 128 tokens %.1f ms, under the host's %.1f ms", got*1e3, eager*1e3)
	}
}
