package collective

import "math"

// Explanation is a collective's time taken apart into the terms of its algorithm's formula, for
// renderers that show the formula with its numbers filled in (the explorer's Tensor and Learn
// tabs, the export). Every algorithm the model times has the same shape:
//
//	T = max(Floor, Steps·Hop + NetSteps·NetHop + Fixed + WireFactor·S / BW),  BW = Link·Factor
//
// ring: Steps + NetSteps = 2(n−1) (n−1 for the others), WireFactor 2(n−1)/n; tree: 2(l−1) chain
// steps and 2⌈log2 N⌉ network steps, WireFactor 1; NVLS: Fixed (latency and pipeline fill),
// WireFactor 1; the engine's one-shot: one launch, WireFactor n−1; two-shot: two launches,
// WireFactor 2(n−1)/n. Explain builds it from the same constants Time uses; Matches says whether
// its sum is the time Time gave.
type Explanation struct {
	Op    Op
	Algo  Algo
	Proto Proto
	// Bytes is S, the operation's buffer; Ranks, Nodes and Local (ranks per node) the group.
	Bytes               float64
	Ranks, Nodes, Local int

	// Latency: Steps hops of Hop seconds on the links inside a node, NetSteps of NetHop across
	// the network, and Fixed seconds: NVLS's fixed latency plus its pipeline fill (Fill of it), or
	// Launches kernel launches of the engine.
	Steps    int
	Hop      float64
	NetSteps int
	NetHop   float64
	Fixed    float64
	Fill     float64
	Launches int

	// Transfer: WireFactor·S bytes through each GPU's link at BW bytes/s. BW is Link (the link's
	// bus bandwidth, its raw bandwidth for NVLS, the tree's or the network's share) times Factor
	// (Simple's chunk ramp, LL's flag words, NVLS's efficiency; 1 when none applies).
	WireFactor float64
	Link       float64
	Factor     float64
	BW         float64

	// Floor is Simple's handshake floor: FloorSteps handshakes of FloorHop (0 when the protocol
	// has none). Floored says the floor is the time.
	Floor      float64
	FloorSteps int
	FloorHop   float64
	Floored    bool

	// Seconds is the formula's value.
	Seconds float64
}

// Latency is the formula's latency terms.
func (e Explanation) Latency() float64 {
	return float64(e.Steps)*e.Hop + float64(e.NetSteps)*e.NetHop + e.Fixed
}

// Wire is the bytes each GPU moves through its link, WireFactor·S.
func (e Explanation) Wire() float64 { return e.WireFactor * e.Bytes }

// Transfer is the formula's bandwidth term, Wire / BW.
func (e Explanation) Transfer() float64 {
	if !(e.BW > 0) {
		return 0
	}
	return e.Wire() / e.BW
}

// Matches says the formula gives the time of r (within 0.1%): the explanation is the model's
// own arithmetic, not a textbook approximation of it.
func (e Explanation) Matches(r Result) bool {
	return e.Algo == r.Algo && e.Proto == r.Proto && r.Seconds > 0 &&
		math.Abs(e.Seconds-r.Seconds) <= 1e-3*r.Seconds
}

