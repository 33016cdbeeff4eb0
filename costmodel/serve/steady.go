package serve

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// An open-loop run (Poisson arrivals) starts on an empty server and ends when the arrivals stop:
// its first requests meet a server that is still filling, its last ones one that is draining, and
// neither is the load the rate describes. Its latencies are measured over the requests that
// arrived in the steady window between the two, with an interval from batch means, and a run too
// short or not steady says so.

// warmupLevel is the share of the window's level of requests in the system that ends the
// warm-up: high enough that the server has filled, low enough that a second half busier by
// chance does not stretch the warm-up (in synthetic checks, 0.8 kept the window's mean closest to
// a long run's).
const warmupLevel = 0.8

// SteadySeconds is the least traffic (first to last arrival) an open-loop run needs before its
// figures are trusted without a warning: a minute, or 20 stays of a request where that is more.
const SteadySeconds = 60

// staysPerRun is the traffic a run needs in mean stays (arrival to last token): each of the ten
// batches of the interval lasts two stays or more, so that batches are nearly independent.
const staysPerRun = 20

// MinMeasured is the fewest requests of the steady window for an interval: ten batches of ten.
const MinMeasured = 100

// confidenceBatches is the number of batches of the batch-means interval.
const confidenceBatches = 10

// tQuantile975 is Student's t at 97.5% (a two-sided 95% interval) for 1 to 9 degrees of freedom.
var tQuantile975 = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262}

// Confidence is how far an open-loop run's latency figures can be trusted.
type Confidence struct {
	// Offered is the run's arrival rate, requests/s; TrafficS the time from its first to its last
	// arrival.
	Offered  float64 `json:"offered_requests_per_s"`
	TrafficS float64 `json:"traffic_s"`
	// The steady window, arrival times: requests that arrived before WarmupEndS came while the
	// server filled (until the requests in the system first reached their level of the window's
	// second half); those from DrainStartS on were still running when the last request arrived.
	WarmupEndS     float64 `json:"warmup_end_s"`
	DrainStartS    float64 `json:"drain_start_s"`
	WarmupRequests int     `json:"warmup_requests"`
	DrainRequests  int     `json:"drain_requests"`
	// Measured is the requests of the window the figures are computed over (all completed
	// requests when the window holds fewer than ten).
	Measured int `json:"measured_requests"`
	// InSystemFirst and InSystemSecond are the mean requests in the system at an arrival in the
	// first and second half of the window; Steady is false when they differ by more than chance
	// allows (Welch's t on the batch means, 95%) and by more than 10% (and one request).
	InSystemFirst  float64 `json:"in_system_first_half"`
	InSystemSecond float64 `json:"in_system_second_half"`
	Steady         bool    `json:"steady"`
	// Batches is the number of batch means of the interval (0: too few requests for one); the
	// half-widths are of 95% intervals (Student's t) of the mean and p90 TTFT and TPOT.
	Batches    int     `json:"batches"`
	TTFTMeanHW float64 `json:"ttft_mean_halfwidth_s"`
	TTFTP90HW  float64 `json:"ttft_p90_halfwidth_s"`
	TPOTMeanHW float64 `json:"tpot_mean_halfwidth_s"`
	TPOTP90HW  float64 `json:"tpot_p90_halfwidth_s"`
	// WholeTTFTMean and WholeTPOTMean are the means over every completed request, as a
	// benchmark that measures its whole run (vLLM's benchmark_serving) counts them.
	WholeTTFTMean float64 `json:"whole_run_ttft_mean_s"`
	WholeTPOTMean float64 `json:"whole_run_tpot_mean_s"`
	// Served is the requests/s completed from the warm-up's end to the last arrival;
	// Overloaded says the queue grows (Rising) and fewer than 90% of the offered requests are
	// served, in a run of a minute or more and four of its shortest stays: the rate is past what
	// the deployment serves, and no run length makes it steady.
	Served     float64 `json:"served_requests_per_s"`
	Overloaded bool    `json:"overloaded"`
	// QueueGrowthPerS is Offered − Served when the queue rises (0 otherwise): with Overloaded,
	// the report's "saturated: the queue grows at N req/s".
	QueueGrowthPerS float64 `json:"queue_growth_requests_per_s"`
	// StayS is the window's mean stay (arrival to last token); NeedTrafficS the traffic a run
	// needs: SteadySeconds, or 20 stays where that is more.
	StayS        float64 `json:"mean_stay_s"`
	NeedTrafficS float64 `json:"needed_traffic_s"`
	// Warning says why the figures should not be trusted as they are, "" when nothing is wrong.
	Warning string `json:"warning,omitempty"`
	// SuggestRequests is the --requests the warning suggests (0: none).
	SuggestRequests int `json:"suggest_requests,omitempty"`
}

// Rising says the run's queue grows: it is not steady and the second half holds more requests.
func (c *Confidence) Rising() bool { return !c.Steady && c.InSystemSecond > c.InSystemFirst }

