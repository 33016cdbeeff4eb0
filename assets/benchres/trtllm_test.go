package benchres

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

const (
	trtBlog     = "trtllm/nvidia-blog-llama31-8b-h100-streaming.txt"
	trtJSONFile = "trtllm/built-report-json-llama31-8b.json"
)

// The real reports of three releases (0.12's STATISTICS, 0.16's throughput and latency, 0.21's
// PyTorch flow with streaming), each read into the run it describes.
func TestReadTRTLLMRealReports(t *testing.T) {
	for _, c := range []struct {
		file                   string
		model                  string
		tp, maxBatch, maxTok   int
		weights, kv, backend   string
		requests, concurrency  int
		prompt, gen, durationS float64
		want                   map[string]float64 // metric name → value
		fields                 map[string]string  // metric name → the label read
	}{
		{trtBlog, "meta-llama/Llama-3.1-8B-Instruct", 1, 3840, 7680, "", "", "pytorch", 100, 0, 128, 128, 1.1555715,
			map[string]float64{"requests_per_s": 86.5373, "output_tokens_per_s": 11076.77, "total_tokens_per_s": 22153.5399,
				"e2e_mean_s": 1.0932284, "ttft_mean_s": 0.1626706, "tpot_mean_s": 0.0073272, "ttft_p90_s": 0.220053, "tpot_median_s": 0.0076079,
				"e2e_p99_s": 1.1376817, "per_user_output_tokens_per_s": 117.1544, "per_user_decode_tokens_per_s": 137.1475},
			map[string]string{"ttft_mean_s": "Average time-to-first-token [TTFT] (ms)", "e2e_mean_s": "Average request latency (ms)", "ttft_p90_s": "[TTFT] P90"}},
		{"trtllm/perf-overview-llama2-7b-fp8-0.12.txt", "meta-llama/Llama-2-7b-hf", 1, 4096, 8192, "fp8", "fp8", "tensorrt", 3000, 0, 128, 128, 16.406100739,
			map[string]float64{"requests_per_s": 182.8588064724305, "output_tokens_per_s": 23405.927228471104},
			map[string]string{"output_tokens_per_s": "Token Throughput (tokens/sec)"}},
		{"trtllm/tuning-guide-llama33-70b-tp4-throughput-0.16.txt", "/scratch/Llama-3.3-70B-Instruct/", 4, 2048, 8192, "", "", "tensorrt", 1000, 0, 2048, 2048, 1291.5041051,
			map[string]float64{"requests_per_s": 0.7743, "output_tokens_per_s": 1585.748}, nil},
		{"trtllm/tuning-guide-llama33-70b-tp4-latency-0.16.txt", "/scratch/Llama-3.3-70B-Instruct/", 4, 1, 8192, "", "", "tensorrt", 100, 1, 2048, 2048, 6345.6240554,
			map[string]float64{"requests_per_s": 0.0158, "output_tokens_per_s": 32.2742, "ttft_mean_s": 0.1477502, "tpot_mean_s": 0.0309274, "e2e_mean_s": 63.4560704},
			map[string]string{"output_tokens_per_s": "Total Token Throughput (tokens/sec)", "tpot_mean_s": "Average inter-token latency (ms)"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			runs, err := Read(c.file, readTestdata(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			b := runs[0]
			if b.Tool != model.ToolTRTLLM || b.Engine != "trtllm" || b.Backend != c.backend || b.Model != c.model || b.ModelField != "Model" {
				t.Errorf("tool %q engine %q backend %q model %q (%s)", b.Tool, b.Engine, b.Backend, b.Model, b.ModelField)
			}
			if b.TP != c.tp || b.PP != 1 || b.MaxBatch != c.maxBatch || b.MaxTokens != c.maxTok || b.Weights != c.weights || b.KVCache != c.kv {
				t.Errorf("TP %d PP %d max batch %d max tokens %d weights %q KV %q", b.TP, b.PP, b.MaxBatch, b.MaxTokens, b.Weights, b.KVCache)
			}
			if b.Completed != c.requests || b.Prompts != c.requests || b.Concurrency != c.concurrency || b.Rate != 0 || !near(b.DurationS, c.durationS) ||
				b.Prompt.Mean != c.prompt || b.Gen.Mean != c.gen || b.OutputTokens != int(c.gen)*c.requests {
				t.Errorf("requests %d/%d, concurrency %d, rate %g, %g s, lengths %g/%g, output tokens %d", b.Completed, b.Prompts, b.Concurrency, b.Rate, b.DurationS, b.Prompt.Mean, b.Gen.Mean, b.OutputTokens)
			}
			for name, v := range c.want {
				m, ok := metric(b, name)
				if !ok || !near(m.Value, v) {
					t.Errorf("%s = %+v (found %v), want %g", name, m, ok, v)
				}
			}
			for name, f := range c.fields {
				if m, _ := metric(b, name); m.Field != f {
					t.Errorf("%s read from %q, want %q", name, m.Field, f)
				}
			}
		})
	}
}

// --report_json holds what the text prints: the same run and figures, named by JSON path.
func TestReadTRTLLMJSONMatchesText(t *testing.T) {
	text, err := Read(trtBlog, readTestdata(t, trtBlog))
	if err != nil {
		t.Fatal(err)
	}
	js, err := Read(trtJSONFile, readTestdata(t, trtJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	a, b := text[0], js[0]
	if b.Tool != model.ToolTRTLLM || b.Model != a.Model || b.TP != a.TP || b.MaxBatch != a.MaxBatch || b.MaxTokens != a.MaxTokens ||
		b.Completed != a.Completed || b.DurationS != a.DurationS || b.Prompt.Mean != a.Prompt.Mean || b.ModelField != "engine.model" || b.Backend != "pytorch" {
		t.Fatalf("JSON %+v\ntext %+v", b, a)
	}
	if len(a.Metrics) != len(b.Metrics) || len(a.Metrics) != 27 {
		t.Fatalf("%d metrics from the JSON, %d from the text, want 27", len(b.Metrics), len(a.Metrics))
	}
	for i, m := range a.Metrics {
		n := b.Metrics[i]
		if m.Name() != n.Name() || !near(m.Value, n.Value) || !strings.Contains(n.Field, ".") {
			t.Errorf("metric %d: JSON %+v, text %+v", i, n, m)
		}
	}
	if m, _ := metric(b, "ttft_p99_s"); m.Field != "streaming_metrics.ttft_percentiles.p99" {
		t.Errorf("ttft p99 read from %q", m.Field)
	}
}

// MACHINE DETAILS names the GPU (releases since 1.0); "No GPU info available" names none.
func TestReadTRTLLMMachine(t *testing.T) {
	blog := string(readTestdata(t, trtBlog))
	for _, c := range []struct{ line, want string }{
		{"NVIDIA H100 80GB HBM3, memory 79.10 GB, 2.62 GHz", "NVIDIA H100 80GB HBM3"},
		{"No GPU info available", ""},
	} {
		data := strings.Replace(blog, "= REQUEST DETAILS", "= MACHINE DETAILS \n===========================================================\n"+c.line+"\n\n===========================================================\n= REQUEST DETAILS", 1)
		runs, err := Read("r.txt", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].GPUName != c.want || runs[0].GPUField != "MACHINE DETAILS" {
			t.Errorf("%q: GPU %q, want %q", c.line, runs[0].GPUName, c.want)
		}
	}
	js := strings.Replace(string(readTestdata(t, trtJSONFile)), `"machine": null`, `"machine": {"name": "NVIDIA H200", "memory.total": 139.8, "clocks.mem": 3.2}`, 1)
	runs, err := Read("r.json", []byte(js))
	if err != nil || runs[0].GPUName != "NVIDIA H200" || runs[0].GPUField != "machine.name" {
		t.Fatalf("%v %+v", err, runs)
	}
}

// Bad reports name the file, the line (text) and the label or JSON path.
func TestReadTRTLLMBadInput(t *testing.T) {
	blog := string(readTestdata(t, trtBlog))
	js := string(readTestdata(t, trtJSONFile))
	for _, c := range []struct {
		name, data string
		line       int
		field, msg string
	}{
		{"overview only (real: the DeepSeek-R1 guide)", string(readTestdata(t, "trtllm/deepseek-r1-fp4-b200-overview-only.txt")), 0, "Number of requests", "missing"},
		{"bad number", strings.Replace(blog, "86.5373", "86.5x", 1), 34, "Request Throughput (req/sec)", "must be a number"},
		{"negative", strings.Replace(blog, "Total Latency (ms):                               1155.5715", "Total Latency (ms): -3", 1), 37, "Total Latency (ms)", "from 0"},
		{"TP 0", strings.Replace(blog, "TP Size:                1", "TP Size:                0", 1), 22, "TP Size", "whole number from 1"},
		{"half a request", strings.Replace(blog, "Number of requests:             100", "Number of requests: 99.5", 1), 15, "Number of requests", "whole number"},
		{"no output length", strings.Replace(blog, "Average Output Length (tokens): 128.0000", "", 1), 0, "Average Output Length (tokens)", "missing"},
		{"a label twice in one report", strings.Replace(blog, "Total Token Throughput", "Request Throughput (req/sec):   1\nTotal Token Throughput", 1), 36, "Request Throughput (req/sec)", "given again (first on line 34) in one report"},
		{"the second report lacks its requests", blog + strings.Replace(blog, "Number of requests:             100", "", 1), 105, "Number of requests", "missing"},
		{"JSON num_requests a word", strings.Replace(js, `"num_requests": 100,`, `"num_requests": "many",`, 1), 1, "request_info.num_requests", "must be a number"},
		{"JSON performance not an object", strings.Replace(js, `"performance": {`, `"performance": [1], "x": {`, 1), 1, "performance", "must be an object"},
		{"JSON latency percentiles a list", strings.Replace(js, `"request_latency_percentiles_ms": {`, `"request_latency_percentiles_ms": [], "y": {`, 1), 1, "performance.request_latency_percentiles_ms", "must be an object"},
		{"JSON no total latency, no throughput", strings.Replace(strings.Replace(js, `"total_latency_ms": 1155.5715,`, ``, 1), `"request_throughput_req_s": 86.5373,`, ``, 1), 1, "performance.total_latency_ms", "missing"},
		{"JSON machine name a number", strings.Replace(js, `"machine": null`, `"machine": {"name": 7}`, 1), 1, "machine.name", "must be a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("r", []byte(c.data))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v, want an *Error", err)
			}
			if e.File != "r" || e.Line != c.line || e.Field != c.field || !strings.Contains(e.Error(), c.msg) {
				t.Errorf("%v (line %d field %q), want line %d field %q and %q", err, e.Line, e.Field, c.line, c.field, c.msg)
			}
		})
	}
	if !IsTRTLLM(readTestdata(t, trtBlog)) || !IsTRTLLM(readTestdata(t, trtJSONFile)) || IsTRTLLM(readTestdata(t, "vllm/iog-llama3-8b-rtx4090-4qps.json")) ||
		IsTRTLLM([]byte("iteration 10/100 | elapsed time per iteration (ms): 3.1")) {
		t.Error("IsTRTLLM tells the formats apart wrongly")
	}
}

// FuzzReadTRTLLM: the text reports and the JSON.
func FuzzReadTRTLLM(f *testing.F) {
	for _, name := range []string{trtBlog, trtJSONFile, "trtllm/tuning-guide-llama33-70b-tp4-latency-0.16.txt", "trtllm/perf-overview-llama2-7b-fp8-0.12.txt"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Read("fuzz.json", data)
		checkRuns(t, runs, err)
	})
}

