package published

import (
	"fmt"
	"github.com/splitscope/splitscope/costmodel"
	"math"
	"strconv"

	"github.com/splitscope/splitscope/model"
)

// Measured vLLM serving runs the serving model was not fitted on: the BLIS project's ground
// truth (tag BLIS, docs/references.md §0), 16 experiments of inference-perf against a vLLM
// OpenAI server on H100 SXM, one row per load stage. Pure data: transcribed from each
// experiment's results/stage_N_lifecycle_metrics.json, exp-config.yaml and profile.yaml
// (inference-sim/training, default_args/<Dir>/, commit ed5c1d26900e6909758d5e1641a18edaf56a1caf).
//
// Every run: vLLM V1, the inference-sim/vllm fork with journey tracing (its version not recorded;
// U; training/trainval_data/README.md of inference-sim/inference-sim at commit 9c7ea0365fed:
// H100 80GB HBM3 SXM, CUDA 12.8), --max-num-seqs 128, --max-num-batched-tokens
// 2048, max model length 4096, the model's own dtype (fp16 or bf16), streaming completions with
// ignore_eos; inference-perf's "constant" load type at the stage's rate (its ConstantLoadTimer
// draws exponential gaps scaled to give rate × duration arrivals: a Poisson process of that
// count, replayed here as Poisson arrivals); a shared-prefix workload (a system prompt of
// SharedPrefix random tokens shared by a group, then a random question). Prompt and Gen are the
// measured means of the stage's requests (the random tokens decoded to text and tokenized again:
// about 5% more than system prompt + question), Gen the tokens streamed back.
//
// inference-perf's "inter_token_latency" mean is not the time between tokens (for Llama-2-70B
// on 4 H100s it prints 9.3 ms, less than reading the 34.5 GB of weights each GPU holds once at
// the datasheet's 3.35 TB/s: 10.3 ms), so the checks use the time per output token a request
// sees, (E2E − TTFT) / (Gen − 1), and keep the printed figure as ITLPrinted.
type VLLMRun struct {
	Dir          string // the experiment's directory under default_args/
	Stage        int
	Model        string // a preset, or codellama-34b (codeLlama34B below)
	TP           int
	Workload     string // the BLIS profile: general, codegen, roleplay, reasoning
	SharedPrefix int    // system prompt tokens shared within a group
	Rate         float64
	Duration     float64 // seconds of arrivals in the stage
	Prompt, Gen  float64 // measured means, tokens
	// Measured means and p90s, seconds; OutTokS the stage's output tokens/s; Served and Failed
	// the requests that completed and those the client gave up on (timeouts).
	TTFT, TTFTP90, E2E, E2EP90 float64
	ITLPrinted                 float64
	OutTokS                    float64
	Served, Failed             int
}

// ID names the run: the experiment's model, TP, workload and stage rate.
func (r VLLMRun) ID() string {
	return "blis-" + r.Model + "-tp" + strconv.Itoa(r.TP) + "-" + r.Workload + "-r" + strconv.FormatFloat(r.Rate, 'g', -1, 64)
}

// TPOT is the measured time per output token after the first: (E2E − TTFT) / (Gen − 1).
func (r VLLMRun) TPOT() float64 { return (r.E2E - r.TTFT) / max(r.Gen-1, 1) }

// Overloaded says vLLM did not keep up: requests timed out, or the first token took seconds
// (every reasoning run: 4 req/s of 1450-token outputs is more than the server decodes).
func (r VLLMRun) Overloaded() bool { return r.Failed > 0 || r.TTFT > 10 }

// codeLlama34B is CodeLlama-34b-Instruct-hf's config.json (model_configs/ of the same commit):
// Llama 2's shape with 48 layers, GQA with 8 KV heads, ffn 22016, 16k context.
var codeLlama34B = model.Arch{ID: "codellama-34b", Name: "CodeLlama 34B", Layers: 48, Hidden: 8192, Heads: 64, KVHeads: 8,
	FFN: 22016, Vocab: 32000, GatedMLP: true, MaxSeq: 16384,
	Source: "BLIS: model_configs/CodeLlama-34b-Instruct-hf/config.json of inference-sim/training"}

