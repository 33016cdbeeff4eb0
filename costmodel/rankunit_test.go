package costmodel

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestRankCandidatesServing: the SLO first, then the figure within the tolerance, then the p90
// end-to-end latency, then fewer GPUs a replica; training keeps the exact figure.
func TestRankCandidatesServing(t *testing.T) {
	yes, no := true, false
	c := func(tp, dp int, step, e2e float64, meets *bool) Candidate {
		return Candidate{Layout: model.Layout{TP: tp, PP: 1, DP: dp}, Feasible: true,
			Report: Report{StepTime: step, Inference: &Inference{E2EP90: e2e, MeetsSLO: meets}}}
	}
	name := func(cs []Candidate) string {
		var b strings.Builder
		for _, x := range cs {
			b.WriteString(splitLabel(x.Layout) + " ")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		in   []Candidate
		want string
	}{
		{"tie to latency", []Candidate{c(8, 1, 100, 2, nil), c(4, 2, 100.5, 1, nil)}, "TP4×DP2 TP8 "},
		{"outside the tolerance", []Candidate{c(8, 1, 100, 2, nil), c(4, 2, 102, 1, nil)}, "TP8 TP4×DP2 "},
		{"tie to fewer GPUs a replica", []Candidate{c(8, 1, 100, 1, nil), c(4, 2, 100, 1, nil)}, "TP4×DP2 TP8 "},
		{"SLO first", []Candidate{c(8, 1, 100, 2, &no), c(4, 2, 150, 1, &yes)}, "TP4×DP2 TP8 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			RankCandidates(tc.in, ObjTime, true)
			if got := name(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	train := []Candidate{c(8, 1, 100, 2, nil), c(4, 2, 100.5, 1, nil)}
	RankCandidates(train, ObjTime, false)
	if got := name(train); got != "TP8 TP4×DP2 " {
		t.Errorf("training ranks by the exact step time: got %q", got)
	}
}
