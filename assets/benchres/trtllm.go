package benchres

// TensorRT-LLM's trtllm-bench reports. Both subcommands, throughput and latency, end by handing
// their statistics to one ReportUtility (tensorrt_llm/bench/dataclasses/reporting.py;
// tensorrt_llm/bench/benchmark/throughput.py and low_latency.py, NVIDIA/TensorRT-LLM at
// 0249976575050d2c624a5f285683c66de311a3b7 and 000a01de66f0): report_statistics prints the text
// report, get_statistics_dict is what --report_json writes. latency runs with max_batch_size 1
// and streaming on, so its report is the same text with the streaming block (TTFT, TPOT).
//
//   - The text report: sections headed "= PYTORCH BACKEND" or "= ENGINE DETAILS" (Model,
//     TensorRT-LLM Version, Dtype, KV Cache Dtype, Quantization), "= MACHINE DETAILS" (one line:
//     "NAME, memory X GB, Y GHz", or "No GPU info available"), "= REQUEST DETAILS" (Number of
//     requests, Number of concurrent requests, Average Input/Output Length (tokens)), "= WORLD +
//     RUNTIME INFORMATION" (TP Size, PP Size, EP Size, Max Runtime Batch Size, Max Runtime
//     Tokens, Scheduling Policy, KV Memory Percentage, Issue Rate), "= PERFORMANCE OVERVIEW"
//     (Request Throughput (req/sec), Total Output Throughput (tokens/sec), Total Token
//     Throughput, Total Latency (ms), Average request latency (ms), Per User Output Throughput
//     [w/ ctx] (tps/user), Per GPU Output Throughput (tps/gpu); streaming: Average
//     time-to-first-token [TTFT] (ms), Average time-per-output-token [TPOT] (ms), Per User
//     Output Speed (tps/user) and the [TPOT], [TTFT], [GTPS] breakdowns MINIMUM … P99), the
//     "[Latency] P50 …" breakdown, then "= DATASET DETAILS". Each line "Label:<spaces or
//     tabs>value". Earlier releases print less under other names: 0.12 a "= STATISTICS"
//     section with "Token Throughput (tokens/sec)" (the output tokens') and "Total Latency
//     (seconds)"; 0.16 "= PERFORMANCE OVERVIEW" with the same two, the latency in ms, and for
//     latency "= GENERAL OVERVIEW", "= THROUGHPUT OVERVIEW" (whose "Total Token Throughput" is
//     the output tokens') and "= LATENCY OVERVIEW" (Average time-to-first-token (ms), Average
//     inter-token latency (ms)); 0.20's "Per User Output Throughput (tokens/sec/user)".
//   - The JSON: {"engine": {"model", "model_path", "version", "backend", "dtype",
//     "kv_cache_dtype", "quantization"}, "machine": {"name", "memory.total", "clocks.mem"} or
//     null, "world_info": {"tp_size", "pp_size", "ep_size", "world_size", "max_batch_size",
//     "max_num_tokens", "scheduling_policy", "kv_cache_percentage" (a fraction), "issue_rate"},
//     "request_info": {"num_requests", "avg_num_concurrent_requests", "avg_input_length",
//     "avg_output_length"}, "performance": {"total_latency_ms", "avg_request_latency_ms",
//     "request_throughput_req_s", "system_output_throughput_tok_s",
//     "system_total_throughput_tok_s", "output_throughput_per_user_tok_s",
//     "output_throughput_per_gpu_tok_s", "request_latency_percentiles_ms": {"p50", "p90", "p95",
//     "p99", "minimum", "maximum", "average"}}, "streaming_metrics" when streaming:
//     {"token_output_speed_tok_s", "avg_ttft_ms", "avg_tpot_ms", "tpot_percentiles",
//     "ttft_percentiles", "gen_tps_percentiles"}, "decoding_stats", "dataset"}.
//
// trtllm-bench sends every request at once unless told --concurrency, which the report does not
// print; latency's max batch size of 1 serves one request at a time.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// trtText reports whether data is a trtllm-bench text report: text (not JSON) with a line of
// its performance overview or one of its sections' headers (a report cut short is then read as
// one, and refused naming what it lacks).
func trtText(data []byte) bool {
	at := skipSpace(data, 0)
	if at == len(data) || data[at] == '{' {
		return false
	}
	for _, m := range [][]byte{[]byte("Request Throughput (req/sec):"), []byte("Token Throughput (tokens/sec):"),
		[]byte("= WORLD + RUNTIME INFORMATION"), []byte("= PYTORCH BACKEND"), []byte("= ENGINE DETAILS")} {
		if bytes.Contains(data, m) {
			return true
		}
	}
	return false
}

