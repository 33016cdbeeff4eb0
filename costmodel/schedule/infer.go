package schedule

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/model"
)

// maxInferOps bounds p·groups·gen: the simulation takes time per op even when it records none,
// and 64 bytes per op when it does (maxInferRecord).
const (
	maxInferOps    = 1 << 25
	maxInferRecord = 1 << 22
)

// SimulateInfer runs inference op by op. Every group does its prefill (token 0) through stages
// 0..p−1, then decode steps 1..Gen−1. A step on stage s > 0 needs the same step on stage s−1 plus
// the p2p time (P2P for the prefill, P2PTok for a decode step); decode step k on stage 0 needs
// step k−1 of the same group to have left the last stage (the sampled token goes back to stage 0
// for free). Each stage serves ops first come in (token, group) order: every prefill in group
// order, then token 1 of groups 0..G−1, and so on.
//
// With one group a token waits for the whole pipeline, so pipelining does not shorten a single
// request; with G ≥ p groups the stages take turns and decode throughput is that of the slowest
// stage. PeakInFlight is G on every stage: every group keeps its KV cache on every stage from its
// prefill to its last token, and all prefills run before any decode step.
func SimulateInfer(in Infer) (Result, error) {
	if err := validateInfer(&in); err != nil {
		return Result{}, err
	}
	p, g, gen := in.Stages, in.Groups, in.Gen
	res := Result{
		Busy:         make([]float64, p),
		PeakInFlight: make([]int, p),
		Finish:       make([]float64, p),
		FirstToken:   make([]float64, g),
		Done:         make([]float64, g),
	}
	if in.Record {
		res.Ops = make([]Op, p*g*gen)
	}
	free := res.Finish // when each stage is free: at the end, when its last op ends
	// Because every dependency points to an earlier token, or to an earlier stage of the same
	// token and group, visiting (token, group, stage) in that order meets each op after all it
	// waits for, and each stage's ops in its serving order.
	for k := 0; k < gen; k++ {
		cost, link := in.Prefill, in.P2P
		if k > 0 {
			cost, link = in.Decode, in.P2PTok
		}
		for j := 0; j < g; j++ {
			ready, dep := 0.0, -1 // when the input arrives, and the op it comes from
			if k > 0 {
				ready, dep = res.Done[j], opIndex(p-1, k-1, j, g, gen)
			}
			for s := 0; s < p; s++ {
				if s > 0 {
					if link != nil {
						ready += link[s-1]
					}
					dep = opIndex(s-1, k, j, g, gen)
				}
				start := max(free[s], ready)
				if in.Record {
					d := -1
					if dep >= 0 && ready >= free[s] {
						d = dep
					}
					res.Ops[opIndex(s, k, j, g, gen)] = Op{Stage: s, Micro: j, Token: k, Kind: F, Start: start, End: start + cost[s], Dep: d}
				}
				free[s] = start + cost[s]
				ready = free[s]
				res.Busy[s] += cost[s]
			}
			res.Done[j] = ready
			if k == 0 {
				res.FirstToken[j] = ready
			}
		}
	}
	for s := range res.PeakInFlight {
		res.PeakInFlight[s] = g
		res.Makespan = max(res.Makespan, free[s])
	}
	if math.IsInf(res.Makespan, 0) { // finite costs can still add up past the largest float64
		return Result{}, fmt.Errorf("schedule: costs overflow: makespan is %v", res.Makespan)
	}
	return res, nil
}

// opIndex is where op (stage s, token k, group j) sits in Result.Ops: stages one after the other,
// each in its serving order.
func opIndex(s, k, j, g, gen int) int { return (s*gen+k)*g + j }

func validateInfer(in *Infer) error {
	bad := func(field string, value any, allowed string) error {
		return &model.FieldError{Field: field, Value: value, Allowed: allowed}
	}
	switch {
	case in.Stages < 1:
		return bad("stages", in.Stages, "must be at least 1")
	case in.Groups < 1:
		return bad("groups", in.Groups, "must be at least 1")
	case in.Gen < 1:
		return bad("gen", in.Gen, "must be at least 1")
	}
	limit := maxInferOps
	if in.Record {
		limit = maxInferRecord
	}
	if in.Stages > limit || in.Groups > limit/in.Stages || in.Gen > limit/(in.Stages*in.Groups) {
		return bad("gen", in.Gen, fmt.Sprintf("stages × groups × gen must be at most %d", limit))
	}
	p := in.Stages
	for _, c := range []struct {
		field string
		xs    []float64
		n     int
		nilOK bool
	}{{"prefill", in.Prefill, p, false}, {"decode", in.Decode, p, false}, {"p2p", in.P2P, p - 1, in.P2P == nil}, {"p2ptok", in.P2PTok, p - 1, in.P2PTok == nil}} {
		if err := checkCosts(c.field, c.xs, c.n, c.nilOK); err != nil {
			return err
		}
	}
	return nil
}
