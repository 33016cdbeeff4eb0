package pipeline

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// handTimeline is two stages over 8 s:
//
//	stage 0: F0 [0,1) F1 [1,2) ... B0 [4,6) waiting for stage 1 (gap [2,4))
//	stage 1: F0 [1.1,2.1) waiting for stage 0 (gap [0,1.1)), B0 [2.5,3.5)
func handTimeline() *costmodel.Timeline {
	return &costmodel.Timeline{
		Stages: 2, Chunks: 1, MicroBatches: 2, Schedule: model.OneFOneB, Mode: model.Train, Makespan: 8,
		StageGPUs: [][]int{{0, 1}, {2, 3}},
		Ops: []schedule.Op{
			{Stage: 0, Micro: 0, Kind: schedule.F, Start: 0, End: 1, Dep: -1},
			{Stage: 0, Micro: 1, Kind: schedule.F, Start: 1, End: 2, Dep: -1},
			{Stage: 0, Micro: 0, Kind: schedule.B, Start: 4, End: 6, Dep: 4},
			{Stage: 1, Micro: 0, Kind: schedule.F, Start: 1.1, End: 2.1, Dep: 0},
			{Stage: 1, Micro: 0, Kind: schedule.B, Start: 2.5, End: 3.5, Dep: -1},
		},
	}
}

func TestNewIndex(t *testing.T) {
	ix := newIndex(handTimeline())
	if ix == nil || len(ix.lanes) != 2 || ix.ops != 5 {
		t.Fatalf("index %+v", ix)
	}
	l0, l1 := &ix.lanes[0], &ix.lanes[1]
	if len(l0.gapFrom) != 1 || l0.gapFrom[0] != 2 || l0.gapTo[0] != 4 {
		t.Errorf("stage 0 gaps %v–%v, want [2, 4)", l0.gapFrom, l0.gapTo)
	}
	if len(l1.gapFrom) != 1 || l1.gapFrom[0] != 0 || l1.gapTo[0] != 1.1 {
		t.Errorf("stage 1 gaps %v–%v, want [0, 1.1)", l1.gapFrom, l1.gapTo)
	}
	if len(l0.starts) != 3 || l0.starts[2] != 4 || l0.ends[2] != 6 || l0.ops[2].Kind != kindB {
		t.Errorf("stage 0 ops %+v", l0.ops)
	}
	if got := ix.nextStart(0); got != 1 {
		t.Errorf("nextStart(0) = %v, want 1", got)
	}
	if got := ix.nextStart(1.05); got != 1.1 {
		t.Errorf("nextStart(1.05) = %v, want 1.1", got)
	}
	if got := ix.nextStart(4); got != 8 {
		t.Errorf("nextStart(4) = %v, want the end, 8", got)
	}
}

func TestNewIndexRejects(t *testing.T) {
	if newIndex(nil) != nil {
		t.Error("nil timeline")
	}
	tl := handTimeline()
	tl.Makespan = 0
	if newIndex(tl) != nil {
		t.Error("empty makespan")
	}
	tl = handTimeline()
	tl.Makespan = math.Inf(1)
	if newIndex(tl) != nil {
		t.Error("infinite makespan")
	}
	tl = handTimeline()
	tl.Ops[1].End = math.NaN()
	tl.Ops[3].Stage = -1
	if ix := newIndex(tl); ix == nil || ix.ops != 3 {
		t.Errorf("bad ops should be left out: %+v", ix)
	}
	tl = handTimeline()
	tl.Stages = 0
	tl.Ops = nil
	if newIndex(tl) != nil {
		t.Error("no stages")
	}
}

func TestGapAt(t *testing.T) {
	ix := newIndex(handTimeline())
	l0 := &ix.lanes[0]
	tests := []struct {
		name     string
		a, b     float64
		prevIdle bool
		want     bool
	}{
		{"first column of the gap", 2, 3, false, true},
		{"second column, previous idle", 3, 4, true, false},
		{"second column, previous taken by an op", 3, 4, false, true},
		{"gap covers too little", 1.5, 2.3, false, false},
		{"gap begins in the second half", 1.5, 2.5, false, true},
		{"no gap", 6, 7, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gap := 0
			if got := l0.gapAtFrom(tc.a, tc.b, tc.prevIdle, &gap); got != tc.want {
				t.Errorf("gapAt(%v, %v, %v) = %v, want %v", tc.a, tc.b, tc.prevIdle, got, tc.want)
			}
		})
	}
}
