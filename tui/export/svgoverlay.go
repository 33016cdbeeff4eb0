package export

import (
	"fmt"

	"github.com/splitscope/splitscope/tui/overlay"
	"github.com/splitscope/splitscope/tui/static"
)

// overlayCols is how many slices of time an overlay lane is drawn in: a cell is a rect of runs.
const overlayCols = 400

// maxOverlayRanks bounds the ranks drawn; the rest are counted under the heading.
const maxOverlayRanks = 16

// overlay draws a measured trace beside the model (export --svg --trace): the biggest difference,
// then per rank the trace's lane over its span and the model's for the rank's stage over its
// step, compute, NCCL and both at once coloured as the timeline's compute and communication.
func (c *svgCanvas) overlay(o *overlay.Overlay, y float64) float64 {
	width := float64(svgWidth - 2*margin)
	head := "Measured (profiler trace) vs model, per rank: compute, NCCL communication, idle"
	if len(o.Ranks) > maxOverlayRanks {
		head += fmt.Sprintf(" (the first %d of %d ranks)", maxOverlayRanks, len(o.Ranks))
	}
	c.text(margin, y+20, textOpt{size: 20, weight: "bold", class: "overlay-heading", max: width}, head)
	c.text(margin, y+46, textOpt{size: 16, fill: colComm, class: "overlay-diff", max: width}, o.Diff)
	y += 64
	const laneH, gap = 18.0, 6.0
	for i, r := range o.Ranks[:min(len(o.Ranks), maxOverlayRanks)] {
		for _, lane := range []struct {
			label string
			cells []overlay.Cell
		}{
			{fmt.Sprintf("r%d trace · %s", r.Rank, static.Seconds(r.Measured.Span)), o.MeasuredCells(i, overlayCols)},
			{fmt.Sprintf("r%d model · %s", r.Rank, static.Seconds(r.Modeled.Span)), o.ModeledCells(i, overlayCols)},
		} {
			c.text(c.x0-labelGap, y+laneH*0.75, textOpt{size: 13, anchor: "end", class: "overlay-label", max: c.labelW}, lane.label)
			c.rect("overlay-idle", c.x0, y, c.x1-c.x0, laneH, colIdle, "")
			dx := (c.x1 - c.x0) / float64(len(lane.cells))
			for k := 0; k < len(lane.cells); {
				j := k
				for j < len(lane.cells) && lane.cells[j] == lane.cells[k] {
					j++
				}
				switch lane.cells[k] {
				case overlay.CellCompute:
					c.rect("overlay-compute", c.x0+float64(k)*dx, y, float64(j-k)*dx, laneH, colCompute, "")
				case overlay.CellComm:
					c.rect("overlay-comm", c.x0+float64(k)*dx, y, float64(j-k)*dx, laneH, colComm, "")
				case overlay.CellBoth:
					c.rect("overlay-both", c.x0+float64(k)*dx, y, float64(j-k)*dx, laneH, colComm, ` fill-opacity="0.55"`)
				}
				k = j
			}
			y += laneH + 2
		}
		y += gap
	}
	return y
}
