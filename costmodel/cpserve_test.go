package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// cpServeScenario is one long prompt (prompt tokens, one generated) served by Llama 3 70B on
// hosts of 8 H100 at TP 8, CP = hosts, the whole prompt in one step.
func cpServeScenario(t testing.TB, prompt, cp int) model.Scenario {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8*cp, 8, 1)
	s.Cluster.GPUsPerNode = 8
	s.Layout.CP, s.Layout.DP = cp, 1
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = prompt, 1, 1
	s.Workload.MaxBatchTokens, s.Workload.Offline = prompt, true
	return s
}

// freeLinks makes every link of s free: no latency, unbounded bandwidth.
func freeLinks(s *model.Scenario) {
	for _, l := range []*model.Link{&s.Cluster.Intra, &s.Cluster.Inter} {
		l.Bandwidth, l.Latency, l.Efficiency = 1e18, 0, 1
	}
}

func ttft(t testing.TB, s model.Scenario) float64 {
	t.Helper()
	r := eval(t, s)
	if r.Inference == nil || !(r.Inference.TTFT > 0) || math.IsInf(r.Inference.TTFT, 0) {
		t.Fatalf("TTFT %+v", r.Inference)
	}
	return r.Inference.TTFT
}

// With free links, CP c serves a long prompt's prefill in about 1/c of CP 1's time: each rank
// runs 1/c of the tokens' linear layers and of the causal attention (the 2·c chunks balance
// it); only the per-step and per-kernel fixed costs do not shrink. With the real links the
// ring's exposed sends can only add.
func TestServeCPIdealSplit(t *testing.T) {
	const prompt = 65536
	s1 := cpServeScenario(t, prompt, 1)
	freeLinks(&s1)
	one := ttft(t, s1)
	for _, cp := range []int{2, 4, 8} {
		s := cpServeScenario(t, prompt, cp)
		freeLinks(&s)
		free := ttft(t, s)
		if r := free * float64(cp) / one; r < 0.97 || r > 1.08 {
			t.Errorf("CP %d, free links: TTFT %.3f s, CP 1 %.3f s: %.3f of the ideal 1/%d", cp, free, one, r, cp)
		}
		real := ttft(t, cpServeScenario(t, prompt, cp))
		if real < free {
			t.Errorf("CP %d: TTFT %.4f s on the real links under %.4f s on free ones", cp, real, free)
		}
	}
}

// CP helps a long prompt much more than a short one: the ring's sends per token stay while the
// attention that hides them shrinks with the prompt.
func TestServeCPHelpsLongPrompts(t *testing.T) {
	gain := func(prompt int) float64 {
		return ttft(t, cpServeScenario(t, prompt, 1)) / ttft(t, cpServeScenario(t, prompt, 8))
	}
	short, long := gain(1024), gain(131072)
	if !(long > 6 && short < long) {
		t.Errorf("CP 8's TTFT gain: %.2f× at 1K, %.2f× at 128K", short, long)
	}
}

// A longer prompt is never served sooner, at any CP.
func TestServeCPLongerPromptNeverCheaper(t *testing.T) {
	for _, cp := range []int{1, 2, 4} {
		prev := 0.0
		for _, prompt := range []int{2048, 8192, 8193, 32768, 65536} {
			v := ttft(t, cpServeScenario(t, prompt, cp))
			if v < prev {
				t.Errorf("CP %d: %d-token prompt in %.4f s, the shorter one's %.4f", cp, prompt, v, prev)
			}
			prev = v
		}
	}
}

// The KV cache is sharded by token over the CP ranks: a replica of CP c holds about c times
// the tokens of CP 1 (the same weights a GPU, the same working set at the engine's default
// budget, which grows c-fold with the replica's tokens, plus its decode tokens on every rank).
func TestServeCPKVCapacity(t *testing.T) {
	kv := func(cp int) float64 {
		s := cpServeScenario(t, 4096, cp)
		s.Workload.MaxBatchTokens = 0
		r := eval(t, s)
		return r.Inference.KVCacheTokens
	}
	one := kv(1)
	for _, cp := range []int{2, 4, 8} {
		if r := kv(cp) / one / float64(cp); r < 0.97 || r > 1.0001 {
			t.Errorf("CP %d: KV %.0f tokens, CP 1 %.0f: %.3f of ×%d", cp, kv(cp), one, r, cp)
		}
	}
}

