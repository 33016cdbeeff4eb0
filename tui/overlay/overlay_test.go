package overlay

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

var testdata = filepath.Join("..", "..", "assets", "trace", "testdata")

// twoGPU is llama-2-7b training on 2× a100-sxm-40gb over nvlink3 at TP tp (DP 2/tp): the size of
// HTA's two-rank DDP trace, taken on A100s.
func twoGPU(t testing.TB, tp int) (model.Scenario, costmodel.Report) {
	t.Helper()
	s := tuitest.Scenario(t, "llama-2-7b", "a100-sxm-40gb", "nvlink3", model.Train, 2, tp, 1)
	s.Workload.GlobalBatch = 8
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

func load(t testing.TB, names ...string) []model.Trace {
	t.Helper()
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(testdata, n))
	}
	tr, err := Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestRealOverlay sets the DDP trace against TP 2: the all-reduces are compared with the model's
// TP all-reduce timed for their own bytes, and the shares add up.
func TestRealOverlay(t *testing.T) {
	s, r := twoGPU(t, 2)
	traces := load(t, "hta-nccl-data-rank-0.json.gz")
	o, err := Build(traces, s, r)
	if err != nil {
		t.Fatal(err)
	}
	rk := o.Ranks[0]
	m := rk.Measured
	// Shares from the trace's own unions: compute and NCCL each within [0, 1], idle what neither
	// covers, so compute + comm + idle ≥ 1 (they may overlap) and idle + max(...) ≤ 1.
	if m.Compute <= 0 || m.Comm <= 0 || m.Idle <= 0 || m.Compute+m.Comm+m.Idle < 1-1e-9 || m.Idle+max(m.Compute, m.Comm) > 1+1e-9 {
		t.Errorf("measured shares %+v", m)
	}
	if m.Span != traces[0].Span {
		t.Errorf("span %g, the trace's %g", m.Span, traces[0].Span)
	}
	// The all-reduce line: its ratio is the median of measured over modelled per call.
	var tpUse *costmodel.CollectiveUse
	for i, u := range r.Collectives {
		if u.Comm == "tp" && u.Op == "all-reduce" {
			tpUse = &r.Collectives[i]
		}
	}
	if tpUse == nil {
		t.Fatal("no TP all-reduce in the report")
	}
	if !strings.HasPrefix(o.Diff, "NCCL all-reduce ") || !strings.Contains(o.Diff, " the model's on rank 0 (median of 15 calls of 25.0 MiB)") {
		t.Errorf("diff %q", o.Diff)
	}
	if !(o.DiffRatio > 1.5) || math.IsInf(o.DiffRatio, 0) {
		t.Errorf("ratio %g", o.DiffRatio)
	}
	// Cells: as many as asked, and each kind where the shares say there is some.
	for _, w := range []int{1, 7, 60, 400} {
		if got := len(o.MeasuredCells(0, w)); got != w {
			t.Errorf("%d measured cells for %d", got, w)
		}
		if got := len(o.ModeledCells(0, w)); got != w {
			t.Errorf("%d modelled cells for %d", got, w)
		}
	}
	count := map[Cell]int{}
	for _, c := range o.MeasuredCells(0, 400) {
		count[c]++
	}
	if count[CellIdle] < 200 || count[CellCompute] == 0 || count[CellComm] == 0 {
		t.Errorf("measured cells %v for shares %+v", count, m)
	}
}

// TestDiffShares: a trace whose NCCL kernels carry no size is compared on shares, and the one
// furthest from the model's step is named in points.
func TestDiffShares(t *testing.T) {
	tr := model.Trace{File: "t.json", Rank: 1, WorldSize: 2, Span: 1, Kernels: 2, Streams: []model.TraceStream{{
		Stream: 7, Intervals: []model.TraceInterval{{Start: 0, End: 0.2, Class: model.KernelGEMM}, {Start: 0.5, End: 1, Class: model.KernelNCCL}},
	}}}
	s, r := twoGPU(t, 2)
	o, err := Build([]model.Trace{tr}, s, r)
	if err != nil {
		t.Fatal(err)
	}
	m := o.Ranks[0].Measured
	if math.Abs(m.Compute-0.2) > 1e-12 || math.Abs(m.Comm-0.5) > 1e-12 || math.Abs(m.Idle-0.3) > 1e-12 {
		t.Fatalf("shares %+v", m)
	}
	// The model's step is nearly all compute: compute is furthest off (−70-odd points).
	if !strings.HasPrefix(o.Diff, "compute −") || !strings.Contains(o.Diff, " points on rank 1: 20% of the trace, ") {
		t.Errorf("diff %q", o.Diff)
	}
	got := o.MeasuredCells(0, 10)
	want := []Cell{CellCompute, CellCompute, CellIdle, CellIdle, CellIdle, CellComm, CellComm, CellComm, CellComm, CellComm}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cells %v, want %v", got, want)
		}
	}
}

