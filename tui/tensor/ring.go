package tensor

import "math"

// The arithmetic of a ring all-reduce over t GPUs, as the animation shows it.
//
// Every GPU splits its S bytes into t chunks. In reduce-scatter step s (0-based), GPU i sends
// chunk (i−s) mod t to GPU i+1, which adds its own share of that chunk; after t−1 steps GPU i
// holds chunk (i+1) mod t summed over all t GPUs. All-gather then circulates the reduced chunks
// for t−1 more steps, each receiver storing what it gets. Over the 2(t−1) steps the same
// formula gives the chunk GPU i sends: (i−k) mod t at step k, so every link is busy every step.

// Phase is the part of a ring all-reduce a step belongs to.
type Phase uint8

// Phases of a ring all-reduce.
const (
	ReduceScatter Phase = iota // t−1 steps: receivers add
	AllGather                  // t−1 steps: receivers store
	Done                       // every GPU holds every chunk reduced
)

func (p Phase) String() string {
	switch p {
	case ReduceScatter:
		return "reduce-scatter"
	case AllGather:
		return "all-gather"
	case Done:
		return "done"
	}
	return "?"
}

// ringSteps is the number of steps of a ring all-reduce over t ranks: 2(t−1).
func ringSteps(t int) int {
	if t <= 1 {
		return 0
	}
	return 2 * (t - 1)
}

// phaseOf maps step k (0-based, 0 ≤ k ≤ 2(t−1)) to its phase and its index inside the phase.
// k = 2(t−1) is the finished state.
func phaseOf(k, t int) (Phase, int) {
	switch {
	case t <= 1 || k >= ringSteps(t):
		return Done, 0
	case k < 0:
		return ReduceScatter, 0
	case k < t-1:
		return ReduceScatter, k
	default:
		return AllGather, k - (t - 1)
	}
}

// mod is the non-negative remainder.
func mod(a, n int) int {
	if n <= 0 {
		return 0
	}
	return ((a % n) + n) % n
}

// sentChunk is the chunk GPU i sends to GPU i+1 in step k, in both phases.
func sentChunk(i, k, t int) int { return mod(i-k, t) }

// chunkCount is how many GPUs' shares chunk c on GPU i holds after the first k steps
// (1: only its own, t: fully reduced). A closed form of the step-by-step simulation (tested
// against it): in reduce-scatter chunk c moves from GPU c one hop a step, gathering a share at
// each GPU, so GPU c+d holds d+1 shares once the chunk has passed it; all-gather then hands the
// reduced chunk, which starts on GPU c−1, on around the ring.
func chunkCount(i, c, k, t int) int {
	if t <= 1 {
		return 1
	}
	k = max(0, min(k, ringSteps(t)))
	d := mod(i-c, t)
	rs := min(k, t-1)
	ag := max(k-(t-1), 0)
	switch {
	case d < ag:
		return t
	case d >= 1 && d <= rs:
		return d + 1
	default:
		return 1
	}
}

// wallSeconds is how long one all-reduce takes on screen: about 2 s for 100 µs, growing with the
// square root of the modelled time so that a slower link visibly plays slower, within 0.5–8 s.
func wallSeconds(modelled float64) float64 {
	if math.IsNaN(modelled) || modelled <= 0 {
		return 0.5
	}
	w := 2 * math.Sqrt(modelled/100e-6)
	if math.IsInf(w, 0) {
		return 8
	}
	return max(0.5, min(8, w))
}

// shownNodes is how many GPUs the ring drawing shows.
const shownNodes = 16

// nodeIDs lists the GPUs the ring draws: all of them up to 16; beyond, the first 15 and the last,
// so the ring still closes.
func nodeIDs(t int) []int {
	n := min(max(t, 0), shownNodes)
	ids := make([]int, n)
	for d := range ids {
		ids[d] = d
	}
	if t > shownNodes {
		ids[n-1] = t - 1
	}
	return ids
}

// slot is a GPU's place in the ring drawing: row 0 (top, left to right) or 1 (bottom, right to
// left) and a column.
type slot struct{ row, col int }

// ringSlots places n GPUs clockwise on a two-row rectangle: the first ⌈n/2⌉ along the top, left
// to right, the rest back along the bottom, right to left, under the top row's right end. With an
// odd n the bottom-left column stays empty; the ring closes through it.
func ringSlots(n int) []slot {
	if n <= 0 {
		return nil
	}
	top := (n + 1) / 2
	out := make([]slot, n)
	for d := range out {
		if d < top {
			out[d] = slot{0, d}
		} else {
			out[d] = slot{1, top - 1 - (d - top)}
		}
	}
	return out
}

// levelGlyphs shows how much of a chunk is summed: ▁ its own share only … █ all t shares.
var levelGlyphs = []rune("▁▂▃▄▅▆▇█")

// levelGlyph maps the shares summed in a chunk (an average, for a cell standing for several
// chunks) to a glyph, linearly from ▁ for one share to █; only all t shares give █.
func levelGlyph(shares float64, t int) rune {
	top := len(levelGlyphs) - 1
	if t <= 1 || !(shares < float64(t)) {
		return levelGlyphs[top]
	}
	i := int(math.Round((shares - 1) / float64(t-1) * float64(top)))
	return levelGlyphs[max(0, min(i, top-1))]
}
