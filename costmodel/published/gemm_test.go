package published

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
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

// TestAmpereLinearLayers: the curve with Ampere's matmul streaming efficiency (the presets'
// gemm_memory_eff) on NMLB's 84 measured fp16 linear layers at 1 to 64 tokens, each within 15%
// and a median |error| within 5%; at memory_eff (0.85) instead, the layers come out short.
func TestAmpereLinearLayers(t *testing.T) {
	p := presets(t)
	gpus := map[string]model.GPU{}
	for _, id := range []string{"a100-sxm-80gb", "a10g"} {
		g := mustGPU(t, p, id)
		if g.GEMMMemoryEff != 0.77 {
			t.Errorf("%s gemm_memory_eff %g, want 0.77", id, g.GEMMMemoryEff)
		}
		gpus[id] = g
	}
	medianErr := func(cs []Check) float64 {
		var errs []float64
		for _, c := range cs {
			errs = append(errs, math.Abs(c.RelErr()))
		}
		return median(errs)
	}
	cs := AmpereGEMMChecks(gpus)
	if len(cs) != 84 {
		t.Fatalf("%d rows, want 84", len(cs))
	}
	for _, c := range cs {
		if !c.Pass() {
			t.Errorf("%s: model %.1f µs, measured %.1f (%+.1f%%)", c.Case, 1e6*c.Predicted, 1e6*c.Published, 100*c.RelErr())
		}
	}
	m := medianErr(cs)
	t.Logf("median |error| %.1f%% over %d layers", 100*m, len(cs))
	if m > 0.05 {
		t.Errorf("median |error| %.1f%%, want ≤ 5%%", 100*m)
	}
	for id, g := range gpus {
		g.GEMMMemoryEff = 0
		gpus[id] = g
	}
	short := 0
	for _, c := range AmpereGEMMChecks(gpus) {
		if c.RelErr() < -0.05 {
			short++
		}
	}
	if short < 60 {
		t.Errorf("at memory_eff only %d of 84 layers are 5%% short or more; the streaming efficiency would not be needed", short)
	}
}
