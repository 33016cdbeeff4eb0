package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Published MoE training throughput on H100 SXM (bf16, sequences of 4096, 8 GPUs a node on
// NVLink 4 and eight 400 Gb/s NDR NICs), as Megatron-core and NeMo report it, and the checks of
// validate's "moe" group. Cited in docs/references.md §0 ([MCR], [MMZ], [NAM]).
//
// Fitted and held out: DefaultEPImbalance was set on the Mixtral 8×22B pair ([MMZ], dropless
// against forced balance): their ratio is fitted, so those two rows are not hold-outs of the
// imbalance (the forced-balance row runs with --ep-imbalance 1 and its level is still held out
// of everything else). The Mixtral 8×7B and Qwen3-30B-A3B rows are hold-outs: nothing was set
// on them. Each row's settings are its source's recipe where it gives them (MMZ's scripts: SP,
// the distributed optimizer, --tp-comm-overlap in bf16, no recompute; NAM's benchmark config:
// full activation checkpointing, balanced routing), the rest marked U in its Notes.
type MoETrainRun struct {
	ID, Source string
	Model      string // preset ID; Arch overrides it when set
	Arch       model.Arch
	GPUs       int
	TP, PP, EP int
	Chunks     int // virtual pipeline stages (interleaved), 1 otherwise
	MicroBatch int
	Batch      int
	SP         bool
	ZeRO       int // 1: Megatron's distributed optimizer; 3: FSDP
	Recompute  model.Recompute
	Imbalance  float64 // --ep-imbalance: 1 for routing forced to balance; 0: the default
	TPOverlap  bool    // Megatron's --tp-comm-overlap (the model's --tp-overlap ring)
	// Measured: model TFLOP/s per GPU (Megatron's count) and trained tokens/s per GPU, 0 where
	// not published. A row with tokens/s is checked on them alone: its framework's FLOP count
	// is not Megatron's (NAM: 277 TFLOP/s over 12,040 tok/s is 23.0 GFLOP a token, the model's
	// count for Qwen3-30B-A3B at 4096 is 27.8).
	TFLOPS, TokS float64
	Fitted       bool // the row the default imbalance was set on
	// Miss says why the model is outside the tolerance on this row (kept as measured, shown as
	// a miss in validate, and TestMoEChecks holds that it still is).
	Miss  string
	Notes string // assumptions (U) and what differs from the run
}

// mixtral8x22b is Mixtral 8×22B as Megatron-MoE-ModelZoo's config trains it: 56 layers, hidden
// 6144, 48 heads over 8 KV groups, expert FFN 16384, 8 experts top-2, vocabulary 32768 [MMZ].
var mixtral8x22b = model.Arch{ID: "mixtral-8x22b", Layers: 56, Hidden: 6144, Heads: 48, KVHeads: 8,
	FFN: 16384, Vocab: 32768, GatedMLP: true, MaxSeq: 65536, Experts: 8, TopK: 2}

// MoETrainRuns are the rows of validate's moe group.
func MoETrainRuns() []MoETrainRun {
	mzu := "layout from Megatron-MoE-ModelZoo's runtime.conf and model config (U: the README's figure names no layout); dropless, aux-loss routing; no recompute"
	return []MoETrainRun{
		{ID: "mcr-mixtral-8x7b", Source: "MCR", Model: "mixtral-8x7b", GPUs: 64, TP: 1, PP: 4, EP: 8, Chunks: 8,
			MicroBatch: 1, Batch: 256, SP: true, ZeRO: 1, TFLOPS: 468,
			Notes: "MCore v0.9, bf16; " + mzu},
		{ID: "mmz-mixtral-8x22b-dropless", Source: "MMZ", Arch: mixtral8x22b, GPUs: 128, TP: 2, PP: 8, EP: 8, Chunks: 7,
			MicroBatch: 1, Batch: 256, SP: true, ZeRO: 1, TPOverlap: true, TFLOPS: 445, Fitted: true,
			Notes: "dropless, aux-loss routing: the default imbalance was set on this row and the next"},
		{ID: "mmz-mixtral-8x22b-balanced", Source: "MMZ", Arch: mixtral8x22b, GPUs: 128, TP: 2, PP: 8, EP: 8, Chunks: 7,
			MicroBatch: 1, Batch: 256, SP: true, ZeRO: 1, TPOverlap: true, Imbalance: 1, TFLOPS: 465, Fitted: true,
			Notes: "--moe-router-force-load-balancing: imbalance 1 (its level is held out; its ratio to the dropless row is fitted)"},
		{ID: "nam-qwen3-30b-a3b", Source: "NAM", Model: "qwen3-30b-a3b", GPUs: 8, TP: 1, PP: 1, EP: 8, Chunks: 1,
			MicroBatch: 4, Batch: 512, ZeRO: 3, Recompute: model.RecomputeFull, Imbalance: 1, TFLOPS: 277, TokS: 12040,
			Notes: "NeMo AutoModel's benchmark config: FSDP2 over 8 (ZeRO 3), EP 8, TE + DeepEP, activation_checkpointing true (full recompute), fake_balanced_gate true (imbalance 1)"},
	}
}

// MoEScenario is the training scenario of a row.
func MoEScenario(r MoETrainRun, p ServePresets) (model.Scenario, error) {
	a := r.Arch
	if r.Model != "" {
		var err error
		if a, err = p.Model(r.Model); err != nil {
			return model.Scenario{}, err
		}
	}
	g, intra, inter, err := parts(p, "h100-sxm", "nvlink4", "ib-ndr")
	if err != nil {
		return model.Scenario{}, err
	}
	sched := model.OneFOneB
	if r.Chunks > 1 {
		sched = model.Interleaved
	}
	pp := r.PP
	dp := r.GPUs / (r.TP * pp)
	tpo := model.TPOverlapNone
	if r.TPOverlap {
		tpo = model.TPOverlapRing
	}
	return model.Scenario{
		Arch: a,
		Cluster: model.Cluster{GPU: g, GPUs: r.GPUs, GPUsPerNode: 8, Intra: intra, Inter: inter,
			NICsPerNode: 8},
		Layout: model.Layout{TP: r.TP, PP: pp, DP: dp, Chunks: max(r.Chunks, 1), MicroBatch: r.MicroBatch,
			Schedule: sched, SequenceParallel: r.SP && r.TP > 1, Recompute: r.Recompute, ZeRO: r.ZeRO,
			EP: r.EP, EPImbalance: r.Imbalance, TPOverlap: tpo},
		Workload:     model.Workload{Mode: model.Train, Seq: 4096, GlobalBatch: r.Batch, Precision: model.BF16},
		ReserveBytes: model.DefaultReserveBytes,
	}, nil
}

// moeTolerance is the moe group's tolerance on TFLOP/s and tokens/s: 15%, the table1 group's
// 20% narrowed by the software being one generation (Megatron-core 2024-2026, TE, grouped GEMM).
const moeTolerance = 0.15

// MoEChecks are validate's moe group: each row's tokens/s per GPU where published, else its
// model TFLOP/s per GPU, against the model's.
func MoEChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range MoETrainRuns() {
		s, err := MoEScenario(r, p)
		if err != nil {
			return nil, fmt.Errorf("moe %s: %w", r.ID, err)
		}
		rep, err := costmodel.EvaluateFast(s)
		if err != nil {
			return nil, fmt.Errorf("moe %s: %w", r.ID, err)
		}
		note := "hold-out"
		if r.Fitted {
			note = "fitted: the default --ep-imbalance"
		}
		if r.Miss != "" {
			note += "; known miss: " + r.Miss
		}
		name := r.Model
		if name == "" {
			name = r.Arch.ID
		}
		c := fmt.Sprintf("%s %d H100 TP %d PP %d EP %d [%s]", name, r.GPUs, r.TP, r.PP, r.EP, r.Source)
		if r.Imbalance == 1 {
			c += " balanced"
		}
		if r.TokS == 0 {
			out = append(out, Check{Group: "moe", Case: c + " TFLOP/s", Published: r.TFLOPS, Predicted: rep.ModelTFLOPS,
				Unit: "TFLOP/s", Tolerance: moeTolerance, Note: note})
		} else {
			out = append(out, Check{Group: "moe", Case: c + " tokens/s/GPU", Published: r.TokS,
				Predicted: rep.TokensPerS / float64(r.GPUs), Unit: "tok/s", Tolerance: moeTolerance, Note: note})
		}
	}
	dep, err := DeepEPChecks(p)
	if err != nil {
		return nil, err
	}
	ll, err := DeepEPLowLatencyChecks(p)
	if err != nil {
		return nil, err
	}
	return append(append(append(out, GroupedGEMMChecks()...), dep...), ll...), nil
}

