package serve

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// linear is a step cost of fixed + perToken · tokens + perCtx · (keys read) on every stage, and
// xfer per token between stages.
type linear struct {
	fixed, perToken, perCtx, xfer float64
}

func (c linear) Stage(_ int, b *Batch) StageTime {
	return StageTime{Seconds: c.fixed + c.perToken*float64(b.Tokens()) + c.perCtx*(b.DecodeCtx+b.PrefillAttn)}
}

func (c linear) Transfer(_ int, b *Batch) float64 { return c.xfer * float64(b.Tokens()) }

func base() Config {
	return Config{Replicas: 1, Stages: 1, MaxSeqs: 256, MaxBatchTokens: 8192, KVBlocks: 1 << 20, BlockTokens: 16}
}

func run(t *testing.T, cfg Config, reqs []Request, c StepCost) (Result, Stats) {
	t.Helper()
	r, err := Run(cfg, reqs, c)
	if err != nil {
		t.Fatal(err)
	}
	return r, Summarize(reqs, r)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// One request alone: its first token comes after its prefill, each next one after one decode
// step; with PP every token crosses every stage, so PP does not shorten it.
func TestOneRequestOracle(t *testing.T) {
	c := linear{fixed: 2e-3, perToken: 1e-5, xfer: 1e-7}
	for _, p := range []int{1, 2, 4} {
		cfg := base()
		cfg.Stages = p
		reqs := []Request{{Prompt: 1000, Gen: 50}}
		_, s := run(t, cfg, reqs, c)
		pf := float64(p)
		wantTTFT := pf*(c.fixed+1000*c.perToken) + (pf-1)*1000*c.xfer
		wantTPOT := pf*(c.fixed+c.perToken) + (pf-1)*c.xfer
		if !near(s.TTFTMean, wantTTFT) || !near(s.TPOTMean, wantTPOT) {
			t.Errorf("p=%d: TTFT %g TPOT %g, want %g and %g", p, s.TTFTMean, s.TPOTMean, wantTTFT, wantTPOT)
		}
		if !near(s.E2EMean, wantTTFT+49*wantTPOT) {
			t.Errorf("p=%d: e2e %g, want %g", p, s.E2EMean, wantTTFT+49*wantTPOT)
		}
	}
}

// A prompt longer than the token budget is prefilled in chunks, one a step.
func TestChunkedPrefill(t *testing.T) {
	c := linear{fixed: 1e-3, perToken: 1e-6}
	cfg := base()
	cfg.MaxBatchTokens = 512
	_, s := run(t, cfg, []Request{{Prompt: 1300, Gen: 1}}, c)
	want := 3*c.fixed + 1300*c.perToken // 512 + 512 + 276
	if !near(s.TTFTMean, want) {
		t.Errorf("TTFT %g, want %g (three chunks)", s.TTFTMean, want)
	}
}

// Little's law holds on the simulated queue: the time-average number of requests in the
// system equals the throughput times the mean time in the system; every request ends, in
// order of its own events.
func TestLittleAndConservation(t *testing.T) {
	c := linear{fixed: 5e-3, perToken: 2e-5, perCtx: 1e-9}
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		rate float64
	}{
		{"open loop", func(*Config) {}, 40},
		{"offline", func(*Config) {}, 0},
		{"closed loop", func(c *Config) { c.Concurrency = 16 }, 0},
		{"pp 4, dp 2, tight KV", func(c *Config) { c.Stages, c.Replicas, c.KVBlocks = 4, 2, 800 }, 60},
	} {
		cfg := base()
		tc.cfg(&cfg)
		reqs := Generate(Workload{N: 400, Rate: tc.rate, Prompt: model.LengthDist{Kind: model.Uniform, Min: 100, Max: 1500},
			Gen: model.LengthDist{Kind: model.LogNormal, Mean: 200, Sigma: 0.6, Max: 1000}, Seed: 7})
		r, s := run(t, cfg, reqs, c)
		if s.Completed+s.Rejected != len(reqs) || s.Completed == 0 {
			t.Fatalf("%s: %d completed + %d rejected of %d", tc.name, s.Completed, s.Rejected, len(reqs))
		}
		for i := range reqs {
			if r.Rejected[i] {
				continue
			}
			if !(r.Arrival[i] <= r.FirstToken[i] && r.FirstToken[i] <= r.Done[i] && r.Done[i] <= r.Duration) {
				t.Fatalf("%s: request %d arrives %g, first token %g, done %g (duration %g)", tc.name, i,
					r.Arrival[i], r.FirstToken[i], r.Done[i], r.Duration)
			}
		}
		if s.Rejected == 0 && !near(r.MeanInSystem, s.RequestsPerS*s.E2EMean) {
			t.Errorf("%s: L = %g, λW = %g", tc.name, r.MeanInSystem, s.RequestsPerS*s.E2EMean)
		}
		if cfg.Concurrency > 0 && r.MeanInSystem > float64(cfg.Concurrency)+1e-9 {
			t.Errorf("%s: %g requests in the system on average with %d clients", tc.name, r.MeanInSystem, cfg.Concurrency)
		}
		t.Logf("%s: %d steps, %d preemptions, L %.2f, %.1f req/s, TTFT p50 %.3g s, TPOT p50 %.3g s",
			tc.name, r.Steps, r.Preemptions, r.MeanInSystem, s.RequestsPerS, s.TTFTP50, s.TPOTP50)
	}
}

