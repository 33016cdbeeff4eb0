package classroom

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/theme"
)

// Tally is the teacher's view of the class's answers to the question of the step on screen.
type Tally struct {
	Question *assets.Question
	Lang     string
	// Msg is the class's answers to this step (the caller passes an empty one, with Of, when
	// the last tally was another step's).
	Msg TallyMsg
	// Model is the model's answer, Known when the step's own evaluation is on screen.
	Model float64
	Known bool
	// Revealed says the teacher pressed R.
	Revealed bool
}

// Line is the teacher's line of the class's answers to the step, in w cells: "12 answered of
// 20: about 10% ×3 · about half ×8 · almost all of it ×1 · model: about half", the choices by
// number ("1 ×3 · 2 ×8 …") when their names do not fit; for a number "5 answered of 20: median
// 40%, middle half 25%–60% · model: 43.8%". brief leaves the choices' counts out (the
// question's own line shows them).
func (t Tally) Line(st *theme.Styles, w int, brief bool) string {
	q := t.Question
	head := st.Bold.Render(fmt.Sprintf("%d answered of %d", t.Msg.Answered, t.Msg.Of)) + ": "
	hint := " · R reveals"
	if t.Revealed {
		hint = " · revealed"
	}
	line := func(named bool) string {
		var parts []string
		if len(q.Choices) > 0 && !brief {
			for i, c := range q.Choices {
				name := strconv.Itoa(i + 1)
				if named {
					name = c.In(t.Lang)
				}
				parts = append(parts, fmt.Sprintf("%s ×%d", name, t.Msg.Count(i)))
			}
		} else if n := len(t.Msg.Numbers); n > 0 {
			p := "median " + FmtQuantity(Median(t.Msg.Numbers), q.Unit)
			if lo, hi, ok := MiddleHalf(t.Msg.Numbers); ok {
				p += ", middle half " + FmtQuantity(lo, q.Unit) + "–" + FmtQuantity(hi, q.Unit)
			}
			parts = append(parts, p)
		}
		model := "…"
		if t.Known {
			model = FmtQuantity(t.Model, q.Unit)
			if len(q.Choices) > 0 {
				rc := q.RightChoice(t.Model)
				model = strconv.Itoa(rc + 1)
				if named {
					model += " " + q.Choices[rc].In(t.Lang)
				}
			}
		}
		parts = append(parts, "model: "+model)
		return head + strings.Join(parts, " · ") + st.Dim.Render(hint)
	}
	if l := line(true); len(q.Choices) > 0 && ansi.StringWidth(l) <= w {
		return l
	}
	return ansi.Truncate(line(false), max(w, 1), "…")
}

// Median of sorted numbers (at least one).
func Median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// MiddleHalf is the middle half of sorted numbers, from the first quarter's end to the last
// quarter's start; false under four numbers, where it says nothing the median does not.
func MiddleHalf(xs []float64) (lo, hi float64, ok bool) {
	n := len(xs)
	if n < 4 {
		return 0, 0, false
	}
	return xs[n/4], xs[(3*n-1)/4], true
}
