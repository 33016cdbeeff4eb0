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
}

// lane is one pipeline stage's ops sorted by start, with what makes sampling a column
// O(log n): ends and midpoints (sorted too, since a stage runs one op at a time), a prefix sum of
// busy time, and the gaps where the stage sat free waiting for another stage's output.
type lane struct {
	ops    []span
	starts []float64
	ends   []float64
	mids   []float64
	busy   []float64 // busy[i] is the time spent in ops[:i]
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
		s := span{Start: op.Start, End: op.End, Chunk: int32(op.Chunk), Micro: int32(op.Micro), Token: int32(op.Token)}
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
		l.starts, l.ends, l.mids = make([]float64, n), make([]float64, n), make([]float64, n)
		l.busy = make([]float64, n+1)
		free := 0.0
		for i, r := range rs {
			l.ops[i] = r.s
			l.starts[i], l.ends[i] = r.s.Start, r.s.End
			l.mids[i] = (r.s.Start + r.s.End) / 2
			l.busy[i+1] = l.busy[i] + (r.s.End - r.s.Start)
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

// busyUntil is the time the lane spent in ops before t.
func (l *lane) busyUntil(t float64) float64 { return l.busyFrom(t, 0) }

// busyFrom is busyUntil(t) for a t that no op before lo starts after.
func (l *lane) busyFrom(t float64, lo int) float64 {
	k := firstAbove(l.starts, t, lo) // ops that started by t
	if k == 0 {
		return 0
	}
	return l.busy[k-1] + min(max(t-l.starts[k-1], 0), l.ends[k-1]-l.starts[k-1])
}

// cursor carries what one column's sampling learnt to the next column to its right.
type cursor struct {
	lo    int     // every op before lo ends by the column's start
	busyA float64 // busy time before the column's start
	ok    bool    // busyA is known
	gap   int     // no p2p gap before gap begins after the column's start
}

// maxScan is the most ops a column weighs one by one. A column holding more is dense: no op
// fills most of it, and the op under its middle stands for them all, so that over many columns
// each kind shows in proportion to its time (weighing would always pick the longest kind).
const maxScan = 2

// sample returns the op that occupies most of [a, b), or -1 when the lane is mostly idle there.
// An op alone in the column that has its middle there is shown even when it is short, so that
// no isolated op vanishes between two columns. It costs a few binary searches, whatever the
// number of ops.
func (l *lane) sample(a, b float64) int {
	var c cursor
	return l.sampleAt(a, b, &c)
}

// sampleAt is sample for columns visited left to right with one cursor, each column starting
// where the previous one ended.
func (l *lane) sampleAt(a, b float64, cur *cursor) int {
	i := firstAbove(l.ends, a, cur.lo) // first op ending after a
	j := firstAtLeast(l.starts, b, i)
	busyA := cur.busyA
	if !cur.ok {
		busyA = l.busyFrom(a, i)
	}
	busyB := l.busyFrom(b, j)
	cur.lo, cur.busyA, cur.ok = i, busyB, true
	if i >= j {
		return -1
	}
	if 2*(busyB-busyA) < b-a && (j-i != 1 || l.mids[i] < a || l.mids[i] >= b) {
		return -1
	}
	if j-i <= maxScan {
		best, bestOver := i, -1.0
		for k := i; k < j; k++ {
			over := min(l.ends[k], b) - max(l.starts[k], a)
			if over > bestOver {
				best, bestOver = k, over
			}
		}
		return best
	}
	m := (a + b) / 2
	k := firstAbove(l.starts, m, i) - 1 // last op starting by the middle
	if k < i {
		return i
	}
	if l.ends[k] > m || k+1 >= j {
		return k
	}
	if l.starts[k+1]-m < m-l.ends[k] {
		return k + 1
	}
	return k
}

// gapAt reports whether column [a, b) carries the mark of a p2p gap: the first column whose
// slice a gap covers at least half of. Short gaps inside a dense column stay plain idle time, so
// marks point at real waits rather than at every hand-over. prevIdle says whether the previous
// column was drawn idle (an op column cannot have carried the mark).
func (l *lane) gapAt(a, b float64, prevIdle bool) bool {
	var c cursor
	return l.gapAtFrom(a, b, prevIdle, &c)
}

// gapAtFrom is gapAt for columns visited left to right with one cursor.
func (l *lane) gapAtFrom(a, b float64, prevIdle bool, cur *cursor) bool {
	half := (b - a) / 2
	k := firstAtLeast(l.gapFrom, b, cur.gap) - 1 // last gap to begin before b
	cur.gap = max(k, 0)
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