// The KV cache bounds the running sequences: with room for about four requests' prompts, no
// more run at once, and growing outputs preempt.
func TestKVCapacity(t *testing.T) {
	c := linear{fixed: 1e-3, perToken: 1e-6}
	cfg := base()
	cfg.KVBlocks = 4 * 1024 / 16 // 4 × 1024 tokens
	reqs := make([]Request, 32)
	for i := range reqs {
		reqs[i] = Request{Prompt: 1000, Gen: 500}
	}
	r, s := run(t, cfg, reqs, c)
	if r.MaxRunning > 4 || r.MaxRunning < 2 {
		t.Errorf("%d sequences ran at once, want at most 4 (and more than one)", r.MaxRunning)
	}
	if r.Preemptions == 0 {
		t.Errorf("no preemption with outputs that outgrow the cache")
	}
	if s.Completed != len(reqs) || r.KVPeak > 1 || r.KVPeak < 0.9 {
		t.Errorf("%d completed, KV peak %.2f", s.Completed, r.KVPeak)
	}
	// A request that cannot fit even alone is refused, the others served.
	reqs = append(reqs, Request{Prompt: 5000, Gen: 10})
	r, s = run(t, cfg, reqs, c)
	if !r.Rejected[len(reqs)-1] || s.Rejected != 1 || s.Completed != len(reqs)-1 {
		t.Errorf("rejected %v, %d completed, %d rejected", r.Rejected[len(reqs)-1], s.Completed, s.Rejected)
	}
}

// More KV blocks (an fp8 cache holds twice the tokens) never run fewer sequences at once.
func TestMoreKVMoreConcurrency(t *testing.T) {
	c := linear{fixed: 2e-3, perToken: 1e-5, perCtx: 1e-9}
	reqs := Generate(Workload{N: 300, Prompt: model.FixedDist(800), Gen: model.FixedDist(300), Seed: 1})
	prev := 0
	for _, blocks := range []int{200, 400, 800, 1600, 3200} {
		cfg := base()
		cfg.KVBlocks = blocks
		r, _ := run(t, cfg, reqs, c)
		if r.MaxRunning < prev {
			t.Errorf("%d blocks: %d at once, fewer than %d with fewer blocks", blocks, r.MaxRunning, prev)
		}
		prev = r.MaxRunning
	}
}

// More offered load never lowers the mean latency (same requests, arrivals closer together).
func TestRateMonotone(t *testing.T) {
	c := linear{fixed: 4e-3, perToken: 3e-5, perCtx: 2e-9}
	var prev Stats
	for i, rate := range []float64{1, 2, 4, 8, 16, 32, 64, 128} {
		reqs := Generate(Workload{N: 500, Rate: rate, Prompt: model.LengthDist{Kind: model.Uniform, Min: 200, Max: 2000},
			Gen: model.LengthDist{Kind: model.Uniform, Min: 50, Max: 400}, Seed: 3})
		_, s := run(t, base(), reqs, c)
		if i > 0 && (s.E2EMean < prev.E2EMean*(1-1e-9) || s.TTFTMean < prev.TTFTMean*(1-1e-9)) {
			t.Errorf("rate %g: e2e %.4g s, TTFT %.4g s, below %.4g and %.4g at half the rate", rate, s.E2EMean,
				s.TTFTMean, prev.E2EMean, prev.TTFTMean)
		}
		prev = s
	}
}

