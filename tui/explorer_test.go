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

// The Serve view: serving 64 requests arriving at 4 req/s on the test box (TP 4 × PP 2), the
// Pipeline tab with the engine's KV cache and queue at the playhead, the Compare tab's rate
// chart, at 80×24 and 160×48.
func TestGoldenServe(t *testing.T) {
	serve := func(s *model.Scenario) {
		s.Workload.Mode = model.Infer
		s.Workload.Requests, s.Workload.Rate = 64, 4
		s.Workload.SLOTPOT = 0.02
		s.Layout.MicroBatch = 1
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		for _, tab := range []struct {
			i    int
			name string
		}{{0, "pipeline"}, {2, "compare"}} {
			t.Run(fmt.Sprintf("%s_%dx%d", tab.name, size.w, size.h), func(t *testing.T) {
				m := ready(t, size.w, size.h, serve)
				if m.data.Report.Inference == nil {
					t.Fatal("no serving figures")
				}
				next, _ := m.setTab(tab.i)
				view := next.(Model).View()
				checkFrame(t, view, size.w, size.h)
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestGoldenDisagg: serving on two pools of the 8 GPUs (4 prefilling, 4 decoding at TP 4): the
// header names both pools' splits, the panel its pools and prefill TP rows, the Pipeline tab
// the decode pool's steps (GPUs 4–7) and its clients' latencies.
func TestGoldenDisagg(t *testing.T) {
	disagg := func(s *model.Scenario) {
		s.Workload.Mode = model.Infer
		s.Workload.Requests, s.Workload.Rate = 64, 4
		s.Layout.MicroBatch = 1
		s.Layout.TP, s.Layout.PP, s.Layout.DP = 4, 1, 1
		s.Layout.Disagg = model.Disagg{PrefillGPUs: 4}
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("pipeline_%dx%d", size.w, size.h), func(t *testing.T) {
			m := ready(t, size.w, size.h, disagg)
			inf := m.data.Report.Inference
			if inf == nil || inf.Disagg == nil {
				t.Fatal("no disaggregated serving figures")
			}
			view := m.View()
			checkFrame(t, view, size.w, size.h)
			if !strings.Contains(view, "prefill TP=4") {
				t.Errorf("the header does not name the prefill pool:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestGoldenServeSpec: the Serve view of a speculative engine says what a step yields, the
// acceptance and the drafter's share of the step (llama-3-8b on one H100 with an EAGLE head).
func TestGoldenServeSpec(t *testing.T) {
	spec := func(s *model.Scenario) {
		s.Workload.Mode = model.Infer
		s.Workload.Requests, s.Workload.Concurrency = 64, 8
		s.Workload.SpecTokens, s.Workload.SpecMethod = 3, model.SpecEAGLE
		acc := model.SpecAccept{0.7}
		s.Workload.SpecAccept = &acc
		s.Layout.MicroBatch = 1
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("pipeline_%dx%d", size.w, size.h), func(t *testing.T) {
			m := ready(t, size.w, size.h, spec)
			if m.data.Report.Inference == nil || m.data.Report.Inference.Spec == nil {
				t.Fatal("no speculation in the serving figures")
			}
			view := m.View()
			checkFrame(t, view, size.w, size.h)
			if !strings.Contains(view, "2.52 tok/step") || !strings.Contains(view, "drafter") {
				t.Errorf("the view does not say speculation is on:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
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
	if !strings.Contains(v, "80×24 or more") || !strings.Contains(v, "60×20") {
		t.Errorf("small terminal view: %q", v)
	}
	checkFrame(t, v, 60, 20)
	// Down to 40×10 the message is whole, words and all.
	m = ready(t, 40, 10, nil)
	v = m.View()
	checkFrame(t, v, 40, 10)
	flat := strings.Join(strings.Fields(v), " ")
	if !strings.Contains(flat, "splitscope needs 80×24 or more; this terminal is 40×10. Enlarge it, or press q to quit.") {
		t.Errorf("the message is cut at 40×10:\n%s", v)
	}
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

func TestTypedValueReplacesTheSelectedText(t *testing.T) {
	m := ready(t, 80, 24, nil) // TP 4 × PP 2 on 8 GPUs
	m = selectField(t, m, "tp")
	m, _ = press(m, "enter")
	if !m.editing || !m.inputSel || m.input.Value() != "4" {
		t.Fatalf("enter: editing %v, selected %v, text %q; want the field's text selected", m.editing, m.inputSel, m.input.Value())
	}
	// The input is the row itself: the TP row shows the typed text, not a prompt elsewhere.
	if row := lineWith(m.View(), "│›TP "); !strings.Contains(row, "[4]") {
		t.Errorf("the TP row is not the input: %q", row)
	}
	m, _ = press(m, "2") // replaces the selected "4", not "42"
	if m.input.Value() != "2" {
		t.Fatalf("typed 2 over the selected text: %q", m.input.Value())
	}
	m, cmd := press(m, "enter")
	if m.editing || m.cur.Layout.TP != 2 || m.cur.Layout.DP != 2 || cmd == nil {
		t.Fatalf("after enter: editing %v, TP %d, DP %d", m.editing, m.cur.Layout.TP, m.cur.Layout.DP)
	}
	// Edits change one thing: the global batch stays, m follows, and the footer says so.
	if m.cur.Workload.GlobalBatch != 16 || m.cur.MicroBatches() != 8 {
		t.Errorf("batch %d, m %d; want the batch kept (16) and m = 16 / 2 = 8", m.cur.Workload.GlobalBatch, m.cur.MicroBatches())
	}
	m = settle(m)
	if v := m.View(); !strings.Contains(v, "also moved: DP 1 → 2 · micro-batches m 16 → 8") {
		t.Errorf("the footer does not say what moved:\n%s", v)
	}
	m, _ = press(m, "enter", "esc")
	if m.editing || m.cur.Layout.TP != 2 {
		t.Errorf("esc did not cancel: editing %v, TP %d", m.editing, m.cur.Layout.TP)
	}
}

func TestRefusedValueSaysWhyAndOffersTheNearest(t *testing.T) {
	m := ready(t, 80, 24, nil) // llama-2-13b, 40 heads, TP 4 × PP 2 on 8 GPUs
	m = selectField(t, m, "tp")
	m, _ = press(m, "enter", "3", "enter")
	if !m.editing || m.cur.Layout.TP != 4 {
		t.Fatalf("TP 3 was applied (TP %d) or the input closed (%v)", m.cur.Layout.TP, m.editing)
	}
	if !strings.HasPrefix(m.inputErr, "tp 3: must divide heads (40)") {
		t.Errorf("the reason: %q", m.inputErr)
	}
	if v := m.View(); !strings.Contains(v, "✗ tp 3: must") || !strings.Contains(v, "enter: TP") {
		t.Errorf("the reason and the fix are not under the field:\n%s", v)
	}
	if !m.inputSel || m.offer == nil || !m.offer.ok {
		t.Fatalf("after a refusal the text should be selected again and a fix offered: %+v", m.offer)
	}
	want := m.offer.s.Layout
	if m.cur.Validate() != nil || m.offer.s.Validate() != nil {
		t.Fatal("an invalid scenario was applied or offered")
	}
	m, _ = press(m, "enter") // Enter again on the same text takes the offer
	if m.editing || m.cur.Layout != want {
		t.Errorf("enter again: editing %v, layout %+v, want %+v", m.editing, m.cur.Layout, want)
	}
}

func TestEditThatCannotApplyOffersTheNearestSplit(t *testing.T) {
	m := ready(t, 120, 40, func(s *model.Scenario) {
		s.Layout = model.Layout{TP: 8, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1}
	})
	m = selectField(t, m, "pp")
	before := m.cur
	m, cmd := press(m, "right") // PP 2 with TP 8 on 8 GPUs: no room
	if cmd != nil || m.cur != before {
		t.Fatalf("the impossible edit applied: %+v", m.cur.Layout)
	}
	v := m.View()
	for _, want := range []string{"TP 8 uses all 8 GPUs: no room for PP 2", "y: TP 4 × PP 2 × DP 1"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	if row := lineWith(v, "│›PP "); !strings.Contains(row, "1 ✗2") {
		t.Errorf("the PP row does not show the value asked for: %q", row)
	}
	m, cmd = press(m, "y")
	if cmd == nil || m.cur.Layout.TP != 4 || m.cur.Layout.PP != 2 || m.offer != nil {
		t.Fatalf("y: layout %+v, offer %v", m.cur.Layout, m.offer)
	}
	if m.cur.Workload.GlobalBatch != before.Workload.GlobalBatch {
		t.Errorf("the batch moved: %d → %d", before.Workload.GlobalBatch, m.cur.Workload.GlobalBatch)
	}
	// Any other move dismisses an offer.
	m, _ = press(m, "right", "right") // PP 4, then 8: TP 4 × PP 8 needs 32
	if m.offer == nil {
		t.Fatal("PP 8 with TP 4 on 8 GPUs applied")
	}
	m, _ = press(m, "up")
	if m.offer != nil {
		t.Error("moving the selection kept the offer")
	}
}

func TestUnevenBatchIsProposedNotTaken(t *testing.T) {
	m := ready(t, 120, 40, func(s *model.Scenario) {
		s.Workload.GlobalBatch = 12 // TP 4 × PP 2 × DP 1, m = 12
	})
	m = selectField(t, m, "tp")
	m, _ = press(m, "left", "left") // TP 2: DP 2, 12 / 2 = 6; then TP 1: DP 4, 12 / 4 = 3
	if m.cur.Layout.TP != 1 || m.cur.Workload.GlobalBatch != 12 {
		t.Fatalf("TP %d, batch %d", m.cur.Layout.TP, m.cur.Workload.GlobalBatch)
	}
	m = selectField(t, m, "micro-batch")
	m, _ = press(m, "right") // b 2: 12 / (2 × 4) is not whole
	if m.offer == nil || !m.offer.ok || m.cur.Layout.MicroBatch != 1 {
		t.Fatalf("b %d applied, offer %v", m.cur.Layout.MicroBatch, m.offer)
	}
	o := m.offer.s
	if got := o.Workload.GlobalBatch; (got != 8 && got != 16) || o.Layout.TP != 1 || o.Layout.MicroBatch != 2 {
		t.Errorf("offered batch %d, TP %d, b %d; want the nearest multiple of 8 (8 or 16), the split and b 2 kept", got, o.Layout.TP, o.Layout.MicroBatch)
	}
}

func TestHiddenPanelDisablesParameterKeys(t *testing.T) {
	m := ready(t, 120, 40, nil)
	for _, hide := range []string{"p", "P"} {
		m, _ = press(m, hide)
		before := m.cur
		m, _ = press(m, "down", "right", "left", "enter")
		if m.cur != before || m.editing {
			t.Errorf("%s: parameter keys still change the hidden panel's scenario", hide)
		}
		foot := m.helpView()
		if strings.Contains(foot, "parameter") || strings.Contains(foot, "value") {
			t.Errorf("%s: the footer offers parameter keys: %q", hide, foot)
		}
		m, _ = press(m, hide)
	}
}

// lineWith is the first line of a view that contains sub.
func lineWith(view, sub string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
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
	waitFor("· pcie4")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	waitFor("All keys")
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

// helpText scrolls the help page from top to bottom and returns every line it showed.
func helpText(t *testing.T, m Model) string {
	t.Helper()
	m, _ = press(m, "?")
	if !m.helpOpen {
		t.Fatal("? did not open the help")
	}
	var all strings.Builder
	for range 20 {
		v := m.View()
		checkFrame(t, v, m.width, m.height)
		all.WriteString(v)
		before := m.helpTop
		m, _ = press(m, "down")
		if m.helpTop == before {
			break
		}
	}
	return all.String()
}

func TestHelpShowsEveryKeyAt80x24(t *testing.T) {
	m := ready(t, 80, 24, nil)
	all := helpText(t, m)
	for _, want := range []string{"↑/↓ k/j", "←/→ h/l", "enter", "mouse", "click a tab", "tab", "shift+tab", "1-6",
		"space", "home/0", "+", "-", ".", "w", "g", "P", "s", "x", "p", "?", "q, ctrl+c"} {
		if !strings.Contains(all, want) {
			t.Errorf("the help never shows %q", want)
		}
	}
	// Scrolling keys, where they scroll: the Learn tab, and the Pipeline tab when its stages fold.
	for _, tc := range []struct {
		name string
		m    Model
	}{
		{"learn", func() Model { l, _ := press(m, "6"); return l }()},
		{"folded pipeline", ready(t, 80, 24, func(s *model.Scenario) { s.Cluster.GPUs, s.Layout.TP, s.Layout.PP = 32, 1, 32 })},
	} {
		all := helpText(t, tc.m)
		for _, want := range []string{"pgup/[", "pgdn/]"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the help never shows %q", tc.name, want)
			}
		}
	}
	// Keys that do nothing now are not offered: y without an offer, u and r off the Box tab.
	for _, absent := range []string{"take the offered fix", "use this box"} {
		if strings.Contains(all, absent) {
			t.Errorf("the help offers %q, which does nothing now", absent)
		}
	}
	m, _ = press(m, "?")
	m, _ = press(m, "?")
	if m.helpOpen {
		t.Error("? again did not close the help")
	}
	// With an offer pending, y is in the help and the footer.
	m = selectField(t, m, "tp")
	m, _ = press(m, "right")
	if !strings.Contains(m.helpView(), "y take the fix") || !strings.Contains(helpText(t, m), "take the offered fix") {
		t.Error("y is not offered while a fix is pending")
	}
}

func TestHelpOnTheBoxTabFollowsTheBox(t *testing.T) {
	for _, tc := range []struct {
		probe func() (gpu.Box, error)
		useU  bool
	}{{boxtest.NoGPU, false}, {boxtest.NewProbe(boxtest.L40S4()).Probe, true}} {
		m := onBoxTab(t, readyWith(t, 80, 24, nil, tc.probe))
		all := helpText(t, m)
		if got := strings.Contains(all, "use this box"); got != tc.useU {
			t.Errorf("box present %v: help offers u: %v", tc.useU, got)
		}
		if got := strings.Contains(m.helpView(), "use this box"); got != tc.useU {
			t.Errorf("box present %v: footer offers u: %v", tc.useU, got)
		}
	}
}

// A setting with no effect is said on screen: the cost model's warning in the footer and, whole,
// under the panel.
func TestWarningsShowInTheFooterAndThePanel(t *testing.T) {
	m := ready(t, 120, 40, func(s *model.Scenario) { s.Layout.ZeRO = 1 }) // DP 1: nothing to shard
	if len(m.data.Report.Warnings) == 0 {
		t.Fatal("ZeRO 1 with DP 1: no warning from the cost model")
	}
	v := m.View()
	lines := strings.Split(v, "\n")
	if foot := lines[len(lines)-1]; !strings.Contains(foot, "! ZeRO 1") {
		t.Errorf("the footer lacks the warning: %q", foot)
	}
	if flat := strings.Join(strings.Fields(strings.ReplaceAll(v, "│", " ")), " "); !strings.Contains(flat, "raise DP or set ZeRO 0") {
		t.Errorf("the panel lacks the whole warning:\n%s", v)
	}
	clean := ready(t, 120, 40, nil)
	if strings.Contains(clean.View(), "! ") {
		t.Error("a warning on a scenario that sets nothing in vain")
	}
}
