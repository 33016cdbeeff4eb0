package arch

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestParamsOfOneShapeModels(t *testing.T) {
	llama2_7b := Of(model.Arch{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, FFN: 11008, Vocab: 32000, GatedMLP: true})
	llama3_70b := Of(model.Arch{Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672, Vocab: 128256, GatedMLP: true})
	mixtral := Of(model.Arch{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 32000, GatedMLP: true,
		Experts: 8, TopK: 2})
	gptA := model.Arch{Layers: 24, Hidden: 2304, Heads: 24, KVHeads: 24, FFN: 9216, Vocab: 51200}
	gpt := Of(gptA)
	gptA.TiedEmbeddings = true
	gptTied := Of(gptA)
	norms := func(h float64) float64 { return 2 * h }

	cases := []struct {
		name string
		got  float64
		want float64
	}{
		// Llama-2-7B, MHA: attention 4h² = 4 · 4096² = 67,108,864; SwiGLU 3·h·f = 3 · 4096 · 11008
		// = 135,266,304; two norms 2h = 8,192: 202,383,360 per layer, × 32 = 6,476,267,520.
		// Embedding and untied output V·h = 131,072,000 each, final norm 4,096:
		// 6,476,267,520 + 262,144,000 + 4,096 = 6,738,415,616 (the published 6.74B).
		{"llama-2-7b attention", llama2_7b.Shapes[0].AttnParams - norms(4096), 67108864},
		{"llama-2-7b mlp", llama2_7b.Shapes[0].MLPParams, 135266304},
		{"llama-2-7b layer", llama2_7b.Shapes[0].Params(), 202383360},
		{"llama-2-7b embedding", llama2_7b.EmbeddingParams(), 131072000},
		{"llama-2-7b output", llama2_7b.OutputParams(), 131076096},
		{"llama-2-7b params", llama2_7b.Params(), 6738415616},
		{"llama-2-7b active", llama2_7b.ActiveParams(), 6738415616},
		// GQA, h = 8192, 64 heads of 128, 8 KV heads: K and V are 8 · 128 = 1024 wide.
		// Q,K,V: 8192 · (8192 + 2 · 1024) = 83,886,080; output 8192² = 67,108,864.
		{"llama-3-70b attention", llama3_70b.Shapes[0].AttnParams - norms(8192), 150994944},
		// Mixtral: 8 SwiGLU experts 3 · 4096 · 14336 · 8 = 1,409,286,144 plus a router 4096 · 8.
		{"mixtral mlp", mixtral.Shapes[0].MLPParams, 1409318912},
		// Attention 4096 · (4096 + 2048) + 4096² = 41,943,040; layer 41,943,040 + 1,409,318,912
		// + 8,192 = 1,451,270,144; × 32 = 46,440,644,608; + 2 · 131,072,000 + 4,096
		// = 46,702,792,704 (the published 46.7B); active: 6 experts fewer, 12.9B.
		{"mixtral params", mixtral.Params(), 46702792704},
		{"mixtral active", mixtral.ActiveParams(), 46702792704 - 32*6*3*4096*14336},
		{"mixtral experts", mixtral.ExpertParams(), 32 * 3 * 4096 * 14336 * 8},
		// GPT (GELU, 2 matrices of h × 4h): 4h² + 8h² + 2h = 12 · 2304² + 4608 = 63,706,368 per layer.
		{"gpt layer", gpt.Shapes[0].Params(), 12*2304*2304 + 2*2304},
		// Tied embeddings drop the output projection: only the final norm is left.
		{"gpt tied output", gptTied.OutputParams(), 2304},
		{"gpt tied vs untied", gpt.Params() - gptTied.Params(), 51200 * 2304},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: got %.0f, want %.0f", tc.name, tc.got, tc.want)
		}
	}
}

// A MoE of one expert routed top-1 is the dense model: the same parameters (less the router's
// h weights), the same active parameters, the same FLOPs and KV.
func TestOneExpertIsDense(t *testing.T) {
	dense := model.Arch{Layers: 8, Hidden: 1024, Heads: 16, KVHeads: 4, FFN: 4096, Vocab: 1000, GatedMLP: true}
	moe := dense
	moe.Experts, moe.TopK = 1, 1
	d, m := Of(dense), Of(moe)
	if d.Params() != m.Params() || d.ActiveParams() != m.ActiveParams() || d.KVPerToken(1) != m.KVPerToken(1) {
		t.Errorf("1 expert: %v/%v params, dense %v/%v", m.Params(), m.ActiveParams(), d.Params(), d.ActiveParams())
	}
	// experts: 1 in a config is a dense layer (ExpertCount 1), so the shapes are equal too.
	if d.Shapes[0] != m.Shapes[0] {
		t.Errorf("shapes differ:\n%+v\n%+v", d.Shapes[0], m.Shapes[0])
	}
}

