package export

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/static"
)

func renderMarkdown(t *testing.T, s model.Scenario, r costmodel.Report, c common.Compare, lang string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, s, r, c, lang); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tableRow is the cells of the comparison table's row whose label is label.
func tableRow(t *testing.T, md, label string) []string {
	t.Helper()
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| **"+label+"** |") {
			cells := strings.Split(strings.Trim(l, "| "), " | ")
			return cells[1:]
		}
	}
	t.Fatalf("no row %q in:\n%s", label, md)
	return nil
}

func TestMarkdownEnglish(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	c := compare.Build(s)
	md := renderMarkdown(t, s, r, c, "en")
	for _, w := range []string{
		"# splitscope report", static.ScenarioLine(s), "## Layout", "## Step time", "| part | time | share |",
		"| **step time (one optimizer step)** | **" + static.Seconds(r.StepTime) + "** |",
		"## Memory per GPU", "| weights | " + static.Bytes(r.Memory.Weights) + " |", "## Warnings",
		"## Tensor vs pipeline parallelism", "|  | **TP only** | **PP only** | **best hybrid** |",
		"| **what is split** |", "| **communication per layer** |", "| **latency: step time** |", "| **throughput** |",
		"| **interconnect needs** |", "| **memory per GPU** |", "| **fits** |",
		"2 all-reduces of b·s·h forward + 2 backward", "one send of b·s·h per stage boundary",
		"NVLink-class bandwidth", "tolerant of PCIe or the network", "matrices of every layer", "runs of whole layers",
		"| m | TP only | PP only |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}
	if len(c.Rows) != 3 {
		t.Fatalf("%d contenders", len(c.Rows))
	}
	// Winner marks: the fastest step time and the highest throughput among those that fit.
	for _, row := range []struct {
		label string
		value func(costmodel.Report) float64
		lower bool
	}{
		{"latency: step time", func(r costmodel.Report) float64 { return r.StepTime }, true},
		{"throughput", func(r costmodel.Report) float64 { return r.TokensPerS }, false},
		{"memory per GPU", func(r costmodel.Report) float64 { return r.Memory.Total }, true},
	} {
		best, bi := math.NaN(), -1
		for i, cr := range c.Rows {
			v := row.value(cr.Report)
			if cr.Feasible && (bi < 0 || (row.lower && v < best) || (!row.lower && v > best)) {
				best, bi = v, i
			}
		}
		cells := tableRow(t, md, row.label)
		if bi < 0 {
			t.Fatalf("no feasible contender")
		}
		if !strings.HasSuffix(cells[bi], " "+WinnerMark) {
			t.Errorf("%s: winner %s not marked: %q", row.label, c.Rows[bi].Name, cells)
		}
		marks := strings.Count(strings.Join(cells, "|"), WinnerMark)
		if marks < 1 || marks > 2 {
			t.Errorf("%s: %d winner marks: %q", row.label, marks, cells)
		}
	}
	// Qualitative rows have no winner.
	if cells := tableRow(t, md, "what is split"); strings.Contains(strings.Join(cells, ""), WinnerMark) {
		t.Errorf("what is split has a winner: %q", cells)
	}
	// Actual bytes and times from the contenders' reports.
	tp := c.Rows[0].Report.Detail
	if !strings.Contains(md, decBytes(tp.TPAllReduceBytes)+" in "+static.Seconds(tp.TPAllReduceS)) {
		t.Errorf("TP-only all-reduce size and time missing")
	}
	pp := c.Rows[1].Report.Detail
	if !strings.Contains(md, decBytes(pp.P2PBytes)+" in "+static.Seconds(pp.P2PS)) {
		t.Errorf("PP-only send size and time missing")
	}
}

func TestMarkdownFrench(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	md := renderMarkdown(t, s, r, compare.Build(s), "fr")
	for _, w := range []string{
		"# Rapport splitscope", "## Durée d'une étape", "## Parallélisme de tenseurs ou de pipeline",
		"|  | **TP seul** | **PP seul** | **meilleur hybride** |", "| **ce qui est découpé** |",
		"| **communication par couche** |", "| **débit** |", "| **besoins d'interconnexion** |", "| **mémoire par GPU** |",
		WinnerMark,
	} {
		if !strings.Contains(md, w) {
			t.Errorf("French Markdown lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "what is split") {
		t.Error("French Markdown has English rows")
	}
}

func TestMarkdownInference(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) { s.Workload.Mode = model.Infer })
	md := renderMarkdown(t, s, r, compare.Build(s), "en")
	for _, w := range []string{"## Serve time", "## Inference", "| TTFT | " + static.Seconds(r.Inference.TTFT),
		"| **latency: TTFT** |", "| **latency: TPOT** |", "all-reduces of b·h per token", "per token per stage boundary"} {
		if !strings.Contains(md, w) {
			t.Errorf("inference Markdown lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "latency: step time") {
		t.Error("inference comparison shows a step time")
	}
}

func TestMarkdownEdgeCases(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) { s.Arch.ID = "evil<&>|model" })
	md := renderMarkdown(t, s, r, common.Compare{Err: errors.New("compare: 0 GPUs")}, "en")
	if !strings.Contains(md, "evil&lt;&amp;&gt;\\|model") {
		t.Errorf("model ID not escaped:\n%s", md)
	}
	if !strings.Contains(md, "no comparison: compare: 0 GPUs") {
		t.Errorf("compare error not said:\n%s", md)
	}
	// A contender that was never evaluated keeps its column, with dashes and its reason.
	c := compare.Build(scenario(t))
	c.Rows[2] = common.CompareRow{Name: compare.NameSearch, Reason: "no feasible layout"}
	md = renderMarkdown(t, s, r, c, "en")
	if cells := tableRow(t, md, "throughput"); cells[2] != "—" {
		t.Errorf("unevaluated contender's throughput %q", cells[2])
	}
	if cells := tableRow(t, md, "fits"); cells[2] != "✗ no feasible layout" {
		t.Errorf("unevaluated contender's fit %q", cells[2])
	}
	if !strings.Contains(md, "**best (search)**") {
		t.Error("contender name missing")
	}
}
