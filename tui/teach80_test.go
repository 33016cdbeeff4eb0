package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/theme"
)

// Teaching at 80×24: the footer keeps g, the tour's captions read whole, the strip has no empty
// field while a question is open (issue 18, point 7).

// While a tour question is open the strip hides the costs but still says where each split runs:
// the TP head names its link (the one the report names once the question is answered), with no
// empty field ("TP 8 ()", "node ·  ·"), on the one-line strip (80×24) and the two-line one.
func TestStripWithAQuestionOpenHasNoEmptyField(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m := ready(t, size.w, size.h, nil)
		m, _ = press(m, "g")
		for range assets.TourSteps() {
			m = settle(m)
			if !m.quizOpen() {
				t.Fatalf("%d×%d step %d: no open question", size.w, size.h, m.tour.at+1)
			}
			s := m.tour.files[m.tour.at].Scenario
			r, err := costmodel.Evaluate(s)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			strip := strings.Join(lines[1:1+m.lay.Strip.H], "\n")
			for _, empty := range []string{"()", "·  ·", "· ·"} {
				if strings.Contains(strip, empty) {
					t.Errorf("%d×%d step %d: an empty field %q in the strip:\n%s", size.w, size.h, m.tour.at+1, empty, strip)
				}
			}
			if s.Layout.TP > 1 && !strings.Contains(strip, r.Detail.TPLink) {
				t.Errorf("%d×%d step %d: the strip does not name the TP link %s:\n%s", size.w, size.h, m.tour.at+1, r.Detail.TPLink, strip)
			}
			m, _ = press(m, "right")
		}
	}
}

// Off the tour too: for TP inside a node, across nodes and none, the hidden strip names the link
// the report names.
func TestHiddenStripNamesTheReportsTPLink(t *testing.T) {
	base, _ := testScenario(t)
	for _, tc := range []struct{ gpus, tp, pp int }{{32, 8, 4}, {16, 16, 1}, {16, 4, 4}, {8, 2, 1}, {1, 1, 1}} {
		s := base
		s.Cluster.GPUs = tc.gpus
		s.Layout.TP, s.Layout.PP, s.Layout.DP = tc.tp, tc.pp, tc.gpus/(tc.tp*tc.pp)
		s.Arch.Heads, s.Arch.KVHeads, s.Arch.FFN = 64, 64, 16384
		r, err := costmodel.Evaluate(s)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		for _, h := range []int{1, 2} {
			strip := ansi.Strip(stripHidden(theme.Default(), s, 200, h))
			if strings.Contains(strip, "()") || strings.Contains(strip, "·  ·") {
				t.Errorf("%+v, %d lines: an empty field:\n%s", tc, h, strip)
			}
			if tc.tp > 1 && !strings.Contains(strip, r.Detail.TPLink) {
				t.Errorf("%+v, %d lines: no TP link %s:\n%s", tc, h, r.Detail.TPLink, strip)
			}
		}
	}
}
