package compare

import (
	"slices"
	"testing"

	"github.com/splitscope/splitscope/tui/common"
)

func TestColumns(t *testing.T) {
	cases := []struct {
		name             string
		w, label, n, min int
		wantLabel        int
		wantCols         []int
	}{
		{"roomy", 56, 10, 3, 8, 10, []int{15, 14, 14}},
		{"even", 43, 10, 3, 8, 10, []int{10, 10, 10}},
		{"label shrinks", 30, 10, 3, 8, 3, []int{8, 8, 8}},
		{"too narrow for anything", 5, 10, 3, 8, 1, []int{1, 0, 0}},
		{"no columns", 20, 30, 0, 8, 20, nil},
		{"zero width", 0, 10, 3, 8, 1, []int{0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, cols := columns(tc.w, tc.label, tc.n, tc.min)
			if l != tc.wantLabel || !slices.Equal(cols, tc.wantCols) {
				t.Fatalf("columns(%d, %d, %d, %d) = %d, %v; want %d, %v", tc.w, tc.label, tc.n, tc.min, l, cols, tc.wantLabel, tc.wantCols)
			}
		})
	}
	// Label, gaps and columns never exceed the width once it holds one cell per column.
	for w := 0; w <= 200; w++ {
		l, cols := columns(w, 10, 3, 8)
		sum := l + len(cols)
		for _, c := range cols {
			sum += c
		}
		if w >= 4 && sum > w {
			t.Fatalf("columns(%d): label %d + cols %v + gaps = %d", w, l, cols, sum)
		}
	}
}

func TestWinners(t *testing.T) {
	all := []bool{true, true, true}
	cases := []struct {
		name  string
		vals  []float64
		ok    []bool
		lower bool
		want  []bool
		shown []string
	}{
		{"lowest", []float64{3, 1, 2}, all, true, []bool{false, true, false}, nil},
		{"highest", []float64{3, 1, 2}, all, false, []bool{true, false, false}, nil},
		{"infeasible cannot win", []float64{3, 1, 2}, []bool{true, false, true}, true, []bool{false, false, true}, nil},
		{"tie for best", []float64{1, 1, 2}, all, true, []bool{true, true, false}, nil},
		{"all tie: nobody", []float64{0, 0, 0}, all, true, []bool{false, false, false}, nil},
		{"near tie counts", []float64{1, 1 + 1e-12, 2}, all, true, []bool{true, true, false}, nil},
		{"only one feasible wins", []float64{5, 1, 2}, []bool{true, false, false}, true, []bool{true, false, false}, nil},
		{"none feasible", []float64{5, 1, 2}, []bool{false, false, false}, true, []bool{false, false, false}, nil},
		{"NaN ignored", []float64{nan(), 4, 2}, all, true, []bool{false, false, true}, nil},
		{"short ok slice", []float64{1, 2, 3}, []bool{true}, false, []bool{true, false, false}, nil},
		// Ties follow what the screen shows: 71.68 and 71.69 GiB both read "71.7 GiB".
		{"tie as displayed", []float64{71.69, 71.68, 80}, all, true, []bool{true, true, false}, []string{"71.7 GiB", "71.7 GiB", "80.0 GiB"}},
		{"displayed apart", []float64{71.69, 71.68, 80}, all, true, []bool{false, true, false}, []string{"71.7 GiB", "71.6 GiB", "80.0 GiB"}},
		{"tie as displayed, not of the best", []float64{1, 2, 2.01}, all, true, []bool{true, false, false}, []string{"1", "2.0", "2.0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := common.Winners(tc.vals, tc.ok, tc.lower, tc.shown); !slices.Equal(got, tc.want) {
				t.Fatalf("common.Winners(%v, %v, lower=%v) = %v, want %v", tc.vals, tc.ok, tc.lower, got, tc.want)
			}
		})
	}
}

func pts(tp, pp []float64) []common.CrossPoint {
	out := make([]common.CrossPoint, len(tp))
	for i := range tp {
		out[i] = common.CrossPoint{Micro: 1 << i, TP: tp[i], PP: pp[i]}
	}
	return out
}

