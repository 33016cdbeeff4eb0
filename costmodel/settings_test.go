package costmodel

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// settingCase is a scenario with one setting that has no effect (noEffect: the report's numbers
// are those of the scenario without it) or that contradicts the hardware.
type settingCase struct {
	name     string
	base     func(t *testing.T) model.Scenario
	set      func(s *model.Scenario)
	want     string // substring of the one warning the setting adds
	noEffect bool
}

func trainOn(gpu, intra string, gpus, tp, pp int) func(t *testing.T) model.Scenario {
	return func(t *testing.T) model.Scenario {
		s := scenario(t, "llama-2-7b", gpu, intra, gpus, tp, pp)
		s.Cluster.NICsPerNode = s.Cluster.GPUsPerNode
		return s
	}
}

func inferOn(gpus, tp, pp int) func(t *testing.T) model.Scenario {
	return func(t *testing.T) model.Scenario {
		s := trainOn("h100-sxm", "nvlink4", gpus, tp, pp)(t)
		s.Workload.Mode = model.Infer
		return s
	}
}

// v100FP16 is V100 in the format its tensor cores run.
func v100FP16(t *testing.T) model.Scenario {
	s := trainOn("v100-sxm", "nvlink2", 8, 8, 1)(t)
	s.Workload.Precision = model.FP16
	return s
}

