package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

// goldenSizes are the pane sizes the golden files are taken at.
var goldenSizes = [][2]int{{56, 16}, {120, 34}, {196, 52}}

// paused puts the playhead 45% into the step and pauses, so that a golden shows lit ops, future
// ops and the playhead line.
func paused(m *Model) {
	m.Update(space)
	m.seek(0.45 * m.ix.span)
}

// Regenerate with: go test ./tui/pipeline -update
func TestViewGolden(t *testing.T) {
	for _, f := range fixtures {
		d := evaluate(t, f.edit)
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", f.name, sz[0], sz[1]), func(t *testing.T) {
				m := newPane(t, d, sz[0], sz[1])
				paused(m)
				v := m.View()
				checkFrame(t, v, sz[0], sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

func TestViewGoldenStates(t *testing.T) {
	d := evaluate(t, fixtures[0].edit)
	t.Run("start", func(t *testing.T) {
		m := newPane(t, d, 80, 20)
		golden.RequireEqual(t, []byte(m.View()))
	})
	t.Run("end", func(t *testing.T) {
		m := newPane(t, d, 80, 20)
		m.seek(m.ix.span)
		golden.RequireEqual(t, []byte(m.View()))
	})
	t.Run("stale", func(t *testing.T) {
		s := d
		s.Stale = true
		m := newPane(t, s, 80, 20)
		paused(m)
		v := m.View()
		if !strings.Contains(v, "last valid result") {
			t.Error("a stale result must say so")
		}
		golden.RequireEqual(t, []byte(v))
	})
	t.Run("stale_small", func(t *testing.T) {
		s := d
		s.Stale = true
		m := newPane(t, s, 40, 7)
		paused(m)
		v := m.View()
		if !strings.Contains(v, "last valid result") {
			t.Error("a stale result must say so, even small")
		}
		golden.RequireEqual(t, []byte(v))
	})
	t.Run("scrolled", func(t *testing.T) {
		m := newPane(t, evaluate(t, fixtures[4].edit), 120, 34)
		paused(m)
		m.Update(pgdown)
		golden.RequireEqual(t, []byte(m.View()))
	})
	t.Run("too_small", func(t *testing.T) {
		m := newPane(t, d, 29, 5)
		golden.RequireEqual(t, []byte(m.View()))
	})
	t.Run("no_timeline", func(t *testing.T) {
		m := newPane(t, common.Data{}, 60, 8)
		golden.RequireEqual(t, []byte(m.View()))
	})
}

// checkFrame is tuitest.CheckFrame, plus: a zero height renders nothing.
func checkFrame(t *testing.T, v string, w, h int) {
	t.Helper()
	if h == 0 {
		if v != "" {
			t.Fatalf("%d×0: view %q", w, v)
		}
		return
	}
	tuitest.CheckFrame(t, v, w, h)
}

var sweepSizes = func() [][2]int {
	sizes := [][2]int{
		{0, 3}, {3, 0}, {1, 1}, {2, 1}, {1, 2}, {1, 70}, {220, 1}, {5, 3}, {12, 4}, {29, 5}, {29, 6}, {30, 5},
		{30, 6}, {31, 6}, {30, 7}, {33, 8}, {34, 9}, {40, 10}, {45, 11}, {48, 12}, {50, 13},
		{56, 16}, {60, 6}, {64, 20}, {72, 18}, {80, 24}, {90, 12}, {100, 9}, {100, 30},
		{110, 26}, {120, 34}, {132, 40}, {150, 44}, {160, 50}, {180, 36}, {196, 52}, {196, 58},
		{200, 64}, {210, 8}, {220, 70},
	}
	return sizes
}()

// Whatever the size, data and state, View fills exactly its size and never panics.
func TestViewFitsEverySize(t *testing.T) {
	data := map[string]common.Data{"nil": {}, "empty timeline": {Report: costmodel.Report{Timeline: &costmodel.Timeline{}}}}
	for _, f := range fixtures {
		data[f.name] = evaluate(t, f.edit)
	}
	stale := evaluate(t, fixtures[2].edit)
	stale.Stale = true
	data["stale"] = stale
	for name, d := range data {
		for _, sz := range sweepSizes {
			for _, at := range []float64{0, 0.37, 1} {
				m := New(theme.Default())
				m.SetData(d)
				m.SetSize(sz[0], sz[1])
				if m.ix != nil {
					m.seek(at * m.ix.span)
				}
				t.Run("", func(t *testing.T) {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s at %d×%d: panic %v", name, sz[0], sz[1], r)
						}
					}()
					checkFrame(t, m.View(), sz[0], sz[1])
					m.Update(pgdown)
					checkFrame(t, m.View(), sz[0], sz[1])
				})
			}
		}
	}
}

// With colour, every line still fits: escape sequences take no cells.
func TestViewFitsWithColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	for _, f := range fixtures {
		m := newPane(t, evaluate(t, f.edit), 120, 34)
		paused(m)
		v := m.View()
		if !strings.Contains(v, "\x1b[") {
			t.Fatal("no colour in a TrueColor view")
		}
		checkFrame(t, v, 120, 34)
		m.data.Stale = true
		checkFrame(t, m.View(), 120, 34)
	}
}

