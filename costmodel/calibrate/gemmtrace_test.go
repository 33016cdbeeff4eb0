package calibrate

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
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

// TestGEMMCalibration: the fit of kernels timed at 62% of peak and 9 µs, put on the H100 as a
// calibration, makes the engine's GEMM time (costmodel.GEMMSeconds) those kernels' within 2%;
// the H100 without it keeps the built-in curve (its 6 µs).
func TestGEMMCalibration(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.GPU("h100-sxm")
	truth := g
	truth.ComputeEff, truth.ComputeEffFP8, truth.GEMMLatency = 0.62, 0, 9e-6
	var samples []GEMMSample
	for _, m := range []float64{128, 512, 2048, 8192} {
		for _, n := range []float64{1024, 4096, 14336} {
			samples = append(samples, GEMMSample{M: m, N: n, K: 4096, Seconds: costmodel.GEMMSeconds(truth, model.BF16, m, n, 4096)})
		}
	}
	f, err := FitGEMM(g, model.BF16, samples)
	if err != nil {
		t.Fatal(err)
	}
	c, clamped := f.Calibration(model.BF16)
	if len(clamped) > 0 || c.ComputeEffFP8 != 0 || c.ComputeEff != f.Eff || c.GEMMLatency != f.Latency {
		t.Fatalf("calibration %+v, clamped %v", c, clamped)
	}
	cal := c.ApplyGPU(g)
	for _, s := range samples {
		if got := costmodel.GEMMSeconds(cal, model.BF16, s.M, s.N, s.K); math.Abs(got/s.Seconds-1) > 0.02 {
			t.Errorf("%gx%gx%g: %.2f µs calibrated, measured %.2f µs", s.M, s.N, s.K, got*1e6, s.Seconds*1e6)
		}
	}
	// The built-in curve: a tiny GEMM is its latency, 6 µs, on the uncalibrated H100.
	if got := costmodel.GEMMSeconds(g, model.BF16, 1, 1, 1); math.Abs(got-6e-6) > 1e-9 {
		t.Errorf("built-in tiny GEMM %.3f µs", got*1e6)
	}
	if got := costmodel.GEMMSeconds(cal, model.BF16, 1, 1, 1); math.Abs(got-c.GEMMLatency) > 1e-9 {
		t.Errorf("calibrated tiny GEMM %.3f µs, latency %.3f µs", got*1e6, c.GEMMLatency*1e6)
	}
	// An fp8 fit is fp8's efficiency; a latency under the range is held to it, said.
	f.Latency = 0
	c8, clamped := f.Calibration(model.FP8)
	if c8.ComputeEff != 0 || c8.ComputeEffFP8 != f.Eff || c8.GEMMLatency != model.CalGEMMLatency.Min || len(clamped) != 1 {
		t.Errorf("fp8: %+v %v", c8, clamped)
	}
}
