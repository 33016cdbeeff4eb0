package static

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// AgainstRun is one benchmark run of validate --against: the file (file:line for a run of a
// JSON Lines file), the scenario it was served as, and each figure measured beside the model's.
// Its JSON form is {"file", "metrics"}.
type AgainstRun struct {
	File    string          `json:"file"`
	Metrics []AgainstMetric `json:"metrics"`
	// Scenario says in one line what was served (model, GPUs, layout, workload, lengths).
	Scenario string `json:"-"`
	// Skipped names the figures of the file the model gives no prediction for.
	Skipped []string `json:"-"`
}

// AgainstMetric is one figure: seconds for latencies, per second for throughputs; Error is
// predicted / measured − 1.
type AgainstMetric struct {
	Name      string  `json:"name"`
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	Error     float64 `json:"error"`
}

// AgainstSummary is the mean size of the errors and the largest (signed), over every figure of
// every run.
func AgainstSummary(runs []AgainstRun) (meanAbs, worst float64, n int) {
	for _, r := range runs {
		for _, m := range r.Metrics {
			n++
			meanAbs += math.Abs(m.Error)
			if math.Abs(m.Error) > math.Abs(worst) {
				worst = m.Error
			}
		}
	}
	if n > 0 {
		meanAbs /= float64(n)
	}
	return meanAbs, worst, n
}

// RenderAgainst prints each run's figures beside the model's and the summary.
func RenderAgainst(w io.Writer, runs []AgainstRun) error {
	ew := &errWriter{w: w}
	worstAt := ""
	meanAbs, worst, n := AgainstSummary(runs)
	for i, r := range runs {
		if i > 0 {
			ew.line("")
		}
		ew.line(r.File)
		ew.line("  " + r.Scenario)
		t := newTable("  ", false, true, true, true)
		t.add("metric", "measured", "model", "error")
		for _, m := range r.Metrics {
			t.add(m.Name, againstValue(m.Name, m.Measured), againstValue(m.Name, m.Predicted), fmt.Sprintf("%+.1f%%", 100*m.Error))
			if m.Error == worst && worstAt == "" {
				worstAt = r.File + " " + m.Name
			}
		}
		t.write(ew)
		if len(r.Skipped) > 0 {
			ew.line("  not compared (the model gives means, medians, p90 and p99): " + strings.Join(r.Skipped, ", "))
		}
	}
	ew.line("")
	ew.line(fmt.Sprintf("%s of %s: mean |error| %.1f%%, worst %+.1f%% (%s)", count(n, "figure"), count(len(runs), "run"), 100*meanAbs, 100*worst, worstAt))
	return ew.err
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// againstValue formats a figure by its unit, which its name ends with.
func againstValue(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "_bytes"):
		return Bytes(v)
	case strings.HasPrefix(name, "tflops"):
		return FLOPS(v * 1e12)
	case strings.HasSuffix(name, "_per_s_per_gpu"):
		return fmt.Sprintf("%.4g/s", v)
	}
	if strings.HasSuffix(name, "_per_s") {
		return fmt.Sprintf("%.4g/s", v)
	}
	return Seconds(v)
}
