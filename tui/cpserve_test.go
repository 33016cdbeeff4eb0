package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// In serving the CP row shows from 8K-token prompts (not with --disagg) or once set, and a CP
// stepped there evaluates; the Serve view of a CP replica fits 80×24 and says CP and its
// exchange.
func TestCPRowServing(t *testing.T) {
	s, p := testScenario(t) // TP 4 × PP 2 on 8 GPUs
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = 2048, 64, 8
	f := fieldNamed(t, "cp")
	if f.show(&s) {
		t.Errorf("CP row shown for 2K prompts")
	}
	s.Workload.PromptTokens = 16384
	if !f.show(&s) {
		t.Errorf("CP row hidden for 16K prompts")
	}
	d := s
	d.Cluster.GPUs, d.Layout.TP, d.Layout.PP, d.Layout.DP = 16, 4, 1, 2
	d.Layout.Disagg = model.Disagg{PrefillGPUs: 8, PrefillTP: 4}
	if f.show(&d) {
		t.Errorf("CP row shown with --disagg")
	}
	s.Cluster.GPUs, s.Layout.DP = 16, 2
	next, o, err := tryEdit(s, "cp", func(x *model.Scenario) error { f.step(x, p, +1); return nil })
	if err != nil || o != nil || next.Layout.CP != 2 || next.Validate() != nil {
		t.Fatalf("CP up in serving: CP %d DP %d, offer %v, %v", next.Layout.CP, next.Layout.DP, o, err)
	}
	// With pools, the prefill pool's CP row instead.
	pcp := fieldNamed(t, "prefill-cp")
	if !pcp.show(&d) || pcp.get(&d) != "1" {
		t.Errorf("pools, 16K prompts: prefill CP row shown %v, %q", pcp.show(&d), pcp.get(&d))
	}
	pcp.step(&d, p, +1)
	if d.Layout.Disagg.PrefillCP != 2 || d.Validate() != nil {
		t.Errorf("prefill CP up: %d, %v", d.Layout.Disagg.PrefillCP, d.Validate())
	}
	if comm := fieldNamed(t, "cp-comm"); !comm.show(&next) {
		t.Errorf("CP 2 in serving: no exchange row")
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m := ready(t, size.w, size.h, func(x *model.Scenario) { *x = next })
			if m.data.Report.Inference == nil || !(m.data.Report.Breakdown.CPComm > 0) {
				t.Fatalf("no serving figures or no CP exchange: %+v", m.data.Report.Breakdown)
			}
			view := m.View()
			checkFrame(t, view, size.w, size.h)
			if !strings.Contains(view, "CP=2") && !strings.Contains(view, "CP 2") {
				t.Errorf("the view does not say CP 2:\n%s", view)
			}
			if size.w >= 160 && !strings.Contains(view, "CP 2 ring") {
				t.Errorf("the strip does not name CP's exchange:\n%s", view)
			}
		})
	}
}