// DeepSeek-V3 (its config.json): MLA caches kv_lora_rank + qk_rope_head_dim = 576 elements per
// token and layer, whole on every TP rank; GQA of the same heads would cache 2 · 128 · 128.
func TestMLAKVPerToken(t *testing.T) {
	a := deepseekV3()
	m := Of(a)
	if got := m.KVPerToken(1); got != 61*576 {
		t.Errorf("KV per token %v, want 61 × 576 = %v", got, 61*576)
	}
	if got := m.KVPerToken(8); got != 61*576 {
		t.Errorf("TP 8: KV per token %v, want the latent whole on every GPU (%v)", got, 61*576)
	}
	gqa := a
	gqa.MLA = model.MLA{}
	gqa.HeadSize = 128
	if r := Of(gqa).KVPerToken(1) / m.KVPerToken(1); math.Abs(r-2*128*128/576.0) > 1e-9 {
		t.Errorf("MHA over MLA %v, want %v", r, 2*128*128/576.0)
	}
}

// DeepSeek-V3's parameters from its config: 671B total without the MTP module (the paper's), 37B
// active; the MTP module 14B more (the paper's 685B with it) [DSV3 §1, §2.2].
func TestDeepSeekV3Params(t *testing.T) {
	m := Of(deepseekV3())
	within := func(what string, got, want, tol float64) {
		if math.Abs(got-want)/want > tol {
			t.Errorf("%s %.2fB, want %.1fB ± %.0f%%", what, got/1e9, want/1e9, tol*100)
		}
	}
	within("total", m.Params(), 671e9, 0.01)
	within("active", m.ActiveParams(), 37e9, 0.02)
	within("with MTP", m.Params()+m.MTPParams(), 685e9, 0.01)
	if len(m.Shapes) != 2 || m.Shapes[0].Kind != (Kind{MLA, false}) || m.Shapes[1].Kind != (Kind{MLA, true}) {
		t.Errorf("kinds %+v, want dense MLA then MoE MLA", m.Shapes)
	}
	if c := m.All(); c[0] != 3 || c[1] != 58 {
		t.Errorf("counts %v, want 3 dense and 58 MoE layers", c)
	}
}

// A sliding-window layer attends to at most its window; a linear layer to nothing (its state).
func TestWindowBoundsKeys(t *testing.T) {
	a := model.Arch{Layers: 6, Hidden: 1024, Heads: 8, KVHeads: 8, FFN: 4096, Vocab: 1000,
		LayerTypes: "sliding,sliding,full", SlidingWindow: 512}
	m := Of(a)
	if len(m.Shapes) != 2 {
		t.Fatalf("kinds %d, want 2", len(m.Shapes))
	}
	if c := m.All(); c[0] != 4 || c[1] != 2 {
		t.Errorf("counts %v, want 4 sliding and 2 full", c)
	}
	for _, ctx := range []float64{100, 512, 4096, 1 << 20} {
		if got := m.Shapes[0].Keys(ctx); got != math.Min(ctx, 512) {
			t.Errorf("sliding keys at %v: %v", ctx, got)
		}
		if got := m.Shapes[1].Keys(ctx); got != ctx {
			t.Errorf("full keys at %v: %v", ctx, got)
		}
	}
	lin := Of(model.Arch{Layers: 4, Hidden: 1024, Heads: 8, KVHeads: 2, FFN: 4096, Vocab: 1000,
		LayerTypes: "linear,linear,linear,full", Linear: model.LinearAttn{KeyHeads: 8, ValueHeads: 16, KeyDim: 64, ValueDim: 64, ConvKernel: 4}})
	s := lin.Shapes[0]
	if s.Kind.Attn != model.AttnLinear || s.Keys(1e6) != 0 || s.KVCache != 0 {
		t.Errorf("linear: keys %v, KV %v", s.Keys(1e6), s.KVCache)
	}
	// Its state: 16 value heads × 64 × 64, plus the convolution's 3 past inputs of q, k, v.
	if want := 16.0*64*64 + 3*(2*8*64+16*64); s.State != want {
		t.Errorf("state %v, want %v", s.State, want)
	}
	if lin.KVPerToken(1) != 2*2*128 {
		t.Errorf("KV per token %v: only the full layer's, 2·2·128", lin.KVPerToken(1))
	}
}

