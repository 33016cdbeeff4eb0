package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
)

// servedRun is a published serving run's scenario, planned.
func servedRun(t *testing.T, id string) *plan {
	t.Helper()
	for _, r := range PublishedServing {
		if r.ID == id {
			s, err := serveScenario(r, presets(t))
			if err != nil {
				t.Fatal(err)
			}
			return newPlan(s)
		}
	}
	t.Fatalf("no published run %s", id)
	return nil
}

// A quantized checkpoint keeps its output projection in the compute format (ModelOpt's
// exclude_modules ["lm_head"]): the last stage of Llama 3 70B in fp4 over 8 stages reads the
// 128k × 8192 projection at 2 bytes a weight, 2.1 GB more than a middle stage, and holds it so.
// Before, it was read and stored at fp4's half byte.
func TestQuantizedCheckpointKeepsOutputProjection(t *testing.T) {
	p := servedRun(t, "trt10-rtxpro-70b-fp4-pp8-1000-1000")
	c := p.servingCost()
	one := serve.Batch{DecodeSeqs: 1, DecodeCtx: 1500, Samples: 1}
	mid := c.Stage(3, &one).Seconds
	last := c.Stage(p.p-1, &one).Seconds
	head := float64(p.a.Vocab) * float64(p.a.Hidden) * p.e // bf16 bytes
	if floor := p.hw.time(kernel{bytes: head}); last-mid < 0.95*floor {
		t.Errorf("last stage %.3g ms, middle %.3g ms: the difference %.3g ms is under the bf16 output projection's read, %.3g ms",
			last*1e3, mid*1e3, (last-mid)*1e3, floor*1e3)
	}
	maxSeqs, maxTokens := p.serveLimits()
	kp := p.kvPlan(c, maxSeqs, maxTokens)
	if d := kp.weights[p.p-1] - kp.weights[3]; d < 0.99*head {
		t.Errorf("last stage holds %.3g GB more weights than a middle one, want the bf16 projection's %.3g GB", d/1e9, head/1e9)
	}
}

// trtllm-bench's own limits (tuning.py's finetune_setting), worked by hand for Llama 3.3 70B
// NVFP4 with an FP8 cache on RTX PRO 6000 (96 GiB): weights 70.55e9 × 0.5 B = 32.9 GiB; a token's
// cache 2 × 80 × 8 × 128 B = 1.53e-4 GiB. PP 1 at 1000/1000: (96 − 32.9) × 0.95 / (1.53e-4 ×
// 2000) = 196 requests, rounded up to 224 by 32, tokens 392 → the 2048 floor. PP 8 at 128/128:
// 17.9k requests, capped at 4096, / 8 = 512, tokens 1024 → 2048. PP 2 at 128/128: 3.86k / 2 =
// 1931 → 2048 by 256, tokens 3862 → 4096 (by 256 under 4096). PP 4 at 2048/2048: 531 / 4 = 133
// → 160 by 32, tokens 266 → 2048.
func TestTRTBenchLimits(t *testing.T) {
	for _, tc := range []struct {
		id            string
		batch, tokens int
	}{
		{"trt10-rtxpro-70b-fp4-pp1-1000-1000", 224, 2048},
		{"trt10-rtxpro-70b-fp4-pp8-128-128", 512, 2048},
		{"trt10-rtxpro-70b-fp4-pp2-128-128", 2048, 4096},
		{"trt10-rtxpro-70b-fp4-pp4-2048-2048", 160, 2048},
	} {
		p := servedRun(t, tc.id)
		seqs, toks := p.serveLimits()
		if seqs != tc.batch || toks != tc.tokens {
			t.Errorf("%s: max batch %d and %d tokens, want %d and %d", tc.id, seqs, toks, tc.batch, tc.tokens)
		}
		if p.s.Workload.Engine != "trtllm" {
			t.Errorf("%s: engine %q, want trtllm", tc.id, p.s.Workload.Engine)
		}
	}
}

// TensorRT-LLM's PP loop waits for each rank's forward before the rank's host work
// (trtPPHostPerSeq): with engine trtllm every stage of a pipeline pays it per sequence, on top
// of the same GPU time as vLLM's; without PP (the overlap scheduler) nobody pays it.
func TestTRTPipelineHostWork(t *testing.T) {
	b := serve.Batch{DecodeSeqs: 300, DecodeCtx: 300 * 1500, Samples: 300}
	for _, id := range []string{"trt10-rtxpro-70b-fp4-pp8-1000-1000", "trt10-rtxpro-70b-fp4-pp1-1000-1000"} {
		trt := servedRun(t, id)
		s := trt.s
		s.Workload.Engine = "vllm"
		vllm := newPlan(s)
		for st := 0; st < trt.p; st++ {
			got := trt.servingCost().Stage(st, &b).Seconds - vllm.servingCost().Stage(st, &b).Seconds
			want := 0.0
			if trt.p > 1 {
				want = 300 * trtPPHostPerSeq
				if st > 0 {
					want += engineStepOverhead
				}
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%s stage %d: trtllm − vllm = %.4g ms, want %.4g ms", id, st, got*1e3, want*1e3)
			}
		}
	}
}

// The engine is one the simulator knows; another is refused by name.
func TestEngineValidated(t *testing.T) {
	s := servedRun(t, "trt10-rtxpro-70b-fp4-pp2-128-128").s
	if err := s.Validate(); err != nil {
		t.Fatalf("trtllm: %v", err)
	}
	s.Workload.Engine = "sglang"
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "engine") || !strings.Contains(err.Error(), "sglang") {
		t.Errorf("engine sglang: %v, want an error naming the field and the value", err)
	}
}
