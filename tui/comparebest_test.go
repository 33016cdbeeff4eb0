package tui

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/static"
)

// defaultScreen turns the test scenario into the explorer's first screen: llama-3-70b training
// on 32 H100s, TP 8 in each node, PP 4 across them, global batch 32 (the CLI's defaults).
func defaultScreen(t testing.TB) func(*model.Scenario) {
	d := tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	d.Workload.GlobalBatch = 32
	return func(s *model.Scenario) { *s = d }
}

// compareBest is the Compare tab's best row.
func compareBest(t *testing.T, m Model) common.CompareRow {
	t.Helper()
	i := m.cmp.Row(common.RowBest)
	if i < 0 {
		t.Fatalf("no best row: %+v", m.cmp.Rows)
	}
	return m.cmp.Rows[i]
}

// TestCompareAndSearchAgree: on the first screen `splitscope search` (every knob free) finds
// a faster layout than the Compare tab's best, which holds the panel's knobs. Either the two
// agree, or the tab says what it holds and what search found, and b lands the search's best:
// then the tab's best is search's.
func TestCompareAndSearchAgree(t *testing.T) {
	m := ready(t, 200, 50, defaultScreen(t)) // wide enough to name the knobs held
	res, err := costmodel.Search(m.cur, costmodel.SearchOptions{})
	if err != nil || res.Feasible == 0 {
		t.Fatalf("search: %v, %d feasible", err, res.Feasible)
	}
	want := res.Candidates[0]
	wantTime := static.Seconds(want.Report.StepTime)
	m, _ = press(m, "3")
	if m.tab != TabCompare {
		t.Fatalf("tab %d", m.tab)
	}
	if static.Seconds(compareBest(t, m).Report.StepTime) == wantTime {
		return // they agree
	}
	v := m.View()
	if !strings.Contains(v, "search's best: "+wantTime) || !strings.Contains(v, "b takes it") || !strings.Contains(v, "ZeRO 0") {
		t.Fatalf("the Compare tab's best is %s, search's %s, and the tab does not say so (nor what it holds):\n%s",
			static.Seconds(compareBest(t, m).Report.StepTime), wantTime, v)
	}
	m, cmd := press(m, "b")
	if cmd == nil {
		t.Fatal("b does nothing")
	}
	next, _ := m.Update(cmd())
	m = settle(next.(Model))
	if got := static.Seconds(compareBest(t, m).Report.StepTime); got != wantTime {
		t.Errorf("after b the tab's best is %s, search's %s", got, wantTime)
	}
	if m.cur.Layout.TP != want.Layout.TP || m.cur.Layout.PP != want.Layout.PP || m.cur.Layout.DP != want.Layout.DP {
		t.Errorf("after b the scenario is TP %d PP %d DP %d, search's best TP %d PP %d DP %d",
			m.cur.Layout.TP, m.cur.Layout.PP, m.cur.Layout.DP, want.Layout.TP, want.Layout.PP, want.Layout.DP)
	}
	if static.Seconds(m.data.Report.StepTime) != wantTime {
		t.Errorf("after b the explorer's step is %s, search's %s", static.Seconds(m.data.Report.StepTime), wantTime)
	}
	if strings.Contains(m.View(), "b takes it") {
		t.Errorf("once taken, b is still offered:\n%s", m.View())
	}
}
