package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// dsv3 is DeepSeek-V3's shape from its config.json (the preset's, kept here so that the engine's
// tests do not depend on the preset file).
func dsv3() model.Arch {
	return model.Arch{ID: "dsv3-test", Name: "DeepSeek-V3 (test)", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128,
		FFN: 2048, Vocab: 129280, GatedMLP: true, Experts: 256, TopK: 8, SharedExperts: 1, SharedFFN: 2048,
		DenseLayers: 3, DenseFFN: 18432, MaxSeq: 163840,
		MLA: model.MLA{QLoRARank: 1536, KVLoRARank: 512, QKNopeDim: 128, QKRopeDim: 64, VHeadDim: 128}}
}

func inferScenario(t testing.TB, a model.Arch, gpu string, gpus, tp, ep int) model.Scenario {
	s := scenario(t, "llama-2-7b", gpu, "nvlink4", gpus, tp, 1)
	s.Arch = a
	s.Layout.EP = ep
	s.Workload.Mode = model.Infer
	s.Workload.Rate = 4
	s.Workload.Requests = 64
	s.Workload.PromptTokens, s.Workload.GenTokens = 1000, 200
	return s
}

// Evaluating a MoE of one expert routed top-1, or a model whose sliding window covers the whole
// context, gives the dense, full-attention model's report: the kinds add nothing of their own.
func TestKindsReduceToOneShape(t *testing.T) {
	base := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 8, 2, 2)
	want := eval(t, base)
	one := base
	one.Arch.Experts, one.Arch.TopK = 1, 1
	slide := base
	slide.Arch.LayerTypes, slide.Arch.SlidingWindow = "sliding,full", base.Workload.Seq
	for name, s := range map[string]model.Scenario{"one expert": one, "window ≥ seq": slide} {
		got := eval(t, s)
		if got.StepTime != want.StepTime || got.Memory.Total != want.Memory.Total || got.ModelTFLOPS != want.ModelTFLOPS {
			t.Errorf("%s: step %.6g s, %.6g B, %.6g TFLOP/s; dense %.6g s, %.6g B, %.6g", name,
				got.StepTime, got.Memory.Total, got.ModelTFLOPS, want.StepTime, want.Memory.Total, want.ModelTFLOPS)
		}
	}
}

// A window shorter than the sequence cuts the attention's time and never adds to anything.
func TestSlidingWindowCutsAttention(t *testing.T) {
	base := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 8, 8, 1)
	base.Workload.Seq = 32768
	base.Workload.GlobalBatch = 8
	full := eval(t, base)
	s := base
	s.Arch.LayerTypes, s.Arch.SlidingWindow = "sliding,sliding,sliding,full", 1024
	slid := eval(t, s)
	if !(slid.StepTime < 0.8*full.StepTime) {
		t.Errorf("3 of 4 layers with a 1K window at 32K: step %.4g s, full %.4g s", slid.StepTime, full.StepTime)
	}
}

// DeepSeek-V3 on a pipeline: its 3 dense layers are lighter than its MoE layers by work (the
// dense MLP is 18432 wide; 8 + 1 experts of 2048 are 18432 too, but MLA is the same), so the
// split balances work: no stage carries more than its share plus one layer.
func TestMixedModelStagesBalanceWork(t *testing.T) {
	m := arch.Of(dsv3())
	for _, n := range []int{2, 4, 8, 16} {
		layers, kinds := stageKinds(m, n, 4096)
		sum := 0
		w := make([]float64, n)
		var total, heaviest float64
		for vs := range layers {
			sum += layers[vs]
			if layers[vs] < 1 {
				t.Errorf("PP %d: stage %d empty (%v)", n, vs, layers)
			}
			for k, c := range kinds[vs] {
				w[vs] += float64(c) * layerWork(m.Shapes[k], 4096)
			}
			total += w[vs]
		}
		for k := range m.Shapes {
			heaviest = math.Max(heaviest, layerWork(m.Shapes[k], 4096))
		}
		for vs := range w {
			if w[vs] > total/float64(n)+heaviest {
				t.Errorf("PP %d: stage %d work %.4g above the mean %.4g + one layer", n, vs, w[vs], total/float64(n))
			}
		}
		if sum != 61 {
			t.Errorf("PP %d: %d layers placed", n, sum)
		}
	}
}

