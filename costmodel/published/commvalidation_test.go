package published

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The collective model on published sweeps it was (mostly) not fitted to: every row within its
// case's tolerance, and the per-sweep errors in the log.
func TestPublishedCommSweeps(t *testing.T) {
	p := presets(t)
	checks, err := CommChecks(func(id string) (model.Link, error) { return p.Link(id) })
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) < 40 {
		t.Fatalf("only %d rows checked", len(checks))
	}
	for _, c := range checks {
		t.Logf("%-52s published %7.1f  model %7.1f GB/s  %+6.1f%%  %s", c.Case, c.Published, c.Predicted, 100*c.RelErr(), c.Note)
		if !c.Pass() {
			t.Errorf("%s: model %.1f GB/s, published %.1f (%+.1f%%, tolerance %.0f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr(), 100*c.Tolerance)
		}
	}
	for _, s := range SummarizeComm(checks) {
		t.Logf("%-32s %2d rows  mean %5.1f%%  worst %5.1f%%", s.ID, s.Rows, 100*s.Mean, 100*s.Worst)
	}
}
