package serve

import (
	"fmt"
	"math"
)

// StageStats are one stage of a rate schedule as it ran: its latencies over its own steady
// window (Window on the stage's requests alone, at its rate) and what that window says.
type StageStats struct {
	Rate     float64 `json:"rate"`
	Requests int     `json:"requests"`
	StartS   float64 `json:"start_s"`
	EndS     float64 `json:"end_s"`
	// Measured is the requests the figures are over: the stage's steady window, or all of its
	// requests when the window holds fewer than ten.
	Measured int  `json:"measured_requests"`
	TTFT     Dist `json:"ttft_s"`
	ITL      Dist `json:"itl_s"`
	E2E      Dist `json:"e2e_s"`
	// ServedPerS is the stage's requests completed per second from its warm-up's end to its last
	// arrival (Confidence.Served); QueueGrowthPerS is the offered rate less that, when the queue
	// grows (0 otherwise).
	ServedPerS      float64 `json:"served_requests_per_s"`
	QueueGrowthPerS float64 `json:"queue_growth_requests_per_s"`
	// Steady and Saturated: the window's verdicts (Confidence.Steady and Overloaded); State says
	// it in words.
	Steady    bool   `json:"steady"`
	Saturated bool   `json:"saturated"`
	State     string `json:"state"`
}

// QueueGrowth is the rate the queue grows at over the window, requests/s: the offered rate less
// the served one when the queue rises, 0 when it does not.
func (c *Confidence) QueueGrowth() float64 {
	if !c.Rising() {
		return 0
	}
	return math.Max(c.Offered-c.Served, 0)
}

// SaturatedText is "saturated: the queue grows at N req/s" for a run (or stage) past what the
// deployment serves, "" otherwise.
func (c *Confidence) SaturatedText() string {
	if !c.Overloaded {
		return ""
	}
	return fmt.Sprintf("saturated: the queue grows at %s req/s (%s offered, %s served)", fmtRate(c.QueueGrowth()), fmtRate(c.Offered), fmtRate(c.Served))
}

// Stages measures each stage of a multi-stage run on its own.
func Stages(reqs []Request, r Result, spans []Span) []StageStats {
	out := make([]StageStats, 0, len(spans))
	group := make([]int32, len(reqs))
	for i := range group {
		group[i] = -1
	}
	for si, sp := range spans {
		st := StageStats{Rate: sp.Rate, Requests: sp.N, StartS: sp.Start, EndS: sp.End}
		lo, hi := sp.First, min(sp.First+sp.N, len(reqs))
		if lo >= hi || hi > len(r.Done) {
			st.State = "no requests"
			out = append(out, st)
			continue
		}
		sub := Result{Arrival: r.Arrival[lo:hi], Done: r.Done[lo:hi], FirstToken: r.FirstToken[lo:hi], Rejected: r.Rejected[lo:hi]}
		keep, c := Window(reqs[lo:hi], sub, sp.Rate)
		var ttft, e2e []float64
		for i := lo; i < hi; i++ {
			if r.Rejected[i] || (keep != nil && !keep[i-lo]) {
				continue
			}
			group[i] = int32(si)
			ttft = append(ttft, r.FirstToken[i]-r.Arrival[i])
			e2e = append(e2e, r.Done[i]-r.Arrival[i])
		}
		st.Measured = len(ttft)
		st.TTFT, st.E2E = dist(ttft), dist(e2e)
		st.ServedPerS, st.QueueGrowthPerS = c.Served, c.QueueGrowth()
		st.Steady, st.Saturated = keep != nil && c.Steady && c.Warning == "", c.Overloaded
		switch {
		case keep == nil:
			st.State = "too few requests to measure a window"
		case c.Overloaded:
			st.State = c.SaturatedText()
		case c.TrafficS < c.NeedTrafficS:
			// Too short to tell a server past capacity from one still filling.
			st.State = fmt.Sprintf("not steady: %.0f s of traffic, %.0f s needed", c.TrafficS, c.NeedTrafficS)
			if c.Rising() {
				st.State += fmt.Sprintf(" (its queue grew: %s of %s req/s served)", fmtRate(c.Served), fmtRate(c.Offered))
			}
		case c.Rising() && c.Served < 0.9*c.Offered:
			st.State = fmt.Sprintf("not steady: the queue grows at %s req/s", fmtRate(c.QueueGrowth()))
		case !c.Steady:
			st.State = fmt.Sprintf("not steady: %.1f then %.1f requests in the system", c.InSystemFirst, c.InSystemSecond)
		case c.Measured < MinMeasured:
			st.State = fmt.Sprintf("steady, only %d requests measured", c.Measured)
		default:
			st.State = "steady"
		}
		out = append(out, st)
	}
	if len(r.ITL.Gap) > 0 {
		for si, d := range GapStats(r.ITL, group, len(spans)) {
			out[si].ITL = d
		}
	}
	return out
}

func dist(x []float64) Dist {
	if len(x) == 0 {
		return Dist{}
	}
	m, p50, p90, p99 := moments(x)
	return Dist{N: len(x), Mean: m, P50: p50, P90: p90, P99: p99}
}
