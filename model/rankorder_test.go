package model

import (
	"strings"
	"testing"
)

// Every order's name reads back as itself; the two of old keep their names and values, and
// their long forms (with cp and ep) read as them.
func TestRankOrderRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range RankOrders() {
		n := o.String()
		if seen[n] {
			t.Errorf("%d: name %q twice", o, n)
		}
		seen[n] = true
		got, err := ParseRankOrder(n)
		if err != nil || got != o {
			t.Errorf("%d %q reads as %d, %v", o, n, got, err)
		}
		if got, err := ParseRankOrder(" " + strings.ToUpper(n) + " "); err != nil || got != o {
			t.Errorf("%q upper-cased: %d, %v", n, got, err)
		}
	}
	if len(seen) != NumRankOrders {
		t.Errorf("%d names for %d orders", len(seen), NumRankOrders)
	}
	for in, want := range map[string]RankOrder{
		"tp-dp-pp": RankOrderTPDPPP, "tp-cp-dp-pp": RankOrderTPDPPP, "tp-cp-ep-dp-pp": RankOrderTPDPPP, "tp-ep-dp-pp": RankOrderTPDPPP,
		"tp-pp-dp": RankOrderTPPPDP, "tp-cp-pp-dp": RankOrderTPPPDP, "tp-cp-ep-pp-dp": RankOrderTPPPDP,
	} {
		if got, err := ParseRankOrder(in); err != nil || got != want {
			t.Errorf("%q: %v (%v), want %v", in, got, err, want)
		}
	}
	if RankOrderTPDPPP.String() != "tp-dp-pp" || RankOrderTPPPDP.String() != "tp-pp-dp" || RankOrderTPDPPP != 0 || RankOrderTPPPDP != 1 {
		t.Error("the two orders of old changed name or value")
	}
	// cp left out follows tp; dp-ep puts EP outside DP.
	if o, _ := ParseRankOrder("pp-tp-dp"); o.String() != "pp-tp-cp-dp" {
		t.Errorf("pp-tp-dp reads as %s", o)
	}
	if o, _ := ParseRankOrder("tp-cp-dp-ep-pp"); !o.EPOutside() || o.String() != "tp-cp-dp-ep-pp" {
		t.Errorf("tp-cp-dp-ep-pp reads as %s", o)
	}
}

// Bad orders are refused naming rank-order, with what is wrong and the form.
func TestRankOrderBad(t *testing.T) {
	for in, want := range map[string]string{
		"":               `"" is not an axis`,
		"tp-dp":          "pp is missing",
		"tp-dp-pp-tp":    "tp is given twice",
		"tp-cp-cp-dp-pp": "cp is given twice",
		"tp-xp-dp-pp":    `"xp" is not an axis`,
		"tp-ep-pp-dp":    "ep must be next to dp (nearest valid tp-pp-ep-dp)",
		"ep-tp-dp-pp":    "ep must be next to dp",
		"tp-dp-pp-ep-ep": "ep is given twice",
		"tp--dp-pp":      `"" is not an axis`,
	} {
		_, err := ParseRankOrder(in)
		if err == nil || !strings.Contains(err.Error(), "rank-order") || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "innermost first") {
			t.Errorf("%q: %v; want %q", in, err, want)
		}
	}
}

// Strides: each axis the product of those inside it; the old orders' as before.
func TestRankOrderStrides(t *testing.T) {
	for _, c := range []struct {
		order          string
		tp, cp, dp, pp int
	}{
		{"tp-dp-pp", 1, 2, 6, 30},
		{"tp-pp-dp", 1, 2, 24, 6},
		{"cp-tp-dp-pp", 3, 1, 6, 30},
		{"pp-dp-cp-tp", 60, 20, 4, 1},
	} {
		o, err := ParseRankOrder(c.order)
		if err != nil {
			t.Fatal(err)
		}
		tp, cp, dp, pp := o.Strides(2, 3, 5, 4)
		if tp != c.tp || cp != c.cp || dp != c.dp || pp != c.pp {
			t.Errorf("%s: strides %d %d %d %d, want %d %d %d %d", c.order, tp, cp, dp, pp, c.tp, c.cp, c.dp, c.pp)
		}
	}
	o, _ := ParseRankOrder("tp-dp-ep-pp")
	if ep, x := o.EPStrides(2, 8, 4); ep != 4 || x != 2 {
		t.Errorf("dp-ep: EP stride %d, expert-DP %d; want 4, 2", ep, x)
	}
	if ep, x := RankOrderTPDPPP.EPStrides(2, 8, 4); ep != 2 || x != 8 {
		t.Errorf("ep-dp: EP stride %d, expert-DP %d; want 2, 8", ep, x)
	}
}

// DistinctRankOrders: one node places everything alike; TP filling the node leaves the other
// axes across nodes whatever the order among them, but CP can still come before TP.
func TestDistinctRankOrders(t *testing.T) {
	a := Arch{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8}
	one := Layout{TP: 2, PP: 2, DP: 2}
	if got := DistinctRankOrders(a, one, 8); len(got) != 1 || got[0] != RankOrderTPDPPP {
		t.Errorf("8 GPUs in one node: %v", got)
	}
	two := Layout{TP: 2, PP: 4, DP: 2}
	got := DistinctRankOrders(a, two, 8)
	if len(got) < 3 || got[0] != RankOrderTPDPPP || got[1] != RankOrderTPPPDP {
		t.Errorf("TP 2 PP 4 DP 2 on two nodes: %v", got)
	}
	for i, o := range got {
		for _, q := range got[:i] {
			if SameRankPlacement(a, two, o, q, 8) {
				t.Errorf("%s and %s place alike but both listed", o, q)
			}
		}
	}
	// Every order is alike to one listed.
	for _, o := range RankOrders() {
		l := two
		l.RankOrder = o
		if f, _ := l.StraddleRule(8, 16); f != "" {
			continue
		}
		found := false
		for _, q := range got {
			found = found || SameRankPlacement(a, two, o, q, 8)
		}
		if !found {
			t.Errorf("%s: no listed order places it alike", o)
		}
	}
}

// The straddle rule follows the order: TP 2 × PP 3 × DP 4 on nodes of 8 tiles in tp-dp-pp
// (blocks of 2 and 8) but not in tp-pp-dp (a block of 6: DP groups 6 apart straddle).
func TestStraddleRuleOrder(t *testing.T) {
	l := Layout{TP: 2, PP: 3, DP: 4}
	if f, rule := l.StraddleRule(8, 24); f != "" {
		t.Errorf("tp-dp-pp: %s %s", f, rule)
	}
	l.RankOrder = RankOrderTPPPDP
	f, rule := l.StraddleRule(8, 24)
	if f != "pp" || !strings.Contains(rule, "tp × pp (6)") || !strings.Contains(rule, "rank order tp-pp-dp") {
		t.Errorf("tp-pp-dp: %q %q", f, rule)
	}
}