// Window picks an open-loop run's steady window: keep[i] says request i is measured. rate is
// the run's offered rate (requests/s) of Poisson arrivals; it returns nil keep for rate 0 (every
// arrival at time 0, or a closed loop, whose figures are those of the whole run).
func Window(reqs []Request, r Result, rate float64) ([]bool, Confidence) {
	var c Confidence
	n := len(reqs)
	if !(rate > 0) || math.IsInf(rate, 0) || n < 2 || len(r.Arrival) != n || len(r.Done) != n || len(r.Rejected) != n {
		return nil, c
	}
	last := r.Arrival[n-1]
	if last <= 0 {
		return nil, c // all at once
	}
	for i := 1; i < n; i++ {
		if r.Arrival[i] < r.Arrival[i-1] {
			return nil, c // not in arrival order: not an open loop
		}
	}
	c.TrafficS = last - r.Arrival[0]
	c.Offered = rate

	// Requests in the system at each arrival: those arrived before it, less those done by then.
	done := slices.Clone(r.Done)
	slices.Sort(done)
	inSys := make([]float64, n)
	for i := range reqs {
		k := sort.SearchFloat64s(done, math.Nextafter(r.Arrival[i], math.Inf(1))) // done ≤ arrival
		inSys[i] = float64(max(i-k, 0))
	}
	// Drain: from the first arrival still in the system when the last one came.
	end := n
	for i := range reqs {
		if r.Done[i] > last {
			end = i
			break
		}
	}
	// Warm-up: until the requests in the system first reach 80% of their mean over the second
	// half of what is left (the server has filled), at most half of it.
	start := 0
	if end >= 4 {
		level := warmupLevel * mean(inSys[end/2:end])
		for start < end/2 && inSys[start] < level {
			start++
		}
	}
	c.WarmupRequests, c.DrainRequests = start, n-end
	if start < n {
		c.WarmupEndS = r.Arrival[start]
	}
	if end < n {
		c.DrainStartS = r.Arrival[end]
	} else {
		c.DrainStartS = last
	}
	keep := make([]bool, n)
	var idx []int
	for i := start; i < end; i++ {
		if !r.Rejected[i] {
			keep[i] = true
			idx = append(idx, i)
		}
	}
	if len(idx) < 10 {
		// Too few to measure anything: the whole run, said in the warning.
		idx = idx[:0]
		for i := range reqs {
			keep[i] = !r.Rejected[i]
			if keep[i] {
				idx = append(idx, i)
			}
		}
	}
	c.Measured = len(idx)
	c.Steady = true
	k := min(confidenceBatches, len(idx)/10)
	if len(idx) >= MinMeasured {
		k = confidenceBatches
	}
	if k >= 4 {
		c.Batches = k
		var ttftM, ttftP, tpotM, tpotP, sys []float64
		for b := range k {
			lo, hi := b*len(idx)/k, (b+1)*len(idx)/k
			var ttft, tpot, q []float64
			for _, i := range idx[lo:hi] {
				ttft = append(ttft, r.FirstToken[i]-r.Arrival[i])
				if reqs[i].Gen > 1 {
					tpot = append(tpot, (r.Done[i]-r.FirstToken[i])/float64(reqs[i].Gen-1))
				}
				q = append(q, inSys[i])
			}
			m, _, p90, _ := moments(ttft)
			ttftM, ttftP = append(ttftM, m), append(ttftP, p90)
			if len(tpot) > 0 {
				m, _, p90, _ = moments(tpot)
				tpotM, tpotP = append(tpotM, m), append(tpotP, p90)
			}
			sys = append(sys, mean(q))
		}
		c.TTFTMeanHW, c.TTFTP90HW = halfWidth(ttftM), halfWidth(ttftP)
		c.TPOTMeanHW, c.TPOTP90HW = halfWidth(tpotM), halfWidth(tpotP)
		a, b := sys[:k/2], sys[k/2:]
		c.InSystemFirst, c.InSystemSecond = mean(a), mean(b)
		diff := math.Abs(c.InSystemSecond - c.InSystemFirst)
		se := math.Sqrt(variance(a)/float64(len(a)) + variance(b)/float64(len(b)))
		material := math.Max(0.1*math.Max(c.InSystemFirst, c.InSystemSecond), 1)
		c.Steady = !(diff > tQuantile975[min(k-2, len(tQuantile975))-1]*se && diff > material)
	}
	var stay float64
	for _, i := range idx {
		stay += r.Done[i] - r.Arrival[i]
	}
	minStay := math.Inf(1) // of any request: the first ones meet no queue
	for i := range reqs {
		if !r.Rejected[i] {
			minStay = math.Min(minStay, r.Done[i]-r.Arrival[i])
		}
	}
	c.StayS = stay / float64(max(len(idx), 1))
	c.NeedTrafficS = math.Max(SteadySeconds, staysPerRun*c.StayS)
	if span := last - c.WarmupEndS; span > 0 {
		var served int
		for i := range reqs {
			if r.Done[i] >= c.WarmupEndS && r.Done[i] <= last && !r.Rejected[i] {
				served++
			}
		}
		c.Served = float64(served) / span
	}
	// A run shorter than a minute or than four of its shortest stays may still be filling.
	c.Overloaded = c.Rising() && c.Served < 0.9*c.Offered && c.TrafficS >= math.Max(SteadySeconds, 4*minStay)
	c.QueueGrowthPerS = c.QueueGrowth()
	c.warn(n)
	return keep, c
}