// Explain takes apart the time of op on bytes over the group, run with r's algorithm and
// protocol (r as Time, TimeEngine or Candidates returned it), into its formula's terms. False
// when the model has no such case (no bytes, one rank, a fabric without bandwidth, an algorithm
// that does not apply). Pure and allocation-free.
func Explain(op Op, bytes float64, g Group, f Fabric, r Result) (Explanation, bool) {
	if !(bytes > 0) || g.Ranks <= 1 || math.IsInf(bytes, 0) {
		return Explanation{}, false
	}
	g.Nodes = max(g.Nodes, 1)
	e := Explanation{Op: op, Algo: r.Algo, Proto: r.Proto, Bytes: bytes, Ranks: g.Ranks, Nodes: g.Nodes, Factor: 1}
	if r.Algo == OneShot || r.Algo == TwoShot {
		if op != AllReduce {
			return Explanation{}, false
		}
		if _, ok := engineKernel(r.Algo, bytes, g, f); !ok {
			return Explanation{}, false
		}
		n := float64(g.Ranks)
		e.Local = g.Ranks
		_, e.Link, _ = intraPath(f.Intra, g.Ranks) // as engineKernel: a mesh's links of the group
		e.BW = e.Link
		if r.Algo == OneShot {
			e.Launches, e.WireFactor = 1, n-1
		} else {
			e.Launches, e.WireFactor = 2, 2*(n-1)/n
		}
		e.Fixed = float64(e.Launches) * engineLatency
		return e.finish(), true
	}
	c := newCase(op, bytes, g, f)
	if !c.ok {
		return Explanation{}, false
	}
	e.Local = c.local
	ok := false
	switch r.Algo {
	case Ring:
		ok = c.explainRing(&e)
	case Tree:
		ok = c.explainTree(&e)
	case NVLS, NVLSTree:
		ok = c.explainNVLS(&e)
	case Direct:
		ok = c.explainDirect(&e)
	}
	if !ok {
		return Explanation{}, false
	}
	return e.finish(), true
}

// finish sums the terms.
func (e Explanation) finish() Explanation {
	if e.Link > 0 && e.BW == 0 {
		e.BW = e.Link * e.Factor
	}
	t := e.Latency() + e.Transfer()
	e.Floored = e.Floor > t
	e.Seconds = max(e.Floor, t)
	return e
}

// protocol fills the terms a protocol sets on a link of bus bandwidth bus, with steps and
// netSteps latency steps: LL pays α a step and moves at llBandwidth; LL128 pays its own step
// (ll128HopFactor·α) and moves 120/128 of the bus; Simple pays its hop latency a step, moves at
// the chunk ramp's share of the bus, and never beats its handshake floor.
func (c caseData) protocol(e *Explanation, bus float64, steps, netSteps int) bool {
	e.Steps, e.NetSteps = steps, netSteps
	e.Link = bus
	switch e.Proto {
	case LL:
		e.Hop, e.NetHop = c.alphaIntra, c.alphaN
		e.BW = c.llBandwidth(bus)
		e.Factor = e.BW / bus
	case LL128:
		if !c.ll128Enabled() {
			return false
		}
		e.Hop, e.NetHop = ll128HopFactor*c.alphaIntra, ll128HopFactor*c.alphaN
		e.Factor = ll128DataFraction
		e.BW = bus * e.Factor
	case Simple:
		e.Hop, e.NetHop = c.simpleHop(), simpleHopFactor*c.alphaN
		e.Factor = simpleRamp(c.bytes, c.n, c.chunkOverhead, c.chunkDivisor)
		e.BW = bus * e.Factor
		e.FloorSteps, e.FloorHop = steps+netSteps, simpleSyncFactor*c.alphaIntra
		e.Floor = float64(steps)*simpleSyncFactor*c.alphaIntra + float64(netSteps)*simpleSyncFactor*c.alphaN
	default:
		return false
	}
	return true
}

func (c caseData) explainRing(e *Explanation) bool {
	if c.op == AllToAll || c.op == SendRecv {
		return false
	}
	n := float64(c.n)
	var steps, inter int
	switch c.op {
	case AllReduce:
		steps, inter = 2*(c.n-1), 2*(c.nodes-1)
		e.WireFactor = 2 * (n - 1) / n
	case ReduceScatter, AllGather:
		steps, inter = c.n-1, c.nodes-1
		e.WireFactor = (n - 1) / n
	default: // Broadcast
		steps, inter = c.n-1, c.nodes-1
		e.WireFactor = 1
	}
	if c.nodes > 1 {
		return c.explainRingNet(e, steps, inter)
	}
	return c.protocol(e, c.intraBus, steps, 0)
}

