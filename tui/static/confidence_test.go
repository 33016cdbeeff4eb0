package static

import (
	"bytes"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// An open-loop run's report says which requests its latencies are measured over, whether the
// queue is steady, the 95% half-widths, and that an SLO verdict from a short run needs care.
func TestRenderServeConfidence(t *testing.T) {
	s := fixtureScenario()
	s.Workload = model.Workload{Mode: model.Infer, PromptTokens: 1024, GenTokens: 256, Requests: 200, Rate: 12, Precision: model.BF16,
		SLOTTFT: 0.5, SLOTPOT: 0.05}
	r := fixtureReport()
	meets := true
	c := &costmodel.ServeConfidence{Offered: 12, TrafficS: 80, WarmupEndS: 7.2, DrainStartS: 70.6, WarmupRequests: 112, DrainRequests: 103,
		Measured: 785, InSystemFirst: 135.4, InSystemSecond: 136.3, Steady: true, Batches: 10, TTFTMeanHW: 0.0124, TTFTP90HW: 0.0237,
		TPOTMeanHW: 0.00367, TPOTP90HW: 0.00327, Warning: "1000 requests at 12 req/s is 80 s of traffic: too few to reach steady state"}
	r.Warnings = []string{c.Warning}
	r.Inference = &costmodel.Inference{TTFTP90: 0.218, TPOTP90: 0.0481, Completed: 1000, MeetsSLO: &meets, Confidence: c}
	var b bytes.Buffer
	if err := RenderReport(&b, s, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"measured over the 785 requests that arrived from 7.20 s to 70.6 s (112 of warm-up and 103 of drain left out)",
		"queue steady (135.4 then 136.3 requests in the system) · 95% interval (10 batch means): TTFT mean ±12.4 ms p90 ±23.7 ms, TPOT mean ±3.67 ms p90 ±3.27 ms",
		"met (p90 TTFT 218 ms, p90 TPOT 48.1 ms) · from a run too short or not steady: see the warning",
		"! 1000 requests at 12 req/s is 80 s of traffic: too few to reach steady state",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A rate sweep names how many requests each rate served and bounds the goodput.
func TestRenderRateSweepConfidence(t *testing.T) {
	s := fixtureScenario()
	s.Workload = model.Workload{Mode: model.Infer, PromptTokens: 1024, GenTokens: 256, Requests: 200, Precision: model.BF16}
	c := &costmodel.ServeConfidence{Measured: 2724, Steady: true, Batches: 10, TTFTP90HW: 0.0286, TPOTP90HW: 0.00432}
	pt := costmodel.RatePoint{Rate: 11.98, Requests: 4400, Fits: true, MeetsSLO: true,
		Inference: costmodel.Inference{RequestsPerS: 11.9, TTFTP90: 0.231, TPOTP90: 0.0499, Confidence: c}}
	grow := costmodel.RatePoint{Rate: 21.55, Requests: 20000, Fits: true, Inference: costmodel.Inference{RequestsPerS: 16.3,
		Confidence: &costmodel.ServeConfidence{InSystemFirst: 800, InSystemSecond: 1900, Batches: 10}}}
	sw := costmodel.RateSweep{Capacity: 14.37, SLO: costmodel.SLO{TTFT: 0.5, TPOT: 0.05}, Points: []costmodel.RatePoint{pt, grow},
		Goodput: 11.98, GoodputPoint: &pt, GoodputLow: 11.62, GoodputHigh: 12.37, Requests: 200, ProbeSeconds: 90}
	var b bytes.Buffer
	if err := RenderRateSweep(&b, s, sw); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"at each rate 200 requests or 90 s of arrivals where that is more", "requests", "4400", "queue grows",
		"95%: 11.62 to 12.37 req/s (the same search with p90 TTFT ±28.6 ms and p90 TPOT ±4.32 ms, the run's intervals over 2724 requests)"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep lacks %q:\n%s", want, out)
		}
	}
}