// warn says what is wrong with the run, if anything, and how many requests would do.
func (c *Confidence) warn(n int) {
	// Enough: the traffic needed with a margin (a short run sees shorter stays than a long
	// one), and a warm-up and a drain of a stay or so each (three stays),
	// in hundreds of requests; more than this run either way.
	enough := int(math.Ceil(c.Offered*(1.5*c.NeedTrafficS+3*c.StayS)/100)) * 100
	enough = max(enough, n+100, 2*MinMeasured)
	short := c.TrafficS < c.NeedTrafficS
	switch {
	case c.Overloaded:
		c.Warning = fmt.Sprintf("%s: the queue keeps growing (%.1f requests in the system in the first half of the measured window, %.1f in the second): "+
			"%s req/s is at or past what this deployment serves, and its latencies only reflect how long the run lasted (they grow with --requests)",
			c.SaturatedText(), c.InSystemFirst, c.InSystemSecond, fmtRate(c.Offered))
	case short:
		c.Warning = fmt.Sprintf("%d requests at %s req/s is %.0f s of traffic: too few to reach steady state (it takes %.0f s here); use --requests %d",
			n, fmtRate(c.Offered), c.TrafficS, c.NeedTrafficS, enough)
		if c.Rising() {
			c.Warning += fmt.Sprintf("; the queue grew from %.1f to %.1f requests over the run", c.InSystemFirst, c.InSystemSecond)
		}
		c.SuggestRequests = enough
	case !c.Steady:
		c.Warning = fmt.Sprintf("not steady: the requests in the system fall from %.1f to %.1f across the measured window; use --requests %d",
			c.InSystemFirst, c.InSystemSecond, enough)
		c.SuggestRequests = enough
	case c.Measured < MinMeasured:
		c.Warning = fmt.Sprintf("only %d requests in the steady window (of %d, after warm-up and drain): too few for an interval; use --requests %d", c.Measured, n, enough)
		c.SuggestRequests = enough
	}
}

func fmtRate(x float64) string { return fmt.Sprintf("%.3g", x) }

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

// halfWidth is the 95% half-width of the mean of batch means x (Student's t, len(x)−1 degrees
// of freedom), 0 with fewer than two. Batch means of a queue stay correlated when a batch is not
// much longer than a request's stay: a positive lag-1 correlation r widens the variance by
// (1+r)/(1−r), as for an AR(1) series (r at most 0.9).
func halfWidth(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	v := variance(x)
	if v > 0 {
		m := mean(x)
		var c float64
		for i := 1; i < len(x); i++ {
			c += (x[i] - m) * (x[i-1] - m)
		}
		r1 := c / float64(len(x)-1) / v
		if r1 > 0 {
			r1 = math.Min(r1, 0.9)
			v *= (1 + r1) / (1 - r1)
		}
	}
	return tQuantile975[min(len(x)-1, len(tQuantile975))-1] * math.Sqrt(v/float64(len(x)))
}

// SummarizeWindow is Summarize over the requests keep marks (all of them with keep nil); the
// throughput stays the whole run's.
func SummarizeWindow(reqs []Request, r Result, keep []bool) Stats {
	if keep == nil {
		return Summarize(reqs, r)
	}
	s := summarize(reqs, r)
	if len(r.ITL.Gap) > 0 {
		group := make([]int32, len(reqs))
		for i := range group {
			if i >= len(keep) || !keep[i] || r.Rejected[i] {
				group[i] = -1
			}
		}
		d := GapStats(r.ITL, group, 1)[0]
		s.ITLMean, s.ITLP50, s.ITLP90, s.ITLP99 = d.Mean, d.P50, d.P90, d.P99
	}
	var ttft, tpot, e2e []float64
	for i, q := range reqs {
		if i >= len(keep) || !keep[i] || r.Rejected[i] {
			continue
		}
		ttft = append(ttft, r.FirstToken[i]-r.Arrival[i])
		e2e = append(e2e, r.Done[i]-r.Arrival[i])
		if q.Gen > 1 {
			tpot = append(tpot, (r.Done[i]-r.FirstToken[i])/float64(q.Gen-1))
		}
	}
	if len(ttft) == 0 {
		return s
	}
	s.TTFTMean, s.TTFTP50, s.TTFTP90, s.TTFTP99 = moments(ttft)
	s.TPOTMean, s.TPOTP50, s.TPOTP90, s.TPOTP99 = moments(tpot)
	s.E2EMean, s.E2EP50, s.E2EP90, s.E2EP99 = moments(e2e)
	return s
}
