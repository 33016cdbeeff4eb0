package costmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// cand is a candidate named by its TP degree with a step time (s) and memory per GPU (GiB).
func cand(tp int, t, memGiB float64, feasible bool) Candidate {
	return Candidate{Layout: model.Layout{TP: tp}, Feasible: feasible,
		Report: Report{StepTime: t, Memory: Memory{Total: memGiB * model.GiB}}}
}

// names lists the candidates' TP degrees: "1 2 4".
func names(c []Candidate) string {
	var s []string
	for _, x := range c {
		s = append(s, fmt.Sprint(x.Layout.TP))
	}
	return strings.Join(s, " ")
}

func TestPareto(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Candidate
		want string // TP degrees of the front, fastest first
	}{
		{"empty", nil, ""},
		{"one", []Candidate{cand(1, 1, 10, true)}, "1"},
		{"trade-off kept, sorted by time", []Candidate{cand(1, 3, 10, true), cand(2, 1, 30, true), cand(4, 2, 20, true)}, "2 4 1"},
		{"dominated on both dropped", []Candidate{cand(1, 1, 10, true), cand(2, 2, 20, true)}, "1"},
		{"slower at equal memory dropped", []Candidate{cand(1, 2, 10, true), cand(2, 1, 10, true)}, "2"},
		{"more memory at equal time dropped", []Candidate{cand(1, 1, 20, true), cand(2, 1, 10, true)}, "2"},
		{"exact tie keeps the first given", []Candidate{cand(8, 1, 10, true), cand(4, 1, 10, true)}, "8"},
		{"infeasible ignored even when better", []Candidate{cand(1, 2, 20, true), cand(2, 1, 10, false)}, "1"},
		{"all infeasible", []Candidate{cand(1, 1, 10, false)}, ""},
		{"not finite ignored", []Candidate{cand(1, math.NaN(), 1, true), cand(2, 1, math.Inf(1), true), cand(4, 5, 50, true)}, "4"},
		{"staircase", []Candidate{
			cand(1, 4, 10, true), cand(2, 3, 12, true), cand(3, 3.5, 15, true), // 3 dominated by 2
			cand(4, 2, 20, true), cand(5, 1, 40, true), cand(6, 1.5, 40, true), // 6 dominated by 5
			cand(7, 5, 10, true), // dominated by 1
		}, "5 4 2 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Pareto(tc.in)
			if names(got) != tc.want {
				t.Fatalf("front %q, want %q", names(got), tc.want)
			}
			// Along the front time rises and memory falls, both strictly.
			for i := 1; i < len(got); i++ {
				a, b := got[i-1].Report, got[i].Report
				if !(b.StepTime > a.StepTime && b.Memory.Total < a.Memory.Total) {
					t.Errorf("front not a staircase at %d: %v/%v then %v/%v", i, a.StepTime, a.Memory.Total, b.StepTime, b.Memory.Total)
				}
			}
		})
	}
}

// Every feasible candidate Search finds is on the front or dominated by a point of it.
func TestParetoOfSearch(t *testing.T) {
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		t.Run(mode.String(), func(t *testing.T) {
			s := scenario(t, "llama-2-13b", "a100-sxm-80gb", "nvlink3", 16, 8, 1)
			s.Workload.Mode = mode
			res, err := Search(s, SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			front := Pareto(res.Candidates)
			if len(front) == 0 {
				t.Fatal("empty front")
			}
			if front[0].Report.StepTime != res.Candidates[0].Report.StepTime {
				t.Errorf("front starts at %v, the fastest layout takes %v", front[0].Report.StepTime, res.Candidates[0].Report.StepTime)
			}
			for _, c := range res.Candidates {
				if !c.Feasible {
					continue
				}
				covered := false
				for _, f := range front {
					if f.Report.StepTime <= c.Report.StepTime && f.Report.Memory.Total <= c.Report.Memory.Total {
						covered = true
						break
					}
				}
				if !covered {
					t.Errorf("%+v (%v s, %v B) is neither on the front nor dominated", c.Layout, c.Report.StepTime, c.Report.Memory.Total)
				}
			}
		})
	}
}
