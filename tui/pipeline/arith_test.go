package pipeline

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestTimeToCol(t *testing.T) {
	tests := []struct {
		name       string
		t, span    float64
		cols, want int
	}{
		{"start", 0, 10, 10, 0},
		{"middle", 5, 10, 10, 5},
		{"just before a boundary", 4.999, 10, 10, 4},
		{"inside the last column", 9.99, 10, 10, 9},
		{"the end clamps to the last column", 10, 10, 10, 9},
		{"past the end", 12, 10, 10, 9},
		{"negative", -1, 10, 10, 0},
		{"uneven", 1, 3, 7, 2},
		{"NaN", math.NaN(), 10, 10, 0},
		{"empty span", 3, 0, 10, 0},
		{"no columns", 3, 10, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := timeToCol(tc.t, tc.span, tc.cols); got != tc.want {
				t.Errorf("timeToCol(%v, %v, %d) = %d, want %d", tc.t, tc.span, tc.cols, got, tc.want)
			}
		})
	}
}

func TestColSliceCoversSpan(t *testing.T) {
	a, b := colSlice(2, 10, 10)
	if a != 2 || b != 3 {
		t.Errorf("colSlice(2, 10, 10) = [%v, %v), want [2, 3)", a, b)
	}
	// Every column's slice maps back to that column.
	for _, cols := range []int{1, 7, 56, 113} {
		for c := range cols {
			a, b := colSlice(c, cols, 0.854)
			if got := timeToCol((a+b)/2, 0.854, cols); got != c {
				t.Fatalf("cols %d: column %d's middle maps to %d", cols, c, got)
			}
		}
	}
}

func TestNiceStep(t *testing.T) {
	tests := []struct{ raw, want float64 }{
		{1, 1}, {1.1, 2}, {2, 2}, {2.5, 5}, {5, 5}, {7, 10}, {0.3, 0.5},
		{0.062, 0.1}, {0.00042, 0.0005}, {3e-9, 5e-9}, {1500, 2000},
		{0, 1}, {-1, 1}, {math.Inf(1), 1}, {math.NaN(), 1},
	}
	for _, tc := range tests {
		if got := niceStep(tc.raw); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("niceStep(%v) = %v, want %v", tc.raw, got, tc.want)
		}
	}
	if got := nextNice(0.5); math.Abs(got-1) > 1e-12 {
		t.Errorf("nextNice(0.5) = %v, want 1", got)
	}
	if got := nextNice(2e-3); math.Abs(got-5e-3) > 1e-12 {
		t.Errorf("nextNice(0.002) = %v, want 0.005", got)
	}
}

func TestTickLabel(t *testing.T) {
	tests := []struct {
		t, step, scale float64
		unit, want     string
	}{
		{0, 0.1, 1, "s", "0"},
		{0.2, 0.1, 1, "s", "0.2 s"},
		{2, 1, 1, "s", "2 s"},
		{0.4, 0.2, 1e-3, "ms", "400 ms"},
		{0.0002, 0.0001, 1e-3, "ms", "0.2 ms"},
		{0.00025, 0.00005, 1e-3, "ms", "0.25 ms"},
		{3e-6, 1e-6, 1e-6, "µs", "3 µs"},
	}
	for _, tc := range tests {
		if got := tickLabel(tc.t, tc.step, tc.scale, tc.unit); got != tc.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tc.t, tc.step, got, tc.want)
		}
	}
}

func TestTimeUnit(t *testing.T) {
	for _, tc := range []struct {
		span float64
		want string
	}{{10.7, "s"}, {1, "s"}, {0.854, "ms"}, {2e-3, "ms"}, {5e-4, "µs"}, {3e-8, "ns"}} {
		if _, got := timeUnit(tc.span); got != tc.want {
			t.Errorf("timeUnit(%v) = %s, want %s", tc.span, got, tc.want)
		}
	}
}

