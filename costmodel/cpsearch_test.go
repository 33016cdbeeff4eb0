package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// Search tries CP where the sequence is long (and only there), and a fixed CP is the only one.
func TestSearchTriesCP(t *testing.T) {
	s := cpScenario(t, 16, 1, 1, 65536, model.CPRing)
	s.Workload.GlobalBatch = 16
	res, err := Search(s, SearchOptions{})
	if err != nil || res.Feasible == 0 {
		t.Fatalf("search at 64K: %v, %d feasible", err, res.Feasible)
	}
	kinds := map[model.CPComm]bool{}
	for _, c := range res.Candidates {
		if c.Layout.CPSize() > 1 {
			kinds[c.Layout.CPComm] = true
			if c.Layout.GPUs() != 16 {
				t.Errorf("candidate %+v: %d GPUs", c.Layout, c.Layout.GPUs())
			}
		}
	}
	for _, k := range model.CPComms() {
		if !kinds[k] {
			t.Errorf("search at 64K on 16 GPUs tried no CP > 1 with %s", k)
		}
	}
	if b := res.Candidates[0].Layout; b.CPSize() == 1 && b.TP == 1 {
		t.Errorf("at 64K the best layout splits neither the sequence nor the layers' tensors: %+v", b)
	}
	s.Workload.Seq = 4096
	res, err = Search(s, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Layout.CP != 0 {
			t.Fatalf("at 4K search tried CP %d", c.Layout.CP)
		}
	}
	s.Workload.Seq = 65536
	res, err = Search(s, SearchOptions{Fix: SearchFix{CP: 4, CPComm: model.CPUlysses, HasCPComm: true}})
	if err != nil || res.Feasible == 0 {
		t.Fatalf("search --cp 4: %v, %d feasible", err, res.Feasible)
	}
	for _, c := range res.Candidates {
		if c.Layout.CP != 4 || c.Layout.CPComm != model.CPUlysses {
			t.Fatalf("search --cp 4 --cp-comm ulysses listed %+v", c.Layout)
		}
	}
}
