package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// maxLogBytes bounds an nccl-tests log: a sweep is a few kilobytes, and NCCL_DEBUG=INFO on many
// nodes adds megabytes of INFO lines; 64 MiB holds any of them, while /dev/zero or a core dump
// stops at once.
const maxLogBytes = 64 << 20

// maxLogs bounds the logs one calibrate reads.
const maxLogs = 256

// calibrateFlags are calibrate's own flags.
type calibrateFlags struct {
	logs  []string
	from  []string // --from: serving benchmark results (calibratefrom.go)
	out   string
	force bool
}

func newCalibrateCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	cf := &calibrateFlags{}
	cmd := &cobra.Command{
		Use:   "calibrate --nccl-tests FILE [FILE…] | --from FILE [FILE…]",
		Short: "Fit the links' parameters to your own nccl-tests logs, or the serving engine's to your serving benchmarks (--from); --out FILE.yaml for --calibration",
		Long: `calibrate reads the output of nccl-tests (all_reduce_perf, all_gather_perf,
reduce_scatter_perf, sendrecv_perf, broadcast_perf, alltoall_perf), on one node or several, and
fits the link parameters the collective model uses to it: the runs on one node fit the link
between the GPUs of a node (its latency α, its efficiency, the LL protocol's bandwidth ceiling
and, on an NVLink SHARP link, the NVLS efficiency), the runs across nodes fit the network (its α
and efficiency). Each parameter starts from the preset and stays in a range a person could
defend; the fit minimises the model's mean relative time error over the rows and says when a
parameter stops at a bound or when no row depends on it.

It prints what it read (per run: the operation, ranks, nodes, GPU, rows), the fitted
parameters beside the presets', and every row's measured time (the faster of out-of-place and
in-place) beside the model's with the presets and fitted. --out FILE writes the calibration
(YAML) for --calibration FILE on every other command; a file that exists is left alone unless
--force is given.

The GPU comes from the logs ("NVIDIA A100-SXM4-80GB" is a100-sxm-80gb); --gpu ID names it when
the logs' GPU is not a preset. The link inside a node is the GPU's own (--intra to say
otherwise); across nodes --inter and --nics-per-node say what the network is (default ib-ndr,
one NIC per GPU). Several logs may be given: repeat --nccl-tests, or list them after it.
A log that is empty, not nccl-tests output, cut short or of an unknown test is bad input
(exit 2), named with its line.

--from FILE (repeat it, or list more files after it) fits the serving engine instead, to your
serving benchmarks: the files validate --against reads (vllm bench serve --save-result JSON,
sglang.bench_serving JSON Lines), each run served as validate --against serves it, with the
scenario flags for what the files do not say (--model, --gpu, --gpus, --tp, --engine, …; all the
runs on one GPU preset). It fits, each in a bounded range, the GPU's memory-bandwidth efficiency
(memory_eff: TPOT, ITL), its matmul efficiency (compute_eff: TTFT), the engine's host time a step
(step_overhead_us: TPOT and ITL at light load) and the small kernels' floor (kernel_floor_us),
minimising the mean |log error| over every figure, but only those the figures pin down: a
parameter no figure moves with, or one that moves them as a parameter fitted before it does, is
left at its default and named. It prints the parameters and every figure before and after. The
fit must keep validate's published checks that the parameters touch (the serving runs; on
h100-sxm and a100-sxm-80gb their training and GEMM checks too) within tolerance: a check that
passes without it and fails with it refuses the fit (exit 1), naming the check, and nothing is
written. --out FILE writes a calibration with a serving: section; --calibration FILE puts the
parameters on that GPU preset for every command.

--from takes Megatron-LM and torchtitan training logs too (each mapped as validate --against
maps it): the GPU's matmul efficiency (compute_eff; compute_eff_fp8 for fp8 runs) is fitted to
their step times and tokens/s, and refused when a published training check on that GPU fails;
--out writes it under training:. A PyTorch profiler trace with GEMM shapes (record_shapes=True;
with --gpu) fits the GEMM curve: compute_eff and gemm_latency_us, the curve's time per kernel,
written under gemm:. --calibration reads any of serving:, training: and gemm: (one a file).`,
		Example: `  splitscope calibrate --nccl-tests all_reduce_perf.log
  splitscope calibrate --nccl-tests ar.log ag.log rs.log --out box.yaml
  splitscope calibrate --nccl-tests 2nodes.log --inter ib-hdr --nics-per-node 8 --json
  splitscope report --calibration box.yaml --gpu a100-sxm-80gb --gpus 8
  splitscope calibrate --from online.jsonl --model llama-3-70b --gpu h200-sxm --gpus 4 --tp 4 --out h200.yaml`,
		Args: cobra.ArbitraryArgs, // more logs
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("from") {
				return runCalibrateFrom(stdout, cmd.ErrOrStderr(), sf, cf, append(append([]string(nil), cf.from...), args...))
			}
			return runCalibrate(stdout, sf, cf, append(append([]string(nil), cf.logs...), args...))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringArrayVar(&cf.logs, "nccl-tests", nil, "nccl-tests output `FILE` to fit (all_reduce_perf, all_gather_perf, reduce_scatter_perf, sendrecv_perf, broadcast_perf, alltoall_perf); repeat it, or list more files after it")
	fs.StringArrayVar(&cf.from, "from", nil, "serving benchmark result `FILE` to fit the serving engine to (vllm bench serve --save-result JSON, sglang.bench_serving JSON Lines), a training log to fit the GPU's matmul efficiency to (Megatron-LM, torchtitan), or a PyTorch profiler trace to fit the GEMM curve to its GEMMs with shapes and the links to its NCCL kernels with sizes (with --gpu); repeat it, or list more files after it")
	fs.StringVar(&cf.out, "out", "", "write the calibration to `FILE` (YAML), for --calibration FILE (default none)")
	fs.BoolVar(&cf.force, "force", false, "replace an --out file that exists (default off: refuse)")
	return cmd
}

