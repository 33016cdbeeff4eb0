package tui

import (
	"testing"
	"time"

	"github.com/splitscope/splitscope/tui/common"
)

// The animation's end stops the clock: a session left at "■ end" costs no tick (the load
// test's idle sessions; TestPauseStopsTheClock covers a pause and another tab).
func TestEndStopsTheClock(t *testing.T) {
	m := ready(t, 120, 40, nil)
	frames := 0
	at := time.Unix(0, 0)
	for ; frames < 2000; frames++ { // 8 s of play is 240 frames at 30 a second
		at = at.Add(common.FrameInterval) // frames a frame interval apart, as the clock sends them
		next, cmd := m.Update(common.FrameMsg(at))
		m = next.(Model)
		if cmd == nil {
			break
		}
	}
	if frames == 2000 || m.ticking || m.panes[TabPipeline].Animating() {
		t.Fatalf("the clock still ticks after %d frames", frames)
	}
	if frames < 100 {
		t.Errorf("the animation ended after %d frames; want about 240", frames)
	}
}
