package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// lessonFiles is a two-step lesson of the user's own.
func lessonFiles(t testing.TB, p *assets.Presets) []assets.ScenarioFile {
	t.Helper()
	steps, err := assets.ParseLesson([]assets.LessonFile{
		{Name: "01-memory.yaml", Data: []byte(`title: Our own first step
caption:
  en: "Our {{.Model}} needs {{.Mem.Total}} on each GPU."
  fr: "Notre {{.Model}} demande {{.Mem.Total}} par GPU."
tab: memory
model: llama-2-7b
gpu: h100-sxm
gpus: 8
tp: 8
question:
  en: "Does it fit?"
  fr: "Ça tient ?"
  answer: fits
  choices:
    - {value: 1, en: "yes", fr: "oui"}
    - {value: 0, en: "no", fr: "non"}
`)},
		{Name: "02-pipeline.yaml", Data: []byte(`title: Our own second step
caption:
  en: "Now {{.P}} stages."
model: llama-2-7b
gpu: h100-sxm
gpus: 8
pp: 4
tp: 2
`)},
	}, p)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// g starts the user's own lesson: its steps, titles, captions (the user's language, English
// where the step has no other), tabs and questions; esc gives the user's scenario back.
func TestOwnLesson(t *testing.T) {
	for _, lang := range []string{"en", "fr"} {
		s, p := testScenario(t)
		m := New(s, p, WithProbe(boxtest.NoGPU), WithLesson(lessonFiles(t, p)), WithLang(lang))
		next, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m = settle(next.(Model))
		if !strings.Contains(helpText(t, m), "your lesson (2 steps)") {
			t.Errorf("%s: the help does not name the lesson", lang)
		}
		m, _ = press(m, "g")
		m = settle(m)
		v := m.View()
		if !strings.Contains(v, "tour 1/2") || !strings.Contains(v, "Our own first step") || m.tab != TabMemory {
			t.Fatalf("%s: the lesson's first step (tab %d):\n%s", lang, m.tab, v)
		}
		if !m.quizOpen() || strings.Contains(v, "Our llama") || strings.Contains(v, "Notre llama") {
			t.Errorf("%s: the step's question does not hide its caption:\n%s", lang, v)
		}
		m, _ = press(m, "1")
		v = m.View()
		want := map[string]string{"en": "Our llama-2-7b needs ", "fr": "Notre llama-2-7b demande "}[lang]
		if m.quizOpen() || !strings.Contains(v, want) {
			t.Errorf("%s: after the answer, no caption %q:\n%s", lang, want, v)
		}
		m, _ = press(m, "right")
		m = settle(m)
		if v := m.View(); !strings.Contains(v, "tour 2/2") || !strings.Contains(v, "Now 4 stages.") || m.tab != TabPipeline || m.quizOpen() {
			t.Errorf("%s: the second step (no question, English caption):\n%s", lang, v)
		}
		m, _ = press(m, "esc")
		if m.tour.on || m.cur != s {
			t.Errorf("%s: esc did not give the user's scenario back", lang)
		}
	}
}
