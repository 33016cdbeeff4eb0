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
	Rate      float64   `json:"rate"`     // offered, requests/s
	Requests  int       `json:"requests"` // served at this rate (ProbeRequests)
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
	// GoodputLow and GoodputHigh bound the goodput: the same search judging each run's p90 TTFT
	// and TPOT at the top and at the bottom of their 95% intervals.
	GoodputLow  float64 `json:"goodput_rate_low"`
	GoodputHigh float64 `json:"goodput_rate_high"`
	// Requests is the scenario's --requests: each rate serves at least these, and ProbeSeconds of
	// arrivals where that is more, and again more where the run asks for it (ProbeRequests).
	Requests     int     `json:"requests"`
	ProbeSeconds float64 `json:"probe_seconds"`
}

// ProbeSeconds is the arrivals each rate of a sweep or a goodput search serves at least: enough
// for a steady window of serve.SteadySeconds once the warm-up and the drain are left out.
const ProbeSeconds = 90

// MaxProbeRequests bounds the requests of one rate, for speed.
const MaxProbeRequests = 20000

// ProbeRequests is the requests a sweep or a goodput search serves first at rate: the
// scenario's, or ProbeSeconds of arrivals (rate × 90 s) where that is more, at most
// maxProbe; never fewer than the scenario's own. A run whose confidence asks for more (its
// requests take long, serve.Confidence.NeedTrafficS) is served again with what it asks, up to
// maxProbe.
func ProbeRequests(s model.Scenario, rate float64) int {
	w := s.Workload
	if !(rate > 0) || math.IsInf(rate, 0) {
		return w.Requests
	}
	return max(w.Requests, min(int(math.Min(math.Ceil(rate*ProbeSeconds), MaxProbeRequests)), maxProbe(s)))
}

// maxProbe is the most requests one rate serves: MaxProbeRequests, or fewer where the
// simulator's bound (model: requests × (prompt chunks + gen tokens) engine steps) says so.
func maxProbe(s model.Scenario) int {
	w := s.Workload
	n := float64(MaxProbeRequests)
	_, budget := model.ServeDefaults(s.Cluster.GPU)
	if w.MaxBatchTokens > 0 {
		budget = w.MaxBatchTokens
	}
	if per := math.Ceil(w.Prompts().MaxValue()/float64(max(budget, 1))) + w.Gens().MaxValue(); per > 0 {
		n = math.Min(n, math.Floor(model.MaxServeTokens/per))
	}
	return int(n)
}

// meets judges a run under slo: it fits, refuses nothing, its queue does not keep growing, and
// its p90 TTFT and TPOT meet the target, moved by bound times their 95% half-widths (−1: the
// optimistic end of the interval, +1 the pessimistic one, 0 the figures).
func (pt RatePoint) meets(slo SLO, bound float64) bool {
	if !pt.Fits || pt.Inference.Rejected > 0 {
		return false
	}
	inf := pt.Inference
	if c := inf.Confidence; c != nil {
		if c.Rising() {
			return false
		}
		inf.TTFTP90 += bound * c.TTFTP90HW
		inf.TPOTP90 += bound * c.TPOTP90HW
	}
	return slo.Meets(inf)
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
	probe := func(rate float64, n int) (RatePoint, error) {
		sc := s
		sc.Workload.Rate = rate
		sc.Workload.Requests = n
		sc.Workload.Stages = nil // each rate of the sweep is a single stage
		r, err := evaluate(sc, modeFast)
		if err != nil {
			return RatePoint{}, err
		}
		pt := RatePoint{Rate: rate, Requests: sc.Workload.Requests, Fits: r.Memory.Fits}
		if r.Inference != nil {
			pt.Inference = *r.Inference
			pt.Inference.MeetsSLO = nil // the point's own MeetsSLO says it, under the sweep's SLO
		}
		pt.MeetsSLO = pt.meets(slo, 0)
		return pt, nil
	}
	return func(rate float64) (RatePoint, error) {
		pt, err := probe(rate, ProbeRequests(s, rate))
		if c := pt.Inference.Confidence; err == nil && slo != (SLO{}) && c != nil && c.SuggestRequests > pt.Requests {
			// Too short for this rate's stays to judge the SLO on: once more with the requests it
			// asks for (a sweep without a target draws its curve from the first run).
			if n := min(c.SuggestRequests, max(maxProbe(s), s.Workload.Requests)); n > pt.Requests {
				return probe(rate, n)
			}
		}
		return pt, err
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
	out := RateSweep{SLO: slo, Capacity: off.Inference.RequestsPerS, Requests: s.Workload.Requests, ProbeSeconds: ProbeSeconds}
	if out.Capacity <= 0 {
		return out, fmt.Errorf("costmodel: rate sweep: the deployment serves no request (%d refused)", off.Inference.Rejected)
	}
	for _, f := range SweepFractions {
		pt, err := at(f * out.Capacity)
		if err != nil {
			return RateSweep{}, err
		}
		out.Points = append(out.Points, pt)
	}
	if slo == (SLO{}) {
		return out, nil
	}
	// The goodput, then its bounds: the same search with every run judged at the ends of its
	// intervals. A run is simulated once whatever judges it.
	memo := map[float64]RatePoint{}
	for _, pt := range out.Points {
		memo[pt.Rate] = pt
	}
	cached := func(rate float64) (RatePoint, error) {
		if pt, ok := memo[rate]; ok {
			return pt, nil
		}
		pt, err := at(rate)
		memo[rate] = pt
		return pt, err
	}
	g, best, err := out.bisect(cached, 0)
	if err != nil || best == nil {
		return out, err
	}
	out.Goodput, out.GoodputPoint = g, best
	if out.GoodputLow, _, err = out.bisect(cached, 1); err != nil {
		return RateSweep{}, err
	}
	if out.GoodputHigh, _, err = out.bisect(cached, -1); err != nil {
		return RateSweep{}, err
	}
	out.GoodputLow, out.GoodputHigh = math.Min(out.GoodputLow, g), math.Max(out.GoodputHigh, g)
	return out, nil
}

// bisect finds the highest rate whose run meets the SLO judged at bound (RatePoint.meets):
// the last of the sweep's points that meets it before the first that does not, refined by
// bisection between the two; 0 and nil when not even the lightest load meets it.
func (sw *RateSweep) bisect(at func(float64) (RatePoint, error), bound float64) (float64, *RatePoint, error) {
	lo, hi := -1, -1 // the last point that meets the SLO and the first after it that does not
	for i, pt := range sw.Points {
		m := pt.meets(sw.SLO, bound)
		switch {
		case m && hi < 0:
			lo = i
		case !m && hi < 0 && lo >= 0:
			hi = i
		}
	}
	if lo < 0 {
		return 0, nil, nil
	}
	best := sw.Points[lo]
	if hi >= 0 {
		a, b := sw.Points[lo].Rate, sw.Points[hi].Rate
		for range goodputBisections {
			mid := (a + b) / 2
			pt, err := at(mid)
			if err != nil {
				return 0, nil, err
			}
			if pt.meets(sw.SLO, bound) {
				a, best = mid, pt
			} else {
				b = mid
			}
		}
	}
	return best.Rate, &best, nil
}
