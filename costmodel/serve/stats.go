package serve

import (
	"math"
	"slices"
)

// Stats are the figures a serving benchmark prints (vLLM's benchmark_serving: percentiles by
// linear interpolation between order statistics, as numpy's percentile does).
type Stats struct {
	Completed, Rejected                 int
	TTFTMean, TTFTP50, TTFTP90, TTFTP99 float64
	// TPOT per request: (last token − first token) / (generated − 1), over requests that
	// generated at least two tokens.
	TPOTMean, TPOTP50, TPOTP90, TPOTP99 float64
	E2EMean, E2EP50, E2EP90, E2EP99     float64
	// ITL: every gap between two tokens of a request, each gap counted once (vLLM's
	// benchmark_serving's ITL), with Config.ITL; 0 without. TPOT weighs each request once (its
	// mean gap); ITL weighs each token, and its tail shows the steps a prefill chunk slowed.
	ITLMean, ITLP50, ITLP90, ITLP99 float64
	// Throughput over the run's duration (time 0 to the last token).
	RequestsPerS, OutputTokensPerS, TotalTokensPerS float64
}

// Summarize turns a run into its figures.
func Summarize(reqs []Request, r Result) Stats {
	s := summarize(reqs, r)
	if len(r.ITL.Gap) > 0 {
		group := make([]int32, len(reqs))
		for i := range group {
			if i < len(r.Rejected) && r.Rejected[i] {
				group[i] = -1
			}
		}
		d := GapStats(r.ITL, group, 1)[0]
		s.ITLMean, s.ITLP50, s.ITLP90, s.ITLP99 = d.Mean, d.P50, d.P90, d.P99
	}
	return s
}

func summarize(reqs []Request, r Result) Stats {
	var s Stats
	ttft := make([]float64, 0, len(reqs))
	tpot := make([]float64, 0, len(reqs))
	e2e := make([]float64, 0, len(reqs))
	var out, total float64
	for i, q := range reqs {
		if i >= len(r.Done) || r.Rejected[i] {
			s.Rejected++
			continue
		}
		s.Completed++
		ttft = append(ttft, r.FirstToken[i]-r.Arrival[i])
		e2e = append(e2e, r.Done[i]-r.Arrival[i])
		if q.Gen > 1 {
			tpot = append(tpot, (r.Done[i]-r.FirstToken[i])/float64(q.Gen-1))
		}
		out += float64(q.Gen)
		total += float64(q.Prompt + q.Gen)
	}
	s.TTFTMean, s.TTFTP50, s.TTFTP90, s.TTFTP99 = moments(ttft)
	s.TPOTMean, s.TPOTP50, s.TPOTP90, s.TPOTP99 = moments(tpot)
	s.E2EMean, s.E2EP50, s.E2EP90, s.E2EP99 = moments(e2e)
	if r.Duration > 0 {
		s.RequestsPerS = float64(s.Completed) / r.Duration
		s.OutputTokensPerS = out / r.Duration
		s.TotalTokensPerS = total / r.Duration
	}
	return s
}

func moments(x []float64) (mean, p50, p90, p99 float64) {
	if len(x) == 0 {
		return 0, 0, 0, 0
	}
	slices.Sort(x)
	var sum float64
	for _, v := range x {
		sum += v
	}
	return sum / float64(len(x)), Percentile(x, 50), Percentile(x, 90), Percentile(x, 99)
}

// Percentile of sorted values, q in [0, 100], interpolating linearly between order statistics.
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := q / 100 * float64(n-1)
	pos = math.Max(0, math.Min(pos, float64(n-1)))
	lo := int(math.Floor(pos))
	hi := min(lo+1, n-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Dist is a mean and percentiles of N values.
type Dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// GapStats is the distribution of the inter-token gaps of each group: group[id] is request id's
// group, 0 to k−1 (−1 or out of range: none). Percentiles interpolate between order statistics as
// Percentile does over the gaps laid out one by one.
func GapStats(g Gaps, group []int32, k int) []Dist {
	out := make([]Dist, max(k, 0))
	if k <= 0 || len(g.Gap) == 0 {
		return out
	}
	order := make([]int32, len(g.Gap))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case g.Gap[a] < g.Gap[b]:
			return -1
		case g.Gap[a] > g.Gap[b]:
			return 1
		}
		return 0
	})
	// Each group's gaps in increasing order, as (gap, count) entries.
	type entry struct {
		gap float64
		n   int
	}
	lists := make([][]entry, k)
	counts := make([]int, k)
	var touched []int32
	for _, run := range order {
		lo, hi := int(g.Off[run]), len(g.IDs)
		if int(run)+1 < len(g.Off) {
			hi = int(g.Off[run+1])
		}
		for _, id := range g.IDs[lo:hi] {
			if int(id) >= len(group) {
				continue
			}
			gr := group[id]
			if gr < 0 || int(gr) >= k {
				continue
			}
			if counts[gr] == 0 {
				touched = append(touched, gr)
			}
			counts[gr]++
		}
		for _, gr := range touched {
			lists[gr] = append(lists[gr], entry{g.Gap[run], counts[gr]})
			counts[gr] = 0
		}
		touched = touched[:0]
	}
	for gr, l := range lists {
		var n int
		var sum float64
		for _, e := range l {
			n += e.n
			sum += e.gap * float64(e.n)
		}
		if n == 0 {
			continue
		}
		// at is the i-th smallest gap (from 0).
		at := func(i int) float64 {
			for _, e := range l {
				if i < e.n {
					return e.gap
				}
				i -= e.n
			}
			return l[len(l)-1].gap
		}
		pct := func(q float64) float64 {
			pos := q / 100 * float64(n-1)
			lo := int(math.Floor(pos))
			a, b := at(lo), at(min(lo+1, n-1))
			return a + (b-a)*(pos-float64(lo))
		}
		out[gr] = Dist{N: n, Mean: sum / float64(n), P50: pct(50), P90: pct(90), P99: pct(99)}
	}
	return out
}
