package costmodel

import (
	"math"

	"github.com/splitscope/splitscope/model"
)

// The shape of a GEMM and what it reaches of the peak, measured kernel by kernel.
//
// A GEMM is timed as a roofline plus a fixed latency:
//
//	t(M, N, K) = max(2·M·N·K / R, (M·K + K·N + M·N)·e / BW) + gemmLatency
//
// with R the GPU's maximum achievable matmul rate (peak × compute_eff, SA's MAMF) and BW the
// streaming bandwidth (HBM × memory_eff). Its efficiency against R is therefore a curve in the
// GEMM's FLOPs, F / (F + F½) while compute-bound, whose half point F½ = R · gemmLatency grows
// with the GPU's rate: 4.8 GFLOP on an H100 SXM, 1.6 on an A100 SXM. Large GEMMs reach the MAMF
// (it is the best of them); small and skinny ones fall off as the launch, the pipeline's fill
// and drain and the epilogue's store stop being hidden, and low-intensity ones meet the
// memory roofline.
//
// gemmLatency is fitted on XLA's measured cuBLAS table for H100 (sm_90, bf16, 48 shapes of
// batch 1 from 256 to 4096 on each side) [XLA, §8.1]: 6.0 µs minimises the rms log error
// (10.6%), the mean |error| is 8.3%. It is the one constant of the curve; the other GPUs take
// the same latency (U: no per-shape table was read for them) and their own R and BW. A
// calibration fitted to a profiler trace's GEMM kernels (calibrate --from TRACE) gives its GPU
// its own latency (model.GPU.GEMMLatency) and efficiency; without one the built-in curve holds.
// The serving engine's GEMM kernels take that latency's difference from gemmLatency on top of
// the kernel floor (serving.go, gemmKernels): the floor was fitted under the built-in curve.
const gemmLatency = 6e-6

// BuiltinGEMMLatency is the built-in curve's fixed time per GEMM kernel, seconds (a GPU's
// GEMMLatency replaces it).
const BuiltinGEMMLatency = gemmLatency

// GEMMSeconds is the model's time of one M×K by K×N GEMM of e-byte elements on g in precision
// p, measured alone (as a benchmark times it): the roofline plus the fixed latency. Zero or
// negative sizes take no time; a GPU without a rate or a bandwidth takes none either.
func GEMMSeconds(g model.GPU, p model.Precision, m, n, k float64) float64 {
	if !(m > 0 && n > 0 && k > 0) || math.IsInf(m+n+k, 0) {
		return 0
	}
	r, bw := g.Peak(p)*g.MatmulEff(p), g.HBMBandwidth*g.GEMMStreamEff()
	if !(r > 0 && bw > 0) || math.IsInf(r, 0) || math.IsInf(bw, 0) {
		return 0
	}
	kn := gemm(m, k, n, p.Bytes())
	lat := gemmLatency
	if g.GEMMLatency > 0 {
		lat = g.GEMMLatency // a calibration's, fitted to this box's trace
	}
	return math.Max(kn.flops/r, kn.bytes/bw) + lat
}

// GEMMTFLOPS is 2·M·N·K over GEMMSeconds, in TFLOP/s: what a GEMM benchmark would report.
func GEMMTFLOPS(g model.GPU, p model.Precision, m, n, k float64) float64 {
	t := GEMMSeconds(g, p, m, n, k)
	if t <= 0 {
		return 0
	}
	return 2 * m * n * k / t / 1e12
}

// GEMMEfficiency is the share of the GPU's maximum achievable matmul rate (MAMF) a GEMM of
// that shape reaches alone: in (0, 1), rising with M, N and K.
func GEMMEfficiency(g model.GPU, p model.Precision, m, n, k float64) float64 {
	r := g.Peak(p) * g.MatmulEff(p)
	if r <= 0 {
		return 0
	}
	return GEMMTFLOPS(g, p, m, n, k) * 1e12 / r
}
