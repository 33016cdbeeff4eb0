package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// The pipeline schedules' published tables, each row simulated op by op on the table's own
// terms (equal stages, free sends): bubbles in units of one stage's forward, activations in
// stages' worth of one micro-batch, parameters in stages held a rank.
//
// DualPipe's table (deepseek-ai/DualPipe README, the DeepSeek-V3 report's Table 2) [DP, DSV3]:
// 1F1B (PP−1)(F+B), PP activations; ZB1P (PP−1)(F+B−2W), PP; DualPipe (PP/2−1)(F&B+B−3W), 2×
// parameters, PP+1; DualPipeV the same bubble and activations with PP stages on PP/2 ranks. B is
// the whole backward (our B + W), F&B a forward overlapped with a backward (F + B when nothing
// hides). ZB's README table [ZB]: ZBV's bubble rate 0 with 1F1B's activation memory at equal F,
// B and W, its bubble rate 1 − (F+B+W)·m / the longest stage's time.

// scheduleCase is the shape the rows are simulated at: PP 8 stages (DualPipeV: on 4 ranks), 32
// micro-batches, F = B = 1 (input gradient) and W = 0.5, so the whole backward is 1.5 (ZB-V: F =
// B = W = 1, the table's assumption).
const (
	schedPP    = 8
	schedMicro = 32
)

// ScheduleChecks are validate's "schedule" rows.
func ScheduleChecks() ([]Check, error) {
	const f, b, w = 1.0, 1.0, 0.5
	full := b + w
	pp := float64(schedPP)
	var out []Check
	add := func(name string, published, predicted float64, unit, note string) {
		out = append(out, Check{Group: "schedule", Case: name, Published: published, Predicted: predicted,
			Unit: unit, Tolerance: 1e-9, Note: note})
	}
	run := func(s model.Schedule, p, v int, f, b, w float64) (schedule.Result, error) {
		n := p * v
		in := schedule.Train{Schedule: s, Stages: p, Chunks: v, Micro: schedMicro, F: fill(n, f), B: fill(n, b), W: fill(n, w)}
		if s == model.OneFOneB { // the whole backward in B
			in.B, in.W = fill(n, b+w), nil
		}
		res, err := schedule.SimulateTrain(in)
		if err != nil {
			return res, fmt.Errorf("schedule check %v: %w", s, err)
		}
		return res, nil
	}
	idle := func(r schedule.Result) (worst float64) {
		for _, busy := range r.Busy {
			worst = max(worst, r.Makespan-busy)
		}
		return worst
	}
	peak := func(r schedule.Result) (most int) {
		for _, x := range r.PeakInFlight {
			most = max(most, x)
		}
		return most
	}
	one, err := run(model.OneFOneB, schedPP, 1, f, b, w)
	if err != nil {
		return nil, err
	}
	add("1f1b bubble (PP−1)(F+B)", (pp-1)*(f+full), idle(one), "F", "DP: README table")
	add("1f1b activations PP", pp, float64(peak(one)), "stages", "DP: README table")
	zb1, err := run(model.ZBH1, schedPP, 1, f, b, w)
	if err != nil {
		return nil, err
	}
	add("zb1p bubble (PP−1)(F+B−2W)", (pp-1)*(f+full-2*w), idle(zb1), "F", "DP: README table (ZB1P, our zb-h1)")
	add("zb1p activations PP", pp, float64(peak(zb1)), "stages", "DP: README table")
	dual, err := run(model.DualPipe, schedPP, 2, f, b, w)
	if err != nil {
		return nil, err
	}
	add("dualpipe bubble (PP/2−1)(F&B+B−3W)", (pp/2-1)*(f+full+full-3*w), idle(dual), "F", "DP, DSV3: README table, report Table 2")
	add("dualpipe activations PP+1", pp+1, float64(peak(dual)), "stages", "DP, DSV3: README table, report Table 2")
	add("dualpipe parameters 2×", 2, stagesHeld(model.DualPipe, schedPP), "stages", "DP, DSV3: two stages a rank, one a direction")
	dv, err := run(model.DualPipeV, schedPP/2, 2, f, b, w)
	if err != nil {
		return nil, err
	}
	add("dualpipev bubble (PP/2−1)(F&B+B−3W)", (pp/2-1)*(f+full+full-3*w), idle(dv), "F", "DP: README table, PP stages on PP/2 ranks")
	add("dualpipev activations PP+1", pp+1, float64(peak(dv)), "stages", "DP: README table")
	add("dualpipev parameters 2× (of a stage)", 2, stagesHeld(model.DualPipeV, schedPP/2), "stages", "DP: README table, PP stages on PP/2 ranks")
	zbv, err := run(model.ZBV, schedPP, 2, 1, 1, 1)
	if err != nil {
		return nil, err
	}
	// The longest stage's time: a rank's first op to its last (ZB's bubble rate definition).
	span, err := zbvSpan()
	if err != nil {
		return nil, err
	}
	add("zb-v bubble rate 0: longest stage = 2m(F+B+W)", 2*schedMicro*3, span, "F", "ZB: README table (ZBV), F = B = W")
	add("zb-v activations 1× 1F1B (p micro-batches)", pp, float64(peak(zbv))/2, "micro-batches", "ZB: README table (ZBV)")
	return out, nil
}

// zbvSpan is the longest time a rank of ZB-V (PP 8, 32 micro-batches, F = B = W = 1) takes from
// its first op to its last.
func zbvSpan() (float64, error) {
	n := 2 * schedPP
	in := schedule.Train{Schedule: model.ZBV, Stages: schedPP, Chunks: 2, Micro: schedMicro,
		F: fill(n, 1), B: fill(n, 1), W: fill(n, 1), Record: true}
	res, err := schedule.SimulateTrain(in)
	if err != nil {
		return 0, fmt.Errorf("schedule check zb-v: %w", err)
	}
	per := len(res.Ops) / schedPP
	span := 0.0
	for r := range schedPP {
		span = max(span, res.Finish[r]-res.Ops[r*per].Start)
	}
	return span, nil
}

// stagesHeld is how many distinct model stages rank 0 runs under s on p ranks (where the
// simulation places them: schedule.CostIndex).
func stagesHeld(s model.Schedule, p int) float64 {
	seen := map[int]bool{}
	for q := range 2 * p {
		i := schedule.CostIndex(s, p, q)
		if i%p != 0 {
			continue
		}
		st := q
		if schedule.Bidirectional(s) {
			st = q % p
		}
		seen[st] = true
	}
	return float64(len(seen))
}

func fill(n int, x float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = x
	}
	return xs
}
