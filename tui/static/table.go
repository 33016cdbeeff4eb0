package static

import (
	"io"
	"strings"
	"unicode/utf8"
)

// errWriter remembers the first write error so that renderers can write freely and report it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) line(s string) {
	_, _ = io.WriteString(e, s+"\n")
}

// table aligns cells in columns, numbers flush right; widths count runes so that "µs" and "×"
// line up. The last column is not padded.
type table struct {
	indent string
	right  []bool // per column; missing columns align left
	rows   [][]string
}

func newTable(indent string, right ...bool) *table { return &table{indent: indent, right: right} }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w *errWriter) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		b.WriteString(t.indent)
		for i, c := range r {
			pad := widths[i] - utf8.RuneCountInString(c)
			last := i == len(r)-1
			if i < len(t.right) && t.right[i] {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(c)
			} else {
				b.WriteString(c)
				if !last {
					b.WriteString(strings.Repeat(" ", pad))
				}
			}
			if !last {
				b.WriteString("  ")
			}
		}
		w.line(strings.TrimRight(b.String(), " "))
	}
}
