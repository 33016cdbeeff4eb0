package tui

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// At the sizes a newcomer opens the explorer at, the Pipeline tab's step-through keeps the
// stepped op's duration on screen ("ran 85.1 ms"): the rest of the line gives way first.
func TestStepThroughKeepsTheDuration(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := p.Model("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	fourNodes := func(s *model.Scenario) { // the default: llama-3-70b, TP 8 in a node, PP 4 across
		s.Arch = arch
		s.Cluster.GPUs = 32
		s.Layout = model.Layout{TP: 8, PP: 4, DP: 1, Chunks: 1, MicroBatch: 1}
		s.Workload.GlobalBatch = 32
	}
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {200, 60}} {
		for name, edit := range map[string]func(*model.Scenario){"llama-2-13b": nil, "llama-3-70b": fourNodes} {
			m := ready(t, sz.w, sz.h, edit)
			m, _ = press(m, "space")
			for i := range 8 {
				m, _ = press(m, ".")
				full := m.pipe.StepDescription()
				ran := ""
				for _, part := range strings.Split(full, " · ") {
					if strings.HasPrefix(part, "ran ") {
						ran = part
					}
				}
				if ran == "" {
					t.Fatalf("%s step %d: %q says no duration", name, i, full)
				}
				v := m.View()
				checkFrame(t, v, sz.w, sz.h)
				line := ""
				for _, l := range strings.Split(v, "\n") {
					if strings.Contains(l, "▸ ") {
						line = l
					}
				}
				if !strings.Contains(line, ran) {
					t.Fatalf("%s at %d×%d, step %d: the description %q lost %q\n%s", name, sz.w, sz.h, i, line, ran, v)
				}
			}
		}
	}
}
