package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// run runs cmd's commands, each in its own goroutine as the program does (some wait on a
// timer), so that the reports they make reach the test's channel.
func run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if b, ok := cmd().(tea.BatchMsg); ok {
			for _, c := range b {
				run(c)
			}
		}
	}()
}

// next waits for a report, bounded.
func next[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no report")
		var zero T
		return zero
	}
}

// classModel is a served explorer at 100×30 with an option of the classroom's, evaluated.
func classModel(t *testing.T, opt Option) Model {
	t.Helper()
	s, p := testScenario(t)
	m := New(s, p, WithProbe(boxtest.NoGPU), WithServed(), opt)
	n, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return settle(n.(Model))
}

func send(m Model, msg tea.Msg) (Model, tea.Cmd) {
	n, cmd := m.Update(msg)
	return n.(Model), cmd
}

func tourLead(t *testing.T, step int) LeadMsg {
	t.Helper()
	_, p := testScenario(t)
	f, err := assets.TourScenario(assets.TourSteps()[step], p)
	if err != nil {
		t.Fatal(err)
	}
	return LeadMsg{Tour: true, Step: step, Scenario: f.Scenario}
}

// A following student goes where the teacher is: into the tour at its step (mid-lesson), to
// another step, out of it and onto the teacher's scenario; no F is offered while it follows.
func TestLeadMovesAFollower(t *testing.T) {
	m := classModel(t, WithFollower(func(Follow) {}))
	m, _ = send(m, tourLead(t, 3))
	if !m.tour.on || m.tour.at != 3 {
		t.Fatalf("tour %v at %d, want on at step 3", m.tour.on, m.tour.at)
	}
	if v := settle(m).View(); !strings.Contains(v, fmt.Sprintf("tour 4/%d", len(assets.TourSteps()))) || strings.Contains(v, "F to follow") {
		t.Errorf("footer: %q", lineWith(v, "tour"))
	}
	m, _ = send(m, tourLead(t, 5))
	if m.tour.at != 5 {
		t.Errorf("step %d, want 5", m.tour.at)
	}
	s := m.tour.saved
	s.Cluster.GPUs *= 2
	m, _ = send(m, LeadMsg{Scenario: s})
	if m.tour.on || m.cur != s {
		t.Errorf("after the teacher left the tour with 2× the GPUs: tour %v, GPUs %d", m.tour.on, m.cur.Cluster.GPUs)
	}
	if k := m.activeKeys(); k.Follow.Enabled() {
		t.Error("F offered to a student who follows")
	}
}

