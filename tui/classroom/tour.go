package classroom

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"
)

// The guided tour's caption and steps: the explorer moves between the step's scenarios and
// tabs; what is pure about it (which step, how many rows the caption gets, how it is cut and
// headed) is here.

// StepAt is step i of a tour of n steps, clamped to the tour.
func StepAt(i, n int) int { return min(max(i, 0), n-1) }

// CaptionRows is how many text rows the caption box gets on a width×height screen: four at
// 100 columns and more, five narrower (never more than the footer's third of the screen less
// the key line, helpH, the verdict and the box's borders), and need, the caption's own lines,
// when it needs more so that it reads whole; never more than room, the lines the panes above
// can give up, and at least one.
func CaptionRows(width, height, helpH, need, room int) int {
	rows := 4
	if width < 100 {
		rows = 5
	}
	rows = max(min(rows, height/3-helpH-1-2), 1)
	rows = max(rows, need)
	return max(min(rows, room), 1)
}

// CutCaption is the caption's lines in a box of rows text rows and w cells (borders included),
// each with a margin: past rows the last line shown is cut with "…".
func CutCaption(lines []string, rows, w int) []string {
	if len(lines) > rows {
		lines = lines[:rows]
		lines[rows-1] = ansi.Truncate(lines[rows-1]+" …", w-2, "…")
	}
	for i, l := range lines {
		lines[i] = " " + l
	}
	return lines
}

// CaptionHead is the caption box's title, for its top border of w cells: " 3/9 · Title ".
func CaptionHead(at, steps int, title string, w int) string {
	head := fmt.Sprintf(" %d/%d · %s ", at+1, steps, title)
	return ansi.Truncate(head, max(w-2, 1), "…")
}
