package classroom

import (
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/theme"
)

// Predict, then reveal: the model's side of a tour step's question. The scenario file names a
// quantity (assets.QuestionQuantities); its value comes from the step's report, so the right
// answer is always the cost model's.

// QuestionValue is the report's value of a question's quantity, in the unit the question is
// answered in (percentages from 0 to 100); false when the report has none (an inference
// quantity of a training step).
func QuestionValue(name string, r costmodel.Report) (float64, bool) {
	switch name {
	case "bubble_fraction":
		return 100 * r.BubbleFraction, true
	case "comm_fraction":
		return 100 * r.CommFraction, true
	case "tp_comm_share":
		if r.StepTime <= 0 {
			return 0, false
		}
		return 100 * r.Breakdown.TPComm / r.StepTime, true
	case "layer_comm_share":
		return 100 * r.Detail.Layer.CommShare, true
	case "memory_gib":
		return r.Memory.Total / model.GiB, true
	case "fits":
		if r.Memory.Fits {
			return 1, true
		}
		return 0, true
	case "step_s":
		return r.StepTime, r.StepTime > 0
	case "tokens_per_s":
		return r.TokensPerS, true
	case "ttft_ms":
		if r.Inference == nil {
			return 0, false
		}
		return 1000 * r.Inference.TTFT, true
	case "tpot_ms":
		if r.Inference == nil {
			return 0, false
		}
		return 1000 * r.Inference.TPOT, true
	}
	return math.NaN(), false
}

// FmtQuantity writes a question's quantity with its unit: "43.8%", "246 GiB", "11.8 ms".
func FmtQuantity(x float64, unit string) string {
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if math.Abs(x) >= 1000 {
		s = strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	}
	switch unit {
	case "":
		return s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}

// ChoiceKey is the choice (from 0) key s takes among n choices: "1"–"9"; false for any other key.
func ChoiceKey(s string, n int) (int, bool) {
	if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < n {
		return int(s[0] - '1'), true
	}
	return 0, false
}

// TypeKey is a number question's digits after key s: a digit, one decimal point or comma (as
// the language writes it: "43,8" in French), up to 12 characters; backspace takes the last off.
// false for any other key (enter included: Number reads what was typed).
func TypeKey(typed, s string) (string, bool) {
	switch {
	case len(s) == 1 && (s[0] >= '0' && s[0] <= '9' || (s == "." || s == ",") && !strings.ContainsAny(typed, ".,")):
		if len(typed) < 12 {
			typed += s
		}
	case s == "backspace":
		if typed != "" {
			typed = typed[:len(typed)-1]
		}
	default:
		return typed, false
	}
	return typed, true
}

// Number is the number typed, a comma read as the decimal point; false when it is none.
func Number(typed string) (float64, bool) {
	x, err := strconv.ParseFloat(strings.Replace(typed, ",", ".", 1), 64)
	return x, err == nil
}

// Said is an answer as the student gave it: "2 about half" for a choice, "246 GiB" for a number.
func Said(q *assets.Question, lang string, choice int, number float64) string {
	if len(q.Choices) > 0 {
		return strconv.Itoa(choice+1) + " " + q.Choices[choice].In(lang)
	}
	return FmtQuantity(number, q.Unit)
}

// Text is one of the question's lines (tour.quiz.*) in the explorer's language, with what was
// said and the model's answer in place.
type Text func(key, said, model string) string

// RevealLine sets the answer beside the model's: "you said about half, the model says 43.8% ✓".
// ready says the report is the step's own evaluation, r is it; answered, choice and number are
// the student's answer.
func RevealLine(st *theme.Styles, text Text, q *assets.Question, lang string, ready bool, r costmodel.Report, answered bool, choice int, number float64) string {
	if !ready {
		return st.Dim.Render("the model is evaluating this step…")
	}
	x, ok := QuestionValue(q.Answer, r)
	if !ok {
		return st.Dim.Render("the model has no " + q.Answer + " for this step")
	}
	model := FmtQuantity(x, q.Unit)
	var said string
	right := false
	if len(q.Choices) > 0 {
		rc := q.RightChoice(x)
		model += " (" + q.Choices[rc].In(lang) + ")"
		if answered {
			said, right = q.Choices[choice].In(lang), choice == rc
		}
	} else if answered {
		said, right = FmtQuantity(number, q.Unit), q.Within(number, x)
	}
	if !answered {
		return text("tour.quiz.model", "", st.Bold.Render(model))
	}
	mark := st.Error.Render("✗")
	if right {
		mark = st.Bold.Render("✓")
	}
	return text("tour.quiz.said", said, st.Bold.Render(model)) + " " + mark
}

// Quiz is the tour step's question as one explorer has it: what the user typed or chose, and
// whether the step's numbers are revealed.
type Quiz struct {
	Typed    string  // a number question's digits so far
	Choice   int     // the choice taken, from 0; -1 none
	Number   float64 // the number answered
	Answered bool
	Revealed bool
}

// Open is a question not yet answered.
func Open() Quiz { return Quiz{Choice: -1} }

// Key takes key s while question q is open: 1–9 choose, digits and enter answer a number.
// holds says the answer waits for the teacher's reveal (in class); alone, answering reveals.
// It reports false for keys the tour and the explorer keep (←/→, esc, tab, q).
func (z *Quiz) Key(q *assets.Question, s string, holds bool) bool {
	if len(q.Choices) > 0 {
		c, ok := ChoiceKey(s, len(q.Choices))
		if ok {
			z.Choice, z.Answered, z.Revealed = c, true, !holds
		}
		return ok
	}
	if typed, ok := TypeKey(z.Typed, s); ok {
		z.Typed = typed
		return true
	}
	if s != "enter" {
		return false
	}
	if x, ok := Number(z.Typed); ok {
		z.Number, z.Answered, z.Revealed = x, true, !holds
	}
	return true
}

// Answers are the tour's answers by step, kept when the tour moves on: back on a step, its
// answer and its numbers are there.
type Answers []Quiz

// Keep files step i's answer, in a copy (earlier explorers keep theirs); an open question is not
// filed.
func (a Answers) Keep(i int, z Quiz) Answers {
	if i < 0 || !z.Answered && !z.Revealed {
		return a
	}
	q := make(Answers, max(len(a), i+1))
	copy(q, a)
	q[i] = z
	return q
}

// Recall is step i's answer as filed, or an open question.
func (a Answers) Recall(i int) Quiz {
	if i >= 0 && i < len(a) && (a[i].Answered || a[i].Revealed) {
		return a[i]
	}
	return Open()
}
