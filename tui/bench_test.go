package tui

import (
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/common"
)

// The README's explorer figures come from these (go test ./tui -run '^$' -bench . -cpu 1).

func BenchmarkViewTabs200x60(b *testing.B) {
	for tab, name := range []string{"Pipeline", "Tensor", "Compare", "Memory"} {
		b.Run(name, func(b *testing.B) {
			m := ready(b, 200, 60, nil)
			next, _ := m.setTab(tab)
			m = next.(Model)
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
	b.Run("Box", func(b *testing.B) {
		m := onBoxTab(b, readyWith(b, 200, 60, nil, boxtest.NewProbe(boxtest.L40S4()).Probe))
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
	})
}

// BenchmarkKeypressToFrame is one ← on the GPU count: Update, the evaluation the command runs
// (the cost model with its timeline), the result back through Update, and the next View.
func BenchmarkKeypressToFrame(b *testing.B) {
	m := ready(b, 120, 40, nil)
	m = selectField(b, m, "gpus")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dir := "right"
		if i%2 == 1 {
			dir = "left"
		}
		next, _ := press(m, dir)
		res := evaluate(next.rev, next.cur)()
		after, _ := next.Update(res)
		m = after.(Model)
		_ = m.View()
	}
}

// BenchmarkNearestValid is the search behind an offer (it runs in Update): 65,536 GPUs, an
// interleaved schedule, a TP the heads refuse.
func BenchmarkNearestValid(b *testing.B) {
	s, _ := testScenario(b)
	s.Cluster.GPUs, s.Layout = 1<<16, model.Layout{TP: 8, PP: 8, DP: 1 << 10, Chunks: 4, MicroBatch: 1, Schedule: model.Interleaved}
	s.Workload.GlobalBatch = 1 << 14
	t := s
	t.Layout.TP = 16 // 40 heads: no
	for b.Loop() {
		nearestValid(t, s, "tp")
	}
}

// BenchmarkFrameTick is one frame while the Pipeline animation plays, at 120×40: the
// FrameMsg through Update (the playhead moves by the frame's wall time) and the next View. At
// the end of the step, space plays it again (untimed).
func BenchmarkFrameTick(b *testing.B) {
	m := ready(b, 120, 40, nil)
	at := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if !m.panes[m.tab].Animating() {
			b.StopTimer()
			m, _ = press(m, "space")
			_ = m.View()
			b.StartTimer()
		}
		at = at.Add(common.FrameInterval)
		next, _ := m.Update(common.FrameMsg(at))
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkViewRedraw is a whole frame drawn afresh at 120×40 (the cache emptied, as after an
// edit: title, strip, panel, tabs, Pipeline chart, footer), in 256 colours as a served
// xterm-256color session draws it.
func BenchmarkViewRedraw(b *testing.B) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	s, p := testScenario(b)
	m := New(s, p, WithProbe(boxtest.NoGPU), WithRenderer(r))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = settle(next.(Model))
	b.ReportAllocs()
	for b.Loop() {
		*m.vc = viewCache{}
		_ = m.View()
	}
}
