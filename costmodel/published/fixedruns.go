package published

import (
	"strconv"

	"github.com/splitscope/splitscope/model"
)

// Measured fixed-length serving runs on GPU families the serve-more group had no run on with
// these models (2 × H100 SXM with Qwen2.5-72B, an RTX 4090 with Qwen2.5-7B, an A100 with
// Qwen3-1.7B, an MI300X with Qwen3-8B), added to validate's serve-more group as hold-outs:
// nothing in the model was fitted on them, and no constant was changed for them. Every tag is
// cited in docs/references.md §0 and §3.6.
//
// The TT rows are the GPU reference runs Tenstorrent's tt-inference-server publishes beside its
// own hardware's (its `run.py --device gpu` workflow: vLLM's benchmark_serving on random
// prompts of exactly ISL tokens with OSL output tokens forced (ignore_eos), N requests at a
// concurrency of 1). One request at a time: a TTFT is one prefill of ISL tokens (plus the
// engine's and the client's fixed costs), a TPOT one decode step at batch 1, which on these
// GPUs is the weights read once per step. The engine is vLLM (V1 by its dates, chunked prefill
// on by default, a token budget of 2048 to 8192 by version: none of the prompts below is
// chunked at budget 8192, and at 2048 only the 3072- and 4096-token ones are), version not
// recorded (the reports print "vllm_commit": "n/a" for GPU runs; U).
//
// R431 is AMD's run for the vLLM recipes (vllm/vllm-openai-rocm:latest of April 2026: V1,
// chunked prefill and async scheduling on by default), 100 random prompts of 1024 tokens with
// 1024 output tokens at a concurrency of 32.
var MeasuredFixed = []MoreRun{
	// 2 × H100 (TP 2), Qwen2.5-72B-Instruct, bf16 (U: the dtype is not printed; 72.7 B
	// parameters in bf16 are 145 GB, which two 80 GB GPUs hold). SXM with NVLink assumed (U):
	// a TPOT of 31 ms is less than reading each GPU's 72.7 GB half at a PCIe H100's 2.0 TB/s
	// (36 ms), so not the PCIe card.
	tt143(128, 128, 8, 41.1, 30.9, 3964.6, 0.252), tt143(128, 1024, 4, 35.0, 30.9, 31664.4, 0.032),
	tt143(1024, 128, 8, 129.2, 31.0, 4062.2, 0.246), tt143(2048, 128, 8, 149.5, 31.0, 4088.9, 0.245),
	tt143(3072, 128, 8, 270.9, 31.1, 4221.5, 0.237), tt143(4096, 128, 8, 505.1, 31.1, 4456.0, 0.224),
	// RTX 4090, Qwen2.5-7B-Instruct (bf16, U). The report's metadata block says "n300" (copied
	// from the Tenstorrent template); its heading says 4090, and 17 ms a token is a 4090's
	// figure (15.2 GB of weights at 1.01 TB/s is 15 ms; the same model on an n300, issue
	// #332, takes 42 ms).
	tt125(128, 128, 8, 30.8, 17.1, 2199.0, 0.454), tt125(128, 1024, 4, 28.2, 17.2, 17590.2, 0.057),
	// At 2048 tokens the measured TTFT (116 ms) is less than the prompt's linear layers take at
	// the 4090's dense BF16 peak (2 × 6.5 B × 2048 ÷ 165 TFLOP/s = 162 ms), half the 1024-token
	// figure's rate of growth: the prompt was not all prefilled (marked). The 2 × H100 run's
	// 2048-token TTFT (150 ms, 97% of the peak-FLOP time) is as implausible but not below it.
	tt125(1024, 128, 8, 99.6, 17.2, 2278.4, 0.439), belowPeak(tt125(2048, 128, 8, 116.4, 17.2, 2302.2, 0.434)),
	// A100, Qwen3-1.7B (bf16, U). The A100 variant is not given: the 80 GB SXM is assumed (U).
	// A 1.7 B model's step reads 3.4 GB, 1.7 ms at 2.0 TB/s: the measured 4.6 ms is mostly the
	// engine's fixed cost a step.
	// At 128 prompt tokens the model's TTFT is 4 ms against 11.4 and 14.0 measured: the
	// prefill itself is about 1 ms of compute here, and what the measured figure holds beyond
	// it (the API server's tokenizing and streaming, the scheduler's step, the client) is a
	// fixed 7–10 ms per request the model does not have (as on the BLIS runs, 5–9 ms).
	fixedCost(tt340(128, 128, 8, 11.4, 4.6, 601.2, 1.661)), fixedCost(tt340(128, 1024, 4, 14.0, 4.7, 4801.7, 0.208)),
	tt340(1024, 128, 4, 26.4, 4.8, 638.3, 1.565), tt340(2048, 128, 4, 30.9, 5.0, 663.4, 1.506),
	// MI300X, Qwen3Guard-Gen-8B (Qwen3-8B's shape), bf16 (U), TP 1 (U: the PR serves the 3B
	// variants of its other models with --tensor-parallel-size 1 and does not print the 8B
	// command). 37.91 s for 100 requests.
	{ID: "r431-mi300x-vllmrocm-qwen3-8b-random1024x1024-c32", Source: "R431", Engine: "vLLM ROCm (vllm-openai-rocm:latest, Apr 2026)",
		Model: qwen3_8B.ID, GPU: "mi300x", TP: 1, Precision: "bf16", Dist: "random", Prompt: 1024, Gen: 1024, Requests: 100,
		Concurrency: 32, ReqS: 2.64, OutTokS: 2701.39, TTFT: 0.64502, TPOT: 0.00942,
		Notes: "1024 in, 1024 out (102,400 of each in total); peak 3744 output tok/s"},
}

