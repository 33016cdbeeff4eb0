package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/published"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/overlay"
)

// calibrate --from TRACE…: the GEMM curve of the GPU fitted to a PyTorch profiler trace's GEMM
// kernels (their shapes from record_shapes=True; calibrate.FitGEMM, as the --trace overlay
// fits it): the efficiency a large GEMM reaches becomes that precision's compute_eff (or
// compute_eff_fp8) and the fixed time per kernel gemm_latency_us, which the engine's GEMM
// time (costmodel.GEMMSeconds) takes for that GPU. The fit must leave validate's published
// serving checks and its training and GEMM checks on that GPU within tolerance (the serving
// engine's GEMM kernels pay the curve's latency too), or nothing is written.

// isTrace says whether a file opens as a Chrome trace: gzip, or "traceEvents" in its first
// 64 KiB. A file that cannot be opened is not one (the reading that follows names the problem).
func isTrace(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return (len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b) || bytes.Contains(head, []byte(`"traceEvents"`))
}

func runCalibrateTrace(w io.Writer, sf *scenarioFlags, cf *calibrateFlags, files []string) error {
	p, err := sf.presets()
	if err != nil {
		return err
	}
	if !sf.changed("gpu") {
		return usagef("--from %s: a profiler trace does not say which GPU preset ran it; give --gpu (%s)", files[0], strings.Join(p.GPUIDs(), ", "))
	}
	id := sf.fs.Lookup("gpu").Value.String()
	g, err := p.GPU(id)
	if err != nil {
		return unknownPreset("gpu", "GPU", id, p.GPUIDs())
	}
	traces, err := overlay.Load(files)
	if err != nil {
		return &inputError{err: fmt.Errorf("--from %w", err)}
	}
	fit, prec, note := overlay.GEMMFitOf(traces, g)
	if fit == nil {
		if note == "" {
			note = "no GEMM kernel with its shapes (profile with record_shapes=True)"
		}
		return &inputError{err: fmt.Errorf("calibrate --from %s: %s: nothing to fit", strings.Join(files, ", "), note)}
	}
	c, clamped := fit.Calibration(prec)
	if prec != model.FP8 && g.PeakFP8 > 0 {
		// The trace timed no fp8 GEMM: fp8's efficiency stays the preset's (a compute_eff alone
		// would replace it too, model.ServingCalibration.ApplyGPU).
		c.ComputeEffFP8 = g.MatmulEff(model.FP8)
	}
	view := traceView{fit: *fit, prec: prec, gpu: g, cal: c, clamped: clamped, files: len(files), out: cf.out}
	// The serving engine's GEMMs take the curve too: the serving runs are checked beside the
	// training and GEMM checks on that GPU.
	view.checks, view.broken, err = publishedWith(sf, model.Calibration{GPU: g.ID, Serving: &c})
	if err != nil {
		return err
	}
	var refusal error
	switch {
	case len(view.broken) > 0:
		refusal = refusedFit("the fitted GEMM curve", "published", view.broken)
	case cf.out != "":
		cal := model.Calibration{GPU: g.ID, Serving: &c, Section: model.SectionGEMM}
		for _, f := range files {
			cal.From = append(cal.From, filepath.Base(f))
		}
		notes := []string{fmt.Sprintf("gemm: the GEMM curve fitted to %d %s kernels of %d shapes: rms log error of their times %.1f%% built in, %.1f%% fitted",
			fit.Kernels, prec, fit.Shapes, 100*fit.BuiltinRMS, 100*fit.FittedRMS)}
		for _, k := range clamped {
			notes = append(notes, fmt.Sprintf("gemm: %s: the fit's value is outside the range a calibration takes, held to it", k))
		}
		if err := writeOutput(nil, output{"out", cf.out}, assets.MarshalCalibration(cal, notes), cf.force); err != nil {
			return err
		}
		view.wrote = true
	}
	if sf.json {
		if err := writeJSON(w, jsonTrace(view)); err != nil {
			return err
		}
	} else if err := renderTrace(w, view); err != nil {
		return err
	}
	return refusal
}

