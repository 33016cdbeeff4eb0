package schedule

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestEstimateTrainUniformExact(t *testing.T) {
	costs := []struct{ f, b, w float64 }{{1, 2, 0}, {1.3, 2.9, 0}, {1, 1, 1}, {1.5, 1.2, 0.8}, {1, 2, 1.5}, {2, 1, 1.7}, {1, 1, 3}}
	for _, s := range classicSchedules() {
		for _, sh := range scheduleShapes(s) {
			for _, c := range costs {
				if (s == model.ZBH1) != (c.w > 0) {
					continue
				}
				p, v, m := sh[0], sh[1], sh[2]
				t.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d/F=%g,B=%g,W=%g", s, p, v, m, c.f, c.b, c.w), func(t *testing.T) {
					in := uniformTrain(s, p, v, m, c.f, c.b, c.w)
					res, err := SimulateTrain(in)
					if err != nil {
						t.Fatal(err)
					}
					if got := EstimateTrain(in); relErr(got, res.Makespan) > 1e-9 {
						t.Errorf("estimate %.12g, simulation %.12g", got, res.Makespan)
					}
				})
			}
		}
	}
}

// TestEstimateTrainClose compares the estimate with the simulation on seeded random uneven
// stages with p2p up to 5% of a forward: every virtual stage within ±10% of the others, and the
// same with heavier first and last stages (embedding, logits) must be within 3%; the stress set
// (±30%, m < p too) is only logged.
func TestEstimateTrainClose(t *testing.T) {
	type set struct {
		name   string
		spread float64 // each virtual stage's cost within ±spread of its mean
		ends   float64 // extra cost of the first and last virtual stage
		fewer  bool    // also m < p
		limit  float64 // 0: log only
	}
	for _, st := range []set{{"uneven", 0.1, 0, false, 0.03}, {"search-like", 0.1, 0.3, false, 0.03}, {"stress", 0.3, 0, true, 0}} {
		rng := rand.New(rand.NewSource(42))
		worst := map[model.Schedule]float64{}
		where := map[model.Schedule]string{}
		for i := range 2000 {
			s := model.Schedules()[i%4]
			p := 1 + rng.Intn(8)
			v, m := 1, p+rng.Intn(4*p)
			if st.fewer {
				m = 1 + rng.Intn(5*p)
			}
			if s == model.Interleaved {
				v, m = 1+rng.Intn(4), p*(1+rng.Intn(6))
			}
			in := randomTrain(rng, s, p, v, m, st.spread, 0.05/float64(v))
			in.F[0] *= 1 + st.ends
			in.F[p*v-1] *= 1 + 2*st.ends
			in.B[p*v-1] *= 1 + 2*st.ends
			res, err := SimulateTrain(in)
			if err != nil {
				t.Fatal(err)
			}
			e := relErr(EstimateTrain(in), res.Makespan)
			if e >= worst[s] {
				worst[s], where[s] = e, fmt.Sprintf("p=%d v=%d m=%d", p, v, m)
			}
		}
		for _, s := range classicSchedules() {
			t.Logf("%s: %v worst error %.2f%% (%s)", st.name, s, 100*worst[s], where[s])
			if st.limit > 0 && worst[s] > st.limit {
				t.Errorf("%s: %v estimate off by %.2f%% at %s", st.name, s, 100*worst[s], where[s])
			}
		}
	}
}

func TestEstimateTrainNoAlloc(t *testing.T) {
	for _, s := range classicSchedules() {
		in := benchTrain(s, 8, 1, 64, false)
		if s == model.Interleaved {
			in = benchTrain(s, 64, 2, 512, false)
		}
		if a := testing.AllocsPerRun(10, func() { EstimateTrain(in) }); a != 0 {
			t.Errorf("%v: %v allocations", s, a)
		}
	}
}

// TestEstimateTrainExact: GPipe (two flow shops) and interleaved with m = p (every forward, then
// every backward round the ring) have exact closed forms even on uneven stages with p2p.
func TestEstimateTrainExact(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for i := range 300 {
		s, p := model.GPipe, 1+rng.Intn(8)
		v, m := 1, 1+rng.Intn(3*p)
		if i%2 == 1 {
			s, v, m = model.Interleaved, 1+rng.Intn(4), p
		}
		in := randomTrain(rng, s, p, v, m, 0.5, 0.2)
		res, err := SimulateTrain(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := EstimateTrain(in); relErr(got, res.Makespan) > 1e-9 {
			t.Errorf("%v p=%d v=%d m=%d: estimate %.12g, simulation %.12g", s, p, v, m, got, res.Makespan)
		}
	}
}
