package published

import "testing"

// TestScheduleChecks: every row of the schedules' published tables holds on the simulation.
func TestScheduleChecks(t *testing.T) {
	checks, err := ScheduleChecks()
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 12 {
		t.Errorf("%d schedule rows, want 12", len(checks))
	}
	for _, c := range checks {
		if !c.Pass() {
			t.Errorf("%s: published %g, simulated %g", c.Case, c.Published, c.Predicted)
		}
	}
}
