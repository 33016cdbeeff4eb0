package schedule

import (
	"math"
	"sync"

	"github.com/splitscope/splitscope/model"
)

// The steady-state shortcut. Between its warm-up and its cool-down a schedule's order repeats
// itself: on rank r, from position first(r) on, every `period` ops are the previous period's
// with each micro-batch moved on by `shift`. Cut the orders after j whole periods on every rank
// (cut j). Three facts about the built-in orders make the shortcut exact; steady_test.go checks
// each of them over many shapes:
//
//  1. Inserting K copies of the period before cut j (each moved on once more) at cut j of the
//     order for m' micro-batches gives the order for m' + K·shift micro-batches.
//  2. No op before a cut reads an op after it: the ops before cut j are timed the same whatever
//     follows them.
//  3. An op after cut j reads ops before it (its rank's previous op, its input on a neighbour)
//     only among the last `lookback` periods before the cut: the window of cut j.
//
// So the end times of window j (Z_j) decide everything after cut j, through max and + of costs
// alone, the same map for every steady period. If in a run of m' micro-batches
// Z_j = Z_{j−1} + δ, a run of m = m' + K·shift micro-batches, which has K more such periods
// after cut j, reaches Z_j + K·δ after them and then repeats the rest of the short run K·δ
// later: its Finish is the short run's plus K·δ, its Busy the short run's plus K periods' costs
// (summed in another order, so equal to rounding), and its PeakInFlight the short run's (each
// period starts with as many micro-batches in flight and goes through the same counts). The
// short run itself skips from cut j to its last cut the same way. In floating point
// Z_j − Z_{j−1} is δ only to within a few ulps (η); max-plus maps do not widen a difference
// (|Φ(x) − Φ(y)|∞ ≤ |x − y|∞), so the extrapolated times are within K·η of the ones the K periods
// would have given, and a cut counts as steady only when that is below steadyTol of every result.
// A short run with no steady cut grows until it is the whole run, simulated op by op. GPipe
// (whose forwards and backwards repeat separately), runs too short to gain, and Record (the
// timeline wants every op as simulated) take the full simulation.

// steadyTol bounds the relative error the shortcut may add to any end time: 1e-13, well inside
// the 1e-12 the shortcut is tested to and far below anything a report shows.
const steadyTol = 1e-13

// steadyExtra is the periods a first short run has past the first cut it can check.
const steadyExtra = 2

// periodic is where a schedule's order repeats (see above).
type periodic struct {
	s             model.Schedule
	p, v          int
	shift, period int // micro-batches and ops per rank a period moves on
	lookback      int // periods before a cut that ops after it read
}

// periodicOf is the repetition of schedule s on p ranks with v chunks, or false when its orders
// have none the shortcut uses.
func periodicOf(s model.Schedule, p, v int) (periodic, bool) {
	switch s {
	case model.OneFOneB:
		return periodic{s: s, p: p, v: v, shift: 1, period: 2, lookback: 1}, true
	case model.ZBH1:
		return periodic{s: s, p: p, v: v, shift: 1, period: 3, lookback: 1}, true
	case model.Interleaved:
		return periodic{s: s, p: p, v: v, shift: p, period: 2 * p * v, lookback: 1}, true
	case model.DualPipe, model.DualPipeV:
		// Step 4's two forward–backward pairs (F B W, F B W), each phase one micro-batch on.
		return periodic{s: s, p: p, v: v, shift: 1, period: 6, lookback: 1}, true
	case model.ZBV:
		// orders2025.go: F, B and W of both chunks. The cuts are 3 ops apart from rank to rank
		// while an op reads its neighbour's up to 3p − 2 ops before that rank's cut (the V's turn):
		// (p+1)/2 periods back (TestSteadyCuts).
		return periodic{s: s, p: p, v: v, shift: 1, period: zbvPeriod, lookback: (p + 1) / 2}, true
	}
	return periodic{}, false
}

// fits says whether the order for m micro-batches has the repeating shape: every rank's full
// warm-up (1F1B and ZB-H1: m ≥ p; interleaved: m a multiple of p above p, since at m = p
// Megatron runs every forward first).
func (pr periodic) fits(m int) bool {
	switch pr.s {
	case model.Interleaved:
		return m%pr.p == 0 && m > pr.p
	case model.DualPipe:
		return pr.p%2 == 0 && m%2 == 0 && m >= 2*pr.p
	case model.DualPipeV:
		return m >= 2*pr.p
	case model.ZBV:
		return m > 2*pr.p
	}
	return m >= pr.p
}

// dualSteps is, for DualPipe (n = p/2, hr = min(r, p−1−r)) and DualPipeV (n = p, hr = r), the
// ranks the steps count and rank r's place.
func (pr periodic) dualSteps(r int) (n, hr int) {
	if pr.s == model.DualPipe {
		return pr.p / 2, min(r, pr.p-1-r)
	}
	return pr.p, r
}

