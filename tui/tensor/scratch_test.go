package tensor

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

func synth(tp int) common.Data {
	var r costmodel.Report
	r.Layout.TP = tp
	r.StepTime = 1
	r.Breakdown.TPComm = 0.3
	r.Detail.TPAllReduceBytes = 1e6
	r.Detail.TPAllReduceS = 1e-4
	r.Detail.TPLinkAlpha = 3e-6
	r.Detail.TPLinkBW = 1e11
	r.Detail.TPLink = "x"
	r.Detail.Layer.Forward = []costmodel.Segment{{Kind: costmodel.SegCompute, Label: "attention", Start: 0, End: 1e-4}, {Kind: costmodel.SegTPComm, Label: "all-reduce", Start: 1e-4, End: 2e-4}}
	return common.Data{Report: r, Scenario: model.Scenario{Workload: model.Workload{Mode: model.Infer}}}
}

func TestScratch(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, c := range []struct{ tp int; pos float64; w, h int }{{8, 7.5, 120, 34}, {8, 14, 120, 34}, {5, 1.5, 100, 30}, {3, 3.5, 80, 30}, {2, 0.5, 80, 30}, {32, 3.5, 196, 52}, {16, 3.5, 196, 52}, {16, 3.5, 120, 34}} {
		m := New(theme.Default())
		m.SetSize(c.w, c.h)
		m.SetData(synth(c.tp))
		m.pos = c.pos
		fmt.Printf("=== %v\n%s\n", c, m.View())
	}
}
