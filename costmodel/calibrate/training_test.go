package calibrate

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// trainOracle is training runs on gpu in precision p, each measured (its step time, TFLOP/s and
// tokens/s per GPU) by the model itself on truth's GPU: the fit must find truth's efficiency.
func trainOracle(t *testing.T, gpu string, p model.Precision, truth func(model.GPU) model.GPU) []TrainRun {
	t.Helper()
	ps, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, err := ps.GPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	intra, _ := ps.Link(g.NativeLink)
	inter, _ := ps.Link(model.DefaultInter)
	var runs []TrainRun
	for _, w := range []struct {
		model         string
		tp, pp, dp, b int
	}{{"llama-2-7b", 2, 2, 2, 32}, {"llama-3-8b", 8, 1, 1, 16}, {"llama-2-13b", 4, 2, 1, 64}} {
		a, err := ps.Model(w.model)
		if err != nil {
			t.Fatal(err)
		}
		s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
			Cluster:  model.Cluster{GPU: g, GPUs: 8, GPUsPerNode: 8, Intra: intra, Inter: inter, NICsPerNode: 8},
			Layout:   model.Layout{TP: w.tp, PP: w.pp, DP: w.dp, Chunks: 1, MicroBatch: 1, Recompute: model.RecomputeFull},
			Workload: model.Workload{Mode: model.Train, Seq: 2048, GlobalBatch: w.b, Precision: p}}
		measured := s
		measured.Cluster.GPU = truth(g)
		rep, err := costmodel.Evaluate(measured)
		if err != nil {
			t.Fatalf("%+v: %v", w, err)
		}
		var figs []ServeFigure
		for _, name := range []string{"step_time_s", "tflops_per_gpu", "tokens_per_s_per_gpu", "peak_memory_bytes"} {
			v, _ := TrainPredicted(name, measured, rep)
			figs = append(figs, ServeFigure{name, v})
		}
		runs = append(runs, TrainRun{Where: w.model, Scenario: s, Figures: figs})
	}
	return runs
}

// An oracle: bf16 runs on an A100 measured at 52% of peak, fp8 ones on an H100 at 41%, are fitted
// back to those efficiencies, and their figures to the measured ones.
func TestFitTrainingRecoversEfficiency(t *testing.T) {
	for _, tc := range []struct {
		gpu  string
		p    model.Precision
		key  string
		want float64
	}{{"a100-sxm-80gb", model.BF16, "compute_eff", 0.52}, {"h100-sxm", model.FP8, "compute_eff_fp8", 0.41}} {
		runs := trainOracle(t, tc.gpu, tc.p, func(g model.GPU) model.GPU {
			if tc.p == model.FP8 {
				g.ComputeEffFP8 = tc.want
			} else {
				g.ComputeEff = tc.want
			}
			return g
		})
		fit, err := FitTraining(runs)
		if err != nil {
			t.Fatal(err)
		}
		if len(fit.Params) != 1 || fit.Params[0].Key != tc.key || !fit.Params[0].Fitted {
			t.Fatalf("%s: params %+v", tc.gpu, fit.Params)
		}
		got := fit.Params[0].Value
		if math.Abs(got/tc.want-1) > 0.01 {
			t.Errorf("%s %s: fitted %.4f, truth %.4f", tc.gpu, tc.key, got, tc.want)
		}
		// Step time and tokens/s fitted (6), TFLOP/s shown beside them (3), all back on the truth.
		if fit.Before.Mean < 0.03 || fit.After.Mean > 0.005 || fit.After.N != 6 || len(fit.Figures) != 9 {
			t.Errorf("%s: mean |error| %.4f -> %.4f over %d figures of %d", tc.gpu, fit.Before.Mean, fit.After.Mean, fit.After.N, len(fit.Figures))
		}
		for i, f := range fit.Figures {
			if fit.Fitted[i] == (f.Name == "tflops_per_gpu") || math.Abs(f.AfterErr) > 0.005 {
				t.Errorf("%s: %s fitted %v, error after %+.4f", tc.gpu, f.Name, fit.Fitted[i], f.AfterErr)
			}
		}
		cal := fit.Calibration
		if tc.p == model.FP8 && (cal.ComputeEffFP8 != got || cal.ComputeEff != 0) || tc.p != model.FP8 && (cal.ComputeEff != got || cal.ComputeEffFP8 != 0) {
			t.Errorf("%s: calibration %+v", tc.gpu, cal)
		}
	}
}

// Bounds: runs measured at 5% of peak (a starved GPU) stop at the lower bound, said.
func TestFitTrainingStopsAtBound(t *testing.T) {
	runs := trainOracle(t, "a100-sxm-80gb", model.BF16, func(g model.GPU) model.GPU { g.ComputeEff = 0.05; return g })
	fit, err := FitTraining(runs)
	if err != nil {
		t.Fatal(err)
	}
	if pf := fit.Params[0]; pf.Bound != "lower" || pf.Value != model.CalComputeEff.Min {
		t.Errorf("%+v", pf)
	}
	mixed := append(runs, trainOracle(t, "h100-sxm", model.BF16, func(g model.GPU) model.GPU { return g })...)
	if _, err := FitTraining(mixed); err == nil {
		t.Error("runs of two GPUs fitted together")
	}
}
