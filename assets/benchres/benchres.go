// Package benchres reads what serving benchmarks saved: vLLM's result JSON (`vllm bench serve
// --save-result`, and benchmarks/benchmark_serving.py before it) and SGLang's bench_serving
// output (JSON Lines, one run a line), into model.ServeBench: the scenario a run describes (the
// model, the rate or concurrency, the requests and their lengths, the engine) and the figures it
// measured (TTFT, TPOT, ITL and end-to-end latency means, medians and percentiles; request and
// token throughputs). It reads bytes and returns plain data; the command line reads the file
// (bounded) and hands the runs to the cost model.
//
// The formats, from the tools' own source:
//
//   - vLLM, vllm/benchmarks/serve.py (vllm-project/vllm at 009e6d4a1cd6, `main` and `benchmark`):
//     result_json = {"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id",
//     "num_prompts", the --metadata KEY=VALUE pairs (strings), "request_rate" (a number, or the
//     string "inf"), "burstiness", "max_concurrency" (null when unset), then the benchmark's
//     "duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
//     "request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
//     per request "input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts",
//     "errors" (dropped unless --save-detailed), and for each of ttft, tpot, itl, e2el the keys
//     mean_X_ms, median_X_ms, std_X_ms and pP_X_ms for each --metric-percentiles P (99 by default;
//     "p99.9" keeps its point). --append-result appends one object a line. The older
//     benchmarks/benchmark_serving.py (8668d7c05027) writes the same keys (its goodput key is
//     spelt "request_goodput:") and keeps the per-request lists always.
//   - SGLang, python/sglang/bench_serving.py (sgl-project/sglang at 0033168f0f58, `benchmark`):
//     one json.dumps line appended per run: {"backend", "dataset_name", "request_rate" (Python's
//     bare Infinity for the default inf), "max_concurrency", "sharegpt_output_len",
//     "random_input_len", "random_output_len", "random_range_ratio", "duration", "completed",
//     "total_input_tokens", "total_output_tokens", "total_output_tokens_retokenized",
//     "request_throughput", "input_throughput", "output_throughput", "mean_e2e_latency_ms",
//     "median_e2e_latency_ms", "std_e2e_latency_ms", "p99_e2e_latency_ms", mean/median/std/p99 of
//     ttft and tpot, mean/median/std/p95/p99 of itl, "concurrency", "accept_length"}; later
//     versions add "server_info" (the server's /get_server_info: model_path, tp_size, …) and
//     "total_throughput", earlier ones (0.3) wrote a subset (median TTFT and ITL, mean and median
//     E2E, output throughput); --output-details adds the per-request lists. Its random dataset
//     draws lengths uniformly on [max(int(L × random_range_ratio), 1), L] (sample_random_requests).
//   - TensorRT-LLM's trtllm-bench, its printed report and its --report_json: trtllm.go.
//
// Every problem names the file, the line of the run and the field (its JSON path).
package benchres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// Bounds on what one file may hold.
const (
	// MaxBytes bounds a result file: a vLLM --save-detailed run of 10,000 requests with their
	// texts and inter-token gaps is tens of MiB.
	MaxBytes = 256 << 20
	// MaxRuns bounds the runs of one JSON Lines file.
	MaxRuns = 4096
	// maxMetricValue bounds a latency (seconds) or a throughput: larger is not a measurement.
	maxMetricValue = 1e12
)

// Error is a problem with a result file: the file, the line of the run (0 when the file as a
// whole), the field's JSON path ("" when none), the value as written and what is wrong.
type Error = assets.FileError

// clip keeps a value short and on one line in a message (assets.Clip).
func clip(v string) string { return assets.Clip(v) }

