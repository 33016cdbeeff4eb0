package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// The report's list of collectives: every kind of communication a step runs, one line each,
// with the algorithm and protocol NCCL (or the serving engine) picks for it. Only Evaluate
// builds it (not the fast path Search uses).

// CollectiveUse is one kind of collective a step runs.
type CollectiveUse struct {
	Comm      string  `json:"comm"` // tp, etp, ep, pp or dp
	What      string  `json:"what"` // what the bytes are
	Op        string  `json:"op"`   // all-reduce, reduce-scatter, all-gather, send-recv
	Bytes     float64 `json:"bytes"`
	GPUs      int     `json:"gpus"`
	Nodes     int     `json:"nodes"`
	Link      string  `json:"link"` // the link that bounds it
	Algorithm string  `json:"algorithm"`
	Protocol  string  `json:"protocol"`
	Seconds   float64 `json:"time_s"` // one call
	// Calls is how many a step runs on one GPU of the busiest stage (inference: the whole run).
	Calls float64 `json:"calls"`

	// Group and Fabric are the communicator, for renderers that sweep it (collective.Sweep).
	Group  collective.Group  `json:"-"`
	Fabric collective.Fabric `json:"-"`
	// Engine says the communicator runs the serving engine's all-reduce where it applies.
	Engine bool `json:"-"`
}

// Total is Seconds × Calls.
func (u CollectiveUse) Total() float64 { return u.Seconds * u.Calls }

// use describes calls of op on bytes over communicator k.
func use(k comms, comm, what string, op collective.Op, bytes, calls float64) CollectiveUse {
	return describe(k, comm, what, op, bytes, calls, k.run(op, bytes))
}

// describe is use with the collective already timed (r).
func describe(k comms, comm, what string, op collective.Op, bytes, calls float64, r collective.Result) CollectiveUse {
	return CollectiveUse{
		Comm: comm, What: what, Op: op.String(), Bytes: bytes, GPUs: k.g.Ranks, Nodes: k.g.Nodes,
		Link: k.link().ID, Algorithm: r.Algo.String(), Protocol: r.Proto.String(), Seconds: r.Seconds,
		Calls: calls, Group: k.g, Fabric: k.f, Engine: k.engine,
	}
}

// tpUses is calls of the TP collective on bytes: all-reduces, or with sequence parallelism as
// many reduce-scatters and all-gathers, plus extra all-gathers (the backward's re-gathers).
func (p *plan) tpUses(what string, bytes, calls, extraGathers float64) []CollectiveUse {
	if p.t <= 1 || calls <= 0 {
		return nil
	}
	if !p.l.SequenceParallel {
		return []CollectiveUse{p.tpUse(what, collective.AllReduce, bytes, calls)}
	}
	return []CollectiveUse{
		p.tpUse(what, collective.ReduceScatter, bytes, calls),
		p.tpUse(what, collective.AllGather, bytes, calls+extraGathers),
	}
}

// tpUse is use on the TP group, timed through the plan's memo.
func (p *plan) tpUse(what string, op collective.Op, bytes, calls float64) CollectiveUse {
	return describe(p.tp, "tp", what, op, bytes, calls, p.tpRun(op, bytes))
}

// p2pUse is calls of one micro-batch's activations across the slowest stage boundary.
func (p *plan) p2pUse(what string, bytes, calls float64) []CollectiveUse {
	if p.p <= 1 || calls <= 0 {
		return nil
	}
	slow := 0
	for vs := range p.crossNode {
		if p.crossNode[vs] {
			slow = vs
			break
		}
	}
	k := comms{g: collective.Group{Ranks: 2, Nodes: 1}, f: collective.Fabric{Intra: p.p2pLink(slow), NICs: 1}}
	u := use(k, "pp", what, collective.SendRecv, bytes/float64(p.t), calls)
	if p.crossNode[slow] {
		u.Nodes = 2
	}
	return []CollectiveUse{u}
}

// trainCollectives lists a training step's collectives on the busiest stage, which holds
// layers transformer layers (all chunks), kinds[k] of each kind, and params parameters per GPU.
func (p *plan) trainCollectives(layers int, kinds []int, params float64) []CollectiveUse {
	m := p.mv
	k := float64(layers)
	actBytes := p.actBytes()
	// Per layer and micro-batch: two in the forward, two in the backward, two more when the
	// backward recomputes the forward; sequence parallelism re-gathers twice in the backward.
	per := 4.0
	if p.l.Recompute == model.RecomputeFull {
		per += 2
	}
	var out []CollectiveUse
	out = append(out, p.layerTPUses("layer activations", actBytes, p.moeLayers(kinds)/max(k, 1), k*m*per, 2*k*m)...)
	out = append(out, p.epUse("tokens to and from their experts", actBytes, p.moeLayers(kinds)*m*per)...)
	out = append(out, p.p2pUse("activations and their gradients", actBytes, 2*m)...)
	expert := p.stageExpertParams(kinds)
	out = append(out, p.syncUses(p.dp, p.dc, "", params-expert)...)
	out = append(out, p.syncUses(p.expDP, p.dc/p.ep, "expert ", expert)...)
	return out
}

