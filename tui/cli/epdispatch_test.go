package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// --ep-dispatch two-hop: report --json says it in the layout and the EP all-to-alls across the
// two nodes take less time than direct; a word it does not know is bad input naming the flag.
func TestEPDispatchFlag(t *testing.T) {
	base := []string{"report", "--json", "--model", "mixtral-8x7b", "--gpus", "16", "--tp", "2", "--ep", "8", "--batch", "64"}
	type doc struct {
		Layout struct {
			EPDispatch string `json:"ep_dispatch"`
		} `json:"layout"`
		Breakdown struct {
			EPComm float64 `json:"ep_comm"`
		} `json:"breakdown_s"`
	}
	run := func(d string) doc {
		code, out, errs := runArgs(t, append(base, "--ep-dispatch", d)...)
		var v doc
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Fatalf("--ep-dispatch %s: exit %d, %v: %s", d, code, err, errs)
		}
		return v
	}
	direct, two := run("direct"), run("two-hop")
	if direct.Layout.EPDispatch != "direct" || two.Layout.EPDispatch != "two-hop" {
		t.Errorf("layout ep_dispatch: %q and %q", direct.Layout.EPDispatch, two.Layout.EPDispatch)
	}
	if !(two.Breakdown.EPComm > 0) || !(two.Breakdown.EPComm < direct.Breakdown.EPComm) {
		t.Errorf("ep comm: two-hop %g s, direct %g s", two.Breakdown.EPComm, direct.Breakdown.EPComm)
	}
	code, _, errs := runArgs(t, append(base, "--ep-dispatch", "sideways")...)
	if code != 2 || !strings.Contains(errs, "ep-dispatch") || !strings.Contains(errs, "two-hop") {
		t.Errorf("--ep-dispatch sideways: exit %d: %s", code, errs)
	}
}