func TestAxisTicks(t *testing.T) {
	t.Run("1f1b step over 114 columns", func(t *testing.T) {
		ts := axisTicks(0.854, 114)
		var labels []string
		for _, tk := range ts {
			labels = append(labels, tk.Label)
		}
		want := "0 100 ms 200 ms 300 ms 400 ms 500 ms 600 ms 700 ms 800 ms"
		if got := strings.Join(labels, " "); got != want {
			t.Errorf("labels %q, want %q", got, want)
		}
		if ts[4].Col != timeToCol(0.4, 0.854, 114) {
			t.Errorf("400 ms at column %d, want %d", ts[4].Col, timeToCol(0.4, 0.854, 114))
		}
	})
	t.Run("narrow: fewer, wider steps", func(t *testing.T) {
		ts := axisTicks(0.854, 20)
		if len(ts) < 2 || ts[1].Label != "500 ms" {
			t.Errorf("ticks %+v, want 0 and 500 ms", ts)
		}
	})
	t.Run("the last label moves left to fit", func(t *testing.T) {
		ts := axisTicks(1, 40) // 1 s lands on the last column
		last := ts[len(ts)-1]
		if last.At+cellWidth(last.Label) > 40 || last.At > last.Col {
			t.Errorf("last tick %+v does not end inside 40 columns", last)
		}
	})
	t.Run("nothing to mark", func(t *testing.T) {
		if ts := axisTicks(0, 50); ts != nil {
			t.Errorf("axisTicks(0, 50) = %v, want nil", ts)
		}
		if ts := axisTicks(1, 0); ts != nil {
			t.Errorf("axisTicks(1, 0) = %v, want nil", ts)
		}
	})
	// Whatever the span and width, labels start at 0, stay inside and never touch.
	for _, span := range []float64{3e-7, 4.2e-5, 0.0123, 0.854, 1, 10.7, 4321} {
		for _, cols := range []int{1, 3, 9, 25, 56, 113, 180} {
			ts := axisTicks(span, cols)
			if len(ts) == 0 || ts[0].Label != "0" || ts[0].Col != 0 {
				t.Fatalf("span %v cols %d: ticks %+v do not start with 0", span, cols, ts)
			}
			end := -2
			for _, tk := range ts[1:] {
				if tk.At < end+2 || tk.At+cellWidth(tk.Label) > cols {
					t.Fatalf("span %v cols %d: tick %+v overlaps or overflows (%+v)", span, cols, tk, ts)
				}
				end = tk.At + cellWidth(tk.Label)
			}
		}
	}
}

func TestFoldLanes(t *testing.T) {
	ln := func(from, to int) []laneRow {
		var out []laneRow
		for i := from; i < to; i++ {
			out = append(out, laneRow{Lane: i})
		}
		return out
	}
	mk := func(from, to int) []laneRow { return []laneRow{{Lane: -1, From: from, Hidden: to - from}} }
	cat := func(parts ...[]laneRow) []laneRow {
		var out []laneRow
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name               string
		n, rows, off       int
		want               []laneRow
		wantOff, max, page int
	}{
		{"all fit", 4, 10, 0, ln(0, 4), 0, 0, 4},
		{"all fit, offset ignored", 4, 4, 3, ln(0, 4), 0, 0, 4},
		{"fold the middle", 64, 10, 0, cat(ln(0, 5), mk(5, 60), ln(60, 64)), 0, 55, 5},
		{"scrolled", 64, 10, 3, cat(mk(0, 3), ln(3, 7), mk(7, 60), ln(60, 64)), 3, 55, 4},
		{"scrolled to the end", 64, 10, 55, cat(mk(0, 55), ln(55, 64)), 55, 55, 9},
		{"past the end clamps", 64, 10, 100, cat(mk(0, 55), ln(55, 64)), 55, 55, 9},
		{"negative clamps", 64, 10, -5, cat(ln(0, 5), mk(5, 60), ln(60, 64)), 0, 55, 5},
		{"three rows", 5, 3, 0, cat(ln(0, 1), mk(1, 4), ln(4, 5)), 0, 3, 1},
		{"three rows scrolled", 5, 3, 1, cat(mk(0, 1), ln(1, 2), mk(2, 5)), 1, 3, 1},
		{"two rows: a window", 5, 2, 1, ln(1, 3), 1, 3, 2},
		{"one row", 5, 1, 9, ln(4, 5), 4, 4, 1},
		{"no lanes", 0, 5, 0, nil, 0, 0, 1},
		{"no rows", 5, 0, 0, nil, 0, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, off, maxOff, page := foldLanes(tc.n, tc.rows, tc.off)
			if !reflect.DeepEqual(got, tc.want) || off != tc.wantOff || maxOff != tc.max || page != tc.page {
				t.Errorf("foldLanes(%d, %d, %d) = %v off %d max %d page %d\nwant %v off %d max %d page %d",
					tc.n, tc.rows, tc.off, got, off, maxOff, page, tc.want, tc.wantOff, tc.max, tc.page)
			}
		})
	}
	// Every offset fills the rows exactly and accounts for every lane once.
	for _, n := range []int{5, 9, 64} {
		for _, rows := range []int{3, 4, 7, 10} {
			_, _, maxOff, _ := foldLanes(n, rows, 0)
			for off := 0; off <= maxOff; off++ {
				got, _, _, _ := foldLanes(n, rows, off)
				seen := 0
				for _, r := range got {
					if r.Lane >= 0 {
						seen++
					} else {
						seen += r.Hidden
					}
				}
				if len(got) != min(rows, n) || seen != n {
					t.Fatalf("n %d rows %d off %d: %d rows covering %d lanes: %v", n, rows, off, len(got), seen, got)
				}
			}
		}
	}
}

