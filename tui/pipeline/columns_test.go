package pipeline

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

// ganttScenarios are timelines of every shape the chart meets: each schedule, inference,
// uneven stages, far more micro-batches than columns and far fewer, and one stage.
func ganttScenarios(t *testing.T) map[string]common.Data {
	t.Helper()
	eval := func(s model.Scenario) common.Data {
		t.Helper()
		r, err := costmodel.Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		return common.Data{Scenario: s, Report: r}
	}
	small := func(batch int) model.Scenario { // TP 4 × PP 2, DP 1: m = batch
		s := tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 4, 2)
		s.Workload.GlobalBatch = batch
		return s
	}
	uneven := tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 6, 2, 3) // 32 layers over 3 stages
	uneven.Workload.GlobalBatch = 12
	onePP := tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 8, 8, 1) // the lane
	return map[string]common.Data{
		"1f1b":        evaluate(t, fixtures[0].edit),
		"gpipe":       evaluate(t, func(s *model.Scenario) { s.Layout.Schedule = model.GPipe }),
		"interleaved": evaluate(t, fixtures[1].edit),
		"zb-h1":       evaluate(t, fixtures[2].edit),
		"infer":       evaluate(t, fixtures[3].edit),
		"uneven-pp3":  eval(uneven),
		"m-1024":      eval(small(1024)),
		"m-2":         eval(small(2)),
		"pp1-m64":     eval(onePP),
	}
}

// chartCols are the widths of the chart (columns of ops, without the lane labels) checked.
var chartCols = []int{40, 57, 80, 137, 200}

// paneFor builds a pane whose chart is cols columns wide, tall enough for three rows per lane.
func paneFor(t *testing.T, d common.Data, cols int) *Model {
	t.Helper()
	stages := d.Report.Timeline.Stages
	for w := cols + 2; w < cols+40; w++ {
		m := newPane(t, d, w, 4*stages+24)
		if _, lw := m.laneLabels(w); w-lw-1 == cols {
			return m
		}
	}
	t.Fatalf("no pane width gives a chart of %d columns", cols)
	return nil
}

// truth is what the timeline holds in one column, computed from the ops directly.
type truth struct {
	width float64
	busy  float64
	kinds map[rune]float64 // time per kind letter (F, B, W, P, D)
	ops   []schedule.Op    // the ops overlapping the column
}

// String is the shares of the column by kind: "F 0.412 B 0.301".
func (tr truth) String() string {
	var b strings.Builder
	for _, k := range "FBWPD" {
		if v, ok := tr.kinds[k]; ok {
			fmt.Fprintf(&b, "%c %.3f ", k, v/tr.width)
		}
	}
	return strings.TrimSpace(b.String())
}

func kindLetter(op schedule.Op, infer bool) rune {
	switch {
	case infer && op.Token == 0:
		return 'P'
	case infer:
		return 'D'
	}
	return []rune(op.Kind.String())[0]
}

func columnTruth(tl *costmodel.Timeline, stage, c, cols int) truth {
	a := tl.Makespan * float64(c) / float64(cols)
	b := tl.Makespan * float64(c+1) / float64(cols)
	tr := truth{width: b - a, kinds: map[rune]float64{}}
	for _, op := range tl.Ops {
		if op.Stage != stage {
			continue
		}
		over := math.Min(op.End, b) - math.Max(op.Start, a)
		if over <= 0 {
			continue
		}
		tr.busy += over
		tr.kinds[kindLetter(op, tl.Mode == model.Infer)] += over
		tr.ops = append(tr.ops, op)
	}
	return tr
}

// letterShare is the rule as the legend and README state it: a letter means its kind holds at
// least three quarters of the column's busy time.
const letterShare = 0.75

// near says whether x is too close to a threshold for rounding to decide.
func near(x, threshold float64) bool { return math.Abs(x-threshold) < 1e-6 }

