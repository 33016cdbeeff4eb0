package tensor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// mixtralEP is Mixtral 8x7B training on 8 H100s with expert parallelism ep beside TP tp.
func mixtralEP(t testing.TB, tp, ep int) common.Data {
	s := tuitest.Scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", model.Train, 8, tp, 1)
	s.Layout.EP = ep
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}

// A MoE layer under EP: the bars label its all-to-alls, the numbers name the one the engine
// runs (its bytes and time are the report's), and an animation plays its pairwise exchanges
// at the modelled pace, beside TP's all-reduce when TP > 1.
func TestAllToAllShownAndAnimated(t *testing.T) {
	for _, tc := range []struct{ tp, ep int }{{1, 8}, {2, 4}} {
		d := mixtralEP(t, tc.tp, tc.ep)
		var u costmodel.CollectiveUse
		for _, c := range d.Report.Collectives {
			if c.Comm == "ep" {
				u = c
			}
		}
		if u.Bytes <= 0 {
			t.Fatalf("TP %d EP %d: no all-to-all in the report", tc.tp, tc.ep)
		}
		m := New(theme.Default())
		m.SetSize(122, 46)
		m.SetData(d)
		if !m.Animating() {
			t.Errorf("TP %d EP %d: the all-to-all does not play", tc.tp, tc.ep)
		}
		v := m.View()
		tuitest.CheckFrame(t, v, 122, 46)
		for _, w := range []string{
			fmt.Sprintf("EP e = %d · all-to-all S = %s", tc.ep, static.Bytes(u.Bytes)), "→ " + static.Seconds(u.Seconds),
			fmt.Sprintf("All-to-all over EP %d: e−1 = %d pairwise exchanges", tc.ep, tc.ep-1), "step 1/",
		} {
			if !strings.Contains(v, w) {
				t.Errorf("TP %d EP %d lacks %q:\n%s", tc.tp, tc.ep, w, v)
			}
		}
		if tc.tp == 1 && (!strings.Contains(v, "all-to-all "+static.Seconds(u.Seconds)) || !strings.Contains(v, "EP comm ")) {
			t.Errorf("TP 1: the bars' list lacks the all-to-alls:\n%s", v)
		}
		if tc.tp > 1 && !strings.Contains(v, "Ring all-reduce") {
			t.Errorf("TP %d: the all-reduce's animation is gone:\n%s", tc.tp, v)
		}
		// Frames move it through its e−1 exchanges to the finished state, and the drawing follows.
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		step := m.a2aWall() / float64(tc.ep-1)
		n := int(1.5 * step / common.FrameInterval.Seconds())
		for i := range n {
			m.Update(common.FrameMsg(t0.Add(time.Duration(i) * common.FrameInterval)))
		}
		if m.A2AStep() != 1 {
			t.Fatalf("after 1.5 steps of frames: all-to-all step %d", m.A2AStep())
		}
		if v := m.View(); !strings.Contains(v, fmt.Sprintf("step 2/%d", tc.ep-1)) {
			t.Errorf("the caption did not move on:\n%s", v)
		}
	}
	// Dense, TP 1: nothing plays, no all-to-all.
	m := New(theme.Default())
	m.SetSize(122, 46)
	m.SetData(scenario(t, "nvlink4", model.Train, 1))
	if m.Animating() || strings.Contains(m.View(), "All-to-all") {
		t.Error("a dense model at TP 1 plays an all-to-all")
	}
}

// After k exchanges of the pairwise schedule every GPU has received from k GPUs, sends to the
// next, and keeps its own slot; finished, it holds every GPU's tokens.
func TestA2ACells(t *testing.T) {
	const e = 8
	for k := range e {
		done := k == e-1
		for i := range e {
			got := map[rune]int{}
			for j := range e {
				g, _ := a2aCell(i, j, e, k, done)
				got[g]++
			}
			want := map[rune]int{'○': 1, '█': k, '▸': 1, '·': e - 2 - k}
			if done {
				want = map[rune]int{'○': 1, '█': e - 1}
			}
			for g, n := range want {
				if got[g] != n {
					t.Errorf("k %d GPU %d: %d × %c, want %d (%v)", k, i, got[g], g, n, got)
				}
			}
		}
	}
}

// The Tensor pane of Mixtral under EP 8 (TP 1) and EP 4 beside TP 2, at the golden sizes, the
// all-to-all at 40% of its third exchange.
func TestViewGoldenEP(t *testing.T) {
	for _, tc := range []struct{ tp, ep int }{{1, 8}, {2, 4}} {
		d := mixtralEP(t, tc.tp, tc.ep)
		for _, sz := range [][2]int{{56, 16}, {120, 34}, {196, 52}} {
			t.Run(fmt.Sprintf("tp%d-ep%d_%dx%d", tc.tp, tc.ep, sz[0], sz[1]), func(t *testing.T) {
				m := newPane(sz[0], sz[1], d)
				m.a2aPos = 2.4
				out := m.View()
				tuitest.CheckFrame(t, out, sz[0], sz[1])
				for i, l := range strings.Split(out, "\n") {
					if lipgloss.Width(l) > sz[0] {
						t.Fatalf("line %d too wide", i)
					}
				}
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}
