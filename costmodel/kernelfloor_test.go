package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// The per-kernel floor is cycles at the GPU's clock (kernelFloorOn): 4 µs at H100 SXM's
// 1980 MHz, where it was fitted, 5.6 µs at an A100's 1410 MHz, and kernelFloor where the clock
// is not known (0, or a value no GPU has).
func TestKernelFloorByClock(t *testing.T) {
	for _, c := range []struct {
		mhz, want float64
	}{{1980, 4e-6}, {1410, 4e-6 * 1980 / 1410}, {2520, 4e-6 * 1980 / 2520}, {0, kernelFloor}, {-5, kernelFloor},
		{math.NaN(), kernelFloor}, {math.Inf(1), kernelFloor}} {
		got := kernelFloorOn(model.GPU{BoostClockMHz: c.mhz})
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("clock %v MHz: floor %.4g s, want %.4g", c.mhz, got, c.want)
		}
	}
	p := presets(t)
	for id, mhz := range map[string]float64{"a100-sxm-80gb": 1410, "a100-sxm-40gb": 1410, "h100-sxm": 1980, "h200-sxm": 1980} {
		if g := mustGPU(t, p, id); g.BoostClockMHz != mhz {
			t.Errorf("%s: boost clock %v MHz, want %v (its datasheet's)", id, g.BoostClockMHz, mhz)
		}
	}
}

// A batch-1 decode step of a small model is mostly its kernels' fixed time, and that time is
// the A100's slower clock's: Qwen3-1.7B's 28 layers (12 kernels each) on an A100 80GB take
// 336 × (5.6 − 4) µs = 0.54 ms more a step than at H100 SXM's clock with the same memory. The
// same GPU with its clock at 1980 MHz is the control: the layers' difference is exactly that.
func TestA100DecodeStepPaysClockFloor(t *testing.T) {
	p := presets(t)
	a := model.Arch{ID: "qwen3-1.7b", Name: "Qwen3 1.7B", Layers: 28, Hidden: 2048, Heads: 16, KVHeads: 8,
		FFN: 6144, Vocab: 151936, GatedMLP: true, TiedEmbeddings: true, MaxSeq: 40960}
	step := func(mhz float64) float64 {
		g := mustGPU(t, p, "a100-sxm-80gb")
		g.BoostClockMHz = mhz
		return oneDecodeStep(t, p, a, g)
	}
	a100, atH100Clock := step(1410), step(1980)
	want := 28 * 12 * (kernelFloorCycles/1410e6 - kernelFloorCycles/1980e6)
	if d := a100 - atH100Clock; math.Abs(d-want) > 1e-9 {
		t.Errorf("A100 step %.3f ms, at 1980 MHz %.3f ms: %.3f ms apart, want %.3f", 1e3*a100, 1e3*atH100Clock, 1e3*d, 1e3*want)
	}
	if !(a100 > 4.0e-3) {
		t.Errorf("A100 batch-1 step of Qwen3-1.7B %.2f ms; TT340 measured 4.6 ms, want above 4.0", 1e3*a100)
	}
}

// A layer with per-head q/k norms runs two more kernels a decode step: Qwen3's step on one GPU
// is longer by 2 × layers × the floor with them than without.
func TestQKNormKernels(t *testing.T) {
	s := scenario(t, "qwen3-32b", "h100-sxm", "nvlink4", 1, 1, 1)
	if !s.Arch.QKNorm {
		t.Fatal("qwen3-32b preset without q/k norms")
	}
	sh := arch.Of(s.Arch).Shapes[0]
	plain := sh
	plain.QKNorm = false
	if got := shapeKernels(sh) - shapeKernels(plain); got != qkNormKernels {
		t.Errorf("q/k norms add %g kernels, want %d", got, qkNormKernels)
	}
}

