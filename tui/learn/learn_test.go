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
	for s := range SecExperts { // every model's sections (a dense model has no experts, no MLA)
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
	tp := common.CompareRow{Kind: common.RowTPOnly, Name: "TP only", Layout: model.Layout{TP: 8, PP: 1, DP: 1},
		Report: m.data.Report, Feasible: true}
	best := tp
	best.Kind, best.Name, best.SameAs = common.RowBest, "best (= TP only)", common.RowTPOnly
	m.SetCompare(common.Compare{Rows: []common.CompareRow{tp, best}})
	m.ScrollTo(SecWinner)
	if !strings.Contains(m.View(), "The best layout, TP 8 × PP 1 × DP 1") {
		t.Errorf("the winner is not explained:\n%s", m.View())
	}
	m.Invalidate()
	m.ScrollTo(SecWinner)
	if !strings.Contains(m.View(), "still evaluating") {
		t.Error("an outdated comparison is still explained")
	}
}

// TestWinnerIsCompareBest: the winner section names the Compare tab's best layout with its label
// and does not list the contender whose layout it is as a loser; the others are explained.
func TestWinnerIsCompareBest(t *testing.T) {
	d := data(t)
	rep := func(tps float64) costmodel.Report {
		r := d.Report
		r.TokensPerS = tps
		return r
	}
	lay := func(tp, pp, dp int) model.Layout { return model.Layout{TP: tp, PP: pp, DP: dp} }
	pp := common.CompareRow{Kind: common.RowPPOnly, Name: "PP only", Layout: lay(1, 8, 1), Report: rep(39000), Feasible: true}
	best := pp
	best.Kind, best.Name, best.SameAs = common.RowBest, "best (= PP only)", common.RowPPOnly
	c := common.Compare{Rows: []common.CompareRow{
		{Kind: common.RowTPOnly, Name: "TP only", Layout: lay(4, 1, 2), Report: rep(19000), Feasible: true},
		pp, best,
		// Faster by tokens/s than the best, as a stale or hand-made row could be: the winner is
		// still the best layout, not the largest number.
		{Kind: common.RowHybrid, Name: "best hybrid", Layout: lay(2, 4, 1), Report: rep(45000), Feasible: true},
	}}
	f := NewFacts(d, c, true)
	if f.Cmp.Winner == nil || f.Cmp.Winner.Name != "best (= PP only)" {
		t.Fatalf("winner %+v", f.Cmp.Winner)
	}
	for i, want := range []bool{false, true, true, false} {
		if f.Cmp.Rows[i].IsWinner != want {
			t.Errorf("%s: winner %v", f.Cmp.Rows[i].Name, f.Cmp.Rows[i].IsWinner)
		}
	}
	for _, lang := range assets.Langs {
		tx, err := assets.Texts(lang)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Document(NewTexts(tx), f)
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, b := range doc {
			if b.Section == SecWinner {
				text = PlainText([]Block{b})
			}
		}
		for _, want := range []string{"best (= PP only)", "TP 1 × PP 8 × DP 1", "TP only (TP 4 × PP 1 × DP 2)", "best hybrid (TP 2 × PP 4 × DP 1)"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the winner section lacks %q:\n%s", lang, want, text)
			}
		}
		if strings.Contains(text, "PP only (TP 1 × PP 8") {
			t.Errorf("%s: PP only, the best layout itself, is listed as a loser:\n%s", lang, text)
		}
	}
	// Nothing fits: no winner.
	for i := range c.Rows {
		c.Rows[i].Feasible = false
	}
	if f := NewFacts(d, c, true); f.Cmp.Winner != nil {
		t.Errorf("nothing fits, yet the winner is %s", f.Cmp.Winner.Name)
	}
}