func settingCases(t *testing.T) []settingCase {
	p := presets(t)
	link := func(id string) model.Link { return mustLink(t, p, id) }
	return []settingCase{
		{"ZeRO with DP 1", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Layout.ZeRO = 2 }, "ZeRO 2 has no effect with DP = 1", true},
		{"ZeRO 3 with DP 1", trainOn("h100-sxm", "nvlink4", 8, 4, 2), func(s *model.Scenario) { s.Layout.ZeRO = 3 }, "ZeRO 3 has no effect with DP = 1", true},
		{"serial DP with DP 1", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Layout.SerialDP = true }, "serial DP has no effect with DP = 1", true},
		{"sequence parallelism with TP 1", trainOn("h100-sxm", "nvlink4", 8, 1, 8), func(s *model.Scenario) { s.Layout.SequenceParallel = true }, "sequence parallelism has no effect with TP = 1", true},
		{"sequence parallelism with TP 1 in inference", inferOn(8, 1, 1), func(s *model.Scenario) { s.Layout.SequenceParallel = true }, "sequence parallelism has no effect with TP = 1", true},
		{"gpipe with PP 1", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Layout.Schedule = model.GPipe }, "schedule gpipe has no effect with PP = 1", true},
		{"zb-h1 with PP 1", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Layout.Schedule = model.ZBH1 }, "schedule zb-h1 has no effect with PP = 1", true},
		{"interleaved with PP 1", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 },
			"schedule interleaved (2 chunks) has no effect with PP = 1", true},
		{"recompute in inference", inferOn(8, 8, 1), func(s *model.Scenario) { s.Layout.Recompute = model.RecomputeFull }, "recompute full has no effect in inference", true},
		{"ZeRO in inference", inferOn(8, 4, 1), func(s *model.Scenario) { s.Layout.ZeRO = 1 }, "ZeRO 1 has no effect in inference", true},
		{"TP overlap with TP 1", trainOn("h100-sxm", "nvlink4", 8, 1, 8), func(s *model.Scenario) { s.Layout.TPOverlap = model.TPOverlapRing }, "TP overlap ring has no effect with TP = 1", true},
		{"TP overlap across nodes", trainOn("h100-sxm", "nvlink4", 16, 16, 1), func(s *model.Scenario) { s.Layout.TPOverlap = model.TPOverlapPipe }, "TP overlap pipe has no effect with TP = 16 across nodes", true},
		{"TP overlap without peer-to-peer", trainOn("rtx-4090", "pcie4", 8, 8, 1), func(s *model.Scenario) { s.Layout.TPOverlap = model.TPOverlapRing }, "TP overlap ring has no effect on rtx-4090", true},
		{"SP keep without SP", trainOn("h100-sxm", "nvlink4", 8, 4, 2), func(s *model.Scenario) { s.Layout.SPGather = model.SPGatherKeep }, "SP all-gather keep has no effect: without sequence parallelism", true},
		{"SP keep under full recompute", func(t *testing.T) model.Scenario {
			s := trainOn("h100-sxm", "nvlink4", 8, 4, 2)(t)
			s.Layout.SequenceParallel, s.Layout.Recompute = true, model.RecomputeFull
			return s
		}, func(s *model.Scenario) { s.Layout.SPGather = model.SPGatherKeep }, "full recompute redoes the forward", true},
		{"SP keep in inference", inferOn(8, 8, 1), func(s *model.Scenario) { s.Layout.SPGather = model.SPGatherKeep }, "SP all-gather keep has no effect in inference", true},
		{"offload in inference", inferOn(8, 8, 1), func(s *model.Scenario) { s.Layout.Offload = model.OffloadOptimizer }, "offload optimizer has no effect in inference", true},
		{"TP overlap in inference", inferOn(8, 8, 1), func(s *model.Scenario) { s.Layout.TPOverlap = model.TPOverlapRing }, "TP overlap ring has no effect in inference", true},
		{"serial DP in inference", inferOn(8, 4, 1), func(s *model.Scenario) { s.Layout.SerialDP = true }, "serial DP has no effect in inference", true},
		{"schedule in inference", inferOn(8, 4, 2), func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 },
			"schedule interleaved (2 chunks) has no effect in inference", true},
		{"inter link on one node", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Inter = link("roce-400") }, "inter link roce-400 has no effect", true},
		{"NICs on one node", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.NICsPerNode = 2 }, "2 NICs per node have no effect", true},
		{"intra link with one GPU per node", func(t *testing.T) model.Scenario {
			s := trainOn("h100-sxm", "nvlink4", 4, 1, 4)(t)
			s.Cluster.GPUsPerNode, s.Cluster.NICsPerNode = 1, 1
			return s
		}, func(s *model.Scenario) { s.Cluster.Intra = link("nvlink3") }, "intra link nvlink3 has no effect: there is one GPU per node", true},

		{"NVLink on an AMD GPU", trainOn("mi300x", "xgmi", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("nvlink4") },
			"intra link nvlink4 on mi300x: its GPUs are joined by xgmi, not nvlink4; set the intra link to xgmi", false},
		{"XGMI on an NVIDIA GPU", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("xgmi") },
			"intra link xgmi on h100-sxm: its GPUs are joined by nvlink4", false},
		{"another NVLink generation", trainOn("a100-sxm-80gb", "nvlink3", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("nvlink4") },
			"its GPUs are joined by nvlink3, not nvlink4", false},
		{"NVLink on a card without it", trainOn("l40s", "pcie4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("nvlink4") },
			"intra link nvlink4 on l40s: this PCIe card has no NVLink; its GPUs talk over pcie4", false},
		{"NVLink on an RTX 4090", trainOn("rtx-4090", "pcie4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("nvlink3") },
			"this PCIe card has no NVLink", false},
		{"an NVLink bridge for 8 cards", trainOn("a100-pcie-80gb", "pcie4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("nvlink3") },
			"an NVLink bridge joins 2 of these PCIe cards, not 8", false},
		{"a network inside a node", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) { s.Cluster.Intra = link("ib-ndr") },
			"intra link ib-ndr on h100-sxm: InfiniBand joins nodes", false},
		{"bf16 on V100", v100FP16, func(s *model.Scenario) { s.Workload.Precision = model.BF16 },
			"bf16 on v100-sxm: it has no BF16 tensor cores, so bf16 runs at its FP32 rate, 15.7 TFLOP/s; set precision fp16 (125 TFLOP/s", false},
		{"fp4 weights on H100", trainOn("h100-sxm", "nvlink4", 8, 8, 1), func(s *model.Scenario) {
			s.Workload.Mode, s.Workload.Requests, s.Workload.Weights = model.Infer, 8, "fp4"
		}, "weights fp4 on h100-sxm: it has no FP4 tensor cores", false},
		{"fp8 on A100", trainOn("a100-sxm-80gb", "nvlink3", 8, 8, 1), func(s *model.Scenario) { s.Workload.Precision = model.FP8 },
			"fp8 on a100-sxm-80gb: it has no FP8 tensor cores; the model runs fp8 at the bf16 rate (312 TFLOP/s)", false},
		{"fp8 on V100", v100FP16, func(s *model.Scenario) { s.Workload.Precision = model.FP8 },
			"fp8 on v100-sxm: it has no FP8 tensor cores; the model runs fp8 at the bf16 rate (15.7 TFLOP/s) and halves the bytes, which no kernel on it does; set precision fp16 (125 TFLOP/s", false},
	}
}