// A calibration's GEMM curve (calibrate --from TRACE: the GPU's GEMMLatency) moves the serving
// engine's step the way the curve says: each of a layer's GEMM kernels pays the floor plus what
// the box's GEMM latency is above the built-in curve's 6 µs. Llama-3-8B's batch-1 decode step on
// one H100 (32 layers, 4 GEMMs each) is longer by 32 × 4 × 6 µs at 12 µs a GEMM, shorter by
// 32 × 4 × 4 µs (the floor, its limit) at 1 µs, and unchanged at the built-in 6 µs or with no
// calibration.
func TestServingStepTakesGEMMCurve(t *testing.T) {
	p := presets(t)
	step := func(lat float64) float64 {
		s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 1, 1, 1)
		s.Workload = model.Workload{Mode: model.Infer, PromptTokens: 128, GenTokens: 128, Requests: 1, Precision: model.BF16}
		s.Cluster.GPU.GEMMLatency = lat
		c := newPlan(s).servingCost()
		b := serve.Batch{DecodeSeqs: 1, DecodeCtx: 192, Samples: 1}
		return c.Stage(0, &b).Seconds
	}
	base := step(0)
	a, err := p.Model("llama-3-8b")
	if err != nil {
		t.Fatal(err)
	}
	sh := arch.Of(a).Shapes[0]
	if g := gemmKernels(sh); g != 4 {
		t.Fatalf("llama-3-8b: %g GEMM kernels a layer, want 4", g)
	}
	floor := kernelFloorOn(mustGPU(t, p, "h100-sxm"))
	for _, c := range []struct{ lat, want float64 }{
		{12e-6, 32 * 4 * 6e-6},
		{gemmLatency, 0},
		{3e-6, -32 * 4 * 3e-6},
		{1e-6, -32 * 4 * floor}, // the floor plus −5 µs is less than nothing: 0 a kernel
	} {
		if d := step(c.lat) - base; math.Abs(d-c.want) > 1e-12 {
			t.Errorf("GEMM latency %.0f µs: step %+.4f ms against none, want %+.4f", 1e6*c.lat, 1e3*d, 1e3*c.want)
		}
	}
	// A larger latency is a longer step, the step with none the fitted one's.
	if !(step(9e-6) > base && step(4e-6) < base && base > 0) {
		t.Errorf("steps: none %.4f ms, 9 µs %.4f, 4 µs %.4f", 1e3*base, 1e3*step(9e-6), 1e3*step(4e-6))
	}
}

// A GPU family's own cycles replace NVIDIA's: CDNA 3's presets pay their 21,500 cycles at
// 2100 MHz (10.2 µs), NVIDIA's the default 7920; cycles without a clock still pay kernelFloor.
func TestKernelFloorFamilyCycles(t *testing.T) {
	if got, want := kernelFloorOn(model.GPU{BoostClockMHz: 2100, KernelFloorCycles: 21500}), 21500/2100e6; math.Abs(got-want) > 1e-15 {
		t.Errorf("21500 cycles at 2100 MHz: %.4g s, want %.4g", got, want)
	}
	if got := kernelFloorOn(model.GPU{KernelFloorCycles: 21500}); got != kernelFloor {
		t.Errorf("cycles without a clock: %.4g s, want kernelFloor %.4g", got, kernelFloor)
	}
	if got, want := kernelFloorOn(model.GPU{BoostClockMHz: 2100, KernelFloorCycles: math.Inf(1)}), kernelFloorCycles/2100e6; got != want {
		t.Errorf("infinite cycles: %.4g s, want NVIDIA's %.4g", got, want)
	}
	p := presets(t)
	for _, id := range []string{"mi300x", "mi325x"} {
		g := mustGPU(t, p, id)
		if f := kernelFloorOn(g); math.Abs(f-21500/2100e6) > 1e-12 {
			t.Errorf("%s: floor %.4g s, want CDNA 3's 21500 cycles at 2100 MHz", id, f)
		}
	}
	for _, id := range []string{"h100-sxm", "h200-sxm", "b200", "a100-sxm-80gb"} {
		if g := mustGPU(t, p, id); g.KernelFloorCycles != 0 {
			t.Errorf("%s: kernel_floor_cycles %v, want NVIDIA's default (0)", id, g.KernelFloorCycles)
		}
	}
}

