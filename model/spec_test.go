package model

import (
	"math"
	"strings"
	"testing"
)

func TestExpectedAccepted(t *testing.T) {
	for _, tc := range []struct {
		k    int
		acc  []float64
		want float64
	}{
		{0, []float64{0.8}, 0},
		{3, nil, 0},
		{1, []float64{0.875}, 0.875},
		{3, []float64{1}, 3},
		{4, []float64{0.6}, (1-math.Pow(0.6, 5))/(1-0.6) - 1},
		{3, []float64{0.9, 0.8, 0.7}, 2.4},
	} {
		if got := ExpectedAccepted(tc.k, tc.acc); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("k %d, acceptance %v: %g, want %g", tc.k, tc.acc, got, tc.want)
		}
	}
}

// Each bad speculation input is one error naming its flag and the rule.
func TestSpeculationRefused(t *testing.T) {
	mtp := Arch{ID: "m", Layers: 4, Hidden: 512, Heads: 8, KVHeads: 8, FFN: 1024, Vocab: 1000, MaxSeq: 4096, MTPLayers: 1}
	dense := mtp
	dense.ID, dense.MTPLayers = "d", 0
	acc := func(x ...float64) *SpecAccept { a := SpecAccept(x); return &a }
	small := dense
	small.ID, small.Layers = "small", 1
	otherVocab := small
	otherVocab.Vocab = 2000
	for _, tc := range []struct {
		name  string
		arch  Arch
		w     func(*Workload)
		field string
		says  string
	}{
		{"rate above 1", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 3, acc(1.2) }, "spec-accept", "(0, 1]"},
		{"rate 0", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 3, acc(0) }, "spec-accept", "(0, 1]"},
		{"NaN", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 3, acc(math.NaN()) }, "spec-accept", "(0, 1]"},
		{"no acceptance", dense, func(w *Workload) { w.SpecTokens = 3 }, "spec-tokens", "needs --spec-accept"},
		{"curve rises", dense, func(w *Workload) { w.SpecAccept = acc(0.8, 0.9) }, "spec-accept", "cannot rise"},
		{"curve length", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 3, acc(0.9, 0.8) }, "spec-accept", "one value per speculative token"},
		{"accept alone", dense, func(w *Workload) { w.SpecAccept = acc(0.5) }, "spec-accept", "needs --spec-tokens"},
		{"too many for vllm", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 33, acc(0.5) }, "spec-tokens", "at most 32"},
		{"too many at all", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept = 300, acc(0.5) }, "spec-tokens", "256"},
		{"engine without", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept, w.Engine = 2, acc(0.5), "tgi" }, "spec-tokens", "does not run speculative decoding"},
		{"mtp without layers", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept, w.SpecMethod = 1, acc(0.8), SpecMTP }, "spec-method", "no multi-token prediction layer"},
		{"unknown method", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept, w.SpecMethod = 1, acc(0.8), "medusa" }, "spec-method", "must be one of"},
		{"draft without model", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept, w.SpecMethod = 2, acc(0.8), SpecDraft }, "spec-method", "needs --spec-draft"},
		{"draft for eagle", dense, func(w *Workload) { w.SpecTokens, w.SpecAccept, w.SpecDraft = 2, acc(0.8), &small }, "spec-draft", "not eagle"},
		{"draft vocabulary", dense, func(w *Workload) {
			w.SpecTokens, w.SpecAccept, w.SpecMethod, w.SpecDraft = 2, acc(0.8), SpecDraft, &otherVocab
		}, "spec-draft", "vocabulary"},
		{"training", dense, func(w *Workload) { w.Mode, w.SpecTokens, w.SpecAccept = Train, 2, acc(0.8) }, "spec-tokens", "--mode infer"},
	} {
		w := Workload{Mode: Infer}
		tc.w(&w)
		c := &checker{}
		c.speculation(Scenario{Arch: tc.arch, Workload: w})
		if len(c.errs) != 1 || c.errs[0].Field != tc.field || !strings.Contains(c.errs[0].Allowed, tc.says) {
			t.Errorf("%s: %v, want one error on %s saying %q", tc.name, c.errs, tc.field, tc.says)
		}
	}
	// And good ones pass: MTP on a model with the layer, a curve alone, a draft sharing the vocabulary.
	for _, w := range []Workload{
		{Mode: Infer, SpecTokens: 1, SpecAccept: acc(0.87), SpecMethod: SpecMTP},
		{Mode: Infer, SpecAccept: acc(0.9, 0.8, 0.7)},
		{Mode: Infer, SpecTokens: 4, SpecAccept: acc(0.7), SpecMethod: SpecDraft, SpecDraft: &small},
		{Mode: Infer, SpecTokens: 32, SpecAccept: acc(1), SpecMethod: SpecNGram},
		{Mode: Infer},
	} {
		c := &checker{}
		c.speculation(Scenario{Arch: mtp, Workload: w})
		if len(c.errs) > 0 {
			t.Errorf("%+v: %v", w, c.errs)
		}
	}
}
