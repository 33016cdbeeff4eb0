package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Disagg splits a serving deployment's GPUs into a prefill pool and a decode pool
// (disaggregated serving: NVIDIA Dynamo, llm-d, vLLM's KV connectors, SGLang's PD mode; DistServe
// and Splitwise in the literature). The prefill pool's instances run each request's prompt and
// ship its KV cache to a decode instance, which generates its tokens. The pools take the first
// PrefillGPUs GPUs and the rest; the layout's TP, PP, DP and EP are the decode pool's, the
// prefill pool has its own TP, PP and EP (0: the layout's TP, one stage, and the layout's EP
// where it divides the pool's DP, else none) and DP = its GPUs / (TP × PP). The zero value is
// aggregated serving.
type Disagg struct {
	PrefillGPUs int `json:"prefill_gpus"`
	PrefillTP   int `json:"prefill_tp,omitempty"`
	PrefillPP   int `json:"prefill_pp,omitempty"`
	PrefillEP   int `json:"prefill_ep,omitempty"`
	// PrefillCP is the prefill pool's context parallelism (0 or 1: none): its instances are
	// TP × CP × PP GPUs, each prompt split over the CP ranks, its KV cache sharded by token and
	// each shard sent to the decode pool by its own rank (docs/costmodel.md § Context
	// parallelism in serving). The decode pool has none.
	PrefillCP int `json:"prefill_cp,omitempty"`
}

// On reports whether the deployment is disaggregated.
func (d Disagg) On() bool { return d.PrefillGPUs > 0 }

// ParseDisagg reads "P:D", the GPUs of the prefill and decode pools (the flag --disagg), and
// checks that they add up to gpus. "" and "off" are aggregated serving.
func ParseDisagg(s string, gpus int) (prefill int, err error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "off") {
		return 0, nil
	}
	ps, ds, ok := strings.Cut(s, ":")
	p, err1 := strconv.Atoi(strings.TrimSpace(ps))
	d, err2 := strconv.Atoi(strings.TrimSpace(ds))
	if !ok || err1 != nil || err2 != nil || p < 1 || d < 1 {
		return 0, &FieldError{Field: "disagg", Value: s, Allowed: "P:D, the GPUs of the prefill and decode pools (each ≥ 1), or off (search also takes auto: every split)"}
	}
	if gpus > 0 && p+d != gpus {
		return 0, &FieldError{Field: "disagg", Value: s, Allowed: fmt.Sprintf("P + D must equal gpus (%d): %d:%d, for one", gpus, max(gpus/4, 1), gpus-max(gpus/4, 1))}
	}
	return p, nil
}

// String is the flag's form, "P:D" of gpus in all.
func (d Disagg) String(gpus int) string {
	if !d.On() {
		return "off"
	}
	return fmt.Sprintf("%d:%d", d.PrefillGPUs, gpus-d.PrefillGPUs)
}

// PrefillSizes is the prefill pool's TP and PP.
func (s Scenario) PrefillSizes() (tp, pp int) {
	d := s.Layout.Disagg
	tp, pp = d.PrefillTP, d.PrefillPP
	if tp == 0 {
		tp = s.Layout.TP
	}
	if pp == 0 {
		pp = 1
	}
	return tp, pp
}

// DisaggPools is a disaggregated scenario's two pools as scenarios of their own: the prefill
// pool on its GPUs with its TP and PP (no expert parallelism unless the layout's EP divides its
// DP), and the decode pool on the rest with the layout's split. Each pool's cluster keeps the
// node size and links; the scenarios are aggregated (no Disagg).
func (s Scenario) DisaggPools() (prefill, decode Scenario) {
	d := s.Layout.Disagg
	decode = s
	decode.Layout.Disagg = Disagg{}
	decode.Cluster.GPUs = s.Cluster.GPUs - d.PrefillGPUs
	prefill = decode
	prefill.Cluster.GPUs = d.PrefillGPUs
	tp, pp := s.PrefillSizes()
	prefill.Layout.TP, prefill.Layout.PP, prefill.Layout.Chunks = tp, pp, 1
	prefill.Layout.CP = 0
	if d.PrefillCP > 1 {
		prefill.Layout.CP = d.PrefillCP
	}
	if cp := prefill.Layout.CPSize(); tp > 0 && pp > 0 {
		prefill.Layout.DP = d.PrefillGPUs / (tp * cp * pp)
	}
	if ep := prefill.Layout.EP; ep > 1 && (prefill.Layout.DP < ep || prefill.Layout.DP%ep != 0) {
		prefill.Layout.EP = 0
	}
	if d.PrefillEP > 0 {
		prefill.Layout.EP = d.PrefillEP
	}
	if prefill.Layout.ETP != 0 && (tp%prefill.Layout.ETP != 0) {
		prefill.Layout.ETP = 0
	}
	return prefill, decode
}