// IsTRTLLM reports whether data is a trtllm-bench report, its text or its --report_json: what
// Read reads as one.
func IsTRTLLM(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if trtText(data) {
		return true
	}
	at := skipSpace(data, 0)
	if at == len(data) || data[at] != '{' || bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	obj, _, err := scanObject(data, at)
	return err == nil && trtJSON(obj)
}

// trtJSON: the object is a --report_json (its performance block beside its world or request
// information).
func trtJSON(obj map[string]json.RawMessage) bool {
	_, perf := obj["performance"]
	_, world := obj["world_info"]
	_, req := obj["request_info"]
	return perf && (world || req)
}

// trtValue is one value of a report: where it is (the line of a text report, the JSON path)
// and the text.
type trtValue struct {
	line  int
	field string
	text  string
}

// trtReport is what a report says, by the name the reader gives each value.
type trtReport struct {
	file    string
	isJSON  bool
	line    int // the JSON object's line; a text report's first, 0 when the file holds one
	values  map[string]trtValue
	backend string
	machine *trtValue // MACHINE DETAILS' line, or machine.name
}

func (t *trtReport) fail(v trtValue, format string, args ...any) error {
	line := v.line
	if line == 0 {
		line = t.line
	}
	return &Error{File: t.file, Line: line, Field: v.field, Value: v.text, Msg: fmt.Sprintf(format, args...)}
}

// Labels of the text report, by the reader's name of each value.
var trtLabels = map[string]string{
	"Model": "model", "TensorRT-LLM Version": "version", "TensorRT LLM Version": "version",
	"Dtype": "dtype", "KV Cache Dtype": "kv_dtype", "Quantization": "quantization",
	"TP Size": "tp", "PP Size": "pp", "EP Size": "ep",
	"Max Runtime Batch Size": "max_batch", "Max Runtime Tokens": "max_tokens",
	"Scheduling Policy": "policy", "KV Memory Percentage": "kv_percent",
	"Number of requests": "requests", "Number of concurrent requests": "concurrent",
	"Average Input Length (tokens)": "avg_input", "Average Output Length (tokens)": "avg_output",
	"Request Throughput (req/sec)":                   "requests_per_s",
	"Total Output Throughput (tokens/sec)":           "output_tokens_per_s",
	"Token Throughput (tokens/sec)":                  "output_tokens_per_s",
	"Total Token Throughput (tokens/sec)":            "total_tokens_per_s",
	"Total Latency (ms)":                             "duration_ms",
	"Total Latency (seconds)":                        "duration_s",
	"Average request latency (ms)":                   "e2e_mean",
	"Per User Output Throughput [w/ ctx] (tps/user)": "per_user_output_tokens_per_s",
	"Per User Output Throughput (tokens/sec/user)":   "per_user_output_tokens_per_s",
	"Per GPU Output Throughput (tps/gpu)":            "per_gpu_output_tokens_per_s",
	"Per GPU Output Throughput (tokens/sec/gpu)":     "per_gpu_output_tokens_per_s",
	"Average time-to-first-token [TTFT] (ms)":        "ttft_mean",
	"Average time-per-output-token [TPOT] (ms)":      "tpot_mean",
	"Per User Output Speed (tps/user)":               "per_user_output_speed",
	// 0.16's latency report.
	"Average time-to-first-token (ms)": "ttft_mean",
	"Average inter-token latency (ms)": "tpot_mean",
}

// The breakdowns' rows: "[TTFT] P90", … by their statistic.
var (
	trtBreakdowns = map[string]string{"[TTFT]": "ttft", "[TPOT]": "tpot", "[Latency]": "e2e"}
	trtStats      = map[string]string{"MINIMUM": "min", "MAXIMUM": "max", "AVERAGE": "average", "P50": "median", "P90": "p90", "P95": "p95", "P99": "p99"}
	reANSI        = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
)

