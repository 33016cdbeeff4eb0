package serve

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// A conversation's next turn hits the whole blocks of the turn before's context (its prompt and
// answer, the answer's last token never computed): 300 tokens of history leave 18 blocks (288
// tokens) cached, 600 leave 37 (592). Its TTFT is the prefill of the rest; with the history not
// kept (Then 0) every turn prefills all of it.
func TestConversationHitsItsHistory(t *testing.T) {
	w := Workload{N: 1, Turns: 3, ThinkS: 1, Prompt: model.LengthDist{Mean: 200}, Gen: model.LengthDist{Mean: 100}, Seed: 7}
	reqs := Generate(w)
	if len(reqs) != 3 || reqs[1].Prompt != 500 || reqs[2].Prompt != 800 || reqs[1].Shared != 300 || reqs[2].Shared != 600 {
		t.Fatalf("turns %+v: want prompts 200, 500, 800 sharing 300 and 600", reqs)
	}
	c := linear{fixed: 5e-3, perToken: 1e-5}
	r, _ := run(t, base(), reqs, c)
	if r.CacheHitTokens != 288+592 {
		t.Errorf("%g prompt tokens from the cache, want 288 + 592", r.CacheHitTokens)
	}
	if got, want := r.FirstToken[1]-r.Arrival[1], c.fixed+c.perToken*(500-288); !near(got, want) {
		t.Errorf("turn 2's TTFT %.6g s, want its 212 new tokens' prefill %.6g s", got, want)
	}
	if gap := r.Arrival[1] - r.Done[0]; !(gap > 0) || !near(gap, reqs[1].Think) {
		t.Errorf("turn 2 sent %.4g s after turn 1 ended, want its think time %.4g s", gap, reqs[1].Think)
	}
	cold := append([]Request(nil), reqs...)
	for i := range cold {
		cold[i].Then = 0
	}
	rc, _ := run(t, base(), cold, c)
	if rc.CacheHitTokens != 0 || !near(rc.FirstToken[1]-rc.Arrival[1], c.fixed+c.perToken*500) {
		t.Errorf("history not kept: %g cached, TTFT %.6g s: want 0 and the whole prompt's prefill", rc.CacheHitTokens, rc.FirstToken[1]-rc.Arrival[1])
	}
}

// twoConversations is A and B, two turns each: B's first turn needs the blocks A's kept history
// holds in a pool of 100 blocks, so it evicts it, and A's second turn evicts B's.
func twoConversations() []Request {
	return []Request{
		{Arrival: 0, Prompt: 1024, Gen: 16, Then: 10},
		{Arrival: 10, Prompt: 1024, Gen: 16, Then: 11},
		{After: 1, Think: 20, Prompt: 1072, Shared: 1040, Group: 10, Gen: 16},
		{After: 2, Think: 20, Prompt: 1072, Shared: 1040, Group: 11, Gen: 16},
	}
}