func TestRefused(t *testing.T) {
	s, r := twoGPU(t, 1)
	for _, c := range []struct {
		traces []model.Trace
		want   string
	}{
		{load(t, "hta-sampled-rank-0.json.gz"), "hta-sampled-rank-0.json.gz: distributedInfo.world_size is 128, but the layout runs 2 GPUs (TP 1 × PP 1 × DP 2)"},
		{[]model.Trace{{File: "a", Rank: 5}}, "a: distributedInfo.rank is 5, but the layout runs 2 GPUs (TP 1 × PP 1 × DP 2) (ranks 0–1)"},
		{[]model.Trace{{File: "a", Rank: 1}, {File: "b", Rank: 1}}, "b: rank 1 again (a is rank 1)"},
		{[]model.Trace{{File: "a", Rank: -1}, {File: "b", Rank: -1}, {File: "c", Rank: -1}}, "--trace: 3 traces, one per rank, but the layout runs 2 GPUs"},
		{[]model.Trace{{File: "a", Rank: 0, Collectives: []model.TraceCollective{{Op: "all-reduce", GroupSize: 8}}}}, "a: an NCCL all-reduce over 8 GPUs (Group size), but the layout runs 2 GPUs"},
	} {
		_, err := Build(c.traces, s, r)
		var oe *Error
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if _, err := Load([]string{testdata}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

func TestStageOf(t *testing.T) {
	l := model.Layout{TP: 2, PP: 2, DP: 2}
	for r, want := range []int{0, 0, 0, 0, 1, 1, 1, 1} {
		if got := StageOf(l, r); got != want {
			t.Errorf("tp-dp-pp rank %d: stage %d, want %d", r, got, want)
		}
	}
	l.RankOrder = model.RankOrderTPPPDP
	for r, want := range []int{0, 0, 1, 1, 0, 0, 1, 1} {
		if got := StageOf(l, r); got != want {
			t.Errorf("tp-pp-dp rank %d: stage %d, want %d", r, got, want)
		}
	}
}

// TestGEMMFit: a trace's shaped GEMM kernels, timed by the curve at 55% of peak and 8 µs, give
// those back on the scenario's GPU, in the precision most of them ran in.
func TestGEMMFit(t *testing.T) {
	s, r := twoGPU(t, 2)
	g := s.Cluster.GPU
	tr := model.Trace{File: "g.json", Rank: 0, WorldSize: 2, Span: 1, Kernels: 1, Streams: []model.TraceStream{{
		Stream: 7, Intervals: []model.TraceInterval{{Start: 0, End: 0.5, Class: model.KernelGEMM}}}}}
	for _, m := range []float64{256, 1024, 4096} {
		for _, n := range []float64{4096, 11008} {
			k := 4096.0
			dur := math.Max(2*m*n*k/(g.Peak(model.BF16)*0.55), (m*k+k*n+m*n)*2/(g.HBMBandwidth*g.MemoryEff)) + 8e-6
			tr.GEMMs = append(tr.GEMMs, model.TraceGEMM{Op: "aten::mm", M: m, N: n, K: k, Dtype: "c10::BFloat16", Dur: dur})
		}
	}
	tr.GEMMs = append(tr.GEMMs, model.TraceGEMM{Op: "aten::mm", M: 64, N: 64, K: 64, Dtype: "float", Dur: 1e-5})
	o, err := Build([]model.Trace{tr}, s, r)
	if err != nil {
		t.Fatal(err)
	}
	if o.GEMM == nil || math.Abs(o.GEMM.Eff-0.55) > 0.01 || math.Abs(o.GEMM.Latency-8e-6) > 0.5e-6 || o.GEMM.Shapes != 6 {
		t.Fatalf("fit %+v", o.GEMM)
	}
	if !strings.HasPrefix(o.GEMMNote, "GEMM on a100-sxm-40gb (bf16, 6 shapes, 6 kernels): fitted 55% of peak and 8.0 µs a kernel") {
		t.Errorf("note %q", o.GEMMNote)
	}
	tr.GEMMs = tr.GEMMs[:2]
	if o, _ := Build([]model.Trace{tr}, s, r); o.GEMM != nil || !strings.Contains(o.GEMMNote, "too few GEMM shapes") {
		t.Errorf("two shapes: %+v %q", o.GEMM, o.GEMMNote)
	}
}
