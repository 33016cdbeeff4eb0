package collective

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Literal copies of the topology presets (assets/presets/links.yaml).
var (
	pcie4 = model.Link{ID: "pcie4", Kind: model.PCIe, Bandwidth: 31e9, Latency: 1.75e-6, Efficiency: 0.80}
	pcie5 = model.Link{ID: "pcie5", Kind: model.PCIe, Bandwidth: 63e9, Latency: 1.75e-6, Efficiency: 0.80}
	xgmi  = model.Link{ID: "xgmi", Kind: model.XGMI, Bandwidth: 448e9, Latency: 1e-6, Efficiency: 0.73, MeshLinks: 7}
)

func staged(l model.Link) model.Link { l.Staged = true; return l }

func onPath(l model.Link, p model.PCIePath) model.Link { l.PCIePath = p; return l }

// busBW is nccl-tests' bus bandwidth of an all-reduce of bytes on n GPUs of one node.
func busBW(t *testing.T, l model.Link, n int, bytes float64) float64 {
	t.Helper()
	r := Time(AllReduce, bytes, Group{Ranks: n, Nodes: 1}, node(l), Auto)
	if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) {
		t.Fatalf("%s, %d GPUs, %.0f B: time %v", l.ID, n, bytes, r.Seconds)
	}
	return bytes / r.Seconds * AllReduce.BusFactor(n)
}

// Without peer-to-peer every hop is staged through host memory: large all-reduces run at about
// 1/stagingFactor of the P2P bandwidth, and each of a small all-reduce's 2(n−1) LL steps pays
// the host copy on top.
func TestNoP2PPaysTwice(t *testing.T) {
	for _, l := range []model.Link{pcie4, pcie5} {
		for _, n := range []int{2, 4, 8} {
			p2p, nop2p := busBW(t, l, n, 1<<30), busBW(t, staged(l), n, 1<<30)
			if r := p2p / nop2p; r < 0.9*stagingFactor || r > 1.1*stagingFactor {
				t.Errorf("%s ×%d: P2P %.1f GB/s against %.1f staged, ×%.2f; want about ×%d", l.ID, n, p2p/1e9, nop2p/1e9, r, stagingFactor)
			}
			g := Group{Ranks: n, Nodes: 1}
			small, smallStaged := Time(AllReduce, 8, g, node(l), Auto), Time(AllReduce, 8, g, node(staged(l)), Auto)
			want := float64(2*(n-1)) * hostCopyLatency
			if d := smallStaged.Seconds - small.Seconds; math.Abs(d/want-1) > 0.01 { // and 8 B at LL's halved rate
				t.Errorf("%s ×%d: 8 B takes %.2f µs more staged, want %.2f (2(n−1) host copies)", l.ID, n, d*1e6, want*1e6)
			}
		}
	}
	// The anchors: 8×RTX 4090 without P2P take 42.56 µs for 8 B [ISS nccl#1530]; 8×RTX 5090
	// without P2P reach 28 GB/s [ISS nccl#1639] (the model: 24.5, the host's memory sets the pace
	// there and the model stages every hop alike).
	if r := Time(AllReduce, 8, Group{Ranks: 8, Nodes: 1}, node(staged(pcie4)), Auto); math.Abs(r.Seconds*1e6/42.56-1) > 0.05 {
		t.Errorf("8×RTX 4090 without P2P, 8 B: %.2f µs, published 42.56", r.Seconds*1e6)
	}
	if bw := busBW(t, staged(pcie5), 8, 1<<30) / 1e9; math.Abs(bw/28-1) > 0.15 {
		t.Errorf("8×RTX 5090 without P2P: busbw %.1f GB/s, published 28", bw)
	}
}

