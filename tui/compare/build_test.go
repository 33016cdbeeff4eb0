package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
)

// buildCase is a scenario and what its comparison must hold beyond the rules every comparison
// keeps (checkRules).
type buildCase struct {
	name   string
	s      func(testing.TB) model.Scenario
	best   string // the best layout's label
	hybrid bool   // a best-hybrid column follows
	fits   [3]bool
}

var buildCases = []buildCase{
	// The first screen: the fastest layout is the hybrid itself, and PP alone does not fit.
	{"default llama-3-70b on 32 H100", defaultTrain, "best: TP 8 × PP 4", false, [3]bool{true, false, true}},
	// PP alone beats every hybrid over PCIe: the hybrid column is the fastest hybrid, next to it.
	{"tour/pcie", tourPCIe, "best (= PP only)", true, [3]bool{true, true, true}},
	{"tour/tp-node-pp-across", func(tb testing.TB) model.Scenario { return tourStep(tb, "tp-node-pp-across") },
		"best (= PP only)", true, [3]bool{true, true, true}},
	// Serving 8 requests: TP alone is the fastest.
	{"tour/inference", func(tb testing.TB) model.Scenario { return tourStep(tb, "inference") },
		"best (= TP only)", true, [3]bool{true, true, true}},
	{"llama-3-70b inference on 8 L40S", inferL40S, "", true, [3]bool{true, true, true}},
	{"llama-3-70b training on 8 H100: nothing fits", overH100, NameNone, false, [3]bool{}},
}

func TestBuildScenarios(t *testing.T) {
	for _, tc := range buildCases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s(t)
			c := Build(s)
			checkRules(t, s, c)
			if len(c.Rows) < 3 {
				t.Fatalf("%d rows", len(c.Rows))
			}
			if best := c.Rows[2].Name; tc.best != "" && best != tc.best {
				t.Errorf("best labelled %q, want %q", best, tc.best)
			}
			if got := c.Row(common.RowHybrid) >= 0; got != tc.hybrid {
				t.Errorf("hybrid column %v, want %v", got, tc.hybrid)
			}
			for i, want := range tc.fits {
				if c.Rows[i].Feasible != want {
					t.Errorf("%s: feasible %v (%s)", c.Rows[i].Name, c.Rows[i].Feasible, c.Rows[i].Reason)
				}
			}
		})
	}
}

// TestBuildPCIeBestIsFastest is the bug this tab had: on tour/pcie its third column was a hybrid
// 20% slower than PP only. The best column is now no slower than any other contender.
func TestBuildPCIeBestIsFastest(t *testing.T) {
	c := Build(tourPCIe(t))
	best := c.Rows[c.Row(common.RowBest)]
	for _, r := range c.Rows {
		if r.Feasible && r.Report.StepTime < best.Report.StepTime {
			t.Errorf("%s (%s) takes %.3g s, the best %.3g s", r.Name, common.SplitName(r.Layout), r.Report.StepTime, best.Report.StepTime)
		}
	}
	if h := c.Rows[c.Row(common.RowHybrid)]; h.Report.StepTime <= best.Report.StepTime {
		t.Errorf("the hybrid (%.3g s) should be slower than the best (%.3g s) here", h.Report.StepTime, best.Report.StepTime)
	}
}

