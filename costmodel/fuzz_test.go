package costmodel

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// FuzzEvaluate drives every scenario field: Evaluate never panics, never returns NaN or Inf, and
// either reports (with a consistent breakdown) or returns a ValidationError.
func FuzzEvaluate(f *testing.F) {
	f.Add(80, 8192, 64, 8, 28672, 128256, 8, 8, 8, 1, 1, 1, 64, 4096, 0, 0, 0, 0, false, 1024, 256, 8, 0)
	f.Add(32, 4096, 32, 32, 11008, 32000, 8, 8, 1, 8, 2, 1, 64, 2048, 2, 0, 2, 1, true, 512, 64, 4, 1)
	f.Add(24, 2304, 24, 24, 9216, 51200, 16, 8, 2, 4, 1, 2, 64, 2048, 3, 0, 1, 3, false, 128, 8, 1, 2)
	f.Add(40, 5120, 40, 40, 13824, 32000, 4, 8, 1, 4, 1, 1, 16, 1024, 0, 1, 0, 0, false, 2048, 128, 16, 3)
	f.Add(3, 64, 4, 2, 128, 100, 6, 3, 2, 3, 1, 1, 6, 7, 1, 1, 0, 2, true, 1, 1, 3, 0)
	f.Fuzz(func(t *testing.T, layers, hidden, heads, kv, ffn, vocab, gpus, gpn, tp, pp, chunks, mb, batch, seq,
		sched, mode, recomp, zero int, sp bool, prompt, gen, requests, prec int) {
		p := presets(t)
		s := model.Scenario{
			Arch: model.Arch{ID: "fuzz", Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv, FFN: ffn,
				Vocab: vocab, GatedMLP: ffn%2 == 0},
			Cluster: model.Cluster{GPU: mustGPU(t, p, "h100-sxm"), GPUs: gpus, GPUsPerNode: gpn,
				Intra: mustLink(t, p, "nvlink4"), Inter: mustLink(t, p, "ib-ndr"), NICsPerNode: 8},
			Layout: model.Layout{TP: tp, PP: pp, DP: 1, Chunks: chunks, MicroBatch: mb,
				Schedule: model.Schedule(sched), Recompute: model.Recompute(recomp), ZeRO: zero,
				SequenceParallel: sp, Collectives: model.Collectives(sched / 4),
				// The knobs of issue 11, from the same inputs (the corpus keeps its shape).
				Offload: model.Offload(recomp / 3 % 6), TPOverlap: model.TPOverlap(zero / 4 % 3),
				SPGather: model.SPGather(prec / 4 % 2), RankOrder: model.RankOrder(mb / 7 % model.NumRankOrders)},
			Workload: model.Workload{Mode: model.Mode(mode), Seq: seq, GlobalBatch: batch,
				PromptTokens: prompt, GenTokens: gen, Requests: requests, Precision: model.Precision(prec)},
			ReserveBytes: model.DefaultReserveBytes,
		}
		if tp > 0 && pp > 0 && gpus%(tp*pp) == 0 {
			s.Layout.DP = gpus / (tp * pp)
		}
		r, ok := fuzzEvaluate(t, s)
		if !ok {
			return
		}
		bd := r.Breakdown
		total := bd.Compute + bd.Recompute + bd.TPComm + bd.PPComm + bd.DPComm + bd.Offload + bd.Bubble + bd.Optimizer
		if s.Workload.Mode == model.Train && math.Abs(total-r.StepTime) > 1e-6*r.StepTime {
			t.Fatalf("breakdown %v does not sum to step %v", total, r.StepTime)
		}
	})
}

// fuzzEvaluate evaluates a fuzzed scenario: a refusal must be a ValidationError (ok false), a
// report must be finite with a positive step.
func fuzzEvaluate(t *testing.T, s model.Scenario) (Report, bool) {
	t.Helper()
	r, err := Evaluate(s)
	if err != nil {
		var ve model.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("error is not a ValidationError: %v", err)
		}
		return r, false
	}
	checkFinite(t, reflect.ValueOf(r), "Report")
	if r.StepTime <= 0 {
		t.Fatalf("step time %v for a valid scenario", r.StepTime)
	}
	return r, true
}

