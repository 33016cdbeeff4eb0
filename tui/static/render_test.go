package static

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

const gib = 1 << 30

func fixtureScenario() model.Scenario {
	return model.Scenario{
		Arch: model.Arch{ID: "llama-3-70b", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672,
			Vocab: 128256, GatedMLP: true},
		Cluster: model.Cluster{
			GPU:  model.GPU{ID: "h100-sxm", MemoryBytes: 80 * gib},
			GPUs: 8, GPUsPerNode: 8, NICsPerNode: 8,
			Intra: model.Link{ID: "nvlink4"}, Inter: model.Link{ID: "ib-ndr"},
		},
		Layout:       model.Layout{TP: 8, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB},
		Workload:     model.Workload{Mode: model.Train, Seq: 4096, GlobalBatch: 64, Precision: model.BF16},
		ReserveBytes: gib,
	}
}

func fixtureReport() costmodel.Report {
	mem := costmodel.Memory{Weights: 16.4 * gib, Gradients: 16.4 * gib, Optimizer: 65.7 * gib,
		Activations: 10 * gib, Reserved: gib, Total: 109.5 * gib, Capacity: 80 * gib, Fits: false}
	return costmodel.Report{
		Layout:    costmodel.LayoutSummary{TP: 8, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1, MicroBatches: 64, Schedule: "1f1b"},
		StepTime:  40,
		Breakdown: costmodel.Breakdown{Compute: 30, TPComm: 8, Optimizer: 2},
		// 0.2 of the step is exposed communication.
		CommFraction: 0.2,
		ModelTFLOPS:  412, HWTFLOPS: 412, MFU: 0.4166, TokensPerS: 6553.6,
		Memory:   mem,
		Warnings: []string{"does not fit: 109.5 GiB > 80 GiB"},
		Detail: costmodel.Detail{
			BubbleClosedForm: 0,
			Stages: []costmodel.StageDetail{{Layers: 80, Embedding: true, Logits: true,
				GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, F: 0.150, B: 0.300, Busy: 38, Memory: mem}},
		},
	}
}

