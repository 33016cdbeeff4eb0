package theme

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestPaintMatchesRender(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	st := Default()
	styles := append([]lipgloss.Style{st.Dim, st.Over, st.Bold, st.F, st.B, st.W, st.Comm}, st.MemParts[:]...)
	for i, s := range styles {
		for _, text := range []string{"W", "AAAA", "··· x"} {
			if got, want := NewPaint(s).Wrap(text), s.Render(text); got != want {
				t.Errorf("style %d, %q: Paint %q, Render %q", i, text, got, want)
			}
		}
	}
	if NewPaint(st.MemParts[0]).Wrap("x") == "x" {
		t.Fatal("true colour gives no escape sequence")
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	if got := NewPaint(st.F).Wrap("F"); got != "F" {
		t.Errorf("Ascii profile: %q", got)
	}
}