// Read parses the result file named name (in messages) and returns its runs in file order: one
// for a vLLM --save-result file, one a line for SGLang's JSON Lines or vLLM's --append-result.
// A file that is empty, binary, too large, cut short, not JSON, not a serving benchmark's
// result, or that lacks a field a run needs (completed, duration, request_rate) is an *Error.
func Read(name string, data []byte) ([]model.ServeBench, error) {
	fail := func(line int, field, value, format string, args ...any) error {
		return &Error{File: name, Line: line, Field: field, Value: value, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxBytes {
		return nil, fail(0, "", "", "%d bytes: larger than %d MiB, the limit for a benchmark result", len(data), MaxBytes>>20)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fail(lineAt(data, i), "", "", "binary data (a NUL byte): not a benchmark result (JSON)")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte-order mark
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fail(1, "", "", "empty file: a benchmark result is a JSON object (vllm bench serve --save-result, sglang.bench_serving --output-file)")
	}
	if trtText(data) {
		return readTRTText(name, data)
	}
	data = pythonConstants(data)
	var runs []model.ServeBench
	line, counted := 1, 0 // the line of offset counted
	for at := skipSpace(data, 0); at < len(data); at = skipSpace(data, at) {
		line += bytes.Count(data[counted:at], []byte{'\n'})
		counted = at
		if len(runs) == MaxRuns {
			return nil, fail(line, "", "", "more than %d runs in one file", MaxRuns)
		}
		if data[at] != '{' {
			what := fmt.Sprintf("not JSON (the text starts \"%s\")", clip(string(data[at:min(at+20, len(data))])))
			if data[at] == '[' {
				what = "a JSON array"
			}
			return nil, fail(line, "", "", "%s: a benchmark result is a JSON object, one per run (one a line in JSON Lines)", what)
		}
		obj, end, err := scanObject(data, at)
		if err != nil {
			if err.off >= len(data) {
				return nil, fail(line, "", "", "cut short: the JSON object that starts on line %d does not end", line)
			}
			return nil, fail(line+bytes.Count(data[at:err.off], []byte{'\n'}), "", "", "not JSON: %s", err.msg)
		}
		var r model.ServeBench
		var rerr error
		if trtJSON(obj) {
			r, rerr = readTRTJSON(name, line, obj)
		} else {
			r, rerr = readRun(name, line, obj)
		}
		if rerr != nil {
			return nil, rerr
		}
		runs = append(runs, r)
		at = end
	}
	for i := range runs {
		runs[i].Runs = len(runs)
	}
	return runs, nil
}

// scanError is where the text stops being JSON; off at the end of the data: cut short.
type scanError struct {
	off int
	msg string
}

// scanObject reads the JSON object at data[at] ('{') into its fields' values (slices of data,
// not copied) and returns the offset after it. It checks the object's structure and finds where
// each value ends; the values a run reads are decoded (and so checked) by encoding/json, the
// others (the per-request texts and inter-token gaps, most of a detailed file) are skipped
// without being decoded: a 1,000-request file reads in milliseconds.
func scanObject(data []byte, at int) (map[string]json.RawMessage, int, *scanError) {
	obj := map[string]json.RawMessage{}
	i := skipSpace(data, at+1)
	if i < len(data) && data[i] == '}' {
		return obj, i + 1, nil
	}
	for {
		if i >= len(data) {
			return nil, i, &scanError{off: i}
		}
		if data[i] != '"' {
			return nil, i, &scanError{off: i, msg: fmt.Sprintf("a field's name (a string) expected at \"%s\"", clip(string(data[i:min(i+20, len(data))])))}
		}
		kEnd, err := skipString(data, i)
		if err != nil {
			return nil, i, err
		}
		key := string(data[i+1 : kEnd-1])
		if bytes.IndexByte(data[i:kEnd], '\\') >= 0 && json.Unmarshal(data[i:kEnd], &key) != nil {
			return nil, i, &scanError{off: i, msg: "a field's name is not a valid string"}
		}
		i = skipSpace(data, kEnd)
		if i >= len(data) {
			return nil, i, &scanError{off: i}
		}
		if data[i] != ':' {
			return nil, i, &scanError{off: i, msg: fmt.Sprintf("':' expected after the field name \"%s\"", clip(key))}
		}
		i = skipSpace(data, i+1)
		vEnd, err := skipValue(data, i)
		if err != nil {
			return nil, i, err
		}
		obj[key] = json.RawMessage(data[i:vEnd])
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return nil, i, &scanError{off: i}
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return obj, i + 1, nil
		default:
			return nil, i, &scanError{off: i, msg: fmt.Sprintf("',' or '}' expected after the value of \"%s\"", clip(key))}
		}
	}
}

// skipString returns the offset after the string that starts at data[i] ('"').
func skipString(data []byte, i int) (int, *scanError) {
	for j := i + 1; j < len(data); j++ {
		for j < len(data) && !strStop[data[j]] {
			j++
		}
		if j == len(data) {
			break
		}
		if data[j] == '"' {
			return j + 1, nil
		}
		j++ // a backslash: the byte after it is escaped
	}
	return len(data), &scanError{off: len(data)}
}

// skipValue returns the offset after the value that starts at data[i]: a string, an object or
// an array (brackets balanced, strings skipped whole), or a number or literal (to the next
// delimiter; checked when the value is decoded).
func skipValue(data []byte, i int) (int, *scanError) {
	if i >= len(data) {
		return i, &scanError{off: i}
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		var stack []byte
		for j := i; j < len(data); j++ {
			for j < len(data) && !structural[data[j]] {
				j++ // numbers, commas, blanks: most of a list of gaps
			}
			if j == len(data) {
				break
			}
			switch c := data[j]; c {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return end, err
				}
				j = end - 1
			case '{', '[':
				stack = append(stack, c)
			case '}', ']':
				open := byte('{')
				if c == ']' {
					open = '['
				}
				if stack[len(stack)-1] != open {
					return j, &scanError{off: j, msg: fmt.Sprintf("%q closes a %q", c, stack[len(stack)-1])}
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return j + 1, nil
				}
			}
		}
		return len(data), &scanError{off: len(data)}
	case ',', '}', ']', ':':
		return i, &scanError{off: i, msg: fmt.Sprintf("a value expected at %q", data[i])}
	}
	j := i
	for j < len(data) && !isDelimiter(data[j]) {
		j++
	}
	return j, nil
}

