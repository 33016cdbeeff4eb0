package costmodel

import "testing"

// The serving simulator on every published run validate shows: each absolute check within its
// tolerance, TP scaling within 25%, and every published order kept.
func TestPublishedServing(t *testing.T) {
	checks, err := ServeChecks(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, c := range checks {
		groups[c.Group]++
		t.Logf("%-90s published %10.4g  model %10.4g %-5s %+6.1f%%  %s", c.Case, c.Published, c.Predicted, c.Unit, 100*c.RelErr(), c.Note)
		if !c.Pass() {
			t.Errorf("%s: model %.4g, published %.4g (%+.1f%%, tolerance %.0f%%, order %v)", c.Case, c.Predicted, c.Published,
				100*c.RelErr(), 100*c.Tolerance, c.Order)
		}
		if c.Group == "serve-ratio" && c.Tolerance > 0.25 {
			t.Errorf("%s: TP scaling tolerance %.0f%%, above the 25%% bar", c.Case, 100*c.Tolerance)
		}
	}
	if groups["serve"] < 40 || groups["serve-ratio"] < 10 || groups["serve-order"] < 5 {
		t.Errorf("checks per group: %v", groups)
	}
}
