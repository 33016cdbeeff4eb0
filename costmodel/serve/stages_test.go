package serve

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

var stagedWorkload = Workload{Prompt: model.LengthDist{Kind: model.Uniform, Min: 100, Max: 900},
	Gen: model.LengthDist{Kind: model.LogNormal, Mean: 200, Sigma: 0.5, Max: 1000}, Seed: 7,
	Stages: []model.RateStage{{Rate: 2, DurationS: 300}, {Rate: 10, Requests: 500}, {Rate: 25, DurationS: 200}}}

// The same seed draws the same requests and stages; another seed other ones.
func TestGenerateStagesDeterministic(t *testing.T) {
	a, sa := GenerateStages(stagedWorkload)
	b, sb := GenerateStages(stagedWorkload)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(sa, sb) {
		t.Fatal("same seed, different requests")
	}
	w := stagedWorkload
	w.Seed = 8
	c, _ := GenerateStages(w)
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 drew the same requests")
	}
	// Without stages, a single rate draws what it always drew: the lengths do not depend on
	// the rate, the arrivals scale with 1/rate.
	one := Workload{N: 50, Rate: 4, Prompt: stagedWorkload.Prompt, Gen: stagedWorkload.Gen, Seed: 3}
	two := one
	two.Rate = 8
	x, y := Generate(one), Generate(two)
	for i := range x {
		if x[i].Prompt != y[i].Prompt || x[i].Gen != y[i].Gen || math.Abs(x[i].Arrival-2*y[i].Arrival) > 1e-9 || x[i].Stage != 0 {
			t.Fatalf("request %d: %+v at 4 req/s, %+v at 8", i, x[i], y[i])
		}
	}
}

// Each stage's arrivals: in order, inside its span, tagged with it; a stage of a duration draws a
// Poisson number of them (within 4.5 standard deviations of rate × duration, over many seeds,
// and their mean within 3 standard errors), a stage of requests exactly that many.
func TestStageArrivalCounts(t *testing.T) {
	const seeds = 40
	var sum [3]float64
	for seed := uint64(1); seed <= seeds; seed++ {
		w := stagedWorkload
		w.Seed = seed
		reqs, spans := GenerateStages(w)
		if len(spans) != 3 {
			t.Fatalf("%d spans", len(spans))
		}
		for s, sp := range spans {
			st := w.Stages[s]
			for i := sp.First; i < sp.First+sp.N; i++ {
				q := reqs[i]
				if q.Stage != s || q.Arrival < sp.Start || q.Arrival >= sp.End+1e-12 || (i > 0 && q.Arrival < reqs[i-1].Arrival) {
					t.Fatalf("seed %d stage %d [%g, %g): request %d %+v", seed, s+1, sp.Start, sp.End, i, q)
				}
			}
			if st.Requests > 0 {
				if sp.N != st.Requests {
					t.Errorf("seed %d stage %d: %d requests, want %d", seed, s+1, sp.N, st.Requests)
				}
				continue
			}
			mean := st.Rate * st.DurationS
			if math.Abs(float64(sp.N)-mean) > 4.5*math.Sqrt(mean) {
				t.Errorf("seed %d stage %d: %d arrivals in %g s at %g req/s (mean %g)", seed, s+1, sp.N, st.DurationS, st.Rate, mean)
			}
			if math.Abs(sp.End-sp.Start-st.DurationS) > 1e-9 {
				t.Errorf("seed %d stage %d lasts %g s, want %g", seed, s+1, sp.End-sp.Start, st.DurationS)
			}
			sum[s] += float64(sp.N)
		}
		if spans[2].First+spans[2].N != len(reqs) || spans[1].Start != spans[0].End || spans[2].Start != spans[1].End {
			t.Fatalf("seed %d: spans %+v for %d requests", seed, spans, len(reqs))
		}
	}
	for _, s := range []int{0, 2} {
		st := stagedWorkload.Stages[s]
		mean := st.Rate * st.DurationS
		if got := sum[s] / seeds; math.Abs(got-mean) > 3*math.Sqrt(mean/seeds) {
			t.Errorf("stage %d: mean %g arrivals over %d seeds, want %g", s+1, got, seeds, mean)
		}
	}
}

