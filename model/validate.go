package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FieldError is one invalid field: its name (the CLI flag), the value given and what is allowed.
type FieldError struct {
	Field   string
	Value   any
	Allowed string
	// Layout marks a problem of the split (TP, PP, DP, micro-batching, schedule) rather than of
	// the model, hardware or workload: Search skips such layouts instead of failing.
	Layout bool
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s = %s: %s", e.Field, Shorten(fmt.Sprint(e.Value)), e.Allowed)
}

// MaxShown is how many characters of a value a message shows; Shorten cuts the rest.
const MaxShown = 64

// Shorten is s as a message shows a value the user gave: whole up to MaxShown characters, else
// its first MaxShown, an ellipsis and its length ("xxxx… (10000 characters)"), so that a
// pasted file or a runaway argument cannot flood the terminal.
func Shorten(s string) string {
	n := 0
	for i := range s {
		if n == MaxShown {
			return fmt.Sprintf("%s… (%d characters)", s[:i], utf8.RuneCountInString(s))
		}
		n++
	}
	return s
}

// ValidationError lists every problem found in a scenario.
type ValidationError []*FieldError

func (v ValidationError) Error() string {
	parts := make([]string, len(v))
	for i, e := range v {
		parts[i] = e.Error()
	}
	return "invalid scenario: " + strings.Join(parts, "; ")
}

// Fields returns the names of the invalid fields, in order.
func (v ValidationError) Fields() []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = e.Field
	}
	return out
}

// Limits keep every scenario small enough to simulate in memory; they are far above real systems.
const (
	MaxLayers    = 4096
	MaxHidden    = 1 << 18
	MaxHeads     = 1 << 14
	MaxVocab     = 1 << 24
	MaxSeq       = 1 << 22
	MaxGPUs      = 1 << 20
	MaxBatch     = 1 << 24
	MaxGenTokens = 1 << 20
	// MaxOps bounds the ops of one simulated step (training: micro-batches × stages × chunks × 3).
	MaxOps = 1 << 22
	// MaxGPUsPerNode bounds a node, and so a box file (one node's probe).
	MaxGPUsPerNode = 1024
)

// intLimits are the ranges Validate allows for the integer fields, by field name (the command
// line's flag). One table, so that a value the command line cannot even parse (too many digits)
// is answered with the same range as one it can.
var intLimits = map[string][2]int{
	"layers": {1, MaxLayers}, "hidden": {1, MaxHidden}, "heads": {1, MaxHeads}, "kv-heads": {1, MaxHeads},
	"ffn": {1, 1 << 20}, "vocab": {1, MaxVocab},
	"gpus": {1, MaxGPUs}, "gpus-per-node": {1, MaxGPUsPerNode}, "nics-per-node": {1, MaxGPUsPerNode},
	"prompt": {1, MaxSeq}, "gen": {1, MaxGenTokens}, "requests": {1, MaxBatch}, "seq": {1, MaxSeq}, "batch": {1, MaxBatch},
	"tp": {1, MaxGPUs}, "pp": {1, MaxLayers}, "dp": {1, MaxGPUs}, "chunks": {1, 64}, "micro-batch": {1, MaxBatch},
	"zero": {0, 3}, "ep": {1, MaxGPUs}, "etp": {1, MaxGPUs}, "cp": {1, MaxGPUs},
	"concurrency": {1, MaxBatch}, "max-seqs": {1, MaxBatch}, "max-batch-tokens": {1, MaxSeq},
}

// IntLimits is the range Validate allows for the integer field named field; ok is false for a
// field that is not an integer field of a Scenario.
func IntLimits(field string) (lo, hi int, ok bool) {
	r, ok := intLimits[field]
	return r[0], r[1], ok
}

type checker struct{ errs ValidationError }

func (c *checker) add(field string, value any, allowed string, args ...any) {
	c.errs = append(c.errs, &FieldError{Field: field, Value: value, Allowed: fmt.Sprintf(allowed, args...)})
}

// layoutErrors marks every error added from index `from` on as a layout problem.
func (c *checker) layoutErrors(from int) {
	for _, e := range c.errs[from:] {
		e.Layout = true
	}
}

// OnlyLayout reports whether every problem is a layout problem.
func (v ValidationError) OnlyLayout() bool {
	for _, e := range v {
		if !e.Layout {
			return false
		}
	}
	return true
}

