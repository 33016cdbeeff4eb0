package costmodel

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearchServingSLOFirst: in serving, with a latency target, every layout that meets it ranks
// above every layout that misses it, under each objective that ranks serving (time, throughput,
// latency), whether the layouts below the simulated head are the exact runs or the estimates
// (search with a short refinement).
func TestSearchServingSLOFirst(t *testing.T) {
	s := servingScenario(t, "llama-2-13b", "rtx-4090", 200, 2)
	s.Cluster.GPUs = 64
	s.Workload.SLOTPOT = 0.030 // TP 1 layouts miss it on these GPUs, TP 2 and up meet it
	for _, o := range []Objective{ObjTime, ObjThroughput, ObjLatency} {
		for _, refine := range []int{searchRefine, 4} {
			t.Run(fmt.Sprintf("%s/refine %d", o, refine), func(t *testing.T) {
				res, err := search(s, SearchOptions{Objective: o}, refine)
				if err != nil {
					t.Fatal(err)
				}
				meets, misses := 0, 0
				for i, c := range res.Candidates[:res.Feasible] {
					inf := c.Report.Inference
					if inf == nil || inf.MeetsSLO == nil {
						t.Fatalf("rank %d %s: no SLO verdict", i+1, splitLabel(c.Layout))
					}
					if *inf.MeetsSLO {
						if misses > 0 {
							t.Errorf("rank %d %s meets the SLO (p90 TPOT %.1f ms) below %d layouts that miss it", i+1, splitLabel(c.Layout), 1e3*inf.TPOTP90, misses)
						}
						meets++
					} else {
						misses++
					}
				}
				if meets == 0 || misses == 0 {
					t.Fatalf("the premise: some layouts meet the SLO and some miss it; %d meet, %d miss", meets, misses)
				}
			})
		}
	}
}

// TestSearchGoodputRanksAsServing: search --objective goodput ranks its layouts with serving's
// tie order (RankCandidates): on 8 RTX 4090s serving llama-2-7b with a 400 ms p90 TTFT target,
// two layouts within 1% of goodput are a tie that the lower end-to-end latency wins (the test
// checks such a tie is there); goodput used to rank by the exact rate, ties to less memory.
func TestSearchGoodputRanksAsServing(t *testing.T) {
	s := servingScenario(t, "llama-2-7b", "rtx-4090", 200, 0)
	res, err := Search(s, SearchOptions{Objective: ObjGoodput, SLO: SLO{TTFT: 0.4}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Candidates[:res.Feasible]
	want := append([]Candidate(nil), got...)
	RankCandidates(want, ObjGoodput, true)
	order := func(cs []Candidate) string {
		out := ""
		for _, c := range cs {
			out += fmt.Sprintf("%s(%.4g req/s, e2e p90 %.3g s) ", splitLabel(c.Layout), c.Goodput, e2e(c.Report))
		}
		return out
	}
	if order(got) != order(want) {
		t.Errorf("goodput ranks\n  %s\nserving's order is\n  %s", order(got), order(want))
	}
	// The premise: a tie the exact rate would have ordered the other way.
	upset := false
	for i := range got {
		for j := i + 1; j < len(got); j++ {
			if got[i].Goodput < got[j].Goodput && Tied(got[i].Goodput, got[j].Goodput) {
				upset = true
			}
		}
	}
	if !upset {
		t.Errorf("the premise: two layouts within %g%% of goodput where the lower rate ranks first by latency; %s", 100*TieTolerance, order(got))
	}
}

// TestSearchSaysWhenServingRunsAreShort: a serving search ranked on runs too short for their
// rate says so among its warnings (how many layouts, the first one's warning, the requests the
// runs ask for), as each candidate's report does; with requests enough it says nothing.
func TestSearchSaysWhenServingRunsAreShort(t *testing.T) {
	for _, tc := range []struct {
		requests int
		want     bool
	}{{200, true}, {1500, false}} {
		s := servingScenario(t, "llama-2-13b", "rtx-4090", tc.requests, 2)
		res, err := Search(s, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		short, ask := 0, 0
		for _, c := range res.Candidates[:res.Feasible] {
			if cf := c.Report.Inference.Confidence; cf != nil && cf.Warning != "" {
				short++
				ask = max(ask, cf.SuggestRequests)
			}
		}
		var got []string
		for _, w := range res.Warnings {
			if strings.Contains(w, "serving runs not to be trusted") {
				got = append(got, w)
			}
		}
		if (short > 0) != tc.want {
			t.Fatalf("the premise: %d requests at 2 req/s, %d of %d layouts' runs warned", tc.requests, short, res.Feasible)
		}
		switch {
		case short == 0 && len(got) > 0:
			t.Errorf("%d requests: no run warned, yet %q", tc.requests, got)
		case short > 0 && len(got) != 1:
			t.Errorf("%d requests: %d runs warned, search's warnings say %q", tc.requests, short, got)
		case short > 0:
			for _, w := range []string{fmt.Sprintf("%d of the %d feasible layouts", short, res.Feasible), fmt.Sprintf("--requests %d is the most", ask), "too few to reach steady state"} {
				if !strings.Contains(got[0], w) {
					t.Errorf("%d requests: the warning lacks %q: %s", tc.requests, w, got[0])
				}
			}
		}
	}
}