// first is the position of rank r's first steady period: after 1F1B's p−r−1 warm-up forwards,
// after ZB-H1's warm-up and the r (F, B) pairs before its first W, after interleaved's warm-up.
func (pr periodic) first(r int) int {
	switch pr.s {
	case model.OneFOneB:
		return pr.p - r - 1
	case model.ZBH1:
		return pr.p - 1 + r
	case model.DualPipe, model.DualPipeV:
		// Steps 1–3 (2(n−hr−1) + 2(hr+1) + 3(n−hr−1) ops) and step 4's first pair of pairs,
		// whose first is not overlapped on the middle ranks.
		n, hr := pr.dualSteps(r)
		return 5*(n-hr-1) + 2*(hr+1) + 6
	case model.ZBV:
		return zbvFirst(pr.p, r)
	}
	return (pr.p-r-1)*2 + (pr.v-1)*pr.p
}

// periods is how many whole steady periods every rank's order for m micro-batches has (rank 0,
// with the longest warm-up, has the fewest).
func (pr periodic) periods(m int) int {
	switch pr.s {
	case model.Interleaved:
		return (m*pr.v - pr.first(0)) / (pr.p * pr.v)
	case model.DualPipe: // step 4 runs m/2 − p + hr + 1 times; rank 0 the fewest
		return m/2 - pr.p
	case model.DualPipeV:
		return m - 2*pr.p
	case model.ZBV:
		return m - 2*pr.p
	}
	return m - pr.p + 1
}

// simulateSteady simulates in a period at a time on a short run of its schedule until a cut's
// window is the previous one's shifted in time, then moves the short run on to its last cut,
// simulates its cool-down and extrapolates to in.Micro micro-batches. A run that reaches its
// last cut unsteady grows fourfold (up to in.Micro) and goes on: the ops run so far begin the
// longer run too (fact 1). False when the schedule has no repetition to use or the run is too
// short to gain from one: then the full simulation is to run. in is validated and has Record off.
func simulateSteady(in *Train) (Result, bool) {
	res, _, ok := steadyRun(in)
	return res, ok
}

// steadyRun is simulateSteady that also says whether it found a steady cut (the tests check
// that it does where it should).
func steadyRun(in *Train) (res Result, jumped, ok bool) {
	pr, ok := periodicOf(in.Schedule, in.Stages, in.Chunks)
	if !ok || !pr.fits(in.Micro) {
		return Result{}, false, false
	}
	// Even stages settle within a period or two, uneven ones can take dozens: start with a few
	// periods past the first cut that can be checked (lookback + 1).
	sh := *in
	sh.Micro = pr.shortMicro(pr.lookback + 1 + steadyExtra)
	if 2*sh.Micro > in.Micro {
		return Result{}, false, false
	}
	order, per, err := sharedOrder(&sh)
	if err != nil {
		return Result{}, false, false
	}
	var e engine
	e.init(&sh, order, per)
	defer e.release()
	whole := pr.periods(in.Micro)
	last := pr.periods(sh.Micro)
	// Stopping at a cut and checking its window cost about as much as simulating the period, so
	// the cuts checked thin out: lookback + 1, then each half as far again as the one before. A
	// steady state is found at most half as late as it sets in.
	for j := pr.lookback + 1; ; j = max(j+1, j+j/2) {
		j = min(j, last)
		for r := range e.limit {
			e.limit[r] = pr.cut(r, j)
		}
		e.pushAll()
		e.run()
		for r, k := range e.pos {
			if k != e.limit[r] { // cannot happen (fact 2); the full simulation will tell
				return Result{}, false, false
			}
		}
		if delta, ok := pr.steady(&e, j, whole-j); ok {
			busy := pr.periodBusy(&e, j)
			pr.jump(&e, j, last, delta, busy)
			res, ok := pr.finish(&e, whole-last, busy, delta)
			return res, true, ok
		}
		if j == last {
			if sh.Micro == in.Micro {
				break
			}
			sh.Micro = min(pr.shortMicro(4*last), in.Micro)
			if order, per, err = sharedOrder(&sh); err != nil {
				return Result{}, false, false
			}
			e.grow(&sh, order, per, chainMicro(in))
			last = pr.periods(sh.Micro)
		}
	}
	// No steady cut: the whole run, simulated op by op.
	res, ok = pr.finish(&e, 0, nil, 0)
	return res, false, ok
}

// shortMicro is the fewest micro-batches (a multiple of shift, with the repeating shape) whose
// order has at least n steady periods.
func (pr periodic) shortMicro(n int) int {
	switch pr.s {
	case model.Interleaved:
		m := 2 * pr.p
		for pr.periods(m) < n {
			m += pr.p
		}
		return m
	case model.DualPipe:
		return 2 * (pr.p + n)
	case model.DualPipeV, model.ZBV:
		return 2*pr.p + n
	}
	return pr.p - 1 + n
}

// cut is where cut j falls on rank r.
func (pr periodic) cut(r, j int) int { return pr.first(r) + j*pr.period }

