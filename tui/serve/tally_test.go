package serve

import (
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
)

// The hub counts answers per tour step (each student's latest), shows the teacher's step's
// tally and keeps the others for going back, reveals to the students (and again to one landing
// on the step), and counts an answer arriving after the reveal, sending that student the reveal.
func TestHubTally(t *testing.T) {
	h := newHub(model.Scenario{})
	teacher := h.join(&fakeSess{n: 1}, true)
	a, b := h.join(&fakeSess{n: 2}, false), h.join(&fakeSess{n: 3}, false)
	pt, pa, pb := newFake(), newFake(), newFake()
	h.attach(teacher, pt)
	h.attach(a, pa)
	h.attach(b, pb)
	isTally := func(want func(tui.TallyMsg) bool) func(tea.Msg) bool {
		return func(m tea.Msg) bool { tm, ok := m.(tui.TallyMsg); return ok && want(tm) }
	}

	h.setLead(teacher, tui.Lead{Tour: true, Step: 2, Seq: 1})
	h.answer(a, tui.Answer{Step: 2, Choice: 0, Seq: 1})
	h.answer(a, tui.Answer{Step: 2, Choice: 1, Seq: 2}) // a changes its mind
	h.answer(a, tui.Answer{Step: 2, Choice: 0, Seq: 1}) // older, late: dropped
	h.answer(b, tui.Answer{Step: 2, Choice: 2, Seq: 1})
	pt.until(t, isTally(func(tm tui.TallyMsg) bool {
		return tm.Step == 2 && tm.Answered == 2 && tm.Of == 2 && slices.Equal(tm.Choices, []int{0, 1, 1})
	}))

	// Another step: its own tally, empty; number answers.
	h.setLead(teacher, tui.Lead{Tour: true, Step: 3, Seq: 2})
	pt.until(t, isTally(func(tm tui.TallyMsg) bool { return tm.Step == 3 && tm.Answered == 0 }))
	h.answer(a, tui.Answer{Step: 3, Choice: -1, Number: 40, Seq: 3})
	h.answer(b, tui.Answer{Step: 3, Choice: -1, Number: 10, Seq: 2})
	pt.until(t, isTally(func(tm tui.TallyMsg) bool {
		return tm.Step == 3 && tm.Answered == 2 && slices.Equal(tm.Numbers, []float64{10, 40})
	}))

	// Back to step 2: its answers are still there; R reveals it to the students.
	h.setLead(teacher, tui.Lead{Tour: true, Step: 2, Seq: 3})
	pt.until(t, isTally(func(tm tui.TallyMsg) bool { return tm.Step == 2 && tm.Answered == 2 && !tm.Revealed }))
	h.reveal(teacher, tui.Reveal{Step: 2, Seq: 4})
	pt.until(t, isTally(func(tm tui.TallyMsg) bool { return tm.Step == 2 && tm.Revealed }))
	for _, p := range []*fakeProg{pa, pb} {
		p.until(t, func(m tea.Msg) bool { return m == tui.RevealMsg{Step: 2} })
	}

	// A late answer after the reveal counts, and its student is sent the reveal.
	c := h.join(&fakeSess{n: 4}, false)
	pc := newFake()
	h.attach(c, pc)
	pc.until(t, func(m tea.Msg) bool { return m == tui.RevealMsg{Step: 2} }) // joined on a revealed step
	h.answer(c, tui.Answer{Step: 2, Choice: 1, Seq: 1})
	pc.until(t, func(m tea.Msg) bool { return m == tui.RevealMsg{Step: 2} })
	pt.until(t, isTally(func(tm tui.TallyMsg) bool {
		return tm.Answered == 3 && tm.Of == 3 && slices.Equal(tm.Choices, []int{0, 2, 1})
	}))

	// A student who leaves takes its answers along.
	h.leave(findSess(h, c))
	if tm := h.tally(); tm.Answered != 2 || tm.Of != 2 {
		t.Errorf("tally %+v after a student left", tm)
	}
	// The teacher's answers are not the class's.
	h.answer(teacher, tui.Answer{Step: 2, Choice: 0, Seq: 9})
	if tm := h.tally(); tm.Answered != 2 {
		t.Errorf("the teacher's answer counted: %+v", tm)
	}
}

func findSess(h *hub, m *member) *fakeSess {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s, x := range h.members {
		if x == m {
			return s.(*fakeSess)
		}
	}
	return nil
}
