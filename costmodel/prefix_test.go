package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// A shared system prompt costs its prefill once when the engine caches prefixes (the engines'
// default), every time when it does not: the cached run's TTFT is lower, its tokens the same.
func TestSystemPromptPrefixCache(t *testing.T) {
	s := servingScenario(t, "llama-3-8b", "l40s", 300, 3)
	s.Cluster.GPUs, s.Cluster.GPUsPerNode, s.Cluster.NICsPerNode = 1, 1, 1
	s.Layout.TP, s.Layout.PP, s.Layout.DP = 1, 1, 1
	s.Workload.PromptTokens, s.Workload.GenTokens = 200, 100
	s.Workload.SystemPrompt = 1500
	cached := eval(t, s)
	s.Workload.SystemUncached = true
	uncached := eval(t, s)
	if !(cached.Inference.TTFT < 0.8*uncached.Inference.TTFT) {
		t.Errorf("mean TTFT cached %.3g s, uncached %.3g s: the cache should save most of 1500 of 1700 prompt tokens' prefill",
			cached.Inference.TTFT, uncached.Inference.TTFT)
	}
	// The report: most prompt tokens (1500 of 1700) from the cache, the prefix held once.
	if h := cached.Inference.PrefixHitRate; !(h > 0.8 && h < 1500.0/1700) || cached.Inference.PrefixCachePeakFraction <= 0 {
		t.Errorf("cached: hit rate %.4g (want above 0.8, below 1500/1700), prefix peak %.4g of the blocks", h, cached.Inference.PrefixCachePeakFraction)
	}
	if uncached.Inference.PrefixHitRate != 0 || uncached.Inference.PrefixCachePeakFraction != 0 {
		t.Errorf("uncached: hit rate %g, prefix peak %g, want 0", uncached.Inference.PrefixHitRate, uncached.Inference.PrefixCachePeakFraction)
	}
	// prefix_cached says the same of every prompt, the first included.
	s.Workload.PrefixCached = 1500
	all := eval(t, s)
	if !(all.Inference.TTFT <= cached.Inference.TTFT*1.05) {
		t.Errorf("prefix_cached 1500: mean TTFT %.3g s, above the cached system prompt's %.3g s", all.Inference.TTFT, cached.Inference.TTFT)
	}
	t.Logf("mean TTFT: cached %.3g s, uncached %.3g s, prefix_cached %.3g s", cached.Inference.TTFT, uncached.Inference.TTFT, all.Inference.TTFT)
	if s.Workload.Mode != model.Infer {
		t.Fatal("not a serving scenario")
	}
}