// Bytes the scanners stop at: structural[c] where a value's structure may change, pyStart[c]
// where a string or one of Python's constants may begin, strStop[c] where a string may end.
var structural, pyStart, strStop [256]bool

func init() {
	for _, c := range `"{}[]` {
		structural[c] = true
	}
	for _, c := range `"NI-` {
		pyStart[c] = true
	}
	strStop['"'], strStop['\\'] = true, true
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// lineAt is the line (from 1) of byte offset i.
func lineAt(data []byte, i int) int {
	i = min(max(i, 0), len(data))
	return 1 + bytes.Count(data[:i], []byte{'\n'})
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// pythonConstants turns the bare NaN, Infinity and -Infinity Python's json writes for floats
// (SGLang's "request_rate": Infinity) into strings, which the fields that may hold them read;
// the rest of the text is left as it is (newlines included, so lines still count).
func pythonConstants(data []byte) []byte {
	var out []byte // nil until the first replacement
	last := 0
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		if !inString {
			for i < len(data) && !pyStart[data[i]] {
				i++
			}
			if i == len(data) {
				break
			}
		}
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		var word string
		switch c {
		case '"':
			inString = true
			continue
		case 'N':
			word = "NaN"
		case 'I':
			word = "Infinity"
		case '-':
			word = "-Infinity"
		default:
			continue
		}
		if !bytes.HasPrefix(data[i:], []byte(word)) {
			continue
		}
		out = append(out, data[last:i]...)
		out = append(out, '"')
		out = append(out, word...)
		out = append(out, '"')
		i += len(word) - 1
		last = i + 1
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// Keys only one of the tools writes, to tell them apart.
var (
	sglangKeys = []string{"total_output_tokens_retokenized", "random_range_ratio", "random_input_len", "mean_e2e_latency_ms",
		"median_e2e_latency_ms", "input_throughput", "server_info", "dataset_name"}
	resultKeys = []string{"completed", "duration", "request_rate", "request_throughput", "output_throughput",
		"mean_ttft_ms", "median_ttft_ms"}
)

// run reads one run's fields, with its file and line for messages.
type run struct {
	file string
	line int
	obj  map[string]json.RawMessage
}

func (r *run) fail(field string, raw json.RawMessage, format string, args ...any) error {
	return &Error{File: r.file, Line: r.line, Field: field, Value: string(raw), Msg: fmt.Sprintf(format, args...)}
}

// raw is the field's value, nil when absent or null.
func (r *run) raw(field string) json.RawMessage {
	v, ok := r.obj[field]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}

// num reads a finite number ≥ 0 and ≤ maxMetricValue; ok is false when absent or null.
func (r *run) num(field string) (v float64, ok bool, err error) {
	raw := r.raw(field)
	if raw == nil {
		return 0, false, nil
	}
	if json.Unmarshal(raw, &v) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil && (s == "NaN" || s == "Infinity" || s == "-Infinity") {
			return 0, false, r.fail(field, raw, "not a finite number")
		}
		return 0, false, r.fail(field, raw, "must be a number")
	}
	if !(v >= 0 && v <= maxMetricValue) {
		return 0, false, r.fail(field, raw, "must be a number from 0 to %g", maxMetricValue)
	}
	return v, true, nil
}

// count reads a whole number from 0 to model.MaxBatch, written as a number or a string (vLLM's
// --metadata values are strings).
func (r *run) count(field string) (int, bool, error) {
	raw := r.raw(field)
	if raw == nil {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false, r.fail(field, raw, "must be a whole number")
		}
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, false, r.fail(field, raw, "must be a whole number")
		}
	}
	if f != math.Trunc(f) || f < 0 || f > model.MaxBatch {
		return 0, false, r.fail(field, raw, "must be a whole number from 0 to %d", model.MaxBatch)
	}
	return int(f), true, nil
}

