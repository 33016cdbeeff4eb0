package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// dispatchScenario is Mixtral 8×7B with EP 8 on gpus H100 (TP 2, DP gpus/2), the EP all-to-all
// dispatched as d, training or serving.
func dispatchScenario(t *testing.T, gpus int, d model.EPDispatch, mode model.Mode) model.Scenario {
	s := scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", gpus, 2, 1)
	s.Layout.EP = gpus / 2
	s.Layout.EPDispatch = d
	s.Workload.Mode = mode
	return s
}

// On one node the two-hop dispatch is the direct all-to-all: nothing crosses a network, and
// training and serving time the EP all-to-alls the same.
func TestTwoHopOneNodeIsDirect(t *testing.T) {
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		direct := eval(t, dispatchScenario(t, 8, model.EPDispatchDirect, mode))
		two := eval(t, dispatchScenario(t, 8, model.EPDispatchTwoHop, mode))
		if !(direct.Breakdown.EPComm > 0) || two.Breakdown.EPComm != direct.Breakdown.EPComm {
			t.Errorf("%v on one node: two-hop EP comm %g s, direct %g s: want equal and above 0", mode, two.Breakdown.EPComm, direct.Breakdown.EPComm)
		}
		if two.StepTime != direct.StepTime {
			t.Errorf("%v on one node: step %g s two-hop, %g s direct", mode, two.StepTime, direct.StepTime)
		}
		said := false
		for _, w := range two.Warnings {
			said = said || strings.HasPrefix(w, "ep dispatch two-hop has no effect")
		}
		if !said {
			t.Errorf("%v on one node: no warning that two-hop does nothing: %q", mode, two.Warnings)
		}
	}
}

// Across nodes the two-hop dispatch sends each token once per distinct remote node: the network
// carries (N−1)(1−(1−1/N)^k) / (k(N−1)/N) of the direct all-to-all's bytes, and the EP
// all-to-alls of training and serving take less time.
func TestTwoHopCutsNetworkBytes(t *testing.T) {
	var dense model.Arch // no node-limited routing
	for _, c := range []struct {
		k, n int
		want float64 // remote nodes a token, by hand
	}{
		{8, 8, 7 * (1 - 0.343608915805816)}, // (7/8)^8
		{2, 2, 0.75},                        // Mixtral across two nodes
		{8, 2, 1 - 1.0/256},
		{1, 4, 0.75}, // one expert: the direct all-to-all's (N−1)/N
	} {
		got := RemoteNodes(dense, c.k, c.n)
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("k %d on %d nodes: %.6f remote nodes a token, want %.6f", c.k, c.n, got, c.want)
		}
		bytes := 1e9
		direct := EPNetworkBytes(model.EPDispatchDirect, dense, bytes, c.k, c.n)
		two := EPNetworkBytes(model.EPDispatchTwoHop, dense, bytes, c.k, c.n)
		factor := c.want / (float64(c.k) * float64(c.n-1) / float64(c.n))
		if math.Abs(two/direct-factor) > 1e-9 {
			t.Errorf("k %d on %d nodes: two-hop sends %.4f of direct's network bytes, want %.4f", c.k, c.n, two/direct, factor)
		}
	}
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		direct := eval(t, dispatchScenario(t, 16, model.EPDispatchDirect, mode))
		two := eval(t, dispatchScenario(t, 16, model.EPDispatchTwoHop, mode))
		for _, w := range two.Warnings {
			if strings.HasPrefix(w, "ep dispatch two-hop") {
				t.Errorf("%v on two nodes: %q", mode, w)
			}
		}
		if !(two.Breakdown.EPComm > 0) || !(two.Breakdown.EPComm < direct.Breakdown.EPComm) {
			t.Errorf("%v on two nodes: two-hop EP comm %g s, direct %g s: want less", mode, two.Breakdown.EPComm, direct.Breakdown.EPComm)
		}
	}
	// The report lists the two hops: the rail's RDMA across the nodes, the NVLink forward in one.
	r := eval(t, dispatchScenario(t, 16, model.EPDispatchTwoHop, model.Train))
	var rail, nvl bool
	var ep []string
	for _, u := range r.Collectives {
		if u.Comm == "ep" {
			ep = append(ep, u.What)
		}
		if u.Comm == "ep" && strings.Contains(u.What, "RDMA") && u.Nodes == 2 && u.GPUs == 2 {
			rail = true
		}
		if u.Comm == "ep" && strings.Contains(u.What, "NVLink") && u.Nodes == 1 {
			nvl = true
		}
	}
	if !rail || !nvl {
		t.Errorf("two-hop collectives: rail %v, NVLink %v: %q", rail, nvl, ep)
	}
}

// Node-limited routing (DeepSeek-V3: top-8 from 4 of 8 groups) caps the nodes a token reaches:
// at most 4 with a group a node, so on 8 nodes 3.5·(1−(3/4)^8) remote against 7·(1−(7/8)^8)
// without it; on as many nodes as the limit or fewer it changes nothing.
func TestNodeLimitedRoutingCaps(t *testing.T) {
	a, err := presets(t).Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	if a.ExpertGroups != 8 || a.GroupLimit != 4 {
		t.Fatalf("deepseek-v3: expert groups %d, limit %d; want 8 and 4 (n_group, topk_group)", a.ExpertGroups, a.GroupLimit)
	}
	var free model.Arch
	if got, want := RemoteNodes(a, 8, 8), 3.5*(1-0.100112915039062); math.Abs(got-want) > 1e-9 {
		t.Errorf("8 nodes: %.6f remote nodes a token, want %.6f", got, want)
	}
	if RemoteNodes(a, 8, 8) >= RemoteNodes(free, 8, 8) {
		t.Errorf("8 nodes: the limit does not cut: %.4f against %.4f", RemoteNodes(a, 8, 8), RemoteNodes(free, 8, 8))
	}
	for _, n := range []int{2, 4, 8, 16, 32} {
		if got, most := ReachedNodes(a, 8, n), 4*math.Max(1, float64(n)/8); got > most+1e-9 {
			t.Errorf("%d nodes: %.4f nodes a token, above the limit's %g", n, got, most)
		}
	}
	for _, n := range []int{2, 4} {
		if RemoteNodes(a, 8, n) != RemoteNodes(free, 8, n) {
			t.Errorf("%d nodes: the limit of 4 changes %.4f to %.4f", n, RemoteNodes(free, 8, n), RemoteNodes(a, 8, n))
		}
	}
}

