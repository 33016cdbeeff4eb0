package theme

import (
	"io"
	"reflect"
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

// Colours converted once for a 256- or 16-colour terminal draw exactly what lipgloss' own
// conversion at each Render draws, on dark and light backgrounds, in both themes.
func TestResolvedColoursRenderAlike(t *testing.T) {
	for _, prof := range []termenv.Profile{termenv.ANSI256, termenv.ANSI, termenv.TrueColor, termenv.Ascii} {
		for _, dark := range []bool{true, false} {
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(prof)
			r.SetHasDarkBackground(dark)
			for name, pair := range map[string][2]Styles{
				"For":          {For(r), styles(r, c)},
				"HighContrast": {HighContrastFor(r), highContrast(r, c)},
			} {
				got, want := reflect.ValueOf(pair[0]), reflect.ValueOf(pair[1])
				var list func(v reflect.Value) []lipgloss.Style
				list = func(v reflect.Value) []lipgloss.Style {
					switch st, ok := v.Interface().(lipgloss.Style); {
					case ok:
						return []lipgloss.Style{st}
					case v.Kind() == reflect.Struct || v.Kind() == reflect.Array:
						var out []lipgloss.Style
						if v.Kind() == reflect.Struct {
							for i := range v.NumField() {
								out = append(out, list(v.Field(i))...)
							}
							return out
						}
						for i := range v.Len() {
							out = append(out, list(v.Index(i))...)
						}
						return out
					}
					return nil
				}
				gs, ws := list(got), list(want)
				if len(gs) != len(ws) || len(gs) < 30 {
					t.Fatalf("%d and %d styles", len(gs), len(ws))
				}
				coloured := 0
				for i := range gs {
					g, w := gs[i].Render("x y"), ws[i].Render("x y")
					if g != w {
						t.Errorf("%v dark %v, %s style %d: %q, want %q", prof, dark, name, i, g, w)
					}
					if w != "x y" {
						coloured++
					}
				}
				if prof != termenv.Ascii && coloured < 20 {
					t.Errorf("%v: only %d styles draw anything", prof, coloured)
				}
			}
		}
	}
}
