package costmodel

import (
	"errors"
	"fmt"
	"sort"

	"github.com/splitscope/splitscope/model"
)

// searchRefine is how many of the best estimated layouts Search re-evaluates with the full
// simulation before the final ranking.
const searchRefine = 24

// Search enumerates every layout of the scenario's GPUs — TP × PP × DP, micro-batch size
// (powers of two), schedule and interleaving — ranks the feasible ones by the objective and lists
// the rest with the reason they fail. The model, hardware and workload come from base; its
// layout's recompute, sequence-parallel, ZeRO and software settings are kept.
//
// Every layout is first evaluated with the closed-form pipeline time (no simulation); the best
// searchRefine are then simulated op by op and re-ranked, so the top of the list is exact.
func Search(base model.Scenario, opt SearchOptions) (SearchResult, error) {
	if err := checkSearchBase(base); err != nil {
		return SearchResult{}, err
	}
	maxB := opt.MaxMicroBatch
	if maxB <= 0 {
		maxB = 8
	}
	maxV := opt.MaxChunks
	if maxV <= 0 {
		maxV = 4
	}
	a := base.Arch
	gpus := base.Cluster.GPUs
	units := base.BatchUnits()
	infer := base.Workload.Mode == model.Infer

	var feasible, infeasible []Candidate
	reject := func(l model.Layout, reason string) {
		infeasible = append(infeasible, Candidate{Layout: l, Reason: reason})
	}
	for _, t := range model.Divisors(gpus) {
		lay := base.Layout
		lay.TP, lay.PP, lay.DP, lay.Chunks, lay.MicroBatch = t, 1, gpus/t, 1, 1
		if reason := tpProblem(a, t); reason != "" {
			reject(lay, reason)
			continue
		}
		for _, pp := range model.Divisors(gpus / t) {
			d := gpus / (t * pp)
			lay.PP, lay.DP = pp, d
			if pp > a.Layers {
				reject(lay, fmt.Sprintf("PP %d above the %d layers", pp, a.Layers))
				continue
			}
			tried := 0
			for b := 1; b <= maxB; b *= 2 {
				if units%(b*d) != 0 {
					continue
				}
				tried++
				lay.MicroBatch = b
				for _, sv := range schedulesFor(base, pp, units/(b*d), maxV, infer) {
					lay.Schedule, lay.Chunks = sv.s, sv.v
					s := base
					s.Layout = lay
					r, err := evaluate(s, modeEstimate)
					c := Candidate{Layout: lay, Report: r}
					var ve model.ValidationError
					switch {
					case errors.As(err, &ve):
						c.Reason = ve[0].Field + ": " + ve[0].Allowed
					case err != nil:
						c.Reason = err.Error()
					case !r.Memory.Fits:
						c.Reason = fmt.Sprintf("over memory by %s on stage %d (%s of %s)", gib(r.Memory.Total-r.Memory.Capacity),
							r.Memory.Stage, gib(r.Memory.Total), gib(r.Memory.Capacity))
					default:
						c.Feasible = true
					}
					if c.Feasible {
						feasible = append(feasible, c)
					} else {
						infeasible = append(infeasible, c)
					}
				}
			}
			if tried == 0 {
				what := "global batch"
				if infer {
					what = "requests"
				}
				reject(lay, fmt.Sprintf("%s %d does not split over DP %d in micro-batches of 1…%d", what, units, d, maxB))
			}
		}
	}

	less := objectiveLess(opt.Objective, infer)
	sort.SliceStable(feasible, func(i, j int) bool { return less(feasible[i].Report, feasible[j].Report) })
	// Refine the head with the exact simulation, then rank again.
	head := feasible[:min(searchRefine, len(feasible))]
	for i := range head {
		s := base
		s.Layout = head[i].Layout
		if r, err := evaluate(s, modeFast); err == nil {
			head[i].Report = r
			if !r.Memory.Fits {
				head[i].Feasible = false
				head[i].Reason = fmt.Sprintf("over memory by %s on stage %d", gib(r.Memory.Total-r.Memory.Capacity), r.Memory.Stage)
			}
		}
	}
	// Rank again: refined and estimated reports side by side keep one order.
	sort.SliceStable(feasible, func(i, j int) bool { return less(feasible[i].Report, feasible[j].Report) })
	var out []Candidate
	nFeasible := 0
	for _, c := range feasible {
		if c.Feasible {
			out = append(out, c)
			nFeasible++
		}
	}
	for _, c := range feasible {
		if !c.Feasible {
			infeasible = append(infeasible, c)
		}
	}
	sort.SliceStable(infeasible, func(i, j int) bool {
		return infeasible[i].Report.Memory.Total < infeasible[j].Report.Memory.Total
	})
	out = append(out, infeasible...)
	return SearchResult{Candidates: out, Feasible: nFeasible}, nil
}

// checkSearchBase validates everything but the layout.
func checkSearchBase(base model.Scenario) error {
	probe := base
	probe.Layout.TP, probe.Layout.PP, probe.Layout.DP = 1, 1, max(base.Cluster.GPUs, 1)
	probe.Layout.Chunks, probe.Layout.MicroBatch = 1, 1
	err := probe.Validate()
	var ve model.ValidationError
	if errors.As(err, &ve) && ve.OnlyLayout() {
		return nil
	}
	return err
}

// tpProblem says why TP degree t cannot split the model, or "".
func tpProblem(a model.Arch, t int) string {
	switch {
	case a.Heads%t != 0:
		return fmt.Sprintf("TP %d does not divide the %d heads", t, a.Heads)
	case a.KVHeads%t != 0 && t%a.KVHeads != 0:
		return fmt.Sprintf("TP %d neither divides nor is a multiple of the %d KV heads", t, a.KVHeads)
	case a.FFN%t != 0:
		return fmt.Sprintf("TP %d does not divide the FFN size %d", t, a.FFN)
	}
	return ""
}

type schedChoice struct {
	s model.Schedule
	v int
}

// schedulesFor lists the schedules worth trying for a pipeline of pp stages and m micro-batches.
func schedulesFor(base model.Scenario, pp, m, maxV int, infer bool) []schedChoice {
	if infer || pp == 1 {
		return []schedChoice{{model.OneFOneB, 1}}
	}
	out := []schedChoice{{model.OneFOneB, 1}, {model.GPipe, 1}, {model.ZBH1, 1}}
	if m%pp == 0 {
		for v := 2; v <= maxV && pp*v <= base.Arch.Layers; v++ {
			out = append(out, schedChoice{model.Interleaved, v})
		}
	}
	return out
}

// objectiveLess orders reports best first; ties go to less memory.
func objectiveLess(o Objective, infer bool) func(a, b Report) bool {
	key := func(r Report) float64 {
		switch o {
		case ObjThroughput:
			return -r.TokensPerS
		case ObjLatency:
			if infer && r.Inference != nil {
				return r.Inference.TPOT
			}
			return r.StepTime
		case ObjMemory:
			return r.Memory.Total
		default:
			return r.StepTime
		}
	}
	return func(a, b Report) bool {
		ka, kb := key(a), key(b)
		if ka != kb {
			return ka < kb
		}
		return a.Memory.Total < b.Memory.Total
	}
}
