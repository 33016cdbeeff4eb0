package schedule

import (
	"math"

	"github.com/splitscope/splitscope/model"
)

// EstimateTrain is a closed-form makespan for in, for Search to rank many candidates without
// simulating each: no allocation for p ≤ 64, O(p²) at most. It equals SimulateTrain on uniform
// stages with free p2p and stays within a few per cent of it otherwise (see
// TestEstimateTrainClose). It returns +Inf for an input SimulateTrain would reject, so that a
// minimiser never picks it.
//
// GPipe is two flow shops of identical jobs, forward then backward:
// Σ(F+B) + 2Σc + (m−1)(max F + max B) (c: p2p times), exact without p2p.
//
// 1F1B, interleaved and ZB-H1 follow the last micro-batch instead, rank by rank (ranks work in
// units of one chunk, costing F_r/v and B_r/v where F_r, B_r are the rank's totals):
//   - Rank r runs k_r forwards before its first backward (p−r for 1F1B and ZB-H1, Megatron's
//     warm-up plus one when interleaved). That backward starts when these forwards are done and
//     the first micro-batch has gone through the whole pipeline and its gradient back to r.
//   - From then on rank r alternates forward and backward at its own pace, so its last forward
//     ends m·v − k_r pairs later, or when the last micro-batch's forward arrives from rank r−1 if
//     that is later (a slower rank upstream).
//   - After its last forward, rank r has n_r backwards to run before the last micro-batch's
//     gradient (of the last chunk) comes back to it: p−r−1 for 1F1B, 2(p−r−1) interleaved; that
//     gradient leaves rank r at max(last forward + n_r backwards, when rank r+1 sent it) + B.
//     On uniform stages this recursion gives the textbook bubbles: (p−1)(F+B) for 1F1B,
//     (p−1)(F+B)/v interleaved and ZB-H1's (p−1)(F+B−W) when W ≤ F and W ≤ B.
//   - Interleaved: rank r still has the other v−1 chunks of the last p micro-batches, which take
//     the longer of its own (v−1)·p backwards and the gradient's trips round the ring; then the
//     gradient goes down to rank 0.
//   - ZB-H1: in the steady state rank r holds r weight passes back and runs one after each
//     backward; after its last backward it runs the last r+1 of them.
//   - 1F1B: with p2p, a block of adjacent ranks passing each micro-batch forward and its gradient
//     back has a period of its work plus 2Σc over its length; what p2p adds to the slowest block's
//     period slows every pair of every rank.
func EstimateTrain(in Train) float64 {
	if validateTrain(&in) != nil {
		return math.Inf(1)
	}
	if in.Schedule == model.GPipe {
		maxF, maxB := 0.0, 0.0
		for r := 0; r < in.Stages; r++ {
			maxF, maxB = max(maxF, in.F[r]), max(maxB, in.B[r])
		}
		return sum(in.F) + sum(in.B) + 2*sum(in.P2P) + float64(in.Micro-1)*(maxF+maxB)
	}
	return pipeEstimate(&in)
}

