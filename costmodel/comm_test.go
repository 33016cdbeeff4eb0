package costmodel

import (
	"fmt"
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// relNear reports whether got is within rel (relative) of want; both zero counts as near.
func relNear(got, want, rel float64) bool {
	if want == 0 {
		return got == 0
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// refSimple and refLL are the two protocols of comm.go's doc comment, written out from the α-β
// model of docs/costmodel.md: `steps` ring steps moving `wire` bytes per rank on a link of
// latency α and effective bandwidth B·eff. Simple pays simpleLatencyFactor·α per step at full
// bandwidth; LL pays α per step at llBandwidthFraction of it. NCCL (and the model) takes the
// faster.
func refSimple(steps, wire float64, l model.Link) float64 {
	return steps*l.Latency*simpleLatencyFactor + wire/(l.Bandwidth*l.Efficiency)
}

func refLL(steps, wire float64, l model.Link) float64 {
	return steps*l.Latency + wire/(l.Bandwidth*l.Efficiency*llBandwidthFraction)
}

// testLink is a synthetic link with round numbers: B_eff = 100 GB/s × 0.5 = 50 GB/s, α = 5 µs.
var testLink = model.Link{ID: "test", Kind: model.NVLink, Bandwidth: 100e9, Latency: 5e-6, Efficiency: 0.5}

func TestRingAllReduce(t *testing.T) {
	// All-reduce of S bytes over n ranks: 2(n−1) steps, 2(n−1)/n · S bytes through each link.
	// The numbers in the comments are for simpleLatencyFactor = 2 and llBandwidthFraction = 0.1.
	cases := []struct {
		name  string
		bytes float64
		n     int
		large bool // Simple (bandwidth-bound) wins; otherwise LL
		want  float64
	}{
		// 6 steps, wire 1.5e9 B: Simple 6·5µs·2 + 1.5e9/50e9 = 60 µs + 30 ms = 30.06 ms;
		// LL 30 µs + 1.5e9/5e9 = 300.03 ms.
		{"1 GB over 4", 1e9, 4, true, 6*5e-6*simpleLatencyFactor + 1.5e9/50e9},
		// 6 steps, 1,572,864 B: Simple 60 + 31.46 = 91.46 µs; LL 30 + 314.6 = 344.6 µs.
		{"1 MiB over 4", 1 << 20, 4, true, 6*5e-6*simpleLatencyFactor + 1.5*(1<<20)/50e9},
		// 2 steps, 1e6 B: Simple 20 + 20 = 40 µs; LL 10 + 200 = 210 µs.
		{"1 MB over 2", 1e6, 2, true, 2*5e-6*simpleLatencyFactor + 1e6/50e9},
		// 6 steps, 1500 B: Simple 60 + 0.03 = 60.03 µs; LL 30 + 0.3 = 30.3 µs.
		{"1 kB over 4", 1000, 4, false, 6*5e-6 + 1500/(50e9*llBandwidthFraction)},
		// 14 steps, 14/8 · 65536 = 114,688 B: Simple 140 + 2.29 = 142.3 µs; LL 70 + 22.9 = 92.9 µs.
		{"64 KiB over 8", 65536, 8, false, 14*5e-6 + 114688/(50e9*llBandwidthFraction)},
		// The crossover on 4 ranks: equal when 6·α·(factor − 1) = W·(1/(f·B) − 1/B), i.e. at
		// W* = 6·5 µs · 50e9 / 9 = 166,667 B on the wire, S* = W* / 1.5 = 111,111 B.
		{"just under the crossover", 0.9 * 111111, 4, false, 6*5e-6 + 1.5*0.9*111111/(50e9*llBandwidthFraction)},
		{"just over the crossover", 1.1 * 111111, 4, true, 6*5e-6*simpleLatencyFactor + 1.5*1.1*111111/50e9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps := 2 * float64(tc.n-1)
			wire := 2 * float64(tc.n-1) / float64(tc.n) * tc.bytes
			simple, ll := refSimple(steps, wire, testLink), refLL(steps, wire, testLink)
			// The case is in the regime it claims (checks the table, not the code).
			if tc.large != (simple < ll) {
				t.Fatalf("table: Simple %.4g s, LL %.4g s, large = %v", simple, ll, tc.large)
			}
			got := ringAllReduce(tc.bytes, tc.n, testLink)
			if !relNear(got, tc.want, 1e-12) {
				t.Errorf("got %.6g s, want %.6g s", got, tc.want)
			}
			if !relNear(got, math.Min(simple, ll), 1e-12) {
				t.Errorf("got %.6g s, not the faster of Simple %.6g s and LL %.6g s", got, simple, ll)
			}
		})
	}
	t.Run("nothing to do", func(t *testing.T) {
		for _, tc := range []struct {
			bytes float64
			n     int
		}{{1e9, 1}, {1e9, 0}, {0, 8}, {-5, 8}} {
			if got := ringAllReduce(tc.bytes, tc.n, testLink); got != 0 {
				t.Errorf("ringAllReduce(%v, %d) = %v, want 0", tc.bytes, tc.n, got)
			}
			if got := ringHalf(tc.bytes, tc.n, testLink); got != 0 {
				t.Errorf("ringHalf(%v, %d) = %v, want 0", tc.bytes, tc.n, got)
			}
		}
	})
}

func TestRingHalfIsHalfAnAllReduce(t *testing.T) {
	// A reduce-scatter (or all-gather) is n−1 steps moving (n−1)/n · S: exactly half the steps
	// and half the bytes of an all-reduce. Both protocol forms are linear in (steps, wire), so
	// the faster of the halves is half the faster: ringHalf = ringAllReduce / 2 in every regime.
	for _, n := range []int{2, 3, 4, 8, 16, 64} {
		for _, bytes := range []float64{1, 1000, 65536, 111111, 1 << 20, 1e8, 1e10} {
			t.Run(fmt.Sprintf("n%d_%g", n, bytes), func(t *testing.T) {
				steps := float64(n - 1)
				wire := float64(n-1) / float64(n) * bytes
				want := math.Min(refSimple(steps, wire, testLink), refLL(steps, wire, testLink))
				got := ringHalf(bytes, n, testLink)
				if !relNear(got, want, 1e-12) {
					t.Errorf("ringHalf %.6g s, want %.6g s", got, want)
				}
				if ar := ringAllReduce(bytes, n, testLink); !relNear(got, ar/2, 1e-12) {
					t.Errorf("ringHalf %.6g s, all-reduce/2 %.6g s", got, ar/2)
				}
			})
		}
	}
}

func TestSendTime(t *testing.T) {
	// One transfer: one step, the bytes once.
	cases := []struct {
		name  string
		bytes float64
		want  float64
	}{
		// Simple 10 µs + 8 MiB / 50 GB/s = 10 + 167.77 µs; LL 5 + 1677.7 µs.
		{"8 MiB", 8 << 20, 5e-6*simpleLatencyFactor + (8<<20)/50e9},
		// Simple 10 + 0.08 µs; LL 5 + 0.8 µs.
		{"4 KB", 4000, 5e-6 + 4000/(50e9*llBandwidthFraction)},
		{"nothing", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sendTime(tc.bytes, testLink); !relNear(got, tc.want, 1e-12) {
				t.Errorf("got %.6g s, want %.6g s", got, tc.want)
			}
		})
	}
}

func TestSpanGroup(t *testing.T) {
	// Ranks are numbered TP first, then DP, then PP, and fill nodes of gpn GPUs in order; a group
	// of `count` ranks `stride` apart covers ranks 0, stride, 2·stride, …
	cases := []struct {
		name               string
		stride, count, gpn int
		want               group
	}{
		// TP 8: ranks 0–7, one full node.
		{"tp 8 in a node", 1, 8, 8, group{n: 8, nodes: 1, local: 8}},
		// TP 16: ranks 0–15, two nodes of 8.
		{"tp 16 over two nodes", 1, 16, 8, group{n: 16, nodes: 2, local: 8}},
		// DP behind TP 8: ranks 0, 8, 16, 24, one per node.
		{"dp stride 8", 8, 4, 8, group{n: 4, nodes: 4, local: 1}},
		// DP behind TP 2: ranks 0, 2, …, 14: 4 on each of 2 nodes.
		{"dp stride 2", 2, 8, 8, group{n: 8, nodes: 2, local: 4}},
		// DP behind TP 2 with 4 replicas: ranks 0, 2, 4, 6, all in node 0.
		{"dp stride 2 inside a node", 2, 4, 8, group{n: 4, nodes: 1, local: 4}},
		// DP behind TP 16: ranks 0 and 16, different nodes.
		{"dp stride above node", 16, 2, 8, group{n: 2, nodes: 2, local: 1}},
		{"one rank", 8, 1, 8, group{n: 1, nodes: 1, local: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := spanGroup(tc.stride, tc.count, tc.gpn); got != tc.want {
				t.Errorf("spanGroup(%d, %d, %d) = %+v, want %+v", tc.stride, tc.count, tc.gpn, got, tc.want)
			}
		})
	}
}

func TestNewCollectiveInterShare(t *testing.T) {
	// Inter-node bandwidth per GPU = NIC bandwidth × NICs per node / GPUs per node.
	cases := []struct {
		name       string
		nicBW      float64
		nics, gpn  int
		gpus       int
		wantPerGPU float64
	}{
		{"8 NDR NICs for 8 GPUs", 50e9, 8, 8, 16, 50e9},
		{"4 HDR NICs for 8 GPUs", 25e9, 4, 8, 16, 12.5e9},
		{"1 NIC for 8 GPUs", 25e9, 1, 8, 32, 3.125e9},
		{"2 NICs for 4 GPUs", 12.5e9, 2, 4, 8, 6.25e9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := model.Cluster{GPUs: tc.gpus, GPUsPerNode: tc.gpn, NICsPerNode: tc.nics, Intra: testLink,
				Inter: model.Link{ID: "nic", Kind: model.InfiniBand, Bandwidth: tc.nicBW, Latency: 5e-6, Efficiency: 0.85}}
			k := newCollective(spanGroup(1, 2*tc.gpn, tc.gpn), c)
			if !relNear(k.inter.Bandwidth, tc.wantPerGPU, 1e-12) {
				t.Errorf("inter bandwidth per GPU %.4g, want %.4g", k.inter.Bandwidth, tc.wantPerGPU)
			}
			if k.inter.Latency != 5e-6 || k.inter.Efficiency != 0.85 || k.inter.ID != "nic" {
				t.Errorf("inter link changed beyond its bandwidth: %+v", k.inter)
			}
			if k.intra != testLink {
				t.Errorf("intra link changed: %+v", k.intra)
			}
			if c.Inter.Bandwidth != tc.nicBW {
				t.Errorf("the cluster's NIC bandwidth was modified: %v", c.Inter.Bandwidth)
			}
		})
	}
}

