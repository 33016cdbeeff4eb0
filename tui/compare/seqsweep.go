package compare

import (
	"fmt"
	"slices"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
)

// SeqLens are the sequence lengths of the long-context sweep: 4K to 128K tokens.
var SeqLens = []int{4096, 8192, 16384, 32768, 65536, 131072}

// SeqFamilyNames label the sweep's columns (common.FamNoCP, FamCP, FamBoth).
var SeqFamilyNames = [common.NumSeqFamilies]string{"TP, no CP", "CP, least TP", "TP × CP"}

// seqFamilyIn says whether layout l competes in family f.
func seqFamilyIn(f common.SeqFamily, l model.Layout) bool {
	if l.Disagg.On() {
		return false
	}
	switch f {
	case common.FamNoCP:
		return l.CPSize() == 1
	case common.FamCP:
		return l.CPSize() > 1
	}
	return l.CPSize() > 1 && l.TP > 1
}

// SeqSweepApplies says whether the sweep is for s: training (serving has no CP).
func SeqSweepApplies(s model.Scenario) bool { return s.Workload.Mode == model.Train }

// SeqKey is the scenario a sweep depends on: s without its sequence length and without the
// sizes search chooses (TP, CP, PP, DP, micro-batch, schedule and its chunks, the CP
// exchange), so that moving those on the panel finds the sweep already made.
func SeqKey(s model.Scenario) model.Scenario {
	s.Workload.Seq = 0
	l := &s.Layout
	l.TP, l.CP, l.PP, l.DP, l.MicroBatch, l.Chunks = 0, 0, 0, 0, 0, 0
	l.Schedule, l.CPComm = model.OneFOneB, model.CPRing
	return s
}

// BuildSeq sweeps the sequence length over SeqLens for the model, GPUs and global batch of s
// (training): at each length, one Search holding the panel's training knobs but those set to
// auto (as the tab's contenders do), and the best layout of each family, evaluated exactly: without CP (CP 1), with CP at the least
// TP that fits, and with both TP > 1 and CP > 1. A family with no layout that fits shows the
// one closest to fitting (least memory) and its reason. Search tries CP from 8K-token sequences
// (cpSizes), so at 4K the CP families say so. It is pure and runs in a tea.Cmd.
func BuildSeq(s model.Scenario) common.SeqSweep {
	out := common.SeqSweep{Batch: s.Workload.GlobalBatch}
	if !SeqSweepApplies(s) {
		out.Err = fmt.Errorf("the sequence sweep is for training: serving has no context parallelism")
		return out
	}
	for _, seq := range SeqLens {
		out.Points = append(out.Points, seqPoint(s, seq))
	}
	return out
}

// seqPoint is one length of the sweep.
func seqPoint(s model.Scenario, seq int) common.SeqPoint {
	sc := s
	sc.Workload.Seq = seq
	sc.Layout.CP, sc.Layout.CPComm = 0, model.CPRing // search sweeps CP; the base's would be fixed
	pt := common.SeqPoint{Seq: seq}
	fix := costmodel.SearchFix{}.KeepKnobsBut(s.Layout.Auto)
	res, err := costmodel.Search(sc, costmodel.SearchOptions{Objective: objective, Fix: fix})
	if err != nil {
		why := reason(err)
		for f := range pt.Fams {
			pt.Fams[f] = common.CompareRow{Name: SeqFamilyNames[f], Reason: why}
		}
		return pt
	}
	for f := common.SeqFamily(0); f < common.NumSeqFamilies; f++ {
		in := func(l model.Layout) bool { return seqFamilyIn(f, l) }
		row, ok := common.CompareRow{}, false
		if f == common.FamCP {
			row, ok = leastTP(sc, res.Candidates)
		} else {
			row, ok = first(sc, res.Candidates, in)
		}
		if !ok {
			row = closest(sc, res.Candidates, class{name: SeqFamilyNames[f], in: in, what: seqFamilyWhat(f)})
			if f != common.FamNoCP && seq < costmodel.CPMinSeq && row.Layout.TP == 0 {
				row.Reason = fmt.Sprintf("search tries CP from %dK-token sequences", costmodel.CPMinSeq/1024)
			}
		}
		row.Name = SeqFamilyNames[f]
		pt.Fams[f] = row
	}
	return pt
}

func seqFamilyWhat(f common.SeqFamily) string {
	switch f {
	case common.FamNoCP:
		return "CP 1"
	case common.FamCP:
		return "CP > 1"
	}
	return "TP > 1 and CP > 1"
}

// leastTP is the CP family's row: among the layouts with CP > 1, the fastest at the least TP
// that fits (TP 1 when one does).
func leastTP(s model.Scenario, cands []costmodel.Candidate) (common.CompareRow, bool) {
	var tps []int
	for _, c := range cands {
		if c.Feasible && seqFamilyIn(common.FamCP, c.Layout) && !slices.Contains(tps, c.Layout.TP) {
			tps = append(tps, c.Layout.TP)
		}
	}
	slices.Sort(tps)
	for _, t := range tps {
		if row, ok := first(s, cands, func(l model.Layout) bool { return seqFamilyIn(common.FamCP, l) && l.TP == t }); ok {
			return row, true
		}
	}
	return common.CompareRow{}, false
}
