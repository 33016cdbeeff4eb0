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

// TestRankCandidatesServingObjectives: every serving objective but memory ranks as the default
// does: a layout that meets the SLO (goodput: serves some rate within it) before one that does
// not, then the objective's figure, where figures within TieTolerance are a tie, which the p90
// end-to-end latency, then fewer GPUs a replica, then less memory break. Goodput used to break
// its ties by less memory alone.
func TestRankCandidatesServingObjectives(t *testing.T) {
	yes, no := true, false
	type fig struct {
		tp, dp        int
		step, tpot    float64
		tokS, goodput float64
		e2e, mem      float64
		meets         *bool
	}
	c := func(f fig) Candidate {
		return Candidate{Layout: model.Layout{TP: f.tp, PP: 1, DP: f.dp}, Feasible: true, Goodput: f.goodput,
			Report: Report{StepTime: f.step, TokensPerS: f.tokS, Memory: Memory{Total: f.mem},
				Inference: &Inference{TPOT: f.tpot, E2EP90: f.e2e, MeetsSLO: f.meets}}}
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
		o    Objective
		in   []fig
		want string
	}{
		// Goodput: the highest rate first, whatever the step time says.
		{"goodput: the rate first", ObjGoodput, []fig{{tp: 8, dp: 1, step: 100, goodput: 5, e2e: 1, mem: 1}, {tp: 4, dp: 2, step: 200, goodput: 10, e2e: 2, mem: 2}}, "TP4×DP2 TP8 "},
		// Within 1%: a tie, to the lower p90 end-to-end latency, though it takes more memory.
		{"goodput: tie to latency", ObjGoodput, []fig{{tp: 8, dp: 1, step: 100, goodput: 10, e2e: 2, mem: 1}, {tp: 4, dp: 2, step: 100, goodput: 9.95, e2e: 1, mem: 2}}, "TP4×DP2 TP8 "},
		{"goodput: outside the tolerance", ObjGoodput, []fig{{tp: 4, dp: 2, step: 100, goodput: 9.8, e2e: 1, mem: 1}, {tp: 8, dp: 1, step: 100, goodput: 10, e2e: 2, mem: 2}}, "TP8 TP4×DP2 "},
		// Same goodput and latency: fewer GPUs a replica, though it takes more memory.
		{"goodput: tie to fewer GPUs", ObjGoodput, []fig{{tp: 8, dp: 1, step: 100, goodput: 10, e2e: 1, mem: 1}, {tp: 4, dp: 2, step: 100, goodput: 10, e2e: 1, mem: 2}}, "TP4×DP2 TP8 "},
		{"goodput: then memory", ObjGoodput, []fig{{tp: 4, dp: 2, step: 100, goodput: 10, e2e: 1, mem: 2}, {tp: 4, dp: 2, step: 90, goodput: 10, e2e: 1, mem: 1}}, "TP4×DP2 TP4×DP2 "},
		{"goodput: none last", ObjGoodput, []fig{{tp: 8, dp: 1, step: 1, goodput: 0, e2e: 0.1, mem: 1, meets: &yes}, {tp: 4, dp: 2, step: 200, goodput: 0.5, e2e: 9, mem: 2}}, "TP4×DP2 TP8 "},
		// Latency (mean TPOT) and throughput (tokens/s) follow the same rule.
		{"latency: tie to latency", ObjLatency, []fig{{tp: 8, dp: 1, step: 100, tpot: 0.0200, e2e: 2}, {tp: 4, dp: 2, step: 100, tpot: 0.0201, e2e: 1}}, "TP4×DP2 TP8 "},
		{"latency: outside the tolerance", ObjLatency, []fig{{tp: 4, dp: 2, step: 100, tpot: 0.0210, e2e: 1}, {tp: 8, dp: 1, step: 100, tpot: 0.0200, e2e: 2}}, "TP8 TP4×DP2 "},
		{"latency: tie to fewer GPUs", ObjLatency, []fig{{tp: 8, dp: 1, step: 100, tpot: 0.02, e2e: 1}, {tp: 4, dp: 2, step: 100, tpot: 0.02, e2e: 1}}, "TP4×DP2 TP8 "},
		{"latency: SLO first", ObjLatency, []fig{{tp: 8, dp: 1, step: 100, tpot: 0.01, e2e: 1, meets: &no}, {tp: 4, dp: 2, step: 100, tpot: 0.05, e2e: 3, meets: &yes}}, "TP4×DP2 TP8 "},
		{"throughput: tie to latency", ObjThroughput, []fig{{tp: 8, dp: 1, step: 100, tokS: 1000, e2e: 2}, {tp: 4, dp: 2, step: 100, tokS: 995, e2e: 1}}, "TP4×DP2 TP8 "},
		{"throughput: outside the tolerance", ObjThroughput, []fig{{tp: 4, dp: 2, step: 100, tokS: 980, e2e: 1}, {tp: 8, dp: 1, step: 100, tokS: 1000, e2e: 2}}, "TP8 TP4×DP2 "},
		{"throughput: tie to fewer GPUs", ObjThroughput, []fig{{tp: 8, dp: 1, step: 100, tokS: 1000, e2e: 1}, {tp: 4, dp: 2, step: 100, tokS: 1000, e2e: 1}}, "TP4×DP2 TP8 "},
		{"throughput: SLO first", ObjThroughput, []fig{{tp: 8, dp: 1, step: 100, tokS: 2000, e2e: 1, meets: &no}, {tp: 4, dp: 2, step: 100, tokS: 1000, e2e: 3, meets: &yes}}, "TP4×DP2 TP8 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in []Candidate
			for _, f := range tc.in {
				in = append(in, c(f))
			}
			RankCandidates(in, tc.o, true)
			if got := name(in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.name == "goodput: then memory" && in[0].Report.Memory.Total != 1 {
				t.Errorf("a full tie goes to less memory: got %g first", in[0].Report.Memory.Total)
			}
		})
	}
}