func blis(dir string, stage int, mdl string, tp int, wl string, shared int, rate, prompt, gen, ttftMS, ttftP90MS, e2eMS, e2eP90MS,
	itlMS, outTokS float64, served, failed int) VLLMRun {
	dur := 600.0
	if wl == "roleplay" || wl == "reasoning" {
		dur = 1200
	}
	return VLLMRun{Dir: dir, Stage: stage, Model: mdl, TP: tp, Workload: wl, SharedPrefix: shared, Rate: rate, Duration: dur,
		Prompt: prompt, Gen: gen, TTFT: ttftMS * 1e-3, TTFTP90: ttftP90MS * 1e-3, E2E: e2eMS * 1e-3, E2EP90: e2eP90MS * 1e-3,
		ITLPrinted: itlMS * 1e-3, OutTokS: outTokS, Served: served, Failed: failed}
}

// MeasuredVLLM are the BLIS runs, one row a load stage. The columns: directory, stage, model,
// TP, profile, shared system prompt, rate (req/s), prompt and output means (tokens), TTFT mean
// and p90 (ms), E2E mean and p90 (ms), the printed ITL mean (ms), output tokens/s, requests
// served and failed.
var MeasuredVLLM = []VLLMRun{
	blis("20260217-155451-llama-2-7b-tp1-codegen", 0, "llama-2-7b", 1, "codegen", 100, 5, 591.6, 193.7, 25.0, 28.4, 1810, 1940, 3.60, 966, 3000, 0),
	blis("20260217-155451-llama-2-7b-tp1-codegen", 1, "llama-2-7b", 1, "codegen", 100, 10, 591.6, 195.8, 29.5, 34.1, 2216, 2426, 4.41, 1953, 6000, 0),
	blis("20260217-162547-llama-2-7b-tp1-roleplay", 0, "llama-2-7b", 1, "roleplay", 150, 6, 785.8, 206.4, 27.1, 31.2, 2071, 2260, 4.06, 1237, 7200, 0),
	blis("20260217-170634-llama-2-7b-tp1-reasoning", 0, "llama-2-7b", 1, "reasoning", 100, 4, 1082.2, 1100.6, 106644.7, 215447.7, 160063, 263205, 18.44, 537, 732, 4068),
	blis("20260217-202857-llama-2-70b-tp4-general", 0, "llama-2-70b", 4, "general", 100, 8, 574.9, 246.1, 57.4, 63.2, 4678, 4754, 9.29, 1955, 4800, 0),
	blis("20260217-202857-llama-2-70b-tp4-general", 1, "llama-2-70b", 4, "general", 100, 20, 574.9, 245.7, 121.3, 250.1, 5577, 5839, 10.97, 4875, 12000, 0),
	blis("20260217-203421-llama-2-70b-hf-tp4-codegen", 0, "llama-2-70b", 4, "codegen", 100, 5, 593.5, 245.0, 53.4, 58.7, 4333, 4446, 8.64, 1218, 3000, 0),
	blis("20260217-203421-llama-2-70b-hf-tp4-codegen", 1, "llama-2-70b", 4, "codegen", 100, 10, 593.5, 244.9, 56.7, 64.3, 4742, 4803, 9.46, 2432, 6000, 0),
	blis("20260217-231439-llama-2-7b-tp1-general", 0, "llama-2-7b", 1, "general", 100, 8, 575.5, 210.0, 27.1, 31.2, 2058, 2226, 4.08, 1676, 4800, 0),
	blis("20260217-231439-llama-2-7b-tp1-general", 1, "llama-2-7b", 1, "general", 100, 20, 575.5, 208.6, 51.9, 61.0, 4158, 4714, 8.26, 4156, 12000, 0),
	blis("20260218-065057-llama-2-70b-hf-tp4-reasoning", 0, "llama-2-70b", 4, "reasoning", 100, 4, 1082.9, 1441.9, 118995.8, 230378.7, 161730, 273946, 14.76, 3076, 3200, 1600),
	blis("20260218-084319-llama-2-70b-tp4-roleplay", 0, "llama-2-70b", 4, "roleplay", 150, 6, 787.4, 249.9, 54.8, 61.1, 4562, 4703, 8.96, 1494, 7200, 0),
	blis("20260218-120914-mixtral-8x7b-v0-1-tp2-codegen", 0, "mixtral-8x7b", 2, "codegen", 100, 5, 589.4, 242.7, 63.0, 61.1, 4519, 4611, 9.00, 1206, 3000, 0),
	blis("20260218-120914-mixtral-8x7b-v0-1-tp2-codegen", 1, "mixtral-8x7b", 2, "codegen", 100, 10, 589.4, 243.6, 56.8, 64.5, 4754, 4852, 9.49, 2421, 6000, 0),
	blis("20260218-130541-mixtral-8x7b-v0-1-tp2-general", 0, "mixtral-8x7b", 2, "general", 100, 8, 570.7, 245.2, 63.9, 63.8, 4796, 4829, 9.52, 1949, 4800, 0),
	blis("20260218-130541-mixtral-8x7b-v0-1-tp2-general", 1, "mixtral-8x7b", 2, "general", 100, 20, 570.7, 245.5, 71.0, 98.8, 5136, 5251, 10.19, 4871, 12000, 0),
	blis("20260218-135247-mixtral-8x7b-v0-1-tp2-reasoning", 0, "mixtral-8x7b", 2, "reasoning", 100, 4, 1075.6, 1419.7, 103034.8, 212575.1, 156421, 271321, 18.43, 1425, 1506, 3294),
	blis("20260218-141024-mixtral-8x7b-v0-1-tp2-roleplay", 0, "mixtral-8x7b", 2, "roleplay", 150, 6, 782.2, 247.9, 60.5, 63.4, 4685, 4845, 9.19, 1483, 7200, 0),
	blis("20260218-150304-codellama-34b-tp2-general", 0, "codellama-34b", 2, "general", 100, 8, 574.2, 250.4, 46.0, 51.5, 3694, 3749, 7.34, 1992, 4800, 0),
	blis("20260218-150304-codellama-34b-tp2-general", 1, "codellama-34b", 2, "general", 100, 20, 574.2, 250.5, 53.8, 60.8, 4252, 4356, 8.44, 4979, 12000, 0),
	blis("20260218-150956-codellama-34b-tp2-codegen", 0, "codellama-34b", 2, "codegen", 100, 5, 593.4, 249.4, 44.5, 49.7, 3610, 3653, 7.20, 1240, 3000, 0),
	blis("20260218-150956-codellama-34b-tp2-codegen", 1, "codellama-34b", 2, "codegen", 100, 10, 593.4, 249.4, 46.1, 52.1, 3779, 3839, 7.54, 2479, 6000, 0),
	blis("20260218-155500-codellama-34b-tp2-roleplay", 0, "codellama-34b", 2, "roleplay", 150, 6, 786.7, 253.5, 45.7, 50.9, 3670, 3717, 7.20, 1517, 7200, 0),
	blis("20260218-160939-codellama-34b-tp2-reasoning", 0, "codellama-34b", 2, "reasoning", 100, 4, 1081.0, 1450.2, 120170.9, 239653.8, 158991, 278063, 13.40, 4673, 4796, 4),
}