// With several requests in flight PP raises throughput: p batches move through p stages.
func TestPipelineThroughput(t *testing.T) {
	reqs := Generate(Workload{N: 256, Prompt: model.FixedDist(200), Gen: model.FixedDist(200), Seed: 2})
	whole := linear{fixed: 8e-3, perToken: 1e-5}
	var tput [3]float64
	for i, p := range []int{1, 2, 4} {
		cfg := base()
		cfg.Stages = p
		cfg.MaxSeqs = 64
		pf := float64(p)
		_, s := run(t, cfg, reqs, linear{fixed: whole.fixed / pf, perToken: whole.perToken / pf})
		tput[i] = s.OutputTokensPerS
	}
	if !(tput[1] > 1.7*tput[0] && tput[2] > 1.7*tput[1]) {
		t.Errorf("output tokens/s with PP 1, 2, 4: %.0f %.0f %.0f: want close to doubling", tput[0], tput[1], tput[2])
	}
}

func TestPercentile(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	for _, c := range [][2]float64{{0, 1}, {50, 3}, {90, 4.6}, {99, 4.96}, {100, 5}} {
		if got := Percentile(x, c[0]); !near(got, c[1]) {
			t.Errorf("p%g = %g, want %g", c[0], got, c[1])
		}
	}
}

