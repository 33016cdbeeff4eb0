package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// Mixtral 8×7B on one node of 8 H100, TP 1, DP 8, EP 8: one expert a GPU.
func epScenario(t *testing.T, imbalance float64, microBatch int) model.Scenario {
	s := scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", 8, 1, 1)
	s.Layout.EP, s.Layout.EPImbalance, s.Layout.MicroBatch = 8, imbalance, microBatch
	s.Workload.GlobalBatch = 8 * microBatch * 4
	return s
}

// The MLP's time on one GPU of the layer, forward, and the pass it comes from.
func epMLP(t *testing.T, s model.Scenario) (passTimes, pass) {
	t.Helper()
	p := newPlan(s)
	ps := layerPass(p.k.Shapes[p.mainKind()], s.Arch, s.Layout, float64(s.Layout.MicroBatch*s.Workload.Seq), float64(s.Workload.Seq),
		float64(s.Layout.MicroBatch), p.e, false, false)
	return p.passTimes(ps), ps
}

// The dense MLP's time as the model timed it before experts.go: the roofline of the active
// experts' FLOPs and the bytes of the weights touched and the activations.
func denseMLPTime(t *testing.T, s model.Scenario) float64 {
	a, l := s.Arch, s.Layout
	tokens := float64(l.MicroBatch * s.Workload.Seq)
	h, f, k, act := float64(a.Hidden), float64(a.FFN), a.MLPMatrices(), float64(a.ActiveExperts())
	tp := float64(l.TP)
	touched := expertsTouched(arch.Of(a).Shapes[0], tokens, l.EPSize(), l.EPSize())
	kn := kernel{flops: 2 * tokens * act * h * f * k / tp, bytes: (touched*h*f*k/tp + tokens*act*(h+k*f/tp)) * 2}
	return newHW(s.Cluster.GPU, s.Workload.Precision).time(kn)
}

// Oracle: with balanced routing (imbalance 1) and many tokens per expert, the expert GEMMs take
// what one large GEMM of their FLOPs takes: today's time, to the grouped GEMM's last tile
// (64 rows of 8 × 8192 = 65,536) and the router's logits (E / (k·f·3) of the FLOPs).
func TestEPImbalanceOneLeavesExpertTimeUnchanged(t *testing.T) {
	s := epScenario(t, 1, 8)
	pt, _ := epMLP(t, s)
	want := denseMLPTime(t, s)
	if m := TokensPerExpert(s.Arch, 8*4096, 8); m != 65536 {
		t.Fatalf("tokens per expert %g, want 65536", m)
	}
	if e := pt.mlp/want - 1; e < 0 || e > 0.002 {
		t.Errorf("expert time %.6g s at imbalance 1, today's %.6g s (%+.3f%%), want within 0.2%% above", pt.mlp, want, 100*e)
	}
}

// Oracle: imbalance 2 doubles the busiest GPU's expert GEMM time (compute-bound) and its
// all-to-all bytes; the model FLOPs do not change.
func TestEPImbalanceTwoDoublesExpertTime(t *testing.T) {
	pt1, ps1 := epMLP(t, epScenario(t, 1, 1))
	pt2, ps2 := epMLP(t, epScenario(t, 2, 1))
	// The router's logits GEMM (E / (k·f·3) = 0.009% of the FLOPs) runs on the GPU's own tokens.
	if r := pt2.mlp / pt1.mlp; math.Abs(r-2) > 2e-4 {
		t.Errorf("expert GEMM time ×%.6f at imbalance 2, want ×2", r)
	}
	if r := ps2.a2aBytes / ps1.a2aBytes; math.Abs(r-2) > 1e-12 {
		t.Errorf("all-to-all bytes ×%.6f at imbalance 2, want ×2", r)
	}
	if ps1.mlp.flops != ps2.mlp.flops {
		t.Errorf("model FLOPs of the MLP changed with the imbalance: %g → %g", ps1.mlp.flops, ps2.mlp.flops)
	}
	r1, r2 := eval(t, epScenario(t, 1, 1)), eval(t, epScenario(t, 2, 1))
	if r1.Detail.ModelFLOPs != r2.Detail.ModelFLOPs || !(r2.StepTime > r1.StepTime) || !(r2.Breakdown.EPComm > r1.Breakdown.EPComm) {
		t.Errorf("imbalance 2: model FLOPs %g → %g (want equal), step %g → %g s and all-to-all %g → %g s (want longer)",
			r1.Detail.ModelFLOPs, r2.Detail.ModelFLOPs, r1.StepTime, r2.StepTime, r1.Breakdown.EPComm, r2.Breakdown.EPComm)
	}
	// Unset is the default, and the default is not balanced.
	r0 := eval(t, epScenario(t, 0, 1))
	rd := eval(t, epScenario(t, DefaultEPImbalance, 1))
	if r0.StepTime != rd.StepTime || !(r0.StepTime > r1.StepTime) {
		t.Errorf("unset imbalance: step %g s, default %g s, balanced %g s", r0.StepTime, rd.StepTime, r1.StepTime)
	}
}

