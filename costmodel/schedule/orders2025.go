package schedule

import (
	"errors"
	"sync"
)

// fuse marks an op that runs together with the op after it on its rank as one: DualPipe's
// forward overlapped with another micro-batch's backward, and a backward that computes its
// weight gradients at once (B with its W). The group starts when the rank is free and all its
// inputs have arrived, and every op of it ends when the group does.
const fuse ref = 1 << 61

// dual builds rank r's order of DualPipe (v false) or DualPipeV (v true) as step() in
// deepseek-ai/DualPipe (dualpipe/dualpipe.py, dualpipe/dualpipev.py) runs it, in its eight
// steps: warm-up forwards (nF0), forwards of both phases (nF0F1), backwards with their weight
// passes held back run between forwards (nB1W1F1), the main step of overlapped forward–backward
// pairs (nF0B1F1B0), then backwards paired with the last forwards, plain backwards (the second
// half with their weights held back), and the held-back weight passes (FIFO). A phase is one of
// the two stages the rank holds: for DualPipe, phase 0 is the direction this rank is early in
// (its stage min(r, p−1−r)); for DualPipeV, chunk 0 (going down) and chunk 1 (coming back). Each
// phase runs o.m micro-batches (DualPipe: half of the step's, one direction).
func (o *orderOf) dual(v bool) {
	p, r, m := o.p, o.r, o.m
	var n, hr int // the ranks the steps count, and this rank's place among them
	var q [2]int  // chain positions of phase 0 and 1
	var middle bool
	if v {
		n, hr = p, r
		q = [2]int{r, 2*p - 1 - r}
		middle = r == p-1
	} else {
		n, hr = p/2, min(r, p-1-r)
		q = [2]int{r, p + p - 1 - r} // first half: phase 0 enters at rank 0
		if r >= n {
			q = [2]int{p + p - 1 - r, r}
		}
		middle = r == n-1 || r == n
	}
	var fc, bc [2]int
	type pend struct{ q, micro int }
	var wq []pend // weight passes held back, oldest first
	fwd := func(ph int, f ref) {
		o.seq = append(o.seq, mkref(F, q[ph], fc[ph])|f)
		fc[ph]++
	}
	bwd := func(ph int, zb bool) {
		x := mkref(B, q[ph], bc[ph])
		if zb {
			o.seq = append(o.seq, x)
			wq = append(wq, pend{q[ph], bc[ph]})
		} else { // the whole backward: input and weight gradients at once
			o.seq = append(o.seq, x|fuse, mkref(W, q[ph], bc[ph]))
		}
		bc[ph]++
	}
	weight := func() {
		w := wq[0]
		wq = wq[1:]
		o.seq = append(o.seq, mkref(W, w.q, w.micro))
	}
	fb := func(ph0, ph1 int) { // a forward overlapped with a whole backward
		fwd(ph0, fuse)
		bwd(ph1, false)
	}
	for range (n - hr - 1) * 2 { // step 1: nF0
		fwd(0, 0)
	}
	for range hr + 1 { // step 2: nF0F1
		fwd(0, 0)
		fwd(1, 0)
	}
	for range n - hr - 1 { // step 3: nB1W1F1
		bwd(1, true)
		weight()
		fwd(1, 0)
	}
	for i := range m - 2*n + hr + 1 { // step 4: nF0B1F1B0
		if i == 0 && middle { // not overlapped, "to further reduce bubble size"
			fwd(0, 0)
			bwd(1, false)
		} else {
			fb(0, 1)
		}
		fb(1, 0)
	}
	for range n - hr - 1 { // step 5: nB1F1B0
		bwd(1, false)
		fb(1, 0)
	}
	zb := false
	for i := range hr + 1 { // step 6: nB1B0, the second half with their weights held back
		if i == (hr+1)/2 && hr%2 == 1 {
			zb = true
		}
		bwd(1, zb)
		if i == (hr+1)/2 && hr%2 == 0 {
			zb = true
		}
		bwd(0, zb)
	}
	for range n - hr - 1 { // step 7: nWB0
		weight()
		bwd(0, true)
	}
	for range hr + 1 { // step 8: nW
		weight()
	}
}