func TestRenderReport(t *testing.T) {
	var b bytes.Buffer
	if err := RenderReport(&b, fixtureScenario(), fixtureReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	header := lines[0]
	for _, want := range []string{"llama-3-70b", "8× h100-sxm", "nvlink4", "ib-ndr", "train", "TP=8 PP=1 DP=1 1f1b m=64 b=1"} {
		if !strings.Contains(header, want) {
			t.Errorf("header %q lacks %q", header, want)
		}
	}
	for _, want := range []string{
		"step time", "40.0 s",
		"compute", "30.0 s", "75.0%",
		"recompute", "tp comm", "8.00 s", "20.0%", "pp comm", "dp comm", "bubble", "optimizer",
		"closed form 0.0%", "412 TFLOP/s", "41.7%", "6.55 k",
		"weights", "16.4 GiB", "optimizer", "65.7 GiB", "KV cache", "reserved", "1.00 GiB",
		"110 GiB  of 80.0 GiB (136.9%): OVER by 29.5 GiB",
		"stage", "0-7", "80 +emb +logits", "150", "300", "38.0 s", "95.0%",
		"warnings", "! does not fit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "inference") {
		t.Errorf("training report shows the inference section:\n%s", out)
	}
	// The breakdown's seconds column is flush right: every value ends in the same column.
	var ends []int
	for _, l := range lines {
		if i := strings.Index(l, " s "); i > 0 && strings.HasPrefix(l, "  ") && len(ends) < 7 {
			ends = append(ends, len([]rune(l[:i])))
		}
	}
	for _, e := range ends {
		if e != ends[0] {
			t.Errorf("breakdown seconds not aligned: %v\n%s", ends, out)
			break
		}
	}
}

func TestRenderReportInfer(t *testing.T) {
	s := fixtureScenario()
	s.Workload = model.Workload{Mode: model.Infer, PromptTokens: 1024, GenTokens: 256, Requests: 8, Precision: model.FP8}
	r := fixtureReport()
	r.Memory.Fits, r.Memory.Total = true, 60*gib
	r.Detail.Stages[0].Memory = r.Memory
	r.Inference = &costmodel.Inference{TTFT: 0.120, TPOT: 0.0213, TokensPerS: 375, OutputTokensPerS: 375,
		TTFTP50: 0.110, TTFTP90: 0.150, TTFTP99: 0.190, TPOTP50: 0.021, TPOTP90: 0.024, TPOTP99: 0.031,
		Engine: "sglang", Completed: 8, Steps: 260, MaxSeqs: 1024, MaxBatchTokens: 8192, KVCacheTokens: 1.5e6}
	var b bytes.Buffer
	if err := RenderReport(&b, s, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"infer fp8 prompt 1024 gen 256 requests 8 at once", "TP=8 PP=1 DP=1\n",
		"serve time", "serving as SGLang (8 requests served, 0 refused · 260 engine steps · at most 1024 sequences and 8192 tokens a step)",
		"TTFT   120 ms   110 ms   150 ms   190 ms", "TPOT  21.3 ms  21.0 ms  24.0 ms  31.0 ms", "375", "1.50 M tokens", "fits"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "OVER") || strings.Contains(out, "W ms") {
		t.Errorf("unexpected OVER or W column:\n%s", out)
	}
}

func TestLayoutLine(t *testing.T) {
	s := fixtureScenario()
	s.Cluster.GPUs = 64
	s.Layout = model.Layout{TP: 8, PP: 4, DP: 2, Chunks: 2, MicroBatch: 2, Schedule: model.Interleaved,
		Recompute: model.RecomputeSelective, SequenceParallel: true, ZeRO: 1}
	s.Workload.GlobalBatch = 256
	want := "TP=8 PP=4 DP=2 interleaved v=2 m=64 b=2 recompute=selective sp zero=1"
	if got := LayoutLine(s); got != want {
		t.Errorf("LayoutLine = %q, want %q", got, want)
	}
	if got := ScenarioLine(s); !strings.Contains(got, "64× h100-sxm (8 nodes × 8)") || !strings.Contains(got, "ib-ndr ×8 NICs") {
		t.Errorf("ScenarioLine = %q", got)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderReportWriteError(t *testing.T) {
	if err := RenderReport(failWriter{}, fixtureScenario(), fixtureReport()); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

func TestRenderSearch(t *testing.T) {
	s := fixtureScenario()
	good := fixtureReport()
	good.Memory.Fits = true
	var cands []costmodel.Candidate
	for i, tp := range []int{8, 4, 2} {
		r := good
		r.StepTime = float64(10 * (i + 1))
		r.Layout.MicroBatches = 0 // computed from the layout instead
		cands = append(cands, costmodel.Candidate{Layout: model.Layout{TP: tp, PP: 8 / tp, DP: 1, Chunks: 1, MicroBatch: 1},
			Report: r, Feasible: true})
	}
	for i := range 12 {
		cands = append(cands, costmodel.Candidate{Layout: model.Layout{TP: 3, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1 << i},
			Feasible: false, Reason: "tp 3 must divide heads"})
	}
	var b bytes.Buffer
	if err := RenderSearch(&b, s, costmodel.SearchResult{Candidates: cands, Feasible: 3}, 2); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"3 of 15 layouts feasible; best 2 first", "rank", "step time", "tokens/s", "mem/GPU",
		"10.0 s", "20.0 s", "infeasible (12)", "TP=3 PP=1 DP=1 1f1b v=1 b=1", "tp 3 must divide heads", "… and 2 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("search lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "30.0 s") {
		t.Errorf("top 2 shows a third layout:\n%s", out)
	}
	if !strings.Contains(out, " 64 ") {
		t.Errorf("m not computed from the layout:\n%s", out)
	}
}

func TestRenderPresets(t *testing.T) {
	p := &assets.Presets{
		Models: []model.Arch{{ID: "llama-2-7b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, FFN: 11008, Vocab: 32000,
			GatedMLP: true, Source: "Touvron et al. 2023, table 1"}},
		GPUs: []model.GPU{{ID: "h100-sxm", PeakBF16: 989e12, PeakFP8: 1979e12, MemoryBytes: 79.6 * gib, HBMBandwidth: 3.35e12,
			NativeLink: "nvlink4", Source: strings.Repeat("a very long source note ", 10)}},
		Links: []model.Link{{ID: "nvlink4", Kind: model.NVLink, Bandwidth: 450e9, Latency: 3e-6, Efficiency: 0.78, Source: "NVIDIA"}},
	}
	var b bytes.Buffer
	if err := RenderPresets(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"models (1)", "llama-2-7b", "32/32", "11008", "6.7B", "Touvron",
		"GPUs (1)", "h100-sxm", "989", "1979", "79.6 GiB", "3.35 TB/s", "…",
		"links (1)", "nvlink", "450.0", "3.0", "0.78"} {
		if !strings.Contains(out, want) {
			t.Errorf("presets lacks %q:\n%s", want, out)
		}
	}
}

func TestRenderPresetsEmbedded(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := RenderPresets(&b, p); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"llama-3-70b", "h100-sxm", "mi300x", "nvlink4", "ib-ndr"} {
		if !strings.Contains(b.String(), id) {
			t.Errorf("presets lacks %s", id)
		}
	}
}

// The change that makes a scenario fit by offloading says what it costs in host RAM, and whose
// host memory it counted against (the default, where nothing set it).
func TestToFitTextSaysHostCost(t *testing.T) {
	f := &costmodel.FitChange{What: "offload optimizer", StepTime: 66.8, Memory: 67 * model.GiB, Capacity: 79.6 * model.GiB,
		Host: 131 * model.GiB, HostCapacity: 256 * model.GiB}
	got := ToFitText(f)
	for _, w := range []string{"to fit: offload optimizer", "131 GiB host RAM per GPU", "256 GiB per GPU assumed", "--host-memory"} {
		if !strings.Contains(got, w) {
			t.Errorf("ToFitText = %q, want %q in it", got, w)
		}
	}
	f.Scenario.Cluster.HostMemoryBytes = 1024 * model.GiB
	if got := ToFitText(f); strings.Contains(got, "assumed") || !strings.Contains(got, "of its 256 GiB") {
		t.Errorf("with the host memory set: %q", got)
	}
	f.Host, f.HostCapacity = 0, 0
	if got := ToFitText(f); strings.Contains(got, "host") {
		t.Errorf("without offload: %q", got)
	}
}
