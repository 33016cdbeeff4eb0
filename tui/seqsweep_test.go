package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
)

// longContext is Gemma 3 27B training at 128K tokens on 32 H100s (4 nodes of 8), TP 8 × CP 4,
// full recompute and ZeRO 1, global batch 32: the tour's long-context step.
func longContext(t testing.TB) func(*model.Scenario) {
	_, p := testScenario(t)
	a, err := p.Model("gemma-3-27b")
	if err != nil {
		t.Fatal(err)
	}
	return func(s *model.Scenario) {
		s.Arch = a
		s.Cluster.GPUs = 32
		s.Layout = model.Layout{TP: 8, CP: 4, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1, Recompute: model.RecomputeFull, ZeRO: 1}
		s.Workload.Seq, s.Workload.GlobalBatch = 131072, 32
	}
}

// drain runs cmd's messages through m until none is left, as the program would (batches
// opened); frame ticks and notes are dropped.
func drain(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 100 {
			t.Fatal("commands never settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case common.FrameMsg, noteMsg, clearNoteMsg, nil:
		default:
			next, more := m.Update(msg)
			m = next.(Model)
			queue = append(queue, more)
		}
	}
	return m
}

// seqPage is the explorer on the Compare tab's sweep page, L pressed, before any command ran.
func seqPage(t *testing.T, w, h int, edit func(*model.Scenario)) (Model, tea.Cmd) {
	t.Helper()
	m := ready(t, w, h, edit)
	next, cmd := m.setTab(TabCompare)
	m = drain(t, next.(Model), cmd) // the contenders' page computes nothing more
	if m.sweep.running || len(m.sweep.cache) != 0 {
		t.Fatal("the contenders' page started a sweep")
	}
	m, cmd = press(m, "L")
	return m, cmd
}

// The sweep never runs in Update: L and the page's message return at once with a command, the
// page says "sweeping…" until the sweep's message arrives; then it is kept for the scenario, and
// a split search chooses anyway (TP here) finds it made.
func TestSeqSweepLazyAndKept(t *testing.T) {
	m, cmd := seqPage(t, 160, 48, longContext(t))
	if cmd == nil {
		t.Fatal("L returned no command")
	}
	next, sweepCmd := m.Update(cmd())
	m = next.(Model)
	if sweepCmd == nil || !m.sweep.running || len(m.sweep.cache) != 0 {
		t.Fatalf("the page's message did not start a sweep in a command: running %v, kept %d", m.sweep.running, len(m.sweep.cache))
	}
	if v := m.View(); !strings.Contains(v, "sweeping…") {
		t.Fatalf("no sweeping… while the sweep runs:\n%s", v)
	}
	m = drain(t, m, sweepCmd)
	if m.sweep.running || len(m.sweep.cache) != 1 {
		t.Fatalf("after the sweep: running %v, kept %d", m.sweep.running, len(m.sweep.cache))
	}
	v := m.View()
	for _, want := range []string{"TP, no CP", "CP, least TP", "TP × CP", "128K", "fits to"} {
		if !strings.Contains(v, want) {
			t.Errorf("the sweep page lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "sweeping…") {
		t.Errorf("still sweeping:\n%s", v)
	}
	// The export (served: shown, not written) carries the sweep made.
	served := m
	served.served = true
	sv, _ := served.export()
	if sheet := strings.Join(sv.(Model).sheet, "\n"); !strings.Contains(sheet, "Sequence sweep, TP vs CP vs both") || !strings.Contains(sheet, "| 131072 |") {
		t.Errorf("the export lacks the sweep:\n%s", sheet)
	}
	// TP is the search's to choose: the same sweep, no new one.
	next, _ = m.edit("tp", func(s *model.Scenario) error {
		s.Layout.TP, s.Layout.CP = 4, 8
		return nil
	})
	m = next.(Model)
	if m.sweep.running {
		t.Error("a TP change started a new sweep")
	}
	if v := m.View(); strings.Contains(v, "sweeping…") {
		t.Errorf("a TP change made the page sweep again:\n%s", v)
	}
	// The batch is not: a new sweep, in a command.
	next, _ = m.edit("batch", func(s *model.Scenario) error {
		s.Workload.GlobalBatch = 64
		return nil
	})
	m = next.(Model)
	if !m.sweep.running || len(m.sweep.cache) != 1 {
		t.Errorf("a batch change: running %v, kept %d; want a new sweep running", m.sweep.running, len(m.sweep.cache))
	}
	// L again: the contenders.
	m, _ = press(m, "L")
	if v := m.View(); !strings.Contains(v, "TP only") {
		t.Errorf("L again did not bring the contenders back:\n%s", v)
	}
}

// Serving has no sweep page: L does nothing and the footer does not offer it.
func TestSeqSweepNotInServing(t *testing.T) {
	m, cmd := seqPage(t, 120, 40, func(s *model.Scenario) { s.Workload.Mode = model.Infer })
	if cmd != nil {
		if _, ok := cmd().(compare.SeqViewMsg); ok {
			t.Error("L turned a sweep page on in serving")
		}
	}
	if m.compare.SeqView() || m.sweep.running {
		t.Error("a sweep page or a sweep in serving")
	}
	if strings.Contains(m.View(), "TP vs CP") {
		t.Error("serving offers the sweep")
	}
}

// The sweep page at 80×24 and 160×48 on the long-context scenario.
func TestGoldenSeqSweep(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("compare_%dx%d", size.w, size.h), func(t *testing.T) {
			m, cmd := seqPage(t, size.w, size.h, longContext(t))
			m = drain(t, m, cmd)
			view := m.View()
			checkFrame(t, view, size.w, size.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
