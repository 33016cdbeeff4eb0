package collective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Links as the presets define them (assets/presets/links.yaml): the package tests use literal
// copies so that they run without the assets package.
var (
	nvlink3 = model.Link{ID: "nvlink3", Kind: model.NVLink, Bandwidth: 300e9, Latency: 3e-6, Efficiency: 0.80, LLBandwidth: 23.6e9}
	nvlink4 = model.Link{ID: "nvlink4", Kind: model.NVLink, Bandwidth: 450e9, Latency: 3e-6, Efficiency: 0.80,
		NVLS: true, NVLSMinRanks: 5, NVLSEfficiency: 0.603}
	pcie3 = model.Link{ID: "pcie3", Kind: model.PCIe, Bandwidth: 15.75e9, Latency: 3e-6, Efficiency: 0.80}
	ibHDR = model.Link{ID: "ib-hdr", Kind: model.InfiniBand, Bandwidth: 25e9, Latency: 5e-6, Efficiency: 0.85}
)

func node(l model.Link) Fabric { return Fabric{Intra: l, Inter: ibHDR, NICs: 8} }

// a100Sweep is SN's nccl-tests all_reduce_perf on 8×A100 (reference §3.3): bytes, time µs.
var a100Sweep = [][2]float64{
	{32768, 43.83}, {65536, 46.80}, {131072, 51.76}, {262144, 61.38}, {524288, 80.40},
	{1048576, 101.9}, {2097152, 101.4}, {4194304, 101.5}, {8388608, 133.5}, {16777216, 276.6},
	{33554432, 424.0}, {67108864, 684.6}, {134217728, 1327.6}, {268435456, 2420.6}, {536870912, 4218.4},
	{1073741824, 8203.9}, {2147483648, 16240}, {4294967296, 32136}, {8589934592, 64074}, {17179869184, 127997},
}

// a100SweepSimpleFrom: the sweep's NCCL (2.8–2.9, 2021) ran Simple from 16.4 MB, where today's
// table keeps LL128 to 24.4 MB (costmodel/published/validation.go, ncclSweepSimpleFrom): the 16 MiB row is
// checked with the protocol it ran.
const a100SweepSimpleFrom = 16.4e6

// The calibration sweep: within 5% mean from 1 MiB to 16 GiB and 15% below (the bar).
// From 4 to 8 MiB NCCL runs LL128 (its table ranks it first there in every version).
func TestA100Sweep(t *testing.T) {
	var sumBig, sumSmall, worst float64
	var nBig, nSmall int
	for _, x := range a100Sweep {
		r := Time(AllReduce, x[0], Group{Ranks: 8, Nodes: 1}, node(nvlink3), Auto)
		if x[0] >= a100SweepSimpleFrom {
			r = TimeProto(AllReduce, x[0], Group{Ranks: 8, Nodes: 1}, node(nvlink3), Auto, Simple)
		}
		e := math.Abs(r.Seconds/(x[1]*1e-6) - 1)
		worst = max(worst, e)
		if x[0] >= 1<<20 {
			sumBig, nBig = sumBig+e, nBig+1
		} else {
			sumSmall, nSmall = sumSmall+e, nSmall+1
		}
		t.Logf("%12.0f B  published %9.1f µs  model %9.1f µs  %+6.1f%%  %s/%s", x[0], x[1], r.Seconds*1e6,
			100*(r.Seconds/(x[1]*1e-6)-1), r.Algo, r.Proto)
	}
	if m := sumBig / float64(nBig); m > 0.05 {
		t.Errorf("mean error from 1 MiB up: %.1f%%, want ≤ 5%%", 100*m)
	}
	if m := sumSmall / float64(nSmall); m > 0.15 {
		t.Errorf("mean error below 1 MiB: %.1f%%, want ≤ 15%%", 100*m)
	}
	t.Logf("mean %.2f%% from 1 MiB, %.2f%% below; worst %.1f%%", 100*sumBig/float64(nBig), 100*sumSmall/float64(nSmall), 100*worst)
}

// 4×V100 behind one PCIe switch, NCCL all-reduce inside a CUDA graph [ISS sglang-V100#2]: the
// small-message latencies within 20%.
func TestPCIeSmallMessages(t *testing.T) {
	for _, x := range [][2]float64{{4096, 19.4}, {8192, 20.3}, {16384, 22.3}, {32768, 24.2}, {131072, 51.8}, {393216, 83.5}} {
		r := Time(AllReduce, x[0], Group{Ranks: 4, Nodes: 1}, node(pcie3), Auto)
		if e := r.Seconds/(x[1]*1e-6) - 1; math.Abs(e) > 0.20 {
			t.Errorf("%.0f B: model %.1f µs, published %.1f µs (%+.0f%%)", x[0], r.Seconds*1e6, x[1], 100*e)
		}
	}
}

