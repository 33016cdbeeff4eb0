package costmodel

import (
	"errors"
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// scenario builds a preset scenario for property tests.
func scenario(t testing.TB, modelID, gpuID, intra string, gpus, tp, pp int) model.Scenario {
	t.Helper()
	p := presets(t)
	a, err := p.Model(modelID)
	if err != nil {
		t.Fatal(err)
	}
	return model.Scenario{
		Arch: a,
		Cluster: model.Cluster{GPU: mustGPU(t, p, gpuID), GPUs: gpus, GPUsPerNode: min(gpus, 8),
			Intra: mustLink(t, p, intra), Inter: mustLink(t, p, "ib-ndr"), NICsPerNode: 8},
		Layout: model.Layout{TP: tp, PP: pp, DP: gpus / (tp * pp), Chunks: 1, MicroBatch: 1,
			Schedule: model.OneFOneB},
		Workload: model.Workload{Mode: model.Train, Seq: 4096, GlobalBatch: 64, Precision: model.BF16,
			PromptTokens: 1024, GenTokens: 128, Requests: 8},
		ReserveBytes: model.DefaultReserveBytes,
	}
}

func eval(t testing.TB, s model.Scenario) Report {
	t.Helper()
	r, err := Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMoreMicroBatchesNeverRaiseBubble(t *testing.T) {
	for _, sched := range model.Schedules() {
		t.Run(sched.String(), func(t *testing.T) {
			prev := math.Inf(1)
			for _, batch := range []int{8, 16, 32, 64, 128} {
				s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 1, 8)
				s.Layout.DP = 1
				s.Layout.Schedule = sched
				if sched == model.Interleaved {
					s.Layout.Chunks = 2
				}
				s.Workload.GlobalBatch = batch
				if f, _ := model.ScheduleShapeRule(sched, 8, batch); f != "" {
					continue // DualPipe and DualPipeV need 2 × pp micro-batches
				}
				r := eval(t, s)
				if r.BubbleFraction > prev+1e-12 {
					t.Errorf("batch %d: bubble %.4f rose above %.4f", batch, r.BubbleFraction, prev)
				}
				prev = r.BubbleFraction
			}
		})
	}
}

func TestSlowerLinkNeverLowersTPComm(t *testing.T) {
	prev := 0.0
	for _, link := range []string{"nvlink5", "nvlink4", "nvlink3", "nvlink2", "pcie5", "pcie4", "pcie3"} {
		s := scenario(t, "llama-3-8b", "h100-sxm", link, 8, 8, 1)
		r := eval(t, s)
		if r.Breakdown.TPComm < prev {
			t.Errorf("%s: TP comm %.4g s below the faster link's %.4g s", link, r.Breakdown.TPComm, prev)
		}
		prev = r.Breakdown.TPComm
	}
}

func TestPCIeTPCommShareWellAboveNVLink(t *testing.T) {
	// Inference with long prompts and few generated tokens: the prefill all-reduces carry
	// megabytes, where bandwidth, not latency, sets their time. (Decode all-reduces of a few KiB
	// cost a few µs a step on both links: NCCL's small-message latency is ≈ 3 µs a step on NVLink
	// and 1.75 µs on PCIe with peer-to-peer [reference §2.4].)
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		nv := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
		pc := scenario(t, "llama-3-70b", "h100-sxm", "pcie5", 8, 8, 1)
		for _, s := range []*model.Scenario{&nv, &pc} {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens = mode, 4096, 4
		}
		rn, rp := eval(t, nv), eval(t, pc)
		t.Logf("%s: TP comm share NVLink %.1f%%, PCIe %.1f%%", mode, 100*rn.CommFraction, 100*rp.CommFraction)
		if rp.CommFraction < 1.5*rn.CommFraction || rp.CommFraction-rn.CommFraction < 0.2 {
			t.Errorf("%s: PCIe comm share %.3f not well above NVLink's %.3f", mode, rp.CommFraction, rn.CommFraction)
		}
	}
}

