package costmodel

import (
	"fmt"

	"github.com/splitscope/splitscope/model"
)

// Make it fit: when a scenario does not fit in memory, the fastest change that makes it
// fit. The changes tried, each evaluated as it would run: more recomputation, sequence
// parallelism, a higher ZeRO stage, offloading activations, the optimizer or the optimizer and
// the weights to host memory (training); lighter weights, an fp8 KV cache or a KV host tier
// within the host memory (serving);
// another split of the same GPUs (Search's fastest layout that fits, the scenario's knobs kept,
// and in training with the knobs free too, named with the knobs it changes);
// and only when none of these fits, twice or four times the GPUs (the fastest layout there, the
// same global batch or requests): more GPUs cost more than any change on the ones there are.

// FitChange is one change that makes a scenario fit, and what it gives.
type FitChange struct {
	What     string         `json:"change"` // "recompute full", "ZeRO 2", "TP 8 × PP 2", "64 GPUs: TP 8 × PP 8"
	Scenario model.Scenario `json:"-"`
	StepTime float64        `json:"step_time_s"`
	Memory   float64        `json:"memory_bytes"`   // the fullest GPU
	Capacity float64        `json:"capacity_bytes"` // of one GPU
	// Host is what the change keeps in host memory on the GPU that needs most of it, and
	// HostCapacity that GPU's share of its node's host memory (offload only; 0 otherwise).
	Host         float64 `json:"host_bytes,omitempty"`
	HostCapacity float64 `json:"host_capacity_bytes,omitempty"`
}

// fitGPUFactors are the larger clusters MakeItFit tries.
var fitGPUFactors = []int{2, 4}

// MakeItFit returns the fastest change on s's GPUs that makes s fit, or the fastest with more
// GPUs when none does; nil when s fits already or no change tried does. s must be valid.
func MakeItFit(s model.Scenario) (*FitChange, error) {
	r, err := EvaluateFast(s)
	if err != nil {
		return nil, err
	}
	if r.Memory.Fits {
		return nil, nil
	}
	var best *FitChange
	try := func(what string, c model.Scenario) {
		cr, err := EvaluateFast(c)
		if err != nil || !cr.Memory.Fits || (best != nil && cr.StepTime >= best.StepTime) {
			return
		}
		best = &FitChange{What: what, Scenario: c, StepTime: cr.StepTime, Memory: cr.Memory.Total, Capacity: cr.Memory.Capacity}
		if cr.Memory.Host > 0 {
			best.Host, best.HostCapacity = cr.Memory.Host, cr.Memory.HostCapacity
		}
	}
	l, w := s.Layout, s.Workload
	if w.Mode == model.Train {
		for rc := l.Recompute + 1; rc <= model.RecomputeFull; rc++ {
			c := s
			c.Layout.Recompute = rc
			try("recompute "+rc.String(), c)
		}
		if l.TP > 1 && !l.SequenceParallel {
			c := s
			c.Layout.SequenceParallel = true
			try("sequence parallelism", c)
		}
		if l.GradGroup() > 1 { // ZeRO shards over DP × CP
			for z := l.ZeRO + 1; z <= 3; z++ {
				c := s
				c.Layout.ZeRO = z
				try(fmt.Sprintf("ZeRO %d", z), c)
			}
		}
		for _, o := range model.Offloads()[1:] {
			if o != l.Offload {
				c := s
				c.Layout.Offload = o
				try("offload "+o.String(), c)
			}
		}
	} else {
		for _, wf := range []string{"fp8", "int4"} {
			if WeightBytesOf(wf) < w.WeightBytes() {
				c := s
				c.Workload.Weights = wf
				try("weights "+wf, c)
			}
		}
		if w.KVBytes() > 1 {
			c := s
			c.Workload.KVCache = "fp8"
			try("KV cache fp8", c)
		}
		if m := r.Memory; w.KVHostGiB > 0 && m.Host > m.HostCapacity {
			// A host tier larger than a GPU's share of the host memory: the share.
			c := s
			c.Workload.KVHostGiB = float64(int(m.HostCapacity / model.GiB))
			try(fmt.Sprintf("KV host tier %g GiB", c.Workload.KVHostGiB), c)
		}
	}
	// Another split of the same GPUs, then more GPUs: Search's fastest layout that fits.
	split := func(c model.Scenario) (model.Scenario, bool) {
		res, err := Search(c, SearchOptions{Objective: ObjTime, Fix: SearchFix{}.KeepKnobs()})
		if err != nil {
			return c, false
		}
		for _, cand := range res.Candidates {
			if cand.Feasible && cand.Layout != l {
				c.Layout = cand.Layout
				return c, true
			}
		}
		return c, false
	}
	if c, ok := split(s); ok {
		try(layoutName(c.Layout), c)
	}
	if w.Mode == model.Train {
		// Search's fastest layout with the knobs free too: no single change may come near it
		// (llama-3-70b at 32K tokens on 32 H100s: recompute full, 63.8 s, where TP 4 × CP 8 with
		// ZeRO 3 and SP runs 35.1 s), and "to fit" should not be twice as slow as search's best.
		if res, err := Search(s, SearchOptions{Objective: ObjTime}); err == nil {
			for _, cand := range res.Candidates {
				if cand.Feasible {
					c := s
					c.Layout = cand.Layout
					try(layoutName(c.Layout)+knobChanges(l, c.Layout), c)
					break
				}
			}
		}
	}
	if best != nil {
		return best, nil // more GPUs cost more than any change on these
	}
	for _, k := range fitGPUFactors {
		c := s
		c.Cluster.GPUs *= k
		if c.Cluster.GPUs > model.MaxGPUs || (c.Cluster.GPUs > c.Cluster.GPUsPerNode && c.Cluster.GPUs%c.Cluster.GPUsPerNode != 0) {
			continue
		}
		if c, ok := split(c); ok {
			try(fmt.Sprintf("%d GPUs: %s", c.Cluster.GPUs, layoutName(c.Layout)), c)
		}
	}
	return best, nil
}