// Ring oracle: a tiny all-reduce is latency alone, 2(n−1) LL steps of α; all-gather and
// reduce-scatter take n−1, a broadcast's chain n−1.
func TestRingStepsOracle(t *testing.T) {
	const tiny = 8
	for n := 2; n <= 16; n++ {
		g := Group{Ranks: n, Nodes: 1}
		for _, tc := range []struct {
			op    Op
			steps int
		}{{AllReduce, 2 * (n - 1)}, {AllGather, n - 1}, {ReduceScatter, n - 1}, {Broadcast, n - 1}} {
			r := Time(tc.op, tiny, g, node(nvlink3), Ring)
			want := float64(tc.steps) * nvlink3.Latency
			if r.Algo != Ring || r.Proto != LL || math.Abs(r.Seconds-want) > 1e-9 {
				t.Errorf("%s of %d B on %d: %v %s/%s, want %v (ring LL, %d steps)", tc.op, tiny, n, r.Seconds, r.Algo, r.Proto, want, tc.steps)
			}
		}
	}
}

// Tree oracle: across nodes a tiny all-reduce's tree costs 2·((local−1)·α_intra + ⌈log2 nodes⌉·α_net),
// so it grows with log n where the ring grows with n.
func TestTreeDepthOracle(t *testing.T) {
	for _, nodes := range []int{2, 4, 8, 16, 64, 100} {
		g := Group{Ranks: 8 * nodes, Nodes: nodes}
		var tree Result
		for _, c := range Candidates(AllReduce, 8, g, node(nvlink3)) {
			if c.Algo == Tree && c.Proto == LL {
				tree = c
			}
		}
		depth := math.Ceil(math.Log2(float64(nodes)))
		want := 2 * (7*nvlink3.Latency + depth*ibHDR.Latency)
		if math.Abs(tree.Seconds-want) > 1e-8 {
			t.Errorf("%d nodes: tree LL %v, want %v (depth %v)", nodes, tree.Seconds, want, depth)
		}
		if r := Time(AllReduce, 8, g, node(nvlink3), Auto); nodes >= 8 && r.Algo != Tree {
			t.Errorf("%d nodes: a tiny all-reduce runs %s, want the tree (log depth beats %d ring steps)", nodes, r.Algo, 2*(8*nodes-1))
		}
	}
}

// NVLS oracle: an NVLS all-reduce moves S out of and into each GPU once, at nvlsEfficiency of the
// link, after its fixed latency; its bus bandwidth is above the link's own for 8 GPUs.
func TestNVLSTraffic(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	const s = 1 << 30
	r := Time(AllReduce, s, g, node(nvlink4), Auto)
	want := nvlsLatency + nvlsFill + s/(nvlink4.Bandwidth*nvlink4.NVLSEfficiency)
	if r.Algo != NVLS || math.Abs(r.Seconds-want) > 1e-12 {
		t.Fatalf("1 GiB on 8×H100: %v %s, want %v on NVLS", r.Seconds, r.Algo, want)
	}
	if bus := s / r.Seconds * AllReduce.BusFactor(8); bus <= nvlink4.Bandwidth {
		t.Errorf("NVLS bus bandwidth %.0f GB/s, want above the 450 GB/s link", bus/1e9)
	}
	ring := Time(AllReduce, s, g, node(nvlink4), Ring)
	if gain := ring.Seconds / r.Seconds; gain < 1.2 || gain > 1.5 {
		t.Errorf("NVLS over ring at 1 GiB: ×%.2f, want 1.2–1.5 (published: +20–30%%)", gain)
	}
	// Four GPUs are below NVLS's minimum (NCCL picks it for more than 4 on H200): ring.
	if r := Time(AllReduce, s, Group{Ranks: 4, Nodes: 1}, node(nvlink4), Auto); r.Algo == NVLS {
		t.Errorf("4 GPUs use NVLS")
	}
	// Without NVLink SHARP, forcing NVLS falls back to the fastest that applies.
	if r := Time(AllReduce, s, g, node(nvlink3), NVLS); r.Algo == NVLS {
		t.Errorf("NVLS on NVLink 3")
	}
	// Small messages stay on the ring's LL: NVLS pays 25 µs.
	if r := Time(AllReduce, 32<<10, g, node(nvlink4), Auto); r.Algo != Ring || r.Proto != LL {
		t.Errorf("32 KiB on 8×H100: %s/%s, want ring/ll", r.Algo, r.Proto)
	}
}