// allowed is the set of glyphs the rule permits for a column: idle when idle holds half of it,
// a kind's letter when that kind holds three quarters of the busy time, the mixed glyph
// otherwise; at a threshold, either side.
func (tr truth) allowed() map[rune]bool {
	ok := map[rune]bool{}
	share := tr.busy / tr.width
	if share < 0.5 || near(share, 0.5) {
		ok[theme.GlyphBubble], ok[theme.GlyphP2P] = true, true
	}
	if share < 0.5 && !near(share, 0.5) {
		return ok
	}
	top := 0.0
	for _, t := range tr.kinds {
		top = math.Max(top, t)
	}
	for k, t := range tr.kinds {
		if near(t/tr.busy, top/tr.busy) && (t/tr.busy > letterShare || near(t/tr.busy, letterShare)) {
			ok[k] = true
		}
	}
	if top/tr.busy < letterShare || near(top/tr.busy, letterShare) {
		ok[glyphMixed] = true
	}
	return ok
}

var laneLine = regexp.MustCompile(`^(S\d| +[^ ])`)

var labelRE = regexp.MustCompile(`^([FBWPDfbwpd])(\d+)(?:c(\d+))?$`)

// Every column of every lane draws what the timeline holds in its slice of time: the rule of
// colClass, checked against shares computed here from the ops, for each scenario and width.
// Labels name an op of the drawn kind that covers every column they are written on, and the
// colours of mixed columns are the kinds with the two largest shares.
func TestColumnsAgreeWithTimeline(t *testing.T) {
	for name, d := range ganttScenarios(t) {
		tl := d.Report.Timeline
		infer := tl.Mode == model.Infer
		for _, cols := range chartCols {
			t.Run(fmt.Sprintf("%s/%d", name, cols), func(t *testing.T) {
				m := paneFor(t, d, cols)
				paused(m)
				v := m.View()
				tuitest.CheckFrame(t, v, m.w, m.h)
				labels, lw := m.laneLabels(m.w)
				lines := strings.Split(v, "\n")
				pc := timeToCol(m.playhead, tl.Makespan, cols)
				checked, mixed := 0, 0
				for st := range tl.Stages {
					prefix := padRight(labels[st], lw)
					li := -1
					for i, l := range lines {
						if i > 0 && strings.HasPrefix(l, prefix+" ") {
							li = i
							break
						}
					}
					if li < 0 {
						t.Fatalf("no row for S%d:\n%s", st, v)
					}
					top, base := []rune(lines[li])[lw+1:], []rune(lines[li-1])[lw+1:]
					if len(base) != cols || len(top) != cols {
						t.Fatalf("S%d: %d and %d columns drawn, want %d", st, len(base), len(top), cols)
					}
					sum := m.cols.lanes[st].cols
					for c := range cols {
						if c == pc {
							if base[c] != theme.GlyphPlay {
								t.Errorf("S%d column %d: %q under the playhead", st, c, base[c])
							}
							continue
						}
						tr := columnTruth(tl, st, c, cols)
						g := base[c]
						ok := tr.allowed()
						letter := []rune(strings.ToUpper(string(g)))[0]
						if !ok[letter] {
							t.Errorf("S%d column %d drew %q; the timeline holds busy %.3f of the column, %s: allowed %q",
								st, c, g, tr.busy/tr.width, tr, keys(ok))
							continue
						}
						checked++
						if letter != g { // lower case: an odd chunk of that kind is in the column
							if !hasOp(tr.ops, func(op schedule.Op) bool { return kindLetter(op, infer) == letter && op.Chunk%2 == 1 }) {
								t.Errorf("S%d column %d drew %q with no odd chunk of %c there", st, c, g, letter)
							}
						} else if strings.ContainsRune("FBWPD", g) {
							if !hasOp(tr.ops, func(op schedule.Op) bool { return kindLetter(op, infer) == g && op.Chunk%2 == 0 }) {
								t.Errorf("S%d column %d drew %q with no even chunk of %c there", st, c, g, g)
							}
						}
						if g == glyphMixed {
							mixed++
							checkMixedColours(t, st, c, sum[c], tr)
						}
					}
					checkLabels(t, tl, st, cols, pc, top, base)
				}
				if checked == 0 {
					t.Fatal("no column checked")
				}
				legend := strings.Contains(v, string(glyphMixed)+" ")
				if legend != (mixed > 0) {
					t.Errorf("%d mixed columns, legend explains %c: %v", mixed, glyphMixed, legend)
				}
			})
		}
	}
}

