package static

import (
	"fmt"
	"io"

	"github.com/splitscope/splitscope/costmodel/published"
)

var checkGroups = []struct{ id, title string }{
	{"params", "Parameters of the presets against their makers' counts, in all and activated (QW3, §7)"},
	{"nccl", "nccl-tests all-reduce, 8×A100 NVLink 3 (SN, reference §3.3)"},
	{"fig1", "Korthikanti et al. 2022, Figure 1: memory per GPU (CAL, §4.3)"},
	{"table1", "Megatron-LM, Narayanan et al. 2021, Table 1: seconds per iteration (MLC, §4.1)"},
	{"holdout", "Hold-out, not fitted: Korthikanti et al. 2022, 530B on 2240 A100s (§4.3)"},
	{"comm", "Collectives on published sweeps, bus bandwidth (§3.5; the note names the algorithm the model runs)"},
	{"serve", "Serving on published runs (§3.6): time per output token, throughput, first-token time"},
	{"serve-ratio", "Serving: throughput scaling with TP, published ratio beside the model's (§3.6)"},
	{"gemm", "One GEMM alone by shape, M×N×K, against XLA's measured cuBLAS table for H100 (XLA, §8.1)"},
	{"gemm-ampere", "Ampere's matmuls streaming their weights: vLLM's fp16 linear layers, M tokens (1–64) × K in × N out, on an A100 and an A10, time a call (NMLB, §8.1; fitted: gemm_memory_eff 0.77)"},
	{"moe", "MoE training, Megatron-core and NeMo on H100 SXM, model TFLOP/s and tokens/s per GPU (MCR, MMZ, NAM, §0; the Mixtral 8×22B pair is fitted: the default --ep-imbalance)"},
	{"cp", "Context parallelism, NeMo on DGX-H100: Llama 2 7B FP8 at 32K–1M tokens, CP 2–32, model TFLOP/s per GPU, not fitted (NLS, §0)"},
	{"llama3", "Llama 3 405B pre-training at 8K–16K H100s on RoCE, BF16, TP 8 PP 16, CP 1 and 16, Meta's rank order tp-cp-pp-dp, model TFLOP/s per GPU, not fitted (L3H Table 4, §0)"},
	{"cp-serve", "Context parallelism in serving, Meta's CP inference on H100 hosts: Llama 3 405B FP8 prefill at 128K and 1M tokens over 1 and 16 hosts (TP 8 × CP hosts), TTFT, not fitted (CPI, §3.9)"},
	{"serve-order", "Serving: which of two layouts serves more or answers sooner (§3.6; holds when the same one wins)"},
	{"serve-vllm", "Serving on measured vLLM runs, not fitted: H100 SXM, Poisson replays of inference-perf stages, means (BLIS, §3.6)"},
	{"serve-s2r", "Serving on measured vLLM 0.15.1 runs of the BLIS team's second campaign, not fitted: H100 SXM, A100 SXM 80GB, L40S; twelve models, TP 1–8, batch budgets 1024–8192, Poisson stages of inference-perf, means (S2R, §3.6)"},
	{"serve-more", "Serving on measured runs, other GPUs and engines, not fitted: A100, L4, RTX 3090/4090, H100 PCIe/SXM, H200, MI300X; vLLM, SGLang, LMDeploy, TensorRT-LLM, TGI, each with its engine's profile (LPC, SGL1639, MR4090, ZHJ, SUR, SGL060, H200B, DSTK, TT143, TT125, TT340, R431, §3.6)"},
	{"serve-disagg", "Disaggregated against aggregated serving, not fitted: the published gain (disaggregated ÷ aggregated mean TTFT and TPOT) beside the model's, within 25% (MCK-A10, §3.7)"},
	{"serve-disagg-order", "Disaggregated against aggregated serving, direction only: the same side of 1 as published (the note says why; §3.7)"},
	{"spec", "Speculative decoding: throughput with it over without, published gains on named hardware with their acceptance lengths, not fitted (ISS vllm#20780, ISS vllm#29334, ISS TensorRT-LLM#5146, DSV3, §3.8)"},
	{"schedule", "Pipeline schedules' published tables, simulated op by op at equal stages: bubbles in F, activations in stages (DP, DSV3 Table 2, ZB, §5)"},
}

// RenderValidation prints the published figures beside the model's predictions, one table a
// source, and how many are within tolerance.
func RenderValidation(w io.Writer, checks []published.Check) error {
	ew := &errWriter{w: w}
	for gi, g := range checkGroups {
		if gi > 0 {
			ew.line("")
		}
		ew.line(g.title)
		t := newTable("  ", false, true, true, true, false, false)
		t.add("case", "published", "model", "error", "", "note")
		pass, n := 0, 0
		for _, c := range checks {
			if c.Group != g.id {
				continue
			}
			n++
			verdict, errText := "ok", fmt.Sprintf("%+.1f%%", 100*c.RelErr())
			if c.Order {
				errText = "same"
				if !c.Pass() {
					errText = "reversed"
				}
			}
			if c.Pass() {
				pass++
			} else {
				verdict = "OUT"
			}
			t.add(c.Case, checkValue(c.Published, c.Unit), checkValue(c.Predicted, c.Unit),
				errText, verdict, c.Note)
		}
		t.write(ew)
		ew.line(fmt.Sprintf("  %d of %d within tolerance", pass, n))
	}
	return ew.err
}

func checkValue(v float64, unit string) string {
	switch unit {
	case "s":
		return Seconds(v)
	case "GiB":
		return fmt.Sprintf("%.4f GiB", v)
	case "GB/s":
		return fmt.Sprintf("%.1f GB/s", v)
	case "tok/s":
		return Count(v) + " tok/s"
	case "req/s":
		return fmt.Sprintf("%.3g req/s", v)
	case "TFLOP/s":
		return fmt.Sprintf("%.1f TFLOP/s", v)
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "params":
		return fmt.Sprintf("%.4gB", v/1e9)
	case "F", "stages", "micro-batches": // the schedule tables' units
		return fmt.Sprintf("%.4g %s", v, unit)
	default:
		return Percent(v)
	}
}
