package published

import "strconv"

// Published serving measurements (vLLM's benchmark_serving, TensorRT-LLM's trtllm-bench and
// gptSessionBenchmark, NVIDIA NIM's AIPerf runs, ExLlamaV2), transcribed for validating the
// serving simulator. Pure data: nothing here is computed or fitted. Each run's Source is a tag of
// docs/references.md §0; Notes say what the source does not and what was assumed (U).

// ServeRun is one published serving run, in the model's terms: the model, GPU and link presets
// that describe it, the layout, the workload and the engine's limits, and what was measured
// (0: not published).
type ServeRun struct {
	ID, Source, Engine, Notes string
	Model, GPU, Intra         string
	GPUs, TP, PP              int
	Precision, Weights, KV    string // compute format; weight and KV-cache formats ("" = compute)
	Prompt, Gen, Requests     int
	Rate                      float64 // requests/s (Poisson); 0 with Concurrency or all at once
	Concurrency               int
	MaxSeqs, MaxBatchTokens   int // 0: vLLM's defaults
	OutTokS, TPOT, TTFT       float64
	PromptTokS                float64 // prefill throughput, prompt tokens/s (ExLlamaV2 prints it)
	// TRTBench: a trtllm-bench throughput run with its defaults (TensorRT-LLM's PyTorch
	// executor; max batch and max tokens from its own heuristic, trtBenchLimits), served with
	// engine trtllm; MaxSeqs and MaxBatchTokens are then computed, not given.
	TRTBench bool
}

// iog is one vLLM 0.8.5 benchmark_serving run of IOG's repository: 200 ShareGPT prompts of 41,169
// input and about 42,500 output tokens (206 and 212 a request on average; the model serves them
// at those fixed lengths), Poisson arrivals, fp16.
func iog(id, model, gpu string, gpus int, weights string, rate, tpotMS float64) ServeRun {
	return ServeRun{ID: id, Source: "IOG", Engine: "vLLM 0.8.5", Model: model, GPU: gpu, Intra: "pcie5", GPUs: gpus, TP: gpus, PP: 1,
		Precision: "fp16", Weights: weights, Prompt: 206, Gen: 212, Requests: 200, Rate: rate, TPOT: tpotMS * 1e-3,
		Notes: "ShareGPT lengths taken at their means (206 in, 212 out); results/*.json of the repository"}
}

// nim is one point of NIM 1.8.0's concurrency sweep: Llama-3.3-70B-Instruct in fp8 on 2×H100
// 80 GB, TP 2, 5000 input and 500 output tokens.
func nim(c int, itlMS, tokS float64) ServeRun {
	return ServeRun{ID: "nim-h100x2-70b-fp8-c" + strconv.Itoa(c), Source: "NIM", Engine: "NIM 1.8.0", Model: "llama-3-70b", GPU: "h100-sxm",
		Intra: "nvlink4", GPUs: 2, TP: 2, PP: 1, Precision: "bf16", Weights: "fp8", KV: "fp8", Prompt: 5000, Gen: 500,
		Requests: max(4*c, 8), Concurrency: c, TPOT: itlMS * 1e-3, OutTokS: tokS,
		Notes: "ITL as TPOT; the fp8 profile's KV cache taken as fp8 (U: the page does not say; a bf16 cache holds 43 requests of 5500 tokens, the run plateaus from 100)"}
}

// trt19 is one cell of TensorRT-LLM 0.19's throughput table: Llama 3.1 70B in FP8 (ModelOpt),
// trtllm-bench with every request at once, total output tokens/s of the TP group.
func trt19(gpu string, tp, isl, osl, requests int, tokS float64) ServeRun {
	return ServeRun{ID: "trt019-" + gpu + "-70b-fp8-tp" + strconv.Itoa(tp) + "-" + strconv.Itoa(isl) + "-" + strconv.Itoa(osl), Source: "TRT", Engine: "TensorRT-LLM 0.19",
		Model: "llama-3-70b", GPU: gpu, Intra: "nvlink4", GPUs: tp, TP: tp, PP: 1, Precision: "bf16", Weights: "fp8", KV: "fp8",
		Prompt: isl, Gen: osl, Requests: min(requests, 1000), MaxSeqs: 2048, MaxBatchTokens: 8192, OutTokS: tokS,
		Notes: "first 1000 of the run's requests; max batch 2048 and 8192 tokens, and the FP8 checkpoint's KV cache in FP8 (U: trtllm-bench's tuned values are not printed)"}
}

