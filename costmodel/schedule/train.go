package schedule

import (
	"fmt"
	"math"
	"sync"

	"github.com/splitscope/splitscope/model"
)

// maxUnits bounds p·v·m so that a wild input costs an error, not gigabytes: the simulation keeps
// three end times per (virtual stage, micro-batch), and a recorded op takes 64 bytes. 1<<21 is 32×
// the largest case Search asks for (p=64, v=2, m=512).
const maxUnits = 1 << 21

// ref is one entry of a rank's op order, packed so that the hot loop reads 8 bytes per op and
// divides nothing: kind in the top 2 bits, then the fuse bit (orders2025.go), then the chain
// position (chain.go; chunk·p + rank for the schedules before 2024) in 30 bits, then the
// micro-batch in 31.
type ref uint64

func mkref(k Kind, vs, micro int) ref { return ref(k)<<62 | ref(vs)<<31 | ref(micro) }

func (x ref) kind() Kind { return Kind(x >> 62 & 3) }
func (x ref) vs() int    { return int(x>>31) & (1<<30 - 1) }
func (x ref) micro() int { return int(x) & (1<<31 - 1) }

// SimulateTrain runs one training step of in.Schedule op by op and returns its makespan, per-rank
// busy time and peak in-flight micro-batches (and every op when in.Record). In flight counts the
// (micro-batch, chunk) forwards done whose backward B has not run: a held-back W keeps no more
// activations than its B already freed, so ZB-H1 shows 1F1B's numbers.
//
// Each rank runs its ops one at a time in the order the schedule prescribes (see the order
// functions below); an op starts when its rank is free and its inputs have arrived:
// F of virtual stage i needs F of i−1 plus P2P[i−1]; B of i needs its own F and B of i+1 plus
// P2P[i]; W needs its own B. Because the orders are fixed, times follow from dependencies alone,
// so no event queue is needed: ranks are advanced as far as their inputs allow, and a rank whose
// neighbour made progress is looked at again. A fixed order that can never complete (which the
// built-in schedules do not produce) is reported as a deadlock rather than looping.
func SimulateTrain(in Train) (Result, error) {
	if err := validateTrain(&in); err != nil {
		return Result{}, err
	}
	if !in.Record { // a timeline needs every op: only the totals can skip the steady state
		if res, ok := simulateSteady(&in); ok {
			return res, nil
		}
	}
	return simulateFull(&in)
}

// simulateFull runs every op of a validated in: the reference the steady-state shortcut is
// tested against.
func simulateFull(in *Train) (Result, error) {
	order, per, err := buildOrder(in)
	if err != nil {
		return Result{}, err
	}
	return simulate(in, order, per)
}

// opsPerRank is the length of every rank's order.
func opsPerRank(in *Train) int {
	if splitW(in.Schedule) {
		return in.Chunks * chainMicro(in) * 3
	}
	return in.Chunks * in.Micro * 2
}

// chainMicro is the micro-batches each chain position runs: DualPipe's half a direction.
func chainMicro(in *Train) int {
	if Bidirectional(in.Schedule) {
		return in.Micro / 2
	}
	return in.Micro
}

// buildOrder lays out every rank's op order (per ops each, rank after rank).
func buildOrder(in *Train) (order []ref, per int, err error) {
	p, v, m := in.Stages, in.Chunks, in.Micro
	per = opsPerRank(in)
	order = make([]ref, p*per)
	var zbv [][]ref
	if in.Schedule == model.ZBV {
		if zbv, err = zbvOrders(p, zbvBase(p, m)); err != nil {
			return nil, 0, err
		}
	}
	for r := 0; r < p; r++ {
		o := orderOf{seq: order[r*per : r*per : (r+1)*per], p: p, v: v, m: chainMicro(in), r: r}
		switch in.Schedule {
		case model.GPipe:
			o.gpipe()
		case model.OneFOneB:
			o.oneFOneB()
		case model.Interleaved:
			o.interleaved()
		case model.ZBH1:
			o.zbh1()
		case model.ZBV:
			o.zbv(zbv, zbvBase(p, m))
		case model.DualPipe:
			o.dual(false)
		case model.DualPipeV:
			o.dual(true)
		}
		if len(o.seq) != per { // a bug in an order function, not in the input
			return nil, 0, fmt.Errorf("schedule: %v order for rank %d has %d ops, want %d", in.Schedule, r, len(o.seq), per)
		}
	}
	return order, per, nil
}