// ttRun is one row of a tt-inference-server GPU reference table: ISL and OSL tokens, N requests
// one at a time; TTFT, TPOT and E2E means (ms) and requests/s as printed.
func ttRun(src, tag, mdl, gpu, intra string, tp, isl, osl, n int, ttftMS, tpotMS, e2eMS, reqS float64, notes string) MoreRun {
	return MoreRun{ID: tag + "-isl" + strconv.Itoa(isl) + "-osl" + strconv.Itoa(osl) + "-c1", Source: src,
		Engine: "vLLM (tt-inference-server GPU reference; version not recorded)", Model: mdl, GPU: gpu, Intra: intra, TP: tp,
		Precision: "bf16", Dist: "random", Prompt: float64(isl), Gen: float64(osl), Requests: n, Concurrency: 1,
		ReqS: reqS, TTFT: ttftMS * 1e-3, TPOT: tpotMS * 1e-3, E2E: e2eMS * 1e-3, Notes: notes}
}

// belowPeak marks a run whose measured TTFT is below its prompt's peak-FLOP prefill time.
func belowPeak(r MoreRun) MoreRun {
	r.PrefillBelowPeak = true
	return r
}

// fixedCost marks a run whose TTFT is mostly per-request fixed costs the model does not have.
func fixedCost(r MoreRun) MoreRun {
	r.MissFigs, r.Miss = []string{"TTFT"}, "a 128-token prefill of a 1.7 B model is ~1 ms; the measured TTFT is mostly fixed per-request costs (API server, scheduler, client) the model does not have"
	return r
}

func tt143(isl, osl, n int, ttft, tpot, e2e, reqS float64) MoreRun {
	return ttRun("TT143", "tt143-h100x2-vllm-qwen25-72b-tp2", "qwen2.5-72b", "h100-sxm", "nvlink4", 2, isl, osl, n, ttft, tpot, e2e, reqS,
		"2 × H100 (SXM assumed, U), TP 2, bf16 (U)")
}

func tt125(isl, osl, n int, ttft, tpot, e2e, reqS float64) MoreRun {
	return ttRun("TT125", "tt125-4090-vllm-qwen25-7b", qwen25_7B.ID, "rtx-4090", "", 1, isl, osl, n, ttft, tpot, e2e, reqS,
		"RTX 4090, bf16 (U)")
}

func tt340(isl, osl, n int, ttft, tpot, e2e, reqS float64) MoreRun {
	return ttRun("TT340", "tt340-a100-vllm-qwen3-1.7b", qwen3_1p7B.ID, "a100-sxm-80gb", "", 1, isl, osl, n, ttft, tpot, e2e, reqS,
		"A100 (80 GB SXM assumed, U), bf16 (U)")
}

// qwen25_7B is Qwen2.5-7B-Instruct's config.json: 28 layers, hidden 3584, 28 heads of 128 with
// 4 KV heads, ffn 18944, vocabulary 152064, untied embeddings (its q/k/v biases are left out).
var qwen25_7B = model.Arch{ID: "qwen2.5-7b", Name: "Qwen2.5 7B", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4,
	FFN: 18944, Vocab: 152064, GatedMLP: true, MaxSeq: 32768, Source: "Qwen/Qwen2.5-7B-Instruct config.json"}

// qwen3_8B is Qwen3-8B's config.json (Qwen3Guard-Gen-8B is a fine-tune of it, the same shape):
// 36 layers, hidden 4096, 32 heads of 128 with 8 KV heads, ffn 12288, vocabulary 151936,
// untied embeddings, per-head q/k norms.
var qwen3_8B = model.Arch{ID: "qwen3-8b", Name: "Qwen3 8B", Layers: 36, Hidden: 4096, Heads: 32, KVHeads: 8,
	FFN: 12288, Vocab: 151936, GatedMLP: true, QKNorm: true, MaxSeq: 40960, Source: "Qwen/Qwen3-8B config.json"}

// qwen3_1p7B is Qwen3-1.7B's config.json: 28 layers, hidden 2048, 16 heads of 128 with 8 KV
// heads, ffn 6144, vocabulary 151936, tied embeddings, per-head q/k norms.
var qwen3_1p7B = model.Arch{ID: "qwen3-1.7b", Name: "Qwen3 1.7B", Layers: 28, Hidden: 2048, Heads: 16, KVHeads: 8,
	FFN: 6144, Vocab: 151936, GatedMLP: true, QKNorm: true, TiedEmbeddings: true, MaxSeq: 40960, Source: "Qwen/Qwen3-1.7B config.json"}

// moreArchs are the models of the serve-more runs that are not presets.
var moreArchs = []model.Arch{mistral7B, qwen25_7B, qwen3_8B, qwen3_1p7B}

// moreArch answers a serve-more run's model that is not a preset.
func moreArch(id string) (model.Arch, bool) {
	for _, a := range moreArchs {
		if a.ID == id {
			return a, true
		}
	}
	return model.Arch{}, false
}

// MoreRuns are every run of validate's serve-more group: MeasuredMore, MeasuredFixed,
// MeasuredEngines, MeasuredH200, MeasuredMI300X, MeasuredH100x8, then MeasuredInferenceX.
func MoreRuns() []MoreRun {
	sets := [][]MoreRun{MeasuredMore, MeasuredFixed, MeasuredEngines, MeasuredH200, MeasuredMI300X, MeasuredH100x8, MeasuredInferenceX}
	var out []MoreRun
	for _, rs := range sets {
		out = append(out, rs...)
	}
	return out
}
