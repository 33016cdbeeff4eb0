package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestGEMMCurveHandChecked: 4096³ bf16 on the H100 preset, worked by hand: 2·4096³ = 137.44
// GFLOP at 989 × 0.803 = 794.2 TFLOP/s is 173.06 µs; 3·4096²·2 B = 100.7 MB at 3350 × 0.85 GB/s
// is 35.4 µs; compute-bound, plus 6 µs: 179.06 µs, 767.6 TFLOP/s (XLA measured 786.0).
func TestGEMMCurveHandChecked(t *testing.T) {
	g := mustGPU(t, presets(t), "h100-sxm")
	f := 2 * math.Pow(4096, 3)
	want := f / (f/(989e12*0.803) + 6e-6) / 1e12
	got := GEMMTFLOPS(g, model.BF16, 4096, 4096, 4096)
	if math.Abs(got/want-1) > 1e-9 {
		t.Errorf("4096³ on H100: %.4f TFLOP/s, want %.4f", got, want)
	}
	if math.Abs(got-767.6) > 0.05 {
		t.Errorf("4096³ on H100: %.2f TFLOP/s, hand-checked 767.6", got)
	}
}

// TestGEMMCurveShape: the efficiency lies in (0, 1) of the MAMF, never falls as any of M, N or
// K grows, and tends to 1 for large GEMMs; bad sizes take no time and give no NaN.
func TestGEMMCurveShape(t *testing.T) {
	p := presets(t)
	for _, id := range []string{"a100-sxm-80gb", "h100-sxm", "b200", "mi300x", "rtx-4090", "l4"} {
		g := mustGPU(t, p, id)
		for _, prec := range []model.Precision{model.BF16, model.FP8} {
			dims := []float64{1, 8, 64, 256, 1024, 4096, 16384, 65536}
			for _, m := range dims {
				for _, n := range dims {
					prev := 0.0
					for _, k := range dims {
						e := GEMMEfficiency(g, prec, m, n, k)
						if !(e > 0 && e < 1) {
							t.Fatalf("%s %v %g×%g×%g: efficiency %g outside (0, 1)", id, prec, m, n, k, e)
						}
						if e < prev*(1-1e-12) {
							t.Errorf("%s %v %g×%g×%g: efficiency %g fell from %g as K grew", id, prec, m, n, k, e, prev)
						}
						prev = e
						if m < 65536 && GEMMEfficiency(g, prec, 2*m, n, k) < e*(1-1e-12) {
							t.Errorf("%s %v: efficiency fell as M grew from %g (N %g, K %g)", id, prec, m, n, k)
						}
						if n < 65536 && GEMMEfficiency(g, prec, m, 2*n, k) < e*(1-1e-12) {
							t.Errorf("%s %v: efficiency fell as N grew from %g (M %g, K %g)", id, prec, n, m, k)
						}
					}
				}
			}
			if e := GEMMEfficiency(g, prec, 65536, 65536, 65536); e < 0.99 {
				t.Errorf("%s %v: a 65536³ GEMM reaches %.3f of the MAMF, want ≥ 0.99", id, prec, e)
			}
		}
		for _, bad := range [][3]float64{{0, 1, 1}, {-1, 4, 4}, {math.NaN(), 4, 4}, {4, math.Inf(-1), 4}} {
			if s := GEMMSeconds(g, model.BF16, bad[0], bad[1], bad[2]); s != 0 {
				t.Errorf("%s: GEMMSeconds%v = %g, want 0", id, bad, s)
			}
			if e := GEMMEfficiency(g, model.BF16, bad[0], bad[1], bad[2]); e != 0 || math.IsNaN(e) {
				t.Errorf("%s: GEMMEfficiency%v = %g, want 0", id, bad, e)
			}
		}
	}
	if s := GEMMSeconds(model.GPU{}, model.BF16, 4, 4, 4); s != 0 {
		t.Errorf("a GPU without a rate: %g s, want 0", s)
	}
}