// validateDisagg checks a disaggregated scenario: each pool as a scenario of its own (the
// prefill pool's problems named prefill-…), pools that add up to the GPUs, on whole nodes when
// the cluster spans several, and serving only.
func (s Scenario) validateDisagg() error {
	var c checker
	d := s.Layout.Disagg
	gpus := s.Cluster.GPUs
	if s.Workload.Mode != Infer {
		c.add("disagg", d.String(gpus), "applies to serving only (--mode infer); off in training")
	}
	if d.PrefillGPUs < 1 || d.PrefillGPUs >= gpus {
		c.add("disagg", d.String(gpus), "each pool needs at least one GPU: P + D = gpus (%d), P and D ≥ 1", gpus)
	}
	if gpn := s.Cluster.GPUsPerNode; gpus > gpn && gpn > 0 && d.PrefillGPUs%gpn != 0 {
		c.add("disagg", d.String(gpus), "the pools must take whole nodes of %d GPUs when the cluster spans nodes: P a multiple of %d", gpn, gpn)
	}
	if d.PrefillTP < 0 || d.PrefillTP > intLimits["tp"][1] {
		c.add("prefill-tp", d.PrefillTP, "must be 0 (the layout's tp) or between 1 and %d", intLimits["tp"][1])
	}
	if d.PrefillEP < 0 || d.PrefillEP > intLimits["ep"][1] {
		c.add("prefill-ep", d.PrefillEP, "must be 0 (the layout's ep where it divides the prefill pool's dp) or between 1 and %d", intLimits["ep"][1])
	}
	if d.PrefillCP < 0 || d.PrefillCP > intLimits["cp"][1] {
		c.add("prefill-cp", d.PrefillCP, "must be 0 (none) or between 1 and %d", intLimits["cp"][1])
	}
	if d.PrefillPP < 0 || d.PrefillPP > intLimits["pp"][1] {
		c.add("prefill-pp", d.PrefillPP, "must be 0 (one stage) or between 1 and %d", intLimits["pp"][1])
	}
	if s.Layout.CP > 1 {
		c.add("cp", s.Layout.CP, "must be 1 with --disagg: the decode pool has no context parallelism (--prefill-cp gives the prefill pool its own)")
	}
	if len(c.errs) > 0 {
		c.layoutErrors(0)
		return c.errs
	}
	pre, dec := s.DisaggPools()
	tp, pp := s.PrefillSizes()
	if n := tp * pp; d.PrefillGPUs%n != 0 {
		c.add("prefill-tp", tp, "prefill-tp × prefill-pp (%d × %d) must divide the prefill pool's %d GPUs", tp, pp, d.PrefillGPUs)
		c.layoutErrors(0)
		return c.errs
	}
	if cp := max(d.PrefillCP, 1); cp > 1 && d.PrefillGPUs%(tp*cp*pp) != 0 {
		c.add("prefill-cp", cp, "prefill-tp × prefill-cp × prefill-pp (%d × %d × %d) must divide the prefill pool's %d GPUs", tp, cp, pp, d.PrefillGPUs)
		c.layoutErrors(0)
		return c.errs
	}
	if err := dec.Validate(); err != nil {
		return err
	}
	if err := pre.Validate(); err != nil {
		ve, ok := err.(ValidationError)
		if !ok {
			return err
		}
		for _, e := range ve {
			switch e.Field {
			case "tp", "pp", "dp", "chunks", "ep", "etp", "cp":
				e.Field = "prefill-" + e.Field
			case "gpus":
				e.Field = "disagg"
			}
		}
		return ve
	}
	return nil
}
