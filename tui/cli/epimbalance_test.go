package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --ep-imbalance reaches the cost model: the busiest GPU's share slows the step; the scenario
// key does the same; a value below 1 exits 2 naming the flag or the key.
func TestEPImbalanceFlag(t *testing.T) {
	base := []string{"report", "--model", "mixtral-8x7b", "--gpus", "8", "--tp", "1", "--pp", "1", "--ep", "8", "--json"}
	step := func(args ...string) float64 {
		t.Helper()
		code, out, errs := runArgs(t, append(append([]string{}, base...), args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var r struct {
			StepTime float64 `json:"step_time_s"`
			Layout   struct {
				EPImbalance float64 `json:"ep_imbalance"`
			} `json:"layout"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.StepTime <= 0 || r.Layout.EPImbalance < 1 {
			t.Fatalf("%v: step %g, layout's ep_imbalance %g, %v", args, r.StepTime, r.Layout.EPImbalance, err)
		}
		return r.StepTime
	}
	one, def, two := step("--ep-imbalance", "1"), step(), step("--ep-imbalance", "2")
	if !(one < def && def < two) {
		t.Errorf("step at imbalance 1, default, 2: %g, %g, %g s: want rising", one, def, two)
	}
	code, _, errs := runArgs(t, append(append([]string{}, base...), "--ep-imbalance", "0.5")...)
	if code != 2 || !strings.Contains(errs, "--ep-imbalance 0.5") {
		t.Errorf("--ep-imbalance 0.5: exit %d, %q; want 2 naming the flag", code, errs)
	}
	dir := t.TempDir()
	sc := filepath.Join(dir, "ep.yaml")
	if err := os.WriteFile(sc, []byte("model: mixtral-8x7b\ngpu: h100-sxm\ngpus: 8\ntp: 1\npp: 1\nep: 8\nep_imbalance: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := step("--scenario", sc); got != two {
		t.Errorf("scenario ep_imbalance 2: step %g s, the flag's %g", got, two)
	}
	if err := os.WriteFile(sc, []byte("model: mixtral-8x7b\ngpu: h100-sxm\ngpus: 8\ntp: 1\npp: 1\nep: 8\nep_imbalance: 0.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runArgs(t, "report", "--scenario", sc)
	if code != 2 || !strings.Contains(errs, "ep_imbalance = 0.7") {
		t.Errorf("scenario ep_imbalance 0.7: exit %d, %q; want 2 naming the key", code, errs)
	}
}
