package schedule

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The shortcut's three facts about the orders (steady.go), checked over every shape small enough
// to enumerate.

func periodicSchedules() []model.Schedule {
	return []model.Schedule{model.OneFOneB, model.ZBH1, model.Interleaved, model.DualPipe, model.DualPipeV, model.ZBV}
}

func chunkRange(s model.Schedule) []int {
	if s == model.Interleaved {
		return []int{1, 2, 3}
	}
	if twoChunk(s) {
		return []int{2}
	}
	return []int{1}
}

// microStep is how many of the step's micro-batches one period's shift is: DualPipe's shift is
// one micro-batch a direction.
func microStep(s model.Schedule) int {
	if Bidirectional(s) {
		return 2
	}
	return 1
}

// depOf is the op on another position x waits for (its index in a 3·units table: kind·units +
// micro·nvs + position) and that op's rank, or −1.
func depOf(s model.Schedule, p, nvs, units int, x ref) (dep, rank int) {
	vs, u := x.vs(), x.micro()*nvs+x.vs()
	brk := ChainBreak(s, p)
	switch {
	case x.kind() == F && vs > 0 && (brk == 0 || vs != brk):
		return u - 1, CostIndex(s, p, vs-1) % p
	case x.kind() == B && vs < nvs-1 && (brk == 0 || vs != brk-1):
		return units + u + 1, CostIndex(s, p, vs+1) % p
	}
	return -1, 0
}

func orderFor(t *testing.T, s model.Schedule, p, v, m int) ([]ref, int) {
	t.Helper()
	in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m}
	order, per, err := buildOrder(&in)
	if err != nil {
		t.Fatal(err)
	}
	return order, per
}

// moved is x with its micro-batch moved on by d.
func moved(x ref, d int) ref { return mkref(x.kind(), x.vs(), x.micro()+d) | x&fuse }