func pipeEstimate(in *Train) float64 {
	p, v, m := in.Stages, in.Chunks, in.Micro
	nvs := p * v
	zb := in.Schedule == model.ZBH1
	c := func(i int) float64 { // p2p after virtual stage i; none after the last
		if in.P2P == nil || i < 0 || i >= nvs-1 {
			return 0
		}
		return in.P2P[i]
	}
	w := func(r int) float64 {
		if in.W == nil {
			return 0
		}
		return in.W[r]
	}
	avg := func(xs []float64, r int) float64 { // one chunk of rank r, averaged over its chunks
		s := 0.0
		for k := r; k < nvs; k += p {
			s += xs[k]
		}
		return s / float64(v)
	}
	last := (v - 1) * p // virtual stage of rank 0's last chunk

	slow := 0.0
	if in.Schedule == model.OneFOneB && in.P2P != nil {
		withC, without := 0.0, 0.0
		for r := 0; r < p; r++ {
			work, comm := 0.0, 0.0
			for r2 := r; r2 < p; r2++ {
				work += in.F[r2] + in.B[r2]
				if r2 > r {
					comm += 2 * c(r2-1)
				}
				n := float64(r2 - r + 1)
				withC, without = max(withC, (work+comm)/n), max(without, work/n)
			}
		}
		slow = withC - without
	}

	fwdAll, back := 0.0, 0.0 // Σ(F+c) over the pipeline; the gradient's way from the end to rank r
	for i := 0; i < nvs; i++ {
		fwdAll += in.F[i] + c(i)
	}
	for i := last + 1; i < nvs; i++ {
		back += in.B[i] + c(i-1)
	}
	// Per rank: when its first backward can start, and when its last forward ends (later: when
	// its last-chunk gradient leaves).
	var buf [128]float64
	first, lf := buf[:0], buf[64:64]
	if p > 64 {
		first, lf = make([]float64, 0, p), make([]float64, 0, p)
	}
	head, prev := 0.0, 0.0 // head: Σ_{s<r}(F+c) of chunk 0; prev: rank r−1's last forward
	for r := 0; r < p; r++ {
		f, b := avg(in.F, r), avg(in.B, r)
		k := min(p-r, m)
		if in.Schedule == model.Interleaved {
			k = min(2*(p-r-1)+(v-1)*p+1, m*v)
			if m == p { // Megatron runs every forward first
				k = m * v
			}
		}
		t0 := max(head+float64(k)*f, fwdAll+back) // first backward
		own := head + float64(k)*f                // every forward before the first backward
		if k < m*v {
			own = t0 + float64(m*v-k)*(f+b+slow)
			if zb {
				own += float64(zbWeights(m, k, 0, r).before) * w(r)
			}
		}
		if r > 0 {
			own = max(own, prev+c(last+r-1)+in.F[last+r])
		}
		first, lf = append(first, t0), append(lf, own)
		prev = own
		head += in.F[r] + c(r)
		if last+r+1 < nvs {
			back -= in.B[last+r+1] + c(last+r)
		}
	}
	// When the last rank runs every forward first (interleaved with m = p, or m = 1), the first
	// gradient leaves it only after all of them.
	lastK := min(1, m)
	if in.Schedule == model.Interleaved {
		lastK = min((v-1)*p+1, m*v)
		if m == p {
			lastK = m * v
		}
	}
	allFirst, lfLast, backR := lastK == m*v, lf[p-1], 0.0
	next := 0.0 // when rank r+1 sent the last gradient of the last chunk
	for r := p - 1; r >= 0; r-- {
		if allFirst {
			first[r] = max(first[r], lfLast+backR)
		}
		backR += in.B[last+r] + c(last+r-1)
		b := avg(in.B, r)
		k := min(p-r, m)
		if in.Schedule == model.Interleaved {
			k = min(2*(p-r-1)+(v-1)*p+1, m*v)
			if m == p {
				k = m * v
			}
		}
		n := max(0, k-1-(v-1)*p)
		fill := float64(n) * b
		if zb {
			fill += float64(zbWeights(m, k, n, r).fill) * w(r)
		}
		lb := max(max(lf[r], first[r])+fill, next) + in.B[last+r]
		lf[r] = lb
		next = lb + c(last+r-1)
	}
	// Rank r's remaining chunks, then the way down to rank 0; ZB-H1's last weight passes.
	best, ring, tail := 0.0, 0.0, 0.0
	for i := 0; i < last; i++ {
		ring += in.B[i] + c(i)
	}
	for r := 0; r < p; r++ {
		b := avg(in.B, r)
		end := lf[r] + max(float64((v-1)*p)*b, ring) + tail
		if zb {
			left := float64(zbWeights(m, min(p-r, m), min(p-r, m)-1, r).left)
			end = lf[r] + max(left*w(r), tail+w(0))
		}
		best = max(best, end)
		if last > 0 {
			ring += in.B[last+r] + c(last+r) - in.B[r] - c(r)
		}
		tail += in.B[r] + c(r)
	}
	return best
}

// zbWeights counts where rank r of ZB-H1 runs its m weight passes, given k forwards before
// its first backward and n backwards between its last forward and the last micro-batch's: before
// its last forward, among those n backwards, and after the last backward. A weight pass follows
// a backward once more than r are pending.
func zbWeights(m, k, n, r int) (c struct{ before, fill, left int }) {
	done := m - k // backwards before the last forward
	c.before = max(0, done-r)
	c.fill = max(0, min(done, r)+n-r)
	c.left = m - c.before - c.fill
	return c
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