// TestSettingWarnings checks that each setting warns once in the report, that the scenario
// without it does not, and that a setting said to have no effect indeed changes no number.
func TestSettingWarnings(t *testing.T) {
	for _, tc := range settingCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base(t)
			with := base
			tc.set(&with)
			rb, rw := eval(t, base), eval(t, with)
			if n := countContaining(rb.Warnings, tc.want); n != 0 {
				t.Fatalf("the scenario without the setting warns %q:\n%s", tc.want, strings.Join(rb.Warnings, "\n"))
			}
			if n := countContaining(rw.Warnings, tc.want); n != 1 {
				t.Fatalf("%d warnings contain %q, want 1:\n%s", n, tc.want, strings.Join(rw.Warnings, "\n"))
			}
			if sw, sb := settingWarnings(with), settingWarnings(base); len(sw) != len(sb)+1 {
				t.Errorf("the setting adds %d setting warnings, want 1:\n%s", len(sw)-len(sb), strings.Join(sw, "\n"))
			}
			same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
			if tc.noEffect && (!same(rw.StepTime, rb.StepTime) || rw.Memory != rb.Memory || !same(rw.Breakdown.DPComm, rb.Breakdown.DPComm) ||
				!same(rw.Breakdown.TPComm, rb.Breakdown.TPComm) || !same(rw.Breakdown.Bubble, rb.Breakdown.Bubble)) {
				t.Errorf("said to have no effect, but step %g s → %g s, memory %g → %g bytes, breakdown %+v → %+v",
					rb.StepTime, rw.StepTime, rb.Memory.Total, rw.Memory.Total, rb.Breakdown, rw.Breakdown)
			}
		})
	}
}

func countContaining(ws []string, sub string) int {
	n := 0
	for _, w := range ws {
		if strings.Contains(w, sub) {
			n++
		}
	}
	return n
}

// TestSettingWarningsQuietOnDefaultsAndTour: the warnings are for settings a user chose, so the
// tour's scenarios (whose lessons are other warnings) and the default settings raise none.
func TestSettingWarningsQuietOnDefaultsAndTour(t *testing.T) {
	p := presets(t)
	for _, name := range assets.TourSteps() {
		sf, err := assets.TourScenario(name, p)
		if err != nil {
			t.Fatal(err)
		}
		if w := settingWarnings(sf.Scenario); len(w) > 0 {
			t.Errorf("tour/%s: %q", name, w)
		}
	}
	for _, g := range p.GPUs {
		if !g.TensorCores(model.BF16) {
			continue // v100-sxm: bf16, the default, contradicts it (TestSettingWarnings)
		}
		s := scenario(t, "llama-2-7b", g.ID, g.NativeLink, 16, 8, 2)
		s.Cluster.NICsPerNode = s.Cluster.GPUsPerNode
		for _, mode := range []model.Mode{model.Train, model.Infer} {
			s.Workload.Mode = mode
			if w := settingWarnings(s); len(w) > 0 {
				t.Errorf("%s, %s, native link: %q", g.ID, mode, w)
			}
		}
	}
}

// TestProbedLinksAreNoContradiction: what a probe finds is the hardware. A share of the native
// NVLink ("nvlink4-x12"), the links of a GPU that matches no preset, and a lone GPU on its host
// bus do not warn; a link typed for a lone GPU that is neither does.
func TestProbedLinksAreNoContradiction(t *testing.T) {
	p := presets(t)
	h100 := trainOn("h100-sxm", "nvlink4", 8, 8, 1)(t)
	share := h100
	share.Cluster.Intra.ID = "nvlink4-x12"
	generic := trainOn("l40s", "pcie4", 8, 8, 1)(t)
	generic.Cluster.GPU.ID = "generic-l40s"
	generic.Cluster.Intra = mustLink(t, p, "nvlink4")
	lone := trainOn("h100-sxm", "nvlink4", 1, 1, 1)(t)
	lone.Cluster.Intra = mustLink(t, p, "pcie5")
	for name, s := range map[string]model.Scenario{"share": share, "generic": generic, "lone GPU on PCIe": lone} {
		if w := ScenarioWarnings(s); len(w) > 0 {
			t.Errorf("%s: %q", name, w)
		}
	}
	lone.Cluster.Intra = mustLink(t, p, "nvlink3")
	if w := ScenarioWarnings(lone); countContaining(w, "intra link nvlink3 has no effect") != 1 {
		t.Errorf("nvlink3 on one GPU: %q", w)
	}
}