// str reads a string; "" when absent or null.
func (r *run) str(field string) (string, error) {
	raw := r.raw(field)
	if raw == nil {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", r.fail(field, raw, "must be a string")
	}
	return strings.TrimSpace(s), nil
}

// lens reads a per-request list of token counts; nil when absent.
func (r *run) lens(field string) ([]int, error) {
	raw := r.raw(field)
	if raw == nil {
		return nil, nil
	}
	var fs []float64
	if err := json.Unmarshal(raw, &fs); err != nil {
		return nil, r.fail(field, nil, "must be a list of token counts, one per request")
	}
	if len(fs) > model.MaxBatch {
		return nil, r.fail(field, nil, "%d entries: at most %d requests", len(fs), model.MaxBatch)
	}
	out := make([]int, len(fs))
	for i, f := range fs {
		if f != math.Trunc(f) || f < 0 || f > model.MaxTokens {
			return nil, r.fail(fmt.Sprintf("%s[%d]", field, i), json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)),
				"must be a whole number of tokens from 0 to %d", model.MaxTokens)
		}
		out[i] = int(f)
	}
	return out, nil
}

// readRun reads one run's object.
func readRun(file string, line int, obj map[string]json.RawMessage) (model.ServeBench, error) {
	r := &run{file: file, line: line, obj: obj}
	b := model.ServeBench{File: file, Line: line, Tool: model.ToolVLLM}
	known := false
	for _, k := range resultKeys {
		_, ok := obj[k]
		known = known || ok
	}
	if !known {
		return b, &Error{File: file, Line: line, Msg: "not a serving benchmark result (vllm bench serve --save-result or sglang.bench_serving): none of " +
			strings.Join(resultKeys, ", ")}
	}
	// vLLM's keys of its own (model_id, tokenizer_id, both from the first release that saved
	// results) outrank SGLang's: vLLM's benchmark_serving.py of 2024 wrote input_throughput too.
	_, vllmModel := obj["model_id"]
	_, vllmTokenizer := obj["tokenizer_id"]
	for _, k := range sglangKeys {
		if _, ok := obj[k]; ok && !vllmModel && !vllmTokenizer {
			b.Tool = model.ToolSGLang
			break
		}
	}
	if _, ok := obj["total_input_sequences"]; ok {
		return b, r.fail("total_input_sequences", obj["total_input_sequences"], "a pooling (embedding) benchmark: no tokens generated, nothing to serve")
	}

	var err error
	if b.Backend, err = r.str("backend"); err != nil {
		return b, err
	}
	b.Engine = engineOf(b.Tool, b.Backend)
	if b.Backend != "" && b.Engine == "" {
		b.Warnings = append(b.Warnings, fmt.Sprintf("backend %s: splitscope has no profile of its engine; give --engine", b.Backend))
	}
	if b.Dataset, err = r.str("dataset_name"); err != nil {
		return b, err
	}
	if err := readModel(r, &b); err != nil {
		return b, err
	}
	if err := readHardware(r, &b); err != nil {
		return b, err
	}
	if err := readTraffic(r, &b); err != nil {
		return b, err
	}
	if err := readLengths(r, &b); err != nil {
		return b, err
	}
	if err := readMetrics(r, &b); err != nil {
		return b, err
	}
	return b, nil
}

