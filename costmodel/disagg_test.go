package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// disaggScenario is Llama 3 8B on 8 H100s of one node, TP 1, long prompts (prefill interferes
// with decode in one pool) at rate req/s.
func disaggScenario(t testing.TB, requests int, rate float64) model.Scenario {
	t.Helper()
	s := servingScenario(t, "llama-3-8b", "h100-sxm", requests, rate)
	s.Layout.TP, s.Layout.PP, s.Layout.DP = 1, 1, 8
	s.Workload.PromptTokens, s.Workload.GenTokens = 2048, 256
	return s
}

// withDisagg splits s's GPUs P:D, the decode pool keeping s's TP and PP.
func withDisagg(s model.Scenario, prefill int) model.Scenario {
	s.Layout.Disagg = model.Disagg{PrefillGPUs: prefill}
	s.Layout.DP = (s.Cluster.GPUs - prefill) / (s.Layout.TP * s.Layout.PP)
	return s
}

// freeLink makes every link of s instant: no latency, no bandwidth limit.
func freeLink(s model.Scenario) model.Scenario {
	for _, l := range []*model.Link{&s.Cluster.Intra, &s.Cluster.Inter} {
		l.Bandwidth, l.Latency, l.Efficiency = 1e18, 0, 1
	}
	return s
}

// Oracle: a prompt's KV cache crosses the link between the pools before its first token. At a
// load where nothing queues, TTFT over a slow link less TTFT over a free one is the transfer
// time the report states; every other figure moves by less than the transfer.
func TestDisaggTTFTHoldsTheTransfer(t *testing.T) {
	s := withDisagg(disaggScenario(t, 40, 0.5), 4)
	free := eval(t, freeLink(s))
	slow := s
	slow.Cluster.Intra.Bandwidth = 2e9 // a PCIe-class 2 GB/s: 268 MB of KV take ~0.13 s
	got := eval(t, slow)
	d := got.Inference.Disagg
	if d == nil || free.Inference.Disagg == nil {
		t.Fatal("no disagg detail in the report")
	}
	if !(d.KVTransferMeanS > 0.05) {
		t.Fatalf("KV transfer %.3g s over 2 GB/s: want the 268 MB prompt cache to take above 0.05 s", d.KVTransferMeanS)
	}
	extra := got.Inference.TTFT - free.Inference.TTFT
	if math.Abs(extra-d.KVTransferMeanS) > 0.02*d.KVTransferMeanS {
		t.Errorf("TTFT %.4g s over the slow link, %.4g s over a free one: %.4g s more, want the transfer %.4g s",
			got.Inference.TTFT, free.Inference.TTFT, extra, d.KVTransferMeanS)
	}
	if math.Abs(got.Inference.TPOT-free.Inference.TPOT) > 0.01*free.Inference.TPOT {
		t.Errorf("TPOT %.4g s vs %.4g s: the link should not change the decode steps", got.Inference.TPOT, free.Inference.TPOT)
	}
	// The prefill pool's own TTFT is the prompt alone: below the client's, which adds the
	// transfer and a decode step.
	if !(d.PrefillTTFTMean+d.KVTransferMeanS < got.Inference.TTFT) {
		t.Errorf("prefill pool's TTFT %.4g s + transfer %.4g s not below the client's %.4g s", d.PrefillTTFTMean, d.KVTransferMeanS, got.Inference.TTFT)
	}
}

