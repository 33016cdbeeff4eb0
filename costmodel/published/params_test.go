package published

import (
	"math"
	"testing"
)

// Every preset with a published parameter count is within 1% of it, in all and activated.
func TestPresetParams(t *testing.T) {
	checks, err := ParamChecks(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) < 5 {
		t.Fatalf("%d params checks, want the three Qwen3 totals and two active counts", len(checks))
	}
	for _, c := range checks {
		if e := math.Abs(c.RelErr()); e > c.Tolerance {
			t.Errorf("%s: %.4g params, published %.4g (%+.2f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr())
		}
	}
}
