package published

import (
	"strconv"
	"strings"
)

// Measured SGLang runs on H200 (tag H200B): DataCrunch's reproduction of SGLang's own
// benchmark (sgl-project/sglang benchmark/benchmark_vllm_060) on 4 and 8 × H200 141GB SXM,
// sglang.bench_serving's raw JSON lines (datacrunch-research/h200-benchmarks,
// sglang/outputs/*.jsonl of commit c091ef5, Dec 2024) and the README's offline table (commit
// 80368ba). Hold-outs: nothing was fitted on them.
//
// The engine: SGLang 0.4 (the lmsysorg/sglang:latest image of December 2024; U which patch),
// bf16 weights, --disable-radix-cache, --enable-torch-compile; Llama 3.3 70B Instruct at TP 4
// (the JSON lines), Llama 3.1 405B Instruct at TP 8 with --mem-frac 0.87. SGLang 0.4 prefills
// in batches of their own (chunks of 8192 tokens at most by default, U) between decode batches,
// admits requests while its KV pool has room (max_running_requests unset: up to the pool's
// size, thousands here, so MaxSeqs 2048 is replayed; U), and overlaps the CPU scheduling of the
// next batch with the GPU's current one. Replayed with the profile sglang-0.4: prefill
// batches, and decode batches of more than 160 sequences (cuda_graph_max_bs), run outside CUDA
// graphs, host-bound on a dense 70B or 405B layer (model.EagerDense04).
//
// Workloads: "random" with random_range_ratio 0 draws each prompt's and each output's length
// uniformly from 1 to the asked length (the means printed, ~508 of 1024), replayed uniform
// with those means ("random-range"); ShareGPT with the runs' printed means, replayed like the
// other ShareGPT runs (lognormal, σ 1, U). Figures compared: mean and median E2E, median TTFT,
// median ITL, and the throughput where the server set it (all at once, or a run the engine
// did not keep up with: it served under 80% of the offered requests/s, marked Saturated).
var MeasuredH200 = []MoreRun{
	// Llama 3.3 70B, 4 × H200, TP 4, online: 300 s of Poisson arrivals at 1–16 requests/s.
	h200b(false, "random", 1, 300, 152612, 160347, 298.3675805060193, 7840.616212638561, 7819.046192569658, 85.74514742940664, 13.638956006616354, 537.4142851849319),
	h200b(false, "random", 2, 600, 308748, 308712, 312.6791094408836, 8540.55180882259, 8561.391707509756, 87.55627297796309, 14.830046566203237, 987.3125216200807),
	h200b(false, "random", 4, 1200, 615860, 607936, 296.8566754250787, 12896.330808075727, 12534.854034543969, 106.06311704032123, 19.419891061261296, 2047.9108281108272),
	// At 8 requests/s SGLang served 6.9 (87%: not marked Saturated) with a median ITL of 71 ms
	// against 19 ms at 4: its batch (~360 sequences) outgrew the largest CUDA graph (160), and
	// its decode steps ran eagerly, host-bound (model.CUDAGraphMaxBS04, model.EagerDense04, whose
	// one fitted figure is this run's median ITL).
	h200b(false, "random", 8, 2400, 1222995, 1218922, 346.7753648299258, 52064.764045071985, 50316.21736683883, 191.41179136931896, 70.76324708759785, 3515.0190112201713),
	h200b(false, "random", 16, 3200, 1629242, 1642637, 383.073250005953, 149037.25147111146, 159469.04255752452, 614.2499720444903, 179.12118090316653, 4288.049348197696),
	h200b(false, "sharegpt", 4, 1200, 269081, 226901, 304.126221193932, 3201.4825566502986, 1988.5655880207196, 68.27884959056973, 13.841505162417889, 746.0750970739618),
	h200b(false, "sharegpt", 8, 2400, 540779, 461874, 313.96794493007474, 5302.550664339797, 3291.7507080128416, 83.16566958092153, 17.667690059170127, 1471.0864833760852),
	// The same, all at once (the 4096/1024 run was made twice; the first is used).
	h200bOffline(1024, 1024, 3000, 1525074, 1544818, 341.72106836596504, 224918.79882259612, 243517.67949794885, 91282.20983641222, 159.01175909675658, 4520.698730654741),
	h200bOffline(1024, 512, 4000, 2034177, 1029594, 294.8187796440907, 208761.42100593017, 223212.66481594648, 114572.18416058458, 258.85073677636683, 3492.2944910189917),
	// With 2,047-token prompts (means) all at once, SGLang's median ITL is 120 ms, the model's
	// 69 (−43%): each of SGLang's prefill batches stalls every running sequence's next token, as
	// in the model, but how many stalls fall between two tokens depends on how SGLang's admission
	// (add_one_req_ignore_eos: the whole output of every request reserved) spaces them (U: the
	// model admits by the prompt's blocks and preempts).
	h200bOffline(4096, 2048, 800, 1637669, 818620, 399.0762558989227, 271296.77870080894, 299022.09998399485, 61606.2875110656, 120.47930993139744, 2051.287161036558),
	h200bOffline(4096, 1024, 1500, 3097487, 760205, 459.340072668856, 302930.2032211299, 314937.3645974556, 186501.87655747868, 133.96903011016548, 1654.9938601765348),
	h200bOffline(256, 512, 6000, 777987, 1529561, 230.06317997979932, 156461.67297778238, 173721.9173015328, 33223.93286949955, 187.56905349437147, 6648.4389207099675),
	h200bOffline(0, 0, 2000, 448102, 383064, 97.2262002939824, 51991.706012124894, 48729.666985571384, 18726.9222245086, 85.59322194196284, 3939.9256459856624),
	// The README's offline table (commit 80368ba, 2 Dec 2024, Llama 3.1): 5000 ShareGPT
	// prompts all at once on 4 and 8 × H200 (70B, TP 4 and 8) and 8 × H200 (405B, TP 8);
	// requests/s and output tokens/s only (its E2E column repeats SGL060's H100 figures and is
	// not used). The output mean is output tokens/s ÷ requests/s; the prompt mean is the 2000-prompt
	// run's above (224.1; U).
	h200bReadme(false, 4, 25.14, 4885.17), h200bReadme(false, 8, 37.96, 7376.03), h200bReadme(true, 8, 9.16, 1779.16),
	// Llama 3.1 405B, 8 × H200, TP 8, online.
	h200b(true, "random", 1, 300, 152612, 160347, 317.5, 24371, 24872, 218.8, 38.78, 505.0),
	h200b(true, "random", 2, 600, 308748, 308712, 338.8, 29966, 29645, 244.3, 43.3, 911.1),
	h200b(true, "random", 4, 1200, 615860, 607936, 380.3, 110900, 107013, 602.1, 135.23, 1598.6),
	h200b(true, "random", 8, 2400, 1222995, 1218922, 669.5, 245358, 254232, 123718.6, 189.75, 1820.7),
	h200b(true, "sharegpt", 4, 1200, 269081, 226901, 321.8, 11741, 7325, 182.5, 42.32, 705.0),
	h200b(true, "sharegpt", 8, 2400, 540779, 461874, 377.2, 35253, 22389, 294.7, 108.04, 1224.4),
}