// layerTPUses is the layers' TP collectives, calls of them (extraGathers more all-gathers),
// half of each layer's in its attention and half in its MLP. A MoE layer whose experts are split
// over etp < t GPUs (moeShare of the calls' layers) reduces its MLP's output over those etp
// alone, none at etp 1, and its tokens reach the experts by the all-to-all, not a TP gather.
func (p *plan) layerTPUses(what string, bytes, moeShare, calls, extraGathers float64) []CollectiveUse {
	if p.etp >= p.t || moeShare <= 0 {
		return p.tpUses(what, bytes, calls, extraGathers)
	}
	mlp := calls / 2 * moeShare // the MoE layers' MLP halves
	out := p.tpUses(what, bytes, calls-mlp, extraGathers*(1-moeShare/2))
	if p.etp > 1 {
		out = append(out, use(p.etpc, "etp", "expert outputs", collective.AllReduce, bytes, mlp))
	}
	return out
}

// epUse is calls of the expert-parallel all-to-all for a layer whose activations are bytes.
func (p *plan) epUse(what string, bytes, calls float64) []CollectiveUse {
	if p.fold <= 1 || calls <= 0 {
		return nil
	}
	b := bytes * float64(p.a.ActiveExperts()) / float64(p.t) * EPImbalance(p.l) // the busiest GPU's (experts.go)
	var out []CollectiveUse
	for _, h := range epHops(nil, p.epc, p.a, p.l, p.c, b) {
		out = append(out, use(h.k, "ep", what+h.what, collective.AllToAll, h.bytes, calls))
	}
	return out
}

// inferEPUses is a serving run's all-to-alls: two a MoE layer and step, at the run's mean
// tokens a step; in a two-hop layout across nodes, the decode-only steps' on DeepEP's
// low-latency kernels (dispatch.go) and the steps with prompt tokens' two hops, each at its own
// mean tokens a step.
func (p *plan) inferEPUses(kinds []int, res serve.Result) []CollectiveUse {
	moe := 2 * p.moeLayers(kinds)
	h := float64(p.a.Hidden) * p.e
	what := "step tokens to and from their experts"
	dec := float64(res.DecodeSteps0)
	if p.fold <= 1 || p.l.EPDispatch != model.EPDispatchTwoHop || p.epc.g.Nodes <= 1 || dec <= 0 {
		return p.epUse(what, res.Tokens0/float64(res.Steps0)*h, moe*float64(res.Steps0))
	}
	bytes := res.DecodeTokens0 / dec * h
	b := bytes * float64(p.a.ActiveExperts()) / float64(p.t) * EPImbalance(p.l)
	ll, _ := lowLatencyAllToAll(p.epc, b)
	out := []CollectiveUse{{Comm: "ep", What: "decode tokens to and from their experts (DeepEP low-latency)",
		Op: collective.AllToAll.String(), Bytes: b, GPUs: p.epc.g.Ranks, Nodes: p.epc.g.Nodes, Link: p.epc.link().ID,
		Algorithm: "low-latency", Protocol: "rdma", Seconds: ll, Calls: moe * dec, Group: p.epc.g, Fabric: p.epc.f}}
	if pre := float64(res.Steps0) - dec; pre > 0 {
		out = append(out, p.epUse("prompt-step tokens to and from their experts", (res.Tokens0-res.DecodeTokens0)/pre*h, moe*pre)...)
	}
	return out
}

// syncUses is the gradient sync of params parameters over a data-parallel group of n.
func (p *plan) syncUses(k comms, n int, kind string, params float64) []CollectiveUse {
	if n <= 1 || params <= 0 {
		return nil
	}
	grads := params * bytesGradients
	var out []CollectiveUse
	if p.l.ZeRO == 0 {
		out = append(out, use(k, "dp", kind+"fp32 gradients", collective.AllReduce, grads, 1))
	} else {
		out = append(out, use(k, "dp", kind+"fp32 gradients", collective.ReduceScatter, grads, 1),
			use(k, "dp", kind+"updated 16-bit weights", collective.AllGather, params*bytesWeights16, 1))
	}
	if p.l.ZeRO == 3 {
		m, v := p.mv, float64(p.v)
		out = append(out, use(k, "dp", kind+"16-bit weights before each pass", collective.AllGather, params*bytesWeights16/v, 2*m*v))
	}
	return out
}

// inferCollectives lists replica 0's collectives in a serving run on its busiest stage
// (layers layers): every engine step's activations, at the run's mean tokens a step.
func (p *plan) inferCollectives(layers int, kinds []int, res serve.Result) []CollectiveUse {
	if res.Steps0 == 0 {
		return nil
	}
	k, steps := float64(layers), float64(res.Steps0)
	tok := res.Tokens0 / steps
	bytes := tok * float64(p.a.Hidden) * p.e
	var out []CollectiveUse
	out = append(out, p.layerTPUses("step activations (mean tokens a step)", bytes, p.moeLayers(kinds)/max(k, 1), 2*k*steps, 0)...)
	out = append(out, p.inferEPUses(kinds, res)...)
	out = append(out, p.p2pUse("step activations", bytes, steps)...)
	return out
}
