package costmodel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// servingScenario is llama-2-13b served on 8 RTX 4090s over PCIe, the CLI's default lengths
// (prompt 1024, gen 256), requests arriving at rate requests/s.
func servingScenario(t testing.TB, modelID, gpuID string, requests int, rate float64) model.Scenario {
	t.Helper()
	p := presets(t)
	g := mustGPU(t, p, gpuID)
	s := scenario(t, modelID, gpuID, g.NativeLink, 8, 8, 1)
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens = model.DefaultPrompt, model.DefaultGen
	s.Workload.Requests, s.Workload.Rate = requests, rate
	return s
}

// TestSearchServingTieGoesToLatency: on 8 RTX 4090s serving llama-2-13b at 2 requests/s, TP 8
// and TP 4 × DP 2 serve the same tokens per second (the arrivals set the pace), and TP 4 × DP 2
// answers sooner; the default objective ranks it first, as a serving engineer would.
func TestSearchServingTieGoesToLatency(t *testing.T) {
	s := servingScenario(t, "llama-2-13b", "rtx-4090", 200, 2)
	res, err := Search(s, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[[3]int]int{}
	var tp8, tp4 *Candidate
	for i, c := range res.Candidates[:res.Feasible] {
		k := [3]int{c.Layout.TP, c.Layout.PP, c.Layout.DP}
		pos[k] = i
		switch k {
		case [3]int{8, 1, 1}:
			tp8 = &res.Candidates[i]
		case [3]int{4, 1, 2}:
			tp4 = &res.Candidates[i]
		}
	}
	if tp8 == nil || tp4 == nil {
		t.Fatalf("TP 8 and TP 4 × DP 2 should both be feasible: %v", pos)
	}
	a, b := tp8.Report, tp4.Report
	if d := a.StepTime/b.StepTime - 1; d > 0.01 || d < -0.01 {
		t.Fatalf("the premise: same time to serve within 1%%; TP 8 %.3f s, TP 4 × DP 2 %.3f s", a.StepTime, b.StepTime)
	}
	if !(b.Inference.E2EP90 < a.Inference.E2EP90 && b.Inference.TTFTP90 < a.Inference.TTFTP90 && b.Inference.TPOTP90 < a.Inference.TPOTP90) {
		t.Fatalf("the premise: TP 4 × DP 2 answers sooner; TP 8 %+v, TP 4 × DP 2 %+v", a.Inference, b.Inference)
	}
	if pos[[3]int{4, 1, 2}] > pos[[3]int{8, 1, 1}] {
		t.Errorf("TP 4 × DP 2 (TTFT p90 %.0f ms, TPOT p90 %.1f ms) ranks %d, below TP 8 (%.0f ms, %.1f ms) at %d: a throughput tie should go to the lower latency",
			1e3*b.Inference.TTFTP90, 1e3*b.Inference.TPOTP90, pos[[3]int{4, 1, 2}]+1, 1e3*a.Inference.TTFTP90, 1e3*a.Inference.TPOTP90, pos[[3]int{8, 1, 1}]+1)
	}
}

// TestServingWarningsAgreeWithSearch: no warning of a layout (serving, and training on PCIe) recommends pipeline
// parallelism where search ranks every layout with a pipeline below the best without one
// (PCIe boxes, where the TP warning speaks of bandwidth).
func TestServingWarningsAgreeWithSearch(t *testing.T) {
	for _, tc := range []struct {
		model, gpu string
		requests   int
		rate       float64
	}{
		{"llama-2-13b", "rtx-4090", 200, 2},
		{"llama-2-13b", "rtx-4090", 8, 0},
		{"llama-2-70b", "l40s", 8, 0},
		{"llama-2-7b", "l40s", 0, 0}, // training (requests 0): search ranks TP 2 × DP 4 first
	} {
		s := servingScenario(t, tc.model, tc.gpu, tc.requests, tc.rate)
		if tc.requests == 0 {
			s.Workload.Mode = model.Train
		}
		res, err := Search(s, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Feasible == 0 {
			t.Fatalf("%s on %s: nothing fits", tc.model, tc.gpu)
		}
		best := res.Candidates[0]
		for _, c := range res.Candidates[:res.Feasible] {
			s := s
			s.Layout = c.Layout
			r, err := EvaluateFast(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range r.Warnings {
				if best.Layout.PP == 1 && strings.Contains(w, "PP") {
					t.Errorf("%s on %s, %s: warning %q speaks for PP where search ranks %s first",
						tc.model, tc.gpu, splitLabel(c.Layout), w, splitLabel(best.Layout))
				}
			}
		}
	}
}

// splitLabel is "TP8", "TP4×DP2", "TP2×PP2×DP2": the sizes above 1.
func splitLabel(l model.Layout) string {
	var parts []string
	for _, x := range []struct {
		n string
		v int
	}{{"TP", l.TP}, {"PP", l.PP}, {"DP", l.DP}} {
		if x.v > 1 {
			parts = append(parts, fmt.Sprintf("%s%d", x.n, x.v))
		}
	}
	if len(parts) == 0 {
		return "1GPU"
	}
	return strings.Join(parts, "×")
}
