package boxtab

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapText(t *testing.T) {
	cases := []struct {
		text   string
		w, ind int
		want   []string
	}{
		{"short", 10, 2, []string{"short"}},
		{"then `splitscope --box box.json` here", 20, 0, []string{"then `splitscope", "--box box.json` here"}},
		{"aaa bbb ccc ddd", 8, 2, []string{"aaa bbb", "  ccc", "  ddd"}},
		{"abcdefghijkl", 5, 0, []string{"abcde", "fghij", "kl"}},
		{"x abcdefghij", 6, 0, []string{"x", "abcdef", "ghij"}},
	}
	for _, tc := range cases {
		got := wrapText(tc.text, tc.w, tc.ind)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapText(%q, %d, %d) = %q, want %q", tc.text, tc.w, tc.ind, got, tc.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tc.w {
				t.Errorf("wrapText(%q, %d): line %q too wide", tc.text, tc.w, l)
			}
		}
	}
	for w := 1; w < 30; w++ {
		for _, l := range wrapText("best layout for llama-2-7b here (training): TP=2 PP=2 · step 23.7 s", w, 2) {
			if ansi.StringWidth(l) > w {
				t.Errorf("w=%d: %q", w, l)
			}
		}
	}
}

func TestArrangeKeepsPriorities(t *testing.T) {
	secs := []section{
		{lines: []string{"head"}, prio: 100},
		{lines: []string{"t1", "t2", "t3"}, prio: 90, cut: true},
		{lines: []string{"topo"}, prio: 60},
		{lines: []string{"legend"}, prio: 40, attached: true, parent: 2},
		{lines: []string{"cap"}, prio: 85},
		{lines: []string{"hint"}, prio: 10},
	}
	cases := []struct {
		h    int
		want string
	}{
		{20, "head||t1|t2|t3||topo|legend||cap||hint"},
		{11, "head||t1|t2|t3||topo|legend||cap"},
		{7, "head|t1|t2|t3|topo|legend|cap"},
		{6, "head|t1|t2|t3|topo|cap"},
		{3, "head|t1|t2"},
		{1, "head"},
	}
	for _, tc := range cases {
		cp := make([]section, len(secs))
		copy(cp, secs)
		if got := strings.Join(arrange(cp, tc.h), "|"); got != tc.want {
			t.Errorf("h=%d: %q, want %q", tc.h, got, tc.want)
		}
	}
}
