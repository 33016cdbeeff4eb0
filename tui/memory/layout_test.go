package memory

import (
	"slices"
	"testing"
)

func TestApportion(t *testing.T) {
	cases := []struct {
		name  string
		parts []float64
		cells int
		want  []int
	}{
		{"empty", nil, 10, []int{}},
		{"no cells", []float64{1, 2}, 0, []int{0, 0}},
		{"all zero", []float64{0, 0, 0}, 5, []int{0, 0, 0}},
		{"exact", []float64{1, 1, 2}, 8, []int{2, 2, 4}},
		{"largest remainder", []float64{1, 1, 1}, 10, []int{4, 3, 3}},
		{"small part kept visible", []float64{98, 1, 1}, 10, []int{8, 1, 1}},
		{"too few cells for every part", []float64{98, 1, 1}, 2, []int{2, 0, 0}},
		{"zeros stay empty", []float64{3, 0, 1}, 4, []int{3, 0, 1}},
		{"negative ignored", []float64{-5, 2, 2}, 4, []int{0, 2, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := apportion(tc.parts, tc.cells)
			if len(got) != len(tc.want) || !slices.Equal(got, tc.want) && len(tc.want) > 0 {
				t.Fatalf("apportion(%v, %d) = %v, want %v", tc.parts, tc.cells, got, tc.want)
			}
		})
	}
}

// TestApportionSums checks that the widths always fill the bar exactly.
func TestApportionSums(t *testing.T) {
	parts := [][]float64{
		{49.3, 32.9, 65.7, 33.2, 0, 1},
		{16.9, 0, 0, 0.5, 0.4, 1},
		{1e-9, 1e9, 3, 0, 0, 7},
		{1, 2, 3, 4, 5, 6},
	}
	for _, p := range parts {
		for cells := 0; cells <= 250; cells++ {
			got := apportion(p, cells)
			sum := 0
			for _, w := range got {
				if w < 0 {
					t.Fatalf("apportion(%v, %d) = %v: negative width", p, cells, got)
				}
				sum += w
			}
			if sum != cells {
				t.Fatalf("apportion(%v, %d) = %v sums to %d", p, cells, got, sum)
			}
		}
	}
}

func TestCellsFor(t *testing.T) {
	cases := []struct {
		v, scale float64
		width    int
		want     int
	}{
		{50, 100, 40, 20},
		{100, 100, 40, 40},
		{150, 100, 40, 40}, // clipped
		{0, 100, 40, 0},
		{10, 0, 40, 0},
		{10, 100, 0, 0},
		{1.2, 100, 40, 0},
		{1.3, 100, 40, 1},
	}
	for _, tc := range cases {
		if got := cellsFor(tc.v, tc.scale, tc.width); got != tc.want {
			t.Errorf("cellsFor(%v, %v, %d) = %d, want %d", tc.v, tc.scale, tc.width, got, tc.want)
		}
	}
}

func TestFoldRows(t *testing.T) {
	cases := []struct {
		name          string
		n, rows, keep int
		want          []int
	}{
		{"none", 0, 5, 0, nil},
		{"no room", 5, 0, 0, nil},
		{"all fit", 4, 6, 2, []int{0, 1, 2, 3}},
		{"exact fit", 4, 4, 3, []int{0, 1, 2, 3}},
		{"fold, keep in head", 10, 5, 1, []int{0, 1, -1, 8, 9}},
		{"fold, keep in tail", 10, 5, 8, []int{0, 1, -1, 8, 9}},
		{"two folds around a middle stage", 10, 5, 5, []int{0, -1, 5, -1, 9}},
		{"two folds, even rows", 20, 8, 10, []int{0, 1, 2, -1, 10, -1, 18, 19}},
		{"three rows, middle", 10, 3, 5, []int{-1, 5, -1}},
		{"four rows, middle", 10, 4, 5, []int{0, -1, 5, -1}},
		{"one row", 10, 1, 7, []int{7}},
		{"two rows, first", 10, 2, 0, []int{0, -1}},
		{"two rows, later", 10, 2, 6, []int{-1, 6}},
		{"keep out of range", 10, 5, 99, []int{0, 1, -1, 8, 9}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := foldRows(tc.n, tc.rows, tc.keep)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("foldRows(%d, %d, %d) = %v, want %v", tc.n, tc.rows, tc.keep, got, tc.want)
			}
		})
	}
}

// TestFoldRowsProperties: never more lines than rows, stages ascending, the kept one shown, and
// the folds account for every stage left out.
func TestFoldRowsProperties(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for rows := 1; rows <= 45; rows++ {
			for keep := 0; keep < n; keep++ {
				got := foldRows(n, rows, keep)
				if len(got) > rows {
					t.Fatalf("foldRows(%d, %d, %d) = %v: %d lines", n, rows, keep, got, len(got))
				}
				if !slices.Contains(got, keep) {
					t.Fatalf("foldRows(%d, %d, %d) = %v: stage %d missing", n, rows, keep, got, keep)
				}
				shown, last := 0, -1
				for i, r := range got {
					if r < 0 {
						continue
					}
					if r <= last {
						t.Fatalf("foldRows(%d, %d, %d) = %v: not ascending at %d", n, rows, keep, got, i)
					}
					last = r
					shown++
				}
				if rows >= 3 {
					folded := 0
					for i, r := range got {
						if r < 0 {
							c := foldedCount(got, i, n)
							if c == 0 {
								t.Fatalf("foldRows(%d, %d, %d) = %v: empty fold at %d", n, rows, keep, got, i)
							}
							folded += c
						}
					}
					if shown+folded != n {
						t.Fatalf("foldRows(%d, %d, %d) = %v: %d shown + %d folded ≠ %d", n, rows, keep, got, shown, folded, n)
					}
				}
			}
		}
	}
}

func TestRulerText(t *testing.T) {
	cases := []struct {
		name       string
		width, col int
		texts      []string
		want       string
	}{
		{"left of the line", 30, 25, []string{"capacity 80 GiB"}, "0        capacity 80 GiB ┐"},
		{"no room for 0", 18, 17, []string{"capacity 80 GiB"}, " capacity 80 GiB ┐"},
		{"right of the line", 30, 4, []string{"capacity 80 GiB"}, "    ┌ capacity 80 GiB"},
		{"shorter text", 14, 4, []string{"capacity 80 GiB", "80 GiB"}, "    ┌ 80 GiB"},
		{"nothing fits", 6, 3, []string{"capacity 80 GiB"}, "   ┐"},
		{"column outside", 10, 10, []string{"x"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := rulerText(tc.width, tc.col, tc.texts...); got != tc.want {
				t.Fatalf("rulerText(%d, %d, %q) = %q, want %q", tc.width, tc.col, tc.texts, got, tc.want)
			}
		})
	}
}

func TestThickness(t *testing.T) {
	cases := []struct{ n, rows, want int }{
		{0, 10, 0},
		{4, 7, 0},  // one bar line + detail each needs 4·2 + 3 = 11
		{4, 11, 1}, // exactly
		{4, 15, 2},
		{4, 40, 2}, // capped
		{1, 2, 1},
		{1, 1, 0},
	}
	for _, tc := range cases {
		if got := thickness(tc.n, tc.rows); got != tc.want {
			t.Errorf("thickness(%d, %d) = %d, want %d", tc.n, tc.rows, got, tc.want)
		}
	}
}
