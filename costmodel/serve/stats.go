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
	// Throughput over the run's duration (time 0 to the last token).
	RequestsPerS, OutputTokensPerS, TotalTokensPerS float64
}

// Summarize turns a run into its figures.
func Summarize(reqs []Request, r Result) Stats {
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
