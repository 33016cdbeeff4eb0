package published

import "strconv"

// Measured runs of two engines side by side on the same prompts (tag SGL060): SGLang's own
// reproduction of its v0.3.0 release comparison (sgl-project/sglang,
// benchmark/benchmark_vllm_060/README.md), SGLang 0.3.0 against vLLM 0.6.0 with multi-step
// scheduling, Llama 3.1 8B Instruct on one A100 80GB and Llama 3.1 70B Instruct on four H100
// 80GB (TP 4), sglang.bench_serving on ShareGPT: online at 4 and 8 requests/s (1200 and 2400
// prompts; the medians of E2E, TTFT and TPOT printed) and offline, 5000 prompts all at once
// (requests/s and output tokens/s). Hold-outs: nothing was fitted on them.
//
// How each engine schedules, from the README's commands and the versions' defaults: vLLM 0.6.0
// (V0) with --num-scheduler-steps 10 and --max_model_len 4096 (chunked prefill off at that
// length: a waiting prompt is prefilled whole, between decode steps, and with multi-step a
// new request waits for the running 10-step window to end; tokens stream in bursts of 10, so
// the median ITL it prints is 129–275 ms while the median TPOT is 14–29 ms; replayed with the
// vllm-v0-ms profile, model.Engines), 256 sequences at
// most, gpu_memory_utilization 0.9 (0.88 at TP 4 offline); SGLang 0.3.0 with the radix cache
// off (--disable-radix-cache), torch.compile on the 8B, chunked prefill at its default 8192
// tokens, prefill batches run apart from decode batches (mixed chunks off by default),
// mem_frac 0.88 at TP 1, 0.85 online and 0.88 offline at TP 4, replayed with the sglang
// profile.
//
// Lengths: the README prints no token totals. The output mean is the offline rows' output
// tokens/s ÷ requests/s (194.3 on all four: SGLang's bench_serving asks for each ShareGPT
// reply's own length and ignores EOS), taken for the online rows too (U); the prompt mean is
// SGL1639's 226.8 (the same script's ShareGPT sampler a month later, Llama 3's tokenizer:
// 453,502 tokens over 2000 prompts; U). Replayed as lognormals like the other ShareGPT runs.
var MeasuredEngines = []MoreRun{
	sgl060("SGLang 0.3.0", false, 4, 1200, 1564.17, 31.98, 13.17), sgl060("vLLM 0.6.0", false, 4, 1200, 1691.97, 100.48, 14.14),
	sgl060("SGLang 0.3.0", false, 8, 2400, 2175.02, 35.68, 17.85), sgl060("vLLM 0.6.0", false, 8, 2400, 2137.16, 120.39, 17.09),
	sgl060("SGLang 0.3.0", true, 4, 1200, 3005.24, 53.94, 25.03), sgl060("vLLM 0.6.0", true, 4, 1200, 2915.60, 179.15, 23.58),
	sgl060("SGLang 0.3.0", true, 8, 2400, 4064.98, 58.11, 33.07), sgl060("vLLM 0.6.0", true, 8, 2400, 3752.38, 207.12, 29.15),
	sgl060Offline("SGLang 0.3.0", false, 22.03, 4281.51), sgl060Offline("vLLM 0.6.0", false, 21.27, 4132.37),
	sgl060Offline("SGLang 0.3.0", true, 19.84, 3856.01), sgl060Offline("vLLM 0.6.0", true, 19.04, 3700.64),
}

// sgl060Prompt and sgl060Gen are the replayed means (above).
const (
	sgl060Prompt = 226.751
	sgl060Gen    = 194.3
)

// sgl060Run is one of the SGL060 runs: the engine, the 70B on 4 × H100 or the 8B on an A100,
// the rate (0: all at once) and the prompts.
func sgl060Run(engine string, big bool, rate float64, n int) MoreRun {
	r := MoreRun{Source: "SGL060", Engine: engine, Precision: "bf16", Dist: "sharegpt", Prompt: sgl060Prompt, Gen: sgl060Gen,
		Requests: n, Rate: rate, Model: "llama-3-8b", GPU: "a100-sxm-80gb", TP: 1}
	sys := "a100-llama31-8b"
	if big {
		r.Model, r.GPU, r.Intra, r.TP = "llama-3-70b", "h100-sxm", "nvlink4", 4
		sys = "h100x4-llama31-70b-tp4"
	}
	eng := "sglang030"
	r.Profile = "sglang"
	if engine == "vLLM 0.6.0" {
		eng, r.MaxSeqs = "vllm060-ms10", 256
		// V0 at a max_model_len of 4096: whole prompts first, decodes in windows of 10 steps.
		r.Profile, r.Context = "vllm-v0-ms", 4096
		r.Engine = "vLLM 0.6.0 (V0, multi-step 10, no chunked prefill)"
		// Before the vllm-v0-ms profile the model's median TTFT was SGLang's (24–38 ms against
		// 100–207 measured, −76% to −81%, marked missed): it scheduled every step.
	} else {
		r.Engine = "SGLang 0.3.0 (radix cache off)"
	}
	q := "inf"
	if rate > 0 {
		q = strconv.FormatFloat(rate, 'g', -1, 64)
	}
	r.ID = "sgl060-" + sys + "-" + eng + "-sharegpt" + strconv.Itoa(n) + "-r" + q
	return r
}

// sgl060 is an online run: medians of E2E, TTFT and TPOT, ms.
func sgl060(engine string, big bool, rate float64, n int, e2eMS, ttftMS, tpotMS float64) MoreRun {
	r := sgl060Run(engine, big, rate, n)
	r.E2EP50, r.TTFTP50, r.TPOTP50 = e2eMS*1e-3, ttftMS*1e-3, tpotMS*1e-3
	return r
}

// sgl060Offline is an offline run: 5000 prompts all at once, requests/s and output tokens/s.
func sgl060Offline(engine string, big bool, reqS, outTokS float64) MoreRun {
	r := sgl060Run(engine, big, 0, 5000)
	r.ReqS, r.OutTokS = reqS, outTokS
	return r
}
