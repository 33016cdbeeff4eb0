package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/overlay"
)

// overlaid is llama-2-7b on 2× a100-sxm-40gb at TP 2 with HTA's real two-rank DDP trace (rank 0,
// A100s) overlaid.
func overlaid(t testing.TB) (common.Data, *overlay.Overlay) {
	t.Helper()
	s := tuitest.Scenario(t, "llama-2-7b", "a100-sxm-40gb", "nvlink3", model.Train, 2, 2, 1)
	s.Workload.GlobalBatch = 8
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	traces, err := overlay.Load([]string{filepath.Join("..", "..", "assets", "trace", "testdata", "hta-nccl-data-rank-0.json.gz")})
	if err != nil {
		t.Fatal(err)
	}
	o, err := overlay.Build(traces, s, r)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}, o
}

// Regenerate with: go test ./tui/pipeline -run TestOverlayGolden -update
func TestOverlayGolden(t *testing.T) {
	d, o := overlaid(t)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newPane(t, d, sz[0], sz[1])
			m.SetOverlay(o)
			paused(m)
			v := m.View()
			checkFrame(t, v, sz[0], sz[1])
			lines := strings.Split(v, "\n")
			// The overlay's rows close the pane: title, difference, the trace's lane, the model's.
			n := len(lines)
			if !strings.HasPrefix(lines[n-4], "measured (trace) vs model") || !strings.HasPrefix(lines[n-3], "NCCL all-reduce ") ||
				!strings.HasPrefix(lines[n-2], "r0 trace ") || !strings.HasPrefix(lines[n-1], "r0 model ") {
				t.Errorf("overlay rows:\n%s", strings.Join(lines[n-4:], "\n"))
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
	// Without the overlay, the chart has the whole pane again.
	m := newPane(t, d, 80, 24)
	m.SetOverlay(o)
	m.SetOverlay(nil)
	if v := m.View(); strings.Contains(v, "r0 trace") {
		t.Error("overlay drawn after SetOverlay(nil)")
	}
}