// trt09 is one batch-1 first-token latency of TensorRT-LLM 0.9's performance page
// (gptSessionBenchmark, context phase of a 2048-token prompt).
func trt09(model, gpu, prec string, tp int, ttftMS float64) ServeRun {
	return ServeRun{ID: "trt09-" + gpu + "-" + model + "-tp" + strconv.Itoa(tp) + "-ttft2048", Source: "TRT", Engine: "TensorRT-LLM 0.9",
		Model: model, GPU: gpu, Intra: "", GPUs: tp, TP: tp, PP: 1, Precision: prec, Prompt: 2048, Gen: 2, Requests: 1, TTFT: ttftMS * 1e-3,
		Notes: "docs/source/performance.md of 0.9.0: batch 1, 2048 input tokens, first-token latency"}
}

// rtxpro is one cell of TensorRT-LLM 1.0's RTX PRO 6000 table: Llama 3.3 70B in FP4 on 1, 2, 4
// or 8 PCIe GPUs, pipeline parallel only.
func rtxpro(pp, isl, osl int, tokS float64) ServeRun {
	return ServeRun{ID: "trt10-rtxpro-70b-fp4-pp" + strconv.Itoa(pp) + "-" + strconv.Itoa(isl) + "-" + strconv.Itoa(osl), Source: "TRT", Engine: "TensorRT-LLM 1.0",
		Model: "llama-3-70b", GPU: "rtx-pro-6000", GPUs: pp, TP: 1, PP: pp, Precision: "bf16", Weights: "fp4", KV: "fp8",
		Prompt: isl, Gen: osl, Requests: benchRequests(isl, osl), TRTBench: true, OutTokS: tokS,
		Notes: "total output tokens/s; FP4 matmuls at fp4OverFP8 times the FP8 rate; trtllm-bench's own max batch and max tokens (trtBenchLimits)"}
}