// engineOf maps a tool's --backend to an engine profile (model.Engines), "" when it names none.
// vLLM's backends are endpoint types ("openai", "openai-chat", "vllm"): a vLLM server unless they
// name another engine; SGLang's name the engine ("sglang", "sglang-oai", "vllm", "trt", …).
func engineOf(tool, backend string) string {
	b := strings.ToLower(backend)
	switch {
	case b == "" && tool == model.ToolSGLang:
		return "sglang"
	case b == "", strings.HasPrefix(b, "vllm"):
		return "vllm"
	case strings.HasPrefix(b, "sglang"):
		return "sglang"
	case b == "trt" || strings.HasPrefix(b, "tensorrt"):
		return "trtllm"
	case strings.HasPrefix(b, "openai") && tool == model.ToolVLLM:
		return "vllm"
	}
	return ""
}

func readModel(r *run, b *model.ServeBench) error {
	id, err := r.str("model_id")
	if err != nil {
		return err
	}
	if id == "" {
		id, _ = r.str("model") // a --metadata model=…; another tool's non-string "model" says nothing
	}
	if id != "" {
		b.Model = id
		return nil
	}
	info := r.raw("server_info")
	if info == nil {
		return nil
	}
	var si map[string]json.RawMessage
	if json.Unmarshal(info, &si) != nil {
		return r.fail("server_info", nil, "must be an object (the server's /get_server_info)")
	}
	sub := &run{file: r.file, line: r.line, obj: si}
	path, err := sub.str("model_path")
	if err != nil {
		return r.fail("server_info.model_path", si["model_path"], "must be a string")
	}
	b.Model = path
	tp, _, err := sub.count("tp_size")
	if err != nil {
		return r.fail("server_info.tp_size", si["tp_size"], "must be a whole number")
	}
	b.TP = tp
	return nil
}

// reGPUMeta is a metadata "gpu" value such as "4xNVIDIA_L40S".
var reGPUMeta = regexp.MustCompile(`^(\d+)\s*[x×]\s*(\S.*)$`)

// readHardware reads what metadata says of the GPUs: gpu_name and gpu_count, or gpu as "N×NAME".
func readHardware(r *run, b *model.ServeBench) error {
	var err error
	if b.GPUName, err = r.str("gpu_name"); err != nil {
		return err
	}
	if b.GPUCount, _, err = r.count("gpu_count"); err != nil {
		return err
	}
	if b.GPUName == "" {
		g, err := r.str("gpu")
		if err != nil {
			return nil // another tool's "gpu" key: not the hardware
		}
		if m := reGPUMeta.FindStringSubmatch(g); m != nil {
			n, _ := strconv.Atoi(m[1])
			if n >= 1 && n <= model.MaxGPUs {
				b.GPUName, b.GPUCount = m[2], n
			}
		} else {
			b.GPUName = g
		}
	}
	return nil
}

