package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/static"
)

// Every tour step's question hides its numbers until answered, and its right answer is the one
// costmodel.Evaluate gives for the step's scenario.
func TestTourQuestions(t *testing.T) {
	m := readyLang(t, 100, 30, "en", nil)
	m, _ = press(m, "g")
	for i := range assets.TourSteps() {
		m = settle(m)
		q := m.question()
		if q == nil || !m.quizOpen() {
			t.Fatalf("step %d: no open question", i+1)
		}
		v := m.View()
		if !strings.Contains(v, "answer the tour's question") || strings.Contains(v, "you said") {
			t.Errorf("step %d: the numbers are not hidden", i+1)
		}
		// No tab but Box, nor the strip, the panel or the footer, shows the step's numbers.
		r := m.data.Report
		secret := []string{static.Bytes(r.Memory.Total), static.Percent(r.BubbleFraction), static.Percent(r.CommFraction)}
		if r.Inference != nil {
			secret = append(secret, static.Seconds(r.Inference.TTFT), static.Seconds(r.Inference.TPOT))
		} else {
			secret = append(secret, static.Seconds(r.StepTime))
		}
		for _, tab := range []int{TabPipeline, TabTensor, TabCompare, TabMemory, TabLearn} {
			mt := m
			mt.tab = tab
			tv := ansi.Strip(mt.View())
			for _, x := range secret {
				if strings.Contains(tv, x) {
					t.Errorf("step %d, tab %d: %q shows while the question is open:\n%s", i+1, tab+1, x, tv)
				}
			}
			if !strings.Contains(tv, "Predict first.") {
				t.Errorf("step %d, tab %d: no predict card", i+1, tab+1)
			}
		}
		m = answerRight(t, m)
		if m.quizOpen() || !strings.Contains(m.View(), "✓") {
			t.Errorf("step %d: the model's own answer was not revealed as right:\n%s", i+1, m.View())
		}
		m, _ = press(m, "right")
	}
}

// answerRight answers the tour step's open question with the answer costmodel.Evaluate gives for
// the step's own scenario (computed here, not read from the explorer).
func answerRight(t *testing.T, m Model) Model {
	t.Helper()
	q := m.question()
	r, err := costmodel.Evaluate(m.tour.files[m.tour.at].Scenario)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := classroom.QuestionValue(q.Answer, r)
	if !ok {
		t.Fatalf("step %d: no %s in the report", m.tour.at+1, q.Answer)
	}
	if len(q.Choices) > 0 {
		m, _ = press(m, string(rune('1'+q.RightChoice(x))))
		return m
	}
	for _, r := range classroom.FmtQuantity(x, "") {
		m, _ = press(m, string(r))
	}
	m, _ = press(m, "enter")
	return m
}

// Keys that arrive together (a fast typist over SSH: one message of several runes) answer as if
// typed one by one: a number question takes the number (the served test: TestClassNumberTally).
func TestQuizKeysArrivingTogether(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m, _ = press(m, "g")
	m = settle(m)
	if q := m.question(); q == nil || len(q.Choices) > 0 {
		t.Fatal("step 1 should ask for a number")
	}
	next, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("246")})
	m = next.(Model)
	if m.tour.quiz.Typed != "246" {
		t.Fatalf("typed %q, want 246", m.tour.quiz.Typed)
	}
	m, _ = press(m, "enter")
	if !m.tour.quiz.Answered || m.tour.quiz.Number != 246 {
		t.Errorf("answered %v with %g, want 246", m.tour.quiz.Answered, m.tour.quiz.Number)
	}
}