// DeepSeek-V3 served on 8 H200 in fp8: fits with TP 8 and with attention data-parallel and experts
// spread (TP 1, DP 8, EP 8); the MLA cache is the latent (576 elements a token and layer), whole on
// every GPU, so TP 8 holds no more tokens per GPU than TP 1 holds per replica.
func TestDeepSeekServes(t *testing.T) {
	a := dsv3()
	for _, c := range []struct{ tp, ep int }{{8, 1}, {1, 8}} {
		s := inferScenario(t, a, "h200-sxm", 8, c.tp, c.ep)
		s.Workload.Weights = "fp8"
		r := eval(t, s)
		if !r.Memory.Fits {
			t.Errorf("TP %d EP %d: does not fit: %+v", c.tp, c.ep, r.Memory)
		}
		if r.Inference == nil || !(r.Inference.TPOT > 0) || math.IsNaN(r.Inference.TPOT) {
			t.Fatalf("TP %d EP %d: no serving figures", c.tp, c.ep)
		}
		t.Logf("TP %d EP %d: TTFT %.1f ms TPOT %.1f ms, %.1f GiB/GPU, KV %.1f GiB", c.tp, c.ep,
			r.Inference.TTFT*1e3, r.Inference.TPOT*1e3, r.Memory.Total/model.GiB, r.Memory.KVCache/model.GiB)
	}
}

// gpt-oss-120b's shape (its config.json): 36 layers alternating a 128-token window and full
// attention, 128 experts of 2880, top-4, shipped with mxfp4 experts and bf16 attention.
func gptOSS120b() model.Arch {
	return model.Arch{ID: "gpt-oss-120b-test", Layers: 36, Hidden: 2880, Heads: 64, KVHeads: 8, HeadSize: 64,
		FFN: 2880, Vocab: 201088, GatedMLP: true, Experts: 128, TopK: 4, MaxSeq: 131072,
		LayerTypes: "sliding,full", SlidingWindow: 128, Checkpoint: model.Checkpoint{Experts: "mxfp4"}}
}

// "Does gpt-oss-120b fit on one H100?": with its own mxfp4 experts (4.25 bits) yes, about 65 GB
// of weights; stored all in bf16 (--expert-weights bf16) no.
func TestExpertWeightsFromCheckpoint(t *testing.T) {
	s := inferScenario(t, gptOSS120b(), "h100-sxm", 1, 1, 1)
	r := eval(t, s)
	if !r.Memory.Fits || r.Memory.Weights < 60e9 || r.Memory.Weights > 70e9 {
		t.Errorf("mxfp4 experts: fits %v, weights %.1f GB, want 60–70 GB", r.Memory.Fits, r.Memory.Weights/1e9)
	}
	s.Workload.ExpertWeights = "bf16"
	if r := eval(t, s); r.Memory.Fits {
		t.Errorf("bf16 experts: fits with %.1f GB of weights", r.Memory.Weights/1e9)
	}
	// --weights alone sets the experts too.
	s.Workload.ExpertWeights, s.Workload.Weights = "", "fp8"
	if l, e := s.ServeWeights(); l != "fp8" || e != "fp8" {
		t.Errorf("--weights fp8: layers %q, experts %q", l, e)
	}
}

// The parts of a GPU's parameters add up to what it holds, for DeepSeek-V3 on a pipeline with
// expert parallelism, training and serving.
func TestParamPartsAddUp(t *testing.T) {
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		s := inferScenario(t, dsv3(), "h200-sxm", 64, 1, 8)
		s.Layout.PP, s.Layout.DP = 8, 8
		s.Workload.Mode = mode
		s.Workload.Seq, s.Workload.GlobalBatch = 4096, 64
		r := eval(t, s)
		for i, st := range r.Detail.Stages {
			p := st.Parts
			sum := p.Attention + p.DenseMLP + p.Shared + p.Routed + p.Ends
			if math.Abs(sum-st.ParamsOnGPU) > 1e-9*st.ParamsOnGPU || p.Routed <= 0 {
				t.Errorf("%v stage %d: parts %+v sum to %.6g, holds %.6g", mode, i, p, sum, st.ParamsOnGPU)
			}
		}
		if r.Detail.Stages[0].Parts.DenseMLP <= 0 || r.Detail.Stages[7].Parts.DenseMLP != 0 {
			t.Errorf("%v: the 3 dense layers belong to stage 0 only: %+v / %+v", mode, r.Detail.Stages[0].Parts, r.Detail.Stages[7].Parts)
		}
	}
}