// knobChanges names the training knobs that to differs from from in, each after ", ": what a
// layout Search chose with the knobs free changes beside the split.
func knobChanges(from, to model.Layout) string {
	var out string
	if to.Recompute != from.Recompute {
		out += ", recompute " + to.Recompute.String()
	}
	if to.SequenceParallel != from.SequenceParallel {
		out += ", SP " + map[bool]string{true: "on", false: "off"}[to.SequenceParallel]
	}
	if to.ZeRO != from.ZeRO {
		out += fmt.Sprintf(", ZeRO %d", to.ZeRO)
	}
	if to.Offload != from.Offload {
		out += ", offload " + to.Offload.String()
	}
	if to.TPOverlap != from.TPOverlap {
		out += ", TP overlap " + to.TPOverlap.String()
	}
	return out
}

// WeightBytesOf is the bytes of one weight stored in the --weights format name.
func WeightBytesOf(name string) float64 {
	return model.Workload{Weights: name}.WeightBytes()
}

// layoutName is a split in words: "TP 8 × PP 2 × DP 4, 1f1b, b 2"; CP and EP named where
// above 1 ("TP 4 × CP 4 × PP 1 × DP 1": the GPUs are the product of the first four).
func layoutName(l model.Layout) string {
	out := fmt.Sprintf("TP %d × PP %d × DP %d", l.TP, l.PP, l.DP)
	if cp := l.CPSize(); cp > 1 {
		out = fmt.Sprintf("TP %d × CP %d × PP %d × DP %d", l.TP, cp, l.PP, l.DP)
		if l.CPComm != model.CPRing {
			out += " (CP " + l.CPComm.String() + ")"
		}
	}
	if l.EP > 1 {
		out += fmt.Sprintf(", EP %d", l.EP)
	}
	if l.PP > 1 {
		out += ", " + l.Schedule.String()
		if l.Chunks > 1 {
			out += fmt.Sprintf(" (%d chunks)", l.Chunks)
		}
	}
	if l.MicroBatch > 1 {
		out += fmt.Sprintf(", micro-batch %d", l.MicroBatch)
	}
	return out
}

// KnobSaving is what one change of a training knob does to the fullest GPU: its memory after the
// change, the bytes saved (negative: added) and the step time after it.
type KnobSaving struct {
	What     string
	Memory   float64
	Saved    float64
	StepTime float64
	Fits     bool
}

// KnobSavings evaluates, for a training scenario, each single change of a memory knob (recompute,
// sequence parallelism, ZeRO stage, offload) to every value other than the current one that
// does something here, and says what it saves on the fullest GPU and what it costs in time:
// the Memory tab's list. Serving has none (nil).
func KnobSavings(s model.Scenario) ([]KnobSaving, error) {
	if s.Workload.Mode != model.Train {
		return nil, nil
	}
	r, err := EvaluateFast(s)
	if err != nil {
		return nil, err
	}
	l := s.Layout
	var out []KnobSaving
	add := func(what string, c model.Scenario) {
		cr, err := EvaluateFast(c)
		if err != nil {
			return
		}
		out = append(out, KnobSaving{What: what, Memory: cr.Memory.Total, Saved: r.Memory.Total - cr.Memory.Total,
			StepTime: cr.StepTime, Fits: cr.Memory.Fits})
	}
	for rc := model.RecomputeNone; rc <= model.RecomputeFull; rc++ {
		if rc != l.Recompute {
			c := s
			c.Layout.Recompute = rc
			add("recompute "+rc.String(), c)
		}
	}
	if l.TP > 1 && s.Workload.Seq%l.TP == 0 {
		c := s
		c.Layout.SequenceParallel = !l.SequenceParallel
		what := "SP on"
		if l.SequenceParallel {
			what = "SP off"
		}
		add(what, c)
	}
	if l.GradGroup() > 1 { // ZeRO shards over DP × CP
		for z := 0; z <= 3; z++ {
			if z != l.ZeRO {
				c := s
				c.Layout.ZeRO = z
				add(fmt.Sprintf("ZeRO %d", z), c)
			}
		}
	}
	for _, o := range model.Offloads() {
		if o != l.Offload {
			c := s
			c.Layout.Offload = o
			add("offload "+o.String(), c)
		}
	}
	return out, nil
}
