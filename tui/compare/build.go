package compare

import (
	"errors"
	"fmt"
	"slices"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
)

// Contender names, in the order Build lists them.
const (
	NameTP     = "TP only"
	NamePP     = "PP only"
	NameHybrid = "best hybrid"
	NameSearch = "best (search)"
)

// CrossMicros are the micro-batch counts of the crossover chart: 1, 2, 4, …, 128.
var CrossMicros = []int{1, 2, 4, 8, 16, 32, 64, 128}

// Build compares, for the GPUs and workload of s, tensor parallelism alone (TP as large as the
// model allows, PP = 1), pipeline parallelism alone (TP = 1, PP as large as the layers allow,
// 1F1B) and the best hybrid layout Search finds (TP > 1 and PP > 1; the best layout overall when
// no hybrid is feasible). It also sweeps the micro-batch count m for the first two. It is pure
// and runs in a tea.Cmd: Search and ~20 simulations take a few tens of milliseconds.
func Build(s model.Scenario) common.Compare {
	var out common.Compare
	gpus := s.Cluster.GPUs
	if gpus < 1 {
		out.Err = fmt.Errorf("compare: %d GPUs", gpus)
		return out
	}
	tp := tpOnly(s)
	pp := ppOnly(s)
	out.Rows = append(out.Rows, evalRow(NameTP, s, tp), evalRow(NamePP, s, pp))

	res, err := costmodel.Search(s, costmodel.SearchOptions{})
	switch hy, name, ok := pickHybrid(res.Candidates); {
	case err != nil:
		out.Rows = append(out.Rows, common.CompareRow{Name: NameHybrid, Reason: "search: " + err.Error()})
	case !ok:
		out.Rows = append(out.Rows, closest(s, res.Candidates))
	default:
		out.Rows = append(out.Rows, evalRow(name, s, searchLayout(s, hy)))
	}
	out.Cross = cross(s, tp, pp)
	return out
}

// pickHybrid returns the best feasible candidate with TP > 1 and PP > 1, or else the best
// feasible one (named NameSearch). Candidates come best first.
func pickHybrid(cands []costmodel.Candidate) (model.Layout, string, bool) {
	for _, c := range cands {
		if c.Feasible && c.Layout.TP > 1 && c.Layout.PP > 1 {
			return c.Layout, NameHybrid, true
		}
	}
	for _, c := range cands {
		if c.Feasible {
			return c.Layout, NameSearch, true
		}
	}
	return model.Layout{}, "", false
}

// closest is the row shown when no layout is feasible: the evaluated layout that needs the least
// memory (Search lists infeasible candidates by memory), or an empty row saying so.
func closest(s model.Scenario, cands []costmodel.Candidate) common.CompareRow {
	for _, c := range cands {
		if !c.Feasible && c.Report.Layout.TP > 0 && c.Report.Memory.Total > 0 {
			row := evalRow(NameSearch, s, searchLayout(s, c.Layout))
			if row.Reason != "" {
				row.Reason = "nothing fits; least memory: " + row.Reason
			}
			return row
		}
	}
	return common.CompareRow{Name: NameSearch, Reason: "no feasible layout"}
}

// searchLayout is base's layout with the split, batching and schedule of a Search candidate.
func searchLayout(s model.Scenario, c model.Layout) model.Layout {
	l := s.Layout
	l.TP, l.PP, l.DP, l.Chunks, l.MicroBatch, l.Schedule = c.TP, c.PP, c.DP, c.Chunks, c.MicroBatch, c.Schedule
	return l
}

// tpOnly is the scenario's layout with the largest TP that validation accepts (the divisor of
// the GPU count that splits heads, KV heads and the FFN), PP = 1 and DP for the rest.
func tpOnly(s model.Scenario) model.Layout {
	l := s.Layout
	gpus := s.Cluster.GPUs
	l.PP, l.Chunks, l.Schedule = 1, 1, model.OneFOneB
	ds := model.Divisors(gpus)
	l.TP, l.DP = 1, gpus
	for _, t := range slices.Backward(ds) {
		probe := s
		probe.Layout = l
		probe.Layout.TP, probe.Layout.DP = t, gpus/t
		if !hasField(probe.Validate(), "tp") {
			l.TP, l.DP = t, gpus/t
			break
		}
	}
	return l
}

// ppOnly is the scenario's layout with TP = 1, the largest PP that divides the GPUs and is at
// most the layer count, DP for the rest, and the 1F1B schedule.
func ppOnly(s model.Scenario) model.Layout {
	l := s.Layout
	gpus := s.Cluster.GPUs
	l.TP, l.PP, l.DP, l.Chunks, l.Schedule = 1, 1, gpus, 1, model.OneFOneB
	for _, p := range slices.Backward(model.Divisors(gpus)) {
		if p <= max(s.Arch.Layers, 1) {
			l.PP, l.DP = p, gpus/p
			break
		}
	}
	return l
}

// hasField reports whether err is a validation error naming field.
func hasField(err error, field string) bool {
	var ve model.ValidationError
	return errors.As(err, &ve) && slices.Contains(ve.Fields(), field)
}

// evalRow evaluates s with layout l; an invalid or non-fitting layout stays a row with its reason.
func evalRow(name string, s model.Scenario, l model.Layout) common.CompareRow {
	s.Layout = l
	row := common.CompareRow{Name: name, Layout: l}
	r, err := costmodel.EvaluateFast(s)
	switch {
	case err != nil:
		row.Reason = reason(err)
	case !r.Memory.Fits:
		row.Report = r
		row.Reason = fmt.Sprintf("over memory by %.1f GiB (stage %d)", (r.Memory.Total-r.Memory.Capacity)/model.GiB, r.Memory.Stage)
	default:
		row.Report, row.Feasible = r, true
	}
	return row
}

// reason is the short form of an evaluation error: the first invalid field and what it allows.
func reason(err error) string {
	var ve model.ValidationError
	if errors.As(err, &ve) && len(ve) > 0 {
		return ve[0].Field + " " + fmt.Sprint(ve[0].Value) + ": " + ve[0].Allowed
	}
	return err.Error()
}

// cross sweeps the micro-batch count m (request groups in inference) for the TP-only and PP-only
// layouts: the batch becomes m · b · dp, everything else stays.
func cross(s model.Scenario, tp, pp model.Layout) []common.CrossPoint {
	out := make([]common.CrossPoint, len(CrossMicros))
	for i, m := range CrossMicros {
		out[i] = common.CrossPoint{Micro: m, TP: tokensAt(s, tp, m), PP: tokensAt(s, pp, m)}
	}
	return out
}

// tokensAt is the tokens per second of layout l at m micro-batches, 0 when invalid or over memory.
func tokensAt(s model.Scenario, l model.Layout, m int) float64 {
	s.Layout = l
	units := m * max(l.MicroBatch, 1) * max(l.DP, 1)
	if s.Workload.Mode == model.Infer {
		s.Workload.Requests = units
	} else {
		s.Workload.GlobalBatch = units
	}
	r, err := costmodel.EvaluateFast(s)
	if err != nil || !r.Memory.Fits {
		return 0
	}
	return r.TokensPerS
}
