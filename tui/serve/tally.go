package serve

import (
	"slices"

	"github.com/splitscope/splitscope/tui"
)

// The step's question in class: the students' answers (tui.Answer) are kept per tour step;
// the teachers see the current step's tally (tui.TallyMsg) each time it changes, and a
// teacher's reveal (tui.Reveal) goes to every other session as tui.RevealMsg, now and whenever
// one lands on that step again (the teacher going back, a student joining or following again).

// stepAnswers is one tour step's answers: each student's latest, and whether it is revealed.
type stepAnswers struct {
	answers  map[*member]tui.Answer
	revealed bool
}

func (h *hub) stepLocked(i int) *stepAnswers {
	st := h.steps[i]
	if st == nil {
		st = &stepAnswers{answers: map[*member]tui.Answer{}}
		h.steps[i] = st
	}
	return st
}

// answer takes a student's answer; one arriving after its step's reveal counts too, and the
// student is sent the reveal.
func (h *hub) answer(from *member, a tui.Answer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if from.teacher || a.Seq <= from.answerSeq || a.Step < 0 {
		return
	}
	from.answerSeq = a.Seq
	st := h.stepLocked(a.Step)
	st.answers[from] = a
	if st.revealed {
		from.box.postQuiz(&tui.RevealMsg{Step: a.Step}, nil)
	}
	h.tallyLocked()
}

// reveal takes a teacher's R: the step is revealed to every other session; false for a report
// older than one taken.
func (h *hub) reveal(from *member, r tui.Reveal) (taken bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Seq <= from.revealSeq || r.Step < 0 {
		return false
	}
	from.revealSeq = r.Seq
	h.stepLocked(r.Step).revealed = true
	msg := tui.RevealMsg{Step: r.Step}
	for _, m := range h.members {
		if m != from {
			m.box.postQuiz(&msg, nil)
		}
	}
	h.tallyLocked()
	return true
}

// revealToLocked sends m the reveal of the teacher's step, if it is revealed.
func (h *hub) revealToLocked(m *member) {
	if !h.lead.Tour {
		return
	}
	if st := h.steps[h.lead.Step]; st != nil && st.revealed {
		m.box.postQuiz(&tui.RevealMsg{Step: h.lead.Step}, nil)
	}
}

// tally is the teacher's step's answers (the teachers' caption).
func (h *hub) tally() tui.TallyMsg {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tallyOfLocked()
}

func (h *hub) tallyOfLocked() tui.TallyMsg {
	t := tui.TallyMsg{Step: h.lead.Step}
	for _, m := range h.members {
		if !m.teacher {
			t.Of++
		}
	}
	if !h.lead.Tour {
		t.Step = -1
		return t
	}
	st := h.steps[h.lead.Step]
	if st == nil {
		return t
	}
	t.Revealed = st.revealed
	for _, a := range st.answers {
		t.Answered++
		if a.Choice < 0 {
			t.Numbers = append(t.Numbers, a.Number)
			continue
		}
		for len(t.Choices) <= a.Choice {
			t.Choices = append(t.Choices, 0)
		}
		t.Choices[a.Choice]++
	}
	slices.Sort(t.Numbers)
	return t
}

// tallyLocked sends the tally to the teachers.
func (h *hub) tallyLocked() {
	t := h.tallyOfLocked()
	for _, m := range h.members {
		if m.teacher {
			m.box.postQuiz(nil, &t)
		}
	}
}
