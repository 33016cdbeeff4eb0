package costmodel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Make it fit: nothing for a scenario that fits; for one that does not, a change whose scenario
// fits, evaluated as reported, and no slower than any other single change tried.
func TestMakeItFit(t *testing.T) {
	fits := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 2, 1)
	if f, err := MakeItFit(fits); err != nil || f != nil {
		t.Fatalf("a scenario that fits: %+v, %v", f, err)
	}

	// llama-3-70b on 16 H100s, TP 8 × DP 2: 18 bytes a parameter of Adam's state do not fit;
	// ZeRO over two replicas halves too little; offloading to the host does, on these GPUs.
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 1)
	r := eval(t, s)
	if r.Memory.Fits {
		t.Fatalf("the case fits already (%.1f GiB)", r.Memory.Total/model.GiB)
	}
	f, err := MakeItFit(s)
	if err != nil || f == nil {
		t.Fatalf("no change found: %v", err)
	}
	got, err := EvaluateFast(f.Scenario)
	if err != nil || !got.Memory.Fits || got.StepTime != f.StepTime || got.Memory.Total != f.Memory {
		t.Fatalf("%s: fits %v, step %g (reported %g), memory %g (reported %g), %v", f.What, got.Memory.Fits,
			got.StepTime, f.StepTime, got.Memory.Total, f.Memory, err)
	}
	// No single knob change that fits is faster.
	for _, edit := range []func(*model.Scenario){
		func(c *model.Scenario) { c.Layout.Recompute = model.RecomputeSelective },
		func(c *model.Scenario) { c.Layout.Recompute = model.RecomputeFull },
		func(c *model.Scenario) { c.Layout.SequenceParallel = true },
		func(c *model.Scenario) { c.Layout.ZeRO = 1 },
		func(c *model.Scenario) { c.Layout.ZeRO = 2 },
		func(c *model.Scenario) { c.Layout.ZeRO = 3 },
		func(c *model.Scenario) { c.Layout.Offload = model.OffloadActivations },
		func(c *model.Scenario) { c.Layout.Offload = model.OffloadOptimizer },
		func(c *model.Scenario) { c.Layout.Offload = model.OffloadOptimizerWeights },
	} {
		c := s
		edit(&c)
		if cr, err := EvaluateFast(c); err == nil && cr.Memory.Fits && cr.StepTime < f.StepTime {
			t.Errorf("%+v fits in %g s, faster than the change found (%s, %g s)", c.Layout, cr.StepTime, f.What, f.StepTime)
		}
	}
	if f.Scenario.Cluster.GPUs != s.Cluster.GPUs {
		t.Errorf("%s: more GPUs, though offloading fits on these", f.What)
	}
	// An offloading change says what it keeps in host memory, as its own evaluation does.
	if f.Scenario.Layout.Offload != model.OffloadNone && (f.Host != got.Memory.Host || f.Host <= 0 || f.HostCapacity != got.Memory.HostCapacity) {
		t.Errorf("%s: host %g of %g, its evaluation %g of %g", f.What, f.Host, f.HostCapacity, got.Memory.Host, got.Memory.HostCapacity)
	}
	t.Logf("%s: step %.3g s, %.1f of %.1f GiB", f.What, f.StepTime, f.Memory/model.GiB, f.Capacity/model.GiB)

	// Nothing on one RTX 4090 makes llama-2-70b train (its 16-bit gradients alone are 141 GB):
	// then, and only then, more GPUs.
	big := scenario(t, "llama-2-70b", "rtx-4090", "pcie4", 1, 1, 1)
	big.Cluster.GPUsPerNode, big.Cluster.NICsPerNode = 1, 1
	if f, err := MakeItFit(big); err != nil || (f != nil && f.Scenario.Cluster.GPUs == 1) {
		t.Errorf("llama-2-70b on one RTX 4090: %+v, %v", f, err)
	}

	// Serving llama-2-13b (26 GB in bf16) on one RTX 4090: lighter weights or more GPUs.
	inf := scenario(t, "llama-2-13b", "rtx-4090", "pcie4", 1, 1, 1)
	inf.Workload.Mode = model.Infer
	f, err = MakeItFit(inf)
	if err != nil || f == nil || (!strings.Contains(f.What, "GPUs") && !strings.Contains(f.What, "weights") && !strings.Contains(f.What, "KV")) {
		t.Fatalf("serving: %+v, %v", f, err)
	}
	t.Logf("serving: %s, %.1f of %.1f GiB", f.What, f.Memory/model.GiB, f.Capacity/model.GiB)
}

