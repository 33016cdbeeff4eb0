package assets

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Error is one problem in a preset file: a bad field of a row, or a file that cannot be read.
type Error struct {
	File string // path inside the file system, e.g. "presets/gpus.yaml"
	// Row is the row's index in the file's list, counting from 0; -1 for a problem with the file
	// as a whole.
	Row   int
	Line  int    // line in the file of the bad value (of the row if the field is missing); 0 if unknown
	ID    string // the row's id, if it has a readable one
	Field string // the file's field name; "" for problems not tied to one field
	Value string // the value as written; "" when the field is missing
	Msg   string // what is wrong or what is allowed
}

// Error formats the problem as
// "assets: FILE row N (line L, id ID): FIELD = VALUE: MSG", leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("assets: ")
	b.WriteString(e.File)
	switch {
	case e.Row >= 0:
		fmt.Fprintf(&b, " row %d (line %d", e.Row, e.Line)
		if e.ID != "" {
			fmt.Fprintf(&b, ", id %s", e.ID)
		}
		b.WriteString(")")
	case e.Line > 0:
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		if e.Value != "" {
			b.WriteString(" = ")
			b.WriteString(oneLine(e.Value))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// oneLine is a value as it reads on one line of a message: quoted (Go's escapes) when it holds a
// line break or another control character, so that every problem stays one line of its own.
func oneLine(v string) string {
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return strconv.Quote(v)
	}
	return v
}

// Errors is every problem found while loading presets, in file and row order.
type Errors []*Error

// Error puts each problem on its own line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.As and errors.Is access to each *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
