package collective

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The engines' kernels against their oracles: one-shot reads n−1 whole buffers after one
// launch; two-shot reads 2(n−1)/n of a buffer after two.
func TestEngineOracles(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	bw := nvlink3.Bandwidth * nvlink3.Efficiency
	for _, b := range []float64{1024, 64 << 10, 1 << 20, 4 << 20} {
		one := Time(AllReduce, b, g, node(nvlink3), OneShot)
		if want := engineLatency + 7*b/bw; one.Algo != OneShot || math.Abs(one.Seconds-want) > 1e-12 {
			t.Errorf("one-shot %.0f B = %v %.3g s, want %.3g", b, one.Algo, one.Seconds, want)
		}
		two := Time(AllReduce, b, g, node(nvlink3), TwoShot)
		if want := 2*engineLatency + 2*7.0/8*b/bw; two.Algo != TwoShot || math.Abs(two.Seconds-want) > 1e-12 {
			t.Errorf("two-shot %.0f B = %v %.3g s, want %.3g", b, two.Algo, two.Seconds, want)
		}
		e, ok := Engine(b, g, node(nvlink3))
		if !ok || e.Seconds != min(one.Seconds, two.Seconds) {
			t.Errorf("Engine(%.0f) = %v %v, want the faster of %.3g and %.3g", b, e, ok, one.Seconds, two.Seconds)
		}
	}
	// One-shot wins small (one launch), two-shot large (fewer bytes).
	if e, _ := Engine(8<<10, g, node(nvlink3)); e.Algo != OneShot {
		t.Errorf("8 KiB: %v, want one-shot", e.Algo)
	}
	if e, _ := Engine(4<<20, g, node(nvlink3)); e.Algo != TwoShot {
		t.Errorf("4 MiB: %v, want two-shot", e.Algo)
	}
}

// Where vLLM does not run its kernel, the engine is NCCL: across nodes, from 8 MiB, on a group
// size it does not support, and on PCIe beyond a pair.
func TestEngineApplies(t *testing.T) {
	cases := []struct {
		name string
		g    Group
		f    Fabric
		b    float64
		ok   bool
	}{
		{"8 NVLink, 64 KiB", Group{Ranks: 8, Nodes: 1}, node(nvlink4), 64 << 10, true},
		{"2 PCIe (pair with P2P)", Group{Ranks: 2, Nodes: 1}, node(pcie3), 64 << 10, true},
		{"4 XGMI", Group{Ranks: 4, Nodes: 1}, node(model.Link{Kind: model.XGMI, Bandwidth: 64e9, Efficiency: 0.8}), 64 << 10, true},
		{"across 2 nodes", Group{Ranks: 16, Nodes: 2}, node(nvlink4), 64 << 10, false},
		{"8 MiB", Group{Ranks: 8, Nodes: 1}, node(nvlink4), 8 << 20, false},
		{"3 ranks", Group{Ranks: 3, Nodes: 1}, node(nvlink4), 64 << 10, false},
		{"16 ranks", Group{Ranks: 16, Nodes: 1}, node(nvlink4), 64 << 10, false},
		{"4 PCIe", Group{Ranks: 4, Nodes: 1}, node(pcie3), 64 << 10, false},
		{"zero bytes", Group{Ranks: 8, Nodes: 1}, node(nvlink4), 0, false},
		{"NaN bytes", Group{Ranks: 8, Nodes: 1}, node(nvlink4), math.NaN(), false},
	}
	for _, c := range cases {
		_, ok := Engine(c.b, c.g, c.f)
		if ok != c.ok {
			t.Errorf("%s: applies = %v, want %v", c.name, ok, c.ok)
		}
		r := TimeEngine(AllReduce, c.b, c.g, c.f)
		nccl := Time(AllReduce, c.b, c.g, c.f, Auto)
		if !ok && r != nccl {
			t.Errorf("%s: TimeEngine = %v, want NCCL's %v", c.name, r, nccl)
		}
		if r.Seconds > nccl.Seconds || math.IsNaN(r.Seconds) {
			t.Errorf("%s: TimeEngine %.3g s slower than NCCL %.3g s", c.name, r.Seconds, nccl.Seconds)
		}
		// A forced kernel that does not apply falls back to NCCL's choice.
		if f := Time(AllReduce, c.b, c.g, c.f, OneShot); !ok && f != nccl {
			t.Errorf("%s: forced one-shot = %v, want NCCL's %v", c.name, f, nccl)
		}
	}
}

// Decode all-reduces are small: on 8×H100 the engine's few µs against NCCL's tens of µs
// (MSCCL++ measures 6.2–6.9 µs from 24 to 72 KiB [MSP]; NCCL's 8-rank floor is ≈ 40 µs).
func TestEngineBeatsNCCLSmall(t *testing.T) {
	g := Group{Ranks: 8, Nodes: 1}
	for _, b := range []float64{16 << 10, 64 << 10, 256 << 10} {
		e := TimeEngine(AllReduce, b, g, node(nvlink4))
		n := Time(AllReduce, b, g, node(nvlink4), Auto)
		if e.Algo != OneShot && e.Algo != TwoShot || e.Seconds*3 > n.Seconds {
			t.Errorf("%.0f B: engine %v %.1f µs, NCCL %.1f µs: want the engine 3× faster", b, e.Algo, e.Seconds*1e6, n.Seconds*1e6)
		}
	}
	// Other operations are NCCL's.
	if r := TimeEngine(AllGather, 64<<10, g, node(nvlink4)); r != Time(AllGather, 64<<10, g, node(nvlink4), Auto) {
		t.Errorf("all-gather through TimeEngine = %v, want NCCL's", r)
	}
}

func TestParseEngineAlgos(t *testing.T) {
	for _, s := range []string{"one-shot", "oneshot", "TWO_SHOT"} {
		if a, err := ParseAlgo(s); err != nil || (a != OneShot && a != TwoShot) {
			t.Errorf("ParseAlgo(%q) = %v, %v", s, a, err)
		}
	}
	if n := AlgoNames(); len(n) != len(Algos()) || n[0] != "auto" {
		t.Errorf("AlgoNames = %v", n)
	}
}
