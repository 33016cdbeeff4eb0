package pipeline

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

var opLine = regexp.MustCompile(`^S\d+ \(GPUs? [0-9,-]+\) · (F|B|W) of micro-batch \d+ · (.+) · ran \d`)

// Paused, `.` stops on the next op start and describes the op that starts there: its stage and
// GPUs, what it computes, what it waited for (Op.Dep) and how long it ran. The description
// shows under the playhead line, the op's lane is marked, and play hides it again.
func TestStepThroughDescribesTheOp(t *testing.T) {
	m := train(t)
	if m.StepDescription() != "" {
		t.Fatal("a description before any step")
	}
	sawWait, sawBusy := false, false
	for i := range 40 {
		m.Update(runes("."))
		d := m.StepDescription()
		if !opLine.MatchString(d) {
			t.Fatalf("step %d: %q", i, d)
		}
		op := m.tl.Ops[m.step.op]
		if op.Start != m.playhead {
			t.Fatalf("step %d describes an op starting at %v, playhead %v", i, op.Start, m.playhead)
		}
		if !strings.Contains(d, "ran "+fmtDur(op.End-op.Start)) {
			t.Errorf("step %d: %q lacks the op's duration %s", i, d, fmtDur(op.End-op.Start))
		}
		switch {
		case op.Dep >= 0 && strings.Contains(d, "waited "):
			dep := m.tl.Ops[op.Dep]
			want := "for S" + string(rune('0'+dep.Stage)) + "'s " + dep.Kind.String()
			if !strings.Contains(d, want) {
				t.Errorf("step %d: %q does not name its dependency (%s)", i, d, want)
			}
			sawWait = true
		case op.Dep < 0 && op.Start > 0:
			if !strings.Contains(d, "its stage was busy") {
				t.Errorf("step %d: %q: Dep = -1 should say its stage was busy", i, d)
			}
			sawBusy = true
		}
		v := m.View()
		tuitest.CheckFrame(t, v, 120, 34)
		if !strings.Contains(v, "▸ "+d[:20]) {
			t.Fatalf("step %d: the view lacks the description:\n%s", i, v)
		}
	}
	if !sawWait || !sawBusy {
		t.Errorf("40 steps of 1F1B should show both a wait for another stage (%v) and a busy stage (%v)", sawWait, sawBusy)
	}
	m.Update(space)
	if m.StepDescription() != "" || strings.Contains(m.View(), "▸ S") {
		t.Error("playing still shows the description")
	}
}

func TestStepThroughFirstOps(t *testing.T) {
	m := train(t)
	m.Update(space) // pause at 0
	// S0's F1 waits only for S0's F0 (Dep = −1), then S1's F0 waits for S0's F0 to arrive.
	m.Update(runes("."))
	if d := m.StepDescription(); d != "S0 (GPU 0) · F of micro-batch 1 · its stage was busy · ran 24.7 ms" {
		t.Errorf("first step: %q", d)
	}
	m.Update(runes("."))
	if d := m.StepDescription(); !strings.HasPrefix(d, "S1 (GPU 2) · F of micro-batch 0 · waited 24.9 ms for S0's F0 (p2p 139 µs)") {
		t.Errorf("second step: %q", d)
	}
}

func TestStepThroughInference(t *testing.T) {
	m := newPane(t, evaluate(t, fixtures[3].edit), 120, 34)
	for range 6 {
		m.Update(runes("."))
	}
	if d := m.StepDescription(); !strings.Contains(d, "engine step with prompt chunks, batch") && !strings.Contains(d, "decode step") {
		t.Errorf("inference step: %q", d)
	}
}

// A paused step at 100×24: the op's lane marked ▸, its description under the playhead line.
// Regenerate with: go test ./tui/pipeline -update
func TestStepThroughGolden(t *testing.T) {
	m := newPane(t, evaluate(t, fixtures[0].edit), 100, 24)
	for range 5 {
		m.Update(runes("."))
	}
	v := m.View()
	tuitest.CheckFrame(t, v, 100, 24)
	if !strings.Contains(v, "▸ S2 (GPU 4) · F of micro-batch 0 · waited ") {
		t.Errorf("the fifth step should describe S2's F0:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))
}

// SetLarge gives each lane more rows when there is room, and less room for nothing else: the
// view still fits.
func TestSetLarge(t *testing.T) {
	d := evaluate(t, fixtures[0].edit)
	rows := func(large bool, w, h int) int {
		m := newPane(t, d, w, h)
		m.SetLarge(large)
		v := m.View()
		tuitest.CheckFrame(t, v, w, h)
		n := 0
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, "│F") || strings.Contains(l, "│·") || strings.Contains(l, "│B") {
				n++
			}
		}
		return n
	}
	if normal, large := rows(false, 98, 34), rows(true, 98, 34); large <= normal || large < 4*4 {
		t.Errorf("4 stages in 98×34: %d lane rows large, %d normal", large, normal)
	}
	for _, sz := range sweepSizes {
		m := New(theme.Default())
		m.SetLarge(true)
		m.SetData(evaluate(t, fixtures[4].edit))
		m.SetSize(sz[0], sz[1])
		checkFrame(t, m.View(), sz[0], sz[1])
	}
}

