package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The collectives table counts what the step times: at ETP below TP a MoE layer's MLP output is
// reduced over the ETP GPUs (none at ETP 1), so the TP and ETP lines together cost the step's TP
// communication, training and serving alike (serving within 3%).
func TestCollectivesFollowETP(t *testing.T) {
	for _, mode := range []model.Mode{model.Train, model.Infer} {
		for _, etp := range []int{4, 2, 1} {
			s := scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", 16, 4, 1)
			s.Layout.EP, s.Layout.ETP = 2, etp
			if mode == model.Infer {
				s.Workload.Mode = model.Infer
				s.Workload.Requests, s.Layout.MicroBatch = 8, 1
			}
			r := eval(t, s)
			var tp, etpCalls float64
			for _, u := range r.Collectives {
				switch u.Comm {
				case "tp":
					tp += u.Total()
				case "etp":
					tp += u.Total()
					etpCalls += u.Calls
					if u.GPUs != etp {
						t.Errorf("%v ETP %d: etp line over %d GPUs", mode, etp, u.GPUs)
					}
				}
			}
			if (etpCalls > 0) != (etp == 2) {
				t.Errorf("%v ETP %d: %g etp calls listed", mode, etp, etpCalls)
			}
			tol := 1e-6
			if mode == model.Infer {
				tol = 0.03 // the table times a call at the run's mean tokens a step; the run, each step's own
			}
			if want := r.Breakdown.TPComm; math.Abs(tp-want) > tol*want {
				t.Errorf("%v ETP %d: the table's TP and ETP collectives cost %.6g s, the step's TP communication %.6g s", mode, etp, tp, want)
			}
		}
	}
}
