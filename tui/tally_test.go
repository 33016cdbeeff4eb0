package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

func classModelWith(t *testing.T, opts ...Option) Model {
	t.Helper()
	s, p := testScenario(t)
	m := New(s, p, append([]Option{WithProbe(boxtest.NoGPU), WithServed()}, opts...)...)
	n, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return settle(n.(Model))
}

// choiceStep is the first tour step whose question has choices.
func choiceStep(t *testing.T, m Model) int {
	t.Helper()
	m, _ = press(m, "g")
	for i := range m.tour.files {
		if q := m.tour.files[i].Question; q != nil && len(q.Choices) > 1 {
			return i
		}
	}
	t.Fatal("no choice question in the tour")
	return 0
}

// In class a following student's answer is reported and does not reveal; the RevealMsg of its
// step does (another step's does not); one who wandered off answers and reveals alone.
// followerAnswered is a following student's explorer on the first choice step (i), having
// answered 2, and its reports.
func followerAnswered(t *testing.T) (m Model, i int, answers chan Answer) {
	t.Helper()
	answers = make(chan Answer, 8)
	m = classModelWith(t, WithFollower(func(Follow) {}), WithAnswers(func(a Answer) { answers <- a }, nil))
	i = choiceStep(t, m)
	m, _ = send(m, tourLead(t, i))
	m = settle(m)
	m, cmd := press(m, "2")
	run(cmd)
	return m, i, answers
}

func TestClassAnswerWaitsForReveal(t *testing.T) {
	m, i, answers := followerAnswered(t)
	if a := next(t, answers); a.Step != i || a.Choice != 1 || a.Seq < 1 {
		t.Errorf("answer %+v, want step %d choice 1", a, i)
	}
	if !m.quizOpen() || !m.class.Following {
		t.Fatalf("answering in class revealed (open %v) or wandered off (following %v)", m.quizOpen(), m.class.Following)
	}
	if v := m.View(); !strings.Contains(v, "answered: 2 about half · waiting for the teacher's reveal") || strings.Contains(v, "you said") {
		t.Errorf("the student's caption:\n%s", v)
	}
	m, _ = send(m, RevealMsg{Step: i + 1})
	if !m.quizOpen() {
		t.Error("another step's reveal revealed this one")
	}
	m, _ = send(m, RevealMsg{Step: i})
	if m.quizOpen() || !strings.Contains(m.View(), "you said") {
		t.Errorf("the reveal did not reveal:\n%s", m.View())
	}

	// Wandered off: the next step's answer reveals at once, and is not reported.
	m, _ = press(m, "right")
	m = settle(m)
	if m.class.Following || m.question() == nil {
		t.Skip("no question on the next step")
	}
	q := m.question()
	var cmd tea.Cmd
	if len(q.Choices) > 0 {
		m, cmd = press(m, "1")
	} else {
		m, _ = press(m, "1")
		m, cmd = press(m, "enter")
	}
	run(cmd)
	if m.quizOpen() {
		t.Error("a student who wandered off waits for a reveal")
	}
	select {
	case a := <-answers:
		t.Errorf("a student who wandered off reported %+v", a)
	default:
	}
}