// The golden views must show what a reader needs: lanes, F/B/W, bubbles, the axis.
func TestViewReads(t *testing.T) {
	m := newPane(t, evaluate(t, fixtures[2].edit), 120, 34)
	paused(m)
	v := m.View()
	for _, want := range []string{"S0 0", "S3 6", "F0", "B0", "W0", string(theme.GlyphBubble), string(theme.GlyphP2P),
		string(theme.GlyphPlay), "100 ms", "bubble", "closed form", "zb-h1"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q", want)
		}
	}
	m = newPane(t, evaluate(t, fixtures[1].edit), 196, 52)
	paused(m)
	if v := m.View(); !strings.Contains(v, "c1") || !strings.Contains(v, "(p−1)/(v·m+p−1)") {
		t.Error("interleaved view lacks chunk labels or its closed form")
	}
	m = newPane(t, evaluate(t, fixtures[3].edit), 120, 34)
	if v := m.View(); !strings.Contains(v, "P0") || !strings.Contains(v, "idle ") || !strings.Contains(v, "TPOT") ||
		!strings.Contains(v, " answered") {
		t.Error("inference view lacks prefill labels, its idle share or its percentiles so far")
	}
	// At the end every request of replica 0 is answered, and the percentiles are there.
	m.seek(m.ix.span)
	if v := m.View(); !strings.Contains(v, "TPOT p50") || !strings.Contains(v, "TTFT p50") {
		t.Errorf("inference view at the end lacks its percentiles:\n%s", v)
	}
	m = newPane(t, evaluate(t, fixtures[4].edit), 120, 34)
	if v := m.View(); !strings.Contains(v, "stages folded") {
		t.Error("64 stages in 34 rows should fold")
	}
}

// fits agrees with lipgloss.Width on every line the tab draws, in colour and without, and on
// lines holding wide runes or other escapes, which it hands to lipgloss.
func TestFitsAgreesWithLipgloss(t *testing.T) {
	lines := []string{"", "plain", "模型 wide", "emoji ⌚ here", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "\x1b[1mbold\x1b[0m ▚▚ · › │ ┬─ ⋮ × µ −"}
	for _, prof := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		lipgloss.SetColorProfile(prof)
		for _, f := range fixtures {
			m := newPane(t, evaluate(t, f.edit), 120, 34)
			paused(m)
			m.data.Stale = prof == termenv.TrueColor
			lines = append(lines, strings.Split(m.View(), "\n")...)
		}
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, l := range lines {
		lw := lipgloss.Width(l)
		for _, w := range []int{lw - 1, lw, lw + 1} {
			if got := common.Width(l) <= w; got != (lw <= w) {
				t.Errorf("common.Width(%q) <= %d is %v; lipgloss measures %d cells", l, w, got, lw)
			}
		}
	}
}
