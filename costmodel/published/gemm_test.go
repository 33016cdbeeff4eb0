package published

import (
	"math"
	"testing"
)

// TestGEMMPublishedShapes: the curve on XLA's 48 measured H100 shapes, each within its
// tolerance (25%, 45% below 33 output tiles) and a mean |error| within 10%.
func TestGEMMPublishedShapes(t *testing.T) {
	cs := GEMMChecks(mustGPU(t, presets(t), "h100-sxm"))
	if len(cs) != 48 {
		t.Fatalf("%d shapes, want 48", len(cs))
	}
	sum := 0.0
	for _, c := range cs {
		sum += math.Abs(c.RelErr())
		if !c.Pass() {
			t.Errorf("%s: model %.1f, XLA %.1f TFLOP/s (%+.1f%%, tolerance %.0f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr(), 100*c.Tolerance)
		}
	}
	mean := sum / float64(len(cs))
	t.Logf("mean |error| %.1f%% over %d shapes", 100*mean, len(cs))
	if mean > 0.10 {
		t.Errorf("mean |error| %.1f%%, want ≤ 10%%", 100*mean)
	}
}
