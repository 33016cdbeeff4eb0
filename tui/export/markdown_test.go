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
		"## Tensor vs pipeline parallelism", "|  | **TP only** | **PP only** | **" + c.Rows[2].Name + "** |",
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
	if len(c.Rows) < 3 {
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
		for i, cell := range cells {
			if strings.Contains(cell, WinnerMark) && !c.Rows[i].Feasible {
				t.Errorf("%s: %s marked but does not fit", row.label, c.Rows[i].Name)
			}
		}
		marks := strings.Count(strings.Join(cells, "|"), WinnerMark)
		if marks < 1 || marks > 3 {
			t.Errorf("%s: %d winner marks: %q", row.label, marks, cells)
		}
	}
	// Qualitative rows have no winner.
	if cells := tableRow(t, md, "what is split"); strings.Contains(strings.Join(cells, ""), WinnerMark) {
		t.Errorf("what is split has a winner: %q", cells)
	}
	// Actual bytes and times from the contenders' reports.
	tp := c.Rows[0].Report.Detail
	if !strings.Contains(md, static.Bytes(tp.TPAllReduceBytes)+" in "+static.Seconds(tp.TPAllReduceS)) {
		t.Errorf("TP-only all-reduce size and time missing")
	}
	// With the algorithm and protocol it runs, as the Tensor tab names them.
	if _, res, ok := static.UseResult(tp.TPCollective); !ok || !strings.Contains(md, static.Seconds(tp.TPAllReduceS)+" ("+static.AlgoProto(res.Algo, res.Proto)+")") {
		t.Errorf("TP-only all-reduce algorithm (%s/%s) missing", tp.TPCollective.Algorithm, tp.TPCollective.Protocol)
	}
	pp := c.Rows[1].Report
	if !strings.Contains(md, static.Bytes(pp.PPSendBytesPerGPU())+" in "+static.Seconds(pp.Detail.P2PS)) {
		t.Errorf("PP-only send size and time missing")
	}
}

