package classroom

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

// Question is what the tour caption's lines need while a step's question is open.
type Question struct {
	Styles   *theme.Styles
	Question *assets.Question
	Lang     string
	// How is how to answer in the language (tour.quiz.choose for choices, tour.quiz.type for
	// a number); unused while Wait shows.
	How string
	// Unit is the question's unit as the language writes it ("Gio" in French), "" for none.
	Unit string
	Quiz Quiz
	// Wait is the student's line after answering in class (WaitLine), "" elsewhere.
	Wait string
	// Counts is the class's answers beside each choice on the teacher's screen (ShowCounts);
	// Tally is the teacher's brief tally line, in place of how to answer ("" elsewhere).
	Counts     TallyMsg
	ShowCounts bool
	Tally      string
	// Wrap word-wraps the caption's text to w cells (the tour's wrap: learn.Wrap).
	Wrap func(text string, w int) []string
}

// Lines are the caption's lines while the question is open, in w cells: the question, then how
// to answer (the choices, or the number being typed and its hint), or the student's wait, or
// the teacher's tally in place of the hint.
func (v Question) Lines(w int) []string {
	st, q := v.Styles, v.Question
	lines := strings.Split(ansi.Wordwrap(st.Bold.Render(q.In(v.Lang)), w, ""), "\n")
	if v.Wait != "" {
		// A student in class, answered: the teacher reveals.
		return append(lines, strings.Split(ansi.Wordwrap(v.Wait, w, ""), "\n")...)
	}
	if len(q.Choices) > 0 {
		var items []string
		for i, c := range q.Choices {
			count := ""
			if v.ShowCounts {
				count = " " + st.Bold.Render("×"+strconv.Itoa(v.Counts.Count(i)))
			}
			items = append(items, st.Bold.Render(strconv.Itoa(i+1))+" "+c.In(v.Lang)+count)
		}
		lines = append(lines, strings.Split(ansi.Wordwrap(strings.Join(items, " · "), w, ""), "\n")...)
		return v.withTally(lines, v.dimWrapped(v.How, w))
	}
	unit := ""
	if v.Unit != "" {
		unit = " " + v.Unit
	}
	input, hint := "› "+v.Quiz.Typed+"▏"+unit, v.How
	if common.Width(input)+3+common.Width(hint) <= w {
		return v.withTally(lines, []string{input + st.Dim.Render("   "+hint)})
	}
	return v.withTally(lines, append([]string{input}, v.dimWrapped(hint, w)...)) // read whole, below
}

// dimWrapped is text word-wrapped to w cells, each line dimmed.
func (v Question) dimWrapped(text string, w int) []string {
	out := v.Wrap(text, w)
	for i, l := range out {
		out[i] = v.Styles.Dim.Render(l)
	}
	return out
}

// withTally is the question's lines, then how to answer (how), or on the teacher's screen the
// class's answers so far in its place.
func (v Question) withTally(lines, how []string) []string {
	if v.Tally != "" {
		return append(lines, v.Tally)
	}
	return append(lines, how...)
}

// WaitLine is what a student who answered in class sees until the reveal: "answered: 2 about
// half · waiting for the teacher's reveal"; "" before the answer and after the reveal.
func WaitLine(st *theme.Styles, text Text, q *assets.Question, lang string, z Quiz) string {
	if !z.Answered || z.Revealed || q == nil {
		return ""
	}
	return text("tour.quiz.wait", st.Bold.Render(Said(q, lang, z.Choice, z.Number)), "")
}
