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
// A short run with no steady cut grows until it is the whole run, simulated op by op.
//
// Uneven stages can take most of a run to settle: ranks with a lead run at their own pace until
// they lock onto a slower one's, one after another (ZB-V at 512 GPUs: rank 0 holds the
// embedding and the head, and ranks 1–7 lock onto it some 29 periods apart, the last one never).
// Between two locks every rank's ops move on linearly, each rank at a pace of its own, and each
// op keeps waiting for the same input until a faster-moving one catches up with it: regime finds
// how many periods that holds and jump skips them (max-plus maps are piecewise linear; this
// follows one linear piece to its end), after which the run goes on op by op. Where one rank
// alone locks, the three periods of its lock run on it alone while the others keep their paces
// (transition), and regime checks only it and its neighbours after them (at 512 GPUs ZB-V
// simulates 1,074 ops where it simulated 1,776). GPipe (whose forwards and backwards repeat
// separately), runs too short to gain, and Record (the timeline wants every op as simulated)
// take the full simulation.

// steadyTol bounds the relative error the shortcut may add to any end time: 1e-13, well inside
// the 1e-12 the shortcut is tested to and far below anything a report shows.
const steadyTol = 1e-13

// steadyExtra is the periods a first short run has past the first cut it can check.
const steadyExtra = 2

// periodic is where a schedule's order repeats (see above).
type periodic struct {
	s             model.Schedule
	p, v          int
	shift, period int   // micro-batches and ops per rank a period moves on
	lookback      int   // periods before a cut that ops after it read
	firsts        []int // first(r) for every rank (periodicOf)
}

// periodicOf is the repetition of schedule s on p ranks with v chunks, or false when its orders
// have none the shortcut uses.
func periodicOf(s model.Schedule, p, v int) (periodic, bool) {
	pr, ok := periodicShape(s, p, v)
	if ok {
		pr.firsts = firstsOf(pr)
	}
	return pr, ok
}

// firstsOf is pr.first(r) for every rank, worked out once per shape and shared (never written).
func firstsOf(pr periodic) []int {
	k := orderKey{s: pr.s, p: pr.p, v: pr.v}
	if f, ok := firstsCache.Load(k); ok {
		return f.([]int)
	}
	f := make([]int, pr.p)
	for r := range f {
		f[r] = pr.first(r)
	}
	firstsCache.Store(k, f)
	return f
}

// firstsCache holds firstsOf's tables by schedule, p and v.
var firstsCache sync.Map