// The layout's and the arch's new fields are refused by name when out of range.
func TestEPDispatchValidation(t *testing.T) {
	s := dispatchScenario(t, 16, model.EPDispatch(2), model.Train)
	if _, err := Evaluate(s); err == nil || !strings.Contains(err.Error(), "ep-dispatch") {
		t.Errorf("ep dispatch 2: %v, want an error naming ep-dispatch", err)
	}
	s = dispatchScenario(t, 16, model.EPDispatchTwoHop, model.Train)
	s.Arch.ExpertGroups, s.Arch.GroupLimit = 4, 5
	if _, err := Evaluate(s); err == nil || !strings.Contains(err.Error(), "group-limit") {
		t.Errorf("group limit 5 of 4: %v, want an error naming group-limit", err)
	}
	s.Arch.ExpertGroups, s.Arch.GroupLimit = 3, 1
	if _, err := Evaluate(s); err == nil || !strings.Contains(err.Error(), "expert-groups") {
		t.Errorf("3 groups of 8 experts: %v, want an error naming expert-groups", err)
	}
}

// A two-hop layout decodes with DeepEP's low-latency kernels: a step of decode tokens alone
// times its dispatch and combine as lowLatencyAllToAll (every copy at once behind one floor), a
// step with prompt tokens as the two hops; the direct layout keeps the one all-to-all for both.
func TestTwoHopDecodesLowLatency(t *testing.T) {
	s := dispatchScenario(t, 16, model.EPDispatchTwoHop, model.Infer)
	p := newPlan(s)
	c := p.servingCost()
	moe := -1
	for i, sh := range p.k.Shapes {
		if sh.Kind.MoE {
			moe = i
		}
	}
	if moe < 0 {
		t.Fatal("no MoE layer")
	}
	h, e := float64(p.a.Hidden), p.e
	decode := serve.Batch{DecodeSeqs: 64, DecodeCtx: 64 * 1024, Samples: 64}
	sh := p.k.Shapes[moe]
	ll, ok := lowLatencyAllToAll(p.epc, a2aBytes(sh, h, p.l, 64, e))
	if !ok || !(ll > DeepEPLowLatencyFloor) {
		t.Fatalf("low-latency all-to-all %g s (%v)", ll, ok)
	}
	if got := c.layerTime(sh, &decode).EP; math.Abs(got-2*ll) > 1e-12 {
		t.Errorf("decode step: EP %g s, want 2 × %g (low-latency)", got, ll)
	}
	mixed := decode
	mixed.PrefillTokens, mixed.PrefillSeqs, mixed.PrefillAttn, mixed.PrefillCtx = 512, 1, 512*256, 512
	two := epAllToAll(p.epc, p.a, p.l, p.c, a2aBytes(sh, h, p.l, 64+512, e))
	if got := c.layerTime(sh, &mixed).EP; math.Abs(got-2*two) > 1e-12 {
		t.Errorf("step with a prompt: EP %g s, want 2 × %g (two-hop)", got, two)
	}
	s.Layout.EPDispatch = model.EPDispatchDirect
	pd := newPlan(s)
	direct := epAllToAll(pd.epc, pd.a, pd.l, pd.c, a2aBytes(sh, h, pd.l, 64, e))
	if got := pd.servingCost().layerTime(sh, &decode).EP; math.Abs(got-2*direct) > 1e-12 || direct == ll {
		t.Errorf("direct decode step: EP %g s, want 2 × %g (not the low-latency %g)", got, direct, ll)
	}
}

// The report says the same: a two-hop serving run across nodes lists its decode-only steps'
// all-to-alls as DeepEP's low-latency kernel, and the Tensor tab's decode step draws that time.
func TestTwoHopReportLowLatency(t *testing.T) {
	s := dispatchScenario(t, 16, model.EPDispatchTwoHop, model.Infer)
	r := eval(t, s)
	var ll *CollectiveUse
	for i, u := range r.Collectives {
		if u.Comm == "ep" && u.Algorithm == "low-latency" {
			ll = &r.Collectives[i]
		}
	}
	if ll == nil || !(ll.Calls > 0) || !(ll.Seconds > DeepEPLowLatencyFloor) {
		t.Fatalf("two-hop serving: no low-latency all-to-all listed: %+v", r.Collectives)
	}
	for _, sg := range r.Detail.Layer.Forward {
		if sg.Kind == SegEPComm && math.Abs(sg.End-sg.Start-ll.Seconds) > 0.5*ll.Seconds {
			t.Errorf("decode layer's all-to-all %g s, the low-latency kernel's %g s", sg.End-sg.Start, ll.Seconds)
		}
	}
	for _, u := range eval(t, dispatchScenario(t, 16, model.EPDispatchDirect, model.Infer)).Collectives {
		if u.Algorithm == "low-latency" {
			t.Errorf("direct dispatch lists %+v", u)
		}
	}
}
