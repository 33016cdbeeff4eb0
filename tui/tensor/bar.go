package tensor

import (
	"math"
	"sort"
)

// segmentCols shares cols columns among segments in proportion to their durations, so that a bar
// is drawn to scale: largest remainders get the spare columns, every nonzero segment gets at
// least one column while there are enough, and the result sums to cols exactly (0 when nothing
// is nonzero). With fewer columns than nonzero segments the longest ones get one each.
func segmentCols(durs []float64, cols int) []int {
	out := make([]int, len(durs))
	if cols <= 0 {
		return out
	}
	total := 0.0
	var nz []int
	for i, d := range durs {
		if d > 0 && !math.IsInf(d, 0) {
			total += d
			nz = append(nz, i)
		}
	}
	if len(nz) == 0 || total <= 0 || math.IsInf(total, 0) {
		return out
	}
	if cols < len(nz) {
		sort.SliceStable(nz, func(a, b int) bool { return durs[nz[a]] > durs[nz[b]] })
		for _, i := range nz[:cols] {
			out[i] = 1
		}
		return out
	}
	ideal := make([]float64, len(durs))
	sum := 0
	for _, i := range nz {
		ideal[i] = durs[i] / total * float64(cols)
		out[i] = max(1, int(math.Floor(ideal[i])))
		sum += out[i]
	}
	// Too many (minimums pushed it over): take from those furthest above their share.
	for sum > cols {
		best := -1
		for _, i := range nz {
			if out[i] > 1 && (best < 0 || float64(out[i])-ideal[i] > float64(out[best])-ideal[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out[best]--
		sum--
	}
	// Too few: give to those furthest below their share (largest remainder; first wins ties).
	for sum < cols {
		best := nz[0]
		for _, i := range nz[1:] {
			if ideal[i]-float64(out[i]) > ideal[best]-float64(out[best]) {
				best = i
			}
		}
		out[best]++
		sum++
	}
	return out
}

// barCols is the width of a bar lasting total when maxTotal fills width; at least 1 for a
// nonzero total.
func barCols(total, maxTotal float64, width int) int {
	if width <= 0 || !(total > 0) || !(maxTotal > 0) || math.IsInf(maxTotal, 0) {
		return 0
	}
	c := int(math.Round(min(total/maxTotal, 1) * float64(width)))
	return max(1, min(c, width))
}

// niceStep is the smallest 1-2-5 × 10^k step that cuts span into at most maxTicks intervals.
func niceStep(span float64, maxTicks int) float64 {
	if !(span > 0) || math.IsInf(span, 0) || maxTicks < 1 {
		return 0
	}
	raw := span / float64(maxTicks)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// center is the offset that centres a text of width n in a span of width w (0 if it does not fit).
func center(n, w int) int { return max(0, (w-n)/2) }
