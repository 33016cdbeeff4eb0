// Package common holds what the explorer's root model and its panes share: the data a pane
// renders, the animation clock message and the pane contract. No pane imports another.
package common

import (
	"fmt"
	"strconv"
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
	// ToFit is, when the scenario does not fit, the fastest change that makes it fit (nil
	// when none of those tried does, or when it fits).
	ToFit *costmodel.FitChange
	// Knobs is what each single change of a memory knob does to the fullest GPU (training).
	Knobs []costmodel.KnobSaving
	// NoCP is, in training with CP > 1, the same GPUs with the CP group turned into data
	// parallelism (TP and PP kept, DP × CP replicas): what context parallelism saves. Nil
	// otherwise, or when that layout is invalid.
	NoCP *CompareRow
}

// RowKind says which contender of the Compare tab a row stands for.
type RowKind uint8

// Contenders, in the order the tab lists them. The zero value is no contender (a row made by
// hand in a test).
const (
	RowTPOnly RowKind = iota + 1 // the best layout with TP > 1 and PP = 1
	RowPPOnly                    // the best layout with TP = 1 and PP > 1
	RowBest                      // the best layout of all, by the search's objective
	RowHybrid                    // the best with TP > 1 and PP > 1, listed when the best of all is not one
	// RowEP is the best with TP = 1, PP = 1 and EP > 1, a MoE model's attention data-parallel
	// on every GPU with the experts spread (DeepSeek's serving layout); listed after PP only.
	RowEP
	// RowDisagg is, in serving, the best disaggregated layout (model.Disagg): a prefill pool and
	// a decode pool of the same GPUs; listed last.
	RowDisagg
)

// CompareRow is one contender of the Compare tab.
type CompareRow struct {
	Kind RowKind
	// Name is the contender's label, the one every view shows: "TP only", "PP only",
	// "best: TP 2 × PP 4", "best (= PP only)", "best hybrid".
	Name string
	// SameAs is, for RowBest, the contender whose very layout it is (RowTPOnly or RowPPOnly);
	// 0 when it is no other row's.
	SameAs   RowKind
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
	Rows []CompareRow
	// Searched is how many layouts the search looked at (feasible or not).
	Searched int
	Cross    []CrossPoint
	// CrossTP and CrossPP are the layouts the sweep ran: TP only's and PP only's, with an
	// interleaved schedule run as 1F1B (interleaving needs m to be a multiple of PP).
	CrossTP, CrossPP model.Layout
	// Rates is, in inference, each feasible contender's rate sweep (TP only, PP only, and the
	// best hybrid or the best layout): throughput and p90 latencies as the offered rate grows.
	Rates []RateSeries
	// Better is what search finds on the same scenario with every training knob free (as
	// `splitscope search` does), when it ranks ahead of the contenders' best, which hold the
	// panel's knobs: its row (Feasible), and in Held the knobs the contenders hold at the
	// panel's value that it turns otherwise ("ZeRO 0", "SP off"). Zero when they agree.
	Better CompareRow
	Held   []string
	Err    error
	// Seq is the sequence sweep (TP vs CP vs both) when the explorer has made it for this
	// scenario: the export writes it. Build leaves it nil (the root sweeps apart, lazily).
	Seq *SeqSweep
}

// RateSeries is one contender's rate sweep.
type RateSeries struct {
	Kind   RowKind
	Name   string
	Layout model.Layout
	Points []RatePoint
}

// RatePoint is one offered rate: the output tokens/s served and the p90 latencies.
type RatePoint struct {
	Offered, OutTokS, TPOTP90, TTFTP90 float64
}

// Row returns the index of the row of kind k, or -1.
func (c Compare) Row(k RowKind) int {
	for i, r := range c.Rows {
		if r.Kind == k && k != 0 {
			return i
		}
	}
	return -1
}

// Twin returns the index of the row whose layout row i repeats (the best layout when it is TP
// only's or PP only's), or i itself: views count such a pair once when they pick winners.
func (c Compare) Twin(i int) int {
	if i < 0 || i >= len(c.Rows) || c.Rows[i].SameAs == 0 {
		return i
	}
	if j := c.Row(c.Rows[i].SameAs); j >= 0 {
		return j
	}
	return i
}

// SplitName names a layout by its parallel degrees above 1, "TP 2 × PP 4", "TP 8 × CP 4", "TP 2 × PP 2 × DP 2",
// "DP 8"; "1 GPU" for none. It is how the best layout's label says what the layout is.
func SplitName(l model.Layout) string {
	pools := ""
	if d := l.Disagg; d.On() {
		// Disaggregated: the prefill pool's GPUs and TP, then the decode pool's split.
		tp := d.PrefillTP
		if tp == 0 {
			tp = l.TP
		}
		pools = fmt.Sprintf("%d prefill (TP %d) + ", d.PrefillGPUs, tp)
		if d.PrefillCP > 1 {
			pools = fmt.Sprintf("%d prefill (TP %d × CP %d) + ", d.PrefillGPUs, tp, d.PrefillCP)
		}
	}
	return pools + splitParts(l)
}

// splitParts is one pool's split: "TP 2 × PP 4", "1 GPU".
func splitParts(l model.Layout) string {
	var parts []string
	for _, d := range []struct {
		name string
		n    int
	}{{"TP", l.TP}, {"CP", l.CP}, {"PP", l.PP}, {"DP", l.DP}, {"EP", l.EP}} {
		if d.n > 1 {
			parts = append(parts, d.name+" "+strconv.Itoa(d.n))
		}
	}
	if len(parts) == 0 {
		return "1 GPU"
	}
	return strings.Join(parts, " × ")
}

// FrameMsg advances animations; the root sends it only while something plays.
type FrameMsg time.Time

// FrameInterval paces animations at 30 frames a second at most.
const FrameInterval = time.Second / 30

// MaxFrameGap bounds the wall time one FrameMsg may advance an animation, so a stalled terminal
// does not make it jump.
const MaxFrameGap = 250 * time.Millisecond

// FrameStep is the wall time a FrameMsg at now advances an animation whose last frame was at
// last: the time between them, or one FrameInterval for the first frame after a pause (last
// zero), a frame out of order or a gap past MaxFrameGap. Animations keep their pace whatever
// the frame rate (a served session's is lower) and however late the frames come.
func FrameStep(last, now time.Time) time.Duration {
	if !last.IsZero() {
		if d := now.Sub(last); d > 0 && d <= MaxFrameGap {
			return d
		}
	}
	return FrameInterval
}

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
		if out[i] = lines[i]; Width(lines[i]) > w {
			out[i] = ansi.Truncate(lines[i], max(w, 0), "…")
		}
	}
	return strings.Join(out, "\n")
}
