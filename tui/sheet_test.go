package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
)

// TestSheetWrapsNothingCut: a served session's scenario sheet wraps long lines instead of
// cutting them, each within the width, and the lines copied from the screen read back as the
// same scenario file.
func TestSheetWrapsNothingCut(t *testing.T) {
	s, p := testScenario(t)
	file := assets.MarshalScenario(s, "a title long enough to wrap: "+strings.Repeat("word ", 20)+"and the end")
	want, err := assets.ParseScenario("want.yaml", file, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{30, 56, 78} {
		lines := sheetLines(strings.Split(strings.TrimRight(string(file), "\n"), "\n"), w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: a line of %d cells: %q", w, ansi.StringWidth(l), l)
			}
		}
		got, err := assets.ParseScenario("copied.yaml", []byte(strings.Join(lines, "\n")+"\n"), p)
		if err != nil {
			t.Fatalf("width %d: the copied sheet does not parse: %v\n%s", w, err, strings.Join(lines, "\n"))
		}
		if got.Scenario.Layout != want.Scenario.Layout || got.Scenario.Arch.ID != want.Scenario.Arch.ID || got.Title != want.Title {
			t.Errorf("width %d: copied %q %+v, want %q %+v", w, got.Title, got.Scenario.Layout, want.Title, want.Scenario.Layout)
		}
	}
	// A word wider than the line is cut across lines, every character kept.
	long := strings.Repeat("x", 50)
	lines := sheetLines([]string{"title: " + long}, 20)
	joined := ""
	for i, l := range lines {
		if ansi.StringWidth(l) > 20 {
			t.Errorf("a line of %d cells: %q", ansi.StringWidth(l), l)
		}
		if i > 0 {
			l = strings.TrimPrefix(l, "  ")
		}
		joined += l
	}
	if strings.Count(joined, "x") != 50 {
		t.Errorf("the long word lost characters: %q", lines)
	}
}