func TestBadConfig(t *testing.T) {
	c := linear{fixed: 1e-3}
	ok := []Request{{Prompt: 1, Gen: 1}}
	for name, tc := range map[string]struct {
		cfg  func(*Config)
		reqs []Request
	}{
		"replicas":    {func(c *Config) { c.Replicas = 0 }, ok},
		"stages":      {func(c *Config) { c.Stages = 0 }, ok},
		"max-seqs":    {func(c *Config) { c.MaxSeqs = 0 }, ok},
		"tokens":      {func(c *Config) { c.MaxBatchTokens = 0 }, ok},
		"block":       {func(c *Config) { c.BlockTokens = 0 }, ok},
		"empty":       {func(*Config) {}, nil},
		"gen 0":       {func(*Config) {}, []Request{{Prompt: 1, Gen: 0}}},
		"NaN arrival": {func(*Config) {}, []Request{{Prompt: 1, Gen: 1, Arrival: math.NaN()}}},
		"out of order": {func(*Config) {}, []Request{{Prompt: 1, Gen: 1, Arrival: 2},
			{Prompt: 1, Gen: 1, Arrival: 1}}},
	} {
		cfg := base()
		tc.cfg(&cfg)
		if _, err := Run(cfg, tc.reqs, c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkRun10k(b *testing.B) {
	reqs := Generate(Workload{N: 10000, Rate: 50, Prompt: model.LengthDist{Kind: model.Uniform, Min: 100, Max: 2000},
		Gen: model.LengthDist{Kind: model.Uniform, Min: 50, Max: 500}, Seed: 1})
	c := linear{fixed: 5e-3, perToken: 1e-5, perCtx: 1e-9}
	cfg := base()
	for b.Loop() {
		if _, err := Run(cfg, reqs, c); err != nil {
			b.Fatal(err)
		}
	}
}

// A prompt the prefix cache holds: its whole cached blocks are not prefilled, but its attention
// still reads them, and the last token is computed even when all of it is cached.
func TestPrefixCachedPrompt(t *testing.T) {
	c := linear{fixed: 1e-3, perToken: 1e-4, perCtx: 0}
	cfg := base()
	ttft := func(cached int) float64 {
		r, _ := run(t, cfg, []Request{{Prompt: 1000, Gen: 1, Cached: cached}}, c)
		return r.FirstToken[0] - r.Arrival[0]
	}
	// 990 cached tokens are 61 whole blocks of 16: 976 served, 24 prefilled.
	if got, want := ttft(990), 1e-3+24e-4; !near(got, want) {
		t.Errorf("990 of 1000 cached: TTFT %.6g s, want %.6g (24 tokens prefilled)", got, want)
	}
	if got, want := ttft(0), 1e-3+1000e-4; !near(got, want) {
		t.Errorf("none cached: TTFT %.6g s, want %.6g", got, want)
	}
	// All of it cached: the blocks short of the last token, 62 of them (992), 8 prefilled.
	if got, want := ttft(5000), 1e-3+8e-4; !near(got, want) {
		t.Errorf("all cached: TTFT %.6g s, want %.6g (8 tokens prefilled)", got, want)
	}
	if _, err := Run(cfg, []Request{{Prompt: 10, Gen: 1, Cached: -1}}, c); err == nil {
		t.Error("cached −1: no error")
	}
	// The attention of the prefilled tail reads the cached tokens before it.
	var seen []Batch
	rec := recorder{linear: c, seen: &seen}
	if _, err := Run(cfg, []Request{{Prompt: 1000, Gen: 1, Cached: 990}}, rec); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0].PrefillTokens != 24 || seen[0].PrefillCtx != 1000 {
		t.Errorf("first batch %+v: want 24 prefill tokens reading a context of 1000", seen)
	}
}

type recorder struct {
	linear
	seen *[]Batch
}

func (r recorder) Stage(s int, b *Batch) StageTime {
	*r.seen = append(*r.seen, *b)
	return r.linear.Stage(s, b)
}

// Overlap (vLLM V1's async scheduling): the step that starts when step k ends was built when
// step k started, so a request arriving during step k is first in step k+2; an idle engine
// builds its step at once.
func TestOverlapAdmitsAStepLater(t *testing.T) {
	c := linear{fixed: 10e-3} // every step 10 ms
	// A decodes from 0 (steps start at 0, 10, 20, 30 ms ...); B arrives at 25 ms, in the step
	// that started at 20 ms.
	reqs := []Request{{Prompt: 16, Gen: 100}, {Arrival: 25e-3, Prompt: 16, Gen: 5}}
	for _, c2 := range []struct {
		overlap bool
		want    float64 // B's first token
	}{{false, 40e-3}, {true, 50e-3}} {
		cfg := base()
		cfg.Overlap = c2.overlap
		r, _ := run(t, cfg, reqs, c)
		if !near(r.FirstToken[1], c2.want) || !near(r.FirstToken[0], 10e-3) {
			t.Errorf("overlap %v: first tokens at %g and %g s, want 0.01 and %g", c2.overlap, r.FirstToken[0], r.FirstToken[1], c2.want)
		}
		if !near(r.Done[0], 1.0) {
			t.Errorf("overlap %v: A done at %g s, want 1 (a token every step)", c2.overlap, r.Done[0])
		}
	}
	// Alone on an idle engine: no wait.
	cfg := base()
	cfg.Overlap = true
	r, _ := run(t, cfg, []Request{{Arrival: 1, Prompt: 16, Gen: 3}}, c)
	if !near(r.FirstToken[0], 1.01) {
		t.Errorf("idle engine: first token at %g s, want 1.01", r.FirstToken[0])
	}
}

// inSystemLog is a linear step cost that keeps each batch's InSystem as stage 0 sees it.
type inSystemLog struct {
	linear
	seen []int
}

func (c *inSystemLog) Stage(s int, b *Batch) StageTime {
	if s == 0 {
		c.seen = append(c.seen, b.InSystem)
	}
	return c.linear.Stage(s, b)
}

// A batch carries the replica's requests in the system when it is built: all 40 offline
// requests at first, though only 8 run at once (2 stages of 4), then fewer as they finish, down
// to the last two batches' 8; a request that has not yet arrived is not counted.
func TestBatchInSystem(t *testing.T) {
	cfg := base()
	cfg.Stages, cfg.MaxSeqs = 2, 4
	reqs := make([]Request, 40)
	for i := range reqs {
		reqs[i] = Request{Prompt: 16, Gen: 8}
	}
	c := &inSystemLog{linear: linear{fixed: 1e-3, perToken: 1e-5}}
	run(t, cfg, reqs, c)
	if len(c.seen) == 0 || c.seen[0] != 40 || c.seen[len(c.seen)-1] != 8 {
		t.Fatalf("in the system at each batch: %v, want 40 first and 8 last", c.seen)
	}
	for i := 1; i < len(c.seen); i++ {
		if c.seen[i] > c.seen[i-1] {
			t.Fatalf("in the system grew from %d to %d at batch %d with nothing arriving", c.seen[i-1], c.seen[i], i)
		}
	}
	late := []Request{{Prompt: 16, Gen: 4}, {Arrival: 10, Prompt: 16, Gen: 4}}
	c = &inSystemLog{linear: linear{fixed: 1e-3, perToken: 1e-5}}
	run(t, base(), late, c)
	if c.seen[0] != 1 || c.seen[len(c.seen)-1] != 1 {
		t.Errorf("a request arriving at 10 s counted before it came: %v", c.seen)
	}
}