// validateTrain checks the shape and the costs of in; errors name the field and the value.
func validateTrain(in *Train) error {
	bad := func(field string, value any, allowed string) error {
		return &model.FieldError{Field: field, Value: value, Allowed: allowed}
	}
	switch in.Schedule {
	case model.OneFOneB, model.GPipe, model.Interleaved, model.ZBH1, model.ZBV, model.DualPipe, model.DualPipeV:
	default:
		return bad("schedule", in.Schedule, "must be 1f1b, gpipe, interleaved, zb-h1, zb-v, dualpipe or dualpipev")
	}
	if in.Stages < 1 {
		return bad("stages", in.Stages, "must be at least 1")
	}
	if in.Chunks < 1 {
		return bad("chunks", in.Chunks, "must be at least 1")
	}
	if twoChunk(in.Schedule) && in.Chunks != 2 {
		return bad("chunks", in.Chunks, fmt.Sprintf("must be 2 for schedule %v (two stages a rank)", in.Schedule))
	}
	if in.Chunks != 1 && in.Schedule != model.Interleaved && !twoChunk(in.Schedule) {
		return bad("chunks", in.Chunks, fmt.Sprintf("must be 1 for schedule %v", in.Schedule))
	}
	if in.Micro < 1 {
		return bad("micro", in.Micro, "must be at least 1")
	}
	if in.Stages > maxUnits || in.Chunks > maxUnits/in.Stages || in.Micro > maxUnits/(in.Stages*in.Chunks) {
		return bad("micro", in.Micro, fmt.Sprintf("stages × chunks × micro must be at most %d", maxUnits))
	}
	if in.Schedule == model.Interleaved && in.Micro%in.Stages != 0 {
		return bad("micro", in.Micro, fmt.Sprintf("must be a multiple of stages (%d) for interleaved", in.Stages))
	}
	if err := checkShape2025(in.Schedule, in.Stages, in.Micro); err != nil {
		return err
	}
	nvs := in.Stages * in.Chunks
	if err := checkCosts("f", in.F, nvs, false); err != nil {
		return err
	}
	if err := checkCosts("b", in.B, nvs, false); err != nil {
		return err
	}
	if err := checkCosts("w", in.W, nvs, in.W == nil); err != nil {
		return err
	}
	if !splitW(in.Schedule) {
		for i, w := range in.W {
			if w != 0 {
				return bad(fmt.Sprintf("w[%d]", i), w, fmt.Sprintf("must be 0 for schedule %v (B holds the whole backward)", in.Schedule))
			}
		}
	}
	if err := checkCosts("overlap", in.Overlap, nvs, in.Overlap == nil); err != nil {
		return err
	}
	for i, a := range in.Overlap {
		if a > in.F[i] || a > in.B[i] {
			return bad(fmt.Sprintf("overlap[%d]", i), a, "must be at most f and b (communication inside them)")
		}
	}
	return checkCosts("p2p", in.P2P, nvs-1, in.P2P == nil)
}

// checkShape2025 checks the rules of ZB-V, DualPipe and DualPipeV on p ranks and m
// micro-batches, naming the nearest valid value.
func checkShape2025(s model.Schedule, p, m int) error {
	if err := model.CheckScheduleShape(s, p, m); err != nil {
		return err
	}
	if s == model.ZBV {
		if !zbvPlaceable(p, zbvBase(p, m)) {
			return &model.FieldError{Field: "micro", Value: m, Allowed: "the ZB-V greedy cannot place this many micro-batches on these stages"}
		}
	}
	return nil
}

// checkCosts wants want non-negative finite values in xs; nilOK lets a nil slice stand for zeros.
func checkCosts(field string, xs []float64, want int, nilOK bool) error {
	if nilOK {
		return nil
	}
	if len(xs) != want {
		return &model.FieldError{Field: "len(" + field + ")", Value: len(xs), Allowed: fmt.Sprintf("must be %d", want)}
	}
	for i, x := range xs {
		if !(x >= 0) || math.IsInf(x, 1) { // !(x >= 0) also catches NaN
			return &model.FieldError{Field: fmt.Sprintf("%s[%d]", field, i), Value: x, Allowed: "must be finite and non-negative"}
		}
	}
	return nil
}

