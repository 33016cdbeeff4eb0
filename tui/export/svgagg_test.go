package export

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// aggCase is an aggregated picture under test.
type aggCase struct {
	name string
	s    model.Scenario
	r    costmodel.Report
}

func aggCases(t *testing.T) []aggCase {
	t.Helper()
	var out []aggCase
	for _, fx := range fixtures {
		if fx.agg {
			s, r := evaluate(t, fx.edit)
			out = append(out, aggCase{fx.name, s, r})
		}
	}
	s, r := megatron1T(t)
	return append(out, aggCase{"megatron-1t", s, r})
}

// shapeCount is the number of elements drawn: rects, lines and texts.
func shapeCount(root *node) int {
	return len(root.find("rect", "")) + len(root.find("line", "")) + len(root.find("text", ""))
}

var noteNumbers = regexp.MustCompile(`([0-9,]+) ops drawn as ([0-9,]+) shapes`)

// TestSVGAggregation checks that an aggregated timeline is small and honest: under 5,000
// shapes and 1 MB; each box holds exactly the ops in its span, none cut, none counted twice;
// a box of one kind holds no op of another; bands are as tall as their kind's share; idle gaps
// of a pixel or more stay idle; the note says what was done.
func TestSVGAggregation(t *testing.T) {
	for _, tc := range aggCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			tl := tc.r.Timeline
			infer := tl.Mode == model.Infer
			raw, root := renderSVG(t, tc.s, tc.r, SVGOptions{})
			if len(raw) >= 1<<20 {
				t.Errorf("SVG is %d bytes, want < 1 MiB", len(raw))
			}
			if n := shapeCount(root); n > 5000 {
				t.Errorf("%d shapes, want ≤ 5,000", n)
			}
			var again bytes.Buffer
			if err := SVG(&again, tc.s, tc.r, SVGOptions{}); err != nil || !bytes.Equal(again.Bytes(), raw) {
				t.Error("two renderings differ")
			}

			boxes := root.find("rect", "ops")
			if len(boxes) > maxBoxRects {
				t.Errorf("%d box rects, want ≤ %d", len(boxes), maxBoxRects)
			}
			var note string
			for _, n := range root.find("text", "aggregation-note") {
				note += n.text + " "
			}
			m := noteNumbers.FindStringSubmatch(note)
			if m == nil || m[1] != thousands(len(tl.Ops), ",") || m[2] != thousands(len(boxes), ",") {
				t.Fatalf("note %q does not say %d ops drawn as %d shapes", note, len(tl.Ops), len(boxes))
			}
			g := root.find("g", "aggregation")
			if len(g) != 1 {
				t.Fatalf("%d aggregation groups, want 1", len(g))
			}
			grain, gap := g[0].float(t, "data-grain"), g[0].float(t, "data-gap")
			if !strings.Contains(note, num(grain)+" px") || !strings.Contains(note, num(gap)+" px") {
				t.Errorf("note %q does not give the grain %v px and gap %v px", note, grain, gap)
			}

			ax := root.find("g", "axis")[0]
			x0, x1 := ax.float(t, "data-x0"), ax.float(t, "data-x1")
			pxPerSec := (x1 - x0) / tl.Makespan
			eps := 1e-6 * tl.Makespan
			laneH := root.find("rect", "idle")[0].float(t, "height")

			byStage := map[int][]schedule.Op{}
			for _, op := range tl.Ops {
				byStage[op.Stage] = append(byStage[op.Stage], op)
			}
			for _, lane := range root.find("g", "lane") {
				st, _ := strconv.Atoi(lane.attr["data-stage"])
				ops := byStage[st]
				slices.SortStableFunc(ops, func(a, b schedule.Op) int { return cmpFloat(a.Start, b.Start) })
				checkLane(t, st, lane.find("rect", "ops"), ops, infer, laneH, x0, pxPerSec, grain, gap, eps)
				delete(byStage, st)
			}
			if len(byStage) != 0 {
				t.Errorf("%d stages have no lane", len(byStage))
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkLane checks one lane's boxes against its ops (sorted by start).
func checkLane(t *testing.T, st int, rects []*node, ops []schedule.Op, infer bool, laneH, x0, pxPerSec, grain, gap, eps float64) {
	t.Helper()
	// Per kind, the boxes add up to the timeline.
	wantOps, wantBusy := map[string]int{}, map[string]float64{}
	for _, op := range ops {
		k := opKind(op, infer)
		wantOps[k]++
		wantBusy[k] += op.End - op.Start
	}
	gotOps, gotBusy := map[string]int{}, map[string]float64{}
	type box struct {
		start, end float64
		kinds      map[string]*node
	}
	var bs []*box
	for _, rc := range rects {
		if rc.attr["data-stage"] != strconv.Itoa(st) {
			t.Fatalf("box of stage %s in lane %d", rc.attr["data-stage"], st)
		}
		k := rc.attr["data-kind"]
		gotOps[k] += int(rc.float(t, "data-ops"))
		gotBusy[k] += rc.float(t, "data-busy")
		start, end := rc.float(t, "data-start"), rc.float(t, "data-end")
		if n := len(bs); n > 0 && bs[n-1].start == start && bs[n-1].end == end {
			bs[n-1].kinds[k] = rc
		} else {
			bs = append(bs, &box{start, end, map[string]*node{k: rc}})
		}
		// Where the axis puts it.
		if x, w := rc.float(t, "x"), rc.float(t, "width"); math.Abs(x-(x0+start*pxPerSec)) > 0.02 || math.Abs(x+w-(x0+end*pxPerSec)) > 0.02 {
			t.Fatalf("S%d box %v..%v s drawn at x %v..%v", st, start, end, x, x+w)
		}
	}
	for k, n := range wantOps {
		if gotOps[k] != n || math.Abs(gotBusy[k]-wantBusy[k]) > 1e-6*wantBusy[k]+eps {
			t.Errorf("S%d %s: boxes hold %d ops, %v s busy; the timeline %d ops, %v s", st, k, gotOps[k], gotBusy[k], n, wantBusy[k])
		}
	}
	for k := range gotOps {
		if _, ok := wantOps[k]; !ok {
			t.Errorf("S%d: boxes of kind %s, which the lane has none of", st, k)
		}
	}

	for i, b := range bs {
		if i > 0 && b.start < bs[i-1].end-eps {
			t.Fatalf("S%d: boxes overlap at %v s", st, b.start)
		}
		// Boxes back to back touch: no seam that would read as idle.
		if i > 0 && b.start == bs[i-1].end {
			for _, p := range bs[i-1].kinds {
				for _, q := range b.kinds {
					if end := p.float(t, "x") + p.float(t, "width"); math.Abs(q.float(t, "x")-end) > 1e-9 {
						t.Fatalf("S%d: box ends at x %v, the next starts at %v", st, end, q.float(t, "x"))
					}
				}
			}
		}
		// The ops inside: none cut by the box's edges, their kinds the box's bands.
		ops2, busy := map[string]int{}, map[string]float64{}
		for _, op := range ops {
			if op.End <= b.start+eps || op.Start >= b.end-eps {
				continue
			}
			if op.Start < b.start-eps || op.End > b.end+eps {
				t.Fatalf("S%d: op %v..%v cut by the box %v..%v", st, op.Start, op.End, b.start, b.end)
			}
			k := opKind(op, infer)
			ops2[k]++
			busy[k] += op.End - op.Start
		}
		if len(ops2) != len(b.kinds) {
			t.Fatalf("S%d box %v..%v: bands %v, ops of %d kinds inside", st, b.start, b.end, keys(b.kinds), len(ops2))
		}
		top := math.Inf(-1)
		total := 0.0
		for _, k := range kindOrder {
			rc, ok := b.kinds[k]
			if !ok {
				continue
			}
			if n := int(rc.float(t, "data-ops")); n != ops2[k] || math.Abs(rc.float(t, "data-busy")-busy[k]) > 1e-6*busy[k]+eps {
				t.Fatalf("S%d box %v..%v %s: says %d ops, %s s; holds %d, %v s", st, b.start, b.end, k, n, rc.attr["data-busy"], ops2[k], busy[k])
			}
			// Bands: in kindOrder from the top, each as tall as its share.
			y, h := rc.float(t, "y"), rc.float(t, "height")
			if y < top-0.02 {
				t.Fatalf("S%d box %v..%v: bands out of order", st, b.start, b.end)
			}
			top = y + h
			if want := laneH * busy[k] / (b.end - b.start); math.Abs(h-want) > 0.02+laneH*2e-6*b.end/(b.end-b.start) {
				t.Errorf("S%d box %v..%v %s: band %v px tall, share says %v", st, b.start, b.end, k, h, want)
			}
			total += h
		}
		if total > laneH+0.05 {
			t.Errorf("S%d box %v..%v: bands %v px tall in a %v px lane", st, b.start, b.end, total, laneH)
		}
		// Ops of several kinds share a box only below the grain: a box ends after two grains
		// at most, plus its last run (under a grain) and a tail under half a grain.
		if w := (b.end - b.start) * pxPerSec; len(b.kinds) > 1 && w > 3.5*grain+gap {
			t.Errorf("S%d box %v..%v: %d kinds in %v px, grain %v px", st, b.start, b.end, len(b.kinds), w, grain)
		}
	}

	// Idle stays idle: no box spans a gap of gap px or more between ops.
	end := math.Inf(-1)
	for _, op := range ops {
		if op.Start-end >= gap/pxPerSec+eps {
			for _, b := range bs {
				if b.start < op.Start-eps && b.end > end+eps {
					t.Fatalf("S%d: box %v..%v covers the idle gap %v..%v", st, b.start, b.end, end, op.Start)
				}
			}
		}
		end = math.Max(end, op.End)
	}
}

func keys(m map[string]*node) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSVGMegatron1TBudget pins the 1T row's numbers: 65,536 ops, under 5,000 shapes and 1 MB.
func TestSVGMegatron1TBudget(t *testing.T) {
	s, r := megatron1T(t)
	raw, root := renderSVG(t, s, r, SVGOptions{})
	if len(raw) >= 1_000_000 {
		t.Errorf("1T SVG is %d bytes, want < 1 MB", len(raw))
	}
	if n := shapeCount(root); n > 5000 {
		t.Errorf("1T SVG draws %d shapes, want ≤ 5,000", n)
	}
	if h := root.float(t, "height"); h > 1400 {
		t.Errorf("1T SVG is %v px tall for 64 lanes", h)
	}
	if n := len(root.find("g", "lane")); n != 64 {
		t.Errorf("%d lanes, want 64", n)
	}
}

// op is a test op: kind F, B or W on stage 0 from start to end.
func op(kind string, start, end float64) schedule.Op {
	k := map[string]schedule.Kind{"F": schedule.F, "B": schedule.B, "W": schedule.W}[kind]
	return schedule.Op{Kind: k, Start: start, End: end}
}

func TestAggregateLane(t *testing.T) {
	// 1 px a second: F and B half a pixel each, back to back, for 40 px; then 10 px idle; then
	// one F run of 30 px in 30 ops with gaps of a tenth of a pixel.
	var ops []schedule.Op
	for i := range 40 {
		ops = append(ops, op("F", float64(i), float64(i)+0.5), op("B", float64(i)+0.5, float64(i)+1))
	}
	for i := range 30 {
		ops = append(ops, op("F", 50+float64(i), 50+float64(i)+0.9))
	}
	boxes := aggregateLane(ops, false, 1, 8, idleMinPx)
	// The alternation: boxes of 8 px with F and B at half each; then the F run alone.
	if len(boxes) != 6 {
		t.Fatalf("%d boxes, want 5 of the F/B alternation and 1 F run: %+v", len(boxes), boxes)
	}
	for i, b := range boxes[:5] {
		if b.start != float64(8*i) || b.end != float64(8*i+8) || len(b.kinds) != 2 ||
			b.kinds[0] != (aggKind{"F", 8, 4}) || b.kinds[1] != (aggKind{"B", 8, 4}) {
			t.Errorf("box %d: %+v, want 8 F and 8 B over %d..%d s", i, b, 8*i, 8*i+8)
		}
	}
	if b := boxes[5]; b.start != 50 || math.Abs(b.end-79.9) > 1e-9 || len(b.kinds) != 1 || b.kinds[0].ops != 30 || math.Abs(b.kinds[0].busy-27) > 1e-9 {
		t.Errorf("F run: %+v, want 30 F ops, 27 s busy, 50..79.9 s", b)
	}

	// A steady alternation out of step with the grain (F 0.3 px, B 0.7 px, grain 2.5 px): each
	// box ends where the pattern starts over, so every box holds whole F+B pairs and shows the
	// same shares.
	ops = nil
	for i := range 100 {
		ops = append(ops, op("F", float64(i), float64(i)+0.3), op("B", float64(i)+0.3, float64(i)+1))
	}
	boxes = aggregateLane(ops, false, 1, 2.5, idleMinPx)
	for i, b := range boxes {
		if len(b.kinds) != 2 || b.kinds[0].ops != b.kinds[1].ops || math.Abs(b.kinds[0].busy/(b.end-b.start)-0.3) > 1e-9 {
			t.Fatalf("box %d of a steady F/B alternation: %+v, want whole pairs, F 30%%", i, b)
		}
	}

	// Runs a grain wide or more are boxes of their own, in order: no F/B reordering.
	ops = []schedule.Op{op("F", 0, 10), op("B", 10, 30), op("F", 30, 40), op("W", 40, 41), op("B", 41, 61)}
	boxes = aggregateLane(ops, false, 1, 8, idleMinPx)
	var got []string
	for _, b := range boxes {
		for _, k := range b.kinds {
			got = append(got, k.kind)
		}
	}
	if !slices.Equal(got, []string{"F", "B", "F", "W", "B"}) {
		t.Errorf("boxes %v, want F B F W B", got)
	}

	// A gap under a pixel joins the box before it; a gap of a pixel splits.
	boxes = aggregateLane([]schedule.Op{op("F", 0, 10), op("F", 10.5, 20), op("F", 21.5, 30)}, false, 1, 8, idleMinPx)
	if len(boxes) != 2 || boxes[0].end != 20 || boxes[0].kinds[0].ops != 2 || boxes[1].start != 21.5 {
		t.Errorf("gaps of 0.5 and 1.5 px: %+v", boxes)
	}
	boxes = aggregateLane([]schedule.Op{op("F", 0, 10), op("B", 10.5, 20)}, false, 1, 8, idleMinPx)
	if len(boxes) != 2 || boxes[0].end != 10.5 {
		t.Errorf("a box ends where the next one starts across a short gap: %+v", boxes)
	}
}

func TestAggregateBudget(t *testing.T) {
	// 40 lanes of 200 ops each a tenth of a pixel wide, separated by 1.1 px of idle: no grain
	// fits while gaps of a pixel stay idle, so the gaps give way, never the budget.
	lanes := make([][]schedule.Op, 40)
	for i := range lanes {
		for j := range 200 {
			x := float64(j) * 1.2
			lanes[i] = append(lanes[i], op("F", x, x+0.1))
		}
	}
	boxes, grain, gap := aggregate(lanes, false, 1)
	if n := shapes(boxes); n > maxBoxRects {
		t.Errorf("%d shapes, want ≤ %d", n, maxBoxRects)
	}
	if gap <= idleMinPx || gap != math.Max(idleMinPx, grain/16) {
		t.Errorf("gap %v px at grain %v px, want grain/16 > %v", gap, grain, idleMinPx)
	}
	if !aggregated(lanes, 1) {
		t.Error("8,000 ops not aggregated")
	}
	if aggregated([][]schedule.Op{{op("F", 0, 0.5), op("B", 0.5, 3), op("F", 3, 6)}}, 1) {
		t.Error("three ops, median 2.5 px, aggregated")
	}
	if !aggregated([][]schedule.Op{{op("F", 0, 0.5), op("B", 0.5, 0.9), op("F", 3, 6)}}, 1) {
		t.Error("median op 0.5 px wide, not aggregated")
	}
}
