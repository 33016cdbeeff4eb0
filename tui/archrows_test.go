package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/model"
)

// The panel says a MoE / MLA / windowed model's architecture in read-only rows under the
// model's sizes, each whole in the 80-column panel; a dense one-shape model shows none of
// them; ←/→ leave them and typing into them is refused.
func TestPanelSaysTheArchitecture(t *testing.T) {
	s, p := testScenario(t)
	want := map[string]map[string]string{
		"llama-2-13b":  {},
		"deepseek-v3":  {"experts": "top-8 of 256", "shared-experts": "1", "active": "37.6B of 671B", "attention": "MLA 512+64"},
		"mixtral-8x7b": {"experts": "top-2 of 8", "active": "12.9B of 46.7B", "attention": "GQA 8 KV"},
	}
	all := fields()
	for id, rows := range want {
		a, err := p.Model(id)
		if err != nil {
			t.Fatal(err)
		}
		s.Arch = a
		got := map[string]string{}
		for _, i := range visibleFields(all, &s) {
			if slices.Contains(archRows, all[i].name) {
				got[all[i].name] = all[i].get(&s)
			}
		}
		if len(got) != len(rows) {
			t.Errorf("%s: rows %v, want %v", id, got, rows)
		}
		for k, v := range rows {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", id, k, got[k], v)
			}
		}
	}
	// The rows read whole at 80×24 (the panel's 26 inner columns), and say the whole line when
	// selected.
	m := ready(t, 80, 24, func(s *model.Scenario) { s.Arch, _ = p.Model("deepseek-v3") })
	for _, name := range archRows {
		i := slices.IndexFunc(m.fields, func(f field) bool { return f.name == name })
		row := ansi.Strip(m.paramRow(i, 26))
		if strings.Contains(row, "…") || ansi.StringWidth(row) > 26 {
			t.Errorf("row %s at 80 columns: %q", name, row)
		}
		m.sel = i
		if d := derivation(name, m.cur); !strings.Contains(d, "256 experts of 2048, top-8") || !strings.Contains(d, "MLA (latent 512") {
			t.Errorf("note of %s: %q", name, d)
		}
		before := m.cur
		next, _ := m.stepField(+1)
		if next.(Model).cur != before {
			t.Errorf("→ on %s changed the scenario", name)
		}
		if err := m.fields[i].set(&m.cur, p, "3"); err == nil {
			t.Errorf("typing into %s was accepted", name)
		}
	}
}

// The model row cycles to deepseek-v3 as to any preset, and the explorer evaluates it.
func TestModelRowCyclesToDeepSeekV3(t *testing.T) {
	_, p := testScenario(t)
	ids := p.ModelIDs()
	i := slices.Index(ids, "deepseek-v3")
	if i < 0 {
		t.Fatal("no deepseek-v3 preset")
	}
	prev := ids[(i-1+len(ids))%len(ids)]
	m := ready(t, 80, 24, func(x *model.Scenario) {
		x.Arch, _ = p.Model(prev)
		x.Cluster.GPU, _ = p.GPU("h200-sxm")
		x.Layout = model.Layout{TP: 8, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1}
		x.Workload.Mode = model.Infer
	})
	m.sel = slices.IndexFunc(m.fields, func(f field) bool { return f.name == "model" })
	next, cmd := m.stepField(+1)
	m = next.(Model)
	if m.cur.Arch.ID != "deepseek-v3" || cmd == nil {
		t.Fatalf("→ on model from %s: %s (cmd %v)", prev, m.cur.Arch.ID, cmd != nil)
	}
	m = settle(m)
	if m.evalErr != nil || !m.hasData || m.data.Report.Memory.Total <= 0 {
		t.Fatalf("deepseek-v3 evaluated: err %v, data %v", m.evalErr, m.hasData)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "top-8 of 256") || !strings.Contains(v, "MLA 512+64") {
		t.Errorf("view lacks the architecture rows:\n%s", v)
	}
}