// runCalibrate reads the logs, fits the links and prints the fit; with --out it writes the
// calibration. Problems with the input are found before anything is written.
func runCalibrate(w io.Writer, sf *scenarioFlags, cf *calibrateFlags, files []string) error {
	if len(files) == 0 {
		return usagef("calibrate needs --nccl-tests FILE: the output of all_reduce_perf (or all_gather_perf, reduce_scatter_perf, sendrecv_perf, …)")
	}
	if len(files) > maxLogs {
		return &model.FieldError{Field: "nccl-tests", Value: fmt.Sprintf("%d files", len(files)), Allowed: fmt.Sprintf("at most %d logs", maxLogs)}
	}
	out := output{"out", cf.out}
	if cf.out == "-" {
		return &model.FieldError{Field: "out", Value: cf.out, Allowed: "must name a file: the fit is printed on standard output"}
	}
	if err := checkOutputs(cf.force, out); err != nil {
		return err
	}
	var errs model.ValidationError
	for i, f := range files {
		if cf.out != "" && (resolvePath(f) == resolvePath(cf.out) || sameExisting(f, cf.out)) {
			errs = append(errs, &model.FieldError{Field: "out", Value: cf.out, Allowed: "is one of the logs read: give the calibration its own file"})
		}
		for _, g := range files[:i] {
			if resolvePath(f) == resolvePath(g) {
				errs = append(errs, &model.FieldError{Field: "nccl-tests", Value: f, Allowed: "given twice: each log once"})
				break
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}

	p, err := loadPresets()
	if err != nil {
		return err
	}
	// Every log, every problem: one line per bad file.
	var runs []model.NCCLRun
	var bad []string
	for _, f := range files {
		data, err := readBoundedFile("nccl-tests", f, maxLogBytes, "an nccl-tests log")
		if err != nil {
			var fe *model.FieldError
			if errors.As(err, &fe) {
				bad = append(bad, fmt.Sprintf("--nccl-tests %s: %s", f, fe.Allowed))
				continue
			}
			return err
		}
		rs, err := assets.ParseNCCLLog(f, data)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		runs = append(runs, rs...)
	}
	if len(bad) > 0 {
		return &inputError{err: errors.New(strings.Join(bad, "\n"))}
	}

	dev, warnings, err := calibrationGPU(sf, p, runs)
	if err != nil {
		return err
	}
	base, more, err := calibrationLinks(sf, p, dev, runs)
	if err != nil {
		return err
	}
	warnings = append(warnings, more...)
	for _, r := range runs {
		for _, wn := range r.Warnings {
			warnings = append(warnings, fmt.Sprintf("%s:%d: %s", r.File, r.Line, wn))
		}
	}
	samples, algoWarnings := calibrate.Samples(runs)
	warnings = append(warnings, algoWarnings...)
	fit, err := calibrate.Fit(samples, collective.FabricOf(base))
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	for _, pf := range fit.Params {
		if pf.Bound != "" {
			warnings = append(warnings, fmt.Sprintf("%s %s stopped at its %s bound: the rows want a link beyond what a person could defend; check --%s %s (and --gpu)",
				pf.Link, pf.Param.Key(), pf.Bound, pf.Role, pf.Link))
		}
	}

	c := calibrationOf(dev, files, fit)
	if cf.out != "" {
		if c.Intra == nil && c.Inter == nil {
			return &model.FieldError{Field: "out", Value: cf.out, Allowed: "nothing to write: no parameter could be fitted from these rows"}
		}
		data := assets.MarshalCalibration(c, static.CalibrationNotes(fit))
		if err := writeOutput(nil, out, data, cf.force); err != nil {
			return err
		}
	}
	view := static.Calibration{GPU: dev, Runs: runs, Fit: fit, Base: base, Warnings: warnings, Out: cf.out}
	if sf.json {
		return writeJSON(w, jsonCalibration(view))
	}
	return static.RenderCalibration(w, view)
}

// calibrationGPU is the GPU preset of the logs: --gpu when typed, else the preset every run's
// device name maps to.
func calibrationGPU(sf *scenarioFlags, p *assets.Presets, runs []model.NCCLRun) (model.GPU, []string, error) {
	var warnings []string
	if sf.changed("gpu") {
		dev, err := p.GPU(sf.gpu)
		if err != nil {
			return dev, nil, unknownPreset("gpu", "GPU", sf.gpu, p.GPUIDs())
		}
		for _, r := range runs {
			if g, ok := gpu.MatchGPU(r.GPUName, p.GPUs); !ok || g.ID != dev.ID {
				warnings = append(warnings, fmt.Sprintf("--gpu %s: %s:%d names the GPUs %q", dev.ID, r.File, r.GPULine, r.GPUName))
			}
		}
		return dev, warnings, nil
	}
	var dev model.GPU
	var first model.NCCLRun
	for i, r := range runs {
		g, ok := gpu.MatchGPU(r.GPUName, p.GPUs)
		if !ok {
			return dev, nil, &inputError{err: fmt.Errorf("%s:%d: the GPU %q is not a preset: give --gpu ID (one of %s)",
				r.File, r.GPULine, r.GPUName, strings.Join(p.GPUIDs(), ", "))}
		}
		if i == 0 {
			dev, first = g, r
			continue
		}
		if g.ID != dev.ID {
			return dev, nil, &inputError{err: fmt.Errorf("%s:%d: the GPUs are %s (%s), but %s:%d has %s (%s): calibrate one box at a time",
				r.File, r.GPULine, r.GPUName, g.ID, first.File, first.GPULine, first.GPUName, dev.ID)}
		}
	}
	return dev, warnings, nil
}

// calibrationLinks is the fabric the fit starts from: the GPU's own link inside a node (or
// --intra), and --inter with --nics-per-node NICs (default one per GPU of the multi-node runs).
func calibrationLinks(sf *scenarioFlags, p *assets.Presets, dev model.GPU, runs []model.NCCLRun) (model.Cluster, []string, error) {
	var c model.Cluster
	var warnings []string
	var errs model.ValidationError
	intraID := dev.NativeLink
	if sf.changed("intra") {
		intraID = sf.intra
	}
	intra, err := p.Link(intraID)
	switch {
	case err != nil && sf.changed("intra"):
		errs = append(errs, unknownPreset("intra", "link", sf.intra, p.LinkIDs()))
	case err != nil:
		return c, nil, fmt.Errorf("native link %q of gpu %s: %w", dev.NativeLink, dev.ID, err)
	case assetsNetwork(intra.Kind):
		errs = append(errs, &model.FieldError{Field: "intra", Value: sf.intra, Allowed: fmt.Sprintf("is a %s link: the link between the GPUs of a node is NVLink, PCIe or XGMI", intra.Kind)})
	}
	inter, err := p.Link(sf.inter)
	switch {
	case err != nil:
		errs = append(errs, unknownPreset("inter", "link", sf.inter, p.LinkIDs()))
	case !assetsNetwork(inter.Kind):
		errs = append(errs, &model.FieldError{Field: "inter", Value: sf.inter, Allowed: fmt.Sprintf("is a %s link: the network between nodes is InfiniBand, RoCE or Ethernet", inter.Kind)})
	}
	multi, perNode := false, 0
	for _, r := range runs {
		if r.Nodes() > 1 {
			multi = true
			perNode = max(perNode, r.Ranks/r.Nodes())
		}
	}
	nics := max(perNode, 1)
	if sf.changed("nics-per-node") {
		lo, hi, _ := model.IntLimits("nics-per-node")
		if sf.nicsPerNode < lo || sf.nicsPerNode > hi {
			errs = append(errs, &model.FieldError{Field: "nics-per-node", Value: sf.nicsPerNode, Allowed: fmt.Sprintf("must be a whole number between %d and %d", lo, hi)})
		}
		nics = sf.nicsPerNode
	}
	if len(errs) > 0 {
		return c, nil, errs
	}
	if multi && !sf.changed("inter") {
		warnings = append(warnings, fmt.Sprintf("the runs across nodes are fitted on the default network, %s with %d NICs per node: give --inter and --nics-per-node for yours (the efficiency fitted is relative to them)", inter.ID, nics))
	}
	c = model.Cluster{GPU: dev, Intra: intra, Inter: inter, NICsPerNode: nics}
	return c, warnings, nil
}

// assetsNetwork says whether a link kind joins nodes.
func assetsNetwork(k model.LinkKind) bool {
	return k == model.InfiniBand || k == model.RoCE || k == model.Ethernet
}

// calibrationOf is the calibration a fit gives: for each link with a fitted parameter, its
// bandwidth (what the efficiency is relative to) and the parameters fitted.
func calibrationOf(dev model.GPU, files []string, fit calibrate.Result) model.Calibration {
	c := model.Calibration{GPU: dev.ID, Rows: fit.After.N, MeanError: fit.After.Mean, MaxError: fit.After.Max}
	for _, f := range files {
		c.From = append(c.From, filepath.Base(f))
	}
	for _, side := range []struct {
		role string
		link model.Link
		dst  **model.LinkCalibration
	}{{"intra", fit.Fabric.Intra, &c.Intra}, {"inter", fit.Fabric.Inter, &c.Inter}} {
		lc := model.LinkCalibration{Link: side.link.ID, Bandwidth: side.link.Bandwidth}
		any := false
		for _, p := range fit.Params {
			if p.Role != side.role || p.Status != calibrate.Fitted {
				continue
			}
			any = true
			switch p.Param {
			case calibrate.Latency:
				lc.Latency = p.Value
			case calibrate.Efficiency:
				lc.Efficiency = p.Value
			case calibrate.LLBandwidth:
				lc.LLBandwidth = p.Value
			case calibrate.NVLSEfficiency:
				lc.NVLSEfficiency = p.Value
			}
		}
		if any {
			*side.dst = &lc
		}
	}
	return c
}

// calibrateOutput is calibrate --json: what was read, the parameters (in the units of the
// calibration file's keys: µs, GB/s, fractions), every row, the mean and worst errors.
type calibrateOutput struct {
	GPU        string                 `json:"gpu"`
	Runs       []calibrateRunOutput   `json:"runs"`
	Links      map[string]linkFitJSON `json:"links"`
	Parameters []paramFitJSON         `json:"parameters"`
	Rows       []rowFitJSON           `json:"rows"`
	MeanError  errorPairJSON          `json:"mean_error"`
	MaxError   errorPairJSON          `json:"max_error"`
	Warnings   []string               `json:"warnings"`
	Out        string                 `json:"out,omitempty"`
}

type calibrateRunOutput struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Op       string `json:"op"`
	OpFrom   string `json:"op_from"`
	Ranks    int    `json:"ranks"`
	Nodes    int    `json:"nodes"`
	GPUName  string `json:"gpu_name"`
	Rows     int    `json:"rows"`
	NCCLAlgo string `json:"nccl_algo,omitempty"`
}

type linkFitJSON struct {
	Link   string `json:"link"`
	Fitted bool   `json:"fitted"`
	Rows   int    `json:"rows"`
}

type paramFitJSON struct {
	Role   string  `json:"role"`
	Link   string  `json:"link"`
	Name   string  `json:"name"`
	Preset float64 `json:"preset"`
	Value  float64 `json:"fitted"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Status string  `json:"status"`
	Bound  string  `json:"bound,omitempty"`
	Rows   int     `json:"rows"`
}

type rowFitJSON struct {
	File        string  `json:"file"`
	Line        int     `json:"line"`
	Op          string  `json:"op"`
	Ranks       int     `json:"ranks"`
	Nodes       int     `json:"nodes"`
	Bytes       float64 `json:"bytes"`
	MeasuredS   float64 `json:"measured_s"`
	PresetS     float64 `json:"preset_s"`
	PresetError float64 `json:"preset_error"`
	FittedS     float64 `json:"fitted_s"`
	FittedError float64 `json:"fitted_error"`
	Algorithm   string  `json:"algorithm"`
	Protocol    string  `json:"protocol"`
}

type errorPairJSON struct {
	Preset float64 `json:"preset"`
	Fitted float64 `json:"fitted"`
}

func jsonCalibration(v static.Calibration) calibrateOutput {
	out := calibrateOutput{GPU: v.GPU.ID, Warnings: append([]string{}, v.Warnings...), Out: v.Out,
		Runs: []calibrateRunOutput{}, Parameters: []paramFitJSON{}, Rows: []rowFitJSON{},
		MeanError: errorPairJSON{v.Fit.Before.Mean, v.Fit.After.Mean}, MaxError: errorPairJSON{v.Fit.Before.Max, v.Fit.After.Max}}
	for _, r := range v.Runs {
		out.Runs = append(out.Runs, calibrateRunOutput{File: r.File, Line: r.Line, Op: r.Op.String(), OpFrom: r.OpFrom, Ranks: r.Ranks,
			Nodes: r.Nodes(), GPUName: r.GPUName, Rows: len(r.Rows), NCCLAlgo: r.NCCLAlgo})
	}
	intra := linkFitJSON{Link: v.Base.Intra.ID, Fitted: v.Fit.IntraFitted}
	inter := linkFitJSON{Link: v.Base.Inter.ID, Fitted: v.Fit.InterFitted}
	for _, r := range v.Fit.Rows {
		if r.Group.Nodes > 1 {
			inter.Rows++
		} else {
			intra.Rows++
		}
		out.Rows = append(out.Rows, rowFitJSON{File: r.File, Line: r.Line, Op: r.Op.String(), Ranks: r.Group.Ranks, Nodes: r.Group.Nodes,
			Bytes: r.Bytes, MeasuredS: r.Seconds, PresetS: r.Preset.Seconds, PresetError: r.PresetError(), FittedS: r.Fitted.Seconds,
			FittedError: r.FittedError(), Algorithm: r.Fitted.Algo.String(), Protocol: r.Fitted.Proto.String()})
	}
	out.Links = map[string]linkFitJSON{"intra": intra, "inter": inter}
	for _, p := range v.Fit.Params {
		out.Parameters = append(out.Parameters, paramFitJSON{Role: p.Role, Link: p.Link, Name: p.Param.Key(),
			Preset: p.Param.InKeyUnits(p.Preset), Value: p.Param.InKeyUnits(p.Value), Min: p.Param.InKeyUnits(p.Range.Min),
			Max: p.Param.InKeyUnits(p.Range.Max), Status: p.Status.String(), Bound: p.Bound, Rows: p.Rows})
	}
	return out
}