// With a host tier, an evicted history is loaded back: the second turns hit their 64 blocks
// from the host, TTFT the new tokens' prefill plus the 64 blocks' load, exactly; without one
// they prefill it all again. A host tier the pool never evicts to changes nothing.
func TestHostTierLoadsEvictedHistory(t *testing.T) {
	reqs := twoConversations()
	c := linear{fixed: 5e-3, perToken: 1e-5}
	cfg := base()
	cfg.KVBlocks = 100
	gpuOnly, _ := run(t, cfg, reqs, c)
	if gpuOnly.CacheHitTokens != 0 || !near(gpuOnly.FirstToken[2]-gpuOnly.Arrival[2], c.fixed+c.perToken*1072) {
		t.Errorf("no host tier: %g tokens cached, TTFT %.6g s: want 0, the whole prompt prefilled", gpuOnly.CacheHitTokens, gpuOnly.FirstToken[2]-gpuOnly.Arrival[2])
	}
	cfg.HostBlocks, cfg.HostLoadS = 200, 2e-5
	host, _ := run(t, cfg, reqs, c)
	if host.HostHitTokens != 2048 || host.CacheHitTokens != 2048 {
		t.Errorf("host tier: %g tokens loaded, %g cached: want both second turns' 1024", host.HostHitTokens, host.CacheHitTokens)
	}
	for _, i := range []int{2, 3} {
		if got, want := host.FirstToken[i]-host.Arrival[i], c.fixed+c.perToken*48+64*cfg.HostLoadS; !near(got, want) {
			t.Errorf("request %d: TTFT %.6g s, want 48 tokens' prefill and 64 blocks' load %.6g s", i, got, want)
		}
	}
	// Too small a tier holds neither history.
	cfg.HostBlocks = 63
	small, _ := run(t, cfg, reqs, c)
	if small.HostHitTokens != 0 {
		t.Errorf("a 63-block tier: %g tokens loaded, want 0 (a 64-block history does not fit)", small.HostHitTokens)
	}
	// A pool that never evicts: the tier is never used, the run the same as without it.
	big := base()
	plain, _ := run(t, big, reqs, c)
	big.HostBlocks, big.HostLoadS = 200, 2e-5
	tiered, _ := run(t, big, reqs, c)
	for i := range reqs {
		if plain.FirstToken[i] != tiered.FirstToken[i] || plain.Done[i] != tiered.Done[i] {
			t.Fatalf("request %d: a host tier never used changed the run: TTFT %g → %g", i, plain.FirstToken[i], tiered.FirstToken[i])
		}
	}
}

// Conversations under pressure, open and closed loops, with and without a host tier: every turn
// ends, each one after the turn before it (by its think time at least), the first turns are the
// single-turn workload's requests, and the tier only ever adds hits.
func TestConversationsUnderPressure(t *testing.T) {
	w := Workload{N: 60, Rate: 20, Turns: 4, ThinkS: 0.5, Seed: 3,
		Prompt: model.LengthDist{Kind: model.LogNormal, Mean: 300, Sigma: 0.6, Min: 1, Max: 2000},
		Gen:    model.LengthDist{Kind: model.LogNormal, Mean: 120, Sigma: 0.6, Min: 1, Max: 600}}
	reqs := Generate(w)
	single := w
	single.Turns = 0
	first := Generate(single)
	if len(reqs) != 4*len(first) {
		t.Fatalf("%d requests for %d conversations of 4 turns", len(reqs), len(first))
	}
	for i, q := range first {
		if q.Prompt != reqs[i].Prompt || q.Gen != reqs[i].Gen || q.Arrival != reqs[i].Arrival {
			t.Fatalf("first turn %d differs from the single-turn workload's request", i)
		}
	}
	c := linear{fixed: 4e-3, perToken: 2e-6, perCtx: 1e-9}
	var hits [2]float64
	for k, hostBlocks := range []int{0, 4096} {
		for _, clients := range []int{0, 8} {
			cfg := base()
			cfg.Replicas, cfg.KVBlocks, cfg.Concurrency = 2, 600, clients
			cfg.HostBlocks, cfg.HostLoadS = hostBlocks, 1e-5
			r, s := run(t, cfg, reqs, c)
			if s.Completed+s.Rejected != len(reqs) || r.KVPeak > 1 {
				t.Errorf("host %d, clients %d: %d ended of %d, KV peak %g", hostBlocks, clients, s.Completed+s.Rejected, len(reqs), r.KVPeak)
			}
			for i, q := range reqs {
				if q.After > 0 && r.Arrival[i] < r.Done[q.After-1]+q.Think-1e-12 {
					t.Fatalf("host %d, clients %d: turn %d sent at %g before its turn before ended (%g) and its think time", hostBlocks, clients, i, r.Arrival[i], r.Done[q.After-1])
				}
			}
			if clients == 0 {
				hits[k] = r.CacheHitTokens
			}
			if hostBlocks == 0 && r.HostHitTokens != 0 {
				t.Errorf("no tier, %g tokens loaded from it", r.HostHitTokens)
			}
		}
	}
	if !(hits[1] > hits[0]) {
		t.Errorf("prompt tokens from the cache: %g with a host tier, %g without: want more with it", hits[1], hits[0])
	}
	t.Logf("cached prompt tokens %g GPU only, %g with a host tier", hits[0], hits[1])
}
