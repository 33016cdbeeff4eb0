package static

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestArchLine(t *testing.T) {
	dense := model.Arch{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 128256, GatedMLP: true}
	if l := ArchLine(dense); l != "" {
		t.Errorf("a dense one-shape model: %q, want none", l)
	}
	ds := model.Arch{Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, FFN: 2048, Vocab: 129280, GatedMLP: true,
		Experts: 256, TopK: 8, SharedExperts: 1, SharedFFN: 2048, DenseLayers: 3, DenseFFN: 18432,
		MLA: model.MLA{QLoRARank: 1536, KVLoRARank: 512, QKNopeDim: 128, QKRopeDim: 64, VHeadDim: 128}}
	for _, want := range []string{"3 dense + 58 MoE layers (256 experts of 2048, top-8, + 1 shared of 2048)",
		"attention MLA (latent 512 + rope 64 cached a token)", "671.0B params, 37.6B active (36.6B without the input embedding)"} {
		if l := ArchLine(ds); !strings.Contains(l, want) {
			t.Errorf("DeepSeek-V3: %q lacks %q", l, want)
		}
	}
	tied := ds
	tied.TiedEmbeddings = true // the table is the output head: no second count
	if l := ArchLine(tied); strings.Contains(l, "without the input embedding") {
		t.Errorf("tied embeddings: %q", l)
	}
	next := dense
	next.LayerTypes = "linear,linear,linear,full"
	next.Linear = model.LinearAttn{KeyHeads: 16, ValueHeads: 32, KeyDim: 128, ValueDim: 128, ConvKernel: 4}
	if l := ArchLine(next); !strings.Contains(l, "attention 24 linear (a ") || !strings.Contains(l, "+ 8 full") {
		t.Errorf("linear layers: %q", l)
	}
}

// The layout line names ETP below TP and the two-hop dispatch of a MoE model's all-to-alls.
func TestLayoutLineExperts(t *testing.T) {
	s := model.Scenario{Arch: model.Arch{Experts: 8, TopK: 2},
		Layout: model.Layout{TP: 2, PP: 1, DP: 8, EP: 8, ETP: 1, EPDispatch: model.EPDispatchTwoHop}, Workload: model.Workload{Mode: model.Infer}}
	if l := LayoutLine(s); !strings.Contains(l, "EP=8 ETP=1 imb=1.06 two-hop") {
		t.Errorf("layout line %q", l)
	}
}