// SetStyles keeps the playhead and the step where they are.
func TestSetStylesKeepsState(t *testing.T) {
	m := train(t)
	m.Update(runes("."))
	ph, d := m.playhead, m.StepDescription()
	m.SetStyles(theme.HighContrast())
	if m.playhead != ph || m.StepDescription() != d || m.Animating() {
		t.Error("SetStyles lost the paused step")
	}
}

// A narrow pane shortens the description part by part (the other ops starting now, the p2p
// time, the GPUs, the op's long name, what it waited for, the wait, the stage) and keeps how long
// the op ran to the last.
func TestDescriptionFitShortensInOrder(t *testing.T) {
	d := description{
		partStage: {"S2 (GPUs 4-5)", "S2", ""},
		partWhat:  {"F of micro-batch 3", "F3"},
		partWait:  {"waited 1.20 ms for S1's F3 (p2p 45.0 µs)", "waited 1.20 ms for S1's F3", "waited 1.20 ms", ""},
		partRan:   {"ran 24.7 ms"},
		partMore:  {"1 more op starts now", ""},
	}
	steps := []string{
		"S2 (GPUs 4-5) · F of micro-batch 3 · waited 1.20 ms for S1's F3 (p2p 45.0 µs) · ran 24.7 ms · 1 more op starts now",
		"S2 (GPUs 4-5) · F of micro-batch 3 · waited 1.20 ms for S1's F3 (p2p 45.0 µs) · ran 24.7 ms",
		"S2 (GPUs 4-5) · F of micro-batch 3 · waited 1.20 ms for S1's F3 · ran 24.7 ms",
		"S2 · F of micro-batch 3 · waited 1.20 ms for S1's F3 · ran 24.7 ms",
		"S2 · F3 · waited 1.20 ms for S1's F3 · ran 24.7 ms",
		"S2 · F3 · waited 1.20 ms · ran 24.7 ms",
		"S2 · F3 · ran 24.7 ms",
		"F3 · ran 24.7 ms",
	}
	if d.String() != steps[0] {
		t.Fatalf("full description %q", d.String())
	}
	for i, want := range steps {
		w := cellWidth(want)
		if got := d.fit(w); got != want {
			t.Errorf("fit(%d) = %q, want %q", w, got, want)
		}
		if i > 0 {
			if got := d.fit(cellWidth(steps[i-1]) - 1); got != want {
				t.Errorf("fit(%d) = %q, want %q", cellWidth(steps[i-1])-1, got, want)
			}
		}
	}
	if got := d.fit(3); got != steps[len(steps)-1] {
		t.Errorf("too narrow for anything: %q, want the shortest form", got)
	}
}

// Whatever the pane's size, the description drawn under the playhead line keeps the op's
// duration: the "ran 24.7 ms" the step is about. The explorer's pane at 120×40 and 80×24 is
// among these sizes (86×34 and 50×18 with the parameter panel; wider without it).
func TestStepDescriptionKeepsDuration(t *testing.T) {
	for _, f := range []int{0, 1, 2, 3} { // 1F1B, interleaved, ZB-H1, inference
		d := evaluate(t, fixtures[f].edit)
		for w := minW; w <= 220; w += 7 {
			for _, h := range []int{12, 18, 24, 34, 40} {
				m := newPane(t, d, w, h)
				shown := 0
				for range 12 {
					m.Update(runes("."))
					op := m.tl.Ops[m.step.op]
					ran := "ran " + fmtDur(op.End-op.Start)
					if !strings.Contains(m.StepDescription(), ran) {
						t.Fatalf("%s: %q lacks %q", fixtures[f].name, m.StepDescription(), ran)
					}
					v := m.View()
					tuitest.CheckFrame(t, v, w, h)
					for _, l := range strings.Split(v, "\n") {
						if strings.HasPrefix(l, "▸ ") {
							shown++
							if !strings.HasSuffix(l, ran) && !strings.Contains(l, ran+" · ") {
								t.Fatalf("%s at %d×%d: the description %q lost %q", fixtures[f].name, w, h, l, ran)
							}
						}
					}
				}
				if h >= 18 && shown == 0 {
					t.Errorf("%s at %d×%d: no description drawn", fixtures[f].name, w, h)
				}
			}
		}
	}
}
