package published

import (
	"math"
	"sort"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// peakPrefill is the least time a run's prompt can be prefilled in: its layers' linear
// parameters, two FLOPs each per prompt token, at the GPUs' dense BF16 peak split over TP
// (attention's own FLOPs and every overhead left out, so any real prefill takes longer).
func peakPrefill(t *testing.T, r MoreRun) float64 {
	t.Helper()
	p := presets(t)
	a, ok := moreArch(r.Model)
	if !ok {
		var err error
		if a, err = p.Model(r.Model); err != nil {
			t.Fatal(err)
		}
	}
	g, err := p.GPU(r.GPU)
	if err != nil {
		t.Fatal(err)
	}
	return 2 * arch.Of(a).LayerParams() * r.Prompt / (float64(r.TP) * g.Peak(model.BF16))
}

// median of v (NaN for none).
func median(v []float64) float64 {
	v = append([]float64(nil), v...)
	sort.Float64s(v)
	if len(v) == 0 {
		return math.NaN()
	}
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// checkHoldouts replays runs and holds what every hold-out set here holds: a closed loop or a
// rate the engine kept up with does not saturate the model, and a rate the engine did not
// keep up with (Saturated) saturates it too; a run is marked
// PrefillBelowPeak exactly when it is one request at a time on fixed lengths and its measured
// TTFT is below the prompt's peak-FLOP prefill time (a figure no GPU reaches is not compared,
// and no comparable one hidden); the model's queue does not grow on a closed loop; no
// compared figure is off by 2× or more, except one a run marks as missed (MissFigs) with its
// reason (throughput compared where the server set it, latencies where the engine kept up);
// one decode step at batch 1 (TPOT at concurrency 1) within 30%; the medians of
// |error| within bounds. It returns the medians.
func checkHoldouts(t *testing.T, runs []MoreRun, bounds map[string]float64) map[string]float64 {
	t.Helper()
	xs, err := ReplayRuns(runs, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string][]float64{}
	for _, x := range xs {
		r := x.Run
		below := r.Concurrency == 1 && r.Dist == "random" && r.TTFT < peakPrefill(t, r)
		if below != r.PrefillBelowPeak {
			t.Errorf("%s: measured TTFT %.1f ms, peak-FLOP prefill %.1f ms, marked PrefillBelowPeak %v", r.ID, 1e3*r.TTFT,
				1e3*peakPrefill(t, r), r.PrefillBelowPeak)
		}
		switch {
		case r.Saturated:
			if want := r.Rate * r.Gen; !(want > x.OutTokS) {
				t.Errorf("%s: %s did not keep up (%.3g req/s of %.3g); the model serves all %.0f tok/s asked", r.ID, r.Engine, r.ReqS, r.Rate, want)
			}
		case r.Concurrency > 0 || !r.Burst():
			if x.Overloaded {
				t.Errorf("%s: the model's queue grows where %s kept up", r.ID, r.Engine)
			}
		}
		type fig struct {
			name      string
			pred, pub float64
		}
		figs := []fig{{"req/s", x.ReqS, r.ReqS}, {"output tok/s", x.OutTokS, r.OutTokS}}
		if !r.ServerBound() {
			// Below saturation a Poisson run's throughput is its arrivals', not the server's.
			figs = figs[:0]
		}
		if !r.Saturated {
			figs = append(figs, fig{"TPOT", x.TPOT, r.TPOT}, fig{"TPOT", x.TPOTP50, r.TPOTP50}, fig{"E2E", x.E2E, r.E2E},
				fig{"E2E", x.E2EP50, r.E2EP50}, fig{"ITL", x.ITLP50, r.ITLP50})
			if !r.PrefillBelowPeak {
				figs = append(figs, fig{"TTFT", x.TTFT, r.TTFT}, fig{"TTFT", x.TTFTP50, r.TTFTP50})
			}
		}
		t.Logf("%-62s TTFT %6.1f / %6.1f p50 %6.1f / %6.1f ms  TPOT %5.2f / %5.2f p50 %5.2f / %5.2f ms  E2E %6.2f / %6.2f p50 %5.2f / %5.2f s  req/s %6.3f / %6.3f",
			r.ID, 1e3*x.TTFT, 1e3*r.TTFT, 1e3*x.TTFTP50, 1e3*r.TTFTP50, 1e3*x.TPOT, 1e3*r.TPOT, 1e3*x.TPOTP50, 1e3*r.TPOTP50,
			x.E2E, r.E2E, x.E2EP50, r.E2EP50, x.ReqS, r.ReqS)
		for _, f := range figs {
			if f.pub <= 0 {
				continue
			}
			if !(f.pred > 0) || math.IsInf(f.pred, 0) {
				t.Errorf("%s: %s %v", r.ID, f.name, f.pred)
				continue
			}
			e := f.pred/f.pub - 1
			off2 := math.Abs(math.Log(f.pred/f.pub)) >= math.Ln2
			if r.Misses(f.name) {
				if !off2 {
					t.Logf("%s: marked as missing %s, and the model is now within 2× (%.4g s, measured %.4g s): clear the mark", r.ID,
						f.name, f.pred, f.pub)
				}
				continue
			}
			errs[f.name] = append(errs[f.name], math.Abs(e))
			if off2 {
				t.Errorf("%s: %s %.4g, measured %.4g: off by 2× or more", r.ID, f.name, f.pred, f.pub)
			}
			if f.name == "TPOT" && r.Concurrency == 1 && math.Abs(e) > 0.30 {
				t.Errorf("%s: one decode step at batch 1 %.2f ms, measured %.2f ms (%+.0f%%), want within 30%%", r.ID, 1e3*f.pred,
					1e3*f.pub, 100*e)
			}
		}
	}
	meds := map[string]float64{}
	for _, n := range []string{"req/s", "output tok/s", "TTFT", "TPOT", "E2E", "ITL"} {
		if len(errs[n]) == 0 {
			continue
		}
		meds[n] = median(errs[n])
		t.Logf("%-12s median |error| %5.1f%% over %d", n, 100*meds[n], len(errs[n]))
		if b, ok := bounds[n]; ok && !(meds[n] <= b) {
			t.Errorf("median |%s error| %.1f%%, want ≤ %.0f%%", n, 100*meds[n], 100*b)
		}
	}
	return meds
}

// The fixed-length runs (MeasuredFixed), hold-outs on four GPU families with models the other
// runs do not have: 15 runs on H100 SXM (TP 2), RTX 4090, A100 and MI300X, held as
// checkHoldouts says, the medians what the model achieves now with a little room (TPOT 4.3%,
// E2E 4.4%, req/s 4.4%, TTFT 19.2%; bounds 10, 10, 10, 35; TPOT 6.0%, E2E 6.0%, req/s 5.9%
// before the per-kernel floor was cycles at each GPU's clock).
func TestMeasuredFixedRuns(t *testing.T) {
	gpus := map[string]int{}
	for _, r := range MeasuredFixed {
		gpus[r.GPU]++
	}
	if len(MeasuredFixed) < 15 || gpus["mi300x"] == 0 || gpus["a100-sxm-80gb"] == 0 || gpus["rtx-4090"] == 0 || gpus["h100-sxm"] == 0 {
		t.Errorf("%d fixed-length runs on %v; want 15 on mi300x, a100-sxm-80gb, rtx-4090 and h100-sxm", len(MeasuredFixed), gpus)
	}
	checkHoldouts(t, MeasuredFixed, map[string]float64{"TPOT": 0.10, "E2E": 0.10, "TTFT": 0.35, "req/s": 0.10})
}

// The SGL060 runs (MeasuredEngines): SGLang 0.3.0 and vLLM 0.6.0 (multi-step) on the same
// ShareGPT prompts, held as checkHoldouts says, with SGLang's median TTFT (prefill batches
// scheduled apart) within 25% on every online run (−1% to +22%: the A100 8B at 4 requests/s is
// +22%, +9% before the per-kernel floor was cycles at the A100's clock and +14% before Ampere's
// matmul streaming (gemm_memory_eff), the two decode steps a step-late admission waits having
// grown towards the measured TPOT, now +2.3%), and vLLM's
// (multi-step windows of 10 decode steps: the vllm-v0-ms profile) within 40%: −21% to −38%
// (−76% to −81% when the model scheduled every step). The medians what the model achieves
// now: TTFT 17.2%, TPOT 13.9%, E2E 18.7%, req/s 22.5%, output tok/s 17.3% (bounds 20, 35, 40,
// 40, 35; 17.1%, 18.1%, 22.8%, 22.9%, 17.7% before Ampere's matmul streaming, 15.0%, 19.8%,
// 25.1%, 24.1%, 18.7% with the floor in microseconds). The model's decode under load is faster
// than both engines' but at the A100's 4 requests/s: TPOT p50 −28% to +2%.
func TestMeasuredEngineRuns(t *testing.T) {
	if len(MeasuredEngines) != 12 {
		t.Errorf("%d SGL060 runs, want 12", len(MeasuredEngines))
	}
	checkHoldouts(t, MeasuredEngines, map[string]float64{"TTFT": 0.20, "TPOT": 0.35, "E2E": 0.40, "req/s": 0.40, "output tok/s": 0.35})
	xs, err := ReplayRuns(MeasuredEngines, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		r := x.Run
		if r.Rate == 0 {
			continue
		}
		bound := 0.25
		if r.Profile == "vllm-v0-ms" {
			bound = 0.40
		}
		if e := x.TTFTP50/r.TTFTP50 - 1; math.Abs(e) > bound {
			t.Errorf("%s: median TTFT %.1f ms, measured %.1f ms (%+.0f%%), want within %.0f%%", r.ID, 1e3*x.TTFTP50, 1e3*r.TTFTP50,
				100*e, 100*bound)
		}
	}
}

// The serve-more group's medians with and without the runs added here (MeasuredFixed,
// MeasuredEngines), logged for the record: TestMeasuredMoreRuns holds the group's bounds.
func TestMoreRunsMedians(t *testing.T) {
	for _, set := range []struct {
		name string
		runs []MoreRun
	}{{"without", MeasuredMore}, {"with", MoreRuns()}} {
		ys, err := ReplayRuns(set.runs, presets(t))
		if err != nil {
			t.Fatal(err)
		}
		e := map[string][]float64{}
		for _, y := range ys {
			r := y.Run
			add := func(n string, pred, pub float64) {
				if pub > 0 && pred > 0 {
					e[n] = append(e[n], math.Abs(pred/pub-1))
				}
			}
			if r.ServerBound() {
				add("req/s", y.ReqS, r.ReqS)
			}
			if r.Saturated {
				continue
			}
			if !r.PrefillBelowPeak {
				add("TTFT", y.TTFT, r.TTFT)
				add("TTFT", y.TTFTP50, r.TTFTP50)
			}
			add("TPOT", y.TPOT, r.TPOT)
			add("TPOT", y.TPOTP50, r.TPOTP50)
			add("E2E", y.E2E, r.E2E)
			add("E2E", y.E2EP50, r.E2EP50)
			add("ITL", y.ITLP50, r.ITLP50)
		}
		if len(e["TTFT"]) == 0 {
			t.Errorf("%s: no TTFT figures", set.name)
		}
		for _, n := range []string{"req/s", "TTFT", "TPOT", "E2E", "ITL"} {
			t.Logf("serve-more %-7s %-6s median |error| %5.1f%% over %d figures", set.name, n, 100*median(e[n]), len(e[n]))
		}
	}
}

// The SGLang 0.4 runs on H200 (MeasuredH200): Llama 3.3 70B at TP 4 and Llama 3.1 405B at TP 8,
// online (1–16 requests/s, random and ShareGPT) and all at once, replayed with the sglang
// engine profile (prompts first), held as checkHoldouts says (the 70B at 8 random requests/s
// marked as missed on E2E, ITL and TTFT: near SGLang's capacity; the 4096/2048 run all at once
// on ITL: SGLang's prefill batches), with the medians what the model achieves now: ITL 11.3%,
// E2E 13.7%, TTFT 26.8%, req/s 16.7% (where the server set it; bounds 20, 25, 40, 35; with the
// default profile they were 12.0, 18.1, 29.8 and 23.5). The model's capacity is higher than
// SGLang's on every all-at-once run (+6% to +39% requests/s; the 4096-token prompts most).
func TestMeasuredH200Runs(t *testing.T) {
	n := map[string]int{}
	for _, r := range MeasuredH200 {
		n[r.Model]++
	}
	if n["llama-3-70b"] < 14 || n["llama-3.1-405b"] < 7 {
		t.Errorf("H200 runs by model %v, want 14 of llama-3-70b and 7 of llama-3.1-405b", n)
	}
	checkHoldouts(t, MeasuredH200, map[string]float64{"ITL": 0.20, "E2E": 0.25, "TTFT": 0.40, "req/s": 0.35})
	xs, err := ReplayRuns(MeasuredH200, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if r := x.Run; r.Burst() && !(x.OutTokS > r.OutTokS) {
			t.Logf("%s: the model's output %.0f tok/s is no longer above SGLang's %.0f: update the doc comment", r.ID, x.OutTokS, r.OutTokS)
		}
	}
}

// The 8 × MI300X runs of Llama 3.1 405B (MeasuredMI300X): TGI (11 runs) and vLLM 0.6.3 on ROCm
// (2; five more left out, every figure off by 2×), held as checkHoldouts says with the
// figures the runs mark as missed left out (TGI's first token at 1–8 prompts, its decode at
// 64 and more sequences, one decode step over 128,000 tokens), the medians what the model
// achieves now (TPOT 39.3%, TTFT 33.0%, req/s 53.5%, output tok/s 54.1%; bounds 45, 45, 65,
// 65), and the direction that sets them held: the model's decode step at one sequence is
// faster than both ROCm engines' on every single-sequence run (30–40%: TGI 43.5–59 ms a
// token, the model 30.5–31.4).
func TestMeasuredMI300XRuns(t *testing.T) {
	if len(MeasuredMI300X) != 13 {
		t.Errorf("%d MI300X runs, want 13", len(MeasuredMI300X))
	}
	checkHoldouts(t, MeasuredMI300X, map[string]float64{"TPOT": 0.45, "TTFT": 0.45, "req/s": 0.65, "output tok/s": 0.65})
	xs, err := ReplayRuns(MeasuredMI300X, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if r := x.Run; r.Requests == 1 && !r.Misses("TPOT") && !(x.TPOT < r.TPOT) {
			t.Errorf("%s: the model's decode step at one sequence %.1f ms, %s's %.1f ms: no longer faster (update the DSTK notes)",
				r.ID, 1e3*x.TPOT, r.Engine, 1e3*r.TPOT)
		}
	}
}

// The 8 × H100 SXM runs of Llama 3.1 405B in FP8 (MeasuredH100x8): vLLM 0.6.3 past its
// capacity at 16, 32 and 1000 requests/s, held as checkHoldouts says (at 16 the engine's queue
// grew, and the model's grows too; at 32 the mean TTFT is marked missed: vLLM's tail), with
// the servers' throughput within 10% on all three (the model −3% to +10%).
func TestMeasuredH100x8Runs(t *testing.T) {
	if len(MeasuredH100x8) != 3 {
		t.Errorf("%d 8×H100 runs, want 3", len(MeasuredH100x8))
	}
	checkHoldouts(t, MeasuredH100x8, map[string]float64{"req/s": 0.10, "output tok/s": 0.10, "TPOT": 0.15, "TTFT": 0.70})
	xs, err := ReplayRuns(MeasuredH100x8, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if e := x.ReqS/x.Run.ReqS - 1; math.Abs(e) > 0.10 {
			t.Errorf("%s: %.2f req/s served, measured %.2f (%+.0f%%), want within 10%%", x.Run.ID, x.ReqS, x.Run.ReqS, 100*e)
		}
	}
}

// The A100's decode at light load, hold-outs for the per-kernel floor in cycles
// (costmodel.kernelFloorOn: 5.6 µs a kernel at the A100's 1410 MHz, 4 µs at H100 SXM's 1980):
// vLLM's batch-1 step of Qwen3-1.7B (TT340), mostly fixed per-kernel time, within 15% (−8.9%
// to −13.7%; −20.7% to −24.5% with the floor in microseconds), and Llama 3.1 8B's median TPOT
// at 4 requests/s under SGLang 0.3.0 and vLLM 0.6.0 (SGL060) within 10% (−5.6% and −9.4%;
// −11.2% and −14.6% before).
func TestA100LightLoadDecode(t *testing.T) {
	var runs []MoreRun
	for _, r := range MoreRuns() {
		if r.Source == "TT340" || (r.Source == "SGL060" && r.GPU == "a100-sxm-80gb" && r.Rate == 4) {
			runs = append(runs, r)
		}
	}
	if len(runs) != 6 {
		t.Fatalf("%d A100 light-load runs, want 4 TT340 and 2 SGL060", len(runs))
	}
	xs, err := ReplayRuns(runs, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		r := x.Run
		pred, pub, bound := x.TPOT, r.TPOT, 0.15
		if r.Source == "SGL060" {
			pred, pub, bound = x.TPOTP50, r.TPOTP50, 0.10
		}
		e := pred/pub - 1
		t.Logf("%-58s TPOT %.2f ms, measured %.2f (%+.1f%%)", r.ID, 1e3*pred, 1e3*pub, 100*e)
		if !(math.Abs(e) <= bound) {
			t.Errorf("%s: TPOT %.2f ms, measured %.2f ms (%+.1f%%), want within %.0f%%", r.ID, 1e3*pred, 1e3*pub, 100*e, 100*bound)
		}
	}
}
