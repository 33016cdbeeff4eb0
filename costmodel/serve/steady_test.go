package serve

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// A decode step costs more with more sequences: the batch, and TPOT, grow while the server fills.
var rampCost = linear{fixed: 5e-3, perToken: 2e-5, perCtx: 1e-9}

func rampRun(t *testing.T, n int, rate float64, seed uint64) ([]Request, Result) {
	t.Helper()
	reqs := Generate(Workload{N: n, Rate: rate, Prompt: model.FixedDist(200), Gen: model.FixedDist(1000), Seed: seed})
	r, err := Run(base(), reqs, rampCost)
	if err != nil {
		t.Fatal(err)
	}
	return reqs, r
}

func finite(t *testing.T, c Confidence) {
	t.Helper()
	for name, v := range map[string]float64{"offered": c.Offered, "traffic": c.TrafficS, "warm-up end": c.WarmupEndS,
		"drain start": c.DrainStartS, "in system 1": c.InSystemFirst, "in system 2": c.InSystemSecond, "ttft mean hw": c.TTFTMeanHW,
		"ttft p90 hw": c.TTFTP90HW, "tpot mean hw": c.TPOTMeanHW, "tpot p90 hw": c.TPOTP90HW, "stay": c.StayS, "need": c.NeedTrafficS} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s = %v", name, v)
		}
	}
}

// Too few requests for the rate: 200 at 20 req/s is 10 s of traffic where a request stays
// about 10 s; the run says so and how many would do, and the figures of a run that long come
// without a warning, with an interval.
func TestTooFewRequestsWarn(t *testing.T) {
	reqs, r := rampRun(t, 200, 20, 1)
	keep, c := Window(reqs, r, 20)
	finite(t, c)
	if keep == nil || !strings.Contains(c.Warning, "too few to reach steady state") || c.SuggestRequests <= 200 {
		t.Fatalf("200 requests at 20 req/s: warning %q, suggests %d", c.Warning, c.SuggestRequests)
	}
	t.Log(c.Warning)
	reqs, r = rampRun(t, c.SuggestRequests, 20, 1)
	_, long := Window(reqs, r, 20)
	finite(t, long)
	if long.Warning != "" || long.Batches != confidenceBatches || !long.Steady || long.TPOTMeanHW <= 0 || long.TTFTP90HW <= 0 {
		t.Errorf("%d requests (as suggested): warning %q, %d batches, steady %v, TPOT ±%g", c.SuggestRequests, long.Warning, long.Batches,
			long.Steady, long.TPOTMeanHW)
	}
}

// The ramp is long here (a request stays 10 s and the batch grows to about 200 sequences): the
// whole run's mean TPOT counts the first requests, served in small batches, and the last ones,
// served while the batch empties; the steady window's mean leaves them out, is higher, and is
// nearer to a run twenty times as long (within its interval, where the whole run's mean is not).
func TestWarmupExclusionChangesMean(t *testing.T) {
	reqs, r := rampRun(t, 1500, 20, 3)
	keep, c := Window(reqs, r, 20)
	whole := Summarize(reqs, r)
	win := SummarizeWindow(reqs, r, keep)
	if c.WarmupRequests == 0 || c.DrainRequests == 0 {
		t.Fatalf("no warm-up (%d) or drain (%d) found", c.WarmupRequests, c.DrainRequests)
	}
	if !(win.TPOTMean > whole.TPOTMean*1.01) {
		t.Errorf("window TPOT %.5g, whole run %.5g: the warm-up's small batches should lower the whole run's mean", win.TPOTMean, whole.TPOTMean)
	}
	lreqs, lr := rampRun(t, 30000, 20, 99)
	lkeep, _ := Window(lreqs, lr, 20)
	truth := SummarizeWindow(lreqs, lr, lkeep).TPOTMean
	if d := math.Abs(win.TPOTMean - truth); d > c.TPOTMeanHW {
		t.Errorf("window TPOT %.5g ± %.2g misses a long run's %.5g", win.TPOTMean, c.TPOTMeanHW, truth)
	}
	if d := math.Abs(whole.TPOTMean - truth); d <= math.Abs(win.TPOTMean-truth) {
		t.Errorf("whole run's TPOT %.5g is nearer to the long run's %.5g than the window's %.5g", whole.TPOTMean, truth, win.TPOTMean)
	}
	t.Logf("TPOT: whole %.5g, window %.5g ± %.2g (warm-up %d, drain %d), long run %.5g", whole.TPOTMean, win.TPOTMean, c.TPOTMeanHW,
		c.WarmupRequests, c.DrainRequests, truth)
}

// Past capacity (about 23 req/s here) the queue keeps growing: not steady, rising, said.
func TestOverloadNotSteady(t *testing.T) {
	reqs, r := rampRun(t, 6000, 40, 1)
	_, c := Window(reqs, r, 40)
	finite(t, c)
	if c.Steady || !c.Rising() || !strings.Contains(c.Warning, "queue keeps growing") {
		t.Errorf("40 req/s: steady %v, rising %v, %.1f → %.1f, warning %q", c.Steady, c.Rising(), c.InSystemFirst, c.InSystemSecond, c.Warning)
	}
	// Well under it, steady.
	reqs, r = rampRun(t, 6000, 10, 1)
	if _, c := Window(reqs, r, 10); !c.Steady || c.Rising() || c.Warning != "" {
		t.Errorf("10 req/s: steady %v, %.1f → %.1f, warning %q", c.Steady, c.InSystemFirst, c.InSystemSecond, c.Warning)
	}
}

// Every request at once and closed loops have no steady window: their figures are the whole
// run's; a window is the same for the same run, and no figure is NaN on tiny runs.
func TestWindowScopeAndEdges(t *testing.T) {
	reqs := Generate(Workload{N: 50, Prompt: model.FixedDist(100), Gen: model.FixedDist(20), Seed: 1})
	r, err := Run(base(), reqs, rampCost)
	if err != nil {
		t.Fatal(err)
	}
	if keep, _ := Window(reqs, r, 0); keep != nil {
		t.Error("all at once: a window")
	}
	if got, want := SummarizeWindow(reqs, r, nil), Summarize(reqs, r); got != want {
		t.Errorf("no window: %+v, want the whole run's %+v", got, want)
	}
	for _, n := range []int{1, 2, 3, 12} {
		reqs, r := rampRun(t, n, 5, 2)
		keep, c := Window(reqs, r, 5)
		finite(t, c)
		if n >= 2 && (keep == nil || c.Warning == "") {
			t.Errorf("%d requests: keep %v, warning %q", n, keep, c.Warning)
		}
		s := SummarizeWindow(reqs, r, keep)
		for _, v := range []float64{s.TTFTMean, s.TTFTP90, s.TPOTMean, s.TPOTP90} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%d requests: %+v", n, s)
			}
		}
	}
	reqs, r = rampRun(t, 800, 15, 4)
	k1, c1 := Window(reqs, r, 15)
	k2, c2 := Window(reqs, r, 15)
	if c1 != c2 || len(k1) != len(k2) {
		t.Errorf("the same run twice: %+v and %+v", c1, c2)
	}
}