// vllmReplayRequests bounds a replay: the stage's arrivals, at most this many (at 20 req/s, 150 s
// of traffic, past the warm-up of every run here).
const vllmReplayRequests = 3000

// vllmScenario rebuilds a measured run: the model on TP H100 SXMs over NVLink 4, the stage's
// rate and mean lengths, vLLM's limits of the run.
func vllmScenario(r VLLMRun, p ServePresets) (model.Scenario, error) {
	sr := ServeRun{Model: r.Model, GPU: "h100-sxm", Intra: "nvlink4", GPUs: r.TP, TP: r.TP, PP: 1, Precision: "fp16",
		Prompt: int(r.Prompt + 0.5), Gen: int(r.Gen + 0.5), Requests: min(int(r.Rate*r.Duration), vllmReplayRequests),
		Rate: r.Rate, MaxSeqs: 128, MaxBatchTokens: 2048}
	var pp ServePresets = p
	if r.Model == codeLlama34B.ID {
		pp = archPresets{p, codeLlama34B}
	}
	s, err := serveScenario(sr, pp)
	// inference-perf's shared_prefix generator cycles a fixed set of prompts (num_groups ×
	// num_prompts_per_group, 100 here, 57,500 tokens): past the first hundred requests every
	// prompt is one vLLM's prefix cache holds, and only its last partial block is prefilled.
	s.Workload.PrefixCached = sr.Prompt
	return s, err
}

// archPresets answers one extra model beside the presets.
type archPresets struct {
	ServePresets
	a model.Arch
}

