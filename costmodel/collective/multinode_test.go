package collective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Oracles of the collectives across nodes (multinode.go).

var (
	efa  = model.Link{ID: "efa-100", Kind: model.RoCE, Bandwidth: 12.5e9, Latency: 14e-6, Efficiency: 0.95}
	efa1 = model.Link{ID: "efa1-100", Kind: model.RoCE, Bandwidth: 12.5e9, Latency: 10.6e-6, Efficiency: 0.92, SimpleOnly: true}
)

func cluster(intra, inter model.Link, nics int) Fabric {
	return Fabric{Intra: intra, Inter: inter, NICs: nics}
}

// candidate returns the candidate of one algorithm and protocol (Seconds 0 when there is none).
func candidate(op Op, bytes float64, g Group, f Fabric, a Algo, p Proto) Result {
	for _, c := range Candidates(op, bytes, g, f) {
		if c.Algo == a && c.Proto == p {
			return c
		}
	}
	return Result{}
}

// Ring oracle across nodes: a tiny collective is its steps' latency, 2(n−1) LL steps for an
// all-reduce of which 2(N−1) cross the network (n−1 and N−1 for the others).
func TestRingAcrossNodesOracle(t *testing.T) {
	const tiny = 8
	f := cluster(nvlink3, ibHDR, 8)
	for _, nodes := range []int{2, 3, 4, 16, 128} {
		n := 8 * nodes
		g := Group{Ranks: n, Nodes: nodes}
		for _, tc := range []struct {
			op           Op
			steps, inter int
		}{{AllReduce, 2 * (n - 1), 2 * (nodes - 1)}, {AllGather, n - 1, nodes - 1}, {ReduceScatter, n - 1, nodes - 1}, {Broadcast, n - 1, nodes - 1}} {
			r := candidate(tc.op, tiny, g, f, Ring, LL)
			want := float64(tc.steps-tc.inter)*nvlink3.Latency + float64(tc.inter)*ibHDR.Latency
			if math.Abs(r.Seconds-want) > 1e-8 {
				t.Errorf("%s of %d B on %d×8: ring LL %v, want %v (%d steps, %d across the network)", tc.op, tiny, nodes, r.Seconds, want, tc.steps, tc.inter)
			}
		}
	}
}

// Tree oracle for Simple: a tiny all-reduce pays each of its 2((l−1) + ⌈log2 N⌉) stages once,
// the intra ones at Simple's handshake, the network ones at netSimpleFactor LL steps.
func TestTreeSimpleDepthOracle(t *testing.T) {
	f := cluster(nvlink3, ibHDR, 8)
	for _, nodes := range []int{2, 3, 4, 5, 8, 64, 100} {
		g := Group{Ranks: 8 * nodes, Nodes: nodes}
		depth := math.Ceil(math.Log2(float64(nodes)))
		want := 2 * (7*simpleSyncFactor*nvlink3.Latency + depth*netSimpleFactor*ibHDR.Latency)
		if r := candidate(AllReduce, 8, g, f, Tree, Simple); math.Abs(r.Seconds-want) > 1e-8 {
			t.Errorf("%d nodes: tree Simple %v, want %v (depth %v)", nodes, r.Seconds, want, depth)
		}
	}
}

// The intra- and inter-node phases of a tree or NVLS+tree are pipelined: a message of one
// pipeline quantum or less pays the stages one after the other (their times add), a large one
// streams at the slowest stage's rate (the other stages overlap it).
func TestPhasesPipelined(t *testing.T) {
	g := Group{Ranks: 16, Nodes: 2}
	f := cluster(nvlink3, efa, 4)
	intraBus, netBus := nvlink3.EffBandwidth(), 4*efa.EffBandwidth()
	bIntra, bNet := intraBus/2, netBus
	quantum := 4 * float64(netStepBytes) // one channel a rail
	tree := func(s float64) float64 { return candidate(AllReduce, s, g, f, Tree, Simple).Seconds }

	// Below the quantum: each byte more costs every stage, 14 NVLink stages and 2 network ones.
	sum := 14/bIntra + 2/bNet
	if got := (tree(quantum) - tree(quantum/2)) / (quantum / 2); math.Abs(got/sum-1) > 1e-9 {
		t.Errorf("tree below its quantum: %.4g s/B, want the sum of the stages %.4g", got, sum)
	}
	// Above it: only the slowest stage, the network (at 92%), however many NVLink stages.
	slowest := min(bIntra, bNet) * treeBusFraction
	if got := (tree(64*quantum) - tree(32*quantum)) / (32 * quantum); math.Abs(got*slowest-1) > 1e-9 {
		t.Errorf("tree above its quantum: %.4g s/B, want 1/slowest %.4g", got, 1/slowest)
	}
	if 1/slowest >= sum {
		t.Fatal("the oracle does not tell max from sum")
	}
	// A large message's time is max-like, not the sum of the phases.
	const big = 16 << 30
	if got, added := tree(big), big*sum; got > 0.5*added {
		t.Errorf("16 GiB tree %.4g s: near the phases added (%.4g s), want them overlapped", got, added)
	}

	// NVLS+tree on 2 × 8 H100: the same, with NVLS's stage and the tree's network stages.
	fh := cluster(nvlink4, efa, 32)
	nvlsTree := func(s float64) float64 { return candidate(AllReduce, s, g, fh, NVLSTree, Simple).Seconds }
	bNVLS := nvlink4.Bandwidth * nvlink4.NVLSEfficiency
	bTree := 32 * efa.EffBandwidth() * treeBusFraction
	conc := float64(nvlsChannelsHopper * 8)
	q := conc * nvlsMaxChunk // the quantum once chunks are full (from 4 chunks a channel-head)
	if got := (nvlsTree(64*q) - nvlsTree(32*q)) / (32 * q); math.Abs(got*min(bNVLS, bTree)-1) > 1e-9 {
		t.Errorf("NVLS+tree above its quantum: %.4g s/B, want 1/min(NVLS, network) %.4g", got, 1/min(bNVLS, bTree))
	}
	small := conc * (32 << 10) // below one 32 KiB chunk a channel-head
	if got := (nvlsTree(small) - nvlsTree(small/2)) / (small / 2); math.Abs(got*(1/(1/bNVLS+2/bTree))-1) > 1e-9 {
		t.Errorf("NVLS+tree below its quantum: %.4g s/B, want the stages added %.4g", got, 1/bNVLS+2/bTree)
	}
}

