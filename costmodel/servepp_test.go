package costmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// servedRun is one run of TensorRT-LLM 1.0's RTX PRO 6000 table (costmodel/published, rtxpro):
// Llama 3.3 70B, NVFP4 weights, FP8 KV cache, pipeline parallel only, on PCIe; id names the
// run. Its max batch and max tokens are trtllm-bench's own, as published's trtBenchLimits
// computes them (checked there, TestTRTBenchLimits).
func servedRun(t *testing.T, id string) *plan {
	t.Helper()
	var pp, isl, osl int
	if _, err := fmt.Sscanf(id, "trt10-rtxpro-70b-fp4-pp%d-%d-%d", &pp, &isl, &osl); err != nil {
		t.Fatalf("run %s: %v", id, err)
	}
	limits := map[string][2]int{
		"trt10-rtxpro-70b-fp4-pp1-1000-1000": {224, 2048},
		"trt10-rtxpro-70b-fp4-pp8-1000-1000": {384, 2048},
		"trt10-rtxpro-70b-fp4-pp2-128-128":   {2048, 4096},
	}
	lim, ok := limits[id]
	if !ok {
		t.Fatalf("no limits for run %s", id)
	}
	p := presets(t)
	a, err := p.Model("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	g := mustGPU(t, p, "rtx-pro-6000")
	requests := 3000
	if isl == 128 && osl == 128 {
		requests = 4096
	}
	s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
		Cluster: model.Cluster{GPU: g, GPUs: pp, GPUsPerNode: pp, Intra: mustLink(t, p, g.NativeLink), Inter: mustLink(t, p, model.DefaultInter), NICsPerNode: 1},
		Layout:  model.Layout{TP: 1, PP: pp, DP: 1, Chunks: 1, MicroBatch: 1},
		Workload: model.Workload{Mode: model.Infer, PromptTokens: isl, GenTokens: osl, Requests: requests,
			Precision: model.BF16, MaxSeqs: lim[0], MaxBatchTokens: lim[1], Weights: "fp4", KVCache: "fp8", Engine: "trtllm"}}
	return newPlan(s)
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

// TensorRT-LLM's PP loop waits for each rank's forward before the rank's host work: with
// engine trtllm every stage of a pipeline pays trtPPHostPerSeq for each sequence of the
// micro-batch and trtPPHostPerActive for each active request, those in the system up to the
// max batch times the PP size (384 × 8 = 3072 here), on top of the same GPU time as vLLM's;
// without PP (the overlap scheduler) nobody pays it, and what waits never changes the GPU's work.
func TestTRTPipelineHostWork(t *testing.T) {
	for _, inSystem := range []int{0, 1000, 5000} {
		b := serve.Batch{DecodeSeqs: 300, DecodeCtx: 300 * 1500, Samples: 300, InSystem: inSystem}
		for _, id := range []string{"trt10-rtxpro-70b-fp4-pp8-1000-1000", "trt10-rtxpro-70b-fp4-pp1-1000-1000"} {
			trt := servedRun(t, id)
			s := trt.s
			s.Workload.Engine = "vllm"
			vllm := newPlan(s)
			for st := 0; st < trt.p; st++ {
				got := trt.servingCost().Stage(st, &b).Seconds - vllm.servingCost().Stage(st, &b).Seconds
				want := 0.0
				if trt.p > 1 {
					want = 300*trtPPHostPerSeq + float64(min(inSystem, 384*8))*trtPPHostPerActive
					if st > 0 {
						want += engineStepOverhead
					}
				}
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("%s, %d in the system, stage %d: trtllm − vllm = %.4g ms, want %.4g ms", id, inSystem, st, got*1e3, want*1e3)
				}
				idle := b
				idle.InSystem = 0
				if v, w := vllm.servingCost().Stage(st, &b).Seconds, vllm.servingCost().Stage(st, &idle).Seconds; v != w {
					t.Errorf("%s stage %d: vllm's step %.6g ms with %d in the system, %.6g ms with none", id, st, v*1e3, inSystem, w*1e3)
				}
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
	for _, id := range model.EngineIDs() {
		s.Workload.Engine = id
		if err := s.Validate(); err != nil {
			t.Errorf("engine %s: %v", id, err)
		}
	}
	s.Workload.Engine = "deepspeed-mii"
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "engine") || !strings.Contains(err.Error(), "deepspeed-mii") || !strings.Contains(err.Error(), "sglang") {
		t.Errorf("engine deepspeed-mii: %v, want an error naming the field, the value and the engines allowed", err)
	}
}
