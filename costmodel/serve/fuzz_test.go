package serve

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// FuzzRun: any deployment and workload the validation lets through (with or without Overlap,
// PrefillFirst, WholePrompts, a front end, multi-step windows, a recv interval, speculative
// decoding, shared prefix groups, conversations of several turns and a host tier of the KV
// cache, its loads in the steps (layer by layer or not) or beside them, by the seed's low bits) runs to the end: every
// request finishes or is refused, in the order of its own events, Little's law holds, and the
// steady window's figures are finite.
func FuzzRun(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint16(256), uint16(2048), uint32(4096), uint16(0), uint16(40), 4.0, uint16(500), uint16(100), uint64(1))
	f.Add(uint8(2), uint8(4), uint16(3), uint16(17), uint32(60), uint16(5), uint16(30), 0.0, uint16(90), uint16(300), uint64(9))
	f.Add(uint8(1), uint8(1), uint16(8), uint16(64), uint32(200), uint16(0), uint16(150), 50.0, uint16(800), uint16(200), uint64(3))
	f.Add(uint8(1), uint8(3), uint16(64), uint16(512), uint32(300), uint16(12), uint16(120), 0.0, uint16(600), uint16(150), uint64(0x5a23))
	f.Add(uint8(2), uint8(2), uint16(32), uint16(256), uint32(400), uint16(0), uint16(150), 20.0, uint16(700), uint16(300), uint64(0x7a5340c1))
	f.Add(uint8(1), uint8(2), uint16(64), uint16(512), uint32(300), uint16(0), uint16(150), 30.0, uint16(1500), uint16(200), uint64(0x3_2000_0000_0080))
	f.Add(uint8(1), uint8(1), uint16(16), uint16(128), uint32(150), uint16(8), uint16(100), 0.0, uint16(2000), uint16(100), uint64(0x1_7000_0000_0083))
	f.Add(uint8(2), uint8(1), uint16(64), uint16(512), uint32(300), uint16(0), uint16(30), 5.0, uint16(800), uint16(200), uint64(0x0123_0000_0000_0300))
	f.Add(uint8(1), uint8(2), uint16(32), uint16(256), uint32(500), uint16(4), uint16(20), 0.0, uint16(1200), uint16(100), uint64(0x4567_0000_0000_0381))
	f.Add(uint8(1), uint8(1), uint16(64), uint16(512), uint32(300), uint16(0), uint16(30), 5.0, uint16(800), uint16(200), uint64(0x0123_0000_0000_0700))
	f.Add(uint8(2), uint8(2), uint16(32), uint16(256), uint32(500), uint16(6), uint16(20), 0.0, uint16(1200), uint16(100), uint64(0x4567_0000_0000_0781))
	f.Add(uint8(1), uint8(3), uint16(32), uint16(256), uint32(500), uint16(0), uint16(30), 8.0, uint16(1200), uint16(100), uint64(0x4567_0020_0000_0b00))
	f.Fuzz(func(t *testing.T, replicas, stages uint8, seqs, tokens uint16, blocks uint32, clients, n uint16,
		rate float64, prompt, gen uint16, seed uint64) {
		cfg := Config{Replicas: int(replicas%4) + 1, Stages: int(stages%6) + 1, MaxSeqs: int(seqs%512) + 1,
			MaxBatchTokens: int(tokens%4096) + 1, KVBlocks: int(blocks % 100000), BlockTokens: 16, Concurrency: int(clients % 64),
			Overlap: seed&1 == 1, PrefillFirst: seed&2 == 2, WholePrompts: seed&4 == 4}
		if seed&8 == 8 {
			cfg.FrontEndS = 4e-3
		}
		if seed&16 == 16 {
			cfg.MultiStep = int(seed>>8%15) + 2
		}
		if seed&32 == 32 {
			cfg.RecvInterval = int(seed>>12%40) + 2
		}
		if seed&64 == 64 && cfg.MultiStep == 0 {
			// Speculative decoding: K from 1 to 16, the expected accepted anywhere in [0, K].
			cfg.SpecTokens = int(seed>>20%16) + 1
			cfg.SpecAccepted = float64(cfg.SpecTokens) * float64(seed>>28%1001) / 1000
		}
		if rate != rate || rate < 0 || rate > 1e4 {
			rate = 1
		}
		if cfg.Concurrency > 0 {
			rate = 0
		}
		reqs := Generate(Workload{N: int(n%200) + 1, Rate: rate, Seed: seed,
			Prompt: model.LengthDist{Kind: model.Uniform, Min: 1, Max: int(prompt%3000) + 1},
			Gen:    model.LengthDist{Kind: model.LogNormal, Mean: float64(gen%400) + 1, Sigma: 0.8, Max: 2000}})
		if seed&128 == 128 {
			// Shared prefixes: up to 3 groups, each a prefix of up to 2047 tokens (a prompt
			// shorter than it shares none), some requests with none.
			for i := range reqs {
				reqs[i].Group = int(seed>>40+uint64(i)) % 4
				reqs[i].Shared = int(seed >> 44 % 2048)
			}
		}
		if seed&256 == 256 {
			// Conversations of 2 to 6 turns: their first turns are the requests above.
			reqs = Generate(Workload{N: int(n%40) + 1, Rate: rate, Seed: seed, Turns: int(seed>>48%5) + 2, ThinkS: float64(seed>>51%4) / 2,
				Prompt: model.LengthDist{Kind: model.Uniform, Min: 1, Max: int(prompt%1500) + 1},
				Gen:    model.LengthDist{Kind: model.LogNormal, Mean: float64(gen%300) + 1, Sigma: 0.8, Max: 1000}})
		}
		if seed&512 == 512 {
			cfg.HostBlocks, cfg.HostLoadS = int(seed>>53%4096), 1e-5
			cfg.HostAsync = seed&1024 == 1024
			if seed&2048 == 2048 {
				cfg.HostLayers = int(seed>>32%80) + 1
			}
		}
		r, err := Run(cfg, reqs, linear{fixed: 1e-3, perToken: 1e-6, perCtx: 1e-9, xfer: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		s := Summarize(reqs, r)
		if r.KVPeak > 1 || r.PrefixPeak > 1 || r.CacheHitTokens > r.PromptTokens {
			t.Fatalf("KV peak %g, prefix peak %g, %g of %g prompt tokens hit", r.KVPeak, r.PrefixPeak, r.CacheHitTokens, r.PromptTokens)
		}
		if s.Completed+s.Rejected != len(reqs) {
			t.Fatalf("%d + %d of %d", s.Completed, s.Rejected, len(reqs))
		}
		for i := range reqs {
			if !r.Rejected[i] && !(r.Arrival[i] <= r.FirstToken[i] && r.FirstToken[i] <= r.Done[i]) {
				t.Fatalf("request %d: %g %g %g", i, r.Arrival[i], r.FirstToken[i], r.Done[i])
			}
		}
		if s.Rejected == 0 && !near(r.MeanInSystem, s.RequestsPerS*s.E2EMean) {
			t.Fatalf("L %g, λW %g", r.MeanInSystem, s.RequestsPerS*s.E2EMean)
		}
		// The steady window of an open loop: finite figures, requests it measures that ran.
		keep, c := Window(reqs, r, rate)
		finite(t, c)
		for i := range keep {
			if keep[i] && r.Rejected[i] {
				t.Fatalf("request %d refused and measured", i)
			}
		}
		if w := SummarizeWindow(reqs, r, keep); w.TTFTP90 != w.TTFTP90 || w.TPOTP90 != w.TPOTP90 {
			t.Fatalf("window %+v", w)
		}
	})
}

// FuzzRunPools serves a workload on a prefill pool and a decode pool in one clock, open or
// closed loop, conversations or single requests, the prefill pool with or without a host tier
// (its loads in the step, layer by layer, or beside the steps): every request ends in one pool or the other, a decoded one's first token after
// its prefill and transfer, no KV block lost (RunPools checks), and a closed loop never holds
// more requests than its clients.
func FuzzRunPools(f *testing.F) {
	f.Add(uint8(2), uint8(1), uint16(256), uint32(4096), uint16(0), uint16(60), 5.0, uint16(500), uint16(100), uint64(1))
	f.Add(uint8(1), uint8(3), uint16(8), uint32(300), uint16(12), uint16(90), 0.0, uint16(900), uint16(200), uint64(0x1f))
	f.Add(uint8(3), uint8(2), uint16(64), uint32(150), uint16(5), uint16(40), 0.0, uint16(2000), uint16(50), uint64(0x2a6))
	f.Add(uint8(2), uint8(2), uint16(32), uint32(2000), uint16(0), uint16(30), 3.0, uint16(700), uint16(80), uint64(0x3_0000_0000_0100))
	f.Add(uint8(2), uint8(1), uint16(32), uint32(300), uint16(0), uint16(30), 3.0, uint16(700), uint16(80), uint64(0x3_0000_0000_0700))
	f.Add(uint8(1), uint8(2), uint16(32), uint32(300), uint16(6), uint16(30), 0.0, uint16(700), uint16(80), uint64(0x3_0020_0000_0b01))
	f.Fuzz(func(t *testing.T, preReps, decReps uint8, seqs uint16, blocks uint32, clients, n uint16,
		rate float64, prompt, gen uint16, seed uint64) {
		cfg := func(replicas uint8) Config {
			return Config{Replicas: int(replicas%4) + 1, Stages: 1, MaxSeqs: int(seqs%512) + 1, MaxBatchTokens: 2048,
				KVBlocks: int(blocks % 100000), BlockTokens: 16, Overlap: seed&1 == 1, PrefillFirst: seed&2 == 2,
				WholePrompts: seed&4 == 4, FrontEndS: float64(seed>>3&1) * 4e-3}
		}
		p := Pools{Prefill: cfg(preReps), Decode: cfg(decReps), Concurrency: int(clients % 64),
			PrefillCost: linear{fixed: 1e-3, perToken: 1e-6}, DecodeCost: linear{fixed: 1e-3, perToken: 1e-6, perCtx: 1e-9},
			Ready: func(_, _ int, t float64) float64 { return t + 2e-4 }}
		if seed&512 == 512 {
			// A host tier on the prefill pool, where conversations come back: its loads in the
			// step, layer by layer or beside the steps.
			p.Prefill.HostBlocks, p.Prefill.HostLoadS = int(seed>>53%4096), 1e-5
			p.Prefill.HostAsync = seed&1024 == 1024
			if seed&2048 == 2048 {
				p.Prefill.HostLayers = int(seed>>32%80) + 1
			}
		}
		if rate != rate || rate < 0 || rate > 1e4 || p.Concurrency > 0 {
			rate = 0
		}
		reqs := Generate(Workload{N: int(n%200) + 1, Rate: rate, Seed: seed,
			Prompt: model.LengthDist{Kind: model.Uniform, Min: 1, Max: int(prompt%3000) + 1},
			Gen:    model.LengthDist{Kind: model.LogNormal, Mean: float64(gen%400) + 1, Sigma: 0.8, Max: 2000}})
		if seed&256 == 256 {
			// Conversations of 2 to 6 turns, their later turns coming back to the prefill pool.
			reqs = Generate(Workload{N: int(n%40) + 1, Rate: rate, Seed: seed, Turns: int(seed>>48%5) + 2, ThinkS: float64(seed>>51%4) / 2,
				Prompt: model.LengthDist{Kind: model.Uniform, Min: 1, Max: int(prompt%1500) + 1},
				Gen:    model.LengthDist{Kind: model.LogNormal, Mean: float64(gen%300) + 1, Sigma: 0.8, Max: 1000}})
		}
		pre, dec, decoded, err := RunPools(p, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range reqs {
			switch {
			case pre.Rejected[i] && decoded[i], !pre.Rejected[i] && !decoded[i]:
				t.Fatalf("request %d: refused by the prefill pool %v, decoded %v", i, pre.Rejected[i], decoded[i])
			case decoded[i] && !dec.Rejected[i] && !(dec.FirstToken[i] >= pre.Done[i]+2e-4 && dec.Done[i] >= dec.FirstToken[i]):
				t.Fatalf("request %d: prefilled %g, first token %g, done %g", i, pre.Done[i], dec.FirstToken[i], dec.Done[i])
			}
		}
		if c := p.Concurrency; c > 0 {
			end := func(i int) float64 {
				if decoded[i] {
					return dec.Done[i]
				}
				return pre.Done[i]
			}
			for i := range reqs {
				in := 0
				for j := range reqs {
					if pre.Arrival[j] <= pre.Arrival[i] && pre.Arrival[i] < end(j) {
						in++
					}
				}
				if in > c {
					t.Fatalf("%d requests in the system at %g, %d clients", in, pre.Arrival[i], c)
				}
			}
		}
	})
}