// Decode under CP: each rank reads 1/c of the cache but every rank reads the weights and the
// partial outputs are merged over the group. At a short context the merge makes the step
// slower than CP 1's; at a long one with free links the halved KV read makes it faster; and the
// merge is never free: the real links' step is longer than the free links'.
func TestServeCPDecodeStep(t *testing.T) {
	step := func(ctx, cp int, free bool) float64 {
		s := cpServeScenario(t, ctx, cp)
		if free {
			freeLinks(&s)
		}
		return eval(t, s).Inference.DecodeStepS
	}
	if a, b := step(1024, 2, false), step(1024, 1, false); !(a > b) {
		t.Errorf("1K context: CP 2 decode step %.4g s, CP 1 %.4g s: the merge should cost", a, b)
	}
	if a, b := step(131072, 2, true), step(131072, 1, true); !(a < b) {
		t.Errorf("128K context, free links: CP 2 decode step %.4g s, CP 1 %.4g s: half the KV read", a, b)
	}
	if a, b := step(131072, 2, false), step(131072, 2, true); !(a > b) {
		t.Errorf("128K context CP 2: real links %.4g s, free %.4g s", a, b)
	}
}

// Sliding windows, MLA and linear attention under serving CP: finite, positive, and a long
// prompt's TTFT at CP 2 below CP 1's.
func TestServeCPLayerKinds(t *testing.T) {
	for _, id := range []string{"gpt-oss-20b", "qwen3-next-80b-a3b", "deepseek-v3"} {
		t.Run(id, func(t *testing.T) {
			p := presets(t)
			a, err := p.Model(id)
			if err != nil {
				t.Fatal(err)
			}
			at := func(cp int) Report {
				s := cpServeScenario(t, 32768, cp)
				s.Arch = a
				s.Cluster.GPU = mustGPU(t, p, "h200-sxm")
				s.Layout.TP = 8
				if a.Experts > 1 {
					s.Layout.EP = 1
				}
				s.Workload.GenTokens, s.Workload.Requests = 16, 2
				return eval(t, s)
			}
			one, two := at(1), at(2)
			for _, r := range []Report{one, two} {
				inf := r.Inference
				for _, v := range []float64{inf.TTFT, inf.TPOT, inf.KVCacheTokens, r.StepTime} {
					if !(v > 0) || math.IsInf(v, 0) {
						t.Fatalf("TTFT %g TPOT %g KV %g step %g", inf.TTFT, inf.TPOT, inf.KVCacheTokens, r.StepTime)
					}
				}
			}
			if !(two.Inference.TTFT < one.Inference.TTFT) {
				t.Errorf("32K prompt: CP 2 TTFT %.4g s, CP 1 %.4g s", two.Inference.TTFT, one.Inference.TTFT)
			}
		})
	}
}

// A window's keys beyond the window are not passed: with every layer a 1K window and a slow
// link between the hosts (the CP pair's; TP stays inside a host), the exchange's exposed time
// (TTFT on the slow link less TTFT on a free one) does not grow with the prompt, while full
// attention's does.
func TestServeCPWindowBoundsExchange(t *testing.T) {
	exchange := func(window bool, prompt int) float64 {
		at := func(bw float64) float64 {
			s := cpServeScenario(t, prompt, 2)
			s.Cluster.Inter.Bandwidth = bw
			if window {
				s.Arch.LayerTypes, s.Arch.SlidingWindow = "sliding", 1024
			}
			return ttft(t, s)
		}
		return at(1e9) - at(1e18) // 8 Gb/s: the ring's sends show
	}
	w1, w2 := exchange(true, 16384), exchange(true, 65536)
	if !(w1 > 0) || w2 > 1.05*w1 {
		t.Errorf("1K window: exchange %.3g s at 16K, %.3g at 64K", w1, w2)
	}
	if f1, f2 := exchange(false, 16384), exchange(false, 65536); !(f2 > 1.5*f1) || !(f1 > 3*w1) {
		t.Errorf("full attention: exchange %.3g s at 16K, %.3g at 64K (window's %.3g)", f1, f2, w1)
	}
}

