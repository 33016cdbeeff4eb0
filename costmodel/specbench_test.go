package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Serving with speculation: BenchmarkServe10kRequests' 10,000 requests at 20 req/s on 8 H100s
// (TP 8, llama-3-70b) with 3 proposals a step at acceptance 0.7, by an EAGLE head and by a
// llama-3-8b draft model (each step times the drafter too). The bar, with
// disaggregation: 300 ms.
func benchSpecScenario(b *testing.B, method string) model.Scenario {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 10000, 20)
	acc := model.SpecAccept{0.7}
	s.Workload.SpecTokens, s.Workload.SpecAccept, s.Workload.SpecMethod = 3, &acc, method
	if method == model.SpecDraft {
		d, err := presets(b).Model("llama-3-8b")
		if err != nil {
			b.Fatal(err)
		}
		s.Workload.SpecDraft = &d
	}
	if err := s.Validate(); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkServe10kRequestsSpecEAGLE(b *testing.B) {
	s := benchSpecScenario(b, model.SpecEAGLE)
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkServe10kRequestsSpecDraft(b *testing.B) {
	s := benchSpecScenario(b, model.SpecDraft)
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// The case itself: speculation and disaggregation together, the same 10,000 requests
// on 8 H100s split 4:4 (TP 4 prefilling, TP 4 decoding with an EAGLE head).
func BenchmarkServe10kRequestsSpecDisagg(b *testing.B) {
	s := benchSpecScenario(b, model.SpecEAGLE)
	s.Layout.TP, s.Layout.DP = 4, 1
	s.Layout.Disagg = model.Disagg{PrefillGPUs: 4}
	if err := s.Validate(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}
