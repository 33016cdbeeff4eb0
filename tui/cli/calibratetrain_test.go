package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

var qwenFlags = []string{"--model", "qwen3-32b", "--gpu", "h100-sxm", "--gpus", "8", "--tp", "1", "--pp", "1",
	"--zero", "3", "--batch", "16", "--micro-batch", "2", "--recompute", "full", "--seq", "4096"}

// readCal reads a calibration written by calibrate --out.
func readCal(t *testing.T, path string) (float64, float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, err := assets.ParseCalibration(path, data, p)
	if err != nil || c.Serving == nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// A training fit is kept under training:, its note there.
	if c.Section != model.SectionTraining || !strings.Contains(string(data), "\n  training:\n") || !strings.Contains(string(data), "    # fitted on ") {
		t.Errorf("section %q:\n%s", c.Section, data)
	}
	return c.Serving.ComputeEff, c.Serving.ComputeEffFP8
}

// An oracle: a Megatron log whose step time is the model's own at a compute efficiency of 0.7
// on the H100 (validate --against with a calibration saying 0.7) is fitted back to 0.7 and
// written; the fp8 run of the same log to compute_eff_fp8.
func TestCalibrateFromTrainingOracle(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, key string
		args      map[string]string
	}{
		{"bf16", "compute_eff", nil},
		{"fp8", "compute_eff_fp8", map[string]string{"fp8": "hybrid", "bf16": "True"}},
	} {
		truth := filepath.Join(dir, tc.name+"-truth.yaml")
		if err := os.WriteFile(truth, []byte(fmt.Sprintf("calibration:\n  gpu: h100-sxm\n  serving:\n    %s: 0.7\n", tc.key)), 0o644); err != nil {
			t.Fatal(err)
		}
		log := writeMegatronLog(t, tc.args)
		d, _ := runAgainstJSON(t, "--against", log, "--gpu", "h100-sxm", "--calibration", truth)
		step := 0.0
		for _, m := range d.Runs[0].Metrics {
			if m.Name == "step_time_s" {
				step = m.Predicted
			}
		}
		data, err := os.ReadFile(log)
		if err != nil || step <= 0 {
			t.Fatalf("%v, step %g", err, step)
		}
		measured := filepath.Join(dir, tc.name+".log")
		text := strings.ReplaceAll(string(data), "elapsed time per iteration (ms): 4000.0", fmt.Sprintf("elapsed time per iteration (ms): %.3f", 1e3*step))
		if err := os.WriteFile(measured, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, tc.name+"-fit.yaml")
		code, stdout, errs := runArgs(t, "calibrate", "--from", measured, "--gpu", "h100-sxm", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", tc.name, code, stdout, errs)
		}
		eff, fp8 := readCal(t, out)
		got := eff
		if tc.key == "compute_eff_fp8" {
			got = fp8
			if eff != 0 {
				t.Errorf("fp8 run: compute_eff %g written too", eff)
			}
		}
		if got < 0.695 || got > 0.705 {
			t.Errorf("%s: fitted %s %g, truth 0.7\n%s", tc.name, tc.key, got, stdout)
		}
		for _, want := range []string{"(tflops_per_gpu)", "step_time_s", "training checks on h100-sxm (validate's training groups) stay within tolerance", "wrote " + out} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, want, stdout)
			}
		}
	}
}

// The real excerpts: torchtitan's Qwen3-32B run (its tokens/s 13% under the model's) is fitted
// and written, and under the calibration validate --against is within 1% of it; the Megatron
// Mixtral run's fit would break a published MoE check, so it is refused and nothing written.
func TestCalibrateFromTrainingLogs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "qwen.yaml")
	code, stdout, errs := runArgs(t, append([]string{"calibrate", "--from", qwenLog, "--out", out}, qwenFlags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	if eff, _ := readCal(t, out); eff < 0.6 || eff > 0.8 {
		t.Errorf("qwen3-32b: compute_eff %g", eff)
	}
	d, _ := runAgainstJSON(t, append([]string{"--against", qwenLog, "--calibration", out}, qwenFlags...)...)
	before, _ := runAgainstJSON(t, append([]string{"--against", qwenLog}, qwenFlags...)...)
	for i, m := range d.Runs[0].Metrics {
		if m.Name == "tokens_per_s_per_gpu" && (abs(m.Error) > 0.01 || abs(before.Runs[0].Metrics[i].Error) < 0.05) {
			t.Errorf("tokens/s error %+.3f before, %+.3f with the calibration", before.Runs[0].Metrics[i].Error, m.Error)
		}
	}

	refused := filepath.Join(dir, "mixtral.yaml")
	code, stdout, errs = runArgs(t, "calibrate", "--from", mixtralLog, "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "16", "--tp", "2", "--pp", "1", "--seq", "4096", "--out", refused, "--json")
	if code != 1 || !strings.Contains(errs, "refused: with the fitted efficiency 1 published training check(s) of validate that pass today fail: moe mixtral-8x7b") || !strings.Contains(errs, "nothing written") {
		t.Errorf("mixtral: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(refused); !os.IsNotExist(err) {
		t.Errorf("a refused fit was written: %v", err)
	}
	var doc struct {
		Parameters []struct {
			Name   string  `json:"name"`
			Fitted float64 `json:"fitted"`
		} `json:"parameters"`
		Broken []json.RawMessage `json:"published_broken"`
		Out    string            `json:"out"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Parameters) != 1 || len(doc.Broken) != 1 || doc.Out != "" {
		t.Errorf("mixtral --json: %v %+v\n%s", err, doc, stdout)
	}

	// A training log and a serving result fit different things; --seq beside a serving result
	// is refused as validate refuses it.
	if code, _, errs := runArgs(t, append([]string{"calibrate", "--from", qwenLog, iog4090}, qwenFlags...)...); code != 2 || !strings.Contains(errs, "a training log and a serving benchmark fit different things") {
		t.Errorf("mixed: exit %d %s", code, errs)
	}
	if code, _, errs := runArgs(t, "calibrate", "--from", iog4090, "--seq", "2048"); code != 2 || !strings.Contains(errs, "--seq 2048: calibrate --from serves each file's own workload") {
		t.Errorf("--seq beside a serving result: exit %d %s", code, errs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