// TestReadTRTLLMMutations: every prefix of a text report and of the JSON, and seeded random
// edits of their bytes, read to a run or an *Error naming the file, never a panic.
func TestReadTRTLLMMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("{}[]\",:-.0123456789eENaIf% \t\n=")
	for _, name := range []string{trtBlog, trtJSONFile, "trtllm/tuning-guide-llama33-70b-tp4-latency-0.16.txt"} {
		seed := readTestdata(t, name)
		for n := range len(seed) {
			runs, err := Read("fuzz.json", seed[:n])
			checkRuns(t, runs, err)
		}
		for range 2000 {
			data := bytes.Clone(seed)
			for range 1 + rng.IntN(4) {
				data[rng.IntN(len(data))] = alphabet[rng.IntN(len(alphabet))]
			}
			runs, err := Read("fuzz.json", data)
			checkRuns(t, runs, err)
		}
	}
}

// A report cut before its overview is still told as one and refused naming what it lacks.
func TestReadTRTLLMCutBeforeOverview(t *testing.T) {
	blog := readTestdata(t, trtBlog)
	cut := blog[:bytes.Index(blog, []byte("= PERFORMANCE OVERVIEW"))]
	_, err := Read("cut.txt", cut)
	var e *Error
	if !errors.As(err, &e) || e.Field != "Request Throughput (req/sec)" || !strings.Contains(err.Error(), "missing: no figure measured") {
		t.Fatalf("err %v", err)
	}
}

