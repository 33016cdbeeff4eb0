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

// With the host tier's loads asynchronous (vLLM's OffloadingConnector), an isolated request's
// first token comes as with them in its step (its load, then its new tokens' prefill: the same
// sum), with loads that take no time the two are the same run, and a sequence decoding while
// another's history is loaded is not held by the load: it ends earlier by the load's time,
// while the loading request waits for it out of the batches and then for the next step.
func TestHostTierAsyncLoads(t *testing.T) {
	c := linear{fixed: 5e-3, perToken: 1e-5}
	cfg := base()
	cfg.KVBlocks, cfg.HostBlocks, cfg.HostLoadS = 100, 200, 2e-5
	load := 64 * cfg.HostLoadS
	reqs := twoConversations()
	async := cfg
	async.HostAsync = true
	a, _ := run(t, async, reqs, c)
	if a.HostHitTokens != 2048 {
		t.Errorf("%g tokens loaded from the host tier, want both second turns' 1024", a.HostHitTokens)
	}
	for _, i := range []int{2, 3} {
		if got, want := a.FirstToken[i]-a.Arrival[i], load+c.fixed+c.perToken*48; !near(got, want) {
			t.Errorf("request %d alone: TTFT %.6g s, want its load then its 48 tokens' step %.6g s", i, got, want)
		}
	}
	free, freeAsync := cfg, async
	free.HostLoadS, freeAsync.HostLoadS = 0, 0
	f1, _ := run(t, free, reqs, c)
	f2, _ := run(t, freeAsync, reqs, c)
	for i := range reqs {
		if f1.FirstToken[i] != f2.FirstToken[i] || f1.Done[i] != f2.Done[i] {
			t.Fatalf("loads of no time: request %d differs (TTFT %g against %g)", i, f1.FirstToken[i], f2.FirstToken[i])
		}
	}

	// X decodes from 19.9 s on; A's second turn comes at about 20.1 s with its history in the
	// host tier.
	busy := append(twoConversations()[:2], Request{Arrival: 19.9, Prompt: 16, Gen: 400}, twoConversations()[2])
	busy[3].Group = 10
	s, _ := run(t, cfg, busy, c)
	b, _ := run(t, async, busy, c)
	if s.HostHitTokens != 1024 || b.HostHitTokens != 1024 {
		t.Fatalf("tokens loaded %g and %g, want A's 1024 history in both runs", s.HostHitTokens, b.HostHitTokens)
	}
	if !(s.FirstToken[3] < s.Done[2] && b.FirstToken[3] < b.Done[2]) {
		t.Fatalf("A's second turn answered after X ended: the test's timing is off")
	}
	if gain := s.Done[2] - b.Done[2]; !(gain > 0.99*load && gain < 1.01*load) {
		t.Errorf("X ends %.4g s earlier with asynchronous loads, want the load's %.4g s", gain, load)
	}
	if wait := b.FirstToken[3] - b.Arrival[3]; !(wait >= load+c.fixed+c.perToken*48) {
		t.Errorf("A's second turn: TTFT %.4g s, want at least its load and its step, %.4g s", wait, load+c.fixed+c.perToken*48)
	}
}

// Asynchronous loads go over the host link one after another: of two histories loaded for
// second turns sent at the same time, the second is back a load after the first, so the first
// turn's prefill runs alone once its load is done and the second's in the step after.
func TestHostTierAsyncLoadsQueue(t *testing.T) {
	c := linear{fixed: 5e-3, perToken: 1e-5}
	cfg := base()
	cfg.KVBlocks, cfg.HostBlocks, cfg.HostLoadS, cfg.HostAsync = 200, 200, 2e-5, true
	load := 64 * cfg.HostLoadS
	reqs := []Request{
		{Arrival: 0, Prompt: 1024, Gen: 16, Then: 10},
		{Arrival: 0, Prompt: 1024, Gen: 16, Then: 11},
		{Arrival: 10, Prompt: 2300, Gen: 16}, // 144 blocks: evicts both histories to the host tier
		{After: 1, Think: 20, Prompt: 1072, Shared: 1040, Group: 10, Gen: 16},
		{After: 2, Think: 20, Prompt: 1072, Shared: 1040, Group: 11, Gen: 16},
	}
	r, _ := run(t, cfg, reqs, c)
	if r.HostHitTokens != 2048 || r.Arrival[3] != r.Arrival[4] {
		t.Fatalf("%g tokens loaded, second turns sent at %g and %g: want 2048 at one time", r.HostHitTokens, r.Arrival[3], r.Arrival[4])
	}
	step := c.fixed + c.perToken*48
	if got := r.FirstToken[3] - r.Arrival[3]; !near(got, load+step) {
		t.Errorf("first loaded turn: TTFT %.6g s, want its load and its step %.6g s", got, load+step)
	}
	// Its load, second on the link, ends inside the first's step; its own carries the first
	// turn's first decode too.
	if got, want := r.FirstToken[4]-r.Arrival[4], load+2*step+c.perToken; !near(got, want) {
		t.Errorf("second loaded turn: TTFT %.6g s, want the first's load, its step and its own step %.6g s", got, want)
	}
}

// SGLang's HiCache loads a history layer by layer beside the forward that reads it: the
// isolated second turn's step of C = 5.48 ms with 1.28 ms of load over 32 layers takes
// max(C + L/32, L + C/32) = 5.52 ms, not C + L; a load longer than the forward leaves it
// load-bound, L + C/32.
func TestHostTierLayerwiseLoads(t *testing.T) {
	c := linear{fixed: 5e-3, perToken: 1e-5}
	cfg := base()
	cfg.KVBlocks, cfg.HostBlocks, cfg.HostLoadS, cfg.HostLayers = 100, 200, 2e-5, 32
	r, _ := run(t, cfg, twoConversations(), c)
	step, load := c.fixed+c.perToken*48, 64*cfg.HostLoadS
	if got, want := r.FirstToken[2]-r.Arrival[2], max(step+load/32, load+step/32); !near(got, want) || !(got < step+load) {
		t.Errorf("layer-wise load: TTFT %.6g s, want %.6g s (in the step, one after the other: %.6g s)", got, want, step+load)
	}
	cfg.HostLoadS = 2e-4 // 12.8 ms of load against the 5.48 ms forward
	r, _ = run(t, cfg, twoConversations(), c)
	if got, want := r.FirstToken[2]-r.Arrival[2], 64*cfg.HostLoadS+step/32; !near(got, want) {
		t.Errorf("load-bound: TTFT %.6g s, want the load and one layer's forward %.6g s", got, want)
	}
	if withLoad(3, 0, 32) != 3 || withLoad(3, 1, 0) != 4 {
		t.Errorf("withLoad: no load must leave the step, no layers must add the load")
	}
}