// readTraffic reads the arrivals and the counts: request_rate (required), burstiness,
// max_concurrency, num_prompts, completed and duration (required), failed.
func readTraffic(r *run, b *model.ServeBench) error {
	raw := r.raw("request_rate")
	if raw == nil {
		if _, ok := r.obj["request_rate"]; ok {
			return r.fail("request_rate", raw, "null: the run's arrival rate is needed (a number, or \"inf\" for every request at once)")
		}
		return r.fail("request_rate", nil, "missing: the run's arrival rate is needed (a number, or \"inf\" for every request at once)")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "inf", "infinity":
			b.Rate = 0
		case "trace":
			return r.fail("request_rate", raw, "arrivals at a trace's timestamps: splitscope draws Poisson arrivals and cannot replay them")
		default:
			return r.fail("request_rate", raw, "must be a number of requests/s or \"inf\"")
		}
	} else {
		v, _, err := r.num("request_rate")
		if err != nil {
			return err
		}
		if v == 0 {
			return r.fail("request_rate", raw, "must be more than 0 requests/s (or \"inf\")")
		}
		b.Rate = v
	}
	bu, ok, err := r.num("burstiness")
	if err != nil {
		return err
	}
	b.Burstiness = 1
	if ok {
		if bu == 0 {
			return r.fail("burstiness", r.raw("burstiness"), "must be more than 0")
		}
		b.Burstiness = bu
	}
	if b.Rate > 0 && b.Burstiness != 1 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("burstiness %g: the run's arrivals were gamma-distributed; splitscope draws Poisson arrivals (burstiness 1)", b.Burstiness))
	}
	if b.Concurrency, _, err = r.count("max_concurrency"); err != nil {
		return err
	}
	if b.Prompts, _, err = r.count("num_prompts"); err != nil {
		return err
	}
	var have bool
	if b.Completed, have, err = r.count("completed"); err != nil {
		return err
	}
	if !have {
		return r.fail("completed", nil, "missing: the number of requests the run completed is needed")
	}
	if b.Completed == 0 {
		return r.fail("completed", r.raw("completed"), "no request completed: nothing was measured")
	}
	if b.DurationS, have, err = r.num("duration"); err != nil {
		return err
	}
	if !have {
		return r.fail("duration", nil, "missing: the run's length in seconds is needed")
	}
	if b.DurationS == 0 {
		return r.fail("duration", r.raw("duration"), "must be more than 0 s")
	}
	failed, _, err := r.count("failed")
	if err != nil {
		return err
	}
	if failed > 0 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%d request(s) failed: the figures are those of the %d completed", failed, b.Completed))
	}
	if b.InputTokens, _, err = r.count("total_input_tokens"); err != nil {
		return err
	}
	if b.OutputTokens, _, err = r.count("total_output_tokens"); err != nil {
		return err
	}
	return nil
}

// readLengths reads the per-request lengths when the file keeps them and summarises the prompt
// and output lengths: from the lists, else from the totals (with a random dataset's range when
// its mean agrees with them).
func readLengths(r *run, b *model.ServeBench) error {
	var err error
	if b.InputLens, err = r.lens("input_lens"); err != nil {
		return err
	}
	if b.OutputLens, err = r.lens("output_lens"); err != nil {
		return err
	}
	random := strings.HasPrefix(b.Dataset, "random") && b.Tool == model.ToolSGLang
	ratio, _, err := r.num("random_range_ratio")
	if err != nil {
		return err
	}
	if ratio > 1 {
		return r.fail("random_range_ratio", r.raw("random_range_ratio"), "must be from 0 to 1")
	}
	for _, l := range []struct {
		dst          *model.BenchLengths
		lens         []int
		list, total  string
		totalV       int
		randomLen    string
		outputLength bool
	}{
		{&b.Prompt, b.InputLens, "input_lens", "total_input_tokens", b.InputTokens, "random_input_len", false},
		{&b.Gen, b.OutputLens, "output_lens", "total_output_tokens", b.OutputTokens, "random_output_len", true},
	} {
		if s, ok := summarize(l.lens); ok {
			s.From = l.list
			*l.dst = s
			continue
		}
		if l.totalV == 0 {
			return r.fail(l.total, r.raw(l.total), "missing or 0, and no %s: the requests' lengths are needed", l.list)
		}
		mean := float64(l.totalV) / float64(b.Completed)
		*l.dst = model.BenchLengths{Mean: mean, From: l.total + " / completed"}
		if !random {
			continue
		}
		n, ok, err := r.count(l.randomLen)
		if err != nil || !ok || n == 0 {
			if err != nil {
				return err
			}
			continue
		}
		// sample_random_requests: randint(max(int(L·ratio), 1), L + 1), the output's from
		// int(L·ratio); a length of 0 is served as 1.
		lo := max(int(float64(n)*ratio), 1)
		if mid := float64(lo+n) / 2; math.Abs(mid-mean) <= 0.05*mean {
			*l.dst = model.BenchLengths{Mean: mean, Min: lo, Max: n, Uniform: lo < n,
				From: fmt.Sprintf("%s / completed, drawn uniformly on [%d, %d] (%s %d, random_range_ratio %g)", l.total, lo, n, l.randomLen, n, ratio)}
		}
	}
	return nil
}