// zbv lays out rank r's part of the ZB-V order for o.m micro-batches from the greedy's order for
// base ≤ o.m (zbvBase): past its warm-up, from position 5p − 4 − 3r on, the greedy's order repeats
// every 6 ops (F, B and W of each chunk), one micro-batch on each time, until its cool-down; more
// micro-batches insert more such periods (TestZBVSplice checks that this is the greedy's own order
// for every p ≤ 12 and m ≤ 4p + 8). So the greedy runs once per p, on a short run.
func (o *orderOf) zbv(all [][]ref, base int) {
	seq := all[o.r]
	k := o.m - base
	if k == 0 {
		o.seq = append(o.seq, seq...)
		return
	}
	c := zbvFirst(o.p, o.r) + zbvPeriod // the first cut
	o.seq = append(o.seq, seq[:c]...)
	for i := 1; i <= k; i++ {
		for _, x := range seq[c-zbvPeriod : c] {
			o.seq = append(o.seq, x+ref(i)) // the micro-batch is the low bits
		}
	}
	for _, x := range seq[c:] {
		o.seq = append(o.seq, x+ref(k))
	}
}

// zbvPeriod is the ops of one steady period of ZB-V: F, B and W of both chunks.
const zbvPeriod = 6

// zbvFirst is where rank r's first steady period starts in ZB-V's order on p ranks.
func zbvFirst(p, r int) int { return 5*p - 4 - 3*r }

// zbvBase is the micro-batches the greedy is run for when the step has m: m itself up to 2p + 2,
// else 2p + 2, whose order has a steady period on every rank to repeat.
func zbvBase(p, m int) int { return min(m, 2*p+2) }

// The ZB-V order is the one sail-sg/zero-bubble-pipeline-parallelism builds
// (megatron/core/pipeline_parallel/zerobubble/scheduler/zbv.py, PipelineGraph.create_schedule):
// a greedy placement of F, B and W on a simulated clock under a memory cap of 2p forwards'
// activations (1F1B's), tried with and without filling idle time with W before a B and before
// an F, each pass again with the previous pass's idle times as allowance until it gains no more,
// the least idle kept. It is built once per (p, m) with equal F, B and W costs (1000 each, 1 for
// a send, as the repository's fixed-schedule path does), the memory of its unit test (a forward
// holds 34h + 5as bytes at h 4096, a 8, s 4096; W frees 32h of them), and kept: the simulation
// then times that order with the stages' own costs.
type zbvKey struct{ p, m int }

var zbvCache struct {
	sync.Mutex
	orders    map[zbvKey][][]ref
	placeable map[zbvKey]bool
	keys      []zbvKey // oldest first, at most zbvCacheSize
}

const zbvCacheSize = 16

// zbvOrders is every rank's ZB-V order the greedy builds for p ranks and m micro-batches
// (shared: not to be written), or an error when it cannot place them (the repository's asserts).
func zbvOrders(p, m int) ([][]ref, error) {
	k := zbvKey{p, m}
	zbvCache.Lock()
	if o, ok := zbvCache.orders[k]; ok {
		zbvCache.Unlock()
		return o, nil
	}
	zbvCache.Unlock()
	h, a, s := int64(4096), int64(8), int64(4096)
	fMem := 34*h + 5*a*s
	wMem := -32 * h
	g := zbvGraph{p: p, m: m, cost: [3]float64{1000, 1000, 1000}, c: 1,
		mem: [3]int64{fMem, -fMem - wMem, wMem}, maxMem: fMem * int64(p) * 2}
	var best [][]zbvOp
	bestBubble := 0.0
	for _, fillB := range []bool{true, false} {
		for _, fillF := range []bool{true, false} {
			sc, bubble, err := g.try(fillF, fillB, nil)
			if err != nil {
				return nil, err
			}
			if best == nil || bubble < bestBubble {
				best, bestBubble = sc, bubble
			}
		}
	}
	out := make([][]ref, p)
	for st, ops := range best {
		out[st] = make([]ref, len(ops))
		for i, x := range ops {
			ch := int(x.chunk) // the model chunk: B and W's chunk is the greedy's reversed
			if x.cat > 0 {
				ch = 1 - ch
			}
			q := st
			if ch == 1 {
				q = 2*p - 1 - st
			}
			out[st][i] = mkref(Kind(x.cat), q, int(x.micro))
		}
	}
	zbvCache.Lock()
	if zbvCache.orders == nil {
		zbvCache.orders = make(map[zbvKey][][]ref)
	}
	if _, ok := zbvCache.orders[k]; !ok {
		if len(zbvCache.keys) == zbvCacheSize {
			delete(zbvCache.orders, zbvCache.keys[0])
			zbvCache.keys = zbvCache.keys[1:]
		}
		zbvCache.orders[k] = out
		zbvCache.keys = append(zbvCache.keys, k)
	}
	zbvCache.Unlock()
	return out, nil
}

