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

// fixtures are the scenarios the tests draw; agg marks those whose timeline is drawn as boxes
// of ops (aggregate), not one rect per op.
var fixtures = []struct {
	name string
	edit func(*model.Scenario)
	agg  bool
}{
	{"1f1b", func(*model.Scenario) {}, false},
	{"gpipe-tp1", func(s *model.Scenario) { s.Layout.TP, s.Layout.PP, s.Layout.Schedule = 1, 8, model.GPipe }, false},
	{"interleaved", func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 }, false},
	{"zb-h1", func(s *model.Scenario) { s.Layout.Schedule = model.ZBH1 }, false},
	// The 2025 schedules: two chunks a rank (the V's, DualPipe's two directions), B and W apart.
	{"zb-v", func(s *model.Scenario) { s.Layout.Schedule = model.ZBV }, false},
	{"dualpipe", func(s *model.Scenario) { s.Layout.Schedule = model.DualPipe }, false},
	{"dualpipev", func(s *model.Scenario) { s.Layout.Schedule = model.DualPipeV }, false},
	{"no-pipeline", func(s *model.Scenario) { s.Layout.TP, s.Layout.PP = 8, 1 }, false},
	{"infer", func(s *model.Scenario) { s.Workload.Mode = model.Infer }, false},
	// 16,384 decode ops a third of a pixel wide: aggregated.
	{"infer-long", func(s *model.Scenario) { s.Workload.Mode, s.Workload.GenTokens = model.Infer, 512 }, true},
	// 32 stages: lanes thinner than their labels, so only some are labelled; 4,096 ops, each
	// still its own rect.
	{"32-stages", func(s *model.Scenario) {
		s.Cluster.GPUs = 32
		s.Layout = model.Layout{TP: 1, PP: 32, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
		s.Workload.GlobalBatch = 64
	}, false},
	// 1,024 micro-batches on 4 stages: 8,192 ops under a pixel wide, F and B alternating.
	{"many-micro", func(s *model.Scenario) { s.Workload.GlobalBatch = 1024 }, true},
	// ZB-H1 with 1,024 micro-batches: F, B and W alternate below a pixel.
	{"zb-h1-long", func(s *model.Scenario) { s.Layout.Schedule, s.Workload.GlobalBatch = model.ZBH1, 1024 }, true},
}

// megatron1T is the Megatron 1T row of the paper: 3,072 H100s, TP 8, PP 64, DP 6, global batch
// 3,072 (512 micro-batches a pipeline), 65,536 ops on the timeline.
func megatron1T(t testing.TB) (model.Scenario, costmodel.Report) {
	t.Helper()
	s := tuitest.Scenario(t, "megatron-1t", "h100-sxm", "nvlink4", model.Train, 512, 8, 64)
	s.Cluster.GPUs, s.Layout.DP, s.Workload.GlobalBatch = 3072, 6, 3072
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Timeline == nil || len(r.Timeline.Ops) != 65536 {
		t.Fatalf("megatron-1t: want a timeline of 65,536 ops")
	}
	return s, r
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
