package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Published context-parallel prefill latency, and the checks of validate's "cp-serve" group:
// Meta's context parallelism for inference [CPI] (Yang et al., "Context Parallelism for Scalable
// Million-Token Inference", arXiv 2411.01783, MLSys 2025): Llama 3 405B on hosts of 8 H100s, TP 8
// inside a host and CP across hosts (up to 16, 128 GPUs) over RDMA, FP8 row-wise linear layers
// and BF16 attention, ring pass-KV for a full prefill, one prompt at a time. The figures read are
// the abstract's and the introduction's (the paper's own tables were not readable here, U):
//
//   - 1M-token prefill in 77 s on 128 H100s (16 hosts; "93% parallelization efficiency");
//   - 128K-token prefill in 3.8 s, read as on the same 16 hosts, the paper's largest (U);
//   - "With a single H100 GPU host (8 GPUs), it can take 60 seconds to serve 128K context
//     length" (the introduction: a round figure, U).
//
// And the one that tests CP itself rather than the host's prefill rate: the speed-up of 16 hosts
// over one at 128K, 60 / 3.8. Nothing was fitted on these rows: hold-outs.
type CPServeRun struct {
	ID, Source string
	PromptK    int // prompt tokens in units of 1024
	Hosts      int // CP size: hosts of 8 H100 SXM at TP 8
	TTFT       float64
}

// CPServeRuns are the rows of validate's cp-serve group.
func CPServeRuns() []CPServeRun {
	return []CPServeRun{
		{ID: "cpi-405b-128k-1host", Source: "CPI", PromptK: 128, Hosts: 1, TTFT: 60},
		{ID: "cpi-405b-128k-16hosts", Source: "CPI", PromptK: 128, Hosts: 16, TTFT: 3.8},
		{ID: "cpi-405b-1m-16hosts", Source: "CPI", PromptK: 1024, Hosts: 16, TTFT: 77},
	}
}

// cpServeMiss: the 128K rows come out at half the published TTFT, by the same −49% at 1 host and
// at 16, while the speed-up between them is within 1% and the 1M row, where the attention is
// 85% of the FLOPs, within 21%. So what the model misses is the one host's rate on the linear
// layers at 128K, not the CP exchange: solving the two 16-host rows for two rates (the
// attention's and the FP8 linear layers') gives about 660 TFLOP/s for the attention, near the
// model's, and about 280 for the FP8 linears, a seventh of H100's FP8 peak, where the model
// runs them at its FP8 GEMM rate (about 1400 at these shapes). Two differences of setup, read
// in a public summary of the paper's method (not the paper, U), explain part of it and are not
// expressible here: row-wise FP8 for the feed-forward layers only (the attention projections,
// about a fifth of the linear FLOPs, in BF16), and hosts of 96 GB H100s (the model's h100-sxm is
// the 80 GB part). The bound: with every linear layer in BF16 the model gives 39.0 s at 1 host
// and 2.47 s at 16 (−35%), so the FP8 split alone does not close the gap. Not fitted: whether the
// 3.8 s was on 16 hosts, and the 96 GB parts' clocks, could not be read here (U).

// cpServeTolerance is the cp-serve group's tolerance on TTFT: the serving groups' 25%.
const cpServeTolerance = 0.25

// CPServeScenario is a row's serving scenario: one request of the prompt and one token, the
// whole prompt in one step (a full prefill, as [CPI] measures it), FP8 weights, hosts of 8 H100
// SXM over NVLink 4 with eight 400 Gb/s NICs, CP = hosts (ring). Offline: the paper times the
// prefill, not a server's front end.
func CPServeScenario(r CPServeRun, p ServePresets) (model.Scenario, error) {
	a, err := p.Model("llama-3.1-405b")
	if err != nil {
		return model.Scenario{}, err
	}
	g, intra, inter, err := parts(p, "h100-sxm", "nvlink4", "ib-ndr")
	if err != nil {
		return model.Scenario{}, err
	}
	prompt := r.PromptK * 1024
	return model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
		Cluster: model.Cluster{GPU: g, GPUs: 8 * r.Hosts, GPUsPerNode: 8, Intra: intra, Inter: inter, NICsPerNode: 8},
		Layout:  model.Layout{TP: 8, PP: 1, DP: 1, CP: r.Hosts, Chunks: 1, MicroBatch: 1},
		Workload: model.Workload{Mode: model.Infer, PromptTokens: prompt, GenTokens: 1, Requests: 1,
			Precision: model.BF16, MaxBatchTokens: prompt, Weights: "fp8", Offline: true}}, nil
}

// cpServeTTFT is the model's TTFT of a row.
func cpServeTTFT(r CPServeRun, p ServePresets) (float64, error) {
	s, err := CPServeScenario(r, p)
	if err != nil {
		return 0, err
	}
	rep, err := costmodel.EvaluateFast(s)
	if err != nil {
		return 0, fmt.Errorf("cp-serve %s: %w", r.ID, err)
	}
	return rep.Inference.TTFT, nil
}

// CPServeChecks are validate's cp-serve group: each row's TTFT, and the 16-host speed-up at 128K.
func CPServeChecks(p ServePresets) ([]Check, error) {
	var out []Check
	ttft := map[string]float64{}
	for _, r := range CPServeRuns() {
		v, err := cpServeTTFT(r, p)
		if err != nil {
			return nil, err
		}
		ttft[r.ID] = v
		c := fmt.Sprintf("llama-3.1-405b %dK prefill %d H100 TP 8 CP %d fp8 [%s] TTFT", r.PromptK, 8*r.Hosts, r.Hosts, r.Source)
		note := "hold-out"
		if r.PromptK == 128 {
			note = "hold-out; known miss: the same −49% at 1 host and at 16, so the host's prefill rate, not CP (cpServeMiss)"
		}
		out = append(out, Check{Group: "cp-serve", Case: c, Published: r.TTFT, Predicted: v,
			Unit: "s", Tolerance: cpServeTolerance, Note: note})
	}
	rs := CPServeRuns()
	out = append(out, Check{Group: "cp-serve", Case: "llama-3.1-405b 128K prefill: 16 hosts' speed-up over 1 [CPI]",
		Published: rs[0].TTFT / rs[1].TTFT, Predicted: ttft[rs[0].ID] / ttft[rs[1].ID],
		Unit: "×", Tolerance: cpServeTolerance, Note: "hold-out"})
	return out, nil
}