// readTRTText reads a text report, or several: each starts at its first section's header
// (PYTORCH BACKEND, ENGINE DETAILS), as a sweep's log prints one a run. A label met twice in one
// report is refused.
func readTRTText(name string, data []byte) ([]model.ServeBench, error) {
	t := &trtReport{file: name, values: map[string]trtValue{}, line: 1}
	reports := []*trtReport{t}
	section := ""
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSpace(l)
		if bytes.IndexByte(l, 0x1b) >= 0 { // colours
			l = bytes.TrimSpace(reANSI.ReplaceAll(l, nil))
		}
		if bytes.HasPrefix(l, []byte("= ")) {
			section = strings.TrimSpace(string(l[2:]))
			if (section == "PYTORCH BACKEND" || section == "ENGINE DETAILS") && len(t.values) > 0 {
				if len(reports) == MaxRuns {
					return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("more than %d reports in one file", MaxRuns)}
				}
				t = &trtReport{file: name, values: map[string]trtValue{}, line: line}
				reports = append(reports, t)
			}
			switch section {
			case "PYTORCH BACKEND":
				t.backend = "pytorch"
			case "ENGINE DETAILS":
				t.backend = "tensorrt"
			}
			continue
		}
		if len(l) == 0 || bytes.HasPrefix(l, []byte("===")) || bytes.HasPrefix(l, []byte("--")) {
			continue
		}
		if section == "MACHINE DETAILS" && t.machine == nil {
			t.machine = &trtValue{line: line, field: "MACHINE DETAILS", text: string(l)}
			continue
		}
		// "Label:<blanks>value": the label as printed (its words one space apart), or a
		// breakdown's "[TTFT] P90"; other lines (the run's log) are skipped without a copy.
		i := bytes.IndexByte(l, ':')
		if i < 0 || i > 64 {
			continue
		}
		raw := bytes.TrimSpace(l[:i])
		key, ok := trtLabels[string(raw)]
		label := ""
		if ok {
			label = string(raw)
		} else {
			label = strings.Join(strings.Fields(string(raw)), " ")
			if key, ok = trtLabels[label]; !ok {
				f := strings.Fields(label)
				if len(f) != 2 || trtBreakdowns[f[0]] == "" || trtStats[f[1]] == "" {
					continue
				}
				key = trtBreakdowns[f[0]] + "_" + trtStats[f[1]]
			}
		}
		value := strings.TrimSpace(string(l[i+1:]))
		if section == "THROUGHPUT OVERVIEW" && key == "total_tokens_per_s" {
			// 0.16's latency report: its "Total Token Throughput" is the output tokens' (the
			// requests' output over the run: 0.0158 req/s × 2048 tokens, 32.27).
			key = "output_tokens_per_s"
		}
		if prev, ok := t.values[key]; ok {
			return nil, &Error{File: name, Line: line, Field: label, Value: value,
				Msg: fmt.Sprintf("given again (first on line %d) in one report (a report starts at its PYTORCH BACKEND or ENGINE DETAILS header)", prev.line)}
		}
		t.values[key] = trtValue{line: line, field: label, text: value}
	}
	if len(reports) == 1 {
		reports[0].line = 0 // a file of one report: its problems name the line of the value
	}
	runs := make([]model.ServeBench, 0, len(reports))
	for _, r := range reports {
		b, err := r.build()
		if err != nil {
			return nil, err
		}
		b.Runs = len(reports)
		runs = append(runs, b)
	}
	return runs, nil
}

