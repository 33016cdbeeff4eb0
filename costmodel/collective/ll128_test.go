package collective

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// LL128 runs where NCCL enables it: NVLink inside a node, and across nodes unless the network is
// Simple only; never on PCIe, nor on RCCL's XGMI.
func TestLL128Enabled(t *testing.T) {
	xgmi := model.Link{ID: "xgmi", Kind: model.XGMI, Bandwidth: 448e9, Latency: 1e-6, Efficiency: 0.73, MeshLinks: 7}
	for _, tc := range []struct {
		f    Fabric
		g    Group
		want bool
	}{
		{node(nvlink3), Group{8, 1}, true},
		{node(nvlink4), Group{16, 2}, true},
		{node(pcie3), Group{4, 1}, false},
		{node(xgmi), Group{8, 1}, false},
		{cluster(nvlink3, efa1, 4), Group{16, 2}, false},
		{cluster(nvlink3, efa1, 4), Group{8, 1}, true},
	} {
		has := false
		for _, s := range []float64{1 << 20, 8 << 20, 1 << 30} {
			for _, c := range Candidates(AllReduce, s, tc.g, tc.f) {
				has = has || c.Proto == LL128
			}
		}
		if has != tc.want {
			t.Errorf("%s on %d ranks, %d nodes (inter %s): LL128 candidates %v, want %v", tc.f.Intra.ID, tc.g.Ranks, tc.g.Nodes, tc.f.Inter.ID, has, tc.want)
		}
	}
}

// The ring's LL128: 2(n−1) steps of ll128HopFactor·α, and the wire at 120/128 of the bus.
func TestLL128RingOracle(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	const s = 8 << 20
	r := candidate(AllReduce, s, g, node(nvlink3), Ring, LL128)
	bus := nvlink3.EffBandwidth()
	want := 14*ll128HopFactor*nvlink3.Latency + 2*7.0/8*s/(bus*120/128)
	if math.Abs(r.Seconds/want-1) > 1e-12 {
		t.Errorf("ring LL128 of 8 MiB on 8×A100: %v, want %v", r.Seconds, want)
	}
	// The calibration: 8×A100 at 4 and 8 MiB, where NCCL runs LL128 (SN §3.3), within 2%.
	for _, x := range [][2]float64{{4 << 20, 101.5e-6}, {8 << 20, 133.5e-6}} {
		r := Time(AllReduce, x[0], g, node(nvlink3), Auto)
		if r.Proto != LL128 || math.Abs(r.Seconds/x[1]-1) > 0.02 {
			t.Errorf("%.0f B on 8×A100: %s/%s %.1f µs, want LL128 near %.1f µs", x[0], r.Algo, r.Proto, r.Seconds*1e6, x[1]*1e6)
		}
	}
}

// NCCL's table ranks the ring's LL128 first on 8×A100 from about 2.1 to 24.4 MB (tuning.cc:
// 40.6 µs and 126 GB/s against LL's 15 µs and 50 GB/s and Simple's 56 µs and 137 GB/s); the
// model runs LL128 exactly there and nowhere else.
func TestLL128Window(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	for _, x := range []struct {
		s    float64
		want bool
	}{{1 << 20, false}, {2.0e6, false}, {2.3e6, true}, {16 << 20, true}, {24e6, true}, {25e6, false}, {1 << 30, false}} {
		r := Time(AllReduce, x.s, g, node(nvlink3), Auto)
		if (r.Proto == LL128) != x.want {
			t.Errorf("%.3g B on 8×A100: %s/%s, want LL128 %v", x.s, r.Algo, r.Proto, x.want)
		}
	}
	// Two GPUs: Simple's table latency and bandwidth both beat LL128's, so never LL128.
	for s := 1024.0; s < 1<<34; s *= 4 {
		if r := Time(AllReduce, s, Group{2, 1}, node(nvlink3), Auto); r.Proto == LL128 {
			t.Errorf("%.0f B on 2×A100 runs LL128", s)
		}
	}
}

