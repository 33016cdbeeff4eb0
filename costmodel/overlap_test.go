package costmodel

import (
	"math"
	"testing"
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
