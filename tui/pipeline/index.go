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

// firstAbove is the first index i ≥ lo with xs[i] > x (len(xs) if none).
func firstAbove(xs []float64, x float64, lo int) int {
	hi := len(xs)
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

// firstAtLeast is the first index i ≥ lo with xs[i] ≥ x (len(xs) if none).
func firstAtLeast(xs []float64, x float64, lo int) int {
	hi := len(xs)
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

// busyUntil is the time the lane spent in ops before t.
func (l *lane) busyUntil(t float64) float64 {
	k := firstAbove(l.starts, t, 0) // ops that started by t
	if k == 0 {
		return 0
	}
	return l.busy[k-1] + min(max(t-l.starts[k-1], 0), l.ends[k-1]-l.starts[k-1])
}

// maxScan bounds the ops looked at one by one in a column; beyond it the column is dense and
// the op under its middle stands for all of them.
const maxScan = 8

// sample returns the op that occupies most of [a, b), or -1 when the lane is mostly idle there.
// An op alone in the column that has its middle there is shown even when it is short, so that
// no isolated op vanishes between two columns. It costs a few binary searches, whatever the
// number of ops.
func (l *lane) sample(a, b float64) int {
	i := firstAbove(l.ends, a, 0) // first op ending after a
	j := firstAtLeast(l.starts, b, i)
	if i >= j {
		return -1
	}
	busy := l.busyUntil(b) - l.busyUntil(a)
	if 2*busy < b-a && (j-i != 1 || l.mids[i] < a || l.mids[i] >= b) {
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
	half := (b - a) / 2
	k := firstAtLeast(l.gapFrom, b, 0) - 1 // last gap to begin before b
	for i := k; i >= 0 && i >= k-1; i-- {  // only two gaps can reach half of the slice
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