// A student who changes the tour step or a parameter stops following (reported once) and is
// told where the teacher is; the teacher's moves do not move it; F goes back to the teacher's
// state and follows again.
func TestWanderAndFollow(t *testing.T) {
	reports := make(chan Follow, 8)
	m := classModel(t, WithFollower(func(f Follow) { reports <- f }))
	m, _ = send(m, tourLead(t, 1))
	m, cmd := press(m, "left")
	run(cmd)
	if f := next(t, reports); f.Following || f.Seq != 1 {
		t.Errorf("report %+v, want not following, seq 1", f)
	}
	if m.tour.at != 0 {
		t.Fatalf("step %d, want 0", m.tour.at)
	}
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("teacher is on step 2/%d · F to follow", len(assets.TourSteps()))) {
		t.Errorf("footer: %q", lineWith(v, "tour"))
	}
	m, _ = send(m, tourLead(t, 2))
	if m.tour.at != 0 {
		t.Errorf("the teacher's step moved a student who wandered off to %d", m.tour.at)
	}
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("teacher is on step 3/%d · F to follow", len(assets.TourSteps()))) {
		t.Errorf("footer: %q", lineWith(v, "tour"))
	}
	m, _ = send(m, tourLead(t, 0)) // the teacher comes to the student's step
	if v := m.View(); !strings.Contains(v, "teacher is on this step · F to follow") {
		t.Errorf("footer: %q", lineWith(v, "tour"))
	}
	m, _ = send(m, tourLead(t, 2))
	if !strings.Contains(helpText(t, m), "follow the teacher again") {
		t.Error("the help page does not list F")
	}
	m, cmd = press(m, "F")
	run(cmd)
	if f := next(t, reports); !f.Following || f.Seq != 2 {
		t.Errorf("report %+v, want following, seq 2", f)
	}
	if m.tour.at != 2 || !m.class.Following {
		t.Errorf("after F: step %d, following %v; want step 2, following", m.tour.at, m.class.Following)
	}

	// Outside the tour: a parameter changed by hand.
	start := m.tour.saved
	m, _ = send(m, LeadMsg{Scenario: start})
	m = settle(selectField(t, m, "gpus"))
	m, cmd = press(m, "right")
	run(cmd)
	if f := next(t, reports); f.Following {
		t.Errorf("report %+v after a change by hand, want not following", f)
	}
	if v := m.View(); !strings.Contains(v, "you left the teacher's scenario · F to follow") {
		t.Errorf("footer: %q", lineWith(v, "F to follow"))
	}
	other := start
	other.Layout.MicroBatch *= 2
	m, _ = send(m, LeadMsg{Scenario: other})
	if m.cur == other {
		t.Error("the teacher's scenario replaced a student's own")
	}
	if v := m.View(); !strings.Contains(v, "teacher changed the scenario · F to follow") {
		t.Errorf("footer: %q", lineWith(v, "F to follow"))
	}
	m, _ = press(m, "F")
	if m.cur != other {
		t.Errorf("F: micro-batch %d, want the teacher's %d", m.cur.Layout.MicroBatch, other.Layout.MicroBatch)
	}
}

// The teacher's explorer reports each change of its own, in order (Seq), and nothing else (a
// tab); another teacher's LeadMsg moves it without a report; ClassMsg heads its footer.
func TestTeacherReports(t *testing.T) {
	reports := make(chan Lead, 8)
	m := classModel(t, WithLead(func(l Lead) { reports <- l }))
	m, cmd := press(m, "g")
	run(cmd)
	if l := next(t, reports); !l.Tour || l.Step != 0 || l.Seq != 1 || l.Scenario != m.cur {
		t.Errorf("g: %+v", l)
	}
	m, cmd = press(m, "right")
	run(cmd)
	if l := next(t, reports); !l.Tour || l.Step != 1 || l.Seq != 2 {
		t.Errorf("→: %+v", l)
	}
	m, _ = press(m, "tab")
	m, _ = send(m, tourLead(t, 4))
	if m.class.Seq != 2 || m.tour.at != 4 {
		t.Errorf("a tab and another teacher's step: %d reports, step %d; want 2 and 4", m.class.Seq, m.tour.at)
	}
	m, _ = send(m, ClassMsg{Following: 2, Connected: 3})
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("2 follow · 3 connected · tour 5/%d", len(assets.TourSteps()))) {
		t.Errorf("footer: %q", lineWith(v, "tour"))
	}
	m, cmd = press(m, "esc")
	run(cmd)
	if l := next(t, reports); l.Tour || l.Seq != 3 || l.Scenario != m.cur {
		t.Errorf("esc: %+v", l)
	}
}

// The local explorer ignores the classroom: F does nothing and is not listed, LeadMsg moves
// nothing.
func TestLocalExplorerHasNoClass(t *testing.T) {
	m := ready(t, 100, 30, nil)
	before := m.View()
	m, _ = press(m, "F")
	m, _ = send(m, LeadMsg{Tour: true, Step: 2, Scenario: model.Scenario{}})
	if v := m.View(); v != before || m.tour.on {
		t.Errorf("F or a LeadMsg changed the local explorer:\n%s", v)
	}
	if strings.Contains(helpText(t, m), "follow") {
		t.Error("the local help lists F")
	}
}
