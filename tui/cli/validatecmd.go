package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/assets/benchres"
	"github.com/splitscope/splitscope/assets/trainlog"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// maxResultFiles bounds the result files one validate --against reads.
const maxResultFiles = 256

func newValidateCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var against []string
	cmd := &cobra.Command{
		Use:   "validate [--against FILE…]",
		Short: "Print the cost model against the published figures it is checked on, or against your own serving benchmarks and training logs (--against FILE); --json",
		Long: `validate evaluates the calibration and hold-out checks of the cost model: the nccl-tests
all-reduce sweep on 8×A100, Korthikanti et al.'s Figure 1 memory, Megatron-LM's Table 1 step
times and Korthikanti et al.'s 530B MFU (not fitted), the collectives and serving runs, one
GEMM alone by shape against XLA's measured H100 table and vLLM's linear layers at 1–64 tokens on
an A100 and an A10, each published value beside the model's. It uses the a100-sxm-80gb,
h100-sxm, a10g, nvlink3 and ib-hdr presets (and the serving runs' own) and takes no scenario
flags.

--against FILE (repeat it, or list more files after it) compares the model with your own serving
benchmarks instead: the result JSON of vllm bench serve --save-result (or vLLM's older
benchmarks/benchmark_serving.py) and the JSON Lines of SGLang's python -m sglang.bench_serving
(one run a line). Each run is served in the model as it ran: its request rate (Poisson; "inf":
every request at once) or its clients (max_concurrency), its number of prompts, its prompt and
output lengths (the per-request lists when the file keeps them, --save-detailed or
--output-details: their mean, range and spread; else the totals' means, and a random dataset's
range), the engine its backend names. What the file does not say comes from the scenario flags:
the model when the file names none or no preset matches it (--model, a preset or a config.json),
the GPU (--gpu; a run's gpu_name metadata when present), how many (--gpus, default the file's
gpu_count, else TP × PP × DP), the layout (--tp, --pp, --dp), --engine, --weights, --kv-cache,
--max-seqs, --calibration, … Flags for what the file says (--rate, --concurrency, --requests,
--prompt, --gen, --workload, --mode) are refused.

Each figure the file has is printed beside the model's with the error, predicted / measured − 1:
TTFT, TPOT, ITL and end-to-end latency (mean, median, p90, p99), request and output (and total)
token throughput, the model's over every request, warm-up and drain included, as the
benchmarks' (a run at a rate is served as a schedule of one stage, not measured over its steady
window as report does). A file holding only some of them is compared on those;
std and other percentiles are named as not compared. The summary is the mean size of the errors
and the worst. With --json: {"runs": [{"file", "metrics": [{"name", "measured", "predicted",
"error"}]}], "mean_abs_error", "worst"}, seconds and per second. A file that is not such a
result, is cut short, or lacks what a run needs (completed, duration, request_rate, the lengths;
a model and a GPU from the file or the flags) is bad input (exit 2) naming the file, the line and
the field.

A trtllm-bench report (TensorRT-LLM's throughput or latency subcommand: its printed report, of
releases 0.12 on, or its --report_json) is compared too, told by its lines or keys: its model,
TP and PP, max runtime batch size and tokens (--max-seqs, --max-batch-tokens), quantization and
KV cache dtype (--weights, --kv-cache), its requests and their mean lengths, served by the trtllm
engine with every request at once (latency's max batch size 1: one at a time; the report does
not print a --concurrency), the GPU from its MACHINE DETAILS where printed, else --gpu. Compared:
request, output and total token throughput, the mean latency and its percentiles, TTFT and TPOT
where streaming printed them, per-user output tokens/s (the output tokens over the model's mean
latency) and per-GPU output tokens/s.

A training log (text, told from the JSON by its lines) is compared too: Megatron-LM's console
output (its iteration lines, memory reports and logged arguments) or torchtitan's (its step lines,
and its configuration where printed). What the log says sets the scenario (the layout: TP, PP, DP,
EP, virtual stages, the GPUs; the model's sizes, matched against the presets, else the model built
from them; the sequence, the batch and micro-batch, the number format, recomputation, sequence
parallelism, the distributed optimizer as ZeRO-1, FSDP as ZeRO-3), the flags the rest (--gpu,
the links, --model when the sizes name no single preset, --seq and --batch where it does not say
them); a logged setting that contradicts a flag typed is refused naming both, as is context
parallelism. The logged lines whose interval includes iteration 1 (the warm-up) are skipped, the
rest averaged: step_time_s, tflops_per_gpu (the trainer's model FLOPs beside the model's),
tokens_per_s_per_gpu (torchtitan's tps: the job's tokens/s over its GPUs) and peak_memory_bytes
(the fullest GPU: Megatron's largest "max allocated", torchtitan's reserved peak, beside the
model's memory without its reserve for the CUDA context), those the log has.`,
		Example: `  splitscope validate
  splitscope validate --against vllm-16qps.json --gpu h100-pcie
  splitscope validate --against run.json --model llama-3-8b --gpu rtx-4090 --json
  splitscope validate --against online.jsonl --model llama-3-70b --gpu h200-sxm --gpus 4 --tp 4
  splitscope validate --against pretrain_gpt.log --gpu h100-sxm
  splitscope validate --against trtllm-throughput.txt --model llama-3-8b --gpu h100-sxm`,
		Args: cobra.ArbitraryArgs, // more result files after --against
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("against") {
				if err := noArgs(cmd, args); err != nil {
					return err
				}
				return runValidate(stdout, sf.json)
			}
			return runValidateAgainst(stdout, cmd.ErrOrStderr(), sf, append(append([]string(nil), against...), args...))
		},
	}
	cmd.Flags().StringArrayVar(&against, "against", nil, "serving benchmark result or training log `FILE` to compare the model with: vllm bench serve --save-result JSON, sglang.bench_serving JSON Lines, a trtllm-bench report (text or --report_json), a Megatron-LM or torchtitan log; repeat it, or list more files after it (default none: the published checks)")
	return cmd
}

