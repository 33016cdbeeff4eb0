package pipeline

import (
	"fmt"
	"strings"

	"github.com/splitscope/splitscope/tui/overlay"
	"github.com/splitscope/splitscope/tui/theme"
)

// SetOverlay sets a measured trace beside the model's timeline (nil: none). The pane draws, under
// the chart, the biggest difference and per rank two lanes: the trace and the model's stage.
func (m *Model) SetOverlay(o *overlay.Overlay) {
	m.ov = o
	m.clampScroll()
}

// Overlay is the overlay drawn, nil when none.
func (m *Model) Overlay() *overlay.Overlay { return m.ov }

// overlayRows is how many of the pane's rows the overlay takes: a title, the difference and two
// lanes a rank, at most half the pane (ranks that do not fit are counted on the title line).
func (m *Model) overlayRows() int {
	if m.ov == nil || m.w < minW || m.h < minH+4 {
		return 0
	}
	return min(2+2*len(m.ov.Ranks), max(m.h/2, 4))
}

// chartH is the rows left to the chart.
func (m *Model) chartH() int { return m.h - m.overlayRows() }

// overlayLines appends the overlay's rows (rows of them) to out.
func (m *Model) overlayLines(out []string, w, rows int) []string {
	if rows <= 0 {
		return out
	}
	o := m.ov
	shown := min(len(o.Ranks), (rows-2)/2)
	title := "measured (trace) vs model: █ compute ≈ NCCL ▒ both · idle"
	if shown < len(o.Ranks) {
		title += fmt.Sprintf("; %d of %d ranks", shown, len(o.Ranks))
	}
	out = append(out, m.paint.line([]seg{{title, cLabel}}, w))
	out = append(out, m.paint.line([]seg{{o.Diff, cWarn}}, w))
	labelW := 0
	for _, r := range o.Ranks[:shown] {
		labelW = max(labelW, len(fmt.Sprintf("r%d trace ", r.Rank)))
	}
	const timeW = 9
	cw := max(w-labelW-timeW, 1)
	for i, r := range o.Ranks[:shown] {
		for _, lane := range []struct {
			name  string
			cells []overlay.Cell
			span  float64
			note  string
		}{
			{"trace", o.MeasuredCells(i, cw), r.Measured.Span, "span"},
			{"model", o.ModeledCells(i, cw), r.Modeled.Span, "step"},
		} {
			var b strings.Builder
			m.paint.segs(&b, []seg{{padRight(fmt.Sprintf("r%d %s", r.Rank, lane.name), labelW), cLabel}}, labelW)
			cs := make([]cell, len(lane.cells))
			for k, c := range lane.cells {
				switch c {
				case overlay.CellCompute:
					cs[k] = cell{theme.GlyphCompute, cOvCompute}
				case overlay.CellComm:
					cs[k] = cell{theme.GlyphComm, cOvComm}
				case overlay.CellBoth:
					cs[k] = cell{'▒', cOvComm}
				default:
					cs[k] = cell{theme.GlyphBubble, cBubble}
				}
			}
			m.paint.cells(&b, cs)
			m.paint.segs(&b, []seg{{" " + fmtDur(lane.span), cNote}}, timeW)
			out = append(out, b.String())
		}
	}
	return out
}
