package tensor

import (
	"math"
	"testing"
)

func TestPhaseOf(t *testing.T) {
	tests := []struct {
		name  string
		k, t  int
		phase Phase
		i     int
	}{
		{"first step", 0, 8, ReduceScatter, 0},
		{"last reduce-scatter", 6, 8, ReduceScatter, 6},
		{"first all-gather", 7, 8, AllGather, 0},
		{"last all-gather", 13, 8, AllGather, 6},
		{"finished", 14, 8, Done, 0},
		{"past the end", 20, 8, Done, 0},
		{"two GPUs: one step each", 1, 2, AllGather, 0},
		{"two GPUs done", 2, 2, Done, 0},
		{"one GPU: nothing to do", 0, 1, Done, 0},
		{"negative step", -1, 4, ReduceScatter, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, i := phaseOf(tc.k, tc.t)
			if p != tc.phase || i != tc.i {
				t.Errorf("phaseOf(%d, %d) = %v, %d; want %v, %d", tc.k, tc.t, p, i, tc.phase, tc.i)
			}
		})
	}
	if got := ringSteps(8); got != 14 {
		t.Errorf("ringSteps(8) = %d, want 14", got)
	}
	if ReduceScatter.String() != "reduce-scatter" || AllGather.String() != "all-gather" || Done.String() != "done" {
		t.Error("phase names")
	}
}

func TestSentChunk(t *testing.T) {
	tests := []struct{ i, k, t, want int }{
		{0, 0, 8, 0}, // step 0: every GPU sends its own index
		{5, 0, 8, 5},
		{0, 2, 8, 6}, // (0−2) mod 8
		{3, 2, 8, 1},
		{0, 7, 8, 1}, // first all-gather step: GPU i sends its reduced chunk i+1
		{6, 7, 8, 7},
		{1, 13, 8, 4},
		{0, 1, 2, 1},
	}
	for _, tc := range tests {
		if got := sentChunk(tc.i, tc.k, tc.t); got != tc.want {
			t.Errorf("sentChunk(%d, %d, %d) = %d, want %d", tc.i, tc.k, tc.t, got, tc.want)
		}
	}
}

// TestRingSimulation runs the ring all-reduce step by step on explicit sets of contributions,
// with the brief's rules (reduce-scatter: GPU i sends chunk (i−s) mod t to GPU i+1, which adds
// it; all-gather: the receiver stores the reduced chunk), checks the invariants, and checks the
// closed form the view draws from.
func TestRingSimulation(t *testing.T) {
	for n := 1; n <= 17; n++ {
		// has[i][c][g]: chunk c on GPU i holds GPU g's share.
		has := make([][][]bool, n)
		for i := range has {
			has[i] = make([][]bool, n)
			for c := range has[i] {
				has[i][c] = make([]bool, n)
				has[i][c][i] = true
			}
		}
		count := func(v []bool) int {
			k := 0
			for _, b := range v {
				if b {
					k++
				}
			}
			return k
		}
		check := func(k int) {
			t.Helper()
			for i := 0; i < n; i++ {
				for c := 0; c < n; c++ {
					if got, want := chunkCount(i, c, k, n), count(has[i][c]); got != want {
						t.Fatalf("t=%d after %d steps: chunkCount(G%d, chunk %d) = %d, simulation %d", n, k, i, c, got, want)
					}
				}
			}
		}
		check(0)
		for k := 0; k < ringSteps(n); k++ {
			phase, _ := phaseOf(k, n)
			next := make([][][]bool, n)
			for i := range has {
				next[i] = make([][]bool, n)
				for c := range has[i] {
					next[i][c] = append([]bool(nil), has[i][c]...)
				}
			}
			for i := 0; i < n; i++ {
				c := sentChunk(i, k, n)
				j := (i + 1) % n
				if phase == ReduceScatter && k < n-1 && c != mod(i-k, n) {
					t.Fatalf("t=%d step %d: G%d sends chunk %d, want (i−s) mod t = %d", n, k, i, c, mod(i-k, n))
				}
				for g := 0; g < n; g++ {
					switch phase {
					case ReduceScatter:
						if has[i][c][g] && has[j][c][g] {
							t.Fatalf("t=%d step %d: G%d's share counted twice in chunk %d on G%d", n, k, g, c, j)
						}
						next[j][c][g] = has[j][c][g] || has[i][c][g]
					case AllGather:
						if !has[i][c][g] {
							t.Fatalf("t=%d step %d: G%d forwards chunk %d before it is reduced", n, k, i, c)
						}
						next[j][c][g] = true
					default:
						t.Fatalf("t=%d step %d: phase %v inside the ring", n, k, phase)
					}
				}
			}
			has = next
			check(k + 1)
			if k+1 == n-1 { // end of reduce-scatter
				for i := 0; i < n; i++ {
					if c := (i + 1) % n; count(has[i][c]) != n {
						t.Fatalf("t=%d: after reduce-scatter G%d's chunk %d has %d of %d shares", n, i, c, count(has[i][c]), n)
					}
				}
			}
		}
		for i := 0; i < n; i++ {
			for c := 0; c < n; c++ {
				if count(has[i][c]) != n {
					t.Fatalf("t=%d: after %d steps G%d's chunk %d has %d of %d shares", n, ringSteps(n), i, c, count(has[i][c]), n)
				}
			}
		}
	}
}

