package costmodel

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// cpScenario is llama-3-8b training at sequence seq on gpus H100s (8 a node), TP tp, CP cp,
// the rest DP; selective recompute off, micro-batch 1.
func cpScenario(t testing.TB, gpus, tp, cp, seq int, kind model.CPComm) model.Scenario {
	t.Helper()
	s := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", gpus, tp, 1)
	s.Layout.CP, s.Layout.CPComm = cp, kind
	s.Layout.DP = gpus / (tp * max(cp, 1))
	s.Workload.Seq = seq
	s.Workload.GlobalBatch = s.Layout.DP * 4
	return s
}

// CP 1 (set) is CP unset, to the bit, whatever the comm kind says: the goldens pin unset.
func TestCPOneIsToday(t *testing.T) {
	base := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 16, 2, 2)
	base.Cluster.GPUsPerNode = 8
	want := eval(t, base)
	for _, k := range model.CPComms() {
		s := base
		s.Layout.CP, s.Layout.CPComm = 1, k
		got := eval(t, s)
		got.Layout.CPComm = ""
		if k != model.CPRing {
			// The one difference: a warning that the exchange does nothing at CP 1.
			n := len(got.Warnings)
			if n == 0 || !strings.Contains(got.Warnings[n-1], "has no effect with CP = 1") {
				t.Errorf("CP 1 %s: no warning that cp-comm does nothing: %q", k, got.Warnings)
			} else {
				got.Warnings = got.Warnings[:n-1]
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("CP 1 %s: the report differs from CP unset (step %v vs %v)", k, got.StepTime, want.StepTime)
		}
	}
}

// Ring CP over free links (infinite bandwidth, no latency) is the ideal split: nothing exposed,
// the same model FLOPs over c times the GPUs, each GPU's compute and activations 1/c of CP 1's.
func TestCPRingFreeLinksIsIdealSplit(t *testing.T) {
	free := func(s *model.Scenario) {
		for _, l := range []*model.Link{&s.Cluster.Intra, &s.Cluster.Inter} {
			l.Bandwidth, l.Latency = 1e30, 0 // no finite link is faster
		}
	}
	one := cpScenario(t, 8, 1, 1, 32768, model.CPRing)
	free(&one)
	r1 := eval(t, one)
	for _, c := range []int{2, 4, 8} {
		s := cpScenario(t, 8*c, 1, c, 32768, model.CPRing)
		s.Cluster.GPUsPerNode = 8
		s.Workload.GlobalBatch = one.Workload.GlobalBatch
		free(&s)
		r := eval(t, s)
		if r.Breakdown.CPComm != 0 {
			t.Errorf("CP %d: %v s of CP exchange exposed on free links", c, r.Breakdown.CPComm)
		}
		if d := r.Detail.ModelFLOPs/r1.Detail.ModelFLOPs - 1; math.Abs(d) > 1e-12 {
			t.Errorf("CP %d: model FLOPs %g vs %g at CP 1", c, r.Detail.ModelFLOPs, r1.Detail.ModelFLOPs)
		}
		if d := r.Memory.Activations*float64(c)/r1.Memory.Activations - 1; math.Abs(d) > 1e-12 {
			t.Errorf("CP %d: activations %g, want %g / %d", c, r.Memory.Activations, r1.Memory.Activations, c)
		}
		// The GEMMs read the same weights for 1/c of the tokens: compute-bound at these sizes,
		// so within 1% of 1/c.
		if d := r.Breakdown.Compute*float64(c)/r1.Breakdown.Compute - 1; math.Abs(d) > 0.01 {
			t.Errorf("CP %d: compute %v, want about %v / %d (%.2f%% off)", c, r.Breakdown.Compute, r1.Breakdown.Compute, c, 100*d)
		}
	}
}

