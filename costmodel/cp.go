package costmodel

import (
	"math"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/serve"
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

// cpServe is one layer's CP communication in a serving step on one GPU (docs/costmodel.md
// § Context parallelism in serving): preCtx is the context the step's prompt chunks attend to
// (Σ tokens before a chunk + the chunk, a window's worth at most), preCore the rank's prefill
// attention core, which the ring's sends hide behind.
//
//   - Prefill (pass-KV or, for the ring, pass-Q where it is cheaper: passQ; Yang et al. 2024
//     [CPI]): each rank holds 1/cp of every prompt's keys and
//     values, the chunks before this step's included (the cache is sharded by token), and the
//     exchange of cp.go's kinds passes or gathers them: blocks of preCtx/cp tokens. A window
//     shorter than a block needs only its neighbour's last window of keys: one step of a
//     window a prompt, so no key beyond a window is sent. A linear-attention layer has no keys to
//     pass: each rank scans its chunk and the ranks hand their chunks' states down the ring in
//     turn, cp − 1 sends of the prompts' states, exposed.
//   - Decode: each rank attends its queries to its 1/cp of the cached keys, and the partial
//     outputs with their log-sum-exps are gathered over the CP group and merged (decode context
//     parallelism, DCP, in vLLM [VLLMCP] and SGLang [SGLCP]): an all-gather of cp partials of
//     the decode tokens' outputs (heads/tp × head_dim, compute format) and LSEs (heads/tp, fp32).
//     Small and latency-bound: why CP slows a decode step.
func (c *servingCost) cpServe(sh arch.Shape, b *serve.Batch, preCtx, preCore float64) float64 {
	p := c.p
	x := &p.cpx
	if x.n <= 1 {
		return 0
	}
	n := float64(x.n)
	var s float64
	if b.PrefillTokens > 0 {
		if sh.Keys(1) == 0 {
			if st := sh.StateOnGPU(p.t); st > 0 {
				s += (n - 1) * sendTime(float64(b.PrefillSeqs)*st*c.kvb, x.hop)
			}
		} else {
			tokens, share := math.Ceil(preCtx/n), 1.0
			if w := float64(b.PrefillSeqs) * float64(sh.Window); sh.Window > 0 && w < tokens {
				// A window's queries need only the last window of keys before their block: the
				// neighbour's, one step of at most a window a prompt, not the whole ring.
				tokens, share = w, 1/(n-1)
			}
			kv := share * p.cpExchange(sh, tokens, preCore).ExposedS
			if x.kind == model.CPRing {
				kv = math.Min(kv, c.passQ(sh, math.Ceil(float64(b.PrefillTokens)/n), preCore))
			}
			s += kv
		}
	}
	if dt := b.DecodeSeqs * (1 + b.Spec); dt > 0 && sh.Keys(1) != 0 {
		s += c.cpMerge(sh, dt)
	}
	return s
}

// passQ is the ring's other form for a prompt's chunk [CPI]: the queries travel instead of the
// keys and values. Each rank's block of tokens queries (its ⌈chunk/cp⌉ tokens × heads/tp ×
// head_dim) passes round the ring, cp − 1 sends each beside 1/cp of the attention (against the
// rank's own share of the keys), exposed max(0, send − block); then an all-to-all returns each
// block's partial outputs and LSEs to the rank that owns it, exposed. Meta's engine picks pass-Q
// when a chunk's new tokens are few beside the cached context that pass-KV would send (a
// persistent-KV prefill, a later chunk of a long prompt); the model takes the cheaper of the two.
func (c *servingCost) passQ(sh arch.Shape, tokens, core float64) float64 {
	p := c.p
	x := &p.cpx
	n := float64(x.n)
	t := float64(p.t)
	q := sh.CoreIO / 2 / t // query (and output) elements per token on this GPU
	heads := math.Max(float64(p.a.Heads)/t, 1)
	send := sendTime(tokens*q*p.e, x.hop)
	ring := (n - 1) * math.Max(send-core/n, 0)
	back := x.all.run(collective.AllToAll, n*tokens*(q*p.e+heads*4)).Seconds
	return ring + back
}

// cpMerge is the all-gather of tok decode tokens' partial attention outputs and LSEs over the CP
// group (cpServe), cached by layer shape and token count.
func (c *servingCost) cpMerge(sh arch.Shape, tok int) float64 {
	key := cpMergeKey{q: sh.CoreIO, tok: tok}
	if v, ok := c.cpMerges[key]; ok {
		return v
	}
	p := c.p
	t := float64(p.t)
	q := sh.CoreIO / 2 / t // output elements per token on this GPU
	heads := math.Max(float64(p.a.Heads)/t, 1)
	part := float64(tok) * (q*p.e + heads*4)
	v := p.cpx.all.run(collective.AllGather, float64(p.cpx.n)*part).Seconds
	if c.cpMerges == nil {
		c.cpMerges = map[cpMergeKey]float64{}
	}
	c.cpMerges[key] = v
	return v
}

// cpMergeKey is cpMerge's cache key.
type cpMergeKey struct {
	q   float64
	tok int
}