type traceView struct {
	fit     calibrate.GEMMFit
	prec    model.Precision
	gpu     model.GPU
	cal     model.ServingCalibration
	clamped []string
	files   int
	checks  int
	broken  []published.Check
	out     string
	wrote   bool
}

// traceParams are the parameters the fit sets: key, default, fitted, range (in the key's unit).
func (v traceView) traceParams() []trainParamJSON {
	effKey, eff := "compute_eff", v.cal.ComputeEff
	if v.prec == model.FP8 {
		effKey, eff = "compute_eff_fp8", v.cal.ComputeEffFP8
	}
	lat := costmodel.BuiltinGEMMLatency
	if v.gpu.GEMMLatency > 0 {
		lat = v.gpu.GEMMLatency
	}
	return []trainParamJSON{
		{Name: effKey, Default: v.gpu.MatmulEff(v.prec), Value: eff, Min: model.CalComputeEff.Min, Max: model.CalComputeEff.Max, Status: "fitted"},
		{Name: "gemm_latency_us", Default: 1e6 * lat, Value: 1e6 * v.cal.GEMMLatency, Min: 1e6 * model.CalGEMMLatency.Min, Max: 1e6 * model.CalGEMMLatency.Max, Status: "fitted"},
	}
}

func renderTrace(w io.Writer, v traceView) error {
	f := v.fit
	fmt.Fprintf(w, "calibrate --from: %d trace(s), GEMM on %s: %d %s kernels of %d shapes\n\n", v.files, v.gpu.ID, f.Kernels, v.prec, f.Shapes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tdefault\tfitted\trange\t")
	for _, pj := range v.traceParams() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s–%s\t\n", pj.Name, keyNumber(pj.Default), keyNumber(pj.Value), keyNumber(pj.Min), keyNumber(pj.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, k := range v.clamped {
		fmt.Fprintf(w, "  %s: the fit's value is outside the range a calibration takes: held to it\n", k)
	}
	fmt.Fprintf(w, "\nrms log error of the %d shapes' times: %.1f%% built-in curve → %.1f%% fitted\n", f.Shapes, 100*f.BuiltinRMS, 100*f.FittedRMS)
	switch {
	case len(v.broken) > 0:
		fmt.Fprintf(w, "published checks: %d of the %d serving, training and GEMM checks on %s pass without the fit and fail with it: the fit is refused\n", len(v.broken), v.checks, v.gpu.ID)
	case v.checks == 0:
		fmt.Fprintf(w, "published checks: validate has no training or GEMM check on %s to try the fit on\n", v.gpu.ID)
	default:
		fmt.Fprintf(w, "published checks: the %d serving, training and GEMM checks on %s stay within tolerance\n", v.checks, v.gpu.ID)
	}
	if v.wrote {
		fmt.Fprintf(w, "wrote %s: --calibration %s puts this GEMM curve on %s\n", v.out, v.out, v.gpu.ID)
	}
	return nil
}

type traceJSON struct {
	GPU        string            `json:"gpu"`
	Precision  string            `json:"precision"`
	Shapes     int               `json:"shapes"`
	Kernels    int               `json:"kernels"`
	Parameters []trainParamJSON  `json:"parameters"`
	BuiltinRMS float64           `json:"builtin_rms_log_error"`
	FittedRMS  float64           `json:"fitted_rms_log_error"`
	Clamped    []string          `json:"clamped"`
	Checks     int               `json:"published_checks"`
	Broken     []published.Check `json:"published_broken"`
	Out        string            `json:"out,omitempty"`
}

func jsonTrace(v traceView) traceJSON {
	out := traceJSON{GPU: v.gpu.ID, Precision: v.prec.String(), Shapes: v.fit.Shapes, Kernels: v.fit.Kernels, Parameters: v.traceParams(),
		BuiltinRMS: v.fit.BuiltinRMS, FittedRMS: v.fit.FittedRMS, Clamped: append([]string{}, v.clamped...), Checks: v.checks,
		Broken: append([]published.Check{}, v.broken...)}
	if v.wrote {
		out.Out = v.out
	}
	return out
}