// TestSteadyInsert: fact 1, and that the steady periods are each the previous one moved on.
func TestSteadyInsert(t *testing.T) {
	for _, s := range periodicSchedules() {
		for p := 1; p <= 6; p++ {
			for _, v := range chunkRange(s) {
				pr, _ := periodicOf(s, p, v)
				for short := 1; short <= 5*p; short++ {
					if !pr.fits(short) || pr.periods(short) < 1 || short%microStep(s) != 0 {
						continue
					}
					base, per := orderFor(t, s, p, v, short)
					P := pr.period
					for r := range p {
						seq := base[r*per : (r+1)*per]
						for i := pr.first(r) + P; i < pr.first(r)+pr.periods(short)*P; i++ {
							if seq[i] != moved(seq[i-P], pr.shift) {
								t.Fatalf("%v p=%d v=%d m=%d rank %d: op %d is not op %d moved on", s, p, v, short, r, i, i-P)
							}
						}
					}
					for k := 1; k <= 3; k++ {
						long, lper := orderFor(t, s, p, v, short+k*pr.shift*microStep(s))
						for j := 1; j <= pr.periods(short); j++ {
							for r := range p {
								seq, lseq := base[r*per:(r+1)*per], long[r*lper:(r+1)*lper]
								c := pr.first(r) + j*P
								var want []ref
								want = append(want, seq[:c]...)
								for i := 1; i <= k; i++ {
									for _, x := range seq[c-P : c] {
										want = append(want, moved(x, i*pr.shift))
									}
								}
								for _, x := range seq[c:] {
									want = append(want, moved(x, k*pr.shift))
								}
								if fmt.Sprint(want) != fmt.Sprint(lseq) {
									t.Fatalf("%v p=%d v=%d m=%d+%d periods at cut %d, rank %d:\n got %v\nwant %v", s, p, v, short, k, j, r, lseq, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestSteadyCuts: facts 2 and 3 at every cut.
func TestSteadyCuts(t *testing.T) {
	for _, s := range periodicSchedules() {
		for p := 1; p <= 6; p++ {
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
					for j := 0; j <= pr.periods(m); j++ {
						cut := func(r int) int { return pr.first(r) + j*pr.period }
						for r := range p {
							for i, x := range order[r*per : (r+1)*per] {
								// The op on another rank x waits for, if any.
								dep, dr := depOf(s, p, nvs, units, x)
								if dep < 0 {
									continue
								}
								at := pos[dep]
								if i < cut(r) && at >= cut(dr) {
									t.Fatalf("%v p=%d v=%d m=%d cut %d: rank %d op %d (%v) reads op %d of rank %d, after the cut", s, p, v, m, j, r, i, x.kind(), at, dr)
								}
								if i >= cut(r) && at < cut(dr)-pr.lookback*pr.period {
									t.Fatalf("%v p=%d v=%d m=%d cut %d: rank %d op %d (%v) reads op %d of rank %d, %d ops before the cut", s, p, v, m, j, r, i, x.kind(), at, dr, cut(dr)-at)
								}
							}
						}
					}
				}
			}
		}
	}
}

// sameResult reports how res differs from the full simulation's want beyond tol (relative), or "".
func sameResult(res, want Result, tol float64) string {
	if relErr(res.Makespan, want.Makespan) > tol {
		return fmt.Sprintf("makespan %.17g, full %.17g", res.Makespan, want.Makespan)
	}
	if len(res.Busy) != len(want.Busy) || len(res.Finish) != len(want.Finish) || len(res.PeakInFlight) != len(want.PeakInFlight) {
		return "lengths differ"
	}
	for r := range want.Busy {
		if relErr(res.Busy[r], want.Busy[r]) > tol {
			return fmt.Sprintf("rank %d busy %.17g, full %.17g", r, res.Busy[r], want.Busy[r])
		}
		if relErr(res.Finish[r], want.Finish[r]) > tol {
			return fmt.Sprintf("rank %d finish %.17g, full %.17g", r, res.Finish[r], want.Finish[r])
		}
		if res.PeakInFlight[r] != want.PeakInFlight[r] {
			return fmt.Sprintf("rank %d in flight %d, full %d", r, res.PeakInFlight[r], want.PeakInFlight[r])
		}
	}
	return ""
}

// TestSteadyMatchesFull compares SimulateTrain with the full simulation on uneven stages and
// p2p, and checks that the shortcut is taken on most runs long enough for it.
func TestSteadyMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	taken, long := 0, 0
	for _, s := range model.Schedules() {
		for _, p := range []int{1, 2, 3, 4, 8, 16} {
			for _, v := range chunkRange(s) {
				for _, m := range []int{p, 2 * p, 8 * p, 96, 192, 512} {
					if s == model.Interleaved && m%p != 0 {
						continue
					}
					if probe := randomTrain(rng, s, p, v, m, 0, 0); validateTrain(&probe) != nil {
						continue // a shape the schedule refuses (DualPipe's odd p, too few micro-batches)
					}
					for _, spread := range []float64{0, 0.1, 0.5} {
						in := randomTrain(rng, s, p, v, m, spread, 0.05)
						want, err := simulateFull(&in)
						if err != nil {
							t.Fatal(err)
						}
						got, err := SimulateTrain(in)
						if err != nil {
							t.Fatal(err)
						}
						if d := sameResult(got, want, 1e-12); d != "" {
							t.Fatalf("%v p=%d v=%d m=%d spread %g: %s", s, p, v, m, spread, d)
						}
						if _, how, _ := steadyRun(&in); how.jumped {
							taken++
						}
						if pr, ok := periodicOf(s, p, v); ok && pr.fits(m) && 2*pr.shortMicro(pr.lookback+1+steadyExtra) <= m {
							long++
						} else if ok {
							if _, took := simulateSteady(&in); took {
								t.Errorf("%v p=%d v=%d m=%d: shortcut on a short run", s, p, v, m)
							}
						}
					}
				}
			}
		}
	}
	if taken < long*2/3 {
		t.Errorf("the shortcut ran %d times for %d long runs", taken, long)
	}
	t.Logf("shortcut taken %d times, %d long runs", taken, long)
}

// FuzzSteady compares SimulateTrain (the shortcut where it applies) with the full simulation
// over random schedules, shapes, uneven costs and p2p.
func FuzzSteady(f *testing.F) {
	f.Add(uint8(1), uint8(8), uint8(1), uint16(192), int64(1), 0.1, 0.02, false)
	f.Add(uint8(2), uint8(4), uint8(2), uint16(64), int64(2), 0.5, 0.0, true)
	f.Add(uint8(3), uint8(6), uint8(1), uint16(100), int64(3), 0.9, 0.3, false)
	f.Add(uint8(0), uint8(3), uint8(1), uint16(50), int64(4), 0.2, 0.1, true)
	f.Fuzz(func(t *testing.T, sb, pb, vb uint8, mb uint16, seed int64, spread, p2p float64, dyadic bool) {
		s := model.Schedule(sb % 7)
		p, v, m := 1+int(pb%16), 1, 1+int(mb%600)
		if s == model.Interleaved {
			v = 1 + int(vb%4)
			m = p * (1 + (m-1)/p)
		}
		if twoChunk(s) {
			v = 2
		}
		if !(spread >= 0 && spread <= 1) || !(p2p >= 0 && p2p <= 10) {
			return
		}
		rng := rand.New(rand.NewSource(seed))
		in := randomTrain(rng, s, p, v, m, spread, p2p)
		if dyadic { // costs on a coarse binary grid: sums are exact, ties common
			for _, xs := range [][]float64{in.F, in.B, in.W, in.P2P} {
				for i := range xs {
					xs[i] = math.Round(xs[i]*8) / 8
				}
			}
		}
		if seed%3 == 0 { // nil stands for free p2p and, in ZB-H1, for free W
			in.P2P = nil
			if splitW(s) {
				in.W = nil
			}
		}
		if twoChunk(s) && validateTrain(&in) != nil {
			return // simulateFull takes a valid input; DualPipe's shape rules refuse this one
		}
		want, err := simulateFull(&in)
		got, err2 := SimulateTrain(in)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("full: %v, SimulateTrain: %v", err, err2)
		}
		if err != nil {
			return
		}
		if d := sameResult(got, want, 1e-12); d != "" {
			t.Fatalf("%v p=%d v=%d m=%d: %s", s, p, v, m, d)
		}
	})
}

// TestSteadyOverflow: costs that add up past the largest float64 are the full simulation's
// error, shortcut or not.
func TestSteadyOverflow(t *testing.T) {
	for _, s := range periodicSchedules() {
		in := uniformTrain(s, 4, chunkRange(s)[0], 400, 1e306, 1e306, 1e306)
		if _, err := SimulateTrain(in); err == nil || !strings.Contains(err.Error(), "overflow") {
			t.Errorf("%v: err = %v, want an overflow", s, err)
		}
	}
}

// opPositions is each op's position on its rank's order, indexed kind·units + micro·nvs + vs.
func opPositions(order []ref, per, p, nvs, units int) []int {
	pos := make([]int, 3*units)
	for r := range p {
		for i, x := range order[r*per : (r+1)*per] {
			pos[int(x.kind())*units+x.micro()*nvs+x.vs()] = i
		}
	}
	return pos
}

// TestExtendSameAsCompile: a compiled order with K periods inserted at its last cut (extend, the
// shortcut's way to grow an order too long to keep) is the longer order compiled, op for op,
// with the same refs and peaks, for every schedule with a steady shape.
func TestExtendSameAsCompile(t *testing.T) {
	for _, s := range periodicSchedules() {
		for _, p := range []int{2, 3, 4, 5, 8} {
			for _, v := range chunkRange(s) {
				pr, ok := periodicOf(s, p, v)
				if !ok {
					continue
				}
				short := uniformTrain(s, p, v, pr.shortMicro(pr.lookback+3), 1, 2, 1)
				if !pr.fits(short.Micro) || validateTrain(&short) != nil {
					continue
				}
				order, per, err := buildOrder(&short)
				if err != nil {
					t.Fatal(err)
				}
				co := compile(&short, order, per)
				last := pr.periods(short.Micro)
				for _, K := range []int{1, 5, 17} {
					m := short.Micro + K*pr.shift
					if Bidirectional(s) {
						m = short.Micro + 2*K*pr.shift
					}
					long := uniformTrain(s, p, v, m, 1, 2, 1)
					if pr.periods(m) != last+K || validateTrain(&long) != nil {
						t.Fatalf("%v p=%d v=%d: %d micro-batches have %d periods, want %d", s, p, v, m, pr.periods(m), last+K)
					}
					lorder, lper, err := buildOrder(&long)
					if err != nil {
						t.Fatal(err)
					}
					want := compile(&long, lorder, lper)
					got := pr.extend(co, per, last, K, p*v)
					if lper != per+K*pr.period || len(got.ops) != len(want.ops) {
						t.Fatalf("%v p=%d v=%d K=%d: %d ops a rank, extend makes %d", s, p, v, K, lper, per+K*pr.period)
					}
					for i := range want.ops {
						if got.ops[i] != want.ops[i] || got.order[i] != want.order[i] {
							t.Fatalf("%v p=%d v=%d K=%d: op %d (rank %d) is %+v (%v), compiled %+v (%v)", s, p, v, K, i, i/lper, got.ops[i], got.order[i], want.ops[i], want.order[i])
						}
					}
					for r := range want.peaks {
						if got.peaks[r] != want.peaks[r] {
							t.Fatalf("%v p=%d v=%d K=%d: rank %d peak %d, compiled %d", s, p, v, K, r, got.peaks[r], want.peaks[r])
						}
					}
				}
			}
		}
	}
}

// TestSteadyLongOrders: runs whose orders are too long to keep (more than orderCacheMax ops)
// grow their short run's order by inserting periods (extend) and give the full simulation's
// results, on uneven stages.
func TestSteadyLongOrders(t *testing.T) {
	for _, c := range []struct {
		s       model.Schedule
		p, v, m int
		grows   bool // its short run grows (the others find their steady state in it)
	}{
		{model.ZBV, 64, 2, 512, true},
		{model.DualPipeV, 64, 2, 512, false},
		{model.ZBH1, 64, 1, 1024, false},
		{model.OneFOneB, 64, 1, 1100, false},
		{model.Interleaved, 64, 2, 1088, true},
	} {
		in := benchTrain(c.s, c.p, c.v, c.m, false)
		if in.Stages*opsPerRank(&in) <= orderCacheMax {
			t.Fatalf("%v p=%d m=%d: %d ops, not above %d", c.s, c.p, c.m, in.Stages*opsPerRank(&in), orderCacheMax)
		}
		want, err := simulateFull(&in)
		if err != nil {
			t.Fatal(err)
		}
		got, how, ok := steadyRun(&in)
		if !ok {
			t.Fatalf("%v p=%d m=%d: no shortcut", c.s, c.p, c.m)
		}
		if d := sameResult(got, want, 1e-12); d != "" {
			t.Fatalf("%v p=%d m=%d: %s", c.s, c.p, c.m, d)
		}
		if how.extended != c.grows {
			t.Errorf("%v p=%d m=%d: order grown by extend %v, want %v", c.s, c.p, c.m, how.extended, c.grows)
		}
	}
}
