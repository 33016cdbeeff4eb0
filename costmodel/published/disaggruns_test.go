package published

import (
	"testing"
)

// Disaggregated against aggregated serving (DisaggRuns, 10 pairs), hold-outs all: every published
// direction kept (disaggregation raises the mean TTFT and lowers the mean TPOT, or the other
// way, as measured), and the gain within the 25% on every row the stall rule
// (DisaggRun.Direction) does not leave to direction; six pairs are checked so (the 256-token
// runs at 2–6 requests/s against both baselines).
func TestDisaggRuns(t *testing.T) {
	xs, err := ReplayDisagg(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, x := range xs {
		r := x.Run
		pt, mt, pp, mp := x.Gains()
		why := r.Direction()
		t.Logf("%-26s TTFT gain published %.2f model %.2f, TPOT gain published %.2f model %.2f (agg %.1f/%.2f ms, disagg %.1f/%.2f ms, KV transfer %.2f ms) %s",
			r.ID, pt, mt, pp, mp, 1e3*x.AggTTFT, 1e3*x.AggTPOT, 1e3*x.DisTTFT, 1e3*x.DisTPOT, 1e3*x.KVTransferS, why)
		for _, g := range []struct {
			name      string
			pub, pred float64
		}{{"TTFT", pt, mt}, {"TPOT", pp, mp}} {
			if g.pred <= 0 || (g.pub > 1) != (g.pred > 1) {
				t.Errorf("%s %s: published gain %.3f, model %.3f: the direction differs", r.ID, g.name, g.pub, g.pred)
			}
			if why != "" {
				continue
			}
			if e := g.pred/g.pub - 1; e > disaggTol || e < -disaggTol {
				t.Errorf("%s %s: published gain %.3f, model %.3f (%+.0f%%, over %.0f%%)", r.ID, g.name, g.pub, g.pred, 100*e, 100*disaggTol)
			}
		}
		if why == "" {
			checked++
		}
	}
	if checked < 6 {
		t.Errorf("%d pairs checked within %.0f%%, want at least 6", checked, 100*disaggTol)
	}
}

// The stall rule reads the published figures only: a decode instance whose mean TPOT is more
// than 1.5× its median is direction-only, one under it is checked.
func TestDisaggStallRule(t *testing.T) {
	r := DisaggRun{DisTPOT: 0.0160, DisTPOTP50: 0.0116}
	if why := r.Direction(); why != "" {
		t.Errorf("mean 1.38× the median: %q, want checked", why)
	}
	r.DisTPOT = 0.0250
	if r.Direction() == "" {
		t.Error("mean 2.2× the median: checked, want direction only")
	}
	r = DisaggRun{DirectionOnly: "set"}
	if r.Direction() != "set" {
		t.Errorf("DirectionOnly set: %q", r.Direction())
	}
}
