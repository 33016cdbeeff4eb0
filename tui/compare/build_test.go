package compare

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestBuild(t *testing.T) {
	cases := []struct {
		name        string
		s           model.Scenario
		tp, pp      [3]int // TP, PP, DP of the first two rows
		third       string
		feasible    [3]bool
		crossAnyTP  bool
		crossAnyPP  bool
		reasonMatch [3]string
	}{
		{
			name: "llama-3-70b on 8 L40S, inference", s: inferL40S(t),
			tp: [3]int{8, 1, 1}, pp: [3]int{1, 8, 1}, third: NameHybrid,
			feasible: [3]bool{true, true, true}, crossAnyTP: true, crossAnyPP: true,
		},
		{
			name: "llama-2-13b on 8 H100, training", s: trainH100(t),
			tp: [3]int{8, 1, 1}, pp: [3]int{1, 8, 1}, third: NameHybrid,
			feasible: [3]bool{true, true, true}, crossAnyTP: true, crossAnyPP: true,
		},
		{
			name: "llama-3-70b training on 8 H100: nothing fits", s: overH100(t),
			tp: [3]int{8, 1, 1}, pp: [3]int{1, 8, 1}, third: NameSearch,
			reasonMatch: [3]string{"over memory", "over memory", "nothing fits"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Build(tc.s)
			if c.Err != nil {
				t.Fatal(c.Err)
			}
			if len(c.Rows) != 3 {
				t.Fatalf("%d rows", len(c.Rows))
			}
			for i, want := range [][3]int{tc.tp, tc.pp} {
				l := c.Rows[i].Layout
				if got := [3]int{l.TP, l.PP, l.DP}; got != want {
					t.Errorf("row %s: layout %v, want %v", c.Rows[i].Name, got, want)
				}
				if l.MicroBatch != tc.s.Layout.MicroBatch {
					t.Errorf("row %s: micro-batch %d, want the scenario's %d", c.Rows[i].Name, l.MicroBatch, tc.s.Layout.MicroBatch)
				}
			}
			if c.Rows[1].Layout.Schedule != model.OneFOneB {
				t.Errorf("PP only: schedule %v", c.Rows[1].Layout.Schedule)
			}
			if c.Rows[0].Name != NameTP || c.Rows[1].Name != NamePP || c.Rows[2].Name != tc.third {
				t.Errorf("names %q %q %q", c.Rows[0].Name, c.Rows[1].Name, c.Rows[2].Name)
			}
			if h := c.Rows[2].Layout; tc.third == NameHybrid && (h.TP < 2 || h.PP < 2) {
				t.Errorf("hybrid %d×%d×%d is not one", h.TP, h.PP, h.DP)
			}
			for i, r := range c.Rows {
				if r.Feasible != tc.feasible[i] {
					t.Errorf("row %s: feasible %v (%s)", r.Name, r.Feasible, r.Reason)
				}
				if r.Feasible && (r.Reason != "" || !r.Report.Memory.Fits || r.Report.TokensPerS <= 0) {
					t.Errorf("row %s: feasible with reason %q, fits %v, %v tok/s", r.Name, r.Reason, r.Report.Memory.Fits, r.Report.TokensPerS)
				}
				if !strings.Contains(r.Reason, tc.reasonMatch[i]) {
					t.Errorf("row %s: reason %q, want %q", r.Name, r.Reason, tc.reasonMatch[i])
				}
			}
			if len(c.Cross) != len(CrossMicros) {
				t.Fatalf("%d cross points", len(c.Cross))
			}
			var anyTP, anyPP bool
			for i, p := range c.Cross {
				if p.Micro != CrossMicros[i] {
					t.Errorf("point %d: m = %d", i, p.Micro)
				}
				anyTP, anyPP = anyTP || p.TP > 0, anyPP || p.PP > 0
			}
			if anyTP != tc.crossAnyTP || anyPP != tc.crossAnyPP {
				t.Errorf("cross has TP %v, PP %v", anyTP, anyPP)
			}
		})
	}
}

// TestBuildAwkwardModels: TP only takes the largest divisor validation accepts, PP only stays
// within the layers, and a model no layout can split gives rows with reasons, not a panic.
func TestBuildAwkwardModels(t *testing.T) {
	s := trainH100(t)
	s.Arch.Heads, s.Arch.KVHeads, s.Arch.Hidden = 20, 20, 20*128 // 20 heads: TP 8 does not divide them
	if got := tpOnly(s); got.TP != 4 || got.DP != 2 || got.PP != 1 {
		t.Errorf("tpOnly with 20 heads: %d×%d×%d, want 4×1×2", got.TP, got.PP, got.DP)
	}
	s.Arch.Layers = 6
	if got := ppOnly(s); got.PP != 4 || got.DP != 2 || got.TP != 1 {
		t.Errorf("ppOnly with 6 layers: %d×%d×%d, want 1×4×2", got.TP, got.PP, got.DP)
	}
	s.Arch.Heads, s.Arch.KVHeads, s.Arch.Hidden = 7, 7, 7*128 // TP 1 only
	if got := tpOnly(s); got.TP != 1 || got.DP != 8 {
		t.Errorf("tpOnly with 7 heads: %d×%d×%d, want 1×1×8", got.TP, got.PP, got.DP)
	}
	c := Build(s)
	if len(c.Rows) != 3 {
		t.Fatalf("rows %+v", c.Rows)
	}

	bad := s
	bad.Cluster.GPUs = 0
	if c := Build(bad); c.Err == nil {
		t.Errorf("0 GPUs: no error")
	}
	bad = s
	bad.Arch.Layers = 0
	c = Build(bad)
	if c.Err != nil || len(c.Rows) != 3 {
		t.Fatalf("invalid model: %v, %d rows", c.Err, len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Feasible || r.Reason == "" {
			t.Errorf("invalid model: row %s feasible %v reason %q", r.Name, r.Feasible, r.Reason)
		}
	}
}
