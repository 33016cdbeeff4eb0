package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
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

// Reveal is the teacher's R on tour step Step (Seq as in Lead). Tally is the step's question and
// the class's answers beside the model's, as the teacher's caption shows them, in plain text
// for the server's log: "step 2/9 · 8 stages, …: how much of the step is bubble? · 18 answered
// of 20: about 10% ×3 · about half ×12 · almost all of it ×3 · model: 3 almost all of it".
type Reveal struct {
	Step  int
	Seq   int
	Tally string
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
	if q := m.question(); q != nil {
		tally := strings.TrimSuffix(ansi.Strip(m.tallyLine(1<<12, false)), " · revealed")
		r.Tally = fmt.Sprintf("step %d/%d · %s · %s", m.tour.at+1, len(m.tour.steps), q.In(m.lang), tally)
	}
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

// waitLine is what a student who answered sees until the reveal: "answered: 2 about half ·
// waiting for the teacher's reveal"; "" otherwise.
func (m *Model) waitLine() string {
	z, q := m.tour.quiz, m.question()
	if !z.answered || z.revealed || m.class.lead != nil || q == nil {
		return ""
	}
	said := fmtQuantity(z.number, q.Unit)
	if len(q.Choices) > 0 {
		said = strconv.Itoa(z.choice+1) + " " + q.Choices[z.choice].In(m.lang)
	}
	return m.quizText("tour.quiz.wait", m.styles.Bold.Render(said), "")
}

// tallyLine is the teacher's line of the class's answers to the step, in w cells: "12 answered
// of 20: about 10% ×3 · about half ×8 · almost all of it ×1 · model: about half", the choices by
// number ("1 ×3 · 2 ×8 …") when their names do not fit; for a number "5 answered of 20: median
// 40%, middle half 25%–60% · model: 43.8%". brief leaves the choices' counts out (the question's
// own line shows them, choiceCount). "" elsewhere.
func (m *Model) tallyLine(w int, brief bool) string {
	q, t := m.question(), m.class.tally
	if m.class.lead == nil || m.class.reveal == nil || q == nil {
		return ""
	}
	if t.Step != m.tour.at {
		t = TallyMsg{Step: m.tour.at, Of: t.Of}
	}
	x, known := questionValue(q.Answer, m.data.Report)
	known = known && m.tourReady()
	head := m.styles.Bold.Render(fmt.Sprintf("%d answered of %d", t.Answered, t.Of)) + ": "
	hint := " · R reveals"
	if m.tour.quiz.revealed {
		hint = " · revealed"
	}
	line := func(named bool) string {
		var parts []string
		if len(q.Choices) > 0 && !brief {
			for i, c := range q.Choices {
				n := 0
				if i < len(t.Choices) {
					n = t.Choices[i]
				}
				name := strconv.Itoa(i + 1)
				if named {
					name = c.In(m.lang)
				}
				parts = append(parts, fmt.Sprintf("%s ×%d", name, n))
			}
		} else if n := len(t.Numbers); n > 0 {
			p := "median " + fmtQuantity(median(t.Numbers), q.Unit)
			if n >= 4 {
				p += ", middle half " + fmtQuantity(t.Numbers[n/4], q.Unit) + "–" + fmtQuantity(t.Numbers[(3*n-1)/4], q.Unit)
			}
			parts = append(parts, p)
		}
		model := "…"
		if known {
			model = fmtQuantity(x, q.Unit)
			if len(q.Choices) > 0 {
				rc := q.RightChoice(x)
				model = strconv.Itoa(rc + 1)
				if named {
					model += " " + q.Choices[rc].In(m.lang)
				}
			}
		}
		parts = append(parts, "model: "+model)
		return head + strings.Join(parts, " · ") + m.styles.Dim.Render(hint)
	}
	if l := line(true); len(q.Choices) > 0 && ansi.StringWidth(l) <= w {
		return l
	}
	return ansi.Truncate(line(false), max(w, 1), "…")
}

// choiceCount is how many of the class took choice i, for the teacher's question line: " ×3";
// "" on a student's screen.
func (m *Model) choiceCount(i int) string {
	if !m.teacherReveals() {
		return ""
	}
	t, n := m.class.tally, 0
	if t.Step == m.tour.at && i < len(t.Choices) {
		n = t.Choices[i]
	}
	return " " + m.styles.Bold.Render("×"+strconv.Itoa(n))
}

// median of sorted numbers.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
