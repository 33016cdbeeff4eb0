package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/static"
)

// The first screen shows what TP and what PP cost, side by side, from the Report's own numbers.
func TestStripShowsBothCostsFromTheReport(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		m := ready(t, sz[0], sz[1], nil) // TP 4 × PP 2 on one node of 8
		r := m.data.Report
		v := m.View()
		checkFrame(t, v, sz[0], sz[1])
		lines := strings.Split(v, "\n")
		strip := strings.Join(lines[1:1+m.lay.Strip.H], "\n")
		tpShare := static.Percent(r.Breakdown.TPComm / r.StepTime)
		ppShare := static.Percent(r.BubbleFraction) // the bubble's own share, as every surface prints it
		for _, want := range []string{"TP 4", "nvlink4", tpShare, "PP 2", "bubble"} {
			if !strings.Contains(strip, want) {
				t.Errorf("%dx%d: the strip lacks %q:\n%s", sz[0], sz[1], want, strip)
			}
		}
		if m.lay.Strip.H == 2 {
			// Two lines: the bubble's own share and the all-reduce time, as the report has them.
			for _, want := range []string{static.Percent(r.Breakdown.Bubble / r.StepTime), static.Seconds(r.Breakdown.TPComm), "inside the node"} {
				if !strings.Contains(strip, want) {
					t.Errorf("%dx%d: the strip lacks %q:\n%s", sz[0], sz[1], want, strip)
				}
			}
		} else if !strings.Contains(strip, ppShare) {
			t.Errorf("%dx%d: the one-line strip lacks the PP share %s:\n%s", sz[0], sz[1], ppShare, strip)
		}
	}
}

func TestStripSaysWhereEachSplitRuns(t *testing.T) {
	s, _ := testScenario(t)
	for _, tc := range []struct {
		name            string
		gpus, tp, pp    int
		tpWhere, ppWhat string
	}{
		{"TP in each node, PP across them", 32, 8, 4, "TP 8 inside each node", "PP 4 across 4 nodes · ib-ndr"},
		{"TP across nodes", 16, 16, 1, "TP 16 across nodes", "PP 1 · no pipeline"},
		{"PP in and across nodes", 16, 4, 4, "TP 4 inside each node", "PP 4 in and across nodes · nvlink4/ib-ndr"},
		{"one GPU", 1, 1, 1, "TP 1 · no tensor split", "PP 1 · no pipeline"},
	} {
		c := s
		c.Cluster.GPUs = tc.gpus
		c.Layout.TP, c.Layout.PP, c.Layout.DP = tc.tp, tc.pp, tc.gpus/(tc.tp*tc.pp)
		c.Arch.Heads, c.Arch.KVHeads, c.Arch.FFN = 64, 64, 16384
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m := ready(t, 200, 60, func(x *model.Scenario) { *x = c })
		strip := strings.Join(strings.Split(m.View(), "\n")[1:3], "\n")
		for _, want := range []string{tc.tpWhere, tc.ppWhat} {
			if !strings.Contains(strip, want) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, want, strip)
			}
		}
	}
}

// The title keeps the layout and the batch at every width; the model's prose goes first.
func TestTitleKeepsLayoutAndBatch(t *testing.T) {
	s, _ := testScenario(t)
	full := titleLine(s, 1000, "")
	for _, want := range []string{"13.0B params", "nvlink4 / ib-ndr", "train bf16 seq 2048"} {
		if !strings.Contains(full, want) {
			t.Errorf("wide title lacks %q: %s", want, full)
		}
	}
	for _, w := range []int{80, 100, 120} {
		line := titleLine(s, w, "")
		if !strings.Contains(line, static.LayoutLine(s)) || !strings.Contains(line, "batch 16") {
			t.Errorf("%d columns: %q lost the layout or the batch", w, line)
		}
		if strings.Contains(line, "params") && !strings.Contains(line, "seq 2048") {
			t.Errorf("%d columns: the model's prose stayed while the workload went: %q", w, line)
		}
	}
}

