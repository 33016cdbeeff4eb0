package tui

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestRankOrderRowCycles: the rank-order row steps through the orders that place the split
// differently (the default first, one of each alike set), then auto, and back; on one node it
// is hidden; typed orders in any nesting are taken, bad ones refused with the form.
func TestRankOrderRowCycles(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2 on 8 GPUs: one node
	f := fieldNamed(t, "rank-order")
	if f.show(&s) {
		t.Error("shown on one node, where every order places the split alike")
	}
	s.Cluster.GPUs, s.Layout.TP, s.Layout.PP, s.Layout.DP, s.Workload.GlobalBatch = 16, 2, 4, 2, 32
	if !f.show(&s) {
		t.Fatal("hidden where the orders differ")
	}
	want := model.DistinctRankOrders(s.Arch, s.Layout, 8)
	if len(want) < 3 {
		t.Fatalf("orders %v", want)
	}
	var got []string
	var autos []bool
	for range len(want) + 1 {
		f.step(&s, p, +1)
		got = append(got, f.get(&s))
		autos = append(autos, s.Layout.Auto&model.AutoRankOrder != 0)
	}
	for i, o := range want[1:] {
		if got[i] != o.String() {
			t.Errorf("step %d: %q, want %s (all %v)", i+1, got[i], o, got)
		}
	}
	if !strings.HasPrefix(got[len(want)-1], "auto → ") || !autos[len(want)-1] {
		t.Errorf("after the orders: %q, want auto", got[len(want)-1])
	}
	if got[len(want)] != "tp-dp-pp" || s.Layout.Auto&model.AutoRankOrder != 0 {
		t.Errorf("after auto: %q, want tp-dp-pp", got[len(want)])
	}
	for _, v := range got {
		if len(v) > 24 {
			t.Errorf("value %q too wide for the panel", v)
		}
	}
	if err := f.set(&s, p, "tp-cp-pp-dp"); err != nil || s.Layout.RankOrder != model.RankOrderTPPPDP {
		t.Errorf("typed tp-cp-pp-dp: %v, %s", err, s.Layout.RankOrder)
	}
	if err := f.set(&s, p, "cp-tp-dp-pp"); err != nil || s.Layout.RankOrder.String() != "cp-tp-dp-pp" {
		t.Errorf("typed cp-tp-dp-pp: %v, %s", err, s.Layout.RankOrder)
	}
	if err := f.set(&s, p, "tp-ep-pp-dp"); err == nil || !strings.Contains(err.Error(), "innermost first") {
		t.Errorf("typed tp-ep-pp-dp: %v", err)
	}
}
