// Package theme builds the explorer's styles once. Colours adapt to light and dark terminals;
// with NO_COLOR (or the Ascii profile) every distinction also has a glyph, so nothing depends on
// colour alone.
package theme

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Glyphs tell op kinds and states apart without colour.
const (
	GlyphF      = 'F'
	GlyphB      = 'B'
	GlyphW      = 'W'
	GlyphBubble = '·'
	GlyphComm   = '≈'
	GlyphP2P    = '›'
	GlyphPlay   = '│'
	// GlyphCompute fills compute segments drawn to scale (style ComputeFill).
	GlyphCompute = '█'
	// Inference ops: engine steps with prompt chunks, and decode-only steps.
	GlyphPrefill = 'P'
	GlyphDecode  = 'D'
	// GlyphFold marks lanes folded away because they do not fit.
	GlyphFold = '⋮'
)

// Styles is every style the explorer uses.
type Styles struct {
	// Plain sets nothing: the base for a style made on the fly (a border's colour), so that it
	// keeps this set's renderer.
	Plain                                       lipgloss.Style
	Title, Subtitle, Dim, Bold, Error, Warn, OK lipgloss.Style
	Pane, PaneFocused                           lipgloss.Style
	Tab, TabActive                              lipgloss.Style
	Label, Value, ValueSelected, ValueError     lipgloss.Style
	Axis                                        lipgloss.Style
	// Op kinds and segments.
	F, B, W, Bubble, Comm, Compute, Memory, P2P lipgloss.Style
	Playhead, Highlight, Winner                 lipgloss.Style
	// Inference ops: prefill (a forward pass over the prompt) and decode steps.
	Prefill, Decode lipgloss.Style
	// ComputeFill draws GlyphCompute in the compute colour, so a bar of compute reads as solid
	// colour with labels (style Compute) inside it, and as '█' without colour.
	ComputeFill lipgloss.Style
	// Memory bars: weights, gradients, optimizer, activations, KV cache, reserve.
	MemParts [6]lipgloss.Style
	Over     lipgloss.Style
	// Series tells the lines of a chart apart: TP-only, then PP-only (each also has its glyph).
	Series [2]lipgloss.Style
}

func c(light, dark string) lipgloss.AdaptiveColor {
	return lipgloss.AdaptiveColor{Light: light, Dark: dark}
}

// resolver converts a theme's colours to r's colour profile once, when the styles are built.
// lipgloss converts a hex colour at every Render, and for 256 or 16 colours termenv then
// searches its palette for the nearest colour in HSLuv: a served class of xterm-256color
// sessions spent a tenth of its frames there. An ANSI number converts for free. True colour
// and no colour stay as they are (nothing to search; and a profile lowered later, NO_COLOR,
// still strips them).
func resolver(r *lipgloss.Renderer) func(light, dark string) lipgloss.AdaptiveColor {
	p := r.ColorProfile()
	if p != termenv.ANSI256 && p != termenv.ANSI {
		return c
	}
	conv := func(hex string) string {
		switch col := p.Color(hex).(type) {
		case termenv.ANSI256Color:
			return strconv.Itoa(int(col))
		case termenv.ANSIColor:
			return strconv.Itoa(int(col))
		}
		return hex
	}
	return func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: conv(light), Dark: conv(dark)}
	}
}

// Default builds the explorer's styles for the process's terminal (lipgloss' default renderer).
func Default() Styles { return For(lipgloss.DefaultRenderer()) }

// For builds the explorer's styles for one renderer: its colour profile and background decide
// the escape sequences, so each SSH session of splitscope serve gets its own terminal's colours.
func For(r *lipgloss.Renderer) Styles { return styles(r, resolver(r)) }

// styles builds For's styles with colours made by c.
func styles(r *lipgloss.Renderer, c func(light, dark string) lipgloss.AdaptiveColor) Styles {
	fg := func(col lipgloss.AdaptiveColor) lipgloss.Style { return r.NewStyle().Foreground(col) }
	block := func(bg lipgloss.AdaptiveColor) lipgloss.Style {
		return r.NewStyle().Background(bg).Foreground(c("#000000", "#000000"))
	}
	accent := c("#5A3FD9", "#A78BFA")
	s := Styles{
		Plain:    r.NewStyle(),
		Title:    r.NewStyle().Bold(true).Foreground(c("#FFFFFF", "#FFFFFF")).Background(accent),
		Subtitle: fg(c("#555555", "#AAAAAA")),
		Dim:      fg(c("#999999", "#666666")),
		Bold:     r.NewStyle().Bold(true),
		Error:    fg(c("#C62828", "#FF6B6B")).Bold(true),
		Warn:     fg(c("#B26A00", "#FFB74D")),
		OK:       fg(c("#2E7D32", "#81C784")),
		Pane:     r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("#BBBBBB", "#444444")),
		PaneFocused: r.NewStyle().Border(lipgloss.RoundedBorder()).
			BorderForeground(accent),
		Tab:           r.NewStyle().Padding(0, 1).Foreground(c("#555555", "#AAAAAA")),
		TabActive:     r.NewStyle().Padding(0, 1).Bold(true).Underline(true).Foreground(accent),
		Label:         fg(c("#555555", "#AAAAAA")),
		Value:         r.NewStyle(),
		ValueSelected: r.NewStyle().Bold(true).Reverse(true),
		ValueError:    fg(c("#C62828", "#FF6B6B")).Bold(true),
		Axis:          fg(c("#777777", "#888888")),
		F:             block(c("#64B5F6", "#64B5F6")),
		B:             block(c("#81C784", "#81C784")),
		W:             block(c("#FFD54F", "#FFD54F")),
		Bubble:        fg(c("#BBBBBB", "#555555")),
		Comm:          block(c("#EF5350", "#EF5350")),
		Compute:       block(c("#64B5F6", "#64B5F6")),
		ComputeFill:   fg(c("#64B5F6", "#64B5F6")),
		Memory:        block(c("#B39DDB", "#B39DDB")),
		P2P:           fg(c("#EF5350", "#EF5350")),
		Playhead:      fg(accent).Bold(true),
		Highlight:     r.NewStyle().Bold(true).Reverse(true),
		Winner:        fg(c("#2E7D32", "#81C784")).Bold(true),
		Over:          fg(c("#C62828", "#FF6B6B")).Bold(true),
		Prefill:       block(c("#64B5F6", "#64B5F6")),
		Decode:        block(c("#4DB6AC", "#4DB6AC")),
	}
	parts := []string{"#64B5F6", "#81C784", "#FFD54F", "#FF8A65", "#BA68C8", "#90A4AE"}
	for i, p := range parts {
		s.MemParts[i] = block(c(p, p))
	}
	s.Series = [2]lipgloss.Style{fg(c("#1565C0", "#64B5F6")).Bold(true), fg(c("#E65100", "#FFB74D")).Bold(true)}
	return s
}

