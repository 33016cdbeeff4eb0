package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The trtllm-bench reports of assets/benchres/testdata/trtllm (cited in its README.md).
const (
	trtBlog     = "../../assets/benchres/testdata/trtllm/nvidia-blog-llama31-8b-h100-streaming.txt"
	trtBuilt    = "../../assets/benchres/testdata/trtllm/built-report-json-llama31-8b.json"
	trtLatency  = "../../assets/benchres/testdata/trtllm/tuning-guide-llama33-70b-tp4-latency-0.16.txt"
	trtOverview = "../../assets/benchres/testdata/trtllm/deepseek-r1-fp4-b200-overview-only.txt"
)

// reportInference is report --json's serving figures that validate --against compares.
func reportInference(t *testing.T, args ...string) map[string]float64 {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"report", "--json", "--mode", "infer"}, args...)...)
	if code != 0 {
		t.Fatalf("report %q: exit %d\n%s", args, code, errs)
	}
	var rep struct {
		Inference map[string]any `json:"inference"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for k, v := range rep.Inference {
		if f, ok := v.(float64); ok {
			got[k] = f
		}
	}
	return got
}

func againstMetrics(d againstDoc, run int) (map[string][2]float64, []string) {
	got := map[string][2]float64{}
	var names []string
	for _, m := range d.Runs[run].Metrics {
		got[m.Name] = [2]float64{m.Measured, m.Predicted}
		names = append(names, m.Name)
	}
	return got, names
}

// A trtllm-bench throughput report (NVIDIA's blog, Llama-3.1-8B, 100 requests of 128/128): the
// report's model, layout, max batch size and max tokens and its requests reach the model, served
// by the trtllm engine with every request at once; each figure it prints beside the model's.
func TestValidateAgainstTRTLLM(t *testing.T) {
	d, errs := runAgainstJSON(t, "--against", trtBlog, "--gpu", "h100-sxm", "--model", "llama-3-8b")
	checkSummary(t, d)
	if !strings.Contains(errs, "does not print its --concurrency: served as every request at once") {
		t.Errorf("no warning that the concurrency is not printed:\n%s", errs)
	}
	got, names := againstMetrics(d, 0)
	want := "ttft_mean_s ttft_median_s ttft_p90_s ttft_p99_s tpot_mean_s tpot_median_s tpot_p90_s tpot_p99_s " +
		"e2e_mean_s e2e_median_s e2e_p90_s e2e_p99_s requests_per_s output_tokens_per_s total_tokens_per_s " +
		"per_user_output_tokens_per_s per_gpu_output_tokens_per_s"
	if strings.Join(names, " ") != want {
		t.Errorf("metrics %s\nwant    %s", strings.Join(names, " "), want)
	}
	if got["requests_per_s"][0] != 86.5373 || got["ttft_p90_s"][0] != 0.220053 || got["per_user_output_tokens_per_s"][0] != 117.1544 {
		t.Errorf("measured %v: not the report's", got)
	}
	inf := reportInference(t, "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "1", "--gpus-per-node", "1", "--requests", "100",
		"--prompt", "128", "--gen", "128", "--engine", "trtllm", "--max-seqs", "3840", "--max-batch-tokens", "7680")
	for _, c := range []struct {
		name string
		want float64
	}{{"requests_per_s", inf["requests_per_s"]}, {"output_tokens_per_s", inf["output_tokens_per_s"]}, {"e2e_mean_s", inf["e2e_mean_s"]},
		{"tpot_p90_s", inf["tpot_p90_s"]}, {"ttft_p99_s", inf["ttft_p99_s"]},
		{"per_user_output_tokens_per_s", 128 / inf["e2e_mean_s"]}, {"per_gpu_output_tokens_per_s", inf["output_tokens_per_s"]}} {
		if p := got[c.name][1]; math.Abs(p-c.want) > 1e-12*c.want || p == 0 {
			t.Errorf("%s predicted %g, want the report's %g", c.name, p, c.want)
		}
	}

	// The report's Max Runtime Batch Size is the engine's: 8 admits 8 requests a step.
	dir := t.TempDir()
	blog, err := os.ReadFile(trtBlog)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "batch8.txt")
	if err := os.WriteFile(small, []byte(strings.Replace(string(blog), "Max Runtime Batch Size: 3840", "Max Runtime Batch Size: 8", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	d8, _ := runAgainstJSON(t, "--against", small, "--gpu", "h100-sxm", "--model", "llama-3-8b")
	got8, _ := againstMetrics(d8, 0)
	inf8 := reportInference(t, "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "1", "--gpus-per-node", "1", "--requests", "100",
		"--prompt", "128", "--gen", "128", "--engine", "trtllm", "--max-seqs", "8", "--max-batch-tokens", "7680")
	if p := got8["requests_per_s"][1]; p != inf8["requests_per_s"] || !(p < got["requests_per_s"][1]) {
		t.Errorf("max batch 8: predicted %g req/s, want the report's %g, below %g", p, inf8["requests_per_s"], got["requests_per_s"][1])
	}

	// --report_json holds the same run: the same predictions.
	dj, _ := runAgainstJSON(t, "--against", trtBuilt, "--gpu", "h100-sxm", "--model", "llama-3-8b")
	gotJ, namesJ := againstMetrics(dj, 0)
	if strings.Join(namesJ, " ") != want {
		t.Errorf("JSON metrics %s", strings.Join(namesJ, " "))
	}
	for name, v := range got {
		if gotJ[name] != v {
			t.Errorf("%s: JSON %v, text %v", name, gotJ[name], v)
		}
	}
}

// trtllm-bench latency (0.16's report: max batch size 1, TP 4) is served one request at a time,
// the layout from the report.
func TestValidateAgainstTRTLLMLatency(t *testing.T) {
	d, _ := runAgainstJSON(t, "--against", trtLatency, "--gpu", "h100-sxm", "--model", "llama-3-70b")
	checkSummary(t, d)
	got, names := againstMetrics(d, 0)
	if strings.Join(names, " ") != "ttft_mean_s tpot_mean_s e2e_mean_s requests_per_s output_tokens_per_s" {
		t.Errorf("metrics %v", names)
	}
	inf := reportInference(t, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "4", "--gpus-per-node", "4", "--tp", "4", "--requests", "100",
		"--concurrency", "1", "--prompt", "2048", "--gen", "2048", "--engine", "trtllm", "--max-seqs", "1", "--max-batch-tokens", "8192")
	for _, name := range []string{"e2e_mean_s", "requests_per_s", "output_tokens_per_s"} {
		if p := got[name][1]; p != inf[name] || p == 0 {
			t.Errorf("%s predicted %g, want the report's %g", name, p, inf[name])
		}
	}
	if got["output_tokens_per_s"][0] != 32.2742 {
		t.Errorf("output tokens/s measured %g, want 0.16's Total Token Throughput 32.2742", got["output_tokens_per_s"][0])
	}
}

// A report that cannot be served is bad input naming the file and the label or JSON path.
func TestValidateAgainstTRTLLMBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"overview only", []string{"--against", trtOverview, "--gpu", "b200"}, []string{trtOverview + ": Number of requests: missing"}},
		{"no gpu", []string{"--against", trtBlog, "--model", "llama-3-8b"}, []string{trtBlog + ": MACHINE DETAILS: missing", "give --gpu"}},
		{"no gpu, JSON", []string{"--against", trtBuilt, "--model", "llama-3-8b"}, []string{trtBuilt + ": machine.name: missing", "give --gpu"}},
		{"model not a preset", []string{"--against", trtBlog, "--gpu", "h100-sxm"}, []string{trtBlog + ": Model = meta-llama/Llama-3.1-8B-Instruct: no preset is this model; give --model"}},
		{"workload flag", []string{"--against", trtBlog, "--gpu", "h100-sxm", "--model", "llama-3-8b", "--requests", "5"}, []string{"--requests 5: validate --against serves each file's own workload"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runArgs(t, append([]string{"validate"}, c.args...)...)
			if code != 2 || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

// Nothing a report sets carries to the next file: the 0.16 latency report's max batch size of 1
// and TP 4 do not reach the throughput report after it, nor a vLLM run after that.
func TestValidateAgainstTRTLLMNothingCarried(t *testing.T) {
	trtThroughput := "../../assets/benchres/testdata/trtllm/tuning-guide-llama33-70b-tp4-throughput-0.16.txt"
	alone, _ := runAgainstJSON(t, "--against", trtThroughput, "--gpu", "h100-sxm", "--model", "llama-3-70b")
	after, _ := runAgainstJSON(t, "--against", trtLatency, trtThroughput, "--gpu", "h100-sxm", "--model", "llama-3-70b")
	a, _ := againstMetrics(alone, 0)
	b, _ := againstMetrics(after, 1)
	if a["requests_per_s"] != b["requests_per_s"] || a["requests_per_s"][1] == 0 {
		t.Errorf("throughput report after the latency one: %v, alone %v", b, a)
	}
	vAlone, _ := runAgainstJSON(t, "--against", iogH100)
	code, out, errs := runArgs(t, "validate", "--json", "--against", trtLatency, iogH100, "--model", "llama-3-8b")
	if code != 2 || out != "" || !strings.Contains(errs, "MACHINE DETAILS: missing") {
		t.Fatalf("exit %d: %s", code, errs) // the report names no GPU and --gpu would override the vLLM file's
	}
	vAfter, _ := runAgainstJSON(t, "--against", trtBlog, iogH100, "--gpu", "h100-pcie", "--model", "llama-3-8b")
	x, _ := againstMetrics(vAlone, 0)
	y, _ := againstMetrics(vAfter, 1)
	for name, v := range x {
		if y[name] != v {
			t.Errorf("vLLM run after a trtllm-bench report: %s %v, alone %v", name, y[name], v)
		}
	}
}
