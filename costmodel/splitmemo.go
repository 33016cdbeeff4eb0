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

// layerMemo is one worker's layer costs (each kind's trainLayerCost) by layerKey.
type layerMemo struct {
	m map[layerKey][]layerCost
	// check, in the tests, computes the costs again at every hit and counts the hits and those
	// that differ from what the memo held.
	check          bool
	hits, mismatch int
}

func newLayerMemo() *layerMemo { return &layerMemo{m: map[layerKey][]layerCost{}} }

// layerKey is everything of a plan that trainLayerCost reads and a search varies: of its layout
// the TP, EP and ETP sizes, the micro-batch size, the knobs that shape a layer (recompute,
// sequence parallelism and whether its all-gather is kept, the TP overlap) and whether the
// schedule is ZB-H1; and the EP communicator's place (its ranks, nodes and share of the NICs:
// the rank order and the PP size move the EP group; the TP and ETP groups follow from the
// sizes). The rest of the layout (the user's settings: the EP imbalance and dispatch, unfused
// attention, the collectives), the model, the cluster and the workload are the search's, and a
// memo serves one search.
type layerKey struct {
	tp, b, ep, etp int
	rc, tpo        int8
	sp, keep, zb   bool
	epc            collective.Group
	nics           int
	interBW        float64
}

func layerKeyOf(p *plan) layerKey {
	l := p.l
	return layerKey{
		tp: l.TP, b: l.MicroBatch, ep: l.EP, etp: l.ETP,
		rc: int8(l.Recompute), tpo: int8(l.TPOverlap),
		sp: l.SequenceParallel, keep: spKeepsGather(l), zb: l.Schedule == model.ZBH1,
		epc: p.epc.g, nics: p.epc.f.NICs, interBW: p.epc.f.Inter.Bandwidth,
	}
}

// costs are p's layer costs per kind (trainLayerCost without segments) under its knobs, from
// the memo when a plan with the same key asked for them before. The slice is the memo's: read
// it only.
func (m *layerMemo) costs(p *plan) []layerCost {
	k := layerKeyOf(p)
	if c, ok := m.m[k]; ok && len(c) == len(p.k.Shapes) {
		if m.check {
			m.hits++
			for i, sh := range p.k.Shapes {
				if p.trainLayerCost(sh, false, nil) != c[i] {
					m.mismatch++
					break
				}
			}
		}
		return c
	}
	c := make([]layerCost, len(p.k.Shapes))
	for i, sh := range p.k.Shapes {
		c[i] = p.trainLayerCost(sh, false, nil)
	}
	m.m[k] = c
	return c
}