// checkFinite walks a value and fails on any NaN or Inf float.
func checkFinite(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s = %v", path, x)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			checkFinite(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < min(v.Len(), 64); i++ {
			checkFinite(t, v.Index(i), path)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			checkFinite(t, v.Elem(), path)
		}
	}
}

// FuzzEvaluateValid maps the fuzzer's bytes onto scenarios that mostly pass validation, so the
// cost model itself (not the validator) meets odd shapes: one layer, TP above the KV heads,
// uneven splits, one request, huge micro-batches, every schedule and precision, speculative
// decoding by every method.
func FuzzEvaluateValid(f *testing.F) {
	f.Add(uint8(79), uint8(7), uint8(3), uint8(0), uint8(2), uint8(1), uint8(0), uint8(5), uint8(0), uint8(0), uint8(1), uint8(9))
	f.Add(uint8(0), uint8(0), uint8(0), uint8(1), uint8(0), uint8(0), uint8(3), uint8(0), uint8(1), uint8(2), uint8(0), uint8(0))
	f.Add(uint8(200), uint8(255), uint8(9), uint8(2), uint8(7), uint8(3), uint8(2), uint8(255), uint8(1), uint8(3), uint8(7), uint8(255))
	f.Add(uint8(31), uint8(7), uint8(5), uint8(1), uint8(1), uint8(1), uint8(0), uint8(69), uint8(33), uint8(130), uint8(2), uint8(14))
	// 32 GPUs on nodes of 8 under rank order 10 (gpnB / 8 % NumRankOrders): a nesting other than the two of old.
	f.Add(uint8(31), uint8(7), uint8(5), uint8(1), uint8(5), uint8(17), uint8(1), uint8(8), uint8(0), uint8(0), uint8(83), uint8(3))
	// Serving with CP 2 (ring; Ulysses with speculation).
	f.Add(uint8(10), uint8(0), uint8(3), uint8(1), uint8(3), uint8(1), uint8(0), uint8(40), uint8(1), uint8(0), uint8(3), uint8(1))
	f.Add(uint8(10), uint8(2), uint8(3), uint8(1), uint8(3), uint8(1), uint8(0), uint8(200), uint8(1), uint8(130), uint8(3), uint8(2))
	// Disaggregated, the prefill pool with CP 2.
	f.Add(uint8(5), uint8(0), uint8(3), uint8(1), uint8(4), uint8(1), uint8(0), uint8(40), uint8(1), uint8(0), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, layersB, hiddenB, headsB, kvB, gpusB, tpB, schedB, batchB, modeB, precB, gpnB, genB uint8) {
		p := presets(t)
		heads := []int{1, 2, 4, 8, 12, 16, 32, 40, 64, 96}[int(headsB)%10]
		kvs := model.Divisors(heads)
		kv := kvs[int(kvB)%len(kvs)]
		hidden := heads * (16 + 16*(int(hiddenB)%16))
		gpus := 1 << (int(gpusB) % 8)
		gpn := []int{1, 2, 4, 8, 16}[int(gpnB)%5]
		if gpus > gpn && gpus%gpn != 0 {
			gpn = gpus
		}
		tps := model.Divisors(gpus)
		tp := tps[int(tpB)%len(tps)]
		pps := model.Divisors(gpus / tp)
		pp := pps[int(tpB/16)%len(pps)]
		layers := max(1+int(layersB)%128, pp)
		sched := model.Schedule(int(schedB) % 4)
		s := model.Scenario{
			Arch: model.Arch{ID: "fuzz", Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv,
				FFN: 4 * hidden * tp, Vocab: 1 + int(hiddenB)*97, GatedMLP: layersB%2 == 0,
				Experts: int(genB%3) * 4, TopK: 2},
			Cluster: model.Cluster{GPU: p.GPUs[int(gpnB)%len(p.GPUs)], GPUs: gpus, GPUsPerNode: gpn,
				Intra: p.Links[int(schedB)%len(p.Links)], Inter: mustLink(t, p, "ib-ndr"), NICsPerNode: 1 + int(gpnB)%8},
			Layout: model.Layout{TP: tp, PP: pp, DP: gpus / (tp * pp), Chunks: 1, MicroBatch: 1 + int(batchB)%4,
				Schedule: sched, Recompute: model.Recompute(int(batchB) % 3), ZeRO: int(batchB/4) % 4,
				SequenceParallel: batchB%2 == 1, UnfusedAttention: genB%2 == 0, SerialDP: genB%3 == 0,
				Collectives: model.Collectives(int(modeB/2) % 3),
				Offload:     model.Offload(int(hiddenB/16) % 6), TPOverlap: model.TPOverlap(int(headsB/16) % 3),
				SPGather: model.SPGather(int(layersB/128) % 2), RankOrder: model.RankOrder(int(gpnB/8) % model.NumRankOrders)},
			Workload: model.Workload{Mode: model.Mode(int(modeB) % 2), Seq: 16 * (1 + int(batchB)%64),
				Precision: model.Precision(int(precB) % 4), PromptTokens: 1 + int(batchB)*8, GenTokens: 1 + int(genB),
				Requests: 1},
			ReserveBytes: model.DefaultReserveBytes,
		}
		if s.Arch.Experts == 0 {
			s.Arch.TopK = 0
		}
		if sched == model.Interleaved && layers >= 2*pp {
			s.Layout.Chunks = 2
		}
		per := s.Layout.MicroBatch * s.Layout.DP
		m := 1 + int(batchB)%8
		if sched == model.Interleaved {
			m = pp * (1 + int(batchB)%3)
		}
		s.Workload.GlobalBatch = per * m
		s.Workload.Requests = per * (1 + int(genB)%4)
		if s.Layout.SequenceParallel {
			s.Workload.Seq = tp * (1 + int(batchB)%32)
		}
		if w := &s.Workload; w.Mode == model.Infer {
			// Serving: arrivals, engine limits, weight and KV formats.
			switch genB % 3 {
			case 1:
				w.Rate = float64(1+int(batchB)) / 4
			case 2:
				w.Concurrency = 1 + int(batchB)%8
			}
			w.Weights = []string{"", "fp8", "int4", "fp4", "4.5"}[int(precB/4)%5]
			w.KVCache = []string{"", "fp8"}[int(modeB/8)%2]
			if layersB%3 == 0 {
				w.MaxSeqs, w.MaxBatchTokens = 1+int(hiddenB)%64, 16+int(headsB)*8
			}
			if layersB%4 == 1 && gpus >= 2 {
				// Disaggregated: half the GPUs prefill (TP from the fuzzer, 0 the layout's), the
				// decode pool keeps the layout's TP and PP on the other half.
				w.Concurrency = 0
				s.Layout.Disagg = model.Disagg{PrefillGPUs: gpus / 2, PrefillTP: []int{0, 1, 2}[int(headsB)%3]}
				if layersB%7 == 5 {
					s.Layout.Disagg.PrefillCP = 2 // a CP prefill pool
				}
				s.Layout.DP = max(gpus/2/(tp*pp), 1)
			}
			if layersB%7 == 3 && !s.Layout.Disagg.On() && s.Layout.DP%2 == 0 {
				// Context parallelism: each replica's prompts split over 2 GPUs, its KV cache
				// sharded by token, by each exchange.
				s.Layout.CP, s.Layout.DP = 2, s.Layout.DP/2
				s.Layout.CPComm = model.CPComm(int(hiddenB) % 4)
			}
			if layersB%5 == 2 && !s.Layout.Disagg.On() {
				// Conversations of 2 to 4 turns, and a host tier of the KV cache.
				w.Turns, w.ThinkS = 2+int(hiddenB)%3, float64(int(batchB)%4)/2
				w.KVHostGiB = float64(int(headsB) % 3 * 8)
			}
			if precB >= 128 {
				// Speculative decoding: K 1 to 8, a rate or a falling curve, each method (draft:
				// the scenario's own shape cut to one layer, the vocabulary shared).
				k := 1 + int(precB)%8
				a := float64(1+int(batchB)%100) / 100
				acc := model.SpecAccept{a}
				if genB%2 == 1 {
					acc = make(model.SpecAccept, k)
					for i := range acc {
						acc[i] = a / float64(1+i)
					}
				}
				w.SpecTokens, w.SpecAccept = k, &acc
				w.SpecMethod = []string{model.SpecEAGLE, model.SpecNGram, model.SpecDraft, model.SpecMTP}[int(modeB/16)%4]
				if w.SpecMethod == model.SpecDraft {
					d := s.Arch
					d.ID, d.Layers = "fuzz-draft", 1
					w.SpecDraft = &d
				}
			}
		}
		r, err := Evaluate(s)
		if err != nil {
			var ve model.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("not a ValidationError: %v", err)
			}
			return
		}
		checkFinite(t, reflect.ValueOf(r), "Report")
		if r.StepTime <= 0 || r.Memory.Total <= 0 {
			t.Fatalf("step %v, memory %v", r.StepTime, r.Memory.Total)
		}
		if r.Timeline == nil || len(r.Timeline.Ops) == 0 {
			t.Fatal("no timeline")
		}
		if r.Timeline.Makespan > r.StepTime*(1+1e-9) {
			t.Fatalf("timeline %v longer than the step %v", r.Timeline.Makespan, r.StepTime)
		}
	})
}

