package tui

import (
	"strings"
	"testing"
)

// In French the tour writes its numbers the French way, the ones the explorer builds beside the
// texts too: step 1 asks for "Gio" and its answer reads "246 Gio"; a number is typed with a
// decimal comma ("43,8") and read as 43.8, and the answer line says "43,8 %".
func TestFrenchTourNumbers(t *testing.T) {
	m := readyLang(t, 80, 24, "fr", nil)
	m, _ = press(m, "g")
	m = settle(m)
	// The caption is French; the rest of the explorer (the footer's verdict) stays English.
	n := len(m.tour.steps)
	if c := captionText(t, m.View(), 1, n); !strings.Contains(c, "▏ Gio") || strings.Contains(c, "GiB") {
		t.Errorf("step 1's question does not ask for Gio: %q", c)
	}
	m = answerRight(t, m)
	if c := captionText(t, m.View(), 1, n); !strings.Contains(c, "246 Gio") || strings.Contains(c, "GiB") {
		t.Errorf("step 1's answer is not in Gio: %q", c)
	}
	m, _ = press(m, "right", "right") // step 3: the bubble, a number in %
	m = settle(m)
	m, _ = press(m, "4", "3", ",", "8", "enter")
	if !m.tour.quiz.Answered || m.tour.quiz.Number != 43.8 {
		t.Fatalf("typed 43,8: answered %v with %g", m.tour.quiz.Answered, m.tour.quiz.Number)
	}
	if v := unwrapped(m.View()); !strings.Contains(v, "vous avez dit 43,8 %") {
		t.Errorf("the answer line does not say 43,8 %%:\n%s", v)
	}
}
