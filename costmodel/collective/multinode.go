package collective

import (
	"github.com/splitscope/splitscope/model"
)

// Collectives across nodes. A group spanning nodes runs NCCL's ring through every rank, its
// tree (a chain inside each node, a double binary tree between nodes) or, on NVLink SHARP
// nodes, NVLS inside the nodes and a tree between them (NVLS+tree). What makes them differ
// from the one-node case is the network hop:
//
//   - its step latency is tens of microseconds, not three, and a Simple step across it costs
//     netSimpleFactor times an LL step (the proxy sees the completion, flushes, signals the GPU);
//   - a ring's network hop keeps only ringWindowChunks chunks in flight per channel, and the
//     chunk shrinks with the message (S / (channels · ranks)), so between about 1 and 256 MiB
//     each ring step pays part of that latency on top of its transfer;
//   - a tree and NVLS+tree push the message through their stages in pieces of NCCL's chunk on
//     every channel at once (the pipeline's quantum): a message no larger than one quantum
//     crosses the intra-node and the inter-node stages one after the other (their times add),
//     a large one streams through them (only the slowest stage counts, after the fill);
//   - LL across nodes runs through host memory and is bound by the host, not the link.
//
// Latency grows with the node count: 2(N−1) network steps in a ring, 2⌈log2 N⌉ in a tree.

// acrossNodes calls try with every algorithm and protocol NCCL has for a group on several nodes.
func (c caseData) acrossNodes(try func(Algo, Proto, float64)) {
	c.ringNet(try)
	if c.op != AllReduce {
		return
	}
	c.treeNet(try)
	if c.nvls {
		c.nvlsTreeNet(try)
	}
}

// netLLBandwidth is the LL protocol's bus bandwidth across nodes on a ring of bus bandwidth bus:
// half of it, no more than the intra link's LL ceiling, and no more than the host can move
// (NCCL's LL ceilings for 2 and for more nodes).
func (c caseData) netLLBandwidth(bus float64) float64 {
	return min(c.llBandwidth(bus), netLLCeiling(c.nodes))
}

// netLLCeiling is the bus bandwidth LL reaches across nodes at most [NCCL tuning.cc llMaxBws,
// Intel hosts: 39 GB/s on 2 nodes, 20.4 on more]: its buffers sit in host memory, which the GPU
// polls over PCIe.
func netLLCeiling(nodes int) float64 {
	if nodes <= 2 {
		return tunerLLMaxTwoNodes * 1e9
	}
	return tunerLLMaxManyNodes * 1e9
}

// ringNet: the ring through every rank, node after node. Of an all-reduce's 2(n−1) steps,
// 2(N−1) cross the network (N−1 of the others' n−1) [NCCL tuning.cc]; the node's NICs carry
// what one rank's link does, so the ring moves at the slower of the two. With Simple, each
// channel's network hop holds ringWindowChunks chunks in flight and waits for their
// completions: a step there takes max(chunk / rate, (network step + chunk / rate) / window).
func (c caseData) ringNet(try func(Algo, Proto, float64)) {
	n := float64(c.n)
	var steps, inter int
	var wire, chunkMax, window float64
	switch c.op {
	case AllReduce, ReduceScatter, AllGather:
		steps, inter = c.n-1, c.nodes-1
		if c.op == AllReduce {
			steps, inter = 2*steps, 2*inter
		}
		wire = float64(steps) / n * c.bytes
		chunkMax, window = simpleMaxChunk, ringWindowChunks
	default: // Broadcast: a pipelined chain of n−1 hops, chunks of one step
		steps, inter = c.n-1, c.nodes-1
		wire = c.bytes
		chunkMax, window = netStepBytes, ncclSteps
	}
	hops := func(perIntra, perNet float64) float64 {
		return float64(steps-inter)*perIntra + float64(inter)*perNet
	}
	bus := min(c.intraBus, c.netBus)
	if !c.netSimpleOnly {
		try(Ring, LL, hops(c.alphaIntra, c.alphaN)+wire/c.netLLBandwidth(bus))
	}
	if c.ll128Enabled() {
		// LL128's lines cross the network as they are, flags and all, from GPU memory to GPU
		// memory (no host bounce, unlike LL): 120/128 of the slower of the two links.
		try(Ring, LL128, hops(ll128HopFactor*c.alphaIntra, ll128HopFactor*c.alphaN)+wire/(ll128DataFraction*bus))
	}
	netStep := netSimpleFactor * c.alphaN
	busS := min(c.intraBus*simpleRamp(c.bytes, c.n, c.chunkOverhead, c.chunkDivisor), c.netBus)
	ch := c.rails // one channel a rail
	perChannel := busS / ch
	// Each channel's link carries wire/ch bytes in chunks of S/(ch·n), at most chunkMax.
	chunk := min(chunkMax, c.bytes/(ch*n))
	if c.op == Broadcast {
		chunk = min(chunkMax, c.bytes/ch)
	}
	chunks := wire / (ch * chunk)
	step := max(chunk/perChannel, (netStep+chunk/perChannel)/window)
	t := hops(c.simpleHop(), netStep) + chunks*step
	try(Ring, Simple, max(hops(simpleSyncFactor*c.alphaIntra, netStep), t))
}

