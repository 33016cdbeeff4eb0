package serve

import (
	"strings"
	"testing"
)

// Prefill first (vLLM V0's default scheduler, SGLang's): the step after a request arrives runs
// its prompt alone, and the running sequence's decode waits for it; decodes first (vLLM V1)
// run both in one step.
func TestPrefillFirstHoldsDecodes(t *testing.T) {
	c := linear{fixed: 10e-3, perToken: 1e-5} // a decode step 10.01 ms, a 1000-token prompt 20 ms
	reqs := []Request{{Prompt: 16, Gen: 50}, {Arrival: 0.105, Prompt: 1000, Gen: 5}}
	for _, pf := range []bool{false, true} {
		cfg := base()
		cfg.PrefillFirst = pf
		cfg.Record, cfg.MaxRecord = true, 100
		r, err := Run(cfg, reqs, c)
		if err != nil {
			t.Fatal(err)
		}
		// The step that takes B's prompt.
		var st Step
		for _, s := range r.Trace {
			if s.PrefillTokens == 1000 {
				st = s
				break
			}
		}
		if st.PrefillTokens != 1000 {
			t.Fatalf("prefill first %v: no step ran B's prompt: %+v", pf, r.Trace)
		}
		wantDecodes := 1
		if pf {
			wantDecodes = 0
		}
		if st.DecodeSeqs != wantDecodes {
			t.Errorf("prefill first %v: B's prompt ran beside %d decodes, want %d", pf, st.DecodeSeqs, wantDecodes)
		}
	}
	// With prefill first A pays one more step's fixed cost: the prompt's step runs without A's
	// token, which then needs a step of its own (a shared step adds only A's token to it).
	done := func(pf bool) float64 {
		cfg := base()
		cfg.PrefillFirst = pf
		r, _ := run(t, cfg, reqs, c)
		return r.Done[0]
	}
	if d := done(true) - done(false); !near(d, c.fixed) {
		t.Errorf("A finishes %g s later with prefill first, want one step's fixed cost (%g s)", d, c.fixed)
	}
}

// Whole prompts (vLLM V0 without chunked prefill): a prompt that does not fit in what is left
// of the budget waits for the next step rather than being split; one longer than the whole
// budget runs alone in one step.
func TestWholePrompts(t *testing.T) {
	c := linear{fixed: 1e-3, perToken: 1e-5}
	cfg := base()
	cfg.MaxBatchTokens = 2048
	cfg.WholePrompts = true
	cfg.Record, cfg.MaxRecord = true, 100
	r, err := Run(cfg, []Request{{Prompt: 3000, Gen: 2}, {Prompt: 1500, Gen: 2}, {Prompt: 400, Gen: 2}}, c)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range r.Trace {
		got = append(got, s.PrefillTokens)
	}
	// Step 1: the 3000-token prompt alone; step 2: 1500 + 400 beside the first's decode.
	if len(got) < 2 || got[0] != 3000 || got[1] != 1900 {
		t.Errorf("prefill tokens by step %v, want 3000 then 1900", got)
	}
	if !near(r.FirstToken[0], c.fixed+3000*c.perToken) {
		t.Errorf("the long prompt's first token at %g s, want one step of 3000 tokens (%g s)", r.FirstToken[0], c.fixed+3000*c.perToken)
	}
	// Chunked (the default), the 3000 split 2048 + 952, and 1500 starts in the second step.
	cfg.WholePrompts = false
	r, _ = Run(cfg, []Request{{Prompt: 3000, Gen: 2}, {Prompt: 1500, Gen: 2}, {Prompt: 400, Gen: 2}}, c)
	if r.Trace[0].PrefillTokens != 2048 || r.Trace[1].PrefillTokens != 2048 {
		t.Errorf("chunked: prefill tokens %d then %d, want 2048 and 2048 (952 + 1096 of the next)", r.Trace[0].PrefillTokens, r.Trace[1].PrefillTokens)
	}
}