// The topology as it is: a GeForce box without peer-to-peer pays more for TP than the same cards
// with it (the all-reduces are staged through host memory), and a PCIe path across CPU sockets
// more than one under a switch.
func TestTopologyRaisesTPComm(t *testing.T) {
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		geforce := scenario(t, "llama-3-8b", "rtx-4090", "pcie4", 8, 8, 1)
		geforce.Workload.Mode = mode
		withP2P := geforce
		withP2P.Cluster.GPU.NoP2P = false
		rn, rp := eval(t, geforce), eval(t, withP2P)
		if rn.Breakdown.TPComm < 1.5*rp.Breakdown.TPComm {
			t.Errorf("%s: TP comm without P2P %.4g s, with %.4g s: want well above", mode, rn.Breakdown.TPComm, rp.Breakdown.TPComm)
		}
		prev := 0.0
		for _, link := range []string{"pcie5", "pcie5-host", "pcie5-sys", "pcie5-nop2p"} {
			s := scenario(t, "llama-3-8b", "l40s", link, 8, 8, 1)
			s.Workload.Mode = mode
			r := eval(t, s)
			if r.Breakdown.TPComm <= prev {
				t.Errorf("%s on %s: TP comm %.4g s, not above the previous path's %.4g s", mode, link, r.Breakdown.TPComm, prev)
			}
			prev = r.Breakdown.TPComm
		}
	}
	// On an MI300X board TP = 2 runs on one XGMI peer link: its all-reduce of the same bytes moves
	// at about 1/7 of what 8 GPUs reach, where the switch boxes' would not change.
	two, eight := scenario(t, "llama-3-8b", "mi300x", "xgmi", 8, 2, 1), scenario(t, "llama-3-8b", "mi300x", "xgmi", 8, 8, 1)
	r2, r8 := eval(t, two), eval(t, eight)
	if bw2, bw8 := r2.Detail.TPLinkBW, r8.Detail.TPLinkBW; math.Abs(bw2*7/bw8-1) > 1e-9 {
		t.Errorf("MI300X TP 2 runs on %.1f GB/s, TP 8 on %.1f: want 1 of 7 peer links", bw2/1e9, bw8/1e9)
	}
}

func TestMemoryFallsAsModelParallelismGrows(t *testing.T) {
	prev := math.Inf(1)
	for _, tp := range []struct{ tp, pp int }{{1, 1}, {2, 1}, {2, 2}, {4, 2}, {8, 2}, {8, 4}} {
		s := scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", 32, tp.tp, tp.pp)
		s.Workload.GlobalBatch = 256
		r := eval(t, s)
		if r.Memory.Total >= prev {
			t.Errorf("TP=%d PP=%d: %.2f GiB per GPU, not below %.2f GiB", tp.tp, tp.pp, r.Memory.Total/model.GiB, prev/model.GiB)
		}
		prev = r.Memory.Total
	}
}

func TestInferenceTPOTFallsWithTPOnNVLink(t *testing.T) {
	prev := math.Inf(1)
	for _, tp := range []int{1, 2, 4, 8} {
		s := scenario(t, "llama-2-70b", "h100-sxm", "nvlink4", tp, tp, 1)
		s.Workload.Mode = model.Infer
		s.Workload.Requests = 1
		r := eval(t, s)
		t.Logf("TP=%d: TPOT %.2f ms, TTFT %.1f ms", tp, 1e3*r.Inference.TPOT, 1e3*r.Inference.TTFT)
		if r.Inference.TPOT >= prev {
			t.Errorf("TP=%d: TPOT %.4g s not below %.4g s", tp, r.Inference.TPOT, prev)
		}
		prev = r.Inference.TPOT
	}
}

func TestPipelineAloneDoesNotLowerSingleRequestLatency(t *testing.T) {
	var base Report
	for i, pp := range []int{1, 2, 4, 8} {
		s := scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", pp, 1, pp)
		s.Workload.Mode = model.Infer
		s.Workload.Requests = 1
		r := eval(t, s)
		t.Logf("PP=%d: TTFT %.1f ms, TPOT %.2f ms, total %.3f s", pp, 1e3*r.Inference.TTFT, 1e3*r.Inference.TPOT, r.StepTime)
		if i == 0 {
			base = r
			continue
		}
		if r.StepTime < base.StepTime*(1-1e-9) || r.Inference.TPOT < base.Inference.TPOT*(1-1e-9) {
			t.Errorf("PP=%d lowered single-request latency: %.4g s vs %.4g s", pp, r.StepTime, base.StepTime)
		}
	}
}

func TestPipelineRaisesThroughputWithManyRequests(t *testing.T) {
	one := scenario(t, "llama-2-13b", "l40s", "pcie4", 4, 1, 4)
	one.Workload.Mode = model.Infer
	one.Workload.Requests = 1
	many := one
	many.Workload.Requests = 16
	r1, rm := eval(t, one), eval(t, many)
	if rm.TokensPerS < 3*r1.TokensPerS {
		t.Errorf("16 requests in flight: %.0f tok/s, one request: %.0f tok/s; the pipeline should fill", rm.TokensPerS, r1.TokensPerS)
	}
}

