package published

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The serving simulator on every published run validate shows: each absolute check within its
// tolerance, TP scaling within 25%, and every published order kept.
func TestPublishedServing(t *testing.T) {
	checks, err := ServeChecks(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, c := range checks {
		groups[c.Group]++
		t.Logf("%-90s published %10.4g  model %10.4g %-5s %+6.1f%%  %s", c.Case, c.Published, c.Predicted, c.Unit, 100*c.RelErr(), c.Note)
		if !c.Pass() {
			t.Errorf("%s: model %.4g, published %.4g (%+.1f%%, tolerance %.0f%%, order %v)", c.Case, c.Predicted, c.Published,
				100*c.RelErr(), 100*c.Tolerance, c.Order)
		}
		if c.Group == "serve-ratio" && c.Tolerance > 0.25 {
			t.Errorf("%s: TP scaling tolerance %.0f%%, above the 25%% bar", c.Case, 100*c.Tolerance)
		}
	}
	if groups["serve"] < 40 || groups["serve-ratio"] < 10 || groups["serve-order"] < 5 {
		t.Errorf("checks per group: %v", groups)
	}
}

// trtllm-bench's own limits (tuning.py's finetune_setting), worked by hand for Llama 3.3 70B
// NVFP4 with an FP8 cache on RTX PRO 6000 (96 GiB): weights 70.55e9 × 0.5 B = 32.9 GiB; a token's
// cache 2 × 80 × 8 × 128 B = 1.53e-4 GiB. PP 1 at 1000/1000: (96 − 32.9) × 0.95 / (1.53e-4 ×
// 2000) = 196 requests, rounded up to 224 by 32, tokens 392 → the 2048 floor. PP 8 at 1000/1000:
// 2282 requests / 8 = 285 → 384 by 128, tokens 570 → 2048. PP 8 at 128/128:
// 17.9k requests, capped at 4096, / 8 = 512, tokens 1024 → 2048. PP 2 at 128/128: 3.86k / 2 =
// 1931 → 2048 by 256, tokens 3862 → 4096 (by 256 under 4096). PP 4 at 2048/2048: 531 / 4 = 133
// → 160 by 32, tokens 266 → 2048.
func TestTRTBenchLimits(t *testing.T) {
	for _, tc := range []struct {
		id            string
		batch, tokens int
	}{
		{"trt10-rtxpro-70b-fp4-pp1-1000-1000", 224, 2048},
		{"trt10-rtxpro-70b-fp4-pp8-1000-1000", 384, 2048},
		{"trt10-rtxpro-70b-fp4-pp8-128-128", 512, 2048},
		{"trt10-rtxpro-70b-fp4-pp2-128-128", 2048, 4096},
		{"trt10-rtxpro-70b-fp4-pp4-2048-2048", 160, 2048},
	} {
		s := servedScenario(t, tc.id)
		seqs, toks := s.Workload.MaxSeqs, s.Workload.MaxBatchTokens
		if seqs != tc.batch || toks != tc.tokens {
			t.Errorf("%s: max batch %d and %d tokens, want %d and %d", tc.id, seqs, toks, tc.batch, tc.tokens)
		}
		if s.Workload.Engine != "trtllm" {
			t.Errorf("%s: engine %q, want trtllm", tc.id, s.Workload.Engine)
		}
	}
}

// servedScenario is a published run's scenario, rebuilt from the presets.
func servedScenario(t *testing.T, id string) model.Scenario {
	t.Helper()
	for _, r := range PublishedServing {
		if r.ID == id {
			s, err := serveScenario(r, presets(t))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no published run %s", id)
	return model.Scenario{}
}