// readTRTJSON reads a --report_json object.
func readTRTJSON(name string, line int, obj map[string]json.RawMessage) (model.ServeBench, error) {
	t := &trtReport{file: name, isJSON: true, line: line, values: map[string]trtValue{}}
	sub := func(key string) (map[string]json.RawMessage, error) {
		raw, ok := obj[key]
		if !ok || string(bytes.TrimSpace(raw)) == "null" {
			return nil, nil
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil, &Error{File: name, Line: line, Field: key, Msg: "must be an object"}
		}
		return m, nil
	}
	put := func(m map[string]json.RawMessage, path, key, field string) error {
		raw, ok := m[field]
		if !ok || string(bytes.TrimSpace(raw)) == "null" {
			return nil
		}
		text := string(bytes.TrimSpace(raw))
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		} else if text[0] == '{' || text[0] == '[' {
			return &Error{File: name, Line: line, Field: path + "." + field, Value: text, Msg: "must be a number or a string"}
		}
		t.values[key] = trtValue{field: path + "." + field, text: text}
		return nil
	}
	for _, g := range []struct {
		block  string
		fields [][2]string // the block's key, the reader's
	}{
		{"engine", [][2]string{{"model", "model"}, {"version", "version"}, {"dtype", "dtype"}, {"kv_cache_dtype", "kv_dtype"}, {"quantization", "quantization"}}},
		{"world_info", [][2]string{{"tp_size", "tp"}, {"pp_size", "pp"}, {"ep_size", "ep"}, {"max_batch_size", "max_batch"}, {"max_num_tokens", "max_tokens"},
			{"scheduling_policy", "policy"}, {"kv_cache_percentage", "kv_fraction"}}},
		{"request_info", [][2]string{{"num_requests", "requests"}, {"avg_num_concurrent_requests", "concurrent"}, {"avg_input_length", "avg_input"}, {"avg_output_length", "avg_output"}}},
		{"performance", [][2]string{{"total_latency_ms", "duration_ms"}, {"avg_request_latency_ms", "e2e_mean"}, {"request_throughput_req_s", "requests_per_s"},
			{"system_output_throughput_tok_s", "output_tokens_per_s"}, {"system_total_throughput_tok_s", "total_tokens_per_s"},
			{"output_throughput_per_user_tok_s", "per_user_output_tokens_per_s"}, {"output_throughput_per_gpu_tok_s", "per_gpu_output_tokens_per_s"}}},
		{"streaming_metrics", [][2]string{{"avg_ttft_ms", "ttft_mean"}, {"avg_tpot_ms", "tpot_mean"}, {"token_output_speed_tok_s", "per_user_output_speed"}}},
	} {
		m, err := sub(g.block)
		if err != nil {
			return model.ServeBench{}, err
		}
		for _, f := range g.fields {
			if err := put(m, g.block, f[1], f[0]); err != nil {
				return model.ServeBench{}, err
			}
		}
		if g.block == "engine" && m != nil {
			var b string
			if json.Unmarshal(m["backend"], &b) == nil {
				t.backend = strings.ToLower(b)
			}
		}
		for _, pc := range [][2]string{{"request_latency_percentiles_ms", "e2e"}, {"ttft_percentiles", "ttft"}, {"tpot_percentiles", "tpot"}} {
			raw, ok := m[pc[0]]
			if !ok || string(bytes.TrimSpace(raw)) == "null" {
				continue
			}
			var p map[string]json.RawMessage
			if json.Unmarshal(raw, &p) != nil {
				return model.ServeBench{}, &Error{File: name, Line: line, Field: g.block + "." + pc[0], Msg: "must be an object of percentiles"}
			}
			for k, stat := range map[string]string{"minimum": "min", "maximum": "max", "average": "average", "p50": "median", "p90": "p90", "p95": "p95", "p99": "p99"} {
				key := pc[1] + "_" + stat
				if err := put(p, g.block+"."+pc[0], key, k); err != nil {
					return model.ServeBench{}, err
				}
			}
		}
	}
	m, err := sub("machine")
	if err != nil {
		return model.ServeBench{}, err
	}
	if m != nil {
		var n string
		if raw, ok := m["name"]; ok && json.Unmarshal(raw, &n) != nil && string(bytes.TrimSpace(raw)) != "null" {
			return model.ServeBench{}, &Error{File: name, Line: line, Field: "machine.name", Value: string(raw), Msg: "must be a string"}
		}
		if n = strings.TrimSpace(n); n != "" {
			t.machine = &trtValue{field: "machine.name", text: n}
		}
	}
	return t.build()
}

