package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// specScenario is llama-3-8b on one H100 SXM, closed loop of conc clients, with K proposals at
// per-token acceptance a by method (draft: llama-3-8b's shape cut to 4 layers, which shares its
// vocabulary: no preset is a small Llama 3).
func specScenario(t *testing.T, conc, k int, a float64, method string) model.Scenario {
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 1, 1, 1)
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = 256, 256, max(4*conc, 32)
	s.Workload.Concurrency = conc
	if k > 0 {
		acc := model.SpecAccept{a}
		s.Workload.SpecTokens, s.Workload.SpecAccept, s.Workload.SpecMethod = k, &acc, method
		if method == model.SpecDraft {
			d := s.Arch
			d.ID, d.Layers = "llama-3-8b-4l", 4
			s.Workload.SpecDraft = &d
		}
	}
	return s
}

// forced prices every decode sequence of a plain run as a speculative step of k proposals.
type forced struct {
	c *servingCost
	k int
}

func (f forced) Stage(s int, b *serve.Batch) serve.StageTime {
	x := *b
	if x.DecodeSeqs > 0 {
		x.Spec = f.k
		x.DecodeCtx += float64(x.DecodeSeqs * f.k)
		x.Samples += x.DecodeSeqs * f.k
	}
	return f.c.Stage(s, &x)
}

func (f forced) Transfer(s int, b *serve.Batch) float64 { return f.c.Transfer(s, b) }

// Acceptance 0 (its limit: every proposal rejected) costs exactly the verify overhead: each
// decode step yields one token at the cost of the target's verify forward plus the drafter,
// so the run is a plain engine's whose every decode step is charged that, to the bit.
func TestSpecAcceptZeroCostsVerifyOverhead(t *testing.T) {
	for _, m := range []string{model.SpecEAGLE, model.SpecDraft, model.SpecNGram} {
		s := specScenario(t, 8, 4, 0.5, m)
		p := newPlan(s)
		c := p.servingCost()
		reqs := serve.Generate(serve.Workload{N: 64, Prompt: s.Workload.Prompts(), Gen: s.Workload.Gens()})
		cfg := serve.Config{Replicas: 1, Stages: 1, MaxSeqs: 256, MaxBatchTokens: 1 << 16, KVBlocks: 1 << 20, BlockTokens: 16, Concurrency: 8}
		ref, err := serve.Run(cfg, reqs, forced{c, 4})
		if err != nil {
			t.Fatal(err)
		}
		cfg.SpecTokens = 4
		got, err := serve.Run(cfg, reqs, c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range reqs {
			if got.Done[i] != ref.Done[i] || got.FirstToken[i] != ref.FirstToken[i] {
				t.Fatalf("%s, request %d: done %v, a plain engine at the verify step's cost %v", m, i, got.Done[i], ref.Done[i])
			}
		}
		// And the overhead is real: the verify and the drafter cost more than a decode step.
		b := serve.Batch{DecodeSeqs: 8, DecodeCtx: 8 * 400, Samples: 8}
		plain := c.Stage(0, &b).Seconds
		v := b
		v.Spec, v.DecodeCtx, v.Samples = 4, b.DecodeCtx+32, 40
		verify := c.Stage(0, &v).Seconds
		if !(verify > plain) || (m == model.SpecNGram) != (c.drafter(&v) == 0) {
			t.Errorf("%s: decode step %.4g ms, verify step %.4g ms with a drafter of %.4g ms", m, plain*1e3, verify*1e3, c.drafter(&v)*1e3)
		}
	}
}

// Speculation's gain shrinks as the batch grows: at one client the step reads the weights and
// verifying four more tokens is nearly free, at hundreds it is bound by the FLOPs and the
// proposals' work is paid for in full, so it hurts.
func TestSpecGainShrinksWithLoad(t *testing.T) {
	for _, m := range []string{model.SpecEAGLE, model.SpecDraft, model.SpecNGram} {
		prev := 1e9
		var gains []float64
		for _, conc := range []int{1, 4, 16, 64, 256} {
			base := eval(t, specScenario(t, conc, 0, 0, ""))
			sp := eval(t, specScenario(t, conc, 3, 0.7, m))
			g := sp.Inference.OutputTokensPerS / base.Inference.OutputTokensPerS
			gains = append(gains, g)
			if g > prev*1.01 {
				t.Errorf("%s: gain %.3f at %d clients, above %.3f with fewer", m, g, conc, prev)
			}
			prev = g
		}
		if !(gains[0] > 1.5) || !(gains[len(gains)-1] < 1.05) {
			t.Errorf("%s: gains %.3f by load: want above 1.5 alone and gone at 256 clients", m, gains)
		}
		t.Logf("%s: gains by 1, 4, 16, 64, 256 clients: %.3f", m, gains)
	}
}

// The report says what speculation did: a step's tokens near 1 + the expectation, the drafter's
// share, and more KV per sequence (the draft model's cache and weights take from the pool).
func TestSpecReport(t *testing.T) {
	r := eval(t, specScenario(t, 4, 3, 0.7, model.SpecDraft))
	st := r.Inference.Spec
	if st == nil {
		t.Fatal("no speculation in the report")
	}
	want := 1 + model.ExpectedAccepted(3, []float64{0.7})
	if st.TokensPerStep > want || st.TokensPerStep < 0.95*want || !(st.DrafterShare > 0 && st.DrafterShare < 0.5) {
		t.Errorf("%+v: tokens a step should be just under %.3f, the drafter a share of the step", *st, want)
	}
	plain := eval(t, specScenario(t, 4, 0, 0, ""))
	if !(r.Inference.KVCacheTokens < plain.Inference.KVCacheTokens) || plain.Inference.Spec != nil {
		t.Errorf("KV cache %.0f tokens with a draft model, %.0f without", r.Inference.KVCacheTokens, plain.Inference.KVCacheTokens)
	}
}
