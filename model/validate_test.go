package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// validScenario is a hand-built, valid training scenario: Llama-3-70B's shape on two 8-GPU
// nodes with TP 8 inside a node and PP 2 across the nodes. The hardware numbers are plausible
// H100/NVLink 4/NDR values; validation only needs them positive and in range.
func validScenario() Scenario {
	return Scenario{
		Arch: Arch{ID: "llama-3-70b", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672,
			Vocab: 128256, GatedMLP: true},
		Cluster: Cluster{
			GPU: GPU{ID: "test-gpu", PeakBF16: 989e12, PeakFP16: 989e12, PeakFP8: 1979e12, PeakFP32: 67e12,
				MemoryBytes: 80 * GiB, HBMBandwidth: 3.35e12, ComputeEff: 0.8, MemoryEff: 0.85},
			GPUs: 16, GPUsPerNode: 8,
			Intra:       Link{ID: "nvlink4", Kind: NVLink, Bandwidth: 450e9, Latency: 3e-6, Efficiency: 0.74},
			Inter:       Link{ID: "ib-ndr", Kind: InfiniBand, Bandwidth: 50e9, Latency: 5e-6, Efficiency: 0.85},
			NICsPerNode: 8,
		},
		Layout:       Layout{TP: 8, PP: 2, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: OneFOneB},
		Workload:     Workload{Mode: Train, Seq: 4096, GlobalBatch: 16, Precision: BF16},
		ReserveBytes: DefaultReserveBytes,
	}
}

// asValidation unwraps err into a ValidationError or fails.
func asValidation(t *testing.T, err error) ValidationError {
	t.Helper()
	var ve ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a ValidationError, got %T %v", err, err)
	}
	return ve
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	s := validScenario()
	s.Cluster.GPUs = 0                                  // 1: no GPUs
	s.Layout.TP, s.Layout.PP, s.Layout.DP = 3, 2, 1     // 2: TP 3 does not divide 64 heads
	s.Workload.GlobalBatch, s.Layout.MicroBatch = 63, 2 // 3: 63 sequences do not split into 2s
	s.Layout.Chunks = 2                                 // 4: chunks > 1 with 1F1B
	ve := asValidation(t, s.Validate())

	fields := ve.Fields()
	for _, f := range []string{"gpus", "tp", "batch", "chunks"} {
		if !slices.Contains(fields, f) {
			t.Errorf("fields %v do not name %q", fields, f)
		}
	}
	// Each message names the field, the value and what is allowed: "field = value: allowed".
	// The numbers are the scenario's: MaxGPUs = 2^20 = 1048576; divisors of 64; the batch must
	// be a multiple of micro-batch 2 × dp 1 = 2.
	msgs := []string{
		"gpus = 0: must be between 1 and 1048576",
		"tp = 3: must divide heads (64): one of 1, 2, 4, 8, 16, 32, 64",
		"tp = 3: must divide kv-heads (8) or be a multiple of it",
		"tp = 3: must divide ffn (28672)", // 28672 = 2^12 · 7, not a multiple of 3
		"batch = 63: global batch must split into micro-batches of 2 × dp 1: a multiple of 2",
		"chunks = 2: must be 1 unless schedule is interleaved",
	}
	var all []string
	for _, e := range ve {
		all = append(all, e.Error())
	}
	for _, want := range msgs {
		found := false
		for _, m := range all {
			found = found || strings.HasPrefix(m, want)
		}
		if !found {
			t.Errorf("no field error starts %q; got:\n  %s", want, strings.Join(all, "\n  "))
		}
	}
	// The joined message carries all of them.
	full := ve.Error()
	if !strings.HasPrefix(full, "invalid scenario: ") {
		t.Errorf("message %q lacks the prefix", full)
	}
	for _, want := range msgs {
		if !strings.Contains(full, want) {
			t.Errorf("joined message lacks %q", want)
		}
	}
	// gpus is a cluster problem, the others are problems of the split.
	for _, e := range ve {
		if wantLayout := e.Field != "gpus"; e.Layout != wantLayout {
			t.Errorf("%s: Layout = %v, want %v", e.Field, e.Layout, wantLayout)
		}
	}
	if ve.OnlyLayout() {
		t.Error("OnlyLayout with a gpus error among them")
	}
}