// hierCluster is two or more 8-GPU nodes: intra B_eff = 200 GB/s × 0.5 = 100 GB/s, α = 2 µs;
// 4 NICs of 25 GB/s at 0.8, α = 5 µs, so a GPU's share is 25 × 4 / 8 = 12.5 GB/s, 10 GB/s
// effective.
func hierCluster(gpus int) model.Cluster {
	return model.Cluster{GPUs: gpus, GPUsPerNode: 8, NICsPerNode: 4,
		Intra: model.Link{ID: "intra", Kind: model.NVLink, Bandwidth: 200e9, Latency: 2e-6, Efficiency: 0.5},
		Inter: model.Link{ID: "inter", Kind: model.InfiniBand, Bandwidth: 25e9, Latency: 5e-6, Efficiency: 0.8}}
}

func TestHierarchicalCollective(t *testing.T) {
	const S = 800e6
	f := simpleLatencyFactor
	// All of these are bandwidth-bound (Simple protocol; LL's bandwidth term alone is 10× the
	// Simple bandwidth term, far above the latency saved).
	//
	// Intra reduce-scatter over 8: 7 steps, 7/8 · 800 MB = 700 MB: 7·2µs·2 + 700e6/100e9
	// = 28 µs + 7 ms = 7.028 ms.
	intraHalf := 7*2e-6*f + 700e6/100e9
	// Inter all-reduce of S/8 = 100 MB over 2 nodes: 2 steps, 2·1/2·100 MB = 100 MB:
	// 2·5µs·2 + 100e6/10e9 = 20 µs + 10 ms = 10.02 ms.
	interAR := 2*5e-6*f + 100e6/10e9
	// Inter reduce-scatter of 100 MB over 2 nodes: 1 step, 50 MB: 10 µs + 5 ms = 5.01 ms.
	interHalf := 1*5e-6*f + 50e6/10e9
	// 4 nodes with one rank each (DP behind TP 8): a flat ring on the NIC share; 6 steps,
	// 1.5 · 800 MB = 1.2 GB: 6·5µs·2 + 1.2e9/10e9 = 60 µs + 120 ms.
	flat4AR := 6*5e-6*f + 1.2e9/10e9
	// One node: a flat ring on the intra link, 14 steps, 1.4 GB: 56 µs + 14 ms.
	flat8AR := 14*2e-6*f + 1.4e9/100e9

	cases := []struct {
		name             string
		stride, count    int
		gpus             int
		wantAR, wantHalf float64
		wantLink         string
	}{
		// 16 ranks over 2 nodes of 8: intra reduce-scatter + inter all-reduce of S/8 + intra
		// all-gather = 7.028 + 10.02 + 7.028 = 24.076 ms.
		{"2 nodes of 8", 1, 16, 16, 2*intraHalf + interAR, intraHalf + interHalf, "inter"},
		{"4 nodes of 1", 8, 4, 32, flat4AR, flat4AR / 2, "inter"},
		{"1 node of 8", 1, 8, 16, flat8AR, flat8AR / 2, "intra"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := hierCluster(tc.gpus)
			k := newCollective(spanGroup(tc.stride, tc.count, 8), c)
			if got := k.allReduce(S); !relNear(got, tc.wantAR, 1e-12) {
				t.Errorf("all-reduce %.6g s, want %.6g s", got, tc.wantAR)
			}
			if got := k.half(S); !relNear(got, tc.wantHalf, 1e-12) {
				t.Errorf("reduce-scatter %.6g s, want %.6g s", got, tc.wantHalf)
			}
			if got := k.link().ID; got != tc.wantLink {
				t.Errorf("bound by %q, want %q", got, tc.wantLink)
			}
		})
	}
	t.Run("one node equals the flat ring", func(t *testing.T) {
		c := hierCluster(8)
		k := newCollective(spanGroup(1, 8, 8), c)
		for _, bytes := range []float64{1000, 65536, 1 << 20, 1e9} {
			if got, want := k.allReduce(bytes), ringAllReduce(bytes, 8, c.Intra); got != want {
				t.Errorf("%g B: %.6g s, flat ring %.6g s", bytes, got, want)
			}
			if got, want := k.half(bytes), ringHalf(bytes, 8, c.Intra); got != want {
				t.Errorf("%g B half: %.6g s, flat ring %.6g s", bytes, got, want)
			}
		}
	})
}

