package costmodel

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestRankOrderOldGolden pins the reports of the two rank orders splitscope had before orders
// were generalised (tp-dp-pp, tp-pp-dp) on dense, CP (ring and hybrid) and MoE (EP with and
// without the ETP fold) splits across nodes: the golden was written by the code before the
// change, so the generalised placement must give the same reports to the last bit.
func TestRankOrderOldGolden(t *testing.T) {
	p := presets(t)
	var b strings.Builder
	type tc struct {
		name                      string
		modelID                   string
		gpus, tp, pp, cp, ep, etp int
		comm                      model.CPComm
	}
	for _, c := range []tc{
		{"dense", "llama-3-70b", 16, 2, 4, 1, 1, 0, model.CPRing},
		{"dense-tp1", "llama-3-8b", 32, 1, 4, 1, 1, 0, model.CPRing},
		{"cp-ring", "llama-3-70b", 32, 2, 2, 2, 1, 0, model.CPRing},
		{"cp-hybrid", "llama-3-70b", 64, 2, 2, 8, 1, 0, model.CPHybrid},
		{"cp-allgather", "llama-3-8b", 32, 1, 4, 2, 1, 0, model.CPAllGather},
		{"moe-ep", "mixtral-8x7b", 32, 2, 2, 1, 4, 0, model.CPRing},
		{"moe-fold", "mixtral-8x7b", 32, 2, 2, 1, 4, 1, model.CPRing},
		{"moe-fold-cp", "mixtral-8x7b", 64, 2, 2, 2, 4, 1, model.CPRing},
	} {
		for _, o := range []model.RankOrder{model.RankOrderTPDPPP, model.RankOrderTPPPDP} {
			s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", c.gpus, c.tp, c.pp)
			a, err := p.Model(c.modelID)
			if err != nil {
				t.Fatal(err)
			}
			s.Arch = a
			s.Layout.CP, s.Layout.EP, s.Layout.ETP, s.Layout.CPComm = c.cp, c.ep, c.etp, c.comm
			s.Layout.DP = c.gpus / (c.tp * c.pp * max(c.cp, 1))
			s.Layout.RankOrder = o
			s.Workload.Seq, s.Workload.GlobalBatch = 8192, 64
			r, err := Evaluate(s)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, o, err)
			}
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %s step %.17g sha256 %x\n", c.name, o, r.StepTime, sha256.Sum256(js))
		}
	}
	got := b.String()
	path := filepath.Join("testdata", "rankorder-old.golden")
	if *updateSearchGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the old rank orders' reports moved:\ngot:\n%swant:\n%s", got, want)
	}
}
