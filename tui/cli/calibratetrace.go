package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/costmodel/published"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/overlay"
	"github.com/splitscope/splitscope/tui/static"
)

// calibrate --from TRACE…: the GEMM curve of the GPU fitted to a PyTorch profiler trace's GEMM
// kernels (their shapes from record_shapes=True; calibrate.FitGEMM, as the --trace overlay
// fits it): the efficiency a large GEMM reaches becomes that precision's compute_eff (or
// compute_eff_fp8) and the fixed time per kernel gemm_latency_us, which the engine's GEMM
// time (costmodel.GEMMSeconds) takes for that GPU. The fit must leave validate's published
// serving checks and its training and GEMM checks on that GPU within tolerance (the serving
// engine's GEMM kernels pay the curve's latency too), or nothing is written. The trace's NCCL
// kernels with their sizes and groups fit the links beside it (traceLinks), as nccl-tests'
// rows do.

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
	// The links, from the trace's NCCL kernels with their sizes and groups.
	links, err := traceLinks(sf, p, g, files, traces)
	if err != nil {
		return err
	}
	fit, prec, note := overlay.GEMMFitOf(traces, g)
	if fit == nil {
		if note == "" {
			note = "no GEMM kernel with its shapes (profile with record_shapes=True)"
		}
		if links == nil {
			return &inputError{err: fmt.Errorf("calibrate --from %s: %s, and no NCCL kernel with its size and group (record_param_comms' args): nothing to fit", strings.Join(files, ", "), note)}
		}
		return writeTraceLinks(w, sf, cf, links)
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
		if links != nil {
			cal.Intra, cal.Inter = links.cal.Intra, links.cal.Inter
		}
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
	view.links = links
	if sf.json {
		if err := writeJSON(w, jsonTrace(view)); err != nil {
			return err
		}
	} else if err := renderTrace(w, view); err != nil {
		return err
	}
	return refusal
}

// traceLinkFit is the links fitted to a trace's NCCL kernels: the fit, the runs it read and the
// fabric it started from, and the calibration it gives.
type traceLinkFit struct {
	view static.Calibration
	cal  model.Calibration
}

// traceLinks fits the links to the traces' NCCL kernels (nil when none has its size and group):
// as calibrate --nccl-tests fits them to nccl-tests' rows, each message size of an operation and
// communicator a row, timed by its fastest kernel (a collective's kernel starts when its rank
// arrives and ends after the slowest: the fastest is the closest to the collective alone).
func traceLinks(sf *scenarioFlags, p *assets.Presets, g model.GPU, files []string, traces []model.Trace) (*traceLinkFit, error) {
	runs := traceNCCLRuns(traces, g.Name, sf.gpusPerNode)
	if len(runs) == 0 {
		return nil, nil
	}
	base, warnings, err := calibrationLinks(sf, p, g, runs)
	if err != nil {
		return nil, err
	}
	samples, _ := calibrate.Samples(runs)
	fit, err := calibrate.Fit(samples, collective.FabricOf(base))
	if err != nil {
		return nil, nil // no row a link could be fitted to (calibrate.ErrNoSamples)
	}
	c := calibrationOf(g, files, fit)
	for _, pf := range fit.Params {
		if pf.Bound != "" {
			// A trace's collective kernels run beside the compute and wait for their peers; a
			// link they ask to be beyond what a person could defend is that, not the link.
			warnings = append(warnings, fmt.Sprintf("%s %s stopped at its %s bound: the kernels ran slower than any %s link (beside the compute, or waiting for a peer): the links are not written; nccl-tests logs (calibrate --nccl-tests) time them alone",
				pf.Link, pf.Param.Key(), pf.Bound, pf.Link))
			c.Intra, c.Inter = nil, nil
		}
	}
	if c.Intra != nil || c.Inter != nil {
		// As every calibrate --from fit: the links go on every preset that uses them, and must
		// leave validate's collective, serving and training checks within tolerance.
		n, broken, err := publishedDiff(sf, model.Calibration{GPU: g.ID, Intra: c.Intra, Inter: c.Inter}, func(p *assets.Presets) ([]published.Check, error) {
			comm, err := published.CommChecks(p.Link)
			if err != nil {
				return nil, err
			}
			serve, err := published.ServeChecks(p)
			if err != nil {
				return nil, err
			}
			train, err := trainingChecks(p, g.ID)
			return append(append(comm, serve...), train...), err
		})
		if err != nil {
			return nil, err
		}
		if len(broken) > 0 {
			b := broken[0]
			warnings = append(warnings, fmt.Sprintf("the links fitted would move %d of the %d collective, serving and training checks of validate past their tolerance (%s %s %+.1f%%, tolerance ±%.0f%%): the links are not written",
				len(broken), n, b.Group, b.Case, 100*b.RelErr(), 100*b.Tolerance))
			c.Intra, c.Inter = nil, nil
		}
	}
	return &traceLinkFit{view: static.Calibration{GPU: g, Runs: runs, Fit: fit, Base: base, Warnings: warnings}, cal: c}, nil
}

