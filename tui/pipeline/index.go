package pipeline

import (
	"math"
	"slices"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// opKind is what an op is drawn as.
type opKind uint8

const (
	kindF       opKind = iota // training forward
	kindB                     // training backward (input gradients, or all of it)
	kindW                     // training weight gradients (zero-bubble)
	kindPrefill               // inference: a group's prompt
	kindDecode                // inference: one decode step of a group
	numKinds
)

// span is one op of a lane, as the chart needs it.
type span struct {
	Start, End float64
	Kind       opKind
	Chunk      int32
	Micro      int32
	Token      int32
	// Paired: the op ran overlapped with another micro-batch's op of its stage (DualPipe's
	// forward–backward pairs, schedule.Op.Paired).
	Paired bool
}

// lane is one pipeline stage's ops sorted by start, their starts and ends, and the gaps where
// the stage sat free waiting for another stage's output.
type lane struct {
	ops    []span
	starts []float64
	ends   []float64
	// gapFrom and gapTo are the p2p gaps, sorted: the stage was free from gapFrom[i] but its
	// next op waited for another stage until gapTo[i].
	gapFrom []float64
	gapTo   []float64
	gpus    []int
}

// index is a timeline prepared for drawing.
type index struct {
	lanes  []lane
	span   float64   // makespan, the time axis [0, span]
	starts []float64 // every distinct op start, sorted (the `.` key steps through them)
	ops    int
	infer  bool
	chunks int
	sched  model.Schedule
}

// newIndex prepares tl; it returns nil when there is nothing to draw. Ops with times that are not
// finite, or on stages out of range, are left out rather than trusted.
func newIndex(tl *costmodel.Timeline) *index {
	if tl == nil || !(tl.Makespan > 0) || math.IsInf(tl.Makespan, 0) {
		return nil
	}
	stages := tl.Stages
	for _, op := range tl.Ops {
		stages = max(stages, op.Stage+1)
	}
	if stages <= 0 {
		return nil
	}
	ix := &index{
		lanes: make([]lane, stages), span: tl.Makespan, infer: tl.Mode == model.Infer,
		chunks: max(tl.Chunks, 1), sched: tl.Schedule,
	}
	type rec struct {
		s   span
		dep bool
	}
	per := make([][]rec, stages)
	for _, op := range tl.Ops {
		if op.Stage < 0 || !finite(op.Start) || !finite(op.End) || op.End < op.Start {
			continue
		}
		s := span{Start: op.Start, End: op.End, Chunk: int32(op.Chunk), Micro: int32(op.Micro), Token: int32(op.Token), Paired: op.Paired}
		s.Kind = kindOf(op, ix.infer)
		per[op.Stage] = append(per[op.Stage], rec{s, op.Dep >= 0})
		ix.starts = append(ix.starts, op.Start)
		ix.ops++
	}
	slices.Sort(ix.starts)
	ix.starts = slices.Compact(ix.starts)
	eps := tl.Makespan * 1e-9
	for st := range per {
		rs := per[st]
		slices.SortStableFunc(rs, func(a, b rec) int {
			switch {
			case a.s.Start < b.s.Start:
				return -1
			case a.s.Start > b.s.Start:
				return 1
			}
			return 0
		})
		l := &ix.lanes[st]
		n := len(rs)
		l.ops = make([]span, n)
		l.starts, l.ends = make([]float64, n), make([]float64, n)
		free := 0.0
		for i, r := range rs {
			l.ops[i] = r.s
			l.starts[i], l.ends[i] = r.s.Start, r.s.End
			if r.dep && r.s.Start > free+eps {
				l.gapFrom = append(l.gapFrom, free)
				l.gapTo = append(l.gapTo, r.s.Start)
			}
			free = max(free, r.s.End)
		}
		if st < len(tl.StageGPUs) {
			l.gpus = tl.StageGPUs[st]
		}
	}
	return ix
}

func kindOf(op schedule.Op, infer bool) opKind {
	switch {
	case infer && op.Token == 0:
		return kindPrefill
	case infer:
		return kindDecode
	case op.Kind == schedule.B:
		return kindB
	case op.Kind == schedule.W:
		return kindW
	default:
		return kindF
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// firstAbove is the first index i ≥ lo with xs[i] > x (len(xs) if none), xs sorted. It gallops
// from lo before bisecting, so a caller walking columns left to right, passing the previous
// answer as lo, pays for the distance moved rather than for the whole lane.
func firstAbove(xs []float64, x float64, lo int) int {
	lo, hi := gallop(xs, lo, func(v float64) bool { return v > x })
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if xs[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// firstAtLeast is the first index i ≥ lo with xs[i] ≥ x (len(xs) if none), xs sorted.
func firstAtLeast(xs []float64, x float64, lo int) int {
	lo, hi := gallop(xs, lo, func(v float64) bool { return v >= x })
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if xs[m] >= x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// gallop brackets the first index ≥ lo where ok holds (ok is monotone over xs): it returns
// [lo, hi) with the answer inside or equal to hi, probing lo, lo+1, lo+3, lo+7, …
func gallop(xs []float64, lo int, ok func(float64) bool) (int, int) {
	n := len(xs)
	lo = max(lo, 0)
	for step := 1; lo < n; step *= 2 {
		hi := min(lo+step, n)
		if ok(xs[hi-1]) {
			return lo, hi - 1
		}
		lo = hi
	}
	return n, n
}

// gapAtFrom reports whether column [a, b) carries the mark of a p2p gap: the first column whose
// slice a gap covers at least half of. Short gaps inside a busy column stay plain idle time, so
// marks point at real waits rather than at every hand-over. prevIdle says whether the previous
// column was drawn idle (a busy column cannot have carried the mark). Columns are visited left
// to right with one cursor, gap, starting at 0: no gap before it begins after the column's start.
func (l *lane) gapAtFrom(a, b float64, prevIdle bool, gap *int) bool {
	half := (b - a) / 2
	k := firstAtLeast(l.gapFrom, b, *gap) - 1 // last gap to begin before b
	*gap = max(k, 0)
	for i := k; i >= 0 && i >= k-1; i-- { // only two gaps can reach half of the slice
		if min(l.gapTo[i], b)-max(l.gapFrom[i], a) < half {
			continue
		}
		// The mark goes on the first such column: not if the previous one qualified too.
		pa := 2*a - b
		return !prevIdle || min(l.gapTo[i], a)-max(l.gapFrom[i], pa) < half
	}
	return false
}

// nextStart is the first op start after t, or the end of the timeline.
func (ix *index) nextStart(t float64) float64 {
	eps := ix.span * 1e-9
	k := firstAbove(ix.starts, t+eps, 0)
	if k < len(ix.starts) {
		return ix.starts[k]
	}
	return ix.span
}