// zbvPlaceable says whether the greedy places m micro-batches on p ranks, remembered per
// (p, m) apart from the orders themselves (whose cache keeps a few): validation asks it for every
// ZB-V shape Search estimates, and the greedy is far dearer than the closed form.
func zbvPlaceable(p, m int) bool {
	k := zbvKey{p, m}
	zbvCache.Lock()
	ok, known := zbvCache.placeable[k]
	zbvCache.Unlock()
	if known {
		return ok
	}
	_, err := zbvOrders(p, m)
	zbvCache.Lock()
	if zbvCache.placeable == nil || len(zbvCache.placeable) >= zbvPlaceableMax {
		zbvCache.placeable = make(map[zbvKey]bool)
	}
	zbvCache.placeable[k] = err == nil
	zbvCache.Unlock()
	return err == nil
}

// zbvPlaceableMax bounds the shapes zbvPlaceable remembers (then it starts afresh).
const zbvPlaceableMax = 1 << 14

type zbvGraph struct {
	p, m   int
	cost   [3]float64 // F, B, W
	c      float64    // a send
	mem    [3]int64
	maxMem int64
}

type zbvOp struct{ cat, chunk, micro int32 }

var errZBV = errors.New("schedule: the ZB-V greedy cannot place this shape")

// try is PipelineGraph.try_v_schedule, statement for statement; a failed assert is errZBV.
// Chunks are the greedy's: a forward's is the model chunk, a backward's the other one.
func (g *zbvGraph) try(fillF, fillB bool, approved []float64) ([][]zbvOp, float64, error) {
	n, nm := g.p, g.m
	nNode := 6 * n * nm
	count := make([][6]int, n)
	end := make([]float64, nNode)
	for i := range end {
		end[i] = -1
	}
	cur := make([]float64, n)
	mem := make([]int64, n)
	bubble := make([]float64, n)
	pending := make([][]zbvOp, n)
	sched := make([][]zbvOp, n)
	if approved == nil {
		approved = make([]float64, n)
		for i := range approved {
			approved[i] = -1
		}
	}
	maxApproved := approved[0]
	for _, x := range approved {
		maxApproved = max(maxApproved, x)
	}
	id := func(cat, chunk, stage, micro int) int {
		return cat*2*n*nm + chunk*n*nm + stage*nm + micro
	}
	at := func(i int) float64 { // Python's list index: −1 is the last
		if i < 0 {
			i += nNode
		}
		return end[i]
	}
	maxBubble := func(stage int) float64 {
		b := 0.0
		for _, x := range bubble {
			b = max(b, x)
		}
		if stage >= 0 {
			b = max(b, maxApproved-approved[stage])
		}
		return b
	}
	var failed bool
	put := func(cat, chunk, stage int) {
		if failed {
			return
		}
		t := cur[stage] + g.cost[cat]
		noBubble := t
		cnt := count[stage][cat*2+chunk]
		if cnt >= nm || mem[stage]+g.mem[cat] > g.maxMem {
			failed = true
			return
		}
		if cat > 0 || chunk > 0 {
			last := cat*2 + chunk - 1
			if cat < 2 && end[id(last/2, last%2, stage, cnt)] < 0 || cat == 2 && end[id(1, chunk, stage, cnt)] < 0 {
				failed = true
				return
			}
		}
		if cat < 2 && (chunk == 1 && stage < n-1 || chunk == 0 && stage > 0) {
			up := stage + 1
			if chunk == 0 {
				up = stage - 1
			}
			e := end[id(cat, chunk, up, cnt)]
			if e < 0 {
				failed = true
				return
			}
			t = max(t, e+g.c+g.cost[cat])
		}
		if count[stage][0] > 0 {
			bubble[stage] += t - noBubble
		}
		end[id(cat, chunk, stage, cnt)] = t
		cur[stage] = t
		mem[stage] += g.mem[cat]
		sched[stage] = append(sched[stage], zbvOp{int32(cat), int32(chunk), int32(cnt)})
		if cat == 1 {
			pending[stage] = append(pending[stage], zbvOp{2, int32(chunk), int32(cnt)})
		}
		count[stage][cat*2+chunk]++
	}
	putW := func(stage int) {
		if len(pending[stage]) == 0 {
			failed = true
			return
		}
		w := pending[stage][0]
		pending[stage] = pending[stage][1:]
		put(2, int(w.chunk), stage)
	}
	for i := range n {
		put(0, 0, i)
	}
	for i := n - 1; i >= 0 && !failed; i-- {
		if i == n-1 {
			put(0, 1, i)
			continue
		}
		tmp := end[id(0, 1, i+1, 0)] + g.c
		for !failed && mem[i]+g.mem[0]*int64(2+i*2) <= g.maxMem && cur[i]+g.cost[0] <= tmp && count[i][0] < nm {
			for j := 0; j <= i; j++ {
				put(0, 0, j)
			}
		}
		put(0, 1, i)
	}
	iter := 0
	for i := 1; i < n && !failed; i++ {
		for guard := 0; !failed && (count[i][0]+count[i][1] < count[i-1][0]+count[i-1][1] ||
			count[i][1] <= count[i-1][1] && count[i-1][1] < nm); guard++ {
			if guard > 4*nm+4 {
				failed = true
				break
			}
			for j := n - 1; j >= i; j-- {
				if count[j][iter] < nm {
					put(0, iter, j)
				}
			}
			iter = 1 - iter
		}
	}
	var bRanks [][2]int
	for range 2 * nm {
		if failed {
			break
		}
		for i := range n {
			for !failed && mem[i]+g.mem[1] > g.maxMem {
				putW(i)
			}
		}
		bRanks = bRanks[:0]
		var b1 []int
		for i := range n {
			switch {
			case count[i][3] >= count[i][2]:
				bRanks = append(bRanks, [2]int{i, 0})
			case i == n-1:
				b1 = append(b1, i)
			default:
				if end[id(1, 1, i+1, count[i][3])] >= 0 || count[i][2] >= nm {
					b1 = append(b1, i)
				} else {
					bRanks = append(bRanks, [2]int{i, 0})
				}
			}
		}
		// b1 in reverse, then b0 in order
		order := make([][2]int, 0, n)
		for k := len(b1) - 1; k >= 0; k-- {
			order = append(order, [2]int{b1[k], 1})
		}
		order = append(order, bRanks...)
		for _, x := range order {
			i, ch := x[0], x[1]
			fa := -1
			if ch == 1 && i < n-1 {
				fa = id(1, 1, i+1, count[i][3])
			}
			if ch == 0 && i > 0 {
				fa = id(1, 0, i-1, count[i][2])
			}
			for !failed && len(pending[i]) > 0 && fa >= 0 && at(fa)+g.c >= cur[i]+g.cost[2] {
				putW(i)
			}
			if !failed && len(pending[i]) > 0 && at(fa)+g.c-cur[i] > maxBubble(i)-bubble[i] {
				if ch == 1 || fillB {
					putW(i)
				}
			}
			put(1, ch, i)
		}
		for i := range n {
			if failed || count[i][1] >= nm {
				continue
			}
			item := -1
			switch {
			case count[i][1] >= count[i][0]:
				item = 0
			case i == n-1:
				item = 1
			case end[id(0, 1, i+1, count[i][1])] >= 0:
				item = 1
			case count[i][0] < nm:
				if i == 0 || end[id(0, 0, i-1, count[i][0])] >= 0 {
					item = 0
				}
			}
			if item < 0 {
				continue
			}
			for !failed && mem[i]+g.mem[0] > g.maxMem {
				putW(i)
			}
			fa := -1
			if item == 0 && i > 0 {
				fa = id(0, 0, i-1, count[i][0])
			}
			if item == 1 && i < n-1 {
				fa = id(0, 1, i+1, count[i][1])
			}
			for !failed && len(pending[i]) > 0 && fa >= 0 && at(fa)+g.c >= cur[i]+g.cost[2] {
				putW(i)
			}
			if !failed && len(pending[i]) > 0 && at(fa)+g.c-cur[i] > maxBubble(i)-bubble[i] && fillF {
				putW(i)
			}
			put(0, item, i)
		}
	}
	for i := range n {
		for !failed && len(pending[i]) > 0 {
			putW(i)
		}
	}
	if failed {
		return nil, 0, errZBV
	}
	for i := range n {
		if len(sched[i]) != 6*nm {
			return nil, 0, errZBV
		}
	}
	mb := maxBubble(-1)
	if maxApproved < 0 || mb < maxApproved {
		sc2, mb2, err := g.try(fillF, fillB, bubble)
		if err == nil && mb2 < mb {
			return sc2, mb2, nil
		}
	}
	return sched, mb, nil
}
