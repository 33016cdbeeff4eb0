package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// chatScenario is Llama 3 8B on one H100 serving conversations of 6 turns (1024-token messages,
// 256-token answers, a minute's thought between turns) at 3 conversations a second: the
// conversations so far outgrow the GPU's KV pool, so the cache evicts some before their next
// turn comes.
func chatScenario(t *testing.T) model.Scenario {
	s := servingScenario(t, "llama-3-8b", "h100-sxm", 300, 3)
	s.Cluster.GPUs, s.Cluster.GPUsPerNode, s.Cluster.NICsPerNode = 1, 1, 1
	s.Layout.TP, s.Layout.PP, s.Layout.DP = 1, 1, 1
	s.Workload.PromptTokens, s.Workload.GenTokens = 1024, 256
	s.Workload.Turns, s.Workload.ThinkS = 6, 60
	return s
}

// A conversation's later turns hit what the cache kept of it; a host tier keeps what the GPUs
// evicted and loads it back: more of the prompts come from a cache, and the mean TTFT falls.
// With every turn a fresh request (no conversation kept) nothing hits.
func TestConversationsHostTier(t *testing.T) {
	s := chatScenario(t)
	gpu := eval(t, s)
	s.Workload.KVHostGiB = 64
	host := eval(t, s)
	gi, hi := gpu.Inference, host.Inference
	if !(gi.PrefixHitRate > 0.1) || gi.HostHitRate != 0 || gi.KVHostTokens != 0 {
		t.Errorf("GPU only: hit rate %.3g (want above 0.1: later turns hit their conversation), host hits %.3g, host tokens %g", gi.PrefixHitRate, gi.HostHitRate, gi.KVHostTokens)
	}
	if !(hi.HostHitRate > 0.1) || !(hi.PrefixHitRate > gi.PrefixHitRate+0.5*hi.HostHitRate) {
		t.Errorf("host tier: hit rate %.3g of which %.3g from the host, GPU only %.3g: want the host's hits added", hi.PrefixHitRate, hi.HostHitRate, gi.PrefixHitRate)
	}
	if !(hi.TTFT < 0.9*gi.TTFT) {
		t.Errorf("mean TTFT %.4g s with a host tier, %.4g s without: loading a conversation back should beat prefilling it", hi.TTFT, gi.TTFT)
	}
	// The tier's size: 64 GiB over one block's bytes on the GPU, in whole blocks.
	perToken := host.Memory.KVCache / gi.KVCacheTokens
	if want := math.Floor(64*model.GiB/(perToken*model.ServeBlockTokens)) * model.ServeBlockTokens; math.Abs(hi.KVHostTokens-want) > model.ServeBlockTokens {
		t.Errorf("host tier %g tokens, want 64 GiB's %g", hi.KVHostTokens, want)
	}
	if host.Memory.Host != 64*model.GiB || !host.Memory.Fits {
		t.Errorf("host memory %g GiB, fits %v: want the tier's 64 GiB, within the node's", host.Memory.Host/model.GiB, host.Memory.Fits)
	}
	t.Logf("mean TTFT %.4g s GPU only (hit %.3f), %.4g s with 64 GiB of host tier (hit %.3f, %.3f from the host)",
		gi.TTFT, gi.PrefixHitRate, hi.TTFT, hi.PrefixHitRate, hi.HostHitRate)
}

// A host tier the pool never evicts to changes no latency; one larger than a GPU's share of the
// host memory does not fit, and make-it-fit brings it to the share.
func TestHostTierIdleAndOversized(t *testing.T) {
	s := servingScenario(t, "llama-3-8b", "h100-sxm", 200, 2)
	plain := eval(t, s)
	s.Workload.KVHostGiB = 16
	tiered := eval(t, s)
	if plain.Inference.TTFT != tiered.Inference.TTFT || plain.Inference.E2EMean != tiered.Inference.E2EMean || tiered.Inference.HostHitRate != 0 {
		t.Errorf("an idle host tier changed the run: TTFT %g → %g, E2E %g → %g, host hits %g", plain.Inference.TTFT, tiered.Inference.TTFT,
			plain.Inference.E2EMean, tiered.Inference.E2EMean, tiered.Inference.HostHitRate)
	}
	share := s.Cluster.HostMemoryPerGPU() / model.GiB
	s.Workload.KVHostGiB = share + 100
	over := eval(t, s)
	if over.Memory.Fits || !strings.Contains(OverMemory(over), "host memory") {
		t.Errorf("a %g GiB tier on %g GiB of host per GPU: fits %v, %q", s.Workload.KVHostGiB, share, over.Memory.Fits, OverMemory(over))
	}
	fix, err := MakeItFit(s)
	if err != nil || fix == nil || fix.Scenario.Workload.KVHostGiB > share {
		t.Fatalf("make it fit: %+v, %v: want the tier brought within %g GiB", fix, err, share)
	}
}

// Bad conversations and tiers are refused naming the flag.
func TestTurnsValidation(t *testing.T) {
	for _, c := range []struct {
		edit  func(*model.Scenario)
		field string
	}{
		{func(s *model.Scenario) { s.Workload.Turns = model.MaxTurns + 1 }, "turns"},
		{func(s *model.Scenario) { s.Workload.Turns = -1 }, "turns"},
		{func(s *model.Scenario) { s.Workload.ThinkS = 5 }, "think"},
		{func(s *model.Scenario) { s.Workload.Turns, s.Workload.ThinkS = 3, math.NaN() }, "think"},
		{func(s *model.Scenario) { s.Workload.KVHostGiB = -1 }, "kv-host-gib"},
		{func(s *model.Scenario) { s.Workload.KVHostGiB = math.Inf(1) }, "kv-host-gib"},
		{func(s *model.Scenario) { s.Workload.Turns, s.Workload.PromptTokens = 200, 100000 }, "turns"},
	} {
		s := chatScenario(t)
		s.Workload.Turns, s.Workload.ThinkS = 0, 0
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming %s", c.field, err, c.field)
		}
	}
}
