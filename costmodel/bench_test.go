package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The README's speed figures come from these (go test ./costmodel -run '^$' -bench . -cpu 1).

func benchScenario(b *testing.B) model.Scenario {
	s := scenario(b, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Layout = model.Layout{TP: 2, PP: 4, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
	return s
}

// megatron1T is the Table 1 row with PP = 64 and m = 512 micro-batches per pipeline.
func megatron1T(b *testing.B) model.Scenario {
	return seleneScenario(b, presets(b), gptArch(128, 25600, 160), 8, 64, 3072, 3072)
}

func BenchmarkEvaluateTimeline8GPU(b *testing.B) {
	s := benchScenario(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateFast8GPU(b *testing.B) {
	s := benchScenario(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateTimeline1T(b *testing.B) {
	s := megatron1T(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateInfer8GPU(b *testing.B) {
	s := benchScenario(b)
	s.Workload.Mode = model.Infer
	s.Layout.MicroBatch = 2
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(s); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSearch(b *testing.B, gpus int) {
	p := presets(b)
	a, _ := p.Model("gpt3-175b")
	perS := searchLoop(b, seleneScenario(b, p, a, 8, 8, gpus, 1536))
	// Beside Calculon's: its own search, timed here on one core over the same GPT-3 175B on 4096
	// A100s (README, Speed), runs 77 configurations a second.
	const calculonPerS = 77
	b.ReportMetric(perS/calculonPerS, "x-calculon")
}

// searchLoop runs Search on s for the benchmark and reports the space it covers and its rate
// (configurations a second), which it returns.
func searchLoop(b *testing.B, s model.Scenario) float64 {
	b.ReportAllocs()
	var space int
	for b.Loop() {
		res, err := Search(s, SearchOptions{})
		if err != nil || res.Feasible == 0 {
			b.Fatalf("search: %v, %d feasible", err, res.Feasible)
		}
		space = res.Counts.Space
	}
	perS := float64(space) * float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(float64(space), "configs")
	b.ReportMetric(perS, "configs/s")
	return perS
}

func BenchmarkSearchGPT3175B1024GPU(b *testing.B) { benchSearch(b, 1024) }

// Search with expert parallelism over a 671B MoE of mixed layers (DeepSeek-V3: MLA, 3 dense and
// 58 MoE layers) on 2048 H100s: every TP × PP × DP × EP split and knob.
func BenchmarkSearchDeepSeekV3_2048GPU(b *testing.B) {
	p := presets(b)
	a, err := p.Model("deepseek-v3")
	if err != nil {
		b.Fatal(err)
	}
	s := scenario(b, "llama-2-7b", "h100-sxm", "nvlink4", 2048, 8, 1)
	s.Arch = a
	s.Workload.Seq, s.Workload.GlobalBatch = 4096, 4096
	searchLoop(b, s)
}
func BenchmarkSearchGPT3175B4096GPU(b *testing.B) { benchSearch(b, 4096) }

// BenchmarkSearchGPT3175B16384GPU: the same batch over 16,384 GPUs (every split down to one
// sequence a replica).
func BenchmarkSearchGPT3175B16384GPU(b *testing.B) { benchSearch(b, 16384) }

// Serving: 10,000 requests at 20 req/s on 8 H100s (TP 8), lengths drawn from uniform prompts
// of 128–2048 tokens and lognormal outputs around 256.
func benchServeScenario(b *testing.B, gpu, intra string, tp, pp, requests int, rate float64) model.Scenario {
	s := scenario(b, "llama-3-70b", gpu, intra, 8, tp, pp)
	s.Workload.Mode = model.Infer
	s.Workload.Requests, s.Workload.Rate = requests, rate
	s.Workload.PromptDist = &model.LengthDist{Kind: model.Uniform, Min: 128, Max: 2048}
	s.Workload.GenDist = &model.LengthDist{Kind: model.LogNormal, Mean: 256, Sigma: 0.6, Max: 1024}
	return s
}

func BenchmarkServe10kRequests(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 10000, 20)
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// 10,000 requests as 2,500 conversations of 4 turns on 8 H100s (TP 8), a 30 s think time and a
// 32 GiB host tier per GPU: the prefix pool's eviction and the host tier under load.
func BenchmarkServeConversations10k(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 2500, 5)
	s.Workload.Turns, s.Workload.ThinkS, s.Workload.KVHostGiB = 4, 30, 32
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// Serving a rate schedule as `report` does (Evaluate: the ITL of every token, each stage's own
// steady window): 24,000 requests in three stages at 5, 10 and 15 req/s on 8 H100s (TP 8), with
// a 512-token system prompt on every prompt.
func BenchmarkServeStages24k(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 24000, 0)
	st := model.RateStages{{Rate: 5, Requests: 4000}, {Rate: 10, Requests: 8000}, {Rate: 15, Requests: 12000}}
	s.Workload.Stages, s.Workload.SystemPrompt = &st, 512
	for b.Loop() {
		r, err := Evaluate(s)
		if err != nil {
			b.Fatal(err)
		}
		if r.Inference.Completed != 24000 || len(r.Inference.Stages) != 3 {
			b.Fatalf("%d served in %d stages", r.Inference.Completed, len(r.Inference.Stages))
		}
	}
}

func BenchmarkSweepRate16(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 1000, 0)
	for b.Loop() {
		if _, err := SweepRate(s, SLO{TTFT: 2, TPOT: 0.1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchInferGoodput8GPU(b *testing.B) {
	s := benchServeScenario(b, "l40s", "pcie4", 8, 1, 500, 0)
	for b.Loop() {
		if _, err := Search(s, SearchOptions{Objective: ObjGoodput, SLO: SLO{TTFT: 2, TPOT: 0.1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateFast512GPU is GPT-3 175B on 512 A100s, TP 8 × PP 8 × DP 8, batch 1536: the
// fast path on a large layout (m = 192 micro-batches a pipeline).
func BenchmarkEvaluateFast512GPU(b *testing.B) {
	p := presets(b)
	a, _ := p.Model("gpt3-175b")
	s := seleneScenario(b, p, a, 8, 8, 512, 1536)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateFast512GPUSchedules is that layout under every schedule (interleaved with 2
// chunks): the 2025 ones beside the four before.
func BenchmarkEvaluateFast512GPUSchedules(b *testing.B) {
	p := presets(b)
	a, _ := p.Model("gpt3-175b")
	for _, sched := range model.Schedules() {
		s := seleneScenario(b, p, a, 8, 8, 512, 1536)
		s.Layout.Schedule = sched
		if sched == model.Interleaved {
			s.Layout.Chunks = 2
		}
		b.Run(sched.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EvaluateFast(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEstimate512GPU is the same layout through Search's closed form.
func BenchmarkEstimate512GPU(b *testing.B) {
	p := presets(b)
	a, _ := p.Model("gpt3-175b")
	s := seleneScenario(b, p, a, 8, 8, 512, 1536)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := evaluate(s, modeEstimate); err != nil {
			b.Fatal(err)
		}
	}
}

// Serving search with every pool split (--disagg auto) on 16 H100s (two nodes: one node
// prefilling, the prefill TP swept) beside one pool: Llama 3 70B, 1,000 requests at 10 req/s.
func BenchmarkSearchDisagg16GPU(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 8, 1, 1000, 10)
	s.Cluster.GPUs, s.Layout.DP = 16, 2
	for b.Loop() {
		if _, err := Search(s, SearchOptions{Fix: SearchFix{DisaggAuto: true}}); err != nil {
			b.Fatal(err)
		}
	}
}

// 10,000 requests on 8 H100s split 4:4 (TP 4 prefilling, TP 4 decoding).
func BenchmarkServeDisagg10k(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 4, 1, 10000, 20)
	s.Layout.DP = 1
	s.Layout.Disagg = model.Disagg{PrefillGPUs: 4}
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeDisaggClosed10k is that deployment under 256 clients (a closed loop: both pools
// in one clock, serve.RunPools).
func BenchmarkServeDisaggClosed10k(b *testing.B) {
	s := benchServeScenario(b, "h100-sxm", "nvlink4", 4, 1, 10000, 0)
	s.Layout.DP = 1
	s.Layout.Disagg = model.Disagg{PrefillGPUs: 4}
	s.Workload.Concurrency = 256
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateFastCP512GPU is Llama 3 70B at 128K tokens on 512 H100s, TP 8 × CP 8 × PP 4 ×
// DP 2, ring CP, batch 64: the fast path with context parallelism across nodes.
func BenchmarkEvaluateFastCP512GPU(b *testing.B) {
	s := scenario(b, "llama-3-70b", "h100-sxm", "nvlink4", 512, 8, 4)
	s.Cluster.GPUsPerNode = 8
	s.Layout.CP, s.Layout.DP = 8, 2
	s.Layout.Recompute = model.RecomputeSelective
	s.Workload.Seq, s.Workload.GlobalBatch = 131072, 64
	if _, err := EvaluateFast(s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EvaluateFast(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchLlama3_70B_128K_1024GPU is Search over Llama 3 70B at 128K tokens on 1024
// H100s: TP × CP (each exchange) × PP × DP and the knobs.
func BenchmarkSearchLlama3_70B_128K_1024GPU(b *testing.B) {
	s := scenario(b, "llama-3-70b", "h100-sxm", "nvlink4", 1024, 8, 1)
	s.Cluster.GPUsPerNode = 8
	s.Workload.Seq, s.Workload.GlobalBatch = 131072, 256
	searchLoop(b, s)
}
