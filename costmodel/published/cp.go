package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Published context-parallel training throughput, and the checks of validate's "cp" group:
// NeMo's long-sequence table [NLS] (NVIDIA NeMo, docs/source/performance/
// performance_long_sequence.md): Llama 2 7B pre-training in FP8 on DGX-H100 (8 H100 SXM a node,
// NVLink 4, eight 400 Gb/s NICs), NeMo 24.03.01, model TFLOP/s per GPU at sequences of 32K to 1M
// tokens with CP 2 to 32. Nothing was fitted on these rows: they are hold-outs of the whole model
// (the CP exchange, the attention's work at long sequences, the FP8 GEMMs beside BF16 attention).
//
// What the table does not say is marked U: the global batch (4M tokens a step, as the table's
// B200 counterpart gives: 512 sequences of 8K), micro-batch 1, sequence parallelism with TP > 1,
// the distributed optimizer (ZeRO 1), selective recompute (Megatron's core-attention recompute),
// the ring exchange (Megatron-core's default, --cp-comm-type p2p), and its TFLOP/s counted as
// Megatron counts them (the full s² attention; NeMo's formula for Llama of that release).
type CPTrainRun struct {
	ID, Source     string
	Model          string // preset ID
	SeqK           int    // sequence length in units of 1024 tokens
	TP, PP, DP, CP int
	TFLOPS         float64 // published model TFLOP/s per GPU
	Precision      model.Precision
	Recompute      model.Recompute
}

// CPTrainRuns are the rows of validate's cp group: every with-CP row of [NLS]'s H100 table.
func CPTrainRuns() []CPTrainRun {
	row := func(k, tp, dp, cp int, tflops float64) CPTrainRun {
		return CPTrainRun{ID: fmt.Sprintf("nls-llama2-7b-%dk-cp%d", k, cp), Source: "NLS", Model: "llama-2-7b",
			SeqK: k, TP: tp, PP: 1, DP: dp, CP: cp, TFLOPS: tflops, Precision: model.FP8,
			Recompute: model.RecomputeSelective}
	}
	return []CPTrainRun{
		row(32, 2, 8, 2, 610),
		row(64, 4, 8, 2, 574),
		row(128, 4, 8, 4, 555),
		row(256, 4, 8, 8, 549),
		row(512, 8, 4, 16, 549),
		row(1024, 8, 4, 32, 536),
	}
}

// cpTolerance is the cp group's tolerance on TFLOP/s: the moe group's 15%, for the same
// generation of software (Megatron-core through NeMo, TE) and the same hardware.
const cpTolerance = moeTolerance

// cpBatchTokens is the tokens a step the rows assume (U): [NLS]'s B200 table's 4M.
const cpBatchTokens = 4 << 20

// CPScenario is the training scenario of a row.
func CPScenario(r CPTrainRun, p ServePresets) (model.Scenario, error) {
	a, err := p.Model(r.Model)
	if err != nil {
		return model.Scenario{}, err
	}
	g, intra, inter, err := parts(p, "h100-sxm", "nvlink4", "ib-ndr")
	if err != nil {
		return model.Scenario{}, err
	}
	seq := r.SeqK * 1024
	gpus := r.TP * r.PP * r.DP * r.CP
	return model.Scenario{
		Arch: a,
		Cluster: model.Cluster{GPU: g, GPUs: gpus, GPUsPerNode: 8, Intra: intra, Inter: inter,
			NICsPerNode: 8},
		Layout: model.Layout{TP: r.TP, PP: r.PP, DP: r.DP, CP: r.CP, Chunks: 1, MicroBatch: 1,
			Schedule: model.OneFOneB, SequenceParallel: r.TP > 1, Recompute: r.Recompute, ZeRO: 1},
		Workload: model.Workload{Mode: model.Train, Seq: seq, GlobalBatch: max(cpBatchTokens/seq, r.DP),
			Precision: r.Precision},
		ReserveBytes: model.DefaultReserveBytes,
	}, nil
}

// CPChecks are validate's cp group: each row's model TFLOP/s per GPU.
func CPChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range CPTrainRuns() {
		s, err := CPScenario(r, p)
		if err != nil {
			return nil, fmt.Errorf("cp %s: %w", r.ID, err)
		}
		rep, err := costmodel.EvaluateFast(s)
		if err != nil {
			return nil, fmt.Errorf("cp %s: %w", r.ID, err)
		}
		c := fmt.Sprintf("%s %dK %d H100 TP %d CP %d DP %d %s [%s] TFLOP/s", r.Model, r.SeqK, s.Cluster.GPUs, r.TP, r.CP, r.DP, r.Precision, r.Source)
		out = append(out, Check{Group: "cp", Case: c, Published: r.TFLOPS, Predicted: rep.ModelTFLOPS,
			Unit: "TFLOP/s", Tolerance: cpTolerance, Note: "hold-out"})
	}
	return out, nil
}