// A longer sequence never costs less per step, at any CP and comm kind; more CP never raises a
// GPU's activation memory.
func TestCPProperties(t *testing.T) {
	for _, k := range model.CPComms() {
		for _, c := range []int{1, 2, 4, 8} {
			if k == model.CPUlysses && c > 4 {
				continue // llama-3-8b's 8 KV heads over TP 2 bound Ulysses at 4
			}
			prev := 0.0
			for _, seq := range []int{4096, 8192, 16384, 32768, 65536} {
				s := cpScenario(t, 64, 2, c, seq, k)
				s.Layout.Recompute = model.RecomputeSelective
				r := eval(t, s)
				if r.StepTime < prev {
					t.Errorf("%s CP %d: seq %d steps in %v, shorter than the seq before (%v)", k, c, seq, r.StepTime, prev)
				}
				prev = r.StepTime
			}
		}
		for _, seq := range []int{8192, 131072} {
			prev := math.Inf(1)
			for _, c := range []int{1, 2, 4, 8, 16} {
				if k == model.CPUlysses && c > 4 {
					continue
				}
				s := cpScenario(t, 128, 2, c, seq, k)
				r := eval(t, s)
				if r.Memory.Activations > prev {
					t.Errorf("%s seq %d: CP %d keeps %g B of activations, more than the CP before (%g)", k, seq, c, r.Memory.Activations, prev)
				}
				prev = r.Memory.Activations
			}
		}
	}
}

// The ring hides its sends behind the attention when the link is fast enough and shows the
// rest: at 128K on NVLink nothing is exposed; across nodes on a slow network at a short
// sequence, the sends exceed the attention blocks.
func TestCPRingExposure(t *testing.T) {
	s := cpScenario(t, 8, 1, 8, 131072, model.CPRing)
	r := eval(t, s)
	if r.Breakdown.CPComm != 0 {
		t.Errorf("CP 8 on NVLink at 128K: %v s exposed, want the sends hidden", r.Breakdown.CPComm)
	}
	s = cpScenario(t, 16, 8, 2, 4096, model.CPRing)
	s.Cluster.Inter.Bandwidth /= 16
	r = eval(t, s)
	if r.Breakdown.CPComm <= 0 {
		t.Errorf("CP 2 across nodes on a slow link at 4K: nothing exposed")
	}
	// all-gather and ulysses are exposed by construction.
	for _, k := range []model.CPComm{model.CPAllGather, model.CPUlysses} {
		s := cpScenario(t, 8, 1, 8, 131072, k)
		if r := eval(t, s); r.Breakdown.CPComm <= 0 {
			t.Errorf("%s: nothing exposed", k)
		}
	}
}

// Hybrid is Ulysses inside a node and ring across: with the CP group in one node it is Ulysses.
func TestCPHybridSplit(t *testing.T) {
	s := cpScenario(t, 32, 1, 16, 65536, model.CPHybrid)
	u, r := s.Layout.CPSplit(s.Arch, 8)
	if u != 8 || r != 2 {
		t.Errorf("hybrid CP 16 on nodes of 8, llama-3-8b (8 KV heads): ulysses %d × ring %d, want 8 × 2", u, r)
	}
	s.Layout.TP = 2
	if u, r := s.Layout.CPSplit(s.Arch, 8); u != 4 || r != 4 {
		t.Errorf("hybrid CP 16 with TP 2: ulysses %d × ring %d, want 4 × 4", u, r)
	}
	a := eval(t, cpScenario(t, 8, 1, 8, 65536, model.CPHybrid))
	b := eval(t, cpScenario(t, 8, 1, 8, 65536, model.CPUlysses))
	if a.StepTime != b.StepTime {
		t.Errorf("hybrid inside one node: step %v, Ulysses %v", a.StepTime, b.StepTime)
	}
}

// The DP gradient sync runs over DP × CP: CP's ranks hold the same weights, so ZeRO shards
// over them too.
func TestCPShardsOverDPTimesCP(t *testing.T) {
	s := cpScenario(t, 16, 1, 4, 32768, model.CPRing)
	s.Layout.ZeRO = 1
	r := eval(t, s)
	s2 := cpScenario(t, 16, 1, 1, 32768, model.CPRing)
	s2.Layout.ZeRO = 1
	r2 := eval(t, s2)
	if d := r.Memory.Optimizer/r2.Memory.Optimizer - 1; math.Abs(d) > 1e-12 {
		t.Errorf("ZeRO-1 optimizer with CP 4 × DP 4: %g B, with DP 16: %g B", r.Memory.Optimizer, r2.Memory.Optimizer)
	}
}

