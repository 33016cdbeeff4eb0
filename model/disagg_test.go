package model

import (
	"strings"
	"testing"
)

// The prefill pool's EP: the layout's where it divides the pool's DP, none where it does not,
// PrefillEP when given; one that does not divide the pool's DP is refused as prefill-ep.
func TestDisaggPrefillEP(t *testing.T) {
	s := Scenario{Layout: Layout{TP: 2, PP: 1, DP: 4, EP: 4, Disagg: Disagg{PrefillGPUs: 8, PrefillTP: 4}}, Cluster: Cluster{GPUs: 16}}
	if pre, dec := s.DisaggPools(); pre.Layout.DP != 2 || pre.Layout.EP != 0 || dec.Layout.EP != 4 {
		t.Errorf("EP 4 over a prefill DP of %d: prefill EP %d, decode EP %d; want none and 4", pre.Layout.DP, pre.Layout.EP, dec.Layout.EP)
	}
	s.Layout.Disagg.PrefillEP = 2
	if pre, _ := s.DisaggPools(); pre.Layout.EP != 2 {
		t.Errorf("prefill-ep 2: the pool's EP is %d", pre.Layout.EP)
	}
	s.Layout.Disagg.PrefillEP = -1
	if err := s.validateDisagg(); err == nil || !strings.Contains(err.Error(), "prefill-ep") {
		t.Errorf("prefill-ep -1: %v, want an error naming prefill-ep", err)
	}
}