// benchRun is one run read, with the file as the user named it.
type benchRun struct {
	path string
	run  model.ServeBench
}

// where names a run in messages and output: the path, and the line for a run of a JSON Lines file.
func (b benchRun) where() string {
	if b.run.Runs > 1 {
		return b.path + ":" + strconv.Itoa(b.run.Line)
	}
	return b.path
}

// runValidateAgainst reads the result files, serves each run in the model and prints the figures
// beside the model's. Every problem with the files is found before anything is printed.
func runValidateAgainst(w, errw io.Writer, sf *scenarioFlags, files []string) error {
	if len(files) == 0 {
		return usagef("--against needs a FILE: a vllm bench serve --save-result JSON or sglang.bench_serving JSON Lines")
	}
	if len(files) > maxResultFiles {
		return &model.FieldError{Field: "against", Value: fmt.Sprintf("%d files", len(files)), Allowed: fmt.Sprintf("at most %d result files", maxResultFiles)}
	}
	for i, f := range files {
		for _, g := range files[:i] {
			if resolvePath(f) == resolvePath(g) {
				return &model.FieldError{Field: "against", Value: f, Allowed: "given twice: each file once"}
			}
		}
	}
	runs, trains, err := readRunFiles("against", files)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		for _, name := range []string{"seq", "batch", "micro-batch"} {
			if sf.changed(name) {
				return usagef("--%s %s: %s; it is for a training log that does not say it", name, sf.fs.Lookup(name).Value.String(), againstWorkload)
			}
		}
	}

	p, err := sf.presets()
	if err != nil {
		return err
	}
	typed := map[string]bool{}
	for _, name := range append([]string{"model", "gpu", "gpus", "gpus-per-node", "tp", "pp", "dp", "engine", "box", "scenario",
		"max-seqs", "max-batch-tokens", "weights", "kv-cache"}, trainFlags...) {
		typed[name] = sf.changed(name)
	}
	// Each run's scenario first: a run that cannot be served is refused before any is.
	type served struct {
		benchRun
		s        model.Scenario
		warnings []string
	}
	var todo []served
	var refused refusals
	for _, br := range runs {
		s, warn, err := benchScenario(sf, p, br, typed)
		if err != nil {
			refused.add(br, err)
			continue
		}
		todo = append(todo, served{br, s, warn})
	}
	// The training logs' scenarios after the serving runs' (each resets the flags it sets).
	type trained struct {
		trainRun
		s        model.Scenario
		note     string
		warnings []string
	}
	var trainTodo []trained
	for _, tr := range trains {
		s, note, warn, err := trainScenario(sf, p, tr, typed)
		if err != nil {
			refused.add(benchRun{path: tr.path}, err)
			continue
		}
		trainTodo = append(trainTodo, trained{tr, s, note, warn})
	}
	if err := refused.err(); err != nil {
		return err
	}
	out := make([]static.AgainstRun, 0, len(todo))
	var warnings []string
	for _, t := range todo {
		r, err := costmodel.Evaluate(t.s)
		if err != nil {
			return fmt.Errorf("%s: evaluate: %w", t.where(), err)
		}
		if r.Inference == nil {
			return fmt.Errorf("%s: the model served no requests", t.where())
		}
		ar := compareRun(t.benchRun, t.s, *r.Inference)
		if len(ar.Metrics) == 0 {
			return &inputError{err: fmt.Errorf("%s: no figure the model predicts (it gives the mean, median, p90 and p99 of ttft, tpot, itl and e2e, and request, output and total token throughput); the file has %s",
				t.where(), strings.Join(ar.Skipped, ", "))}
		}
		out = append(out, ar)
		for _, wn := range append(append(append([]string(nil), t.run.Warnings...), t.warnings...), r.Warnings...) {
			// The file fixes the requests: the report's advice to serve more does not apply.
			if i := strings.Index(wn, "; use --requests"); i >= 0 {
				wn = wn[:i]
			}
			warnings = append(warnings, t.where()+": "+wn)
		}
	}
	for _, t := range trainTodo {
		r, err := costmodel.Evaluate(t.s)
		if err != nil {
			return fmt.Errorf("%s: evaluate: %w", t.path, err)
		}
		out = append(out, compareTrain(t.trainRun, t.s, t.note, r))
		for _, wn := range append(append(append([]string(nil), t.log.Warnings...), t.warnings...), r.Warnings...) {
			warnings = append(warnings, t.path+": "+wn)
		}
	}
	for _, wn := range warnings {
		fmt.Fprintf(errw, "splitscope: warning: %s\n", wn)
	}
	if sf.json {
		meanAbs, worst, _ := static.AgainstSummary(out)
		return writeJSON(w, struct {
			Runs         []static.AgainstRun `json:"runs"`
			MeanAbsError float64             `json:"mean_abs_error"`
			Worst        float64             `json:"worst"`
		}{out, meanAbs, worst})
	}
	return static.RenderAgainst(w, out)
}

