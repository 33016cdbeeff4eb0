package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The step's question in class: a following student's answer goes to the hub (WithAnswers) and
// does not reveal the step's numbers; the teacher's caption shows the class's answers as they
// come (TallyMsg), and the teacher's R reveals them to everyone who follows (RevealMsg). A
// student who wandered off answers and reveals alone, as the local explorer does.

// Answer is a student's answer to the question of tour step Step: Choice (from 0) for a choice
// question, -1 and Number for a number question; Seq as in Lead.
type Answer struct {
	Step   int
	Choice int
	Number float64
	Seq    int
}

// Reveal is the teacher's R on tour step Step (Seq as in Lead).
type Reveal struct {
	Step int
	Seq  int
}

// RevealMsg reveals tour step Step's numbers to a student who follows and is on that step.
type RevealMsg struct{ Step int }

// TallyMsg gives the teacher's explorer the class's answers to tour step Step: Answered of Of
// students; Choices counts each choice (index from 0, possibly shorter than the question's
// choices); Numbers are the numbers answered, sorted; Revealed says the teacher revealed it.
type TallyMsg struct {
	Step         int
	Answered, Of int
	Choices      []int
	Numbers      []float64
	Revealed     bool
}

// WithAnswers puts the step's questions in class: a student's explorer (WithFollower) calls
// answer, from a command, when the user answers while following, and waits for RevealMsg; the
// teacher's (WithLead) calls reveal when the teacher presses R, and shows TallyMsg.
func WithAnswers(answer func(Answer), reveal func(Reveal)) Option {
	return func(o *options) { o.answer, o.reveal = answer, reveal }
}

// classHolds reports whether answering waits for the teacher's reveal: a following student's,
// or the teacher's own.
func (m *Model) classHolds() bool {
	c := &m.class
	return c.follow != nil && c.following && c.answer != nil || m.teacherReveals()
}

// teacherReveals reports whether this is the teacher's explorer on a step with a question.
func (m *Model) teacherReveals() bool {
	return m.class.lead != nil && m.class.reveal != nil && m.question() != nil
}

// reportAnswer is the student's report of an answer given by the update from prev to m, nil
// when there is none to report.
func (m *Model) reportAnswer(prev Model) tea.Cmd {
	c, z := &m.class, m.tour.quiz
	if c.answer == nil || c.follow == nil || !c.following || !z.answered || m.question() == nil {
		return nil
	}
	p := prev.tour.quiz
	if prev.tour.on && prev.tour.at == m.tour.at && p.answered && p.choice == z.choice && p.number == z.number {
		return nil
	}
	c.seq++
	a, report := Answer{Step: m.tour.at, Choice: z.choice, Number: z.number, Seq: c.seq}, c.answer
	if len(m.question().Choices) == 0 {
		a.Choice = -1
	}
	return func() tea.Msg { report(a); return nil }
}

// revealAll is the teacher's R: the step's numbers show here and, through the hub, to the class.
func (m Model) revealAll() (tea.Model, tea.Cmd) {
	m.tour.quiz.revealed = true
	m.class.seq++
	r, report := Reveal{Step: m.tour.at, Seq: m.class.seq}, m.class.reveal
	return m, func() tea.Msg { report(r); return nil }
}

// onReveal reveals the step to a student who follows the teacher there (and to another
// teacher's explorer on it); one who wandered off reveals alone.
func (m Model) onReveal(r RevealMsg) Model {
	if (m.class.following || m.class.lead != nil) && m.tour.on && m.tour.at == r.Step && m.question() != nil {
		m.tour.quiz.revealed = true
	}
	return m
}

// waitLine is what a student who answered sees until the reveal: "answered: 2 · waiting for
// the teacher's reveal"; "" otherwise.
func (m *Model) waitLine() string {
	z, q := m.tour.quiz, m.question()
	if !z.answered || z.revealed || m.class.lead != nil || q == nil {
		return ""
	}
	said := fmtQuantity(z.number, q.Unit)
	if len(q.Choices) > 0 {
		said = strconv.Itoa(z.choice + 1)
	}
	return "answered: " + m.styles.Bold.Render(said) + m.styles.Dim.Render(" · waiting for the teacher's reveal")
}

// tallyLine is the teacher's line of the class's answers to the step: "12 answered of 20: 1 ×3 ·
// 2 ×8 · 3 ×1 · model: 2", or for a number "5 answered of 20: median 40% · model: 43.8%"; ""
// elsewhere.
func (m *Model) tallyLine() string {
	q, t := m.question(), m.class.tally
	if m.class.lead == nil || m.class.reveal == nil || q == nil {
		return ""
	}
	if t.Step != m.tour.at {
		t = TallyMsg{Step: m.tour.at, Of: t.Of}
	}
	var parts []string
	if len(q.Choices) > 0 {
		for i := range q.Choices {
			n := 0
			if i < len(t.Choices) {
				n = t.Choices[i]
			}
			parts = append(parts, fmt.Sprintf("%d ×%d", i+1, n))
		}
	} else if len(t.Numbers) > 0 {
		parts = append(parts, "median "+fmtQuantity(median(t.Numbers), q.Unit))
	}
	model := "…"
	if x, ok := questionValue(q.Answer, m.data.Report); ok && m.tourReady() {
		model = fmtQuantity(x, q.Unit)
		if len(q.Choices) > 0 {
			model = strconv.Itoa(q.RightChoice(x) + 1)
		}
	}
	parts = append(parts, "model: "+model)
	head := fmt.Sprintf("%d answered of %d", t.Answered, t.Of)
	hint := " · R reveals"
	if m.tour.quiz.revealed {
		hint = " · revealed"
	}
	return m.styles.Bold.Render(head) + ": " + strings.Join(parts, " · ") + m.styles.Dim.Render(hint)
}

// median of sorted numbers.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
