package tui

import (
	"math"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/learn"
)

// Predict, then reveal: the model's side of a tour step's question. The scenario file names a
// quantity (assets.QuestionQuantities); its value comes from the step's report here, so the
// right answer is always the cost model's.

// questionValue is the report's value of a question's quantity, in the unit the question is
// answered in (percentages from 0 to 100); false when the report has none (an inference
// quantity of a training step).
func questionValue(name string, r costmodel.Report) (float64, bool) {
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

// quizState is the tour step's question as this explorer has it: what the user typed or chose,
// and whether the step's numbers are revealed.
type quizState struct {
	typed    string  // a number question's digits so far
	choice   int     // the choice taken, from 0; -1 none
	number   float64 // the number answered
	answered bool
	revealed bool
}

// question is the tour step's question, nil outside the tour or on a step without one.
func (m *Model) question() *assets.Question {
	if !m.tour.on || m.tour.at < 0 || m.tour.at >= len(m.tour.files) {
		return nil
	}
	return m.tour.files[m.tour.at].Question
}

// quizOpen reports whether the step's numbers are hidden behind its question.
func (m *Model) quizOpen() bool { return m.question() != nil && !m.tour.quiz.revealed }

// quizKey takes a key while the question is open: 1–9 choose, digits and enter answer a number.
// handled is false for keys the tour and the explorer keep (←/→, esc, tab, q).
func (m Model) quizKey(msg tea.KeyMsg) (Model, bool) {
	q, z := m.question(), &m.tour.quiz
	s := msg.String()
	if len(q.Choices) > 0 {
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < len(q.Choices) {
			z.choice, z.answered = int(s[0]-'1'), true
			z.revealed = !m.classHolds() // alone, answering reveals
			return m, true
		}
		return m, false
	}
	switch {
	case len(s) == 1 && (s[0] >= '0' && s[0] <= '9' || (s == "." || s == ",") && !strings.ContainsAny(z.typed, ".,")):
		// A decimal point or a comma, as the language writes it ("43,8" in French).
		if len(z.typed) < 12 {
			z.typed += s
		}
	case s == "backspace":
		if z.typed != "" {
			z.typed = z.typed[:len(z.typed)-1]
		}
	case s == "enter":
		x, err := strconv.ParseFloat(strings.Replace(z.typed, ",", ".", 1), 64)
		if err != nil {
			return m, true
		}
		z.number, z.answered, z.revealed = x, true, !m.classHolds()
	default:
		return m, false
	}
	return m, true
}

// quizLines are the caption's lines while the question is open: the question, then how to answer.
func (m *Model) quizLines(w int) []string {
	q, z := m.question(), m.tour.quiz
	lines := strings.Split(ansi.Wordwrap(m.styles.Bold.Render(q.In(m.lang)), w, ""), "\n")
	if wait := m.waitLine(); wait != "" {
		// A student in class, answered: the teacher reveals.
		return append(lines, strings.Split(ansi.Wordwrap(wait, w, ""), "\n")...)
	}
	if len(q.Choices) > 0 {
		var items []string
		for i, c := range q.Choices {
			items = append(items, m.styles.Bold.Render(strconv.Itoa(i+1))+" "+c.In(m.lang)+m.choiceCount(i))
		}
		lines = append(lines, strings.Split(ansi.Wordwrap(strings.Join(items, " · "), w, ""), "\n")...)
		return m.withTally(lines, m.dimWrapped(m.quizText("tour.quiz.choose", "", ""), w), w)
	}
	unit := ""
	if q.Unit != "" {
		unit = " " + m.texts.Unit(q.Unit) // "Gio" in French
	}
	input, hint := "› "+z.typed+"▏"+unit, m.quizText("tour.quiz.type", "", "")
	if common.Width(input)+3+common.Width(hint) <= w {
		return m.withTally(lines, []string{input + m.styles.Dim.Render("   "+hint)}, w)
	}
	return m.withTally(lines, append([]string{input}, m.dimWrapped(hint, w)...), w) // read whole, below
}

// dimWrapped is text word-wrapped to w cells, each line dimmed.
func (m *Model) dimWrapped(text string, w int) []string {
	out := learn.Wrap(text, w)
	for i, l := range out {
		out[i] = m.styles.Dim.Render(l)
	}
	return out
}

// withTally is the question's lines, then how to answer (how), or on the teacher's screen the
// class's answers so far in its place.
func (m *Model) withTally(lines, how []string, w int) []string {
	if t := m.tallyLine(w, true); t != "" {
		return append(lines, t)
	}
	return append(lines, how...)
}

// revealLine sets the answer beside the model's: "you said about half, the model says 43.8% ✓".
func (m *Model) revealLine() string {
	q, z := m.question(), m.tour.quiz
	if !m.tourReady() {
		return m.styles.Dim.Render("the model is evaluating this step…")
	}
	x, ok := questionValue(q.Answer, m.data.Report)
	if !ok {
		return m.styles.Dim.Render("the model has no " + q.Answer + " for this step")
	}
	model := fmtQuantity(x, q.Unit)
	var said string
	right := false
	if len(q.Choices) > 0 {
		rc := q.RightChoice(x)
		model += " (" + q.Choices[rc].In(m.lang) + ")"
		if z.answered {
			said, right = q.Choices[z.choice].In(m.lang), z.choice == rc
		}
	} else if z.answered {
		said, right = fmtQuantity(z.number, q.Unit), q.Within(z.number, x)
	}
	if !z.answered {
		return m.quizText("tour.quiz.model", "", m.styles.Bold.Render(model))
	}
	mark := m.styles.Error.Render("✗")
	if right {
		mark = m.styles.Bold.Render("✓")
	}
	return m.quizText("tour.quiz.said", said, m.styles.Bold.Render(model)) + " " + mark
}

// fmtQuantity writes a question's quantity with its unit: "43.8%", "246 GiB", "11.8 ms".
func fmtQuantity(x float64, unit string) string {
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

// predictCard takes the main pane's place while the question is open: the tabs would show the
// step's numbers, and the question asks for a guess first. Its words are the tour's texts
// (tour.predict.*), in the explorer's language.
func (m *Model) predictCard(w int) string {
	key := "tour.predict.alone"
	switch {
	case m.class.follow != nil && m.class.following:
		key = "tour.predict.class"
	case m.teacherReveals():
		key = "tour.predict.teacher"
	}
	title, err := m.texts.Exec("tour.predict.title", nil)
	if err != nil {
		return m.styles.Error.Render(err.Error())
	}
	body, err := m.texts.Exec(key, nil)
	if err != nil {
		return m.styles.Error.Render(err.Error())
	}
	lines := []string{"", " " + m.styles.Bold.Render(strings.TrimSpace(title)), ""}
	for _, l := range learn.Wrap(strings.TrimSpace(body), max(w-2, 1)) {
		lines = append(lines, " "+l)
	}
	return strings.Join(lines, "\n")
}

// quizText is one of the question's lines (tour.quiz.*) in the explorer's language, with what
// was said and the model's answer in place; a text that fails shows its error.
func (m *Model) quizText(key, said, model string) string {
	out, err := m.texts.Exec(key, struct{ Said, Model string }{said, model})
	if err != nil {
		return m.styles.Error.Render(err.Error())
	}
	return strings.TrimSpace(out)
}
