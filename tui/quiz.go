package tui

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"

	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/learn"
)

// Predict, then reveal: the model's side of a tour step's question (its value, answer parsing
// and the reveal line: tui/classroom).

// question is the tour step's question, nil outside the tour or on a step without one.
func (m *Model) question() *assets.Question {
	if !m.tour.on || m.tour.at < 0 || m.tour.at >= len(m.tour.files) {
		return nil
	}
	return m.tour.files[m.tour.at].Question
}

// quizOpen reports whether the step's numbers are hidden behind its question.
func (m *Model) quizOpen() bool { return m.question() != nil && !m.tour.quiz.Revealed }

// quizKey takes a key while the question is open (classroom.Quiz.Key); handled is false for
// keys the tour and the explorer keep (←/→, esc, tab, q).
func (m Model) quizKey(msg tea.KeyMsg) (Model, bool) {
	q := m.question()
	handled := m.tour.quiz.Key(q, msg.String(), m.classHolds())
	return m, handled
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
	input, hint := "› "+z.Typed+"▏"+unit, m.quizText("tour.quiz.type", "", "")
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
	z := m.tour.quiz
	return classroom.RevealLine(m.styles, m.quizText, m.question(), m.lang, m.tourReady(), m.data.Report, z.Answered, z.Choice, z.Number)
}

// predictCard takes the main pane's place while the question is open: the tabs would show the
// step's numbers, and the question asks for a guess first. Its words are the tour's texts
// (tour.predict.*), in the explorer's language.
func (m *Model) predictCard(w int) string {
	key := "tour.predict.alone"
	switch {
	case m.class.FollowingStudent():
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