func TestMoELayers(t *testing.T) {
	// Llama 4 Maverick: experts every other layer (interleave 2: layers 1, 3, 5…).
	a := model.Arch{Layers: 6, Hidden: 64, Heads: 4, KVHeads: 4, FFN: 128, Vocab: 10, Experts: 4, TopK: 1, MoEEvery: 2, DenseFFN: 256}
	var got []bool
	for i := range a.Layers {
		got = append(got, a.MoELayer(i))
	}
	want := []bool{false, true, false, true, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("MoE layers %v, want %v", got, want)
		}
	}
	m := Of(a)
	if m.Shapes[0].FFN != 256 || m.Shapes[1].FFN != 128 {
		t.Errorf("dense FFN %v, expert FFN %v", m.Shapes[0].FFN, m.Shapes[1].FFN)
	}
}

func deepseekV3() model.Arch {
	return model.Arch{ID: "deepseek-v3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, FFN: 2048, Vocab: 129280,
		GatedMLP: true, Experts: 256, TopK: 8, SharedExperts: 1, SharedFFN: 2048, DenseLayers: 3, DenseFFN: 18432,
		MLA: model.MLA{QLoRARank: 1536, KVLoRARank: 512, QKNopeDim: 128, QKRopeDim: 64, VHeadDim: 128}, MTPLayers: 1}
}

// DeepSeek-V3.2's sparse attention: each query attends to the indexer's 2048 best keys, the
// indexer scores all of them (2 · 64 · 128 FLOPs a pair in FP8, 64 · 128 at the 16-bit rate)
// and caches 128 elements a token.
func TestIndexerBoundsKeys(t *testing.T) {
	a := deepseekV3()
	a.Indexer = model.Indexer{Heads: 64, HeadDim: 128, TopK: 2048}
	m := Of(a)
	s := m.Shapes[1]
	if s.Keys(100) != 100 || s.Keys(1e6) != 2048 {
		t.Errorf("keys at 100 and 1M: %v, %v; want 100 and 2048", s.Keys(100), s.Keys(1e6))
	}
	if s.IdxPair != 64*128 || s.IdxCache != 128 || m.KVPerToken(8) != 61*(576+128) {
		t.Errorf("indexer %v FLOPs a pair, %v cached; KV a token %v", s.IdxPair, s.IdxCache, m.KVPerToken(8))
	}
	// Its weights: wq from the query latent (1536 × 64 · 128), wk (7168 × 128), the head
	// weights (7168 × 64) and the key norm, in each of the 61 layers: about 0.8B.
	extra := m.Params() - Of(deepseekV3()).Params()
	if want := 61 * (1536*64*128 + 7168*128 + 7168*64 + 256.0); extra != want {
		t.Errorf("indexer params %v, want %v", extra, want)
	}
}

// Per-head q/k norms (Qwen3, Gemma 3) weigh 2 × head_dim a softmax-attention layer and mark its
// shape; linear layers (Qwen3-Next's Gated DeltaNet) carry none.
func TestQKNorm(t *testing.T) {
	a := model.Arch{Layers: 8, Hidden: 1024, Heads: 8, KVHeads: 2, HeadSize: 256, FFN: 2048, Vocab: 1000, GatedMLP: true,
		LayerTypes: "linear,linear,linear,full", Linear: model.LinearAttn{KeyHeads: 4, ValueHeads: 8, KeyDim: 64, ValueDim: 64, ConvKernel: 4}}
	q := a
	q.QKNorm = true
	if got, want := Of(q).Params()-Of(a).Params(), 2.0*2*256; got != want {
		t.Errorf("q/k norms add %g parameters, want %g (two softmax layers × 2 × 256)", got, want)
	}
	for _, sh := range Of(q).Shapes {
		if sh.QKNorm != (sh.Kind.Attn == model.AttnFull) {
			t.Errorf("%+v: QKNorm %v", sh.Kind, sh.QKNorm)
		}
	}
}

// All, counted while OfInto fills Of, is Counts over every layer: one kind, MoE every other
// layer, dense layers first, and a model compiled into the arrays of a larger one.
func TestAllCounts(t *testing.T) {
	maverick := model.Arch{Layers: 7, Hidden: 64, Heads: 4, KVHeads: 4, FFN: 128, Vocab: 10, Experts: 4, TopK: 1, MoEEvery: 2, DenseFFN: 256}
	dense := model.Arch{Layers: 5, Hidden: 64, Heads: 4, KVHeads: 4, FFN: 128, Vocab: 10}
	var shapes []Shape
	var of []uint8
	for _, a := range []model.Arch{maverick, deepseekV3(), dense, maverick} {
		m := OfInto(a, shapes, of)
		shapes, of = m.Shapes, m.Of
		want := m.Counts(0, len(m.Of), nil)
		got := m.All()
		if len(got) != len(want) {
			t.Fatalf("%s: All %v, Counts %v", a.ID, got, want)
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("%s: All %v, Counts %v", a.ID, got, want)
			}
		}
	}
}