func TestForcedAlgorithm(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	if r := Time(AllReduce, 1<<30, g, node(nvlink4), Ring); r.Algo != Ring {
		t.Errorf("forced ring: %s", r.Algo)
	}
	// A tree needs nodes: on one node the forced tree gives way to the best that applies.
	if r := Time(AllReduce, 1<<20, g, node(nvlink3), Tree); r.Algo != Ring {
		t.Errorf("forced tree on one node: %s", r.Algo)
	}
}

// Each algorithm and protocol's time never decreases with the message size, for every operation
// and fabric. The choice between them may: NCCL's table picks the protocol (LL128 where it ranks
// it first, tuner.go) and the algorithm, and where it switches late a larger message can run a
// faster one, as on real systems (8×A100 at 2.1 MB, where the table moves from LL to LL128). So
// a chosen time, forced algorithm or not, lies between the fastest and the slowest candidate of
// the algorithms it may run.
func TestMonotoneInSize(t *testing.T) {
	fabrics := []Fabric{node(nvlink3), node(nvlink4), node(pcie3)}
	groups := []Group{{2, 1}, {8, 1}, {16, 2}, {64, 8}, {1024, 128}}
	for _, f := range fabrics {
		for _, g := range groups {
			for _, op := range Ops() {
				prev := map[Result]float64{}
				for s := 1.0; s <= 1<<36; s *= 1.37 {
					cands := Candidates(op, s, g, f)
					for _, c := range cands {
						k := Result{Algo: c.Algo, Proto: c.Proto}
						if c.Seconds < prev[k]*(1-1e-12) {
							t.Fatalf("%s %s/%s on %+v %s: %.0f B takes %v, less than a smaller message (%v)", op, c.Algo, c.Proto, g, f.Intra.ID, s, c.Seconds, prev[k])
						}
						prev[k] = c.Seconds
					}
					for _, a := range Algos() {
						r := Time(op, s, g, f, a)
						if r.Algo == OneShot || r.Algo == TwoShot {
							continue // the engine's kernels are no candidates of NCCL's
						}
						lo, hi := math.Inf(1), 0.0
						for _, c := range cands {
							if a == Auto || r.Algo != a || c.Algo == a {
								lo, hi = min(lo, c.Seconds), max(hi, c.Seconds)
							}
						}
						if r.Seconds < lo*(1-1e-12) || r.Seconds > hi*(1+1e-12) {
							t.Fatalf("%s %s on %+v %s: %.0f B takes %v, outside [%v, %v]", op, a, g, f.Intra.ID, s, r.Seconds, lo, hi)
						}
					}
				}
			}
		}
	}
}

// oddFloats draws positive numbers over 26 decades, and one time in four 0, −1, NaN, +Inf or an
// extreme.
func oddFloats(rng *rand.Rand) func() float64 {
	weird := []float64{0, -1, math.NaN(), math.Inf(1), 1e-300, 1e300}
	return func() float64 {
		if rng.IntN(4) == 0 {
			return weird[rng.IntN(len(weird))]
		}
		return math.Exp(rng.Float64()*60 - 10)
	}
}

// Never NaN, Inf or negative, whatever the input (every algorithm forced, the engines' too).
func TestNoNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := oddFloats(rng)
	for range 20000 {
		l := model.Link{Kind: model.LinkKind(rng.IntN(6)), Bandwidth: pick(), Latency: pick() * 1e-9, Efficiency: rng.Float64(),
			NVLS: rng.IntN(2) == 0, NVLSMinRanks: rng.IntN(10)}
		f := Fabric{Intra: l, Inter: model.Link{Bandwidth: pick(), Latency: pick() * 1e-9, Efficiency: rng.Float64()}, NICs: rng.IntN(10)}
		g := Group{Ranks: rng.IntN(5000), Nodes: rng.IntN(600)}
		r := Time(Op(rng.IntN(6)), pick(), g, f, Algo(rng.IntN(int(TwoShot)+1)))
		if math.IsNaN(r.Seconds) || math.IsInf(r.Seconds, 0) || r.Seconds < 0 {
			t.Fatalf("%+v %+v: %v", g, f, r.Seconds)
		}
	}
}