func TestWallSeconds(t *testing.T) {
	tests := []struct {
		name     string
		modelled float64
		want     float64
	}{
		{"100 µs is 2 s", 100e-6, 2},
		{"NVLink 4, 33.6 MB: 260 µs", 260e-6, 2 * math.Sqrt(2.6)},
		{"PCIe 4: 2.45 ms is capped", 2.45e-3, 8},
		{"tiny is floored", 1e-6, 0.5},
		{"zero", 0, 0.5},
		{"NaN", math.NaN(), 0.5},
		{"Inf", math.Inf(1), 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := wallSeconds(tc.modelled); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("wallSeconds(%g) = %g, want %g", tc.modelled, got, tc.want)
			}
		})
	}
	if !(wallSeconds(2.45e-3) > wallSeconds(260e-6)) {
		t.Error("a slower link must play slower")
	}
}

func TestRingSlots(t *testing.T) {
	tests := []struct {
		n    int
		want []slot
	}{
		{0, nil},
		{2, []slot{{0, 0}, {1, 0}}},
		{3, []slot{{0, 0}, {0, 1}, {1, 1}}},
		{5, []slot{{0, 0}, {0, 1}, {0, 2}, {1, 2}, {1, 1}}},
		{8, []slot{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 3}, {1, 2}, {1, 1}, {1, 0}}},
	}
	for _, tc := range tests {
		got := ringSlots(tc.n)
		if len(got) != len(tc.want) {
			t.Fatalf("ringSlots(%d) = %v, want %v", tc.n, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("ringSlots(%d) = %v, want %v", tc.n, got, tc.want)
				break
			}
		}
	}
	// Neighbours sit next to each other: along a row, or at a row's end.
	for n := 2; n <= 16; n++ {
		s := ringSlots(n)
		for d := 0; d+1 < n; d++ {
			a, b := s[d], s[d+1]
			if a.row == b.row && abs(a.col-b.col) != 1 || a.row != b.row && a.col != b.col {
				t.Errorf("n=%d: G%d at %v and G%d at %v are not neighbours", n, d, a, d+1, b)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestNodeIDs(t *testing.T) {
	if got := nodeIDs(8); len(got) != 8 || got[7] != 7 {
		t.Errorf("nodeIDs(8) = %v", got)
	}
	got := nodeIDs(32)
	if len(got) != shownNodes || got[14] != 14 || got[15] != 31 {
		t.Errorf("nodeIDs(32) = %v, want 0…14 and 31", got)
	}
	if len(nodeIDs(0)) != 0 || len(nodeIDs(-3)) != 0 {
		t.Error("nodeIDs of no GPUs")
	}
}

func TestLevelGlyph(t *testing.T) {
	tests := []struct {
		shares float64
		t      int
		want   rune
	}{
		{1, 8, '▁'}, {2, 8, '▂'}, {7, 8, '▇'}, {8, 8, '█'},
		{1, 2, '▁'}, {2, 2, '█'},
		{15.9, 16, '▇'}, // not reduced: never full
		{1, 1, '█'},
	}
	for _, tc := range tests {
		if got := levelGlyph(tc.shares, tc.t); got != tc.want {
			t.Errorf("levelGlyph(%g, %d) = %c, want %c", tc.shares, tc.t, got, tc.want)
		}
	}
}
