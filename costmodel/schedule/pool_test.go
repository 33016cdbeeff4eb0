package schedule

import (
	"math/rand"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestPooledBuffersHoldNothingOver: a run that records nothing takes its end times from a pool
// that earlier runs filled with their end times (large positive values). A run without sends
// or W costs (nil P2P and W: zeros) must be the same after them as before.
func TestPooledBuffersHoldNothingOver(t *testing.T) {
	plain := uniformTrain(model.OneFOneB, 4, 1, 16, 1, 2, 0) // P2P and W nil
	want, err := SimulateTrain(plain)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	for range 20 {
		// Longer runs than plain's, slow sends: their buffers cover plain's sends and W region
		// with end times.
		big := randomTrain(rng, model.OneFOneB, 4, 1, 64, 0.3, 5)
		if _, err := SimulateTrain(big); err != nil {
			t.Fatal(err)
		}
		got, err := SimulateTrain(plain)
		if err != nil {
			t.Fatal(err)
		}
		if got.Makespan != want.Makespan {
			t.Fatalf("after a run with sends, a run without took %.9g s, %.9g s before", got.Makespan, want.Makespan)
		}
	}
}