func TestReportIsConsistent(t *testing.T) {
	for _, sched := range model.Schedules() {
		s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 64, 8, 4)
		s.Layout.Schedule = sched
		if sched == model.Interleaved {
			s.Layout.Chunks = 2
		}
		s.Workload.GlobalBatch = 128
		r := eval(t, s)
		bd := r.Breakdown
		total := bd.Compute + bd.Recompute + bd.TPComm + bd.PPComm + bd.DPComm + bd.Bubble + bd.Optimizer
		if math.Abs(total-r.StepTime) > 1e-9*r.StepTime {
			t.Errorf("%s: breakdown sums to %.6g s, step %.6g s", sched, total, r.StepTime)
		}
		if r.Timeline == nil || len(r.Timeline.Ops) == 0 {
			t.Fatalf("%s: no timeline", sched)
		}
		if len(r.Timeline.Segments) != len(r.Timeline.Ops) {
			t.Errorf("%s: %d segment lists for %d ops", sched, len(r.Timeline.Segments), len(r.Timeline.Ops))
		}
		for i, op := range r.Timeline.Ops {
			ss := r.Timeline.Segments[i]
			if d := op.End - op.Start; math.Abs(segTotal(ss)-d) > 1e-9*math.Max(d, 1e-12) {
				t.Fatalf("%s op %d: segments last %.6g s, op %.6g s", sched, i, segTotal(ss), d)
			}
		}
		// The fast path may extrapolate the pipeline's steady state: the same to 1e-12.
		fast, err := EvaluateFast(s)
		if err != nil || math.Abs(fast.StepTime-r.StepTime) > 1e-12*r.StepTime {
			t.Errorf("%s: fast path %.6g s (%v), timeline path %.6g s", sched, fast.StepTime, err, r.StepTime)
		}
	}
}

func TestBadInputIsAnErrorNamingTheField(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*model.Scenario)
		field string
	}{
		{"zero GPUs", func(s *model.Scenario) { s.Cluster.GPUs = 0 }, "gpus"},
		{"TP not dividing heads", func(s *model.Scenario) { s.Layout.TP, s.Layout.DP = 3, 1 }, "tp"},
		{"batch does not split", func(s *model.Scenario) { s.Workload.GlobalBatch, s.Layout.MicroBatch = 63, 2 }, "batch"},
		{"product mismatch", func(s *model.Scenario) { s.Layout.DP = 2 }, "dp"},
		{"interleaved too deep", func(s *model.Scenario) {
			s.Layout.Schedule, s.Layout.Chunks, s.Layout.TP, s.Layout.PP = model.Interleaved, 9, 1, 8
		}, "chunks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 8, 1)
			s.Arch.Layers = 32
			tc.edit(&s)
			_, err := Evaluate(s)
			var ve model.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a ValidationError, got %v", err)
			}
			found := false
			for _, f := range ve.Fields() {
				found = found || f == tc.field
			}
			if !found {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
		})
	}
}

func TestSearchRanksFeasibleFirst(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 64, 8, 1)
	s.Workload.GlobalBatch = 256
	res, err := Search(s, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Feasible == 0 {
		t.Fatal("no feasible layout for llama-3-70b on 64 H100")
	}
	for i, c := range res.Candidates {
		if i < res.Feasible {
			if !c.Feasible || c.Report.StepTime <= 0 {
				t.Fatalf("candidate %d in the feasible head is %+v", i, c.Reason)
			}
			if i > 0 && c.Report.StepTime < res.Candidates[i-1].Report.StepTime {
				t.Errorf("candidate %d (%.4g s) ranks after a slower one (%.4g s)", i, c.Report.StepTime, res.Candidates[i-1].Report.StepTime)
			}
		} else if c.Feasible || c.Reason == "" {
			t.Errorf("candidate %d after the feasible ones has no reason", i)
		}
	}
	best := res.Candidates[0]
	t.Logf("best: TP=%d PP=%d DP=%d %s v=%d b=%d: %.3f s", best.Layout.TP, best.Layout.PP, best.Layout.DP,
		best.Layout.Schedule, best.Layout.Chunks, best.Layout.MicroBatch, best.Report.StepTime)
}

// An fp8 KV cache holds twice the tokens of a bf16 one (the same bytes for the rest), so the
// engine never runs fewer sequences at once, and a KV-bound run serves more.
func TestFP8KVCacheDoublesCapacity(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 2, 2, 1)
	s.Workload.Mode = model.Infer
	s.Workload.Weights = "fp8"
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests, s.Workload.Concurrency = 5000, 500, 400, 100
	bf := eval(t, s)
	s.Workload.KVCache = "fp8"
	f8 := eval(t, s)
	b, f := bf.Inference, f8.Inference
	if tokens := f.KVCacheTokens / b.KVCacheTokens; math.Abs(tokens-2) > 1e-9 {
		t.Errorf("KV tokens %.0f against %.0f: ×%.4f, want ×2", f.KVCacheTokens, b.KVCacheTokens, tokens)
	}
	if f.MaxConcurrency < b.MaxConcurrency || f.OutputTokensPerS <= b.OutputTokensPerS {
		t.Errorf("fp8 KV: %d at once, %.0f tok/s; bf16: %d, %.0f", f.MaxConcurrency, f.OutputTokensPerS, b.MaxConcurrency, b.OutputTokensPerS)
	}
}
