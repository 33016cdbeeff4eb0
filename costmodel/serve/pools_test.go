package serve

import (
	"slices"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// poolsWorkload is n requests of uneven prompts and outputs, arriving every gap seconds.
func poolsWorkload(n int, gap float64) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Arrival: float64(i) * gap, Prompt: 200 + 137*(i%7), Gen: 20 + 11*(i%5)}
	}
	return reqs
}

// poolsFixture is a two-instance prefill pool and a decode pool of dec instances (Ready left to
// the test).
func poolsFixture(dec int) Pools {
	pre := base()
	pre.Replicas = 2
	d := base()
	d.Replicas = dec
	return Pools{Prefill: pre, Decode: d,
		PrefillCost: linear{fixed: 3e-3, perToken: 2e-5}, DecodeCost: linear{fixed: 2e-3, perToken: 1e-5, perCtx: 1e-8}}
}

// Open loop, one decode instance: the pools in one clock give what the prefill pool's run, the
// transfers after it and the decode pool's run on the caches' arrivals give one after the
// other (nothing a pool does depends on the other's future).
func TestPoolsOpenLoopEqualsOneAfterTheOther(t *testing.T) {
	reqs := poolsWorkload(60, 0.01)
	p := poolsFixture(1)
	sendOf := func(i int) float64 { return 2e-6 * float64(reqs[i].Prompt) }
	busy := make([]float64, 2)
	ready := make([]float64, len(reqs))
	p.Ready = func(rep, id int, t float64) float64 {
		busy[rep] = max(busy[rep], t) + sendOf(id)
		ready[id] = busy[rep]
		return ready[id]
	}
	pre, dec, decoded, err := RunPools(p, reqs)
	if err != nil {
		t.Fatal(err)
	}

	// One after the other.
	pr := slices.Clone(reqs)
	for i := range pr {
		pr[i].Gen = 1
	}
	want, err := Run(p.Prefill, pr, p.PrefillCost)
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case want.Done[a] < want.Done[b]:
			return -1
		case want.Done[a] > want.Done[b]:
			return 1
		}
		return 0
	})
	b2 := make([]float64, 2)
	rd := make([]float64, len(reqs))
	for _, i := range order {
		b2[i%2] = max(b2[i%2], want.Done[i]) + sendOf(i)
		rd[i] = b2[i%2]
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rd[a] < rd[b]:
			return -1
		case rd[a] > rd[b]:
			return 1
		}
		return 0
	})
	dr := make([]Request, len(order))
	for j, i := range order {
		dr[j] = Request{Arrival: rd[i], Prompt: reqs[i].Prompt, Gen: reqs[i].Gen, Cached: reqs[i].Prompt}
	}
	wantD, err := Run(p.Decode, dr, p.DecodeCost)
	if err != nil {
		t.Fatal(err)
	}
	for j, i := range order {
		if !decoded[i] || pre.Done[i] != want.Done[i] || pre.FirstToken[i] != want.FirstToken[i] || ready[i] != rd[i] {
			t.Fatalf("request %d: prefill done %g (alone %g), ready %g (alone %g), decoded %v", i, pre.Done[i], want.Done[i], ready[i], rd[i], decoded[i])
		}
		if dec.FirstToken[i] != wantD.FirstToken[j] || dec.Done[i] != wantD.Done[j] || dec.Arrival[i] != wantD.Arrival[j] {
			t.Fatalf("request %d: decode first token %g done %g sent %g; one after the other %g, %g, %g", i,
				dec.FirstToken[i], dec.Done[i], dec.Arrival[i], wantD.FirstToken[j], wantD.Done[j], wantD.Arrival[j])
		}
	}
	if dec.Duration != wantD.Duration || pre.Steps != want.Steps || dec.Steps != wantD.Steps {
		t.Errorf("duration %g steps %d+%d; one after the other %g, %d+%d", dec.Duration, pre.Steps, dec.Steps, wantD.Duration, want.Steps, wantD.Steps)
	}
}

// A closed loop of C clients over the pools: never more than C requests between their sending
// and their last token, the first C sent at once, and every later one sent when an earlier one
// ended (the sendings after the first C are the first n − C ends, in order).
func TestPoolsClosedLoop(t *testing.T) {
	const n, clients = 120, 8
	reqs := poolsWorkload(n, 0)
	for _, dec := range []int{1, 3} {
		p := poolsFixture(dec)
		p.Concurrency = clients
		p.Ready = func(_, id int, t float64) float64 { return t + 1e-4 }
		pre, res, decoded, err := RunPools(p, reqs)
		if err != nil {
			t.Fatal(err)
		}
		var sent, ends []float64
		for i := range reqs {
			if !decoded[i] || pre.Rejected[i] || res.Rejected[i] {
				t.Fatalf("decode pools %d: request %d not served", dec, i)
			}
			sent = append(sent, pre.Arrival[i])
			ends = append(ends, res.Done[i])
			if res.FirstToken[i] < pre.Done[i]+1e-4 || res.Done[i] < res.FirstToken[i] {
				t.Fatalf("decode pools %d: request %d sent %g, prefilled %g, first token %g, done %g: out of order", dec, i, pre.Arrival[i], pre.Done[i], res.FirstToken[i], res.Done[i])
			}
		}
		slices.Sort(sent)
		slices.Sort(ends)
		for k := range clients {
			if sent[k] != 0 {
				t.Fatalf("decode pools %d: the first %d requests are sent at once; the %dth at %g", dec, clients, k+1, sent[k])
			}
		}
		for k := clients; k < n; k++ {
			if sent[k] != ends[k-clients] {
				t.Fatalf("decode pools %d: sending %d at %g, want the end of the %dth request, %g", dec, k, sent[k], k-clients+1, ends[k-clients])
			}
		}
		most := 0
		for _, t0 := range sent {
			in := 0
			for i := range reqs {
				if pre.Arrival[i] <= t0 && t0 < res.Done[i] {
					in++
				}
			}
			most = max(most, in)
		}
		if most != clients {
			t.Errorf("decode pools %d: at most %d requests in the system, want the %d clients'", dec, most, clients)
		}
	}
}

// Conversations on pools: each later turn is sent its think time after the decode pool's last
// token of the turn before, and the prefill pool serves part of its prompt from the
// conversation's cached blocks (the prompt so far, not the answers, which were decoded on the
// other pool).
func TestPoolsConversations(t *testing.T) {
	reqs := Generate(Workload{N: 12, Rate: 2, Seed: 7, Turns: 3, ThinkS: 0.5,
		Prompt: model.LengthDist{Kind: model.Fixed, Mean: 300}, Gen: model.LengthDist{Kind: model.Fixed, Mean: 40}})
	p := poolsFixture(2)
	p.Ready = func(_, _ int, t float64) float64 { return t + 1e-4 }
	pre, dec, decoded, err := RunPools(p, reqs)
	if err != nil {
		t.Fatal(err)
	}
	later := 0
	for i, q := range reqs {
		if !decoded[i] || dec.Rejected[i] {
			t.Fatalf("request %d not served", i)
		}
		if q.After > 0 {
			later++
			if want := dec.Done[q.After-1] + q.Think; pre.Arrival[i] != want {
				t.Errorf("turn %d sent at %g, want the turn before's end %g + think %g", i, pre.Arrival[i], dec.Done[q.After-1], q.Think)
			}
		}
	}
	if later == 0 || !(pre.CacheHitTokens > 0) {
		t.Errorf("%d later turns, %g prompt tokens hit in the prefill pool: want some of both", later, pre.CacheHitTokens)
	}
}
