package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Communication goes through costmodel/collective, which runs each collective as NCCL would
// (its algorithm choice, its protocols) and times it as nccl-tests measure. This file places
// the plan's communicators on the cluster: which ranks, on how many nodes, and what share of
// each node's NICs they have while the other groups of the node talk at the same time.

// group describes a communicator: n ranks spread over nodes with `local` ranks on each.
type group struct {
	n, nodes, local int
}

// comms is one communicator of the plan on its fabric.
type comms struct {
	g collective.Group
	f collective.Fabric
}

// newComms places a group on a cluster. Every group of a node talks at the same time (all TP
// groups of a stage, all DP groups of a replica), so the node's NICs are shared among the
// NodeSize/local groups that have ranks there.
func newComms(g group, c model.Cluster) comms {
	f := collective.FabricOf(c)
	share := float64(max(g.local, 1)) / float64(c.NodeSize())
	f.Inter.Bandwidth *= float64(f.NICs) * min(share, 1)
	f.NICs = 1
	return comms{g: collective.Group{Ranks: g.n, Nodes: g.nodes}, f: f}
}

// run is one collective of bytes (nccl-tests' size: the whole buffer) on the group.
func (k comms) run(op collective.Op, bytes float64) collective.Result {
	return collective.Time(op, bytes, k.g, k.f, collective.Auto)
}

func (k comms) allReduce(bytes float64) float64 { return k.run(collective.AllReduce, bytes).Seconds }

// half is a reduce-scatter (or an all-gather, which costs the same) of a buffer of bytes.
func (k comms) half(bytes float64) float64 { return k.run(collective.ReduceScatter, bytes).Seconds }

// link is the link a flat ring of this group is bound by: the NICs' share across nodes, the
// intra-node link otherwise.
func (k comms) link() model.Link {
	if k.g.Nodes > 1 {
		return k.f.Inter
	}
	return k.f.Intra
}

// ringParams are the α (seconds) and bus bandwidth (bytes/s) a flat ring of this group runs
// with: the NICs' share across nodes, the GPU's share of the intra-node link otherwise (a mesh's
// peer links, the PCIe path, staging through host memory: collective.LinkShare).
func (k comms) ringParams() (alpha, bw float64) {
	if k.g.Nodes > 1 {
		return k.f.Inter.Latency, k.f.Inter.EffBandwidth()
	}
	bw, alpha = collective.LinkShare(k.f.Intra, k.g.Local())
	return alpha, bw
}

// sendTime is one point-to-point transfer of bytes on a link.
func sendTime(bytes float64, l model.Link) float64 {
	return collective.Time(collective.SendRecv, bytes, collective.Group{Ranks: 2, Nodes: 1},
		collective.Fabric{Intra: l}, collective.Auto).Seconds
}
