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

	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/tui/boxtab"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// onBoxTab switches to the Box tab and runs, synchronously, its first probe and the capacity
// verdict; the timer of the next poll is not run.
func onBoxTab(t testing.TB, m Model) Model {
	t.Helper()
	next, cmd := m.setTab(TabBox)
	m = next.(Model)
	if cmd == nil {
		t.Fatal("the Box tab started no probe")
	}
	msg := cmd()
	if _, batch := msg.(tea.BatchMsg); batch || !boxtab.Owns(msg) {
		t.Fatalf("switching to the Box tab gave %T, want the probe's answer alone", msg)
	}
	m.box.Update(msg) // returns the next poll's timer, not run
	if cmd := m.box.Recheck(); cmd != nil {
		next, _ = m.Update(cmd())
		m = next.(Model)
	}
	return m
}

func TestGoldenBox(t *testing.T) {
	probes := []struct {
		name  string
		probe func() func() (gpu.Box, error) // a fresh one per view: the fake's utilisation moves
	}{
		{"l40s", func() func() (gpu.Box, error) { return boxtest.NewProbe(boxtest.L40S4()).Probe }},
		{"nogpu", func() func() (gpu.Box, error) { return boxtest.NoGPU }},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		for _, pr := range probes {
			t.Run(fmt.Sprintf("%s_%dx%d", pr.name, size.w, size.h), func(t *testing.T) {
				m := onBoxTab(t, readyWith(t, size.w, size.h, nil, pr.probe()))
				view := m.View()
				checkFrame(t, view, size.w, size.h)
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestBoxFlow drives the real program with a fake 4× L40S probe: open the Box tab, see the GPUs,
// see the utilisation change (the poll ran again), use the box and see the title follow.
func TestBoxFlow(t *testing.T) {
	s, p := testScenario(t)
	fake := boxtest.NewProbe(boxtest.L40S4())
	tm := teatest.NewTestModel(t, New(s, p, WithProbe(fake.Probe)), teatest.WithInitialTermSize(120, 40))
	// waitFor waits until the output since the last wait holds every string (the renderer only
	// repaints lines that changed, so each is looked for once).
	waitFor := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("step ")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("5")})
	waitFor("memory used", "37%", "as a cluster: 4× l40s", "largest model that fits")
	waitFor("83%") // the second probe (the utilisation alternates): polling runs
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("u")})
	waitFor("4× l40s")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	fm := tm.FinalModel(t).(Model)
	c := fm.cur.Cluster
	if c.GPUs != 4 || c.GPU.ID != "l40s" || c.GPUsPerNode != 4 || fm.tab != TabBox {
		t.Errorf("final: %d× %s (%d per node), tab %d", c.GPUs, c.GPU.ID, c.GPUsPerNode, fm.tab)
	}
	if fake.Calls() < 2 {
		t.Errorf("%d probes, want at least 2", fake.Calls())
	}
}

func TestBoxPollingStopsWhenLeavingTheTab(t *testing.T) {
	fake := boxtest.NewProbe(boxtest.L40S4())
	m := readyWith(t, 120, 40, nil, fake.Probe)
	if fake.Calls() != 0 {
		t.Fatal("the box was probed before its tab was opened")
	}
	next, cmd := m.setTab(TabBox)
	probe := cmd
	next, cmd = next.(Model).setTab(TabMemory)
	if cmd != nil {
		t.Error("leaving the Box tab started something")
	}
	// The probe that was in flight answers after the tab was left: nothing is re-armed.
	next, cmd = next.(Model).Update(probe())
	m = next.(Model)
	if cmd != nil {
		t.Error("a probe result after leaving the tab re-armed the poll")
	}
	if m.box.Active() {
		t.Error("the Box pane still polls on the Memory tab")
	}
	// Back on the tab, a result re-arms the timer again.
	next, cmd = m.setTab(TabBox)
	_, cmd = next.(Model).Update(cmd())
	if cmd == nil {
		t.Error("a probe result on the Box tab did not re-arm the poll")
	}
}

func TestUseBoxFitsTheSplit(t *testing.T) {
	m := onBoxTab(t, readyWith(t, 120, 40, nil, boxtest.NewProbe(boxtest.L40S4()).Probe))
	before := m.cur.MicroBatches()
	m, cmd := press(m, "u")
	if cmd == nil {
		t.Fatal("u gave no command")
	}
	next, cmd := m.Update(cmd())
	m = next.(Model)
	if cmd == nil {
		t.Fatal("using the box started no evaluation")
	}
	c, l := m.cur.Cluster, m.cur.Layout
	if c.GPUs != 4 || c.GPU.ID != "l40s" || c.Intra.ID != "pcie4-sys-nop2p" {
		t.Errorf("cluster %d× %s over %s", c.GPUs, c.GPU.ID, c.Intra.ID)
	}
	// TP 4 × PP 2 does not divide 4 GPUs: PP shrinks, DP follows, m stays.
	if l.TP != 4 || l.PP != 1 || l.DP != 1 || m.cur.MicroBatches() != before {
		t.Errorf("layout TP=%d PP=%d DP=%d m=%d, want TP=4 PP=1 DP=1 m=%d", l.TP, l.PP, l.DP, m.cur.MicroBatches(), before)
	}
	m = settle(m)
	v := m.View()
	if !strings.Contains(v, "4× l40s") {
		t.Errorf("the title does not show the box:\n%s", v)
	}
	if m.data.Stale || m.evalErr != nil {
		t.Errorf("the box's scenario did not evaluate: %v", m.evalErr)
	}
}

func TestUseBoxShowsWhyNot(t *testing.T) {
	m := onBoxTab(t, readyWith(t, 120, 40, nil, boxtest.NewProbe(boxtest.L40S4()).Probe))
	next, cmd := m.Update(boxtab.UseBoxMsg{Box: gpu.Box{}})
	m = next.(Model)
	if cmd != nil || m.cur.Cluster.GPUs != 8 {
		t.Errorf("an empty box changed the scenario: %d GPUs", m.cur.Cluster.GPUs)
	}
	if !strings.Contains(m.View(), "can't use this box") {
		t.Errorf("no reason shown:\n%s", m.View())
	}
}

func TestClickBoxTab(t *testing.T) {
	m := ready(t, 120, 40, nil)
	x := m.lay.Tabs.X
	for _, t := range m.tabTitles()[:TabBox] {
		x += lipgloss.Width(t) + 2
	}
	next, cmd := m.Update(tea.MouseMsg{X: x + 1, Y: m.lay.Tabs.Y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	m = next.(Model)
	if m.tab != TabBox || cmd == nil || !m.box.Active() {
		t.Errorf("click on the fifth tab: tab %d, polling %v", m.tab, m.box.Active())
	}
}

func TestTabKeysCycleThroughFive(t *testing.T) {
	m := ready(t, 120, 40, nil)
	for i := range len(m.panes) { // five tabs and the Learn tab after the Box tab
		if m.tab != i {
			t.Fatalf("after %d tabs: tab %d", i, m.tab)
		}
		m, _ = press(m, "tab")
	}
	if m.tab != TabPipeline || m.box.Active() {
		t.Errorf("tab from the last tab: tab %d, polling %v", m.tab, m.box.Active())
	}
	m, _ = press(m, "5")
	if m.tab != TabBox || !m.box.Active() {
		t.Errorf("5: tab %d, polling %v", m.tab, m.box.Active())
	}
}

func TestUseBoxShowsTheWarnings(t *testing.T) {
	b := boxtest.L40S4()
	for i := range b.GPUs {
		b.GPUs[i].Name = "NVIDIA Quasar Q9"
	}
	m := onBoxTab(t, readyWith(t, 120, 40, nil, func() (gpu.Box, error) { return b, nil }))
	m, cmd := press(m, "u")
	next, _ := m.Update(cmd())
	m = settle(next.(Model))
	if !strings.Contains(m.paramsView(), "! unknown GPU") {
		t.Errorf("the box's warning is not under the parameters:\n%s", m.paramsView())
	}
	// Another GPU type: the hardware is no longer the box's, its warnings go.
	m = selectField(t, m, "gpu")
	m, _ = press(m, "right")
	if strings.Contains(m.paramsView(), "unknown GPU") {
		t.Errorf("the box's warning stayed after the GPU changed:\n%s", m.paramsView())
	}
}
