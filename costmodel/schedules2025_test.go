package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestSchedule2025Memory: what each 2025 schedule keeps on a middle rank against 1F1B on the
// same PP, from the papers' tables [ZB, DP]: DualPipe holds two stages (weights, gradients and
// optimizer state ×2) and PP + 1 stages' activations; DualPipeV two half stages (×1) and 2p + 1
// half stages' activations; ZB-V two half stages (×1) and 1F1B's p micro-batches (2p halves).
// 1F1B's rank r holds p − r micro-batches.
func TestSchedule2025Memory(t *testing.T) {
	const p, r = 8, 3
	mem := func(sched model.Schedule) Memory {
		s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 64, 8, p)
		s.Layout.Schedule = sched
		s.Workload.GlobalBatch = 64
		rep := eval(t, s)
		return rep.Detail.Stages[r].Memory
	}
	base := mem(model.OneFOneB)
	for _, c := range []struct {
		s       model.Schedule
		weights float64 // × 1F1B's
		acts    float64 // × 1F1B's rank r
	}{
		{model.DualPipe, 2, float64(p+1) / float64(p-r)},
		{model.DualPipeV, 1, (float64(p) + 0.5) / float64(p-r)},
		{model.ZBV, 1, float64(p) / float64(p-r)},
	} {
		got := mem(c.s)
		if relErr(got.Weights, c.weights*base.Weights) > 1e-9 || relErr(got.Optimizer, c.weights*base.Optimizer) > 1e-9 {
			t.Errorf("%v: weights %g, optimizer %g; want %g× 1F1B's %g, %g", c.s, got.Weights, got.Optimizer, c.weights, base.Weights, base.Optimizer)
		}
		if relErr(got.Activations, c.acts*base.Activations) > 1e-9 {
			t.Errorf("%v: activations %g, want %.4g× 1F1B's %g", c.s, got.Activations, c.acts, base.Activations)
		}
	}
}

// TestDualPipeHidesAllToAll: on a MoE model DualPipeV's forward–backward pairs hide expert
// all-to-all time that ZB-V's passes (the same V, no pairs) leave exposed; the breakdown still
// sums to the step.
func TestDualPipeHidesAllToAll(t *testing.T) {
	s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 2048, 1, 16)
	a, err := presets(t).Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	s.Arch = a
	s.Layout.EP = 64
	s.Workload.Seq, s.Workload.GlobalBatch = 4096, 4096
	run := func(sched model.Schedule) Report {
		s.Layout.Schedule = sched
		return eval(t, s)
	}
	zbv, dual := run(model.ZBV), run(model.DualPipeV)
	if !(dual.Breakdown.EPComm < zbv.Breakdown.EPComm) {
		t.Errorf("DualPipeV exposes %g s of all-to-all, ZB-V %g s: the pairs should hide some", dual.Breakdown.EPComm, zbv.Breakdown.EPComm)
	}
	for _, r := range []Report{zbv, dual} {
		bd := r.Breakdown
		total := bd.Compute + bd.Recompute + bd.TPComm + bd.EPComm + bd.PPComm + bd.DPComm + bd.Bubble + bd.Optimizer + bd.Offload
		if math.Abs(total-r.StepTime) > 1e-6*r.StepTime {
			t.Errorf("%s: breakdown sums to %.6g s, step %.6g s", r.Layout.Schedule, total, r.StepTime)
		}
	}
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}