// oneDecodeStep is one engine step of a single sequence at 192 tokens of context, model a on one
// GPU g, bf16 (the serving cost alone, no simulation).
func oneDecodeStep(t *testing.T, p *assets.Presets, a model.Arch, g model.GPU) float64 {
	s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
		Cluster:  model.Cluster{GPU: g, GPUs: 1, GPUsPerNode: 1, Intra: mustLink(t, p, g.NativeLink), Inter: mustLink(t, p, model.DefaultInter), NICsPerNode: 1},
		Layout:   model.Layout{TP: 1, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
		Workload: model.Workload{Mode: model.Infer, PromptTokens: 128, GenTokens: 128, Requests: 1, Precision: model.BF16}}
	c := newPlan(s).servingCost()
	b := serve.Batch{DecodeSeqs: 1, DecodeCtx: 192, Samples: 1}
	return c.Stage(0, &b).Seconds
}

// Ampere's matmuls stream their weights at gemm_memory_eff (0.77 on the A100, §8.1), the rest of
// a decode step at memory_eff: a batch-1 step of Llama 3 8B (weight-bound) on an A100 80GB is
// longer by the weights' bytes at the two rates, its KV reads and element-wise work unchanged;
// with gemm_memory_eff equal to memory_eff, or 0, it is the same step. A serving calibration's
// memory efficiency replaces both (ApplyGPU).
func TestAmpereMatmulStreaming(t *testing.T) {
	p := presets(t)
	a, err := p.Model("llama-3-8b")
	if err != nil {
		t.Fatal(err)
	}
	step := func(g model.GPU) float64 { return oneDecodeStep(t, p, a, g) }
	g := mustGPU(t, p, "a100-sxm-80gb")
	if g.GEMMMemoryEff != 0.77 || g.MemoryEff != 0.85 {
		t.Fatalf("a100-sxm-80gb gemm_memory_eff %g, memory_eff %g; want 0.77 and 0.85", g.GEMMMemoryEff, g.MemoryEff)
	}
	ampere := step(g)
	same := g
	same.GEMMMemoryEff = g.MemoryEff
	off := g
	off.GEMMMemoryEff = 0
	at85, at0 := step(same), step(off)
	if at85 != at0 {
		t.Errorf("gemm_memory_eff = memory_eff: %.4f ms, 0: %.4f ms; want the same step", 1e3*at85, 1e3*at0)
	}
	// The matmuls' weights, bf16: the layers' projections and MLP (about 6.98B of Llama 3 8B's
	// parameters) and the output projection (0.53B); the embedding is a lookup, not a matmul.
	h := float64(a.Hidden)
	layerWeights := 2 * (float64(a.Layers)*(2*h*h+2*h*h*float64(a.KVHeads)/float64(a.Heads)+3*h*float64(a.FFN)) + h*float64(a.Vocab))
	bw := g.HBMBandwidth
	want := layerWeights/(bw*0.77) - layerWeights/(bw*0.85)
	t.Logf("A100 batch-1 step of Llama 3 8B: %.3f ms at 0.77, %.3f ms at 0.85 (the matmuls' weights alone: %.3f ms apart)", 1e3*ampere, 1e3*at85, 1e3*want)
	if d := ampere - at85; math.Abs(d/want-1) > 0.02 {
		t.Errorf("A100 step %.3f ms at 0.77, %.3f ms at 0.85: %.3f ms apart, want about %.3f (the matmuls' weights at the two rates)",
			1e3*ampere, 1e3*at85, 1e3*d, 1e3*want)
	}
	cal := model.ServingCalibration{MemoryEff: 0.7}.ApplyGPU(g)
	if cal.MemoryEff != 0.7 || cal.GEMMStreamEff() != 0.7 {
		t.Errorf("calibrated memory_eff 0.7: memory %g, matmul streaming %g; want both 0.7", cal.MemoryEff, cal.GEMMStreamEff())
	}
}
