package serve

import (
	"fmt"
	"math"
)

// Pools is a disaggregated deployment served as one system: a prefill pool whose instances run
// each request's prompt with one output token, and a decode pool whose instances admit the
// request with its prompt cached once its KV cache has come over, and generate its output.
// Both pools' replicas run side by side in one clock, so a closed loop's client can send its
// next request when the decode pool's last token of its last one came (Run simulates one pool;
// a caller chaining two Runs can only feed the second pool from the first).
type Pools struct {
	Prefill, Decode         Config
	PrefillCost, DecodeCost StepCost
	// Concurrency > 0 runs a closed loop of that many clients over the whole deployment: each
	// sends its next request when its last one's last token came, or when either pool refused it
	// (vLLM's benchmark_serving --max-concurrency). 0: requests are sent at their Arrival.
	// The pools' own Config.Concurrency is not used.
	Concurrency int
	// Ready is when request id's KV cache, prefilled on prefill instance rep and done there at t,
	// is on the decode pool: the caller's transfer model (its own queue per instance, if any). It
	// is called once a request, in the order the prefills end.
	Ready func(rep, id int, t float64) float64
}

// RunPools serves reqs on both pools (Pools). The k-th request sent goes to prefill instance k
// mod the prefill replicas (a round-robin proxy), a conversation's later turn (Request.After)
// to its first turn's instance, whose prefix cache holds the conversation's prompt so far
// (Request.Then; the answers were generated on the decode pool and are prefilled again), sent
// its think time after the decode pool's last token of the turn before; each request, when its
// cache is ready, goes to the decode instance next in turn. pre is the prefill pool's run
// (every request as its prompt with one token), dec the decode pool's (Arrival when its cache
// was ready; FirstToken and Done as the client saw them), both indexed as reqs; decoded[i] says
// whether request i reached the decode pool (not refused by the prefill pool).
func RunPools(p Pools, reqs []Request) (pre, dec Result, decoded []bool, err error) {
	n := len(reqs)
	pr, dr := make([]Request, n), make([]Request, n)
	follow, home := make([]int, n), make([]int, n)
	for i := range follow {
		follow[i] = -1
	}
	for i, q := range reqs {
		if q.After > 0 && q.After-1 < i {
			follow[q.After-1] = i
		}
		pr[i] = q
		pr[i].Gen = 1
		dr[i] = q
		dr[i].Cached, dr[i].Group, dr[i].Shared, dr[i].Then = q.Prompt, 0, 0, 0
	}
	if p.Ready == nil {
		return Result{}, Result{}, nil, fmt.Errorf("serve: pools without a transfer (Ready)")
	}
	if p.Concurrency < 0 {
		return Result{}, Result{}, nil, fmt.Errorf("serve: concurrency %d: need 0 (open loop) or more", p.Concurrency)
	}
	cp, cd := p.Prefill, p.Decode
	cp.Concurrency, cd.Concurrency = p.Concurrency, 1 // the decode pool's arrivals come when they come
	if err := cp.validate(pr); err != nil {
		return Result{}, Result{}, nil, fmt.Errorf("prefill pool: %w", err)
	}
	if err := cd.validate(dr); err != nil {
		return Result{}, Result{}, nil, fmt.Errorf("decode pool: %w", err)
	}
	cp.Concurrency, cd.Concurrency = 0, 0
	pre, dec = newResult(cp, pr), newResult(cd, dr)
	decoded = make([]bool, n)
	endP, endD := make([]bool, n), make([]bool, n)
	pool := func(cfg Config, rq []Request, cost StepCost, res *Result, ended []bool) []*replica {
		reps := make([]*replica, cfg.Replicas)
		for k := range reps {
			reps[k] = newReplica(cfg, k, rq, nil, 0, cost, res)
			reps[k].ended, reps[k].follow = ended, follow
		}
		return reps
	}
	preReps := pool(cp, pr, p.PrefillCost, &pre, endP)
	decReps := pool(cd, dr, p.DecodeCost, &dec, endD)
	// Requests are sent in workload order, conversations' first turns only (later turns follow
	// their turn before); sentK counts those sent, for the round robin.
	next, sentK, toDecode := 0, 0, 0
	sendNext := func(t float64) bool { // the next first turn, at t (or its Arrival, open loop)
		for next < n && reqs[next].After > 0 {
			next++
		}
		if next >= n {
			return false
		}
		home[next] = sentK % len(preReps)
		r := preReps[home[next]]
		if p.Concurrency == 0 {
			t = reqs[next].Arrival
		}
		r.push(r.sent(t, next))
		next++
		sentK++
		return true
	}
	// ended: request id's client has its answer (or a refusal) at t: its conversation's next
	// turn, or a closed loop's next request.
	ended := func(t float64, id int) {
		if f := follow[id]; f >= 0 {
			home[f] = home[id]
			r := preReps[home[f]]
			r.push(r.sent(t+reqs[f].Think, f))
			return
		}
		if p.Concurrency > 0 {
			sendNext(t)
		}
	}
	for k, r := range preReps {
		rep := k
		r.after = func(t float64, id int) {
			if pre.Rejected[id] {
				ended(t, id)
				return
			}
			ready := p.Ready(rep, id, t)
			if math.IsNaN(ready) || ready < t {
				ready = t // a transfer takes no negative time
			}
			d := decReps[toDecode%len(decReps)]
			toDecode++
			decoded[id] = true
			d.push(d.sent(ready, id))
		}
	}
	for _, r := range decReps {
		r.after = ended
	}
	// The first requests: every one of an open loop (each at its Arrival), one a client of a
	// closed loop.
	for k := 0; p.Concurrency == 0 || k < p.Concurrency; k++ {
		if !sendNext(0) {
			break
		}
	}

	// One clock: the replica whose next event comes first runs it (the prefill pool's first on
	// a tie, then the lower instance).
	all := append(append([]*replica(nil), preReps...), decReps...)
	for steps := 0; ; steps++ {
		if steps > maxSimSteps {
			return Result{}, Result{}, nil, fmt.Errorf("serve: more than %d events: the workload makes no progress", maxSimSteps)
		}
		best, bt := -1, math.Inf(1)
		for k, r := range all {
			if kind, t, _ := r.peek(); kind != evNone && t < bt {
				best, bt = k, t
			}
		}
		if best < 0 {
			break
		}
		all[best].advance()
	}

	for k, reps := range [2][]*replica{preReps, decReps} {
		res := [2]*Result{&pre, &dec}[k]
		var area float64
		for _, r := range reps {
			if r.free+r.evictable != r.blocks || r.hostUsed > max(r.cfg.HostBlocks, 0) || r.hostUsed < 0 {
				return Result{}, Result{}, nil, fmt.Errorf("serve: %s replica %d ends with %d free and %d cached of %d KV blocks: blocks lost",
					[2]string{"prefill", "decode"}[k], r.idx, r.free, r.evictable, r.blocks)
			}
			area += r.area
			res.MaxRunning += r.maxRunning
		}
		for i := range reqs {
			if k == 1 && !decoded[i] {
				continue
			}
			if ![2][]bool{endP, endD}[k][i] {
				return Result{}, Result{}, nil, fmt.Errorf("serve: request %d never finished in the %s pool (a scheduling dead end)", i, [2]string{"prefill", "decode"}[k])
			}
			if !res.Rejected[i] {
				res.Duration = max(res.Duration, res.Done[i])
			}
		}
		if res.Duration > 0 {
			res.MeanInSystem = area / res.Duration
		}
	}
	return pre, dec, decoded, nil
}

// newResult is an empty result for reqs on cfg; with Config.ITL every token after a request's
// first is one gap, sized once, not grown.
func newResult(cfg Config, reqs []Request) Result {
	n := len(reqs)
	res := Result{
		FirstToken: make([]float64, n), Done: make([]float64, n), Arrival: make([]float64, n),
		Rejected: make([]bool, n), Busy: make([]float64, cfg.Stages), BusyTP: make([]float64, cfg.Stages),
		BusyEP: make([]float64, cfg.Stages), BusyCP: make([]float64, cfg.Stages),
	}
	if cfg.ITL {
		var gaps int
		for _, q := range reqs {
			gaps += q.Gen - 1
		}
		res.ITL.IDs = make([]int32, 0, gaps)
	}
	return res
}
