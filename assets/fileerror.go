package assets

import (
	"fmt"
	"strconv"
	"strings"
)

// FileError is a problem with a file of another tool's output (a benchmark result, a training
// log): the file, the line (0 when the file as a whole), the field ("" when none; a JSON path
// or a log's label), the value as written and what is wrong. It reads
// "FILE:LINE: FIELD = VALUE: MSG", leaving out what is unknown.
type FileError struct {
	File  string
	Line  int
	Field string
	Value string
	Msg   string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		if e.Value != "" {
			b.WriteString(" = ")
			b.WriteString(Clip(e.Value))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Clip keeps a value short and on one line in a message: its words joined by single spaces, at
// most 60 characters, escaped as in a Go string.
func Clip(v string) string {
	rs := []rune(strings.Join(strings.Fields(v), " "))
	if len(rs) > 60 {
		rs = append(rs[:57], '…')
	}
	q := strconv.Quote(string(rs))
	return q[1 : len(q)-1]
}
