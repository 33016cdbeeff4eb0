package tensor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

type fixture struct {
	name string
	data func(testing.TB) common.Data
}

var fixtures = []fixture{
	{"nvlink-train", func(t testing.TB) common.Data { return scenario(t, "nvlink4", model.Train, 8) }},
	{"pcie-train", func(t testing.TB) common.Data { return scenario(t, "pcie4", model.Train, 8) }},
	{"nvlink-infer", func(t testing.TB) common.Data { return scenario(t, "nvlink4", model.Infer, 8) }},
	{"tp1-train", func(t testing.TB) common.Data { return scenario(t, "nvlink4", model.Train, 1) }},
}

// newPane is the pane at a size with data, the ring at 40% of its third step.
func newPane(w, h int, d common.Data) *Model {
	m := New(theme.Default())
	m.SetSize(w, h)
	m.SetData(d)
	m.pos = 2.4
	return m
}

func TestViewGolden(t *testing.T) {
	for _, f := range fixtures {
		d := f.data(t)
		for _, sz := range [][2]int{{56, 16}, {120, 34}, {196, 52}} {
			t.Run(fmt.Sprintf("%s_%dx%d", f.name, sz[0], sz[1]), func(t *testing.T) {
				m := newPane(sz[0], sz[1], d)
				out := m.View()
				tuitest.CheckFrame(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// TestViewGoldenStates covers the ring's all-gather and finished state, a paused ring and a
// stale result, and a step under way of every other algorithm.
func TestViewGoldenStates(t *testing.T) {
	ring := scenario(t, "pcie4", model.Train, 8)
	nvls := scenario(t, "nvlink4", model.Train, 8)
	cases := []struct {
		name string
		data common.Data
		set  func(m *Model)
	}{
		{"all-gather", ring, func(m *Model) { m.pos = 9.5 }},
		{"done", ring, func(m *Model) { m.pos = 14.2 }},
		{"paused", ring, func(m *Model) { m.Update(press(" ")) }},
		{"stale", ring, func(m *Model) {
			s := ring
			s.Stale = true
			m.SetData(s)
		}},
		{"nvls-write", nvls, func(m *Model) { m.pos = 0.6 }},
		{"nvls-multicast", nvls, func(m *Model) { m.pos = 1.5 }},
		{"one-shot", scenario(t, "nvlink4", model.Infer, 8), func(m *Model) { m.pos = 0.5 }},
		{"two-shot-gather", twoShotInfer(t), func(m *Model) { m.pos = 1.4 }},
		{"tree-up", treeInfer(t), func(m *Model) { m.pos = 7.5 }},
		{"tree-down", treeInfer(t), func(m *Model) { m.pos = 8.5 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newPane(120, 34, tc.data)
			tc.set(m)
			out := m.View()
			tuitest.CheckFrame(t, out, 120, 34)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// line is the first line of a view that starts with prefix ("" when none does).
func line(view, prefix string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestViewContent(t *testing.T) {
	nvd := scenario(t, "nvlink4", model.Train, 8)
	nv := newPane(120, 34, nvd).View()
	for _, want := range []string{
		"fwd", "bwd", "attention", "all-reduce", "mlp", "weight grads", string(theme.GlyphComm), string(theme.GlyphCompute),
		"µs", "ms", "t = 8", "nvlink4", "35.1%", "34.0%",
		// Today's all-reduce named: size, group, link, algorithm and protocol, time.
		"all-reduce S = 33.6 MB (b·s·h·e) · 8 GPUs · nvlink4 · NVLS/Simple → 213 µs, 4 per layer",
		// NVLS's own formula, its numbers from the collective model's constants.
		"NVLS/Simple: L + S/(B·η) = 89.8 µs + 33.6 MB / (450 GB/s × 0.603) = 213 µs",
		"each GPU sends its 33.6 MB once to the NVSwitch",
		// The busbw curve with today's size marked and the algorithms' ranges.
		"busbw vs message size", "▲ today S = 33.6 MB: 275 GB/s", "┄ link 450 GB/s", "ring/LL", "NVLS/Simple───",
		// The animation is NVLS's: the switch between the GPUs.
		"NVLS all-reduce", "NVSwitch", "G0", "G7", "1 s on screen = 73.1 µs",
	} {
		if !strings.Contains(nv, want) {
			t.Errorf("NVLink training view lacks %q:\n%s", want, nv)
		}
	}
	if strings.Contains(nv, "2(t−1)·α") || strings.Contains(nv, "(≈") || strings.Contains(nv, "Ring all-reduce") {
		t.Errorf("the NVLS view still shows the ring:\n%s", nv)
	}
	// Decoding runs the serving engine's one-shot kernel: its formula, exact, no approximation note.
	// The engine decodes the 16 requests together: 16 · 4096 · 2 B = 131 kB.
	inf := newPane(120, 34, scenario(t, "nvlink4", model.Infer, 8)).View()
	for _, want := range []string{"one decode step", "step ", "S = 131 kB", "one-shot (serving engine) → 8.55 µs",
		"one-shot: launch + (t−1)·S/B = 6.00 µs + 7·131 kB / 360 GB/s = 8.55 µs", "One-shot all-reduce", "reads its 7 peers",
		"one-shot──", "two-shot"} {
		if !strings.Contains(inf, want) {
			t.Errorf("inference view lacks %q:\n%s", want, inf)
		}
	}
	if strings.Contains(inf, "bwd") || strings.Contains(inf, "(≈") || strings.Contains(inf, "simplified") || strings.Contains(inf, "2(t−1)·α") {
		t.Errorf("inference view shows a backward bar, the ring or an approximation note it does not need:\n%s", inf)
	}
	// PCIe runs NCCL's ring with the Simple protocol: the ring formula, the ring animation.
	pc := newPane(120, 34, scenario(t, "pcie4", model.Train, 8)).View()
	for _, want := range []string{"pcie4 · ring/Simple → 2.48 ms",
		"ring/Simple: 2(t−1)·h + 2(t−1)/t·S/(B·r) = 14·1.18 µs + 1.75·33.6 MB / (24.8 GB/s × 0.963) = 2.48 ms",
		"Ring all-reduce over 8 GPUs, 14 steps", "step 3/14", "reduce-scatter", "chunk 0: G2 → G3"} {
		if !strings.Contains(pc, want) {
			t.Errorf("PCIe view lacks %q:\n%s", want, pc)
		}
	}
	tp1 := newPane(120, 34, scenario(t, "nvlink4", model.Train, 1)).View()
	if !strings.Contains(tp1, "TP = 1: no tensor-parallel communication") || strings.Contains(tp1, string(theme.GlyphComm)) ||
		strings.Contains(tp1, "G0") || strings.Contains(tp1, "busbw") {
		t.Errorf("TP=1 view:\n%s", tp1)
	}
	small := newPane(50, 14, nvd).View()
	for _, want := range []string{"fwd", "bwd", "35.1%", "AR 33.6 MB NVLS/Simple 213 µs ×4", "= 213 µs", "busbw ", "▲", "switch Σ"} {
		if !strings.Contains(small, want) {
			t.Errorf("50×14 view lacks %q:\n%s", want, small)
		}
	}
}

// TestFormulaIsTheModels: on every fixture the formula line ends in the model's own time for the
// collective, and when the report's time is not what the formula gives the line says so.
func TestFormulaIsTheModels(t *testing.T) {
	datas := map[string]common.Data{"tree": treeInfer(t), "two-shot": twoShotInfer(t)}
	for _, f := range fixtures {
		datas[f.name] = f.data(t)
	}
	for name, d := range datas {
		u := d.Report.Detail.TPCollective
		if d.Report.Layout.TP <= 1 {
			continue
		}
		m := newPane(160, 40, d)
		fl := line(m.View(), m.coll.name()+": ")
		if want := " = " + static.Seconds(u.Seconds); !strings.HasSuffix(fl, want) {
			t.Errorf("%s: the formula line %q does not end in the model's %q", name, fl, want)
		}
		// A report whose time the formula does not give (a model the formula lags behind).
		d.Report.Detail.TPCollective.Seconds *= 1.3
		m = newPane(160, 40, d)
		fl = line(m.View(), m.coll.name()+": ")
		if !strings.Contains(fl, "(simplified: the model says "+static.Seconds(u.Seconds*1.3)+")") {
			t.Errorf("%s: a formula that is not the model's is not flagged: %q", name, fl)
		}
	}
}

// TestAnimationFollowsAlgorithm: the animation plays the algorithm the model picked, with that
// algorithm's number of steps, and draws it.
func TestAnimationFollowsAlgorithm(t *testing.T) {
	cases := []struct {
		name  string
		data  common.Data
		algo  string
		steps int
		marks []string
	}{
		{"ring", scenario(t, "pcie4", model.Train, 8), "ring", 14, []string{"Ring all-reduce", "≈→"}},
		{"nvls", scenario(t, "nvlink4", model.Train, 8), "NVLS", 2, []string{"NVLS all-reduce", "NVSwitch", "↓S"}},
		{"one-shot", scenario(t, "nvlink4", model.Infer, 8), "one-shot", 1, []string{"One-shot all-reduce", "NVLink: every GPU reads", "↕"}},
		{"two-shot", twoShotInfer(t), "two-shot", 2, []string{"Two-shot all-reduce", "G i reads slice i", "reduce-scatter"}},
		// Chains of 8 in each of 2 nodes and one tree level: 2·7 + 2·1 steps.
		{"tree", treeInfer(t), "tree", 16, []string{"Tree all-reduce", "node 0", "└─ node 1", "chain up"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New(theme.Default())
			m.SetSize(120, 40)
			m.SetData(tc.data)
			if m.Algorithm() != tc.algo {
				t.Fatalf("algorithm %q, want %q", m.Algorithm(), tc.algo)
			}
			view := m.View()
			for _, w := range tc.marks {
				if !strings.Contains(view, w) {
					t.Errorf("view lacks %q:\n%s", w, view)
				}
			}
			if !strings.Contains(view, fmt.Sprintf("step 1/%d", tc.steps)) {
				t.Errorf("view does not count %d steps:\n%s", tc.steps, view)
			}
			// '.' walks the steps and the finished state, then starts over.
			for i := 1; i <= tc.steps+1; i++ {
				m.Update(press("."))
				if want := i % (tc.steps + 1); m.Step() != want {
					t.Fatalf("after %d × '.': step %d, want %d", i, m.Step(), want)
				}
				tuitest.CheckFrame(t, m.View(), 120, 40)
			}
			m.pos = float64(tc.steps)
			if v := m.View(); !strings.Contains(v, "done") {
				t.Errorf("the finished state does not say so:\n%s", v)
			}
		})
	}
}

// TestTreeShares: the tree's bookkeeping against its meaning: after the chains every node's first
// GPU holds its node's sum, after the climb the root holds everything, and at the end every GPU.
func TestTreeShares(t *testing.T) {
	for _, nodes := range []int{2, 3, 4, 8} {
		for _, l := range []int{1, 4, 8} {
			c := coll{t: l * nodes, local: l, nodes: nodes, anim: animTree}
			for d := 1; (1 << d) < nodes*2; d++ {
				c.depth = d
			}
			c.depth = 0
			for (1 << c.depth) < nodes {
				c.depth++
			}
			chain := l - 1
			for i := 0; i < nodes; i++ {
				if got := c.treeShares(i, 0, chain); got != l {
					t.Errorf("%d nodes of %d: after the chains node %d's first GPU holds %d, want %d", nodes, l, i, got, l)
				}
			}
			if got := c.treeShares(0, 0, chain+c.depth); got != c.t {
				t.Errorf("%d nodes of %d: after the climb the root holds %d, want %d", nodes, l, got, c.t)
			}
			for i := 0; i < nodes; i++ {
				for g := 0; g < l; g++ {
					if got := c.treeShares(i, g, c.steps()); got != c.t {
						t.Errorf("%d nodes of %d: at the end GPU %d of node %d holds %d, want %d", nodes, l, g, i, got, c.t)
					}
					// Never more before the end than after.
					for k := 0; k < c.steps(); k++ {
						if c.treeShares(i, g, k) > c.treeShares(i, g, k+1) {
							t.Errorf("%d nodes of %d: GPU %d of node %d loses shares at step %d", nodes, l, g, i, k)
						}
					}
				}
			}
		}
	}
	if subtreeSize(0, 5) != 5 || subtreeSize(1, 5) != 3 || subtreeSize(2, 5) != 1 || subtreeSize(4, 5) != 1 {
		t.Error("subtreeSize")
	}
	if heapLevel(0) != 0 || heapLevel(2) != 1 || heapLevel(3) != 2 || heapLevel(7) != 3 {
		t.Error("heapLevel")
	}
}

// TestCurve: the busbw curve is the model's, today's size sits where it belongs, and the bands
// name the algorithms in order of size.
func TestCurve(t *testing.T) {
	d := scenario(t, "nvlink4", model.Train, 8)
	m := newPane(120, 40, d)
	cu := m.sweep(100)
	if len(cu.pts) != 100 || cu.pts[0].bytes != 1024 || cu.pts[99].bytes != 16<<30 {
		t.Fatalf("sweep: %d points from %v to %v", len(cu.pts), cu.pts[0].bytes, cu.pts[len(cu.pts)-1].bytes)
	}
	u := d.Report.Detail.TPCollective
	for _, p := range cu.pts {
		r := collective.Time(collective.AllReduce, p.bytes, u.Group, u.Fabric, collective.Auto)
		if want := p.bytes / r.Seconds * 2 * 7 / 8; p.bus != want || p.algo != r.Algo {
			t.Fatalf("%v B: busbw %v %s, the model says %v %s", p.bytes, p.bus, p.algo, want, r.Algo)
		}
	}
	if p := cu.pts[cu.today]; p.bytes < u.Bytes/1.25 || p.bytes > u.Bytes*1.25 {
		t.Errorf("today's column holds %v B, today is %v B", p.bytes, u.Bytes)
	}
	if cu.pts[0].algo != collective.Ring || cu.pts[99].algo != collective.NVLS {
		t.Errorf("from %s to %s, want ring to NVLS", cu.pts[0].algo, cu.pts[99].algo)
	}
	// NVLS's bus bandwidth exceeds the link's per-GPU bandwidth, which the chart draws.
	if !(cu.maxBus > cu.link) || cu.link != 450e9 || cu.top < cu.maxBus {
		t.Errorf("max busbw %v, link %v, top %v", cu.maxBus, cu.link, cu.top)
	}
	// Cached: the same width and data give the same sweep without redoing it.
	if m.sweep(100) != cu {
		t.Error("the sweep is not cached")
	}
	// Today's size beyond the usual range stretches it.
	if lo, hi := curveRange(16); lo >= 16 || hi != 16<<30 {
		t.Errorf("range for 16 B: %v–%v", lo, hi)
	}
	if _, hi := curveRange(64 << 30); hi < 64<<30 {
		t.Errorf("range for 64 GiB ends at %v", hi)
	}
}

// TestPCIeCommShare: the same split on PCIe spends a larger share of the layer and of the step
// in TP communication, and the view says so.
func TestPCIeCommShare(t *testing.T) {
	nv := scenario(t, "nvlink4", model.Train, 8)
	pc := scenario(t, "pcie4", model.Train, 8)
	if !(pc.Report.Detail.Layer.CommShare > nv.Report.Detail.Layer.CommShare) {
		t.Errorf("layer comm share: PCIe %.3f, NVLink %.3f", pc.Report.Detail.Layer.CommShare, nv.Report.Detail.Layer.CommShare)
	}
	share := func(d common.Data) float64 { return d.Report.Breakdown.TPComm / d.Report.StepTime }
	if !(share(pc) > share(nv)) {
		t.Errorf("step comm share: PCIe %.3f, NVLink %.3f", share(pc), share(nv))
	}
	layerShare := func(view string) float64 {
		t.Helper()
		i := strings.Index(view, " of the layer")
		j := strings.LastIndex(view[:max(i, 0)], " ")
		if i < 0 || j < 0 {
			t.Fatalf("no layer share in:\n%s", view)
		}
		var v float64
		if _, err := fmt.Sscanf(view[j+1:i], "%f%%", &v); err != nil {
			t.Fatalf("layer share %q: %v", view[j+1:i], err)
		}
		return v
	}
	nvv, pcv := layerShare(newPane(120, 34, nv).View()), layerShare(newPane(120, 34, pc).View())
	if !(pcv > nvv) {
		t.Errorf("shown layer share: PCIe %.1f%%, NVLink %.1f%%", pcv, nvv)
	}
	// And PCIe's ring plays slower on screen.
	if !(newPane(120, 34, pc).wall() > newPane(120, 34, nv).wall()) {
		t.Error("the PCIe ring does not play slower than NVLink's")
	}
}

func press(s string) tea.KeyMsg {
	if s == " " {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestKeys(t *testing.T) {
	m := New(theme.Default())
	m.SetSize(120, 34)
	m.SetData(scenario(t, "pcie4", model.Train, 8)) // a ring of 8: 14 steps
	if !m.Playing() || !m.Animating() {
		t.Fatal("the ring should play from the start")
	}
	m.Update(press(" "))
	if m.Playing() || m.Animating() {
		t.Error("space should pause")
	}
	m.Update(press(" "))
	if !m.Playing() || !m.Animating() {
		t.Error("space should play again")
	}
	// '.' pauses and moves exactly one ring step, wrapping after the finished ring.
	for i := 1; i <= 15; i++ {
		m.Update(press("."))
		if m.Playing() {
			t.Fatal("'.' should pause")
		}
		if want := i % 15; m.Step() != want {
			t.Fatalf("after %d × '.': step %d, want %d", i, m.Step(), want)
		}
	}
	if m.Speed() != 1 {
		t.Fatalf("speed %g, want 1", m.Speed())
	}
	w1 := m.wall()
	m.Update(press("+"))
	if m.Speed() != 2 || m.wall() != w1/2 {
		t.Errorf("'+': speed %g, wall %g (was %g)", m.Speed(), m.wall(), w1)
	}
	for i := 0; i < 10; i++ {
		m.Update(press("+"))
	}
	if m.Speed() != speeds[len(speeds)-1] {
		t.Errorf("speed should stop at %g, got %g", speeds[len(speeds)-1], m.Speed())
	}
	for i := 0; i < 10; i++ {
		m.Update(press("-"))
	}
	if m.Speed() != speeds[0] {
		t.Errorf("speed should stop at %g, got %g", speeds[0], m.Speed())
	}
	if len(m.Keys()) != 4 || m.Title() != "Tensor" {
		t.Error("keys or title")
	}
	if m.Update(press("x")) != nil {
		t.Error("unknown keys return no command")
	}
}

func TestFrames(t *testing.T) {
	m := New(theme.Default())
	m.SetSize(120, 34)
	m.SetData(scenario(t, "pcie4", model.Train, 8))
	step := m.stepWall() // 8 s / 14 ≈ 0.57 s
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	frames := func(from time.Time, n int) time.Time {
		for i := 0; i < n; i++ {
			from = from.Add(common.FrameInterval)
			m.Update(common.FrameMsg(from))
		}
		return from
	}
	now := frames(t0, int(2.5*step/common.FrameInterval.Seconds()))
	if m.Step() != 2 {
		t.Fatalf("after 2.5 steps of frames: step %d, want 2 (pos %.3f)", m.Step(), m.pos)
	}
	// Paused: frames do nothing.
	m.Update(press(" "))
	pos := m.pos
	now = frames(now, 100)
	if m.pos != pos || m.Animating() {
		t.Errorf("paused ring moved: %.3f → %.3f", pos, m.pos)
	}
	// Playing again: the first frame after a long pause moves one frame interval, not the pause.
	m.Update(press(" "))
	m.Update(common.FrameMsg(now.Add(time.Hour)))
	if d := m.pos - pos; d <= 0 || d > 1.01*common.FrameInterval.Seconds()/step {
		t.Errorf("first frame after the pause moved %.3f steps", d)
	}
	// The ring loops: a long run of frames stays within the loop.
	frames(now.Add(time.Hour), 2000)
	if m.Step() < 0 || m.Step() > ringSteps(8) {
		t.Errorf("step %d out of the loop", m.Step())
	}
	// Faster: frames move further.
	m.pos = 0
	m.Update(press("+"))
	m.Update(common.FrameMsg(t0))
	m.Update(common.FrameMsg(t0.Add(100 * time.Millisecond)))
	if want := 2 * common.FrameInterval.Seconds() / step; m.pos < 0.99*(want+2*0.1/step) {
		t.Errorf("at ×2 two frames moved %.3f steps, want ≈ %.3f", m.pos, want+2*0.1/step)
	}
}

func TestNoAnimationWithoutRing(t *testing.T) {
	m := New(theme.Default())
	if m.Animating() {
		t.Error("no data: nothing to animate")
	}
	m.SetData(scenario(t, "nvlink4", model.Train, 1))
	if m.Animating() {
		t.Error("TP=1: nothing to animate")
	}
	m.Update(common.FrameMsg(time.Now()))
	if m.pos != 0 {
		t.Error("TP=1: frames moved the ring")
	}
}

func TestSetDataResetsRingOnNewTP(t *testing.T) {
	m := New(theme.Default())
	m.SetData(scenario(t, "pcie4", model.Train, 8))
	m.pos = 9.5
	m.SetData(scenario(t, "pcie3", model.Train, 8))
	if m.Step() != 9 {
		t.Errorf("same TP and algorithm: step %d, want 9", m.Step())
	}
	m.SetData(scenario(t, "pcie4", model.Train, 4))
	if m.Step() != 0 {
		t.Errorf("new TP: step %d, want 0", m.Step())
	}
	m.SetData(scenario(t, "pcie4", model.Train, 8))
	m.pos = 3.5
	m.SetData(scenario(t, "nvlink4", model.Train, 8)) // the same TP, now on NVLink: NVLS
	if m.Step() != 0 || m.Algorithm() != "NVLS" {
		t.Errorf("new algorithm: step %d, want 0", m.Step())
	}
}

// TestSizeSweep: exactly h lines of at most w cells, for every size and every kind of data,
// including none and broken data.
func TestSizeSweep(t *testing.T) {
	broken := common.Data{Report: costmodel.Report{Layout: costmodel.LayoutSummary{TP: 40}}}
	broken.Report.Detail.Layer.Forward = []costmodel.Segment{{Kind: costmodel.SegTPComm, Label: "all-reduce", Start: 1, End: 0}}
	datas := []*common.Data{nil, &broken}
	for _, f := range fixtures {
		d := f.data(t)
		datas = append(datas, &d)
	}
	stale := *datas[2]
	stale.Stale = true
	datas = append(datas, &stale)
	sizes := func(n, every int) []int {
		var out []int
		for i := 1; i < n; i += every {
			out = append(out, i)
		}
		return append(out, n)
	}
	for di, d := range datas {
		m := New(theme.Default())
		if d != nil {
			m.SetData(*d)
		}
		m.pos = 5.7
		every := 3 // every size for the NVLink training case, every third for the others
		if di == 2 {
			every = 1
		}
		for _, w := range sizes(220, every) {
			for _, h := range sizes(70, every) {
				m.SetSize(w, h)
				out := m.View()
				lines := strings.Split(out, "\n")
				if len(lines) != h {
					t.Fatalf("data %d at %d×%d: %d lines", di, w, h, len(lines))
				}
				for i, l := range lines {
					if lipgloss.Width(l) > w {
						t.Fatalf("data %d at %d×%d: line %d is %d wide: %q", di, w, h, i, lipgloss.Width(l), l)
					}
				}
			}
		}
	}
	m := New(theme.Default())
	m.SetSize(0, 0)
	if m.View() != "" {
		t.Error("0×0 view should be empty")
	}
}

func BenchmarkViewTensor(b *testing.B) {
	d := scenario(b, "nvlink4", model.Train, 8)
	for _, p := range []struct {
		name string
		prof termenv.Profile
	}{{"ascii", termenv.Ascii}, {"truecolor", termenv.TrueColor}} {
		b.Run(p.name, func(b *testing.B) {
			lipgloss.SetColorProfile(p.prof)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			m := New(theme.Default())
			m.SetSize(196, 58)
			m.SetData(d)
			t0 := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 = t0.Add(common.FrameInterval)
				m.Update(common.FrameMsg(t0))
				_ = m.View()
			}
		})
	}
}

// TestColourView: with colours the text is the same as without, only wrapped in escape
// sequences; a stale result is drawn all dim but for its note.
func TestColourView(t *testing.T) {
	d := scenario(t, "nvlink4", model.Train, 8)
	plain := newPane(120, 34, d).View()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	s := theme.Default()
	for _, sz := range [][2]int{{120, 34}, {56, 16}, {196, 52}, {7, 3}} {
		out := newPane(sz[0], sz[1], d).View()
		tuitest.CheckFrame(t, out, sz[0], sz[1])
		if sz[0] == 120 && ansi.Strip(out) != plain {
			t.Errorf("colour view differs from the plain one once stripped")
		}
	}
	live := newPane(120, 34, d).View()
	commSeq := strings.SplitN(s.Comm.Render("x"), "x", 2)[0]
	if commSeq == "" || !strings.Contains(live, commSeq) {
		t.Fatalf("live view lacks the Comm style %q", commSeq)
	}
	stale := d
	stale.Stale = true
	dim := newPane(120, 34, stale).View()
	if strings.Contains(dim, commSeq) {
		t.Error("stale view still draws comm in colour")
	}
	dimSeq := strings.SplitN(s.Dim.Render("x"), "x", 2)[0]
	if dimSeq == "" || !strings.Contains(dim, dimSeq) || !strings.Contains(dim, "last valid result") {
		t.Error("stale view is not dimmed or lacks its note")
	}
}

// TestHugeTP: a TP degree far beyond any box still draws quickly and in size.
func TestHugeTP(t *testing.T) {
	d := scenario(t, "nvlink4", model.Train, 8)
	d.Report.Layout.TP = 100000
	m := newPane(196, 52, d)
	start := time.Now()
	out := m.View()
	tuitest.CheckFrame(t, out, 196, 52)
	if !strings.Contains(out, "(showing 16)") {
		t.Errorf("a ring of 100000 GPUs should say it shows 16:\n%s", out)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("view of a huge ring took %v", el)
	}
}