// checkRules asserts what every comparison holds: the rows and their order, their labels, the
// best row being Search's top feasible layout, each class row the search's first feasible
// layout of its class, the hybrid row present exactly when the best is not a hybrid and one
// fits, and feasible rows with a fitting report and no reason, the others with a reason.
func checkRules(t *testing.T, s model.Scenario, c common.Compare) {
	t.Helper()
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	fix := costmodel.SearchFix{}.KeepKnobs()
	disagg := s.Workload.Mode == model.Infer && s.Workload.Concurrency == 0 && s.Cluster.GPUs >= 2
	fix.DisaggAuto = disagg
	res, err := costmodel.Search(s, costmodel.SearchOptions{Objective: objective, Fix: fix})
	if err != nil {
		t.Fatal(err)
	}
	if c.Searched != len(res.Candidates) {
		t.Errorf("searched %d, the search looked at %d", c.Searched, len(res.Candidates))
	}
	firstOf := func(in func(model.Layout) bool) (model.Layout, bool) {
		for _, cd := range res.Candidates {
			if cd.Feasible && in(cd.Layout) {
				return cd.Layout, true
			}
		}
		return model.Layout{}, false
	}
	kinds := []common.RowKind{common.RowTPOnly, common.RowPPOnly, common.RowBest}
	bestL, anyFits := firstOf(onePool)
	hyL, hyFits := firstOf(isHybrid)
	if anyFits && !isHybrid(bestL) && hyFits {
		kinds = append(kinds, common.RowHybrid)
	}
	// Serving in an open loop: the best disaggregated layout last, when one fits.
	disL, disFits := firstOf(isDisagg)
	if disagg && disFits {
		kinds = append(kinds, common.RowDisagg)
	}
	if len(c.Rows) != len(kinds) {
		t.Fatalf("%d rows, want %d", len(c.Rows), len(kinds))
	}
	for i, k := range kinds {
		if c.Rows[i].Kind != k {
			t.Errorf("row %d is kind %d, want %d", i, c.Rows[i].Kind, k)
		}
	}
	tp, pp, best := c.Rows[0], c.Rows[1], c.Rows[2]
	if tp.Name != NameTP || pp.Name != NamePP {
		t.Errorf("labels %q, %q", tp.Name, pp.Name)
	}
	for _, x := range []struct {
		row common.CompareRow
		in  func(model.Layout) bool
	}{{tp, classTP.in}, {pp, classPP.in}} {
		if want, ok := firstOf(x.in); ok && x.row.Layout != want {
			t.Errorf("%s is %s, the search's first of its kind %s", x.row.Name, common.SplitName(x.row.Layout), common.SplitName(want))
		} else if !ok && x.row.Feasible {
			t.Errorf("%s fits where the search finds none", x.row.Name)
		}
	}
	switch {
	case !anyFits:
		if best.Feasible || best.Name != NameNone || !strings.Contains(best.Reason, "closest") {
			t.Errorf("nothing fits, yet the best is %q (feasible %v, %q)", best.Name, best.Feasible, best.Reason)
		}
	case best.Layout != bestL:
		t.Errorf("best is %+v, the search's top layout %+v", best.Layout, bestL)
	case best.SameAs == common.RowTPOnly:
		if best.Name != "best (= TP only)" || best.Layout != tp.Layout {
			t.Errorf("best %q is TP only's layout? %v", best.Name, best.Layout == tp.Layout)
		}
	case best.SameAs == common.RowPPOnly:
		if best.Name != "best (= PP only)" || best.Layout != pp.Layout {
			t.Errorf("best %q is PP only's layout? %v", best.Name, best.Layout == pp.Layout)
		}
	default:
		if best.Name != "best: "+common.SplitName(bestL) || best.Layout == tp.Layout || best.Layout == pp.Layout {
			t.Errorf("best %q: not labelled by its layout, or repeats another", best.Name)
		}
	}
	if i := c.Row(common.RowHybrid); i >= 0 && (c.Rows[i].Name != NameHybrid || c.Rows[i].Layout != hyL) {
		t.Errorf("hybrid %q %+v, want the search's first hybrid %+v", c.Rows[i].Name, c.Rows[i].Layout, hyL)
	}
	if i := c.Row(common.RowDisagg); i >= 0 && (c.Rows[i].Layout != disL || c.Rows[i].Name != NameDisagg+": "+common.SplitName(disL)) {
		t.Errorf("disaggregated %q %+v, want the search's first disaggregated layout %+v", c.Rows[i].Name, c.Rows[i].Layout, disL)
	}
	for _, r := range c.Rows {
		switch {
		case r.Feasible && (r.Reason != "" || !r.Report.Memory.Fits || r.Report.TokensPerS <= 0):
			t.Errorf("%s: feasible with reason %q, fits %v, %v tok/s", r.Name, r.Reason, r.Report.Memory.Fits, r.Report.TokensPerS)
		case !r.Feasible && r.Reason == "":
			t.Errorf("%s: infeasible without a reason", r.Name)
		case r.Kind != common.RowDisagg && r.Feasible && best.Feasible && r.Report.StepTime < best.Report.StepTime*(1-1e-9):
			t.Errorf("%s is faster than the best", r.Name)
		}
	}
	// The sweep runs TP only's and PP only's layouts, interleaving as 1F1B.
	for _, x := range []struct{ swept, row model.Layout }{{c.CrossTP, tp.Layout}, {c.CrossPP, pp.Layout}} {
		want := x.row
		if want.Schedule == model.Interleaved {
			want.Schedule, want.Chunks = model.OneFOneB, 1
		}
		if x.swept != want {
			t.Errorf("swept %+v, want %+v", x.swept, want)
		}
	}
	if len(c.Cross) != len(CrossMicros) {
		t.Fatalf("%d cross points", len(c.Cross))
	}
	for i, p := range c.Cross {
		if p.Micro != CrossMicros[i] {
			t.Errorf("point %d: m = %d", i, p.Micro)
		}
	}
}

