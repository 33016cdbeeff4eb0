package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The report's CP detail is the exchange the layer is charged: its forward exposed time is the
// forward's CP segment, its ring step's exposure max(0, send − block), Ring − 1 of them, the
// block CoreS/Ring; all-gather's and Ulysses' parts sum to it; absent at CP 1.
func TestCPDetailIsTheChargedExchange(t *testing.T) {
	if d := eval(t, cpScenario(t, 8, 1, 1, 32768, model.CPRing)).Detail.Layer.CP; d != nil {
		t.Errorf("CP 1: a CP detail %+v", *d)
	}
	for _, k := range model.CPComms() {
		for _, tc := range []struct{ gpus, tp, cp int }{{8, 1, 4}, {16, 2, 4}, {64, 2, 8}, {32, 8, 4}} {
			if k == model.CPUlysses && tc.cp*tc.tp > 8 {
				continue // Ulysses is bounded by llama-3-8b's 8 KV heads
			}
			s := cpScenario(t, tc.gpus, tc.tp, tc.cp, 65536, k)
			r := eval(t, s)
			d := r.Detail.Layer.CP
			if d == nil {
				t.Fatalf("%s CP %d: no CP detail", k, tc.cp)
			}
			var seg float64
			for _, sg := range r.Detail.Layer.Forward {
				if sg.Kind == SegCPComm {
					seg += sg.End - sg.Start
				}
			}
			if math.Abs(seg-d.ExposedS) > 1e-12*math.Max(seg, 1e-9) {
				t.Errorf("%s CP %d: forward CP segment %g s, detail %g s", k, tc.cp, seg, d.ExposedS)
			}
			if d.Kind != k.String() || d.Ranks != tc.cp || d.Ring*d.Ulysses != tc.cp {
				t.Errorf("%s CP %d: detail %s over %d = %d×%d", k, tc.cp, d.Kind, d.Ranks, d.Ulysses, d.Ring)
			}
			var want float64
			switch k {
			case model.CPAllGather:
				want = d.GatherS
			case model.CPUlysses:
				want = d.BeforeS + d.AfterS
			default:
				want = d.BeforeS + d.AfterS + float64(d.Steps)*d.StepExposedS
				if d.Ring > 1 && (d.Steps != d.Ring-1 || d.StepExposedS != max(d.SendS-d.BlockS, 0) ||
					math.Abs(d.BlockS*float64(d.Ring)-d.CoreS) > 1e-12*d.CoreS || d.SendS <= 0 || d.Link == "") {
					t.Errorf("%s CP %d: ring step %+v", k, tc.cp, *d)
				}
			}
			if math.Abs(want-d.ExposedS) > 1e-12*math.Max(want, 1e-9) || d.ExposedS <= 0 && k != model.CPRing && k != model.CPHybrid {
				t.Errorf("%s CP %d: parts sum to %g s, exposed %g s", k, tc.cp, want, d.ExposedS)
			}
		}
	}
}