// refusals gathers the runs that cannot be served, one line per file and problem: the runs of a
// JSON Lines file that miss the same field are one line, naming the first and the others' lines.
type refusals struct {
	lines []string
	runs  map[string][]int // by message without the run's place: the lines of the runs
	first map[string]int   // the message's index in lines
	usage bool             // one of them is bad input (exit 2)
}

func (r *refusals) add(br benchRun, err error) {
	if r.runs == nil {
		r.runs, r.first = map[string][]int{}, map[string]int{}
	}
	r.usage = r.usage || exitCode(err) == exitUsage
	msg := err.Error()
	key := br.path + "\x00" + strings.TrimPrefix(msg, br.where()+": ")
	if _, ok := r.first[key]; !ok {
		r.first[key] = len(r.lines)
		r.lines = append(r.lines, msg)
	}
	r.runs[key] = append(r.runs[key], br.run.Line)
}

func (r *refusals) err() error {
	if len(r.lines) == 0 {
		return nil
	}
	out := slices.Clone(r.lines)
	for key, i := range r.first {
		if more := r.runs[key][1:]; len(more) > 0 {
			var ls []string
			for _, l := range more[:min(len(more), 10)] {
				ls = append(ls, strconv.Itoa(l))
			}
			if len(more) > 10 {
				ls = append(ls, fmt.Sprintf("… (%d runs)", len(more)))
			}
			out[i] += " (the same on lines " + strings.Join(ls, ", ") + ")"
		}
	}
	err := errors.New(strings.Join(out, "\n"))
	if r.usage {
		return &inputError{err: err}
	}
	return err
}

