// Package trainlog reads what training runs logged: Megatron-LM's and torchtitan's console logs,
// into model.TrainLog: the settings the log states (the layout, the model's sizes, the sequence,
// the batch, the number format, recomputation) and the figures it measured (the time of an
// iteration, model TFLOP/s per GPU, tokens/s per GPU, the peak memory), averaged over the logged
// iterations after the warm-up. It reads bytes and returns plain data; the command line reads the
// file (bounded) and hands the run to the cost model.
//
// The formats, from the tools' own source:
//
//   - Megatron-LM, megatron/training/training.py `training_log` (NVIDIA/Megatron-LM at
//     d96d76c06819): every --log-interval iterations one line, printed by the last rank,
//     " [date] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration
//     (ms): {:.1f} | throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} | global
//     batch size: {:5d} | lm loss: {:.6E} | … | number of skipped iterations: {:3d} | number of
//     nan iterations: {:3d} |", the time being the mean over the interval's iterations and the
//     throughput (with --log-throughput) num_floating_point_operations / (time × 10¹² ×
//     world_size); the first iteration is logged on its own. megatron/training/utils/common_utils.py
//     `report_memory`: "[Rank R] (after N iterations) memory (MB) | allocated: … | max allocated:
//     … | reserved: … | max reserved: …", one line per rank of the first data-parallel replica,
//     after the first iterations (and every --log-memory-interval). megatron/training/arguments.py
//     `_print_args`: "------------------------ arguments ------------------------", then one
//     line per argument, sorted, "  name ....... value" (dots to 48 columns), and
//     `validate_args`: "using world size: W, data-parallel size: D, context-parallel size: C,
//     … tensor-model-parallel size: T, pipeline-model-parallel size: P".
//   - torchtitan, torchtitan/components/metrics.py `MetricsProcessor.log` (pytorch/torchtitan at
//     c13b9d66b6c6): every --metrics.log_freq steps, each logging rank prints "step: {step:2}
//     loss: {:8.5f}  grad_norm: {:7.4f}  memory: {max_reserved_gib:5.2f}GiB({pct:.2f}%)  tps:
//     {round(tps):,}  tflops: {:,.2f}  mfu: {:.2f}%" (ANSI colours between the fields), tps being
//     the tokens per second per GPU over the interval (the tokens a data-parallel rank saw ÷ the
//     time ÷ its model-parallel GPUs) and memory the peak the caching allocator reserved; older
//     versions printed "wps:" for tps and no tflops. torchtitan/trainer.py logs "Building
//     {name} {flavor} with {ModelArgs(dim=…, n_layers=…, n_heads=…, n_kv_heads=…, vocab_size=…,
//     multiple_of=…, ffn_dim_multiplier=…)}" (older versions), "CUDA capacity: {GPU} with
//     {N}GiB memory", "Applied {full,selective} activation checkpointing to the model", "Building
//     N-D device mesh with [names], [sizes]", and with --debug.print_config the job's
//     configuration (JSON, or the job TOML echoed by a launcher), whose parallelism and training
//     keys are read: tensor_parallel_degree, pipeline_parallel_degree, context_parallel_degree,
//     expert_parallel_degree, data_parallel_shard_degree, data_parallel_replicate_degree,
//     seq_len, local_batch_size, global_batch_size, log_freq, mixed_precision_param.
//
// The warm-up: the first iteration compiles, allocates and creates the optimizer's state (both
// trainers log it on its own), so a logged line whose interval includes iteration 1 is not
// averaged (WarmupIterations); a line's interval runs from the line logged before it, or back
// --log-interval (Megatron's logged arguments) or log_freq (torchtitan's configuration) when the
// log states it, else the smallest step between two logged lines, whichever is later. The rest are averaged with equal weights, each line being already
// the mean of one interval; the peak memory is the largest logged (a running peak).
//
// Every problem names the file, the line and the field.
package trainlog

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// Bounds on what one log may hold.
const (
	// MaxBytes bounds a log: a run of 100,000 logged iterations with its arguments is ~50 MiB;
	// every rank's output interleaved, a few times that.
	MaxBytes = 256 << 20
	// MaxLineBytes bounds one line: a configuration printed on one line is a few KiB.
	MaxLineBytes = 1 << 20
	// WarmupIterations are the first iterations, which a logged interval must not include to be
	// averaged: the first compiles, allocates and creates the optimizer's state (Megatron-LM logs
	// it on its own "to document initialization overhead", torchtitan too).
	WarmupIterations = 1
	// maxValue bounds a figure: larger is not a measurement.
	maxValue = 1e15
)

// Error is a problem with a log: the file, the line (0 when the file as a whole), the field
// ("" when none), the value as written and what is wrong.
type Error = assets.FileError

