package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

func TestPow2(t *testing.T) {
	next := pow2(64)
	for _, tc := range []struct{ v, dir, want int }{{1, 1, 2}, {3, 1, 4}, {4, 1, 8}, {64, 1, 64}, {8, -1, 4}, {5, -1, 4}, {1, -1, 1}} {
		if got := next(nil, tc.v, tc.dir); got != tc.want {
			t.Errorf("pow2 %d %+d = %d, want %d", tc.v, tc.dir, got, tc.want)
		}
	}
}

func TestAmongDivisors(t *testing.T) {
	next := among(func(*model.Scenario) []int { return model.Divisors(12) })
	for _, tc := range []struct{ v, dir, want int }{{1, 1, 2}, {4, 1, 6}, {12, 1, 12}, {6, -1, 4}, {5, -1, 4}, {1, -1, 1}} {
		if got := next(nil, tc.v, tc.dir); got != tc.want {
			t.Errorf("among %d %+d = %d, want %d", tc.v, tc.dir, got, tc.want)
		}
	}
}

func testScenario(t testing.TB) (model.Scenario, *assets.Presets) {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Model("llama-2-13b")
	g, _ := p.GPU("h100-sxm")
	nv, _ := p.Link("nvlink4")
	ib, _ := p.Link("ib-ndr")
	return model.Scenario{
		Arch:         a,
		Cluster:      model.Cluster{GPU: g, GPUs: 8, GPUsPerNode: 8, Intra: nv, Inter: ib, NICsPerNode: 8},
		Layout:       model.Layout{TP: 4, PP: 2, DP: 1, Chunks: 1, MicroBatch: 1},
		Workload:     model.Workload{Mode: model.Train, Seq: 2048, GlobalBatch: 16, PromptTokens: 512, GenTokens: 64, Requests: 8},
		ReserveBytes: model.DefaultReserveBytes,
	}, p
}