// BenchmarkReadTRTLLMLog: a report at the end of a run's whole console output, 20,000 log lines
// before it (the iteration log a --streaming run with print_iter_log writes).
func BenchmarkReadTRTLLMLog(b *testing.B) {
	var log bytes.Buffer
	for i := range 20000 {
		log.WriteString("[12/02/2025-10:00:00] [TRT-LLM] [I] iter = ")
		log.WriteString(strings.Repeat("x", i%7))
		log.WriteString(", global_rank = 0, rank = 0, currank_total_requests = 0/100, host_step_time = 12.5ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 94}\n")
	}
	log.Write(readTestdata(b, trtBlog))
	data := log.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		runs, err := Read("bench.log", data)
		if err != nil || len(runs[0].Metrics) != 27 {
			b.Fatal(err)
		}
	}
}

// A log of several runs (a sweep) holds one report a run, each from its first section's header.
func TestReadTRTLLMSeveralReports(t *testing.T) {
	blog := string(readTestdata(t, trtBlog))
	runs, err := Read("sweep.log", []byte(blog+strings.Replace(blog, "86.5373", "90.25", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Line != 1 || runs[1].Line != 105 || runs[0].Runs != 2 || runs[1].Runs != 2 {
		t.Fatalf("%d runs at lines %d, %d", len(runs), runs[0].Line, runs[len(runs)-1].Line)
	}
	a, _ := metric(runs[0], "requests_per_s")
	b, _ := metric(runs[1], "requests_per_s")
	if a.Value != 86.5373 || b.Value != 90.25 {
		t.Errorf("requests/s %g and %g", a.Value, b.Value)
	}
}

// masahiro-kubota/trtllm-latency: a --report_json that trtllm-bench latency (TensorRT-LLM 1.2.0,
// TensorRT engine) wrote for Qwen2.5-0.5B-Instruct on an RTX PRO 6000 Blackwell: 20 requests of
// 1024 prompt and 40 output tokens, one at a time (max batch size 1).
func TestReadTRTLLMRealReportJSON(t *testing.T) {
	const file = "trtllm/masahiro-kubota-qwen25-0p5b-rtx-pro-6000-latency-report.json"
	runs, err := Read(file, readTestdata(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	b := runs[0]
	if b.Tool != model.ToolTRTLLM || b.Engine != "trtllm" || b.Model != "Qwen/Qwen2.5-0.5B-Instruct" || b.ModelField != "engine.model" {
		t.Errorf("tool %q engine %q model %q (%s)", b.Tool, b.Engine, b.Model, b.ModelField)
	}
	if b.GPUName != "NVIDIA RTX PRO 6000 Blackwell Server Edition" || b.GPUField != "machine.name" {
		t.Errorf("gpu %q (%s)", b.GPUName, b.GPUField)
	}
	if b.TP != 1 || b.PP != 1 || b.MaxBatch != 1 || b.MaxTokens != 1065 || b.Weights != "" || b.KVCache != "" {
		t.Errorf("tp %d pp %d max batch %d max tokens %d weights %q kv %q", b.TP, b.PP, b.MaxBatch, b.MaxTokens, b.Weights, b.KVCache)
	}
	if b.Prompts != 20 || b.Completed != 20 || b.Concurrency != 1 || b.Rate != 0 || !near(b.DurationS, 1.599893513) {
		t.Errorf("%d requests (%d completed), concurrency %d, rate %g, %g s", b.Prompts, b.Completed, b.Concurrency, b.Rate, b.DurationS)
	}
	if b.Prompt.Mean != 1024 || b.Gen.Mean != 40 || b.InputTokens != 20480 || b.OutputTokens != 800 {
		t.Errorf("lengths %+v / %+v, totals %d / %d", b.Prompt, b.Gen, b.InputTokens, b.OutputTokens)
	}
	for name, want := range map[string]float64{
		"ttft_mean_s": 9.5749594e-3, "ttft_median_s": 6.770105e-3, "ttft_p99_s": 29.387998e-3,
		"tpot_mean_s": 1.805170469230769e-3, "tpot_p90_s": 1.8459243333333333e-3,
		"e2e_mean_s": 79.9766077e-3, "e2e_median_s": 77.598479e-3, "e2e_p95_s": 101.143053e-3,
		"requests_per_s": 12.500831985059746, "output_tokens_per_s": 500.0332794023899, "total_tokens_per_s": 13300.885232103568,
		"per_user_output_tokens_per_s": 503.09022725827447, "per_user_decode_tokens_per_s": 554.2220711715628,
	} {
		if m, ok := metric(b, name); !ok || !near(m.Value, want) {
			t.Errorf("%s = %+v (%v), want %g", name, m, ok, want)
		}
	}
	// One request at a time: the mean latency is the TTFT and 39 decode steps, as the
	// repository's own README found (79.98 ≈ 9.57 + 39 × 1.81 ms).
	e2e, _ := metric(b, "e2e_mean_s")
	ttft, _ := metric(b, "ttft_mean_s")
	tpot, _ := metric(b, "tpot_mean_s")
	if got := ttft.Value + 39*tpot.Value; math.Abs(got/e2e.Value-1) > 0.01 {
		t.Errorf("TTFT + 39 TPOT = %g s, mean latency %g s", got, e2e.Value)
	}
}