// periodicShape is periodicOf without the first positions.
func periodicShape(s model.Schedule, p, v int) (periodic, bool) {
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

// steadyHow is what steadyRun did (the tests check that it takes its shortcuts where it should).
type steadyHow struct {
	jumped  bool // found a steady cut
	regimes int  // periods skipped at the ranks' own paces (regime)
	// locks run on the locking rank alone (transition), and the ones that went back to every
	// rank (a neighbour held back, or the periods after not linear)
	transitions, fallbacks int
	extended               bool // an order too long to keep grown from the shorter one (extend)
}

// steadyRun is simulateSteady that also says which shortcuts it took.
func steadyRun(in *Train) (res Result, how steadyHow, ok bool) {
	pr, ok := periodicOf(in.Schedule, in.Stages, in.Chunks)
	if !ok || !pr.fits(in.Micro) {
		return Result{}, how, false
	}
	// Even stages settle within a period or two, uneven ones can take dozens: start with a few
	// periods past the first cut that can be checked (lookback + 1).
	sh := *in
	sh.Micro = pr.shortMicro(pr.lookback + 1 + steadyExtra)
	if 2*sh.Micro > in.Micro {
		return Result{}, how, false
	}
	co, per, err := sharedOrder(&sh)
	if err != nil {
		return Result{}, how, false
	}
	var e engine
	e.init(&sh, co.order, per, false)
	e.useCompiled(co)
	defer e.release()
	whole := pr.periods(in.Micro)
	last := pr.periods(sh.Micro)
	// Stopping at a cut and checking its window cost about as much as simulating the period, so
	// the cuts checked thin out: the second (the first regime can check; ZB-V's first steady
	// window lies lookback + 1 on, and its regime, found at the second, saves the periods
	// between), then each half as far again as the one before. A
	// steady state is found at most half as late as it sets in. Where each rank keeps a pace of
	// its own (regime), the cuts are checked one after another (three periods on after a jump)
	// until a few checks in a row fail.
	// The periods before `exact` may hold ops a regime jump left unwritten. Every period costs
	// each rank the same (busy, summed once).
	eager, exact := 0, 0
	var busy []float64
	// After a regime jump to cut lockAt that stopped where one rank's input catches up (lock,
	// −1: none), the three periods after it run on that rank alone (transition).
	lock, lockAt := -1, 0
	for j := min(pr.lookback+1, 2); ; {
		j = min(j, last)
		who := -1 // the rank transition ran alone, every rank at cut j when −1
		if lock >= 0 && j == lockAt+3 && pr.transition(&e, lockAt, lock, busy) {
			who = lock
			how.transitions++
		} else {
			if lock >= 0 && j == lockAt+3 {
				how.fallbacks++
			}
			if !pr.runTo(&e, j) {
				return Result{}, how, false
			}
		}
		lock = -1
		if who < 0 {
			if delta, ok := pr.steady(&e, j, whole-j, exact); ok {
				if busy == nil {
					busy = pr.periodBusy(&e, j)
				}
				for r := range e.deltas {
					e.deltas[r] = delta
				}
				pr.jump(&e, last, pr.lookback+1, busy)
				res, ok := pr.finish(&e, whole-last, busy, delta)
				how.jumped = true
				return res, how, ok
			}
		}
		step := max(1, j/2)
		if who >= 0 && j == last {
			step = 0 // the others to cut j by the loop's next run (then it ends)
		}
		if j >= 2 && j < last {
			k, ok := pr.regime(&e, j, whole-j, who)
			if !ok && who >= 0 {
				// Not linear after the lock: every rank to cut j, checked as any cut.
				how.fallbacks++
				if !pr.runTo(&e, j) {
					return Result{}, how, false
				}
				k, ok = pr.regime(&e, j, whole-j, -1)
			}
			if ok {
				if k > last-j && sh.Micro < in.Micro {
					// The paces hold past the short run's end: go on with the whole run (the
					// short run's settling would take as long).
					if co, per, err = pr.grownOrder(co, per, &sh, in.Micro, &how); err != nil {
						return Result{}, how, false
					}
					e.grow(&sh, co.order, per, chainMicro(in))
					e.useCompiled(co)
					last = pr.periods(sh.Micro)
				}
				if k = min(k, last-j); k > 0 {
					keep := 2
					if j+k == last {
						keep = pr.lookback + 1
					}
					if busy == nil {
						busy = pr.periodBusy(&e, j)
					}
					pr.jump(&e, j+k, keep, busy)
					exact = max(exact, j+k-keep)
					j += k
					how.regimes += k
					if j+3 <= last {
						lock, lockAt = pr.lockOf(&e, j), j
					}
				}
				eager = regimeEager
			}
			if eager > 0 {
				eager--
				step = 1
				if ok && k > 0 {
					// An input caught up in the period after the jump: that period is not the
					// one before moved on, and a rank locking onto another's pace takes two,
					// the check a third.
					step = 3
				}
			}
		}
		if j == last {
			if sh.Micro == in.Micro {
				break
			}
			if co, per, err = pr.grownOrder(co, per, &sh, min(pr.shortMicro(4*last), in.Micro), &how); err != nil {
				return Result{}, how, false
			}
			e.grow(&sh, co.order, per, chainMicro(in))
			e.useCompiled(co)
			last = pr.periods(sh.Micro)
		}
		j += step
	}
	// No steady cut: the whole run, simulated op by op.
	res, ok = pr.finish(&e, 0, nil, 0)
	return res, how, ok
}

// runTo runs every rank to cut j; false where one could not get there (cannot happen: fact 2;
// the full simulation will tell).
func (pr periodic) runTo(e *engine, j int) bool {
	for r := range e.limit {
		e.limit[r] = pr.cut(r, j)
	}
	e.pushAll()
	e.runFast()
	for r, k := range e.pos {
		if k != e.limit[r] {
			return false
		}
		e.at[r] = j
	}
	return true
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
func (pr periodic) cut(r, j int) int { return pr.firsts[r] + j*pr.period }

// finish runs every rank to its end and moves the result on by `more` periods of δ, each rank
// busy for busy[r] more a period.
func (pr periodic) finish(e *engine, more int, busy []float64, delta float64) (Result, bool) {
	for r := range e.limit {
		e.limit[r] = e.per
	}
	e.pushAll()
	e.runFast()
	res, err := e.resultFast()
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
// enough that moving on k more periods keeps every end time within steadyTol, and returns δ;
// false where they reach before period `exact` (a regime jump may have left those unwritten).
func (pr periodic) steady(e *engine, j, k, exact int) (float64, bool) {
	P, L, end := pr.period, pr.lookback, e.end
	if j-L-1 < exact { // the window and the period before it are not all written
		return 0, false
	}
	stride := int32(3 * e.nvs * pr.shift) // a period on, an op's end time lies this far on in end
	b0 := e.ops[pr.cut(0, j)-1].slot
	delta := end[b0] - end[b0-stride]
	lower := math.Inf(1)
	for r := 0; r < pr.p; r++ {
		lower = min(lower, end[e.ops[r*e.per+pr.cut(r, j)-1].slot]) // nothing later on r ends before
	}
	// After k periods an end time strays at most k·η from the full run's, which must stay
	// within steadyTol of the earliest of them.
	K := float64(k)
	tol := steadyTol * (lower + K*delta)
	for r := 1; r < pr.p; r++ { // each rank's last op first: a rank at a pace of its own fails fast
		b := e.ops[r*e.per+pr.cut(r, j)-1].slot
		if !(K*math.Abs(end[b]-end[b-stride]-delta) <= tol) {
			return 0, false
		}
	}
	for r := 0; r < pr.p; r++ {
		c := r*e.per + pr.cut(r, j)
		for i := c - L*P; i < c; i++ { // by index: ranging would copy each op
			b := e.ops[i].slot
			if !(K*math.Abs(end[b]-end[b-stride]-delta) <= tol) {
				return 0, false
			}
		}
	}
	return delta, true
}

// jump moves every rank from the cut it is at (e.at) on to cut `to`: each skipped op ends
// e.deltas[r] (its rank's pace) after the same op of the period before, and each rank is busy[r]
// longer a period. Only the last `keep` periods before cut `to` are written: lookback + 1 where
// the cool-down follows (fact 3), else 2, which the steady periods after the cut and regime read
// (a steady period reads one period back, TestSteadyReach; steadyRun checks a window of
// lookback + 1 periods only once that many lie after the periods left unwritten). The compiled
// loop trusts the orders for an op's own forward or backward before it (runFast), so the ops
// skipped before them keep their −1.
func (pr periodic) jump(e *engine, to, keep int, busy []float64) {
	for r := 0; r < pr.p; r++ {
		pr.jumpRank(e, r, to, keep, busy)
	}
}

// jumpRank is jump for rank r alone, from the cut it is at (e.at[r]).
func (pr periodic) jumpRank(e *engine, r, to, keep int, busy []float64) {
	P, j, first := pr.period, e.at[r], pr.firsts[r]
	from := max(j, to-keep)
	stride := 3 * e.nvs * pr.shift // a period on, an op's end time lies this far on in e.end
	c := r*e.per + first + j*P     // cut j in e.ops
	end, delta := e.end, e.deltas[r]
	// Each op q periods after its base (the period before cut j) ends q·δ after it: one
	// rounding, where adding δ period after period would round q times (and the ops of a
	// period differently, which the next check would see).
	base := 0.0
	for i := c - P; i < c; i++ {
		b := int(e.ops[i].slot)
		base = end[b]
		for q := from - j + 1; q <= to-j; q++ {
			end[b+q*stride] = base + float64(q)*delta
		}
	}
	e.res.Busy[r] += float64(to-j) * busy[r]
	e.pos[r], e.at[r] = first+to*P, to
	if P > 0 && to > j { // its last op: the period's last moved on, as written above
		e.res.Finish[r] = base + float64(to-j)*delta
	}
	// In flight: a period runs as many forwards as backwards, so the count at the cut and the
	// peak stay.
}

// transition runs the three periods after cut J (every rank there, after a regime jump that
// stopped where an input of rank who catches up, in period J, and no other rank's in the three)
// on rank who alone. Its neighbours and theirs move on at their paces as a jump moves them (who's
// ops read its neighbours', theirs read theirs', which regime reads next), the other ranks stay at
// cut J. That is the full simulation's run unless who's ops, now later, hold back a neighbour's
// op that reads one: checked on each (within regime's eps); false, with every rank back at cut
// J, where one does (the caller then simulates every rank). Rings of at least three ranks (on
// fewer a neighbour's neighbour is who; on three or four some of the four are the same rank,
// moved on once).
func (pr periodic) transition(e *engine, J, who int, busy []float64) bool {
	p := pr.p
	if p < 3 || busy == nil || e.at[who] != J {
		return false
	}
	near := [4]int{(who + 1) % p, (who + p - 1) % p, (who + 2) % p, (who + p - 2) % p}
	var busy0, fin0 [5]float64
	for i, r := range near {
		if e.at[r] != J {
			return false
		}
		busy0[i], fin0[i] = e.res.Busy[r], e.res.Finish[r]
	}
	busy0[4], fin0[4] = e.res.Busy[who], e.res.Finish[who]
	back := func() bool {
		for i, r := range near {
			e.pos[r], e.at[r], e.res.Busy[r], e.res.Finish[r] = pr.cut(r, J), J, busy0[i], fin0[i]
		}
		e.pos[who], e.res.Busy[who], e.res.Finish[who] = pr.cut(who, J), busy0[4], fin0[4]
		return false
	}
	for _, r := range near {
		pr.jumpRank(e, r, J+3, 3, busy)
	}
	for r := range p {
		e.limit[r] = e.pos[r]
	}
	e.limit[who] = pr.cut(who, J+3)
	e.push(who)
	e.runFast()
	if e.pos[who] != e.limit[who] {
		return back()
	}
	eps := paceEps(e.deltas)
	end, send3, cost3 := e.end, e.send3, e.cost3
	for _, r := range near[:2] {
		seq := e.ops[r*e.per : (r+1)*e.per]
		for i := pr.cut(r, J); i < pr.cut(r, J+3); i++ {
			if x := &seq[i]; x.inPos >= 0 && int(x.inRank) == who && end[x.in]+send3[x.cost] > end[x.slot]-cost3[x.cost]+eps {
				return back()
			}
		}
	}
	e.at[who] = J + 3
	if transitionSeen != nil {
		transitionSeen(e, J, who)
	}
	return true
}

// transitionSeen, when set (a test), is shown each transition that ran: the engine after it, the
// cut it started at and its rank.
var transitionSeen func(e *engine, J, who int)

// lockOf is the rank whose input catches up in period J, right after a regime jump to cut J, when
// it is the only one and no other rank's does in the two periods after (transition); −1 if none.
func (pr periodic) lockOf(e *engine, J int) int {
	who := -1
	for r, c := range e.catchAt {
		switch {
		case c == J && who < 0:
			who = r
		case c < J+3:
			return -1
		}
	}
	return who
}

// regimeEager is how many cuts in a row are checked after a regime (each rank at a pace of its
// own) was found: a rank locking onto another's pace takes a period or two.
const regimeEager = 4

// regime looks for the periods after cut j (every rank there, j ≥ 2, k periods left in the whole
// run) that move on linearly, each rank at a pace of its own. Where the stages are uneven, ranks
// with a lead run at their own pace (their ops back to back) until the lead is used up and they
// lock onto a slower neighbour's, one after another: a long run can take most of its periods to
// settle into one pace, and until then the steady check fails.
//
// The period before cut j (period j−1) moves on linearly when it is the period before it moved on
// by one δ_r on each rank r (the deltas, into e.deltas) and each of its ops waited for an input
// that moves on at its own rank's pace. Steady ops read nothing more than a period before their
// input's cut (TestSteadyReach): then every input of the next periods moves on linearly too, and
// the inputs that held the ops back keep holding them back until an input that moves on faster
// catches up with one (then the simulation goes on op by op). An op's start is the max of its
// inputs: while each op's latest input stays its latest, the period q periods on is the period
// j−1 moved on by q·δ_r, exactly but for rounding. regime returns how many periods after cut j
// that holds (at least 0, at most k); false when period j−1 did not move on linearly. Paces and
// shifts closer than steadyTol of the slowest pace count as equal (see eps below). Each rank's
// first period that an input catches up in goes into e.catchAt (j + k where none does).
//
// With who ≥ 0 (after transition: rank who and its neighbours at cut j, the others where the
// last jump left them), only who's pace is measured and only who and its neighbours are checked
// (the others' inputs did not change, and neither did their paces or catching up).
func (pr periodic) regime(e *engine, j, k, who int) (int, bool) {
	if pr.s == model.DualPipe || pr.s == model.DualPipeV {
		// They settle into one pace within a few periods: a regime that followed their pairs
		// found no periods to skip in TestRegimeMatchesFull's runs nor in 600 more with one
		// rank slower by up to 2%. The steady check's.
		return 0, false
	}
	p, end := pr.p, e.end
	stride := int32(3 * e.nvs * pr.shift) // a period on, an op's end time lies this far on in end
	d := e.deltas
	lo, hi := 0, p-1 // the ranks measured
	if who >= 0 {
		lo, hi = who, who
	}
	for r := lo; r <= hi; r++ {
		b := e.ops[r*e.per+pr.cut(r, j)-1].slot
		d[r] = end[b] - end[b-stride]
	}
	eps := paceEps(d)
	// Ranks at one pace (one locked onto another's) move on by one δ: measured on each rank's
	// last op, their δ differ by a few ulps, which would take them apart over the periods
	// skipped.
	for r := lo; r <= hi; r++ {
		for s := 0; s < p; s++ {
			if s == r || who < 0 && s > r {
				continue
			}
			if math.Abs(d[r]-d[s]) <= eps {
				d[r] = d[s]
				break
			}
		}
	}
	if who < 0 {
		for r := 0; r < p; r++ {
			if !pr.regimeRank(e, r, j, k, eps) {
				return 0, false
			}
		}
	} else {
		for _, r := range [3]int{(who + p - 1) % p, who, (who + 1) % p} {
			if !pr.regimeRank(e, r, j, k, eps) {
				return 0, false
			}
		}
	}
	most := k
	for _, c := range e.catchAt {
		most = min(most, c-j)
	}
	return max(most, 0), true
}

// paceEps is the tolerance regime and transition compare paces, shifts and catching up within,
// per period: steadyTol of the slowest pace d. The periods skipped stray at most eps each, and
// every rank's time moves on by at least the slowest pace a period, so however many jumps a run
// takes, what they add up to stays within steadyTol of the end times after them (and the final
// steady jump adds as much again at the most).
func paceEps(d []float64) float64 {
	dmin := math.Inf(1)
	for _, x := range d {
		dmin = min(dmin, x)
	}
	return steadyTol * dmin
}

// regimeRank is regime's check of rank r's period before cut j (its pace in e.deltas), and its
// first period an input catches up in (e.catchAt[r]); false where the period did not move on
// linearly.
func (pr periodic) regimeRank(e *engine, r, j, k int, eps float64) bool {
	P, end, send3, d := pr.period, e.end, e.send3, e.deltas
	stride := int32(3 * e.nvs * pr.shift)
	// Each op of period j−1 (or group) must be the op a period before moved on by its rank's δ,
	// and wait for an input (its rank free, or its input from another position) that moves on
	// at that pace; the inputs moving on faster catch up after `most` periods. The compiled
	// order (fast.go) says where each op's input lies and on which rank.
	most := k
	seq := e.ops[r*e.per : (r+1)*e.per]
	c := pr.cut(r, j)
	dr := d[r]
	free := end[seq[c-P-1].slot] // when the rank is free for the next op
	for i := c - P; i < c; i++ {
		x := &seq[i]
		if x.glen != 1 {
			return false // a group: DualPipe's pairs (regime)
		}
		// One op: its rank free or its input held it back.
		b := x.slot
		if !(math.Abs(end[b]-end[b-stride]-dr) <= eps) {
			return false
		}
		if x.inPos < 0 {
			free = end[b]
			continue
		}
		at1, pace1 := end[x.in]+send3[x.cost], dr
		if x.inRank >= 0 {
			pace1 = d[x.inRank]
		}
		atB, paceB, atO, paceO := free, dr, at1, pace1
		if at1 > free || at1 == free && pace1 > dr {
			atB, paceB, atO, paceO = at1, pace1, free, dr
		}
		if !(math.Abs(paceB-dr) <= eps) {
			return false
		}
		if rate := paceO - paceB; rate > eps {
			// The other catches up after (atB − atO) / rate periods.
			if q := (atB - atO) / rate; q < float64(most) {
				most = int(q)
			}
		}
		free = end[b]
	}
	e.catchAt[r] = j + most
	return true
}

// periodBusy is the cost of each rank's period before cut j, summed in order: the same for every
// steady period (the same ops, each a micro-batch on).
func (pr periodic) periodBusy(e *engine, j int) []float64 {
	out := e.scratch
	clear(out)
	for r := range out {
		c := r*e.per + pr.cut(r, j)
		seq := e.ops[c-pr.period : c]
		for k := 0; k < len(seq); {
			x := &seq[k]
			if x.glen <= 1 {
				out[r] += e.cost3[x.cost]
				k++
				continue
			}
			g := min(k+int(x.glen), len(seq)) // a group lies within a period
			out[r] += e.groupCost3(seq[k:g])
			k = g
		}
	}
	return out
}

// groupCost3 is groupCost of a compiled group.
func (e *engine) groupCost3(g []cop) float64 {
	sum, comm := 0.0, 0.0
	for _, y := range g {
		sum += e.cost3[y.cost]
		if e.cov3 != nil {
			comm += e.cov3[y.cost] // a W's is 0
		}
	}
	if g[0].paired {
		return max(sum-comm, comm)
	}
	return sum
}

// sharedOrder is buildOrder for the steady-state shortcut's runs, kept per shape (schedule, p, v,
// m): an order depends on nothing else, and Search meets the same few shapes again and again.
// The orders are shared and never written (the engine writes only end times). Orders of more
// than orderCacheMax ops are built afresh each time.
func sharedOrder(in *Train) (compiled, int, error) {
	per := opsPerRank(in)
	if in.Stages*per > orderCacheMax {
		order, per, err := buildOrder(in)
		if err != nil {
			return compiled{}, 0, err
		}
		return compile(in, order, per), per, nil
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
		return compiled{}, 0, err
	}
	o := compile(in, order, per)
	orderCache.Lock()
	if orderCache.m == nil {
		orderCache.m = make(map[orderKey]compiled)
	}
	if _, ok := orderCache.m[k]; !ok {
		if len(orderCache.keys) == orderCacheSize {
			delete(orderCache.m, orderCache.keys[0])
			orderCache.keys = orderCache.keys[1:]
		}
		orderCache.m[k] = o
		orderCache.keys = append(orderCache.keys, k)
	}
	orderCache.Unlock()
	return o, per, nil
}

// grownOrder sets sh.Micro to m and returns its order compiled: the shared one (sharedOrder), or
// where it is too long to keep, co's (the order for the micro-batches sh had, per ops a rank)
// with the periods between them inserted at its last cut (extend), which is the same order
// (fact 1) without building and compiling every op again.
func (pr periodic) grownOrder(co compiled, per int, sh *Train, m int, how *steadyHow) (compiled, int, error) {
	short := *sh
	sh.Micro = m
	if sh.Stages*opsPerRank(sh) <= orderCacheMax {
		return sharedOrder(sh)
	}
	last := pr.periods(short.Micro)
	K := pr.periods(m) - last
	if K < 0 || chainMicro(&short)+K*pr.shift != chainMicro(sh) || per+K*pr.period != opsPerRank(sh) {
		return sharedOrder(sh)
	}
	how.extended = true
	return pr.extend(co, per, last, K, sh.Stages*sh.Chunks), per + K*pr.period, nil
}

// extend is the compiled order co (per ops a rank, nvs virtual stages) with K periods inserted
// at its last cut: on each rank the ops before the cut as they are, K copies of the period
// before it each moved on one period more, then the rest moved on K periods. An op moved on q
// periods is the same op q·shift micro-batches on: its end time and its input's lie q·stride on
// in the end times, its input's position q periods on in its rank's order (an op after a cut
// reads only ops of the periods just before it, fact 3, which move on with it).
func (pr periodic) extend(co compiled, per, last, K, nvs int) compiled {
	P, p := pr.period, pr.p
	stride := 3 * nvs * pr.shift
	n := per + K*P
	ops := make([]cop, p*n)
	order := make([]ref, p*n)
	// move moves the ops of dst (and their refs, the micro-batch in the low bits) on q periods.
	move := func(dst []cop, dstO []ref, q int) {
		ds, dp := int32(q*stride), int32(q*P)
		for i := range dst {
			x := &dst[i]
			x.slot += ds
			if x.inPos >= 0 {
				x.in += ds
				x.inPos += dp
			}
		}
		dm := ref(q * pr.shift)
		for i := range dstO {
			dstO[i] += dm
		}
	}
	for r := range p {
		src, srcO := co.ops[r*per:(r+1)*per], co.order[r*per:(r+1)*per]
		dst, dstO := ops[r*n:(r+1)*n], order[r*n:(r+1)*n]
		c := pr.cut(r, last)
		copy(dst, src[:c])
		copy(dstO, srcO[:c])
		for q := 1; q <= K; q++ {
			at := c + (q-1)*P
			copy(dst[at:at+P], src[c-P:c])
			copy(dstO[at:at+P], srcO[c-P:c])
			move(dst[at:at+P], dstO[at:at+P], q)
		}
		copy(dst[c+K*P:], src[c:])
		copy(dstO[c+K*P:], srcO[c:])
		move(dst[c+K*P:], dstO[c+K*P:], K)
	}
	// Each period goes through the same counts of forwards in flight: the peaks stay.
	return compiled{order, ops, co.peaks}
}

// compiled is an order, its compiled form and each rank's most forwards in flight.
type compiled struct {
	order []ref
	ops   []cop
	peaks []int
}

type orderKey struct {
	s       model.Schedule
	p, v, m int
}

// orderCacheSize shapes of at most orderCacheMax ops (8 bytes each, 20 compiled): 64 × 3.5 MiB at
// the most.
const (
	orderCacheSize = 64
	orderCacheMax  = 1 << 17
)

var orderCache struct {
	sync.Mutex
	m    map[orderKey]compiled
	keys []orderKey // oldest first
}
