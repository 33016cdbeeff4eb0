package published

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// DeepEP's internode rows [DEP] are within their tolerance with the two-hop dispatch, and the
// two hops are what gets them there: timed as a direct all-to-all (every copy of a token on the
// network), the same bytes DEP counts move at under 70% of the published rate on every row.
func TestDeepEPChecks(t *testing.T) {
	p := presets(t)
	checks, err := DeepEPChecks(p)
	if err != nil {
		t.Fatal(err)
	}
	rows := DeepEPRows()
	if len(checks) != len(rows) {
		t.Fatalf("%d checks for %d rows", len(checks), len(rows))
	}
	for i, c := range checks {
		t.Logf("%s: published %.3g, model %.3g (%+.1f%%)", c.Case, c.Published, c.Predicted, 100*c.RelErr())
		if !c.Pass() || c.Tolerance != deepEPTolerance || c.Group != "moe" {
			t.Errorf("%s: model %.1f, published %.1f (%+.1f%%, tolerance %.0f%%, group %q)", c.Case, c.Predicted, c.Published, 100*c.RelErr(), 100*c.Tolerance, c.Group)
		}
		a, cl, l, e, err := DeepEPScenario(rows[i], p)
		if err != nil {
			t.Fatal(err)
		}
		two, _ := costmodel.EPAllToAllTime(a, cl, l, deepEPTokens, e)
		l.EPDispatch = model.EPDispatchDirect
		direct, _ := costmodel.EPAllToAllTime(a, cl, l, deepEPTokens, e)
		if !(two > 0) || !(direct > 0) {
			t.Fatalf("%s: times %g (two-hop), %g (direct)", c.Case, two, direct)
		}
		t.Logf("  timed direct: %.1f GB/s", c.Predicted*two/direct)
		if got := c.Predicted * two / direct; got > 0.7*c.Published {
			t.Errorf("%s: direct dispatch reaches %.1f GB/s of DEP's count, published %.1f: the two hops should matter", c.Case, got, c.Published)
		}
	}
}

// DeepEP's low-latency rows [DEP] are within their tolerance with every copy sent at once
// behind one floor, and that is what gets them there: the direct all-to-all, one handshake a
// peer, is over twice the published latency from EP 128 on.
func TestDeepEPLowLatencyChecks(t *testing.T) {
	p := presets(t)
	checks, err := DeepEPLowLatencyChecks(p)
	if err != nil {
		t.Fatal(err)
	}
	rows := DeepEPLowLatencyRows()
	if len(checks) != len(rows) {
		t.Fatalf("%d checks for %d rows", len(checks), len(rows))
	}
	for i, c := range checks {
		t.Logf("%s: published %.3g, model %.3g (%+.1f%%)", c.Case, c.Published, c.Predicted, 100*c.RelErr())
		if !c.Pass() || c.Group != "moe" {
			t.Errorf("%s: model %.3g s, published %.3g (%+.1f%%, tolerance %.0f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr(), 100*c.Tolerance)
		}
		a, cl, l, e, err := DeepEPScenario(DeepEPRow{EP: rows[i].EP, Combine: rows[i].Combine}, p)
		if err != nil {
			t.Fatal(err)
		}
		l.EPDispatch = model.EPDispatchDirect
		direct, _ := costmodel.EPAllToAllTime(a, cl, l, deepEPLowLatencyTokens, e)
		if rows[i].EP >= 128 && direct < 2*c.Published {
			t.Errorf("%s: the direct all-to-all takes %.3g s against %.3g published: the low-latency kernels should matter", c.Case, direct, c.Published)
		}
	}
}
