package collective

import (
	"math"
	"math/bits"

	"github.com/splitscope/splitscope/model"
)

// caseData is what every algorithm of one collective needs, computed once.
type caseData struct {
	op                 Op
	bytes              float64
	n, nodes, local    int
	intraBus           float64 // bus bandwidth a GPU of the group reaches on its intra-node link, bytes/s
	intraRaw           float64 // the same before the link's efficiency, bytes/s
	netBus             float64 // a node's NICs together, effective, bytes/s
	alphaIntra, alphaN float64 // LL step latency inside a node and across nodes, s
	nvls               bool    // NVLink SHARP applies to this group
	chunkOverhead      float64 // Simple's fixed cost per chunk, in bytes of one channel's transfer
	chunkDivisor       float64 // Simple's chunk is S / (n · chunkDivisor): channels × chunks each cuts a step
	simpleHopIntra     float64 // a Simple step's latency on top of its transfer inside the node, s
	llCap              float64 // the intra link's LL ceiling, bytes/s (0: none)
	nvlsEff            float64 // the intra link's NVLS efficiency
	netSimpleOnly      bool    // the network runs Simple only (multinode.go)
	ll128              bool    // NCCL enables LL128 inside the node: NVLink (tuner.go, ll128Enabled)
	pluginLatency      float64 // the latency the network plugin declares to NCCL's tuner, s
	gen                int     // the GPU generation the intra link implies (tuner.go)
	depth              float64 // ⌈log2 nodes⌉, the inter-node tree's depth
	sizeClass          int     // ⌊log2(bytes / 64)⌋, the row of NCCL's tree correction (tuner.go)
	nvlsChannels       float64 // NCCL's NVLS channels across nodes (multinode.go)
	rails              float64 // the node's NICs the group uses: one ring or tree channel each
	ok                 bool
}

func newCase(op Op, bytes float64, g Group, f Fabric) caseData {
	c := caseData{op: op, bytes: bytes, n: g.Ranks, nodes: g.Nodes, local: g.Local()}
	if c.local < 1 || c.local*c.nodes != c.n {
		c.local = max(c.n/c.nodes, 1)
	}
	c.intraRaw, c.intraBus, c.alphaIntra = intraPath(f.Intra, c.local) // the topology: topology.go
	// Simple's chunk ramp on this link: a fixed cost per chunk of simpleChunkOverheadFactor·α,
	// counted in bytes of one channel's transfer, and chunks of S / (n · channels · chunks a
	// channel cuts per step), NCCL opening a channel per channelMaxBW of the link.
	c.chunkOverhead = simpleChunkOverheadFactor * c.alphaIntra * channelBandwidth(c.intraBus)
	c.chunkDivisor = simpleChunksPerChannel * channelCount(c.intraBus)
	c.simpleHopIntra = simpleHopTime + c.alphaIntra - f.Intra.Latency // + the host copy of a staged step (topology.go)
	if k := f.Intra.Kind; k == model.InfiniBand || k == model.RoCE || k == model.Ethernet {
		// A network link standing for the node's: one send across nodes timed on the NIC (the
		// pipeline's sends, costmodel/comm.go). Its Simple step and ramp stay as fitted on NVLink
		// (α-scaled hop, 2.353 µs and 42.7 chunks a step): no published send/recv sweep across
		// nodes carries the link's own step to them, and Megatron Table 1's sends rest on them.
		c.simpleHopIntra = simpleHopFactor * c.alphaIntra
		c.chunkOverhead = simpleChunkOverheadFactor * nvlinkAlpha * channelBandwidth(c.intraBus)
		c.chunkDivisor = simpleChunksPerChannel * nvlinkChannels
	}
	c.netBus = f.Inter.Bandwidth * f.Inter.Efficiency * float64(max(f.NICs, 1))
	c.alphaN = f.Inter.Latency
	c.nvls = f.Intra.NVLS && c.local >= max(f.Intra.NVLSMinRanks, 2) && f.Intra.NVLSEfficiency > 0
	c.nvlsEff = f.Intra.NVLSEfficiency
	c.llCap = f.Intra.LLBandwidth
	c.ll128 = f.Intra.Kind == model.NVLink
	c.pluginLatency = f.Inter.PluginLatency
	c.gen = generation(f.Intra)
	c.depth = float64(bits.Len(uint(max(c.nodes, 1) - 1))) // ⌈log2 nodes⌉
	c.sizeClass = -1
	if units := bytes / 64; units >= 1 && !math.IsInf(units, 0) {
		_, e := math.Frexp(units) // units = f·2^e, ½ ≤ f < 1: ⌊log2 units⌋ = e − 1
		c.sizeClass = e - 1
	}
	c.netSimpleOnly, c.nvlsChannels, c.rails = f.Inter.SimpleOnly, nvlsNetChannels(f.Intra), float64(max(f.NICs, 1))
	good := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }
	c.ok = good(c.intraBus) && c.alphaIntra >= 0 && c.n >= 2
	if c.nodes > 1 {
		c.ok = c.ok && good(c.netBus) && c.alphaN >= 0
	}
	return c
}