// PublishedServing are the runs validate checks the serving simulator on.
var PublishedServing = []ServeRun{
	// Light load: the time per output token of one or a few sequences (IOG at 1–16 req/s).
	iog("iog-h100pcie-8b-r1", "llama-3-8b", "h100-pcie", 1, "", 1, 10.64),
	iog("iog-h100pcie-8b-r4", "llama-3-8b", "h100-pcie", 1, "", 4, 10.98),
	iog("iog-h100pcie-8b-r8", "llama-3-8b", "h100-pcie", 1, "", 8, 11.69),
	iog("iog-h100pcie-8b-r16", "llama-3-8b", "h100-pcie", 1, "", 16, 12.21),
	iog("iog-4090-8b-r1", "llama-3-8b", "rtx-4090", 1, "", 1, 19.51),
	iog("iog-4090-8b-r4", "llama-3-8b", "rtx-4090", 1, "", 4, 22.60),
	iog("iog-4090-8b-r8", "llama-3-8b", "rtx-4090", 1, "", 8, 26.82),
	iog("iog-h100pcie2-70b-r1", "llama-3-70b", "h100-pcie", 2, "", 1, 54.17),
	iog("iog-h100pcie2-70b-fp8-r1", "llama-3-70b", "h100-pcie", 2, "fp8", 1, 32.20),

	// NIM's concurrency sweep: per-token latency and throughput up to the KV cache's knee.
	nim(1, 18.58, 51.67), nim(5, 21.83, 218.48), nim(25, 38.75, 623.4), nim(50, 59.73, 814.37),
	nim(100, 92.91, 917.26), nim(150, 92.86, 920.9),

	// TP scaling on one NVLink box (TensorRT-LLM 0.19).
	trt19("h200-sxm", 1, 128, 128, 30000, 3657.58), trt19("h200-sxm", 2, 128, 128, 30000, 6477.50),
	trt19("h200-sxm", 4, 128, 128, 30000, 10466.04), trt19("h200-sxm", 8, 128, 128, 30000, 15554.57),
	trt19("h200-sxm", 1, 1000, 1000, 3000, 2727.42), trt19("h200-sxm", 2, 1000, 1000, 3000, 5097.36),
	trt19("h200-sxm", 4, 1000, 1000, 3000, 8698.15), trt19("h200-sxm", 8, 1000, 1000, 3000, 12794.92),
	trt19("h200-sxm", 1, 2048, 2048, 1500, 1990.25), trt19("h200-sxm", 2, 2048, 2048, 1500, 3822.83),
	trt19("h200-sxm", 4, 2048, 2048, 1500, 7068.68), trt19("h200-sxm", 8, 2048, 2048, 1500, 10529.06),
	trt19("h200-sxm", 1, 5000, 500, 1500, 543.88), trt19("h200-sxm", 2, 5000, 500, 1500, 1005.81),
	trt19("h200-sxm", 4, 5000, 500, 1500, 1714.77), trt19("h200-sxm", 8, 5000, 500, 1500, 2683.22),
	trt19("h200-sxm", 1, 2048, 128, 3000, 433.30), trt19("h200-sxm", 2, 2048, 128, 3000, 772.97),
	trt19("h200-sxm", 4, 2048, 128, 3000, 1278.26), trt19("h200-sxm", 8, 2048, 128, 3000, 1947.33),
	trt19("h100-sxm", 1, 128, 2048, 3000, 745.19), trt19("h100-sxm", 2, 128, 2048, 3000, 5822.02),
	trt19("h100-sxm", 2, 128, 128, 30000, 6183.41), trt19("h100-sxm", 4, 128, 128, 30000, 10260.68),
	trt19("h100-sxm", 8, 128, 128, 30000, 14686.01),
	trt19("h100-sxm", 2, 1000, 1000, 3000, 4191.26), trt19("h100-sxm", 4, 1000, 1000, 3000, 7427.35),
	trt19("h100-sxm", 8, 1000, 1000, 3000, 11082.48),
	trt19("h100-sxm", 2, 2048, 2048, 1500, 2732.86), trt19("h100-sxm", 4, 2048, 2048, 1500, 5640.31),
	trt19("h100-sxm", 8, 2048, 2048, 1500, 8772.88),

	// Prefill alone: batch-1 first-token latency of a 2048-token prompt (TensorRT-LLM 0.9).
	trt09("llama-2-7b", "h100-sxm", "fp8", 1, 30.8), trt09("llama-2-7b", "h200-sxm", "fp8", 1, 30.2),
	trt09("llama-2-7b", "a100-sxm-80gb", "fp16", 1, 132.4), trt09("llama-2-7b", "l40s", "fp8", 1, 80.1),
	trt09("llama-2-70b", "h200-sxm", "fp8", 4, 103.0), trt09("llama-2-70b", "h100-sxm", "fp8", 8, 85.1),
	trt09("llama-2-70b", "a100-sxm-80gb", "fp16", 8, 249.2),

	// PCIe boxes: pipeline parallelism on RTX PRO 6000 (TensorRT-LLM 1.0). Not checked: ExLlamaV2's
	// two RTX 3090 (EXL2), whose layer split prefills a 70B model at 1045.8 tokens/s, more than one
	// RTX 3090's fp16 peak allows (2 × 70.6 GFLOP a token at 71 TFLOP/s is 500 tokens/s).
	rtxpro(1, 128, 128, 3264), rtxpro(2, 128, 128, 6172), rtxpro(4, 128, 128, 9641), rtxpro(8, 128, 128, 11881),
	rtxpro(1, 2048, 2048, 1074), rtxpro(2, 2048, 2048, 2336), rtxpro(4, 2048, 2048, 3870), rtxpro(8, 2048, 2048, 6078),
	rtxpro(1, 1000, 1000, 1787), rtxpro(2, 1000, 1000, 3707), rtxpro(4, 1000, 1000, 5961), rtxpro(8, 1000, 1000, 8166),

	// B200, one GPU, Llama 3.3 70B in FP4 (the same TensorRT-LLM 1.0 table).
	b200fp4(128, 128, 11147), b200fp4(1000, 1000, 7007), b200fp4(2048, 2048, 4783), b200fp4(2048, 128, 1339),
	b200fp4(5000, 500, 1459),

	// The same 1.0 overview's other tables, hold-outs: Llama 3.3 70B in FP8 on one H200 and two
	// H100, Llama 3.1 8B in FP8 on one of each, and Llama 3.1 405B in FP4 on eight RTX PRO 6000
	// in a pipeline of 8 (trtPPHostPerSeq and trtPPHostPerActive were fitted on the 70B's).
	trt10("llama-3-70b", "h200-sxm", 1, 1, "fp8", 128, 128, 3803), trt10("llama-3-70b", "h200-sxm", 1, 1, "fp8", 1000, 1000, 2909),
	trt10("llama-3-70b", "h200-sxm", 1, 1, "fp8", 2048, 2048, 2003), trt10("llama-3-70b", "h200-sxm", 1, 1, "fp8", 2048, 128, 442),
	trt10("llama-3-70b", "h200-sxm", 1, 1, "fp8", 5000, 500, 566),
	trt10("llama-3-70b", "h100-sxm", 2, 1, "fp8", 128, 128, 6378), trt10("llama-3-70b", "h100-sxm", 2, 1, "fp8", 1000, 1000, 4205),
	trt10("llama-3-70b", "h100-sxm", 2, 1, "fp8", 2048, 2048, 3082), trt10("llama-3-70b", "h100-sxm", 2, 1, "fp8", 2048, 128, 762),
	trt10("llama-3-70b", "h100-sxm", 2, 1, "fp8", 5000, 500, 898),
	trt10("llama-3-8b", "h200-sxm", 1, 1, "fp8", 128, 128, 27911), trt10("llama-3-8b", "h200-sxm", 1, 1, "fp8", 1000, 1000, 17744),
	trt10("llama-3-8b", "h200-sxm", 1, 1, "fp8", 2048, 2048, 12194), trt10("llama-3-8b", "h200-sxm", 1, 1, "fp8", 5000, 500, 3902),
	trt10("llama-3-8b", "h100-sxm", 1, 1, "fp8", 128, 128, 28312), trt10("llama-3-8b", "h100-sxm", 1, 1, "fp8", 1000, 1000, 15220),
	trt10("llama-3-8b", "h100-sxm", 1, 1, "fp8", 2048, 2048, 9305), trt10("llama-3-8b", "h100-sxm", 1, 1, "fp8", 5000, 500, 3459),
	trt10("llama-3.1-405b", "rtx-pro-6000", 1, 8, "fp4", 128, 128, 4452), trt10("llama-3.1-405b", "rtx-pro-6000", 1, 8, "fp4", 1000, 1000, 2369),
	trt10("llama-3.1-405b", "rtx-pro-6000", 1, 8, "fp4", 2048, 2048, 1442), trt10("llama-3.1-405b", "rtx-pro-6000", 1, 8, "fp4", 2048, 128, 579),
	// Llama 3.1 405B with TP: FP4 on four B200 (the only B200 cells with TP > 1), FP8 on eight
	// H200 and eight H100.
	trt10("llama-3.1-405b", "b200", 4, 1, "fp4", 128, 128, 6281), trt10("llama-3.1-405b", "b200", 4, 1, "fp4", 1000, 1000, 5209),
	trt10("llama-3.1-405b", "b200", 4, 1, "fp4", 2048, 2048, 4212), trt10("llama-3.1-405b", "b200", 4, 1, "fp4", 2048, 128, 749),
	trt10("llama-3.1-405b", "b200", 4, 1, "fp4", 5000, 500, 1048),
	trt10("llama-3.1-405b", "h200-sxm", 8, 1, "fp8", 128, 128, 3814), trt10("llama-3.1-405b", "h200-sxm", 8, 1, "fp8", 1000, 1000, 3330),
	trt10("llama-3.1-405b", "h200-sxm", 8, 1, "fp8", 2048, 2048, 2948), trt10("llama-3.1-405b", "h200-sxm", 8, 1, "fp8", 2048, 128, 456),
	trt10("llama-3.1-405b", "h200-sxm", 8, 1, "fp8", 5000, 500, 650),
	trt10("llama-3.1-405b", "h100-sxm", 8, 1, "fp8", 128, 128, 3627), trt10("llama-3.1-405b", "h100-sxm", 8, 1, "fp8", 1000, 1000, 2919),
	trt10("llama-3.1-405b", "h100-sxm", 8, 1, "fp8", 2048, 2048, 2296), trt10("llama-3.1-405b", "h100-sxm", 8, 1, "fp8", 2048, 128, 453),
	trt10("llama-3.1-405b", "h100-sxm", 8, 1, "fp8", 5000, 500, 610),

	// The later perf overview (commit 03e27c7, per-GPU figures × GPUs): Llama 3.3 70B on four GPU
	// families, FP4 on Blackwell and FP8 on Hopper; hold-outs all.
	trtLater("h100-sxm", 2, 1, 1000, 1000, 2209), trtLater("h100-sxm", 2, 1, 8192, 1024, 398),
	trtLater("h200-sxm", 2, 1, 1000, 1000, 2587), trtLater("h200-sxm", 2, 1, 8192, 1024, 537),
	trtLater("b200", 1, 1, 1000, 1000, 6920), trtLater("b200", 1, 1, 8192, 1024, 1362),
	trtLater("rtx-pro-6000", 1, 1, 1000, 1000, 1724), trtLater("rtx-pro-6000", 1, 2, 1000, 1000, 1901),
	trtLater("rtx-pro-6000", 1, 1, 8192, 1024, 296), trtLater("rtx-pro-6000", 1, 2, 8192, 1024, 327),
}

