package compare

import (
	"errors"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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

// loaded returns a pane showing Build's comparison of s.
func loaded(tb testing.TB, s model.Scenario) *Model {
	tb.Helper()
	r, err := costmodel.Evaluate(s)
	if err != nil {
		tb.Fatal(err)
	}
	m := New(theme.Default())
	m.SetData(common.Data{Scenario: s, Report: r})
	m.SetCompare(Build(s))
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
		{"tour-pcie", tourPCIe},
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

func BenchmarkViewCompare(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{{"infer-l40s", inferL40S}, {"train-h100", trainH100}} {
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

func BenchmarkBuild(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{{"llama-3-70b-l40s-infer", inferL40S}, {"llama-2-13b-h100-train", trainH100}, {"llama-3-70b-h100-train-over", overH100},
		{"default-llama-3-70b-32-h100", defaultTrain}, {"tour-pcie", tourPCIe}} {
		s := tc.s(b)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				_ = Build(s)
			}
		})
	}
}

// handMade is a training comparison with known numbers: PP only would be fastest but does not
// fit, so the hybrid is the best.
func handMade() common.Compare {
	const gib = model.GiB
	rep := func(tp, pp, dp int, step, tps, mem, comm, bubble float64, fits bool) costmodel.Report {
		return costmodel.Report{
			Layout:   costmodel.LayoutSummary{TP: tp, PP: pp, DP: dp, Chunks: 1, MicroBatch: 1, MicroBatches: 64, Schedule: "1f1b"},
			StepTime: step, TokensPerS: tps, CommFraction: comm, BubbleFraction: bubble,
			Memory: costmodel.Memory{Total: mem * gib, Capacity: 80 * gib, Fits: fits},
		}
	}
	lay := func(tp, pp, dp int) model.Layout {
		return model.Layout{TP: tp, PP: pp, DP: dp, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
	}
	return common.Compare{
		Rows: []common.CompareRow{
			{Kind: common.RowTPOnly, Name: NameTP, Layout: lay(8, 1, 1), Report: rep(8, 1, 1, 8, 30000, 38, 0.35, 0, true), Feasible: true},
			{Kind: common.RowPPOnly, Name: NamePP, Layout: lay(1, 8, 1), Report: rep(1, 8, 1, 3, 90000, 90, 0.001, 0.09, false), Reason: "over memory by 10.0 GiB (stage 0)"},
			{Kind: common.RowBest, Name: "best: TP 2 × PP 2 × DP 2", Layout: lay(2, 2, 2), Report: rep(2, 2, 2, 5, 50000, 75, 0.07, 0.008, true), Feasible: true},
		},
		Searched: 42,
		CrossTP:  lay(8, 1, 1),
		CrossPP:  lay(1, 8, 1),
		Cross: pts([]float64{26700, 28300, 29200, 29600, 29900, 30000, 30000, 30100},
			[]float64{7000, 12400, 20200, 29500, 38200, 44800, 49100, 51500}),
	}
}

// cellOf returns the text of column col (0: TP only) on the table line labelled label, the
// columns found by their names in the header.
func cellOf(t *testing.T, view string, names []string, label string, col int) string {
	t.Helper()
	lines := strings.Split(view, "\n")
	h := 1 // the table's first line: under the title, and under the search's best when shown
	if len(names) > 0 && !strings.Contains(lines[h], names[0]) {
		h++
	}
	header := []rune(lines[h])
	starts := []int{}
	for _, name := range names {
		i := strings.Index(string(header), name)
		if i < 0 {
			t.Fatalf("header %q lacks %q", lines[h], name)
		}
		starts = append(starts, len([]rune(string(header)[:i])))
	}
	for _, l := range lines[2:] {
		if strings.HasPrefix(l, label+" ") {
			r := []rune(l)
			end := len(r)
			if col+1 < len(starts) {
				end = min(starts[col+1], len(r))
			}
			return strings.TrimSpace(string(r[min(starts[col], len(r)):end]))
		}
	}
	t.Fatalf("no line %q in\n%s", label, view)
	return ""
}

func TestWinnerMarking(t *testing.T) {
	m := New(theme.Default())
	hm := handMade()
	m.SetCompare(hm)
	m.SetSize(120, 34)
	v := m.View()
	var names []string
	for _, r := range hm.Rows {
		names = append(names, r.Name)
	}
	star := string(GlyphWinner)
	cases := []struct {
		label  string
		winner int // column of the star; -1: none
	}{
		{"step time", 2},  // PP only is faster but does not fit
		{"throughput", 2}, // likewise
		{"memory/GPU", 0},
		{"comm", 2},
		{"bubble", 0},
		{"layout", -1},
		{"fits", -1},
	}
	for _, tc := range cases {
		for col := range 3 {
			c := cellOf(t, v, names, tc.label, col)
			if got := strings.HasSuffix(c, star); got != (col == tc.winner) {
				t.Errorf("%s, column %d: %q (winner column %d)\n%s", tc.label, col, c, tc.winner, v)
			}
		}
	}
	if c := cellOf(t, v, names, "fits", 1); !strings.HasPrefix(c, "✗") {
		t.Errorf("PP only fits cell %q", c)
	}
	// PP only does not fit: its reason instead of numbers.
	for _, label := range []string{"step time", "throughput", "memory/GPU", "comm", "bubble"} {
		if c := cellOf(t, v, names, label, 1); c != "—" {
			t.Errorf("PP only does not fit, yet its %s reads %q", label, c)
		}
	}
	if !strings.Contains(v, "✗ PP only: over memory by 10.0 GiB (stage 0)") {
		t.Errorf("no reason for PP only:\n%s", v)
	}
}

func TestCrossoverChart(t *testing.T) {
	m := New(theme.Default())
	m.SetCompare(handMade())
	m.SetSize(100, 40)
	v := m.View()
	if !strings.Contains(v, "PP-only overtakes TP-only from m = 16") {
		t.Fatalf("no crossover sentence:\n%s", v)
	}
	lines := strings.Split(v, "\n")
	// The crossover line stands in the column of the m = 16 tick.
	var axis, labels string
	for i, l := range lines {
		if strings.Contains(l, "└") {
			axis, labels = l, lines[i+1]
		}
	}
	col := strings.Index(labels, " 16 ") + 1
	ticks := []rune(axis)
	runeCol := len([]rune(labels[:col]))
	if ticks[runeCol] != '┬' {
		t.Fatalf("no tick under label 16 at %d:\n%s\n%s", runeCol, axis, labels)
	}
	found := 0
	for _, l := range lines {
		r := []rune(l)
		if runeCol < len(r) && r[runeCol] == glyphCross {
			found++
		}
	}
	if found < 3 {
		t.Fatalf("crossover line at column %d drawn %d times:\n%s", runeCol, found, v)
	}
	for _, want := range []string{"T·· TP only 8×1×1", "P∘∘ PP only 1×8×1 1f1b", "┊ crossover"} {
		if !strings.Contains(v, want) {
			t.Errorf("legend lacks %q", want)
		}
	}

	// The same numbers without a crossover.
	c := handMade()
	for i := range c.Cross {
		c.Cross[i].PP = c.Cross[i].TP / 2
	}
	m.SetCompare(c)
	if v := m.View(); !strings.Contains(v, "no crossover in 1…128") || strings.Contains(v, "┊ crossover") {
		t.Fatalf("no-crossover chart:\n%s", v)
	}
}

func TestStates(t *testing.T) {
	m := New(theme.Default())
	m.SetSize(60, 6)
	if v := m.View(); !strings.Contains(v, "computing…") {
		t.Fatalf("before SetCompare: %q", v)
	}
	m.SetCompare(common.Compare{Err: errors.New("boom")})
	if v := m.View(); !strings.Contains(v, "compare failed: boom") {
		t.Fatalf("error: %q", v)
	}
	m.SetCompare(handMade())
	m.Invalidate()
	m.SetSize(120, 34)
	if v := m.View(); !strings.Contains(strings.Split(v, "\n")[0], "computing…") || !strings.Contains(v, "throughput") {
		t.Fatalf("invalidated: %q", v)
	}
	m.SetCompare(handMade())
	m.SetData(common.Data{Scenario: trainH100(t), Stale: true})
	if v := m.View(); !strings.Contains(strings.Split(v, "\n")[0], "stale") {
		t.Fatalf("stale: %q", v)
	}
	if m.Title() != "Compare" || m.Animating() || hasKey(m.Keys(), "b") || !hasKey(m.Keys(), "L") || m.Update(nil) != nil {
		t.Fatal("pane basics") // training: L (the sequence sweep), no b on a stale scenario
	}
}

// TestSizeSweep renders every state at sizes from 1×1 to 220×70.
func TestSizeSweep(t *testing.T) {
	type state struct {
		data *common.Data
		cmp  *common.Compare
	}
	states := map[string]state{"empty": {}}
	for name, f := range map[string]func(testing.TB) model.Scenario{"infer": inferL40S, "train": trainH100, "over": overH100} {
		s := f(t)
		r, err := costmodel.EvaluateFast(s)
		if err != nil {
			t.Fatal(err)
		}
		c := Build(s)
		states[name] = state{&common.Data{Scenario: s, Report: r}, &c}
	}
	hm := handMade()
	states["hand-made"] = state{cmp: &hm}
	states["no rows"] = state{cmp: &common.Compare{}}
	states["error"] = state{cmp: &common.Compare{Err: errors.New("search: invalid scenario")}}
	for name, st := range states {
		m := New(theme.Default())
		if st.data != nil {
			m.SetData(*st.data)
		}
		if st.cmp != nil {
			m.SetCompare(*st.cmp)
		}
		for w := 1; w <= 220; w += sweepStep(w) {
			for h := 1; h <= 70; h += sweepStep(h) {
				m.SetSize(w, h)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s at %d×%d: panic %v", name, w, h, r)
						}
					}()
					tuitest.CheckFrame(t, m.View(), w, h)
				}()
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

// paneSizes are the Compare pane's sizes in the explorer at 80×24, 120×40 and 200×60, with the
// parameter panel shown and hidden.
var paneSizes = [][2]int{{50, 18}, {86, 34}, {162, 54}, {78, 18}, {118, 34}, {198, 54}}

// TestStarRule: for every scenario of TestBuildScenarios and at the explorer's sizes, the line
// under the table says what ★ marks (whole), ★ marks only layouts that fit, and the view shows
// every mark the table decided.
func TestStarRule(t *testing.T) {
	for _, tc := range buildCases {
		m := loaded(t, tc.s(t))
		lines := m.tableLines()
		marks := 0
		for _, l := range lines {
			for i, c := range l.cells {
				if c.win {
					marks++
					if r := m.cmp.Rows[i]; !r.Feasible {
						t.Errorf("%s: %s of %s starred, but it does not fit", tc.name, l.label, r.Name)
					}
				}
			}
		}
		anyFits := false
		for _, r := range m.cmp.Rows {
			anyFits = anyFits || r.Feasible
		}
		if anyFits != (marks > 0) {
			t.Errorf("%s: %d marks, a layout fits: %v", tc.name, marks, anyFits)
		}
		for _, sz := range paneSizes {
			m.SetSize(sz[0], sz[1])
			v := strings.Split(m.View(), "\n")
			top := m.tableTop()
			rule := v[top+len(lines)]
			ok := strings.HasPrefix(rule, "★ ") && strings.Contains(rule, "that fit")
			if !anyFits {
				ok = rule == "no ★: none of these layouts fits"
			}
			if !ok || strings.HasSuffix(strings.TrimRight(rule, " "), "…") {
				t.Errorf("%s at %v: the line under the table is %q", tc.name, sz, rule)
			}
			if got := strings.Count(strings.Join(v[top:top+len(lines)], "\n"), string(GlyphWinner)); got != marks {
				t.Errorf("%s at %v: %d ★ on screen, %d decided\n%s", tc.name, sz, got, marks, strings.Join(v, "\n"))
			}
		}
	}
}

// TestTwinCountsOnce: the best layout being PP only's, the pair competes as one layout. With TP
// only over memory it is the one layout that fits, so every metric is starred in both columns
// (counted twice, the pair would tie and nothing would be).
func TestTwinCountsOnce(t *testing.T) {
	hm := handMade()
	pp := hm.Rows[1]
	pp.Feasible, pp.Reason, pp.Report.Memory.Fits = true, "", true
	hm.Rows[0].Feasible, hm.Rows[0].Reason = false, "over memory by 1.0 GiB (stage 0)"
	hm.Rows[1] = pp
	hm.Rows[2] = pp
	hm.Rows[2].Kind, hm.Rows[2].Name, hm.Rows[2].SameAs = common.RowBest, "best (= PP only)", common.RowPPOnly
	m := New(theme.Default())
	m.SetCompare(hm)
	lines := m.tableLines()
	for _, l := range lines[:len(lines)-1] { // the metrics: after name, layout, schedule, m × b, knobs
		if slices.Contains([]string{"", "layout", "schedule", "m × b", "knobs"}, l.label) {
			continue
		}
		if w := []bool{l.cells[0].win, l.cells[1].win, l.cells[2].win}; w[0] || !w[1] || !w[2] {
			t.Errorf("%s: marks %v, want PP only and its twin", l.label, w)
		}
	}
}

// TestKnobsRowNamesWhatEachContenderTurns: the knobs row shows only when a contender turns a
// training knob, and names each column's own (search's choice where the knob is auto).
func TestKnobsRowNamesWhatEachContenderTurns(t *testing.T) {
	m := New(theme.Default())
	hm := handMade()
	m.SetCompare(hm)
	for _, l := range m.tableLines() {
		if l.label == "knobs" {
			t.Fatalf("a knobs row with every knob at its default: %+v", l.cells)
		}
	}
	hm.Rows[0].Layout.Recompute = model.RecomputeFull
	hm.Rows[2].Layout.SequenceParallel, hm.Rows[2].Layout.TP = true, 4
	hm.Rows[2].Layout.ZeRO, hm.Rows[2].Layout.DP = 1, 2
	hm.Rows[2].Layout.Offload = model.OffloadOptimizer
	m.SetCompare(hm)
	want := []string{"full recompute", "none", "SP · ZeRO 1 · offload optimizer"}
	for _, l := range m.tableLines() {
		if l.label != "knobs" {
			continue
		}
		for i, w := range want {
			if got := l.cells[i].long; got != w {
				t.Errorf("column %d: %q, want %q", i, got, w)
			}
		}
		if got := l.cells[2].text(10); got != "SP Z1 off:opt" {
			t.Errorf("narrow: %q", got)
		}
		return
	}
	t.Fatal("no knobs row")
}

// TestStarsFollowTies: in every scenario, a figure that reads the same as a starred one is
// starred too (issue 18: four columns at 71.7 GiB and one ★), and the starred figures of a row
// read the same.
func TestStarsFollowTies(t *testing.T) {
	for _, tc := range buildCases {
		m := loaded(t, tc.s(t))
		for _, l := range m.tableLines() {
			starred := map[string]bool{}
			for _, c := range l.cells {
				if c.win {
					starred[c.long] = true
				}
			}
			if len(starred) > 1 {
				t.Errorf("%s, %s: ★ on different figures %v", tc.name, l.label, starred)
			}
			for i, c := range l.cells {
				r := m.cmp.Rows[i]
				if r.Feasible && evaluated(r) && starred[c.long] && !c.win {
					t.Errorf("%s, %s: %s reads %q like a starred column, without ★", tc.name, l.label, r.Name, c.long)
				}
			}
		}
	}
}

// TestCrossClaimsHoldWhereBothFit: on every scenario, a crossing the tab states without a bound
// has both layouts running from it to the next crossing or the end of the sweep.
func TestCrossClaimsHoldWhereBothFit(t *testing.T) {
	for _, tc := range buildCases {
		c := Build(tc.s(t))
		cs := crossovers(c.Cross)
		if len(cs) == 0 || strings.Contains(crossSentence(c.Cross), "no longer fits") {
			continue
		}
		end := len(c.Cross)
		if len(cs) > 1 {
			end = cs[1].Index
		}
		for _, p := range c.Cross[cs[0].Index:end] {
			if !(p.TP > 0 && p.PP > 0) {
				t.Errorf("%s: %q, yet at m = %d TP-only %.0f, PP-only %.0f tokens/s", tc.name, crossSentence(c.Cross), p.Micro, p.TP, p.PP)
			}
		}
	}
}

// TestTakeKey: b is offered and sends search's best only while a search's best ahead of the
// tab's is shown for the panel's scenario; not while a new comparison computes, nor when stale.
func TestTakeKey(t *testing.T) {
	b := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")}
	m := loaded(t, defaultTrain(t))
	m.SetSize(120, 34)
	if !m.cmp.Better.Feasible || !hasKey(m.Keys(), "b") {
		t.Fatalf("first screen: search's best %v, keys %v", m.cmp.Better.Feasible, m.Keys())
	}
	cmd := m.Update(b)
	if cmd == nil {
		t.Fatal("b sends nothing")
	}
	if msg, ok := cmd().(TakeBetterMsg); !ok || msg.Layout != m.cmp.Better.Layout {
		t.Errorf("b sends %+v, want search's best %+v", msg, m.cmp.Better.Layout)
	}
	m.Invalidate()
	if hasKey(m.Keys(), "b") || m.Update(b) != nil || strings.Contains(m.View(), "b takes it") {
		t.Error("b offered while the comparison is outdated")
	}
	m.SetCompare(m.cmp)
	d := m.data
	d.Stale = true
	m.SetData(d)
	if hasKey(m.Keys(), "b") || m.Update(b) != nil {
		t.Error("b offered on a stale scenario")
	}
	agree := loaded(t, inferL40S(t))
	if agree.cmp.Better.Feasible || agree.Keys() != nil || agree.Update(b) != nil {
		t.Errorf("search and the tab agree on serving, yet b is offered: %+v", agree.cmp.Better.Name)
	}
}

// The crossover sentence's bound is part of the claim: at every size that shows the sentence it
// reads whole (wrapped, not cut), chart or no chart.
func TestCrossSentenceWraps(t *testing.T) {
	m := loaded(t, defaultTrain(t))
	want := crossSentence(m.cmp.Cross)
	if !strings.Contains(want, "until it no longer fits") {
		t.Fatalf("the default scenario's sentence has no bound: %q", want)
	}
	for _, sz := range [][2]int{{50, 19}, {50, 30}, {60, 24}, {80, 40}} {
		m.SetSize(sz[0], sz[1])
		v := ansi.Strip(m.View())
		var words []string
		for _, l := range strings.Split(v, "\n") {
			words = append(words, strings.Fields(l)...)
		}
		if !strings.Contains(strings.Join(words, " "), want) {
			t.Errorf("%dx%d: %q not whole in:\n%s", sz[0], sz[1], want, v)
		}
	}
}

// hasKey says whether keys hold a binding with help key k.
func hasKey(keys []key.Binding, k string) bool {
	for _, b := range keys {
		if b.Help().Key == k {
			return true
		}
	}
	return false
}