// each calls try with the time of every algorithm and protocol that applies to the case.
func (c caseData) each(try func(Algo, Proto, float64)) {
	switch c.op {
	case AllToAll, SendRecv:
		c.direct(try)
		return
	}
	if c.nodes > 1 {
		c.acrossNodes(try)
		return
	}
	c.ring(try)
	if c.nvls && (c.op == AllReduce || c.op == AllGather || c.op == ReduceScatter) {
		c.nvlsAlgo(try)
	}
}

// ring: NCCL's ring through every rank, node after node. An all-reduce takes 2(n−1) steps and
// moves 2(n−1)/n · S through each rank's link; reduce-scatter and all-gather half of both;
// a broadcast is a pipelined chain of n−1 hops moving S. (Across nodes: ringNet, multinode.go.)
func (c caseData) ring(try func(Algo, Proto, float64)) {
	n := float64(c.n)
	var steps, inter int
	var wire float64
	switch c.op {
	case AllReduce:
		steps, inter = 2*(c.n-1), 2*(c.nodes-1)
		wire = 2 * (n - 1) / n * c.bytes
	case ReduceScatter, AllGather:
		steps, inter = c.n-1, c.nodes-1
		wire = (n - 1) / n * c.bytes
	default: // Broadcast
		steps, inter = c.n-1, c.nodes-1
		wire = c.bytes
	}
	bus := c.intraBus
	if c.nodes > 1 {
		bus = min(bus, c.netBus)
	}
	hops := func(perIntra, perNet float64) float64 {
		return float64(steps-inter)*perIntra + float64(inter)*perNet
	}
	try(Ring, LL, hops(c.alphaIntra, c.alphaN)+wire/c.llBandwidth(bus))
	if c.ll128Enabled() {
		try(Ring, LL128, hops(ll128HopFactor*c.alphaIntra, ll128HopFactor*c.alphaN)+wire/(ll128DataFraction*bus))
	}
	try(Ring, Simple, c.simpleTime(hops(c.simpleHop(), simpleHopFactor*c.alphaN),
		hops(simpleSyncFactor*c.alphaIntra, simpleSyncFactor*c.alphaN), wire, bus))
}

// nvlsAlgo: NVLink SHARP. The NVSwitch reduces what the GPUs write and multicasts the result,
// so an all-reduce moves S out of and S into each GPU once ("instead of 2N sends, N+1" [SN
// §2.1]), at the link's NVLS efficiency, after a fixed latency and a pipeline fill that grows
// with NCCL's NVLS chunk. All-gather and reduce-scatter move (n−1)/n · S. (Across nodes NCCL runs
// NVLS inside the nodes and a tree between them: nvlsTreeNet, multinode.go.)
func (c caseData) nvlsAlgo(try func(Algo, Proto, float64)) {
	bw := c.intraRaw * c.nvlsEff
	bytes := c.bytes
	if c.op != AllReduce {
		bytes *= float64(c.n-1) / float64(c.n)
	}
	chunk := min(max(c.bytes/nvlsChunkDivisor, nvlsMinChunk), nvlsMaxChunk)
	lat := nvlsLatency + nvlsFill*chunk/nvlsMaxChunk
	try(NVLS, Simple, lat+bytes/bw)
}