// summarize is the mean, range and spread (of the logarithm) of the lengths of at least 1 token;
// ok is false when there are none.
func summarize(lens []int) (model.BenchLengths, bool) {
	var s model.BenchLengths
	n := 0
	var sum, logSum, logSq float64
	for _, l := range lens {
		if l < 1 {
			continue // a failed request's output
		}
		if n == 0 || l < s.Min {
			s.Min = l
		}
		s.Max = max(s.Max, l)
		n++
		sum += float64(l)
		lg := math.Log(float64(l))
		logSum += lg
		logSq += lg * lg
	}
	if n == 0 {
		return s, false
	}
	s.Mean = sum / float64(n)
	m := logSum / float64(n)
	s.LogSigma = math.Sqrt(math.Max(logSq/float64(n)-m*m, 0))
	if s.Min == s.Max {
		s.LogSigma = 0
	}
	return s, true
}

// The metrics' keys: vLLM's {mean,median,std,pP}_{ttft,tpot,itl,e2el}_ms and SGLang's, whose
// end-to-end latency is *_e2e_latency_ms.
var (
	reLatency = regexp.MustCompile(`^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$`)
	rates     = []struct{ key, quantity string }{
		{"request_throughput", "requests_per_s"},
		{"input_throughput", "input_tokens_per_s"},
		{"output_throughput", "output_tokens_per_s"},
		{"total_token_throughput", "total_tokens_per_s"},
		{"total_throughput", "total_tokens_per_s"},
	}
	quantityOrder = map[string]int{"ttft": 0, "tpot": 1, "itl": 2, "e2e": 3}
)

// readMetrics reads every latency statistic and throughput the run has. A p50 beside the
// median is the same figure and is left out; a NaN (Python's, for a statistic over no
// requests) is left out with a warning.
func readMetrics(r *run, b *model.ServeBench) error {
	var lat []model.BenchMetric
	for k := range r.obj {
		m := reLatency.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		q := m[2]
		if q == "e2el" || q == "e2e_latency" {
			q = "e2e"
		}
		v, ok, err := r.num(k)
		var s string
		if err != nil && json.Unmarshal(r.obj[k], &s) == nil && s == "NaN" {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s is NaN (no request to measure it over): not compared", k))
			continue
		}
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		lat = append(lat, model.BenchMetric{Quantity: q, Stat: m[1], Field: k, Value: v / 1e3})
	}
	hasMedian := map[string]bool{}
	for _, m := range lat {
		if m.Stat == "median" {
			hasMedian[m.Quantity] = true
		}
	}
	kept := lat[:0]
	for _, m := range lat {
		if m.Stat == "p50" {
			if hasMedian[m.Quantity] {
				continue
			}
			m.Stat = "median"
		}
		kept = append(kept, m)
	}
	lat = kept
	sort.Slice(lat, func(i, j int) bool {
		a, c := lat[i], lat[j]
		if a.Quantity != c.Quantity {
			return quantityOrder[a.Quantity] < quantityOrder[c.Quantity]
		}
		return statRank(a.Stat) < statRank(c.Stat)
	})
	b.Metrics = lat
	seen := map[string]bool{}
	for _, t := range rates {
		v, ok, err := r.num(t.key)
		if err != nil {
			return err
		}
		if ok && !seen[t.quantity] {
			seen[t.quantity] = true
			b.Metrics = append(b.Metrics, model.BenchMetric{Quantity: t.quantity, Field: t.key, Value: v})
		}
	}
	if len(b.Metrics) == 0 {
		return &Error{File: r.file, Line: r.line, Msg: "no figure measured: none of mean_ttft_ms, median_ttft_ms, p99_ttft_ms (or tpot, itl, e2el), request_throughput, output_throughput"}
	}
	return nil
}

// statRank orders mean, median, std, then the percentiles by their point.
func statRank(s string) float64 {
	switch s {
	case "mean":
		return -3
	case "median":
		return -2
	case "std":
		return -1
	}
	p, _ := strconv.ParseFloat(strings.TrimPrefix(s, "p"), 64)
	return p
}