func TestValidateCases(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*Scenario)
		fields []string // exact list of fields reported, in order; nil: valid
		msgs   []string // substrings of the joined message
		layout bool     // want OnlyLayout
	}{
		{name: "base scenario is valid", edit: func(*Scenario) {}},
		{
			name: "a PCIe path, staging and a mesh on links that cannot have them",
			edit: func(s *Scenario) {
				s.Cluster.Intra.PCIePath, s.Cluster.Intra.Staged = PathSocket, true // intra is NVLink here
				s.Cluster.Inter.MeshLinks = -1
			},
			fields: []string{"intra.pcie_path", "intra.staged", "inter.mesh_links"},
			msgs: []string{"intra.pcie_path = socket: applies to PCIe links only; this one is nvlink",
				"intra.staged = true: applies to PCIe links only", "inter.mesh_links = -1: must be 0 (no mesh) or 1 to 1023"},
		},
		{
			name:   "a negative boost clock",
			edit:   func(s *Scenario) { s.Cluster.GPU.BoostClockMHz = -1410 },
			fields: []string{"gpu.boost_clock_mhz"},
			msgs:   []string{"gpu.boost_clock_mhz = -1410: must be 0 (not known) or a finite number of MHz above 0"},
		},
		{
			name:   "negative kernel floor cycles",
			edit:   func(s *Scenario) { s.Cluster.GPU.KernelFloorCycles = -21500 },
			fields: []string{"gpu.kernel_floor_cycles"},
			msgs:   []string{"gpu.kernel_floor_cycles = -21500: must be 0 (the default) or a number of cycles above 0, at most 1e6"},
		},
		{
			name:   "a matmul streaming efficiency above 1",
			edit:   func(s *Scenario) { s.Cluster.GPU.GEMMMemoryEff = 1.5 },
			fields: []string{"gpu.gemm_memory_eff"},
			msgs:   []string{"gpu.gemm_memory_eff = 1.5: must be 0 (the memory efficiency) or a fraction in (0, 1]"},
		},
		{
			name:   "a PCIe path out of range",
			edit:   func(s *Scenario) { s.Cluster.Intra.Kind, s.Cluster.Intra.PCIePath = PCIe, 3 },
			fields: []string{"intra.pcie_path"},
			msgs:   []string{"intra.pcie_path = 3: must be one of switch, host, socket"},
		},
		{
			// Llama-3-70B has 8 KV heads; TP 16 divides the 64 query heads and is 2 × 8, so
			// every KV head is held by two GPUs: allowed.
			name: "tp above kv heads and a multiple of them",
			edit: func(s *Scenario) { s.Layout.TP, s.Layout.PP, s.Layout.DP = 16, 1, 1 },
		},
		{
			// 96 heads of 128 (h = 12288), 12 KV heads, TP 8: 8 divides 96 and ffn 49152, but
			// 12 mod 8 = 4 and 8 mod 12 = 8, so KV heads can neither split nor replicate evenly.
			name: "tp neither divides nor is a multiple of kv heads",
			edit: func(s *Scenario) {
				s.Arch.Hidden, s.Arch.Heads, s.Arch.KVHeads, s.Arch.FFN = 12288, 96, 12, 49152
			},
			fields: []string{"tp"},
			msgs:   []string{"tp = 8: must divide kv-heads (12) or be a multiple of it"},
			layout: true,
		},
		{
			// 8 layers, PP 4 × 3 chunks = 12 virtual stages > 8.
			name: "interleaved deeper than the layers",
			edit: func(s *Scenario) {
				s.Arch.Layers = 8
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 4, 4, 1
				s.Layout.Schedule, s.Layout.Chunks = Interleaved, 3
			},
			fields: []string{"chunks"},
			msgs:   []string{"chunks = 3: pp × chunks (4 × 3) must be at most layers (8)"},
			layout: true,
		},
		{
			// m = 6 / (1 · 1) = 6 micro-batches, not a multiple of PP 4.
			name: "interleaved micro-batches not a multiple of pp",
			edit: func(s *Scenario) {
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 4, 4, 1
				s.Layout.Schedule, s.Layout.Chunks = Interleaved, 2
				s.Workload.GlobalBatch = 6
			},
			fields: []string{"micro-batches"},
			msgs:   []string{"micro-batches = 6: must be a multiple of pp (4) for the interleaved schedule"},
			layout: true,
		},
		{
			// m = 8 is a multiple of PP 4: accepted.
			name: "interleaved with micro-batches a multiple of pp",
			edit: func(s *Scenario) {
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 4, 4, 1
				s.Layout.Schedule, s.Layout.Chunks = Interleaved, 2
				s.Workload.GlobalBatch = 8
			},
		},
		{
			// 80 = 26 + 27 + 27: the split is uneven but allowed (24 GPUs = 3 nodes of 8).
			name: "uneven layer split 80 over pp 3",
			edit: func(s *Scenario) { s.Cluster.GPUs, s.Layout.PP = 24, 3 },
		},
		{
			name:   "pp above layers",
			edit:   func(s *Scenario) { s.Arch.Layers = 8; s.Layout.TP, s.Layout.PP = 1, 16 },
			fields: []string{"pp"},
			msgs:   []string{"pp = 16: must be at most layers (8)"},
			layout: true,
		},
		{
			name:   "tp × pp × dp differs from gpus",
			edit:   func(s *Scenario) { s.Layout.DP = 2 },
			fields: []string{"dp"},
			msgs:   []string{"dp = 2: tp × pp × dp must equal gpus: 8 × 2 × 2 ≠ 16"},
			layout: true,
		},
		{
			name:   "sequence parallelism with seq not a multiple of tp",
			edit:   func(s *Scenario) { s.Layout.SequenceParallel, s.Workload.Seq = true, 4095 },
			fields: []string{"seq"},
			msgs:   []string{"seq = 4095: must be a multiple of tp (8) with sequence parallelism"},
			layout: true,
		},
		{
			// Serving hands requests to the replicas one by one: 12 over dp 8 is fine; a rate and
			// a closed loop together are not, nor an fp32 KV cache or an unknown weight format.
			name: "serving workload",
			edit: func(s *Scenario) {
				s.Workload = Workload{Mode: Infer, PromptTokens: 1024, GenTokens: 128, Requests: 12, Precision: BF16,
					Rate: 4, Concurrency: 8, KVCache: "fp32", Weights: "int3x", GenDist: &LengthDist{Kind: Uniform, Min: 10, Max: 5}}
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 2, 1, 8
			},
			fields: []string{"concurrency", "weights", "kv-cache", "gen"},
			msgs: []string{"concurrency = 8: give --rate (open loop) or --concurrency (closed loop), not both",
				"weights = int3x: must be one of bf16, fp16, fp8, int8, int4, fp4, mxfp4, or bits per weight from 1 to 32",
				"kv-cache = fp32: must be bf16, fp16 or fp8",
				"gen = uniform: gen: min..max 10..5: need 1 ≤ min ≤ max ≤ 2097152"},
		},
		{
			// A rate schedule and a shared system prompt are checked as the workload file checks
			// them: the stage's key, its value, what is allowed.
			name: "serving rate schedule",
			edit: func(s *Scenario) {
				st := RateStages{{Rate: 1, DurationS: 60}, {Rate: 5, DurationS: 30, Requests: 10}}
				s.Workload = Workload{Mode: Infer, PromptTokens: 1024, GenTokens: 128, Requests: 12, Precision: BF16,
					SystemPrompt: -1, SystemShare: 2, Stages: &st, Concurrency: 4}
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 8, 1, 2
			},
			fields: []string{"system_prompt", "system_share", "stages[2]", "concurrency"},
			msgs: []string{"system_prompt = -1: must be 0 to 2097152 tokens", "system_share = 2: must be a share of the requests from 0 to 1",
				"stages[2] = duration 30s, requests 10: give duration or requests, one of the two",
				"concurrency = 4: a rate schedule (stages) sends Poisson arrivals: leave --concurrency out"},
		},
		{
			name: "serving rate schedule too long",
			edit: func(s *Scenario) {
				st := make(RateStages, MaxRateStages+1)
				s.Workload = Workload{Mode: Infer, PromptTokens: 1024, GenTokens: 128, Requests: 12, Precision: BF16, Stages: &st}
				s.Layout.TP, s.Layout.PP, s.Layout.DP = 8, 1, 2
			},
			fields: []string{"stages"},
			msgs:   []string{"stages = 65: at most 64 stages"},
		},
		{
			name: "prefix-cached tokens negative",
			edit: func(s *Scenario) {
				s.Workload = Workload{Mode: Infer, PromptTokens: 1024, GenTokens: 128, Requests: 12, Precision: BF16, PrefixCached: -1}
			},
			fields: []string{"prefix-cached"},
			msgs:   []string{"prefix-cached = -1: must be a number of prompt tokens from 0 to 16777216"},
		},
		{
			name: "scheduler recv interval out of range",
			edit: func(s *Scenario) {
				s.Workload = Workload{Mode: Infer, PromptTokens: 1024, GenTokens: 128, Requests: 12, Precision: BF16, SchedulerRecvInterval: 1001}
			},
			fields: []string{"scheduler-recv-interval"},
			msgs:   []string{"scheduler-recv-interval = 1001: must be 0 to 1000 decode steps (0 or 1: every step)"},
		},
		{
			// A model error: not a layout problem, so Search must not skip it as a bad split.
			// hidden = 0 fails its range; "heads must divide hidden" is not checked on top.
			name:   "hidden zero is not a layout problem",
			edit:   func(s *Scenario) { s.Arch.Hidden = 0 },
			fields: []string{"hidden"},
			msgs:   []string{"hidden = 0: must be between 1 and 262144"},
			layout: false,
		},
		{
			name:   "gpus not a multiple of the node size",
			edit:   func(s *Scenario) { s.Cluster.GPUs, s.Layout.TP, s.Layout.PP, s.Layout.DP = 12, 4, 3, 1 },
			fields: []string{"gpus"},
			msgs:   []string{"gpus = 12: must be a multiple of gpus-per-node (8) when it spans nodes"},
			layout: false,
		},
		{
			name:   "kv heads must divide heads",
			edit:   func(s *Scenario) { s.Arch.KVHeads = 6; s.Layout.TP = 2; s.Layout.PP = 8 },
			fields: []string{"kv-heads"},
			msgs:   []string{"kv-heads = 6: must divide heads (64): one of 1, 2, 4, 8, 16, 32, 64"},
			layout: false,
		},
		{
			name:   "moe top-k above experts",
			edit:   func(s *Scenario) { s.Arch.Experts, s.Arch.TopK = 8, 9 },
			fields: []string{"top-k"},
			msgs:   []string{"top-k = 9: must be between 1 and experts (8)"},
			layout: false,
		},
		{
			// 5040 = 2^4·3^2·5·7 has 5·3·2·2 = 60 divisors: the list shows the first six and
			// the last three (5040 / 3 = 1680, 5040 / 2 = 2520, 5040).
			name: "long divisor lists are shortened",
			edit: func(s *Scenario) {
				s.Arch.Hidden, s.Arch.Heads, s.Arch.KVHeads, s.Arch.FFN = 161280, 5040, 5040, 4*161280
				s.Cluster.GPUs, s.Layout.TP, s.Layout.PP, s.Layout.DP = 32, 32, 1, 1
			},
			// 5040 / 32 = 157.5: TP 32 divides neither heads nor kv-heads (both 5040); it does
			// divide ffn = 645120 = 32 · 20160.
			fields: []string{"tp", "tp"},
			msgs:   []string{"tp = 32: must divide heads (5040): one of 1, 2, 3, 4, 5, 6, …, 1680, 2520, 5040"},
			layout: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := validScenario()
			tc.edit(&s)
			err := s.Validate()
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			ve := asValidation(t, err)
			if got := ve.Fields(); !slices.Equal(got, tc.fields) {
				t.Errorf("fields %v, want %v (%v)", got, tc.fields, err)
			}
			for _, m := range tc.msgs {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q lacks %q", err, m)
				}
			}
			if ve.OnlyLayout() != tc.layout {
				t.Errorf("OnlyLayout = %v, want %v", ve.OnlyLayout(), tc.layout)
			}
		})
	}
}

