package schedule

import (
	"math"
	"math/rand"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestSteadyReach: an op of a steady period after the first (j ≥ 1) reads nothing more than one
// period before its input's rank's cut j, which regime's reasoning needs: the period before a
// cut and the one before it decide the next periods.
func TestSteadyReach(t *testing.T) {
	for _, s := range periodicSchedules() {
		for p := 1; p <= 9; p++ {
			for _, v := range chunkRange(s) {
				pr, _ := periodicOf(s, p, v)
				for m := 1; m <= 5*p+3; m++ {
					if !pr.fits(m) {
						continue
					}
					order, per := orderFor(t, s, p, v, m)
					nvs := p * v
					units := nvs * m / microStep(s)
					pos := opPositions(order, per, p, nvs, units)
					for j := 1; j < pr.periods(m); j++ {
						for r := range p {
							for i := pr.cut(r, j); i < pr.cut(r, j+1); i++ {
								dep, dr := depOf(s, p, nvs, units, order[r*per+i])
								if dep >= 0 && pos[dep] < pr.cut(dr, j)-pr.period {
									t.Fatalf("%v p=%d v=%d m=%d period %d: rank %d op %d reads op %d of rank %d, %d ops before its cut", s, p, v, m, j, r, i, pos[dep], dr, pr.cut(dr, j)-pos[dep])
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestOrdersOwnFirst: every rank's order runs an op's own forward before its backward and its
// backward before its W, which the steady-state shortcut's loop trusts (runFast).
func TestOrdersOwnFirst(t *testing.T) {
	for _, s := range model.Schedules() {
		for p := 1; p <= 9; p++ {
			for _, v := range chunkRange(s) {
				for m := 1; m <= 4*p+6; m++ {
					in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m}
					if s == model.Interleaved && m%p != 0 || checkShape2025(s, p, m) != nil {
						continue
					}
					order, per, err := buildOrder(&in)
					if err != nil {
						t.Fatal(err)
					}
					nvs := p * v
					done := make(map[ref]bool)
					for r := range p {
						for i, x := range order[r*per : (r+1)*per] {
							x &^= fuse
							if k := x.kind(); k != F && !done[mkref(k-1, x.vs(), x.micro())] && (k == B || splitW(s)) {
								t.Fatalf("%v p=%d v=%d m=%d: rank %d runs %v of virtual stage %d micro-batch %d (op %d) before its %v", s, p, v, m, r, k, x.vs(), x.micro(), i, k-1)
							}
							if x.vs() >= nvs {
								t.Fatalf("%v: virtual stage %d", s, x.vs())
							}
							done[x] = true
						}
					}
				}
			}
		}
	}
}

// oneSlowTrain is a step whose ranks are even but for one, slower by a little: ranks ahead of
// it run at their own pace and lock onto its pace one after another, a long transient the
// steady check alone does not get past (costmodel's 512-GPU case: rank 0 holds the embedding and
// the head).
func oneSlowTrain(rng *rand.Rand, s model.Schedule, p, v, m int) Train {
	in := randomTrain(rng, s, p, v, m, 0, 0)
	slow := rng.Intn(p)
	more := 1 + 0.001 + 0.05*rng.Float64()
	for c := range v {
		i := c*p + slow
		if twoChunk(s) {
			i = CostIndex(s, p, rng.Intn(2*p))
		}
		in.F[i] *= more
		in.B[i] *= more
		if in.W != nil {
			in.W[i] *= more
		}
	}
	p2p := 0.01 * rng.Float64()
	for i := range in.P2P {
		in.P2P[i] = p2p
		if rng.Intn(4) == 0 {
			in.P2P[i] = p2p * rng.Float64()
		}
	}
	return in
}

// shortcutAndFull is in run by the steady-state shortcut (got, how) and in full (want); false
// where in is invalid or the shortcut does not take it.
func shortcutAndFull(t *testing.T, in *Train) (got, want Result, how steadyHow, ok bool) {
	t.Helper()
	if validateTrain(in) != nil {
		return got, want, how, false
	}
	want, err := simulateFull(in)
	if err != nil {
		t.Fatal(err)
	}
	got, how, ok = steadyRun(in)
	return got, want, how, ok
}

// TestRegimeMatchesFull compares the shortcut with the full simulation on steps with one slow
// rank (and with uneven stages), where it skips the periods while ranks keep paces of their
// own, and checks that it does skip there.
func TestRegimeMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	skipped, periods, locks := map[model.Schedule]int{}, map[model.Schedule]int{}, map[model.Schedule]int{}
	for _, s := range periodicSchedules() {
		for _, p := range []int{2, 3, 4, 6, 8, 12, 16} {
			for _, v := range chunkRange(s) {
				for _, m := range []int{8 * p, 96, 192, 384} {
					if s == model.Interleaved && m%p != 0 {
						continue
					}
					for trial := range 3 {
						in := oneSlowTrain(rng, s, p, v, m)
						if trial == 2 {
							in = randomTrain(rng, s, p, v, m, 0.02, 0.01)
						}
						got, want, how, ok := shortcutAndFull(t, &in)
						if !ok {
							continue
						}
						if d := sameResult(got, want, 1e-12); d != "" {
							t.Fatalf("%v p=%d v=%d m=%d trial %d: %s", s, p, v, m, trial, d)
						}
						pr, _ := periodicOf(s, p, v)
						skipped[s] += how.regimes
						periods[s] += pr.periods(m)
						locks[s] += how.transitions
					}
				}
			}
		}
	}
	for _, s := range periodicSchedules() {
		t.Logf("%v: %d of %d periods skipped at the ranks' own paces, %d locks run on their rank alone", s, skipped[s], periods[s], locks[s])
	}
	// The schedules whose ranks lock onto a slow one slowly (the steady check alone simulates
	// most of their periods) skip a good part of them.
	for _, s := range []model.Schedule{model.ZBV, model.ZBH1} {
		if skipped[s] < periods[s]/5 {
			t.Errorf("%v: %d of %d periods skipped at the ranks' own paces", s, skipped[s], periods[s])
		}
		if locks[s] == 0 {
			t.Errorf("%v: no lock run on its rank alone (transition)", s)
		}
	}
}

// TestRegime512GPU: costmodel's 512-GPU ZB-V step (gpt3-175b, 192 micro-batches) skips most of
// its periods at the ranks' own paces, which the steady check alone did not (it settled only in
// its last periods); ZB-H1, which settles half way, a part of them.
func TestRegime512GPU(t *testing.T) {
	for s, most := range map[model.Schedule]float64{model.ZBV: 0.75, model.ZBH1: 0.25} {
		in := gpt3Train(t, s)
		want, err := simulateFull(&in)
		if err != nil {
			t.Fatal(err)
		}
		got, how, ok := steadyRun(&in)
		if !ok {
			t.Fatalf("%v: no shortcut", s)
		}
		if d := sameResult(got, want, 1e-12); d != "" {
			t.Fatalf("%v: %s", s, d)
		}
		pr, _ := periodicOf(s, in.Stages, in.Chunks)
		if whole := pr.periods(in.Micro); float64(how.regimes) < most*float64(whole) {
			t.Errorf("%v: %d of %d periods skipped at the ranks' own paces", s, how.regimes, whole)
		}
		// Each rank's lock onto rank 0's pace is run on that rank alone (transition).
		if how.transitions < 5 {
			t.Errorf("%v: %d locks run on their rank alone", s, how.transitions)
		}
	}
}

// TestRunFastSameAsRun: the compiled loop (runFast) times every op as the engine's loop does, to
// the bit, on whole runs of every schedule with uneven costs, sends and overlaps.
func TestRunFastSameAsRun(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, s := range model.Schedules() {
		for _, p := range []int{1, 2, 3, 4, 8} {
			for _, v := range chunkRange(s) {
				for _, m := range []int{p, 2 * p, 4*p + 2, 24} {
					in := randomTrain(rng, s, p, v, m, 0.3, 0.05)
					if twoChunk(s) && rng.Intn(2) == 0 {
						in.Overlap = make([]float64, p*v)
						for i := range in.Overlap {
							in.Overlap[i] = min(in.F[i], in.B[i]) * rng.Float64()
						}
					}
					if validateTrain(&in) != nil {
						continue
					}
					want, err := simulateFull(&in)
					if err != nil {
						t.Fatal(err)
					}
					co, per, err := sharedOrder(&in)
					if err != nil {
						t.Fatal(err)
					}
					var e engine
					e.init(&in, co.order, per, false)
					e.useCompiled(co)
					e.runFast()
					got, err := e.resultFast()
					e.release()
					if err != nil {
						t.Fatalf("%v p=%d m=%d: %v", s, p, m, err)
					}
					if d := sameResult(got, want, 0); d != "" {
						t.Fatalf("%v p=%d v=%d m=%d: %s", s, p, v, m, d)
					}
				}
			}
		}
	}
}

// TestRegimeRandom compares the shortcut with the full simulation on random shapes of every
// schedule it takes: one slow rank, slightly uneven stages, and one slow rank with costs on a
// coarse binary grid (sums exact, ties between inputs common), free sends a quarter of the time.
func TestRegimeRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	skipped, locks, runs, worst := 0, 0, 0, 0.0
	for trial := 0; trial < 800; trial++ {
		s := periodicSchedules()[rng.Intn(6)]
		p := 2 + rng.Intn(15)
		v := chunkRange(s)[rng.Intn(len(chunkRange(s)))]
		m := 2*p + rng.Intn(400)
		if s == model.Interleaved {
			m = p * (1 + m/p)
		}
		var in Train
		switch rng.Intn(3) {
		case 0:
			in = oneSlowTrain(rng, s, p, v, m)
		case 1:
			in = randomTrain(rng, s, p, v, m, 0.05*rng.Float64(), 0.02*rng.Float64())
		default:
			in = oneSlowTrain(rng, s, p, v, m)
			for _, xs := range [][]float64{in.F, in.B, in.W, in.P2P} {
				for i := range xs {
					xs[i] = math.Round(xs[i]*64) / 64
				}
			}
		}
		if rng.Intn(4) == 0 {
			in.P2P = nil
		}
		got, want, how, ok := shortcutAndFull(t, &in)
		if !ok {
			continue
		}
		runs++
		skipped += how.regimes
		locks += how.transitions
		e := relErr(got.Makespan, want.Makespan)
		for r := range want.Busy {
			e = max(e, relErr(got.Busy[r], want.Busy[r]), relErr(got.Finish[r], want.Finish[r]))
			if got.PeakInFlight[r] != want.PeakInFlight[r] {
				t.Fatalf("%v p=%d v=%d m=%d: rank %d holds %d in flight, full %d", s, p, v, m, r, got.PeakInFlight[r], want.PeakInFlight[r])
			}
		}
		worst = max(worst, e)
		if e > 1e-12 {
			t.Fatalf("%v p=%d v=%d m=%d: relative error %g", s, p, v, m, e)
		}
	}
	t.Logf("%d runs, %d periods skipped by regime, %d locks run on their rank alone, worst relative error %g", runs, skipped, locks, worst)
	if skipped == 0 || locks == 0 {
		t.Errorf("regime skipped %d periods, transition ran %d locks", skipped, locks)
	}
}

// TestTransitionRandom compares the shortcut with the full simulation where every rank has a
// pace of its own (each stage's costs scaled by up to 2%): ranks lock onto others' paces one
// after another, some run on their rank alone (transition) and some, where a neighbour already
// follows the locking rank, back on every rank (fallbacks). Both kinds must happen. Each
// transition's end times (the rank it ran and the four it moved on, its three periods) are the
// full simulation's: a later lock can hide a wrong one from the results.
func TestTransitionRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	locks, backs, declined, seen := 0, 0, 0, 0
	var full []float64 // the full simulation's end times of the run under test
	var pr periodic
	transitionSeen = func(e *engine, J, who int) {
		p := pr.p
		for _, r := range [5]int{who, (who + 1) % p, (who + p - 1) % p, (who + 2) % p, (who + p - 2) % p} {
			for i := pr.cut(r, J); i < pr.cut(r, J+3); i++ {
				b := e.ops[r*e.per+i].slot
				if relErr(e.end[b], full[b]) > 1e-12 {
					t.Errorf("p=%d lock of rank %d at cut %d: rank %d op %d ends %.17g, full %.17g", p, who, J, r, i, e.end[b], full[b])
					return
				}
			}
		}
		seen++
	}
	defer func() { transitionSeen = nil }()
	for range 600 {
		s := []model.Schedule{model.ZBV, model.ZBH1, model.Interleaved}[rng.Intn(3)]
		p := 3 + rng.Intn(10)
		v := chunkRange(s)[rng.Intn(len(chunkRange(s)))]
		m := 4*p + rng.Intn(200)
		if s == model.Interleaved {
			m = p * (1 + m/p)
		}
		in := randomTrain(rng, s, p, v, m, 0, 0)
		pace := make([]float64, p)
		for r := range pace {
			pace[r] = 1 + 0.02*rng.Float64()
		}
		for i := range in.F {
			f := pace[i%p]
			in.F[i] *= f
			in.B[i] *= f
			if in.W != nil {
				in.W[i] *= f
			}
		}
		if validateTrain(&in) != nil {
			continue
		}
		order, per, err := buildOrder(&in)
		if err != nil {
			t.Fatal(err)
		}
		var f engine
		rec := in
		rec.Record = true // end times of its own, not the pool's
		f.init(&rec, order, per, true)
		f.run()
		full = f.end
		pr, _ = periodicOf(s, p, v)
		got, want, how, ok := shortcutAndFull(t, &in)
		if !ok {
			declined++
			continue
		}
		if d := sameResult(got, want, 1e-12); d != "" {
			t.Fatalf("%v p=%d v=%d m=%d: %s", s, p, v, m, d)
		}
		locks += how.transitions
		backs += how.fallbacks
	}
	t.Logf("%d locks run on their rank alone (%d checked op by op), %d back on every rank, %d runs declined", locks, seen, backs, declined)
	if locks == 0 || backs == 0 || seen != locks {
		t.Errorf("%d locks run on their rank alone, %d back on every rank: both paths must be taken", locks, backs)
	}
}