// intRange checks that v is within the field's intLimits and reports whether it held.
func (c *checker) intRange(field string, v int) bool {
	lo, hi, _ := IntLimits(field)
	if v < lo || v > hi {
		c.add(field, v, "must be between %d and %d", lo, hi)
		return false
	}
	return true
}

// positive checks a finite v > 0.
func (c *checker) positive(field string, v float64) bool {
	if !finite(v) || v <= 0 {
		c.add(field, v, "must be a finite number above 0")
		return false
	}
	return true
}

// fraction checks 0 < v ≤ 1.
func (c *checker) fraction(field string, v float64) {
	if !finite(v) || v <= 0 || v > 1 {
		c.add(field, v, "must be a fraction in (0, 1]")
	}
}

// Divisors lists the divisors of n in ascending order (none for n < 1).
func Divisors(n int) []int {
	var lo, hi []int
	for i := 1; i*i <= n; i++ {
		if n%i == 0 {
			lo = append(lo, i)
			if i != n/i {
				hi = append(hi, n/i)
			}
		}
	}
	for i := len(hi) - 1; i >= 0; i-- {
		lo = append(lo, hi[i])
	}
	return lo
}

func joinInts(v []int) string {
	if len(v) > 12 {
		v = append(v[:6:6], v[len(v)-3:]...)
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s[:6], ", ") + ", …, " + strings.Join(s[6:], ", ")
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// Validate checks the architecture alone.
func (a Arch) Validate() error {
	var c checker
	a.check(&c)
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs
}

func (a Arch) check(c *checker) {
	c.intRange("layers", a.Layers)
	hOK := c.intRange("hidden", a.Hidden)
	headsOK := c.intRange("heads", a.Heads)
	kvOK := c.intRange("kv-heads", a.KVHeads)
	c.intRange("ffn", a.FFN)
	c.intRange("vocab", a.Vocab)
	if a.HeadSize != 0 {
		if a.HeadSize < 1 || a.HeadSize > 1024 {
			c.add("head-dim", a.HeadSize, "must be between 1 and 1024 (0: hidden / heads)")
		}
	} else if hOK && headsOK && a.Hidden%a.Heads != 0 {
		c.add("heads", a.Heads, "must divide hidden (%d), or give head-dim", a.Hidden)
	}
	if headsOK && kvOK && (a.KVHeads > a.Heads || a.Heads%a.KVHeads != 0) {
		c.add("kv-heads", a.KVHeads, "must divide heads (%d): one of %s", a.Heads, joinInts(Divisors(a.Heads)))
	}
	moe := a.Experts > 1
	if a.Experts < 0 || a.Experts > 4096 {
		c.add("experts", a.Experts, "must be between 0 (dense) and 4096")
	} else if moe && (a.TopK < 1 || a.TopK > a.Experts) {
		c.add("top-k", a.TopK, "must be between 1 and experts (%d)", a.Experts)
	} else if !moe && a.TopK > 1 {
		c.add("top-k", a.TopK, "needs experts above 1 (experts = %d)", a.Experts)
	}
	a.checkKinds(c, moe)
}

// MaxFFN bounds an MLP's width, dense, expert or shared.
const MaxFFN = 1 << 20

// checkKinds checks the layer-kind fields (issue 20): the experts' layout, MLA, each layer's
// attention and its window, linear attention, MTP layers, parameters outside the decoder and
// the checkpoint's formats. Each is zero for the one-shape transformer.
func (a Arch) checkKinds(c *checker, moe bool) {
	needsMoE := func(field string, v int) {
		if v != 0 && !moe {
			c.add(field, v, "needs experts above 1 (experts = %d): a dense model has no %s", a.Experts, field)
		}
	}
	inRange := func(field string, v, lo, hi int, zero string) bool {
		if v < lo || v > hi {
			c.add(field, v, "must be between %d and %d%s", lo, hi, zero)
			return false
		}
		return true
	}
	if inRange("shared-experts", a.SharedExperts, 0, 4096, " (0: none)") {
		needsMoE("shared-experts", a.SharedExperts)
		if a.SharedExperts > 0 && a.SharedFFN == 0 {
			c.add("shared-ffn", a.SharedFFN, "must be above 0 with shared-experts %d: their summed width", a.SharedExperts)
		}
	}
	if inRange("shared-ffn", a.SharedFFN, 0, MaxFFN, " (0: no shared expert)") {
		needsMoE("shared-ffn", a.SharedFFN)
	}
	if inRange("expert-groups", a.ExpertGroups, 0, 4096, " (0: no node-limited routing)") {
		needsMoE("expert-groups", a.ExpertGroups)
		if a.ExpertGroups > 0 && moe && a.Experts%a.ExpertGroups != 0 {
			c.add("expert-groups", a.ExpertGroups, "must divide experts (%d): the routed experts fall in equal groups", a.Experts)
		}
	}
	if a.GroupLimit != 0 && (a.GroupLimit < 1 || a.GroupLimit > a.ExpertGroups) {
		c.add("group-limit", a.GroupLimit, "must be 0 (no limit) or between 1 and expert-groups (%d): the groups a token's experts are drawn from", a.ExpertGroups)
	} else if a.ExpertGroups > 0 && a.GroupLimit == 0 {
		c.add("group-limit", a.GroupLimit, "must be between 1 and expert-groups (%d) with expert-groups set", a.ExpertGroups)
	}
	if inRange("dense-ffn", a.DenseFFN, 0, MaxFFN, " (0: ffn)") {
		needsMoE("dense-ffn", a.DenseFFN)
	}
	if a.Layers >= 1 && inRange("dense-layers", a.DenseLayers, 0, max(a.Layers-1, 0), " (fewer than layers: the rest have experts)") {
		needsMoE("dense-layers", a.DenseLayers)
	}
	if a.Layers >= 1 && inRange("moe-every", a.MoEEvery, 0, max(a.Layers-a.DenseLayers, 1), " (0 or 1: every layer after dense-layers)") {
		if a.MoEEvery > 1 {
			needsMoE("moe-every", a.MoEEvery)
		}
	}

	// Multi-head latent attention: all of it or none.
	if m := a.MLA; m != (MLA{}) {
		if m.KVLoRARank < 1 || m.KVLoRARank > MaxHidden {
			c.add("mla.kv-lora-rank", m.KVLoRARank, "must be between 1 and %d with MLA (the latent cached per token)", MaxHidden)
		}
		if m.QLoRARank < 0 || m.QLoRARank > MaxHidden {
			c.add("mla.q-lora-rank", m.QLoRARank, "must be between 0 (a full query projection) and %d", MaxHidden)
		}
		for _, f := range []struct {
			name string
			v    int
			lo   int
		}{{"mla.qk-nope-head-dim", m.QKNopeDim, 0}, {"mla.qk-rope-head-dim", m.QKRopeDim, 0}, {"mla.v-head-dim", m.VHeadDim, 1}} {
			if f.v < f.lo || f.v > 1024 {
				c.add(f.name, f.v, "must be between %d and 1024 with MLA", f.lo)
			}
		}
		if m.QKNopeDim+m.QKRopeDim < 1 {
			c.add("mla.qk-nope-head-dim", m.QKNopeDim, "qk-nope-head-dim + qk-rope-head-dim must be above 0: each head's query and key")
		}
	}

	// Sparse indexed attention: all of it or none.
	if x := a.Indexer; x != (Indexer{}) {
		if x.Heads < 1 || x.Heads > MaxHeads {
			c.add("indexer.heads", x.Heads, "must be between 1 and %d with an indexer", MaxHeads)
		}
		if x.HeadDim < 1 || x.HeadDim > 1024 {
			c.add("indexer.head-dim", x.HeadDim, "must be between 1 and 1024 with an indexer")
		}
		if x.TopK < 1 || x.TopK > MaxSeq {
			c.add("indexer.top-k", x.TopK, "must be between 1 and %d tokens: how many the attention reads", MaxSeq)
		}
	}

	// Each layer's attention and the window its sliding or chunked layers need.
	kinds := a.LayerPattern()
	names := []string{AttnFull, AttnSliding, AttnChunked, AttnLinear}
	windowed, linear := false, false
	switch {
	case len(a.LayerTypes) > 16*MaxLayers:
		c.add("layer-types", Shorten(a.LayerTypes), "must name at most %d layers", MaxLayers)
	default:
		for i, k := range kinds {
			if !slices.Contains(names, k) {
				c.add("layer-types", a.LayerTypes, "layer %d is %q: each must be one of %s, comma-separated", i, k, strings.Join(names, ", "))
				break
			}
			windowed = windowed || k == AttnSliding || k == AttnChunked
			linear = linear || k == AttnLinear
		}
		if len(kinds) > max(a.Layers, 1) && a.Layers >= 1 {
			c.add("layer-types", Shorten(a.LayerTypes), "names %d layers, the model has %d: at most one each (the list repeats)", len(kinds), a.Layers)
		}
	}
	switch {
	case a.SlidingWindow < 0 || a.SlidingWindow > MaxSeq:
		c.add("sliding-window", a.SlidingWindow, "must be between 0 and %d tokens", MaxSeq)
	case windowed && a.SlidingWindow == 0:
		c.add("sliding-window", a.SlidingWindow, "must be above 0: layer-types %q has sliding or chunked layers", a.LayerTypes)
	}
	if linear {
		l := a.Linear
		for _, f := range []struct {
			name string
			v    int
		}{{"linear-attn.key-heads", l.KeyHeads}, {"linear-attn.value-heads", l.ValueHeads}, {"linear-attn.key-dim", l.KeyDim}, {"linear-attn.value-dim", l.ValueDim}} {
			if f.v < 1 || f.v > MaxHeads {
				c.add(f.name, f.v, "must be between 1 and %d: layer-types has linear layers", MaxHeads)
			}
		}
		if l.ConvKernel < 0 || l.ConvKernel > 64 {
			c.add("linear-attn.conv-kernel", l.ConvKernel, "must be between 0 (none) and 64 taps")
		}
		if l.KeyHeads >= 1 && l.ValueHeads >= 1 && l.ValueHeads%l.KeyHeads != 0 {
			c.add("linear-attn.value-heads", l.ValueHeads, "must be a multiple of key-heads (%d): each key head serves a group of value heads", l.KeyHeads)
		}
	} else if a.Linear != (LinearAttn{}) {
		c.add("linear-attn", fmt.Sprintf("%+v", a.Linear), "applies to linear layers: layer-types has none")
	}
	if a.MLA.On() && (windowed || linear) {
		c.add("layer-types", a.LayerTypes, "MLA models have full-attention layers only")
	}

	if a.MTPLayers < 0 || a.MTPLayers > 64 {
		c.add("mtp-layers", a.MTPLayers, "must be between 0 and 64")
	}
	if !finite(a.OtherParams) || a.OtherParams < 0 || a.OtherParams > 1e13 {
		c.add("other-params", a.OtherParams, "must be a finite number of parameters from 0 to 1e13")
	}
	for _, f := range []struct{ name, v string }{{"checkpoint.weights", a.Checkpoint.Weights}, {"checkpoint.experts", a.Checkpoint.Experts}} {
		if f.v == "" {
			continue
		}
		if _, err := WeightBits(f.v); err != nil {
			c.add(f.name, f.v, "%v (empty: the compute precision)", err)
		}
	}
	if a.Checkpoint.Experts != "" && !moe {
		c.add("checkpoint.experts", a.Checkpoint.Experts, "needs experts above 1 (experts = %d)", a.Experts)
	}
}

func (g GPU) check(c *checker) {
	c.positive("gpu.peak_bf16", g.PeakBF16)
	c.positive("gpu.peak_fp16", g.PeakFP16)
	c.positive("gpu.peak_fp32", g.PeakFP32)
	if !finite(g.PeakFP8) || g.PeakFP8 < 0 {
		c.add("gpu.peak_fp8", g.PeakFP8, "must be 0 (no FP8) or a finite number above 0")
	}
	c.positive("gpu.memory", g.MemoryBytes)
	c.positive("gpu.hbm_bandwidth", g.HBMBandwidth)
	c.fraction("compute-eff", g.ComputeEff)
	c.fraction("memory-eff", g.MemoryEff)
	if g.GEMMMemoryEff != 0 && !(finite(g.GEMMMemoryEff) && g.GEMMMemoryEff > 0 && g.GEMMMemoryEff <= 1) {
		c.add("gpu.gemm_memory_eff", g.GEMMMemoryEff, "must be 0 (the memory efficiency) or a fraction in (0, 1]")
	}
	if !finite(g.BoostClockMHz) || g.BoostClockMHz < 0 {
		c.add("gpu.boost_clock_mhz", g.BoostClockMHz, "must be 0 (not known) or a finite number of MHz above 0")
	}
	if !finite(g.KernelFloorCycles) || g.KernelFloorCycles < 0 || g.KernelFloorCycles > 1e6 {
		c.add("gpu.kernel_floor_cycles", g.KernelFloorCycles, "must be 0 (the default) or a number of cycles above 0, at most 1e6")
	}
	for _, o := range []struct {
		name string
		v    float64
		r    Range
	}{{"gpu.step_overhead", g.StepOverhead, CalStepOverhead}, {"gpu.kernel_floor", g.KernelFloor, CalKernelFloor}} {
		if o.v != 0 && !o.r.Contains(o.v) {
			c.add(o.name, o.v, "must be 0 (the engine's default) or between %g and %g seconds", o.r.Min, o.r.Max)
		}
	}
}

func (l Link) check(c *checker, field string) {
	if l.Kind < NVLink || l.Kind > XGMI {
		c.add(field+".kind", int(l.Kind), "must be one of %s", strings.Join(linkKindNames, ", "))
	}
	// The field names are built only for a problem: every evaluation validates its two links.
	if !finite(l.Bandwidth) || l.Bandwidth <= 0 {
		c.positive(field+".bandwidth", l.Bandwidth)
	}
	if !finite(l.Latency) || l.Latency < 0 || l.Latency > 1 {
		c.add(field+".latency", l.Latency, "must be between 0 and 1 second")
	}
	if !finite(l.Efficiency) || l.Efficiency <= 0 || l.Efficiency > 1 {
		c.fraction(field+"-eff", l.Efficiency)
	}
	if l.PCIePath < PathSwitch || l.PCIePath > PathSocket {
		c.add(field+".pcie_path", int(l.PCIePath), "must be one of %s", strings.Join(pciePathNames, ", "))
	} else if l.PCIePath != PathSwitch && l.Kind != PCIe {
		c.add(field+".pcie_path", l.PCIePath.String(), "applies to PCIe links only; this one is %s", l.Kind)
	}
	if l.Staged && l.Kind != PCIe {
		c.add(field+".staged", l.Staged, "applies to PCIe links only (staging through host memory); this one is %s", l.Kind)
	}
	if l.MeshLinks < 0 || l.MeshLinks > MaxGPUsPerNode-1 {
		c.add(field+".mesh_links", l.MeshLinks, "must be 0 (no mesh) or 1 to %d links per GPU", MaxGPUsPerNode-1)
	}
}

// Validate returns every problem with the scenario at once (a ValidationError), or nil.
func (s Scenario) Validate() error {
	if s.Layout.Disagg != (Disagg{}) {
		return s.validateDisagg()
	}
	var c checker
	s.Arch.check(&c)
	s.Cluster.GPU.check(&c)
	s.Cluster.Intra.check(&c, "intra")
	s.Cluster.Inter.check(&c, "inter")
	cl := s.Cluster
	gpusOK := c.intRange("gpus", cl.GPUs)
	gpnOK := c.intRange("gpus-per-node", cl.GPUsPerNode)
	if gpusOK && gpnOK && cl.GPUs > cl.GPUsPerNode && cl.GPUs%cl.GPUsPerNode != 0 {
		c.add("gpus", cl.GPUs, "must be a multiple of gpus-per-node (%d) when it spans nodes", cl.GPUsPerNode)
	}
	c.intRange("nics-per-node", cl.NICsPerNode)
	if h := cl.HostMemoryBytes; !finite(h) || h < 0 || h > MaxHostMemoryBytes {
		c.add("host-memory", h, "%s (0: the default, %d GiB per GPU)", HostMemoryAllowed, DefaultHostMemoryPerGPU/GiB)
	}
	if !finite(s.ReserveBytes) || s.ReserveBytes < 0 {
		c.add("reserve", s.ReserveBytes, "must be a finite number of bytes ≥ 0")
	}

	w := s.Workload
	if w.Precision < BF16 || w.Precision > FP32 {
		c.add("precision", int(w.Precision), "must be one of %s", strings.Join(precisionNames, ", "))
	}
	if w.Mode != Train && w.Mode != Infer {
		c.add("mode", int(w.Mode), "must be train or infer")
	}
	var unitsOK bool
	if w.Mode == Infer {
		c.intRange("prompt", w.PromptTokens)
		c.intRange("gen", w.GenTokens)
		unitsOK = c.intRange("requests", w.Requests)
		if w.PromptTokens > 0 && w.GenTokens > 0 && w.PromptTokens+w.GenTokens > MaxSeq {
			c.add("gen", w.GenTokens, "prompt + gen must be at most %d tokens", MaxSeq)
		}
		c.serving(w, s.Cluster.GPU)
		c.speculation(s)
	} else {
		c.intRange("seq", w.Seq)
		unitsOK = c.intRange("batch", w.GlobalBatch)
	}

	l := s.Layout
	layoutFrom := len(c.errs)
	tpOK := c.intRange("tp", l.TP)
	ppOK := c.intRange("pp", l.PP)
	dpOK := c.intRange("dp", l.DP)
	vOK := c.intRange("chunks", l.Chunks)
	bOK := c.intRange("micro-batch", l.MicroBatch)
	c.intRange("zero", l.ZeRO)
	if l.Schedule < OneFOneB || l.Schedule > DualPipeV {
		c.add("schedule", int(l.Schedule), "must be one of %s", strings.Join(scheduleNames, ", "))
	}
	if l.Recompute < RecomputeNone || l.Recompute > RecomputeFull {
		c.add("recompute", int(l.Recompute), "must be one of %s", strings.Join(recomputeNames, ", "))
	}
	if l.EP != 0 && c.intRange("ep", l.EP) && l.EP > 1 {
		if dpOK && l.DP%l.EP != 0 {
			c.add("ep", l.EP, "must divide dp (%d): one of %s", l.DP, joinInts(Divisors(l.DP)))
		}
		if s.Arch.Experts > 1 && s.Arch.Experts%l.EP != 0 {
			c.add("ep", l.EP, "must divide the experts (%d): one of %s", s.Arch.Experts, joinInts(Divisors(s.Arch.Experts)))
		}
	}
	if l.ETP != 0 && c.intRange("etp", l.ETP) && l.TP >= 1 {
		switch {
		case l.TP%l.ETP != 0:
			c.add("etp", l.ETP, "must divide tp (%d): one of %s", l.TP, joinInts(Divisors(l.TP)))
		case s.Arch.Experts <= 1 && l.ETP != l.TP:
			c.add("etp", l.ETP, "must be 0 or tp (%d): the model is dense (no experts to split apart)", l.TP)
		case s.Arch.Experts > 1 && s.Arch.Experts%l.FoldSize() != 0:
			c.add("etp", l.ETP, "ep × tp / etp (%d × %d / %d) must divide the experts (%d)", l.EPSize(), l.TP, l.ETP, s.Arch.Experts)
		}
	}
	if x := l.EPImbalance; x != 0 && (!finite(x) || x < 1 || x > MaxEPImbalance) {
		c.add("ep-imbalance", x, "must be 0 (the default) or between 1 and %d: the busiest GPU's token share over the mean", MaxEPImbalance)
	}
	if l.EPDispatch < EPDispatchDirect || l.EPDispatch > EPDispatchTwoHop {
		c.add("ep-dispatch", int(l.EPDispatch), "must be one of %s", strings.Join(epDispatchNames, ", "))
	}
	if l.SPGather < SPGatherRedo || l.SPGather > SPGatherKeep {
		c.add("sp-gather", int(l.SPGather), "must be one of %s", strings.Join(spGatherNames, ", "))
	}
	if l.Offload < OffloadNone || l.Offload > OffloadAll {
		c.add("offload", int(l.Offload), "must be one of %s", strings.Join(offloadNames, ", "))
	}
	if l.TPOverlap < TPOverlapNone || l.TPOverlap > TPOverlapPipe {
		c.add("tp-overlap", int(l.TPOverlap), "must be one of %s", strings.Join(tpOverlapNames, ", "))
	}
	if !l.RankOrder.valid() {
		c.add("rank-order", int(l.RankOrder), "must be one of the %d orders: %s", NumRankOrders, RankOrderForm)
	}
	if l.Collectives < CollectivesAuto || l.Collectives > CollectivesEngine {
		c.add("collectives", int(l.Collectives), "must be one of %s", strings.Join(collectivesNames, ", "))
	}
	cpOK := l.CP == 0 || c.intRange("cp", l.CP)
	cp := 1
	if cpOK {
		cp = l.CPSize()
	}
	if l.CPComm < CPRing || l.CPComm > CPHybrid {
		c.add("cp-comm", int(l.CPComm), "must be one of %s", strings.Join(cpCommNames, ", "))
	}
	switch {
	case !tpOK || !ppOK || !dpOK || !gpusOK:
	case cp == 1 && int64(l.TP)*int64(l.PP)*int64(l.DP) != int64(cl.GPUs):
		c.add("dp", l.DP, "tp × pp × dp must equal gpus: %d × %d × %d ≠ %d", l.TP, l.PP, l.DP, cl.GPUs)
	case cp > 1 && cl.GPUs%cp != 0:
		c.add("cp", cp, "must divide gpus (%d): tp × cp × pp × dp = gpus; one of %s", cl.GPUs, joinInts(Divisors(cl.GPUs)))
	case cp > 1 && int64(l.TP)*int64(cp)*int64(l.PP)*int64(l.DP) != int64(cl.GPUs):
		c.add("dp", l.DP, "tp × cp × pp × dp must equal gpus: %d × %d × %d × %d ≠ %d", l.TP, cp, l.PP, l.DP, cl.GPUs)
	}
	if cpOK && cp > 1 {
		c.contextParallel(s, cp, tpOK)
	}
	a := s.Arch
	if tpOK && a.Heads >= 1 && a.Heads%l.TP != 0 {
		c.add("tp", l.TP, "must divide heads (%d): one of %s", a.Heads, joinInts(Divisors(a.Heads)))
	}
	if tpOK && a.KVHeads >= 1 && a.KVHeads%l.TP != 0 && l.TP%a.KVHeads != 0 {
		c.add("tp", l.TP, "must divide kv-heads (%d) or be a multiple of it (KV heads then replicate)", a.KVHeads)
	}
	// Ranks fill the axes in the rank order (TP groups, then CP, then DP replicas, then pipeline
	// stages by default), node after node: across nodes, every axis' block of ranks with those
	// inside it must tile the node size, or some group would straddle two nodes.
	if tpOK && dpOK && ppOK && cpOK && gpusOK && gpnOK && cl.GPUs > cl.GPUsPerNode && l.RankOrder.valid() {
		if f, rule := l.StraddleRule(cl.GPUsPerNode, cl.GPUs); f != "" {
			v := map[string]int{"tp": l.TP, "cp": cp, "dp": l.DP, "pp": l.PP}[f]
			if near := evenOrder(l, cl.GPUsPerNode, cl.GPUs); near != "" {
				rule += "; rank order " + near + " places it evenly"
			}
			c.add(f, v, "%s", rule)
		}
	}
	if tpOK && a.FFN >= 1 && a.FFN%l.TP != 0 {
		c.add("tp", l.TP, "must divide ffn (%d)", a.FFN)
	}
	if ppOK && vOK && a.Layers >= 1 && w.Mode == Train && l.PP > 1 && l.Schedule.ModelStages(l.PP, 1) > l.PP && 2*l.PP > a.Layers {
		// ZB-V and DualPipeV cut the model in 2·pp stages, two a rank.
		c.add("pp", l.PP, "%s runs two chunks a rank: 2 × pp (%d) must be at most layers (%d); nearest %d", l.Schedule, 2*l.PP, a.Layers, a.Layers/2)
	} else if ppOK && vOK && a.Layers >= 1 && l.PP*l.Chunks > a.Layers {
		if l.Chunks > 1 {
			c.add("chunks", l.Chunks, "pp × chunks (%d × %d) must be at most layers (%d)", l.PP, l.Chunks, a.Layers)
		} else {
			c.add("pp", l.PP, "must be at most layers (%d)", a.Layers)
		}
	}
	if vOK && l.Chunks > 1 && l.Schedule != Interleaved {
		c.add("chunks", l.Chunks, "must be 1 unless schedule is interleaved")
	}
	if l.SequenceParallel && w.Mode == Train && tpOK && w.Seq >= 1 {
		switch {
		case w.Seq%l.TP != 0:
			c.add("seq", w.Seq, "must be a multiple of tp (%d) with sequence parallelism", l.TP)
		case cp > 1 && (w.Seq/cp)%l.TP != 0:
			c.add("seq", w.Seq, "must be a multiple of tp × cp (%d × %d) with sequence parallelism: each CP rank's share splits over TP", l.TP, cp)
		}
	}

	// Serving needs no split: the balancer hands requests to the replicas one by one.
	if unitsOK && bOK && dpOK && w.Mode == Train {
		units := s.BatchUnits()
		per := int64(l.MicroBatch) * int64(l.DP)
		name, unit := "batch", "global batch"
		if w.Mode == Infer {
			name, unit = "requests", "concurrent requests"
		}
		switch {
		case int64(units)%per != 0 || int64(units) < per:
			c.add(name, units, "%s must split into micro-batches of %d × dp %d: a multiple of %d", unit, l.MicroBatch, l.DP, per)
		case w.Mode == Train && l.Schedule == Interleaved && ppOK && l.PP > 1 && s.MicroBatches()%l.PP != 0:
			c.add("micro-batches", s.MicroBatches(), "must be a multiple of pp (%d) for the interleaved schedule", l.PP)
		case w.Mode == Train && ppOK && scheduleShapeBad(l.Schedule, l.PP, s.MicroBatches()):
			// At PP 1 too: a schedule has nothing to schedule there (a warning says so), but
			// DualPipe's two directions need two ranks and DualPipeV's two chunks on its one rank
			// two micro-batches.
			field, rule := ScheduleShapeRule(l.Schedule, l.PP, s.MicroBatches())
			if field == "pp" {
				c.add("pp", l.PP, "%s", rule)
			} else {
				c.add("micro-batches", s.MicroBatches(), "%s", rule)
			}
		default:
			ops := int64(s.MicroBatches()) * int64(max(l.PP, 1)) * int64(max(l.Schedule.VirtualChunks(l.Chunks), 1)) * 3
			if w.Mode == Infer {
				ops = int64(s.MicroBatches()) * int64(max(l.PP, 1)) * int64(w.GenTokens+1)
			}
			if ops > MaxOps {
				c.add(name, units, "too many ops to simulate (%d > %d): use larger micro-batches", ops, MaxOps)
			}
		}
	}
	c.layoutErrors(layoutFrom)
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs
}

// contextParallel checks CP above 1: in training the sequence cut into 2·CP equal chunks (one
// early and one late per rank, so the causal mask's work is balanced; CP chunks for Ulysses,
// which splits heads, not the attention); Ulysses within the heads. Serving cuts each prompt
// as it comes (the engine pads its last chunk, docs/costmodel.md § Context parallelism in
// serving), so only the heads bound it there.
func (c *checker) contextParallel(s Scenario, cp int, tpOK bool) {
	l, w := s.Layout, s.Workload
	if w.Mode == Train && w.Seq >= 1 && w.Seq <= MaxSeq {
		chunks, rule := 2, "into 2·cp equal chunks (causal load balance)"
		if l.CPComm == CPUlysses {
			chunks, rule = 1, "into cp equal shares"
		}
		if w.Seq%(chunks*cp) != 0 {
			ok := func(x int) bool { return w.Seq%(chunks*x) == 0 }
			c.add("cp", cp, "must split seq (%d) %s: nearest valid cp %d", w.Seq, rule, nearestValid(cp, min(MaxGPUs, w.Seq), ok))
		}
	}
	if l.CPComm == CPUlysses && tpOK && !UlyssesOK(s.Arch, l.TP, cp) {
		ok := func(x int) bool { return UlyssesOK(s.Arch, l.TP, x) }
		c.add("cp", cp, "with cp-comm ulysses must divide heads / tp (%d / %d) and kv-heads / tp (%d / %d): Ulysses is bounded by the KV heads; nearest valid cp %d",
			s.Arch.Heads, l.TP, s.Arch.KVHeads, l.TP, nearestValid(cp, max(s.Arch.Heads, 1), ok))
	}
}

// nearestValid is the value in [1, hi] closest to v for which ok holds (the smaller on a tie), 1
// when none does.
func nearestValid(v, hi int, ok func(int) bool) int {
	for d := 0; d <= max(v, hi); d++ {
		if x := v - d; x >= 1 && x <= hi && ok(x) {
			return x
		}
		if x := v + d; x >= 1 && x <= hi && ok(x) {
			return x
		}
	}
	return 1
}
