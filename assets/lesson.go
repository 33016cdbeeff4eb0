package assets

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A lesson of one's own: the guided tour's steps are the embedded scenario files under
// scenarios/tour; a teacher's are scenario files in a folder (splitscope --lesson DIR, serve
// --lesson DIR), taken in the order of their names. A lesson step's file holds, beside its
// scenario, what the tour's texts hold for an embedded step:
//
//	title: Pipeline parallelism across the nodes      # the step's heading (required)
//	caption:                                          # its text (en required, fr optional)
//	  en: "The {{.P}} stages cross {{.Nodes}} nodes: the bubble is {{.Bubble.Sim}}."
//	  fr: "Les {{.P}} étages traversent {{.Nodes}} nœuds : la bulle fait {{.Bubble.Sim}}."
//	tab: pipeline                                     # the tab it opens on (default pipeline)
//	question: { … }                                   # optional: see Question
//
// A caption is a template over the Learn tab's facts, as the tour's are (tui/learn/facts.go).

// LessonTabs are the tabs a lesson step may open on.
var LessonTabs = []string{"pipeline", "tensor", "compare", "memory", "box", "learn"}

// MaxLessonSteps bounds a lesson folder.
const MaxLessonSteps = 40

// parseCaption reads a step's caption: a mapping of language to text, en required.
func parseCaption(n *yaml.Node, fail func(line int, key, value, format string, args ...any)) (map[string]string, bool) {
	if n.Kind != yaml.MappingNode {
		fail(n.Line, "caption", "", "must be a mapping of en (required) and fr to the step's text")
		return nil, false
	}
	out := map[string]string{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		switch {
		case !slices.Contains(Langs, k.Value):
			fail(k.Line, "caption."+k.Value, "", "unknown language (known: %s)", strings.Join(Langs, ", "))
			ok = false
		case out[k.Value] != "":
			fail(k.Line, "caption."+k.Value, "", "written twice")
			ok = false
		case v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || v.Tag == "!!null":
			fail(v.Line, "caption."+k.Value, "", "must be the step's text")
			ok = false
		default:
			out[k.Value] = v.Value
		}
	}
	if ok && out[DefaultLang] == "" {
		fail(n.Line, "caption", "", "needs its %s text", DefaultLang)
		ok = false
	}
	return out, ok
}

// parseTab reads a step's tab.
func parseTab(n *yaml.Node, fail func(line int, key, value, format string, args ...any)) (string, bool) {
	tab := strings.ToLower(strings.TrimSpace(n.Value))
	if n.Kind != yaml.ScalarNode || !slices.Contains(LessonTabs, tab) {
		fail(n.Line, "tab", n.Value, "must be one of %s", strings.Join(LessonTabs, ", "))
		return "", false
	}
	return tab, true
}

// LessonFile is one file of a lesson folder: its name (for messages and the order) and bytes.
type LessonFile struct {
	Name string
	Data []byte
}

// ParseLesson reads a lesson's files, in the order given, against the presets: each must be a
// scenario file with a title and a caption (question and tab optional), and its scenario must
// be valid. Every problem names its file (and line and key where it has one).
func ParseLesson(files []LessonFile, p *Presets) ([]ScenarioFile, error) {
	switch {
	case len(files) == 0:
		return nil, fmt.Errorf("no lesson steps: a lesson is a folder of scenario files (*.yaml), one a step")
	case len(files) > MaxLessonSteps:
		return nil, fmt.Errorf("%d lesson steps: at most %d", len(files), MaxLessonSteps)
	}
	var out []ScenarioFile
	var errs Errors
	for _, f := range files {
		sf, err := ParseScenario(f.Name, f.Data, p)
		if err != nil {
			var es Errors
			if errors.As(err, &es) {
				errs = append(errs, es...)
				continue
			}
			return nil, err
		}
		missing := func(key, what string) {
			errs = append(errs, &Error{File: f.Name, Row: -1, Field: key, Msg: "a lesson step needs " + what})
		}
		if strings.TrimSpace(sf.Title) == "" {
			missing("title", "a title: its heading")
		}
		if sf.Caption == nil {
			missing("caption", "a caption (en, and fr if you like): its text")
		}
		if err := sf.Scenario.Validate(); err != nil {
			errs = append(errs, &Error{File: f.Name, Row: -1, Msg: err.Error()})
		}
		out = append(out, sf)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
