package pipeline

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// scenario is llama-2-7b on 8× h100-sxm over nvlink4: TP=1 PP=4 DP=2, batch 16, micro-batch 1.
func scenario(t testing.TB) model.Scenario {
	t.Helper()
	s := tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 1, 4)
	s.Workload.GlobalBatch, s.Workload.GenTokens, s.Workload.Requests = 16, 32, 16
	return s
}

// fixtures are the scenarios the tests draw.
var fixtures = []struct {
	name string
	edit func(*model.Scenario)
}{
	{"1f1b", func(*model.Scenario) {}},
	{"interleaved", func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 }},
	{"zb-h1", func(s *model.Scenario) { s.Layout.Schedule = model.ZBH1 }},
	{"infer", func(s *model.Scenario) { s.Workload.Mode = model.Infer }},
	// 64 stages of gpt3-175b (TP=8): more lanes than rows, so they fold.
	{"64-stages", func(s *model.Scenario) {
		p, _ := assets.Load()
		s.Arch, _ = p.Model("gpt3-175b")
		s.Cluster.GPUs = 512
		s.Layout = model.Layout{TP: 8, PP: 64, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
		s.Workload.GlobalBatch = 128
	}},
}

func evaluate(t testing.TB, edit func(*model.Scenario)) common.Data {
	t.Helper()
	s := scenario(t)
	edit(&s)
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}

func newPane(t testing.TB, d common.Data, w, h int) *Model {
	t.Helper()
	m := New(theme.Default())
	m.SetSize(w, h)
	m.SetData(d)
	return m
}