// TestBridgedPairIsNoContradiction: two PCIe cards joined by their NVLink bridge are real.
func TestBridgedPairIsNoContradiction(t *testing.T) {
	p := presets(t)
	for _, g := range p.GPUs {
		s := scenario(t, "llama-2-7b", g.ID, "nvlink3", 2, 2, 1)
		s.Cluster.NICsPerNode = 2
		bridged := g.NVLinkBridge && g.NativeLink == g.PCIeLink
		got := countContaining(ScenarioWarnings(s), "intra link nvlink3")
		switch {
		case g.NativeLink == "nvlink3" || bridged:
			if got != 0 {
				t.Errorf("%s: a pair over nvlink3 warns: %q", g.ID, ScenarioWarnings(s))
			}
		case got != 1:
			t.Errorf("%s: a pair over nvlink3 does not warn: %q", g.ID, ScenarioWarnings(s))
		}
	}
	for _, id := range []string{"a100-pcie-80gb", "a100-pcie-40gb", "h100-pcie", "rtx-3090"} {
		if g := mustGPU(t, p, id); !g.NVLinkBridge {
			t.Errorf("%s takes an NVLink bridge (reference §1.2)", id)
		}
	}
	for _, id := range []string{"l40s", "rtx-4090", "h100-sxm", "mi300x"} {
		if g := mustGPU(t, p, id); g.NVLinkBridge {
			t.Errorf("%s: no NVLink bridge (reference §1.2)", id)
		}
	}
}

// TestSearchFix: with sizes fixed, every candidate has them, even those rejected before any
// evaluation (llama-2-13b's 40 heads rule out TP 16), and none of the full search's is lost.
func TestSearchFix(t *testing.T) {
	for _, id := range []string{"llama-2-7b", "llama-2-13b"} {
		t.Run(id, func(t *testing.T) { testSearchFix(t, id) })
	}
}

func testSearchFix(t *testing.T, modelID string) {
	base := scenario(t, modelID, "h100-sxm", "nvlink4", 16, 8, 2)
	base.Cluster.NICsPerNode = 8
	all, err := Search(base, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fix  SearchFix
		keep func(l model.Layout) bool
	}{
		{"tp", SearchFix{TP: 4}, func(l model.Layout) bool { return l.TP == 4 }},
		{"pp", SearchFix{PP: 2}, func(l model.Layout) bool { return l.PP == 2 }},
		{"dp", SearchFix{DP: 2}, func(l model.Layout) bool { return l.DP == 2 }},
		{"tp and pp", SearchFix{TP: 2, PP: 4}, func(l model.Layout) bool { return l.TP == 2 && l.PP == 4 }},
		{"micro-batch", SearchFix{MicroBatch: 2}, func(l model.Layout) bool { return l.MicroBatch == 2 }},
		{"gpipe", SearchFix{Schedule: model.GPipe, HasSchedule: true},
			func(l model.Layout) bool {
				return l.PP == 1 && l.Schedule == model.OneFOneB || l.Schedule == model.GPipe
			}},
		{"interleaved", SearchFix{Schedule: model.Interleaved, HasSchedule: true, PP: 4},
			func(l model.Layout) bool { return l.PP == 4 && l.Schedule == model.Interleaved && l.Chunks > 1 }},
		{"chunks", SearchFix{Chunks: 3, PP: 2}, func(l model.Layout) bool { return l.PP == 2 && l.Schedule == model.Interleaved && l.Chunks == 3 }},
		{"no interleaving", SearchFix{Chunks: 1}, func(l model.Layout) bool { return l.Chunks == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Search(base, SearchOptions{Fix: tc.fix})
			if err != nil {
				t.Fatal(err)
			}
			if res.Feasible == 0 {
				t.Fatalf("no feasible layout with %+v", tc.fix)
			}
			for _, c := range res.Candidates {
				if !tc.keep(c.Layout) {
					t.Fatalf("layout %+v breaks %+v", c.Layout, tc.fix)
				}
			}
			// Every layout of the full search that keeps the sizes is in the narrowed one
			// (a fixed micro-batch or schedule may add some the sweep leaves out).
			for _, c := range all.Candidates {
				if tc.keep(c.Layout) && c.Layout.TP > 0 && !slices.ContainsFunc(res.Candidates, func(d Candidate) bool { return d.Layout == c.Layout }) {
					t.Errorf("layout %+v of the full search is missing", c.Layout)
				}
			}
		})
	}
}

