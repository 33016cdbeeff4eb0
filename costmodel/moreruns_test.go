package costmodel

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// The measured runs on other GPUs and engines (MeasuredMore) replayed, hold-outs all: none is
// said to be overloaded (every engine served its run), no throughput or E2E is off by 2× or
// more, and the medians are what the model achieves now (req/s and output tok/s within 15%,
// TTFT within 50%; TPOT is SGLang's alone, 1.9–4.5× the model's, and is bounded by validate's
// tolerance only).
func TestMeasuredMoreRuns(t *testing.T) {
	xs, err := ReplayMore(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	gpus, engines := map[string]bool{}, map[string]bool{}
	errs := map[string][]float64{}
	perGPU := map[string][]float64{}
	for _, x := range xs {
		r := x.Run
		gpus[r.GPU] = true
		engines[strings.Fields(r.Engine)[0]] = true
		t.Logf("%-50s req/s %6.2f / %6.2f  tok/s %7.0f / %7.0f  TTFT %7.3f / %7.3f  TPOT %6.4f / %6.4f  E2E %6.2f / %6.2f", r.ID,
			x.ReqS, r.ReqS, x.OutTokS, r.OutTokS, x.TTFT, r.TTFT, x.TPOT, r.TPOT, x.E2E, r.E2E)
		if x.Overloaded {
			t.Errorf("%s: the model's queue grows; %s served the run at %.3g req/s", r.ID, r.Engine, r.ReqS)
		}
		for _, c := range []struct {
			name      string
			pred, pub float64
			within2x  bool
		}{{"req/s", x.ReqS, r.ReqS, true}, {"output tok/s", x.OutTokS, r.OutTokS, true}, {"TTFT", x.TTFT, r.TTFT, false},
			{"TPOT", x.TPOT, r.TPOT, false}, {"E2E", x.E2E, r.E2E, true}} {
			if c.pub <= 0 {
				continue
			}
			if !(c.pred > 0) || math.IsInf(c.pred, 0) {
				t.Errorf("%s: %s %v", r.ID, c.name, c.pred)
				continue
			}
			e := math.Abs(c.pred/c.pub - 1)
			errs[c.name] = append(errs[c.name], e)
			if c.name == "req/s" {
				perGPU[r.GPU] = append(perGPU[r.GPU], e)
			}
			if c.within2x && math.Abs(math.Log(c.pred/c.pub)) >= math.Ln2 {
				t.Errorf("%s: %s %.4g, measured %.4g: off by 2× or more", r.ID, c.name, c.pred, c.pub)
			}
		}
	}
	if len(xs) < 8 || len(gpus) < 3 || len(engines) < 2 {
		t.Errorf("%d runs on %d GPU kinds with %d engines; want 8 runs, 3 GPUs, 2 engines", len(xs), len(gpus), len(engines))
	}
	med := func(v []float64) float64 {
		v = append([]float64(nil), v...)
		sort.Float64s(v)
		if len(v)%2 == 0 {
			return (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		return v[len(v)/2]
	}
	for _, n := range []string{"req/s", "output tok/s", "TTFT", "TPOT", "E2E"} {
		t.Logf("%-12s median |error| %5.1f%% over %d runs", n, 100*med(errs[n]), len(errs[n]))
	}
	for g, v := range perGPU {
		t.Logf("req/s on %-9s median |error| %5.1f%% over %d runs", g, 100*med(v), len(v))
	}
	for n, bound := range map[string]float64{"req/s": 0.15, "output tok/s": 0.15, "TTFT": 0.50} {
		if m := med(errs[n]); m > bound {
			t.Errorf("median |%s error| %.1f%%, want ≤ %.0f%%", n, 100*m, 100*bound)
		}
	}
}
