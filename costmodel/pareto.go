package costmodel

import (
	"math"
	"sort"
)

// Pareto returns the feasible candidates that no other feasible candidate dominates on step time
// (the time to serve every request in inference) and memory per GPU: a candidate is dropped when
// another is at least as fast and uses at most as much memory, and is strictly better in one of
// the two. Of candidates with equal time and memory the first one given is kept, so a list ranked
// by an objective keeps its best representative. The front is sorted by time, fastest first;
// along it memory strictly falls as time strictly rises. Infeasible candidates and ones with a
// time or memory that is not a finite number are ignored.
func Pareto(c []Candidate) []Candidate {
	pts := make([]Candidate, 0, len(c))
	for _, x := range c {
		if x.Feasible && isFinite(x.Report.StepTime) && isFinite(x.Report.Memory.Total) {
			pts = append(pts, x)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool {
		a, b := pts[i].Report, pts[j].Report
		if a.StepTime != b.StepTime {
			return a.StepTime < b.StepTime
		}
		return a.Memory.Total < b.Memory.Total
	})
	var front []Candidate
	best := math.Inf(1) // least memory among the faster candidates kept so far
	for _, x := range pts {
		if m := x.Report.Memory.Total; m < best {
			front = append(front, x)
			best = m
		}
	}
	return front
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