// The system prompt is in every prompt, or in about its share of them.
func TestSystemPrompt(t *testing.T) {
	w := Workload{N: 4000, Rate: 1, Prompt: model.FixedDist(100), Gen: model.FixedDist(10), Seed: 1, System: 500}
	for _, q := range Generate(w) {
		if q.Prompt != 600 {
			t.Fatalf("prompt %d, want 100 + 500", q.Prompt)
		}
	}
	w.SystemShare = 0.25
	with := 0
	plain := Generate(Workload{N: 4000, Rate: 1, Prompt: model.FixedDist(100), Gen: model.FixedDist(10), Seed: 1})
	for i, q := range Generate(w) {
		switch q.Prompt {
		case 600:
			with++
		case 100:
		default:
			t.Fatalf("prompt %d", q.Prompt)
		}
		if q.Arrival != plain[i].Arrival {
			t.Fatalf("request %d: the system prompt moved its arrival", i)
		}
	}
	if math.Abs(float64(with)-1000) > 4.5*math.Sqrt(4000*0.25*0.75) {
		t.Errorf("%d of 4000 requests carry it, want about 1000", with)
	}
}

// A cached system prompt: every request that carries it shares it as prefix group 1 (the engine
// decides hits as it runs), none is marked Cached; uncached, none shares it.
func TestSystemPromptCached(t *testing.T) {
	w := Workload{N: 400, Rate: 1, Prompt: model.FixedDist(100), Gen: model.FixedDist(10), Seed: 1, System: 500, SystemShare: 0.5}
	w.SystemCached = true
	for i, q := range Generate(w) {
		switch {
		case q.Cached != 0:
			t.Fatalf("request %d: %d tokens cached, want the engine to decide", i, q.Cached)
		case q.Prompt == 100 && (q.Group != 0 || q.Shared != 0):
			t.Fatalf("request %d carries no system prompt yet shares group %d, %d tokens", i, q.Group, q.Shared)
		case q.Prompt == 600 && (q.Group != 1 || q.Shared != 500):
			t.Fatalf("request %d: group %d, %d shared tokens, want 1 and the system prompt's 500", i, q.Group, q.Shared)
		}
	}
	w.SystemCached = false
	for i, q := range Generate(w) {
		if q.Cached != 0 || q.Group != 0 {
			t.Fatalf("uncached: request %d has %d tokens cached, group %d", i, q.Cached, q.Group)
		}
	}
}

// GapStats on a hand-built set: the percentiles of the gaps laid out one by one, by group.
func TestGapStatsHandBuilt(t *testing.T) {
	// Runs: 0.03 s seen by requests 0, 1, 2; 0.01 by 0 and 3; 0.02 by 1; 0.05 by 3.
	g := Gaps{Gap: []float64{0.03, 0.01, 0.02, 0.05}, Off: []int32{0, 3, 5, 6}, IDs: []int32{0, 1, 2, 0, 3, 1, 3}}
	group := []int32{0, 0, -1, 1}
	d := GapStats(g, group, 2)
	// Group 0 (requests 0 and 1): 0.03, 0.03, 0.01, 0.02 → sorted 0.01 0.02 0.03 0.03.
	want0 := []float64{0.01, 0.02, 0.03, 0.03}
	// Group 1 (request 3): 0.01, 0.05.
	want1 := []float64{0.01, 0.05}
	for gr, want := range [][]float64{want0, want1} {
		var mean float64
		for _, x := range want {
			mean += x / float64(len(want))
		}
		got := d[gr]
		if got.N != len(want) || !near(got.Mean, mean) || !near(got.P50, Percentile(want, 50)) || !near(got.P90, Percentile(want, 90)) ||
			!near(got.P99, Percentile(want, 99)) {
			t.Errorf("group %d: %+v, want n %d mean %g p50 %g p90 %g p99 %g", gr, got, len(want), mean, Percentile(want, 50),
				Percentile(want, 90), Percentile(want, 99))
		}
	}
	// By hand: p90 of group 0 is at position 2.7 (0.03), of group 1 at 0.9: 0.01 + 0.9 · 0.04.
	if !near(d[0].P90, 0.03) || !near(d[1].P90, 0.046) || !near(d[0].P50, 0.025) {
		t.Errorf("p90 %g and %g, p50 %g; want 0.03, 0.046, 0.025", d[0].P90, d[1].P90, d[0].P50)
	}
}