// FP8 training runs the attention core in BF16 (Transformer Engine's default): at 256K tokens,
// where the attention is most of the step, FP8 saves little; its GEMMs alone are twice as fast.
func TestFP8TrainingAttentionInBF16(t *testing.T) {
	s := cpScenario(t, 64, 4, 8, 262144, model.CPRing)
	s.Layout.DP, s.Workload.GlobalBatch = 2, 8
	bf := eval(t, s)
	s.Workload.Precision = model.FP8
	f8 := eval(t, s)
	if r := f8.StepTime / bf.StepTime; r < 0.75 || r >= 1 {
		t.Errorf("FP8 step %.3g s over BF16's %.3g s = %.2f: want a small saving (attention in BF16)", f8.StepTime, bf.StepTime, r)
	}
	s.Workload.Seq = 8192
	s.Layout.CP, s.Layout.DP = 0, 16
	s.Workload.GlobalBatch = 64
	s.Workload.Precision = model.BF16
	bf = eval(t, s)
	s.Workload.Precision = model.FP8
	f8 = eval(t, s)
	if r := f8.StepTime / bf.StepTime; r > 0.8 {
		t.Errorf("at 8K FP8 steps in %.2f of BF16's time: the GEMMs should gain more", r)
	}
}

// At DP 1 with CP > 1, ZeRO and the serial DP sync act on the CP ranks' gradient group (DP × CP,
// Megatron's data-parallel-with-context-parallel group): neither warns that it has no effect, and
// each does change a number (ZeRO the memory, serial DP the exposed gradient sync). At CP 1 the
// warnings stay.
func TestCPZeROAndSerialDPAtDPOne(t *testing.T) {
	s := cpScenario(t, 8, 2, 4, 32768, model.CPRing)
	if s.Layout.DP != 1 {
		t.Fatalf("DP %d, want 1", s.Layout.DP)
	}
	base := eval(t, s)
	z := s
	z.Layout.ZeRO = 1
	rz := eval(t, z)
	ser := s
	ser.Layout.SerialDP = true
	rs := eval(t, ser)
	for _, w := range append(append([]string{}, rz.Warnings...), rs.Warnings...) {
		if strings.Contains(w, "no effect with DP = 1") {
			t.Errorf("at DP 1 × CP 4: %s", w)
		}
	}
	if !(rz.Memory.Optimizer < 0.5*base.Memory.Optimizer) {
		t.Errorf("ZeRO 1 over CP 4: optimizer %g B, without %g B: want a quarter", rz.Memory.Optimizer, base.Memory.Optimizer)
	}
	if !(rs.Breakdown.DPComm > base.Breakdown.DPComm) {
		t.Errorf("serial DP over CP 4: exposed sync %g s, overlapped %g s: want more", rs.Breakdown.DPComm, base.Breakdown.DPComm)
	}
	// CP 1, DP 1: both still warn.
	one := cpScenario(t, 2, 2, 1, 32768, model.CPRing)
	one.Layout.ZeRO, one.Layout.SerialDP = 1, true
	ws := LayoutWarnings(one)
	if countContaining(ws, "ZeRO 1 has no effect with DP = 1") != 1 || countContaining(ws, "serial DP has no effect with DP = 1") != 1 {
		t.Errorf("DP 1 × CP 1 warnings: %q", ws)
	}
	// Search tries ZeRO at DP 1 × CP 4: the knobs it enumerates there include it.
	kv := knobsFor(s, SearchFix{}, 2, 4, 1, 1)
	if len(kv.zeros) != 4 || len(kv.serials) != 2 {
		t.Errorf("search's knobs at TP 2 × CP 4 × DP 1: ZeRO %v, serial %v", kv.zeros, kv.serials)
	}
}
