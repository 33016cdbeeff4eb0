package export

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/overlay"
)

// TestSVGOverlay draws HTA's real DDP trace (rank 0) beside llama-2-7b at TP 2 on two A100s:
// the heading, the difference line, a trace lane and a model lane whose coloured rects stay in
// the chart, as many compute and NCCL rects as the cells have runs.
func TestSVGOverlay(t *testing.T) {
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
	plain, _ := renderSVG(t, s, r, SVGOptions{})
	raw, root := renderSVG(t, s, r, SVGOptions{Overlay: o})
	if bytes.Contains(plain, []byte("overlay")) {
		t.Error("an overlay drawn without one")
	}
	if d := root.find("text", "overlay-diff"); len(d) != 1 || d[0].text != o.Diff {
		t.Errorf("difference line %v, want %q", d, o.Diff)
	}
	labels := root.find("text", "overlay-label")
	if len(labels) != 2 || !strings.HasPrefix(labels[0].text, "r0 trace") || !strings.HasPrefix(labels[1].text, "r0 model") {
		t.Errorf("lane labels %v", labels)
	}
	runs := func(cs []overlay.Cell, k overlay.Cell) int {
		n := 0
		for i, c := range cs {
			if c == k && (i == 0 || cs[i-1] != k) {
				n++
			}
		}
		return n
	}
	meas, mod := o.MeasuredCells(0, overlayCols), o.ModeledCells(0, overlayCols)
	wantComp := runs(meas, overlay.CellCompute) + runs(mod, overlay.CellCompute)
	wantComm := runs(meas, overlay.CellComm) + runs(mod, overlay.CellComm)
	if got := len(root.find("rect", "overlay-compute")); got != wantComp || got == 0 {
		t.Errorf("%d compute rects, the cells have %d runs", got, wantComp)
	}
	if got := len(root.find("rect", "overlay-comm")); got != wantComm || got == 0 {
		t.Errorf("%d NCCL rects, the cells have %d runs", got, wantComm)
	}
	for _, c := range []string{"overlay-compute", "overlay-comm", "overlay-idle"} {
		for _, n := range root.find("rect", c) {
			x, w := n.float(t, "x"), n.float(t, "width")
			if x < margin || x+w > svgWidth-margin+1e-6 || w <= 0 {
				t.Errorf("%s rect at %g wide %g outside the chart", c, x, w)
			}
		}
	}
	if bytes.Contains(raw, []byte("NaN")) || len(raw) <= len(plain) {
		t.Error("a non-finite number, or nothing added")
	}
}
