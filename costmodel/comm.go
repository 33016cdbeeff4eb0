package costmodel

import (
	"math"
	"sync"

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

// comms is one communicator of the plan on its fabric. With engine its all-reduces are the
// serving engine's own kernels where they apply (collective.TimeEngine).
type comms struct {
	g      collective.Group
	f      collective.Fabric
	engine bool
	// memo, in a search, remembers each collective already timed, for every plan of the search.
	memo *collMemo
}

// newComms places a group on a cluster. Every group of a node talks at the same time (all TP
// groups of a stage, all DP groups of a replica), so the node's NICs are shared among the
// NodeSize/local groups that have ranks there: the group's rails are local/NodeSize of them
// (each GPU its own NIC where there are as many NICs as GPUs). The collective model opens one
// channel per rail; a fraction of a NIC (fewer NICs than GPUs) is one rail at that fraction of
// the port's bandwidth.
func newComms(g group, c model.Cluster) comms {
	return newCommsOn(g, collective.FabricOf(c), c.NodeSize())
}

// newCommsOn is newComms on the cluster's fabric f (collective.FabricOf) with gpn GPUs a node:
// a plan places its several groups on one fabric.
func newCommsOn(g group, f collective.Fabric, gpn int) comms {
	share := min(float64(max(g.local, 1))/float64(gpn), 1)
	rails := float64(f.NICs) * share
	f.NICs = max(int(math.Round(rails)), 1)
	f.Inter.Bandwidth *= rails / float64(f.NICs)
	return comms{g: collective.Group{Ranks: g.n, Nodes: g.nodes}, f: f}
}

// run is one collective of bytes (nccl-tests' size: the whole buffer) on the group.
func (k comms) run(op collective.Op, bytes float64) collective.Result {
	if k.memo != nil {
		return k.memo.run(k, op, bytes)
	}
	return k.time(op, bytes)
}

func (k comms) time(op collective.Op, bytes float64) collective.Result {
	if k.engine {
		return collective.TimeEngine(op, bytes, k.g, k.f)
	}
	return collective.Time(op, bytes, k.g, k.f, collective.Auto)
}

// collMemo is a search's collectives, each timed once: Search's splits ask the same few (a
// DP group's gradient sync at every micro-batch size and schedule, a TP group's all-reduce at
// every knob setting) on its workers at once. It serves the communicators newComms places on
// one cluster, which differ from that cluster's fabric in their share of the NICs alone, so the
// key holds that share and not the links (collective.Time is a pure function of the rest).
type collMemo struct {
	c  model.Cluster
	mu sync.Mutex
	m  map[collKey]collective.Result
	// own: one goroutine's alone (a search worker's), read and written without the lock.
	own bool
}

type collKey struct {
	op      collective.Op
	bytes   float64
	g       collective.Group
	nics    int
	interBW float64
	engine  bool
}

func newCollMemo(c model.Cluster) *collMemo {
	return &collMemo{c: c, m: map[collKey]collective.Result{}}
}

func (c *collMemo) run(k comms, op collective.Op, bytes float64) collective.Result {
	key := collKey{op, bytes, k.g, k.f.NICs, k.f.Inter.Bandwidth, k.engine}
	if c.own {
		r, ok := c.m[key]
		if !ok {
			r = k.time(op, bytes)
			c.m[key] = r
		}
		return r
	}
	c.mu.Lock()
	r, ok := c.m[key]
	c.mu.Unlock()
	if !ok {
		r = k.time(op, bytes)
		c.mu.Lock()
		c.m[key] = r
		c.mu.Unlock()
	}
	return r
}

func (k comms) allReduce(bytes float64) float64 { return k.run(collective.AllReduce, bytes).Seconds }

// half is a reduce-scatter (or an all-gather, which costs the same) of a buffer of bytes.
func (k comms) half(bytes float64) float64 { return k.run(collective.ReduceScatter, bytes).Seconds }

// link is the link a flat ring of this group is bound by: the NICs' share across nodes (its
// rails as one link), the intra-node link otherwise.
func (k comms) link() model.Link {
	if k.g.Nodes > 1 {
		l := k.f.Inter
		l.Bandwidth *= float64(max(k.f.NICs, 1))
		return l
	}
	return k.f.Intra
}

// ringParams are the α (seconds) and bus bandwidth (bytes/s) a flat ring of this group runs
// with: the NICs' share across nodes, the GPU's share of the intra-node link otherwise (a mesh's
// peer links, the PCIe path, staging through host memory: collective.LinkShare).
func (k comms) ringParams() (alpha, bw float64) {
	if k.g.Nodes > 1 {
		l := k.link() // its rails together
		return l.Latency, l.EffBandwidth()
	}
	bw, alpha = collective.LinkShare(k.f.Intra, k.g.Local())
	return alpha, bw
}

// sendTime is one point-to-point transfer of bytes on a link.
func sendTime(bytes float64, l model.Link) float64 {
	return collective.Time(collective.SendRecv, bytes, collective.Group{Ranks: 2, Nodes: 1},
		collective.Fabric{Intra: l}, collective.Auto).Seconds
}

// Overlapped communication slows the compute beside it: NCCL's kernels take SMs and memory
// bandwidth from the GEMMs. The fraction is Calculon's processor_usage [CAL
// systems/a100_80g.json]: 0.15 for a collective inside a node (NVLink, every SM channel busy
// copying and reducing), 0.02 for one across the network (the NIC's DMA moves the bytes; few
// SMs wait on it).
const (
	overlapSlowdownIntra = 0.15
	overlapSlowdownInter = 0.02
)

// overlapSlowdown is the compute time lost per second of this group's communication hidden
// behind compute.
func (k *comms) overlapSlowdown() float64 {
	if k.g.Nodes > 1 {
		return overlapSlowdownInter
	}
	return overlapSlowdownIntra
}
