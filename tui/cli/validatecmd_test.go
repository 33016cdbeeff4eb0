package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The real result files of assets/benchres/testdata (cited in its README.md).
const (
	iog4090  = "../../assets/benchres/testdata/vllm/iog-llama3-8b-rtx4090-4qps.json"
	iogH100  = "../../assets/benchres/testdata/vllm/iog-llama3-8b-h100pcie-16qps.json"
	dcOnline = "../../assets/benchres/testdata/sglang/datacrunch-llama70b-h200-online.jsonl"
)

// againstDoc is validate --against --json, decoded loosely to check its keys.
type againstDoc struct {
	Runs []struct {
		File    string `json:"file"`
		Metrics []struct {
			Name      string  `json:"name"`
			Measured  float64 `json:"measured"`
			Predicted float64 `json:"predicted"`
			Error     float64 `json:"error"`
		} `json:"metrics"`
	} `json:"runs"`
	MeanAbsError float64 `json:"mean_abs_error"`
	Worst        float64 `json:"worst"`
}

func runAgainstJSON(t *testing.T, args ...string) (againstDoc, string) {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"validate", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("validate %q: exit %d\n%s", args, code, errs)
	}
	// Exactly the contract's keys, at every level.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(raw); !reflect.DeepEqual(got, []string{"mean_abs_error", "runs", "worst"}) {
		t.Errorf("top-level keys %v", got)
	}
	var runs []map[string]json.RawMessage
	if err := json.Unmarshal(raw["runs"], &runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if got := sortedKeys(r); !reflect.DeepEqual(got, []string{"file", "metrics"}) {
			t.Errorf("run keys %v", got)
		}
		var ms []map[string]json.RawMessage
		if err := json.Unmarshal(r["metrics"], &ms); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if got := sortedKeys(m); !reflect.DeepEqual(got, []string{"error", "measured", "name", "predicted"}) {
				t.Errorf("metric keys %v", got)
			}
		}
	}
	var d againstDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d, errs
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkSummary: every error is predicted / measured − 1, the summary their mean size and the
// largest; every figure finite and positive.
func checkSummary(t *testing.T, d againstDoc) {
	t.Helper()
	var sum, worst float64
	n := 0
	for _, r := range d.Runs {
		for _, m := range r.Metrics {
			if !(m.Measured > 0) || !(m.Predicted > 0) || math.IsInf(m.Predicted, 0) {
				t.Errorf("%s %s: measured %g, predicted %g", r.File, m.Name, m.Measured, m.Predicted)
			}
			if want := m.Predicted/m.Measured - 1; math.Abs(m.Error-want) > 1e-12 {
				t.Errorf("%s %s: error %g, want predicted/measured − 1 = %g", r.File, m.Name, m.Error, want)
			}
			n++
			sum += math.Abs(m.Error)
			if math.Abs(m.Error) > math.Abs(worst) {
				worst = m.Error
			}
		}
	}
	if n == 0 || math.Abs(d.MeanAbsError-sum/float64(n)) > 1e-12 || d.Worst != worst {
		t.Errorf("mean_abs_error %g worst %g over %d figures; want %g and %g", d.MeanAbsError, d.Worst, n, sum/float64(n), worst)
	}
}