func TestBusFactor(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		n    int
		want float64
	}{{AllReduce, 8, 1.75}, {AllGather, 8, 0.875}, {ReduceScatter, 4, 0.75}, {AllToAll, 2, 0.5}, {Broadcast, 8, 1}, {SendRecv, 2, 1}, {AllReduce, 1, 1}} {
		if got := tc.op.BusFactor(tc.n); got != tc.want {
			t.Errorf("%s on %d: %v, want %v", tc.op, tc.n, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"all-reduce", "allreduce", "all_reduce", "ALL-REDUCE"} {
		if op, err := ParseOp(s); err != nil || op != AllReduce {
			t.Errorf("ParseOp(%q) = %v, %v", s, op, err)
		}
	}
	if a, err := ParseAlgo("nvls-tree"); err != nil || a != NVLSTree {
		t.Errorf("ParseAlgo(nvls-tree) = %v, %v", a, err)
	}
	if _, err := ParseAlgo("collnet"); err == nil {
		t.Error("collnet parsed")
	}
}

func BenchmarkTime(b *testing.B) {
	g := Group{Ranks: 64, Nodes: 8}
	f := node(nvlink4)
	for b.Loop() {
		Time(AllReduce, 50<<20, g, f, Auto)
	}
}

func TestSweep(t *testing.T) {
	g, f := Group{Ranks: 8, Nodes: 1}, node(nvlink3)
	rows := Sweep(AllReduce, 8, 16<<30, 2, g, f, Auto, AnyProto)
	if len(rows) != 32 {
		t.Fatalf("8 B to 16 GiB by 2: %d rows, want 32", len(rows))
	}
	for i, r := range rows {
		want := Time(AllReduce, r.Bytes, g, f, Auto)
		if r.Bytes != float64(int64(8)<<i) || r.Seconds != want.Seconds || r.Algo != want.Algo || r.Proto != want.Proto {
			t.Errorf("row %d: %+v, want %.0f B and %+v", i, r, float64(int64(8)<<i), want)
		}
		if math.Abs(r.BusBW-r.AlgBW*1.75) > 1e-6*r.BusBW || math.Abs(r.AlgBW-r.Bytes/r.Seconds) > 1e-6*r.AlgBW {
			t.Errorf("row %d: algbw %v busbw %v", i, r.AlgBW, r.BusBW)
		}
	}
	for _, bad := range [][3]float64{{0, 1, 2}, {8, 4, 2}, {8, 16, 1}, {8, math.Inf(1), 2}, {math.NaN(), 16, 2}} {
		if rows := Sweep(AllReduce, bad[0], bad[1], bad[2], g, f, Auto, AnyProto); rows != nil {
			t.Errorf("Sweep(%v): %d rows", bad, len(rows))
		}
	}
	if n := len(Sweep(AllReduce, 1, 1<<50, 1.0001, g, f, Auto, AnyProto)); n != MaxSweepRows {
		t.Errorf("a huge sweep has %d rows, want the bound %d", n, MaxSweepRows)
	}
}

// BenchmarkSweep32 is `splitscope comm`'s work: 32 sizes, 8 B to 16 GiB, on 64 GPUs.
func BenchmarkSweep32(b *testing.B) {
	g, f := Group{Ranks: 64, Nodes: 8}, node(nvlink4)
	for b.Loop() {
		Sweep(AllReduce, 8, 16<<30, 2, g, f, Auto, AnyProto)
	}
}

// newCase's size class and tree depth by integer arithmetic are ⌊log2(bytes/64)⌋ and
// ⌈log2 nodes⌉ (NCCL's log2i of nBytes >> 6; the tree's depth).
func TestCaseLogs(t *testing.T) {
	f := node(nvlink4)
	for n := 1; n <= 4096; n++ {
		c := newCase(AllReduce, 1<<20, Group{Ranks: n, Nodes: n}, f)
		if want := math.Ceil(math.Log2(float64(n))); c.depth != want {
			t.Fatalf("%d nodes: depth %g, want %g", n, c.depth, want)
		}
	}
	for _, b := range []float64{1, 63, 64, 65, 127, 128, 129, 4095, 4096, 1 << 20, 3 << 20, 1e9, 1.5e12} {
		c := newCase(AllReduce, b, Group{Ranks: 8, Nodes: 1}, f)
		want := -1
		if b >= 64 {
			want = int(math.Floor(math.Log2(b / 64)))
		}
		if c.sizeClass != want {
			t.Errorf("%g bytes: size class %d, want %d", b, c.sizeClass, want)
		}
	}
}
