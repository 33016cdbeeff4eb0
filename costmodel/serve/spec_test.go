package serve

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// charged prices every decode sequence as if it verified k proposals: a plain engine (no
// speculation) paying a speculative engine's step, the acceptance-0 oracle's reference.
type charged struct {
	c StepCost
	k int
}

func (c charged) Stage(s int, b *Batch) StageTime {
	x := *b
	if x.DecodeSeqs > 0 {
		x.Spec = c.k
		x.DecodeCtx += float64(x.DecodeSeqs * c.k)
		x.Samples += x.DecodeSeqs * c.k
	}
	return c.c.Stage(s, &x)
}

func (c charged) Transfer(s int, b *Batch) float64 {
	x := *b
	if x.DecodeSeqs > 0 {
		x.Spec = c.k
	}
	return c.c.Transfer(s, &x)
}

func specWorkload(n int, rate float64) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Arrival: float64(i) / rate, Prompt: 100 + 37*(i%11), Gen: 20 + 13*(i%7)}
	}
	return reqs
}

// With every proposal rejected, a speculative engine yields one token a decode step, each step
// at the verify step's cost: exactly a plain engine charged that cost (with room enough in the
// budget and the cache that the K slots change no admission).
func TestSpecAcceptZeroIsVerifyOverhead(t *testing.T) {
	c := linear{fixed: 3e-3, perToken: 2e-5, perCtx: 1e-8, xfer: 1e-7}
	reqs := specWorkload(120, 30)
	for _, p := range []int{1, 2} {
		for _, k := range []int{1, 4} {
			cfg := base()
			cfg.Stages = p
			cfg.ITL = true
			ref, err := Run(cfg, reqs, charged{c, k})
			if err != nil {
				t.Fatal(err)
			}
			cfg.SpecTokens, cfg.SpecAccepted = k, 0
			got, err := Run(cfg, reqs, c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range reqs {
				if got.FirstToken[i] != ref.FirstToken[i] || got.Done[i] != ref.Done[i] {
					t.Fatalf("pp %d, k %d, request %d: first token %v, done %v; a plain engine at the verify cost: %v, %v",
						p, k, i, got.FirstToken[i], got.Done[i], ref.FirstToken[i], ref.Done[i])
				}
			}
			if got.Steps != ref.Steps || got.SpecTokens0 != got.SpecSeqSteps0 {
				t.Errorf("pp %d, k %d: %d steps against %d; %g tokens from %g speculative sequence-steps (want one each)",
					p, k, got.Steps, ref.Steps, got.SpecTokens0, got.SpecSeqSteps0)
			}
		}
	}
}

// Every request gets exactly its tokens: its first from its prefill, the rest from speculative
// steps of 1 + accepted tokens, never past its end.
func TestSpecConservesTokens(t *testing.T) {
	c := linear{fixed: 3e-3, perToken: 2e-5, perCtx: 1e-8}
	for _, acc := range []float64{0, 0.35, 1.9, 3} {
		reqs := specWorkload(150, 50)
		cfg := base()
		cfg.SpecTokens, cfg.SpecAccepted = 3, acc
		cfg.MaxSeqs, cfg.KVBlocks = 24, 500
		r, _ := run(t, cfg, reqs, c)
		var want float64
		for i, q := range reqs {
			if r.Rejected[i] {
				t.Fatalf("request %d refused", i)
			}
			want += float64(q.Gen - 1)
		}
		// Preempted sequences recompute their tokens in a prompt: tokens are counted once, when
		// a decode step yields them.
		if r.SpecTokens0 != want {
			t.Errorf("accepted %g a step: %g tokens from speculative steps, want %g (Σ gen − 1)", acc, r.SpecTokens0, want)
		}
		if acc > 0 && !(r.SpecTokens0/r.SpecSeqSteps0 > 1) {
			t.Errorf("accepted %g a step: %g tokens a step", acc, r.SpecTokens0/r.SpecSeqSteps0)
		}
	}
}

// One request alone with acceptance a: its decode takes ⌈(gen−1)/(1+E)⌉-ish steps; with a
// whole E every step yields exactly 1+E tokens.
func TestSpecOneRequestSteps(t *testing.T) {
	c := linear{fixed: 2e-3, perToken: 1e-5}
	cfg := base()
	cfg.SpecTokens, cfg.SpecAccepted = 4, 2 // 3 tokens a step
	_, s := run(t, cfg, []Request{{Prompt: 500, Gen: 31}}, c)
	step := c.fixed + 5*c.perToken // one sequence, 1 + 4 tokens verified
	wantE2E := (c.fixed + 500*c.perToken) + 10*step
	if !near(s.E2EMean, wantE2E) {
		t.Errorf("e2e %g, want %g: the prefill and 10 steps of 3 tokens", s.E2EMean, wantE2E)
	}
}

// Bad speculation settings are refused, not run.
func TestSpecConfigRefused(t *testing.T) {
	reqs := specWorkload(3, 1)
	for _, f := range []func(*Config){
		func(c *Config) { c.SpecTokens = -1 },
		func(c *Config) { c.SpecTokens = model.MaxSpecTokens + 1 },
		func(c *Config) { c.SpecTokens, c.SpecAccepted = 2, 2.5 },
		func(c *Config) { c.SpecTokens, c.SpecAccepted = 2, math.NaN() },
		func(c *Config) { c.SpecTokens, c.SpecAccepted, c.MultiStep = 2, 1, 4 },
	} {
		cfg := base()
		f(&cfg)
		if _, err := Run(cfg, reqs, linear{fixed: 1e-3}); err == nil {
			t.Errorf("%+v: accepted", cfg)
		}
	}
}