// Paint is a style's escape sequences, taken from one Render, to wrap many short runs of text
// without lipgloss measuring and padding each (Render is too slow for a chart of many cells).
// Only for styles that set colours and attributes: no width, padding, margins or borders.
type Paint struct{ pre, post string }

// NewPaint renders the style once around a probe and keeps what comes before and after it.
func NewPaint(s lipgloss.Style) Paint {
	const probe = "x"
	out := s.Render(probe)
	i := strings.Index(out, probe)
	if i < 0 {
		return Paint{}
	}
	return Paint{out[:i], out[i+len(probe):]}
}

// Wrap puts text inside the style's escape sequences.
func (p Paint) Wrap(s string) string {
	if p.pre == "" && p.post == "" {
		return s
	}
	return p.pre + s + p.post
}

// HighContrast builds the styles of presentation mode, for a projector: text in pure black or
// white (whichever the terminal's background is not), everything that carries meaning bold, op
// and memory blocks in saturated colours with bold black or white letters, and no faint text that
// a washed-out beamer would lose. The glyphs stay, so it still reads without colour.
func HighContrast() Styles { return HighContrastFor(lipgloss.DefaultRenderer()) }

// HighContrastFor builds presentation mode's styles for one renderer (see For).
func HighContrastFor(r *lipgloss.Renderer) Styles { return highContrast(r, resolver(r)) }

// highContrast builds HighContrastFor's styles with colours made by c.
func highContrast(r *lipgloss.Renderer, c func(light, dark string) lipgloss.AdaptiveColor) Styles {
	ink := c("#000000", "#FFFFFF")   // text: black on light terminals, white on dark ones
	paper := c("#FFFFFF", "#000000") // the opposite, for reversed title bars
	fg := func(col lipgloss.AdaptiveColor) lipgloss.Style { return r.NewStyle().Foreground(col).Bold(true) }
	block := func(bg, text string) lipgloss.Style {
		return r.NewStyle().Bold(true).Background(c(bg, bg)).Foreground(c(text, text))
	}
	accent := c("#0000CC", "#FFFF00") // deep blue on light, yellow on dark
	red := c("#CC0000", "#FF3333")
	s := Styles{
		Plain:       r.NewStyle(),
		Title:       r.NewStyle().Bold(true).Foreground(paper).Background(ink),
		Subtitle:    fg(ink),
		Dim:         r.NewStyle().Foreground(c("#444444", "#BBBBBB")),
		Bold:        fg(ink),
		Error:       fg(red),
		Warn:        fg(c("#B35900", "#FFA500")),
		OK:          fg(c("#006600", "#00FF00")),
		Pane:        r.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(ink),
		PaneFocused: r.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(accent),
		Tab:         r.NewStyle().Padding(0, 1).Bold(true).Foreground(ink),
		TabActive:   r.NewStyle().Padding(0, 1).Bold(true).Reverse(true).Foreground(accent),
		Label:       fg(ink),
		Value:       fg(ink),
		// Selected rows and highlights reverse, which any projector shows.
		ValueSelected: r.NewStyle().Bold(true).Reverse(true),
		ValueError:    fg(red).Underline(true),
		Axis:          fg(ink),
		F:             block("#0050FF", "#FFFFFF"),
		B:             block("#00B000", "#000000"),
		W:             block("#FFD000", "#000000"),
		Bubble:        r.NewStyle().Foreground(c("#666666", "#999999")),
		Comm:          block("#E00000", "#FFFFFF"),
		Compute:       block("#0050FF", "#FFFFFF"),
		ComputeFill:   r.NewStyle().Foreground(c("#0050FF", "#3D7BFF")),
		Memory:        block("#9000D0", "#FFFFFF"),
		P2P:           fg(red),
		Playhead:      fg(accent),
		Highlight:     r.NewStyle().Bold(true).Reverse(true),
		Winner:        fg(c("#006600", "#00FF00")).Underline(true),
		Over:          fg(red).Underline(true),
		Prefill:       block("#0050FF", "#FFFFFF"),
		Decode:        block("#00A0A0", "#000000"),
	}
	parts := [6][2]string{
		{"#0050FF", "#FFFFFF"}, {"#00B000", "#000000"}, {"#FFD000", "#000000"},
		{"#FF6000", "#000000"}, {"#C000FF", "#FFFFFF"}, {"#707070", "#FFFFFF"},
	}
	for i, p := range parts {
		s.MemParts[i] = block(p[0], p[1])
	}
	s.Series = [2]lipgloss.Style{fg(c("#0000CC", "#00C8FF")), fg(c("#CC4400", "#FFA500"))}
	return s
}
