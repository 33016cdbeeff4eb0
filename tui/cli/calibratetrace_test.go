package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// writeGEMMTrace writes a Kineto trace of bf16 GEMMs on the H100 each timed by the GEMM curve
// with efficiency eff and latency lat (seconds): the model's own kernels at known parameters.
func writeGEMMTrace(t *testing.T, eff, lat float64) string {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.GPU("h100-sxm")
	g.ComputeEff, g.ComputeEffFP8, g.GEMMLatency = eff, 0, lat
	var ev []string
	id, ts := 0, 10.0
	for _, m := range []float64{128, 512, 2048, 8192} {
		for _, n := range []float64{1024, 4096, 14336} {
			id++
			dur := 1e6 * costmodel.GEMMSeconds(g, model.BF16, m, n, 4096)
			ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": %g, "dur": 1, "args": {"External id": %d, "Input Dims": [[%g, 4096], [4096, %g]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}}`, ts, id, m, n),
				fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "ts": %g, "dur": %.4f, "args": {"device": 0, "stream": 7, "correlation": %d, "External id": %d}}`, ts+1, dur, id, id))
			ts += 2 + dur
		}
	}
	path := filepath.Join(t.TempDir(), "gemm.json")
	if err := os.WriteFile(path, []byte(`{"traceEvents": [`+strings.Join(ev, ",\n")+"]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An oracle: a trace of GEMMs timed by the curve at 78% of peak and 6.5 µs a kernel is fitted
// back to them and written as compute_eff and gemm_latency_us (fp8's efficiency kept at the
// preset's: the trace timed no fp8 GEMM); under that calibration the engine's GEMM time is the
// trace's. One at 50% would break the published GEMM checks (XLA's H100 table), and one at
// 7.5 µs a kernel the serving checks (the serving engine's GEMMs pay it too: BLIS's Llama-2-70B
// at 20 req/s, TTFT +49.9% against ±35%): refused, nothing written.
func TestCalibrateFromTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "gemm.yaml")
	code, stdout, errs := runArgs(t, "calibrate", "--from", writeGEMMTrace(t, 0.78, 6.5e-6), "--gpu", "h100-sxm", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := assets.Load()
	c, err := assets.ParseCalibration(out, data, p)
	if err != nil || c.Serving == nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// The GEMM curve is kept under gemm:, its note there.
	if c.Section != model.SectionGEMM || !strings.Contains(string(data), "\n  gemm:\n") || !strings.Contains(string(data), "    # the GEMM curve fitted to ") {
		t.Errorf("section %q:\n%s", c.Section, data)
	}
	h100, _ := p.GPU("h100-sxm")
	if sc := c.Serving; sc.ComputeEff < 0.77 || sc.ComputeEff > 0.79 || sc.GEMMLatency < 6.3e-6 || sc.GEMMLatency > 6.7e-6 ||
		sc.ComputeEffFP8 != h100.MatmulEff(model.FP8) {
		t.Errorf("fitted %+v, truth 0.78 and 6.5 µs, fp8's %g\n%s", sc, h100.MatmulEff(model.FP8), stdout)
	}
	t.Logf("%s", stdout)
	p.Calibrate(c, "gemm.yaml")
	g, _ := p.GPU("h100-sxm")
	if got := costmodel.GEMMSeconds(g, model.BF16, 1, 1, 1); got < 6.3e-6 || got > 6.7e-6 || g.MatmulEff(model.FP8) != h100.MatmulEff(model.FP8) {
		t.Errorf("the calibrated H100's tiny GEMM takes %.2f µs", got*1e6)
	}
	for _, want := range []string{"GEMM on h100-sxm: 12 bf16 kernels of 12 shapes", "gemm_latency_us", "serving, training and GEMM checks on h100-sxm stay within tolerance"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	slow := filepath.Join(dir, "slow.yaml")
	code, stdout, errs = runArgs(t, "calibrate", "--from", writeGEMMTrace(t, 0.5, 6e-6), "--gpu", "h100-sxm", "--out", slow, "--json")
	var doc struct {
		Broken []struct {
			Group string `json:"group"`
		} `json:"published_broken"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 || len(doc.Broken) == 0 || !strings.Contains(errs, "refused: with the fitted GEMM curve") {
		t.Errorf("a slow curve: exit %d, %v %+v\n%s", code, err, doc, errs)
	}
	if _, err := os.Stat(slow); !os.IsNotExist(err) {
		t.Errorf("a refused fit was written: %v", err)
	}
	code, _, errs = runArgs(t, "calibrate", "--from", writeGEMMTrace(t, 0.78, 7.5e-6), "--gpu", "h100-sxm", "--out", slow)
	if code != 1 || !strings.Contains(errs, "blis-llama-2-70b-tp4-general-r20 TTFT") {
		t.Errorf("a curve 1.5 µs a kernel slower than the built-in one: exit %d\n%s", code, errs)
	}
	// Without --gpu, beside a result file, or a trace without shapes: bad input.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", writeGEMMTrace(t, 0.78, 7.5e-6)}, "a profiler trace does not say which GPU preset ran it; give --gpu"},
		{[]string{"--from", writeGEMMTrace(t, 0.78, 7.5e-6), iog4090, "--gpu", "h100-sxm"}, "a profiler trace fits the GEMM curve"},
		{[]string{"--from", writeTraceOf(t, "relu.json", `{"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_kernel", "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}}`), "--gpu", "h100-sxm"}, "nothing to fit"},
		// HTA's real DDP trace: its all-reduces ran beside the backward, 10–40× the link's time:
		// the links fitted to them stop at a bound and are not written.
		{[]string{"--from", "../../assets/trace/testdata/hta-nccl-data-rank-0.json.gz", "--gpu", "a100-sxm-80gb", "--out", filepath.Join(t.TempDir(), "x.yaml")}, "the links fitted to the NCCL kernels are not written"},
	} {
		if code, _, errs := runArgs(t, append([]string{"calibrate"}, tc.args...)...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %s", tc.args, code, errs)
		}
	}
}

// HTA's real 8-rank trace with shapes (assets/trace/testdata): its 2,388 GEMM kernels are fp32
// (A100 TF32 tensor-op SGEMMs); the curve is fitted per bf16, fp16 or fp8 only, so calibrate
// refuses it (exit 2) naming the count and why, and writes nothing.
func TestCalibrateFromRealTraceFP32(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cal.yaml")
	trace := filepath.Join("..", "..", "assets", "trace", "testdata", "hta-trace-diff-control-rank-3-of-8.json.gz")
	code, stdout, errs := runArgs(t, "calibrate", "--from", trace, "--gpu", "a100-sxm-40gb", "--out", out)
	if code != 2 || !strings.Contains(errs, "2388 kernels with shapes, none in bf16, fp16 or fp8") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written: %v", out, err)
	}
}

// A trace's NCCL kernels fit the links as nccl-tests' rows do: all-reduces on 8 H100s, each
// timed by the collective model on an NVLink 4 whose α and efficiency are known (and some slower
// copies of each, a rank waiting for its peers), come back as those parameters, and --out writes
// them as intra: beside nothing else (the trace has no GEMM shapes). The same kernels on a link
// far from the preset's (efficiency 0.5) would move validate's checks: shown, not written.
func TestCalibrateFromTraceLinks(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.GPU("h100-sxm")
	nv, _ := p.Link(g.NativeLink)
	ib, _ := p.Link("ib-ndr")
	truth := nv
	truth.Latency, truth.Efficiency = 1.25*nv.Latency, 0.79
	fab := collective.Fabric{Intra: truth, Inter: ib, NICs: 8}
	var ev []string
	ts := 10.0
	for b := 1 << 16; b <= 1<<30; b <<= 2 {
		sec := collective.Time(collective.AllReduce, float64(b), collective.Group{Ranks: 8, Nodes: 1}, fab, collective.Auto).Seconds
		for _, late := range []float64{1.7, 1, 1.3} { // the fastest is the collective alone
			ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ts": %g, "dur": %.6f, "args": {"device": 0, "stream": 9, "correlation": 1, "Collective name": "allreduce", "In msg nelems": %d, "Out msg nelems": %d, "Group size": 8, "dtype": "BFloat16"}}`,
				ts, 1e6*sec*late, b/2, b/2))
			ts += 1e6*sec*late + 5
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "nccl.json")
	if err := os.WriteFile(path, []byte(`{"distributedInfo": {"rank": 0, "world_size": 8}, "traceEvents": [`+strings.Join(ev, ",\n")+"]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "links.yaml")
	code, stdout, errs := runArgs(t, "calibrate", "--from", path, "--gpu", "h100-sxm", "--gpus-per-node", "8", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := assets.ParseCalibration(out, data, p)
	if err != nil || c.Intra == nil || c.Serving != nil {
		t.Fatalf("%+v, %v\n%s", c, err, data)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"latency", c.Intra.Latency, truth.Latency}, {"efficiency", c.Intra.Efficiency, truth.Efficiency}} {
		if f.got == 0 || math.Abs(f.got/f.want-1) > 0.05 {
			t.Errorf("intra %s fitted %g, the kernels were timed at %g\n%s", f.name, f.got, f.want, stdout)
		}
	}
	if !strings.Contains(stdout, nv.ID) {
		t.Errorf("the fit does not name %s:\n%s", nv.ID, stdout)
	}

	far := truth
	far.Efficiency = 0.5
	ev = ev[:0]
	for b := 1 << 16; b <= 1<<30; b <<= 2 {
		sec := collective.Time(collective.AllReduce, float64(b), collective.Group{Ranks: 8, Nodes: 1}, collective.Fabric{Intra: far, Inter: ib, NICs: 8}, collective.Auto).Seconds
		ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ts": %d, "dur": %.6f, "args": {"device": 0, "stream": 9, "Collective name": "allreduce", "In msg nelems": %d, "Out msg nelems": %d, "Group size": 8, "dtype": "BFloat16"}}`,
			b, 1e6*sec, b/2, b/2))
	}
	farOut := filepath.Join(dir, "far.yaml")
	code, stdout, errs = runArgs(t, "calibrate", "--from", writeTraceOf(t, "far.json", ev...), "--gpu", "h100-sxm", "--out", farOut)
	if _, err := os.Stat(farOut); code != 2 || err == nil || !strings.Contains(stdout, "past their tolerance") || !strings.Contains(errs, "nothing to write") {
		t.Errorf("links far from the preset's: exit %d, written %v\n%s%s", code, err == nil, stdout, errs)
	}
}

// writeTraceOf writes a trace of the events given.
func writeTraceOf(t *testing.T, name string, events ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(`{"traceEvents": [`+strings.Join(events, ",\n")+"]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
