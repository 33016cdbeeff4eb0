package export

import (
	"math"
	"slices"

	"github.com/splitscope/splitscope/costmodel/schedule"
)

// Long timelines are aggregated. Megatron 1T on 64 stages with 512 micro-batches is 65,536 ops
// about a pixel wide each: one rect per op made an 11 MB file whose F/B alternation the renderer
// smeared anyway. Past maxOpRects ops, or when the median op is narrower than minOpPx, each lane
// is drawn as boxes of consecutive ops instead, at the finest grain (in px) that keeps the
// picture within maxBoxRects shapes:
//
//   - a run of consecutive ops of one kind at least a grain wide is one box;
//   - runs narrower than the grain that follow each other (F and B alternating in the 1F1B
//     steady state) share boxes about a grain wide, one band per kind, each band as tall as its
//     kind's share of the box's time; a box ends where the pattern starts over (before a run
//     of the kind it began with), so that the shares of a steady alternation do not jitter
//     from box to box, or at twice the grain;
//   - an idle gap of idleMinPx or more is never inside a box: idle stays idle; a shorter gap
//     belongs to the box before it (whose bands it lowers, as it lowers the busy share), so
//     that boxes back to back touch. Only when no grain fits with idleMinPx (many ops with
//     short gaps between them) do gaps under a sixteenth of the grain count as short.
//
// Nothing is reordered (boxes follow each other in time, a band's kind holds its ops' time) and
// every op is counted once: per lane and kind, the boxes' busy times add up to the timeline's.
const (
	maxOpRects  = 4500 // ops a timeline draws one rect each at most
	maxBoxRects = 4000 // rects an aggregated timeline draws at most (they carry more data: < 1 MB)
	minOpPx     = 1.0  // median op width below which a timeline is aggregated
	idleMinPx   = 1.0  // idle gaps at least this wide end a box
)

// kindOrder is the top-to-bottom order of the bands of a box.
var kindOrder = []string{"F", "B", "W", "prefill", "decode"}

// aggKind is what a box holds of one kind: its ops and their busy time, in seconds.
type aggKind struct {
	kind string
	ops  int
	busy float64
}

// aggBox is consecutive ops of one lane: from the first one's start to the last one's end (or
// to the next box's start when only a short gap separates them), and per kind (in kindOrder)
// how many and how much time.
type aggBox struct {
	start, end float64
	kinds      []aggKind
	lead       string // the kind of its first op
	joined     bool   // the box follows the one before it with no idle gap
}

// byKindOrder sorts a box's kinds in kindOrder.
func byKindOrder(x, y aggKind) int {
	return slices.Index(kindOrder, x.kind) - slices.Index(kindOrder, y.kind)
}

// add puts op (of kind) in the box.
func (b *aggBox) add(op schedule.Op, kind string) {
	if len(b.kinds) == 0 {
		b.start, b.end, b.lead = op.Start, op.End, kind
	}
	b.start, b.end = math.Min(b.start, op.Start), math.Max(b.end, op.End)
	d := math.Max(op.End-op.Start, 0)
	for i := range b.kinds {
		if b.kinds[i].kind == kind {
			b.kinds[i].ops++
			b.kinds[i].busy += d
			return
		}
	}
	b.kinds = append(b.kinds, aggKind{kind, 1, d})
	slices.SortStableFunc(b.kinds, byKindOrder)
}

// merge puts every op of o in the box.
func (b *aggBox) merge(o aggBox) {
	b.start, b.end = math.Min(b.start, o.start), math.Max(b.end, o.end)
	for _, k := range o.kinds {
		i := slices.IndexFunc(b.kinds, func(x aggKind) bool { return x.kind == k.kind })
		if i < 0 {
			b.kinds = append(b.kinds, k)
			continue
		}
		b.kinds[i].ops += k.ops
		b.kinds[i].busy += k.busy
	}
	slices.SortStableFunc(b.kinds, byKindOrder)
}

