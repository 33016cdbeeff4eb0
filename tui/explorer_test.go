package tui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/common"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// ready builds the explorer at a size and runs its first evaluation synchronously, as the
// program would in its commands, so views are deterministic (no animation frame has run).
// The Box tab's probe finds no GPU: no test probes the real machine.
func ready(t testing.TB, w, h int, edit func(*model.Scenario)) Model {
	t.Helper()
	return readyWith(t, w, h, edit, boxtest.NoGPU)
}

// readyWith is ready with a probe for the Box tab.
func readyWith(t testing.TB, w, h int, edit func(*model.Scenario), probe func() (gpu.Box, error)) Model {
	t.Helper()
	s, p := testScenario(t)
	if edit != nil {
		edit(&s)
	}
	m := New(s, p, WithProbe(probe))
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = next.(Model)
	return settle(m)
}

// settle runs the pending evaluation and comparison of the current revision.
func settle(m Model) Model {
	next, _ := m.Update(evaluate(m.rev, m.cur)())
	next, _ = next.(Model).Update(buildCompare(m.rev, m.cur)())
	return next.(Model)
}

func press(m Model, keys ...string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "left":
			msg = tea.KeyMsg{Type: tea.KeyLeft}
		case "right":
			msg = tea.KeyMsg{Type: tea.KeyRight}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		case "space":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		var next tea.Model
		next, cmd = m.Update(msg)
		m = next.(Model)
	}
	return m, cmd
}

// selectField moves the selection to the named field.
func selectField(t testing.TB, m Model, name string) Model {
	t.Helper()
	for range 40 {
		if m.fields[m.sel].name == name {
			return m
		}
		m, _ = press(m, "down")
	}
	t.Fatalf("field %s not reachable", name)
	return m
}

func TestGoldenTabs(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		for tab, name := range []string{"pipeline", "tensor", "compare", "memory"} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size.w, size.h), func(t *testing.T) {
				m := ready(t, size.w, size.h, nil)
				next, _ := m.setTab(tab)
				view := next.(Model).View()
				checkFrame(t, view, size.w, size.h)
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// checkFrame asserts a view fills the terminal exactly.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, lipgloss.Width(l), w, l)
		}
	}
}

func TestTooSmallIsPolite(t *testing.T) {
	m := ready(t, 60, 20, nil)
	v := m.View()
	if !strings.Contains(v, "at least 80×24") || !strings.Contains(v, "60×20") {
		t.Errorf("small terminal view: %q", v)
	}
	checkFrame(t, v, 60, 20)
}

func TestEveryViewFitsWhileResizing(t *testing.T) {
	m := ready(t, 120, 40, nil)
	for _, sz := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {200, 60}, {79, 30}, {120, 23}, {160, 48}} {
		next, _ := m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = next.(Model)
		for tab := range m.panes {
			next, _ := m.setTab(tab)
			checkFrame(t, next.(Model).View(), sz[0], sz[1])
		}
	}
}

func TestRaisingGPUsChangesTheNumbers(t *testing.T) {
	m := ready(t, 120, 40, nil)
	before := m.data.Report.TokensPerS
	m = selectField(t, m, "gpus")
	m, cmd := press(m, "right")
	if cmd == nil {
		t.Fatal("changing GPUs started no evaluation")
	}
	if m.cur.Cluster.GPUs != 16 {
		t.Fatalf("GPUs %d, want 16", m.cur.Cluster.GPUs)
	}
	m = settle(m)
	if m.data.Scenario.Cluster.GPUs != 16 || m.data.Report.TokensPerS <= before {
		t.Errorf("16 GPUs: %.0f tok/s, 8 GPUs: %.0f tok/s", m.data.Report.TokensPerS, before)
	}
	if !strings.Contains(m.View(), "16× h100-sxm") {
		t.Error("title does not show 16 GPUs")
	}
}

func TestStaleResultsAreDropped(t *testing.T) {
	m := ready(t, 120, 40, nil)
	old := m.rev
	m = selectField(t, m, "gpus")
	m, _ = press(m, "right")
	s8 := m.data.Scenario
	s8.Cluster.GPUs = 99
	next, _ := m.Update(resultMsg{rev: old, s: s8})
	if next.(Model).data.Scenario.Cluster.GPUs == 99 {
		t.Error("a result of an older revision replaced the current one")
	}
}