// benchScenario is the scenario a run describes: the flags' for what it does not say (the
// hardware, the layout, the engine's settings), the file's model, GPU and workload where the
// flags do not set them. Problems name the run's file and line.
func benchScenario(sf *scenarioFlags, p *assets.Presets, br benchRun, typed map[string]bool) (model.Scenario, []string, error) {
	b, at := br.run, br.where()
	var warnings []string
	set := func(name, value string) error {
		if err := sf.fs.Set(name, value); err != nil {
			return fmt.Errorf("%s: --%s %s: %w", at, name, value, err)
		}
		return nil
	}
	refuse := func(format string, args ...any) error {
		return &inputError{err: fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))}
	}
	modelField, gpuField := "model_id", "gpu_name"
	if b.Tool == model.ToolSGLang {
		modelField = "server_info.model_path"
	}
	if b.ModelField != "" {
		modelField, gpuField = b.ModelField, b.GPUField
	}
	switch {
	case typed["model"] || typed["scenario"]:
		if a, ok := benchres.MatchModel(b.Model, p.Models); b.Model != "" && (!ok || a.ID != sf.model) {
			warnings = append(warnings, fmt.Sprintf("%s %s served as --model %s", modelField, b.Model, sf.model))
		}
	case b.Model == "":
		return model.Scenario{}, nil, refuse("%s: missing: the file does not name its model; give --model (a preset ID, or a Hugging Face config.json)", modelField)
	default:
		a, ok := benchres.MatchModel(b.Model, p.Models)
		if !ok {
			return model.Scenario{}, nil, refuse("%s = %s: no preset is this model; give --model (a preset ID: %s; or the model's config.json)",
				modelField, b.Model, strings.Join(p.ModelIDs(), ", "))
		}
		if err := set("model", a.ID); err != nil {
			return model.Scenario{}, nil, err
		}
	}
	if !typed["gpu"] && !typed["box"] && !typed["scenario"] {
		if b.GPUName == "" {
			return model.Scenario{}, nil, refuse("%s: missing: the file does not say which GPU ran it; give --gpu (%s)", gpuField, strings.Join(p.GPUIDs(), ", "))
		}
		g, ok := gpu.MatchGPU(b.GPUName, p.GPUs)
		if !ok {
			return model.Scenario{}, nil, refuse("%s = %s: no GPU preset matches; give --gpu (%s)", gpuField, b.GPUName, strings.Join(p.GPUIDs(), ", "))
		}
		if err := set("gpu", g.ID); err != nil {
			return model.Scenario{}, nil, err
		}
	}
	// What the file says of the layout and the engine's runtime (SGLang's tp_size; a trtllm-bench
	// report's TP, PP, max batch size and tokens, its weights' and KV cache's formats) where no
	// flag is typed; the flag's default where the file does not say, so that nothing carries from
	// one run to the next.
	for _, kv := range []struct {
		name, value string
	}{{"tp", itoaPos(b.TP)}, {"pp", itoaPos(b.PP)}, {"max-seqs", itoaPos(b.MaxBatch)}, {"max-batch-tokens", itoaPos(b.MaxTokens)},
		{"weights", b.Weights}, {"kv-cache", b.KVCache}} {
		if typed[kv.name] || typed["scenario"] {
			continue
		}
		if kv.value == "" { // back to the default, as if not typed
			fl := sf.fs.Lookup(kv.name)
			if err := fl.Value.Set(fl.DefValue); err != nil {
				return model.Scenario{}, nil, err
			}
			fl.Changed = false
			continue
		}
		if err := set(kv.name, kv.value); err != nil {
			return model.Scenario{}, nil, err
		}
	}
	if !typed["gpus"] && !typed["box"] && !typed["scenario"] {
		n := b.GPUCount
		if n == 0 {
			// One server: its TP × PP × DP, each 1 when not given.
			n = 1
			for _, name := range []string{"tp", "pp", "dp"} {
				if v, _ := strconv.Atoi(sf.fs.Lookup(name).Value.String()); v > 0 {
					n *= v
				}
			}
		}
		if err := set("gpus", strconv.Itoa(n)); err != nil {
			return model.Scenario{}, nil, err
		}
		if !typed["gpus-per-node"] && n < defaultGPUsPerNode {
			if err := set("gpus-per-node", strconv.Itoa(n)); err != nil {
				return model.Scenario{}, nil, err
			}
		}
	}
	if !typed["engine"] {
		if err := set("engine", b.Engine); err != nil {
			return model.Scenario{}, nil, err
		}
	}
	requests := b.Prompts
	if requests == 0 {
		requests = b.Completed
	}
	rate, clients := b.Rate, b.Concurrency
	if clients > 0 && rate > 0 {
		warnings = append(warnings, fmt.Sprintf("request_rate %g with max_concurrency %d: served as a closed loop of %d clients (splitscope takes one or the other)", rate, clients, clients))
		rate = 0
	}
	for _, kv := range [][2]string{
		{"mode", "infer"}, {"requests", strconv.Itoa(requests)}, {"rate", strconv.FormatFloat(rate, 'g', -1, 64)},
		{"concurrency", strconv.Itoa(clients)},
		{"prompt", strconv.Itoa(max(int(math.Round(b.Prompt.Mean)), 1))}, {"gen", strconv.Itoa(max(int(math.Round(b.Gen.Mean)), 1))},
	} {
		if err := set(kv[0], kv[1]); err != nil {
			return model.Scenario{}, nil, err
		}
	}
	s, err := sf.scenario(p, false)
	if err != nil {
		return s, nil, fmt.Errorf("%s: %w", at, err)
	}
	s.Workload.PromptDist, s.Workload.GenDist = lengthDist(b.Prompt), lengthDist(b.Gen)
	if pl, gl, ok := requestLengths(b); ok {
		// Each request's own lengths, in the file's order, prompt and output together.
		s.Workload.PromptDist, s.Workload.GenDist = &pl, &gl
	} else if (b.Tool == model.ToolVLLM || b.Tool == model.ToolSGLang) && (s.Workload.PromptDist == nil || s.Workload.GenDist == nil) {
		warnings = append(warnings, fmt.Sprintf("no per-request lengths (input_lens, output_lens): every request served at the mean length, %.0f prompt and %.0f output tokens; "+
			"a dataset of spread lengths (ShareGPT) served at its mean can be far off (IOG's ShareGPT run of Llama-3-8B on an H100 PCIe at 16 req/s: requests/s +51%% served this way); "+
			"save the run with vllm bench serve --save-detailed (SGLang: --output-details)", b.Prompt.Mean, b.Gen.Mean))
	}
	s.Workload.Offline = b.Tool == model.ToolTRTLLM // trtllm-bench hands the engine token ids
	if w := &s.Workload; w.Rate > 0 {
		// A benchmark's figures are over every request, warm-up and drain included: served as a
		// schedule of one stage, the model's are too (a single rate's are over its steady window).
		w.Stages, w.Rate = &model.RateStages{{Rate: w.Rate, Requests: w.Requests}}, 0
	}
	if err := s.Validate(); err != nil {
		return s, nil, fmt.Errorf("%s: %w", at, err)
	}
	return s, append(warnings, sf.cliWarnings()...), nil
}

