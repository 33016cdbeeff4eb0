package common

import "math"

// Winners marks the best of vals among those with ok set: the lowest when lowerBetter, else the
// highest. A value ties with the best when it is equal to within a relative 1e-9 or when it reads
// the same on screen (shown, where given: "71.7 GiB" and "71.7 GiB" are a tie however their bytes
// differ), and every tie for the best is marked; when every candidate ties, none is (the mark
// would tell nothing). Compare's tab and the Markdown export mark their tables with it.
func Winners(vals []float64, ok []bool, lowerBetter bool, shown []string) []bool {
	out := make([]bool, len(vals))
	bi := -1
	count := 0
	for i, v := range vals {
		if i >= len(ok) || !ok[i] || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		count++
		if bi < 0 || (lowerBetter && v < vals[bi]) || (!lowerBetter && v > vals[bi]) {
			bi = i
		}
	}
	if count == 0 {
		return out
	}
	label := func(i int) string {
		if i < len(shown) {
			return shown[i]
		}
		return ""
	}
	marked := 0
	for i, v := range vals {
		if i >= len(ok) || !ok[i] || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if Same(v, vals[bi]) || label(i) != "" && label(i) == label(bi) {
			out[i] = true
			marked++
		}
	}
	if count > 1 && marked == count {
		return make([]bool, len(vals))
	}
	return out
}

// Same reports whether a and b are equal to within a relative 1e-9.
func Same(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