// traceNCCLRuns are the traces' NCCL collectives as nccl-tests runs: one run per trace, operation
// and communicator size (its nodes from perNode GPUs a node, its GPUs gpuName), a row per message
// size at its fastest kernel. Collectives without a size or a group of two or more are left out, as are
// operations the collective model does not time.
func traceNCCLRuns(traces []model.Trace, gpuName string, perNode int) []model.NCCLRun {
	type key struct {
		op    model.CollOp
		ranks int
		bytes float64
	}
	var out []model.NCCLRun
	for _, t := range traces {
		fastest := map[key]float64{}
		var keys []key
		for _, c := range t.Collectives {
			op, err := model.ParseCollOp(c.Op)
			if err != nil || c.Bytes <= 0 || c.GroupSize < 2 || !(c.Dur > 0) {
				continue
			}
			k := key{op, c.GroupSize, c.Bytes}
			if d, ok := fastest[k]; !ok || c.Dur < d {
				if !ok {
					keys = append(keys, k)
				}
				fastest[k] = c.Dur
			}
		}
		slices.SortFunc(keys, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.op, b.op), cmp.Compare(a.ranks, b.ranks), cmp.Compare(a.bytes, b.bytes))
		})
		for i, k := range keys {
			if i == 0 || keys[i-1].op != k.op || keys[i-1].ranks != k.ranks {
				nodes := (k.ranks + max(perNode, 1) - 1) / max(perNode, 1)
				hosts := make([]string, nodes)
				for h := range hosts {
					hosts[h] = fmt.Sprintf("node%d", h)
				}
				out = append(out, model.NCCLRun{File: t.File, Op: k.op, OpFrom: "the kernel's name", Ranks: k.ranks, Hosts: hosts, GPUName: gpuName})
			}
			r := &out[len(out)-1]
			r.Rows = append(r.Rows, model.NCCLRow{Bytes: k.bytes, Root: -1, OutOfPlace: model.NCCLTiming{Seconds: fastest[k], Wrong: -1}})
		}
	}
	return out
}

// writeTraceLinks prints (and with --out writes) the links fitted to traces that have no GEMM
// shapes to fit a curve to.
func writeTraceLinks(w io.Writer, sf *scenarioFlags, cf *calibrateFlags, links *traceLinkFit) error {
	if cf.out != "" && links.cal.Intra == nil && links.cal.Inter == nil {
		if err := static.RenderCalibration(w, links.view); err != nil {
			return err
		}
		return &inputError{err: fmt.Errorf("--out %s: nothing to write: no GEMM kernel with its shapes, and the links fitted to the NCCL kernels are not written (the warnings say why)", cf.out)}
	}
	if cf.out != "" {
		if err := writeOutput(nil, output{"out", cf.out}, assets.MarshalCalibration(links.cal, static.CalibrationNotes(links.view.Fit)), cf.force); err != nil {
			return err
		}
		links.view.Out = cf.out
	}
	if sf.json {
		return writeJSON(w, jsonCalibration(links.view))
	}
	return static.RenderCalibration(w, links.view)
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
	// links is the links fitted to the traces' NCCL kernels, nil when none could be.
	links *traceLinkFit
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
	if v.links != nil {
		fmt.Fprintln(w)
		lv := v.links.view
		if v.wrote {
			lv.Out = v.out
		}
		if err := static.RenderCalibration(w, lv); err != nil {
			return err
		}
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
	// Links is the links fitted to the traces' NCCL kernels, as calibrate --nccl-tests --json
	// prints them; absent when no kernel had its size and group.
	Links any `json:"links,omitempty"`
}

func jsonTrace(v traceView) traceJSON {
	out := traceJSON{GPU: v.gpu.ID, Precision: v.prec.String(), Shapes: v.fit.Shapes, Kernels: v.fit.Kernels, Parameters: v.traceParams(),
		BuiltinRMS: v.fit.BuiltinRMS, FittedRMS: v.fit.FittedRMS, Clamped: append([]string{}, v.clamped...), Checks: v.checks,
		Broken: append([]published.Check{}, v.broken...)}
	if v.wrote {
		out.Out = v.out
	}
	if v.links != nil {
		out.Links = jsonCalibration(v.links.view)
	}
	return out
}