// checkMixedColours: a mixed column is coloured by the kinds with the largest and second-largest
// time in it.
func checkMixedColours(t *testing.T, st, c int, col column, tr truth) {
	t.Helper()
	var ts []float64
	for _, v := range tr.kinds {
		ts = append(ts, v)
	}
	first, second := 0.0, 0.0
	for _, v := range ts {
		if v > first {
			first, second = v, first
		} else if v > second {
			second = v
		}
	}
	maj, mnr := kindGlyph[col.major], kindGlyph[col.minor]
	if !near(tr.kinds[maj]/tr.width, first/tr.width) || !near(tr.kinds[mnr]/tr.width, second/tr.width) || maj == mnr {
		t.Errorf("S%d column %d mixed in colours %c on %c; %s", st, c, maj, mnr, tr)
	}
}

// checkLabels finds the labels written over the lane (where the label row differs from the
// plain row, with the letter before) and checks that each names an op of that kind, on that
// stage, covering every column the label is written on. Labels touching the playhead are cut
// by it and skipped.
func checkLabels(t *testing.T, tl *costmodel.Timeline, st, cols, pc int, top, base []rune) {
	t.Helper()
	infer := tl.Mode == model.Infer
	for c := 0; c < cols; {
		if top[c] == base[c] {
			c++
			continue
		}
		s, e := c-1, c
		for e < cols && top[e] != base[e] {
			e++
		}
		c = e
		if s < 0 || (pc >= s-1 && pc <= e) {
			continue
		}
		text := string(top[s:e])
		mt := labelRE.FindStringSubmatch(text)
		if mt == nil {
			t.Errorf("S%d columns %d–%d: label %q", st, s, e-1, text)
			continue
		}
		letter := []rune(strings.ToUpper(mt[1]))[0]
		num, _ := strconv.Atoi(mt[2])
		chunk := -1
		if mt[3] != "" {
			chunk, _ = strconv.Atoi(mt[3])
		}
		for x := s; x < e; x++ {
			if []rune(strings.ToUpper(string(base[x])))[0] != letter {
				t.Errorf("S%d label %q over column %d drawn %q", st, text, x, base[x])
			}
			tr := columnTruth(tl, st, x, cols)
			named := hasOp(tr.ops, func(op schedule.Op) bool {
				id := op.Micro
				if letter == 'D' {
					id = op.Token
				}
				return kindLetter(op, infer) == letter && id == num && (chunk < 0 || op.Chunk == chunk)
			})
			if !named {
				t.Errorf("S%d label %q over column %d, where no such op runs", st, text, x)
			}
		}
	}
}

func hasOp(ops []schedule.Op, f func(schedule.Op) bool) bool {
	for _, op := range ops {
		if f(op) {
			return true
		}
	}
	return false
}

func keys(m map[rune]bool) string {
	var s []rune
	for _, g := range []rune{theme.GlyphBubble, theme.GlyphP2P, 'F', 'B', 'W', 'P', 'D', glyphMixed} {
		if m[g] {
			s = append(s, g)
		}
	}
	return string(s)
}