// Oracle: with a free link and pools balanced for the load, disaggregation serves a high load
// at least as well as one pool of the same GPUs: the same requests per second, and decode steps
// no longer held up by prompts, so the tail of the gaps between tokens falls (DistServe's and
// vLLM's motivation for it: prefill–decode interference).
func TestDisaggFreeLinkBalancedBeatsAggregatedTail(t *testing.T) {
	agg := eval(t, disaggScenario(t, 3000, 40))
	dis := eval(t, freeLink(withDisagg(disaggScenario(t, 3000, 40), 4)))
	a, d := agg.Inference, dis.Inference
	if d.Completed != a.Completed || d.Rejected != 0 {
		t.Fatalf("completed %d (refused %d) disaggregated vs %d aggregated", d.Completed, d.Rejected, a.Completed)
	}
	if c := d.Confidence; c != nil && c.Rising() {
		t.Fatalf("the balanced pools saturate: %s", c.Warning)
	}
	if !(d.RequestsPerS >= 0.99*a.RequestsPerS) {
		t.Errorf("requests/s %.4g disaggregated vs %.4g aggregated", d.RequestsPerS, a.RequestsPerS)
	}
	if !(d.ITLP99 < 0.5*a.ITLP99) {
		t.Errorf("ITL p99 %.3g s disaggregated vs %.3g s aggregated: the decode pool runs no prompts, want its tail under half", d.ITLP99, a.ITLP99)
	}
	if !(d.TPOTP90 <= a.TPOTP90) {
		t.Errorf("TPOT p90 %.3g s disaggregated vs %.3g s aggregated", d.TPOTP90, a.TPOTP90)
	}
	t.Logf("aggregated: TTFT %.3g s, TPOT p90 %.3g s, ITL p99 %.3g s; 4:4 free link: TTFT %.3g s, TPOT p90 %.3g s, ITL p99 %.3g s",
		a.TTFT, a.TPOTP90, a.ITLP99, d.TTFT, d.TPOTP90, d.ITLP99)
}

// A prefill pool too small for the load saturates: its queue grows and the report says so.
func TestDisaggUnbalancedPrefillSaturates(t *testing.T) {
	r := eval(t, withDisagg(disaggScenario(t, 3000, 40), 1))
	c := r.Inference.Confidence
	if c == nil || !c.Rising() {
		t.Fatalf("1 prefill GPU for 40 req/s of 2048-token prompts: want a rising queue, got %+v", c)
	}
}

// Same scenario, same report: the pools are simulated deterministically.
func TestDisaggDeterministic(t *testing.T) {
	s := withDisagg(disaggScenario(t, 300, 20), 2)
	a, b := eval(t, s), eval(t, s)
	if a.Inference.TTFT != b.Inference.TTFT || a.Inference.TPOTP99 != b.Inference.TPOTP99 || a.StepTime != b.StepTime {
		t.Errorf("two runs differ: TTFT %v vs %v", a.Inference.TTFT, b.Inference.TTFT)
	}
}

// A closed loop on the pools (one clock for both, serve.RunPools): never more requests in the
// system than clients (Little's law: requests/s × mean E2E ≤ the clients, near them over a long
// run), each request's first token after its prefill alone plus its transfer, and with more
// clients more requests served a second but longer E2E. Deterministic.
func TestDisaggClosedLoop(t *testing.T) {
	run := func(clients int) Report {
		s := withDisagg(disaggScenario(t, 400, 0), 4)
		s.Workload.Concurrency = clients
		return eval(t, s)
	}
	var last Report
	for k, c := range []int{8, 32} {
		r := run(c)
		inf := r.Inference
		if inf.Rejected != 0 {
			t.Fatalf("%d clients: %d refused", c, inf.Rejected)
		}
		l := inf.RequestsPerS * inf.E2EMean
		if !(l <= float64(c)*(1+1e-9) && l >= 0.85*float64(c)) {
			t.Errorf("%d clients: requests/s %.3g × E2E %.3g s = %.3g in the system; want at most %d, near it", c, inf.RequestsPerS, inf.E2EMean, l, c)
		}
		if inf.MaxConcurrency < 1 || inf.MaxConcurrency > c {
			t.Errorf("%d clients: at most %d sequences running; want 1 to %d (the decode pool's batch)", c, inf.MaxConcurrency, c)
		}
		if d := inf.Disagg; d == nil || inf.TTFT < d.PrefillTTFTMean+d.KVTransferMeanS {
			t.Errorf("%d clients: TTFT %v under the prefill alone plus the transfer (%+v)", c, inf.TTFT, d)
		}
		if k > 0 && !(inf.RequestsPerS > last.Inference.RequestsPerS && inf.E2EMean > last.Inference.E2EMean) {
			t.Errorf("%d clients: %.3g req/s, E2E %.3g s; 8 clients %.3g req/s, %.3g s: want more served, each longer",
				c, inf.RequestsPerS, inf.E2EMean, last.Inference.RequestsPerS, last.Inference.E2EMean)
		}
		last = r
	}
	if again := run(32); again.Inference.TTFT != last.Inference.TTFT || again.StepTime != last.StepTime {
		t.Errorf("two runs differ: TTFT %v vs %v", again.Inference.TTFT, last.Inference.TTFT)
	}
}

