package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

// deepseekH200 is DeepSeek-V3 served on 8 H200s, TP 8 on the panel.
func deepseekH200(tb testing.TB) model.Scenario {
	return tuitest.Scenario(tb, "deepseek-v3", "h200-sxm", "nvlink4", model.Infer, 8, 8, 1)
}

// A MoE model's comparison puts attention data-parallel with the experts spread (TP 1, PP 1,
// EP > 1) beside TP only and PP only: the search's fastest such layout, with its rate sweep
// marked E; a dense model's has no such column (TestBuildScenarios' rows).
func TestCompareHasAnEPColumnForAMoEModel(t *testing.T) {
	s := deepseekH200(t)
	c := Build(s)
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	want := []common.RowKind{common.RowTPOnly, common.RowPPOnly, common.RowEP, common.RowBest}
	if len(c.Rows) < len(want) {
		t.Fatalf("%d rows", len(c.Rows))
	}
	for i, k := range want {
		if c.Rows[i].Kind != k {
			t.Errorf("row %d (%s) is kind %d, want %d", i, c.Rows[i].Name, c.Rows[i].Kind, k)
		}
	}
	ep := c.Rows[c.Row(common.RowEP)]
	res, err := costmodel.Search(s, costmodel.SearchOptions{Objective: objective, Fix: costmodel.SearchFix{}.KeepKnobs()})
	if err != nil {
		t.Fatal(err)
	}
	var first model.Layout
	for _, cd := range res.Candidates {
		if cd.Feasible && classEP.in(cd.Layout) {
			first = cd.Layout
			break
		}
	}
	if !ep.Feasible || ep.Layout != first || ep.Layout.TP != 1 || ep.Layout.PP != 1 || ep.Layout.EP != 8 || ep.Layout.DP != 8 {
		t.Errorf("EP column %+v (feasible %v, %s), search's first %+v", ep.Layout, ep.Feasible, ep.Reason, first)
	}
	if ep.Report.Breakdown.EPComm <= 0 {
		t.Errorf("EP column without all-to-all time: %+v", ep.Report.Breakdown)
	}
	sawE := false
	for _, r := range c.Rates {
		sawE = sawE || r.Kind == common.RowEP
	}
	if !sawE {
		t.Error("no rate sweep for the EP column")
	}
	m := New(theme.Default())
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	m.SetData(common.Data{Scenario: s, Report: r})
	m.SetCompare(c)
	m.SetSize(120, 34)
	v := m.View()
	for _, w := range []string{"EP (attention DP)", "1×1×8 EP 8", "E EP (attention DP) DP 8 × EP 8"} {
		if !strings.Contains(v, w) {
			t.Errorf("120×34 lacks %q:\n%s", w, v)
		}
	}
}

// The Compare tab of DeepSeek-V3 on 8 H200s at the golden sizes.
func TestViewGoldenMoE(t *testing.T) {
	m := loaded(t, deepseekH200(t))
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("deepseek-v3/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m.SetSize(sz[0], sz[1])
			v := m.View()
			tuitest.CheckFrame(t, v, sz[0], sz[1])
			golden.RequireEqual(t, []byte(v))
		})
	}
}