// The teacher's caption shows the tally of its step; R reveals here and reports; the tally
// stays after.
func TestTeacherTallyAndReveal(t *testing.T) {
	reveals := make(chan Reveal, 8)
	m := classModelWith(t, WithLead(func(Lead) {}), WithAnswers(nil, func(r Reveal) { reveals <- r }))
	i := choiceStep(t, m)
	m, _ = press(m, "g")
	for m.tour.at < i {
		m, _ = press(m, "right")
	}
	m = settle(m)
	m, _ = send(m, TallyMsg{Step: i, Answered: 2, Of: 3, Choices: []int{1, 1}})
	v := m.View()
	if !strings.Contains(v, "2 answered of 3: model: ") || !strings.Contains(v, "R reveals") ||
		!strings.Contains(v, "1 about 10% ×1 · 2 about half ×1 · 3 almost all of it ×0") {
		t.Errorf("no tally in the teacher's caption:\n%s", v)
	}
	if !m.quizOpen() {
		t.Error("the teacher's step is revealed before R")
	}
	m, cmd := press(m, "R")
	run(cmd)
	if r := next(t, reveals); r.Step != i {
		t.Errorf("reveal %+v, want step %d", r, i)
	}
	v = m.View()
	if m.quizOpen() || !strings.Contains(v, "2 answered of 3") || !strings.Contains(v, "the model says") {
		t.Errorf("after R:\n%s", v)
	}
	// A tally of another step is not this one's.
	m, _ = send(m, TallyMsg{Step: i + 1, Answered: 5, Of: 3})
	if v := m.View(); strings.Contains(v, "5 answered") || !strings.Contains(v, "0 answered of 3") {
		t.Errorf("another step's tally shown:\n%s", lineWith(v, "answered"))
	}
}

// An answer stays with its step: a student who answered, wandered off (esc leaves the tour) and
// follows again (F) is back on the step with the answer given, still waiting for the reveal;
// alone, going back a step shows its answer and numbers, and a new tour opens every question.
func TestAnswerKeptWithItsStep(t *testing.T) {
	m, i, answers := followerAnswered(t)
	next(t, answers)
	m, _ = press(m, "esc")
	if m.tour.on || m.class.Following {
		t.Fatalf("esc: tour %v, following %v", m.tour.on, m.class.Following)
	}
	m, cmd := press(m, "F")
	run(cmd)
	m = settle(m)
	if !m.tour.on || m.tour.at != i {
		t.Fatalf("F: tour %v at %d, want step %d", m.tour.on, m.tour.at, i)
	}
	if v := m.View(); !strings.Contains(v, "answered: 2 about half · waiting for the teacher's reveal") {
		t.Errorf("back on the step, the answer is gone:\n%s", v)
	}

	alone := ready(t, 100, 30, nil)
	alone, _ = press(alone, "g")
	alone = settle(alone)
	alone = answerRight(t, alone)
	alone, _ = press(alone, "right")
	alone = settle(alone)
	if !alone.quizOpen() {
		t.Fatal("the next step's question is not open")
	}
	alone, _ = press(alone, "left")
	alone = settle(alone)
	if alone.quizOpen() || !strings.Contains(alone.View(), "✓") {
		t.Errorf("back on step 1 alone, its answer is gone:\n%s", alone.View())
	}
	alone, _ = press(alone, "esc", "g")
	alone = settle(alone)
	if !alone.quizOpen() {
		t.Error("a new tour kept step 1's answer")
	}
}

// A number question's tally gives the median and, from four answers, the middle half.
func TestTeacherNumberTally(t *testing.T) {
	m := classModelWith(t, WithLead(func(Lead) {}), WithAnswers(nil, func(Reveal) {}))
	m, _ = press(m, "g")
	m = settle(m)
	if q := m.question(); q == nil || len(q.Choices) > 0 {
		t.Fatal("step 1 should ask for a number")
	}
	m, _ = send(m, TallyMsg{Step: 0, Answered: 3, Of: 5, Numbers: []float64{100, 200, 250}})
	if l := lineWith(m.View(), "answered"); !strings.Contains(l, "3 answered of 5: median 200 GiB · model: ") || strings.Contains(l, "middle half") {
		t.Errorf("three answers: %q", l)
	}
	m, _ = send(m, TallyMsg{Step: 0, Answered: 4, Of: 5, Numbers: []float64{100, 200, 250, 400}})
	if l := lineWith(m.View(), "answered"); !strings.Contains(l, "4 answered of 5: median 225 GiB, middle half 200 GiB–250 GiB · model: ") {
		t.Errorf("four answers: %q", l)
	}
}
