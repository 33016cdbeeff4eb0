package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/published"
	"github.com/splitscope/splitscope/model"
)

// calibrate --from LOG…: the GPU's matmul efficiency fitted to the user's training logs
// (Megatron-LM, torchtitan; costmodel/calibrate, training.go). Each log is evaluated as validate
// --against evaluates it (trainScenario: the log's layout and sizes, the flags for what it does
// not say); the fitted efficiency must leave every published training check of validate on that
// GPU within its tolerance, or nothing is written.

// runCalibrateTrain fits, prints and, with --out, writes the training calibration. runCalibrateFrom
// has read the logs and checked the flags and the output.
func runCalibrateTrain(w, errw io.Writer, sf *scenarioFlags, cf *calibrateFlags, files []string, trains []trainRun) error {
	p, err := sf.presets()
	if err != nil {
		return err
	}
	typed := map[string]bool{}
	for _, name := range append([]string{"model", "gpu", "gpus", "gpus-per-node", "tp", "pp", "dp", "engine", "box", "scenario"}, trainFlags...) {
		typed[name] = sf.changed(name)
	}
	var todo []calibrate.TrainRun
	var warnings []string
	var refused refusals
	for _, tr := range trains {
		s, _, warn, err := trainScenario(sf, p, tr, typed)
		if err != nil {
			refused.add(benchRun{path: tr.path}, err)
			continue
		}
		run := calibrate.TrainRun{Where: tr.path, Scenario: s}
		for _, m := range tr.log.Metrics {
			if calibrate.TrainTimed(m.Name) && m.Value > 0 {
				run.Figures = append(run.Figures, calibrate.ServeFigure{Name: m.Name, Measured: m.Value})
			}
		}
		if len(run.Figures) == 0 {
			refused.add(benchRun{path: tr.path}, &inputError{err: fmt.Errorf("%s: no step time, TFLOP/s or tokens/s figure to fit the matmul efficiency to", tr.path)})
			continue
		}
		todo = append(todo, run)
		for _, wn := range append(append([]string(nil), tr.log.Warnings...), warn...) {
			warnings = append(warnings, tr.path+": "+wn)
		}
	}
	if err := refused.err(); err != nil {
		return err
	}
	for _, wn := range warnings {
		fmt.Fprintf(errw, "splitscope: warning: %s\n", wn)
	}
	fit, err := calibrate.FitTraining(todo)
	if err != nil {
		return &inputError{err: fmt.Errorf("calibrate --from: %w", err)}
	}
	view := trainView{fit: fit, out: cf.out, files: len(files)}
	if !fit.Calibration.Empty() {
		gpu := fit.GPU.ID
		view.checks, view.broken, err = publishedDiff(sf, model.Calibration{GPU: gpu, Serving: &fit.Calibration}, func(p *assets.Presets) ([]published.Check, error) { return trainingChecks(p, gpu) })
		if err != nil {
			return err
		}
	}
	c := model.Calibration{GPU: fit.GPU.ID, Serving: &fit.Calibration, Section: model.SectionTraining, Rows: fit.After.N, MeanError: fit.After.Mean, MaxError: fit.After.Max}
	notes := []string{fmt.Sprintf("training: fitted on %d figures of training logs: mean |error| %.1f%% before, %.1f%% after", fit.After.N, 100*fit.Before.Mean, 100*fit.After.Mean)}
	var refusal error
	view.wrote, refusal, err = endFit(cf, c, files, notes, fit.Calibration.Empty(),
		"the logs pin down no matmul efficiency", "the fitted efficiency", "published training", view.broken)
	if err != nil {
		return err
	}
	if sf.json {
		if err := writeJSON(w, jsonTrain(view)); err != nil {
			return err
		}
	} else if err := renderTrain(w, view); err != nil {
		return err
	}
	return refusal
}

// trainView is what calibrate --from prints for training logs.
type trainView struct {
	fit    calibrate.TrainResult
	files  int
	checks int
	broken []published.Check
	out    string
	wrote  bool
}

// trainParamText says what the fit did with an efficiency.
func trainParamText(pf calibrate.TrainParamFit) string {
	switch {
	case !pf.Fitted:
		return pf.Why
	case pf.Bound != "":
		return fmt.Sprintf("fitted, at its %s bound: the logs want a value beyond what a person could defend; check the flags (--gpu, the layout, --recompute)", pf.Bound)
	}
	return "fitted"
}

// trainFigText is a training figure in its unit.
func trainFigText(name string, v float64) string {
	switch name {
	case "tflops_per_gpu":
		return fmt.Sprintf("%.4g TFLOP/s", v)
	case "tokens_per_s_per_gpu":
		return fmt.Sprintf("%.4g/s", v)
	}
	return figText(name, v)
}

