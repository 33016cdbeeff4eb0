package serve

import (
	"math"
	"math/rand/v2"

	"github.com/splitscope/splitscope/model"
)

// draw takes one value of d.
func draw(d model.LengthDist, rng *rand.Rand) int {
	var x float64
	switch d.Kind {
	case model.Uniform:
		return d.Min + rng.IntN(d.Max-d.Min+1)
	case model.Normal:
		x = d.Mean + d.Sigma*rng.NormFloat64()
	case model.LogNormal:
		// Mean is the distribution's mean: μ = ln(mean) − σ²/2.
		x = math.Exp(math.Log(d.Mean) - d.Sigma*d.Sigma/2 + d.Sigma*rng.NormFloat64())
	default:
		x = d.Mean
	}
	n := int(math.Round(x))
	if d.Max > 0 {
		n = min(n, d.Max)
	}
	return max(n, d.Min, 1)
}

// Workload is how requests arrive and how long they are.
type Workload struct {
	N           int     // requests
	Rate        float64 // requests/s, Poisson arrivals; 0: all at time 0 (or a closed loop)
	Prompt, Gen model.LengthDist
	Seed        uint64
}

// Generate draws the requests: lengths from one random stream, arrivals from another, so the
// same seed gives the same requests at every rate, their arrival times scaled by 1/rate.
func Generate(w Workload) []Request {
	lengths := rand.New(rand.NewPCG(w.Seed, 0x5eed1))
	gaps := rand.New(rand.NewPCG(w.Seed, 0x5eed2))
	out := make([]Request, max(w.N, 0))
	t := 0.0
	for i := range out {
		out[i].Prompt = draw(w.Prompt, lengths)
		out[i].Gen = draw(w.Gen, lengths)
		if w.Rate > 0 {
			if i > 0 {
				t += gaps.ExpFloat64() / w.Rate
			}
			out[i].Arrival = t
		}
	}
	return out
}
