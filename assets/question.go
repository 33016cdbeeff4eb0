package assets

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Predict, then reveal: a tour step's question.
//
// A scenario file may ask the class a question about its own numbers before showing them:
//
//	question:
//	  en: "With m = 8 micro-batches on 8 stages, how big is the bubble?"
//	  fr: "Avec m = 8 micro-lots sur 8 étages, quelle est la taille de la bulle ?"
//	  answer: bubble_fraction     # a quantity of the step's report (QuestionQuantities)
//	  choices:                    # optional: without it the answer is a number typed
//	    - {value: 10, en: "about 10%", fr: "environ 10 %"}
//	    - {value: 47, en: "about 47%", fr: "environ 47 %"}
//	  tolerance: 5                # number questions: how far off still counts, in the unit
//
// No right answer is stored: answer names a quantity the cost model computes for the step, so
// the answer cannot drift from the model. A number question is right within tolerance (default:
// 5 points for a percentage, a fifth of the model's value otherwise); a choice question's right
// choice is the one whose value is nearest the model's, by ratio when every value is positive
// (1 ms, 10 ms, 100 ms are even steps) and by difference otherwise.

// QuestionLangs are the languages every question and choice must be written in.
var QuestionLangs = []string{"en", "fr"}

// QuestionQuantities are the report quantities a question may ask for, with the unit they are
// typed and shown in (percentages from 0 to 100). The explorer computes them from the report.
var QuestionQuantities = map[string]string{
	"bubble_fraction":  "%",   // the pipeline bubble's share of the step
	"comm_fraction":    "%",   // all exposed communication's share of the step
	"tp_comm_share":    "%",   // TP communication's share of the step
	"layer_comm_share": "%",   // the all-reduces' share of one layer on one GPU
	"memory_gib":       "GiB", // the fullest GPU's memory
	"fits":             "",    // 1 when the fullest GPU's memory fits, 0 when it does not
	"step_s":           "s",   // the training step
	"tokens_per_s":     "",    // tokens per second, all GPUs
	"ttft_ms":          "ms",  // inference: time to the first token
	"tpot_ms":          "ms",  // inference: time per output token
}

// Question is a tour step's question: its text per language, the quantity that answers it, and
// either choices or a number's tolerance.
type Question struct {
	Text      map[string]string
	Answer    string
	Unit      string
	Choices   []Choice
	Tolerance float64
	Line      int
}

// Choice is one answer offered: its label per language and the value it stands for, in the
// quantity's unit.
type Choice struct {
	Value float64
	Label map[string]string
}

// In is the question's text in lang, English when lang has none.
func (q *Question) In(lang string) string {
	if t, ok := q.Text[lang]; ok {
		return t
	}
	return q.Text["en"]
}

// In is the choice's label in lang, English when lang has none.
func (c Choice) In(lang string) string {
	if t, ok := c.Label[lang]; ok {
		return t
	}
	return c.Label["en"]
}

