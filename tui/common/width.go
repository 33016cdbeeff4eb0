package common

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Cell widths, fast. The explorer measures every line of every frame to pad and cut it (a served
// class draws 1,500 frames a second); ansi.StringWidth segments graphemes, which came to a
// quarter of the server's time. The runes the explorer draws (Latin text with its accents,
// punctuation, arrows, mathematical signs, box drawing, blocks) are one cell each: Width counts
// them in one pass over the bytes, skipping CSI escapes, and hands any line holding another rune
// or escape (a wide character, an emoji, a hyperlink) to ansi.StringWidth whole.

// Width is the cells s takes on one line, as ansi.StringWidth counts them.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b >= 0x20 && b < 0x7f:
			n++
			i++
			continue
		case b == 0x1b:
			if i+1 >= len(s) || s[i+1] != '[' {
				return ansi.StringWidth(s)
			}
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) { // parameters, up to the final byte
				i++
			}
			i++
			continue
		case b < 0x80:
			return ansi.StringWidth(s) // a control character
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !Narrow(r) {
			return ansi.StringWidth(s)
		}
		n++
		i += size
	}
	return n
}

// Narrow reports whether r is one of the runes Width counts as one cell itself: printable Latin
// and its accented letters, general punctuation, arrows, mathematical operators, box drawing,
// blocks and the geometric shapes before the wide ones (TestNarrowAgreesWithAnsi checks every
// one against ansi.StringWidth).
func Narrow(r rune) bool {
	switch {
	case r >= 0x20 && r < 0x7f, r >= 0xa0 && r < 0x300 && r != 0xad:
		return true
	case r >= 0x2010 && r < 0x2028, r >= 0x2030 && r < 0x205f, r >= 0x2190 && r < 0x2300, r >= 0x2500 && r < 0x25fd:
		return true
	}
	return false
}

// Cut is s cut to at most w cells; s itself when it fits (the common case, measured fast).
func Cut(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, max(w, 0), "")
}
