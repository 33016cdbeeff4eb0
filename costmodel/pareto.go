package costmodel

import (
	"cmp"
	"math"
	"slices"
)

// Pareto returns the feasible candidates that no other feasible candidate dominates on step time
// (the time to serve every request in inference) and memory per GPU: a candidate is dropped when
// another is at least as fast and uses at most as much memory, and is strictly better in one of
// the two. Of candidates with equal time and memory the first one given is kept, so a list ranked
// by an objective keeps its best representative. The front is sorted by time, fastest first;
// along it memory strictly falls as time strictly rises. Infeasible candidates and ones with a
// time or memory that is not a finite number are ignored.
func Pareto(c []Candidate) []Candidate {
	// Sorted as indices: a candidate (its report) is large, and a search lists tens of thousands.
	type point struct {
		step, mem float64
		i         int
	}
	pts := make([]point, 0, len(c))
	for i := range c {
		x := &c[i]
		if x.Feasible && isFinite(x.Report.StepTime) && isFinite(x.Report.Memory.Total) {
			pts = append(pts, point{x.Report.StepTime, x.Report.Memory.Total, i})
		}
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		if a.step != b.step {
			return cmp.Compare(a.step, b.step)
		}
		return cmp.Compare(a.mem, b.mem)
	})
	var front []Candidate
	best := math.Inf(1) // least memory among the faster candidates kept so far
	for _, x := range pts {
		if x.mem < best {
			front = append(front, c[x.i])
			best = x.mem
		}
	}
	return front
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