func TestSearchFixBadInput(t *testing.T) {
	base := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 16, 8, 2)
	infer := base
	infer.Workload.Mode = model.Infer
	forty := base
	forty.Arch = archByID(t, "llama-2-13b") // 40 heads
	for _, tc := range []struct {
		name  string
		base  model.Scenario
		fix   SearchFix
		field string
		want  string
	}{
		{"tp does not divide gpus", base, SearchFix{TP: 3}, "tp", "must divide gpus (16)"},
		{"tp does not divide heads", forty, SearchFix{TP: 16}, "tp", "TP 16 does not divide the 40 heads"},
		{"pp does not divide gpus / tp", base, SearchFix{TP: 8, PP: 4}, "pp", "must divide gpus / tp (16 / 8)"},
		{"pp above layers", base, SearchFix{PP: 64}, "pp", "must be at most layers (32)"},
		{"dp does not divide", base, SearchFix{TP: 4, DP: 8}, "dp", "must divide gpus / tp (16 / 4)"},
		{"sizes do not multiply to gpus", base, SearchFix{TP: 2, PP: 2, DP: 2}, "dp", "tp × pp × dp must equal gpus"},
		{"chunks without interleaving", base, SearchFix{Chunks: 2, Schedule: model.ZBH1, HasSchedule: true}, "chunks", "must be 1 unless schedule is interleaved"},
		{"interleaved with one chunk", base, SearchFix{Chunks: 1, Schedule: model.Interleaved, HasSchedule: true}, "chunks", "needs 2 chunks or more"},
		{"schedule with pp 1", base, SearchFix{PP: 1, Schedule: model.GPipe, HasSchedule: true}, "pp", "no pipeline"},
		{"schedule in inference", infer, SearchFix{Schedule: model.GPipe, HasSchedule: true}, "schedule", "inference has no pipeline schedule"},
		{"chunks in inference", infer, SearchFix{Chunks: 2}, "chunks", "inference has no interleaving"},
		{"huge micro-batch", base, SearchFix{MicroBatch: model.MaxBatch + 1}, "micro-batch", "must be between 1 and"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Search(tc.base, SearchOptions{Fix: tc.fix})
			ve, ok := err.(model.ValidationError)
			if !ok || len(ve) != 1 || ve[0].Field != tc.field || !strings.Contains(ve[0].Allowed, tc.want) {
				t.Fatalf("error %v, want one on %s saying %q", err, tc.field, tc.want)
			}
			if ve.OnlyLayout() {
				t.Errorf("a fixed size the user chose is marked a layout problem, which search would skip")
			}
		})
	}
}

// TestSearchWarnings: Search reports once what has no effect on any layout it tries.
func TestSearchWarnings(t *testing.T) {
	one := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 8, 1)
	one.Cluster.NICsPerNode = 8
	one.Layout.ZeRO = 1
	res, err := Search(one, SearchOptions{Fix: SearchFix{DP: 1, HasZeRO: true}})
	if err != nil {
		t.Fatal(err)
	}
	if countContaining(res.Warnings, "ZeRO 1 has no effect with DP = 1") != 1 {
		t.Errorf("every layout has DP = 1, but the search does not say the ZeRO given does nothing: %q", res.Warnings)
	}
	// Not given, ZeRO is swept: with DP = 1 only stage 0 is tried, and nothing is said.
	if res, err = Search(one, SearchOptions{Fix: SearchFix{DP: 1}}); err != nil {
		t.Fatal(err)
	}
	if countContaining(res.Warnings, "ZeRO") != 0 || res.Candidates[0].Layout.ZeRO != 0 {
		t.Errorf("ZeRO swept with DP = 1: best has ZeRO %d, warnings %q", res.Candidates[0].Layout.ZeRO, res.Warnings)
	}
	res, err = Search(one, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if countContaining(res.Warnings, "ZeRO") != 0 {
		t.Errorf("some layouts have DP > 1, yet the search warns about ZeRO: %q", res.Warnings)
	}
	one.Cluster.GPU = mustGPU(t, presets(t), "mi300x")
	if res, err = Search(one, SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if countContaining(res.Warnings, "intra link nvlink4 on mi300x") != 1 {
		t.Errorf("the search does not warn about NVLink on mi300x: %q", res.Warnings)
	}
}

func TestSearchMaxMicroBatchIsBounded(t *testing.T) {
	s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 8, 1)
	res, err := Search(s, SearchOptions{MaxMicroBatch: int(^uint(0) >> 1), MaxChunks: int(^uint(0) >> 1)})
	if err != nil || res.Feasible == 0 {
		t.Fatalf("search with huge bounds: %v, %d feasible", err, res.Feasible)
	}
}
