package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// relNear reports whether got is within rel (relative) of want; both zero counts as near.
func relNear(got, want, rel float64) bool {
	if want == 0 {
		return got == 0
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// testLink is a synthetic link with round numbers: B_eff = 100 GB/s × 0.5 = 50 GB/s, α = 5 µs.
var testLink = model.Link{ID: "test", Kind: model.NVLink, Bandwidth: 100e9, Latency: 5e-6, Efficiency: 0.5}

// sendTime is collective's send/recv between two ranks on the link: never faster for more bytes,
// latency-bound for tiny messages (one LL hop), bandwidth-bound for large ones.
func TestSendTime(t *testing.T) {
	if got := sendTime(8, testLink); !relNear(got, testLink.Latency, 1e-3) {
		t.Errorf("8 B: %v, want one LL hop (%v) plus 8 B at LL's half bandwidth", got, testLink.Latency)
	}
	// A peer gets fewer channels than a ring: 84% of the link's bus bandwidth.
	big := sendTime(1e9, testLink)
	if want := 1e9 / (50e9 * 0.84); !(big > want) || big > 1.1*want {
		t.Errorf("1 GB: %v s, want just above 1e9 / (0.84 · 50e9) = %v s", big, want)
	}
	prev := 0.0
	for b := 1.0; b < 1e11; b *= 3 {
		got := sendTime(b, testLink)
		if got < prev {
			t.Fatalf("%g B: %v below a smaller message's %v", b, got, prev)
		}
		prev = got
	}
	if sendTime(0, testLink) != 0 {
		t.Error("0 B costs time")
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

func TestNewCommsInterShare(t *testing.T) {
	// A group's share of its node's NICs: every group with ranks on the node talks at once, so a
	// group with `local` ranks there gets NICs × local / GPUs per node of them, as that many rails
	// (one channel each in the collective model), a fraction of a NIC as one rail.
	cases := []struct {
		name          string
		nicBW         float64
		nics, gpn     int
		stride, count int
		wantShare     float64 // bytes/s of NIC bandwidth for the group on one node
		wantRails     int
	}{
		{"TP 16: a whole node each, all 8 NDR NICs", 50e9, 8, 8, 1, 16, 400e9, 8},
		{"DP behind TP 8: one rank a node, one NIC's worth", 50e9, 8, 8, 8, 4, 50e9, 1},
		{"DP behind TP 2: 4 ranks a node, half the NICs", 25e9, 4, 8, 2, 8, 50e9, 2},
		{"1 NIC for 8 GPUs, one rank a node", 25e9, 1, 8, 8, 4, 3.125e9, 1},
		{"4 NICs for 8 GPUs, one rank a node: half a NIC", 12.5e9, 4, 8, 8, 2, 6.25e9, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := model.Cluster{GPUs: 64, GPUsPerNode: tc.gpn, NICsPerNode: tc.nics, Intra: testLink,
				Inter: model.Link{ID: "nic", Kind: model.InfiniBand, Bandwidth: tc.nicBW, Latency: 5e-6, Efficiency: 0.85}}
			k := newComms(spanGroup(tc.stride, tc.count, tc.gpn), c)
			if got := k.f.Inter.Bandwidth * float64(k.f.NICs); !relNear(got, tc.wantShare, 1e-12) {
				t.Errorf("NIC share %.4g, want %.4g", got, tc.wantShare)
			}
			if k.f.NICs != tc.wantRails {
				t.Errorf("%d rails, want %d", k.f.NICs, tc.wantRails)
			}
			if k.f.Inter.Latency != 5e-6 || k.f.Inter.Efficiency != 0.85 || k.f.Inter.ID != "nic" || k.f.Intra != testLink {
				t.Errorf("links changed beyond the NIC share: %+v", k.f)
			}
			if c.Inter.Bandwidth != tc.nicBW {
				t.Errorf("the cluster's NIC bandwidth was modified: %v", c.Inter.Bandwidth)
			}
		})
	}
}

// hierCluster is two or more 8-GPU nodes: intra B_eff = 200 GB/s × 0.5 = 100 GB/s, α = 2 µs;
// 4 NICs of 25 GB/s at 0.8, α = 5 µs.
func hierCluster(gpus int) model.Cluster {
	return model.Cluster{GPUs: gpus, GPUsPerNode: 8, NICsPerNode: 4,
		Intra: model.Link{ID: "intra", Kind: model.NVLink, Bandwidth: 200e9, Latency: 2e-6, Efficiency: 0.5},
		Inter: model.Link{ID: "inter", Kind: model.InfiniBand, Bandwidth: 25e9, Latency: 5e-6, Efficiency: 0.8}}
}

func TestCommsOnTheCluster(t *testing.T) {
	// One node: the collective package on the intra link, as is.
	c := hierCluster(8)
	k := newComms(spanGroup(1, 8, 8), c)
	for _, bytes := range []float64{1000, 65536, 1 << 20, 1e9} {
		want := collective.Time(collective.AllReduce, bytes, collective.Group{Ranks: 8, Nodes: 1}, collective.FabricOf(c), collective.Auto)
		if got := k.allReduce(bytes); got != want.Seconds {
			t.Errorf("%g B: %v, want %v", bytes, got, want.Seconds)
		}
	}
	if k.link().ID != "intra" {
		t.Errorf("one node bound by %s", k.link().ID)
	}
	// Two nodes: slower than one, bound by the network (its share 4 × 25 GB/s × 0.8 = 80 GB/s
	// per node is below the 100 GB/s NVLink).
	k2 := newComms(spanGroup(1, 16, 8), hierCluster(16))
	if k2.link().ID != "inter" {
		t.Errorf("two nodes bound by %s", k2.link().ID)
	}
	for _, bytes := range []float64{8, 1 << 20, 1e9} {
		if k2.allReduce(bytes) <= k.allReduce(bytes) {
			t.Errorf("%g B: two nodes %v not slower than one %v", bytes, k2.allReduce(bytes), k.allReduce(bytes))
		}
	}
	// Large messages run at the network's pace: no faster than 8 GB through the NICs' 80 GB/s
	// (the two-node tree's bound, 100 ms), no slower than the ring's 1.875 · 8 GB / 80 GB/s.
	if got := k2.allReduce(8e9); got < 8e9/80e9 || got > 1.05*1.875*8e9/80e9 {
		t.Errorf("8 GB over two nodes: %v s, want between %v and %v", got, 8e9/80e9, 1.875*8e9/80e9)
	}
	// A reduce-scatter is at most an all-reduce.
	if k2.half(1e9) > k2.allReduce(1e9) {
		t.Error("reduce-scatter slower than all-reduce")
	}
}
