package serve

import "testing"

// sharedPrompt is n requests, one every gap seconds, each a shared prefix of sys tokens before
// its own own tokens; grouped: as prefix group g(i); else the per-request accounting (every
// request after the first marks the prefix Cached, held in its own blocks).
func sharedPrompt(n int, gap float64, sys, own, gen int, grouped bool, g func(int) int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Arrival: float64(i) * gap, Prompt: sys + own, Gen: gen}
		switch {
		case grouped:
			reqs[i].Group, reqs[i].Shared = g(i), sys
		case i > 0:
			reqs[i].Cached = sys
		}
	}
	return reqs
}

func one(int) int { return 1 }

// A system prompt shared by every request is held once: the peak KV blocks in use fall well below
// the per-request accounting's (which holds it in every running request's blocks), and most
// prompt tokens come from the cache.
func TestSharedPrefixHeldOnce(t *testing.T) {
	cfg := base()
	cfg.KVBlocks = 1 << 14
	c := linear{fixed: 5e-3, perToken: 2e-6, perCtx: 1e-10}
	per, _ := run(t, cfg, sharedPrompt(200, 0.01, 2048, 64, 300, false, one), c)
	grp, _ := run(t, cfg, sharedPrompt(200, 0.01, 2048, 64, 300, true, one), c)
	pb, gb := per.KVPeak*float64(cfg.KVBlocks), grp.KVPeak*float64(cfg.KVBlocks)
	if !(gb < 0.5*pb) {
		t.Errorf("peak KV blocks: %.0f shared once, %.0f per request: want well below half", gb, pb)
	}
	hit := grp.CacheHitTokens / grp.PromptTokens
	if !(hit > 0.9 && hit < 2048.0/2112) {
		t.Errorf("hit rate %.4g: want above 0.9 and below the prefix's share %.4g (the first request prefills it)", hit, 2048.0/2112)
	}
	if want := float64(2048/16) / float64(cfg.KVBlocks); grp.PrefixPeak != want {
		t.Errorf("prefix peak %.6g of the blocks, want the prefix's 128 blocks once: %.6g", grp.PrefixPeak, want)
	}
	if per.PrefixPeak != 0 {
		t.Errorf("per-request accounting: prefix peak %g, want 0", per.PrefixPeak)
	}
	t.Logf("peak blocks %.0f shared once, %.0f per request; hit rate %.4f", gb, pb, hit)
}

// A KV pool too small for two groups' prefixes evicts one for the other: requests alternating
// between them miss and prefill their prefix again (hit rate near 0, TTFT higher), where a large
// pool keeps both (hit rate near the prefixes' share).
func TestTinyPoolEvictsPrefix(t *testing.T) {
	alt := func(i int) int { return 1 + i%2 }
	reqs := sharedPrompt(100, 0.5, 1024, 32, 16, true, alt)
	c := linear{fixed: 5e-3, perToken: 2e-5, perCtx: 1e-10}
	big := base()
	small := base()
	small.KVBlocks = 64 + 8 + 2 // one prefix of 64 blocks and one request's own tokens
	rb, sb := run(t, big, reqs, c)
	rs, ss := run(t, small, reqs, c)
	hb, hs := rb.CacheHitTokens/rb.PromptTokens, rs.CacheHitTokens/rs.PromptTokens
	if !(hb > 0.9 && hs < 0.1) {
		t.Errorf("hit rate: %.4g with a large pool (want > 0.9), %.4g with a tiny one (want < 0.1)", hb, hs)
	}
	if !(ss.TTFTMean > 2*sb.TTFTMean) {
		t.Errorf("mean TTFT %.4g s with a tiny pool, %.4g s with a large one: re-prefilling should cost more", ss.TTFTMean, sb.TTFTMean)
	}
	if ss.Rejected != 0 || rs.Preemptions != 0 {
		t.Errorf("tiny pool: %d refused, %d preemptions: want the cached prefix evicted, nothing else", ss.Rejected, rs.Preemptions)
	}
	// One group only: the tiny pool keeps it (an unused cached prefix stays until it is needed).
	rs1, _ := run(t, small, sharedPrompt(100, 0.5, 1024, 32, 16, true, one), c)
	if h := rs1.CacheHitTokens / rs1.PromptTokens; !(h > 0.9) {
		t.Errorf("one group in the tiny pool: hit rate %.4g, want > 0.9", h)
	}
	t.Logf("hit rate %.4f large, %.4f tiny; TTFT %.4g s large, %.4g s tiny", hb, hs, sb.TTFTMean, ss.TTFTMean)
}

// A pool that must preempt keeps going with shared prefixes: every request ends, the blocks all
// come back (a second run on the same engine would see a full pool: checked through KVPeak ≤ 1).
func TestSharedPrefixUnderPressure(t *testing.T) {
	cfg := base()
	cfg.KVBlocks = 400
	reqs := sharedPrompt(300, 0.001, 1500, 200, 400, true, func(i int) int { return 1 + i%3 })
	r, s := run(t, cfg, reqs, linear{fixed: 5e-3, perToken: 2e-6, perCtx: 1e-10})
	if s.Completed+s.Rejected != len(reqs) || r.Preemptions == 0 || r.KVPeak > 1 || r.PrefixPeak > 1 {
		t.Errorf("%d completed, %d refused, %d preemptions, KV peak %g, prefix peak %g", s.Completed, s.Rejected, r.Preemptions, r.KVPeak, r.PrefixPeak)
	}
}

// Eviction is least recently used: with room for two cached prefixes, groups A B A C A (each
// request alone) hit at the second and third A: C evicts B, used longer ago than A. Evicting the
// first cached (A) or the most recently used (A) instead would make the third A miss.
func TestPrefixEvictionLRU(t *testing.T) {
	order := []int{1, 2, 1, 3, 1}
	reqs := sharedPrompt(len(order), 1, 1024, 32, 16, true, func(i int) int { return order[i] })
	cfg := base()
	cfg.KVBlocks = 2*64 + 6 // two prefixes of 64 blocks and one request's own
	r, _ := run(t, cfg, reqs, linear{fixed: 5e-3, perToken: 2e-6, perCtx: 1e-10})
	if r.CacheHitTokens != 2*1024 || r.PromptTokens != 5*1056 {
		t.Errorf("%g of %g prompt tokens from the cache, want the two later A's prefixes: 2048 of %d", r.CacheHitTokens, r.PromptTokens, 5*1056)
	}
}
