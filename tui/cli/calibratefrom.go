package cli

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/published"
	"github.com/splitscope/splitscope/model"
)

// calibrate --from FILE…: the GPU's and the engine's serving parameters fitted to the user's
// serving benchmarks (costmodel/calibrate, serving.go). Each run is served as validate --against
// serves it (benchScenario: the file's workload, the flags for what the file does not say), the
// fit changes what the figures pin down, and the fitted calibration must leave every published
// check of validate that the parameters touch within its tolerance, or nothing is written.

// runCalibrateFrom reads the result files, fits and prints the fit; with --out it writes the
// calibration. Problems with the input are found before anything is fitted or written.
func runCalibrateFrom(w io.Writer, errw io.Writer, sf *scenarioFlags, cf *calibrateFlags, files []string) error {
	if len(files) == 0 {
		return usagef("--from needs a FILE: a vllm bench serve --save-result JSON, sglang.bench_serving JSON Lines, a Megatron-LM or torchtitan training log, or a PyTorch profiler trace")
	}
	if len(cf.logs) > 0 {
		return usagef("--from and --nccl-tests fit different things (the serving engine, the links): give one of them at a time")
	}
	if len(files) > maxResultFiles {
		return &model.FieldError{Field: "from", Value: fmt.Sprintf("%d files", len(files)), Allowed: fmt.Sprintf("at most %d result files", maxResultFiles)}
	}
	if cf.out == "-" {
		return &model.FieldError{Field: "out", Value: cf.out, Allowed: "must name a file: the fit is printed on standard output"}
	}
	out := output{"out", cf.out}
	if err := checkOutputs(cf.force, out); err != nil {
		return err
	}
	var errs model.ValidationError
	for i, f := range files {
		if cf.out != "" && (resolvePath(f) == resolvePath(cf.out) || sameExisting(f, cf.out)) {
			errs = append(errs, &model.FieldError{Field: "out", Value: cf.out, Allowed: "is one of the files read: give the calibration its own file"})
		}
		for _, g := range files[:i] {
			if resolvePath(f) == resolvePath(g) {
				errs = append(errs, &model.FieldError{Field: "from", Value: f, Allowed: "given twice: each file once"})
				break
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}

	// Profiler traces (too large to read whole, and streamed) fit the GEMM curve alone.
	var traceFiles, other []string
	for _, f := range files {
		if isTrace(f) {
			traceFiles = append(traceFiles, f)
		} else {
			other = append(other, f)
		}
	}
	if len(traceFiles) > 0 {
		if len(other) > 0 {
			return usagef("--from %s and %s: a profiler trace fits the GEMM curve, a result or a log other things; give them in separate calls", traceFiles[0], other[0])
		}
		return runCalibrateTrace(w, sf, cf, files)
	}

	// Every file, every problem: one line per bad file.
	runs, trains, err := readRunFiles("from", files)
	if err != nil {
		return err
	}
	if len(trains) > 0 {
		if len(runs) > 0 {
			return usagef("--from %s and %s: a training log and a serving benchmark fit different things; give them in separate calls", trains[0].path, runs[0].path)
		}
		return runCalibrateTrain(w, errw, sf, cf, files, trains)
	}
	for _, name := range []string{"seq", "batch", "micro-batch"} {
		if sf.changed(name) {
			return usagef("--%s %s: %s; it is for a training log that does not say it", name, sf.fs.Lookup(name).Value.String(), fromWorkload)
		}
	}
	p, err := sf.presets()
	if err != nil {
		return err
	}
	typed := map[string]bool{}
	for _, name := range []string{"model", "gpu", "gpus", "gpus-per-node", "tp", "pp", "dp", "engine", "box", "scenario"} {
		typed[name] = sf.changed(name)
	}
	var todo []calibrate.ServeRun
	var warnings []string
	var refused refusals
	engines := map[string]bool{} // the engines the runs were served with
	for _, br := range runs {
		s, warn, err := benchScenario(sf, p, br, typed)
		if err != nil {
			refused.add(br, err)
			continue
		}
		engines[engineName(s.Workload.Engine)] = true
		sr, ok := serveRunOf(br, s)
		if !ok {
			refused.add(br, &inputError{err: fmt.Errorf("%s: no figure the model predicts (it fits on the mean, median, p90 and p99 of ttft, tpot, itl and e2e, and request, output and total token throughput)", br.where())})
			continue
		}
		todo = append(todo, sr)
		for _, wn := range append(append([]string(nil), br.run.Warnings...), warn...) {
			warnings = append(warnings, br.where()+": "+wn)
		}
	}
	if err := refused.err(); err != nil {
		return err
	}
	for _, wn := range warnings {
		fmt.Fprintf(errw, "splitscope: warning: %s\n", wn)
	}
	fit, err := calibrate.FitServing(todo)
	if err != nil {
		return &inputError{err: fmt.Errorf("calibrate --from: %w", err)}
	}
	view := fromView{fit: fit, out: cf.out, files: len(files), runs: len(todo)}
	// Runs of one engine calibrate that engine on the GPU (its kernels and its host loop are
	// what the parameters measure): the calibration holds where it serves. Runs of several
	// calibrate the GPU for every engine.
	cal := model.Calibration{GPU: fit.GPU.ID, Serving: &fit.Calibration}
	if len(engines) == 1 {
		for e := range engines {
			cal.Engine, view.engine = e, e
		}
	}

	// The published checks the parameters touch, with and without the fit: one that passed and
	// fails with it refuses the fit.
	if !fit.Calibration.Empty() {
		view.checks, view.broken, err = publishedWith(sf, cal)
		if err != nil {
			return err
		}
	}
	cal.Rows, cal.MeanError, cal.MaxError = fit.After.N, fit.After.Mean, fit.After.Max
	var refusal error
	view.wrote, refusal, err = endFit(cf, cal, files, servingNotes(fit), fit.Calibration.Empty(),
		"the files pin down none of the serving parameters", "the fitted parameters", "published", view.broken)
	if err != nil {
		return err
	}
	if sf.json {
		if err := writeJSON(w, jsonFrom(view)); err != nil {
			return err
		}
	} else if err := renderFrom(w, view); err != nil {
		return err
	}
	return refusal
}

// endFit ends a calibrate --from fit: with nothing fitted (empty), --out is refused (nothing to
// write: nothing says why); with published checks broken, the fit is refused (fitted names it,
// kind the checks); otherwise, with --out, the calibration c is written with the files as its
// From and notes as its comments. wrote says it was; refusal is the command's exit, err a
// failure to write.
func endFit(cf *calibrateFlags, c model.Calibration, files, notes []string, empty bool, nothing, fitted, kind string, broken []published.Check) (wrote bool, refusal, err error) {
	switch {
	case empty:
		if cf.out != "" {
			refusal = &inputError{err: fmt.Errorf("--out %s: nothing to write: %s", cf.out, nothing)}
		}
	case len(broken) > 0:
		refusal = refusedFit(fitted, kind, broken)
	case cf.out != "":
		for _, f := range files {
			c.From = append(c.From, filepath.Base(f))
		}
		if err := writeOutput(nil, output{"out", cf.out}, assets.MarshalCalibration(c, notes), cf.force); err != nil {
			return false, nil, err
		}
		wrote = true
	}
	return wrote, refusal, nil
}

// serveRunOf is a run as the fit takes it: the figures compareRun compares, and the model's.
func serveRunOf(br benchRun, s model.Scenario) (calibrate.ServeRun, bool) {
	var figs []calibrate.ServeFigure
	var metrics []model.BenchMetric
	for _, m := range br.run.Metrics {
		if _, ok := predicted(m, costmodel.Inference{}); ok && m.Value > 0 && !math.IsInf(m.Value, 0) {
			figs = append(figs, calibrate.ServeFigure{Name: m.Name(), Measured: m.Value})
			metrics = append(metrics, m)
		}
	}
	return calibrate.ServeRun{Where: br.where(), Scenario: s, Figures: figs, Predict: func(inf costmodel.Inference) []float64 {
		out := make([]float64, len(metrics))
		for i, m := range metrics {
			out[i], _ = predicted(m, inf)
		}
		return out
	}}, len(figs) > 0
}

// servingNotes are the calibration file's comments on the parameters not fitted.
func servingNotes(fit calibrate.ServeResult) []string {
	notes := []string{fmt.Sprintf("serving: fitted on %d figures: mean |error| %.1f%% before, %.1f%% after", fit.After.N, 100*fit.Before.Mean, 100*fit.After.Mean)}
	for _, pf := range fit.Params {
		if pf.Status != calibrate.ServeFitted {
			notes = append(notes, fmt.Sprintf("serving: %s: not fitted, %s", pf.Param.Key(), statusText(pf)))
		}
	}
	return notes
}

// statusText says what the fit did with a parameter, and why.
func statusText(pf calibrate.ServeParamFit) string {
	switch pf.Status {
	case calibrate.ServeUnpinned:
		return "no figure of these files moves with it: left at the default"
	case calibrate.ServeCollinear:
		if pf.Param == calibrate.KernelFloor && pf.With == calibrate.StepOverhead {
			return "to these figures it is more step overhead (each layer's kernels pay it once a step), and step_overhead_us is not fitted: left at the default (runs of models of different depth, beside a fitted step overhead, would pin it down)"
		}
		return fmt.Sprintf("it moves the figures as %s does: left at the default (runs at other loads, lengths or models would separate them)", pf.With.Key())
	case calibrate.ServeWeak:
		change := "threefold"
		if pf.Param == calibrate.StepOverhead || pf.Param == calibrate.KernelFloor {
			change = "tenfold"
		}
		return fmt.Sprintf("apart from what %s does, a %s change of it moves the figures by under 5%%: left at the default (runs whose steps are shorter or read very different bytes would pin it down)", pf.With.Key(), change)
	}
	s := "fitted"
	if pf.Bound != "" {
		s += fmt.Sprintf(", at its %s bound: the figures want a value beyond what a person could defend; check the flags (--gpu, --tp, --engine)", pf.Bound)
	}
	return s
}

// publishedWith runs the published checks of validate that the serving parameters of gpu touch
// (the serving runs, and the training and GEMM checks on that GPU), with the presets as they
// are and with the calibration, and returns the checks and those that pass without it and
// fail with it.
func publishedWith(sf *scenarioFlags, cal model.Calibration) (int, []published.Check, error) {
	gpu := cal.GPU
	return publishedDiff(sf, cal, func(p *assets.Presets) ([]published.Check, error) {
		checks, err := published.ServeChecks(p)
		if err != nil {
			return nil, err
		}
		train, err := trainingChecks(p, gpu)
		if err != nil {
			return nil, err
		}
		if gpu == "h100-sxm" {
			g, err := p.GPU(gpu)
			if err != nil {
				return nil, err
			}
			train = append(train, published.GEMMChecks(g)...)
		}
		return append(checks, train...), nil
	})
}

// trainingChecks are validate's published training checks on gpu: Selene's (Megatron's
// table 1, figure 1 and the hold-out runs) on the A100, the MoE runs on the H100; none on
// another GPU.
func trainingChecks(p *assets.Presets, gpu string) ([]published.Check, error) {
	switch gpu {
	case "h100-sxm":
		return published.MoEChecks(p)
	case "a100-sxm-80gb":
		var h published.Selene
		var err error
		if h.A100, err = p.GPU(gpu); err != nil {
			return nil, err
		}
		if h.NVLink3, err = p.Link("nvlink3"); err != nil {
			return nil, err
		}
		if h.IBHDR, err = p.Link("ib-hdr"); err != nil {
			return nil, err
		}
		return published.Validate(h)
	}
	return nil, nil
}

// publishedDiff runs the checks checksOf gives with the presets as they are and with the
// calibration cal, and returns how many there are and those that pass without it and fail
// with it.
func publishedDiff(sf *scenarioFlags, cal model.Calibration, checksOf func(*assets.Presets) ([]published.Check, error)) (int, []published.Check, error) {
	run := func(with bool) ([]published.Check, error) {
		p, err := sf.presets()
		if err != nil {
			return nil, err
		}
		if with {
			p.Calibrate(cal, "fit")
		}
		return checksOf(p)
	}
	before, err := run(false)
	if err != nil {
		return 0, nil, fmt.Errorf("published checks: %w", err)
	}
	after, err := run(true)
	if err != nil {
		return 0, nil, fmt.Errorf("published checks with the fit: %w", err)
	}
	passed := map[string]bool{}
	for _, c := range before {
		passed[c.Group+"\x00"+c.Case] = c.Pass()
	}
	var broken []published.Check
	for _, c := range after {
		if passed[c.Group+"\x00"+c.Case] && !c.Pass() {
			broken = append(broken, c)
		}
	}
	return len(after), broken, nil
}

// fromView is what calibrate --from prints.
type fromView struct {
	fit         calibrate.ServeResult
	files, runs int
	checks      int
	broken      []published.Check
	out         string
	wrote       bool
	// engine is the engine every run was served with, which the parameters then hold for
	// alone; "" when the runs were of several.
	engine string
}

func renderFrom(w io.Writer, v fromView) error {
	fit := v.fit
	fmt.Fprintf(w, "calibrate --from: %d runs in %d files, %d figures, on %s\n\n", v.runs, v.files, fit.After.N, fit.GPU.ID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tdefault\tfitted\trange\tmoves (d log figure / d log parameter)\t")
	for _, pf := range fit.Params {
		val := "—"
		if pf.Status == calibrate.ServeFitted {
			val = keyNumber(pf.Param.InKeyUnits(pf.Value))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s–%s\t%s\t\n", pf.Param.Key(), keyNumber(pf.Param.InKeyUnits(pf.Default)), val,
			keyNumber(pf.Param.InKeyUnits(pf.Range.Min)), keyNumber(pf.Param.InKeyUnits(pf.Range.Max)), movesText(pf))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, pf := range fit.Params {
		fmt.Fprintf(w, "  %s: %s\n", pf.Param.Key(), statusText(pf))
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tfigure\tmeasured\tbefore\terror\tafter\terror\t")
	for _, f := range fit.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%+.1f%%\t\n", f.Where, f.Name, figText(f.Name, f.Measured), figText(f.Name, f.Before),
			100*f.BeforeErr, figText(f.Name, f.After), 100*f.AfterErr)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b, a := fit.Before, fit.After
	fmt.Fprintf(w, "\n%d figures: mean |error| %.1f%% → %.1f%%, median %.1f%% → %.1f%%, worst %.1f%% → %.1f%%\n",
		a.N, 100*b.Mean, 100*a.Mean, 100*b.Median, 100*a.Median, 100*b.Max, 100*a.Max)
	switch {
	case fit.Calibration.Empty():
		fmt.Fprintln(w, "nothing fitted: these files pin down none of the parameters")
	case len(v.broken) > 0:
		fmt.Fprintf(w, "published checks: %d of the %d the parameters touch pass without the fit and fail with it: the fit is refused\n", len(v.broken), v.checks)
	default:
		groups := "validate's serving groups"
		switch fit.GPU.ID {
		case "h100-sxm":
			groups += ", its MoE and GEMM checks"
		case "a100-sxm-80gb":
			groups += " and Selene's training checks"
		}
		fmt.Fprintf(w, "published checks: the %d the parameters touch (%s) stay within tolerance\n", v.checks, groups)
	}
	if v.wrote {
		on := fit.GPU.ID
		if v.engine != "" {
			on += " where " + v.engine + " serves"
		}
		fmt.Fprintf(w, "wrote %s: --calibration %s puts these parameters on %s\n", v.out, v.out, on)
	}
	return nil
}

func movesText(pf calibrate.ServeParamFit) string {
	var parts []string
	for _, s := range pf.Figures {
		if math.Abs(s.Slope) >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %+.2f", s.Kind, s.Slope))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// keyNumber writes a parameter in its key's unit, four significant digits, without an exponent.
func keyNumber(v float64) string {
	if v >= 1e4 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// figText is a figure in its unit: ms or s for times, /s for throughputs.
func figText(name string, v float64) string {
	if strings.HasSuffix(name, "_per_s") {
		return fmt.Sprintf("%.4g/s", v)
	}
	if v < 1 {
		return fmt.Sprintf("%.3g ms", 1e3*v)
	}
	return fmt.Sprintf("%.3g s", v)
}

// fromJSON is calibrate --from --json.
type fromJSON struct {
	GPU string `json:"gpu"`
	// Engine is the engine every run was served with, which the parameters hold for alone
	// (absent when the runs were of several: the parameters then hold for every engine).
	Engine     string            `json:"engine,omitempty"`
	Parameters []fromParamJSON   `json:"parameters"`
	Figures    []fromFigureJSON  `json:"figures"`
	Before     fromStatsJSON     `json:"before"`
	After      fromStatsJSON     `json:"after"`
	Checks     int               `json:"published_checks"`
	Broken     []published.Check `json:"published_broken"`
	Out        string            `json:"out,omitempty"`
}

type fromParamJSON struct {
	Name    string                        `json:"name"`
	Default float64                       `json:"default"`
	Value   float64                       `json:"fitted"`
	Min     float64                       `json:"min"`
	Max     float64                       `json:"max"`
	Status  string                        `json:"status"`
	With    string                        `json:"with,omitempty"`
	Bound   string                        `json:"bound,omitempty"`
	Moves   []calibrate.FigureSensitivity `json:"moves"`
}

type fromFigureJSON struct {
	Run       string  `json:"run"`
	Name      string  `json:"name"`
	Measured  float64 `json:"measured"`
	Before    float64 `json:"before"`
	BeforeErr float64 `json:"before_error"`
	After     float64 `json:"after"`
	AfterErr  float64 `json:"after_error"`
}

type fromStatsJSON struct {
	N      int     `json:"figures"`
	Mean   float64 `json:"mean_abs_error"`
	Median float64 `json:"median_abs_error"`
	Max    float64 `json:"worst_abs_error"`
}

func jsonFrom(v fromView) fromJSON {
	st := func(s calibrate.ServeStats) fromStatsJSON { return fromStatsJSON{s.N, s.Mean, s.Median, s.Max} }
	out := fromJSON{GPU: v.fit.GPU.ID, Engine: v.engine, Before: st(v.fit.Before), After: st(v.fit.After), Checks: v.checks, Broken: append([]published.Check{}, v.broken...),
		Parameters: []fromParamJSON{}, Figures: []fromFigureJSON{}}
	if v.wrote {
		out.Out = v.out
	}
	status := map[calibrate.ServeStatus]string{calibrate.ServeFitted: "fitted", calibrate.ServeUnpinned: "not pinned down",
		calibrate.ServeCollinear: "moves with another", calibrate.ServeWeak: "too weak apart from another"}
	for _, pf := range v.fit.Params {
		pj := fromParamJSON{Name: pf.Param.Key(), Default: pf.Param.InKeyUnits(pf.Default), Value: pf.Param.InKeyUnits(pf.Value),
			Min: pf.Param.InKeyUnits(pf.Range.Min), Max: pf.Param.InKeyUnits(pf.Range.Max), Status: status[pf.Status], Bound: pf.Bound,
			Moves: append([]calibrate.FigureSensitivity{}, pf.Figures...)}
		if pf.Status == calibrate.ServeCollinear || pf.Status == calibrate.ServeWeak {
			pj.With = pf.With.Key()
		}
		out.Parameters = append(out.Parameters, pj)
	}
	for _, f := range v.fit.Figures {
		out.Figures = append(out.Figures, fromFigureJSON{Run: f.Where, Name: f.Name, Measured: f.Measured, Before: f.Before, BeforeErr: f.BeforeErr, After: f.After, AfterErr: f.AfterErr})
	}
	return out
}

// refusedFit is calibrate --from's refusal of a fit (what: "the fitted parameters") under which
// published checks of validate (kind: "published", "published training") that pass today fail:
// the first three named, the rest counted.
func refusedFit(what, kind string, broken []published.Check) error {
	var names []string
	for _, c := range broken[:min(len(broken), 3)] {
		names = append(names, fmt.Sprintf("%s %s (%+.1f%%, tolerance ±%.0f%%)", c.Group, c.Case, 100*c.RelErr(), 100*c.Tolerance))
	}
	if more := len(broken) - len(names); more > 0 {
		names = append(names, fmt.Sprintf("and %d more (calibrate --from … --json lists them)", more))
	}
	return fmt.Errorf("calibrate --from: refused: with %s %d %s check(s) of validate that pass today fail: %s; nothing written",
		what, len(broken), kind, strings.Join(names, "; "))
}
