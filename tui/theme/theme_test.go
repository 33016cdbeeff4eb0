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

// The presentation theme sets every style the panes use (a zero style would print plain text
// where a colour carries meaning) and keeps text bold.
func TestHighContrastIsComplete(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	st := HighContrast()
	named := map[string]lipgloss.Style{
		"Title": st.Title, "Bold": st.Bold, "Error": st.Error, "Warn": st.Warn, "OK": st.OK, "Tab": st.Tab,
		"TabActive": st.TabActive, "Label": st.Label, "Axis": st.Axis, "F": st.F, "B": st.B, "W": st.W,
		"Comm": st.Comm, "Compute": st.Compute, "Memory": st.Memory, "P2P": st.P2P, "Playhead": st.Playhead,
		"Highlight": st.Highlight, "Winner": st.Winner, "Over": st.Over, "Prefill": st.Prefill, "Decode": st.Decode,
		"Series0": st.Series[0], "Series1": st.Series[1],
	}
	for i, p := range st.MemParts {
		named["MemPart"+string(rune('0'+i))] = p
	}
	for name, s := range named {
		if s.Render("x") == "x" {
			t.Errorf("%s renders plain", name)
		}
		if !s.GetBold() {
			t.Errorf("%s is not bold", name)
		}
	}
	if st.PaneFocused.GetBorderStyle() != lipgloss.ThickBorder() {
		t.Error("pane borders should be thick")
	}
}
