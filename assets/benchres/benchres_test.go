package benchres

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func metric(b model.ServeBench, name string) (model.BenchMetric, bool) {
	for _, m := range b.Metrics {
		if m.Name() == name {
			return m, true
		}
	}
	return model.BenchMetric{}, false
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// The vLLM files of IOG's llm-inference-benchmarks (benchmark_serving.py of vLLM 0.8.5 with
// --metadata gpu_name=… gpu_count=…, --percentile-metrics 50,90,95,99,100).
func TestReadVLLMRealFiles(t *testing.T) {
	for _, c := range []struct {
		file                 string
		gpu                  string
		rate, ttftMean, tpot float64
		reqPerS, outPerS     float64
		outTokens            int
	}{
		{"vllm/iog-llama3-8b-rtx4090-4qps.json", "NVIDIA-GeForce-RTX-4090", 4, 56.85749723576009e-3, 22.59544617700433e-3, 3.3948274471192215, 685.449609847842, 40382},
		{"vllm/iog-llama3-8b-h100pcie-16qps.json", "NVIDIA-H100-PCIe", 16, 24.747282248281408e-3, 12.209629834532215e-3, 10.17055389320033, 2052.3669228783606, 40359},
	} {
		t.Run(c.file, func(t *testing.T) {
			runs, err := Read(c.file, readTestdata(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			b := runs[0]
			if b.Tool != model.ToolVLLM || b.Backend != "vllm" || b.Engine != "vllm" {
				t.Errorf("tool %q backend %q engine %q, want vLLM's benchmark of a vllm server", b.Tool, b.Backend, b.Engine)
			}
			if b.Model != "meta-llama/Meta-Llama-3-8B-Instruct" || b.GPUName != c.gpu || b.GPUCount != 1 {
				t.Errorf("model %q on %d× %q", b.Model, b.GPUCount, b.GPUName)
			}
			if b.Rate != c.rate || b.Concurrency != 0 || b.Prompts != 200 || b.Completed != 200 || b.Burstiness != 1 {
				t.Errorf("rate %g, concurrency %d, %d prompts, %d completed, burstiness %g", b.Rate, b.Concurrency, b.Prompts, b.Completed, b.Burstiness)
			}
			// No per-request lists: the lengths are the totals' means, taken as they are.
			if b.InputLens != nil || !near(b.Prompt.Mean, 41169.0/200) || !near(b.Gen.Mean, float64(c.outTokens)/200) || b.Prompt.Uniform || b.Gen.LogSigma != 0 {
				t.Errorf("lengths: prompt %+v, gen %+v", b.Prompt, b.Gen)
			}
			if m, ok := metric(b, "ttft_mean_s"); !ok || !near(m.Value, c.ttftMean) || m.Field != "mean_ttft_ms" {
				t.Errorf("ttft_mean_s = %+v (%v), want %g s", m, ok, c.ttftMean)
			}
			if m, ok := metric(b, "tpot_mean_s"); !ok || !near(m.Value, c.tpot) {
				t.Errorf("tpot_mean_s = %+v, want %g", m, c.tpot)
			}
			// p50 repeats the median: one of them is kept, as the median.
			if _, ok := metric(b, "ttft_p50_s"); ok {
				t.Error("p50_ttft_ms kept beside median_ttft_ms")
			}
			for _, name := range []string{"ttft_median_s", "itl_p99_s", "itl_p100_s", "tpot_std_s"} {
				if _, ok := metric(b, name); !ok {
					t.Errorf("no %s", name)
				}
			}
			if m, _ := metric(b, "requests_per_s"); !near(m.Value, c.reqPerS) {
				t.Errorf("requests_per_s = %g, want %g", m.Value, c.reqPerS)
			}
			if m, _ := metric(b, "output_tokens_per_s"); !near(m.Value, c.outPerS) {
				t.Errorf("output_tokens_per_s = %g, want %g", m.Value, c.outPerS)
			}
			// mean, median, std and p90, p95, p99, p100 of TTFT, TPOT and ITL; three throughputs.
			if len(b.Metrics) != 3*7+3 {
				var names []string
				for _, m := range b.Metrics {
					names = append(names, m.Name())
				}
				t.Errorf("%d metrics, want 24: %v", len(b.Metrics), names)
			}
			if b.Metrics[0].Name() != "ttft_mean_s" || b.Metrics[len(b.Metrics)-1].Name() != "total_tokens_per_s" {
				t.Errorf("order: first %s, last %s", b.Metrics[0].Name(), b.Metrics[len(b.Metrics)-1].Name())
			}
		})
	}
}

// datacrunch-research/h200-benchmarks: SGLang 0.3's bench_serving on Llama 70B, one run a line,
// medians of TTFT and ITL, mean and median E2E, output throughput only; the offline runs' rate is
// Python's bare Infinity.
func TestReadSGLangRealFiles(t *testing.T) {
	runs, err := Read("online.jsonl", readTestdata(t, "sglang/datacrunch-llama70b-h200-online.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wantRates := []float64{1, 2, 4, 8, 16, 4, 8}
	if len(runs) != len(wantRates) {
		t.Fatalf("%d runs, want %d", len(runs), len(wantRates))
	}
	for i, b := range runs {
		if b.Line != i+1 || b.Runs != 7 || b.Rate != wantRates[i] || b.Tool != model.ToolSGLang || b.Engine != "sglang" || b.Model != "" {
			t.Errorf("run %d: line %d of %d, rate %g, tool %q, engine %q, model %q", i, b.Line, b.Runs, b.Rate, b.Tool, b.Engine, b.Model)
		}
		var names []string
		for _, m := range b.Metrics {
			names = append(names, m.Name())
		}
		if got := strings.Join(names, " "); got != "ttft_median_s itl_median_s e2e_mean_s e2e_median_s output_tokens_per_s" {
			t.Errorf("run %d metrics: %s", i, got)
		}
	}
	first := runs[0]
	if m, _ := metric(first, "ttft_median_s"); !near(m.Value, 85.74514742940664e-3) {
		t.Errorf("median TTFT %g", m.Value)
	}
	// The random dataset with random_range_ratio 0 draws 1 to 1024 tokens: the totals' means
	// (508.7 in, 534.5 out) agree with it, so the lengths are that uniform range.
	if p := first.Prompt; !p.Uniform || p.Min != 1 || p.Max != 1024 || !near(p.Mean, 152612.0/300) {
		t.Errorf("prompt lengths %+v", p)
	}
	if g := first.Gen; !g.Uniform || g.Min != 1 || g.Max != 1024 || !near(g.Mean, 160347.0/300) {
		t.Errorf("output lengths %+v", g)
	}
	// ShareGPT: the totals' means only (random_input_len is the flag's default, not used).
	if p := runs[5].Prompt; p.Uniform || !near(p.Mean, 269081.0/1200) {
		t.Errorf("sharegpt prompt lengths %+v", p)
	}

	off, err := Read("offline.jsonl", readTestdata(t, "sglang/datacrunch-llama70b-h200-offline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(off) != 7 {
		t.Fatalf("%d offline runs", len(off))
	}
	for _, b := range off {
		if b.Rate != 0 {
			t.Errorf("line %d: rate %g, want 0 (Infinity: every request at once)", b.Line, b.Rate)
		}
	}
	// random_input_len 4096, random_output_len 2048: 2047 in, 1023 out on average.
	if p, g := off[2].Prompt, off[2].Gen; p.Max != 4096 || g.Max != 2048 || !p.Uniform {
		t.Errorf("line 3: prompt %+v gen %+v", p, g)
	}
}

// detailed is a vLLM result with per-request lists (--save-detailed), of n requests.
func detailed(n int) []byte {
	in, out, ttft := make([]int, n), make([]int, n), make([]float64, n)
	itls := make([][]float64, n)
	texts, errs := make([]string, n), make([]string, n)
	for i := range n {
		in[i], out[i] = 100+(i*37)%900, 20+(i*53)%400
		ttft[i] = 0.02 + float64(i%17)*1e-3
		itls[i] = make([]float64, out[i]-1)
		for j := range itls[i] {
			itls[i][j] = 0.011 + float64((i+j)%5)*1e-4
		}
		texts[i] = strings.Repeat("word ", out[i]/4)
	}
	v := map[string]any{"date": "20250101-000000", "backend": "openai-chat", "model_id": "Qwen/Qwen3-32B", "tokenizer_id": "Qwen/Qwen3-32B",
		"num_prompts": n, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 64, "duration": 100.0, "completed": n, "failed": 0,
		"total_input_tokens": 0, "total_output_tokens": 0, "request_throughput": float64(n) / 100, "output_throughput": 1000.0,
		"total_token_throughput": 5000.0, "input_lens": in, "output_lens": out, "ttfts": ttft, "itls": itls,
		"generated_texts": texts, "errors": errs, "mean_ttft_ms": 28.0, "median_ttft_ms": 28.0, "std_ttft_ms": 5.0, "p99_ttft_ms": 36.0,
		"mean_tpot_ms": 11.2, "median_tpot_ms": 11.2, "std_tpot_ms": 0.1, "p99_tpot_ms": 11.4,
		"mean_itl_ms": 11.2, "median_itl_ms": 11.2, "std_itl_ms": 0.1, "p99.9_itl_ms": 11.5,
		"mean_e2el_ms": 2000.0, "median_e2el_ms": 1900.0, "std_e2el_ms": 300.0, "p99_e2el_ms": 4000.0}
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func TestReadPerRequestLengths(t *testing.T) {
	runs, err := Read("detailed.json", detailed(1000))
	if err != nil {
		t.Fatal(err)
	}
	b := runs[0]
	if len(b.InputLens) != 1000 || len(b.OutputLens) != 1000 || b.Concurrency != 64 || b.Rate != 0 || b.Engine != "vllm" {
		t.Fatalf("%d input lens, %d output lens, concurrency %d, rate %g, engine %q", len(b.InputLens), len(b.OutputLens), b.Concurrency, b.Rate, b.Engine)
	}
	var sum float64
	lo, hi := math.MaxInt, 0
	for _, l := range b.InputLens {
		sum += float64(l)
		lo, hi = min(lo, l), max(hi, l)
	}
	p := b.Prompt
	if p.From != "input_lens" || !near(p.Mean, sum/1000) || p.Min != lo || p.Max != hi || !(p.LogSigma > 0) || p.Uniform {
		t.Errorf("prompt %+v, want the lists' mean %g on [%d, %d] with a spread", p, sum/1000, lo, hi)
	}
	if _, ok := metric(b, "itl_p99.9_s"); !ok {
		t.Error("p99.9_itl_ms not read")
	}
	if m, _ := metric(b, "e2e_p99_s"); m.Field != "p99_e2el_ms" || m.Value != 4 {
		t.Errorf("e2e p99 %+v", m)
	}
}

// Bad input: every refusal is an *Error that names the file and, where one is at fault, the
// field and the line.
func TestReadBadInput(t *testing.T) {
	iog := readTestdata(t, "vllm/iog-llama3-8b-rtx4090-4qps.json")
	sgl := readTestdata(t, "sglang/datacrunch-llama70b-h200-online.jsonl")
	edit := func(data []byte, from, to string) []byte {
		if !strings.Contains(string(data), from) {
			t.Fatalf("no %q to edit", from)
		}
		return []byte(strings.Replace(string(data), from, to, 1))
	}
	nccl, err := os.ReadFile("../testdata/nccl-tests/a100-8x-all_reduce_perf.log")
	if err != nil {
		t.Fatal(err)
	}
	hf, err := os.ReadFile("../testdata/hfconfig/llama-3.1-8b.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		data       []byte
		line       int
		field, msg string
	}{
		{"empty", []byte(" \n"), 1, "", "empty file"},
		{"binary", append([]byte("{\"completed\": 1,\n"), 0, 1, 2), 2, "", "binary data"},
		{"truncated", iog[:len(iog)/2], 1, "", "cut short"},
		{"truncated second line", sgl[:len(sgl)-40], 7, "", "cut short"},
		{"not JSON", nccl, 1, "", "not JSON"},
		{"array", []byte("[1, 2]"), 1, "", "a JSON array"},
		{"config.json", hf, 1, "", "not a serving benchmark result"},
		{"no completed", edit(iog, `"completed": 200, `, ""), 1, "completed", "missing"},
		{"no duration", edit(iog, `"duration": 58.91315629892051, `, ""), 1, "duration", "missing"},
		{"no rate", edit(iog, `"request_rate": 4.0, `, ""), 1, "request_rate", "missing"},
		{"rate trace", edit(iog, `"request_rate": 4.0`, `"request_rate": "trace"`), 1, "request_rate", "trace"},
		{"negative count", edit(iog, `"completed": 200`, `"completed": -3`), 1, "completed", "whole number"},
		{"none completed", edit(iog, `"completed": 200`, `"completed": 0`), 1, "completed", "no request completed"},
		{"text latency", edit(iog, `"mean_ttft_ms": 56.85749723576009`, `"mean_ttft_ms": "fast"`), 1, "mean_ttft_ms", "must be a number"},
		{"infinite latency", edit(iog, `"mean_ttft_ms": 56.85749723576009`, `"mean_ttft_ms": Infinity`), 1, "mean_ttft_ms", "not a finite number"},
		{"bad length", edit(iog, `"num_prompts": 200,`, `"num_prompts": 200, "input_lens": [12, 3.5],`), 1, "input_lens[1]", "whole number"},
		{"bad second line", edit(sgl, `"request_rate": 2.0`, `"request_rate": -2`), 2, "request_rate", "from 0"},
		{"no lengths", edit(edit(iog, `"total_input_tokens": 41169, `, ""), `"num_prompts": 200,`, `"num_prompts": 200,`), 1, "total_input_tokens", "lengths are needed"},
		{"no figures", []byte(`{"completed": 3, "duration": 1, "request_rate": 1, "total_input_tokens": 30, "total_output_tokens": 30}`), 1, "", "no figure measured"},
		{"embedding", []byte(`{"completed": 3, "duration": 1, "request_rate": 1, "total_input_sequences": 3}`), 1, "total_input_sequences", "pooling"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("run.json", c.data)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.File != "run.json" || e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("%v: want line %d, field %q, %q", err, c.line, c.field, c.msg)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("run.json:%d: %s", c.line, c.field)) {
				t.Errorf("message %q does not start with the file, line and field", err)
			}
		})
	}
}

// A NaN statistic (Python's mean over no requests) is left out, with a warning, not the run.
func TestReadNaNMetric(t *testing.T) {
	data := []byte(`{"backend": "sglang", "dataset_name": "sharegpt", "request_rate": 2, "completed": 10, "duration": 5,
"total_input_tokens": 100, "total_output_tokens": 10, "mean_tpot_ms": NaN, "median_ttft_ms": 30.5, "output_throughput": 2}`)
	runs, err := Read("nan.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	b := runs[0]
	if _, ok := metric(b, "tpot_mean_s"); ok || len(b.Metrics) != 2 {
		t.Errorf("metrics %+v", b.Metrics)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "mean_tpot_ms is NaN") {
		t.Errorf("warnings %q", b.Warnings)
	}
}

// SGLang's newer lines carry the server's /get_server_info: the model and its TP.
func TestReadServerInfo(t *testing.T) {
	data := []byte(`{"backend": "sglang-oai", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 16,
"server_info": {"model_path": "Qwen/Qwen3-30B-A3B", "tp_size": 2}, "duration": 10, "completed": 64,
"total_input_tokens": 65536, "total_output_tokens": 8192, "random_input_len": 1024, "random_output_len": 128, "random_range_ratio": 1.0,
"mean_ttft_ms": 100, "p99_ttft_ms": 300, "mean_e2e_latency_ms": 1500, "p99_e2e_latency_ms": 2500, "request_throughput": 6.4}`)
	runs, err := Read("new.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	b := runs[0]
	if b.Model != "Qwen/Qwen3-30B-A3B" || b.TP != 2 || b.Concurrency != 16 || b.Rate != 0 || b.Engine != "sglang" {
		t.Errorf("model %q tp %d concurrency %d rate %g engine %q", b.Model, b.TP, b.Concurrency, b.Rate, b.Engine)
	}
	// random_range_ratio 1: every prompt 1024 tokens (fixed), the totals agree.
	if b.Prompt.Uniform || b.Prompt.Mean != 1024 || b.Gen.Mean != 128 {
		t.Errorf("lengths %+v %+v", b.Prompt, b.Gen)
	}
	if m, _ := metric(b, "e2e_p99_s"); m.Field != "p99_e2e_latency_ms" || m.Value != 2.5 {
		t.Errorf("e2e p99 %+v", m)
	}
}

func TestPythonConstants(t *testing.T) {
	in := `{"a": Infinity, "b": -Infinity, "c": NaN, "d": "NaN Infinity \"Infinity\"", "e": [NaN]}`
	want := `{"a": "Infinity", "b": "-Infinity", "c": "NaN", "d": "NaN Infinity \"Infinity\"", "e": ["NaN"]}`
	if got := string(pythonConstants([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	plain := []byte(`{"a": 1}`)
	if got := pythonConstants(plain); &got[0] != &plain[0] {
		t.Error("a file without Python's constants was copied")
	}
}

// checkRuns is what the fuzz targets ask of any input: a refusal is an *Error naming the file;
// runs read are whole (a completed request, a duration, figures finite and ≥ 0).
func checkRuns(t *testing.T, runs []model.ServeBench, err error) {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.File != "fuzz.json" {
			t.Fatalf("error %v (%T) does not name the file", err, err)
		}
		return
	}
	if len(runs) == 0 {
		t.Fatal("no runs and no error")
	}
	for _, b := range runs {
		if b.Completed < 1 || !(b.DurationS > 0) || b.Rate < 0 || len(b.Metrics) == 0 || b.Runs != len(runs) {
			t.Fatalf("run %+v", b)
		}
		for _, l := range []model.BenchLengths{b.Prompt, b.Gen} {
			if math.IsNaN(l.Mean) || math.IsInf(l.Mean, 0) || l.Mean < 0 || math.IsNaN(l.LogSigma) || l.Min > l.Max {
				t.Fatalf("lengths %+v", l)
			}
		}
		for _, m := range b.Metrics {
			if !(m.Value >= 0) || math.IsInf(m.Value, 0) || m.Field == "" {
				t.Fatalf("metric %+v", m)
			}
		}
	}
}

// FuzzReadVLLM: vLLM's result JSON, seeded with the real files and a detailed one.
func FuzzReadVLLM(f *testing.F) {
	for _, name := range []string{"vllm/iog-llama3-8b-rtx4090-4qps.json", "vllm/iog-llama3-8b-h100pcie-16qps.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add(detailed(3))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Read("fuzz.json", data)
		checkRuns(t, runs, err)
	})
}

// FuzzReadSGLang: SGLang's JSON Lines, seeded with the real files (Python's bare Infinity).
func FuzzReadSGLang(f *testing.F) {
	for _, name := range []string{"sglang/datacrunch-llama70b-h200-online.jsonl", "sglang/datacrunch-llama70b-h200-offline.jsonl"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Read("fuzz.json", data)
		checkRuns(t, runs, err)
	})
}

// vLLM's --append-result puts one run a line; a result re-indented by hand spans lines: both read,
// each run named by the line it starts on.
func TestReadAppendedAndIndented(t *testing.T) {
	a, b := readTestdata(t, "vllm/iog-llama3-8b-rtx4090-4qps.json"), readTestdata(t, "vllm/iog-llama3-8b-h100pcie-16qps.json")
	runs, err := Read("appended.json", append(append(append([]byte{}, a...), '\n'), b...))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Line != 1 || runs[1].Line != 2 || runs[0].Rate != 4 || runs[1].Rate != 16 || runs[0].Runs != 2 {
		t.Fatalf("runs %+v", runs)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, a, "", "  "); err != nil {
		t.Fatal(err)
	}
	twice := append(append(append([]byte{}, ind.Bytes()...), '\n'), ind.Bytes()...)
	runs, err = Read("indented.json", twice)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(ind.Bytes(), []byte{'\n'}) + 1
	if len(runs) != 2 || runs[1].Line != lines+1 || len(runs[1].Metrics) != 24 {
		t.Fatalf("second run at line %d with %d metrics, want line %d and 24", runs[1].Line, len(runs[1].Metrics), lines+1)
	}
	// A problem in the second run names its line.
	bad := append(append(append([]byte{}, ind.Bytes()...), '\n'), bytes.Replace(ind.Bytes(), []byte(`"completed": 200`), []byte(`"completed": "many"`), 1)...)
	_, err = Read("indented.json", bad)
	if e := (*Error)(nil); !errors.As(err, &e) || e.Line != lines+1 || e.Field != "completed" {
		t.Errorf("err %v, want line %d and the field completed", err, lines+1)
	}
}

func BenchmarkReadVLLMResult(b *testing.B) {
	data := detailed(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadSGLangResult(b *testing.B) {
	// SGLang's --output-details: the same per-request lists on one JSON Lines line.
	var v map[string]any
	if err := json.Unmarshal(detailed(1000), &v); err != nil {
		b.Fatal(err)
	}
	for _, k := range []string{"date", "model_id", "tokenizer_id", "num_prompts", "burstiness", "total_token_throughput", "failed"} {
		delete(v, k)
	}
	v["backend"], v["dataset_name"], v["request_rate"] = "sglang", "sharegpt", 8.0
	line, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	data := append(line, '\n')
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("bench.jsonl", data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadMutations runs the fuzz targets' check over every prefix of the real files (a file cut
// at any byte) and over seeded random edits of JSON's structural bytes, in every go test run
// (the fuzzing engine finds more, with go test -fuzz).
func TestReadMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("{}[]\",:-.0123456789eNIaflnu \n\\")
	for _, name := range []string{"vllm/iog-llama3-8b-rtx4090-4qps.json", "sglang/datacrunch-llama70b-h200-offline.jsonl"} {
		seed := readTestdata(t, name)
		for n := range len(seed) {
			runs, err := Read("fuzz.json", seed[:n])
			checkRuns(t, runs, err)
		}
		for range 3000 {
			data := append([]byte{}, seed...)
			for range 1 + rng.IntN(4) {
				data[rng.IntN(len(data))] = alphabet[rng.IntN(len(alphabet))]
			}
			runs, err := Read("fuzz.json", data)
			checkRuns(t, runs, err)
		}
	}
}

// LambdaLabsML/vllm-benchmark's run of vLLM's benchmark_serving.py (2024, --save-result): ten
// ShareGPT prompts at once to Llama-3-8B-Instruct on one H100 SXM, the per-request lists kept
// (input_lens, output_lens, ttfts, itls, generated_texts). Its keys are vLLM's of that year
// (model_id, tokenizer_id, best_of, use_beam_search) with input_throughput, which SGLang writes
// too: it is vLLM's, read with the lengths of each request.
func TestReadVLLMDetailedRealFile(t *testing.T) {
	const file = "vllm/lambda-llama3-8b-h100sxm-10prompts-detailed.json"
	runs, err := Read(file, readTestdata(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	b := runs[0]
	if b.Tool != model.ToolVLLM || b.Backend != "vllm" || b.Engine != "vllm" || b.Model != "meta-llama/Meta-Llama-3-8B-Instruct" {
		t.Errorf("tool %q backend %q engine %q model %q, want vLLM's benchmark of Llama-3-8B on a vllm server", b.Tool, b.Backend, b.Engine, b.Model)
	}
	if b.GPUName != "" || b.Rate != 0 || b.Concurrency != 0 || b.Prompts != 10 || b.Completed != 10 || !near(b.DurationS, 5.3666093360079685) {
		t.Errorf("gpu %q, rate %g, concurrency %d, %d prompts, %d completed, %g s", b.GPUName, b.Rate, b.Concurrency, b.Prompts, b.Completed, b.DurationS)
	}
	wantIn := []int{13, 25, 27, 10, 329, 29, 399, 328, 4, 205}
	wantOut := []int{120, 429, 233, 194, 101, 741, 9, 3, 6, 31}
	if fmt.Sprint(b.InputLens) != fmt.Sprint(wantIn) || fmt.Sprint(b.OutputLens) != fmt.Sprint(wantOut) {
		t.Errorf("lengths %v / %v, want %v / %v", b.InputLens, b.OutputLens, wantIn, wantOut)
	}
	// The lists' sums are the file's totals; the summaries come from the lists.
	if b.InputTokens != 1369 || b.OutputTokens != 1867 {
		t.Errorf("totals %d / %d, want 1369 / 1867", b.InputTokens, b.OutputTokens)
	}
	if b.Prompt.From != "input_lens" || !near(b.Prompt.Mean, 136.9) || b.Prompt.Min != 4 || b.Prompt.Max != 399 || !(b.Prompt.LogSigma > 1) {
		t.Errorf("prompt %+v", b.Prompt)
	}
	if b.Gen.From != "output_lens" || !near(b.Gen.Mean, 186.7) || b.Gen.Min != 3 || b.Gen.Max != 741 {
		t.Errorf("gen %+v", b.Gen)
	}
	for name, want := range map[string]float64{
		"ttft_mean_s": 62.426355000934564e-3, "ttft_median_s": 62.1947320032632e-3, "ttft_p99_s": 63.362654292432126e-3,
		"tpot_mean_s": 11.105466039313557e-3, "tpot_median_s": 7.558259615148475e-3, "itl_mean_s": 72.39887336495076e-3,
		"itl_p99_s": 75.27785668207798e-3, "requests_per_s": 1.8633739431904777, "input_tokens_per_s": 255.09589282277642,
		"output_tokens_per_s": 347.8919151936622,
	} {
		if m, ok := metric(b, name); !ok || !near(m.Value, want) {
			t.Errorf("%s = %+v (%v), want %g", name, m, ok, want)
		}
	}
	// mean/median/std/p99 of TTFT, TPOT and ITL, three throughputs. The script's
	// *_latency_ms (its end-to-end latency, vLLM's e2el by a name of its own) are not read.
	if len(b.Metrics) != 3*4+3 {
		t.Errorf("%d metrics, want 15", len(b.Metrics))
	}
	for _, m := range b.Metrics {
		if m.Quantity == "e2e" {
			t.Errorf("%s read as the end-to-end latency", m.Field)
		}
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings %q", b.Warnings)
	}
}
