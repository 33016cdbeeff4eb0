package costmodel

import (
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
