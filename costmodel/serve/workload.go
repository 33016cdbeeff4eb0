package serve

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Dist is a distribution of token counts: fixed (Mean), uniform on [Min, Max], normal (Mean,
// Sigma) or lognormal (Mean, Sigma of the log), clipped to [Min, Max] when they are set and
// never below 1.
type Dist struct {
	Kind  DistKind
	Mean  float64
	Sigma float64
	Min   int
	Max   int
}

// DistKind names a Dist's family.
type DistKind string

// Distribution families.
const (
	Fixed     DistKind = "fixed"
	Uniform   DistKind = "uniform"
	Normal    DistKind = "normal"
	LogNormal DistKind = "lognormal"
)

// FixedDist is a Dist that always gives n.
func FixedDist(n int) Dist { return Dist{Kind: Fixed, Mean: float64(n)} }

// Validate names what is wrong with d; what is the caller's name for it (a flag or file:line).
func (d Dist) Validate(what string) error {
	bad := func(f string, v any, allowed string) error {
		return fmt.Errorf("%s: %s %v: %s", what, f, v, allowed)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch d.Kind {
	case Fixed, Normal, LogNormal:
		if !finite(d.Mean) || d.Mean < 1 || d.Mean > MaxTokens {
			return bad("mean", d.Mean, fmt.Sprintf("need 1 to %d tokens", MaxTokens))
		}
	case Uniform:
		if d.Min < 1 || d.Max < d.Min || d.Max > MaxTokens {
			return bad("min..max", fmt.Sprintf("%d..%d", d.Min, d.Max), fmt.Sprintf("need 1 ≤ min ≤ max ≤ %d", MaxTokens))
		}
	default:
		return bad("dist", string(d.Kind), "need fixed, uniform, normal or lognormal")
	}
	if d.Kind == Normal || d.Kind == LogNormal {
		if !finite(d.Sigma) || d.Sigma < 0 || d.Sigma > 1e6 {
			return bad("sigma", d.Sigma, "need a finite value ≥ 0")
		}
	}
	if d.Min < 0 || d.Max < 0 || d.Max > MaxTokens || (d.Max > 0 && d.Min > d.Max) {
		return bad("min..max", fmt.Sprintf("%d..%d", d.Min, d.Max), fmt.Sprintf("need 0 ≤ min ≤ max ≤ %d (0: no bound)", MaxTokens))
	}
	return nil
}

// MaxTokens bounds one request's prompt or output.
const MaxTokens = 1 << 21

// MeanValue is the distribution's mean before clipping (the midpoint of a uniform one).
func (d Dist) MeanValue() float64 {
	if d.Kind == Uniform {
		return float64(d.Min+d.Max) / 2
	}
	return d.Mean
}

// draw takes one value.
func (d Dist) draw(rng *rand.Rand) int {
	var x float64
	switch d.Kind {
	case Uniform:
		return d.Min + rng.IntN(d.Max-d.Min+1)
	case Normal:
		x = d.Mean + d.Sigma*rng.NormFloat64()
	case LogNormal:
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
	Prompt, Gen Dist
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
		out[i].Prompt = w.Prompt.draw(lengths)
		out[i].Gen = w.Gen.draw(lengths)
		if w.Rate > 0 {
			if i > 0 {
				t += gaps.ExpFloat64() / w.Rate
			}
			out[i].Arrival = t
		}
	}
	return out
}