// A vLLM result (IOG's, 1× H100 PCIe at 16 req/s): the model, the GPU and the workload come
// from the file; each figure it has beside the model's.
func TestValidateAgainstVLLM(t *testing.T) {
	d, _ := runAgainstJSON(t, "--against", iogH100)
	checkSummary(t, d)
	if len(d.Runs) != 1 || d.Runs[0].File != iogH100 {
		t.Fatalf("runs %+v", d.Runs)
	}
	got := map[string][2]float64{}
	var names []string
	for _, m := range d.Runs[0].Metrics {
		got[m.Name] = [2]float64{m.Measured, m.Predicted}
		names = append(names, m.Name)
	}
	// Mean, median, p90 and p99 of TTFT, TPOT and ITL, and the three throughputs: the file's
	// std, p95 and p100 have no prediction.
	want := "ttft_mean_s ttft_median_s ttft_p90_s ttft_p99_s tpot_mean_s tpot_median_s tpot_p90_s tpot_p99_s " +
		"itl_mean_s itl_median_s itl_p90_s itl_p99_s requests_per_s output_tokens_per_s total_tokens_per_s"
	if strings.Join(names, " ") != want {
		t.Errorf("metrics %s\nwant    %s", strings.Join(names, " "), want)
	}
	if got["ttft_p99_s"][0] != 31.057371800416146e-3 || got["requests_per_s"][0] != 10.17055389320033 {
		t.Errorf("measured p99 TTFT %g, requests/s %g: not the file's", got["ttft_p99_s"][0], got["requests_per_s"][0])
	}

	// The prediction is the report of the scenario the file describes: Llama-3-8B (model_id) on
	// one H100 PCIe (gpu_name, gpu_count), 200 requests (num_prompts) at 16 req/s, 41169 / 200 and
	// 40359 / 200 tokens, vLLM; over every request, as a schedule of one stage.
	stages := filepath.Join(t.TempDir(), "stages.yaml")
	if err := os.WriteFile(stages, []byte("stages:\n  - {rate: 16, requests: 200}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runArgs(t, "report", "--json", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "h100-pcie", "--gpus", "1",
		"--gpus-per-node", "1", "--workload", stages, "--prompt", "206", "--gen", "202", "--engine", "vllm")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errs)
	}
	var rep struct {
		Inference struct {
			TTFT         float64 `json:"ttft_s"`
			TTFTP99      float64 `json:"ttft_p99_s"`
			ITLP90       float64 `json:"itl_p90_s"`
			E2EP50       float64 `json:"e2e_p50_s"`
			RequestsPerS float64 `json:"requests_per_s"`
		} `json:"inference"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	inf := rep.Inference
	for _, c := range []struct {
		name string
		want float64
	}{{"ttft_p99_s", inf.TTFTP99}, {"itl_p90_s", inf.ITLP90}, {"requests_per_s", inf.RequestsPerS}, {"ttft_mean_s", inf.TTFT}} {
		if p := got[c.name][1]; p != c.want || p == 0 {
			t.Errorf("%s predicted %g, want the report's %g", c.name, p, c.want)
		}
	}
}

// SGLang's JSON Lines: one run a line, each named file:line, compared on the figures it has
// (medians of TTFT and ITL, mean and median E2E, output throughput); the model and the GPUs
// from the flags.
func TestValidateAgainstSGLangLines(t *testing.T) {
	d, _ := runAgainstJSON(t, "--against", dcOnline, "--model", "llama-3-70b", "--gpu", "h200-sxm", "--gpus", "4")
	checkSummary(t, d)
	if len(d.Runs) != 7 {
		t.Fatalf("%d runs, want 7", len(d.Runs))
	}
	for i, r := range d.Runs {
		if want := dcOnline + ":" + string(rune('1'+i)); r.File != want {
			t.Errorf("run %d: file %q, want %q", i, r.File, want)
		}
		var names []string
		for _, m := range r.Metrics {
			names = append(names, m.Name)
		}
		if got := strings.Join(names, " "); got != "ttft_median_s itl_median_s e2e_mean_s e2e_median_s output_tokens_per_s" {
			t.Errorf("%s: metrics %s", r.File, got)
		}
	}
	// The offered rate grows line by line (1, 2, 4, 8, 16 req/s): so does the model's throughput.
	for i := 1; i < 5; i++ {
		a, b := d.Runs[i-1].Metrics[4].Predicted, d.Runs[i].Metrics[4].Predicted
		if !(b > a) {
			t.Errorf("output tok/s of line %d (%g) not above line %d's (%g)", i+1, b, i, a)
		}
	}

	// Text: the scenario each line was served as, and the summary.
	code, out, errs := runArgs(t, "validate", "--against", dcOnline, "--model", "llama-3-70b", "--gpu", "h200-sxm", "--gpus", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{
		dcOnline + ":1\n  sglang.bench_serving: llama-3-70b on 4× h200-sxm, TP 4 PP 1 DP 1, engine sglang · 300 requests, 1 req/s · prompts 1–1024 (uniform, mean 509)",
		"ttft_median_s ", "35 figures of 7 runs: mean |error| ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Per-request lengths (--save-detailed): the model serves each request's own, in the file's order.
func TestValidateAgainstPerRequestLengths(t *testing.T) {
	in, out := make([]int, 400), make([]int, 400)
	var sumIn, sumOut int
	for i := range in {
		in[i], out[i] = 50+(i*97)%1950, 10+(i*31)%390
		sumIn, sumOut = sumIn+in[i], sumOut+out[i]
	}
	lo, hi := slices.Min(in), slices.Max(in)
	v := map[string]any{"backend": "vllm", "model_id": "Qwen/Qwen3-32B", "num_prompts": 400, "request_rate": "inf", "max_concurrency": 32,
		"duration": 60.0, "completed": 400, "total_input_tokens": 1, "total_output_tokens": 1, "input_lens": in, "output_lens": out,
		"mean_ttft_ms": 200.0, "p99_tpot_ms": 30.0, "request_throughput": 6.6}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "detailed.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, errs := runArgs(t, "validate", "--against", path, "--gpu", "h100-sxm", "--tp", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"qwen3-32b on 2× h100-sxm, TP 2 PP 1 DP 1, engine vllm · 400 requests, 32 clients",
		fmt.Sprintf("prompts each request's own (input_lens: 400, mean %.0f, %d–%d), outputs each request's own (output_lens: 400, mean %.0f, %d–%d)",
			float64(sumIn)/400, lo, hi, float64(sumOut)/400, slices.Min(out), slices.Max(out)), "ttft_mean_s", "tpot_p99_s", "requests_per_s"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The same run with the lists' mean only serves other requests: the lengths matter.
	delete(v, "input_lens")
	delete(v, "output_lens")
	v["total_input_tokens"], v["total_output_tokens"] = sumIn, sumOut
	data, _ = json.Marshal(v)
	means := filepath.Join(t.TempDir(), "means.json")
	if err := os.WriteFile(means, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := runAgainstJSON(t, "--against", path, "--gpu", "h100-sxm", "--tp", "2")
	b, warn := runAgainstJSON(t, "--against", means, "--gpu", "h100-sxm", "--tp", "2")
	if a.Runs[0].Metrics[1].Predicted == b.Runs[0].Metrics[1].Predicted {
		t.Errorf("p99 TPOT %g with the per-request lengths and with their means alike", a.Runs[0].Metrics[1].Predicted)
	}
	// Without the lists the run is served at the means, and the output says so.
	if !strings.Contains(warn, "means.json: no per-request lengths (input_lens, output_lens): every request served at the mean length") {
		t.Errorf("no warning of the mean lengths:\n%s", warn)
	}
	if _, warn := runAgainstJSON(t, "--against", path, "--gpu", "h100-sxm", "--tp", "2"); strings.Contains(warn, "no per-request lengths") {
		t.Errorf("a warning of mean lengths for a file with its lists:\n%s", warn)
	}
}

// LambdaLabs' real vLLM run with the per-request lists (ten ShareGPT prompts at once to
// Llama-3-8B on an H100 SXM): the model serves those ten requests, so its output tokens per
// request are the file's, 1867 / 10, and its throughputs share one duration.
func TestValidateAgainstRealPerRequestLengths(t *testing.T) {
	const lambda = "../../assets/benchres/testdata/vllm/lambda-llama3-8b-h100sxm-10prompts-detailed.json"
	d, warn := runAgainstJSON(t, "--against", lambda, "--gpu", "h100-sxm")
	if strings.Contains(warn, "no per-request lengths") {
		t.Errorf("warned of mean lengths:\n%s", warn)
	}
	got := map[string]float64{}
	for _, m := range d.Runs[0].Metrics {
		got[m.Name] = m.Predicted
	}
	if r := got["output_tokens_per_s"] / got["requests_per_s"]; math.Abs(r-186.7) > 1e-9 {
		t.Errorf("the model served %g output tokens a request, the file's requests %g", r, 186.7)
	}
	code, text, errs := runArgs(t, "validate", "--against", lambda, "--gpu", "h100-sxm")
	if code != 0 || !strings.Contains(text, "vllm bench serve: llama-3-8b on 1× h100-sxm, TP 1 PP 1 DP 1, engine vllm · 10 requests, every request at once · "+
		"prompts each request's own (input_lens: 10, mean 137, 4–399), outputs each request's own (output_lens: 10, mean 187, 3–741)") {
		t.Errorf("exit %d\n%s%s", code, text, errs)
	}
}

// Bad input: exit 2, naming the file (and the run's line) and the field; nothing on stdout.
func TestValidateAgainstBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	iog, err := os.ReadFile(iog4090)
	if err != nil {
		t.Fatal(err)
	}
	noGPU := write("nogpu.json", bytes.Replace(iog, []byte(`"gpu_name": "NVIDIA-GeForce-RTX-4090", `), nil, 1))
	otherModel := write("other.json", bytes.Replace(iog, []byte(`"model_id": "meta-llama/Meta-Llama-3-8B-Instruct"`), []byte(`"model_id": "acme/Wonder-7B"`), 1))
	truncated := write("cut.json", iog[:700])
	binary := write("bin.json", append([]byte{'{'}, 0, 0, 0))
	noRate := write("norate.json", bytes.Replace(iog, []byte(`"request_rate": 4.0, `), nil, 1))
	huge := filepath.Join(dir, "huge.json")
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		if err := f.Truncate(300 << 20); err != nil { // sparse: nothing is written
			t.Fatal(err)
		}
		f.Close()
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"no model", []string{"--against", dcOnline}, []string{dcOnline + ":1: server_info.model_path: missing", "give --model", "(the same on lines 2, 3, 4, 5, 6, 7)"}},
		{"no gpu", []string{"--against", noGPU}, []string{noGPU + ": gpu_name: missing", "give --gpu"}},
		{"unknown model", []string{"--against", otherModel}, []string{otherModel + ": model_id = acme/Wonder-7B: no preset is this model; give --model"}},
		{"truncated", []string{"--against", truncated}, []string{truncated + ":1: cut short"}},
		{"binary", []string{"--against", binary}, []string{binary + ":1: binary data"}},
		{"no rate", []string{"--against", noRate}, []string{noRate + ":1: request_rate: missing"}},
		{"huge", []string{"--against", huge}, []string{"--against " + huge + ": is 300.0 MiB: larger than 256 MiB"}},
		{"wrong format", []string{"--against", "../../assets/testdata/nccl-tests/a100-8x-all_reduce_perf.log"}, []string{"a100-8x-all_reduce_perf.log:1: not JSON"}},
		{"directory", []string{"--against", dir}, []string{"--against " + dir + ": must be a regular file"}},
		{"missing file", []string{"--against", filepath.Join(dir, "none.json")}, []string{"none.json: cannot read the file"}},
		{"twice", []string{"--against", iog4090, iog4090}, []string{"given twice"}},
		{"every bad file", []string{"--against", truncated, noRate}, []string{"cut.json:1: cut short", "norate.json:1: request_rate: missing"}},
		{"workload flag", []string{"--against", iog4090, "--rate", "3"}, []string{"--rate 3: validate --against serves each file's own workload"}},
		{"mode flag", []string{"--against", iog4090, "--mode", "train"}, []string{"--mode train: validate --against"}},
		{"no file", []string{"--against", ""}, []string{"--against"}},
		{"scenario flag without --against", []string{"--gpu", "h100-sxm"}, []string{"--gpu h100-sxm: validate runs the published setups", "with --against FILE"}},
		{"file without --against", []string{iog4090}, []string{"takes no arguments"}},
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
