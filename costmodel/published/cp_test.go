package published

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Every row of the cp group is within its tolerance, and the rows are what they say: CP above
// 1, the GPUs TP × CP × DP, long sequences.
func TestCPChecks(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	checks, err := CPChecks(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(CPTrainRuns()) {
		t.Fatalf("%d checks for %d rows", len(checks), len(CPTrainRuns()))
	}
	for _, c := range checks {
		if !c.Pass() {
			t.Errorf("%s: published %.0f, model %.1f (%+.1f%%, tolerance %.0f%%)", c.Case, c.Published, c.Predicted, 100*c.RelErr(), 100*c.Tolerance)
		}
	}
	// The checks hold because the exchange hides behind the attention, not by construction:
	// all-gathered K/V (exposed) on the same rows predicts less at every row.
	for _, r := range CPTrainRuns() {
		s, err := CPScenario(r, p)
		if err != nil {
			t.Fatal(err)
		}
		ring, err := costmodel.EvaluateFast(s)
		if err != nil {
			t.Fatal(err)
		}
		s.Layout.CPComm = model.CPAllGather
		ag, err := costmodel.EvaluateFast(s)
		if err != nil {
			t.Fatal(err)
		}
		if !(ag.ModelTFLOPS < ring.ModelTFLOPS) || ag.Breakdown.CPComm <= 0 {
			t.Errorf("%s: all-gather %.1f TFLOP/s (exposed %.3g s), ring %.1f", r.ID, ag.ModelTFLOPS, ag.Breakdown.CPComm, ring.ModelTFLOPS)
		}
	}
}
