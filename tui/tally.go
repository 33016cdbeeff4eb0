package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/tui/classroom"
)

// The step's question in class (the messages and the tally's logic: tui/classroom): a
// following student's answer goes to the hub (WithAnswers) and does not reveal the step's
// numbers; the teacher's caption shows the class's answers as they come (TallyMsg), and the
// teacher's R reveals them to everyone who follows (RevealMsg).

// The classroom's messages, named here for the explorer's users (tui/serve).
type (
	Answer    = classroom.Answer
	Reveal    = classroom.Reveal
	RevealMsg = classroom.RevealMsg
	TallyMsg  = classroom.TallyMsg
)

// WithAnswers puts the step's questions in class: a student's explorer (WithFollower) calls
// answer, from a command, when the user answers while following, and waits for RevealMsg; the
// teacher's (WithLead) calls reveal when the teacher presses R, and shows TallyMsg.
func WithAnswers(answer func(Answer), reveal func(Reveal)) Option {
	return func(o *options) { o.answer, o.reveal = answer, reveal }
}

// classHolds reports whether answering waits for the teacher's reveal: a following student's,
// or the teacher's own.
func (m *Model) classHolds() bool {
	return m.class.FollowingStudent() && m.class.Answer != nil || m.teacherReveals()
}

// teacherReveals reports whether this is the teacher's explorer on a step with a question.
func (m *Model) teacherReveals() bool {
	return m.class.Lead != nil && m.class.Reveal != nil && m.question() != nil
}

// reportAnswer is the student's report of an answer given by the update from prev to m, nil
// when there is none to report.
func (m *Model) reportAnswer(prev Model) tea.Cmd {
	c, z := &m.class, m.tour.quiz
	if c.Answer == nil || !c.FollowingStudent() || !z.Answered || m.question() == nil {
		return nil
	}
	p := prev.tour.quiz
	if prev.tour.on && prev.tour.at == m.tour.at && p.Answered && p.Choice == z.Choice && p.Number == z.Number {
		return nil
	}
	a, report := Answer{Step: m.tour.at, Choice: z.Choice, Number: z.Number, Seq: c.Next()}, c.Answer
	if len(m.question().Choices) == 0 {
		a.Choice = -1
	}
	return func() tea.Msg { report(a); return nil }
}

// revealAll is the teacher's R: the step's numbers show here and, through the hub, to the class.
func (m Model) revealAll() (tea.Model, tea.Cmd) {
	m.tour.quiz.Revealed = true
	r, report := Reveal{Step: m.tour.at, Seq: m.class.Next()}, m.class.Reveal
	if q := m.question(); q != nil {
		tally := strings.TrimSuffix(ansi.Strip(m.tallyLine(1<<12, false)), " · revealed")
		r.Tally = fmt.Sprintf("step %d/%d · %s · %s", m.tour.at+1, len(m.tour.steps), q.In(m.lang), tally)
	}
	return m, func() tea.Msg { report(r); return nil }
}

// onReveal reveals the step to a student who follows the teacher there (and to another
// teacher's explorer on it); one who wandered off reveals alone.
func (m Model) onReveal(r RevealMsg) Model {
	if (m.class.Following || m.class.Lead != nil) && m.tour.on && m.tour.at == r.Step && m.question() != nil {
		m.tour.quiz.Revealed = true
	}
	return m
}

// waitLine is what a student who answered sees until the reveal: "answered: 2 about half ·
// waiting for the teacher's reveal"; "" otherwise.
func (m *Model) waitLine() string {
	if m.class.Lead != nil {
		return ""
	}
	return classroom.WaitLine(m.styles, m.quizText, m.question(), m.lang, m.tour.quiz)
}

// tallyLine is the teacher's line of the class's answers to the step, in w cells: "12 answered
// of 20: about 10% ×3 · about half ×8 · almost all of it ×1 · model: about half", the choices by
// number ("1 ×3 · 2 ×8 …") when their names do not fit; for a number "5 answered of 20: median
// 40%, middle half 25%–60% · model: 43.8%". brief leaves the choices' counts out (the question's
// own line shows them, classroom.Question.Counts). "" elsewhere.
func (m *Model) tallyLine(w int, brief bool) string {
	q := m.question()
	if m.class.Lead == nil || m.class.Reveal == nil || q == nil {
		return ""
	}
	t := m.class.TallyOf(m.tour.at)
	x, known := classroom.QuestionValue(q.Answer, m.data.Report)
	tally := classroom.Tally{Question: q, Lang: m.lang, Msg: t, Model: x, Known: known && m.tourReady(), Revealed: m.tour.quiz.Revealed}
	return tally.Line(m.styles, w, brief)
}