func TestCrossovers(t *testing.T) {
	cases := []struct {
		name     string
		tp, pp   []float64
		want     []Crossing
		sentence string
	}{
		{"PP overtakes at 16", []float64{30, 30, 30, 30, 30, 30, 30, 30}, []float64{7, 12, 20, 29, 38, 44, 49, 51},
			[]Crossing{{Index: 4, Micro: 16, PPWon: true}}, "PP-only overtakes TP-only from m = 16"},
		{"TP ahead throughout", []float64{9, 9, 9, 9}, []float64{1, 2, 3, 4}, nil, "no crossover in 1…8: TP-only ahead throughout"},
		{"PP ahead throughout", []float64{1, 1, 1}, []float64{2, 3, 4}, nil, "no crossover in 1…4: PP-only ahead throughout"},
		{"tie keeps the leader", []float64{5, 5, 5}, []float64{4, 5, 6}, []Crossing{{Index: 2, Micro: 4, PPWon: true}},
			"PP-only overtakes TP-only from m = 4"},
		{"missing points skipped", []float64{5, 5, 0, 5}, []float64{4, 0, 6, 6}, []Crossing{{Index: 3, Micro: 8, PPWon: true}},
			"PP-only overtakes TP-only from m = 8"},
		{"TP overtakes", []float64{1, 2, 9}, []float64{3, 3, 3}, []Crossing{{Index: 2, Micro: 4}},
			"TP-only overtakes PP-only from m = 4"},
		{"there and back", []float64{5, 5, 5, 5}, []float64{4, 6, 6, 4}, []Crossing{{Index: 1, Micro: 2, PPWon: true}, {Index: 3, Micro: 8}},
			"PP-only overtakes TP-only from m = 2; TP-only back ahead from m = 8"},
		{"only TP runs", []float64{5, 5}, []float64{0, 0}, nil, "no crossover in 1…2: only TP-only runs"},
		{"only PP runs", []float64{0, 0}, []float64{5, 5}, nil, "no crossover in 1…2: only PP-only runs"},
		{"nothing runs", []float64{0, 0}, []float64{0, 0}, nil, "no crossover in 1…2: neither fits at any m"},
		{"never both at once", []float64{5, 0}, []float64{0, 5}, nil, "no crossover in 1…2"},
		{"no points", nil, nil, nil, "no data"},
		// A claim holds only where both layouts fit (issue 18: "PP-only overtakes TP-only from
		// m = 8" where PP-only no longer fits from m = 16).
		{"overtakes until it no longer fits", []float64{30, 30, 30, 30, 30, 30}, []float64{10, 20, 28, 40, 0, 0},
			[]Crossing{{Index: 3, Micro: 8, PPWon: true}}, "PP-only overtakes TP-only from m = 8, until it no longer fits at m = 16"},
		{"overtakes, the other no longer fits", []float64{1, 2, 9, 9}, []float64{3, 3, 3, 0}, []Crossing{{Index: 2, Micro: 4}},
			"TP-only overtakes PP-only from m = 4; PP-only no longer fits from m = 8"},
		{"ahead until it no longer fits", []float64{9, 9, 0}, []float64{1, 2, 3}, nil, "no crossover in 1…4: TP-only ahead until it no longer fits at m = 4"},
		{"ahead, the other no longer fits", []float64{9, 9, 9}, []float64{1, 2, 0}, nil, "no crossover in 1…4: TP-only ahead; PP-only no longer fits from m = 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := pts(tc.tp, tc.pp)
			if got := crossovers(p); !slices.Equal(got, tc.want) {
				t.Errorf("crossovers = %+v, want %+v", got, tc.want)
			}
			if got := crossSentence(p); got != tc.sentence {
				t.Errorf("crossSentence = %q, want %q", got, tc.sentence)
			}
		})
	}
}

func TestNiceScale(t *testing.T) {
	cases := []struct {
		max       float64
		ticks     int
		top, step float64
	}{
		{270, 8, 300, 50},
		{51506, 8, 60000, 10000},
		{51506, 2, 100000, 50000}, // 25000 would need a third interval
		{1, 4, 1, 0.25},
		{0.9, 3, 1, 0.5},
		{0, 5, 1, 1},
		{-3, 5, 1, 1},
		{1e6, 1, 1e6, 1e6},
		{7, 0, 10, 10},
	}
	for _, tc := range cases {
		top, step := niceScale(tc.max, tc.ticks)
		if !common.Same(top, tc.top) || !common.Same(step, tc.step) {
			t.Errorf("niceScale(%v, %d) = %v, %v; want %v, %v", tc.max, tc.ticks, top, step, tc.top, tc.step)
		}
		if tc.max > 0 && (top < tc.max || top/step > float64(max(tc.ticks, 1))+1e-9) {
			t.Errorf("niceScale(%v, %d) = %v, %v: top below max or too many ticks", tc.max, tc.ticks, top, step)
		}
	}
}

func TestXPositions(t *testing.T) {
	cases := []struct {
		n, width int
		want     []int
	}{
		{8, 15, []int{0, 2, 4, 6, 8, 10, 12, 14}},
		{8, 100, []int{0, 14, 28, 42, 57, 71, 85, 99}},
		{3, 5, []int{0, 2, 4}},
		{1, 9, []int{4}},
		{0, 9, []int{}},
		{4, 1, []int{0, 0, 0, 0}},
	}
	for _, tc := range cases {
		if got := xPositions(tc.n, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("xPositions(%d, %d) = %v, want %v", tc.n, tc.width, got, tc.want)
		}
	}
}

func TestPlaceLabels(t *testing.T) {
	cases := []struct {
		name   string
		pos    []int
		labels []string
		width  int
		want   string
	}{
		{"spread", []int{0, 5, 10}, []string{"1", "16", "128"}, 12, "1    16  128"},
		{"crowded: skip", []int{0, 2, 4, 6}, []string{"16", "32", "64", "128"}, 8, "16  64"},
		{"off the edge", []int{0, 4}, []string{"1", "128"}, 5, "1"},
		{"centred", []int{3}, []string{"abc"}, 7, "  abc"},
		{"none", nil, nil, 4, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := placeLabels(tc.pos, tc.labels, tc.width); got != tc.want {
				t.Fatalf("placeLabels = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValueRow(t *testing.T) {
	cases := []struct {
		v, top float64
		rows   int
		want   int
	}{
		{0, 100, 11, 10},
		{100, 100, 11, 0},
		{50, 100, 11, 5},
		{120, 100, 11, 0}, // clipped
		{-5, 100, 11, 10},
		{50, 0, 11, 10},
		{50, 100, 1, 0},
		{50, 100, 0, 0},
	}
	for _, tc := range cases {
		if got := valueRow(tc.v, tc.top, tc.rows); got != tc.want {
			t.Errorf("valueRow(%v, %v, %d) = %d, want %d", tc.v, tc.top, tc.rows, got, tc.want)
		}
	}
}

func TestShort(t *testing.T) {
	cases := map[float64]string{0: "0", 50: "50", 37.6: "37.6", 166: "166", 2500: "2.5k", 12500: "12.5k", 30000: "30k",
		51506: "51.5k", 1.2e6: "1.2M", 3e9: "3G"}
	for v, want := range cases {
		if got := short(v); got != want {
			t.Errorf("short(%v) = %q, want %q", v, got, want)
		}
	}
}

func nan() float64 { var z float64; return z / z }
