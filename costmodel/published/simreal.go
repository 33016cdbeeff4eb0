package published

import (
	"fmt"
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Measured vLLM serving runs of the BLIS team's second campaign, not fitted on (tag S2R,
// docs/references.md §0): inference-perf against vLLM V1 OpenAI servers on H100 SXM, A100 SXM
// 80GB and L40S, twelve models (dense 7B–70B, Mixtral 8×7B and 8×22B, Llama 4 Scout in FP8),
// TP 1–8, DP 2 once, max_num_batched_tokens 1024, 2048 and 8192. The measured figures are the
// `actual` column of the campaign's comparison of simulators with these runs
// (inference-sim/sim-to-real-accuracy-validation, results/cluster_2000req/error_records.csv at
// commit 9bcf9391846fc2f08b94fd86919d721e67fe3f25 and results_trainval/error_records.csv at
// 8fb2a1bf606ed64743aae017bff74cbd398bade3): per load stage the means and p90s of TTFT and E2E
// over the requests that succeeded, and its time per output token, (E2E − TTFT) / (output − 1)
// of the means (experiment/ground_truth.py). Runs of this campaign already in MeasuredVLLM (the
// same folders, identical figures: ids 2, 3, 6, 7, 9–12 and the Llama-2-7B codegen run) are not
// repeated.
//
// What each run served: the workload its folder names, from the campaign's workloads.yaml
// (inference-sim/tektonc-data-collection at c3a09fb949f31431dc71444f485f73e8ce1ffc97; its four
// base workloads are exactly the profile.yaml files MeasuredVLLM transcribes): inference-perf's
// "constant" load (Poisson arrivals of the stage's count) and its shared_prefix data, fixed
// lengths, ignore_eos. The runs' own profile.yaml files are not published: the stage rates and
// lengths are the workload's (U: inferred from the folder's workload name; the stage count of
// every run's figures agrees). The outputs are taken at the workload's output_len: the files
// give no measured lengths (U; MeasuredVLLM's runs of the same workloads returned 194–253
// tokens on average for 247–251 asked, inference-perf counting some streams short), so E2E is
// compared at the asked length and TPOT, which the campaign derived with the measured mean
// length, is the sturdier figure. The server: the campaign's template (tektoncsample/
// blis-inference-perf/values.yaml at 00596a6196a0cfc849fa33d6ee3a4a13a27fbdb0) runs
// vllm/vllm-openai:v0.15.1 with --max-model-len 4096 and --max-num-seqs 128, streaming
// completions; the runs with tracing on ran the team's fork of it (U which build, per run). A
// run's --cpu-offload-gb 4 (cpu_offload) and --gpu-memory-utilization 0.95 are not modelled: the
// Llama-3.1-8B runs with and without them differ by 1.7% at most (ids 16, 24, 25).
type S2RRun struct {
	Exp      int    // the campaign's experiment id
	Folder   string // its results folder
	Model    string // a preset, or one of s2rArchs
	GPU      string // h100-sxm, a100-sxm-80gb or l40s
	TP, DP   int
	MaxBatch int    // --max-num-batched-tokens
	FP8      bool   // FP8 weights and GEMMs (RedHatAI's FP8-dynamic checkpoint)
	Workload string // a key of s2rWorkloads
	Stage    int
	// Measured, seconds: TTFT and E2E means and p90s, TPOT as above.
	TTFT, TTFTP90, E2E, E2EP90, TPOT float64
	// Overloaded: the run's first tokens took tens of seconds (its queue grew); the campaign
	// kept these out of its own comparison but for one simulator.
	Overloaded bool
}

// s2rWorkload is one workloads.yaml entry: its stages' rates and durations, the shared
// system prompt and the question after it, and the forced output length. Each cycles a fixed
// set of prompts (system prompts × users: 45 for general and general-lite, 44 for codegen, 50
// for roleplay, 23 for the reasoning ones).
type s2rWorkload struct {
	rates, durations      []float64
	system, question, out int
}

var s2rWorkloads = map[string]s2rWorkload{
	"general":        {[]float64{8, 20}, []float64{600, 600}, 100, 447, 248},
	"codegen":        {[]float64{5, 10}, []float64{600, 600}, 100, 466, 247},
	"roleplay":       {[]float64{6}, []float64{1200}, 150, 600, 251},
	"reasoning":      {[]float64{4}, []float64{1200}, 100, 934, 1448},
	"general-lite":   {[]float64{2.5, 6}, []float64{600, 600}, 100, 447, 248},
	"reasoning-lite": {[]float64{1}, []float64{1200}, 100, 934, 1448},
}

// Rate is the stage's arrival rate, requests/s.
func (r S2RRun) Rate() float64 { return s2rWorkloads[r.Workload].rates[r.Stage] }

// ID names the run: experiment, model, GPU, layout, batch budget, workload and stage rate.
func (r S2RRun) ID() string {
	id := "s2r-" + strconv.Itoa(r.Exp) + "-" + r.Model + "-" + r.GPU + "-tp" + strconv.Itoa(r.TP)
	if r.DP > 1 {
		id += "dp" + strconv.Itoa(r.DP)
	}
	return id + "-mbt" + strconv.Itoa(r.MaxBatch) + "-" + r.Workload + "-r" + strconv.FormatFloat(r.Rate(), 'g', -1, 64)
}

// The campaign's models that are not presets, from their config.json files.
var (
	// qwen3_14B is Qwen/Qwen3-14B: 40 layers, hidden 5120, 40 heads of 128 with 8 KV heads,
	// ffn 17408, vocabulary 151936, untied embeddings, per-head q/k norms.
	qwen3_14B = model.Arch{ID: "qwen3-14b", Name: "Qwen3 14B", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 8,
		FFN: 17408, Vocab: 151936, GatedMLP: true, QKNorm: true, MaxSeq: 40960, Source: "Qwen/Qwen3-14B config.json"}
	// mistralNemo is mistralai/Mistral-Nemo-Instruct-2407: 40 layers, hidden 5120, 32 heads of
	// 128 (queries 4096 wide) with 8 KV heads, ffn 14336, vocabulary 131072, untied.
	mistralNemo = model.Arch{ID: "mistral-nemo-12b", Name: "Mistral NeMo 12B", Layers: 40, Hidden: 5120, Heads: 32, KVHeads: 8,
		HeadSize: 128, FFN: 14336, Vocab: 131072, GatedMLP: true, MaxSeq: 131072, Source: "mistralai/Mistral-Nemo-Instruct-2407 config.json"}
	// yi34B is 01-ai/Yi-34B: 60 layers, hidden 7168, 56 heads with 8 KV heads, ffn 20480,
	// vocabulary 64000, untied, 4096 positions.
	yi34B = model.Arch{ID: "yi-34b", Name: "Yi 34B", Layers: 60, Hidden: 7168, Heads: 56, KVHeads: 8,
		FFN: 20480, Vocab: 64000, GatedMLP: true, MaxSeq: 4096, Source: "01-ai/Yi-34B config.json"}
)

var s2rArchs = []model.Arch{qwen3_14B, mistralNemo, yi34B, qwen25_7B, codeLlama34B, mixtral8x22b}

// s2r is one stage of a run; figures in ms.
func s2r(exp int, folder, mdl, gpu string, tp, dp, mbt int, wl string, stage int, ttft, ttftP90, e2e, e2eP90, tpot float64) S2RRun {
	return S2RRun{Exp: exp, Folder: folder, Model: mdl, GPU: gpu, TP: tp, DP: max(dp, 1), MaxBatch: mbt, Workload: wl, Stage: stage,
		TTFT: ttft * 1e-3, TTFTP90: ttftP90 * 1e-3, E2E: e2e * 1e-3, E2EP90: e2eP90 * 1e-3, TPOT: tpot * 1e-3}
}

// MeasuredS2R are the campaign's runs, one row a load stage. The columns: experiment id, folder,
// model, GPU, TP, DP, max_num_batched_tokens, workload, stage, TTFT mean and p90, E2E mean and
// p90, TPOT (ms).
var MeasuredS2R = func() []S2RRun {
	const h100, a100, l40s = "h100-sxm", "a100-sxm-80gb", "l40s"
	rs := []S2RRun{
		s2r(13, "13-qwen3-14b-tp1-general-1", "qwen3-14b", h100, 1, 1, 2048, "general", 0, 41.7, 46.8, 3311.6, 3450.5, 13.33),
		s2r(13, "13-qwen3-14b-tp1-general-1", "qwen3-14b", h100, 1, 1, 2048, "general", 1, 54.5, 61.9, 4365.1, 4591.3, 17.54),
		s2r(14, "14-qwen3-14b-tp1-codegen-1", "qwen3-14b", h100, 1, 1, 2048, "codegen", 0, 39.6, 44.5, 3120.3, 3202.8, 12.60),
		s2r(14, "14-qwen3-14b-tp1-codegen-1", "qwen3-14b", h100, 1, 1, 2048, "codegen", 1, 43.3, 49.1, 3417.9, 3567.9, 13.76),
		s2r(15, "15-qwen3-14b-tp1-roleplay-1", "qwen3-14b", h100, 1, 1, 2048, "roleplay", 0, 41.3, 46.4, 3285.0, 3360.2, 13.11),
		s2r(16, "16-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 0, 25.2, 28.2, 1892.7, 1943.6, 7.90),
		s2r(16, "16-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 1, 29.9, 33.9, 2278.1, 2392.5, 9.49),
		s2r(18, "18-llama-3-1-8b-tp1-codegen-1", "llama-3-8b", h100, 1, 1, 2048, "codegen", 0, 24.5, 27.5, 1813.3, 1862.2, 7.59),
		s2r(18, "18-llama-3-1-8b-tp1-codegen-1", "llama-3-8b", h100, 1, 1, 2048, "codegen", 1, 25.7, 28.8, 1927.9, 1977.5, 8.08),
		s2r(19, "19-llama-3-1-8b-tp1-roleplay-1", "llama-3-8b", h100, 1, 1, 2048, "roleplay", 0, 26.0, 28.8, 1884.8, 1944.5, 7.77),
		s2r(22, "22-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 1024, "general", 0, 26.0, 29.2, 1984.9, 2054.4, 8.27),
		s2r(22, "22-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 1024, "general", 1, 33.3, 38.1, 2581.9, 2760.6, 10.79),
		s2r(23, "23-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 8192, "general", 0, 25.6, 28.5, 1884.9, 1940.4, 7.81),
		s2r(23, "23-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 8192, "general", 1, 30.4, 34.2, 2236.2, 2351.4, 9.32),
		s2r(24, "24-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 0, 26.1, 28.6, 1857.6, 1906.8, 7.79),
		s2r(24, "24-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 1, 31.0, 34.6, 2229.7, 2357.7, 9.33),
		s2r(25, "25-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 0, 25.2, 28.2, 1898.6, 1953.1, 7.90),
		s2r(25, "25-llama-3-1-8b-tp1-general-1", "llama-3-8b", h100, 1, 1, 2048, "general", 1, 29.4, 33.3, 2229.9, 2346.3, 9.28),
		s2r(26, "26-llama-3-1-8b-tp2-general-2", "llama-3-8b", h100, 2, 1, 2048, "general", 0, 19.0, 21.0, 1228.2, 1282.3, 5.12),
		s2r(26, "26-llama-3-1-8b-tp2-general-2", "llama-3-8b", h100, 2, 1, 2048, "general", 1, 21.7, 24.2, 1407.2, 1475.2, 5.87),
		s2r(27, "27-mixtral-8x7b-tp2-general-lite-2-1", "mixtral-8x7b", h100, 2, 1, 1024, "general-lite", 0, 56.3, 55.7, 4055.1, 4218.3, 16.38),
		s2r(27, "27-mixtral-8x7b-tp2-general-lite-2-1", "mixtral-8x7b", h100, 2, 1, 1024, "general-lite", 1, 53.3, 60.9, 4616.6, 4791.8, 18.74),
		s2r(28, "28-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 8192, "general", 0, 67.0, 63.1, 4806.3, 4833.6, 19.40),
		s2r(28, "28-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 8192, "general", 1, 62.4, 69.2, 5121.1, 5233.7, 20.70),
		s2r(29, "29-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 2048, "general", 0, 64.6, 63.5, 4799.9, 4825.4, 19.33),
		s2r(29, "29-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 2048, "general", 1, 66.1, 70.2, 5112.5, 5224.7, 20.61),
		s2r(30, "30-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 2048, "general", 0, 70.2, 62.9, 4802.1, 4801.4, 19.40),
		s2r(30, "30-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", h100, 2, 1, 2048, "general", 1, 61.2, 69.2, 5079.5, 5187.8, 20.53),
		s2r(31, "31-mixtral-8x7b-tp4-general-4", "mixtral-8x7b", h100, 4, 1, 2048, "general", 0, 37.7, 36.7, 2570.0, 2629.8, 10.32),
		s2r(31, "31-mixtral-8x7b-tp4-general-4", "mixtral-8x7b", h100, 4, 1, 2048, "general", 1, 36.8, 41.6, 2891.3, 2989.1, 11.63),
		s2r(32, "32-mixtral-8x7b-tp2-general-2-2", "mixtral-8x7b", h100, 2, 2, 2048, "general", 0, 54.0, 58.8, 4430.8, 4474.7, 18.09),
		s2r(32, "32-mixtral-8x7b-tp2-general-2-2", "mixtral-8x7b", h100, 2, 2, 2048, "general", 1, 57.7, 65.9, 4951.7, 5046.4, 20.16),
		s2r(36, "36-qwen3-14b-tp1-general-lite-1", "qwen3-14b", a100, 1, 1, 2048, "general-lite", 0, 72.2, 81.0, 5644.5, 6048.9, 22.77),
		s2r(36, "36-qwen3-14b-tp1-general-lite-1", "qwen3-14b", a100, 1, 1, 2048, "general-lite", 1, 90.5, 104.6, 7400.9, 7934.6, 29.73),
		s2r(38, "38-llama-3-1-8b-tp1-general-lite-1-1", "llama-3-8b", a100, 1, 1, 2048, "general-lite", 0, 42.2, 46.2, 3067.3, 3167.4, 12.80),
		s2r(38, "38-llama-3-1-8b-tp1-general-lite-1-1", "llama-3-8b", a100, 1, 1, 2048, "general-lite", 1, 45.9, 52.4, 3619.8, 3810.6, 15.08),
		s2r(40, "40-codellama-34b-tp2-general-lite-2", "codellama-34b", a100, 2, 1, 2048, "general-lite", 0, 82.2, 89.2, 6588.6, 6697.5, 26.14),
		s2r(40, "40-codellama-34b-tp2-general-lite-2", "codellama-34b", a100, 2, 1, 2048, "general-lite", 1, 89.2, 102.8, 7271.8, 7515.1, 28.85),
		s2r(41, "41-llama-2-70b-tp4-general-lite-4", "llama-2-70b", a100, 4, 1, 2048, "general-lite", 0, 98.9, 106.3, 8033.8, 8010.0, 32.36),
		s2r(41, "41-llama-2-70b-tp4-general-lite-4", "llama-2-70b", a100, 4, 1, 2048, "general-lite", 1, 112.7, 135.9, 9444.7, 10541.5, 38.09),
		s2r(42, "42-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", a100, 2, 1, 2048, "general", 0, 110.7, 118.1, 9053.7, 9162.3, 36.61),
		s2r(46, "46-llama-3-1-8b-tp1-reasoning-1", "llama-3-8b", h100, 1, 1, 2048, "reasoning", 0, 50.1, 58.4, 22753.0, 25084.1, 16.36),
		s2r(49, "49-mixtral-8x22b-tp8-general-8", "mixtral-8x22b", h100, 8, 1, 2048, "general", 0, 63.9, 60.0, 4477.6, 4455.6, 17.81),
		s2r(49, "49-mixtral-8x22b-tp8-general-8", "mixtral-8x22b", h100, 8, 1, 2048, "general", 1, 61.0, 68.8, 4964.8, 5004.4, 19.79),
		s2r(50, "50-mixtral-8x22b-tp8-codegen-8", "mixtral-8x22b", h100, 8, 1, 2048, "codegen", 0, 68.2, 59.9, 4501.3, 4480.2, 17.97),
		s2r(50, "50-mixtral-8x22b-tp8-codegen-8", "mixtral-8x22b", h100, 8, 1, 2048, "codegen", 1, 53.2, 60.2, 4419.9, 4464.1, 17.70),
		s2r(51, "51-mixtral-8x22b-tp8-roleplay-8", "mixtral-8x22b", h100, 8, 1, 2048, "roleplay", 0, 57.7, 59.9, 4509.6, 4539.5, 17.76),
		s2r(53, "53-mixtral-8x22b-tp8-reasoning-8", "mixtral-8x22b", h100, 8, 1, 2048, "reasoning", 0, 939.6, 3565.4, 30969.6, 33590.9, 20.83),
		s2r(53, "53-mixtral-8x22b-tp8-reasoning-lite-8-1", "mixtral-8x22b", h100, 8, 1, 2048, "reasoning-lite", 0, 65.6, 64.9, 26005.5, 26410.3, 18.21),
		s2r(54, "54-qwen3-14b-tp1-general-lite-1", "qwen3-14b", l40s, 1, 1, 2048, "general-lite", 0, 140.6, 162.3, 12401.3, 12818.8, 49.83),
		s2r(54, "54-qwen3-14b-tp1-general-lite-1", "qwen3-14b", l40s, 1, 1, 2048, "general-lite", 1, 543.0, 1389.0, 17994.0, 19982.7, 71.03),
		s2r(55, "55-llama-3-1-8b-tp1-general-lite-1", "llama-3-8b", l40s, 1, 1, 2048, "general-lite", 0, 74.1, 85.3, 6337.5, 6658.6, 26.46),
		s2r(55, "55-llama-3-1-8b-tp1-general-lite-1", "llama-3-8b", l40s, 1, 1, 2048, "general-lite", 1, 90.1, 104.5, 7937.8, 8478.0, 33.22),
		s2r(56, "56-mixtral-8x7b-tp2-general-2-1", "mixtral-8x7b", h100, 2, 1, 2048, "general", 0, 63.7, 62.7, 4810.9, 4844.8, 19.47),
		s2r(56, "56-mixtral-8x7b-tp2-general-2-1", "mixtral-8x7b", h100, 2, 1, 2048, "general", 1, 62.6, 69.1, 5122.9, 5239.4, 20.75),
		s2r(57, "57-codellama-34b-tp2-general-lite-2-1", "codellama-34b", h100, 2, 1, 2048, "general-lite", 0, 43.1, 48.0, 3489.8, 3503.5, 13.85),
		s2r(57, "57-codellama-34b-tp2-general-lite-2-1", "codellama-34b", h100, 2, 1, 2048, "general-lite", 1, 43.1, 48.9, 3626.4, 3682.7, 14.40),
		s2r(58, "58-llama-2-70b-tp4-general-lite-4-1", "llama-2-70b", h100, 4, 1, 2048, "general-lite", 0, 49.9, 55.9, 4096.8, 4192.1, 16.44),
		s2r(58, "58-llama-2-70b-tp4-general-lite-4-1", "llama-2-70b", h100, 4, 1, 2048, "general-lite", 1, 51.3, 58.4, 4394.6, 4521.5, 17.66),
		s2r(59, "59-qwen3-14b-tp1-general-lite-1-1", "qwen3-14b", h100, 1, 1, 2048, "general-lite", 0, 38.1, 43.0, 3017.6, 3084.5, 12.20),
		s2r(59, "59-qwen3-14b-tp1-general-lite-1-1", "qwen3-14b", h100, 1, 1, 2048, "general-lite", 1, 39.2, 44.4, 3206.5, 3272.0, 12.87),
		// results_trainval: the runs of the BLIS team's training set.
		s2r(60, "60-llama-3-1-70b-tp4-general-lite-4-1", "llama-3-70b", h100, 4, 1, 8192, "general-lite", 0, 52.0, 58.1, 4207.9, 4286.5, 17.08),
		s2r(60, "60-llama-3-1-70b-tp4-general-lite-4-1", "llama-3-70b", h100, 4, 1, 8192, "general-lite", 1, 54.4, 62.2, 4624.5, 4807.3, 18.80),
		s2r(61, "61-llama-3-1-70b-tp4-codegen-4-1", "llama-3-70b", h100, 4, 1, 2048, "codegen", 0, 54.7, 61.1, 4494.7, 4607.1, 18.30),
		s2r(61, "61-llama-3-1-70b-tp4-codegen-4-1", "llama-3-70b", h100, 4, 1, 2048, "codegen", 1, 59.8, 68.0, 5013.7, 5109.8, 20.43),
		s2r(62, "62-mistral-nemo-12b-tp2-general-lite-2-1", "mistral-nemo-12b", h100, 2, 1, 1024, "general-lite", 0, 22.0, 24.2, 1497.5, 1521.4, 6.00),
		s2r(62, "62-mistral-nemo-12b-tp2-general-lite-2-1", "mistral-nemo-12b", h100, 2, 1, 1024, "general-lite", 1, 21.6, 24.1, 1549.3, 1581.8, 6.21),
		s2r(63, "63-mistral-nemo-12b-tp1-codegen-1-1", "mistral-nemo-12b", h100, 1, 1, 2048, "codegen", 0, 31.9, 35.8, 2449.8, 2513.3, 9.86),
		s2r(63, "63-mistral-nemo-12b-tp1-codegen-1-1", "mistral-nemo-12b", h100, 1, 1, 2048, "codegen", 1, 33.7, 38.1, 2627.9, 2703.1, 10.58),
		s2r(64, "64-qwen2-5-7b-instruct-tp1-roleplay-1-1", "qwen2.5-7b", h100, 1, 1, 2048, "roleplay", 0, 26.7, 35.4, 1771.8, 1821.7, 7.02),
		s2r(65, "65-01-ai-yi-34b-tp2-general-lite-2-1", "yi-34b", h100, 2, 1, 2048, "general-lite", 0, 46.6, 52.1, 3780.2, 3833.4, 15.08),
		s2r(65, "65-01-ai-yi-34b-tp2-general-lite-2-1", "yi-34b", h100, 2, 1, 2048, "general-lite", 1, 47.1, 53.4, 3939.5, 3971.2, 15.75),
		s2r(66, "66-qwen2-5-7b-instruct-tp1-reasoning-lite-1-1", "qwen2.5-7b", h100, 1, 1, 1024, "reasoning-lite", 0, 30.8, 40.5, 10662.2, 11143.8, 7.45),
		s2r(67, "67-llama-2-7b-hf-tp1-reasoning-lite-1-1", "llama-2-7b", h100, 1, 1, 2048, "reasoning-lite", 0, 55.1, 63.8, 17062.1, 19891.6, 15.20),
	}
	scout := []S2RRun{
		s2r(17, "17-llama-4-scout-17b-16e-tp2-general-lite-2-1", "llama-4-scout", h100, 2, 1, 2048, "general-lite", 0, 57.8, 63.9, 4460.3, 4836.9, 17.90),
		s2r(17, "17-llama-4-scout-17b-16e-tp2-general-lite-2-1", "llama-4-scout", h100, 2, 1, 2048, "general-lite", 1, 64.8, 74.6, 5607.5, 5862.7, 22.53),
		s2r(20, "20-llama-4-scout-17b-16e-tp2-codegen-2", "llama-4-scout", h100, 2, 1, 2048, "codegen", 0, 65.2, 73.3, 5391.0, 5625.7, 21.73),
		s2r(20, "20-llama-4-scout-17b-16e-tp2-codegen-2", "llama-4-scout", h100, 2, 1, 2048, "codegen", 1, 76.6, 88.2, 6662.0, 6909.6, 26.88),
		s2r(21, "21-llama-4-scout-17b-16e-tp2-roleplay-2", "llama-4-scout", h100, 2, 1, 2048, "roleplay", 0, 67.0, 76.1, 5803.8, 6097.1, 23.05),
		s2r(48, "48-llama-4-scout-17b-16e-tp2-reasoning-lite-2-1", "llama-4-scout", h100, 2, 1, 2048, "reasoning-lite", 0, 138.2, 175.7, 40835.0, 44546.3, 28.68),
	}
	for i := range scout {
		scout[i].FP8 = true
	}
	// The run whose queue grew: Mixtral 8×7B on two A100s at 20 requests/s (its first stage,
	// at 8, is above). Left out: the same model on two H100s at 1024 batched tokens under
	// "general" (27-mixtral-8x7b-tp2-general-2, kept out of the campaign's own comparison but for
	// one simulator and re-run as general-lite): its TPOT of 74.4 ms at 8 requests/s is 3.8× the
	// same server's 19.3–19.4 ms at 8 with 2048 or 8192 tokens (ids 28–30) and its re-run's
	// 16.4–18.7 ms at 2.5–6, so not the load's doing (the model serves it at 20.0 ms; U why).
	over := []S2RRun{
		s2r(42, "42-mixtral-8x7b-tp2-general-2", "mixtral-8x7b", a100, 2, 1, 2048, "general", 1, 146722.5, 261846.8, 156526.5, 271640.1, 40.07),
	}
	for i := range over {
		over[i].Overloaded = true
	}
	return append(append(rs, scout...), over...)
}()

// s2rReplayRequests bounds a stage's replay, as vllmReplayRequests does.
const s2rReplayRequests = 3000

// s2rScenario rebuilds one stage: the model on TP × DP GPUs of the run's kind (NVLink 4 on
// H100, NVLink 3 on A100, the L40S's PCIe), the stage's Poisson rate and its workload's fixed
// lengths, vLLM's limits of the template and the run's batched-token budget. The workload's
// prompts are a fixed set the client cycles (45–50, or 23), so past its first round every
// prompt is in vLLM's prefix cache, as in vllmScenario.
func s2rScenario(r S2RRun, p ServePresets) (model.Scenario, error) {
	w, ok := s2rWorkloads[r.Workload]
	if !ok || r.Stage < 0 || r.Stage >= len(w.rates) {
		return model.Scenario{}, fmt.Errorf("s2r run %d: workload %q has no stage %d", r.Exp, r.Workload, r.Stage)
	}
	intra := map[string]string{"h100-sxm": "nvlink4", "a100-sxm-80gb": "nvlink3"}[r.GPU]
	prec := "fp16"
	if r.FP8 {
		prec = "fp8"
	}
	rate := w.rates[r.Stage]
	sr := ServeRun{Model: r.Model, GPU: r.GPU, Intra: intra, GPUs: r.TP * r.DP, TP: r.TP, PP: 1, Precision: prec,
		Prompt: w.system + w.question, Gen: w.out, Requests: min(int(rate*w.durations[r.Stage]), s2rReplayRequests),
		Rate: rate, MaxSeqs: 128, MaxBatchTokens: r.MaxBatch}
	var ps ServePresets = p
	for _, a := range s2rArchs {
		if a.ID == r.Model {
			ps = archPresets{p, a}
		}
	}
	s, err := serveScenario(sr, ps)
	if err != nil {
		return s, err
	}
	s.Workload.PrefixCached = sr.Prompt
	return s, nil
}

// S2RReplay is a stage served by the model: the steady window's means (as VLLMReplay).
type S2RReplay struct {
	Run                   S2RRun
	TTFT, TPOT, E2E       float64
	TTFTP90               float64
	OutTokS, RequestsPerS float64
	Overloaded, NotSteady bool
}

// ReplayS2R serves every stage of MeasuredS2R.
func ReplayS2R(p ServePresets) ([]S2RReplay, error) {
	out := make([]S2RReplay, 0, len(MeasuredS2R))
	for _, r := range MeasuredS2R {
		s, err := s2rScenario(r, p)
		if err != nil {
			return nil, fmt.Errorf("s2r run %s: %w", r.ID(), err)
		}
		inf, err := serveInference(costmodel.EvaluateFast, s, "s2r run "+r.ID())
		if err != nil {
			return nil, err
		}
		x := S2RReplay{Run: r, TTFT: inf.TTFT, TPOT: inf.TPOT, E2E: inf.E2EMean, TTFTP90: inf.TTFTP90,
			OutTokS: inf.OutputTokensPerS, RequestsPerS: inf.RequestsPerS}
		if c := inf.Confidence; c != nil {
			x.Overloaded, x.NotSteady = c.Overloaded, !c.Steady
		}
		out = append(out, x)
	}
	return out, nil
}

// Tolerances of the campaign's runs (validate's serve-s2r group): what the model achieves with
// a margin, not a target. TTFT: H100 runs −29% to +4% (the cached prompts' first token, counted
// in steps as in vllmChecks), A100, L40S and FP8 Scout runs to −57%; TPOT and E2E: A100 and
// L40S at their higher stage −16% to −25%, the rest within 15%.
const (
	s2rTolE2E  = 0.30
	s2rTolTPOT = 0.30
	s2rTolTTFT = 0.60
)

// s2rKnees say why two stages' first tokens are shown and not checked: both ran at a knee,
// where a few percent of decode time decide whether a queue forms.
var s2rKnees = map[string]string{
	// 4 requests/s × 31.0 s measured is 124 sequences in flight, under --max-num-seqs 128 (p99
	// TTFT 7.8 s: the queue came and went); × the model's 33.8 s, 135: over it.
	"53-mixtral-8x22b-tp8-reasoning-8/0": "at --max-num-seqs: 124 of 128 sequences in flight measured (rate × E2E), 135 in the model",
	// 6 requests/s × 18.0 s is 108 requests in flight, more than the L40S's KV cache holds (90%
	// of its 46,068 MiB less Qwen3-14B's 29.5 GB of weights and the activations: about 12 GB,
	// 160 KiB a token, some 73,000 tokens, about 90 requests of 795; p99 TTFT 5.2 s); the
	// model's decode is 23% faster there, 82 in flight, and no queue forms.
	"54-qwen3-14b-tp1-general-lite-1/1": "at the KV cache's limit: 108 requests in flight measured (rate × E2E) against about 90 that fit; 82 in the model, whose TPOT is 23% short",
}

// s2rChecks are validate's rows for the campaign: E2E, TPOT and TTFT means of each stage vLLM
// served, and for the one whose queue grew its mean TTFT over 10 s (above 1 when the queue grows)
// as an order check.
func s2rChecks(p ServePresets) ([]Check, error) {
	xs, err := ReplayS2R(p)
	if err != nil {
		return nil, err
	}
	var out []Check
	for _, x := range xs {
		r := x.Run
		note := "[S2R] vLLM 0.15.1 V1, " + r.Folder + " stage " + strconv.Itoa(r.Stage)
		knee := s2rKnees[r.Folder+"/"+strconv.Itoa(r.Stage)]
		if knee != "" {
			note += fmt.Sprintf("; TTFT not checked: %.0f ms measured, %.0f ms in the model, %s", 1e3*r.TTFT, 1e3*x.TTFT, knee)
		}
		if r.Overloaded {
			out = append(out, Check{Group: "serve-s2r", Case: r.ID() + " TTFT / 10 s", Published: r.TTFT / 10,
				Predicted: x.TTFT / 10, Unit: "×", Order: true, Note: note + "; overloaded: the queue grows (a mean first token over 10 s, as VLLMRun.Overloaded)"})
			continue
		}
		out = append(out,
			Check{Group: "serve-s2r", Case: r.ID() + " E2E", Published: r.E2E, Predicted: x.E2E, Unit: "s", Tolerance: s2rTolE2E, Note: note},
			Check{Group: "serve-s2r", Case: r.ID() + " TPOT", Published: r.TPOT, Predicted: x.TPOT, Unit: "s", Tolerance: s2rTolTPOT, Note: note})
		if knee == "" {
			out = append(out, Check{Group: "serve-s2r", Case: r.ID() + " TTFT", Published: r.TTFT, Predicted: x.TTFT, Unit: "s",
				Tolerance: s2rTolTTFT, Note: note})
		}
	}
	return out, nil
}
