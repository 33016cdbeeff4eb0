package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// FuzzEvaluateKinds drives the layer kinds (experts, shared experts, dense first layers, experts
// every n-th layer, MLA, sliding/chunked/linear layers, the indexer) and EP/ETP: Evaluate never
// panics, never returns NaN or Inf, and either reports or returns a ValidationError.
func FuzzEvaluateKinds(f *testing.F) {
	// DeepSeek-V3-like, gpt-oss-like, Qwen3-Next-like, small and odd.
	f.Add(61, 7168, 128, 128, 2048, 256, 8, 2048, 3, 18432, 1, 512, 64, 128, 128, 1536, 0, 0, 0, 0, 8, 1, 8, 0, 8, true)
	f.Add(36, 2880, 64, 8, 2880, 128, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 128, 0, 0, 8, 1, 1, 1, 8, true)
	f.Add(48, 2048, 16, 2, 512, 512, 10, 512, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 128, 0, 4, 1, 2, 1, 8, false)
	f.Add(6, 64, 4, 2, 32, 4, 2, 16, 1, 64, 2, 16, 8, 8, 8, 0, 2, 16, 16, 8, 2, 3, 2, 1, 12, false)
	f.Fuzz(func(t *testing.T, layers, hidden, heads, kv, ffn, experts, topk, shared, dense, denseFFN, every,
		kvr, rope, nope, vdim, qr, pattern, window, lin, idx, tp, pp, ep, etp, gpus int, infer bool) {
		p := presets(t)
		types := []string{"", "sliding,full", "chunked,chunked,chunked,full", "linear,linear,linear,full", "sliding"}
		a := model.Arch{ID: "fuzz", Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv, FFN: ffn,
			Vocab: 1000, GatedMLP: true, Experts: experts, TopK: topk, SharedFFN: shared, DenseLayers: dense,
			DenseFFN: denseFFN, MoEEvery: every, SlidingWindow: window, MaxSeq: 8192}
		if kvr != 0 || rope != 0 {
			a.MLA = model.MLA{QLoRARank: qr, KVLoRARank: kvr, QKNopeDim: nope, QKRopeDim: rope, VHeadDim: vdim}
		}
		if pattern != 0 {
			a.LayerTypes = types[((pattern%len(types))+len(types))%len(types)]
		}
		if lin != 0 {
			a.Linear = model.LinearAttn{KeyHeads: max(heads/2, 1), ValueHeads: heads, KeyDim: lin, ValueDim: lin, ConvKernel: 4}
		}
		if idx != 0 {
			a.Indexer = model.Indexer{Heads: 8, HeadDim: 64, TopK: idx}
		}
		s := model.Scenario{
			Arch: a,
			Cluster: model.Cluster{GPU: mustGPU(t, p, "h100-sxm"), GPUs: gpus, GPUsPerNode: min(max(gpus, 1), 8),
				Intra: mustLink(t, p, "nvlink4"), Inter: mustLink(t, p, "ib-ndr"), NICsPerNode: 8},
			Layout: model.Layout{TP: tp, PP: pp, DP: 1, Chunks: 1, MicroBatch: 1, EP: ep, ETP: etp},
			Workload: model.Workload{Mode: model.Train, Seq: 1024, GlobalBatch: 16, PromptTokens: 256, GenTokens: 32,
				Requests: 4, Precision: model.BF16},
			ReserveBytes: model.DefaultReserveBytes,
		}
		if infer {
			s.Workload.Mode = model.Infer
		}
		if tp > 0 && pp > 0 && gpus%(tp*pp) == 0 {
			s.Layout.DP = gpus / (tp * pp)
			s.Workload.GlobalBatch = 16 * max(s.Layout.DP, 1)
		}
		fuzzEvaluate(t, s)
	})
}

// The models the fuzzer's seeds imitate evaluate as presets (TP 8 on 8 H200, serving).
func TestKindPresetsEvaluate(t *testing.T) {
	p := presets(t)
	for _, id := range []string{"deepseek-v3", "gpt-oss-120b", "qwen3-next-80b-a3b"} {
		a, err := p.Model(id)
		if err != nil {
			t.Fatal(err)
		}
		s := inferScenario(t, a, "h200-sxm", 8, 8, 1)
		if _, err := Evaluate(s); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}