func TestSlowerLinkIsNeverFaster(t *testing.T) {
	// Lower bandwidth, lower efficiency or higher latency never shortens a collective, in
	// either protocol regime.
	slower := []struct {
		name string
		edit func(*model.Link)
	}{
		{"half bandwidth", func(l *model.Link) { l.Bandwidth /= 2 }},
		{"lower efficiency", func(l *model.Link) { l.Efficiency *= 0.7 }},
		{"double latency", func(l *model.Link) { l.Latency *= 2 }},
		{"slower on every count", func(l *model.Link) { l.Bandwidth, l.Latency, l.Efficiency = 31e9, 6e-6, 0.4 }},
	}
	sizes := []float64{8, 4096, 65536, 111111, 1 << 20, 64 << 20, 1e9, 16e9}
	for _, sl := range slower {
		t.Run(sl.name, func(t *testing.T) {
			slow := testLink
			sl.edit(&slow)
			for _, n := range []int{2, 4, 8, 16} {
				for _, bytes := range sizes {
					if f, s := ringAllReduce(bytes, n, testLink), ringAllReduce(bytes, n, slow); s < f {
						t.Errorf("all-reduce %g B over %d: slower link %.4g s < %.4g s", bytes, n, s, f)
					}
					if f, s := sendTime(bytes, testLink), sendTime(bytes, slow); s < f {
						t.Errorf("send %g B: slower link %.4g s < %.4g s", bytes, s, f)
					}
				}
			}
			// Hierarchical: a slower network under the same nodes.
			fast := hierCluster(16)
			slowC := fast
			sl.edit(&slowC.Inter)
			kf := newCollective(spanGroup(1, 16, 8), fast)
			ks := newCollective(spanGroup(1, 16, 8), slowC)
			for _, bytes := range sizes {
				if f, s := kf.allReduce(bytes), ks.allReduce(bytes); s < f {
					t.Errorf("hierarchical %g B: slower network %.4g s < %.4g s", bytes, s, f)
				}
			}
		})
	}
	t.Run("more bytes never faster", func(t *testing.T) {
		prev := 0.0
		for _, bytes := range sizes {
			got := ringAllReduce(bytes, 8, testLink)
			if got < prev {
				t.Errorf("%g B: %.4g s below a smaller message's %.4g s", bytes, got, prev)
			}
			prev = got
		}
	})
}
