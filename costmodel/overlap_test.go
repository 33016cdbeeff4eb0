package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestDPOverlapSlowsButNeverLoses: the DP gradient sync hidden behind the last backward still
// costs the SMs it takes (overlapSlowdown of the hidden part, Calculon's processor_usage), so
// an overlapped step is never slower than the serial one, never faster than the step without
// any sync, and its exposed DP time is exactly the unhidden part plus the slowdown.
func TestDPOverlapSlowsButNeverLoses(t *testing.T) {
	for _, tc := range []struct {
		name           string
		model, gpu, in string
		gpus, tp, pp   int
		zero           int
		u              float64
	}{
		{"7b DP 8 in a node", "llama-2-7b", "h100-sxm", "nvlink4", 8, 1, 1, 0, overlapSlowdownIntra},
		{"7b DP 8 ZeRO 1", "llama-2-7b", "h100-sxm", "nvlink4", 8, 1, 1, 1, overlapSlowdownIntra},
		{"13b DP 4 over PCIe", "llama-2-13b", "l40s", "pcie4", 8, 2, 1, 0, overlapSlowdownIntra},
		{"70b DP 2 across nodes", "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 1, 0, overlapSlowdownInter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, tc.model, tc.gpu, tc.in, tc.gpus, tc.tp, tc.pp)
			s.Layout.ZeRO = tc.zero
			over, err := EvaluateFast(s)
			if err != nil {
				t.Fatal(err)
			}
			s.Layout.SerialDP = true
			serial, err := EvaluateFast(s)
			if err != nil {
				t.Fatal(err)
			}
			noSync := serial.StepTime - serial.Breakdown.DPComm
			if over.StepTime > serial.StepTime || over.StepTime < noSync {
				t.Errorf("overlapped step %.6g s outside [no sync %.6g s, serial %.6g s]", over.StepTime, noSync, serial.StepTime)
			}
			dp, st := over.Detail.DPS, over.Detail.Stages[0]
			window := st.B + st.W // PP 1: the last micro-batch's backward
			want := max(dp-window, 0) + tc.u*min(dp, window)
			if dp <= 0 || math.Abs(over.Breakdown.DPComm-want) > 1e-9*want {
				t.Errorf("exposed DP %.6g s, want %.6g s (sync %.6g s, window %.6g s, slowdown %.2f)", over.Breakdown.DPComm, want, dp, window, tc.u)
			}
		})
	}
}

// TestTPOverlapOracle: the exposed part of a TP collective beside a GEMM, by hand for TP 4 on
// one NVLink node (u = 0.15): GEMM 8, collective 4 (compute-bound): the first tile alone (2),
// then 3 tiles of max(2 + 0.15·1, 1) = 2.15, so 8.45 in all and 0.45 exposed (pipe: one more
// exchange tile, 1.45); GEMM 4, collective 8 (comm-bound): 1 + 3·2 = 7, 3 exposed (pipe 5).
func TestTPOverlapOracle(t *testing.T) {
	s := scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", 8, 4, 2)
	for _, tc := range []struct {
		mode       model.TPOverlap
		gemm, comm float64
		want       float64
	}{
		{model.TPOverlapNone, 8, 4, 4},
		{model.TPOverlapRing, 8, 4, 0.45},
		{model.TPOverlapPipe, 8, 4, 1.45},
		{model.TPOverlapRing, 4, 8, 3},
		{model.TPOverlapPipe, 4, 8, 5},
		{model.TPOverlapPipe, 0.1, 8, 7.925}, // a tiny GEMM hides almost nothing: 0.025 + 3·2 + 2 − 0.1
	} {
		s.Layout.TPOverlap = tc.mode
		p := newPlan(s)
		if got := p.tpExposed(tc.gemm, tc.comm); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s, GEMM %g, collective %g: exposed %g, want %g", tc.mode, tc.gemm, tc.comm, got, tc.want)
		}
	}
}

// TestTPOverlapNeverSlowerNorFasterThanCompute: on NVLink, on PCIe and with TP across nodes,
// ring ≤ pipe ≤ none, and no overlap takes the step below the step without its TP
// communication.
func TestTPOverlapNeverSlowerNorFasterThanCompute(t *testing.T) {
	for _, tc := range []struct {
		name           string
		model, gpu, in string
		gpus, tp, pp   int
		sp             bool
	}{
		{"13b TP 8 NVLink", "llama-2-13b", "h100-sxm", "nvlink4", 8, 8, 1, false},
		{"13b TP 4 NVLink SP", "llama-2-13b", "h100-sxm", "nvlink4", 8, 4, 2, true},
		{"7b TP 8 PCIe", "llama-2-7b", "l40s", "pcie4", 8, 8, 1, false},
		{"70b TP 8 SP, DP across nodes", "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, tc.model, tc.gpu, tc.in, tc.gpus, tc.tp, tc.pp)
			s.Layout.SequenceParallel = tc.sp
			s.Layout.Recompute = model.RecomputeFull
			step := map[model.TPOverlap]Report{}
			for _, o := range []model.TPOverlap{model.TPOverlapNone, model.TPOverlapRing, model.TPOverlapPipe} {
				s.Layout.TPOverlap = o
				r, err := EvaluateFast(s)
				if err != nil {
					t.Fatal(err)
				}
				step[o] = r
			}
			none, ring, pipe := step[model.TPOverlapNone], step[model.TPOverlapRing], step[model.TPOverlapPipe]
			floor := none.StepTime - none.Breakdown.TPComm
			if !(floor <= ring.StepTime && ring.StepTime <= pipe.StepTime && pipe.StepTime <= none.StepTime) || ring.StepTime == none.StepTime {
				t.Errorf("step: compute floor %.6g ≤ ring %.6g ≤ pipe %.6g ≤ none %.6g s does not hold (or ring hides nothing)",
					floor, ring.StepTime, pipe.StepTime, none.StepTime)
			}
			if ring.Breakdown.TPComm >= none.Breakdown.TPComm || ring.Breakdown.TPComm <= 0 {
				t.Errorf("TP comm on the critical path: ring %.6g s, none %.6g s", ring.Breakdown.TPComm, none.Breakdown.TPComm)
			}
		})
	}
}
