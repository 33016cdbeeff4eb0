package pipeline

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/model"
)

// go test ./tui/pipeline -run '^$' -bench ViewPipeline -cpu 1
//
// One View at 196×58: the 1F1B training step (64 ops), inference with 32,768 ops (8 groups ×
// 1,024 tokens × 4 stages), and 64 folded stages (16,384 ops); without colour (as the goldens)
// and with TrueColor escape sequences.
func BenchmarkViewPipeline(b *testing.B) {
	cases := []struct {
		name string
		edit func(*model.Scenario)
	}{
		{"train-1f1b", fixtures[0].edit},
		{"infer-32k-ops", func(s *model.Scenario) {
			s.Workload.Mode = model.Infer
			s.Workload.GenTokens = 1024
		}},
		{"train-64-stages", fixtures[4].edit},
	}
	for _, prof := range []struct {
		name string
		p    termenv.Profile
	}{{"ascii", termenv.Ascii}, {"truecolor", termenv.TrueColor}} {
		for _, tc := range cases {
			d := evaluate(b, tc.edit)
			b.Run(tc.name+"/"+prof.name, func(b *testing.B) {
				lipgloss.SetColorProfile(prof.p)
				defer lipgloss.SetColorProfile(termenv.Ascii)
				m := newPane(b, d, 196, 58)
				m.Update(space)
				m.seek(0.45 * m.ix.span)
				b.ReportMetric(float64(m.ix.ops), "ops")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// go test ./tui/pipeline -run '^$' -bench Columns -cpu 1
//
// Building every lane's columns at 190 columns, as after a new result or a resize (a View
// reuses them): one pass over the ops.
func BenchmarkColumns(b *testing.B) {
	for _, tc := range []struct {
		name string
		edit func(*model.Scenario)
	}{
		{"infer-32k-ops", func(s *model.Scenario) { s.Workload.Mode = model.Infer; s.Workload.GenTokens = 1024 }},
		{"train-64-stages", fixtures[4].edit},
	} {
		ix := newIndex(evaluate(b, tc.edit).Report.Timeline)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportMetric(float64(ix.ops), "ops")
			b.ReportAllocs()
			for b.Loop() {
				var cc colCache
				cc.columnsFor(ix, 190)
			}
		})
	}
}