// aggregateLane groups one lane's ops, sorted by start, into boxes at grain px, gaps under gap
// px counting as no gap, the picture drawing pxPerSec px a second.
func aggregateLane(ops []schedule.Op, infer bool, pxPerSec, grain, gap float64) []aggBox {
	gapTol := gap / pxPerSec
	narrow := grain / pxPerSec

	// Runs: consecutive ops of one kind with no idle gap between them.
	var runs []aggBox
	for _, op := range ops {
		k := opKind(op, infer)
		if n := len(runs); n > 0 && op.Start-runs[n-1].end < gapTol {
			if k == runs[n-1].lead {
				runs[n-1].add(op, k)
				continue
			}
			runs = append(runs, aggBox{joined: true})
		} else {
			runs = append(runs, aggBox{})
		}
		runs[len(runs)-1].add(op, k)
	}

	// Boxes: a wide run alone; narrow joined runs together, a new box once one is a grain wide
	// and the next run starts the pattern over (or once it is two grains wide), a last box under
	// half a grain joined to the one before.
	var out []aggBox
	seg := -1 // index in out of the first box of the current stretch of narrow runs, or -1
	closeSeg := func() {
		if n := len(out); seg >= 0 && n-seg >= 2 && out[n-1].end-out[n-1].start < narrow/2 {
			out[n-2].merge(out[n-1])
			out = out[:n-1]
		}
		seg = -1
	}
	for _, r := range runs {
		if r.end-r.start >= narrow {
			closeSeg()
			out = append(out, r)
			continue
		}
		switch n := len(out); {
		case seg < 0 || !r.joined:
			closeSeg()
			seg = len(out)
			out = append(out, r)
		case out[n-1].end-out[n-1].start >= narrow && (r.lead == out[n-1].lead || out[n-1].end-out[n-1].start >= 2*narrow):
			out = append(out, r)
		default:
			out[n-1].merge(r)
		}
	}
	closeSeg()
	// A short gap belongs to the box before it.
	for i := 1; i < len(out); i++ {
		if out[i].joined {
			out[i-1].end = out[i].start
		}
	}
	return out
}

// shapes is the number of rects boxes draw: one per kind of each box.
func shapes(lanes [][]aggBox) int {
	n := 0
	for _, l := range lanes {
		for _, b := range l {
			n += len(b.kinds)
		}
	}
	return n
}

// grains are the box widths tried, finest first, in px.
var grains = []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048}

// aggregate groups each lane's ops (sorted by start) into boxes at the finest grain that draws
// at most maxBoxRects shapes, and returns the boxes, that grain and the shortest idle gap kept,
// in px: idleMinPx, or, when no grain fits with it, a sixteenth of the grain.
func aggregate(lanes [][]schedule.Op, infer bool, pxPerSec float64) (boxes [][]aggBox, grain, gap float64) {
	for _, coarse := range []bool{false, true} {
		for _, grain = range grains {
			gap = idleMinPx
			if coarse {
				gap = math.Max(idleMinPx, grain/16)
			}
			boxes = make([][]aggBox, len(lanes))
			for i, ops := range lanes {
				boxes[i] = aggregateLane(ops, infer, pxPerSec, grain, gap)
			}
			if shapes(boxes) <= maxBoxRects {
				return boxes, grain, gap
			}
		}
	}
	return boxes, grain, gap
}

// aggregated says whether a timeline of these lanes is drawn as boxes: more than maxOpRects
// ops, or a median op narrower than minOpPx.
func aggregated(lanes [][]schedule.Op, pxPerSec float64) bool {
	var w []float64
	for _, ops := range lanes {
		for _, op := range ops {
			w = append(w, (op.End-op.Start)*pxPerSec)
		}
	}
	if len(w) > maxOpRects {
		return true
	}
	if len(w) == 0 {
		return false
	}
	slices.Sort(w)
	return w[len(w)/2] < minOpPx
}