// orderOf builds one rank's op order.
type orderOf struct {
	seq     []ref
	p, v, m int
	r       int
}

func (o *orderOf) add(k Kind, chunk, micro int) {
	o.seq = append(o.seq, mkref(k, chunk*o.p+o.r, micro))
}

// gpipe: every forward, then every backward, in micro-batch order.
func (o *orderOf) gpipe() {
	for j := 0; j < o.m; j++ {
		o.add(F, 0, j)
	}
	for j := 0; j < o.m; j++ {
		o.add(B, 0, j)
	}
}

// oneFOneB is PipeDream-Flush as in Megatron's forward_backward_pipelining_without_interleaving:
// p−r−1 warm-up forwards, then (F, B) pairs, then the remaining backwards. Rank r never holds more
// than p−r micro-batches.
func (o *orderOf) oneFOneB() {
	w := min(o.p-o.r-1, o.m)
	for j := 0; j < w; j++ {
		o.add(F, 0, j)
	}
	for i := 0; i < o.m-w; i++ {
		o.add(F, 0, w+i)
		o.add(B, 0, i)
	}
	for j := o.m - w; j < o.m; j++ {
		o.add(B, 0, j)
	}
}

// interleaved follows Megatron-LM's forward_backward_pipelining_with_interleaving: the k-th of
// the m·v forward passes of a rank runs chunk (k/p) mod v on micro-batch (k/(p·v))·p + k mod p,
// i.e. p micro-batches go through chunk 0, then the same p through chunk 1, and so on; backward
// passes use the same mapping with the chunk reversed. Warm-up is (p−r−1)·2 + (v−1)·p forwards
// (all of them when m = p, as Megatron does), then (F, B) pairs, then the remaining backwards.
func (o *orderOf) interleaved() {
	p, v, m := o.p, o.v, o.m
	total := m * v
	w := min((p-o.r-1)*2+(v-1)*p, total)
	if m == p {
		w = total
	}
	var fwd, bwd vmicro
	for range w {
		c, j := fwd.next(p, v)
		o.add(F, c, j)
	}
	for range total - w {
		c, j := fwd.next(p, v)
		o.add(F, c, j)
		c, j = bwd.next(p, v)
		o.add(B, v-1-c, j)
	}
	for range w {
		c, j := bwd.next(p, v)
		o.add(B, v-1-c, j)
	}
}

// vmicro walks Megatron's virtual micro-batches k = 0, 1, …: chunk (k/p) mod v, micro-batch
// (k/(p·v))·p + k mod p, without dividing.
type vmicro struct{ group, chunk, off int }

func (x *vmicro) next(p, v int) (chunk, micro int) {
	chunk, micro = x.chunk, x.group*p+x.off
	if x.off++; x.off == p {
		x.off = 0
		if x.chunk++; x.chunk == v {
			x.chunk = 0
			x.group++
		}
	}
	return chunk, micro
}

// zbh1 is zero-bubble H1 (Qi et al. 2023, "ZB1P" in sail-sg/zero-bubble-pipeline-parallelism):
// F and B in the 1F1B order, so rank r still holds at most p−r micro-batches (W needs no
// activations beyond its B's), with each W split from its B and run later. Rank r's B output
// feeds ranks r−1..0, so the deeper the rank the more W passes it holds back: rank r keeps r
// pending and runs the oldest one after each B once more than r are pending. Its last r W passes
// then fill the time the last gradient takes to travel from rank r down to rank 0, where 1F1B
// leaves it idle.
//
// Order on rank r: p−r−1 warm-up F; then for each further F: F, B, [W]; then the remaining B,
// each with its [W]; then the last W passes. On uniform stages with m ≥ p this gives
// m(F+B+W) + (p−1)·max(B + max(F−W, 0), F): the paper's (p−1)(F+B−W) bubble when W ≤ F and
// W ≤ B. No order with at most p micro-batches in flight on rank 0 does better than
// m(F+B+W) + (p−1)B, since rank 0 can only run forwards until the first gradient returns;
// the (p−1)(F+B−2W) bubble needs ZB-H2's 2p−1.
func (o *orderOf) zbh1() {
	lag := o.r
	w := min(o.p-o.r-1, o.m)
	nb, nw := 0, 0
	back := func() {
		o.add(B, 0, nb)
		nb++
		if nb-nw > lag {
			o.add(W, 0, nw)
			nw++
		}
	}
	for j := 0; j < w; j++ {
		o.add(F, 0, j)
	}
	for i := 0; i < o.m-w; i++ {
		o.add(F, 0, w+i)
		back()
	}
	for nb < o.m {
		back()
	}
	for nw < o.m {
		o.add(W, 0, nw)
		nw++
	}
}

