package costmodel

import (
	"math"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Context parallelism (docs/costmodel.md "Context parallelism"). A CP group of c GPUs (the axes
// inside CP apart in the rank order: TP in the default tp-cp-dp-pp) holds one micro-batch's sequence cut into 2·c
// chunks, two per GPU (chunk i and 2c−1−i), so each GPU has s/c tokens and an equal share of
// the causal mask's work (Megatron-core's load balancing). Every GPU runs the layer's GEMMs,
// element-wise work and activations for its s/c tokens; its attention core computes its queries
// against all s keys, so it needs every other GPU's K and V:
//
//   - ring: c−1 steps per layer, each passing one K/V block (s/c tokens) to the next GPU while
//     the attention computes on the block it holds; a step's exposed time is what its send
//     takes beyond its block of attention, max(0, send − core/c). The backward passes K/V and
//     their gradients (two blocks a step) beside twice the attention's work.
//   - all-gather: K and V all-gathered over the group once per layer before the attention
//     (Llama 3's CP), their gradients reduce-scattered after the backward's; both exposed.
//   - ulysses: an all-to-all of Q, K and V before the attention (each GPU then holds all s
//     tokens of heads/c heads) and one of the output after it, all exposed; the backward the
//     same on the gradients.
//   - hybrid: Ulysses over the CP GPUs of one node, ring over the u-groups across nodes.
//
// With CP 1 nothing here runs and no number changes.

// cpPlan is a plan's CP group: its size, how it divides the exchange, and the communicators.
type cpPlan struct {
	// n is CP; uly × ring = n (model.Layout.CPSplit).
	n, uly, ring int
	kind         model.CPComm
	// all is the whole CP group (all-gather); ulyc the Ulysses group (stride t, uly GPUs).
	all, ulyc comms
	// hop is the link a ring step's send crosses: the intra-node link, or across nodes the
	// sending GPU's NIC share.
	hop model.Link
}

// initCP places the CP group of the plan's layout (c > 1) on the cluster.
func (p *plan) initCP(s model.Scenario, gpn int, pl model.Placement) {
	l := s.Layout
	c := &p.cpx
	c.n, c.kind = l.CPSize(), l.CPComm
	c.uly, c.ring = l.CPSplit(s.Arch, gpn)
	c.all = newComms(fromSpan(pl.CP), s.Cluster)
	c.ulyc = newComms(fromSpan(pl.Uly), s.Cluster)
	// The ring's GPUs are uly CP ranks apart; a step waits for its slowest hop, which leaves the
	// node when the ring spans nodes. Then each CP group of the node has one GPU sending across
	// at a time, on its nearest NIC (at most one NIC's bandwidth; fewer NICs than senders share).
	rg := fromSpan(pl.Ring)
	c.hop = s.Cluster.IntraLink()
	if rg.nodes > 1 {
		c.hop = s.Cluster.Inter
		senders := float64(max(gpn/rg.local, 1)) // the rings of a node, one sender across each
		c.hop.Bandwidth *= math.Min(float64(s.Cluster.NICsPerNode)/senders, 1)
	}
}

// cpExchange is one layer's CP exchange for one micro-batch on one GPU, with its parts (the
// report's CPDetail): ExposedS the forward's exposed seconds (also what recomputing the
// attention costs again), BackwardS the backward's. core is the layer's attention core forward
// on this GPU (its s/c queries against all keys); tokens its s/c·b tokens.
func (p *plan) cpExchange(sh arch.Shape, tokens, core float64) (d CPDetail) {
	c := &p.cpx
	if c.n <= 1 || sh.Keys(1) == 0 {
		return d // no CP, or a linear-attention layer (no K/V to exchange)
	}
	d.Kind, d.Ranks, d.Ring, d.Ulysses = c.kind.String(), c.n, c.ring, c.uly
	t := float64(p.t)
	kvSplit := float64(sh.KVSplit)
	if sh.Kind.Attn == arch.MLA {
		kvSplit = t
	}
	kv := sh.KVRead / math.Max(math.Min(t, kvSplit), 1) // K and V elements per token on this GPU
	block := tokens * kv * p.e                          // one GPU's K/V for its tokens
	d.BlockBytes, d.CoreS = block, core
	q := sh.CoreIO / 2 / t // query (and output) elements per token
	ring := func(r int, step float64) (f, b float64) {
		if r <= 1 {
			return 0, 0
		}
		n := float64(r - 1)
		send := sendTime(block, c.hop)
		d.Link, d.Steps, d.SendS, d.BlockS = c.hop.ID, r-1, send, step
		d.StepExposedS = max(send-step, 0)
		f = n * d.StepExposedS
		b = n * max(sendTime(2*block, c.hop)-2*step, 0)
		return f, b
	}
	uly := func() (f, b float64) {
		if c.uly <= 1 {
			return 0, 0
		}
		before := c.ulyc.run(collective.AllToAll, tokens*(q+kv)*p.e).Seconds
		after := c.ulyc.run(collective.AllToAll, tokens*q*p.e).Seconds
		d.BeforeS, d.AfterS = before, after
		return before + after, before + after
	}
	switch c.kind {
	case model.CPAllGather:
		// The gathered buffer holds every GPU's block.
		g := c.all.run(collective.AllGather, float64(c.n)*block).Seconds
		d.GatherS = g
		d.ExposedS, d.BackwardS = g, g
	case model.CPUlysses:
		d.ExposedS, d.BackwardS = uly()
	case model.CPHybrid:
		uf, ub := uly()
		rf, rb := ring(c.ring, core/float64(c.ring))
		d.ExposedS, d.BackwardS = uf+rf, ub+rb
	default:
		d.ExposedS, d.BackwardS = ring(c.n, core/float64(c.n))
	}
	return d
}
