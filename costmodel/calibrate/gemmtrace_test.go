package calibrate

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// TestFitGEMM: kernels timed by the curve itself at another efficiency and latency, with ±3%
// deterministic noise and three kernels a shape, give those parameters back, and the fit's error
// is below the built-in curve's.
func TestFitGEMM(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.GPU("h100-sxm")
	const eff, lat = 0.62, 9e-6
	var samples []GEMMSample
	i := 0
	for _, m := range []float64{128, 512, 2048, 8192} {
		for _, n := range []float64{1024, 4096, 14336} {
			for _, k := range []float64{4096, 8192} {
				flops, bytes := 2*m*n*k, (m*k+k*n+m*n)*2
				base := math.Max(flops/(g.Peak(model.BF16)*eff), bytes/(g.HBMBandwidth*g.MemoryEff)) + lat
				for r := 0; r < 3; r++ {
					i++
					samples = append(samples, GEMMSample{M: m, N: n, K: k, Seconds: base * (1 + 0.03*math.Sin(float64(i)))})
				}
			}
		}
	}
	f, err := FitGEMM(g, model.BF16, samples)
	if err != nil {
		t.Fatal(err)
	}
	if f.Shapes != 24 || f.Kernels != 72 {
		t.Errorf("%d shapes, %d kernels", f.Shapes, f.Kernels)
	}
	if math.Abs(f.Eff-eff) > 0.02 || math.Abs(f.Latency-lat) > 1e-6 {
		t.Errorf("fitted eff %.4f latency %.2f µs, want %.2f and %.1f µs", f.Eff, f.Latency*1e6, eff, lat*1e6)
	}
	if !(f.FittedRMS < 0.03 && f.FittedRMS < f.BuiltinRMS) {
		t.Errorf("rms log error %.3f fitted, %.3f built-in", f.FittedRMS, f.BuiltinRMS)
	}
	if _, err := FitGEMM(g, model.BF16, samples[:9]); err == nil {
		t.Error("three shapes fitted")
	}
}