// Conversations on the pools: the later turns come back to the prefill pool, which serves part
// of each from the conversation's cached prompt; more turns per conversation (the same 100
// conversations) raise the hit rate, and the run is whole (no refusals).
func TestDisaggConversations(t *testing.T) {
	hit := func(turns int) float64 {
		s := withDisagg(disaggScenario(t, 100, 2), 4)
		s.Workload.PromptTokens, s.Workload.GenTokens = 512, 64
		s.Workload.Turns, s.Workload.ThinkS = turns, 1
		inf := eval(t, s).Inference
		if inf.Rejected != 0 {
			t.Fatalf("%d turns: %d refused", turns, inf.Rejected)
		}
		return inf.PrefixHitRate
	}
	two, four := hit(2), hit(4)
	if !(two > 0.2 && four > two) {
		t.Errorf("prefix hit rate %.3f with 2 turns, %.3f with 4: want the prompts so far hit, more with more turns", two, four)
	}
}

// Bad splits are refused by name.
func TestDisaggBadInput(t *testing.T) {
	base := disaggScenario(t, 100, 5)
	for _, c := range []struct {
		name  string
		edit  func(*model.Scenario)
		field string
	}{
		{"pools do not add up", func(s *model.Scenario) { s.Layout.Disagg.PrefillGPUs = 8 }, "disagg"},
		{"negative", func(s *model.Scenario) { s.Layout.Disagg.PrefillGPUs = -1 }, "disagg"},
		{"training", func(s *model.Scenario) {
			*s = withDisagg(*s, 4)
			s.Workload.Mode = model.Train
		}, "disagg"},
		{"prefill tp splits no heads", func(s *model.Scenario) {
			*s = withDisagg(*s, 4)
			s.Layout.Disagg.PrefillTP = 3
		}, "prefill-tp"},
		{"prefill tp beyond the pool", func(s *model.Scenario) {
			*s = withDisagg(*s, 2)
			s.Layout.Disagg.PrefillTP = 4
		}, "prefill-tp"},
		{"decode pool split", func(s *model.Scenario) {
			*s = withDisagg(*s, 4)
			s.Layout.DP = 3
		}, "dp"},
	} {
		s := base
		c.edit(&s)
		_, err := Evaluate(s)
		var ve model.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: got %v, want a validation error", c.name, err)
			continue
		}
		found := false
		for _, fe := range ve {
			found = found || fe.Field == c.field
		}
		if !found {
			t.Errorf("%s: %v does not name %s", c.name, err, c.field)
		}
	}
}

