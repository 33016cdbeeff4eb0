package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var traceDir = filepath.Join("..", "..", "assets", "trace", "testdata")

// TestExportTrace: export --svg --trace draws the overlay and says the difference; a trace of
// another layout, a bad file, or --trace without --svg exits 2 naming the file and the field.
func TestExportTrace(t *testing.T) {
	dir := t.TempDir()
	ddp := filepath.Join(traceDir, "hta-nccl-data-rank-0.json.gz")
	base := []string{"export", "--model", "llama-2-7b", "--gpu", "a100-sxm-40gb", "--gpus", "2", "--tp", "2", "--pp", "1", "--batch", "8"}
	svg := filepath.Join(dir, "o.svg")
	code, _, errs := runArgs(t, append(base, "--trace", ddp, "--svg", svg)...)
	if code != 0 || !strings.Contains(errs, "splitscope: trace: NCCL all-reduce ") || !strings.Contains(errs, "splitscope: trace: rank 0 (stage 0): compute ") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	data, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(data), `class="overlay-diff"`) {
		t.Fatalf("svg without the overlay: %v", err)
	}

	bad := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(bad, []byte(`{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	notTrace := filepath.Join(dir, "result.json")
	if err := os.WriteFile(notTrace, []byte(`{"completed": 10, "duration": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(append([]string{}, base...), "--trace", filepath.Join(traceDir, "hta-sampled-rank-0.json.gz"), "--svg", filepath.Join(dir, "a.svg")),
			"hta-sampled-rank-0.json.gz: distributedInfo.world_size is 128, but the layout runs 2 GPUs (TP 2 × PP 1 × DP 1)"},
		{append(append([]string{}, base...), "--trace", bad, "--svg", filepath.Join(dir, "b.svg")), "cut.json: traceEvents[0]: cut short"},
		{append(append([]string{}, base...), "--trace", notTrace, "--svg", filepath.Join(dir, "c.svg")), "result.json: traceEvents: missing"},
		{append(append([]string{}, base...), "--trace", filepath.Join(dir, "none.json"), "--svg", filepath.Join(dir, "d.svg")), "none.json: cannot read the trace"},
		{append(append([]string{}, base...), "--trace", ddp, "--markdown", filepath.Join(dir, "e.md")), "--trace: the overlay is drawn in the SVG; give --svg FILE"},
	} {
		code, _, errs := runArgs(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args[len(c.args)-3:], code, errs, c.want)
		}
	}
	for _, f := range []string{"a.svg", "b.svg", "c.svg", "d.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written for a refused trace", f)
		}
	}
}

// TestExplorerTraceReport: without a terminal the explorer prints the report; --trace is read
// and checked all the same.
func TestExplorerTraceReport(t *testing.T) {
	args := []string{"--model", "llama-2-7b", "--gpu", "a100-sxm-40gb", "--gpus", "8", "--tp", "8", "--pp", "1", "--batch", "8",
		"--trace", filepath.Join(traceDir, "hta-nccl-data-rank-0.json.gz")}
	code, _, errs := runArgs(t, args...)
	if code != 2 || !strings.Contains(errs, "hta-nccl-data-rank-0.json.gz: distributedInfo.world_size is 2, but the layout runs 8 GPUs (TP 8 × PP 1 × DP 1)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestExportTraceGEMM: a trace recorded with shapes fits the GEMM curve on the flags' GPU, and
// export says so beside the difference.
func TestExportTraceGEMM(t *testing.T) {
	var ev []string
	for i, sh := range [][3]int{{512, 4096, 4096}, {1024, 4096, 4096}, {2048, 11008, 4096}, {4096, 4096, 11008}} {
		dur := 2*float64(sh[0])*float64(sh[1])*float64(sh[2])/200e12*1e6 + 7 // µs: 200 TFLOP/s and 7 µs
		ev = append(ev,
			fmt.Sprintf(`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": %d, "dur": 5, "args": {"External id": %d, "Input Dims": [[%d, %d], [%d, %d]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}}`,
				1000*i, i+1, sh[0], sh[2], sh[2], sh[1]),
			fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "ts": %d, "dur": %.3f, "args": {"device": 0, "stream": 7, "correlation": %d, "External id": %d}}`,
				1000*i+10, dur, 100+i, i+1))
	}
	doc := `{"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [` + strings.Join(ev, ",\n") + `]}`
	dir := t.TempDir()
	f := filepath.Join(dir, "shapes.json")
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runArgs(t, "export", "--model", "llama-2-7b", "--gpu", "a100-sxm-40gb", "--gpus", "2", "--tp", "2", "--pp", "1",
		"--batch", "8", "--trace", f, "--svg", filepath.Join(dir, "g.svg"))
	if code != 0 || !strings.Contains(errs, "splitscope: trace: GEMM on a100-sxm-40gb (bf16, 4 shapes, 4 kernels): fitted 64% of peak and 7.0 µs a kernel") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}
