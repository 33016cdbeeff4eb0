package memory

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// sizes are the golden sizes: narrow, standard and wide.
var sizes = [][2]int{{56, 16}, {120, 34}, {196, 52}}

// loaded returns a pane showing the evaluation of s.
func loaded(tb testing.TB, s model.Scenario) *Model {
	tb.Helper()
	r, err := costmodel.EvaluateFast(s)
	if err != nil {
		tb.Fatal(err)
	}
	m := New(theme.Default())
	m.SetData(common.Data{Scenario: s, Report: r})
	return m
}

func TestViewGolden(t *testing.T) {
	cases := []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{
		{"infer-l40s", inferL40S},
		{"train-h100", trainH100},
		{"over-memory", overH100},
		{"deep-pp", deepPP},
	}
	for _, tc := range cases {
		m := loaded(t, tc.s(t))
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m.SetSize(sz[0], sz[1])
				v := m.View()
				tuitest.CheckFrame(t, v, sz[0], sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// synthetic is a report of n stages, stage full the fullest (over capacity when over).
func synthetic(n, full int, over bool) common.Data {
	const gib = model.GiB
	var r costmodel.Report
	for i := range n {
		m := costmodel.Memory{Weights: 20 * gib, Gradients: 10 * gib, Optimizer: 20 * gib, Activations: float64(i%5) * gib,
			Reserved: gib, Capacity: 80 * gib, Stage: i}
		if i == full {
			m.Activations = 25 * gib
			if over {
				m.Activations = 45 * gib
			}
		}
		m.Total = m.Weights + m.Gradients + m.Optimizer + m.Activations + m.Reserved
		m.Fits = m.Total <= m.Capacity
		r.Detail.Stages = append(r.Detail.Stages, costmodel.StageDetail{Layers: 1, Memory: m})
	}
	return common.Data{Report: r}
}

func TestFoldKeepsFullest(t *testing.T) {
	m := New(theme.Default())
	m.SetData(synthetic(64, 37, true))
	m.SetSize(100, 14)
	v := m.View()
	tuitest.CheckFrame(t, v, 100, 14)
	// Over capacity: the lines under the header say what would make it fit (here: nothing tried),
	// wrapped on two lines.
	for _, want := range []string{"fullest: stage 37, 96.0 of 80.0 GiB (120%)", "no single change makes it fit", "stage 37 ",
		"+16.0 GiB over", "⋮ 34 stages ⋮", "⋮ 23 stages ⋮", "stage  0 ", "stage 63 "} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

// With a change found, the line names it with its step time and memory.
func TestToFitLine(t *testing.T) {
	m := New(theme.Default())
	d := synthetic(64, 37, true)
	d.ToFit = &costmodel.FitChange{What: "ZeRO 2", StepTime: 12.5, Memory: 70 * model.GiB, Capacity: 80 * model.GiB}
	m.SetData(d)
	m.SetSize(100, 14)
	if v := m.View(); !strings.Contains(v, "to fit: ZeRO 2 → step 12.5 s, 70.0 GiB of 80.0 GiB") {
		t.Errorf("no to-fit line:\n%s", v)
	}
}

func TestOverCapacityLine(t *testing.T) {
	m := New(theme.Default())
	m.SetData(synthetic(2, 1, true))
	m.SetSize(80, 10)
	lines := strings.Split(m.View(), "\n")
	var bar string
	for _, l := range lines {
		if strings.HasPrefix(l, "stage 1 ") {
			bar = l
		}
	}
	if bar == "" {
		t.Fatalf("no bar for stage 1:\n%s", strings.Join(lines, "\n"))
	}
	// The capacity line splits the bar; what lies beyond it is still bar, then the over text.
	before, after, ok := strings.Cut(bar, string(glyphCapacity))
	if !ok || !strings.ContainsAny(after[:1], "WGOAKR") || !strings.Contains(after, "+16.0 GiB over") {
		t.Fatalf("over bar %q: before %q after %q", bar, before, after)
	}
	if strings.ContainsRune(before, glyphFree) {
		t.Fatalf("over bar shows free memory: %q", bar)
	}
}

func TestEmptyAndStale(t *testing.T) {
	m := New(theme.Default())
	m.SetSize(40, 3)
	if v := m.View(); !strings.Contains(v, "no evaluation yet") {
		t.Fatalf("empty view %q", v)
	}
	d := synthetic(3, 1, false)
	d.Stale = true
	m.SetData(d)
	m.SetSize(120, 10)
	if v := m.View(); !strings.Contains(v, "stale") {
		t.Fatalf("stale view does not say so:\n%s", v)
	}
	// Without stage detail the fullest GPU still gets its bar.
	m.SetData(common.Data{Report: costmodel.Report{Memory: d.Report.Detail.Stages[1].Memory}})
	if v := m.View(); !strings.Contains(v, "fullest GPU") || !strings.Contains(v, "GPU ") {
		t.Fatalf("no-detail view:\n%s", v)
	}
}

// TestSizeSweep renders every kind of data at sizes from 1×1 to 220×70.
func TestSizeSweep(t *testing.T) {
	datas := map[string]common.Data{"nothing": {}, "zero report": {Report: costmodel.Report{}}}
	for name, f := range map[string]func(testing.TB) model.Scenario{"infer": inferL40S, "train": trainH100, "over": overH100, "deep": deepPP} {
		r, err := costmodel.EvaluateFast(f(t))
		if err != nil {
			t.Fatal(err)
		}
		datas[name] = common.Data{Scenario: f(t), Report: r}
	}
	datas["synthetic"] = synthetic(30, 12, true)
	stale := synthetic(5, 0, false)
	stale.Stale = true
	datas["stale"] = stale
	for name, d := range datas {
		m := New(theme.Default())
		if name != "nothing" {
			m.SetData(d)
		}
		for w := 1; w <= 220; w += sweepStep(w) {
			for h := 1; h <= 70; h += sweepStep(h) {
				m.SetSize(w, h)
				tuitest.CheckFrame(t, m.View(), w, h)
			}
		}
	}
	m := New(theme.Default())
	for _, sz := range [][2]int{{0, 0}, {-1, 5}, {5, -1}} {
		m.SetSize(sz[0], sz[1])
		if v := m.View(); v != "" {
			t.Fatalf("size %v: view %q", sz, v)
		}
	}
}

// sweepStep walks every small size and a sample of the large ones.
func sweepStep(n int) int {
	if n < 30 {
		return 1
	}
	return 7
}

func BenchmarkViewMemory(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{{"train-h100", trainH100}, {"deep-pp", deepPP}} {
		m := loaded(b, tc.s(b))
		m.SetSize(196, 58)
		for _, prof := range []struct {
			name string
			p    termenv.Profile
		}{{"ascii", termenv.Ascii}, {"truecolor", termenv.TrueColor}} {
			b.Run(tc.name+"/"+prof.name, func(b *testing.B) {
				lipgloss.SetColorProfile(prof.p)
				defer lipgloss.SetColorProfile(termenv.Ascii)
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// paneSizes are the Memory pane's sizes in the explorer at 80×24, 120×40 and 200×60.
var paneSizes = [][2]int{{50, 18}, {86, 34}, {162, 54}}

// partKey finds a detail line's key of a stage's parts: "W 9.1".
var partKey = regexp.MustCompile(`\bW \d`)

// TestLegendWhole: at the explorer's sizes every legend entry — each part present (reserve
// included) and the capacity line — is on screen whole, and so is each stage's key of its parts
// in GiB.
func TestLegendWhole(t *testing.T) {
	for name, f := range map[string]func(testing.TB) model.Scenario{
		"tour/pcie": tourPCIe, "default": defaultTrain, "infer": inferL40S, "train": trainH100, "over": overH100,
	} {
		s := f(t)
		m := loaded(t, s)
		ss := m.stages()
		var present [6]bool
		for _, st := range ss {
			for i, v := range parts(st.mem) {
				present[i] = present[i] || v > 0
			}
		}
		for _, sz := range paneSizes {
			m.SetSize(sz[0], sz[1])
			v := m.View()
			tuitest.CheckFrame(t, v, sz[0], sz[1])
			if !present[5] {
				t.Fatalf("%s: no reserve", name)
			}
			for i, ok := range present {
				g := string(partGlyphs[i])
				if ok && !strings.Contains(v, g+" "+partNames[i]) && !strings.Contains(v, g+" "+shortNames[i]+" ") &&
					!strings.HasSuffix(v, g+" "+shortNames[i]) {
					t.Errorf("%s at %v: legend lacks %q whole:\n%s", name, sz, g+" "+partNames[i], v)
				}
			}
			capText := gib(ss[0].mem.Capacity)
			if !strings.Contains(v, string(glyphCapacity)+" capacity "+capText) && !strings.Contains(v, string(glyphCapacity)+" "+capText) {
				t.Errorf("%s at %v: legend lacks the capacity %s:\n%s", name, sz, capText, v)
			}
			// Each stage's detail line, when shown, ends with its parts, the reserve last.
			for _, l := range strings.Split(v, "\n") {
				if strings.Contains(l, " in flight") || strings.Contains(l, " layers") || partKey.MatchString(l) {
					if strings.Contains(l, "…") || !strings.HasSuffix(strings.TrimRight(l, " "), " GiB") || !strings.Contains(l, "R ") {
						t.Errorf("%s at %v: detail line cut: %q", name, sz, l)
					}
				}
			}
		}
	}
}

// TestLegendWraps: a pane too narrow for the legend on one line gets it on several, every entry
// whole, and the bars give up the rows it needs.
func TestLegendWraps(t *testing.T) {
	m := New(theme.Default())
	m.SetData(synthetic(2, 1, false))
	m.SetSize(30, 12)
	v := m.View()
	tuitest.CheckFrame(t, v, 30, 12)
	for _, want := range []string{"W weights", "G gradients", "O optimizer", "A activations", "R reserved", "│ capacity 80.0 GiB"} {
		if !strings.Contains(v, want) {
			t.Errorf("legend lacks %q:\n%s", want, v)
		}
	}
	if got := wrapItems([]string{"aaaa", "bb", "cccccc", "d"}, "  ", 8); strings.Join(got, "|") != "aaaa  bb|cccccc|d" {
		t.Errorf("wrapItems: %q", got)
	}
}