// A PCIe path under one switch is faster than one through the host bridge, which is faster than
// one across CPU sockets; across sockets 3 GPUs of a PCIe 4 node reach about 20 GB/s of bus
// bandwidth [ISS nccl-tests#178].
func TestPCIePathsOrdered(t *testing.T) {
	for _, l := range []model.Link{pcie4, pcie5, staged(pcie5)} {
		for _, bytes := range []float64{64 << 10, 16 << 20, 1 << 30} {
			sw := busBW(t, onPath(l, model.PathSwitch), 8, bytes)
			host := busBW(t, onPath(l, model.PathHost), 8, bytes)
			sock := busBW(t, onPath(l, model.PathSocket), 8, bytes)
			if !(sw > host && host > sock) {
				t.Errorf("%s (staged %v), %.0f B: switch %.2f, host %.2f, socket %.2f GB/s; want switch > host > socket",
					l.ID, l.Staged, bytes, sw/1e9, host/1e9, sock/1e9)
			}
		}
	}
	if bw := busBW(t, onPath(pcie4, model.PathSocket), 3, 1<<30) / 1e9; math.Abs(bw/20-1) > 0.10 {
		t.Errorf("3 GPUs across sockets on PCIe 4: busbw %.1f GB/s, published ~20", bw)
	}
	// NVLink and XGMI have no PCIe path: the field is ignored there.
	if a, b := busBW(t, nvlink3, 8, 1<<30), busBW(t, onPath(nvlink3, model.PathSocket), 8, 1<<30); a != b {
		t.Errorf("a PCIe path changed NVLink: %.1f against %.1f GB/s", a/1e9, b/1e9)
	}
}

// XGMI is a mesh: a group of k GPUs of the node runs on k−1 of each GPU's 7 peer links, so 2
// GPUs get one link's worth and 8 all seven [SN: 47.7 against 313 GB/s on MI300X].
func TestXGMIGroups(t *testing.T) {
	per := xgmi.Bandwidth / float64(xgmi.MeshLinks) * xgmi.Efficiency
	eight := busBW(t, xgmi, 8, 8<<30)
	for _, c := range []struct{ k, links int }{{2, 1}, {3, 2}, {4, 3}, {6, 5}, {8, 7}} {
		if bus, _ := LinkShare(xgmi, c.k); math.Abs(bus-float64(c.links)*per) > 1 {
			t.Errorf("%d GPUs: %.1f GB/s of link, want %d peer links' worth, %.1f", c.k, bus/1e9, c.links, float64(c.links)*per/1e9)
		}
		got, want := busBW(t, xgmi, c.k, 8<<30)/eight, float64(c.links)/7
		if math.Abs(got/want-1) > 0.03 {
			t.Errorf("%d GPUs: busbw %.3f of 8 GPUs', want %.3f (%d of 7 links)", c.k, got, want, c.links)
		}
	}
	// The aggregate is for 8: a pair of MI300X is published at 47.671 GB/s, 8 at 312.9 [SN].
	if bw := busBW(t, xgmi, 2, 4<<30) / 1e9; math.Abs(bw/47.671-1) > 0.10 {
		t.Errorf("2×MI300X at 4 GiB: %.1f GB/s, published 47.671", bw)
	}
	// A send between two GPUs of the mesh has one peer link; an all-to-all of 8 has seven.
	p2p := Time(SendRecv, 1<<30, Group{Ranks: 2, Nodes: 1}, node(xgmi), Auto)
	if bw := (1 << 30) / p2p.Seconds; bw > 64e9 {
		t.Errorf("send/recv on XGMI at %.0f GB/s, above one 64 GB/s peer link", bw/1e9)
	}
	// Ranks spread over nodes use the mesh with their ranks on each node.
	if a, b := LinkShare(xgmi, 1); a != per || b != xgmi.Latency {
		t.Errorf("one rank per node: %.1f GB/s, %.2g s; want one link's %.1f", a/1e9, b, per/1e9)
	}
}

// The inference engines' custom all-reduce reads peers' memory directly: none without
// peer-to-peer, and on a mesh a pair reads over its one link.
func TestEngineTopology(t *testing.T) {
	pair := Group{Ranks: 2, Nodes: 1}
	if _, ok := Engine(64<<10, pair, node(pcie4)); !ok {
		t.Error("two PCIe GPUs with P2P: no engine kernel")
	}
	if _, ok := Engine(64<<10, pair, node(staged(pcie4))); ok {
		t.Error("two PCIe GPUs without P2P: the engine's kernel ran")
	}
	two, _ := engineKernel(OneShot, 1<<20, pair, node(xgmi))
	eight, _ := engineKernel(OneShot, 1<<20, Group{Ranks: 8, Nodes: 1}, node(xgmi))
	// One-shot reads n−1 peers' buffers, each over its own link: the same time for 2 and 8 GPUs.
	if math.Abs(two/eight-1) > 1e-9 {
		t.Errorf("one-shot of 1 MiB: %.1f µs on 2 MI300X, %.1f on 8; want the same", two*1e6, eight*1e6)
	}
}

