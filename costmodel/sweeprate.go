package costmodel

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/model"
)

// SLO is a serving latency target, seconds (0: none), judged on the 90th percentile: a run meets
// it when 90% of its requests get their first token within TTFT and their next tokens within
// TPOT each (the p90 of each, as DistServe's goodput counts requests meeting both at 90%
// attainment).
type SLO struct {
	TTFT float64 `json:"ttft_s"`
	TPOT float64 `json:"tpot_s"`
}

// WorkloadSLO is the scenario's own latency target.
func WorkloadSLO(w model.Workload) SLO { return SLO{TTFT: w.SLOTTFT, TPOT: w.SLOTPOT} }

// Meets says whether a run's percentiles are within the SLO.
func (o SLO) Meets(inf Inference) bool {
	return (o.TTFT <= 0 || inf.TTFTP90 <= o.TTFT) && (o.TPOT <= 0 || inf.TPOTP90 <= o.TPOT)
}

// RatePoint is one offered rate of a sweep and what the deployment did with it.
type RatePoint struct {
	Rate      float64   `json:"rate"` // offered, requests/s
	Inference Inference `json:"inference"`
	Fits      bool      `json:"fits"`
	MeetsSLO  bool      `json:"meets_slo"`
}

// RateSweep is throughput and latency against the offered rate: the curve serving papers draw.
type RateSweep struct {
	// Capacity is the requests/s the deployment serves when every request arrives at once (the
	// offline benchmark): the sweep's rates are fractions and multiples of it.
	Capacity float64     `json:"capacity_requests_per_s"`
	Points   []RatePoint `json:"points"`
	SLO      SLO         `json:"slo"`
	// Goodput is the highest offered rate whose run meets the SLO (refined by bisection between
	// the sweep's points), 0 when none does; GoodputPoint is that run.
	Goodput      float64    `json:"goodput_rate"`
	GoodputPoint *RatePoint `json:"goodput_point"`
}

// SweepFractions are the sweep's rates as fractions of the offline capacity: 16 points from a
// light load to past saturation.
var SweepFractions = []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.1, 1.25, 1.5}

// goodputBisections refine the goodput rate between two of the sweep's points;
// goodputSearchSteps find it from scratch (Goodput, for Search).
const (
	goodputBisections  = 6
	goodputSearchSteps = 10
)

// Goodput is the highest Poisson request rate at which the scenario meets the SLO, found by
// bisection between 0 and 1.5 × its offline throughput (within 1.5 × 2^−10 of it), with that
// run; 0 and nil when even a light load misses it.
func Goodput(s model.Scenario, slo SLO) (float64, *RatePoint, error) {
	at, err := rateRunner(s, slo)
	if err != nil {
		return 0, nil, err
	}
	off, err := at(0)
	if err != nil || off.Inference.RequestsPerS <= 0 {
		return 0, nil, err
	}
	lo, hi := 0.0, 1.5*off.Inference.RequestsPerS
	var best *RatePoint
	for range goodputSearchSteps {
		mid := (lo + hi) / 2
		pt, err := at(mid)
		if err != nil {
			return 0, nil, err
		}
		if pt.MeetsSLO {
			lo, best = mid, &pt
		} else {
			hi = mid
		}
	}
	return lo, best, nil
}

// rateRunner checks a sweep's scenario and SLO and returns the run at a given rate.
func rateRunner(s model.Scenario, slo SLO) (func(float64) (RatePoint, error), error) {
	if s.Workload.Mode != model.Infer {
		return nil, &model.FieldError{Field: "mode", Value: s.Workload.Mode.String(), Allowed: "a rate sweep serves requests: use --mode infer"}
	}
	if s.Workload.Concurrency > 0 {
		return nil, &model.FieldError{Field: "concurrency", Value: s.Workload.Concurrency, Allowed: "a rate sweep offers Poisson arrivals: leave --concurrency out"}
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"slo-ttft", slo.TTFT}, {"slo-tpot", slo.TPOT}} {
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) || x.v < 0 || x.v > 1e6 {
			return nil, &model.FieldError{Field: x.name, Value: x.v, Allowed: "must be a time from 0 (none) to 1e6 s"}
		}
	}
	return func(rate float64) (RatePoint, error) {
		sc := s
		sc.Workload.Rate = rate
		r, err := evaluate(sc, modeFast)
		if err != nil {
			return RatePoint{}, err
		}
		pt := RatePoint{Rate: rate, Fits: r.Memory.Fits}
		if r.Inference != nil {
			pt.Inference = *r.Inference
			pt.Inference.MeetsSLO = nil // the point's own MeetsSLO says it, under the sweep's SLO
		}
		pt.MeetsSLO = pt.Fits && pt.Inference.Rejected == 0 && slo.Meets(pt.Inference)
		return pt, nil
	}, nil
}

// SweepRate serves the scenario's requests at rates from light load to past saturation (Poisson
// arrivals, the scenario's seed) and finds the goodput under slo. The scenario must be in infer
// mode without a closed loop; its rate is ignored.
func SweepRate(s model.Scenario, slo SLO) (RateSweep, error) {
	at, err := rateRunner(s, slo)
	if err != nil {
		return RateSweep{}, err
	}
	off, err := at(0)
	if err != nil {
		return RateSweep{}, err
	}
	out := RateSweep{SLO: slo, Capacity: off.Inference.RequestsPerS}
	if out.Capacity <= 0 {
		return out, fmt.Errorf("costmodel: rate sweep: the deployment serves no request (%d refused)", off.Inference.Rejected)
	}
	lo, hi := -1, -1 // the last point that meets the SLO and the first after it that does not
	for _, f := range SweepFractions {
		pt, err := at(f * out.Capacity)
		if err != nil {
			return RateSweep{}, err
		}
		out.Points = append(out.Points, pt)
		i := len(out.Points) - 1
		switch {
		case pt.MeetsSLO && hi < 0:
			lo = i
		case !pt.MeetsSLO && hi < 0 && lo >= 0:
			hi = i
		}
	}
	if lo < 0 {
		return out, nil // not even the lightest load meets it
	}
	best := out.Points[lo]
	if hi >= 0 {
		a, b := out.Points[lo].Rate, out.Points[hi].Rate
		for range goodputBisections {
			mid := (a + b) / 2
			pt, err := at(mid)
			if err != nil {
				return RateSweep{}, err
			}
			if pt.MeetsSLO {
				a, best = mid, pt
			} else {
				b = mid
			}
		}
	}
	out.Goodput, out.GoodputPoint = best.Rate, &best
	return out, nil
}