// The front end: every request reaches the scheduler F after its sending; TTFT counts it from
// the sending, open loop and closed loop alike.
func TestFrontEnd(t *testing.T) {
	c := linear{fixed: 5e-3}
	const f = 4e-3
	cfg := base()
	cfg.FrontEndS = f
	r, s := run(t, cfg, []Request{{Prompt: 1000, Gen: 1}, {Arrival: 1, Prompt: 1000, Gen: 1}}, c)
	if !near(r.FirstToken[0], f+5e-3) || !near(r.FirstToken[1], 1+f+5e-3) || !near(r.Arrival[1], 1) {
		t.Errorf("first tokens at %g and %g s (second sent at %g), want 0.009 and 1.009 (sent at 1)", r.FirstToken[0], r.FirstToken[1], r.Arrival[1])
	}
	if !near(s.TTFTMean, f+5e-3) {
		t.Errorf("mean TTFT %g s, want 0.009 (from sending)", s.TTFTMean)
	}
	// Closed loop, one client: the next request is sent when the last one ends.
	cfg.Concurrency = 1
	r, _ = run(t, cfg, []Request{{Prompt: 500, Gen: 1}, {Prompt: 500, Gen: 1}}, c)
	if ttft := r.FirstToken[1] - r.Arrival[1]; !near(ttft, f+5e-3) || !near(r.Arrival[1], r.Done[0]) {
		t.Errorf("closed loop: second request sent at %g (first done %g), TTFT %g, want sent at the first's end and 0.009", r.Arrival[1], r.Done[0], ttft)
	}
	cfg.FrontEndS = -1
	if _, err := Run(cfg, []Request{{Prompt: 1, Gen: 1}}, c); err == nil {
		t.Error("a negative front end was accepted")
	}
}

// Overlap with pipeline stages: the batch entering stage 0 was built when the one before it
// entered stage 0, so a request arriving while stage 0 is busy waits one stage slot more; with
// stage 0 idle it starts at once.
func TestOverlapWithStages(t *testing.T) {
	c := linear{fixed: 10e-3} // 10 ms a stage
	// A and C keep both engines' batches going (stage 0 busy from 0 on: A's engine enters it at
	// 0, 20, 40 ms, C's at 10, 30, 50 ms); B arrives at 35 ms for A's engine, whose batch at 40
	// ms was built at 30 ms: B waits for the one at 60 ms.
	reqs := []Request{{Prompt: 16, Gen: 200}, {Prompt: 16, Gen: 200}, {Arrival: 35e-3, Prompt: 16, Gen: 3}}
	first := func(overlap bool) float64 {
		cfg := base()
		cfg.Stages, cfg.Overlap = 2, overlap
		r, _ := run(t, cfg, reqs, c)
		return r.FirstToken[2]
	}
	if d := first(true) - first(false); !near(d, 20e-3) {
		t.Errorf("B's first token %g s later with overlap, want its engine's next step (0.02 s)", d)
	}
	// Alone, on idle stages: no wait.
	cfg := base()
	cfg.Stages, cfg.Overlap = 2, true
	r, _ := run(t, cfg, []Request{{Arrival: 1, Prompt: 16, Gen: 2}}, c)
	if !near(r.FirstToken[0], 1.02) {
		t.Errorf("idle stages: first token at %g s, want 1.02", r.FirstToken[0])
	}
}