// direct: all-to-all and send/recv. A send/recv between two ranks takes one link (the NIC's
// share when they are on different nodes); an all-to-all sends (n−1)/n · S from every rank at
// once, the part for other nodes through the node's NICs, shared by its GPUs.
func (c caseData) direct(try func(Algo, Proto, float64)) {
	if c.op == SendRecv {
		bus, alpha := c.intraBus*p2pBusFraction, c.alphaIntra
		if c.nodes > 1 {
			bus, alpha = min(c.netBus/float64(c.local), c.intraBus*p2pBusFraction), c.alphaN
		}
		try(Direct, LL, alpha+c.bytes/c.llBandwidth(bus))
		hop := c.simpleHop()
		if c.nodes > 1 {
			hop = simpleHopFactor * alpha
		}
		try(Direct, Simple, c.simpleTime(hop, simpleSyncFactor*alpha, c.bytes, bus))
		return
	}
	n := float64(c.n)
	intraPart := c.bytes * float64(c.local-1) / n
	netPart := c.bytes * float64(c.n-c.local) / n
	t := intraPart / c.intraBus
	alpha := c.alphaIntra
	if c.nodes > 1 {
		t = max(t, netPart/(c.netBus/float64(c.local)))
		alpha = max(alpha, c.alphaN)
	}
	// Every peer is one send and one receive, posted together: one handshake per peer.
	hop := c.simpleHop()
	if c.nodes > 1 {
		hop = simpleHopFactor * alpha
	}
	lat := float64(c.n-1) * hop
	try(Direct, Simple, max(float64(c.n-1)*simpleSyncFactor*alpha/2, lat+t))
}

// llBandwidth is the LL protocol's bus bandwidth on a link of bus bandwidth bus: half of it,
// and no more than the intra-node link's measured LL ceiling when it has one.
func (c caseData) llBandwidth(bus float64) float64 {
	bw := llBusFraction * bus
	if c.llCap > 0 {
		bw = min(bw, c.llCap)
	}
	return bw
}

// simpleTime is a Simple-protocol transfer: the handshakes (lat) plus wire bytes at the bus
// bandwidth reached with NCCL's chunk size for the message, and never less than the steps'
// handshake floor.
func (c caseData) simpleTime(lat, floor, wire, bus float64) float64 {
	return max(floor, lat+wire/(bus*simpleRamp(c.bytes, c.n, c.chunkOverhead, c.chunkDivisor)))
}

// simpleHop is a Simple step's latency on top of its transfer inside a node: the handshake's
// own cost, the same on every GPU link, plus the host copy of a staged step; on a network link
// (a point-to-point send across nodes timed on the NIC), simpleHopFactor of its α.
func (c caseData) simpleHop() float64 { return c.simpleHopIntra }

// simpleRamp is the fraction of the bus bandwidth the Simple protocol reaches for a message:
// chunks of about S / (n · div) bytes between 64 KiB and 2 MiB, each paying a fixed overhead
// worth overhead bytes.
func simpleRamp(bytes float64, n int, overhead, div float64) float64 {
	chunk := min(max(bytes/(float64(n)*div), simpleMinChunk), simpleMaxChunk)
	return chunk / (chunk + overhead)
}

// channelCount is the number of channels NCCL opens on a link of bus bandwidth bus, bytes/s:
// as many as it takes to fill the link at channelMaxBW each (at least one).
func channelCount(bus float64) float64 {
	if !(bus > 0) || math.IsInf(bus, 0) {
		return 1
	}
	return max(math.Ceil(bus/channelMaxBW), 1)
}

// channelBandwidth is the bandwidth of one of NCCL's channels on a link of bus bandwidth bus:
// NCCL opens as many channels as it takes to fill the link, each moving at most channelMaxBW.
func channelBandwidth(bus float64) float64 {
	if !(bus > 0) || math.IsInf(bus, 0) {
		return 0
	}
	return bus / channelCount(bus)
}