// Search with DisaggAuto tries one pool and every pool split: each disaggregated candidate is
// what Evaluate says of its layout, and fixing the pools keeps only that split.
func TestSearchDisaggAuto(t *testing.T) {
	s := disaggScenario(t, 400, 20)
	res, err := Search(s, SearchOptions{Fix: SearchFix{DisaggAuto: true}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range res.Candidates[:res.Feasible] {
		seen[c.Layout.Disagg.PrefillGPUs] = true
		if !c.Layout.Disagg.On() || c.Report.Inference == nil {
			continue
		}
		sc := s
		sc.Layout = c.Layout
		r := eval(t, sc)
		if r.Inference.Disagg == nil || r.Inference.Disagg.PrefillGPUs != c.Layout.Disagg.PrefillGPUs {
			t.Fatalf("%+v: Evaluate reports no pools", c.Layout)
		}
		if c.Report.Inference.Disagg == nil {
			t.Fatalf("%+v: the search's report has no pools", c.Layout)
		}
	}
	for p := 0; p < 8; p++ {
		if !seen[p] {
			t.Errorf("no feasible candidate with %d GPUs prefilling (0: one pool)", p)
		}
	}

	fixed, err := Search(s, SearchOptions{Fix: SearchFix{Disagg: model.Disagg{PrefillGPUs: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Feasible == 0 {
		t.Fatal("no feasible candidate with the pools fixed 2:6")
	}
	for _, c := range fixed.Candidates {
		if c.Layout.Disagg.PrefillGPUs != 2 || c.Layout.TP*c.Layout.PP*c.Layout.DP != 6 {
			t.Errorf("pools fixed 2:6, got %+v", c.Layout)
		}
	}
	train := s
	train.Workload.Mode = model.Train
	if _, err := Search(train, SearchOptions{Fix: SearchFix{DisaggAuto: true}}); err == nil {
		t.Error("a training search with disaggregated pools: want an error naming disagg")
	}
}

// Oracle: a prefix-cache hit rate of 1 skips the prefill (all but each prompt's last block's
// tokens are cached): a 4096-token prompt's first token comes about as soon as a 16-token
// prompt's, and the hit rate never raises TTFT.
func TestPrefixHitSkipsPrefill(t *testing.T) {
	s := servingScenario(t, "llama-3-8b", "h100-sxm", 50, 2)
	s.Cluster.GPUs, s.Layout.TP, s.Layout.PP, s.Layout.DP = 1, 1, 1, 1
	s.Workload.PromptTokens, s.Workload.GenTokens = 4096, 64
	prev := math.Inf(1)
	var none float64
	for _, hit := range []float64{0, 0.5, 0.9, 1} {
		s.Workload.PrefixHit = hit
		ttft := eval(t, s).Inference.TTFT
		if ttft > prev*(1+1e-9) {
			t.Errorf("prefix hit %.2g: TTFT %.4g s above %.4g s at a lower hit rate", hit, ttft, prev)
		}
		if hit == 0 {
			none = ttft
		}
		prev = ttft
	}
	s.Workload.PrefixHit, s.Workload.PromptTokens = 0, 16
	short := eval(t, s).Inference.TTFT
	if !(prev < 1.5*short && prev < 0.5*none) {
		t.Errorf("hit 1 at 4096 tokens: TTFT %.4g s; a 16-token prompt's %.4g s, no hit %.4g s", prev, short, none)
	}
	s.Workload.PrefixHit = 1.5
	if _, err := Evaluate(s); err == nil || !strings.Contains(err.Error(), "prefix-hit") {
		t.Errorf("prefix hit 1.5: %v, want an error naming prefix-hit", err)
	}
}

// Search tries the prefill pool's CP where prompts are long (as aggregated serving's CP), only
// as given where they are short, and with CP a long prompt's first token comes sooner.
func TestDisaggSearchTriesPrefillCP(t *testing.T) {
	long := disaggScenario(t, 200, 1)
	long.Workload.PromptTokens, long.Workload.GenTokens = 16384, 64
	hasCP := func(opts []model.Disagg) bool {
		for _, o := range opts {
			if o.PrefillCP > 1 {
				if o.PrefillGPUs%(o.PrefillTP*o.PrefillCP) != 0 {
					t.Errorf("%+v: TP × CP does not divide the prefill pool", o)
				}
				return true
			}
		}
		return false
	}
	if !hasCP(disaggOptions(long, SearchFix{DisaggAuto: true})) {
		t.Error("16K-token prompts: no prefill CP tried")
	}
	short := disaggScenario(t, 200, 1)
	if hasCP(disaggOptions(short, SearchFix{DisaggAuto: true})) {
		t.Error("2K-token prompts: prefill CP tried")
	}
	if opts := disaggOptions(short, SearchFix{Disagg: model.Disagg{PrefillGPUs: 4, PrefillTP: 1, PrefillCP: 2}}); !hasCP(opts) || len(opts) != 1 {
		t.Errorf("a fixed prefill CP: %+v", opts)
	}
	// The same split with and without CP 4 in the prefill pool: CP cuts the prefill's TTFT.
	with, without := withDisagg(long, 4), withDisagg(long, 4)
	with.Layout.Disagg.PrefillCP = 4
	a, b := eval(t, with).Inference, eval(t, without).Inference
	if !(a.Disagg.PrefillTTFTMean < b.Disagg.PrefillTTFTMean) {
		t.Errorf("prefill TTFT with CP 4 %.3g s, without %.3g s", a.Disagg.PrefillTTFTMean, b.Disagg.PrefillTTFTMean)
	}
}