// FuzzSearch: any small space searches without a panic; every configuration is accounted for
// (evaluated, over memory, dominated or bounded out), and every report is finite.
func FuzzSearch(f *testing.F) {
	f.Add(uint8(3), uint8(2), uint8(1), uint8(0), uint8(5), uint8(0))
	f.Add(uint8(200), uint8(7), uint8(4), uint8(1), uint8(255), uint8(63))
	f.Fuzz(func(t *testing.T, archB, gpusB, gpuB, modeB, batchB, fixB uint8) {
		p := presets(t)
		heads := []int{8, 12, 16, 32}[int(archB)%4]
		hidden := heads * 64 * (1 + int(archB/4)%4)
		gpus := 1 << (int(gpusB) % 5)
		s := model.Scenario{
			Arch: model.Arch{ID: "fuzz", Layers: 2 + int(archB)%30, Hidden: hidden, Heads: heads, KVHeads: heads,
				FFN: 4 * hidden, Vocab: 32000, GatedMLP: archB%2 == 0},
			Cluster: model.Cluster{GPU: p.GPUs[int(gpuB)%len(p.GPUs)], GPUs: gpus, GPUsPerNode: min(gpus, 8),
				Intra: mustLink(t, p, "nvlink4"), Inter: mustLink(t, p, "ib-ndr"), NICsPerNode: 8},
			Layout: model.Layout{TP: 1, PP: 1, DP: gpus, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB,
				Recompute: model.Recompute(int(fixB) % 3), ZeRO: int(fixB/4) % 4, Offload: model.Offload(int(fixB/16) % 4)},
			Workload: model.Workload{Mode: model.Mode(int(modeB) % 2), Seq: 256 * (1 + int(batchB)%8), GlobalBatch: gpus * (1 + int(batchB)%8),
				Precision: model.BF16, PromptTokens: 128, GenTokens: 16, Requests: 4},
			ReserveBytes: model.DefaultReserveBytes,
		}
		fix := SearchFix{HasRecompute: fixB&1 != 0, HasZeRO: fixB&2 != 0, HasOffload: fixB&64 != 0, HasTPOverlap: fixB&128 != 0}
		res, err := Search(s, SearchOptions{Fix: fix, MaxChunks: 2, MaxMicroBatch: 4})
		if err != nil {
			return
		}
		n := res.Counts
		if n.Evaluated+n.PrunedMemory+n.Dominated+n.PrunedBound != n.Space || n.Space < 0 {
			t.Fatalf("counts %+v do not add up", n)
		}
		for _, c := range res.Candidates {
			checkFinite(t, reflect.ValueOf(c.Report), "Candidate.Report")
		}
	})
}