func TestInvalidTPShowsTheReasonThenRecovers(t *testing.T) {
	m := ready(t, 80, 24, nil)
	m = selectField(t, m, "tp")
	m, _ = press(m, "enter", "backspace", "3", "enter")
	if !m.data.Stale {
		t.Fatal("invalid TP did not mark the result stale")
	}
	v := m.View()
	if !strings.Contains(v, "tp = 3: must divide heads") || !strings.Contains(v, "✗ 3") {
		t.Errorf("the inline reason is missing:\n%s", v)
	}
	if !strings.Contains(v, "step ") {
		t.Error("the last valid result vanished")
	}
	m, cmd := press(m, "enter", "backspace", "4", "enter")
	if cmd == nil || len(m.fieldErrs) != 0 {
		t.Fatalf("TP 4 still invalid: %v", m.fieldErrs)
	}
	m = settle(m)
	if m.data.Stale || m.data.Report.Layout.TP != 4 {
		t.Errorf("after the fix: stale %v, TP %d", m.data.Stale, m.data.Report.Layout.TP)
	}
}

func TestPCIeGrowsTheTensorCommShare(t *testing.T) {
	m := ready(t, 120, 40, nil)
	nv := m.data.Report.Detail.Layer.CommShare
	m = selectField(t, m, "intra")
	m, _ = press(m, "enter")
	m.input.SetValue("pcie4")
	m, _ = press(m, "enter")
	m = settle(m)
	pc := m.data.Report.Detail.Layer.CommShare
	if m.data.Scenario.Cluster.Intra.ID != "pcie4" || pc <= nv {
		t.Errorf("PCIe comm share %.3f, NVLink %.3f", pc, nv)
	}
	next, _ := m.setTab(TabTensor)
	if !strings.Contains(next.(Model).View(), "pcie4") {
		t.Error("the Tensor tab does not name the PCIe link")
	}
}

func TestPauseStopsTheClock(t *testing.T) {
	m := ready(t, 120, 40, nil)
	if !m.ticking || !m.panes[TabPipeline].Animating() {
		t.Fatal("the pipeline does not play after the first result")
	}
	next, cmd := m.Update(common.FrameMsg(time.Now()))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("a frame while playing did not re-arm the clock")
	}
	m, _ = press(m, "space") // pause
	next, cmd = m.Update(common.FrameMsg(time.Now()))
	m = next.(Model)
	if cmd != nil || m.ticking {
		t.Error("the clock kept ticking while paused")
	}
	m, cmd = press(m, "space") // play again
	if cmd == nil || !m.ticking {
		t.Error("play did not restart the clock")
	}
	// Another tab that is not animating stops the clock at the next frame.
	next, _ = m.setTab(TabMemory)
	next, cmd = next.(Model).Update(common.FrameMsg(time.Now()))
	if cmd != nil || next.(Model).ticking {
		t.Error("frames kept coming on the Memory tab")
	}
}

// TestFlow drives the real program: start, raise GPUs, switch to PCIe on the Tensor tab,
// open the help, quit.
func TestFlow(t *testing.T) {
	s, p := testScenario(t)
	tm := teatest.NewTestModel(t, New(s, p, WithProbe(boxtest.NoGPU)), teatest.WithInitialTermSize(120, 40))
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("step ")
	for range 6 { // model, layers, hidden, heads, sequence, GPU → GPUs
		tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyRight})
	waitFor("16× h100-sxm")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	waitFor("One layer on one GPU")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown}) // GPUs/node → intra link
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	for range len("nvlink4") {
		tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	tm.Type("pcie4")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("pcie4 / ib-ndr")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	waitFor("cancel typing")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	fm := tm.FinalModel(t).(Model)
	if fm.cur.Cluster.GPUs != 16 || fm.cur.Cluster.Intra.ID != "pcie4" || fm.tab != TabTensor {
		t.Errorf("final scenario: %d GPUs, intra %s, tab %d", fm.cur.Cluster.GPUs, fm.cur.Cluster.Intra.ID, fm.tab)
	}
}

func TestMouseClicksTabsAndWheelAdjusts(t *testing.T) {
	m := ready(t, 120, 40, nil)
	// The third tab label starts after "1 Pipeline" and "2 Tensor" with one cell of padding each.
	x := m.lay.Tabs.X + lipgloss.Width("1 Pipeline") + 2 + lipgloss.Width("2 Tensor") + 2 + 1
	next, _ := m.Update(tea.MouseMsg{X: x, Y: m.lay.Tabs.Y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	m = next.(Model)
	if m.tab != TabCompare {
		t.Fatalf("click on the third tab selected tab %d", m.tab)
	}
	// GPUs is the 7th row inside the parameter panel's border.
	row := m.lay.Params.Y + 1 + 6
	next, cmd := m.Update(tea.MouseMsg{X: 3, Y: row, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	m = next.(Model)
	if m.fields[m.sel].name != "gpus" || m.cur.Cluster.GPUs != 16 || cmd == nil {
		t.Errorf("wheel up on the GPUs row: selected %s, %d GPUs", m.fields[m.sel].name, m.cur.Cluster.GPUs)
	}
}
