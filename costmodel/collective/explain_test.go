package collective

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Explain is the model's own arithmetic: for every case the model times (each op, size, group,
// fabric, and every algorithm and protocol it can run there), the formula's terms add up to the
// time Time, TimeEngine and Candidates give. A failure here means algos.go or engine.go changed
// and explain.go no longer follows it: the screens would show a formula that is not the model's.
func TestExplainMatchesTime(t *testing.T) {
	xgmi := model.Link{ID: "xgmi", Kind: model.XGMI, Bandwidth: 448e9, Latency: 3e-6, Efficiency: 0.70}
	fabrics := []Fabric{node(nvlink3), node(nvlink4), node(pcie3), node(xgmi)}
	groups := []Group{{2, 1}, {4, 1}, {8, 1}, {16, 2}, {32, 4}, {64, 8}, {6, 3}}
	n := 0
	for _, f := range fabrics {
		for _, g := range groups {
			for _, op := range Ops() {
				for b := 8.0; b <= 16<<30; b *= 8 {
					rs := Candidates(op, b, g, f)
					rs = append(rs, Time(op, b, g, f, Auto), TimeEngine(op, b, g, f))
					for _, a := range []Algo{OneShot, TwoShot} {
						if r := Time(op, b, g, f, a); r.Algo == a {
							rs = append(rs, r)
						}
					}
					for _, r := range rs {
						if r.Seconds == 0 {
							continue
						}
						e, ok := Explain(op, b, g, f, r)
						if !ok || !e.Matches(r) {
							t.Errorf("%s %.0f B on %d×%s (%d nodes), %s/%s: model %.6g s, formula %.6g s (ok %v): explain.go no longer follows the model",
								op, b, g.Ranks, f.Intra.ID, g.Nodes, r.Algo, r.Proto, r.Seconds, e.Seconds, ok)
							continue
						}
						n++
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d cases explained", n)
	}
}

// The formulas' oracles: the terms each algorithm is known for.
func TestExplainOracles(t *testing.T) {
	g8 := Group{Ranks: 8, Nodes: 1}
	get := func(op Op, b float64, g Group, f Fabric, a Algo) Explanation {
		t.Helper()
		r := Time(op, b, g, f, a)
		if r.Algo != a {
			t.Fatalf("%s %.0f B: runs %s, want %s", op, b, r.Algo, a)
		}
		e, ok := Explain(op, b, g, f, r)
		if !ok {
			t.Fatalf("%s %.0f B %s: no explanation", op, b, a)
		}
		return e
	}
	// Ring all-reduce: 2(n−1) steps, 2(n−1)/n·S through each link; LL pays α a step.
	e := get(AllReduce, 8<<10, g8, node(nvlink3), Ring)
	if e.Proto != LL || e.Steps != 14 || e.NetSteps != 0 || e.Hop != nvlink3.Latency || e.WireFactor != 1.75 {
		t.Errorf("ring LL: %+v", e)
	}
	// Simple at 1 MiB on 8×A100 sits on its handshake floor: 14 × 2.42 α.
	e = get(AllReduce, 1<<20, g8, node(nvlink3), Ring)
	if e.Proto != Simple || !e.Floored || e.FloorSteps != 14 || math.Abs(e.Floor-14*simpleSyncFactor*3e-6) > 1e-12 {
		t.Errorf("ring Simple floor: %+v", e)
	}
	// Reduce-scatter: n−1 steps, (n−1)/n·S.
	e = get(ReduceScatter, 1<<30, g8, node(nvlink3), Ring)
	if e.Steps != 7 || e.WireFactor != 7.0/8 || e.Floored {
		t.Errorf("ring reduce-scatter: %+v", e)
	}
	// NVLS: S out and S in, once, at the link's NVLS efficiency; no steps.
	e = get(AllReduce, 1<<30, g8, node(nvlink4), NVLS)
	if e.WireFactor != 1 || e.Steps != 0 || e.Factor != nvlink4.NVLSEfficiency || e.Link != nvlink4.Bandwidth || e.Fill != nvlsFill {
		t.Errorf("NVLS: %+v", e)
	}
	// Tree across 8 nodes: 2(l−1) chain steps and 2·log2(8) network steps, S up and down.
	g64 := Group{Ranks: 64, Nodes: 8}
	e = get(AllReduce, 8, g64, node(nvlink3), Tree)
	if e.Steps != 14 || e.NetSteps != 6 || e.WireFactor != 1 {
		t.Errorf("tree: %+v", e)
	}
	// Ring across 4 nodes: 2(n−1) steps of which 2(N−1) on the network.
	e = get(AllReduce, 8, Group{Ranks: 32, Nodes: 4}, node(nvlink3), Ring)
	if e.Steps+e.NetSteps != 62 || e.NetSteps != 6 || e.NetHop != ibHDR.Latency {
		t.Errorf("ring across nodes: %+v", e)
	}
	// The engine: one launch and n−1 buffers; two launches and 2(n−1)/n.
	e = get(AllReduce, 8<<10, g8, node(nvlink4), OneShot)
	if e.Launches != 1 || e.WireFactor != 7 || e.Fixed != engineLatency || e.BW != nvlink4.Bandwidth*nvlink4.Efficiency {
		t.Errorf("one-shot: %+v", e)
	}
	e = get(AllReduce, 4<<20, g8, node(nvlink4), TwoShot)
	if e.Launches != 2 || e.WireFactor != 1.75 || e.Fixed != 2*engineLatency {
		t.Errorf("two-shot: %+v", e)
	}
	// Nothing to explain.
	for _, c := range []struct {
		op Op
		b  float64
		g  Group
		r  Result
	}{
		{AllReduce, 0, g8, Result{Algo: Ring}},
		{AllReduce, 1 << 20, Group{Ranks: 1, Nodes: 1}, Result{Algo: Ring}},
		{AllReduce, 1 << 20, g8, Result{Algo: Tree}},                // a tree on one node
		{AllReduce, 1 << 20, g8, Result{Algo: NVLS, Proto: LL}},     // NVLS is Simple only
		{AllGather, 1 << 20, g8, Result{Algo: OneShot}},             // the engine all-reduces only
		{AllReduce, 64 << 20, g8, Result{Algo: OneShot}},            // beyond its buffer
		{SendRecv, 1 << 20, Group{Ranks: 2}, Result{Algo: Ring}},    // send/recv is direct
		{AllReduce, math.Inf(1), g8, Result{Algo: Ring, Proto: LL}}, // no size
	} {
		if _, ok := Explain(c.op, c.b, c.g, node(nvlink4), c.r); ok {
			t.Errorf("%s %.0f B on %d, %s/%s: explained", c.op, c.b, c.g.Ranks, c.r.Algo, c.r.Proto)
		}
	}
}

func TestExplainAllocs(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	r := Time(AllReduce, 1<<26, g, node(nvlink4), Auto)
	if a := testing.AllocsPerRun(100, func() { _, _ = Explain(AllReduce, 1<<26, g, node(nvlink4), r) }); a != 0 {
		t.Errorf("Explain allocates %v times", a)
	}
}