// num reads a value as a finite number from 0 to maxMetricValue; "None" and absent are not ok.
func (t *trtReport) num(key string) (float64, trtValue, bool, error) {
	v, ok := t.values[key]
	if !ok || v.text == "None" || v.text == "" {
		return 0, v, false, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(v.text, "%"), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, v, false, t.fail(v, "must be a number")
	}
	if f < 0 || f > maxMetricValue {
		return 0, v, false, t.fail(v, "must be a number from 0 to %g", maxMetricValue)
	}
	return f, v, true, nil
}

// whole reads a whole number from lo to hi.
func (t *trtReport) whole(key string, lo, hi int) (int, bool, error) {
	f, v, ok, err := t.num(key)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, false, t.fail(v, "must be a whole number from %d to %d", lo, hi)
	}
	return int(f), true, nil
}

// missing names the field a report lacks: the text's label or the JSON path.
func (t *trtReport) missing(text, jsonPath, what string) error {
	field := text
	if t.isJSON {
		field = jsonPath
	}
	return &Error{File: t.file, Line: t.line, Field: field, Msg: "missing: " + what}
}

// trtFormat is the weight or KV cache format a report's quantization names ("" none, ok false:
// one splitscope has no format for).
func trtFormat(q string) (string, bool) {
	u := strings.ToUpper(strings.TrimSpace(q))
	switch {
	case u == "" || u == "NONE" || u == "AUTO":
		return "", true
	case u == "NVFP4" || u == "FP4" || strings.HasPrefix(u, "W4A4_NVFP4"):
		return "fp4", true
	case u == "W4A8_MXFP4_MXFP8" || u == "W4A16_MXFP4" || u == "MXFP4":
		return "mxfp4", true
	case strings.HasPrefix(u, "FP8"):
		return "fp8", true
	case strings.HasPrefix(u, "W4A16") || strings.HasPrefix(u, "W4A8") || u == "INT4":
		return "int4", true
	case strings.HasPrefix(u, "W8A16") || strings.HasPrefix(u, "W8A8") || u == "INT8":
		return "int8", true
	}
	return "", false
}