// Search: serving tries CP only for long prompts, and refuses it with --disagg by name.
func TestServeCPSearch(t *testing.T) {
	hasCP := func(prompt int) bool {
		s := cpServeScenario(t, prompt, 1)
		s.Cluster.GPUs = 16
		s.Layout.CP = 0
		s.Workload.Requests = 4
		res, err := Search(s, SearchOptions{Fix: SearchFix{TP: 8}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Candidates {
			if c.Layout.CPSize() > 1 {
				return true
			}
		}
		return false
	}
	if hasCP(2048) {
		t.Errorf("2K prompts: a CP candidate")
	}
	if !hasCP(16384) {
		t.Errorf("16K prompts: no CP candidate")
	}
	s := cpServeScenario(t, 16384, 1)
	s.Cluster.GPUs = 16
	_, err := Search(s, SearchOptions{Fix: SearchFix{CP: 2, Disagg: model.Disagg{PrefillGPUs: 8}}})
	if err == nil || !strings.Contains(err.Error(), "cp") {
		t.Errorf("CP 2 with --disagg: %v", err)
	}
}

// Pass-Q: a chunk of few new tokens behind a long cached context sends its queries round the
// ring, not the context's keys and values, when that is cheaper; a whole prompt of GQA keys
// passes K/V (fewer elements a token than the queries).
func TestServeCPPassQ(t *testing.T) {
	s := cpServeScenario(t, 65536, 2)
	s.Cluster.Inter.Bandwidth = 5e9 // a slow link: the exchange shows
	p := newPlan(s)
	c := p.servingCost()
	sh := p.k.Shapes[0]
	const core = 1e-4
	// 1K new tokens after 63K cached.
	late := serve.Batch{PrefillTokens: 1024, PrefillSeqs: 1, PrefillCtx: 65536}
	got := c.cpServe(sh, &late, late.PrefillCtx, core)
	kv := p.cpExchange(sh, late.PrefillCtx/2, core).ExposedS
	q := c.passQ(sh, 512, core)
	if !(q < kv) || got != q {
		t.Errorf("1K chunk after 63K: exchange %.4g s, pass-KV %.4g, pass-Q %.4g", got, kv, q)
	}
	// A whole 64K prompt: pass-KV.
	whole := serve.Batch{PrefillTokens: 65536, PrefillSeqs: 1, PrefillCtx: 65536}
	got = c.cpServe(sh, &whole, whole.PrefillCtx, core)
	kv = p.cpExchange(sh, whole.PrefillCtx/2, core).ExposedS
	if q := c.passQ(sh, 32768, core); !(kv < q) || got != kv {
		t.Errorf("whole 64K prompt: exchange %.4g s, pass-KV %.4g, pass-Q %.4g", got, kv, q)
	}
}

// Disaggregated serving with a CP prefill pool: long prompts' TTFT falls with the prefill pool's
// CP while the decode pool (no CP) keeps its TPOT; the report names the prefill CP.
func TestServeCPDisaggPrefill(t *testing.T) {
	run := func(pcp int) Report {
		s := cpServeScenario(t, 65536, 1)
		s.Cluster.GPUs = 64
		s.Layout.CP, s.Layout.DP = 0, 4
		s.Layout.Disagg = model.Disagg{PrefillGPUs: 32, PrefillTP: 8, PrefillCP: pcp}
		s.Workload.GenTokens, s.Workload.Requests, s.Workload.Rate = 64, 16, 0.3
		s.Workload.MaxBatchTokens = 0
		return eval(t, s)
	}
	one, four := run(0), run(4)
	if d := four.Inference.Disagg; d == nil || d.PrefillCP != 4 || d.PrefillInstances != 1 {
		t.Fatalf("prefill CP 4: %+v", four.Inference.Disagg)
	}
	if !(four.Inference.TTFT < 0.6*one.Inference.TTFT) {
		t.Errorf("64K prompts: TTFT %.3g s with prefill CP 4, %.3g without", four.Inference.TTFT, one.Inference.TTFT)
	}
	if r := four.Inference.TPOT / one.Inference.TPOT; r < 0.95 || r > 1.05 {
		t.Errorf("TPOT %.4g s with prefill CP 4, %.4g without: the decode pool has no CP", four.Inference.TPOT, one.Inference.TPOT)
	}
}