// finish runs every rank to its end and moves the result on by `more` periods of δ, each rank
// busy for busy[r] more a period.
func (pr periodic) finish(e *engine, more int, busy []float64, delta float64) (Result, bool) {
	for r := range e.limit {
		e.limit[r] = e.per
	}
	e.pushAll()
	e.run()
	res, err := e.result()
	if err != nil { // let the full simulation report it
		return Result{}, false
	}
	if more == 0 {
		return res, true
	}
	K := float64(more)
	shift := K * delta
	res.Makespan = 0
	for r := range res.Finish {
		res.Busy[r] += K * busy[r]
		res.Finish[r] += shift
		res.Makespan = max(res.Makespan, res.Finish[r])
	}
	if math.IsInf(res.Makespan, 0) { // let the full simulation report the overflow
		return Result{}, false
	}
	return res, true
}

// steady says whether window j is window j−1 moved on by one δ (rank 0's last period) closely
// enough that moving on k more periods keeps every end time within steadyTol, and returns δ.
func (pr periodic) steady(e *engine, j, k int) (float64, bool) {
	P, L := pr.period, pr.lookback
	c0 := pr.cut(0, j)
	delta := *e.endOf(e.order[c0-1]) - *e.endOf(e.order[c0-1-P])
	lower := math.Inf(1)
	for r := 0; r < pr.p; r++ {
		lower = min(lower, *e.endOf(e.order[r*e.per+pr.cut(r, j)-1])) // nothing later on r ends before
	}
	// After k periods an end time strays at most k·η from the full run's, which must stay
	// within steadyTol of the earliest of them.
	K := float64(k)
	tol := steadyTol * (lower + K*delta)
	for r := 0; r < pr.p; r++ {
		seq := e.order[r*e.per : (r+1)*e.per]
		c := pr.cut(r, j)
		for i := c - L*P; i < c; i++ {
			if !(K*math.Abs(*e.endOf(seq[i])-*e.endOf(seq[i-P])-delta) <= tol) {
				return 0, false
			}
		}
	}
	return delta, true
}

// jump moves every rank from cut j on to cut `to`: each skipped op ends δ after the same op of
// the period before, and each rank is busy[r] longer a period.
func (pr periodic) jump(e *engine, j, to int, delta float64, busy []float64) {
	for r := 0; r < pr.p; r++ {
		seq := e.order[r*e.per : (r+1)*e.per]
		c, C := pr.cut(r, j), pr.cut(r, to)
		for i := c; i < C; i++ {
			*e.endOf(seq[i]) = *e.endOf(seq[i-pr.period]) + delta
		}
		e.res.Busy[r] += float64(to-j) * busy[r]
		e.pos[r] = C
		if C > 0 {
			e.res.Finish[r] = *e.endOf(seq[C-1])
		}
		// In flight: a period runs as many forwards as backwards, so the count at the cut and
		// the peak stay.
	}
}

// periodBusy is the cost of each rank's period before cut j, summed in order.
func (pr periodic) periodBusy(e *engine, j int) []float64 {
	out := e.scratch
	clear(out)
	costs := [3][]float64{e.cf, e.cb, e.cw}
	for r := range out {
		c := pr.cut(r, j)
		seq := e.order[r*e.per+c-pr.period : r*e.per+c]
		for k := 0; k < len(seq); k++ {
			if seq[k]&fuse != 0 { // a group lies within a period
				g := groupEnd(seq, k)
				if g < 0 {
					g = len(seq)
				}
				out[r] += e.groupCost(seq[k:g])
				k = g - 1
				continue
			}
			out[r] += costs[seq[k].kind()][seq[k].vs()]
		}
	}
	return out
}

// sharedOrder is buildOrder for the steady-state shortcut's runs, kept per shape (schedule, p, v,
// m): an order depends on nothing else, and Search meets the same few shapes again and again.
// The orders are shared and never written (the engine writes only end times). Orders of more
// than orderCacheMax ops are built afresh each time.
func sharedOrder(in *Train) ([]ref, int, error) {
	per := opsPerRank(in)
	if in.Stages*per > orderCacheMax {
		return buildOrder(in)
	}
	k := orderKey{in.Schedule, in.Stages, in.Chunks, in.Micro}
	orderCache.Lock()
	if o, ok := orderCache.m[k]; ok {
		orderCache.Unlock()
		return o, per, nil
	}
	orderCache.Unlock()
	order, per, err := buildOrder(in)
	if err != nil {
		return nil, 0, err
	}
	orderCache.Lock()
	if orderCache.m == nil {
		orderCache.m = make(map[orderKey][]ref)
	}
	if _, ok := orderCache.m[k]; !ok {
		if len(orderCache.keys) == orderCacheSize {
			delete(orderCache.m, orderCache.keys[0])
			orderCache.keys = orderCache.keys[1:]
		}
		orderCache.m[k] = order
		orderCache.keys = append(orderCache.keys, k)
	}
	orderCache.Unlock()
	return order, per, nil
}

type orderKey struct {
	s       model.Schedule
	p, v, m int
}

// orderCacheSize shapes of at most orderCacheMax ops (8 bytes each): 64 × 1 MiB at the most.
const (
	orderCacheSize = 64
	orderCacheMax  = 1 << 17
)

var orderCache struct {
	sync.Mutex
	m    map[orderKey][]ref
	keys []orderKey // oldest first
}
