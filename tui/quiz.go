package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/learn"
)

// Predict, then reveal: the model's side of a tour step's question. Its state, answer parsing,
// the caption's question lines and the reveal line are tui/classroom's; this is the glue.

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
	// Strings, not m's methods, go in: a method value of m would move every Model that calls
	// this to the heap (the frame benchmarks' allocations).
	v := classroom.Question{
		Styles: m.styles, Question: m.question(), Lang: m.lang,
		Quiz: m.tour.quiz, Wait: m.waitLine(), Tally: m.tallyLine(w, true), Wrap: learn.Wrap,
	}
	if v.Wait == "" {
		how := "tour.quiz.type"
		if len(v.Question.Choices) > 0 {
			how = "tour.quiz.choose"
		}
		v.How = m.quizText(how, "", "")
	}
	if u := v.Question.Unit; u != "" {
		v.Unit = m.texts.Unit(u) // "Gio" in French
	}
	if m.teacherReveals() {
		v.Counts, v.ShowCounts = m.class.TallyOf(m.tour.at), true
	}
	return v.Lines(w)
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