// Nothing the topology does makes a bad number: every link, path and group size gives a finite,
// positive time.
func TestTopologyFinite(t *testing.T) {
	links := []model.Link{pcie4, staged(pcie4), onPath(pcie5, model.PathHost), staged(onPath(pcie5, model.PathSocket)), xgmi}
	for _, l := range links {
		for n := 2; n <= 16; n++ {
			for _, bytes := range []float64{1, 4096, 1 << 20, 1 << 34} {
				for _, op := range Ops() {
					r := Time(op, bytes, Group{Ranks: n, Nodes: 1}, node(l), Auto)
					if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) || math.IsNaN(r.Seconds) {
						t.Fatalf("%s (staged %v, %s) %s of %.0f B on %d: %v", l.ID, l.Staged, l.PCIePath, op, bytes, n, r.Seconds)
					}
				}
			}
		}
	}
}

// Simple's ramp follows the link: a chunk's fixed cost is 0.78 of the link's step α, and a link
// with fewer channels cuts bigger chunks. So at 16 MiB 8 GPUs on a PCIe 5 switch (2 channels,
// α 1.75 µs) move at over 85% of their plateau, 8 MI300X on XGMI (α 1 µs) at over 65%, and
// 8×A100 on NVLink (9 channels, α 3 µs) at about half of theirs.
func TestSimpleRampFollowsLink(t *testing.T) {
	pcie5 := model.Link{ID: "pcie5", Kind: model.PCIe, Bandwidth: 63e9, Latency: 1.75e-6, Efficiency: 0.80}
	xgmi := model.Link{ID: "xgmi", Kind: model.XGMI, Bandwidth: 448e9, Latency: 1e-6, Efficiency: 0.713, MeshLinks: 7}
	g := Group{Ranks: 8, Nodes: 1}
	share := func(l model.Link, s float64) float64 {
		r := TimeProto(AllReduce, s, g, node(l), Ring, Simple)
		big := TimeProto(AllReduce, 16<<30, g, node(l), Ring, Simple)
		return (s / r.Seconds) / ((16 << 30) / big.Seconds)
	}
	for _, tc := range []struct {
		l      model.Link
		lo, hi float64
	}{{pcie5, 0.85, 1}, {xgmi, 0.65, 0.9}, {nvlink3, 0.4, 0.6}} {
		if f := share(tc.l, 16<<20); f < tc.lo || f > tc.hi {
			t.Errorf("%s at 16 MiB: %.2f of its plateau, want %.2f–%.2f", tc.l.ID, f, tc.lo, tc.hi)
		}
	}
	// The chunk's fixed cost scales with α: XGMI's is a third of NVLink's on channels of the same rate.
	a := newCase(AllReduce, 1<<30, g, node(nvlink3))
	b := newCase(AllReduce, 1<<30, g, node(xgmi))
	ra := a.chunkOverhead / channelBandwidth(a.intraBus)
	rb := b.chunkOverhead / channelBandwidth(b.intraBus)
	if math.Abs(rb/ra-1.0/3) > 1e-9 {
		t.Errorf("chunk cost XGMI/NVLink %.3f, want 1/3", rb/ra)
	}
}

// GroupLink: a group's raw share of the node's link, the busbw curve's reference line.
func TestGroupLink(t *testing.T) {
	for _, c := range []struct {
		l     model.Link
		local int
		want  float64
	}{{xgmi, 2, 64e9}, {xgmi, 4, 192e9}, {xgmi, 8, 448e9}, {nvlink4, 2, 450e9}, {nvlink4, 8, 450e9}} {
		if got := GroupLink(c.l, c.local); math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s, %d GPUs: %.4g B/s, want %.4g", c.l.ID, c.local, got, c.want)
		}
	}
}
