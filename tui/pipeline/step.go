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
	desc  description
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
	return stepped{op: best, stage: tl.Ops[best].Stage, desc: describeOp(tl, best, same-1)}
}

// description is the line on a stepped op, part by part, each part in the forms it can take
// from the longest; an empty form leaves the part out. The op's duration has one form: it is the
// part a narrow pane keeps.
type description [numParts][]string

// The parts of a description, in the order they are written.
const (
	partStage = iota // "S2 (GPUs 4-5)", "S2"
	partWhat         // "F of micro-batch 3", "F3"
	partWait         // "waited 1.20 ms for S1's F3 (p2p 45.0 µs)", … "waited 1.20 ms"
	partRan          // "ran 24.7 ms"
	partMore         // "2 more ops start now"
	numParts
)

// shorten is the order in which a description gives up words to fit: the other ops starting
// now, the p2p time, the GPUs, the long name of the op, what it waited for, the wait, the stage.
var shorten = [...]struct{ part, form int }{
	{partMore, 1}, {partWait, 1}, {partStage, 1}, {partWhat, 1}, {partWait, 2}, {partWait, 3}, {partStage, 2},
}

// text writes the description with the parts in the given forms.
func (d *description) text(forms *[numParts]int) string {
	var parts []string
	for i, fs := range d {
		if len(fs) == 0 {
			continue
		}
		if f := fs[min(forms[i], len(fs)-1)]; f != "" {
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, " · ")
}

// String is the description at full length.
func (d *description) String() string {
	var forms [numParts]int
	return d.text(&forms)
}

// fit is the longest form of the description that fits in w cells, shortening the parts in the
// order of shorten; the shortest form when none fits.
func (d *description) fit(w int) string {
	var forms [numParts]int
	s := d.text(&forms)
	for _, st := range shorten {
		if cellWidth(s) <= w {
			break
		}
		forms[st.part] = max(forms[st.part], st.form)
		s = d.text(&forms)
	}
	return s
}

// describeOp is one line on op i of tl: where it ran, what it computed, what it waited for and
// how long it ran; others is how many more ops start at the same time.
//
//	S2 (GPUs 4-5) · F of micro-batch 3 · waited 1.20 ms for S1's F3 (p2p 45.0 µs) · ran 24.7 ms
//
// and, in a narrow pane, down to
//
//	S2 · F3 · ran 24.7 ms
func describeOp(tl *costmodel.Timeline, i, others int) description {
	op := tl.Ops[i]
	infer := tl.Mode == model.Infer
	chunks := tl.Chunks > 1
	var d description
	d[partStage] = []string{stageName(tl, op.Stage), "S" + strconv.Itoa(op.Stage), ""}
	d[partWhat] = []string{opWhat(op, infer, chunks), opShort(op, infer, chunks)}
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
		name := "S" + strconv.Itoa(dep.Stage) + "'s " + opLabel(dep, infer, chunks)
		if dep.Stage == op.Stage {
			name = "its own " + opLabel(dep, infer, chunks)
		}
		if wait > eps {
			w := "waited " + fmtDur(wait)
			long := w + " for " + name
			withP2P := long
			if p2p := op.Start - dep.End; p2p > eps && dep.Stage != op.Stage {
				withP2P += " (p2p " + fmtDur(p2p) + ")"
			}
			d[partWait] = []string{withP2P, long, w, ""}
		} else {
			d[partWait] = []string{"no wait: " + name + " was ready", "no wait: " + name + " was ready", "no wait", ""}
		}
	case op.Start <= eps:
		d[partWait] = []string{"first op of the step", "first op of the step", "first op", ""}
	default:
		d[partWait] = []string{"its stage was busy", "its stage was busy", "stage busy", ""}
	}
	d[partRan] = []string{"ran " + fmtDur(op.End-op.Start)}
	if others > 0 {
		n := strconv.Itoa(others) + " more ops start now"
		if others == 1 {
			n = "1 more op starts now"
		}
		d[partMore] = []string{n, ""}
	}
	return d
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
// "engine step 4 with prompt chunks, batch 2", "decode step 7, batch 2".
func opWhat(op schedule.Op, infer, chunks bool) string {
	switch {
	case infer && op.Token == 0:
		return "engine step with prompt chunks, batch " + strconv.Itoa(op.Micro)
	case infer:
		return "decode step " + strconv.Itoa(op.Token) + ", batch " + strconv.Itoa(op.Micro)
	}
	s := op.Kind.String() + " of micro-batch " + strconv.Itoa(op.Micro)
	if chunks {
		s += ", chunk " + strconv.Itoa(op.Chunk)
	}
	return s
}

// opShort is an op's name in the fewest cells: "F3", "B3c1", "P2", "D7 b2".
func opShort(op schedule.Op, infer, chunks bool) string {
	if infer && op.Token > 0 {
		return "D" + strconv.Itoa(op.Token) + " b" + strconv.Itoa(op.Micro)
	}
	return opLabel(op, infer, chunks)
}

// opLabel is the chart's short name of an op: "F3", "B3c1", "P2", "D7 of batch 2".
func opLabel(op schedule.Op, infer, chunks bool) string {
	switch {
	case infer && op.Token == 0:
		return "P" + strconv.Itoa(op.Micro)
	case infer:
		return "D" + strconv.Itoa(op.Token) + " of batch " + strconv.Itoa(op.Micro)
	}
	s := op.Kind.String() + strconv.Itoa(op.Micro)
	if chunks {
		s += "c" + strconv.Itoa(op.Chunk)
	}
	return s
}