func TestMarkdownFrench(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	md := renderMarkdown(t, s, r, compare.Build(s), "fr")
	for _, w := range []string{
		"# Rapport splitscope", "## Durée d'une étape", "## Parallélisme de tenseurs ou de pipeline",
		"|  | **TP seul** | **PP seul** | **meilleur", "| **ce qui est découpé** |",
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
	c.Rows[2] = common.CompareRow{Kind: common.RowBest, Name: compare.NameNone, Reason: "no feasible layout"}
	md = renderMarkdown(t, s, r, c, "en")
	if cells := tableRow(t, md, "throughput"); cells[2] != "—" {
		t.Errorf("unevaluated contender's throughput %q", cells[2])
	}
	if cells := tableRow(t, md, "fits"); cells[2] != "✗ no feasible layout" {
		t.Errorf("unevaluated contender's fit %q", cells[2])
	}
	if !strings.Contains(md, "**best: none fits**") {
		t.Error("contender name missing")
	}
}

// TestMarkdownLabels: the table's columns carry the Compare tab's labels (translated in French),
// a layout that does not fit shows its reason instead of numbers, and the best layout listed
// twice (PP only's) stars with its twin.
func TestMarkdownLabels(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	c := compare.Build(s)
	gib := float64(model.GiB)
	rep := func(step, tps, mem float64) costmodel.Report {
		return costmodel.Report{Layout: costmodel.LayoutSummary{TP: 1, PP: 8, DP: 1}, StepTime: step, TokensPerS: tps,
			Memory: costmodel.Memory{Total: mem * gib, Capacity: 80 * gib, Fits: mem <= 80}}
	}
	tp := common.CompareRow{Kind: common.RowTPOnly, Name: compare.NameTP, Layout: model.Layout{TP: 8, PP: 1, DP: 1},
		Report: rep(3, 1000, 90), Reason: "over memory by 10.0 GiB (stage 0)"}
	pp := common.CompareRow{Kind: common.RowPPOnly, Name: compare.NamePP, Layout: model.Layout{TP: 1, PP: 8, DP: 1},
		Report: rep(5, 600, 60), Feasible: true}
	best := pp
	best.Kind, best.Name, best.SameAs = common.RowBest, "best (= PP only)", common.RowPPOnly
	hy := common.CompareRow{Kind: common.RowHybrid, Name: compare.NameHybrid, Layout: model.Layout{TP: 2, PP: 4, DP: 1},
		Report: rep(6, 500, 50), Feasible: true}
	c.Rows = []common.CompareRow{tp, pp, best, hy}
	for _, tc := range []struct {
		lang, head, throughput, fits string
	}{
		{"en", "|  | **TP only** | **PP only** | **best (= PP only)** | **best hybrid** |", "throughput", "fits"},
		{"fr", "|  | **TP seul** | **PP seul** | **meilleur (= PP seul)** | **meilleur hybride** |", "débit", "tient en mémoire"},
	} {
		md := renderMarkdown(t, s, r, c, tc.lang)
		if !strings.Contains(md, tc.head) {
			t.Errorf("%s: no header %q in\n%s", tc.lang, tc.head, md)
		}
		cells := tableRow(t, md, tc.throughput)
		if cells[0] != "—" {
			t.Errorf("%s: TP only does not fit, yet its throughput reads %q", tc.lang, cells[0])
		}
		if !strings.HasSuffix(cells[1], WinnerMark) || !strings.HasSuffix(cells[2], WinnerMark) || strings.HasSuffix(cells[3], WinnerMark) {
			t.Errorf("%s: throughput marks %q, want PP only and its twin", tc.lang, cells)
		}
		if f := tableRow(t, md, tc.fits); !strings.Contains(f[0], "over memory by "+Numbers(tc.lang)("10.0 GiB")) {
			t.Errorf("%s: TP only's reason missing: %q", tc.lang, f)
		}
	}
	// The sweep ran PP only as 1F1B, its column being interleaved: the export says so.
	c.Cross = []common.CrossPoint{{Micro: 1, TP: 1, PP: 1}}
	c.CrossPP = c.Rows[1].Layout
	for _, sched := range []model.Schedule{model.OneFOneB, model.Interleaved} {
		for _, i := range []int{1, 2} {
			c.Rows[i].Layout.Schedule = sched
		}
		md := renderMarkdown(t, s, r, c, "en")
		if got, want := strings.Contains(md, "PP only runs 1f1b in this sweep"), sched == model.Interleaved; got != want {
			t.Errorf("PP only %s, swept 1f1b: note %v", sched, got)
		}
	}
	// PP only and its twin alone fit: one layout, starred in both columns (counted twice they
	// would tie and no row would have a winner).
	c.Rows = c.Rows[:3]
	if cells := tableRow(t, renderMarkdown(t, s, r, c, "en"), "throughput"); !strings.HasSuffix(cells[1], WinnerMark) || !strings.HasSuffix(cells[2], WinnerMark) {
		t.Errorf("the one layout that fits is not starred: %q", cells)
	}
	c.Rows[2] = hy
	c.Rows[2].Kind, c.Rows[2].Name = common.RowBest, "best: TP 2 × PP 4"
	if md := renderMarkdown(t, s, r, c, "fr"); !strings.Contains(md, "**meilleur : TP 2 × PP 4**") {
		t.Errorf("French best label missing:\n%s", md)
	}
}

// The comparison's ★ follows ties as the Compare tab marks them: cells that read the same are
// all marked or none is (serving's memory row reads one figure in every column).
func TestMarkdownStarsFollowTies(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) { s.Workload.Mode = model.Infer })
	md := renderMarkdown(t, s, r, compare.Build(s), "en")
	rows := 0
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "| **") || !strings.Contains(l, WinnerMark) {
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(l, "| "), " | ")[1:]
		starred := map[string]bool{}
		for _, c := range cells {
			if strings.Contains(c, WinnerMark) {
				starred[strings.Trim(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c), WinnerMark)), "*")] = true
			}
		}
		for _, c := range cells {
			plain := strings.Trim(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c), WinnerMark)), "*")
			if starred[plain] && !strings.Contains(c, WinnerMark) {
				t.Errorf("%q reads as a starred cell but has no %s: %s", plain, WinnerMark, l)
			}
		}
	}
	if rows == 0 {
		t.Fatalf("no starred row in:\n%s", md)
	}
}
