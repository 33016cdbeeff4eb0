package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Expert parallelism on Mixtral 8×7B, 16 H100 in two nodes, TP 2 × DP 8.
func moeScenario(t *testing.T, ep int) model.Scenario {
	s := scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", 16, 2, 1)
	s.Layout.EP = ep
	return s
}

// EP divides the expert weights among the replicas: each GPU holds E/ep of every layer's
// experts, and the rest of the model as before.
func TestEPDividesExpertWeights(t *testing.T) {
	a := moeScenario(t, 0).Arch
	base := eval(t, moeScenario(t, 0))
	for _, ep := range []int{2, 4, 8} {
		r := eval(t, moeScenario(t, ep))
		saved := base.Detail.Stages[0].ParamsOnGPU - r.Detail.Stages[0].ParamsOnGPU
		want := arch.Of(a).ExpertParams() / 2 * (1 - 1/float64(ep))
		if math.Abs(saved-want) > 1e-6*want {
			t.Errorf("ep %d: %.4g fewer parameters per GPU, want %.4g", ep, saved, want)
		}
		if r.Memory.Total >= base.Memory.Total {
			t.Errorf("ep %d: memory %.3g not below ep 1's %.3g", ep, r.Memory.Total, base.Memory.Total)
		}
	}
}

// EP adds four all-to-alls per MoE layer and micro-batch (dispatch and combine, forward and
// backward), each carrying the GPU's share of the tokens times top-k; none without it.
func TestEPAllToAll(t *testing.T) {
	if r := eval(t, moeScenario(t, 0)); r.Breakdown.EPComm != 0 {
		t.Errorf("ep 1: all-to-all %g s, want 0", r.Breakdown.EPComm)
	}
	s := moeScenario(t, 4)
	r := eval(t, s)
	var u *CollectiveUse
	for i := range r.Collectives {
		if r.Collectives[i].Comm == "ep" {
			u = &r.Collectives[i]
		}
	}
	if u == nil {
		t.Fatalf("no ep collective listed: %+v", r.Collectives)
	}
	a := s.Arch
	bytes := float64(s.Workload.Seq) * float64(a.Hidden) * 2 * float64(a.TopK) / 2 // b=1, bf16, top-2, ÷ TP 2
	bytes *= DefaultEPImbalance                                                    // the busiest GPU's share
	calls := float64(a.Layers) * float64(s.MicroBatches()) * 4
	if u.Op != "all-to-all" || u.GPUs != 4 || u.Bytes != bytes || u.Calls != calls {
		t.Errorf("ep use = %+v, want all-to-all of %.0f B over 4 GPUs × %.0f", *u, bytes, calls)
	}
	want := collective.Time(collective.AllToAll, bytes, u.Group, u.Fabric, collective.Auto).Seconds
	if u.Seconds != want || math.Abs(r.Breakdown.EPComm-calls*want) > 1e-9*r.Breakdown.EPComm {
		t.Errorf("ep comm %g s (one call %g), want %g × %g", r.Breakdown.EPComm, u.Seconds, calls, want)
	}
	bd := r.Breakdown
	total := bd.Compute + bd.Recompute + bd.TPComm + bd.EPComm + bd.PPComm + bd.DPComm + bd.Bubble + bd.Optimizer
	if math.Abs(total-r.StepTime) > 1e-6*r.StepTime {
		t.Errorf("breakdown %g does not sum to the step %g", total, r.StepTime)
	}
	// Inference: two per layer per prefill and per decode step.
	s.Workload.Mode = model.Infer
	s.Workload.Requests, s.Layout.MicroBatch = 8, 1
	if r := eval(t, s); r.Breakdown.EPComm <= 0 || r.Breakdown.EPComm >= r.StepTime {
		t.Errorf("inference ep comm %g of %g s", r.Breakdown.EPComm, r.StepTime)
	}
}

// The expert gradients sync over the d/ep replicas that hold the same experts.
func TestEPGradientSync(t *testing.T) {
	r := eval(t, moeScenario(t, 4))
	var dense, expert *CollectiveUse
	for i, u := range r.Collectives {
		switch {
		case u.Comm == "dp" && strings.HasPrefix(u.What, "expert"):
			expert = &r.Collectives[i]
		case u.Comm == "dp":
			dense = &r.Collectives[i]
		}
	}
	if dense == nil || expert == nil || dense.GPUs != 8 || expert.GPUs != 2 {
		t.Fatalf("dp uses: dense %+v, expert %+v; want 8 and 2 GPUs", dense, expert)
	}
}

func TestEPValidation(t *testing.T) {
	for _, c := range []struct {
		ep   int
		want string
	}{{3, "must divide dp"}, {16, "must divide the experts"}, {-1, "between"}} {
		s := moeScenario(t, c.ep)
		_, err := Evaluate(s)
		var ve model.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) || ve[0].Field != "ep" {
			t.Errorf("ep %d: %v, want an ep error saying %q", c.ep, err, c.want)
		}
	}
	// A dense model: no effect, and a warning says so.
	s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 2, 1)
	base := eval(t, s)
	s.Layout.EP = 2
	r := eval(t, s)
	if r.StepTime != base.StepTime || r.Memory.Total != base.Memory.Total {
		t.Errorf("ep on a dense model changed the result: %g vs %g s", r.StepTime, base.StepTime)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "ep 2 has no effect")
	}
	if !found {
		t.Errorf("no warning for ep on a dense model: %q", r.Warnings)
	}
}

// Search sweeps EP for a MoE model and keeps a fixed one.
func TestSearchEP(t *testing.T) {
	s := moeScenario(t, 0)
	res, err := Search(s, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range res.Candidates {
		seen[c.Layout.EPSize()] = true
		if ep := c.Layout.EPSize(); c.Layout.DP%ep != 0 || s.Arch.Experts%ep != 0 {
			t.Errorf("candidate %+v: ep does not divide dp and the experts", c.Layout)
		}
	}
	if !seen[1] || !seen[2] || !seen[8] {
		t.Errorf("EP sizes tried %v, want 1, 2 and 8 among them", seen)
	}
	res, err = Search(s, SearchOptions{Fix: SearchFix{EP: 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Layout.EPSize() != 4 && c.Reason == "" {
			t.Errorf("--ep 4 search tried %+v", c.Layout)
		}
	}
	if _, err := Search(s, SearchOptions{Fix: SearchFix{EP: 3}}); err == nil || !strings.Contains(err.Error(), "ep") {
		t.Errorf("search --ep 3: %v, want an ep error", err)
	}
}