// Multi-step scheduling (vLLM 0.6's --num-scheduler-steps n): a decode batch runs n steps
// before the scheduler runs again, so a request that arrives during the window waits for its
// end; the window's tokens come out together at its end; a prefill step is one step. Oracle
// with steps of 1 s: A's prompt [0, 1], A's first window of 10 decodes [1, 11]; B, sent at 2,
// is prefilled [11, 12] (its first and only token at 12); A's last 10 tokens [12, 22]. Without
// multi-step B's prompt runs at once, [2, 3].
func TestMultiStepWindow(t *testing.T) {
	c := linear{fixed: 1}
	reqs := []Request{{Prompt: 1, Gen: 21}, {Arrival: 2, Prompt: 1, Gen: 1}}
	for _, steps := range []int{1, 10} {
		cfg := base()
		cfg.PrefillFirst, cfg.WholePrompts, cfg.MultiStep, cfg.ITL = true, true, steps, true
		r, _ := run(t, cfg, reqs, c)
		// 22 engine steps either way (a window's steps count each: their collectives run).
		wantB, wantSteps, wantGaps := 3.0, 22, 20
		if steps == 10 {
			// A's 20 tokens after its first in two windows: the client sees two gaps of 10 s.
			wantB, wantGaps = 12, 2
		}
		if r.FirstToken[0] != 1 || r.FirstToken[1] != wantB || r.Done[1] != wantB || r.Done[0] != 22 {
			t.Errorf("multi-step %d: A first %g done %g, B first %g done %g; want 1, 22, %g, %g", steps,
				r.FirstToken[0], r.Done[0], r.FirstToken[1], r.Done[1], wantB, wantB)
		}
		if r.Steps != wantSteps {
			t.Errorf("multi-step %d: %d engine steps, want %d", steps, r.Steps, wantSteps)
		}
		if g := len(r.ITL.IDs); g != wantGaps {
			t.Errorf("multi-step %d: %d gaps between A's tokens, want %d", steps, g, wantGaps)
		}
	}
	// A window runs only as many steps as its longest sequence still needs (U: vLLM 0.6 runs
	// all n; a sequence past its end only idles), and needs the KV blocks of its tokens.
	cfg := base()
	cfg.PrefillFirst, cfg.WholePrompts, cfg.MultiStep = true, true, 10
	cfg.KVBlocks, cfg.BlockTokens = 2, 16
	r, _ := run(t, cfg, []Request{{Prompt: 5, Gen: 25}}, c)
	if r.Done[0] != 1+10+10+4 || r.Preemptions != 0 {
		t.Errorf("one request of 5 + 25 tokens: done at %g (preemptions %d), want 25", r.Done[0], r.Preemptions)
	}
}

// SGLang's --scheduler-recv-interval N (SchedulerRecvSkipper): the scheduler polls for new
// requests only when the batches since its last poll weigh N, a decode batch 1 and a batch with
// prompts 1000; an idle scheduler polls at once.
func TestRecvInterval(t *testing.T) {
	c := linear{fixed: 1}
	// A decodes from t 1; B arrives at 2.5, mid-decode; D at 11.5, during B's prompt step; C at
	// 100, when the engine is idle.
	reqs := []Request{{Prompt: 1, Gen: 30}, {Arrival: 2.5, Prompt: 1, Gen: 2}, {Arrival: 11.5, Prompt: 1, Gen: 1},
		{Arrival: 100, Prompt: 1, Gen: 1}}
	for _, tc := range []struct {
		interval   int
		b, d, cTok float64
	}{
		// Every step polls: B is in the step built at 3 (prompts first), D in the one at 12.
		{0, 4, 13, 101},
		{1, 4, 13, 101},
		// A's prompt step (0–1) makes the step built at 1 poll; then decode steps 1–2, 2–3, …
		// add 1 each, and the step built at 11 is the next poll: B's prompt runs 11–12. D,
		// arrived during that prompt step, is polled by the step right after it (were a prompt
		// step to weigh 1, D would wait for the step built at 21).
		{10, 12, 13, 101},
	} {
		cfg := base()
		cfg.PrefillFirst, cfg.RecvInterval = true, tc.interval
		r, _ := run(t, cfg, reqs, c)
		if r.FirstToken[1] != tc.b || r.FirstToken[2] != tc.d || r.FirstToken[3] != tc.cTok {
			t.Errorf("recv interval %d: first tokens B %g, D %g, C %g; want %g, %g, %g", tc.interval,
				r.FirstToken[1], r.FirstToken[2], r.FirstToken[3], tc.b, tc.d, tc.cTok)
		}
	}
	if _, err := Run(Config{Replicas: 1, Stages: 1, MaxSeqs: 1, MaxBatchTokens: 1, BlockTokens: 1, RecvInterval: -1},
		[]Request{{Prompt: 1, Gen: 1}}, c); err == nil || !strings.Contains(err.Error(), "recv interval -1") {
		t.Errorf("recv interval -1: %v, want an error naming it", err)
	}
}
