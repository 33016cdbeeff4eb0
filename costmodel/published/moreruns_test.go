package published

import (
	"math"
	"sort"
	"strings"
	"testing"
)

// The measured runs on other GPUs and engines (MoreRuns: MeasuredMore and the sets added
// after it) replayed, hold-outs all. No false saturation: a run the engine kept up with (not
// saturated, not a burst) is never overloaded in the model, and its whole-run mean TTFT stays
// under a second or three times the measured, except the one run marked ModelSaturates
// (LMDeploy's larger KV cache); a saturated run's queue grows in the model too. No throughput
// of a server-bound run is off by 2× or more unless the run marks it missed (MissFigs, with
// its reason). Medians count every figure, missed ones included. The medians are what the
// model achieves now, with a margin: req/s, output tok/s, E2E, ITL and TPOT within 15%
// and TTFT within 28% (req/s and output tok/s were bounded at 25% and 30%, both 16% until the H200 runs of h200runs.go,
// whose all-at-once throughputs the model puts 14–47% above SGLang 0.4's, and the MI300X runs
// of mi300xruns.go, +50% to +97% above TGI's and vLLM's ROCm builds), TTFT within 40%, TPOT
// within 30% (each figure a run published: means, or medians where only those were; a TTFT
// below its prompt's peak-FLOP prefill time, PrefillBelowPeak, left out). At σ 1 (the ShareGPT
// replay's log-σ): the 28 runs of MeasuredMore alone 9%, 25%, 26%; with MeasuredFixed's 15,
// MeasuredEngines' 12, MeasuredH200's 22, MeasuredMI300X's 13 and MeasuredH100x8's 3: req/s
// 20.1%, output tok/s 24.5%, TTFT 33.0%, TPOT 22.8%, E2E 18.7%, ITL 12.1%. With MeasuredInferenceX's
// 27 DeepSeek-R1 and gpt-oss runs (120 in all): 15.1%, 13.7%, 33.7%, 21.4%, 17.6%, 16.3%; with SGLang's
// host-launched DeepSeek prompt steps (model.EagerPrefill) 15.1%, 12.3%, 31.6%, 21.4%, 17.6%, 16.3%; with
// the H200B runs replayed as SGLang 0.4 (profile sglang-0.4: decode batches over 160 sequences outside
// CUDA graphs, host-bound, model.EagerDense04) 10.3%, 9.9%, 30.3%, 21.4%, 12.6%, 11.9%; with the
// per-kernel floor in cycles at each GPU's boost clock (5.6 µs on A100, 4 µs on H100 SXM)
// 10.5%, 10.3%, 31.9%, 15.5%, 10.7%, 11.9%; with SGLang's --scheduler-recv-interval on the B200 runs
// (InferenceX's script sets it) TTFT 28.8%, its bound tightened from 40% to 30% (31.9% before: the bound fails without it); with Qwen3's per-head
// q/k norms (two kernels a layer, arch.Shape.QKNorm) 8.6%, 10.3%, 28.8%, 15.5%, 9.4%, 11.9%; with LMDeploy 0.4 and
// TensorRT-LLM 0.9 behind Triton replayed with their own engine profiles (lmdeploy, trtllm-triton: no overlap, and
// Triton's fitted front end) TTFT 25.9%, its bound tightened from 30% to 28%, the other five unchanged. At σ 0.8 req/s is 25.5% (over its bound by
// 0.5 point, the other bounds held); at σ 1.2, before the MI300X runs, req/s was 22% and the median E2E of four ShareGPT runs at 4–8
// requests/s (SGL060, H200B) fell below half the measured (a lognormal's median falls as its
// σ grows): the replay depends on the assumed shape. With CDNA 3's per-kernel floor
// (model.GPU.KernelFloorCycles) and TGI's profile ("tgi": RCCL all-reduces, eager steps over 32
// sequences, its per-request host loop), three constants fitted on three TGI TPOTs of the MI300X
// runs: 9.3%, 8.8%, 26.3%, 11.3%, 9.4%, 11.9%, and every run's throughput within 2× (the MI325X's
// and TGI's at 256 and 1024 prompts were off by 2.3–2.7×, marked); TPOT's bound tightened from 20%
// to 15%. Both together (the engine profiles above and CDNA 3's floor with TGI's profile): 9.3%,
// 8.8%, 24.8%, 11.8%, 9.4%, 11.9%. With vLLM V0's synchronous output processing
// (profile vllm-v0-sync, model.HostPerSeqV0Sync, 0.103 ms a sequence a step from ISS vllm#6913,
// not fitted) on the V0 runs that had it (vLLM 0.4.1 of ZHJ, SUR's PP 2 server, whose log
// says use_async_output_proc=False, LPC's vLLM of August 2024): 9.6%, 9.9%, 24.8%, 10.1%, 9.4%,
// 11.9% (TTFT as V0 median −32.3% → −31.0%; its first tokens move up by a step's share, its TPOTs
// by more: SUR's −22% to −51% → −21% to −36%, ZHJ's at 5 requests/s −57% → −47%).
//
// The test logs TTFT's errors by engine profile: TGI's first tokens are all under the measured
// (11 of 11, median −32.5%; its one-prompt prefills of 16,000–128,000 tokens −32% to −34% alike,
// which a kernel that slows with the context cannot give: the model's prefill would need the
// MI300X's matmuls at about 0.31 of peak, 410 TFLOP/s, where SA's MAMF says 0.511: U why, no
// published figure for TGI's ROCm build of October 2024; the four one-prompt runs fit
// T(s) = a·s + b·s² with a linear part of 5.59 s and a quadratic one of 0.36 s at 16,000
// tokens, against the model's 3.78 and 0.23: ×1.48 and ×1.57, the matmuls with their RCCL
// all-reduces and the attention alike, a uniformly slower prefill that no host cost gives,
// 126 eager layers at 0.65 ms being 82 ms of 5.9 s), vLLM 0.6's multi-step ones too (4 of 4,
// −20% to −38%: a new request waits for the window of 10 decode steps to end, and the model's
// decode steps on SGL060's hardware are short for SGLang 0.3 as well, TPOT −6% to −28%, so the
// wait is short by as much), vLLM V0's too (7 of 7, vllm-v0-sync: vLLM 0.4.1 on the RTX 3090,
// and SUR's PP 2 runs, which their server's log shows were vLLM 0.8.3 fallen back to V0:
// moreruns.go's sur), vLLM V1's mostly (19 of 34, median −12.7%), SGLang's either way (medians
// −5%).
// Tried and not taken, each measured on the 100 TTFT figures (2 December 2026): an API server
// that serves its requests one at a time (0.5, 1 or 2 ms of a request's 4 ms front end serial)
// 25.9% (the A100 bursts of SUR move, the others not); SGLang 0.4 admitting a request only with
// blocks for its whole output (ReserveWhole) 22.7%, but E2E 9.4% → 11.6% and req/s 9.3% → 10.3%
// (its bursts lose their preemptions and serve faster than SGLang did); SGLang's own rule for
// requests that ignore EOS with the radix cache off (PrefillAdder.add_one_req_ignore_eos: every
// admitted sequence's whole output must fit as the sequences end, shortest first) on the sglang
// and sglang-0.4 profiles 24.8%, E2E 11.6%, and the test 7× slower; dstack's 8 × H100 vLLM 0.6.3
// runs replayed as vLLM V0 with --max-model-len 91680 (chunked prefill of 512 tokens, as 0.6.3
// turns on past 32K) put the burst's median TTFT at 21.2 s against 9.2 s (16.4 s as V1); vLLM
// 0.6.0's multi-step runs charged 0.15 ms of host time a sequence every step (as if their outputs
// were processed synchronously) 22.7% (TTFT as vllm-v0-ms −29% → −14%, TPOT 9.5%, E2E 8.4%), but
// their all-at-once requests/s went from +25% and +31% to −29% and −23%, and 0.6.0 shipped the
// asynchronous output processor combined with multi-step (vllm PRs #7921 and #8050), which
// overlaps that work with the GPU: no cost of its own to charge.
// Tried and not taken on 3 December 2026, on the same 100 figures: the front end's tokenizing
// charged by the prompt's tokens (2 or 10 µs a token over FrontEnd4ms; tt-inference-server
// #2173 logged 10–21 µs a token for 131 tokens with a chat template) 25.1% / 25.3% (a burst's
// shorter prompts then reach the scheduler first: SGLang's |median| 16.7% → 21.2% / 23.6%); a
// longer front end for every engine (6 or 8 ms in place of 4) 23.4% / 24.0% (vLLM V1's first
// tokens one request at a time, TT340's, TT125's and TT143's, sit 2–11 ms over their prefill,
// but SGLang's go 16.7% → 20.4% / 22.7%), with no measured gap between online and offline at
// one request beside tt-inference-server #190's 4 ms at 32; vLLM 0.4.1's OpenAI server sharing
// the engine's process and event loop (vLLM PR #6883 moved it out: TPOT 70.74 → 57.35 ms on
// Llama-3-8B, one H100, 10 requests/s, about 112 sequences in flight by Little's law: 0.1 ms a
// sequence a step) charged on ZHJ's vLLM 0.4.1 runs as host time: TTFT 23.4%, TPOT 9.5%, but
// req/s 9.6% → 10.3% (its 8 requests/s run, served 9% under already, −18%; req/s 10.3% even
// at 0.03 ms a sequence: that run sits at the median); CDNA 3's prefill, the MI300X's
// compute_eff at 0.42 or 0.36 in place of SA's MAMF 0.511: 21.5% / 19.4% (TGI's first tokens
// −32.5% → −21.5% / −10.6%, output tok/s 9.9% → 9.4% / 8.9%, the rest unmoved), the largest
// lever found, but no published rate is that low (ROCm/TransformerEngine #78: a Llama 3 70B
// proxy trained in bf16 at about 522 TFLOP/s a MI300X in October 2024, 0.78 of the MAMF, where
// the model sustains 0.85 of it; TGI's ROCm image tunes its GEMMs with PyTorch's TunableOp only
// for the decode batch sizes it captures, flash_causal_lm.py's warmup, so its prefill GEMMs
// run the library's untuned choice: U by how much).
func TestMeasuredMoreRuns(t *testing.T) {
	xs, err := ReplayMore(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	gpus, engines := map[string]bool{}, map[string]bool{}
	errs := map[string][]float64{}
	perGPU := map[string][]float64{}
	type worst struct {
		id, metric string
		e          float64
	}
	var ws []worst
	known := 0
	// TTFT's signed errors by the engine profile the run is replayed with ("" is vLLM V1):
	// whether an engine's first tokens are off one way (logged below).
	ttftBy := map[string][]float64{}
	for _, x := range xs {
		r := x.Run
		gpus[r.GPU] = true
		engines[strings.Fields(r.Engine)[0]] = true
		t.Logf("%-58s req/s %6.2f / %6.2f  TTFT %7.3f / %7.3f p50 %7.3f / %7.3f  TPOT %6.4f / %6.4f p50 %6.4f / %6.4f  E2E %6.2f / %6.2f  over %v steady %v",
			r.ID, x.ReqS, r.ReqS, x.TTFT, r.TTFT, x.TTFTP50, r.TTFTP50, x.TPOT, r.TPOT, x.TPOTP50, r.TPOTP50, x.E2E, r.E2E,
			x.Overloaded, !x.NotSteady)
		switch {
		case r.Saturated:
			if want := r.Rate * r.Gen; !(want > x.OutTokS) {
				t.Errorf("%s: %s did not keep up (%.3g req/s of %.3g); the model serves all %.0f tok/s asked", r.ID, r.Engine, r.ReqS, r.Rate, want)
			}
		case !r.Burst():
			ttft := max(r.TTFT, r.TTFTP50)
			saturates := x.Overloaded || x.TTFT > max(3*ttft, 1)
			if r.ModelSaturates {
				known++
				if !saturates {
					t.Logf("%s: marked ModelSaturates, and the model now serves it (TTFT %.3g s): clear the mark", r.ID, x.TTFT)
				}
				continue
			}
			if saturates {
				t.Errorf("%s: the model saturates (overloaded %v, TTFT %.3g s) where %s served the run (TTFT %.3g s)", r.ID,
					x.Overloaded, x.TTFT, r.Engine, ttft)
			}
		}
		for _, c := range moreFigures(x) {
			if !(c.pred > 0) || math.IsInf(c.pred, 0) {
				t.Errorf("%s: %s %v", r.ID, c.name, c.pred)
				continue
			}
			e := math.Abs(c.pred/c.pub - 1)
			errs[c.name] = append(errs[c.name], e)
			ws = append(ws, worst{r.ID, c.name, c.pred/c.pub - 1})
			if c.name == "TTFT" {
				prof := r.Profile
				if prof == "" {
					prof = "vllm"
				}
				ttftBy[prof] = append(ttftBy[prof], c.pred/c.pub-1)
			}
			perGPU[r.GPU+" "+c.name] = append(perGPU[r.GPU+" "+c.name], e)
			if (c.name == "req/s" || c.name == "output tok/s") && !r.Misses(c.name) && math.Abs(math.Log(c.pred/c.pub)) >= math.Ln2 {
				t.Errorf("%s: %s %.4g, measured %.4g: off by 2× or more", r.ID, c.name, c.pred, c.pub)
			}
		}
	}
	if known > 1 {
		t.Errorf("%d runs marked as falsely saturated by the model, want at most 1", known)
	}
	if len(xs) < 20 || len(gpus) < 3 || len(engines) < 3 {
		t.Errorf("%d runs on %d GPU kinds with %d engines; want 20 runs, 3 GPUs, 3 engines", len(xs), len(gpus), len(engines))
	}
	med := median
	for _, n := range []string{"req/s", "output tok/s", "TTFT", "TPOT", "E2E", "ITL"} {
		t.Logf("%-12s median |error| %5.1f%% over %d figures", n, 100*med(errs[n]), len(errs[n]))
	}
	keys := make([]string, 0, len(perGPU))
	for k := range perGPU {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-28s median |error| %5.1f%% over %d", k, 100*med(perGPU[k]), len(perGPU[k]))
	}
	profs := make([]string, 0, len(ttftBy))
	for k := range ttftBy {
		profs = append(profs, k)
	}
	sort.Strings(profs)
	for _, k := range profs {
		abs := make([]float64, len(ttftBy[k]))
		under := 0
		for i, e := range ttftBy[k] {
			abs[i] = math.Abs(e)
			if e < 0 {
				under++
			}
		}
		t.Logf("TTFT as %-14s median |error| %5.1f%%, median error %+6.1f%%, %d of %d under", k, 100*med(abs), 100*med(ttftBy[k]), under, len(abs))
	}
	sort.Slice(ws, func(i, j int) bool { return math.Abs(ws[i].e) > math.Abs(ws[j].e) })
	for _, w := range ws[:min(8, len(ws))] {
		t.Logf("worst: %-58s %-12s %+6.1f%%", w.id, w.metric, 100*w.e)
	}
	for n, bound := range map[string]float64{"req/s": 0.15, "output tok/s": 0.15, "TTFT": 0.28, "TPOT": 0.15, "E2E": 0.15, "ITL": 0.15} {
		if m := med(errs[n]); m > bound {
			t.Errorf("median |%s error| %.1f%%, want ≤ %.0f%%", n, 100*m, 100*bound)
		}
	}
}

// The RTX 3090 runs of LMDeploy 0.4.0 and TensorRT-LLM 0.9 behind Triton (ZHJ), replayed with their
// engines' profiles: neither builds a step while one runs, so a new request waits for the step in
// progress and runs in the next (the default profile, vLLM V1's async scheduling, put a step more
// before it: LMDeploy's median TTFTs +33% to +36%). Held out: LMDeploy at 1, 2 and 5 requests/s and
// TensorRT-LLM at 2 within 15% of the measured medians; TensorRT-LLM at 1 request/s, on which
// model.FrontEndTriton was fitted, within 5%. Replayed with the default profile instead, LMDeploy's
// first tokens come later by at least half of a decode step (the overlap's step, 21 ms here).
func TestZHJEngineProfiles(t *testing.T) {
	var runs []MoreRun
	for _, r := range MeasuredMore {
		if r.Source == "ZHJ" && r.Profile != "vllm-v0-sync" && !r.Saturated && !r.ModelSaturates {
			runs = append(runs, r)
		}
	}
	if len(runs) != 6 {
		t.Fatalf("%d LMDeploy and TensorRT-LLM runs below saturation, want 6", len(runs))
	}
	xs, err := ReplayRuns(runs, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	asV1 := append([]MoreRun(nil), runs...)
	for i := range asV1 {
		asV1[i].Profile = ""
	}
	ys, err := ReplayRuns(asV1, presets(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		r := x.Run
		bound := 0.15
		if r.Profile == "trtllm-triton" && r.Rate == 1 {
			bound = 0.05 // the run FrontEndTriton was fitted on
		}
		if r.Profile == "trtllm-triton" && r.Rate == 5 {
			continue // a queue the model does not have (moreTol's note)
		}
		e := x.TTFTP50/r.TTFTP50 - 1
		t.Logf("%-50s median TTFT %6.1f ms, measured %6.1f (%+5.1f%%); as vLLM V1 %6.1f ms", r.ID, 1e3*x.TTFTP50, 1e3*r.TTFTP50, 100*e, 1e3*ys[i].TTFTP50)
		if math.Abs(e) > bound {
			t.Errorf("%s: median TTFT %.1f ms against %.1f measured (%+.1f%%), want within %.0f%%", r.ID, 1e3*x.TTFTP50, 1e3*r.TTFTP50, 100*e, 100*bound)
		}
		if r.Profile == "lmdeploy" && !(ys[i].TTFTP50-x.TTFTP50 > 0.0105) {
			t.Errorf("%s: as vLLM V1 the median TTFT is %.1f ms, not half a decode step over the lmdeploy profile's %.1f", r.ID, 1e3*ys[i].TTFTP50, 1e3*x.TTFTP50)
		}
	}
}

// moreFig is one figure of a serve-more run: its name, the model's and the published value.
type moreFig struct {
	name      string
	pred, pub float64
}

// moreFigures are the figures a serve-more run is judged on: requests/s and output tokens/s
// where the server set them, TTFT unless saturated or below the prompt's peak-FLOP prefill,
// TPOT, E2E and ITL unless saturated; those the run published (above zero).
func moreFigures(x MoreReplay) []moreFig {
	r := x.Run
	figs := []moreFig{}
	if r.ServerBound() {
		figs = append(figs, moreFig{"req/s", x.ReqS, r.ReqS}, moreFig{"output tok/s", x.OutTokS, r.OutTokS})
	}
	if !r.Saturated && !r.PrefillBelowPeak {
		figs = append(figs, moreFig{"TTFT", x.TTFT, r.TTFT}, moreFig{"TTFT", x.TTFTP50, r.TTFTP50})
	}
	if !r.Saturated {
		figs = append(figs, moreFig{"TPOT", x.TPOT, r.TPOT},
			moreFig{"TPOT", x.TPOTP50, r.TPOTP50}, moreFig{"E2E", x.E2E, r.E2E}, moreFig{"E2E", x.E2EP50, r.E2EP50},
			moreFig{"ITL", x.ITLP50, r.ITLP50})
	}
	out := figs[:0]
	for _, f := range figs {
		if f.pub > 0 {
			out = append(out, f)
		}
	}
	return out
}