// explainRingNet follows ringNet (multinode.go): LL bound by the host across nodes; LL128 at
// 120/128 of the slower link, its own step on every hop; Simple's
// network steps at netSimpleFactor·α_net, and its transfer at the rate the ring's channels
// reach with their window of chunks in flight (BW = channels · chunk / step time).
func (c caseData) explainRingNet(e *Explanation, steps, inter int) bool {
	n := float64(c.n)
	bus := min(c.intraBus, c.netBus)
	e.Steps, e.NetSteps = steps-inter, inter
	switch e.Proto {
	case LL:
		if c.netSimpleOnly {
			return false
		}
		e.Hop, e.NetHop = c.alphaIntra, c.alphaN
		e.Link, e.BW = bus, c.netLLBandwidth(bus)
		e.Factor = e.BW / bus
		return true
	case LL128:
		if !c.ll128Enabled() {
			return false
		}
		e.Hop, e.NetHop = ll128HopFactor*c.alphaIntra, ll128HopFactor*c.alphaN
		e.Link, e.Factor = bus, ll128DataFraction
		e.BW = bus * e.Factor
		return true
	case Simple:
		chunkMax, window := float64(simpleMaxChunk), float64(ringWindowChunks)
		if c.op == Broadcast {
			chunkMax, window = netStepBytes, ncclSteps
		}
		netStep := netSimpleFactor * c.alphaN
		busS := min(c.intraBus*simpleRamp(c.bytes, c.n, c.chunkOverhead, c.chunkDivisor), c.netBus)
		ch := c.rails
		perChannel := busS / ch
		chunk := min(chunkMax, c.bytes/(ch*n))
		if c.op == Broadcast {
			chunk = min(chunkMax, c.bytes/ch)
		}
		step := max(chunk/perChannel, (netStep+chunk/perChannel)/window)
		e.Hop, e.NetHop = c.simpleHop(), netStep
		e.Link, e.BW = bus, ch*chunk/step
		e.Factor = e.BW / bus
		e.FloorSteps, e.FloorHop = steps, simpleSyncFactor*c.alphaIntra
		e.Floor = float64(steps-inter)*simpleSyncFactor*c.alphaIntra + float64(inter)*netStep
		return true
	}
	return false
}

// pipelinedBW is the rate at which pipelined (multinode.go) moves bytes once its latency is
// paid: the first piece through every stage, the rest at the slowest stage's rate.
func pipelinedBW(bytes, quantum, perByte, slowest float64) float64 {
	piece := min(bytes, quantum)
	return bytes / (piece*perByte + (bytes-piece)/slowest)
}

// explainTree follows treeNet (multinode.go): a chain of 2(l−1) stages inside the nodes and
// 2⌈log2 N⌉ across them; LL at a quarter of the tree's bus under the host's ceiling; LL128 at
// 120/128 of the slowest stage, the broadcast's share of the threads counted as one; Simple
// pipelined through the stages (its BW the pipeline's rate for this size).
func (c caseData) explainTree(e *Explanation) bool {
	if c.op != AllReduce || c.nodes < 2 {
		return false
	}
	depth := c.depth
	intraStages, netStages := 2*float64(c.local-1), 2*depth
	bIntra, bNet := c.intraBus/2, c.netBus*treeAlgFactor(c.nodes)
	slowest := min(bIntra, bNet) * treeBusFraction
	e.WireFactor = 1
	e.Steps, e.NetSteps = int(intraStages), int(netStages)
	e.Link = slowest
	switch e.Proto {
	case LL:
		if c.netSimpleOnly {
			return false
		}
		e.Hop, e.NetHop = c.alphaIntra, c.alphaN
		e.BW = min(2*slowest/treeLLDivisor, netLLCeiling(c.nodes)) / 2
	case LL128:
		if !c.ll128Enabled() {
			return false
		}
		e.Hop, e.NetHop = ll128HopFactor*c.alphaIntra, ll128HopFactor*c.alphaN
		e.BW = c.treeLL128Rate(bIntra, bNet)
	case Simple:
		e.Hop, e.NetHop = simpleSyncFactor*c.alphaIntra, netSimpleFactor*c.alphaN
		e.BW = pipelinedBW(c.bytes, c.rails*netStepBytes, intraStages/bIntra+netStages/bNet, slowest)
	default:
		return false
	}
	e.Factor = e.BW / e.Link
	return true
}