// Latency grows with the node count: a ring's network steps linearly, a tree's with log2 N, and
// the fastest a tiny all-reduce can run never falls as nodes are added.
func TestLatencyGrowsWithNodes(t *testing.T) {
	f := cluster(nvlink4, efa, 8)
	prevRing, prevTree, prevBest := 0.0, 0.0, 0.0
	for nodes := 2; nodes <= 1024; nodes *= 2 {
		g := Group{Ranks: 8 * nodes, Nodes: nodes}
		ring := candidate(AllReduce, 8, g, f, Ring, LL).Seconds
		tree := candidate(AllReduce, 8, g, f, Tree, LL).Seconds
		if prevRing > 0 {
			// Doubling the nodes adds 2N network steps and 2·7N NVLink steps to the ring.
			wantRing := prevRing + float64(2*nodes/2)*efa.Latency + float64(2*7*nodes/2)*nvlink4.Latency
			if math.Abs(ring-wantRing) > 1e-8 {
				t.Errorf("%d nodes: ring LL %v, want %v", nodes, ring, wantRing)
			}
			// The tree adds one level: two network steps.
			if math.Abs(tree-prevTree-2*efa.Latency) > 1e-8 {
				t.Errorf("%d nodes: tree LL grows by %v, want 2α = %v", nodes, tree-prevTree, 2*efa.Latency)
			}
		}
		best := math.Inf(1)
		for _, c := range Candidates(AllReduce, 8, g, f) {
			best = min(best, c.Seconds)
		}
		if best < prevBest {
			t.Errorf("%d nodes: fastest tiny all-reduce %v, below %v on fewer nodes", nodes, best, prevBest)
		}
		prevRing, prevTree, prevBest = ring, tree, best
	}
}

// Monotone in the node count: with 8 ranks a node, each algorithm and protocol takes no less
// time on more nodes, at every size.
func TestMonotoneInNodes(t *testing.T) {
	for _, f := range []Fabric{cluster(nvlink3, ibHDR, 8), cluster(nvlink4, efa, 32), cluster(nvlink3, efa1, 4)} {
		for _, op := range []Op{AllReduce, AllGather, ReduceScatter, Broadcast} {
			for s := 1.0; s <= 1<<36; s *= 3.1 {
				prev := map[[2]uint8]float64{}
				for nodes := 2; nodes <= 512; nodes++ {
					for _, c := range Candidates(op, s, Group{Ranks: 8 * nodes, Nodes: nodes}, f) {
						k := [2]uint8{uint8(c.Algo), uint8(c.Proto)}
						if p, ok := prev[k]; ok && c.Seconds < p*(1-1e-12) {
							t.Fatalf("%s of %.0f B, %s/%s on %s: %d nodes %v, fewer nodes %v", op, s, c.Algo, c.Proto, f.Inter.ID, nodes, c.Seconds, p)
						}
						prev[k] = c.Seconds
					}
				}
			}
		}
	}
}

