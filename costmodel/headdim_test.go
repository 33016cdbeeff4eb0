package costmodel

import (
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// A head size given as hidden / heads is the usual one: every figure the same, training and
// serving.
func TestHeadSizeOfHiddenOverHeadsChangesNothing(t *testing.T) {
	for _, s := range []model.Scenario{
		scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 8, 2, 2),
		servingScenario(t, "llama-3-8b", "h100-sxm", 50, 4),
	} {
		r0, err := Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Arch.HeadSize = s.Arch.Hidden / s.Arch.Heads
		r1, err := Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r0, r1) {
			t.Errorf("%s: head size %d changed the report", s.Workload.Mode, s.Arch.HeadSize)
		}
	}
}

// Wider heads than hidden / heads (Qwen3-32B: 64 heads of 128 on 5120): the KV cache per token
// is 2 × layers × KV heads × head size × bytes (256 KiB in bf16), and the attention's
// projections hold hidden × (q + 2 kv) + q × hidden parameters.
func TestHeadSizeWiderThanHidden(t *testing.T) {
	a := model.Arch{ID: "qwen3-32b", Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadSize: 128, FFN: 25600,
		Vocab: 151936, GatedMLP: true}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	l := model.Layout{TP: 1, PP: 1, DP: 1}
	if got := kvCacheBytes(a, l, 64, 1, 1, 2); got != 262144 {
		t.Errorf("KV cache %v bytes a token, want 262144", got)
	}
	l.TP = 8
	if got := kvCacheBytes(a, l, 64, 1, 1, 2); got != 262144/8 {
		t.Errorf("TP 8: KV cache %v bytes a token per GPU, want %v", got, 262144/8)
	}
	if got, want := arch.Of(a).Shapes[0].AttnParams-2*5120, 5120.0*(8192+2*1024)+8192*5120; got != want {
		t.Errorf("attention params %v, want %v", got, want)
	}
	// Decode reads more keys and values than the same model with heads of hidden / heads.
	narrow := a
	narrow.HeadSize = 0
	if kvCacheBytes(a, l, 64, 1, 1, 2) <= kvCacheBytes(narrow, l, 64, 1, 1, 2) {
		t.Error("heads of 128 hold no more KV than heads of 80")
	}
}
