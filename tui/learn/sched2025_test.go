package learn

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// TestBubble2025Texts: the bubble page explains ZB-V and DualPipe(V) with their closed forms, in
// English and in French, with the simulated figure beside them.
func TestBubble2025Texts(t *testing.T) {
	for _, c := range []struct {
		s       model.Schedule
		en, fr  string
		formula string
	}{
		{model.ZBV, "arranged in a V", "disposées en V", "(p−1)·F"},
		{model.DualPipe, "from both ends", "par les deux bouts", "(p/2−1)(F&B+B−3W)"},
		{model.DualPipeV, "cut in half", "coupé en deux", "(p−1)(F&B+B−3W)"},
	} {
		s := tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 8, 1, 4)
		s.Layout.Schedule = c.s
		r, err := costmodel.Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		f := NewFacts(common.Data{Scenario: s, Report: r}, common.Compare{}, false)
		for lang, want := range map[string]string{"en": c.en, "fr": c.fr} {
			tx, err := assets.Texts(lang)
			if err != nil {
				t.Fatal(err)
			}
			text, err := NewTexts(tx).Exec("learn.bubble.train", f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, want) || !strings.Contains(text, c.formula) {
				t.Errorf("%v %s: the bubble page lacks %q or %q:\n%s", c.s, lang, want, c.formula, text)
			}
		}
	}
}