// A run's ITL: one request alone gets a token each decode step, every gap one step; two
// requests whose prefill lands between another's tokens make that gap longer, which TPOT (a
// mean a request) hides and ITL's p99 shows.
func TestRunITL(t *testing.T) {
	c := linear{fixed: 2e-3, perToken: 1e-5}
	cfg := base()
	cfg.ITL = true
	r, s := run(t, cfg, []Request{{Prompt: 1000, Gen: 50}}, c)
	if n := len(r.ITL.IDs); n != 49 || !near(s.ITLMean, c.fixed+c.perToken) || !near(s.ITLP99, c.fixed+c.perToken) {
		t.Errorf("one request: %d gaps, ITL mean %g p99 %g, want 49 of %g", n, s.ITLMean, s.ITLP99, c.fixed+c.perToken)
	}
	// Requests 1 to 5 arrive mid-decode with 4000-token prompts: the steps that prefill them are
	// long, 5 of request 0's 199 gaps.
	reqs := []Request{{Prompt: 100, Gen: 200}}
	for i := 1; i <= 5; i++ {
		reqs = append(reqs, Request{Arrival: 0.05 * float64(i), Prompt: 4000, Gen: 2})
	}
	r, s = run(t, cfg, reqs, c)
	long := c.fixed + c.perToken*4001
	var most float64
	for _, x := range r.ITL.Gap {
		most = math.Max(most, x)
	}
	if !near(most, long) || s.ITLP99 <= s.TPOTP99 || s.ITLMean <= 0 {
		t.Errorf("longest gap %g (want %g), ITL p99 %g against TPOT p99 %g", most, long, s.ITLP99, s.TPOTP99)
	}
	// Without Config.ITL nothing is kept.
	cfg.ITL = false
	if r, s := run(t, cfg, reqs, c); len(r.ITL.Gap) != 0 || s.ITLMean != 0 {
		t.Errorf("ITL off: %d runs", len(r.ITL.Gap))
	}
}

// A light stage is steady; one well past capacity (about 23 req/s with this cost) says
// "saturated: the queue grows at N req/s", N its offered less its served rate.
func TestStagesSaturated(t *testing.T) {
	w := Workload{Prompt: model.FixedDist(200), Gen: model.FixedDist(1000), Seed: 1,
		Stages: []model.RateStage{{Rate: 5, DurationS: 400}, {Rate: 40, DurationS: 150}}}
	reqs, spans := GenerateStages(w)
	cfg := base()
	cfg.ITL = true
	r, err := Run(cfg, reqs, rampCost)
	if err != nil {
		t.Fatal(err)
	}
	st := Stages(reqs, r, spans)
	if len(st) != 2 {
		t.Fatalf("%d stages", len(st))
	}
	light, heavy := st[0], st[1]
	if light.Saturated || strings.Contains(light.State, "saturated") || !light.Steady || light.ITL.N == 0 || light.TTFT.N != light.Measured {
		t.Errorf("light stage: %+v", light)
	}
	if !heavy.Saturated || !strings.HasPrefix(heavy.State, "saturated: the queue grows at ") || heavy.QueueGrowthPerS <= 5 ||
		math.Abs(heavy.QueueGrowthPerS-(heavy.Rate-heavy.ServedPerS)) > 1e-9 || heavy.ServedPerS >= 0.9*heavy.Rate {
		t.Errorf("heavy stage: %+v", heavy)
	}
	if heavy.TTFT.Mean <= light.TTFT.Mean || heavy.ITL.Mean <= light.ITL.Mean {
		t.Errorf("TTFT %g then %g, ITL %g then %g", light.TTFT.Mean, heavy.TTFT.Mean, light.ITL.Mean, heavy.ITL.Mean)
	}
}