// GroupedGEMMRow is one of DeepGEMM's FP8 grouped-GEMM measurements on H800 [DGM]: groups of M
// rows each, against a reference run of the same N and K with fewer, larger groups.
type GroupedGEMMRow struct {
	Groups, M       int
	RefGroups, RefM int
	N, K            int
	TFLOPS, RefTF   float64
}

// DeepGEMMGrouped are DGM's rows the curve is checked on: the masked layout's 4 × 256 and
// 2 × 512 rows against 1 × 1024, and the contiguous layout's 8 × 4096 against 4 × 8192, for
// both of its N × K shapes.
func DeepGEMMGrouped() []GroupedGEMMRow {
	return []GroupedGEMMRow{
		{4, 256, 1, 1024, 4096, 7168, 932, 1233},
		{4, 256, 1, 1024, 7168, 2048, 815, 925},
		{2, 512, 1, 1024, 4096, 7168, 1040, 1233},
		{2, 512, 1, 1024, 7168, 2048, 916, 925},
		{8, 4096, 4, 8192, 4096, 7168, 1288, 1297},
		{8, 4096, 4, 8192, 7168, 2048, 1093, 1099},
	}
}

// GroupedGEMMChecks are the moe group's checks of the grouped-GEMM efficiency: the measured
// rate of smaller groups over larger ones, beside the model's ratio of GroupedGEMMEfficiency at
// the two sizes. Hold-outs: the curve (m / (m + 64)) was not set on them. Tolerance 15%, the
// group's; the model's curve does not depend on N and K.
func GroupedGEMMChecks() []Check {
	var out []Check
	for _, r := range DeepGEMMGrouped() {
		pred := costmodel.GroupedGEMMEfficiency(float64(r.M)) / costmodel.GroupedGEMMEfficiency(float64(r.RefM))
		out = append(out, Check{Group: "moe",
			Case:      fmt.Sprintf("grouped GEMM %d×%d over %d×%d rows, N %d K %d [DGM]", r.Groups, r.M, r.RefGroups, r.RefM, r.N, r.K),
			Published: r.TFLOPS / r.RefTF, Predicted: pred, Unit: "×", Tolerance: moeTolerance,
			Note: "hold-out; FP8 on H800"})
	}
	return out
}
