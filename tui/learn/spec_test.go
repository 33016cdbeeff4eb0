package learn

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// The speculative decoding page, in English and French: why it helps at low load and hurts at
// high, with the run's own K, acceptance, tokens a step and drafter share when it speculates,
// and how to try it when it does not.
func TestSpecSection(t *testing.T) {
	s := tuitest.Scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", model.Infer, 1, 1, 1)
	s.Workload.Requests, s.Workload.Concurrency = 16, 4
	plain, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFacts(common.Data{Scenario: s, Report: plain}, common.Compare{}, false)
	if f.Spec.On {
		t.Fatal("a plain run speculates")
	}
	sec := section(t, f, SecSpec)
	wantAll(t, "en plain", sec["en"], "helps while the step is bound by reading the weights", "does not speculate", "--spec-tokens 3")
	wantAll(t, "fr plain", sec["fr"], "limité par la lecture des poids", "ne spécule pas", "--spec-tokens 3")

	s.Workload.SpecTokens, s.Workload.SpecMethod = 3, model.SpecEAGLE
	acc := model.SpecAccept{0.7}
	s.Workload.SpecAccept = &acc
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	f = NewFacts(common.Data{Scenario: s, Report: r}, common.Compare{}, false)
	sp := r.Inference.Spec
	if !f.Spec.On || sp == nil {
		t.Fatal("speculation missing from the facts")
	}
	sec = section(t, f, SecSpec)
	for _, lang := range []string{"en", "fr"} {
		wantAll(t, lang+" spec", sec[lang], f.Spec.TokPerStep, f.Spec.Expected, f.Spec.Drafter, "eagle")
	}
	if f.Spec.Best != 4 || !(sp.TokensPerStep > 1 && sp.TokensPerStep <= 4) {
		t.Errorf("facts %+v: between 1 and 4 tokens a step expected, report %+v", f.Spec, *sp)
	}
}
