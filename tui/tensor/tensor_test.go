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
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
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

// TestViewGoldenStates covers the finished ring, an all-gather step, a paused ring and a stale
// result.
func TestViewGoldenStates(t *testing.T) {
	d := scenario(t, "nvlink4", model.Train, 8)
	cases := []struct {
		name string
		set  func(m *Model)
	}{
		{"all-gather", func(m *Model) { m.pos = 9.5 }},
		{"done", func(m *Model) { m.pos = 14.2 }},
		{"paused", func(m *Model) { m.Update(press(" ")) }},
		{"stale", func(m *Model) {
			s := d
			s.Stale = true
			m.SetData(s)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newPane(120, 34, d)
			tc.set(m)
			out := m.View()
			tuitest.CheckFrame(t, out, 120, 34)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

func TestViewContent(t *testing.T) {
	nv := newPane(120, 34, scenario(t, "nvlink4", model.Train, 8)).View()
	for _, want := range []string{
		"fwd", "bwd", "attention", "all-reduce", "mlp", "weight grads", string(theme.GlyphComm), string(theme.GlyphCompute),
		"µs", "ms", "t = 8", "nvlink4", "44.8%", "28.8%",
		"S = 33.6 MB", "2(t−1)·α + 2(t−1)/t·S/B = 2·7·3.00 µs + 1.75·33.6 MB / 360 GB/s = 205 µs", "→ 213 µs",
		"1 s on screen = 73.1 µs", "G0", "G7", "step 3/14", "reduce-scatter", "chunk 0: G2 → G3",
	} {
		if !strings.Contains(nv, want) {
			t.Errorf("NVLink training view lacks %q:\n%s", want, nv)
		}
	}
	inf := newPane(120, 34, scenario(t, "nvlink4", model.Infer, 8)).View()
	for _, want := range []string{"one decode step", "step ", "S = 8.19 kB", "= 42.0 µs"} {
		if !strings.Contains(inf, want) {
			t.Errorf("inference view lacks %q:\n%s", want, inf)
		}
	}
	if strings.Contains(inf, "bwd") || !strings.Contains(inf, "one-shot kernel") {
		t.Errorf("inference view shows a backward bar, or does not say the decode all-reduce is the engine's one-shot kernel:\n%s", inf)
	}
	tp1 := newPane(120, 34, scenario(t, "nvlink4", model.Train, 1)).View()
	if !strings.Contains(tp1, "TP = 1: no tensor-parallel communication") || strings.Contains(tp1, string(theme.GlyphComm)) ||
		strings.Contains(tp1, "G0") {
		t.Errorf("TP=1 view:\n%s", tp1)
	}
	small := newPane(50, 14, scenario(t, "nvlink4", model.Train, 8)).View()
	for _, want := range []string{"fwd", "bwd", "35.1%", "205 µs", "G0→G1→G2⇒G3→G4→G5→G6→G7→G0", "3/14"} {
		if !strings.Contains(small, want) {
			t.Errorf("50×14 view lacks %q:\n%s", want, small)
		}
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
	m.SetData(scenario(t, "nvlink4", model.Train, 8))
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
	m.SetData(scenario(t, "nvlink4", model.Train, 8))
	step := m.stepWall() // 3.22 s / 14 ≈ 0.23 s
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
	m.SetData(scenario(t, "nvlink4", model.Train, 8))
	m.pos = 9.5
	m.SetData(scenario(t, "pcie4", model.Train, 8))
	if m.Step() != 9 {
		t.Errorf("same TP: step %d, want 9", m.Step())
	}
	m.SetData(scenario(t, "nvlink4", model.Train, 4))
	if m.Step() != 0 {
		t.Errorf("new TP: step %d, want 0", m.Step())
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
