// Package cli is splitscope's command line: the cobra commands, flags and scenario files →
// model.Scenario, the text and JSON output, and the exit codes. main.go calls Execute and nothing
// else. See docs/architecture.md for the command line and JSON contract.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/published"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
	"github.com/splitscope/splitscope/tui/static"
)

// Execute runs the command line args, writing results to stdout and errors to stderr, and
// returns the exit status: 0 ok, 2 bad input, 1 any other failure.
func Execute(args []string, stdout, stderr io.Writer) int {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root := newRootCmd(stdout)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err != nil {
		printError(stderr, cmd, err)
	}
	return exitCode(err)
}

// noArgs rejects positional arguments as bad input, suggesting a subcommand for a near miss.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usagef("%s", msg)
	}
	return usagef("%q takes no arguments, got %q", cmd.CommandPath(), args)
}

func newRootCmd(stdout io.Writer) *cobra.Command {
	sf := &scenarioFlags{}
	var traces []string
	root := &cobra.Command{
		Use:   "splitscope",
		Short: "Model how a transformer splits across GPUs (tensor, context, expert, pipeline and data parallel)",
		Long: `splitscope models how a transformer splits across GPUs: tensor parallelism (TP), context
parallelism (CP: the sequence split), expert parallelism (EP), pipeline parallelism (PP) and data
parallelism (DP), in training and in serving. It answers with the step time and its breakdown, the
pipeline bubble, the exposed communication, throughput, MFU and memory per GPU.

Without a subcommand it opens the explorer on the scenario the flags describe (default:
llama-3-70b training on 32× h100-sxm, four nodes of 8 over nvlink4 joined by ib-ndr: TP 8 inside
each node, PP 4 across the nodes); when stdout is not a terminal, or with
--json, it prints that scenario's report instead.

--scenario FILE.yaml (or tour/NAME, a step of the guided tour) sets the base scenario: its keys
are the flags' names with underscores; flags typed on the command line override them, and what
neither sets takes the defaults below. report --print-scenario writes such a file.

Exit status: 0 ok (a scenario that does not fit in memory is a result), 2 bad input, 1 other failure.`,
		Args:          noArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFlagUse(cmd); err != nil {
				return err
			}
			return sf.checkLang()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf.json && sf.changed("lang") {
				return usagef("%s: --json prints the report, which has no teaching texts", typedFlagText(cmd.Flags().Lookup("lang")))
			}
			return runExplorer(stdout, cmd.ErrOrStderr(), sf, traces)
		},
	}
	addTraceFlag(root, &traces)
	// --version: the module version, VCS revision and Go toolchain from the build information.
	root.Version = buildVersion()
	root.SetVersionTemplate("{{.Version}}")
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if fe := badFlagValue(err); fe != nil {
			return fe // a value that does not parse: the flag and what it allows
		}
		return &usageError{err: err}
	})
	sf.register(root.PersistentFlags())
	root.PersistentFlags().SortFlags = false
	root.Flags().SortFlags = false
	// Each subcommand's help lists the shared flags it takes (flagRules), not all of them.
	tmpl := root.UsageTemplate()
	inherited := "{{if .HasAvailableInheritedFlags}}\n\nGlobal Flags:\n{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}"
	if !strings.Contains(tmpl, inherited) {
		panic("cli: cobra's usage template changed: " + tmpl)
	}
	root.SetUsageTemplate(strings.Replace(tmpl, inherited, "{{sharedFlags .}}", 1))

	root.AddCommand(
		newReportCmd(stdout, sf),
		newSearchCmd(stdout, sf),
		&cobra.Command{
			Use:   "presets",
			Short: "List the embedded models, GPUs and links with their sources; --json",
			Args:  noArgs,
			RunE:  func(_ *cobra.Command, _ []string) error { return runPresets(stdout, sf.json) },
		},
		newValidateCmd(stdout, sf),
		newProbeCmd(stdout, sf),
		newExportCmd(stdout, sf),
		newCommCmd(stdout, sf),
		newCalibrateCmd(stdout, sf),
		newServeCmd(stdout, sf),
	)
	registerCompletions(root) // values of --model, --gpu, --schedule …: completion.go
	// Keep the scenario flags in the order they were registered (grouped by topic) in every help.
	for _, c := range root.Commands() {
		c.InheritedFlags().SortFlags = false
	}
	return root
}

func newReportCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var capacity, printScenario, sweepRate bool
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Evaluate one scenario: step time, breakdown, efficiency and memory; text tables or --json",
		Long: `report evaluates the scenario the flags describe and prints the step time (training: one
optimizer step; inference: serving every request, prefill and decode) split into compute,
recompute, TP/PP/DP communication, bubble and optimizer; the bubble and communication shares;
model and hardware TFLOP/s per GPU, MFU and tokens/s; TTFT and TPOT in inference; memory per GPU
of the fullest GPU against its capacity; one row per pipeline stage; and warnings.

Every flag below applies (--lang, for teaching texts, does not: report refuses it). Flags that set an architecture field (--layers, --hidden, --heads,
--kv-heads, --ffn, --vocab) override the --model preset; calibration flags (--compute-eff,
--memory-eff, --intra-eff, --inter-eff, --reserve-gib) override the preset's value when not 0.
With --json the report is the JSON object of the contract: bytes per GPU, seconds.

--box FILE (repeatable) takes the GPUs, their count per node and the link between them from
boxes saved by probe --save; --capacity adds what fits on the hardware.

--sweep-rate (inference) serves the requests at 16 rates, from 5% to 150% of what the deployment
serves when they all arrive at once, and prints throughput and latency percentiles against the
offered rate, and the goodput: the highest rate whose p90 TTFT and p90 TPOT meet --slo-ttft and
--slo-tpot, with its 95% interval. --requests defaults to 1000 there and is a floor: each rate
serves at least 90 s of arrivals (rate × 90, at most 20000 requests), and with an SLO a run
shorter than a minute or 20 of its requests' stays is served again with what it asks. With Poisson
arrivals (--rate, and every rate of a sweep) latencies are measured over the run's steady window,
the requests that arrived after the warm-up (the server filling) and before the drain (those still
running when the last request arrived), with 95% intervals from 10 batch means; a run too short
for its rate says so in a warning, and one past what the deployment serves says "saturated: the
queue grows at N req/s" (offered less served) rather than only latencies that reflect its length.
A --workload file's stages (a rate schedule) are measured stage by stage, each over its own steady
window, in a table; ITL is every gap between a request's tokens (TPOT is each request's mean gap).

--print-scenario prints the scenario as a scenario file (YAML) instead of evaluating it, for
--scenario: every layout and workload key, preset IDs, overrides where they differ; it takes
neither --json nor --capacity.

Warnings name every setting that has no effect in the scenario (ZeRO with DP = 1, recompute in
inference, …) or that contradicts the hardware (NVLink on a GPU without it, bf16 on V100).`,
		Example: `  splitscope report --model llama-2-70b --gpu l40s --tp 4 --pp 2
  splitscope report --gpus 64 --tp 8 --pp 4 --schedule interleaved --chunks 2 --json
  splitscope report --mode infer --prompt 2048 --gen 512 --requests 32
  splitscope report --mode infer --model llama-3-8b --gpu l40s --gpus 1 --sweep-rate --slo-ttft 500ms --slo-tpot 50ms
  splitscope report --box node0.json --box node1.json --inter ib-ndr --capacity
  splitscope report --scenario tour/pcie --tp 4
  splitscope report --model llama-2-13b --pp 8 --print-scenario > lesson.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printScenario {
				for _, name := range []string{"json", "capacity"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s: --print-scenario writes the scenario file (YAML) and evaluates nothing", name)
					}
				}
				if sf.calibration != "" {
					return usagef("--calibration %s: a scenario file cannot hold a calibration; give --calibration beside --scenario when you use the file", sf.calibration)
				}
				return runPrintScenario(stdout, sf)
			}
			if sweepRate {
				if capacity {
					return usagef("--capacity: --sweep-rate prints the rate sweep alone")
				}
				return runSweepRate(stdout, cmd.ErrOrStderr(), sf)
			}
			return runReport(stdout, cmd.ErrOrStderr(), sf, capacity)
		},
	}
	cmd.Flags().BoolVar(&printScenario, "print-scenario", false, "print the scenario as a --scenario file (YAML) instead of evaluating it (default off)")
	cmd.Flags().BoolVar(&sweepRate, "sweep-rate", false, "inference: serve the requests at 16 offered rates (5% to 150% of the offline throughput), each with at least --requests and 90 s of arrivals (up to 20000 requests), and print throughput and latency percentiles against the rate, with the goodput under --slo-ttft and --slo-tpot and its 95% interval (default off)")
	cmd.Flags().BoolVar(&capacity, "capacity", false, "also print the capacity verdict: the best layout for the model on these GPUs and the largest preset model that fits for inference and for training (JSON key \"capacity\") (default off)")
	return cmd
}

func newSearchCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var (
		top, maxMicroBatch, maxChunks int
		objective                     string
	)
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Rank every layout of the GPUs (TP × PP × DP, schedule, chunks, micro-batch, and the training knobs); --top N, --json",
		Long: `search enumerates every way to split the model over the --gpus GPUs (TP × PP × DP, the
pipeline schedule, interleaving chunks and micro-batch size: every divisor of a replica's batch up
to --max-micro-batch) and, in training, every setting of the knobs not typed: recompute none,
selective or full; sequence parallelism off or on (TP > 1), its all-gather redone or kept; ZeRO
0 to 3 (DP × CP > 1); TP overlap
none, ring or pipe (TP inside a node); the DP sync overlapped or serial (DP × CP > 1); offload none,
optimizer, optimizer+weights, activations, optimizer+activations or all three; the rank order
tp-dp-pp or tp-pp-dp where TP leaves room in a node (in serving too). It keeps for each split the fastest setting that
fits (at the same time, no offload before one) and ranks the feasible splits by the objective;
infeasible ones follow with their reason and the setting that came closest. Each setting's
memory is computed before its time, so one that cannot fit costs almost nothing; a setting never
faster than another that uses no more memory (ZeRO 1 beside ZeRO 2, selective recompute beside
none with fused attention, TP overlap none or pipe beside ring, a serial DP sync beside an
overlapped one, where no offload stream or ZeRO-3 gather hides behind the compute) is not
evaluated, nor one whose makespan and optimizer step are already slower than the split's best.
The line under the title counts the configurations, the evaluated, the pruned, and the best
simulated op by op after the closed-form ranking. Every core is used; the result does not depend
on how many.

