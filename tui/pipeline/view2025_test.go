package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/model"
)

// TestViewGolden2025 draws ZB-V, DualPipe and DualPipeV (llama-2-7b, PP 4, 8 micro-batches) at
// 80×24 and 160×48: their B and W apart, chunk 1 (the V's way back, DualPipe's other direction)
// in lower case, and the legend saying which. Regenerate with: go test ./tui/pipeline -run
// TestViewGolden2025 -update
func TestViewGolden2025(t *testing.T) {
	for _, c := range []struct {
		s      model.Schedule
		legend string
	}{{model.ZBV, "the V"}, {model.DualPipe, "direction"}, {model.DualPipeV, "the V"}} {
		d := evaluate(t, func(s *model.Scenario) { s.Layout.Schedule = c.s })
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", c.s, sz[0], sz[1]), func(t *testing.T) {
				m := newPane(t, d, sz[0], sz[1])
				paused(m)
				v := m.View()
				checkFrame(t, v, sz[0], sz[1])
				if !strings.Contains(v, c.legend) || !strings.Contains(v, "c1") {
					t.Errorf("%v: no chunk-1 ops or legend (%q) drawn", c.s, c.legend)
				}
				if sz[0] >= 160 && !strings.Contains(v, "W per mb") {
					t.Errorf("%v: the stage table has no W column", c.s)
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}
