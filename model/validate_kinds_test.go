package model

import (
	"slices"
	"strings"
	"testing"
)

// dsv3Like is DeepSeek-V3's shape with every layer-kind field that applies to it: valid.
func dsv3Like() Arch {
	return Arch{ID: "dsv3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, FFN: 2048, Vocab: 129280, GatedMLP: true,
		Experts: 256, TopK: 8, SharedExperts: 1, SharedFFN: 2048, DenseLayers: 3, DenseFFN: 18432,
		MLA:       MLA{QLoRARank: 1536, KVLoRARank: 512, QKNopeDim: 128, QKRopeDim: 64, VHeadDim: 128},
		MTPLayers: 1, Checkpoint: Checkpoint{Weights: "fp8"}}
}

// hybridLike is Qwen3-Next's shape (linear and full layers) with gpt-oss's mxfp4 experts: valid.
func hybridLike() Arch {
	return Arch{ID: "hybrid", Layers: 48, Hidden: 2048, Heads: 16, KVHeads: 2, HeadSize: 256, FFN: 512, Vocab: 151936, GatedMLP: true,
		Experts: 512, TopK: 10, SharedExperts: 1, SharedFFN: 512, LayerTypes: "linear,linear,sliding,full", SlidingWindow: 128,
		Linear: LinearAttn{KeyHeads: 16, ValueHeads: 32, KeyDim: 128, ValueDim: 128, ConvKernel: 4}, AttnGate: true,
		OtherParams: 4e8, Checkpoint: Checkpoint{Experts: "mxfp4"}}
}

// Each bad layer-kind field is refused by its name, with its value and what is allowed; the
// valid shapes pass.
func TestArchValidateKinds(t *testing.T) {
	for _, a := range []Arch{dsv3Like(), hybridLike()} {
		if err := a.Validate(); err != nil {
			t.Fatalf("%s: %v", a.ID, err)
		}
	}
	dense := Arch{ID: "dense", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 32000, GatedMLP: true}
	for _, c := range []struct {
		name   string
		arch   func() Arch
		change func(a *Arch)
		field  string
		msg    string
	}{
		{"negative shared", dsv3Like, func(a *Arch) { a.SharedFFN = -1 }, "shared-ffn", "shared-ffn = -1: must be between 0 and 1048576"},
		{"shared without experts", func() Arch { return dense }, func(a *Arch) { a.SharedFFN = 1024 }, "shared-ffn", "needs experts above 1"},
		{"shared experts without width", dsv3Like, func(a *Arch) { a.SharedFFN = 0 }, "shared-ffn", "must be above 0 with shared-experts 1"},
		{"dense layers all", dsv3Like, func(a *Arch) { a.DenseLayers = 61 }, "dense-layers", "dense-layers = 61: must be between 0 and 60"},
		{"dense layers negative", dsv3Like, func(a *Arch) { a.DenseLayers = -1 }, "dense-layers", "dense-layers = -1"},
		{"dense layers of a dense model", func() Arch { return dense }, func(a *Arch) { a.DenseLayers = 2 }, "dense-layers", "needs experts above 1"},
		{"dense ffn negative", dsv3Like, func(a *Arch) { a.DenseFFN = -5 }, "dense-ffn", "dense-ffn = -5"},
		{"moe every", dsv3Like, func(a *Arch) { a.MoEEvery = 100 }, "moe-every", "moe-every = 100: must be between 0 and 58"},
		{"top-k over experts", dsv3Like, func(a *Arch) { a.TopK = 300 }, "top-k", "top-k = 300: must be between 1 and experts (256)"},
		{"top-k without experts", func() Arch { return dense }, func(a *Arch) { a.TopK = 2 }, "top-k", "top-k = 2: needs experts above 1"},
		{"mla latent", dsv3Like, func(a *Arch) { a.MLA.KVLoRARank = 0 }, "mla.kv-lora-rank", "mla.kv-lora-rank = 0: must be between 1"},
		{"mla q rank", dsv3Like, func(a *Arch) { a.MLA.QLoRARank = -1 }, "mla.q-lora-rank", "mla.q-lora-rank = -1"},
		{"mla v", dsv3Like, func(a *Arch) { a.MLA.VHeadDim = 0 }, "mla.v-head-dim", "mla.v-head-dim = 0: must be between 1 and 1024"},
		{"mla head", dsv3Like, func(a *Arch) { a.MLA.QKNopeDim, a.MLA.QKRopeDim = 0, 0 }, "mla.qk-nope-head-dim", "must be above 0"},
		{"mla sliding", dsv3Like, func(a *Arch) { a.LayerTypes, a.SlidingWindow = "sliding,full", 128 }, "layer-types", "MLA models have full-attention layers only"},
		{"layer kind name", hybridLike, func(a *Arch) { a.LayerTypes = "linear,global" }, "layer-types", `layer 1 is "global": each must be one of full, sliding, chunked, linear`},
		{"layer kind empty", hybridLike, func(a *Arch) { a.LayerTypes = "linear,,full" }, "layer-types", `layer 1 is ""`},
		{"layer kinds over layers", func() Arch { return dense }, func(a *Arch) { a.Layers = 2; a.LayerTypes = "full,full,full" }, "layer-types", "names 3 layers, the model has 2"},
		{"window missing", hybridLike, func(a *Arch) { a.SlidingWindow = 0 }, "sliding-window", `sliding-window = 0: must be above 0: layer-types "linear,linear,sliding,full" has sliding or chunked layers`},
		{"chunk missing", func() Arch { return dense }, func(a *Arch) { a.LayerTypes = "chunked,full" }, "sliding-window", "has sliding or chunked layers"},
		{"window negative", func() Arch { return dense }, func(a *Arch) { a.SlidingWindow = -4 }, "sliding-window", "sliding-window = -4"},
		{"linear sizes", hybridLike, func(a *Arch) { a.Linear.KeyDim = 0 }, "linear-attn.key-dim", "linear-attn.key-dim = 0: must be between 1 and 16384: layer-types has linear layers"},
		{"linear groups", hybridLike, func(a *Arch) { a.Linear.ValueHeads = 24 }, "linear-attn.value-heads", "must be a multiple of key-heads (16)"},
		{"linear kernel", hybridLike, func(a *Arch) { a.Linear.ConvKernel = -1 }, "linear-attn.conv-kernel", "linear-attn.conv-kernel = -1"},
		{"linear without layers", func() Arch { return dense }, func(a *Arch) { a.Linear.KeyHeads = 4 }, "linear-attn", "applies to linear layers"},
		{"mtp", dsv3Like, func(a *Arch) { a.MTPLayers = -1 }, "mtp-layers", "mtp-layers = -1: must be between 0 and 64"},
		{"other params", hybridLike, func(a *Arch) { a.OtherParams = -1 }, "other-params", "other-params = -1"},
		{"checkpoint format", dsv3Like, func(a *Arch) { a.Checkpoint.Weights = "fp7" }, "checkpoint.weights", "checkpoint.weights = fp7: must be one of bf16"},
		{"expert format of a dense model", func() Arch { return dense }, func(a *Arch) { a.Checkpoint.Experts = "mxfp4" }, "checkpoint.experts", "needs experts above 1"},
	} {
		a := c.arch()
		c.change(&a)
		ve := asValidation(t, a.Validate())
		if !slices.Contains(ve.Fields(), c.field) || !strings.Contains(ve.Error(), c.msg) {
			t.Errorf("%s: %v: want field %s and %q", c.name, ve, c.field, c.msg)
		}
	}
}
