package serve

import (
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
)

// fakeProg is a program whose Send waits, as tea.Program's does, until the message is taken
// or the program is killed.
type fakeProg struct {
	msgs   chan tea.Msg
	killed chan struct{}
	once   sync.Once
}

func newFake() *fakeProg { return &fakeProg{msgs: make(chan tea.Msg), killed: make(chan struct{})} }

func (f *fakeProg) Send(m tea.Msg) {
	select {
	case f.msgs <- m:
	case <-f.killed:
	}
}

func (f *fakeProg) Kill() { f.once.Do(func() { close(f.killed) }) }

// until takes f's messages until one satisfies ok, bounded.
func (f *fakeProg) until(t *testing.T, ok func(tea.Msg) bool) tea.Msg {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case m := <-f.msgs:
			if ok(m) {
				return m
			}
		case <-deadline:
			t.Fatal("never got the message")
			return nil
		}
	}
}

// fakeSess is a distinct session for the hub's map.
type fakeSess struct {
	ssh.Session
	n int
}

// The hub never waits on a program (one that takes nothing does not slow the others), keeps
// only the newest report of each session, counts followers and sessions for the teachers, and
// lets go of a session that leaves.
func TestHubNeverWaits(t *testing.T) {
	h := newHub(model.Scenario{})
	sessT, sessStuck, sessS := &fakeSess{n: 1}, &fakeSess{n: 2}, &fakeSess{n: 3}
	teacher, stuck, student := h.join(sessT, true), h.join(sessStuck, false), h.join(sessS, false)
	pt, pStuck, ps := newFake(), newFake(), newFake()
	h.attach(teacher, pt)
	h.attach(stuck, pStuck) // never read
	h.attach(student, ps)
	if c := h.counts(); c != (tui.ClassMsg{Following: 2, Connected: 3}) {
		t.Errorf("counts %+v", c)
	}

	done := make(chan struct{})
	go func() {
		for i := 1; i <= 100; i++ {
			h.setLead(teacher, tui.Lead{Tour: true, Step: i % 9, Seq: i})
		}
		h.setLead(teacher, tui.Lead{Step: 0, Seq: 50}) // late and old: dropped
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("the hub waited on a program")
	}
	ps.until(t, func(m tea.Msg) bool { l, ok := m.(tui.LeadMsg); return ok && l.Seq == 100 })

	h.setFollow(student, tui.Follow{Following: false, Seq: 2})
	h.setFollow(student, tui.Follow{Following: true, Seq: 1}) // older
	pt.until(t, func(m tea.Msg) bool { return m == tui.ClassMsg{Following: 1, Connected: 3} })

	h.leave(sessStuck)
	pt.until(t, func(m tea.Msg) bool { return m == tui.ClassMsg{Following: 0, Connected: 2} })
	if h.member(sessStuck) != nil {
		t.Error("the session that left is still in the hub")
	}
	select {
	case <-pStuck.killed:
	default:
		t.Error("the program of the session that left was not killed")
	}
	h.leave(sessS)
	h.leave(sessT)
	if c := h.counts(); c.Connected != 0 {
		t.Errorf("counts %+v after everyone left", c)
	}
}

// A teacher who joins once the lesson has moved (a second teacher, or the first one back after
// a dropped connection) is sent where the class is.
func TestTeacherJoinsWhereTheClassIs(t *testing.T) {
	h := newHub(model.Scenario{})
	first := h.join(&fakeSess{n: 1}, true)
	h.attach(first, newFake())
	h.setLead(first, tui.Lead{Tour: true, Step: 4, Seq: 1})
	again := h.join(&fakeSess{n: 2}, true)
	p := newFake()
	h.attach(again, p)
	p.until(t, func(m tea.Msg) bool { l, ok := m.(tui.LeadMsg); return ok && l.Tour && l.Step == 4 })
}