// requestLengths are the lengths of each completed request the file kept (vLLM's input_lens and
// output_lens, SGLang's with --output-details), as two Lists in the file's order; a failed
// request (output 0) is left out of both. ok is false when the file kept none, or two lists of
// different lengths.
func requestLengths(b model.ServeBench) (prompt, gen model.LengthDist, ok bool) {
	if len(b.InputLens) == 0 || len(b.InputLens) != len(b.OutputLens) {
		return prompt, gen, false
	}
	var in, out []int
	for i, n := range b.InputLens {
		if n >= 1 && b.OutputLens[i] >= 1 {
			in, out = append(in, n), append(out, b.OutputLens[i])
		}
	}
	if len(in) == 0 {
		return prompt, gen, false
	}
	return model.ListDist(in), model.ListDist(out), true
}

// lengthDist is the distribution the model draws a run's lengths from: the random dataset's
// uniform range, the per-request lists' spread (lognormal with their mean and the spread of
// their logarithm, clipped to their range), else every request at the mean.
func lengthDist(l model.BenchLengths) *model.LengthDist {
	switch {
	case l.Uniform && l.Min >= 1 && l.Max > l.Min:
		return &model.LengthDist{Kind: model.Uniform, Min: l.Min, Max: l.Max}
	case l.LogSigma > 0 && l.Min >= 1 && l.Max > l.Min:
		return &model.LengthDist{Kind: model.LogNormal, Mean: l.Mean, Sigma: l.LogSigma, Min: l.Min, Max: l.Max}
	}
	return nil // the mean, --prompt and --gen
}