func TestLanePitch(t *testing.T) {
	tests := []struct {
		n, rows, maxOps int
		ops             int
		gap             bool
	}{
		{4, 9, 3, 1, true},  // two rows a lane: one of ops, one blank
		{4, 26, 3, 3, true}, // capped at three rows of ops
		{4, 15, 3, 3, true}, // 4·3 + 3 gaps = 15
		{4, 14, 3, 2, true}, // one short
		{4, 4, 3, 1, false}, // one row a lane
		{4, 3, 3, 1, false}, // does not fit: folded by the caller
		{1, 10, 3, 3, true}, // a single stage
		{64, 29, 3, 1, false},
	}
	for _, tc := range tests {
		ops, gap := lanePitch(tc.n, tc.rows, tc.maxOps)
		if ops != tc.ops || gap != tc.gap {
			t.Errorf("lanePitch(%d, %d, %d) = %d, %v, want %d, %v", tc.n, tc.rows, tc.maxOps, ops, gap, tc.ops, tc.gap)
		}
	}
}

func TestComputeLayout(t *testing.T) {
	tests := []struct {
		name                 string
		h, lanes, headerWant int
		want                 layout
	}{
		{"56×16, four stages", 16, 4, 2, layout{header: 2, status: true, blank: true, rows: 9, legend: true}},
		{"smallest", 6, 4, 2, layout{header: 1, rows: 3}},
		{"eight rows: no playhead line", 8, 4, 1, layout{header: 1, rows: 5}},
		{"many stages keep their rows", 34, 64, 1, layout{header: 1, status: true, rows: 29, legend: true}},
		{"one stage", 12, 1, 1, layout{header: 1, status: true, blank: true, rows: 6, legend: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := computeLayout(tc.h, tc.lanes, tc.headerWant); got != tc.want {
				t.Errorf("computeLayout(%d, %d, %d) = %+v, want %+v", tc.h, tc.lanes, tc.headerWant, got, tc.want)
			}
		})
	}
}

func TestFmtDur(t *testing.T) {
	tests := []struct {
		s    float64
		want string
	}{
		{0.872, "872 ms"}, {0.0009997, "1.00 ms"}, {1.5e-6, "1.50 µs"}, {12.34, "12.3 s"},
		{4.31, "4.31 s"}, {0, "0 s"}, {-0.002, "-2.00 ms"}, {math.NaN(), "n/a"}, {math.Inf(1), "n/a"},
	}
	for _, tc := range tests {
		if got := fmtDur(tc.s); got != tc.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := fmtPct(0.12345); got != "12.3%" {
		t.Errorf("fmtPct(0.12345) = %q", got)
	}
}

func TestGPUList(t *testing.T) {
	tests := []struct {
		ids  []int
		want string
	}{
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, "0-7"},
		{[]int{0, 2, 4, 6}, "0,2,4,6"},
		{[]int{0, 1}, "0,1"},
		{[]int{0, 1, 2, 5, 6, 7, 9}, "0-2,5-7,9"},
		{[]int{3}, "3"},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := gpuList(tc.ids); got != tc.want {
			t.Errorf("gpuList(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}

func TestWrapParts(t *testing.T) {
	parts := []string{"aaa", "bbb", "ccc"}
	if got := wrapParts(parts, 100, 2); !reflect.DeepEqual(got, []string{"aaa · bbb · ccc"}) {
		t.Errorf("wide: %q", got)
	}
	// The last allowed line takes the rest, even past the width (View cuts it).
	if got := wrapParts(parts, 7, 2); !reflect.DeepEqual(got, []string{"aaa", "bbb · ccc"}) {
		t.Errorf("narrow: %q", got)
	}
	if got := wrapParts(parts, 7, 3); !reflect.DeepEqual(got, []string{"aaa", "bbb", "ccc"}) {
		t.Errorf("three lines: %q", got)
	}
}

func TestSpeedText(t *testing.T) {
	for _, tc := range []struct {
		exp  int
		long bool
		want string
	}{{0, true, "×1 (8 s per step)"}, {2, true, "×4 (2 s per step)"}, {-1, true, "×1/2 (16 s per step)"}, {3, false, "×8"}} {
		if got := speedText(tc.exp, tc.long); got != tc.want {
			t.Errorf("speedText(%d, %v) = %q, want %q", tc.exp, tc.long, got, tc.want)
		}
	}
}
