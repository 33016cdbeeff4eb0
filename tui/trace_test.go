package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// TestTraceOverlay: the explorer reads --trace in a command (Init hands it back, Update does not
// read), overlays it on the Pipeline tab and says so in the footer; a layout the trace
// contradicts takes the overlay off and the footer names both; a bad file is named there too.
func TestTraceOverlay(t *testing.T) {
	s, p := testScenario(t)
	s.Cluster.GPUs = 2
	s.Layout.TP, s.Layout.PP, s.Layout.DP = 2, 1, 1
	file := filepath.Join("..", "assets", "trace", "testdata", "hta-nccl-data-rank-0.json.gz")
	m := New(s, p, WithProbe(boxtest.NoGPU), WithTraces([]string{file}))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 240, Height: 40})
	m = settle(next.(Model))
	if tag, _ := m.traceTag(); tag != "reading trace…" {
		t.Errorf("before the command ran: %q", tag)
	}
	msg := traceCmd(m.trace.paths)()
	next, _ = m.Update(msg)
	m = next.(Model)
	foot := m.footerView()
	if !strings.Contains(foot, "trace overlaid: hta-nccl-data-rank-0.json.gz (1 Pipeline)") {
		t.Errorf("footer %q", foot)
	}
	if !strings.Contains(m.View(), "r0 trace") {
		t.Error("the Pipeline tab does not draw the trace")
	}
	// Four GPUs: the two-rank trace no longer fits the layout.
	m.cur.Cluster.GPUs, m.cur.Layout.TP = 4, 4
	m.rev++
	m = settle(m)
	if m.data.Scenario.Layout.GPUs() != 4 {
		t.Fatalf("not re-evaluated: %d GPUs", m.data.Scenario.Layout.GPUs())
	}
	foot = m.footerView()
	if !strings.Contains(foot, "trace off: hta-nccl-data-rank-0.json.gz: distributedInfo.world_size is 2, but the layout runs 4 GPUs") || m.pipe.Overlay() != nil {
		t.Errorf("footer %q", foot)
	}

	bad := New(s, p, WithProbe(boxtest.NoGPU), WithTraces([]string{"no-such-trace.json"}))
	next, _ = bad.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	bad = settle(next.(Model))
	next, _ = bad.Update(traceCmd(bad.trace.paths)())
	bad = next.(Model)
	if foot := bad.footerView(); !strings.Contains(foot, "trace off: no-such-trace.json: cannot read the trace") {
		t.Errorf("footer %q", foot)
	}
}