// compareRun sets the model's figure beside each one the run measured.
func compareRun(br benchRun, s model.Scenario, inf costmodel.Inference) static.AgainstRun {
	b := br.run
	ar := static.AgainstRun{File: br.where(), Scenario: describeRun(b, s)}
	for _, m := range b.Metrics {
		pred, ok := predicted(m, inf)
		switch m.Quantity { // trtllm-bench's per-user and per-GPU output throughputs
		case "per_user_output_tokens_per_s":
			pred, ok = float64(s.Workload.GenTokens)/inf.E2EMean, inf.E2EMean > 0
		case "per_gpu_output_tokens_per_s":
			pred, ok = inf.OutputTokensPerS/float64(s.Cluster.GPUs), true
		}
		switch {
		case !ok:
			ar.Skipped = append(ar.Skipped, m.Field)
		case !(m.Value > 0):
			ar.Skipped = append(ar.Skipped, m.Field+" (0)")
		default:
			ar.Metrics = append(ar.Metrics, static.AgainstMetric{Name: m.Name(), Measured: m.Value, Predicted: pred, Error: pred/m.Value - 1})
		}
	}
	return ar
}

// predicted is the model's figure for a measured one; ok is false when the model gives none
// (std, p95, p100, input throughput). Every figure is over every request, as a benchmark's is
// (benchScenario serves a run at a rate as a one-stage schedule).
func predicted(m model.BenchMetric, inf costmodel.Inference) (float64, bool) {
	ttft, tpot := inf.TTFT, inf.TPOT
	if c := inf.Confidence; c != nil {
		ttft, tpot = c.WholeTTFTMean, c.WholeTPOTMean
	}
	stats := map[string][4]float64{
		"ttft": {ttft, inf.TTFTP50, inf.TTFTP90, inf.TTFTP99},
		"tpot": {tpot, inf.TPOTP50, inf.TPOTP90, inf.TPOTP99},
		"itl":  {inf.ITL, inf.ITLP50, inf.ITLP90, inf.ITLP99},
		"e2e":  {inf.E2EMean, inf.E2EP50, inf.E2EP90, inf.E2EP99},
	}
	switch m.Quantity {
	case "requests_per_s":
		return inf.RequestsPerS, true
	case "output_tokens_per_s":
		return inf.OutputTokensPerS, true
	case "total_tokens_per_s":
		return inf.TotalTokensPerS, true
	}
	st, ok := stats[m.Quantity]
	if !ok {
		return 0, false
	}
	switch m.Stat {
	case "mean":
		return st[0], true
	case "median":
		return st[1], true
	case "p90":
		return st[2], true
	case "p99":
		return st[3], true
	}
	return 0, false
}

