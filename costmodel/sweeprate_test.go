package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The issue's case: llama-3-70b on 8 H100 SXM, TP 8, prompt 1024, gen 256, p90 TTFT ≤ 500 ms and
// p90 TPOT ≤ 50 ms. Its goodput was 15.2 req/s with 200 requests and 12.2 with 1000; now each rate
// serves enough requests for its stays, and the two agree within the interval reported.
func issueServeScenario(t *testing.T, requests int) model.Scenario {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = 1024, 256, requests
	return s
}

func TestGoodputAgreesAcrossRequests(t *testing.T) {
	slo := SLO{TTFT: 0.5, TPOT: 0.05}
	var sw [2]RateSweep
	for i, n := range []int{200, 1000} {
		var err error
		if sw[i], err = SweepRate(issueServeScenario(t, n), slo); err != nil {
			t.Fatal(err)
		}
		g := sw[i]
		if g.GoodputPoint == nil || !(g.GoodputLow <= g.Goodput && g.Goodput <= g.GoodputHigh) || g.GoodputHigh-g.GoodputLow <= 0 {
			t.Fatalf("%d requests: goodput %g in [%g, %g], point %v", n, g.Goodput, g.GoodputLow, g.GoodputHigh, g.GoodputPoint)
		}
		c := g.GoodputPoint.Inference.Confidence
		if c == nil || c.Batches == 0 || c.Warning != "" {
			t.Errorf("%d requests: the goodput run's confidence %+v", n, c)
		}
		t.Logf("%d requests: goodput %.4g req/s (95%%: %.4g to %.4g), its run %d requests", n, g.Goodput, g.GoodputLow, g.GoodputHigh,
			g.GoodputPoint.Requests)
	}
	a, b := sw[0], sw[1]
	if a.Goodput < b.GoodputLow || a.Goodput > b.GoodputHigh || b.Goodput < a.GoodputLow || b.Goodput > a.GoodputHigh {
		t.Errorf("200 requests: %g req/s in [%g, %g]; 1000: %g in [%g, %g]: they should agree within their intervals",
			a.Goodput, a.GoodputLow, a.GoodputHigh, b.Goodput, b.GoodputLow, b.GoodputHigh)
	}
	// The search's goodput (a bisection from scratch) agrees too.
	g, _, err := Goodput(issueServeScenario(t, 200), slo)
	if err != nil {
		t.Fatal(err)
	}
	if g < b.GoodputLow || g > b.GoodputHigh {
		t.Errorf("search's goodput with 200 requests %g req/s, outside the sweep's [%g, %g]", g, b.GoodputLow, b.GoodputHigh)
	}
}

// A single run at 12 req/s with 200 requests (14 s of traffic, 11 s stays) says it is too short
// and how many requests would do; with what it asks the warning goes, and the interval comes.
func TestServeRunTooShortWarns(t *testing.T) {
	s := issueServeScenario(t, 200)
	s.Workload.Rate = 12
	r := eval(t, s)
	c := r.Inference.Confidence
	if c == nil || c.SuggestRequests <= 200 || !strings.Contains(c.Warning, "too few to reach steady state") {
		t.Fatalf("confidence %+v", c)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || w == c.Warning
	}
	if !found {
		t.Errorf("the warning is not among the report's: %q", r.Warnings)
	}
	s.Workload.Requests = c.SuggestRequests
	r = eval(t, s)
	c = r.Inference.Confidence
	if c.Warning != "" || c.Batches == 0 || !c.Steady || !(c.TPOTP90HW > 0) || math.IsNaN(c.TTFTP90HW) {
		t.Errorf("%d requests: confidence %+v", s.Workload.Requests, c)
	}
	// Every request at once, and closed loops, have no steady window to report.
	s.Workload.Rate = 0
	if r := eval(t, s); r.Inference.Confidence != nil {
		t.Errorf("offline: confidence %+v", r.Inference.Confidence)
	}
}