// treeNet: NCCL's tree all-reduce across nodes. Up a chain of the node's ranks to its head,
// up the inter-node tree (⌈log2 N⌉ network hops), and down again: 2·((l−1) + ⌈log2 N⌉) stages,
// each a store-and-forward of one chunk. Every channel pushes its share in chunks of one step
// (netStepBytes), so the pipeline's quantum is channels × netStepBytes: below it the stages
// add, above it the message streams at the slowest stage's rate (92% of it [NCCL tuning.cc])
// after the fill. Inside the node each GPU sends up and down at once (half its link each
// way); between more than two nodes the network carries every byte up and down (half the
// NICs), on two nodes each node sends half and receives half (the whole NICs).
func (c caseData) treeNet(try func(Algo, Proto, float64)) {
	depth := c.depth
	intraStages, netStages := 2*float64(c.local-1), 2*depth
	bIntra, bNet := c.intraBus/2, c.netBus*treeAlgFactor(c.nodes)
	slowest := min(bIntra, bNet) * treeBusFraction
	if !c.netSimpleOnly {
		// LL: latency per stage, and a quarter of the tree's bus bandwidth as algorithm bandwidth
		// (NCCL's tree LL estimate: bus / 3.8, halved), under the host's LL ceiling.
		alg := min(2*slowest/treeLLDivisor, netLLCeiling(c.nodes)) / 2
		try(Tree, LL, intraStages*c.alphaIntra+netStages*c.alphaN+c.bytes/alg)
	}
	if c.ll128Enabled() {
		try(Tree, LL128, ll128HopFactor*(intraStages*c.alphaIntra+netStages*c.alphaN)+c.bytes/c.treeLL128Rate(bIntra, bNet))
	}
	quantum := c.rails * netStepBytes
	try(Tree, Simple, pipelined(c.bytes, quantum,
		intraStages*simpleSyncFactor*c.alphaIntra+netStages*netSimpleFactor*c.alphaN,
		intraStages/bIntra+netStages/bNet, slowest))
}

// nvlsTreeNet: NVLS inside the nodes (the NVSwitch reduces each head's share, later multicasts
// the result) and a tree between the nodes' heads. Every NVLS channel and head pushes chunks of
// NCCL's NVLS+tree chunk size, which shrinks with the message (nvlsTreeChunk), so the quantum
// is channels × heads × chunk; the NVLS stages move at the link's NVLS rate, the network's at
// the tree's.
func (c caseData) nvlsTreeNet(try func(Algo, Proto, float64)) {
	depth := c.depth
	bNVLS := c.intraRaw * c.nvlsEff
	bNet := c.netBus * treeAlgFactor(c.nodes) * treeBusFraction // the tree's, as between the nodes of treeNet
	conc := c.nvlsChannels * float64(c.local)
	chunk := nvlsTreeChunk(c.bytes, conc)
	lat := nvlsLatency + nvlsFill*chunk/nvlsMaxChunk + 2*depth*netSimpleFactor*c.alphaN
	try(NVLSTree, Simple, pipelined(c.bytes, conc*chunk, lat, 1/bNVLS+2*depth/bNet, min(bNVLS, bNet)))
}

// nvlsTreeChunk is NCCL's NVLS+tree chunk for a message of bytes over conc channel-heads: its
// 128 KiB NVLS chunk, halved to 64 KiB below 4 chunks per channel-head and to 32 KiB below
// one [NCCL enqueue.cc calcCollChunking].
func nvlsTreeChunk(bytes, conc float64) float64 {
	chunk := float64(nvlsMaxChunk)
	if bytes < 4*conc*chunk {
		chunk = 64 << 10
	}
	if bytes < conc*chunk {
		chunk = 32 << 10
	}
	return chunk
}

// pipelined is the time of bytes streamed through a pipeline of stages in pieces of at most
// quantum bytes: the stages' latencies lat, the first piece through every stage (perByte is the
// sum over the stages of 1/bandwidth), and the other pieces at the slowest stage's rate. A
// message of one piece pays every stage in turn; a large one the slowest only.
func pipelined(bytes, quantum, lat, perByte, slowest float64) float64 {
	piece := min(bytes, quantum)
	return lat + piece*perByte + (bytes-piece)/slowest
}

// nvlsNetChannels is the number of NVLS channels NCCL runs across nodes for the GPU generation
// the intra link implies (NVLink 5: Blackwell).
func nvlsNetChannels(l model.Link) float64 {
	if l.Kind == model.NVLink && l.Bandwidth >= 900e9 {
		return nvlsChannelsBlackwell
	}
	return nvlsChannelsHopper
}

// treeLL128Rate is the algorithm bandwidth of the tree's LL128, bytes/s, given its stages' rates
// inside the node (bIntra) and across the network (bNet): 120/128 of the slowest stage at the
// tree's efficiency, where the broadcast half of each channel counts as a stage of its own. NCCL
// splits a channel's threads between the tree's reduce (70%) and its broadcast (30%) for LL and
// LL128 [NCCL all_reduce.h runTreeSplit], and LL128 is copied by those threads: with all of them
// it fills the link (the ring's LL128 moves 120/128 of the bus, 8×A100), with 30% it moves 30%
// of it. On 2 × 8 H100 the broadcast binds (0.3 × 360 GB/s against 180 for each direction of
// the chain and 380 for the NICs): 93 GB/s, where the sweep's tree LL128 adds 90–118 GB/s per
// extra byte between 2 and 32 MiB [ADT].
func (c caseData) treeLL128Rate(bIntra, bNet float64) float64 {
	return ll128DataFraction * treeBusFraction * min(bIntra, bNet, treeLL128BcastThreads*c.intraBus)
}