// describeRun is the scenario a run was served as, in one line.
func describeRun(b model.ServeBench, s model.Scenario) string {
	l := s.Layout
	traffic := "every request at once"
	switch w := s.Workload; {
	case w.Concurrency > 0:
		traffic = fmt.Sprintf("%d clients", w.Concurrency)
	case len(w.StageList()) == 1:
		traffic = fmt.Sprintf("%g req/s", w.StageList()[0].Rate)
	}
	return fmt.Sprintf("%s: %s on %d× %s, TP %d PP %d DP %d, engine %s · %d requests, %s · prompts %s, outputs %s",
		b.Tool, s.Arch.ID, s.Cluster.GPUs, s.Cluster.GPU.ID, l.TP, l.PP, l.DP, engineName(s.Workload.Engine),
		s.Workload.Requests, traffic, servedLength(b.Prompt, s.Workload.PromptDist), servedLength(b.Gen, s.Workload.GenDist))
}

// servedLength is lengthText, or what a List of each request's lengths holds.
func servedLength(l model.BenchLengths, d *model.LengthDist) string {
	if d != nil && d.Kind == model.List {
		return fmt.Sprintf("each request's own (%s: %d, mean %.0f, %d–%d)", l.From, len(d.Values), d.Mean, d.Min, d.Max)
	}
	return lengthText(l)
}

// itoaPos is n in decimal, "" for 0 (not said).
func itoaPos(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func engineName(id string) string {
	if id == "" {
		return "vllm"
	}
	return id
}

func lengthText(l model.BenchLengths) string {
	switch {
	case l.Uniform:
		return fmt.Sprintf("%d–%d (uniform, mean %.0f)", l.Min, l.Max, l.Mean)
	case l.LogSigma > 0:
		return fmt.Sprintf("mean %.0f, %d–%d (%s)", l.Mean, l.Min, l.Max, l.From)
	}
	return fmt.Sprintf("%.0f (%s)", l.Mean, l.From)
}

// readRunFiles reads the files given to --flag (validate --against, calibrate --from): each a
// serving benchmark's results (vLLM, SGLang, trtllm-bench: one or more runs) or a training log
// (Megatron-LM, torchtitan), told apart by their content; every bad file is one line of the
// error, none read in part.
func readRunFiles(flag string, files []string) (runs []benchRun, trains []trainRun, err error) {
	var bad []string
	for _, f := range files {
		data, err := readBoundedFile(flag, f, benchres.MaxBytes, "a benchmark result")
		if err != nil {
			var fe *model.FieldError
			if errors.As(err, &fe) {
				bad = append(bad, fmt.Sprintf("--%s %s: %s", flag, f, fe.Allowed))
				continue
			}
			return nil, nil, err
		}
		if !benchres.IsTRTLLM(data) && trainlog.Detect(data) { // text, not JSON: a training log
			t, err := trainlog.Read(f, data)
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			trains = append(trains, trainRun{path: f, log: t})
			continue
		}
		rs, err := benchres.Read(f, data)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		for _, r := range rs {
			runs = append(runs, benchRun{path: f, run: r})
		}
	}
	if len(bad) > 0 {
		return nil, nil, &inputError{err: errors.New(strings.Join(bad, "\n"))}
	}
	return runs, trains, nil
}