// A calibration file shows in the title: calibrated when a link the GPUs use carries it, said
// to change nothing when none does.
func TestTitleCalibration(t *testing.T) {
	s, _ := testScenario(t)
	if got := titleLine(s, 1000, "box.yaml"); !strings.HasSuffix(got, " · box.yaml: no link here") {
		t.Errorf("uncalibrated links: %q", got)
	}
	s.Cluster.Intra.Calibrated = "box.yaml"
	full := titleLine(s, 1000, "box.yaml")
	if !strings.HasSuffix(full, " · calibrated: box.yaml") {
		t.Errorf("calibrated intra link: %q", full)
	}
	if line := titleLine(s, 100, "box.yaml"); !strings.Contains(line, "calibrated: box.yaml") || !strings.Contains(line, static.LayoutLine(s)) {
		t.Errorf("100 columns: %q", line)
	}
	if strings.Contains(titleLine(s, 1000, ""), "calibrat") {
		t.Errorf("no calibration: %q", titleLine(s, 1000, ""))
	}
}

// The explorer started with --calibration: the presets' nvlink4 carries the calibration, the
// title says so, and stepping to a link it does not calibrate says that too.
func TestExplorerCalibrationTitle(t *testing.T) {
	s, p := testScenario(t)
	p.Calibrate(model.Calibration{GPU: "h100-sxm", Intra: &model.LinkCalibration{Link: "nvlink4", Latency: 9e-6, Efficiency: 0.4}}, "box.yaml")
	s.Cluster.Intra, _ = p.Link("nvlink4")
	m := New(s, p, WithProbe(boxtest.NoGPU), WithCalibration("box.yaml"))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m = settle(next.(Model))
	if title := strings.Split(m.View(), "\n")[0]; !strings.Contains(title, "nvlink4 / ib-ndr") || !strings.Contains(title, "· calibrated: box.yaml") {
		t.Errorf("title: %q", title)
	}
	slow := m.data.Report.Breakdown.TPComm
	m = selectField(t, m, "intra")
	m, _ = press(m, "right")
	m = settle(m)
	if m.cur.Cluster.Intra.ID == "nvlink4" {
		t.Fatalf("the intra link did not change")
	}
	if title := strings.Split(m.View(), "\n")[0]; !strings.Contains(title, "· box.yaml: no link here") {
		t.Errorf("title after stepping to %s: %q", m.cur.Cluster.Intra.ID, title)
	}
	if m.data.Report.Breakdown.TPComm == slow {
		t.Errorf("TP comm unchanged by the link: %v", slow)
	}
}

// A model whose sizes were edited away from its preset is not titled as the preset: the title
// says "(modified: layers 20)", and says nothing once the edit is undone.
func TestTitleModifiedModel(t *testing.T) {
	m := ready(t, 200, 40, nil)
	if title := m.titleView(); !strings.Contains(title, "llama-2-13b (40 layers") || strings.Contains(title, "modified") {
		t.Fatalf("preset title: %q", title)
	}
	next, _ := m.edit("layers", func(s *model.Scenario) error { s.Arch.Layers = 20; return nil })
	m = settle(next.(Model))
	if title := m.titleView(); !strings.Contains(title, "llama-2-13b (modified: layers 20; 20 layers") {
		t.Errorf("edited title: %q", title)
	}
	if m.cur.Arch.Changes != "layers 20" {
		t.Errorf("scenario's changes %q", m.cur.Arch.Changes)
	}
	next, _ = m.edit("layers", func(s *model.Scenario) error { s.Arch.Layers = 40; return nil })
	m = settle(next.(Model))
	if title := m.titleView(); strings.Contains(title, "modified") || m.cur.Arch.Changes != "" {
		t.Errorf("edit undone: title %q, changes %q", title, m.cur.Arch.Changes)
	}
	// Narrow, the model's prose goes and the mark stays.
	s := m.cur
	s.Arch.Layers, s.Arch.Changes = 20, "layers 20"
	if line := titleLine(s, 100, ""); !strings.Contains(line, "llama-2-13b (modified: layers 20)") {
		t.Errorf("narrow title %q", line)
	}
}