func renderTrain(w io.Writer, v trainView) error {
	fit := v.fit
	fmt.Fprintf(w, "calibrate --from: %d training log(s), %d figures, on %s\n\n", v.files, fit.After.N, fit.GPU.ID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\truns\tdefault\tfitted\trange\t")
	for _, pf := range fit.Params {
		val := "—"
		if pf.Fitted {
			val = keyNumber(pf.Value)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s–%s\t\n", pf.Key, pf.Runs, keyNumber(pf.Default), val, keyNumber(pf.Range.Min), keyNumber(pf.Range.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, pf := range fit.Params {
		fmt.Fprintf(w, "  %s: %s\n", pf.Key, trainParamText(pf))
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tfigure\tmeasured\tbefore\terror\tafter\terror\t")
	unfitted := false
	for i, f := range fit.Figures {
		name := f.Name
		if !fit.Fitted[i] {
			name, unfitted = "("+name+")", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%+.1f%%\t\n", filepath.Base(f.Where), name, trainFigText(f.Name, f.Measured), trainFigText(f.Name, f.Before),
			100*f.BeforeErr, trainFigText(f.Name, f.After), 100*f.AfterErr)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unfitted {
		fmt.Fprintln(w, "  (in brackets: shown, not fitted: a trainer's TFLOP/s is its own FLOP count over the step time, fitted instead)")
	}
	b, a := fit.Before, fit.After
	fmt.Fprintf(w, "\n%d figure(s) fitted: mean |error| %.1f%% → %.1f%%, median %.1f%% → %.1f%%, worst %.1f%% → %.1f%%\n",
		a.N, 100*b.Mean, 100*a.Mean, 100*b.Median, 100*a.Median, 100*b.Max, 100*a.Max)
	switch {
	case fit.Calibration.Empty():
		fmt.Fprintln(w, "nothing fitted: these logs pin down no matmul efficiency")
	case len(v.broken) > 0:
		fmt.Fprintf(w, "published checks: %d of the %d training checks on %s pass without the fit and fail with it: the fit is refused\n", len(v.broken), v.checks, fit.GPU.ID)
	case v.checks == 0:
		fmt.Fprintf(w, "published checks: validate has no training check on %s to try the fit on\n", fit.GPU.ID)
	default:
		fmt.Fprintf(w, "published checks: the %d training checks on %s (validate's training groups) stay within tolerance\n", v.checks, fit.GPU.ID)
	}
	if v.wrote {
		fmt.Fprintf(w, "wrote %s: --calibration %s puts this efficiency on %s\n", v.out, v.out, fit.GPU.ID)
	}
	return nil
}

// trainJSON is calibrate --from --json for training logs: fromJSON's shape, with each
// parameter's runs.
type trainJSON struct {
	GPU        string            `json:"gpu"`
	Parameters []trainParamJSON  `json:"parameters"`
	Figures    []trainFigureJSON `json:"figures"`
	Before     fromStatsJSON     `json:"before"`
	After      fromStatsJSON     `json:"after"`
	Checks     int               `json:"published_checks"`
	Broken     []published.Check `json:"published_broken"`
	Out        string            `json:"out,omitempty"`
}

type trainFigureJSON struct {
	fromFigureJSON
	Fitted bool `json:"fitted"`
}

type trainParamJSON struct {
	Name    string  `json:"name"`
	Runs    int     `json:"runs"`
	Default float64 `json:"default"`
	Value   float64 `json:"fitted"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Status  string  `json:"status"`
	Bound   string  `json:"bound,omitempty"`
}

func jsonTrain(v trainView) trainJSON {
	st := func(s calibrate.ServeStats) fromStatsJSON { return fromStatsJSON{s.N, s.Mean, s.Median, s.Max} }
	out := trainJSON{GPU: v.fit.GPU.ID, Before: st(v.fit.Before), After: st(v.fit.After), Checks: v.checks, Broken: append([]published.Check{}, v.broken...),
		Parameters: []trainParamJSON{}, Figures: []trainFigureJSON{}}
	if v.wrote {
		out.Out = v.out
	}
	for _, pf := range v.fit.Params {
		status := "fitted"
		if !pf.Fitted {
			status = "not pinned down"
		}
		out.Parameters = append(out.Parameters, trainParamJSON{Name: pf.Key, Runs: pf.Runs, Default: pf.Default, Value: pf.Value,
			Min: pf.Range.Min, Max: pf.Range.Max, Status: status, Bound: pf.Bound})
	}
	for i, f := range v.fit.Figures {
		out.Figures = append(out.Figures, trainFigureJSON{fromFigureJSON{Run: f.Where, Name: f.Name, Measured: f.Measured, Before: f.Before, BeforeErr: f.BeforeErr,
			After: f.After, AfterErr: f.AfterErr}, v.fit.Fitted[i]})
	}
	return out
}