// The tree's LL128 across nodes: 2(l−1) NVLink and 2⌈log2 N⌉ network stages at LL128's step, the
// message at 120/128 of the slowest stage, the broadcast half of each channel counting as one at
// 30% of the node's link (NCCL's 70/30 split of threads).
func TestLL128TreeOracle(t *testing.T) {
	efa := model.Link{ID: "efa-100", Kind: model.RoCE, Bandwidth: 12.5e9, Latency: 14e-6, Efficiency: 0.95}
	f := cluster(nvlink4, efa, 32)
	g := Group{Ranks: 16, Nodes: 2}
	const s = 8 << 20
	bus := nvlink4.EffBandwidth()
	rate := 120.0 / 128 * treeBusFraction * min(bus/2, 32*efa.EffBandwidth(), treeLL128BcastThreads*bus)
	want := ll128HopFactor*(14*nvlink4.Latency+2*efa.Latency) + s/rate
	if r := candidate(AllReduce, s, g, f, Tree, LL128); math.Abs(r.Seconds/want-1) > 1e-12 {
		t.Errorf("tree LL128 of 8 MiB on 2×8 H100: %v, want %v", r.Seconds, want)
	}
}

// The latency a network plugin declares moves NCCL's choice, not the time of a step: on 2 × 8
// H100 over EFA with AWS's 75 µs, NCCL's table keeps the tree's LL128 to about 30 MiB (where
// AWS's own tuner switches too [AWSOFI nccl_ofi_regions]); without it NVLS+tree takes over from
// about 3 MiB.
func TestPluginLatencyMovesChoice(t *testing.T) {
	efa := model.Link{ID: "efa-100", Kind: model.RoCE, Bandwidth: 12.5e9, Latency: 14e-6, Efficiency: 0.95}
	declared := efa
	declared.PluginLatency = 75e-6
	g := Group{Ranks: 16, Nodes: 2}
	for _, x := range []struct {
		s          float64
		with, none Algo
	}{{2 << 20, Tree, Tree}, {8 << 20, Tree, NVLSTree}, {16 << 20, Tree, NVLSTree}, {256 << 20, NVLSTree, NVLSTree}} {
		if r := Time(AllReduce, x.s, g, cluster(nvlink4, declared, 32), Auto); r.Algo != x.with {
			t.Errorf("%.0f B, 75 µs declared: %s/%s, want %s", x.s, r.Algo, r.Proto, x.with)
		}
		if r := Time(AllReduce, x.s, g, cluster(nvlink4, efa, 32), Auto); r.Algo != x.none {
			t.Errorf("%.0f B, nothing declared: %s/%s, want %s", x.s, r.Algo, r.Proto, x.none)
		}
	}
	// The calibrated times do not move.
	a := Candidates(AllReduce, 8<<20, g, cluster(nvlink4, declared, 32))
	b := Candidates(AllReduce, 8<<20, g, cluster(nvlink4, efa, 32))
	if len(a) != len(b) {
		t.Fatalf("%d candidates against %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("candidate %d: %+v with the declared latency, %+v without", i, a[i], b[i])
		}
	}
}

// TimeProto is NCCL_PROTO: the protocol it names, or Time's choice where none runs it.
func TestTimeProto(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	if r := TimeProto(AllReduce, 16<<20, g, node(nvlink3), Auto, Simple); r.Proto != Simple || r.Algo != Ring {
		t.Errorf("16 MiB with Simple forced: %s/%s", r.Algo, r.Proto)
	}
	if r, a := TimeProto(AllReduce, 16<<20, g, node(pcie3), Auto, LL128), Time(AllReduce, 16<<20, g, node(pcie3), Auto); r != a {
		t.Errorf("LL128 forced on PCIe: %+v, want Time's %+v", r, a)
	}
}