// The lane: one stage, 64 micro-batches, about one F+B pair per column. Every column
// holds both kinds, so none may be drawn as F or B alone (the old sampler drew long runs of B
// and then of F).
func TestDenseOneFOneBIsMixed(t *testing.T) {
	d := ganttScenarios(t)["pp1-m64"]
	m := paneFor(t, d, 64) // the chart at 100 columns of the terminal
	v := m.View()
	lc := m.cols.lanes[0]
	for c, col := range lc.cols {
		if col.class != colMixed {
			t.Errorf("column %d is %v (%q), want mixed", c, col.class, lc.base[c])
		}
	}
	if !strings.Contains(v, "▚ F and B mixed within a column") {
		t.Errorf("the legend does not explain the mixed glyph:\n%s", v)
	}
}

// Every glyph a lane draws is explained by the legend, so a chart without colour reads.
func TestLegendExplainsEveryGlyph(t *testing.T) {
	for name, d := range ganttScenarios(t) {
		for _, cols := range []int{40, 137} {
			m := paneFor(t, d, cols)
			paused(m)
			v := m.View()
			lines := strings.Split(v, "\n")
			axis := -1
			for i, l := range lines {
				if strings.Contains(l, "┬") {
					axis = i
				}
			}
			if axis < 0 {
				t.Fatalf("%s: no axis", name)
			}
			end := axis + 2
			for end < len(lines) && lines[end] != "" {
				end++
			}
			legend := strings.Join(lines[axis+2:end], "\n")
			_, lw := m.laneLabels(m.w)
			for _, l := range lines[:axis] {
				r := []rune(l)
				if len(r) <= lw+1 || !laneLine.MatchString(l) {
					continue
				}
				for _, g := range r[lw+1:] {
					if g >= '0' && g <= '9' || g == 'c' || g == ' ' {
						continue // labels
					}
					if !strings.ContainsRune(legend, g) && !strings.ContainsRune(legend, []rune(strings.ToUpper(string(g)))[0]) {
						t.Errorf("%s at %d columns: %q drawn, not in the legend:\n%s", name, cols, g, legend)
					}
				}
			}
		}
	}
}

// summarize by hand: one stage over 4 s in 4 columns.
//
//	[0,1) F alone · [1,2) F 0.8 B 0.2 · [2,3) B 0.1 F 0.6 B 0.3 · [3,4) B 0.3, idle 0.7
func TestSummarize(t *testing.T) {
	tl := &costmodel.Timeline{Stages: 1, Makespan: 4, Mode: model.Train, Ops: []schedule.Op{
		{Kind: schedule.F, Micro: 0, Start: 0, End: 1.8, Dep: -1},
		{Kind: schedule.B, Micro: 0, Start: 1.8, End: 2.1, Dep: -1},
		{Kind: schedule.F, Micro: 1, Start: 2.1, End: 2.7, Dep: -1},
		{Kind: schedule.B, Micro: 1, Start: 2.7, End: 3.3, Dep: -1},
	}}
	ix := newIndex(tl)
	var sc shares
	got := summarize(&ix.lanes[0], 4, ix.span, &sc)
	want := []column{
		{class: colOne, major: kindF, op: 0},
		{class: colOne, major: kindF, op: 0},
		{class: colMixed, major: kindF, minor: kindB, op: 2},
		{class: colIdle, op: -1},
	}
	for c := range want {
		if got[c] != want[c] {
			t.Errorf("column %d: %+v, want %+v", c, got[c], want[c])
		}
	}
	// F holds 0.6 of the third column's busy time: under pureShare, so it is mixed, F on B,
	// and F1 (the longest F there) sets its colour.
	base, top := glyphs(&ix.lanes[0], got, false)
	if string(base) != "FF▚·" || string(top) != "F0▚·" {
		t.Errorf("glyphs %q, labels %q", string(base), string(top))
	}
}