// missed marks figures of a run the model misses by 2× or more, and why.
func missed(r MoreRun, why string, figs ...string) MoreRun {
	r.Miss, r.MissFigs = why, figs
	return r
}

// h200b is an online run: the model (405B at TP 8, else 70B at TP 4), the dataset, the rate,
// the requests, the printed token totals, duration (s), mean and median E2E, median TTFT and
// median ITL (ms), output tokens/s.
func h200b(big bool, dist string, rate float64, n, in, out int, dur, e2eMS, e2e50MS, ttft50MS, itl50MS, outTokS float64) MoreRun {
	r := h200bRun(big, dist, n, in, out, dur, e2eMS, e2e50MS, ttft50MS, itl50MS, outTokS)
	r.Rate = rate
	r.ID += "-r" + strconv.FormatFloat(rate, 'g', -1, 64)
	// Served under 80% of the offered requests/s: the engine's queue grew.
	r.Saturated = r.ReqS < 0.8*rate
	return r
}

// h200bOffline is a 70B run of n prompts all at once (in, out: the asked lengths; 0 for ShareGPT).
func h200bOffline(inLen, outLen, n, in, out int, dur, e2eMS, e2e50MS, ttft50MS, itl50MS, outTokS float64) MoreRun {
	dist := "sharegpt"
	if inLen > 0 {
		dist = "random"
	}
	r := h200bRun(false, dist, n, in, out, dur, e2eMS, e2e50MS, ttft50MS, itl50MS, outTokS)
	if inLen > 0 {
		r.PromptMax, r.GenMax = inLen, outLen
		r.ID += "-" + strconv.Itoa(inLen) + "x" + strconv.Itoa(outLen)
	}
	r.ID += "-rinf"
	return r
}

// h200bReadme is one of the README's offline rows.
func h200bReadme(big bool, tp int, reqS, outTokS float64) MoreRun {
	r := h200bRun(big, "sharegpt", 5000, 0, 0, 1, 0, 0, 0, 0, outTokS)
	r.TP, r.Prompt, r.Gen, r.ReqS, r.E2E = tp, 448102.0/2000, outTokS/reqS, reqS, 0
	r.Engine = "SGLang 0.4 (2 Dec 2024; radix cache off, torch.compile)"
	r.ID = strings.Replace(r.ID, "-tp4-", "-tp"+strconv.Itoa(tp)+"-", 1)
	r.ID = strings.Replace(strings.Replace(r.ID, "h200x4", "h200x"+strconv.Itoa(tp), 1), "llama33", "llama31", 1) + "-readme-rinf"
	return r
}

func h200bRun(big bool, dist string, n, in, out int, dur, e2eMS, e2e50MS, ttft50MS, itl50MS, outTokS float64) MoreRun {
	r := MoreRun{Source: "H200B", Engine: "SGLang 0.4 (Dec 2024; radix cache off, torch.compile)", Profile: "sglang-0.4", Model: "llama-3-70b",
		GPU: "h200-sxm", Intra: "nvlink4", TP: 4, Precision: "bf16", Dist: dist, Prompt: float64(in) / float64(n),
		Gen: float64(out) / float64(n), Requests: n, MaxSeqs: 2048, ReqS: float64(n) / dur, OutTokS: outTokS, E2E: e2eMS * 1e-3,
		E2EP50: e2e50MS * 1e-3, TTFTP50: ttft50MS * 1e-3, ITLP50: itl50MS * 1e-3}
	sys := "h200x4-sglang04-llama33-70b-tp4"
	if big {
		r.Model, r.TP, sys = "llama-3.1-405b", 8, "h200x8-sglang04-llama31-405b-tp8"
	}
	if dist == "random" {
		r.Dist, r.PromptMax, r.GenMax = "random-range", 1024, 1024
	}
	r.ID = "h200b-" + sys + "-" + dist + strconv.Itoa(n)
	return r
}
