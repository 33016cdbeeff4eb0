package export

import (
	"strings"
	"unicode/utf8"
)

// Text in the SVG is measured, not guessed, so that every line stays inside the 1600 px canvas:
// the picture names its font (fontFamily) and textWidth adds up that font's advance widths. A
// viewer without DejaVu Sans falls back to Verdana, as wide within a few per cent (widthSafety
// covers it), or to the generic sans-serif (Arial, Helvetica, Liberation Sans), all narrower.

// fontFamily is the SVG's font-family: the font whose metrics textWidth holds first.
const fontFamily = "DejaVu Sans, Verdana, sans-serif"

// widthSafety is the margin on top of DejaVu Sans's advance widths, for Verdana's wider space
// and r.
const widthSafety = 1.04

// asciiWidth holds the advance widths of DejaVu Sans (index 0) and DejaVu Sans Bold (index 1)
// for the printable ASCII characters ' ' to '~', in hundredths of an em, rounded up (measured
// from DejaVuSans.ttf and DejaVuSans-Bold.ttf, version 2.37).
var asciiWidth = [2][95]uint8{{
	32, 41, 46, 84, 64, 96, 78, 28, 40, 40, 50, 84, 32, 37, 32, 34, // ' ' to '/'
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 54, // '0' to '?'
	100, 69, 69, 70, 78, 64, 58, 78, 76, 30, 30, 66, 56, 87, 75, 79, // '@' to 'O'
	61, 79, 70, 64, 62, 74, 69, 99, 69, 62, 69, 40, 34, 40, 84, 50, // 'P' to '_'
	50, 62, 64, 55, 64, 62, 36, 64, 64, 28, 28, 58, 28, 98, 64, 62, // '`' to 'o'
	64, 64, 42, 53, 40, 64, 60, 82, 60, 60, 53, 64, 34, 64, 84, // 'p' to '~'
}, {
	35, 46, 53, 84, 70, 101, 88, 31, 46, 46, 53, 84, 38, 42, 38, 37,
	70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 40, 40, 84, 84, 84, 59,
	100, 78, 77, 74, 84, 69, 69, 83, 84, 38, 38, 78, 64, 100, 84, 86,
	74, 86, 78, 73, 69, 82, 78, 111, 78, 73, 73, 46, 37, 46, 84, 50,
	50, 68, 72, 60, 72, 68, 44, 72, 72, 35, 35, 67, 35, 105, 72, 69,
	72, 72, 50, 60, 48, 72, 66, 93, 65, 66, 59, 72, 37, 72, 84,
}}

// otherWidth holds the same for the other characters the texts and numbers use (units, symbols,
// French letters). Any other character counts a full em, as wide as a CJK ideograph.
var otherWidth = map[rune][2]uint8{
	'µ': {64, 74}, '·': {32, 38}, '×': {84, 84}, 'α': {66, 69}, '—': {100, 100}, '…': {100, 100},
	'→': {84, 84}, '−': {84, 84}, '≈': {84, 84}, '≤': {84, 84}, '≥': {84, 84}, '★': {90, 90},
	'✓': {84, 84}, '✗': {84, 84}, '\u00a0': {32, 35}, '\u202f': {20, 20},
	'à': {62, 68}, 'â': {62, 68}, 'ç': {55, 60}, 'è': {62, 68}, 'é': {62, 68}, 'ê': {62, 68},
	'ë': {62, 68}, 'î': {28, 35}, 'ï': {28, 35}, 'ô': {62, 69}, 'ù': {64, 72}, 'û': {64, 72},
	'ü': {64, 72}, 'œ': {103, 110}, 'À': {69, 78}, 'Â': {69, 78}, 'Ç': {70, 74}, 'É': {64, 69},
	'È': {64, 69}, 'Ê': {64, 69}, 'Î': {30, 38}, 'Ô': {79, 86},
}

// textWidth is the width of s in px at font size px, bold or not, in fontFamily.
func textWidth(s string, size float64, bold bool) float64 {
	w := 0
	for _, r := range s {
		w += runeWidth(r, bold)
	}
	return em(w, size)
}

// runeWidth is r's advance width in hundredths of an em.
func runeWidth(r rune, bold bool) int {
	face := 0
	if bold {
		face = 1
	}
	if r >= ' ' && r <= '~' {
		return int(asciiWidth[face][r-' '])
	}
	if o, ok := otherWidth[r]; ok {
		return int(o[face])
	}
	return 100
}

// em converts hundredths of an em to px at font size px, with the safety margin.
func em(w int, size float64) float64 { return float64(w) / 100 * size * widthSafety }

// ellipsis ends a text cut to fit.
const ellipsis = "…"

// ellipsize is s, or its longest prefix followed by "…" that fits in width; "" when not even
// "…" fits.
func ellipsize(s string, size float64, bold bool, width float64) string {
	if textWidth(s, size, bold) <= width {
		return s
	}
	room := width - textWidth(ellipsis, size, bold)
	if room < 0 {
		return ""
	}
	end, w := 0, 0
	for i, r := range s {
		w += runeWidth(r, bold)
		if em(w, size) > room {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	return strings.TrimRight(s[:end], " ") + ellipsis
}

// wrap breaks s at spaces (not at no-break ones) into lines that each fit in width; a word wider
// than width on its own is ellipsized.
func wrap(s string, size float64, bold bool, width float64) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Split(s, " ") {
		switch {
		case w == "":
		case cur == "":
			cur = w
		case textWidth(cur+" "+w, size, bold) <= width:
			cur += " " + w
		default:
			lines = append(lines, ellipsize(cur, size, bold, width))
			cur = w
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, ellipsize(cur, size, bold, width))
	}
	return lines
}

// lineHeight is the distance between the baselines of wrapped lines at font size px.
func lineHeight(size float64) float64 { return size * 1.3 }

// para writes s with its first baseline at y within width: on one line at the largest size
// from o.size down to minSize at which it fits, else wrapped at o.size. It returns the last
// line's baseline.
func (c *svgCanvas) para(x, y, width float64, o textOpt, minSize float64, s string) float64 {
	bold := o.weight == "bold"
	if textWidth(s, minSize, bold) <= width {
		o.size = fitSize(s, o.size, minSize, width, bold)
	}
	return c.lines(x, y, o, wrap(s, o.size, bold, width))
}

// lines writes lines one under the other from baseline y and returns the last baseline.
func (c *svgCanvas) lines(x, y float64, o textOpt, lines []string) float64 {
	for i, l := range lines {
		if i > 0 {
			y += lineHeight(o.size)
		}
		c.text(x, y, o, l)
	}
	return y
}

// fitSize is the largest font size ≤ size (and ≥ minSize, in steps of 0.5) at which s fits in
// width.
func fitSize(s string, size, minSize, width float64, bold bool) float64 {
	for size > minSize && textWidth(s, size, bold) > width {
		size = max(size-0.5, minSize)
	}
	return size
}
