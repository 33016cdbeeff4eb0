package tensor

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// style indexes a palette built once from theme.Styles; 0 is unstyled.
type style uint8

const (
	stPlain style = iota
	stDim
	stBold
	stLabel
	stValue
	stAxis
	stCompute     // label inside a compute segment
	stComputeFill // GlyphCompute
	stComm
	stHighlight
	stWarn
	stOK
	stSub
	stError
	stCurve // the busbw curve
	stToday // today's message size on the curve
	numStyles
)

// cell is one terminal cell of the canvas.
type cell struct {
	r rune
	s style
}

// canvas is a w×h grid of cells; every write is clipped, so the rendering has exactly h lines of
// at most w cells by construction. Only single-width runes are written.
type canvas struct {
	w, h  int
	cells []cell
}

func (c *canvas) reset(w, h int) {
	c.w, c.h = w, h
	n := w * h
	if cap(c.cells) < n {
		c.cells = make([]cell, n)
	}
	c.cells = c.cells[:n]
	for i := range c.cells {
		c.cells[i] = cell{' ', stPlain}
	}
}

func (c *canvas) set(x, y int, r rune, s style) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	c.cells[y*c.w+x] = cell{r, s}
}

// fill writes n copies of r from x.
func (c *canvas) fill(x, y, n int, r rune, s style) {
	for i := 0; i < n; i++ {
		c.set(x+i, y, r, s)
	}
}

// text writes s from x and returns the column after it. Runes that are not one cell wide become
// '?', so the grid stays aligned.
func (c *canvas) text(x, y int, s string, st style) int {
	for _, r := range s {
		if r >= 0x80 && ansi.StringWidth(string(r)) != 1 {
			r = '?'
		}
		c.set(x, y, r, st)
		x++
	}
	return x
}

// span is a piece of styled text.
type span struct {
	s  string
	st style
}

// spans writes pieces one after another and returns the column after them.
func (c *canvas) spans(x, y int, ps ...span) int {
	for _, p := range ps {
		x = c.text(x, y, p.s, p.st)
	}
	return x
}

// textWidth is the width of a plain string in cells, counting each rune as one (as text writes it).
func textWidth(s string) int { return len([]rune(s)) }

// spansWidth is the width of pieces written with spans.
func spansWidth(ps []span) int {
	n := 0
	for _, p := range ps {
		n += textWidth(p.s)
	}
	return n
}

// wrap is a style's escape sequences around a text: what Render puts before and after it.
type wrap struct{ pre, post string }

// wraps renders each style once around a marker, so that render can wrap runs of cells without
// calling lipgloss for each (our styles only set colours and attributes: no padding, borders or
// widths). Done per view, so a change of colour profile or background shows at once.
func wraps(pal *[numStyles]lipgloss.Style, plain *[numStyles]bool) (out [numStyles]wrap) {
	for i := range pal {
		if plain[i] {
			continue
		}
		r := pal[i].Render("x")
		if j := strings.IndexByte(r, 'x'); j >= 0 {
			out[i] = wrap{r[:j], r[j+1:]}
		}
	}
	return out
}

// render turns the grid into h lines; runs of one style are wrapped together and trailing
// unstyled blanks are dropped.
func (c *canvas) render(pal *[numStyles]lipgloss.Style, plain *[numStyles]bool) string {
	ws := wraps(pal, plain)
	var b strings.Builder
	b.Grow(c.w*c.h*3 + c.h)
	for y := 0; y < c.h; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		row := c.cells[y*c.w : (y+1)*c.w]
		end := len(row)
		for end > 0 && row[end-1].r == ' ' && row[end-1].s == stPlain {
			end--
		}
		for x := 0; x < end; {
			s := row[x].s
			b.WriteString(ws[s].pre)
			for ; x < end && row[x].s == s; x++ {
				b.WriteRune(row[x].r)
			}
			b.WriteString(ws[s].post)
		}
	}
	return b.String()
}