func TestArchValidate(t *testing.T) {
	good := validScenario().Arch
	if err := good.Validate(); err != nil {
		t.Fatalf("llama-3-70b shape: %v", err)
	}
	bad := good
	bad.Layers, bad.Vocab = 0, 0
	ve := asValidation(t, bad.Validate())
	if got, want := ve.Fields(), []string{"layers", "vocab"}; !slices.Equal(got, want) {
		t.Errorf("fields %v, want %v", got, want)
	}
}

func TestFieldErrorMessage(t *testing.T) {
	e := &FieldError{Field: "tp", Value: 3, Allowed: "must divide heads (64)"}
	if got, want := e.Error(), "tp = 3: must divide heads (64)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	v := ValidationError{e, {Field: "pp", Value: 0, Allowed: "must be between 1 and 4096"}}
	if got, want := v.Error(), "invalid scenario: tp = 3: must divide heads (64); pp = 0: must be between 1 and 4096"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if v.OnlyLayout() {
		t.Error("OnlyLayout true with unmarked errors")
	}
	v[0].Layout, v[1].Layout = true, true
	if !v.OnlyLayout() {
		t.Error("OnlyLayout false with only layout errors")
	}
}

func TestDivisors(t *testing.T) {
	cases := []struct {
		n    int
		want []int
	}{
		{1, []int{1}},
		{12, []int{1, 2, 3, 4, 6, 12}},
		{64, []int{1, 2, 4, 8, 16, 32, 64}},
		{13, []int{1, 13}},
		{0, nil},
		{-4, nil},
	}
	for _, tc := range cases {
		if got := Divisors(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Divisors(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// Found a bug: Divisors used to stop looking once i passed 2^16 (the `if i > 1<<16 { break }`
	// in Divisors), so for n above 65536 the largest divisors, n itself included, are missing,
	// although the doc comment promises every divisor. n = 2^17 has the 18 divisors 2^0 … 2^17;
	// the code returns 17 of them, without 131072. (Search calls Divisors(gpus) and
	// model.MaxGPUs is 2^20.)
	t.Run("n above 2^16", func(t *testing.T) {
		got := Divisors(1 << 17)
		if len(got) != 18 || got[len(got)-1] != 1<<17 {
			t.Errorf("Divisors(2^17) = %v, want the 18 powers of two up to 131072", got)
		}
	})
}

// A long value is shown cut, with its length; a short one whole; a cut never splits a character.
func TestShorten(t *testing.T) {
	if got := Shorten("llama-3-70b"); got != "llama-3-70b" {
		t.Errorf("short value changed: %q", got)
	}
	got := Shorten(strings.Repeat("é", 10000))
	if want := strings.Repeat("é", MaxShown) + "… (10000 characters)"; got != want {
		t.Errorf("got %q", got)
	}
	fe := &FieldError{Field: "model", Value: strings.Repeat("x", 10000), Allowed: "unknown model"}
	if msg := fe.Error(); len(msg) > 200 || !strings.Contains(msg, "(10000 characters): unknown model") {
		t.Errorf("FieldError: %.300s", msg)
	}
}
