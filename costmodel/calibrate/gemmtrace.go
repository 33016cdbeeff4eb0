package calibrate

import (
	"errors"
	"math"
	"sort"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// GEMMSample is one GEMM kernel measured alone in a trace: an M×K by K×N product took Seconds.
type GEMMSample struct {
	M, N, K, Seconds float64
}

// GEMMFit is the engine's GEMM curve, t = max(2MNK / (peak · Eff), bytes / BW) + Latency,
// fitted to a GPU's measured kernels (costmodel.GEMMSeconds is the built-in curve: the GPU's
// matmul efficiency and 6 µs).
type GEMMFit struct {
	// Shapes is the distinct shapes fitted (each at its kernels' median time), Kernels the
	// kernels they hold.
	Shapes, Kernels int
	// Eff is the fitted share of the peak a large GEMM reaches, in [0.05, 1]; Latency the
	// fitted fixed time per kernel, seconds in [0, 50 µs].
	Eff, Latency float64
	// BuiltinRMS and FittedRMS are the rms log errors (as fractions) of the built-in and the
	// fitted curve over the shapes.
	BuiltinRMS, FittedRMS float64
}

// MinGEMMShapes is the fewest distinct shapes FitGEMM fits two parameters on.
const MinGEMMShapes = 4

// FitGEMM fits the GEMM curve's efficiency and latency to samples measured on g in precision p:
// a grid over both, then a finer one around the best, minimising the rms log error of time over
// the distinct shapes. Fewer than MinGEMMShapes shapes, or a GPU without a rate, is an error.
func FitGEMM(g model.GPU, p model.Precision, samples []GEMMSample) (GEMMFit, error) {
	type key struct{ m, n, k float64 }
	by := map[key][]float64{}
	kernels := 0
	for _, s := range samples {
		if !(s.M > 0 && s.N > 0 && s.K > 0 && s.Seconds > 0) || math.IsInf(s.M*s.N*s.K+s.Seconds, 0) {
			continue
		}
		k := key{s.M, s.N, s.K}
		by[k] = append(by[k], s.Seconds)
		kernels++
	}
	if len(by) < MinGEMMShapes {
		return GEMMFit{}, errors.New("too few GEMM shapes to fit (record_shapes=True gives the CPU ops' Input Dims)")
	}
	peak, bw := g.Peak(p), g.HBMBandwidth*g.GEMMStreamEff()
	if !(peak > 0 && bw > 0) {
		return GEMMFit{}, errors.New("the GPU has no matmul rate or memory bandwidth")
	}
	type shape struct{ flops, bytes, t, builtin float64 }
	keys := make([]key, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.m != b.m {
			return a.m < b.m
		}
		if a.n != b.n {
			return a.n < b.n
		}
		return a.k < b.k
	})
	shapes := make([]shape, 0, len(keys))
	for _, k := range keys {
		ts := by[k]
		sort.Float64s(ts)
		med := ts[len(ts)/2]
		if len(ts)%2 == 0 {
			med = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
		}
		shapes = append(shapes, shape{flops: 2 * k.m * k.n * k.k, bytes: (k.m*k.k + k.k*k.n + k.m*k.n) * p.Bytes(), t: med,
			builtin: costmodel.GEMMSeconds(g, p, k.m, k.n, k.k)})
	}
	rms := func(eff, lat float64) float64 {
		s := 0.0
		for _, x := range shapes {
			pred := math.Max(x.flops/(peak*eff), x.bytes/bw) + lat
			d := math.Log(pred / x.t)
			s += d * d
		}
		return math.Sqrt(s / float64(len(shapes)))
	}
	bestE, bestL, best := 0.0, 0.0, math.Inf(1)
	search := func(e0, e1, de, l0, l1, dl float64) {
		for e := e0; e <= e1+1e-12; e += de {
			for l := l0; l <= l1+1e-15; l += dl {
				if r := rms(e, l); r < best {
					bestE, bestL, best = e, l, r
				}
			}
		}
	}
	search(0.05, 1, 0.01, 0, 50e-6, 0.5e-6)
	search(math.Max(bestE-0.01, 0.05), math.Min(bestE+0.01, 1), 0.0005, math.Max(bestL-0.5e-6, 0), math.Min(bestL+0.5e-6, 50e-6), 0.025e-6)
	var b float64
	for _, x := range shapes {
		d := math.Log(x.builtin / x.t)
		b += d * d
	}
	return GEMMFit{Shapes: len(shapes), Kernels: kernels, Eff: bestE, Latency: bestL,
		BuiltinRMS: math.Sqrt(b / float64(len(shapes))), FittedRMS: best}, nil
}

// Calibration is the fit as a calibration puts it on the GPU: the efficiency as that precision's
// matmul efficiency (compute_eff, or compute_eff_fp8 for fp8), the latency as the GEMM curve's
// per-kernel time, each held to the range a calibration file may take (model.CalComputeEff,
// model.CalGEMMLatency); clamped says which were moved to their range.
func (f GEMMFit) Calibration(p model.Precision) (c model.ServingCalibration, clamped []string) {
	eff := math.Min(math.Max(f.Eff, model.CalComputeEff.Min), model.CalComputeEff.Max)
	lat := math.Min(math.Max(f.Latency, model.CalGEMMLatency.Min), model.CalGEMMLatency.Max)
	key := "compute_eff"
	if p == model.FP8 {
		key = "compute_eff_fp8"
		c.ComputeEffFP8 = eff
	} else {
		c.ComputeEff = eff
	}
	if eff != f.Eff {
		clamped = append(clamped, key)
	}
	if lat != f.Latency {
		clamped = append(clamped, "gemm_latency_us")
	}
	c.GEMMLatency = lat
	return c, clamped
}
