package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Search evaluates tens of thousands of splits (TP × PP × DP × EP × ETP, micro-batch size,
// schedule and interleaving), each at up to 72 settings of the knobs that shape a layer. A
// layer's costs in training (trainLayerCost) depend on far fewer things: the TP and expert
// sizes, the micro-batch size, those knobs, whether the schedule is ZB-H1 (which moves the weight
// gradients out of B) and the EP group's place on the cluster (its communicator, which the rank
// order and the PP size move); not on the PP or DP sizes as such, the interleaving or the other
// schedules. Each of Search's workers keeps a layerMemo of the layer costs it computed, by all
// that they depend on, and its splits take them from there: the values are trainLayerCost's
// own, so nothing changes but the work.

// layerMemo is one worker's layer costs (each kind's trainLayerCost): a table per split key
// (splitKey: what a plan holds fixed), in it an entry per setting of the knobs that shape a layer
// (knobIndex), which a plan finds without hashing once it holds its split's table.
type layerMemo struct {
	m map[splitKey]*knobTable
	// arena is where the entries' costs are cut from, a block at a time.
	arena []layerCost
	// coll, when set, is the worker's own collectives memo, which its plans use instead of the
	// search's shared one (no lock, no other worker on it).
	coll *collMemo
	// check, in the tests, computes the costs again at every hit and counts the hits and those
	// that differ from what the memo held.
	check          bool
	hits, mismatch int
}

func newLayerMemo() *layerMemo { return &layerMemo{m: map[splitKey]*knobTable{}} }

// knobSettings is the number of settings of the knobs that shape a layer: recompute (3) ×
// sequence parallelism (2) × its all-gather kept (2) × TP overlap (3) × ZB-H1 or not (2).
const knobSettings = 3 * 2 * 2 * 3 * 2

// knobTable is one split key's costs per knob setting (nil: not computed yet).
type knobTable [knobSettings][]layerCost

// splitKey is everything of a plan that trainLayerCost reads and a search varies, but the knobs:
// the TP, EP and ETP sizes, the micro-batch size, and the EP communicator's place (its ranks,
// nodes and share of the NICs: the rank order and the PP size move the EP group), and the TP and
// CP groups' places, which the rank order moves too. The rest of the layout (the user's settings: the EP imbalance
// and dispatch, unfused attention, the collectives), the model, the cluster and the workload are
// the search's, and a memo serves one search. Not the PP or DP sizes as such, nor the
// interleaving or the schedule but ZB-H1 (knobIndex).
type splitKey struct {
	tp, b, ep, etp int
	// cp and its exchange; the CP groups' places (all, Ulysses, the ring's hop), which the rank
	// order moves (tp-cp-dp-pp against tp-dp-cp-pp), and the TP group's.
	cp       int
	cpComm   model.CPComm
	cpAll    collective.Group
	cpUly    collective.Group
	cpNICs   [2]int
	hop      float64
	tpg      collective.Group
	tpNICs   int
	epc      collective.Group
	nics     int
	interBW  float64
	cpInterB [2]float64
}

func splitKeyOf(p *plan) splitKey {
	l := p.l
	return splitKey{tp: l.TP, b: l.MicroBatch, ep: l.EP, etp: l.ETP, cp: l.CPSize(), cpComm: l.CPComm,
		cpAll: p.cpx.all.g, cpUly: p.cpx.ulyc.g, cpNICs: [2]int{p.cpx.all.f.NICs, p.cpx.ulyc.f.NICs},
		cpInterB: [2]float64{p.cpx.all.f.Inter.Bandwidth, p.cpx.ulyc.f.Inter.Bandwidth},
		hop:      p.cpx.hop.Bandwidth, tpg: p.tp.g, tpNICs: p.tp.f.NICs,
		epc: p.epc.g, nics: p.epc.f.NICs, interBW: p.epc.f.Inter.Bandwidth}
}

// knobIndex is the entry of a layout's knobs that shape a layer in a knobTable: the recompute,
// sequence parallelism and whether its all-gather is kept (spKeepsGather), the TP overlap, and
// whether the schedule is ZB-H1. ok is false for a value out of the table's range.
func knobIndex(l model.Layout) (int, bool) {
	rc, tpo := int(l.Recompute), int(l.TPOverlap)
	if rc < 0 || rc > 2 || tpo < 0 || tpo > 2 {
		return 0, false
	}
	k := rc
	k = k*2 + b2i(l.SequenceParallel)
	k = k*2 + b2i(spKeepsGather(l))
	k = k*3 + tpo
	k = k*2 + b2i(splitsW(l.Schedule))
	return k, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// costs are p's layer costs per kind (trainLayerCost without segments) under its knobs, from
// the memo when a plan with the same split key and knobs asked for them before. The slice is
// the memo's: read it only.
func (m *layerMemo) costs(p *plan) []layerCost {
	nk := len(p.k.Shapes)
	k, ok := knobIndex(p.l)
	if !ok {
		out := p.lcBuf[:nk]
		for i, sh := range p.k.Shapes {
			out[i] = p.trainLayerCost(sh, nil, nil)
		}
		return out
	}
	if p.lcTable == nil {
		sk := splitKeyOf(p)
		t := m.m[sk]
		if t == nil {
			t = new(knobTable)
			m.m[sk] = t
		}
		p.lcTable = t
	}
	if c := p.lcTable[k]; len(c) == nk {
		if m.check {
			m.hits++
			for i, sh := range p.k.Shapes {
				if p.trainLayerCost(sh, nil, nil) != c[i] {
					m.mismatch++
					break
				}
			}
		}
		return c
	}
	if len(m.arena) < nk {
		m.arena = make([]layerCost, max(1024, nk))
	}
	c := m.arena[:nk:nk]
	m.arena = m.arena[nk:]
	for i, sh := range p.k.Shapes {
		c[i] = p.trainLayerCost(sh, nil, nil)
	}
	p.lcTable[k] = c
	return c
}

// useMemo has p take its layer costs from m and, where m holds one for p's cluster, time its
// collectives through m's own memo.
func (p *plan) useMemo(m *layerMemo) {
	p.lcMemo = m
	if m.coll != nil && m.coll.c == p.c {
		for _, k := range [...]*comms{&p.tp, &p.dp, &p.epc, &p.etpc, &p.expDP, &p.cpx.all, &p.cpx.ulyc} {
			k.memo = m.coll
		}
	}
}
