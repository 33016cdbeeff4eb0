package serve

import (
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
)

// The teacher leads (--teacher-key): one hub holds what the class shares, the teacher's tour
// step and scenario and who is connected; explorers report to it through their options
// (tui.WithLead, tui.WithFollower) and hear from it as messages (tui.LeadMsg, tui.ClassMsg)
// that a goroutine per session hands to the session's program. No session reads another's
// model, and nothing the hub does waits on a program.

// hub is the classroom's shared state.
type hub struct {
	mu sync.Mutex
	// lead is the last teacher's report (at first, the server's starting scenario, no tour).
	lead    tui.Lead
	members map[ssh.Session]*member
	// steps holds the class's answers per tour step, kept when the teacher moves on so that
	// going back shows them (see tally.go).
	steps map[int]*stepAnswers
}

// member is one session in the hub.
type member struct {
	teacher   bool
	following bool // a student's own report
	// Reports run in the explorer's commands, in any order: the highest Seq wins.
	leadSeq, followSeq   int
	answerSeq, revealSeq int
	box                  mailbox
	done                 chan struct{}
	prog                 program
}

// program is what the hub needs of a session's *tea.Program (a fake in the hub's tests).
type program interface {
	Send(tea.Msg)
	Kill()
}

func newHub(start model.Scenario) *hub {
	return &hub{lead: tui.Lead{Scenario: start}, members: map[ssh.Session]*member{}, steps: map[int]*stepAnswers{}}
}

// join adds a session and sends it the lead at once: a student follows from the start, and a
// teacher (a second one, or the teacher back after a dropped connection) takes up the lesson
// where it is, instead of pulling the class back to the first screen at its first key.
func (h *hub) join(sess ssh.Session, teacher bool) *member {
	m := &member{teacher: teacher, following: !teacher, done: make(chan struct{})}
	m.box.wake = make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.members[sess] = m
	l := tui.LeadMsg(h.lead)
	m.box.post(&l, nil)
	h.revealToLocked(m)
	h.countLocked()
	h.tallyLocked()
	return m
}

// member is the session's member, nil if it is not in the hub.
func (h *hub) member(sess ssh.Session) *member {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.members[sess]
}

// attach starts handing m's messages to its program until m leaves.
func (h *hub) attach(m *member, p program) {
	h.mu.Lock()
	m.prog = p
	h.mu.Unlock()
	go m.box.run(p, m.done)
}

// leave removes a session. Its program is killed, which it already is when its session ends
// normally, so that a Send under way returns (Program.Send waits for the program or its end).
func (h *hub) leave(sess ssh.Session) {
	h.mu.Lock()
	m := h.members[sess]
	delete(h.members, sess)
	var p program
	if m != nil {
		p = m.prog
		for _, st := range h.steps {
			delete(st.answers, m)
		}
		h.countLocked()
		h.tallyLocked()
	}
	h.mu.Unlock()
	if m == nil {
		return
	}
	close(m.done)
	if p != nil {
		p.Kill()
	}
}

// setLead takes a teacher's report and tells every other session.
func (h *hub) setLead(from *member, l tui.Lead) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.Seq <= from.leadSeq {
		return // an older report, arriving late
	}
	from.leadSeq = l.Seq
	h.lead = l
	msg := tui.LeadMsg(l)
	for _, m := range h.members {
		if m != from {
			m.box.post(&msg, nil)
			h.revealToLocked(m)
		}
	}
	h.tallyLocked()
}

// setFollow takes a student's report and recounts.
func (h *hub) setFollow(from *member, f tui.Follow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.Seq <= from.followSeq {
		return
	}
	from.followSeq = f.Seq
	if from.following != f.Following {
		from.following = f.Following
		h.countLocked()
		if f.Following {
			h.revealToLocked(from) // back on the teacher's step, revealed already
		}
	}
}

// counts is what the teachers' footers show.
func (h *hub) counts() tui.ClassMsg {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.countsLocked()
}

func (h *hub) countsLocked() tui.ClassMsg {
	c := tui.ClassMsg{Connected: len(h.members)}
	for _, m := range h.members {
		if !m.teacher && m.following {
			c.Following++
		}
	}
	return c
}

// countLocked sends the counts to the teachers.
func (h *hub) countLocked() {
	c := h.countsLocked()
	for _, m := range h.members {
		if m.teacher {
			m.box.post(nil, &c)
		}
	}
}

// mailbox holds a session's messages not yet handed to its program: only the latest lead and
// the latest counts matter, so a new one replaces the one waiting and posting never blocks, however
// slow or stuck the program.
type mailbox struct {
	mu     sync.Mutex
	lead   *tui.LeadMsg
	class  *tui.ClassMsg
	reveal *tui.RevealMsg // after lead: the step it reveals
	tally  *tui.TallyMsg
	wake   chan struct{} // one token: something waits
}

func (b *mailbox) post(lead *tui.LeadMsg, class *tui.ClassMsg) {
	b.mu.Lock()
	if lead != nil {
		l := *lead
		b.lead = &l
	}
	if class != nil {
		c := *class
		b.class = &c
	}
	b.mu.Unlock()
	b.ring()
}

// postQuiz is post for a reveal and a tally (either nil).
func (b *mailbox) postQuiz(reveal *tui.RevealMsg, tally *tui.TallyMsg) {
	b.mu.Lock()
	if reveal != nil {
		r := *reveal
		b.reveal = &r
	}
	if tally != nil {
		t := *tally
		b.tally = &t
	}
	b.mu.Unlock()
	b.ring()
}

func (b *mailbox) ring() {
	select {
	case b.wake <- struct{}{}:
	default: // a token already waits: run will take this too
	}
}

// run hands what waits to p until done; Send returns when p has taken the message or ended.
func (b *mailbox) run(p program, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-b.wake:
		}
		b.mu.Lock()
		lead, class, reveal, tally := b.lead, b.class, b.reveal, b.tally
		b.lead, b.class, b.reveal, b.tally = nil, nil, nil, nil
		b.mu.Unlock()
		if lead != nil {
			p.Send(*lead)
		}
		if reveal != nil {
			p.Send(*reveal)
		}
		if class != nil {
			p.Send(*class)
		}
		if tally != nil {
			p.Send(*tally)
		}
	}
}