// TestKnobSavings: each entry is the change evaluated alone, and what it saves is the
// difference of the two fullest GPUs; full recompute saves, offloading the optimizer saves
// 14 B a parameter (TestOffloadOracle), and none of the changes is the current setting.
func TestKnobSavings(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 1)
	base := eval(t, s)
	ks, err := KnobSavings(s)
	if err != nil || len(ks) < 6 {
		t.Fatalf("%d savings, %v", len(ks), err)
	}
	seen := map[string]KnobSaving{}
	for _, k := range ks {
		seen[k.What] = k
		if !near(k.Saved, base.Memory.Total-k.Memory) {
			t.Errorf("%s: saved %g, but %g − %g", k.What, k.Saved, base.Memory.Total, k.Memory)
		}
	}
	if _, ok := seen["recompute none"]; ok {
		t.Error("the current recompute is listed as a change")
	}
	if k, ok := seen["recompute full"]; !ok || k.Saved <= 0 || k.StepTime <= base.StepTime {
		t.Errorf("recompute full: %+v (step before %g s)", k, base.StepTime)
	}
	params := base.Detail.Stages[0].ParamsOnGPU
	if k, ok := seen["offload optimizer"]; !ok || !near(k.Saved, 14*params) {
		t.Errorf("offload optimizer: %+v, want %g saved", k, 14*params)
	}
	s.Workload.Mode = model.Infer
	if ks, err := KnobSavings(s); err != nil || ks != nil {
		t.Errorf("serving: %v, %v", ks, err)
	}
}

// Split the sequence: Llama 3 8B at 64K tokens on 16 H100s, TP 8 × DP 2 with selective
// recompute, needs more than a GPU holds; the fastest change that fits splits the sequence over
// CP ranks, and its name says so, with degrees whose product is the GPUs (it read "TP 4 × PP 1
// × DP 1" for 16 GPUs before CP was named).
func TestMakeItFitSplitsTheSequence(t *testing.T) {
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 16, 8, 1)
	s.Workload.Seq, s.Workload.GlobalBatch = 65536, 16
	s.Layout.Recompute = model.RecomputeSelective
	if r := eval(t, s); r.Memory.Fits {
		t.Fatalf("fits already (%.1f GiB)", r.Memory.Total/model.GiB)
	}
	f, err := MakeItFit(s)
	if err != nil || f == nil {
		t.Fatalf("no change found: %v", err)
	}
	l := f.Scenario.Layout
	if l.CPSize() < 2 {
		t.Fatalf("%s: CP %d; want the sequence split", f.What, l.CPSize())
	}
	want := fmt.Sprintf("TP %d × CP %d × PP %d × DP %d", l.TP, l.CPSize(), l.PP, l.DP)
	if !strings.HasPrefix(f.What, want) || l.TP*l.CPSize()*l.PP*l.DP != s.Cluster.GPUs {
		t.Errorf("%q: want it to start %q, degrees multiplying to %d GPUs", f.What, want, s.Cluster.GPUs)
	}
}

// "To fit" is never slower than Search's fastest layout that fits (with every knob free): the
// single changes could be twice as slow (recompute full at 32K tokens where CP with ZeRO 3
// fits), and the answer then names the knobs the layout changes beside the split.
func TestMakeItFitNoSlowerThanSearch(t *testing.T) {
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 16, 8, 1)
	s.Workload.Seq, s.Workload.GlobalBatch = 65536, 16
	f, err := MakeItFit(s)
	if err != nil || f == nil {
		t.Fatalf("no change found: %v", err)
	}
	res, err := Search(s, SearchOptions{Objective: ObjTime})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Feasible {
			if f.StepTime > c.Report.StepTime*(1+1e-12) {
				t.Errorf("to fit: %s, %.4g s; search's best %+v runs %.4g s", f.What, f.StepTime, c.Layout, c.Report.StepTime)
			}
			break
		}
	}
	if f.Scenario.Layout.ZeRO != s.Layout.ZeRO && !strings.Contains(f.What, fmt.Sprintf("ZeRO %d", f.Scenario.Layout.ZeRO)) {
		t.Errorf("%q changes ZeRO to %d without saying so", f.What, f.Scenario.Layout.ZeRO)
	}
	t.Logf("%s: %.3g s", f.What, f.StepTime)
}