// Detect says whether data is to be read as a training log rather than a serving benchmark's
// JSON: it does not open a JSON object (its first character, after blanks and a byte-order mark)
// and it has a line of Megatron-LM's or torchtitan's log. Other text (and an empty file) is left
// to the JSON reader, which says what it is not.
func Detect(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] == '{' {
		return false
	}
	for _, marker := range detectMarkers {
		if bytes.Contains(data, []byte(marker)) {
			return true
		}
	}
	return false
}

// detectMarkers are text only the trainers' logs have.
var detectMarkers = []string{"elapsed time per iteration", "consumed samples:", ") memory (MB)", ") memory (GB)", "[titan]",
	" tps: ", " wps: ", "mtps: ", "mwps: ", "------------------------ arguments", "using world size:"}

var (
	reANSI = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// Megatron-LM.
	reIter     = regexp.MustCompile(`^iteration\s+(\d+)\s*/\s*(\d+)\s*\|`)
	reMemory   = regexp.MustCompile(`\[Rank (\d+)\] \(after (\d+) iterations\) memory \((MB|GB)\)(.*)$`)
	reArg      = regexp.MustCompile(`(?:^|\s)([a-z][a-z0-9_]*) \.{3,} (.*?)\s*$`)
	reWorld    = regexp.MustCompile(`using world size: (\d+), (.*)$`)
	reSizeOf   = regexp.MustCompile(`([a-z-]+) size: (\d+)`)
	reTitStep  = regexp.MustCompile(`(?:^|[^a-z_])step:\s*(\d+)\s+(.*)$`)
	reTitMem   = regexp.MustCompile(`\bmemory:\s*([0-9.]+)GiB\(([0-9.]+)%\)`)
	reTitTPS   = regexp.MustCompile(`\b(tps|wps):\s*([0-9][0-9,]*(?:\.[0-9]*)?)`)
	reTitTFL   = regexp.MustCompile(`\btflops:\s*([0-9][0-9,]*(?:\.[0-9]*)?)`)
	reTitArgs  = regexp.MustCompile(`\b(?:Building|Model) (\S+) (\S+) with \w*ModelArgs\((.*)\)`)
	reKV       = regexp.MustCompile(`\b([a-z_]+)=([^,()]+)`)
	reTitGPU   = regexp.MustCompile(`\b(?:CUDA|ROCM|XPU) capacity: (.+?) with ([0-9.]+)GiB memory`)
	reTitAC    = regexp.MustCompile(`Applied (full|selective) activation checkpointing`)
	reTitMesh  = regexp.MustCompile(`Building \d+-D device mesh with \[([^\]]*)\], \[([^\]]*)\]`)
	reTitKey   = regexp.MustCompile(`\b(tensor_parallel_degree|pipeline_parallel_degree|context_parallel_degree|expert_parallel_degree|data_parallel_shard_degree|data_parallel_replicate_degree|seq_len|local_batch_size|global_batch_size|log_freq|mixed_precision_param)["']?\s*[:=]\s*["']?([A-Za-z0-9_.-]+)`)
	reTitStart = regexp.MustCompile(`Training starts at step \d+, with local batch size (\d+), global batch size (\d+), sequence length (\d+)`)
)

// megatronArgs maps the logged arguments read to splitscope's settings; the others are kept for
// the mapping (num_query_groups needs group_query_attention, …).
var megatronArgs = map[string]string{
	"tensor_model_parallel_size":   "tp",
	"pipeline_model_parallel_size": "pp",
	"context_parallel_size":        "cp",
	"expert_model_parallel_size":   "ep",
	"data_parallel_size":           "dp",
	"world_size":                   "gpus",
	"num_layers":                   "layers",
	"hidden_size":                  "hidden",
	"num_attention_heads":          "heads",
	"seq_length":                   "seq",
	"micro_batch_size":             "micro-batch",
	"global_batch_size":            "batch",
	"num_experts":                  "experts",
	"padded_vocab_size":            "vocab",
}

// line is one logged interval: its iteration (the last of it) and figures (NaN when absent).
type line struct {
	at        int // line in the file
	iter      int
	stepS     float64
	tflops    float64
	tokensGPU float64
	memBytes  float64
	ranks     int
}

// reader gathers what one log says.
type reader struct {
	file     string
	tool     string
	settings map[string]model.TrainSetting
	args     map[string]model.TrainSetting // Megatron's arguments read, by the log's name
	lines    []line
	byStep   map[int]int // torchtitan: step → index in lines
	peakMem  float64     // Megatron's memory report: the largest max allocated, bytes
	peakLine int
	memField string
	interval int // --log-interval / log_freq, 0 when not logged
	warnings []string
	gpuName  string
	skipped  int // Megatron: iterations skipped (loss scale)
	ramp     bool
}

