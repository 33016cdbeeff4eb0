package learn

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

func TestWrapKeepsUnitsAndHyphens(t *testing.T) {
	got := Wrap("the all-reduce takes 1.54\u00a0ms on llama-2-13b with p\u00a0=\u00a08", 20)
	want := []string{"the all-reduce takes", "1.54 ms on", "llama-2-13b with", "p = 8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Wrap: %q, want %q", got, want)
	}
	if got := Wrap(strings.Repeat("x", 25), 10); len(got) != 3 || got[0] != strings.Repeat("x", 10) {
		t.Errorf("a long word: %q", got)
	}
	if got := Wrap("", 10); len(got) != 1 || got[0] != "" {
		t.Errorf("empty: %q", got)
	}
}

func TestParagraphs(t *testing.T) {
	in := "First line\nsame paragraph.\n\n- a bullet\n  that goes on\n- another\n\n  T = 2(t−1)·α\nafter"
	want := []Para{
		{ParaText, "First line same paragraph."},
		{ParaBullet, "a bullet that goes on"},
		{ParaBullet, "another"},
		{ParaFormula, "T = 2(t−1)·α"},
		{ParaText, "after"},
	}
	if got := paragraphs(in); !reflect.DeepEqual(got, want) {
		t.Errorf("paragraphs:\n%q\nwant\n%q", got, want)
	}
}

func data(t *testing.T) common.Data {
	t.Helper()
	s := tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 8, 2, 4)
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}

func pane(t *testing.T, lang string, w, h int) *Model {
	t.Helper()
	tx, err := assets.Texts(lang)
	if err != nil {
		t.Fatal(err)
	}
	m := New(theme.Default(), tx)
	m.SetSize(w, h)
	m.SetData(data(t))
	return m
}

// View fills its size whatever it is, scrolled anywhere.
func TestViewFits(t *testing.T) {
	for _, lang := range assets.Langs {
		for _, sz := range [][2]int{{0, 0}, {1, 1}, {10, 3}, {40, 10}, {70, 24}, {96, 26}, {200, 60}} {
			m := pane(t, lang, sz[0], sz[1])
			for s := range numSections {
				m.ScrollTo(s)
				if sz[1] > 0 {
					tuitest.CheckFrame(t, m.View(), sz[0], sz[1])
				}
			}
		}
	}
}

// ScrollTo puts a section's heading at the top (unless the end of the text is reached), the
// comparison fills in when it arrives, and a pending one says so.
func TestScrollToAndCompare(t *testing.T) {
	m := pane(t, "en", 70, 20)
	for s := range numSections {
		m.ScrollTo(s)
		v := m.View()
		if first := strings.Split(v, "\n")[0]; m.Offset() != m.Start(s) || !strings.HasPrefix(first, string(rune('1'+s))+" · ") {
			t.Errorf("section %s does not start the view: %q", s, first)
		}
	}
	m.ScrollTo(SecWinner)
	if !strings.Contains(m.View(), "still evaluating") {
		t.Error("without a comparison the winner section should wait for it")
	}
	m.SetCompare(common.Compare{Rows: []common.CompareRow{{Name: "TP only", Layout: model.Layout{TP: 8, PP: 1, DP: 1},
		Report: m.data.Report, Feasible: true}}})
	m.ScrollTo(SecWinner)
	if !strings.Contains(m.View(), "TP only (TP 8 × PP 1 × DP 1) gives the most tokens") {
		t.Errorf("the winner is not explained:\n%s", m.View())
	}
	m.Invalidate()
	m.ScrollTo(SecWinner)
	if !strings.Contains(m.View(), "still evaluating") {
		t.Error("an outdated comparison is still explained")
	}
}