// colour lights what the playhead passed, highlights the op under it, dims the future, and
// gives mixed columns the classes of their two kinds.
func TestColourFollowsThePlayhead(t *testing.T) {
	ops := []span{{Start: 0, End: 2, Kind: kindF}, {Start: 2, End: 4, Kind: kindB}}
	lc := laneCols{cols: []column{
		{class: colOne, major: kindF, op: 0},
		{class: colMixed, major: kindB, minor: kindF, op: 1},
		{class: colIdle, op: -1},
		{class: colWait, op: -1},
	}}
	out := make([]cls, 4)
	lc.colour(out, ops, 1, 0)
	want := []cls{opCls(kindF, stRunning), mixCls(kindB, kindF, stFuture), cBubbleDim, cP2PDim}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("at t=1, column %d: class %d, want %d", i, out[i], want[i])
		}
	}
	lc.colour(out, ops, 3, 3)
	want = []cls{opCls(kindF, stLit), mixCls(kindB, kindF, stRunning), cBubble, cP2P}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("at t=3, column %d: class %d, want %d", i, out[i], want[i])
		}
	}
}

// The columns are computed once per timeline and width, not on every frame.
func TestColumnsCachedPerWidth(t *testing.T) {
	m := newPane(t, evaluate(t, fixtures[0].edit), 120, 34)
	m.View()
	first := &m.cols.lanes[0].cols[0]
	m.Update(frame)
	m.View()
	if &m.cols.lanes[0].cols[0] != first {
		t.Error("a frame rebuilt the columns")
	}
	n := m.cols.n
	m.SetSize(100, 34)
	m.View()
	if m.cols.n == n || m.cols.n != len(m.cols.lanes[0].cols) {
		t.Errorf("a new width kept %d columns (now %d)", n, m.cols.n)
	}
	ix := m.cols.ix
	m.SetData(evaluate(t, fixtures[2].edit))
	m.View()
	if m.cols.ix == ix || m.cols.ix != m.ix {
		t.Error("new data kept the old columns")
	}
}

func TestMixedText(t *testing.T) {
	for mask, want := range map[uint8]string{
		1<<kindF | 1<<kindB:            "F and B mixed within a column",
		1<<kindF | 1<<kindB | 1<<kindW: "F, B and W mixed within a column",
		1<<kindPrefill | 1<<kindDecode: "prefill and decode mixed within a column",
	} {
		if got := mixedText(mask); got != want {
			t.Errorf("mixedText(%b) = %q, want %q", mask, got, want)
		}
	}
	if mixedLegendCls(1<<kindB|1<<kindW) != mixCls(kindB, kindW, stLit) {
		t.Error("the legend's mixed glyph should take the colours of its kinds")
	}
}

// In a small pane the legend takes fewer words before it drops an item: the kinds and the
// mixed glyph stay explained wherever the lanes draw them.
func TestSmallLegendKeepsTheKinds(t *testing.T) {
	for _, f := range fixtures {
		d := evaluate(t, f.edit)
		for _, sz := range [][2]int{{56, 16}, {64, 20}, {80, 24}} {
			m := newPane(t, d, sz[0], sz[1])
			paused(m)
			lines := strings.Split(m.View(), "\n")
			axis, status := -1, -1
			for i, l := range lines {
				if strings.Contains(l, "┬") {
					axis = i
				}
				if status < 0 && strings.Contains(l, "paused") {
					status = i // the summary above it writes words (TTFT), not glyphs
				}
			}
			if axis < 0 || axis+2 >= len(lines) {
				t.Fatalf("%s at %v: no legend", f.name, sz)
			}
			legend := lines[axis+2]
			if axis+3 < len(lines) {
				legend += "\n" + lines[axis+3]
			}
			chart := strings.Join(lines[status+1:axis], "\n")
			for _, g := range []rune{'F', 'B', 'W', 'P', 'D', glyphMixed} {
				if strings.ContainsRune(chart, g) && !strings.ContainsRune(legend, g) {
					t.Errorf("%s at %v: %q drawn but not in the legend %q", f.name, sz, g, legend)
				}
			}
		}
	}
}
