package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Every rune Narrow admits is one cell for ansi.StringWidth, alone and between others.
func TestNarrowAgreesWithAnsi(t *testing.T) {
	n := 0
	for r := rune(0); r < 0x3000; r++ {
		if !Narrow(r) {
			continue
		}
		n++
		if w := ansi.StringWidth(string(r)); w != 1 {
			t.Errorf("U+%04X %q: ansi.StringWidth %d, Narrow says 1", r, r, w)
		}
		if w := ansi.StringWidth("a" + string(r) + "b"); w != 3 {
			t.Errorf("U+%04X between letters: ansi.StringWidth %d, want 3", r, w)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d narrow runes", n)
	}
}

// Width agrees with ansi.StringWidth on the lines the explorer draws and on those it hands over
// (wide characters, emoji, hyperlinks, control characters), and Cut with ansi.Truncate.
func TestWidthAgreesWithAnsi(t *testing.T) {
	lines := []string{"", "plain", "模型 wide", "emoji ⌚ here", "e\u0301 combining", "soft\u00adhyphen", "tab\there",
		"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "\x1b[1mbold\x1b[0m ▚▚ · › │ ┬─ ⋮ × µ − é à ç ‖ ▶ …",
		"\x1b[38;5;141m╭──╮\x1b[m", "\x1b[1m", "cut \x1b[", "ÿ\x7f", "→ ≈ ≤ ≥ ± ÷ ¹ ² ³ ½ « » “ ” ‘ ’ • ‰"}
	for r := rune(0x2000); r < 0x2600; r += 7 {
		lines = append(lines, "x"+string(r)+"\x1b[2my")
	}
	for _, l := range lines {
		want := ansi.StringWidth(l)
		if got := Width(l); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth %d", l, got, want)
		}
		for _, w := range []int{0, want - 1, want, want + 1} {
			got, want := Cut(l, w), l
			if ansi.StringWidth(l) > w {
				want = ansi.Truncate(l, max(w, 0), "")
			}
			if got != want {
				t.Errorf("Cut(%q, %d) = %q, want %q", l, w, got, want)
			}
		}
	}
	if Width(strings.Repeat("│·", 50)) != 100 {
		t.Error("box drawing and dots")
	}
}