// Sparse indexed attention serves a long context faster than dense MLA: at 64K tokens each decode
// step's attention reads 2048 latents a sequence instead of 64K (the indexer still scores them all,
// reading its 128-element keys). One sequence's step is mostly weights and fixed costs, so the
// saving is the attention's share, about a tenth.
func TestIndexerSpeedsLongDecode(t *testing.T) {
	dense := inferScenario(t, dsv3(), "h200-sxm", 8, 8, 1)
	dense.Workload.PromptTokens, dense.Workload.GenTokens, dense.Workload.Requests = 65536, 256, 1
	dense.Workload.Weights = "fp8"
	sparse := dense
	sparse.Arch.Indexer = model.Indexer{Heads: 64, HeadDim: 128, TopK: 2048}
	d, s := eval(t, dense), eval(t, sparse)
	if !(s.Inference.TPOT < 0.95*d.Inference.TPOT) {
		t.Errorf("TPOT at 64K: sparse %.2f ms, dense %.2f ms", s.Inference.TPOT*1e3, d.Inference.TPOT*1e3)
	}
	t.Logf("64K context: TPOT dense %.2f ms, sparse %.2f ms", d.Inference.TPOT*1e3, s.Inference.TPOT*1e3)
}

// Expert tensor parallelism: ETP = TP is the default exactly; ETP 1 on Mixtral 8×7B at TP 2 × EP 4
// (as Megatron's recipes run experts) drops the MLP's TP all-reduce, spreads the experts over an
// 8-GPU all-to-all, and holds the same parameters per GPU.
func TestETP(t *testing.T) {
	s := scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", 64, 2, 4)
	s.Layout.EP = 4
	base := eval(t, s)
	s.Layout.ETP = 2
	if r := eval(t, s); r.StepTime != base.StepTime || r.Memory.Total != base.Memory.Total {
		t.Errorf("ETP = TP: step %.6g s, memory %.6g; default %.6g s, %.6g", r.StepTime, r.Memory.Total, base.StepTime, base.Memory.Total)
	}
	s.Layout.ETP = 1
	r := eval(t, s)
	if r.Detail.Stages[0].ParamsOnGPU != base.Detail.Stages[0].ParamsOnGPU {
		t.Errorf("ETP 1: %.6g params a GPU, ETP 2 %.6g", r.Detail.Stages[0].ParamsOnGPU, base.Detail.Stages[0].ParamsOnGPU)
	}
	if !(r.Breakdown.TPComm < base.Breakdown.TPComm) || !(r.Breakdown.EPComm > base.Breakdown.EPComm) {
		t.Errorf("ETP 1: TP comm %.4g s (ETP 2: %.4g), all-to-all %.4g s (%.4g)", r.Breakdown.TPComm, base.Breakdown.TPComm, r.Breakdown.EPComm, base.Breakdown.EPComm)
	}
	var a2a *CollectiveUse
	for i := range r.Collectives {
		if r.Collectives[i].Comm == "ep" {
			a2a = &r.Collectives[i]
		}
	}
	if a2a == nil || a2a.GPUs != 8 {
		t.Errorf("ETP 1 at TP 2 × EP 4: all-to-all %+v, want 8 GPUs", a2a)
	}
	t.Logf("Mixtral 8x7B TP 2 EP 4: ETP 2 %.3f s %.0f TFLOP/s; ETP 1 %.3f s %.0f TFLOP/s", base.StepTime, base.ModelTFLOPS, r.StepTime, r.ModelTFLOPS)
	// Validation names the field.
	s.Layout.ETP = 3
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "etp = 3: must divide tp (2)") {
		t.Errorf("ETP 3 at TP 2: %v", err)
	}
	d := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 8, 2, 1)
	d.Layout.ETP = 1
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "etp = 1: must be 0 or tp (2): the model is dense") {
		t.Errorf("ETP on a dense model: %v", err)
	}
}