// build turns the values into a run.
func (t *trtReport) build() (model.ServeBench, error) {
	line := max(t.line, 1)
	b := model.ServeBench{File: t.file, Line: line, Tool: model.ToolTRTLLM, Engine: "trtllm", Backend: t.backend, Burstiness: 1}
	b.ModelField, b.GPUField = "Model", "MACHINE DETAILS"
	if t.isJSON {
		b.ModelField, b.GPUField = "engine.model", "machine.name"
	}
	if v, ok := t.values["model"]; ok && v.text != "None" {
		b.Model = v.text
	}
	if t.machine != nil && t.machine.text != "No GPU info available" {
		// "NVIDIA H100 80GB HBM3, memory 79.10 GB, 2.62 GHz": the name before ", memory".
		n := t.machine.text
		if i := strings.Index(n, ", memory "); i >= 0 {
			n = n[:i]
		}
		b.GPUName = strings.TrimSpace(n)
	}
	var err error
	if b.TP, _, err = t.whole("tp", 1, model.MaxGPUs); err != nil {
		return b, err
	}
	if b.PP, _, err = t.whole("pp", 1, model.MaxGPUs); err != nil {
		return b, err
	}
	if ep, ok, err := t.whole("ep", 1, model.MaxGPUs); err != nil {
		return b, err
	} else if ok && ep > 1 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("EP size %d: TensorRT-LLM splits the experts over its TP group, splitscope's --ep over DP replicas: not read; give the layout (--tp, --dp, --ep) that matches", ep))
	}
	if b.MaxBatch, _, err = t.whole("max_batch", 1, model.MaxBatch); err != nil {
		return b, err
	}
	if b.MaxTokens, _, err = t.whole("max_tokens", 1, model.MaxTokens); err != nil {
		return b, err
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"quantization", &b.Weights}, {"kv_dtype", &b.KVCache}} {
		v, ok := t.values[f.key]
		if !ok {
			continue
		}
		format, known := trtFormat(v.text)
		if !known {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s %s: splitscope has no such format; give --%s", v.field, v.text,
				map[string]string{"quantization": "weights", "kv_dtype": "kv-cache"}[f.key]))
		}
		*f.dst = format
	}
	if b.KVCache != "" && b.KVCache != "fp8" {
		b.Warnings = append(b.Warnings, fmt.Sprintf("KV cache %s: splitscope's KV cache is bf16, fp16 or fp8; give --kv-cache", b.KVCache))
		b.KVCache = ""
	}
	if v, ok := t.values["policy"]; ok {
		if p := strings.ToUpper(strings.ReplaceAll(v.text, " ", "_")); p != "GUARANTEED_NO_EVICT" && !strings.Contains(p, "GUARANTEED_NO_EVICT") {
			b.Warnings = append(b.Warnings, fmt.Sprintf("scheduling policy %s: splitscope's trtllm engine admits as GUARANTEED_NO_EVICT does", v.text))
		}
	}
	requests, ok, err := t.whole("requests", 1, model.MaxBatch)
	if err != nil {
		return b, err
	}
	if !ok {
		return b, t.missing("Number of requests", "request_info.num_requests", "the number of requests the run sent is needed")
	}
	b.Prompts, b.Completed = requests, requests
	for _, l := range []struct {
		key, text, path string
		dst             *model.BenchLengths
		total           *int
	}{
		{"avg_input", "Average Input Length (tokens)", "request_info.avg_input_length", &b.Prompt, &b.InputTokens},
		{"avg_output", "Average Output Length (tokens)", "request_info.avg_output_length", &b.Gen, &b.OutputTokens},
	} {
		mean, v, ok, err := t.num(l.key)
		if err != nil {
			return b, err
		}
		if !ok {
			return b, t.missing(l.text, l.path, "the requests' mean length is needed")
		}
		if mean < 1 || mean > model.MaxTokens {
			return b, t.fail(v, "must be from 1 to %d tokens", model.MaxTokens)
		}
		*l.dst = model.BenchLengths{Mean: mean, From: v.field}
		*l.total = int(math.Round(mean * float64(requests)))
	}
	if b.MaxBatch == 1 {
		b.Concurrency = 1 // latency: one request at a time
	} else if c, _, ok, _ := t.num("concurrent"); ok {
		b.Warnings = append(b.Warnings, fmt.Sprintf("trtllm-bench does not print its --concurrency: served as every request at once (the run's mean was %.1f requests in flight)", c))
	}

	// The figures, latencies first.
	for _, q := range []string{"ttft", "tpot", "e2e"} {
		for _, stat := range []string{"mean", "median", "p90", "p95", "p99", "min", "max"} {
			key := q + "_" + stat
			if _, ok := t.values[key]; !ok && stat == "mean" {
				key = q + "_average" // the breakdown's AVERAGE where the overview has no mean
			}
			f, v, ok, err := t.num(key)
			if err != nil {
				return b, err
			}
			if ok {
				b.Metrics = append(b.Metrics, model.BenchMetric{Quantity: q, Stat: stat, Field: v.field, Value: f / 1e3})
			}
		}
	}
	for _, q := range []string{"requests_per_s", "output_tokens_per_s", "total_tokens_per_s", "per_user_output_tokens_per_s", "per_gpu_output_tokens_per_s", "per_user_output_speed"} {
		f, v, ok, err := t.num(q)
		if err != nil {
			return b, err
		}
		if ok {
			quantity := q
			if q == "per_user_output_speed" {
				quantity = "per_user_decode_tokens_per_s"
			}
			b.Metrics = append(b.Metrics, model.BenchMetric{Quantity: quantity, Field: v.field, Value: f})
		}
	}
	if len(b.Metrics) == 0 {
		return b, t.missing("Request Throughput (req/sec)", "performance.request_throughput_req_s", "no figure measured")
	}
	// The run's length: Total Latency, else the requests over the request throughput.
	if d, _, ok, err := t.num("duration_ms"); err != nil {
		return b, err
	} else if ok {
		b.DurationS = d / 1e3
	}
	if d, _, ok, err := t.num("duration_s"); err != nil {
		return b, err
	} else if ok {
		b.DurationS = d
	}
	if b.DurationS == 0 {
		if r, _, ok, _ := t.num("requests_per_s"); ok && r > 0 {
			b.DurationS = float64(requests) / r
		}
	}
	if !(b.DurationS > 0) {
		return b, t.missing("Total Latency (ms)", "performance.total_latency_ms", "the run's length is needed (or a Request Throughput above 0)")
	}
	b.Runs = 1
	return b, nil
}
