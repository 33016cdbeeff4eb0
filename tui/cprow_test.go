package tui

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// The CP row shows in training from 8K-token sequences (or once set), steps CP through the
// divisors of the GPUs with DP derived from what TP × CP × PP leaves, stores 1 as 0, and its
// exchange row shows at CP > 1; a CP the split cannot take is explained and a split offered.
func TestCPRow(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2 on 8 GPUs, seq 2048
	f := fieldNamed(t, "cp")
	if f.show(&s) {
		t.Errorf("CP row shown at seq 2048 with CP unset")
	}
	s.Cluster.GPUs, s.Layout.DP, s.Workload.Seq, s.Workload.GlobalBatch = 16, 2, 32768, 16
	if !f.show(&s) || f.get(&s) != "1" {
		t.Fatalf("seq 32768: shown %v, value %q", f.show(&s), f.get(&s))
	}
	comm := fieldNamed(t, "cp-comm")
	if comm.show(&s) {
		t.Errorf("CP exchange row shown at CP 1")
	}
	next, o, err := tryEdit(s, "cp", func(x *model.Scenario) error { f.step(x, p, +1); return nil })
	if err != nil || o != nil || next.Layout.CP != 2 || next.Layout.DP != 1 || next.Validate() != nil {
		t.Fatalf("CP up: CP %d DP %d, offer %v, %v", next.Layout.CP, next.Layout.DP, o, err)
	}
	if !comm.show(&next) || comm.get(&next) != "ring" {
		t.Errorf("CP 2: exchange row shown %v, %q", comm.show(&next), comm.get(&next))
	}
	comm.step(&next, p, +1)
	if next.Layout.CPComm != model.CPAllGather {
		t.Errorf("exchange → %s, want all-gather", next.Layout.CPComm)
	}
	if r, err := costmodel.Evaluate(next); err != nil || !(r.Breakdown.CPComm > 0) {
		t.Errorf("CP 2 all-gather: %v, exposed %v", err, r.Breakdown.CPComm)
	}
	// CP 4 on 16 GPUs with TP 4 × PP 2 does not fit: explained, and a split keeping CP 4 offered.
	_, o, _ = tryEdit(s, "cp", func(x *model.Scenario) error { return f.set(x, p, "4") })
	if o == nil || !o.ok || o.s.Layout.CP != 4 || o.s.Validate() != nil || o.s.Layout.GPUs() != 16 {
		t.Fatalf("CP 4: offer %+v", o)
	}
	if !strings.Contains(o.why, "CP 4") {
		t.Errorf("why: %q", o.why)
	}
	if err := f.set(&s, p, "1"); err != nil || s.Layout.CP != 0 {
		t.Errorf("set 1: CP %d, %v; want 0", s.Layout.CP, err)
	}
}