In serving (--mode infer) the ranking is a serving engineer's, for every objective but memory
(time, throughput, latency and goodput alike): first the layouts that meet the latency target
(p90 TTFT and TPOT within --slo-ttft and --slo-tpot, when given; with goodput, those that serve
some rate within it), then the objective's figure (time to serve, tokens/s, mean TPOT, goodput),
where figures within ` + fmt.Sprintf("%g%%", 100*costmodel.TieTolerance) + ` of each other are a tie (when requests
arrive at a --rate every layout that keeps up serves the same tokens/s); a tie goes to the
lower p90 end-to-end latency (a request's arrival to its last token; with goodput, at each
layout's goodput rate), then to fewer GPUs a replica (TP × PP), then to less memory per GPU.
Memory, and training, rank by the exact figure, a tie to less memory.

--tp, --pp, --dp, --micro-batch, --schedule and --chunks, when typed, fix that size: search
--tp 8 ranks only the layouts with TP 8. --schedule and --chunks fix the schedule of pipelines
(PP > 1; a single stage has none and runs 1F1B); --chunks above 1 means interleaved. A size no
layout of the GPUs can have is bad input. --recompute, --sequence-parallel and --zero, typed,
keep that value (auto, or not typed: search tries each); so do --sp-gather, --tp-overlap,
--offload and --serial-dp. A --scenario file's layout fixes nothing: search starts from it. The other scenario flags describe the model, the hardware and the
workload.

After the ranking comes the Pareto front of step time (time to serve every request in
inference) against memory per GPU: the feasible layouts that no other layout beats on both,
then the warnings that hold for every layout tried. With --json: {"candidates":[report +
"feasible" + "reason", …], "pareto":[…], "warnings":[…], "counts":{"space", "evaluated",
"pruned_memory", "pruned_dominated", "pruned_bound", "simulated"}}, the --top feasible candidates
best first, then every infeasible one; "pareto" holds the front, fastest first, as the same objects.`,
		Example: `  splitscope search --model llama-2-70b --gpu l40s --intra pcie4
  splitscope search --gpus 64 --objective throughput --top 5 --json
  splitscope search --gpus 64 --tp 8 --schedule interleaved
  splitscope search --model llama-3-70b --gpus 16 --recompute full --zero auto
  splitscope search --box box.json --mode infer
  splitscope search --mode infer --model llama-3-70b --gpu l40s --gpus 8 --requests 500 --objective goodput --slo-ttft 2s --slo-tpot 100ms`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var errs model.ValidationError
			obj, err := costmodel.ParseObjective(objective)
			if err != nil {
				errs = append(errs, enumError("objective", objective, err))
			}
			for _, c := range []struct {
				name      string
				v, lo, hi int
			}{{"top", top, 0, model.MaxGPUs}, {"max-micro-batch", maxMicroBatch, 0, model.MaxBatch}, {"max-chunks", maxChunks, 0, 64}} {
				if c.v < c.lo || c.v > c.hi {
					errs = append(errs, &model.FieldError{Field: c.name, Value: c.v, Allowed: fmt.Sprintf("must be between %d and %d", c.lo, c.hi)})
				}
			}
			if len(errs) > 0 {
				return errs
			}
			if maxChunks == 0 {
				maxChunks = -1 // every interleaving the layers allow
			}
			return runSearch(stdout, cmd, sf, top, costmodel.SearchOptions{Objective: obj, MaxMicroBatch: maxMicroBatch, MaxChunks: maxChunks})
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVar(&top, "top", 10, "feasible layouts to show, best first; 0 shows all")
	fs.StringVar(&objective, "objective", "time", "what to rank by: time (step time, or time to serve all requests), throughput (tokens/s), latency (TPOT in inference, step time in training), memory (per GPU) or goodput (inference: the highest request rate meeting --slo-ttft and --slo-tpot at p90, each rate tried with at least --requests and 90 s of arrivals, up to 20000 requests, more where its requests stay long). In inference all but memory rank the SLO first, then the figure with ties within "+fmt.Sprintf("%g%%", 100*costmodel.TieTolerance)+" broken by p90 end-to-end latency, then fewer GPUs a replica, then memory")
	fs.IntVar(&maxMicroBatch, "max-micro-batch", 0, "largest micro-batch size tried, sequences (every divisor of a replica's batch up to it; 0: every divisor); not with --micro-batch")
	fs.IntVar(&maxChunks, "max-chunks", 8, "largest interleaving tried, virtual stages per GPU (1: none; 0: every one the layers allow, at least a layer a chunk, up to 64); not with --chunks, nor in inference")
	return cmd
}

// loadPresets reads the embedded presets; a failure is a broken build, not bad input.
func loadPresets() (*assets.Presets, error) {
	p, err := assets.Load()
	if err != nil {
		return nil, fmt.Errorf("load presets: %w", err)
	}
	// A scenario file's model: may name a config.json: read it as --model does, bounded.
	p.ModelFile = func(path string) (model.Arch, error) {
		a, fe := readHFConfigFlag(path)
		if fe != nil {
			return a, fmt.Errorf("%s", fe.Allowed)
		}
		return a, nil
	}
	return p, nil
}

// runExplorer starts the explorer on the flags' scenario when stdout is a terminal (and --json
// is off); otherwise it prints the report, so pipes and scripts get text.
func runExplorer(w, errw io.Writer, sf *scenarioFlags, traces []string) error {
	f, ok := w.(*os.File)
	if sf.json || !ok || !term.IsTerminal(f.Fd()) {
		if sf.lesson != "" { // checked all the same, and said: the lesson is the explorer's
			p, err := loadPresets()
			if err != nil {
				return err
			}
			if _, err := loadLesson(sf.lesson, p); err != nil {
				return err
			}
			fmt.Fprintln(errw, "splitscope: warning: --lesson: the lesson runs in the explorer (g); stdout is not a terminal, so this is the report")
		}
		if len(traces) > 0 { // read and checked all the same; the overlay's findings on stderr
			_, s, r, err := evaluateFlags(sf)
			if err != nil {
				return err
			}
			o, err := buildOverlay(traces, s, r)
			if err != nil {
				return err
			}
			defer writeOverlayNote(errw, o)
		}
		return runReport(w, errw, sf, false)
	}
	p, s, err := flagScenario(sf)
	if err != nil {
		return err
	}
	writeWarnings(errw, sf)
	var opts []tui.Option
	if len(sf.box) > 0 {
		// The Box tab shows the saved box(es) instead of probing this machine.
		boxes, err := loadBoxes(sf.box)
		if err != nil {
			return err
		}
		opts = append(opts, tui.WithSavedBox(filepath.Base(sf.box[0]), boxes[0]))
	}
	// Learn and tour texts follow --lang, else the locale.
	opts = append(opts, tui.WithLang(sf.language()))
	// The model row takes a config.json path, read as --model reads one (bounded, by name).
	opts = append(opts, tui.WithModelReader(func(path string) (model.Arch, error) {
		a, fe := readHFConfigFlag(path)
		if fe != nil {
			return a, fe
		}
		return a, nil
	}))
	if sf.calibration != "" {
		if sf.calib != nil {
			opts = append(opts, tui.WithCalibrationFile(filepath.Base(sf.calibration), *sf.calib))
		} else {
			opts = append(opts, tui.WithCalibration(filepath.Base(sf.calibration)))
		}
	}
	if sf.lesson != "" {
		steps, err := loadLesson(sf.lesson, p)
		if err != nil {
			return err
		}
		opts = append(opts, tui.WithLesson(steps))
	}
	if len(traces) > 0 {
		opts = append(opts, tui.WithTraces(traces)) // read in a command, off the Update loop
	}
	return tui.Run(s, p, opts...)
}

// flagScenario loads the presets (with --calibration) and builds the flags' scenario (not for
// search).
func flagScenario(sf *scenarioFlags) (*assets.Presets, model.Scenario, error) {
	p, err := sf.presets()
	if err != nil {
		return nil, model.Scenario{}, err
	}
	s, err := sf.scenario(p, false)
	return p, s, err
}

// evaluateFlags loads the presets, builds the flags' scenario and evaluates it with its timeline.
func evaluateFlags(sf *scenarioFlags) (*assets.Presets, model.Scenario, costmodel.Report, error) {
	p, s, err := flagScenario(sf)
	if err != nil {
		return nil, model.Scenario{}, costmodel.Report{}, err
	}
	r, err := costmodel.Evaluate(s)
	if err != nil {
		return nil, model.Scenario{}, costmodel.Report{}, fmt.Errorf("evaluate: %w", err)
	}
	return p, s, r, nil
}

// runReport evaluates the flags' scenario; with capacity it adds the capacity verdict over the
// preset models. Box warnings go to errw in text mode and into "warnings" with --json.
func runReport(w, errw io.Writer, sf *scenarioFlags, capacity bool) error {
	p, s, r, err := evaluateFlags(sf)
	if err != nil {
		return err
	}
	var capRes *costmodel.CapacityResult
	if capacity {
		c := costmodel.Capacity(s, p.Models, costmodel.SearchOptions{})
		capRes = &c
	}
	var toFit *costmodel.FitChange
	if !r.Memory.Fits {
		if toFit, err = costmodel.MakeItFit(s); err != nil {
			return err
		}
	}
	if sf.json {
		out := reportOutput{Model: jsonModel(s.Arch), ReportJSON: static.JSONReport(r), ToFit: toFit}
		out.Warnings = append(out.Warnings, sf.cliWarnings()...)
		if capRes != nil {
			out.Capacity = jsonCapacity(s, *capRes, len(p.Models))
		}
		return writeJSON(w, out)
	}
	writeWarnings(errw, sf)
	if err := static.RenderReport(w, s, r); err != nil {
		return err
	}
	if !r.Memory.Fits {
		if err := static.RenderToFit(w, toFit); err != nil {
			return err
		}
	}
	if capRes == nil {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return static.RenderCapacity(w, s, *capRes, len(p.Models))
}

// sweepRequests is --requests for a rate sweep when not given: enough requests for the queue to
// reach its steady state at every rate.
const sweepRequests = 1000

// runSweepRate prints throughput and latency against the offered rate, and the goodput.
func runSweepRate(w, errw io.Writer, sf *scenarioFlags) error {
	_, s, err := flagScenario(sf)
	if err != nil {
		return err
	}
	if s.Workload.Mode != model.Infer {
		return usagef("--sweep-rate: a rate sweep serves requests: add --mode infer")
	}
	if s.Workload.Rate > 0 {
		return usagef("--rate %g: --sweep-rate chooses the rates; leave --rate out", s.Workload.Rate)
	}
	if st := s.Workload.StageList(); len(st) > 0 {
		return usagef("--workload %s: its %d stages set the rates, --sweep-rate chooses them; drop stages: from the file or --sweep-rate", sf.workload, len(st))
	}
	if !sf.changed("requests") {
		s.Workload.Requests = sweepRequests
	}
	sw, err := costmodel.SweepRate(s, costmodel.WorkloadSLO(s.Workload))
	if err != nil {
		return err
	}
	if sf.json {
		return writeJSON(w, sw)
	}
	writeWarnings(errw, sf)
	return static.RenderRateSweep(w, s, sw)
}

// runPrintScenario writes the flags' scenario (after --scenario and the flags typed) as a
// scenario file, keeping the --scenario file's title.
func runPrintScenario(w io.Writer, sf *scenarioFlags) error {
	_, s, err := flagScenario(sf)
	if err != nil {
		return err
	}
	_, err = w.Write(assets.MarshalScenario(s, sf.scenarioTitle))
	return err
}

// runSearch ranks the layouts of the flags' scenario, keeping the sizes typed (searchFix).
func runSearch(w io.Writer, cmd *cobra.Command, sf *scenarioFlags, top int, opt costmodel.SearchOptions) error {
	p, err := sf.presets()
	if err != nil {
		return err
	}
	// Layout problems of the starting layout (say --micro-batch 3 with the default DP) are no
	// error here: search sweeps the layout and lists such splits as infeasible.
	s, err := sf.scenario(p, true)
	var ve model.ValidationError
	if err != nil && !(errors.As(err, &ve) && ve.OnlyLayout()) {
		return err
	}
	if opt.Fix, err = sf.searchFix(s); err != nil {
		return err
	}
	if err := searchBoundsUsed(cmd, s, opt.Fix); err != nil {
		return err
	}
	errw := cmd.ErrOrStderr()
	res, err := costmodel.Search(s, opt)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if sf.json {
		out := jsonSearch(s, res, top)
		out.Warnings = append(out.Warnings, sf.cliWarnings()...)
		return writeJSON(w, out)
	}
	writeWarnings(errw, sf)
	return static.RenderSearch(w, s, res, top)
}

func runPresets(w io.Writer, asJSON bool) error {
	p, err := loadPresets()
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(w, jsonPresets(p))
	}
	return static.RenderPresets(w, p)
}

func runValidate(w io.Writer, asJSON bool) error {
	p, err := loadPresets()
	if err != nil {
		return err
	}
	var h published.Selene
	if h.A100, err = p.GPU("a100-sxm-80gb"); err != nil {
		return err
	}
	if h.NVLink3, err = p.Link("nvlink3"); err != nil {
		return err
	}
	if h.IBHDR, err = p.Link("ib-hdr"); err != nil {
		return err
	}
	checks, err := published.Validate(h)
	if err != nil {
		return err
	}
	comm, err := published.CommChecks(p.Link)
	if err != nil {
		return err
	}
	checks = append(checks, comm...)
	params, err := published.ParamChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, params...)
	serve, err := published.ServeChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, serve...)
	spec, err := published.SpecChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, spec...)
	moe, err := published.MoEChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, moe...)
	cp, err := published.CPChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, cp...)
	l3, err := published.Llama3Checks(p)
	if err != nil {
		return err
	}
	checks = append(checks, l3...)
	cpServe, err := published.CPServeChecks(p)
	if err != nil {
		return err
	}
	checks = append(checks, cpServe...)
	h100, err := p.GPU("h100-sxm")
	if err != nil {
		return err
	}
	checks = append(checks, published.GEMMChecks(h100)...)
	ampere := map[string]model.GPU{}
	for id := range published.AmpereLinearRows() {
		g, err := p.GPU(id)
		if err != nil {
			return err
		}
		ampere[id] = g
	}
	checks = append(checks, published.AmpereGEMMChecks(ampere)...)
	sched, err := published.ScheduleChecks()
	if err != nil {
		return err
	}
	checks = append(checks, sched...)
	if asJSON {
		return writeJSON(w, map[string]any{"checks": checks})
	}
	return static.RenderValidation(w, checks)
}

// writeJSON writes v indented, with <, > and & left readable.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
