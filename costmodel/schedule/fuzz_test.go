package schedule

import (
	"math"
	"math/rand"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// FuzzSimulateTrain throws small shapes, every schedule (and a bad one) and arbitrary cost values
// at SimulateTrain and EstimateTrain: they must not panic, and either reject the input or return
// a finite, consistent result.
func FuzzSimulateTrain(f *testing.F) {
	f.Add(uint8(0), uint8(4), uint8(1), uint8(8), int64(1), 1.0, 0.1, 1.0, false)
	f.Add(uint8(0x82), uint8(4), uint8(2), uint8(8), int64(2), 1.0, 0.0, 1.0, true)
	f.Add(uint8(3), uint8(3), uint8(1), uint8(2), int64(3), 2.0, 0.5, 0.0, true)
	f.Add(uint8(1), uint8(1), uint8(1), uint8(1), int64(7), 1e300, 1e300, math.NaN(), false)
	f.Add(uint8(4), uint8(0), uint8(0), uint8(0), int64(0), -1.0, -1.0, -1.0, false)
	f.Add(uint8(4), uint8(4), uint8(2), uint8(8), int64(1), 1.0, 0.1, 1.0, true)  // zb-v
	f.Add(uint8(5), uint8(4), uint8(2), uint8(16), int64(2), 1.0, 0.1, 1.0, true) // dualpipe
	f.Add(uint8(5), uint8(3), uint8(2), uint8(16), int64(3), 1.0, 0.1, 1.0, true) // odd stages
	f.Add(uint8(6), uint8(4), uint8(2), uint8(7), int64(6), 1.0, 0.1, 1.0, false) // too few
	f.Add(uint8(7), uint8(1), uint8(1), uint8(1), int64(7), 1.0, 0.1, 1.0, false)
	f.Fuzz(func(t *testing.T, sb, pb, vb, mb uint8, seed int64, scale, p2p, odd float64, record bool) {
		s := model.Schedule(sb & 0x7f % 8) // 7 is not a schedule
		p, v, m := int(pb%9), int(vb%4), int(mb%33)
		if sb&0x80 != 0 && p > 0 { // let interleaved run, not only fail on m mod p
			m = p * (m/p + 1)
		}
		rng := rand.New(rand.NewSource(seed))
		n := max(p*v, 0)
		in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m, Record: record,
			F: make([]float64, n), B: make([]float64, n), P2P: make([]float64, max(n-1, 0))}
		for i := range n {
			in.F[i], in.B[i] = scale*rng.Float64(), scale*rng.Float64()
		}
		if splitW(s) {
			in.W = make([]float64, n)
			for i := range n {
				in.W[i] = scale * rng.Float64()
			}
		}
		for i := range in.P2P {
			in.P2P[i] = p2p * rng.Float64()
		}
		if n > 0 && seed%5 == 0 { // one odd value: NaN, Inf, negative, zero or huge
			in.F[rng.Intn(n)] = odd
		}
		if twoChunk(s) && seed%4 == 1 { // DualPipe's overlap of a pair, up to the smaller cost
			in.Overlap = make([]float64, n)
			for i := range n {
				in.Overlap[i] = min(in.F[i], in.B[i]) * rng.Float64()
			}
			if n > 0 && seed%3 == 0 {
				in.Overlap[0] = odd
			}
		}
		res, err := SimulateTrain(in)
		est := EstimateTrain(in)
		if err != nil {
			if res.Ops != nil || res.Busy != nil {
				t.Fatalf("error %v with a result %+v", err, res)
			}
			if validateTrain(&in) != nil && !math.IsInf(est, 1) {
				t.Fatalf("invalid input (%v) but EstimateTrain = %g", err, est)
			}
			return
		}
		if math.IsNaN(res.Makespan) || math.IsInf(res.Makespan, 0) || res.Makespan < 0 {
			t.Fatalf("makespan %g", res.Makespan)
		}
		if math.IsNaN(est) || est < 0 {
			t.Fatalf("estimate %g", est)
		}
		for r, b := range res.Busy {
			if math.IsNaN(b) || b < 0 || b > res.Makespan*(1+1e-12) {
				t.Fatalf("rank %d busy %g, makespan %g", r, b, res.Makespan)
			}
			if res.PeakInFlight[r] < 0 || res.PeakInFlight[r] > m*v {
				t.Fatalf("rank %d holds %d micro-batches", r, res.PeakInFlight[r])
			}
		}
		if record {
			if twoChunk(s) {
				check2025(t, in, res)
			} else {
				checkTrain(t, in, res)
			}
		}
	})
}
