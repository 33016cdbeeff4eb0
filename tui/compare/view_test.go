package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// sizes are the golden sizes: narrow, standard and wide.
var sizes = [][2]int{{56, 16}, {120, 34}, {196, 52}}

// loaded returns a pane showing Build's comparison of s.
func loaded(tb testing.TB, s model.Scenario) *Model {
	tb.Helper()
	r, err := costmodel.Evaluate(s)
	if err != nil {
		tb.Fatal(err)
	}
	m := New(theme.Default())
	m.SetData(common.Data{Scenario: s, Report: r})
	m.SetCompare(Build(s))
	return m
}

func TestViewGolden(t *testing.T) {
	cases := []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{
		{"infer-l40s", inferL40S},
		{"train-h100", trainH100},
		{"over-memory", overH100},
	}
	for _, tc := range cases {
		m := loaded(t, tc.s(t))
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m.SetSize(sz[0], sz[1])
				v := m.View()
				checkSize(t, v, sz[0], sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// checkSize fails unless v is exactly h lines of at most w cells.
func checkSize(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: %d lines, want %d", w, h, len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Fatalf("%d×%d: line %d is %d cells: %q", w, h, i, lw, l)
		}
	}
}

func BenchmarkViewCompare(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{{"infer-l40s", inferL40S}, {"train-h100", trainH100}} {
		m := loaded(b, tc.s(b))
		m.SetSize(196, 58)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    func(testing.TB) model.Scenario
	}{{"llama-3-70b-l40s-infer", inferL40S}, {"llama-2-13b-h100-train", trainH100}, {"llama-3-70b-h100-train-over", overH100}} {
		s := tc.s(b)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				_ = Build(s)
			}
		})
	}
}
