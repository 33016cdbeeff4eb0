package assets

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// ep_dispatch reads direct or two-hop, is written back when not the default, and a word it does
// not know is refused naming the key.
func TestScenarioEPDispatch(t *testing.T) {
	p := mustLoad(t)
	src := "model: deepseek-v3\ngpu: h100-sxm\ngpus: 256\ngpus_per_node: 8\ntp: 1\npp: 16\ndp: 16\nep: 16\nep_dispatch: two-hop\n"
	sf, err := ParseScenario("s.yaml", []byte(src), p)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Scenario.Layout.EPDispatch != model.EPDispatchTwoHop {
		t.Fatalf("ep_dispatch two-hop read as %v", sf.Scenario.Layout.EPDispatch)
	}
	out := string(MarshalScenario(sf.Scenario, "t"))
	if !strings.Contains(out, "ep_dispatch: two-hop") {
		t.Errorf("written back without ep_dispatch:\n%s", out)
	}
	sf.Scenario.Layout.EPDispatch = model.EPDispatchDirect
	if out := string(MarshalScenario(sf.Scenario, "t")); strings.Contains(out, "ep_dispatch") {
		t.Errorf("the default written:\n%s", out)
	}
	_, err = ParseScenario("s.yaml", []byte(strings.Replace(src, "two-hop", "sideways", 1)), p)
	if err == nil || !strings.Contains(err.Error(), "ep_dispatch") || !strings.Contains(err.Error(), "two-hop") {
		t.Errorf("ep_dispatch sideways: %v, want an error naming the key and the words allowed", err)
	}
}

// DeepSeek-V3's config.json routes each token's top-8 within its 4 best of 8 expert groups
// (n_group 8, topk_group 4): read as ExpertGroups and GroupLimit, as the preset has them; Kimi
// K2's one group (n_group 1, topk_group 1) is no limit.
func TestHFConfigNodeLimitedRouting(t *testing.T) {
	ds, err := readHF(t, "deepseek-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	if ds.ExpertGroups != 8 || ds.GroupLimit != 4 {
		t.Errorf("deepseek-v3.json: expert groups %d, limit %d; want 8, 4", ds.ExpertGroups, ds.GroupLimit)
	}
	pre, err := mustLoad(t).Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	if pre.ExpertGroups != ds.ExpertGroups || pre.GroupLimit != ds.GroupLimit {
		t.Errorf("preset deepseek-v3: %d, %d; config %d, %d", pre.ExpertGroups, pre.GroupLimit, ds.ExpertGroups, ds.GroupLimit)
	}
	k2, err := readHF(t, "kimi-k2.json")
	if err != nil {
		t.Fatal(err)
	}
	if k2.ExpertGroups != 0 || k2.GroupLimit != 0 {
		t.Errorf("kimi-k2.json: expert groups %d, limit %d; want 0, 0 (one group: no limit)", k2.ExpertGroups, k2.GroupLimit)
	}
}
