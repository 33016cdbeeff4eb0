package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets/trainlog"
)

// The real training-log excerpts of assets/trainlog/testdata (cited in its README.md).
const (
	mixtralLog = "../../assets/trainlog/testdata/megatron/issue756-mixtral-8x7b-16xh100.log"
	qwenLog    = "../../assets/trainlog/testdata/torchtitan/pr1690-qwen3-32b-fsdp8.log"
	startupLog = "../../assets/trainlog/testdata/torchtitan/pr1625-llama3-8b-startup.log"
)

// writeMegatronLog writes a log in Megatron-LM's format with the arguments given (a Llama-3-8B
// layout of 16 GPUs by default) and iterations 1 to 5 of 4 s (1: 9 s, the warm-up).
func writeMegatronLog(t *testing.T, args map[string]string) string {
	t.Helper()
	all := map[string]string{"tensor_model_parallel_size": "4", "pipeline_model_parallel_size": "2", "context_parallel_size": "1",
		"world_size": "16", "num_layers": "32", "hidden_size": "4096", "num_attention_heads": "32", "group_query_attention": "True",
		"num_query_groups": "8", "ffn_hidden_size": "14336", "num_experts": "None", "seq_length": "8192", "micro_batch_size": "1",
		"global_batch_size": "64", "bf16": "True", "fp16": "False", "fp8": "None", "recompute_granularity": "None",
		"sequence_parallel": "True", "use_distributed_optimizer": "True", "log_interval": "1"}
	for k, v := range args {
		all[k] = v
		if v == "" {
			delete(all, k)
		}
	}
	var b strings.Builder
	b.WriteString("------------------------ arguments ------------------------\n")
	for k, v := range all {
		fmt.Fprintf(&b, "  %s %s %s\n", k, strings.Repeat(".", max(48-len(k), 3)), v)
	}
	for it := 1; it <= 5; it++ {
		ms := 4000.0
		if it == 1 {
			ms = 9000
		}
		fmt.Fprintf(&b, " [2025-01-01 00:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): 400.0 | learning rate: 1.000000E-04 | global batch size: %5s | lm loss: 7.000000E+00 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
			it, 5, it*64, ms, all["global_batch_size"])
	}
	b.WriteString("[Rank 0] (after 2 iterations) memory (MB) | allocated: 30000.0 | max allocated: 40960.0 | reserved: 45000.0 | max reserved: 46000.0\n")
	path := filepath.Join(t.TempDir(), "megatron.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A Megatron log with its arguments: the layout, the sizes (the llama-3-8b preset, matched on
// them), the sequence and the batch come from the log; the GPU from --gpu; each figure beside the
// model's, error = predicted / measured − 1; the warm-up (iteration 1) not averaged.
func TestValidateAgainstMegatronLog(t *testing.T) {
	path := writeMegatronLog(t, nil)
	d, _ := runAgainstJSON(t, "--against", path, "--gpu", "h100-sxm")
	if len(d.Runs) != 1 || d.Runs[0].File != path {
		t.Fatalf("runs %+v", d.Runs)
	}
	want := map[string]float64{"step_time_s": 4, "tflops_per_gpu": 400, "peak_memory_bytes": 40960 * (1 << 20)}
	got := map[string]bool{}
	for _, m := range d.Runs[0].Metrics {
		w, ok := want[m.Name]
		if !ok || m.Measured != w || !(m.Predicted > 0) || math.Abs(m.Error-(m.Predicted/m.Measured-1)) > 1e-12 {
			t.Errorf("metric %+v", m)
		}
		got[m.Name] = true
	}
	if len(got) != len(want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
	_, out, _ := runArgs(t, "validate", "--against", path, "--gpu", "h100-sxm")
	for _, s := range []string{"Megatron-LM: llama-3-8b (the preset of the logged sizes) on 16× h100-sxm, TP 4 PP 2 DP 2", "seq 8192, batch 64 × micro 1, bf16", "iterations 2–5 (4 lines) averaged, warm-up skipped: iteration 1"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// The model's step time follows the log's layout: the same log at TP 8 PP 1 is another
	// prediction (the flags did not set it: the log did).
	d8, _ := runAgainstJSON(t, "--against", writeMegatronLog(t, map[string]string{"tensor_model_parallel_size": "8", "pipeline_model_parallel_size": "1"}), "--gpu", "h100-sxm")
	if d8.Runs[0].Metrics[0].Predicted == d.Runs[0].Metrics[0].Predicted {
		t.Errorf("the layout of the log does not reach the model: %g both", d8.Runs[0].Metrics[0].Predicted)
	}
}

// A torchtitan line: tokens/s per GPU, TFLOP/s and the peak memory; what it does not say from the
// flags (the PR's run: FSDP 8, local batch 2, full recomputation).
func TestValidateAgainstTorchtitanLog(t *testing.T) {
	d, errs := runAgainstJSON(t, "--against", qwenLog, "--model", "qwen3-32b", "--gpu", "h100-sxm", "--gpus", "8", "--tp", "1", "--pp", "1",
		"--zero", "3", "--batch", "16", "--micro-batch", "2", "--recompute", "full", "--seq", "4096")
	names := map[string]float64{}
	for _, m := range d.Runs[0].Metrics {
		names[m.Name] = m.Measured
	}
	if names["tokens_per_s_per_gpu"] != 1874 || names["tflops_per_gpu"] != 389.87 || len(names) != 3 {
		t.Errorf("metrics %v", names)
	}
	if !strings.Contains(errs, "not in the log, from the flags") {
		t.Errorf("stderr %q does not say what came from the flags", errs)
	}
}

// A serving result and training logs in one call: the serving run is compared as it is alone,
// and one log's settings do not carry into the next (the second log states no sequence
// parallelism: the flags' default, off, as when it is read alone).
func TestValidateAgainstMixed(t *testing.T) {
	a := writeMegatronLog(t, map[string]string{"sequence_parallel": "True", "recompute_granularity": "full"})
	b := writeMegatronLog(t, map[string]string{"sequence_parallel": "", "recompute_granularity": ""})
	serving, _ := runAgainstJSON(t, "--against", iog4090, "--gpu", "rtx-4090")
	alone, _ := runAgainstJSON(t, "--against", b, "--gpu", "rtx-4090")
	all, _ := runAgainstJSON(t, "--against", iog4090, a, b, "--gpu", "rtx-4090")
	if len(all.Runs) != 3 || all.Runs[1].File != a || all.Runs[2].File != b {
		t.Fatalf("runs %+v", all.Runs)
	}
	if fmt.Sprint(all.Runs[0].Metrics) != fmt.Sprint(serving.Runs[0].Metrics) {
		t.Errorf("the serving run beside logs:\n %v\nalone:\n %v", all.Runs[0].Metrics, serving.Runs[0].Metrics)
	}
	if fmt.Sprint(all.Runs[2].Metrics) != fmt.Sprint(alone.Runs[0].Metrics) {
		t.Errorf("the second log after the first:\n %v\nalone:\n %v", all.Runs[2].Metrics, alone.Runs[0].Metrics)
	}
	if fmt.Sprint(all.Runs[1].Metrics) == fmt.Sprint(all.Runs[2].Metrics) {
		t.Errorf("full recomputation and sequence parallelism change nothing: %v", all.Runs[1].Metrics)
	}
}

func TestValidateAgainstTrainingBadInput(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.log")
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		if err := f.Truncate(trainlog.MaxBytes + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	binary := filepath.Join(dir, "binary.log")
	if err := os.WriteFile(binary, []byte("iteration 1/ 2 |\n\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.log")
	data, err := os.ReadFile(mixtralLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data[:strings.LastIndex(string(data), "elapsed time")+7], 0o644); err != nil { // line 29 cut in its time
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"layout against the flags", []string{"--against", mixtralLog, "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "16", "--ep", "4"},
			[]string{mixtralLog + ": expert_model_parallel_size = 8 (line 1) but --ep 4"}},
		{"model against the sizes", []string{"--against", mixtralLog, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "16"},
			[]string{"hidden_size = 4096 (line 18) but --model llama-3-70b has hidden 8192"}},
		{"sizes of several presets", []string{"--against", mixtralLog, "--gpu", "h100-sxm", "--gpus", "16"},
			[]string{"fit several presets: llama-3-8b, mixtral-8x7b; give --model"}},
		{"no GPU", []string{"--against", writeMegatronLog(t, nil)}, []string{"megatron.log: the log does not say which GPU ran it; give --gpu"}},
		{"no GPU count", []string{"--against", qwenLog, "--model", "qwen3-32b", "--gpu", "h100-sxm"}, []string{"does not say how many GPUs ran it", "give --gpus"}},
		{"context parallel", []string{"--against", writeMegatronLog(t, map[string]string{"context_parallel_size": "2", "world_size": "32"}), "--gpu", "h100-sxm"},
			[]string{"context_parallel_size = 2 (line", "splitscope does not model"}},
		{"no iteration", []string{"--against", startupLog, "--gpu", "h100-sxm"}, []string{startupLog + ": no iteration line"}},
		{"cut", []string{"--against", cut, "--gpu", "h100-sxm"}, []string{"cut.log:29: elapsed time per iteration (ms): missing"}},
		{"binary", []string{"--against", binary}, []string{"binary.log:2: binary data"}},
		{"huge", []string{"--against", huge}, []string{"--against " + huge + ":", "larger than"}},
		{"seq beside a serving result", []string{"--against", iog4090, mixtralLog, "--seq", "2048"}, []string{"--seq 2048: validate --against serves each file's own workload"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runArgs(t, append([]string{"validate"}, c.args...)...)
			if code != 2 || out != "" {
				t.Fatalf("exit %d, stdout %q, want 2 and nothing printed; stderr %s", code, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}
