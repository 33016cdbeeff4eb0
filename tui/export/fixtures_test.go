package export

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// scenario is llama-2-7b on 8× h100-sxm over nvlink4: TP=2 PP=4 DP=1, batch 16, micro-batch 1.
func scenario(t testing.TB) model.Scenario {
	t.Helper()
	s := tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 2, 4)
	s.Workload.GlobalBatch, s.Workload.GenTokens, s.Workload.Requests = 16, 32, 8
	return s
}

// fixtures are the scenarios the tests draw.
var fixtures = []struct {
	name string
	edit func(*model.Scenario)
}{
	{"1f1b", func(*model.Scenario) {}},
	{"gpipe-tp1", func(s *model.Scenario) { s.Layout.TP, s.Layout.PP, s.Layout.Schedule = 1, 8, model.GPipe }},
	{"interleaved", func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 }},
	{"zb-h1", func(s *model.Scenario) { s.Layout.Schedule = model.ZBH1 }},
	{"no-pipeline", func(s *model.Scenario) { s.Layout.TP, s.Layout.PP = 8, 1 }},
	{"infer", func(s *model.Scenario) { s.Workload.Mode = model.Infer }},
	// Thousands of decode ops: one rect each, no labels.
	{"infer-long", func(s *model.Scenario) { s.Workload.Mode, s.Workload.GenTokens = model.Infer, 512 }},
	// 32 stages: lanes thinner than their labels, so only some are labelled.
	{"32-stages", func(s *model.Scenario) {
		s.Cluster.GPUs = 32
		s.Layout = model.Layout{TP: 1, PP: 32, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
		s.Workload.GlobalBatch = 64
	}},
}

func evaluate(t testing.TB, edit func(*model.Scenario)) (model.Scenario, costmodel.Report) {
	t.Helper()
	s := scenario(t)
	edit(&s)
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Timeline == nil {
		t.Fatal("no timeline")
	}
	return s, r
}