// RightChoice is the index of the choice nearest the model's value x.
func (q *Question) RightChoice(x float64) int {
	logs := x > 0
	for _, c := range q.Choices {
		logs = logs && c.Value > 0
	}
	best, bestD := -1, math.Inf(1)
	for i, c := range q.Choices {
		d := math.Abs(c.Value - x)
		if logs {
			d = math.Abs(math.Log(c.Value / x))
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// Within reports whether a number typed, y, answers a number question whose model value is x.
func (q *Question) Within(y, x float64) bool {
	tol := q.Tolerance
	if tol <= 0 {
		tol = math.Abs(x) / 5
		if q.Unit == "%" {
			tol = 5
		}
	}
	return math.Abs(y-x) <= tol+1e-9
}

// parseQuestion reads the question key's mapping; fail reports a problem at a line.
func parseQuestion(n *yaml.Node, fail func(line int, key, value, format string, args ...any)) (*Question, bool) {
	if n.Kind != yaml.MappingNode {
		fail(n.Line, "question", "", "must be a mapping with en, fr, answer and optional choices or tolerance")
		return nil, false
	}
	q := &Question{Text: map[string]string{}, Line: n.Line}
	ok := true
	bad := func(line int, key, format string, args ...any) {
		fail(line, "question."+key, "", format, args...)
		ok = false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if seen[k.Value] {
			bad(k.Line, k.Value, "written twice")
			continue
		}
		seen[k.Value] = true
		switch key := k.Value; {
		case slices.Contains(QuestionLangs, key):
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || v.Tag == "!!null" {
				bad(v.Line, key, "must be the question's text")
				continue
			}
			q.Text[key] = v.Value
		case key == "answer":
			unit, known := QuestionQuantities[v.Value]
			if v.Kind != yaml.ScalarNode || !known {
				bad(v.Line, key, "must name a report quantity (known: %s)", strings.Join(questionQuantityNames(), ", "))
				continue
			}
			q.Answer, q.Unit = v.Value, unit
		case key == "tolerance":
			var x float64
			if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || v.Decode(&x) != nil || !(x > 0 && x < 1e12) {
				bad(v.Line, key, "must be a number above 0")
				continue
			}
			q.Tolerance = x
		case key == "choices":
			if v.Kind != yaml.SequenceNode || len(v.Content) < 2 || len(v.Content) > 9 {
				bad(v.Line, key, "must be a list of 2 to 9 choices")
				continue
			}
			for _, cn := range v.Content {
				if c, cok := parseChoice(resolve(cn), bad); cok {
					q.Choices = append(q.Choices, c)
				}
			}
		default:
			bad(k.Line, key, "unknown key (known: en, fr, answer, choices, tolerance)")
		}
	}
	for _, lang := range append(slices.Clone(QuestionLangs), "answer") {
		if !seen[lang] {
			bad(n.Line, lang, "missing (required)")
		}
	}
	if seen["choices"] && seen["tolerance"] {
		bad(n.Line, "tolerance", "is for number questions: a choice question's answer is the choice nearest the model's")
	}
	return q, ok
}

// parseChoice reads one choice: {value: N, en: "...", fr: "..."}.
func parseChoice(n *yaml.Node, bad func(line int, key, format string, args ...any)) (Choice, bool) {
	c := Choice{Label: map[string]string{}}
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "choices", "a choice must be a mapping {value: N, en: ..., fr: ...}")
		return c, false
	}
	ok, hasValue := true, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		switch {
		case k.Value == "value":
			if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || v.Decode(&c.Value) != nil || math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
				bad(v.Line, "choices.value", "must be a number")
				ok = false
			}
			hasValue = true
		case slices.Contains(QuestionLangs, k.Value):
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || v.Tag == "!!null" {
				bad(v.Line, "choices."+k.Value, "must be the choice's label")
				ok = false
				continue
			}
			c.Label[k.Value] = v.Value
		default:
			bad(k.Line, "choices."+k.Value, "unknown key (known: value, en, fr)")
			ok = false
		}
	}
	if !hasValue {
		bad(n.Line, "choices.value", "missing (required)")
		ok = false
	}
	for _, lang := range QuestionLangs {
		if _, has := c.Label[lang]; !has && ok {
			bad(n.Line, "choices."+lang, "missing (required)")
			ok = false
		}
	}
	return c, ok
}

func questionQuantityNames() []string {
	out := make([]string, 0, len(QuestionQuantities))
	for k := range QuestionQuantities {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// questionNode writes q back as the question key's mapping.
func questionNode(q *Question) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(parent *yaml.Node, key string, v any) {
		val := &yaml.Node{}
		if err := val.Encode(v); err != nil {
			val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(v)}
		}
		parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, val)
	}
	for _, lang := range QuestionLangs {
		add(m, lang, q.Text[lang])
	}
	add(m, "answer", q.Answer)
	if q.Tolerance > 0 {
		add(m, "tolerance", q.Tolerance)
	}
	if len(q.Choices) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range q.Choices {
			cm := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			add(cm, "value", c.Value)
			for _, lang := range QuestionLangs {
				add(cm, lang, c.Label[lang])
			}
			seq.Content = append(seq.Content, cm)
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "choices"}, seq)
	}
	return m
}
