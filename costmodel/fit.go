package costmodel

import (
	"fmt"

	"github.com/splitscope/splitscope/model"
)

// Make it fit: when a scenario does not fit in memory, the fastest single change that makes it
// fit. The changes tried, each evaluated as it would run: more recomputation, sequence
// parallelism, a higher ZeRO stage (training); lighter weights or an fp8 KV cache (serving);
// another split of the same GPUs (Search's fastest layout that fits, the scenario's knobs kept);
// twice or four times the GPUs (the fastest layout there, the same global batch or requests).

// FitChange is one change that makes a scenario fit, and what it gives.
type FitChange struct {
	What     string         `json:"change"` // "recompute full", "ZeRO 2", "TP 8 × PP 2", "64 GPUs: TP 8 × PP 8"
	Scenario model.Scenario `json:"-"`
	StepTime float64        `json:"step_time_s"`
	Memory   float64        `json:"memory_bytes"`   // the fullest GPU
	Capacity float64        `json:"capacity_bytes"` // of one GPU
}

// fitGPUFactors are the larger clusters MakeItFit tries.
var fitGPUFactors = []int{2, 4}

// MakeItFit returns the fastest change that makes s fit, nil when s fits already or no change
// tried does. s must be valid.
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
		if l.DP > 1 {
			for z := l.ZeRO + 1; z <= 3; z++ {
				c := s
				c.Layout.ZeRO = z
				try(fmt.Sprintf("ZeRO %d", z), c)
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

// WeightBytesOf is the bytes of one weight stored in the --weights format name.
func WeightBytesOf(name string) float64 {
	return model.Workload{Weights: name}.WeightBytes()
}

// layoutName is a split in words: "TP 8 × PP 2 × DP 4, 1f1b, b 2".
func layoutName(l model.Layout) string {
	out := fmt.Sprintf("TP %d × PP %d × DP %d", l.TP, l.PP, l.DP)
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