// simulate runs the per-rank orders (per ops each, rank after rank in order) and fills a Result.
func simulate(in *Train, order []ref, per int) (Result, error) {
	var e engine
	e.init(in, order, per, true)
	defer e.release()
	e.run()
	return e.result()
}

// zeroed is buf with length n, its values zero, reallocated only when too small.
func zeroed[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// floatPool holds the end-time buffers of runs that record nothing: a 512-GPU ZB-V run's is
// some 100 KB, and allocating and collecting it was a quarter of the run's time.
var floatPool sync.Pool

// floats is n floats for the end times, padded costs and sends: from floatPool when the run
// records nothing (its end times are not kept past result), else new; a pooled one holds
// another run's values, which init overwrites (the end times with −1 for the engine's loop, the
// rest with zeros); the compiled loop reads no end time of an op still to run (fast.go).
func (e *engine) floats(n int) []float64 {
	if !e.in.Record {
		if b, ok := floatPool.Get().(*[]float64); ok && cap(*b) >= n {
			e.pooled = b
			return (*b)[:n]
		}
		b := make([]float64, n)
		e.pooled = &b
		return b
	}
	return make([]float64, n)
}

// grownFloats is grow's longer buffer of n floats (the first buffer stays: it holds the sends
// and W costs), from floatPool as floats' when the run records nothing.
func (e *engine) grownFloats(n int) []float64 {
	if !e.in.Record {
		if e.grownBuf != nil {
			floatPool.Put(e.grownBuf) // grown twice: the shorter one is done with
		}
		b, ok := floatPool.Get().(*[]float64)
		if !ok || cap(*b) < n {
			nb := make([]float64, n)
			b = &nb
		}
		e.grownBuf = b
		return (*b)[:n]
	}
	return make([]float64, n)
}

// release gives the end-time buffer back to floatPool once the result is out (nothing of it is
// in the Result).
func (e *engine) release() {
	if e.pooled != nil {
		floatPool.Put(e.pooled)
		e.pooled = nil
	}
	if e.grownBuf != nil {
		floatPool.Put(e.grownBuf)
		e.grownBuf = nil
	}
}

// engine is a simulation under way: the orders, when each op ended and how far each rank got.
// run advances the ranks up to their limit, which the steady-state shortcut raises a period at
// a time; a plain simulation sets it to the end at once.
type engine struct {
	in         Train // by value: a pointer stored through e would move the caller's Train to the heap
	order      []ref
	per        int
	nvs, units int
	// When op (kind, u = micro·nvs + vs) finished, −1 until it has run (for the engine's loop;
	// anything for the compiled loop, which tells by position): end[3u + kind]. Micro-
	// major, so that an op's inputs (virtual stage ± 1) sit next to it, and the index of an op
	// does not depend on the number of micro-batches, so that grow keeps it.
	end    []float64
	p2p, w []float64 // zeros where in.P2P or in.W is nil
	// The costs in chain order (chain.go; the inputs themselves when that is their order), each
	// position's rank and chunk, and DualPipe's second chain's first and the first chain's last
	// positions (0 and nvs−1 when there is one chain).
	cf, cb, cw, cov []float64
	rankOf, chunkOf []int32
	head2, tail2    int
	res             Result
	// scratch is p floats for the steady-state shortcut's sums, deltas p for each rank's pace.
	scratch, deltas []float64
	// The compiled order (fast.go) when the steady-state shortcut runs it (runFast), and the costs
	// it reads: F, B and W costs in chain order one after the other, the send before each one's
	// input (0 where none) and the communication of each F and B (nil when nothing overlaps).
	ops                []cop
	peaks              []int // each rank's most forwards in flight over the compiled order
	cost3, send3, cov3 []float64
	// grown: the run has grown once (grow).
	grown bool
	// pooled is the buffer init took from floatPool (release gives it back); nil when recording.
	pooled, grownBuf *[]float64
	// Per rank: the next op, the forwards in flight, and the position it may not reach yet.
	pos, inflight, limit []int
	// A ring of the ranks to look at, each at most once; wrapped by compare, not %, which divides.
	queue   []int
	queued  []int // 1 while in the ring
	head, n int
	// The steady-state shortcut's: the cut each rank is at (the periods before it run or
	// written), and the first period an input catches up in on each (regime).
	at, catchAt []int
}

// init starts a simulation of the orders of in (per ops each, rank after rank).
func (e *engine) init(in *Train, order []ref, per int, fill bool) {
	p := in.Stages
	nvs := p * in.Chunks
	units := nvs * chainMicro(in)
	*e = engine{in: *in, order: order, per: per, nvs: nvs, units: units, head2: 0, tail2: nvs - 1}
	// One buffer for the end times, the padded costs (in chain order where that is not their
	// order) and the shortcut's sums (pooled when recording nothing), one for the result's
	// floats, one for the ranks' counters.
	nw, nc := 0, 0
	if in.W == nil {
		nw = nvs
	}
	two := twoChunk(in.Schedule)
	if two {
		nc = 4 * nvs
	}
	nc3 := 6 * nvs // cost3 and send3, and cov3 when something overlaps
	if in.Overlap != nil {
		nc3 = 9 * nvs
	}
	buf := e.floats(3*units + nvs + nw + nc + 2*p + nc3)
	e.end, e.p2p = buf[:3*units:3*units], buf[3*units:3*units+nvs]
	if fill { // else the compiled loop, which reads no end time of an op still to run
		for i := range e.end {
			e.end[i] = -1
		}
	}
	rest := buf[3*units:]
	clear(rest) // a pooled buffer's sends and W costs: zeros where in.P2P or in.W is nil
	copy(e.p2p, in.P2P)
	rest = rest[nvs:]
	e.w = in.W
	if in.W == nil {
		e.w, rest = rest[:nw:nw], rest[nw:]
	}
	e.cf, e.cb, e.cw, e.cov = in.F, in.B, e.w, in.Overlap
	if two {
		e.chain(in, rest[:nc:nc])
		rest = rest[nc:]
	}
	e.scratch, e.deltas = rest[:p:p], rest[p:2*p:2*p]
	rest = rest[2*p:]
	e.cost3 = rest[: 3*nvs : 3*nvs]
	copy(e.cost3, e.cf)
	copy(e.cost3[nvs:], e.cb)
	copy(e.cost3[2*nvs:], e.cw)
	e.send3 = rest[3*nvs : 6*nvs : 6*nvs] // zeros where an op has no such input (cleared above)
	copy(e.send3[1:nvs], e.p2p)           // F of position q: the send from q − 1
	copy(e.send3[nvs:2*nvs], e.p2p)       // B of position q: the send from q + 1
	if e.cov != nil {
		e.cov3 = rest[6*nvs : 9*nvs : 9*nvs]
		copy(e.cov3, e.cov)
		copy(e.cov3[nvs:], e.cov) // the W third stays zero (cleared above)
	}
	var out []float64
	var ints []int
	if sc := in.Scratch; sc != nil && !in.Record {
		sc.floats, sc.ints = zeroed(sc.floats, 2*p), zeroed(sc.ints, 8*p)
		out, ints = sc.floats, sc.ints
	} else {
		out, ints = make([]float64, 2*p), make([]int, 8*p)
	}
	e.res = Result{Busy: out[:p:p], Finish: out[p:], PeakInFlight: ints[:p:p]}
	e.pos, e.inflight, e.limit = ints[p:2*p:2*p], ints[2*p:3*p:3*p], ints[3*p:4*p:4*p]
	e.queue, e.queued = ints[4*p:5*p:5*p], ints[5*p:6*p:6*p]
	e.at, e.catchAt = ints[6*p:7*p:7*p], ints[7*p:]
	for r := range e.queue {
		e.queue[r], e.queued[r], e.limit[r] = r, 1, per
	}
	e.n = p
}

// chain puts the costs of a schedule whose chain is not its cost index in chain order, into buf
// (4·nvs floats).
func (e *engine) chain(in *Train, buf []float64) {
	p, nvs := in.Stages, e.nvs
	e.cf, e.cb, e.cw = buf[:nvs], buf[nvs:2*nvs], buf[2*nvs:3*nvs]
	if in.Overlap != nil {
		e.cov = buf[3*nvs:]
	}
	e.rankOf, e.chunkOf = chainPlaces(in.Schedule, p)
	for q := range nvs {
		i := CostIndex(in.Schedule, p, q)
		e.cf[q], e.cb[q], e.cw[q] = in.F[i], in.B[i], e.w[i]
		if in.Overlap != nil {
			e.cov[q] = in.Overlap[i]
		}
	}
	if b := ChainBreak(in.Schedule, p); b > 0 {
		e.head2, e.tail2 = b, b-1
	}
}

// chainPlaces is each chain position's rank and chunk under schedule s on p ranks: worked out
// once per shape and shared (never written).
func chainPlaces(s model.Schedule, p int) (rankOf, chunkOf []int32) {
	k := orderKey{s: s, p: p}
	if t, ok := placesCache.Load(k); ok {
		t := t.([]int32)
		return t[:2*p], t[2*p:]
	}
	nvs := 2 * p
	t := make([]int32, 2*nvs)
	for q := range nvs {
		i := CostIndex(s, p, q)
		t[q], t[nvs+q] = int32(i%p), int32(i/p)
	}
	placesCache.Store(k, t)
	return t[:nvs], t[nvs:]
}

// placesCache holds chainPlaces' tables by schedule and p (a few kilobytes for every p up to
// the largest).
var placesCache sync.Map

// depReady says whether the inputs of op x from other ops have arrived and when the latest
// from another rank's op did (its end index, or −1). A W whose B is the op before it in its group
// (inGroup) waits for nothing more.
func (e *engine) depReady(x ref, inGroup bool) (ready float64, dep int, ok bool) {
	vs, end := x.vs(), e.end
	i3 := 3 * (x.micro()*e.nvs + vs)
	switch x.kind() {
	case F:
		if vs != 0 && vs != e.head2 {
			if end[i3-3] < 0 {
				return 0, -1, false
			}
			return end[i3-3] + e.p2p[vs-1], i3 - 3, true
		}
	case B:
		if end[i3] < 0 {
			return 0, -1, false
		}
		if vs != e.nvs-1 && vs != e.tail2 {
			if end[i3+4] < 0 {
				return 0, -1, false
			}
			return end[i3+4] + e.p2p[vs], i3 + 4, true
		}
	default:
		if !inGroup && end[i3+1] < 0 {
			return 0, -1, false
		}
	}
	return 0, -1, true
}

// groupCost is what a fused group of ops takes: the sum of their costs, or with a forward and a
// backward overlapped, the longer of their compute and their communication.
func (e *engine) groupCost(g []ref) float64 {
	costs := [3][]float64{e.cf, e.cb, e.cw}
	sum, comm, kinds := 0.0, 0.0, 0
	for _, y := range g {
		vs := y.vs()
		sum += costs[y.kind()][vs]
		if y.kind() != W {
			kinds |= 1 << y.kind()
			if e.cov != nil {
				comm += e.cov[vs]
			}
		}
	}
	if kinds == 3 {
		return max(sum-comm, comm)
	}
	return sum
}

// paired says whether a group overlaps a forward with a backward.
func paired(g []ref) bool {
	kinds := 0
	for _, y := range g {
		kinds |= 1 << y.kind()
	}
	return kinds&3 == 3
}

// groupEnd is the index after the fused group that starts at k in seq, or −1 when seq is cut
// inside it.
func groupEnd(seq []ref, k int) int {
	for ; k < len(seq); k++ {
		if seq[k]&fuse == 0 {
			return k + 1
		}
	}
	return -1
}

// grow moves the simulation on to in, the same schedule with more micro-batches, whose orders
// begin with the ops run so far (the steady-state shortcut's fact 1): the times and the ranks'
// positions carry over. A run growing a second time has a long way to settle: its end times get
// room for most micro-batches (a chain's, at least in's) at once, so that it takes no new buffer
// after.
func (e *engine) grow(in *Train, order []ref, per, most int) {
	units := e.nvs * chainMicro(in)
	end := e.end
	if cap(end) < 3*units {
		room := units
		if e.grown {
			room = max(units, e.nvs*most)
		}
		end = e.grownFloats(3 * room)[:3*units]
		copy(end, e.end)
	}
	e.grown = true
	end = end[:3*units] // the ops still to run need no −1: the shortcut runs compiled (runFast)
	e.in, e.order, e.per, e.units, e.end = *in, order, per, units, end
	e.ops = nil
}

func (e *engine) push(r int) {
	if e.queued[r] == 0 {
		e.queued[r] = 1
		tail := e.head + e.n
		if tail >= len(e.queue) {
			tail -= len(e.queue)
		}
		e.queue[tail] = r
		e.n++
	}
}

// pushAll queues every rank again (after the limits were raised).
func (e *engine) pushAll() {
	for r := range e.queue {
		e.push(r)
	}
}

// run advances ranks as far as their inputs and limits allow.
func (e *engine) run() {
	p, nvs, end := e.in.Stages, e.nvs, e.end
	fc, bc, p2p, w, cov := e.cf, e.cb, e.p2p, e.cw, e.cov
	head2, tail2, per := e.head2, e.tail2, e.per // in registers, not reloaded through e
	// When each rank is free: at the end, when its last op ends.
	free := e.res.Finish
	for e.n > 0 {
		r := e.queue[e.head]
		if e.head++; e.head == p {
			e.head = 0
		}
		e.n--
		e.queued[r] = 0
		k, t := e.pos[r], free[r]
		busy, fly, peak := e.res.Busy[r], e.inflight[r], e.res.PeakInFlight[r]
		seq := e.order[r*per : r*per+e.limit[r]]
	run:
		for ; k < len(seq); k++ {
			x := seq[k]
			if x&fuse != 0 {
				// A group (engine.groupCost, depReady) in one pass: where it ends, when its
				// latest input from another op arrived, and its cost.
				ready, sum, comm, kinds := 0.0, 0.0, 0.0, 0
				g := k
				for prevB := false; ; {
					if g == len(seq) { // cut inside the group
						break run
					}
					y := seq[g]
					g++
					yvs := y.vs()
					y3 := 3 * (y.micro()*nvs + yvs)
					switch y.kind() {
					case F:
						if yvs != 0 && yvs != head2 {
							if end[y3-3] < 0 {
								break run
							}
							ready = max(ready, end[y3-3]+p2p[yvs-1])
						}
						sum += fc[yvs]
						kinds |= 1
						if cov != nil {
							comm += cov[yvs]
						}
						prevB = false
					case B:
						if end[y3] < 0 {
							break run
						}
						if yvs != nvs-1 && yvs != tail2 {
							if end[y3+4] < 0 {
								break run
							}
							ready = max(ready, end[y3+4]+p2p[yvs])
						}
						sum += bc[yvs]
						kinds |= 2
						if cov != nil {
							comm += cov[yvs]
						}
						prevB = true
					default:
						if !prevB && end[y3+1] < 0 {
							break run
						}
						sum += w[yvs]
						prevB = false
					}
					if y&fuse == 0 {
						break
					}
				}
				grp := seq[k:g]
				cost := sum
				if kinds == 3 {
					cost = max(sum-comm, comm)
				}
				start := t
				if ready > t {
					start = ready
				}
				t = start + cost
				busy += cost
				for _, y := range grp {
					end[3*(y.micro()*nvs+y.vs())+int(y.kind())] = t
					switch y.kind() {
					case F:
						fly++
						peak = max(peak, fly)
					case B:
						fly--
					}
				}
				k = g - 1
				continue
			}
			vs := x.vs()
			i3 := 3 * (x.micro()*nvs + vs) // F, B and W of this unit: i3, i3+1, i3+2
			ready := 0.0                   // arrival of the cross-stage input
			var cost float64
			var slot *float64
			switch x.kind() {
			case F:
				if vs != 0 && vs != head2 {
					if end[i3-3] < 0 {
						break run
					}
					ready = end[i3-3] + p2p[vs-1]
				}
				cost, slot = fc[vs], &end[i3]
				fly++
				peak = max(peak, fly)
			case B:
				if end[i3] < 0 {
					break run
				}
				if vs != nvs-1 && vs != tail2 {
					if end[i3+4] < 0 {
						break run
					}
					ready = end[i3+4] + p2p[vs]
				}
				cost, slot = bc[vs], &end[i3+1]
				fly--
			default:
				if end[i3+1] < 0 {
					break run
				}
				cost, slot = w[vs], &end[i3+2]
			}
			start := t // max(t, ready) without the builtin's NaN and ±0 care: costs are validated
			if ready > t {
				start = ready
			}
			t = start + cost
			busy += cost
			*slot = t
		}
		if k > e.pos[r] {
			e.pos[r], free[r] = k, t
			e.res.Busy[r], e.inflight[r], e.res.PeakInFlight[r] = busy, fly, peak
			// What r just finished can unblock only its neighbours: forwards flow to r+1, backwards
			// to r−1 (wrapping around between chunks).
			next, prev := r+1, r-1
			if next == p {
				next = 0
			}
			if prev < 0 {
				prev = p - 1
			}
			e.push(next)
			e.push(prev)
		}
	}
}

// timeline lays out every op of a finished run in order, rank after rank, replaying each rank's order
// with the end times: an op (or group) started when its rank was free and its inputs had
// arrived, the max the simulation took; a group's time is shared between its ops in proportion
// to their costs (evenly when they cost nothing). Dep is the op on another position whose input
// came last, when it held the op back.
func (e *engine) timeline() []Op {
	in, p, per := &e.in, e.in.Stages, e.per
	out := make([]Op, p*per)
	at := make([]int32, 3*e.units) // each op's index in out, by its end time's
	for i, x := range e.order {
		at[3*(x.micro()*e.nvs+x.vs())+int(x.kind())] = int32(i)
	}
	costs := [3][]float64{e.cf, e.cb, e.cw}
	half := chainMicro(in)
	for r := 0; r < p; r++ {
		seq := e.order[r*per : (r+1)*per]
		t := 0.0
		for k := 0; k < per; {
			g := k + 1
			if seq[k]&fuse != 0 {
				g = groupEnd(seq, k)
			}
			grp := seq[k:g]
			ready := 0.0
			for _, y := range grp {
				if rd, d, _ := e.depReady(y, true); d >= 0 && rd > ready {
					ready = rd
				}
			}
			start := t
			if ready > t {
				start = ready
			}
			t = *e.endOf(grp[0])
			cost, sum := 0.0, 0.0
			if len(grp) > 1 {
				cost = e.groupCost(grp)
				for _, y := range grp {
					sum += costs[y.kind()][y.vs()]
				}
			}
			pair := len(grp) > 1 && paired(grp)
			at0 := start
			for j, y := range grp {
				i, vs := r*per+k+j, y.vs()
				op := Op{Stage: vs % p, Chunk: vs / p, Micro: y.micro(), Kind: y.kind(),
					Start: start, End: t, Dep: -1, Paired: pair}
				if len(grp) > 1 {
					share := cost / float64(len(grp))
					if sum > 0 {
						share = costs[y.kind()][vs] * (cost / sum) // no overflow: cost ≤ sum
					}
					op.Start, op.End = at0, at0+share
					at0 += share
					if j == len(grp)-1 {
						op.End = t
					}
				}
				if rd, d, _ := e.depReady(y, true); d >= 0 && rd >= start {
					op.Dep = int(at[d])
				}
				if e.rankOf != nil {
					op.Stage, op.Chunk = int(e.rankOf[vs]), int(e.chunkOf[vs])
					if Bidirectional(in.Schedule) && vs >= p { // the second direction's
						op.Micro += half
					}
				}
				out[i] = op
			}
			k = g
		}
	}
	return out
}

// endOf is when op x ended (−1: not yet).
func (e *engine) endOf(x ref) *float64 {
	return &e.end[3*(x.micro()*e.nvs+x.vs())+int(x.kind())]
}

// result checks that every op ran and fills the makespan (and the ops when recording).
func (e *engine) result() (Result, error) {
	in, p, per := e.in, e.in.Stages, e.per
	res := e.res
	for r := 0; r < p; r++ {
		if e.pos[r] < per {
			x := e.order[r*per+e.pos[r]]
			return Result{}, fmt.Errorf("schedule: deadlock: rank %d waits forever at op %d (%v of virtual stage %d, micro-batch %d)",
				r, e.pos[r], x.kind(), x.vs(), x.micro())
		}
		res.Makespan = max(res.Makespan, res.Finish[r])
	}
	if math.IsInf(res.Makespan, 0) { // finite costs can still add up past the largest float64
		return Result{}, fmt.Errorf("schedule: costs overflow: makespan is %v", res.Makespan)
	}
	if in.Record {
		res.Ops = e.timeline()
	}
	return res, nil
}