// TestBuildAwkwardModels: a model TP cannot split, a single GPU, no GPU and an invalid model give
// rows with reasons (or an error), not a panic.
func TestBuildAwkwardModels(t *testing.T) {
	s := trainH100(t)
	s.Arch.Heads, s.Arch.KVHeads, s.Arch.Hidden = 7, 7, 7*128 // no TP > 1 divides 7 heads
	c := Build(s)
	checkRules(t, s, c)
	if tp := c.Rows[0]; tp.Feasible || !strings.Contains(tp.Reason, "does not divide the 7 heads") {
		t.Errorf("TP only with 7 heads: feasible %v, %q", tp.Feasible, tp.Reason)
	}
	if b := c.Rows[2]; !b.Feasible || b.Layout.TP != 1 {
		t.Errorf("best with 7 heads: %q feasible %v", b.Name, b.Feasible)
	}

	one := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Infer, 1, 1)
	one.Cluster.GPUs, one.Cluster.GPUsPerNode, one.Cluster.NICsPerNode = 1, 1, 1
	one.Layout.DP, one.Layout.MicroBatch = 1, 8
	if err := one.Validate(); err != nil {
		t.Fatal(err)
	}
	c = Build(one)
	checkRules(t, one, c)
	for _, r := range c.Rows[:2] {
		if r.Feasible || !strings.HasPrefix(r.Reason, "no layout of 1 GPU has") {
			t.Errorf("one GPU: %s feasible %v, %q", r.Name, r.Feasible, r.Reason)
		}
	}
	if b := c.Rows[2]; !b.Feasible || b.Name != "best: 1 GPU" {
		t.Errorf("one GPU: best %q feasible %v (%s)", b.Name, b.Feasible, b.Reason)
	}

	bad := s
	bad.Cluster.GPUs = 0
	if c := Build(bad); c.Err == nil {
		t.Errorf("0 GPUs: no error")
	}
	bad = s
	bad.Arch.Layers = 0
	c = Build(bad)
	if c.Err != nil || len(c.Rows) != 3 {
		t.Fatalf("invalid model: %v, %d rows", c.Err, len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Feasible || !strings.Contains(r.Reason, "layers") {
			t.Errorf("invalid model: row %s feasible %v reason %q", r.Name, r.Feasible, r.Reason)
		}
	}
}

// TestBuildAgreesWithSearch: the tab's best is `splitscope search`'s (every knob free) on each
// scenario, or the tab carries search's best (Better) with the knobs it holds otherwise. On the
// first screen the panel's ZeRO 0 holds the contenders to 4.35 s where search finds 3.16 s.
func TestBuildAgreesWithSearch(t *testing.T) {
	for _, tc := range buildCases {
		s := tc.s(t)
		c := Build(s)
		res, err := costmodel.Search(s, costmodel.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bi := c.Row(common.RowBest)
		if res.Feasible == 0 {
			if c.Better.Feasible {
				t.Errorf("%s: search finds nothing, the tab offers %s", tc.name, c.Better.Name)
			}
			continue
		}
		want := res.Candidates[0]
		shown := func(r costmodel.Report) string {
			if r.Inference != nil {
				return static.Seconds(r.Inference.TTFT) + " " + static.Seconds(r.Inference.TPOT)
			}
			return static.Seconds(r.StepTime)
		}
		if c.Better.Feasible {
			if got := shown(c.Better.Report); got != shown(want.Report) {
				t.Errorf("%s: the tab offers search's best at %s, search finds %s", tc.name, got, shown(want.Report))
			}
			if len(c.Held) == 0 {
				t.Errorf("%s: search's best offered, no knob named as held", tc.name)
			}
			continue
		}
		if bi < 0 || !c.Rows[bi].Feasible || shown(c.Rows[bi].Report) != shown(want.Report) {
			t.Errorf("%s: the tab's best and search's differ (%+v vs %s), and the tab does not say so", tc.name, c.Rows[bi].Name, shown(want.Report))
		}
	}
	c := Build(defaultTrain(t))
	if !c.Better.Feasible || !slices.Contains(c.Held, "ZeRO 0") {
		t.Errorf("first screen: search's best %v, held %v; want it offered, holding ZeRO 0", c.Better.Feasible, c.Held)
	}
}
