package assets

import (
	"strings"
	"testing"
)

const lessonStep = `title: Two nodes
caption:
  en: "The {{.P}} stages cross the nodes."
  fr: "Les {{.P}} étages traversent les nœuds."
tab: Memory
model: llama-2-7b
gpu: h100-sxm
gpus: 16
gpus_per_node: 8
tp: 8
pp: 2
question:
  en: "How big is the bubble?"
  fr: "Quelle est la taille de la bulle ?"
  answer: bubble_fraction
`

// A lesson step keeps its title, caption, tab and question, and writes them back.
func TestParseLesson(t *testing.T) {
	p := mustLoad(t)
	steps, err := ParseLesson([]LessonFile{{"01-two-nodes.yaml", []byte(lessonStep)}}, p)
	if err != nil {
		t.Fatal(err)
	}
	s := steps[0]
	if s.Title != "Two nodes" || s.Tab != "memory" || s.Caption["en"] != "The {{.P}} stages cross the nodes." ||
		s.Caption["fr"] == "" || s.Question == nil || s.Scenario.Layout.PP != 2 {
		t.Errorf("step %+v", s)
	}
	back, err := ParseScenario("again.yaml", MarshalScenarioFile(s), p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Tab != s.Tab || back.Caption["en"] != s.Caption["en"] || back.Caption["fr"] != s.Caption["fr"] || back.Title != s.Title {
		t.Errorf("written and read back: %+v", back)
	}
}

// Each problem of a lesson names its file and, where it has one, its line and key.
func TestParseLessonRefuses(t *testing.T) {
	p := mustLoad(t)
	base := "model: llama-2-7b\ngpu: h100-sxm\ngpus: 8\ntp: 8\n"
	for _, tc := range []struct {
		files []LessonFile
		want  string
	}{
		{nil, "no lesson steps"},
		{make([]LessonFile, MaxLessonSteps+1), "at most 40"},
		{[]LessonFile{{"a.yaml", []byte(base + "caption: {en: x}\n")}}, "a.yaml: title: a lesson step needs a title"},
		{[]LessonFile{{"b.yaml", []byte(base + "title: t\n")}}, "b.yaml: caption: a lesson step needs a caption"},
		{[]LessonFile{{"c.yaml", []byte(base + "title: t\ncaption: {fr: x}\n")}}, "c.yaml line 6: caption: needs its en text"},
		{[]LessonFile{{"d.yaml", []byte(base + "title: t\ncaption: {en: x, de: y}\n")}}, "d.yaml line 6: caption.de: unknown language"},
		{[]LessonFile{{"e.yaml", []byte(base + "title: t\ncaption: {en: x}\ntab: graphs\n")}}, "e.yaml line 7: tab = graphs: must be one of pipeline"},
		{[]LessonFile{{"f.yaml", []byte(base + "title: t\ncaption: just text\n")}}, "f.yaml line 6: caption: must be a mapping"},
		{[]LessonFile{{"g.yaml", []byte("model: llama-2-7b\ngpu: h100-sxm\ngpus: 8\ntp: 3\ntitle: t\ncaption: {en: x}\n")}}, "g.yaml: "},
	} {
		_, err := ParseLesson(tc.files, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want %q", tc.files, err, tc.want)
		}
	}
}