func fieldNamed(t *testing.T, name string) field {
	t.Helper()
	for _, f := range fields() {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no field %s", name)
	return field{}
}

func TestGPUsKeepTheBatchAndOfferASplitThatFits(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2 on 8 GPUs, batch 16
	gpus := fieldNamed(t, "gpus")
	next, o, err := tryEdit(s, "gpus", func(x *model.Scenario) error { gpus.step(x, p, +1); return nil })
	// 8 → 16: DP doubles, the batch stays and m halves.
	if err != nil || o != nil || next.Cluster.GPUs != 16 || next.Layout.DP != 2 || next.Workload.GlobalBatch != 16 || next.MicroBatches() != 8 {
		t.Errorf("GPUs up: %d GPUs, DP %d, batch %d, m %d, offer %v", next.Cluster.GPUs, next.Layout.DP, next.Workload.GlobalBatch, next.MicroBatches(), o)
	}
	// 8 → 4: TP 4 × PP 2 needs 8: not applied, and the offer keeps 4 GPUs.
	_, o, _ = tryEdit(s, "gpus", func(x *model.Scenario) error { gpus.step(x, p, -1); return nil })
	if o == nil || !o.ok || o.s.Cluster.GPUs != 4 || o.s.Validate() != nil || o.s.Layout.TP*o.s.Layout.PP*o.s.Layout.DP != 4 {
		t.Fatalf("GPUs down: offer %+v", o)
	}
	if !strings.Contains(o.why, "TP 4 × PP 2 needs 8 GPUs; there are 4") {
		t.Errorf("why: %q", o.why)
	}
}

func TestTPStepsThroughDivisorsOfTheGPUs(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2 on 8 GPUs
	tp := fieldNamed(t, "tp")
	next, o, _ := tryEdit(s, "tp", func(x *model.Scenario) error { tp.step(x, p, +1); return nil })
	if o == nil || next.Layout.TP != 8 {
		t.Fatalf("TP 8 × PP 2 on 8 GPUs: TP %d, offer %v", next.Layout.TP, o)
	}
	if o.s.Layout.TP != 8 || o.s.Layout.PP != 1 {
		t.Errorf("offer %+v, want TP 8 × PP 1 (the edit kept, PP moved)", o.s.Layout)
	}
	next, o, _ = tryEdit(s, "tp", func(x *model.Scenario) error { tp.step(x, p, -1); return nil })
	if o != nil || next.Layout.TP != 2 || next.Layout.DP != 2 {
		t.Errorf("TP %d DP %d, want 2 and 2", next.Layout.TP, next.Layout.DP)
	}
}

func TestTypedValues(t *testing.T) {
	s, p := testScenario(t)
	if err := fieldNamed(t, "tp").set(&s, p, "x"); err == nil {
		t.Error("typing x into TP was accepted")
	}
	if err := fieldNamed(t, "model").set(&s, p, "llama-3-8b"); err != nil || s.Arch.ID != "llama-3-8b" {
		t.Errorf("model llama-3-8b: %v, %s", err, s.Arch.ID)
	}
	if err := fieldNamed(t, "schedule").set(&s, p, "interleaved"); err != nil || s.Layout.Chunks != 2 {
		t.Errorf("schedule interleaved: %v, chunks %d", err, s.Layout.Chunks)
	}
	if err := fieldNamed(t, "mode").set(&s, p, "nope"); err == nil {
		t.Error("mode nope accepted")
	}
}

func TestVisibleFieldsFollowTheMode(t *testing.T) {
	s, _ := testScenario(t)
	names := func() map[string]bool {
		out := map[string]bool{}
		all := fields()
		for _, i := range visibleFields(all, &s) {
			out[all[i].name] = true
		}
		return out
	}
	if n := names(); !n["seq"] || n["prompt"] {
		t.Errorf("training shows %v", n)
	}
	s.Workload.Mode = model.Infer
	if n := names(); n["seq"] || !n["prompt"] || !n["gen"] {
		t.Errorf("inference shows %v", n)
	}
}

// Switching to inference shows the serving rows instead of the micro-batch ones; the rate and
// the clients exclude each other; weights and KV cache cycle through their formats.
func TestServingRows(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2, 8 requests
	mode := fieldNamed(t, "mode")
	mode.step(&s, p, +1)
	if s.Workload.Mode != model.Infer || s.Layout.MicroBatch != 1 {
		t.Fatalf("infer: mode %v, b %d", s.Workload.Mode, s.Layout.MicroBatch)
	}
	var shown []string
	for _, i := range visibleFields(fields(), &s) {
		shown = append(shown, fields()[i].name)
	}
	for _, want := range []string{"requests", "rate", "concurrency", "weights", "kv-cache", "prompt", "gen", "slo-ttft", "slo-tpot"} {
		if !slices.Contains(shown, want) {
			t.Errorf("inference rows %v lack %s", shown, want)
		}
	}
	for _, not := range []string{"micro-batch", "micro-batches", "batch"} {
		if slices.Contains(shown, not) {
			t.Errorf("inference rows %v show %s", shown, not)
		}
	}
	rate, clients := fieldNamed(t, "rate"), fieldNamed(t, "concurrency")
	clients.step(&s, p, +1)
	clients.step(&s, p, +1)
	if s.Workload.Concurrency != 2 || clients.get(&s) != "2" {
		t.Errorf("clients %d (%s), want 2", s.Workload.Concurrency, clients.get(&s))
	}
	rate.step(&s, p, +1)
	if s.Workload.Rate != 0.25 || s.Workload.Concurrency != 0 || clients.get(&s) != "off" {
		t.Errorf("rate %g, clients %d: a rate turns the clients off", s.Workload.Rate, s.Workload.Concurrency)
	}
	if err := rate.set(&s, p, "at once"); err != nil || s.Workload.Rate != 0 || rate.get(&s) != "at once" {
		t.Errorf("rate at once: %v, %g", err, s.Workload.Rate)
	}
	if err := rate.set(&s, p, "-3"); err == nil {
		t.Errorf("a negative rate was taken")
	}
	w := fieldNamed(t, "weights")
	if w.get(&s) != "= precision" {
		t.Errorf("weights %q", w.get(&s))
	}
	w.step(&s, p, +1)
	if s.Workload.Weights != "fp8" {
		t.Errorf("weights %q after a step, want fp8", s.Workload.Weights)
	}
	if err := w.set(&s, p, "int4"); err != nil || s.Workload.Weights != "int4" {
		t.Errorf("weights int4: %v", err)
	}
	if err := w.set(&s, p, "int3"); err == nil {
		t.Errorf("weights int3 was taken")
	}
	slo := fieldNamed(t, "slo-tpot")
	if slo.get(&s) != "off" {
		t.Errorf("SLO TPOT %q, want off", slo.get(&s))
	}
	slo.step(&s, p, +1)
	if s.Workload.SLOTPOT != 0.01 {
		t.Errorf("SLO TPOT %g after a step, want 0.01", s.Workload.SLOTPOT)
	}
	if err := slo.set(&s, p, "75ms"); err != nil || s.Workload.SLOTPOT != 0.075 || slo.get(&s) != "75.0 ms" {
		t.Errorf("SLO TPOT 75ms: %v, %g, %q", err, s.Workload.SLOTPOT, slo.get(&s))
	}
	if err := slo.set(&s, p, "soon"); err == nil {
		t.Errorf("SLO TPOT soon was taken")
	}
	if err := s.Validate(); err != nil {
		t.Errorf("after the edits: %v", err)
	}
	mode.step(&s, p, +1)
	if s.Workload.Mode != model.Train || s.Layout.MicroBatch != 1 {
		t.Errorf("train: b %d, want 1", s.Layout.MicroBatch)
	}
}

// Switching to a model whose heads TP does not divide is refused with the nearest split that
// keeps the model: TP moves, the GPUs and the batch stay.
func TestModelSwitchOffersASplitThatDividesTheHeads(t *testing.T) {
	s, p := testScenario(t)
	a, _ := p.Model("llama-3-70b")
	s.Arch = a
	s.Cluster.GPUs, s.Cluster.GPUsPerNode = 32, 16
	s.Layout = model.Layout{TP: 16, PP: 2, DP: 1, Chunks: 1, MicroBatch: 1}
	s.Workload.GlobalBatch = 32
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	_, o, err := tryEdit(s, "model", func(x *model.Scenario) error {
		return fieldNamed(t, "model").set(x, p, "llama-2-13b") // 40 heads
	})
	if err != nil || o == nil || !o.ok {
		t.Fatalf("err %v, offer %+v", err, o)
	}
	if !strings.HasPrefix(o.why, "tp 16: must divide heads (40)") {
		t.Errorf("why: %q", o.why)
	}
	got := o.s
	if got.Arch.ID != "llama-2-13b" || got.Cluster.GPUs != 32 || got.Workload.GlobalBatch != 32 || 40%got.Layout.TP != 0 {
		t.Errorf("offer: %s, %d GPUs, batch %d, layout %+v", got.Arch.ID, got.Cluster.GPUs, got.Workload.GlobalBatch, got.Layout)
	}
	if got.Layout.TP != 8 || got.Layout.PP != 2 || got.Layout.DP != 2 {
		t.Errorf("offer TP %d × PP %d × DP %d; want TP 8 × PP 2 × DP 2 (TP halved, PP kept, DP follows)", got.Layout.TP, got.Layout.PP, got.Layout.DP)
	}
}

// A training knob cycles past its last value to auto and back to its first; typed "auto" sets
// it too. In the explorer the row then shows search's choice for the split, "auto → …", the
// evaluation runs on that choice, and Compare searches that knob for every contender.
func TestKnobsCanBeAuto(t *testing.T) {
	s, p := testScenario(t)
	rc := fieldNamed(t, "recompute")
	rc.step(&s, p, -1)
	if s.Layout.Auto != model.AutoRecompute || !strings.HasPrefix(rc.get(&s), "auto → ") {
		t.Fatalf("← from none: auto %b, row %q", s.Layout.Auto, rc.get(&s))
	}
	rc.step(&s, p, +1)
	if s.Layout.Auto != 0 || s.Layout.Recompute != model.RecomputeNone || rc.get(&s) != "none" {
		t.Fatalf("→ from auto: auto %b, %v, row %q", s.Layout.Auto, s.Layout.Recompute, rc.get(&s))
	}
	if err := fieldNamed(t, "zero").set(&s, p, " AUTO "); err != nil || s.Layout.Auto != model.AutoZeRO {
		t.Fatalf("typed auto: %v, auto %b", err, s.Layout.Auto)
	}
	if err := fieldNamed(t, "zero").set(&s, p, "5"); err == nil || !strings.Contains(err.Error(), "auto") {
		t.Errorf("typed 5: %v", err)
	}
	if err := fieldNamed(t, "zero").set(&s, p, "1"); err != nil || s.Layout.Auto != 0 || s.Layout.ZeRO != 1 {
		t.Errorf("typed 1 after auto: %v, auto %b, ZeRO %d", err, s.Layout.Auto, s.Layout.ZeRO)
	}

	dp := fieldNamed(t, "dp-sync")
	if dp.step(&s, p, +1); !s.Layout.SerialDP || dp.get(&s) != "serial" {
		t.Errorf("DP sync → from overlap: serial %v, row %q", s.Layout.SerialDP, dp.get(&s))
	}
	if dp.step(&s, p, +1); s.Layout.Auto&model.AutoSerialDP == 0 {
		t.Errorf("DP sync → from serial: auto %b", s.Layout.Auto)
	}

	m := ready(t, 120, 40, func(s *model.Scenario) { s.Layout.Auto = model.AutoRecompute | model.AutoSequenceParallel })
	want, err := costmodel.ResolveAuto(m.cur)
	if err != nil {
		t.Fatal(err)
	}
	if m.cur.Layout.Recompute != want.Layout.Recompute || m.cur.Layout.SequenceParallel != want.Layout.SequenceParallel {
		t.Errorf("panel %+v, search chose %+v", m.cur.Layout, want.Layout)
	}
	if got := m.data.Scenario.Layout; got != want.Layout {
		t.Errorf("evaluated %+v, search chose %+v", got, want.Layout)
	}
	if v := fieldNamed(t, "recompute").get(&m.cur); v != "auto → "+want.Layout.Recompute.String() {
		t.Errorf("row %q", v)
	}
}

// The ETP row shows for a MoE model at TP > 1, steps through the divisors of TP the experts allow
// and stores TP as 0.
func TestETPRow(t *testing.T) {
	s, p := testScenario(t)
	a, err := p.Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	s.Arch, s.Layout.TP, s.Layout.PP, s.Layout.DP = a, 8, 1, 1
	f := fieldNamed(t, "etp")
	if !f.show(&s) || f.get(&s) != "8" {
		t.Fatalf("TP 8: shown %v, value %q", f.show(&s), f.get(&s))
	}
	f.step(&s, p, -1)
	if s.Layout.ETP != 4 || f.get(&s) != "4" {
		t.Errorf("← from 8: ETP %d (%q), want 4", s.Layout.ETP, f.get(&s))
	}
	if err := f.set(&s, p, "8"); err != nil || s.Layout.ETP != 0 {
		t.Errorf("set 8: ETP %d, %v; want 0 (TP)", s.Layout.ETP, err)
	}
	if err := f.set(&s, p, "1"); err != nil || s.Layout.ETP != 1 || s.Validate() != nil {
		t.Errorf("set 1: ETP %d, %v, valid: %v", s.Layout.ETP, err, s.Validate())
	}
	s.Layout.TP, s.Layout.ETP = 1, 0
	if f.show(&s) {
		t.Errorf("ETP row shown at TP 1")
	}
}

// The EP dispatch row shows where a MoE model's EP group can leave the node, and cycles direct ↔
// two-hop.
func TestEPDispatchRow(t *testing.T) {
	s, p := testScenario(t)
	a, err := p.Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	f := fieldNamed(t, "ep-dispatch")
	s.Arch, s.Cluster.GPUs, s.Layout.TP, s.Layout.PP, s.Layout.DP, s.Layout.EP = a, 8, 8, 1, 1, 0
	if f.show(&s) {
		t.Errorf("shown without EP on one node")
	}
	s.Cluster.GPUs, s.Cluster.GPUsPerNode, s.Layout.TP, s.Layout.PP, s.Layout.DP, s.Layout.EP = 16, 8, 1, 1, 16, 16
	if !f.show(&s) || f.get(&s) != "direct" {
		t.Fatalf("EP 16 over two nodes: shown %v, %q", f.show(&s), f.get(&s))
	}
	f.step(&s, p, 1)
	if s.Layout.EPDispatch != model.EPDispatchTwoHop || f.get(&s) != "two-hop" {
		t.Errorf("→: %v (%q)", s.Layout.EPDispatch, f.get(&s))
	}
}
