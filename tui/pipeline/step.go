package pipeline

import (
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// stepped is the op that `.` stopped on: the first (lowest stage) op starting at the playhead,
// how many others start with it, and the line that describes it.
type stepped struct {
	op    int // index in Timeline.Ops, -1 when none
	stage int
	text  string
}

// noStep is the state before any `.`, and after play, restart or a new result.
var noStep = stepped{op: -1, stage: -1}

// stepAt finds the op the playhead stopped on at t (an op start) and describes it.
func stepAt(tl *costmodel.Timeline, t float64) stepped {
	if tl == nil {
		return noStep
	}
	best, same := -1, 0
	for i, op := range tl.Ops {
		if op.Start != t {
			continue
		}
		same++
		if best < 0 || op.Stage < tl.Ops[best].Stage {
			best = i
		}
	}
	if best < 0 {
		return noStep
	}
	return stepped{op: best, stage: tl.Ops[best].Stage, text: describeOp(tl, best, same-1)}
}

// describeOp is one line on op i of tl: where it ran, what it computed, what it waited for and
// how long it ran; others is how many more ops start at the same time.
//
//	S2 (GPUs 4-5) · F of micro-batch 3 · waited 1.20 ms for S1's F3 (p2p 45.0 µs) · ran 24.7 ms
func describeOp(tl *costmodel.Timeline, i, others int) string {
	op := tl.Ops[i]
	infer := tl.Mode == model.Infer
	parts := []string{stageName(tl, op.Stage), opWhat(op, infer, tl.Chunks > 1)}
	// When the stage became free: the end of its latest op that started before this one.
	free := 0.0
	for _, o := range tl.Ops {
		if o.Stage == op.Stage && o.Start < op.Start {
			free = max(free, o.End)
		}
	}
	wait := max(op.Start-free, 0)
	eps := tl.Makespan * 1e-9
	switch {
	case op.Dep >= 0 && op.Dep < len(tl.Ops):
		dep := tl.Ops[op.Dep]
		name := "S" + strconv.Itoa(dep.Stage) + "'s " + opLabel(dep, infer, tl.Chunks > 1)
		if dep.Stage == op.Stage {
			name = "its own " + opLabel(dep, infer, tl.Chunks > 1)
		}
		if wait > eps {
			w := "waited " + fmtDur(wait) + " for " + name
			if p2p := op.Start - dep.End; p2p > eps && dep.Stage != op.Stage {
				w += " (p2p " + fmtDur(p2p) + ")"
			}
			parts = append(parts, w)
		} else {
			parts = append(parts, "no wait: "+name+" was ready")
		}
	case op.Start <= eps:
		parts = append(parts, "first op of the step")
	default:
		parts = append(parts, "its stage was busy")
	}
	parts = append(parts, "ran "+fmtDur(op.End-op.Start))
	if others > 0 {
		n := strconv.Itoa(others) + " more ops start now"
		if others == 1 {
			n = "1 more op starts now"
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, " · ")
}

// stageName is "S2 (GPUs 4-5)", "S0 (GPU 0)" or "S3".
func stageName(tl *costmodel.Timeline, st int) string {
	s := "S" + strconv.Itoa(st)
	if st < len(tl.StageGPUs) && len(tl.StageGPUs[st]) > 0 {
		g := tl.StageGPUs[st]
		if len(g) == 1 {
			return s + " (GPU " + strconv.Itoa(g[0]) + ")"
		}
		return s + " (GPUs " + gpuList(g) + ")"
	}
	return s
}

// opWhat says what an op computes: "F of micro-batch 3", "B of micro-batch 3, chunk 1",
// "prefill of group 2", "decode step 7 of group 2".
func opWhat(op schedule.Op, infer, chunks bool) string {
	switch {
	case infer && op.Token == 0:
		return "prefill of group " + strconv.Itoa(op.Micro)
	case infer:
		return "decode step " + strconv.Itoa(op.Token) + " of group " + strconv.Itoa(op.Micro)
	}
	s := op.Kind.String() + " of micro-batch " + strconv.Itoa(op.Micro)
	if chunks {
		s += ", chunk " + strconv.Itoa(op.Chunk)
	}
	return s
}

// opLabel is the chart's short name of an op: "F3", "B3c1", "P2", "D7 of group 2".
func opLabel(op schedule.Op, infer, chunks bool) string {
	switch {
	case infer && op.Token == 0:
		return "P" + strconv.Itoa(op.Micro)
	case infer:
		return "D" + strconv.Itoa(op.Token) + " of group " + strconv.Itoa(op.Micro)
	}
	s := op.Kind.String() + strconv.Itoa(op.Micro)
	if chunks {
		s += "c" + strconv.Itoa(op.Chunk)
	}
	return s
}
