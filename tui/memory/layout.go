package memory

import (
	"math"
	"sort"
)

// apportion splits cells among parts in proportion to their sizes so that the widths sum to
// exactly cells (largest remainder). When there are at least as many cells as non-zero parts,
// every non-zero part gets at least one cell, taken from the widest, so that a small part (the
// reserve, a KV cache) is never invisible.
func apportion(parts []float64, cells int) []int {
	out := make([]int, len(parts))
	if cells <= 0 || len(parts) == 0 {
		return out
	}
	total, nonzero := 0.0, 0
	for _, p := range parts {
		if p > 0 && !math.IsInf(p, 0) {
			total += p
			nonzero++
		}
	}
	if !(total > 0) {
		return out
	}
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, 0, len(parts))
	used := 0
	for i, p := range parts {
		if !(p > 0) || math.IsInf(p, 0) {
			continue
		}
		exact := p / total * float64(cells)
		out[i] = int(exact)
		used += out[i]
		rems = append(rems, rem{i, exact - float64(out[i])})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; used < cells; k++ {
		out[rems[k%len(rems)].i]++
		used++
	}
	if cells >= nonzero {
		for i, p := range parts {
			if p > 0 && !math.IsInf(p, 0) && out[i] == 0 {
				widest := 0
				for j := range out {
					if out[j] > out[widest] {
						widest = j
					}
				}
				out[widest]--
				out[i]++
			}
		}
	}
	return out
}

// cellsFor is how many of width cells a value takes on a scale running to scale.
func cellsFor(v, scale float64, width int) int {
	if !(v > 0) || !(scale > 0) || width <= 0 {
		return 0
	}
	return min(int(math.Round(v/scale*float64(width))), width)
}

// foldRows chooses which of n stages to show in rows lines: all of them when they fit, else
// the first and last ones around a fold (-1) that stands for the stages left out, always keeping
// stage keep visible (with a second fold when it lies in the middle).
func foldRows(n, rows, keep int) []int {
	if n <= 0 || rows <= 0 {
		return nil
	}
	keep = min(max(keep, 0), n-1)
	if n <= rows {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	switch rows {
	case 1:
		return []int{keep}
	case 2:
		if keep == 0 {
			return []int{0, -1}
		}
		return []int{-1, keep}
	}
	shown := rows - 1
	head := (shown + 1) / 2
	tail := shown - head
	if keep < head || keep >= n-tail {
		return span(0, head, n-tail, n)
	}
	shown = rows - 3 // two folds and the kept stage
	head = (shown + 1) / 2
	tail = shown - head
	out := make([]int, 0, rows)
	for i := range head {
		out = append(out, i)
	}
	out = append(out, -1, keep, -1)
	for i := n - tail; i < n; i++ {
		out = append(out, i)
	}
	return out
}

// span lists a…b-1 and c…d-1 with a fold between them (when both are non-empty).
func span(a, b, c, d int) []int {
	out := make([]int, 0, b-a+d-c+1)
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	if d > c {
		out = append(out, -1)
		for i := c; i < d; i++ {
			out = append(out, i)
		}
	}
	return out
}

// foldedCount is how many stages the fold at index i of rows stands for.
func foldedCount(rows []int, i, n int) int {
	prev, next := -1, n
	for j := i - 1; j >= 0; j-- {
		if rows[j] >= 0 {
			prev = rows[j]
			break
		}
	}
	for j := i + 1; j < len(rows); j++ {
		if rows[j] >= 0 {
			next = rows[j]
			break
		}
	}
	return max(next-prev-1, 0)
}