// trtLater is one cell of the perf overview at commit 03e27c7 (TensorRT-LLM's PyTorch backend,
// after 1.0): Llama 3.3 70B, FP4 (NVFP4) on Blackwell and FP8 on Hopper, output tokens/s per GPU.
func trtLater(gpu string, tp, pp, isl, osl int, perGPU float64) ServeRun {
	w := "fp8"
	if gpu == "b200" || gpu == "rtx-pro-6000" {
		w = "fp4"
	}
	n := tp * pp
	return ServeRun{ID: "trt-03e27c7-" + gpu + "-70b-" + w + "-tp" + strconv.Itoa(tp) + "pp" + strconv.Itoa(pp) + "-" + strconv.Itoa(isl) + "-" + strconv.Itoa(osl),
		Source: "TRT", Engine: "TensorRT-LLM 03e27c7", Model: "llama-3-70b", GPU: gpu, GPUs: n, TP: tp, PP: pp,
		Precision: "bf16", Weights: w, KV: "fp8", Prompt: isl, Gen: osl, Requests: benchRequests(isl, osl), TRTBench: true,
		OutTokS: perGPU * float64(n),
		Notes:   "per-GPU output tokens/s × GPUs; trtllm-bench's own max batch and max tokens (trtBenchLimits); KV cache in FP8 (U: not printed)"}
}