// A ring's network hop holds ringWindowChunks chunks in flight: where a chunk's transfer is
// shorter than the network step, each of the ring's steps pays (step + transfer) / window.
func TestRingWindow(t *testing.T) {
	g := Group{Ranks: 16, Nodes: 2}
	f := cluster(nvlink4, efa, 8)
	const s = 4 << 20
	ch := 8.0
	bus := min(nvlink4.EffBandwidth()*simpleRamp(s, 16, simpleChunkOverheadFactor*nvlink4.Latency*channelBandwidth(nvlink4.EffBandwidth()), simpleChunksPerChannel*channelCount(nvlink4.EffBandwidth())), 8*efa.EffBandwidth())
	chunk := s / (ch * 16)
	perChannel := bus / ch
	netStep := netSimpleFactor * efa.Latency
	if chunk/perChannel >= netStep {
		t.Fatal("not the latency-bound case")
	}
	steps := 2.0 * 15
	lat := (steps-2)*simpleHopTime + 2*netStep
	want := lat + steps*(netStep+chunk/perChannel)/ringWindowChunks
	if r := candidate(AllReduce, s, g, f, Ring, Simple); math.Abs(r.Seconds/want-1) > 1e-12 {
		t.Errorf("ring Simple of 4 MiB on 2×8: %v, want %v", r.Seconds, want)
	}
	// Large: bandwidth-bound, the window covers the network step.
	const big = 16 << 30
	r := candidate(AllReduce, big, g, f, Ring, Simple)
	if bw := big * 2 * 15 / 16 / r.Seconds; bw < 0.95*8*efa.EffBandwidth() || bw > 8*efa.EffBandwidth() {
		t.Errorf("ring bus bandwidth at 16 GiB %.1f GB/s, want just under the NICs' %.1f", bw/1e9, 8*efa.EffBandwidth()/1e9)
	}
}

// A network that runs Simple only (AWS EFA v1): no LL across nodes, in the calibrated costs and
// in NCCL's choice; inside a node the protocols stay.
func TestSimpleOnlyNetwork(t *testing.T) {
	f := cluster(nvlink3, efa1, 4)
	for _, s := range []float64{8, 64 << 10, 1 << 20, 1 << 30} {
		for _, c := range Candidates(AllReduce, s, Group{Ranks: 16, Nodes: 2}, f) {
			if c.Proto != Simple {
				t.Errorf("%.0f B across EFA v1: %s/%s", s, c.Algo, c.Proto)
			}
		}
		if r := Time(AllReduce, s, Group{Ranks: 16, Nodes: 2}, f, Auto); r.Proto != Simple {
			t.Errorf("%.0f B across EFA v1 runs %s/%s", s, r.Algo, r.Proto)
		}
	}
	if r := Time(AllReduce, 8, Group{Ranks: 8, Nodes: 1}, f, Auto); r.Proto != LL {
		t.Errorf("8 B on one node: %s/%s, want LL", r.Algo, r.Proto)
	}
}

// LL across nodes is bound by the host: never faster than NCCL's LL ceilings, 39 GB/s of bus
// bandwidth on 2 nodes and 20.4 on more.
func TestLLCeilingAcrossNodes(t *testing.T) {
	f := cluster(nvlink4, model.Link{ID: "fat", Kind: model.InfiniBand, Bandwidth: 400e9, Latency: 5e-6, Efficiency: 0.9}, 8)
	for _, nodes := range []int{2, 3, 16} {
		g := Group{Ranks: 8 * nodes, Nodes: nodes}
		const s = 1 << 30
		r := candidate(AllReduce, s, g, f, Ring, LL)
		bus := s * AllReduce.BusFactor(g.Ranks) / r.Seconds
		if ceiling := netLLCeiling(nodes); bus > ceiling {
			t.Errorf("%d nodes: ring LL bus %.1f GB/s above the host's %.1f", nodes, bus/1e9, ceiling/1e9)
		}
	}
}

// Never NaN, Inf or negative across nodes, whatever the links.
func TestNoNaNAcrossNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pick := oddFloats(rng)
	for range 20000 {
		intra := model.Link{Kind: model.LinkKind(rng.IntN(6)), Bandwidth: pick(), Latency: pick() * 1e-9, Efficiency: rng.Float64(),
			NVLS: rng.IntN(2) == 0, NVLSMinRanks: rng.IntN(10), NVLSEfficiency: rng.Float64()}
		inter := model.Link{Kind: model.RoCE, Bandwidth: pick(), Latency: pick() * 1e-9, Efficiency: rng.Float64(), SimpleOnly: rng.IntN(2) == 0}
		nodes := 2 + rng.IntN(600)
		g := Group{Ranks: nodes * (1 + rng.IntN(16)), Nodes: nodes}
		f := Fabric{Intra: intra, Inter: inter, NICs: rng.IntN(40)}
		for _, a := range Algos() {
			r := Time(Op(rng.IntN(6)), pick(), g, f, a)
			if math.IsNaN(r.Seconds) || math.IsInf(r.Seconds, 0) || r.Seconds < 0 {
				t.Fatalf("%+v %+v %s: %v", g, f, a, r.Seconds)
			}
		}
	}
}