func (p archPresets) Model(id string) (model.Arch, error) {
	if id == p.a.ID {
		return p.a, nil
	}
	return p.ServePresets.Model(id)
}

// VLLMReplay is a measured run served by the model: the steady window's means (as a 10- or
// 20-minute stage at one rate measures them) and whether the model's queue grows.
type VLLMReplay struct {
	Run                   VLLMRun
	TTFT, TPOT, E2E       float64
	TTFTP90               float64
	OutTokS, RequestsPerS float64
	Overloaded, NotSteady bool
	MaxInSystem           float64 // requests in the system, the larger half of the window
}

// ReplayVLLM serves every measured run.
func ReplayVLLM(p ServePresets) ([]VLLMReplay, error) {
	out := make([]VLLMReplay, 0, len(MeasuredVLLM))
	for _, r := range MeasuredVLLM {
		s, err := vllmScenario(r, p)
		if err != nil {
			return nil, fmt.Errorf("vllm run %s: %w", r.ID(), err)
		}
		inf, err := serveInference(costmodel.EvaluateFast, s, "vllm run "+r.ID())
		if err != nil {
			return nil, err
		}
		x := VLLMReplay{Run: r, TTFT: inf.TTFT, TPOT: inf.TPOT, E2E: inf.E2EMean, TTFTP90: inf.TTFTP90, OutTokS: inf.OutputTokensPerS,
			RequestsPerS: inf.RequestsPerS}
		if c := inf.Confidence; c != nil {
			x.Overloaded, x.NotSteady = c.Overloaded, !c.Steady
			x.MaxInSystem = math.Max(c.InSystemFirst, c.InSystemSecond)
		}
		out = append(out, x)
	}
	return out, nil
}

// Tolerances of the measured vLLM runs (validate's serve-vllm group): what the model achieves,
// not a target. E2E and TPOT: the Llama-2-7B runs are 13–26% fast (a 7B's steps at batch 60+ on
// one H100 take longer than its roofline); the rest within 12%. TTFT: 5–30% short (median 15%).
// These cached prompts prefill in about a decode step, so TTFT is counted in steps: the rest of
// the step running when the request came, the step vLLM V1's async scheduling had already built
// (serve.Config.Overlap: without it every run was 46–58% short), and the step that prefills it;
// measured it is 2.6–3.4 TPOTs, the model's about 2.5 (the rest, half a step or less, is not
// modelled: the API server's tokenizing, detokenizing and streaming, and the client's own).
const (
	vllmTolE2E  = 0.30
	vllmTolTPOT = 0.30
	vllmTolTTFT = 0.35
)

// vllmChecks are validate's rows for the measured runs: E2E, TPOT and TTFT means of each run
// vLLM served, and for each it did not keep up with, the output tokens/s the arrivals ask for
// over those served (above 1 when the queue grows) as an order check.
func vllmChecks(p ServePresets) ([]Check, error) {
	xs, err := ReplayVLLM(p)
	if err != nil {
		return nil, err
	}
	var out []Check
	for _, x := range xs {
		r := x.Run
		note := "[BLIS] vLLM V1, " + r.Dir + " stage " + strconv.Itoa(r.Stage)
		if r.Overloaded() {
			want := r.Rate * r.Gen // output tokens/s the arrivals ask for
			out = append(out, Check{Group: "serve-vllm", Case: r.ID() + " asked/served tok/s", Published: ratio(want, r.OutTokS),
				Predicted: ratio(want, x.OutTokS), Unit: "×", Order: true, Note: note + "; overloaded: the queue grows"})
			continue
		}
		out = append(out,
			Check{Group: "serve-vllm", Case: r.ID() + " E2E", Published: r.E2E, Predicted: x.E2E, Unit: "s", Tolerance: vllmTolE2E, Note: note},
			Check{Group: "serve-vllm", Case: r.ID() + " TPOT", Published: r.TPOT(), Predicted: x.TPOT, Unit: "s", Tolerance: vllmTolTPOT,
				Note: note + "; (E2E − TTFT) / (output − 1)"},
			Check{Group: "serve-vllm", Case: r.ID() + " TTFT", Published: r.TTFT, Predicted: x.TTFT, Unit: "s", Tolerance: vllmTolTTFT,
				Note: note + "; async scheduling: a request is first in the step after next"})
	}
	return out, nil
}