// b200fp4 is one cell of TensorRT-LLM 1.0's Llama 3.3 70B table: B200, TP 1, FP4 (NVFP4
// checkpoint), total output tokens/s.
func b200fp4(isl, osl int, tokS float64) ServeRun {
	return ServeRun{ID: "trt10-b200-70b-fp4-tp1-" + strconv.Itoa(isl) + "-" + strconv.Itoa(osl), Source: "TRT", Engine: "TensorRT-LLM 1.0",
		Model: "llama-3-70b", GPU: "b200", Intra: "nvlink5", GPUs: 1, TP: 1, PP: 1, Precision: "bf16", Weights: "fp4", KV: "fp8",
		Prompt: isl, Gen: osl, Requests: benchRequests(isl, osl), TRTBench: true, OutTokS: tokS,
		Notes: "trtllm-bench's own max batch and max tokens (trtBenchLimits); KV cache in FP8 (U: not printed)"}
}

// benchRequests is how many of a TensorRT-LLM perf-overview run's requests are served: the
// overview's $num_requests for the lengths (30000 at 128/128, 3000 at 1000/1000, 1500 at
// 2048/2048, 8192/1024 and 5000/500, 3000 at 2048/128), at most 4096 (the most a pipeline of
// 8 micro-batches of 512 runs at once, so the steady state is reached; 30000 would only lengthen
// it).
func benchRequests(isl, osl int) int {
	n := 3000
	switch {
	case isl == 128 && osl == 128:
		n = 30000
	case isl+osl >= 4096:
		n = 1500
	}
	return min(n, 4096)
}

// trt10 is one cell of TensorRT-LLM 1.0's other throughput tables (the perf overview at commit
// 00f3768): total output tokens/s of the TP × PP group, ModelOpt checkpoints (FP8 on Hopper,
// NVFP4 on Blackwell), the KV cache in the checkpoint's format (U: not printed).
func trt10(model, gpu string, tp, pp int, w string, isl, osl int, tokS float64) ServeRun {
	intra := ""
	switch gpu {
	case "b200":
		intra = "nvlink5"
	case "h100-sxm", "h200-sxm":
		intra = "nvlink4"
	}
	return ServeRun{ID: "trt10-" + gpu + "-" + model + "-" + w + "-tp" + strconv.Itoa(tp) + "pp" + strconv.Itoa(pp) + "-" + strconv.Itoa(isl) + "-" + strconv.Itoa(osl),
		Source: "TRT", Engine: "TensorRT-LLM 1.0", Model: model, GPU: gpu, Intra: intra, GPUs: tp * pp, TP: tp, PP: pp,
		Precision: "bf16", Weights: w, KV: "fp8", Prompt: isl, Gen: osl, Requests: benchRequests(isl, osl), TRTBench: true, OutTokS: tokS,
		Notes: "trtllm-bench's own max batch and max tokens (trtBenchLimits); KV cache in FP8 (U: not printed)"}
}
