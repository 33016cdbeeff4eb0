package costmodel

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// plainServeRuns are serving runs without speculation over the engines and the simulator's
// paths (open and closed loops, PP, preemptions, multi-step, prefill first), for
// TestPlainServingUnchanged.
func plainServeRuns(t *testing.T) map[string]model.Scenario {
	out := map[string]model.Scenario{}
	add := func(name string, s model.Scenario) { out[name] = s }
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 1, 1, 1)
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = 512, 128, 200
	s.Workload.Concurrency = 32
	add("vllm-closed", s)
	s.Workload.Concurrency, s.Workload.Rate = 0, 20
	add("vllm-open", s)
	s.Workload.Engine = "sglang"
	add("sglang-open", s)
	s.Workload.Engine = "vllm-v0-ms"
	add("vllm-v0-ms", s)
	s.Workload.Engine = "trtllm"
	add("trtllm", s)
	p := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 4, 2)
	p.Workload.Mode = model.Infer
	p.Workload.PromptTokens, p.Workload.GenTokens, p.Workload.Requests = 2000, 300, 300
	p.Workload.Rate = 8
	add("pp2-70b", p)
	q := scenario(t, "llama-3-8b", "l40s", "pcie4", 1, 1, 1)
	q.Workload.Mode = model.Infer
	q.Workload.PromptTokens, q.Workload.GenTokens, q.Workload.Requests = 3000, 1500, 300
	add("l40s-preempt", q)
	return out
}

// TestPlainServingUnchanged: speculative decoding changed the engine's and the step's code; a run
// without it is what it was before, bit for bit (the golden was written by the code before
// speculation: costmodel/testdata/serve-plain.golden; -update rewrites it, only for a change
// meant to move plain serving).
func TestPlainServingUnchanged(t *testing.T) {
	runs := plainServeRuns(t)
	var b strings.Builder
	for _, name := range []string{"vllm-closed", "vllm-open", "sglang-open", "vllm-v0-ms", "trtllm", "pp2-70b", "l40s-preempt"} {
		r := eval(t, runs[name])
		in := r.Inference
		fmt.Fprintf(&b, "%s %x %x %x %x %x %d %d\n", name, math.Float64bits(in.TTFT), math.Float64bits(in.TPOT),
			math.Float64bits(in.E2EP99), math.Float64bits(r.StepTime), math.Float64bits(in.KVCacheTokens), in.Steps, in.Preemptions)
	}
	const path = "testdata/serve-plain.golden"
	if *updateSearchGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("plain serving moved:\ngot:\n%swant:\n%s", b.String(), want)
	}
}
