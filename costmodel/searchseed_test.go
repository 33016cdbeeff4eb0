package costmodel

import (
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The seeds bound a split before its loop; the pick must not depend on them: every split of a
// search, searched unseeded and seeded with any split's pick (fitting or not, valid or not for
// it), finds the same candidate.
func TestSearchSeedsChangeNoPick(t *testing.T) {
	p := presets(t)
	a, err := p.Model("mixtral-8x7b")
	if err != nil {
		t.Fatal(err)
	}
	s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 64, 8, 1)
	s.Arch = a
	s.Workload.Seq, s.Workload.GlobalBatch = 4096, 512
	res, err := Search(s, SearchOptions{})
	if err != nil || res.Feasible == 0 {
		t.Fatalf("search: %v, %d feasible", err, res.Feasible)
	}
	// Every 97th candidate, feasible or not, over the whole ranking.
	var picks []knobs
	var splits []model.Scenario
	for i := 0; i < len(res.Candidates); i += 97 {
		c := res.Candidates[i]
		if c.Report.Layout.TP == 0 {
			continue // rejected before evaluation
		}
		sc := s
		sc.Layout = c.Layout
		splits = append(splits, sc)
		l := c.Layout
		picks = append(picks, knobs{l.Recompute, l.SequenceParallel, l.ZeRO, l.TPOverlap, l.Offload, l.SerialDP, l.SPGather == model.SPGatherKeep, l.RankOrder})
	}
	if len(splits) < 20 {
		t.Fatalf("only %d splits to try", len(splits))
	}
	seeded := 0
	for i, sc := range splits {
		kv := knobsFor(s, SearchFix{}, sc.Layout.TP, sc.Layout.CPSize(), sc.Layout.PP, sc.Layout.DP)
		want := searchSplitSeeded(sc, kv, ObjTime, nil, nil, nil)
		for _, seed := range [][]knobs{picks[i : i+1], picks[(i+1)%len(picks) : (i+1)%len(picks)+1], picks} {
			got := searchSplitSeeded(sc, kv, ObjTime, nil, nil, seed)
			if !reflect.DeepEqual(got.cand, want.cand) || got.pick != want.pick || got.picked != want.picked {
				t.Fatalf("split %+v seeded with %+v: candidate moved (step %g → %g)", sc.Layout, seed[0], want.cand.Report.StepTime, got.cand.Report.StepTime)
			}
			if got.counts.Evaluated < want.counts.Evaluated {
				seeded++
			}
			if got.counts.Space != want.counts.Space {
				t.Fatalf("split %+v: space %d seeded, %d not", sc.Layout, got.counts.Space, want.counts.Space)
			}
		}
	}
	// The seeds do prune: some seeded searches evaluate fewer settings.
	if seeded == 0 {
		t.Error("no seed pruned any setting")
	}
}