// Grouped-GEMM efficiency: in (0, 1], rising with the tokens per expert, near 1 for large
// segments, and low for the few tokens of fine-grained experts.
func TestGroupedGEMMEfficiency(t *testing.T) {
	prev := 0.0
	for m := 1.0; m <= 1<<20; m *= 1.5 {
		e := GroupedGEMMEfficiency(m)
		if !(e > prev) || e > 1 {
			t.Fatalf("efficiency %g at %g tokens per expert after %g: want rising, ≤ 1", e, m, prev)
		}
		prev = e
	}
	if e := GroupedGEMMEfficiency(1 << 20); e < 0.9999 {
		t.Errorf("efficiency %g at 2^20 tokens per expert, want ≈ 1", e)
	}
	if e := GroupedGEMMEfficiency(64); e != 0.5 {
		t.Errorf("efficiency %g at 64 tokens per expert (half a 128-row tile), want 0.5", e)
	}
	for _, m := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if e := GroupedGEMMEfficiency(m); e != 1 {
			t.Errorf("efficiency %g at %g tokens, want 1", e, m)
		}
	}
	// Qwen3-30B-A3B, 128 experts top-8, one sequence of 512 tokens, no EP: 32 tokens per
	// expert, a third of the GEMMs' rate.
	p := presets(t)
	a, err := p.Model("qwen3-30b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	if m := TokensPerExpert(a, 512, 1); m != 32 {
		t.Errorf("tokens per expert %g, want 32", m)
	}
	_, slow := mlpKernel(arch.Of(a).Shapes[0], float64(a.Hidden), model.Layout{TP: 1}, 512, 2)
	if slow < 3 || slow > 3.05 {
		t.Errorf("Qwen3-30B-A3B at 32 tokens per expert: the expert GEMMs ×%.3f slower, want ≈ 3 (96/32) + the router", slow)
	}
}

// A dense model is untouched: same MLP kernel, no routing work, no all-to-all, and an
// imbalance set on its layout changes nothing.
func TestDenseModelUnaffectedByExperts(t *testing.T) {
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 8, 2, 1)
	a := s.Arch
	sh, h := arch.Of(a).Shapes[0], float64(a.Hidden)
	k, slow := mlpKernel(sh, h, s.Layout, 4096, 2)
	want := kernel{flops: 2 * 4096 * float64(a.Hidden) * float64(a.FFN) * a.MLPMatrices() / 2,
		bytes: (float64(a.Hidden)*float64(a.FFN)*a.MLPMatrices()/2 + 4096*(float64(a.Hidden)+a.MLPMatrices()*float64(a.FFN)/2)) * 2}
	if k != want || slow != 1 {
		t.Errorf("dense MLP kernel %+v ×%g, want %+v ×1", k, slow, want)
	}
	if r := routingKernel(sh, h, s.Layout, 4096, 2); r != (kernel{}) {
		t.Errorf("dense routing work %+v, want none", r)
	}
	if b := a2aBytes(sh, h, s.Layout, 4096, 2); b != 0 {
		t.Errorf("dense all-to-all %g B, want 0", b)
	}
	base := eval(t, s)
	s.Layout.EPImbalance = 3
	r := eval(t, s)
	if r.StepTime != base.StepTime || r.MFU != base.MFU {
		t.Errorf("dense model with imbalance 3: step %g s, MFU %g; without %g s, %g", r.StepTime, r.MFU, base.StepTime, base.MFU)
	}
	// ... and says so.
	said := false
	for _, w := range r.Warnings {
		said = said || strings.HasPrefix(w, "ep imbalance 3 has no effect")
	}
	if !said {
		t.Errorf("no warning that the imbalance does nothing on a dense model: %q", r.Warnings)
	}
}

// A bad imbalance is refused, naming the field.
func TestEPImbalanceValidated(t *testing.T) {
	for _, x := range []float64{0.5, -1, math.NaN(), math.Inf(1), 65} {
		s := epScenario(t, x, 1)
		err := s.Validate()
		var ve model.ValidationError
		if !errors.As(err, &ve) || len(ve) != 1 || ve[0].Field != "ep-imbalance" {
			t.Errorf("imbalance %g: error %v, want one naming ep-imbalance", x, err)
		}
	}
	for _, x := range []float64{0, 1, 1.5, 64} {
		if err := epScenario(t, x, 1).Validate(); err != nil {
			t.Errorf("imbalance %g: %v", x, err)
		}
	}
}

// Serving runs the experts' terms too: with EP the imbalance lengthens the run and its
// all-to-alls; a dense model serves the same with any imbalance set.
func TestServingExperts(t *testing.T) {
	infer := func(id string, tp, ep int, x float64) Report {
		s := scenario(t, id, "h100-sxm", "nvlink4", 8, tp, 1)
		s.Workload.Mode, s.Workload.Requests = model.Infer, 32
		s.Layout.EP, s.Layout.EPImbalance = ep, x
		return eval(t, s)
	}
	r1, r2 := infer("mixtral-8x7b", 2, 4, 1), infer("mixtral-8x7b", 2, 4, 2)
	// Decode's all-to-alls are small, their latency more than their bytes: longer, not double.
	if !(r2.StepTime > r1.StepTime) || !(r2.Breakdown.EPComm > r1.Breakdown.EPComm) {
		t.Errorf("serving at imbalance 2: %g s, all-to-all %g s; at 1: %g s, %g s", r2.StepTime, r2.Breakdown.EPComm, r1.StepTime, r1.Breakdown.EPComm)
	}
	d1, d2 := infer("llama-3-8b", 2, 0, 0), infer("llama-3-8b", 2, 0, 3)
	if d1.StepTime != d2.StepTime {
		t.Errorf("dense serving: %g s with imbalance 3, %g s without", d2.StepTime, d1.StepTime)
	}
}