func (c caseData) explainNVLS(e *Explanation) bool {
	if !c.nvls || e.Proto != Simple {
		return false
	}
	switch {
	case c.op == AllReduce:
		e.WireFactor = 1
	case (c.op == AllGather || c.op == ReduceScatter) && c.nodes == 1:
		e.WireFactor = float64(c.n-1) / float64(c.n)
	default:
		return false
	}
	if (e.Algo == NVLS) != (c.nodes == 1) || (e.Algo == NVLSTree && c.op != AllReduce) {
		return false
	}
	chunk := min(max(c.bytes/nvlsChunkDivisor, nvlsMinChunk), nvlsMaxChunk)
	e.Fill = nvlsFill * chunk / nvlsMaxChunk
	e.Fixed = nvlsLatency + e.Fill
	e.Link, e.Factor = c.intraRaw, c.nvlsEff
	e.BW = c.intraRaw * c.nvlsEff
	if c.nodes > 1 {
		// nvlsTreeNet (multinode.go): NCCL's NVLS+tree chunk, the tree's network steps, the
		// pipeline's rate through the NVLS and network stages.
		depth := c.depth
		bNVLS := c.intraRaw * c.nvlsEff
		bNet := c.netBus * treeAlgFactor(c.nodes) * treeBusFraction
		conc := c.nvlsChannels * float64(c.local)
		chunk = nvlsTreeChunk(c.bytes, conc)
		e.Fill = nvlsFill * chunk / nvlsMaxChunk
		e.Fixed = nvlsLatency + e.Fill
		e.NetSteps, e.NetHop = int(2*depth), netSimpleFactor*c.alphaN
		e.Link = min(bNVLS, bNet)
		e.BW = pipelinedBW(c.bytes, conc*chunk, 1/bNVLS+2*depth/bNet, e.Link)
		e.Factor = e.BW / e.Link
	}
	return true
}

func (c caseData) explainDirect(e *Explanation) bool {
	switch c.op {
	case SendRecv:
		bus, alpha := c.intraBus*p2pBusFraction, c.alphaIntra
		if c.nodes > 1 {
			bus, alpha = min(c.netBus/float64(c.local), c.intraBus*p2pBusFraction), c.alphaN
		}
		e.WireFactor = 1
		// One hop, on whichever link carries it: a step at that link's latency (c is a copy).
		c.alphaIntra = alpha
		ok := c.protocol(e, bus, 1, 0)
		if c.nodes > 1 && e.Proto == Simple {
			e.Hop = simpleHopFactor * alpha // direct's Simple hop across the network
		}
		return ok
	case AllToAll:
		if e.Proto != Simple {
			return false
		}
		n := float64(c.n)
		intraPart := c.bytes * float64(c.local-1) / n
		netPart := c.bytes * float64(c.n-c.local) / n
		alpha := c.alphaIntra
		e.WireFactor, e.Link = float64(c.local-1)/n, c.intraBus
		if c.nodes > 1 {
			alpha = max(alpha, c.alphaN)
			if share := c.netBus / float64(c.local); netPart/share > intraPart/c.intraBus {
				e.WireFactor, e.Link = float64(c.n-c.local)/n, share
			}
		}
		e.BW = e.Link
		e.Steps, e.Hop = c.n-1, c.simpleHop()
		if c.nodes > 1 {
			e.Hop = simpleHopFactor * alpha
		}
		e.FloorSteps, e.FloorHop = c.n-1, simpleSyncFactor*alpha/2
		e.Floor = float64(e.FloorSteps) * e.FloorHop
		return true
	}
	return false
}