func (r *reader) fail(lineNo int, field, value, format string, args ...any) error {
	return &Error{File: r.file, Line: lineNo, Field: field, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// set records a setting; the same setting stated twice with different values is an error.
func (r *reader) set(name, value, field, raw string, at int) error {
	if old, ok := r.settings[name]; ok {
		if old.Value != value {
			return r.fail(at, field, raw, "the log says %s = %s on line %d: two runs in one file, or a log that contradicts itself; give one run's log", old.Field, old.Raw, old.Line)
		}
		return nil
	}
	r.settings[name] = model.TrainSetting{Name: name, Value: value, Field: field, Raw: raw, Line: at}
	return nil
}

// Read parses the log named name (in messages). A file that is empty, binary, too large, has an
// over-long line, logs no iteration, or whose iteration lines lack the time (Megatron) or the
// tokens per second (torchtitan) is an *Error naming the line and the field.
func Read(name string, data []byte) (model.TrainLog, error) {
	r := &reader{file: name, settings: map[string]model.TrainSetting{}, args: map[string]model.TrainSetting{}, byStep: map[int]int{}}
	if len(data) > MaxBytes {
		return model.TrainLog{}, r.fail(0, "", "", "%d bytes: larger than %d MiB, the limit for a training log", len(data), MaxBytes>>20)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return model.TrainLog{}, r.fail(1+bytes.Count(data[:i], []byte{'\n'}), "", "", "binary data (a NUL byte): not a training log (text)")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return model.TrainLog{}, r.fail(1, "", "", "empty file: a training log is the console output of Megatron-LM's pretrain_gpt.py or torchtitan's train.py")
	}
	at := 0
	for start := 0; start < len(data); at++ {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		raw := data[start:end]
		start = end + 1
		if len(raw) > MaxLineBytes {
			return model.TrainLog{}, r.fail(at+1, "", "", "a line of %d bytes: longer than %d KiB, the limit for a line of a training log", len(raw), MaxLineBytes>>10)
		}
		if err := r.readLine(at+1, raw); err != nil {
			return model.TrainLog{}, err
		}
	}
	return r.finish()
}

// readLine reads one line of the log.
func (r *reader) readLine(at int, raw []byte) error {
	if bytes.IndexByte(raw, 0x1b) >= 0 {
		raw = reANSI.ReplaceAll(raw, nil)
	}
	s := strings.TrimRight(string(raw), "\r")
	switch {
	case strings.Contains(s, "elapsed time per iteration") || (strings.Contains(s, "iteration") && strings.Contains(s, "consumed samples")):
		// The pattern anchored where "iteration " starts: a long line is not scanned by it.
		for from := 0; ; {
			i := strings.Index(s[from:], "iteration ")
			if i < 0 {
				break
			}
			from += i
			if from == 0 || s[from-1] == ' ' || s[from-1] == ']' || s[from-1] == ':' {
				if m := reIter.FindStringSubmatchIndex(s[from:]); m != nil {
					return r.megatronIteration(at, []string{s[from : from+m[1]], s[from+m[2] : from+m[3]], s[from+m[4] : from+m[5]], s[from+m[1]:]})
				}
			}
			from += len("iteration ")
		}
	case strings.Contains(s, "step:") && !strings.Contains(s, "validate step:") && (strings.Contains(s, "tps:") || strings.Contains(s, "wps:") || strings.Contains(s, "loss:")):
		if m := reTitStep.FindStringSubmatch(s); m != nil {
			return r.titanStep(at, s, m)
		}
	case strings.Contains(s, "memory (MB)") || strings.Contains(s, "memory (GB)"):
		if m := reMemory.FindStringSubmatch(s); m != nil {
			return r.megatronMemory(at, m)
		}
	case strings.Contains(s, " ..."):
		if m := reArg.FindStringSubmatch(s); m != nil {
			return r.megatronArg(at, m[1], m[2])
		}
	case strings.Contains(s, "using world size:"):
		if m := reWorld.FindStringSubmatch(s); m != nil {
			return r.megatronWorld(at, m)
		}
	}
	return r.titanConfig(at, s)
}

// number reads the number a field's value starts with ("5630.1", "5630.1/5612.0", "1,874").
func number(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	if strings.IndexByte(v, ',') >= 0 {
		v = strings.ReplaceAll(v, ",", "")
	}
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.' || v[end] == 'e' || v[end] == 'E' || v[end] == '+' || v[end] == '-') {
		end++
	}
	if end == 0 {
		return 0, false
	}
	x, err := strconv.ParseFloat(v[:end], 64)
	return x, err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
}

func (r *reader) setTool(at int, tool string) error {
	if r.tool != "" && r.tool != tool {
		return r.fail(at, "", "", "a %s line in a %s log: one trainer's log per file", tool, r.tool)
	}
	r.tool = tool
	return nil
}

// megatronIteration reads one of training_log's lines.
func (r *reader) megatronIteration(at int, m []string) error {
	if err := r.setTool(at, model.ToolMegatron); err != nil {
		return err
	}
	iter, err := strconv.Atoi(m[1])
	if err != nil || iter < 1 {
		return r.fail(at, "iteration", m[1], "not an iteration number (1 or more)")
	}
	if n := len(r.lines); n > 0 && iter <= r.lines[n-1].iter {
		return r.fail(at, "iteration", m[1], "after iteration %d on line %d: a second run (or a restart) in one file; give one run's log", r.lines[n-1].iter, r.lines[n-1].at)
	}
	l := line{at: at, iter: iter, stepS: math.NaN(), tflops: math.NaN(), tokensGPU: math.NaN(), memBytes: math.NaN(), ranks: 1}
	for _, part := range strings.Split(m[3], "|") {
		key, val, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		var dst *float64
		scale := 1.0
		switch key {
		case "elapsed time per iteration (ms)":
			dst, scale = &l.stepS, 1e-3
		case "throughput per GPU (TFLOP/s/GPU)":
			dst = &l.tflops
		case "tokens per GPU (tokens/s/GPU)", "Tokens per second per GPU (Tok/s/GPU)":
			dst = &l.tokensGPU
		case "number of skipped iterations":
			if v, ok := number(val); ok && v > 0 {
				r.skipped += int(v)
			}
			continue
		case "global batch size":
			if v, ok := number(val); ok && v >= 1 && v <= model.MaxBatch {
				// A batch-size ramp (--rampup-batch-size) changes it: the first logged is kept.
				if old, set := r.settings["batch"]; !set {
					r.settings["batch"] = model.TrainSetting{Name: "batch", Value: strconv.Itoa(int(v)), Field: key, Raw: strings.TrimSpace(val), Line: at}
				} else if old.Value != strconv.Itoa(int(v)) && !r.ramp {
					r.ramp = true
					r.warnings = append(r.warnings, fmt.Sprintf("global batch size %s on line %d, %d on line %d (a batch-size ramp): served with the first", old.Raw, old.Line, int(v), at))
				}
			}
			continue
		default:
			continue
		}
		v, ok := number(val)
		if !ok || !(v > 0) || v > maxValue {
			return r.fail(at, key, strings.TrimSpace(val), "not a positive number")
		}
		*dst = v * scale
	}
	if math.IsNaN(l.stepS) {
		return r.fail(at, "elapsed time per iteration (ms)", "", "missing: every iteration line of Megatron-LM's training_log has it")
	}
	r.lines = append(r.lines, l)
	return nil
}

// megatronMemory reads report_memory's line: the peak is the largest max allocated of any rank.
func (r *reader) megatronMemory(at int, m []string) error {
	if err := r.setTool(at, model.ToolMegatron); err != nil {
		return err
	}
	unit := float64(1 << 20)
	if m[3] == "GB" {
		unit = 1 << 30
	}
	found := false
	for _, part := range strings.Split(m[4], "|") {
		key, val, ok := strings.Cut(part, ":")
		if !ok || strings.TrimSpace(key) != "max allocated" {
			continue
		}
		v, ok := number(val)
		if !ok || !(v > 0) || v*unit > maxValue {
			return r.fail(at, "max allocated", strings.TrimSpace(val), "not a positive number of %s", m[3])
		}
		found = true
		if v*unit > r.peakMem {
			r.peakMem, r.peakLine = v*unit, at
		}
	}
	if !found {
		return r.fail(at, "max allocated", "", "missing: report_memory's line has it")
	}
	r.memField = "max allocated"
	return nil
}

// megatronArg reads one line of _print_args.
func (r *reader) megatronArg(at int, name, raw string) error {
	if name == "log_interval" {
		if v, err := strconv.Atoi(raw); err == nil && v >= 1 {
			r.interval = v
		}
	}
	if old, ok := r.args[name]; ok && old.Raw != raw {
		return r.fail(at, name, raw, "the log says %s = %s on line %d: two runs in one file; give one run's log", name, old.Raw, old.Line)
	}
	r.args[name] = model.TrainSetting{Field: name, Raw: raw, Line: at}
	return nil
}

// megatronWorld reads validate_args's "using world size: W, data-parallel size: D, …" line.
func (r *reader) megatronWorld(at int, m []string) error {
	if err := r.setTool(at, model.ToolMegatron); err != nil {
		return err
	}
	if err := r.set("gpus", m[1], "world size", m[1], at); err != nil {
		return err
	}
	for _, kv := range reSizeOf.FindAllStringSubmatch(m[2], -1) {
		name := map[string]string{"data-parallel": "dp", "context-parallel": "cp", "tensor-model-parallel": "tp", "pipeline-model-parallel": "pp"}[kv[1]]
		if name == "" {
			continue
		}
		if err := r.set(name, kv[2], kv[1]+" size", kv[2], at); err != nil {
			return err
		}
	}
	return nil
}

// titanStep reads one of torchtitan's step lines; the ranks that log the same step are one
// interval (tps and tflops their mean, memory their largest).
func (r *reader) titanStep(at int, s string, m []string) error {
	if err := r.setTool(at, model.ToolTorchtitan); err != nil {
		return err
	}
	step, err := strconv.Atoi(m[1])
	if err != nil || step < 1 {
		return r.fail(at, "step", m[1], "not a step number (1 or more)")
	}
	rest := m[2]
	tm := reTitTPS.FindStringSubmatch(rest)
	if tm == nil {
		return r.fail(at, "tps", "", "missing: every step line of torchtitan's metrics logger has tps (wps before 2025)")
	}
	tps, ok := number(tm[2])
	if !ok || !(tps > 0) || tps > maxValue {
		return r.fail(at, tm[1], tm[2], "not a positive number")
	}
	tflops := math.NaN()
	if fm := reTitTFL.FindStringSubmatch(rest); fm != nil {
		v, ok := number(fm[1])
		if !ok || v > maxValue {
			return r.fail(at, "tflops", fm[1], "not a number")
		}
		tflops = v
	}
	mem := math.NaN()
	if mm := reTitMem.FindStringSubmatch(rest); mm != nil {
		v, ok := number(mm[1])
		if !ok || v*(1<<30) > maxValue {
			return r.fail(at, "memory", mm[1]+"GiB", "not a number of GiB")
		}
		mem = v * (1 << 30)
	}
	if i, ok := r.byStep[step]; ok {
		l := &r.lines[i]
		l.tokensGPU = (l.tokensGPU*float64(l.ranks) + tps) / float64(l.ranks+1)
		if !math.IsNaN(tflops) {
			if math.IsNaN(l.tflops) {
				l.tflops = tflops
			} else {
				l.tflops = (l.tflops*float64(l.ranks) + tflops) / float64(l.ranks+1)
			}
		}
		if !math.IsNaN(mem) && !(mem <= l.memBytes) {
			l.memBytes = mem
		}
		l.ranks++
		return nil
	}
	r.byStep[step] = len(r.lines)
	r.lines = append(r.lines, line{at: at, iter: step, stepS: math.NaN(), tflops: tflops, tokensGPU: tps, memBytes: mem, ranks: 1})
	return nil
}

// titanConfig reads what torchtitan says of the run besides its steps: the model's arguments,
// the GPU, activation checkpointing, the device mesh and the configuration's keys.
func (r *reader) titanConfig(at int, s string) error {
	if m := reTitArgs.FindStringSubmatch(s); m != nil {
		return r.titanModelArgs(at, m[3])
	}
	if m := reTitGPU.FindStringSubmatch(s); m != nil {
		if r.gpuName == "" {
			r.gpuName = strings.TrimSpace(m[1])
		}
		return nil
	}
	if m := reTitAC.FindStringSubmatch(s); m != nil {
		return r.set("recompute", m[1], "activation_checkpoint.mode", m[1], at)
	}
	if m := reTitStart.FindStringSubmatch(s); m != nil {
		if err := r.set("batch", m[2], "global batch size", m[2], at); err != nil {
			return err
		}
		if err := r.set("seq", m[3], "sequence length", m[3], at); err != nil {
			return err
		}
		return nil
	}
	if m := reTitMesh.FindStringSubmatch(s); m != nil {
		return r.titanMesh(at, m[1], m[2])
	}
	if !strings.Contains(s, "_degree") && !strings.Contains(s, "seq_len") && !strings.Contains(s, "batch_size") && !strings.Contains(s, "log_freq") && !strings.Contains(s, "mixed_precision_param") {
		return nil
	}
	for _, kv := range reTitKey.FindAllStringSubmatch(s, -1) {
		key, raw := kv[1], kv[2]
		if key == "mixed_precision_param" {
			p := map[string]string{"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}[raw]
			if p == "" {
				return r.fail(at, key, raw, "not a number format splitscope knows (bfloat16, float16, float32)")
			}
			if err := r.set("precision", p, key, raw, at); err != nil {
				return err
			}
			continue
		}
		v, err := strconv.Atoi(raw)
		if err != nil {
			return r.fail(at, key, raw, "not a whole number")
		}
		if key == "log_freq" {
			if v >= 1 {
				r.interval = v
			}
			continue
		}
		if v < 1 { // -1: the rest of the GPUs, 0: unset
			r.args[key] = model.TrainSetting{Field: key, Raw: raw, Line: at}
			continue
		}
		if old, ok := r.args[key]; ok && old.Raw != raw {
			return r.fail(at, key, raw, "the log says %s = %s on line %d: two runs in one file; give one run's log", key, old.Raw, old.Line)
		}
		r.args[key] = model.TrainSetting{Field: key, Raw: raw, Line: at}
	}
	return nil
}

// titanModelArgs reads "ModelArgs(dim=4096, n_layers=32, …)": the sizes, the FFN derived as
// torchtitan's FeedForward does (4·dim, ×2/3, × ffn_dim_multiplier, rounded up to multiple_of).
func (r *reader) titanModelArgs(at int, args string) error {
	kv := map[string]string{}
	for _, m := range reKV.FindAllStringSubmatch(args, -1) {
		kv[m[1]] = strings.TrimSpace(m[2])
	}
	for _, f := range [][2]string{{"dim", "hidden"}, {"n_layers", "layers"}, {"n_heads", "heads"}, {"n_kv_heads", "kv-heads"}, {"vocab_size", "vocab"}} {
		raw, ok := kv[f[0]]
		if !ok || raw == "None" {
			continue
		}
		v, err := strconv.Atoi(raw)
		if err != nil || v < 1 {
			return r.fail(at, f[0], raw, "not a whole number of 1 or more")
		}
		if err := r.set(f[1], strconv.Itoa(v), f[0], raw, at); err != nil {
			return err
		}
	}
	dim, _ := strconv.Atoi(kv["dim"])
	mult, err := strconv.Atoi(kv["multiple_of"])
	if dim > 0 && err == nil && mult > 0 {
		hidden := 2 * (4 * dim) / 3
		if f, err := strconv.ParseFloat(kv["ffn_dim_multiplier"], 64); err == nil && f > 0 {
			hidden = int(f * float64(hidden))
		}
		hidden = mult * ((hidden + mult - 1) / mult)
		if err := r.set("ffn", strconv.Itoa(hidden), "dim, multiple_of, ffn_dim_multiplier", fmt.Sprintf("%d, %d, %s", dim, mult, kv["ffn_dim_multiplier"]), at); err != nil {
			return err
		}
	}
	return nil
}

// titanMesh reads "Building 2-D device mesh with ['dp_shard', 'tp'], [4, 2]".
func (r *reader) titanMesh(at int, names, sizes string) error {
	ns, ss := strings.Split(names, ","), strings.Split(sizes, ",")
	if len(ns) != len(ss) {
		return r.fail(at, "device mesh", "["+names+"], ["+sizes+"]", "as many names as sizes expected")
	}
	for i := range ns {
		n := strings.Trim(strings.TrimSpace(ns[i]), `'"`)
		key := map[string]string{"tp": "tensor_parallel_degree", "pp": "pipeline_parallel_degree", "cp": "context_parallel_degree", "ep": "expert_parallel_degree", "dp_shard": "data_parallel_shard_degree", "dp_replicate": "data_parallel_replicate_degree"}[n]
		if key == "" {
			continue
		}
		raw := strings.TrimSpace(ss[i])
		if v, err := strconv.Atoi(raw); err != nil || v < 1 {
			return r.fail(at, "device mesh "+n, raw, "not a whole number of 1 or more")
		}
		if old, ok := r.args[key]; ok && old.Raw != raw && old.Raw != "-1" {
			return r.fail(at, "device mesh "+n, raw, "the log says %s = %s on line %d", key, old.Raw, old.Line)
		}
		r.args[key] = model.TrainSetting{Field: "device mesh " + n, Raw: raw, Line: at}
	}
	return nil
}

// finish maps the arguments to settings, skips the warm-up and averages the rest.
func (r *reader) finish() (model.TrainLog, error) {
	if len(r.lines) == 0 {
		what := "no iteration line (Megatron-LM's \"iteration N/ M | … | elapsed time per iteration (ms): …\" or torchtitan's \"step: N … tps: …\"): not a training log, or one cut before its first logged iteration"
		return model.TrainLog{}, r.fail(0, "", "", "%s", what)
	}
	var err error
	switch r.tool {
	case model.ToolMegatron:
		err = r.megatronSettings()
	case model.ToolTorchtitan:
		err = r.titanSettings()
	}
	if err != nil {
		return model.TrainLog{}, err
	}
	interval := r.interval
	if interval == 0 {
		for i := 1; i < len(r.lines); i++ {
			if d := r.lines[i].iter - r.lines[i-1].iter; d > 0 && (interval == 0 || d < interval) {
				interval = d
			}
		}
		interval = max(interval, 1)
	}
	sort.Slice(r.lines, func(i, j int) bool { return r.lines[i].iter < r.lines[j].iter })
	t := model.TrainLog{File: r.file, Tool: r.tool, GPUName: r.gpuName}
	var kept []line
	for i, l := range r.lines {
		start := l.iter - interval // the interval is (start, iter]: from the line before, when logged
		if i > 0 && r.lines[i-1].iter > start {
			start = r.lines[i-1].iter
		}
		if start < WarmupIterations { // it includes iteration 1
			t.Warmup = append(t.Warmup, l.iter)
			continue
		}
		kept = append(kept, l)
		t.Iterations = append(t.Iterations, l.iter)
	}
	if len(kept) == 0 {
		return model.TrainLog{}, r.fail(r.lines[len(r.lines)-1].at, "", "", "only warm-up iterations logged (%s, each interval of %d including iteration 1, which compiles, allocates and creates the optimizer's state): nothing to average; give a log that runs longer", iterList(t.Warmup), interval)
	}
	mean := func(get func(line) float64) (float64, bool) {
		sum, n := 0.0, 0
		for _, l := range kept {
			if v := get(l); !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		return sum / float64(max(n, 1)), n > 0
	}
	stepField, tflField, tokField := "elapsed time per iteration (ms)", "throughput per GPU (TFLOP/s/GPU)", "tokens per GPU (tokens/s/GPU)"
	if r.tool == model.ToolTorchtitan {
		tflField, tokField = "tflops", "tps"
	}
	if v, ok := mean(func(l line) float64 { return l.stepS }); ok {
		t.Metrics = append(t.Metrics, model.TrainMetric{Name: "step_time_s", Field: stepField, Value: v})
	}
	if v, ok := mean(func(l line) float64 { return l.tflops }); ok && v > 0 {
		t.Metrics = append(t.Metrics, model.TrainMetric{Name: "tflops_per_gpu", Field: tflField, Value: v})
	}
	if v, ok := mean(func(l line) float64 { return l.tokensGPU }); ok {
		t.Metrics = append(t.Metrics, model.TrainMetric{Name: "tokens_per_s_per_gpu", Field: tokField, Value: v})
	}
	switch {
	case r.peakMem > 0:
		t.Metrics = append(t.Metrics, model.TrainMetric{Name: "peak_memory_bytes", Field: r.memField, Value: r.peakMem})
	case r.tool == model.ToolTorchtitan:
		peak := 0.0
		for _, l := range r.lines { // a running peak: warm-up lines count
			if l.memBytes > peak {
				peak = l.memBytes
			}
		}
		if peak > 0 {
			t.Metrics = append(t.Metrics, model.TrainMetric{Name: "peak_memory_bytes", Field: "memory", Value: peak})
		} else if !math.IsNaN(r.lines[0].memBytes) {
			t.Warnings = append(t.Warnings, "memory: 0.00GiB logged (a device without memory statistics): peak memory not compared")
		}
	}
	if r.skipped > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("number of skipped iterations: %d in all (fp16 loss scaling): their time is in the average", r.skipped))
	}
	for _, s := range r.settings {
		t.Logged = append(t.Logged, s)
	}
	slices.SortFunc(t.Logged, func(a, b model.TrainSetting) int { return a.Line - b.Line })
	t.Warnings = append(t.Warnings, r.warnings...)
	return t, nil
}

func iterList(its []int) string {
	var s []string
	for _, i := range its[:min(len(its), 5)] {
		s = append(s, strconv.Itoa(i))
	}
	if len(its) > 5 {
		s = append(s, "…")
	}
	return "iteration " + strings.Join(s, ", ")
}

// megatronSettings maps the logged arguments to settings.
func (r *reader) megatronSettings() error {
	arg := func(name string) (model.TrainSetting, bool) {
		a, ok := r.args[name]
		return a, ok && a.Raw != "None"
	}
	for name, flag := range megatronArgs {
		a, ok := arg(name)
		if !ok {
			continue
		}
		v, err := strconv.Atoi(a.Raw)
		if err != nil || v < 1 {
			return r.fail(a.Line, name, a.Raw, "not a whole number of 1 or more")
		}
		if err := r.set(flag, strconv.Itoa(v), name, a.Raw, a.Line); err != nil {
			return err
		}
	}
	if a, ok := r.args["num_experts"]; ok && a.Raw == "None" { // a dense model
		if err := r.set("experts", "0", a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	if a, ok := arg("num_query_groups"); ok {
		if g, ok := arg("group_query_attention"); !ok || g.Raw == "True" {
			v, err := strconv.Atoi(a.Raw)
			if err != nil || v < 1 {
				return r.fail(a.Line, "num_query_groups", a.Raw, "not a whole number of 1 or more")
			}
			if err := r.set("kv-heads", a.Raw, "num_query_groups", a.Raw, a.Line); err != nil {
				return err
			}
		}
	} else if g, ok := arg("group_query_attention"); ok && g.Raw == "False" {
		if h, ok := r.settings["heads"]; ok {
			if err := r.set("kv-heads", h.Value, "group_query_attention", g.Raw, g.Line); err != nil {
				return err
			}
		}
	}
	// The FFN of an expert where the model has them, else the dense one.
	ffnArg := "ffn_hidden_size"
	if _, moe := r.settings["experts"]; moe {
		if _, ok := arg("moe_ffn_hidden_size"); ok {
			ffnArg = "moe_ffn_hidden_size"
		}
	}
	if a, ok := arg(ffnArg); ok {
		if v, err := strconv.Atoi(a.Raw); err != nil || v < 1 {
			return r.fail(a.Line, ffnArg, a.Raw, "not a whole number of 1 or more")
		}
		if err := r.set("ffn", a.Raw, ffnArg, a.Raw, a.Line); err != nil {
			return err
		}
	}
	// The number format: fp8 (any recipe) over bf16 over fp16, else fp32.
	prec, pa := "", model.TrainSetting{}
	if a, ok := arg("fp8"); ok {
		prec, pa = "fp8", a
	} else if a, ok := r.args["bf16"]; ok && a.Raw == "True" {
		prec, pa = "bf16", a
	} else if a, ok := r.args["fp16"]; ok && a.Raw == "True" {
		prec, pa = "fp16", a
	} else if a, ok := r.args["bf16"]; ok {
		if b, ok := r.args["fp16"]; ok && b.Raw == "False" {
			prec, pa = "fp32", a
		}
	}
	if prec != "" {
		if err := r.set("precision", prec, pa.Field, pa.Raw, pa.Line); err != nil {
			return err
		}
	}
	if a, ok := r.args["recompute_granularity"]; ok {
		v := map[string]string{"None": "none", "selective": "selective", "full": "full"}[a.Raw]
		if v == "" {
			return r.fail(a.Line, "recompute_granularity", a.Raw, "not one of None, selective, full")
		}
		if err := r.set("recompute", v, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	for _, b := range [][2]string{{"sequence_parallel", "sequence-parallel"}, {"use_distributed_optimizer", "zero"}} {
		a, ok := r.args[b[0]]
		if !ok {
			continue
		}
		v := map[string]string{"True": "true", "False": "false"}[a.Raw]
		if v == "" {
			return r.fail(a.Line, b[0], a.Raw, "not True or False")
		}
		if b[1] == "zero" { // the distributed optimizer shards the optimizer's state: ZeRO-1
			v = map[string]string{"true": "1", "false": "0"}[v]
		}
		if err := r.set(b[1], v, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	// Virtual pipeline stages: the count, or the layers per virtual stage.
	if a, ok := arg("virtual_pipeline_model_parallel_size"); ok {
		if err := r.set("chunks", a.Raw, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	} else if a, ok := arg("num_layers_per_virtual_pipeline_stage"); ok {
		per, err := strconv.Atoi(a.Raw)
		layers, _ := strconv.Atoi(r.settings["layers"].Value)
		pp, _ := strconv.Atoi(r.settings["pp"].Value)
		if err != nil || per < 1 || layers < 1 || pp < 1 || layers%(pp*per) != 0 {
			return r.fail(a.Line, a.Field, a.Raw, "needs num_layers and pipeline_model_parallel_size logged, num_layers a multiple of their product")
		}
		if err := r.set("chunks", strconv.Itoa(layers/(pp*per)), a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	return nil
}

// titanSettings maps the configuration's degrees to settings: TP, PP, CP, EP, DP (shard ×
// replicate), the GPUs (their product) and, with a sharded data-parallel degree, ZeRO-3 (FSDP).
func (r *reader) titanSettings() error {
	deg := func(key string) (model.TrainSetting, int) {
		a, ok := r.args[key]
		if !ok {
			return a, 0
		}
		v, _ := strconv.Atoi(a.Raw)
		return a, v
	}
	known, gpus := true, 1
	for _, k := range [][2]string{{"tensor_parallel_degree", "tp"}, {"pipeline_parallel_degree", "pp"}, {"context_parallel_degree", "cp"}} {
		a, v := deg(k[0])
		if v < 1 {
			if a.Raw != "" && a.Raw != "0" {
				known = false
			}
			continue
		}
		if err := r.set(k[1], a.Raw, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
		gpus *= v
	}
	if a, v := deg("expert_parallel_degree"); v >= 1 {
		if err := r.set("ep", a.Raw, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	sa, shard := deg("data_parallel_shard_degree")
	ra, repl := deg("data_parallel_replicate_degree")
	if shard >= 1 || repl >= 1 {
		dp := max(shard, 1) * max(repl, 1)
		src := sa
		if shard < 1 {
			src = ra
		}
		if shard < 1 && sa.Raw == "-1" {
			known = false // the rest of the GPUs: not said
		} else if err := r.set("dp", strconv.Itoa(dp), src.Field, src.Raw, src.Line); err != nil {
			return err
		} else {
			gpus *= dp
		}
		if shard > 1 {
			if err := r.set("zero", "3", sa.Field, sa.Raw, sa.Line); err != nil {
				return err
			}
		}
	} else {
		known = false
	}
	if known && gpus > 0 {
		at := max(sa.Line, ra.Line)
		if err := r.set("gpus", strconv.Itoa(gpus), "the parallel degrees' product", strconv.Itoa(gpus), at); err != nil {
			return err
		}
	}
	seq, okSeq := r.args["seq_len"]
	if okSeq {
		if err := r.set("seq", seq.Raw, seq.Field, seq.Raw, seq.Line); err != nil {
			return err
		}
	}
	if a, ok := r.args["global_batch_size"]; ok && a.Raw != "-1" {
		if err := r.set("batch", a.Raw, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	if a, ok := r.args["local_batch_size"]; ok {
		if _, set := r.settings["batch"]; !set {
			if d, ok := r.settings["dp"]; ok {
				lb, _ := strconv.Atoi(a.Raw)
				dp, _ := strconv.Atoi(d.Value)
				if err := r.set("batch", strconv.Itoa(lb*dp), "local_batch_size × the data-parallel degree", a.Raw+" × "+d.Value, a.Line); err != nil {
					return err
				}
			}
		}
		if err := r.set("micro-batch", a.Raw, a.Field, a.Raw, a.Line); err != nil {
			return err
		}
	}
	return nil
}
