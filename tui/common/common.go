// Package common holds what the explorer's root model and its panes share: the data a pane
// renders, the animation clock message and the pane contract. No pane imports another.
package common

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Data is one evaluated scenario, as the panes see it.
type Data struct {
	Scenario model.Scenario
	Report   costmodel.Report // with its Timeline
	// Stale is set while the scenario being edited is invalid: the panes show this last valid
	// result dimmed.
	Stale bool
}

// CompareRow is one contender of the Compare tab.
type CompareRow struct {
	Name     string // "TP only", "PP only", "best hybrid"
	Layout   model.Layout
	Report   costmodel.Report
	Feasible bool
	Reason   string // why it is not feasible, or why it is missing
}

// CrossPoint is one point of the Compare tab's chart: a metric at m micro-batches (request
// groups in inference) for TP-only and PP-only.
type CrossPoint struct {
	Micro  int
	TP, PP float64 // tokens per second; 0 where that layout is invalid or does not fit
}

// Compare is what the Compare tab shows, computed in a tea.Cmd (it runs Search).
type Compare struct {
	Rows  []CompareRow
	Cross []CrossPoint
	Err   error
}

// FrameMsg advances animations; the root sends it only while something plays.
type FrameMsg time.Time

// FrameInterval paces animations at 30 frames a second at most.
const FrameInterval = time.Second / 30

// Pane is what the root model needs of a tab's pane.
type Pane interface {
	// Title is the tab's label.
	Title() string
	// SetSize gives the pane its content area.
	SetSize(w, h int)
	// SetData hands the pane a new evaluation.
	SetData(d Data)
	// Update handles keys sent to the focused pane and FrameMsg; it returns a command, if any.
	Update(msg tea.Msg) tea.Cmd
	// Animating reports whether the pane wants FrameMsg now (playing and not finished).
	Animating() bool
	// Keys lists the pane's own key bindings for the help.
	Keys() []key.Binding
	// View renders the pane in exactly its size.
	View() string
}

// Fit makes exactly h lines of at most w cells: long lines are cut with "…", missing ones blank.
func Fit(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := range min(h, len(lines)) {
		out[i] = ansi.Truncate(lines[i], max(w, 0), "…")
	}
	return strings.Join(out, "\n")
}
