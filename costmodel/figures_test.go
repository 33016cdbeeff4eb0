package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The figures' one definitions (report.go) hold together: on the critical stage, the busy
// share, the exposed sends, the bubble, the exposed gradient sync, offload and the optimizer
// make the whole step; one GPU's stage send is the collectives' pp size; serving's sends have no
// part of their own and its closed form applies only with fewer requests than stages.
func TestFiguresHoldTogether(t *testing.T) {
	for _, tc := range []struct {
		name         string
		gpus, tp, pp int
		edit         func(*model.Scenario)
	}{
		{"1f1b", 8, 2, 4, nil},
		{"interleaved", 8, 2, 4, func(s *model.Scenario) { s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, 2 }},
		{"zb-h1", 8, 1, 8, func(s *model.Scenario) { s.Layout.Schedule = model.ZBH1 }},
		{"dp and nodes", 32, 4, 4, nil},
		{"no pipeline", 8, 8, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", tc.gpus, tc.tp, tc.pp)
			if tc.edit != nil {
				tc.edit(&s)
			}
			r := eval(t, s)
			crit, most := -1, 0.0
			for i := range r.Detail.Stages {
				if b := r.StageBusyShare(i); b > most {
					crit, most = i, b
				}
			}
			if crit < 0 {
				t.Fatal("no stage busy")
			}
			bd := r.Breakdown
			sum := most + r.Share(bd.PPComm+bd.Bubble+bd.DPComm+bd.Offload+bd.Optimizer)
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("critical stage S%d: busy %.4f + the rest of the step = %.6f, not 1", crit, most, sum)
			}
			if r.Share(bd.Bubble) != r.BubbleFraction {
				t.Errorf("bubble share %v, BubbleFraction %v", r.Share(bd.Bubble), r.BubbleFraction)
			}
			if f, ok := r.ClosedFormBubble(); !ok || f != r.Detail.BubbleClosedForm {
				t.Errorf("training's closed form %v applies %v", f, ok)
			}
			if r.PPSendsInIdle() {
				t.Error("training's sends are a part of the step")
			}
			var pp []CollectiveUse
			for _, u := range r.Collectives {
				if u.Comm == "pp" {
					pp = append(pp, u)
				}
			}
			if s.Layout.PP <= 1 {
				if len(pp) != 0 || r.PPSendBytesPerGPU() != 0 || r.PPSendTime() != 0 {
					t.Errorf("no pipeline, yet sends: %v, %v B, %v s", pp, r.PPSendBytesPerGPU(), r.PPSendTime())
				}
				return
			}
			if len(pp) != 1 || pp[0].Bytes != r.PPSendBytesPerGPU() || pp[0].Total() != r.PPSendTime() {
				t.Fatalf("pp collectives %+v; one GPU's send %v B, sends %v s", pp, r.PPSendBytesPerGPU(), r.PPSendTime())
			}
			if want := r.Detail.P2PBytes / float64(s.Layout.TP); r.PPSendBytesPerGPU() != want || (s.Layout.TP > 1 && want >= r.Detail.P2PBytes) {
				t.Errorf("one GPU's send %v B, not the activation %v B over TP %d", r.PPSendBytesPerGPU(), r.Detail.P2PBytes, s.Layout.TP)
			}
		})
	}
}

func TestServingFiguresSayWhatApplies(t *testing.T) {
	for _, tc := range []struct {
		requests int
		applies  bool
	}{{8, false}, {16, false}, {4, true}, {1, true}} {
		s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 1, 8)
		s.Layout.DP = 1
		s.Workload.Mode, s.Workload.Requests = model.Infer, tc.requests
		r := eval(t, s)
		f, ok := r.ClosedFormBubble()
		if ok != tc.applies || (ok && !(f > 0)) {
			t.Errorf("%d requests on 8 stages: closed form %v applies %v, want %v", tc.requests, f, ok, tc.applies)
		}
		if !r.PPSendsInIdle() || r.Breakdown.PPComm != 0 {
			t.Errorf("serving: sends in the idle %v, pp comm %v", r.PPSendsInIdle(), r.Breakdown.PPComm)
		}
		if !(r.PPSendTime() > 0) || !(r.PPSendBytesPerGPU() > 0) {
			t.Errorf("serving with 8 stages sends nothing: %v s, %v B", r.PPSendTime(), r.PPSendBytesPerGPU())
		}
		for i := range r.Detail.Stages {
			if b := r.StageBusyShare(i); !(b > 0 && b <= 1) {
				t.Errorf("stage %d busy share %v", i, b)
			}
		}
	}
}
