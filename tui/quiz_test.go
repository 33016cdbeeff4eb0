package tui

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
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
		r, err := costmodel.Evaluate(m.tour.files[i].Scenario)
		if err != nil {
			t.Fatal(err)
		}
		x, ok := questionValue(q.Answer, r)
		if !ok {
			t.Fatalf("step %d: no %s in the report", i+1, q.Answer)
		}
		if len(q.Choices) > 0 {
			m, _ = press(m, string(rune('1'+q.RightChoice(x))))
		} else {
			for _, r := range fmtQuantity(x, "") {
				m, _ = press(m, string(r))
			}
			m, _ = press(m, "enter")
		}
		if m.quizOpen() || !strings.Contains(m.View(), "✓") {
			t.Errorf("step %d: the model's own answer was not revealed as right:\n%s", i+1, m.View())
		}
		m, _ = press(m, "right")
	}
}

func TestQuestionQuantitiesKnown(t *testing.T) {
	for name := range assets.QuestionQuantities {
		if _, ok := questionValue(name, costmodel.Report{StepTime: 1, Inference: &costmodel.Inference{}}); !ok {
			t.Errorf("%s: the explorer cannot compute it", name)
		}
	}
}
