package costmodel

import "github.com/splitscope/splitscope/model"

// Collectives follow the α-β model of nccl-tests' bus-bandwidth definition [NT]: a ring
// all-reduce of S bytes over n ranks takes 2(n−1) steps, each paying the link's latency α, and
// moves 2(n−1)/n · S bytes through each rank's link at B_eff = bandwidth × efficiency.
//
// NCCL switches protocol with the message size. Large messages use the Simple protocol (full
// bandwidth, a heavier per-step cost for its handshakes); small ones use LL, whose 8-byte
// flag+data stores have low latency but reach only a fraction of the bandwidth. We take the
// faster of the two, as NCCL's tuner does. Both constants are fitted once, on the 8×A100
// nccl-tests sweep [SN §3.3] (32 KiB–16 GiB), and hold for every link:
//   - simpleLatencyFactor: the sweep is flat at ≈ 101 µs from 1 to 4 MiB, about twice the 14 LL steps
//     of ≈ 3 µs seen at 32 KiB (43.8 µs) and on PCIe boxes [ISS nccl#1530: 42.6 µs / 14 steps].
//   - llBandwidthFraction: between 32 KiB and 512 KiB the sweep gains ≈ 19 µs per 256 KiB,
//     a bus bandwidth of ≈ 24 GB/s, about a tenth of the 235 GB/s the Simple protocol reaches.
const (
	simpleLatencyFactor = 2.0
	llBandwidthFraction = 0.1
)

// ringAllReduce is the time of a ring all-reduce of bytes over n ranks on one link.
func ringAllReduce(bytes float64, n int, l model.Link) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	return ringSteps(2*(n-1), 2*float64(n-1)/float64(n)*bytes, l)
}

// ringHalf is a ring reduce-scatter or all-gather: half the steps and half the bytes of an
// all-reduce [NT: busbw factor (n−1)/n].
func ringHalf(bytes float64, n int, l model.Link) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	return ringSteps(n-1, float64(n-1)/float64(n)*bytes, l)
}

// ringSteps is `steps` ring steps moving `wire` bytes per rank, on the faster protocol.
func ringSteps(steps int, wire float64, l model.Link) float64 {
	bw := l.EffBandwidth()
	if bw <= 0 {
		return 0
	}
	s := float64(steps)
	simple := s*l.Latency*simpleLatencyFactor + wire/bw
	ll := s*l.Latency + wire/(bw*llBandwidthFraction)
	return min(simple, ll)
}

// sendTime is one point-to-point transfer of bytes.
func sendTime(bytes float64, l model.Link) float64 {
	if bytes <= 0 {
		return 0
	}
	bw := l.EffBandwidth()
	if bw <= 0 {
		return 0
	}
	return min(l.Latency*simpleLatencyFactor+bytes/bw, l.Latency+bytes/(bw*llBandwidthFraction))
}

// group describes a communicator: n ranks spread over nodes with `local` ranks on each.
type group struct {
	n, nodes, local int
}

// collective is the cost of collectives on one group of a cluster. Inside one node the ring
// uses the intra link; across nodes it is hierarchical: reduce-scatter inside the node, a ring
// across nodes over this GPU's share of the node's NICs, all-gather inside the node.
type collective struct {
	g     group
	intra model.Link
	inter model.Link // bandwidth already the per-GPU share of the node's NICs
}

func newCollective(g group, c model.Cluster) collective {
	inter := c.Inter
	// Every GPU of a node takes part in its own group's inter-node phase at the same time, so a
	// GPU gets its share of the node's NICs.
	inter.Bandwidth = c.Inter.Bandwidth * float64(c.NICsPerNode) / float64(c.NodeSize())
	return collective{g: g, intra: c.Intra, inter: inter}
}

// link is the link a flat ring of this group is bound by.
func (k collective) link() model.Link {
	if k.g.nodes > 1 {
		return k.inter
	}
	return k.intra
}

func (k collective) allReduce(bytes float64) float64 {
	if k.g.nodes <= 1 {
		return ringAllReduce(bytes, k.g.n, k.intra)
	}
	local := max(k.g.local, 1)
	return ringHalf(bytes, local, k.intra) +
		ringAllReduce(bytes/float64(local), k.g.nodes, k.inter) +
		ringHalf(bytes, local, k.intra)
}

// half is a reduce-scatter or an all-gather.
func (k collective) half(bytes float64) float64 {
	if k.g.nodes <= 1 {
		return ringHalf(bytes, k.g.n, k.intra)
	}
	local := max(k.g.local, 1)
	return ringHalf(bytes, local, k.intra) + ringHalf(bytes/float64(local), k.g.nodes, k.inter)
}
