package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// TestFooterCalibration: started with --calibration, the explorer's verdict line says which
// file calibrates the scenario, what it sets here and its fit's error on the files it was fitted
// to; at 80 columns a shorter form that keeps the memory verdict; without a calibration, or with
// one of another GPU, the footer says nothing of one.
func TestFooterCalibration(t *testing.T) {
	s, p := testScenario(t)
	s.Workload.Mode = model.Infer
	c := model.Calibration{GPU: "h100-sxm", From: []string{"a.json", "b.json"},
		Serving: &model.ServingCalibration{MemoryEff: 0.8129, ComputeEff: 0.6},
		Rows:    15, MeanError: 0.1533, MaxError: 0.4789}
	p.Calibrate(c, "box.yaml")
	s.Cluster.GPU, _ = p.GPU("h100-sxm")

	open := func(w int, opts ...Option) Model {
		m := New(s, p, append([]Option{WithProbe(boxtest.NoGPU)}, opts...)...)
		next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: 40})
		return settle(next.(Model))
	}
	verdict := func(m Model) string { return ansi.Strip(m.verdict()) }

	if v := verdict(open(240)); strings.Contains(v, "calibrat") {
		t.Errorf("no calibration: %q", v)
	}
	wide := open(240, WithCalibrationFile("box.yaml", c))
	want := "calibrated: box.yaml (serving: memory_eff 0.81, compute_eff 0.60; its fit: mean |error| 15.3% on 15 figures of 2 files)"
	if v := verdict(wide); !strings.Contains(v, want) || !strings.Contains(v, "idle ") || !strings.Contains(v, "fits ") {
		t.Errorf("240 columns: %q, want %q", v, want)
	}
	// Kept under training: (a fit to training logs), the footer names that section.
	tc := c
	tc.Section = model.SectionTraining
	if v := verdict(open(240, WithCalibrationFile("box.yaml", tc))); !strings.Contains(v, "calibrated: box.yaml (training: memory_eff 0.81, compute_eff 0.60;") {
		t.Errorf("training section: %q", v)
	}
	if title := ansi.Strip(wide.titleView()); !strings.Contains(title, "calibrated: box.yaml") {
		t.Errorf("a serving calibration of the scenario's GPU: title %q", title)
	}
	// At 80 columns serving's figures leave no room: the memory verdict stays whole, the title
	// says the calibration.
	narrow := open(80, WithCalibrationFile("box.yaml", c))
	if v := verdict(narrow); !strings.Contains(v, "fits ") || !strings.Contains(ansi.Strip(narrow.titleView()), "calibrated: box.yaml") {
		t.Errorf("80 columns, serving: %q", v)
	}
	// Training's line is shorter: the short form takes the bubble's and comm's place.
	s.Workload.Mode = model.Train
	narrow = open(80, WithCalibrationFile("box.yaml", c))
	v := verdict(narrow)
	if ansi.StringWidth(v) > 80 || !strings.Contains(v, "calibrated") || !strings.Contains(v, "15.3%") || !strings.Contains(v, "fits ") || strings.Contains(v, "…") {
		t.Errorf("80 columns, training: %q (%d cells)", v, ansi.StringWidth(v))
	}
	t.Logf("80 columns, training: %q", v)
	if v := verdict(open(80)); !strings.Contains(v, "bubble ") {
		t.Errorf("80 columns without a calibration keeps the bubble: %q", v)
	}

	other := c
	other.GPU = "a100-sxm-80gb"
	m := open(240, WithCalibrationFile("box.yaml", other))
	if v := verdict(m); strings.Contains(v, "calibrat") {
		t.Errorf("another GPU's calibration: %q", v)
	}
	if title := ansi.Strip(m.titleView()); !strings.Contains(title, "box.yaml: no link here") {
		t.Errorf("another GPU's calibration: title %q", title)
	}
}
