package calibrate

import (
	"errors"
	"fmt"
	"math"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Training: the GPU's matmul efficiency fitted to the step times and TFLOP/s of the user's
// training logs (calibrate --from with Megatron's or torchtitan's logs). A training step on one
// GPU preset is, to the model, its matmuls at ComputeEff of peak plus what does not scale with
// it (communication, the pipeline's bubble, memory-bound kernels); one efficiency per number
// format (ComputeEff for bf16/fp16, ComputeEffFP8 for fp8 runs on a GPU with an fp8 peak) is
// searched in model.CalComputeEff to minimise the mean |log error| of the runs' step times and
// tokens/s (TFLOP/s where a log has neither); every timed figure is shown before and after.

// TrainRun is one training log as the fit takes it: the scenario validate --against evaluates
// it as, and its figures (step_time_s, tflops_per_gpu, tokens_per_s_per_gpu).
type TrainRun struct {
	Where    string
	Scenario model.Scenario
	Figures  []ServeFigure
}

// TrainPredicted is the model's value of a training log's figure: the step time, model
// TFLOP/s per GPU, tokens/s per GPU (the job's over its GPUs) and the peak memory of the fullest
// GPU without the reserve (PyTorch's counters do not see the CUDA context). ok is false for a
// figure the model does not give.
func TrainPredicted(name string, s model.Scenario, r costmodel.Report) (float64, bool) {
	switch name {
	case "step_time_s":
		return r.StepTime, true
	case "tflops_per_gpu":
		return r.ModelTFLOPS, true
	case "tokens_per_s_per_gpu":
		return r.TokensPerS / float64(max(s.Cluster.GPUs, 1)), true
	case "peak_memory_bytes":
		return r.Memory.Total - r.Memory.Reserved, true
	}
	return 0, false
}

// TrainTimed says whether a figure moves with the matmul efficiency (peak memory does not).
func TrainTimed(name string) bool {
	return name == "step_time_s" || name == "tflops_per_gpu" || name == "tokens_per_s_per_gpu"
}

// TrainParamFit is one number format's efficiency.
type TrainParamFit struct {
	Key     string // "compute_eff" or "compute_eff_fp8", the calibration file's key
	Runs    int    // how many runs are in this number format
	Default float64
	Value   float64 // fitted; Default when not
	Range   model.Range
	Fitted  bool
	Bound   string // "lower" or "upper" when the fit stopped at a bound
	Why     string // why not fitted
}

// TrainResult is a training fit.
type TrainResult struct {
	GPU     model.GPU
	Params  []TrainParamFit
	Figures []ServeFigureFit
	// Fitted says, by figure, whether the fit took it (a TFLOP/s beside a step time is shown,
	// not fitted); Before and After summarise the figures fitted.
	Fitted        []bool
	Before, After ServeStats
	// Calibration holds the fitted efficiencies (zero for the others); Empty when none could be
	// fitted.
	Calibration model.ServingCalibration
}

// ErrNoTrainRuns is FitTraining's error for an empty input.
var ErrNoTrainRuns = errors.New("calibrate: no training runs to fit")

// fp8Run says whether a run's matmuls take the fp8 efficiency.
func fp8Run(s model.Scenario) bool {
	return s.Workload.Precision == model.FP8 && s.Cluster.GPU.PeakFP8 > 0
}

// withEff is s with the efficiency of its number format set to e.
func withEff(s model.Scenario, e float64) model.Scenario {
	if fp8Run(s) {
		s.Cluster.GPU.ComputeEffFP8 = e
	} else {
		if s.Cluster.GPU.ComputeEffFP8 == 0 && s.Cluster.GPU.PeakFP8 > 0 {
			// Keep fp8's own efficiency where it followed bf16's.
			s.Cluster.GPU.ComputeEffFP8 = s.Cluster.GPU.ComputeEff
		}
		s.Cluster.GPU.ComputeEff = e
	}
	return s
}

// predictTrain is every timed figure of the runs, with the efficiency e (0: the preset's).
func predictTrain(runs []TrainRun, e float64) ([][]float64, error) {
	out := make([][]float64, len(runs))
	for i, r := range runs {
		s := r.Scenario
		if e > 0 {
			s = withEff(s, e)
		}
		rep, err := costmodel.Evaluate(s)
		if err != nil {
			return nil, fmt.Errorf("%s: evaluate: %w", r.Where, err)
		}
		out[i] = make([]float64, len(r.Figures))
		for j, f := range r.Figures {
			out[i][j], _ = TrainPredicted(f.Name, s, rep)
		}
	}
	return out, nil
}

func trainLoss(runs []TrainRun, pred [][]float64) float64 {
	var errs []float64
	for i, r := range runs {
		for j, f := range r.Figures {
			errs = append(errs, logErr(pred[i][j], f.Measured))
		}
	}
	return meanAbs(errs)
}

// FitTraining fits the matmul efficiency of the runs' GPU (every run on the same GPU preset),
// one per number format, to their timed figures.
func FitTraining(runs []TrainRun) (TrainResult, error) {
	var res TrainResult
	if len(runs) == 0 {
		return res, ErrNoTrainRuns
	}
	res.GPU = runs[0].Scenario.Cluster.GPU
	var groups [2][]TrainRun // bf16/fp16, fp8
	for _, r := range runs {
		if g := r.Scenario.Cluster.GPU.ID; g != res.GPU.ID {
			return res, fmt.Errorf("%s runs on %s, %s on %s: one GPU preset a fit; fit each apart", runs[0].Where, res.GPU.ID, r.Where, g)
		}
		// The fit takes the step time and tokens/s; TFLOP/s only from a log without them: a
		// trainer's TFLOP/s is its own FLOP count over the step time, and its count is not the
		// model's (Megatron's of a mixture of experts, an attention's causal half), so beside the
		// step time it would pull the efficiency towards another count.
		var timed, flops []ServeFigure
		for _, f := range r.Figures {
			if !TrainTimed(f.Name) || !(f.Measured > 0) || math.IsInf(f.Measured, 0) {
				continue
			}
			if f.Name == "tflops_per_gpu" {
				flops = append(flops, f)
			} else {
				timed = append(timed, f)
			}
		}
		if len(timed) == 0 {
			timed = flops
		}
		if len(timed) == 0 {
			return res, fmt.Errorf("%s: no step time, TFLOP/s or tokens/s figure to fit to", r.Where)
		}
		r.Figures = timed
		k := 0
		if fp8Run(r.Scenario) {
			k = 1
		}
		groups[k] = append(groups[k], r)
	}
	fitted := [2]float64{}
	for k, g := range groups {
		if len(g) == 0 {
			continue
		}
		pf := TrainParamFit{Key: "compute_eff", Runs: len(g), Default: res.GPU.ComputeEff, Range: model.CalComputeEff}
		if k == 1 {
			pf.Key, pf.Default = "compute_eff_fp8", res.GPU.MatmulEff(model.FP8)
		}
		pf.Value = pf.Default
		lo, err := predictTrain(g, pf.Range.Min)
		if err != nil {
			return res, err
		}
		hi, err := predictTrain(g, pf.Range.Max)
		if err != nil {
			return res, err
		}
		if math.Abs(trainLoss(g, lo)-trainLoss(g, hi)) < 1e-3 {
			pf.Why = "the figures do not move with it (this GPU's matmuls follow its shape curve, not the preset's efficiency): left at the default"
			res.Params = append(res.Params, pf)
			continue
		}
		x, _, err := golden(math.Log(pf.Range.Min), math.Log(pf.Range.Max), 1e-4, func(x float64) (float64, error) {
			p, err := predictTrain(g, math.Exp(x))
			if err != nil {
				return 0, err
			}
			return trainLoss(g, p), nil
		})
		if err != nil {
			return res, err
		}
		e := math.Exp(x)
		pf.Value, pf.Fitted = e, true
		switch {
		case e <= pf.Range.Min*1.001:
			pf.Bound, pf.Value = "lower", pf.Range.Min
		case e >= pf.Range.Max*0.999:
			pf.Bound, pf.Value = "upper", pf.Range.Max
		}
		fitted[k] = pf.Value
		res.Params = append(res.Params, pf)
	}
	res.Calibration = model.ServingCalibration{ComputeEff: fitted[0], ComputeEffFP8: fitted[1]}

	// Every figure before and after, as --calibration would put the fit on the GPU.
	calGPU := res.Calibration.ApplyGPU(res.GPU)
	var before, after []float64
	for i, r := range runs {
		took := map[string]bool{}
		for _, g := range groups {
			for _, gr := range g {
				if gr.Where == r.Where && gr.Scenario.Cluster.GPU.ID == r.Scenario.Cluster.GPU.ID {
					for _, f := range gr.Figures {
						took[f.Name] = true
					}
				}
			}
		}
		s := r.Scenario
		b, err := costmodel.Evaluate(s)
		if err != nil {
			return res, fmt.Errorf("%s: evaluate: %w", r.Where, err)
		}
		s.Cluster.GPU = calGPU
		a, err := costmodel.Evaluate(s)
		if err != nil {
			return res, fmt.Errorf("%s: evaluate: %w", r.Where, err)
		}
		for _, f := range r.Figures {
			if !TrainTimed(f.Name) || !(f.Measured > 0) || math.IsInf(f.Measured, 0) {
				continue
			}
			pb, _ := TrainPredicted(f.Name, r.Scenario, b)
			pa, _ := TrainPredicted(f.Name, s, a)
			ff := ServeFigureFit{Run: i, Where: r.Where, Name: f.Name, Measured: f.Measured, Before: pb, After: pa,
				BeforeErr: relErr(pb, f.Measured), AfterErr: relErr(pa, f.Measured)}
			res.Figures = append(res.Figures, ff)
			res.Fitted = append(res.Fitted, took[f.Name])
			if took[f.Name] {
				before, after = append(before, ff.BeforeErr), append(after, ff.AfterErr)
			}
		}
	}
	res.Before, res.After = ServeStatsOf(before), ServeStatsOf(after)
	return res, nil
}
