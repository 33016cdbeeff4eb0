package assets

import (
	"reflect"
	"strings"
	"testing"
)

func TestTourQuestions(t *testing.T) {
	p := mustLoad(t)
	files, err := TourScenarios(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		q := f.Question
		if q == nil {
			t.Errorf("step %d has no question", i+1)
			continue
		}
		for _, lang := range QuestionLangs {
			if strings.TrimSpace(q.Text[lang]) == "" {
				t.Errorf("step %d: no %s text", i+1, lang)
			}
			for j, c := range q.Choices {
				if c.Label[lang] == "" {
					t.Errorf("step %d choice %d: no %s label", i+1, j+1, lang)
				}
			}
		}
		// The question comes back from the file MarshalScenarioFile writes.
		back, err := ParseScenario("back.yaml", MarshalScenarioFile(f), p)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		q2 := *q
		back.Question.Line = 0
		q2.Line = 0
		if !reflect.DeepEqual(*back.Question, q2) {
			t.Errorf("step %d: question %+v back as %+v", i+1, q2, *back.Question)
		}
	}
}

func TestQuestionErrors(t *testing.T) {
	p := mustLoad(t)
	head := "model: llama-2-13b\ngpu: h100-sxm\n"
	for _, c := range []struct{ name, body, want string }{
		{"scalar", "question: why\n", "line 3: question: must be a mapping"},
		{"no fr", "question:\n  en: x\n  answer: fits\n", "line 4: question.fr: missing"},
		{"no answer", "question:\n  en: x\n  fr: y\n", "line 4: question.answer: missing"},
		{"bad answer", "question:\n  en: x\n  fr: y\n  answer: speed\n", "line 6: question.answer: must name a report quantity (known: bubble_fraction"},
		{"unknown", "question:\n  en: x\n  fr: y\n  answer: fits\n  hint: z\n", "line 7: question.hint: unknown key"},
		{"empty text", "question:\n  en: \"\"\n  fr: y\n  answer: fits\n", "line 4: question.en: must be the question's text"},
		{"bad tolerance", "question:\n  en: x\n  fr: y\n  answer: fits\n  tolerance: -1\n", "line 7: question.tolerance: must be a number above 0"},
		{"one choice", "question:\n  en: x\n  fr: y\n  answer: fits\n  choices: [{value: 1, en: a, fr: b}]\n", "line 7: question.choices: must be a list of 2 to 9"},
		{"choice label", "question:\n  en: x\n  fr: y\n  answer: fits\n  choices:\n    - {value: 1, en: a}\n    - {value: 0, en: c, fr: d}\n", "line 8: question.choices.fr: missing"},
		{"choice value", "question:\n  en: x\n  fr: y\n  answer: fits\n  choices:\n    - {value: yes, en: a, fr: b}\n    - {value: 0, en: c, fr: d}\n", "line 8: question.choices.value: must be a number"},
		{"twice", "question:\n  en: x\n  en: z\n  fr: y\n  answer: fits\n", "line 5: question.en: written twice"},
	} {
		_, err := ParseScenario("lesson.yaml", []byte(head+c.body), p)
		if err == nil || !strings.Contains(err.Error(), "lesson.yaml "+c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestQuestionRules(t *testing.T) {
	q := Question{Unit: "%", Choices: []Choice{{Value: 1}, {Value: 10}, {Value: 100}}}
	for x, want := range map[float64]int{0.5: 0, 9: 1, 40: 2, 25: 1} {
		if got := q.RightChoice(x); got != want {
			t.Errorf("RightChoice(%g) = %d, want %d", x, got, want)
		}
	}
	if !q.Within(47, 43.8) || q.Within(50, 43.8) {
		t.Error("a percentage should count within 5 points")
	}
	n := Question{Unit: "GiB"}
	if !n.Within(220, 246) || n.Within(150, 246) {
		t.Error("a number should count within a fifth of the model's")
	}
}
