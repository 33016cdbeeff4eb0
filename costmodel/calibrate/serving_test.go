package calibrate

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// oracleRuns are small serving runs of Llama-3-8B and Llama-2-7B (whose KV cache, without
// grouped queries, is four times larger a token) on one H100, each measured (its figures) by
// the model itself on the GPU truth: light and heavy load, short and long prompts and contexts,
// so that memory, compute and the step's overhead each show.
func oracleRuns(t *testing.T, truth func(model.GPU) model.GPU) []ServeRun {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	intra, _ := p.Link(g.NativeLink)
	inter, _ := p.Link(model.DefaultInter)
	predict := func(inf costmodel.Inference) []float64 {
		return []float64{inf.TTFT, inf.TPOT, inf.OutputTokensPerS}
	}
	var runs []ServeRun
	for _, w := range []struct {
		model                          string
		clients, prompt, gen, requests int
	}{
		{"llama-3-8b", 1, 128, 64, 6}, {"llama-3-8b", 1, 3000, 4, 4}, {"llama-3-8b", 48, 256, 64, 96},
		{"llama-2-7b", 1, 128, 64, 6}, {"llama-2-7b", 32, 3000, 64, 64},
	} {
		a, err := p.Model(w.model)
		if err != nil {
			t.Fatal(err)
		}
		s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
			Cluster:  model.Cluster{GPU: g, GPUs: 1, GPUsPerNode: 1, Intra: intra, Inter: inter, NICsPerNode: 1},
			Layout:   model.Layout{TP: 1, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
			Workload: model.Workload{Mode: model.Infer, PromptTokens: w.prompt, GenTokens: w.gen, Requests: w.requests, Precision: model.BF16, Concurrency: w.clients}}
		measured := s
		measured.Cluster.GPU = truth(g)
		rep, err := costmodel.EvaluateFast(measured)
		if err != nil || rep.Inference == nil {
			t.Fatalf("%+v: %v", w, err)
		}
		m := predict(*rep.Inference)
		runs = append(runs, ServeRun{Where: "synthetic", Scenario: s, Predict: predict,
			Figures: []ServeFigure{{"ttft_mean_s", m[0]}, {"tpot_mean_s", m[1]}, {"output_tokens_per_s", m[2]}}})
	}
	return runs
}

// An oracle: figures the model itself gives with known parameters are fitted back to them.
func TestFitServingRecoversKnownParameters(t *testing.T) {
	// A slower memory and slower matmuls than the preset's; the engine's overheads as they are.
	known := model.ServingCalibration{MemoryEff: 0.62, ComputeEff: 0.55}
	runs := oracleRuns(t, known.ApplyGPU)
	fit, err := FitServing(runs)
	if err != nil {
		t.Fatal(err)
	}
	step, floor := costmodel.ServingDefaults(runs[0].Scenario.Cluster.GPU)
	want := map[ServeParam]float64{MemoryEff: known.MemoryEff, ComputeEff: known.ComputeEff}
	for _, pf := range fit.Params {
		t.Logf("%s: %v → %v (%v, with %s) %+v", pf.Param.Key(), pf.Default, pf.Value, pf.Status, pf.With.Key(), pf.Figures)
		w, ok := want[pf.Param]
		if !ok {
			// The overheads were the engine's: fitted or not, they stay near them.
			d := map[ServeParam]float64{StepOverhead: step, KernelFloor: floor}[pf.Param]
			if math.Abs(math.Log(pf.Value/d)) > math.Log(1.25) {
				t.Errorf("%s fitted %.4g, the runs were made with %.4g", pf.Param.Key(), pf.Value, d)
			}
			continue
		}
		if pf.Status != ServeFitted {
			t.Errorf("%s not fitted (%v): these runs pin it down", pf.Param.Key(), pf.Status)
			continue
		}
		if math.Abs(pf.Value/w-1) > 0.05 {
			t.Errorf("%s fitted %.4g, the runs were made with %.4g", pf.Param.Key(), pf.Value, w)
		}
	}
	t.Logf("evaluations %d, before %+v after %+v", fit.Evaluations, fit.Before, fit.After)
	if fit.Before.Mean < 0.05 || fit.After.Mean > 0.01 {
		t.Errorf("mean |error| %.4f before, %.4f after: want a large one made small", fit.Before.Mean, fit.After.Mean)
	}
}

// Figures no box could give (decode three times faster than the memory's whole bandwidth) stop
// the fit at the bounds: never outside them, and said.
func TestFitServingStaysInBounds(t *testing.T) {
	runs := oracleRuns(t, func(g model.GPU) model.GPU { return g })
	for i := range runs {
		for j := range runs[i].Figures {
			if runs[i].Figures[j].Name == "output_tokens_per_s" {
				runs[i].Figures[j].Measured *= 3
			} else {
				runs[i].Figures[j].Measured /= 3
			}
		}
	}
	fit, err := FitServing(runs)
	if err != nil {
		t.Fatal(err)
	}
	bound := false
	for _, pf := range fit.Params {
		if !pf.Range.Contains(pf.Value) {
			t.Errorf("%s = %g outside %+v", pf.Param.Key(), pf.Value, pf.Range)
		}
		bound = bound || pf.Bound != ""
	}
	if !bound {
		t.Errorf("no parameter at a bound: %+v", fit.Params)
	}
	c := fit.Calibration
	for _, v := range []struct {
		x float64
		r model.Range
	}{{c.MemoryEff, model.CalMemoryEff}, {c.ComputeEff, model.CalComputeEff}, {c.StepOverhead, model.CalStepOverhead}, {c.KernelFloor, model.CalKernelFloor}} {
		if v.x != 0 && !v.r.Contains(v.x) {
			t.Errorf("calibration %+v outside the ranges", c)
		}
	}
}

func TestFitServingRefusesMixedBoxes(t *testing.T) {
	if _, err := FitServing(nil); err != ErrNoRuns {
		t.Errorf("no runs: %v", err)
	}
	runs := oracleRuns(t, func(g model.GPU) model.GPU { return g })[:2]
	runs[1].Scenario.Cluster.GPU.ID = "a100-sxm-80gb"
	if _, err := FitServing(runs); err == nil {
		t.Error("runs on two GPUs fitted as one box")
	}
}

// The fit is deterministic: the same runs give the same parameters, bit for bit.
func TestFitServingDeterministic(t *testing.T) {
	known := model.ServingCalibration{MemoryEff: 0.7, ComputeEff: 0.6}
	a, err := FitServing(oracleRuns(t, known.ApplyGPU))
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitServing(oracleRuns(t, known.ApplyGPU))
	if err != nil {
		t.Fatal(err)
	}
	if a.Calibration != b.Calibration || a.Evaluations != b.Evaluations || a.After != b.After {
		t.Errorf("two fits of the same runs: %+v %+v, %+v %+v", a.Calibration, a.After, b.Calibration, b.After)
	}
}
