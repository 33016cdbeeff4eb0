package learn

import (
	"regexp"
	"slices"
	"strings"
)

// A language writes numbers its own way: the texts' "numbers" keys (assets/text/<lang>.yaml) give
// its decimal mark, how it writes a percentage and its unit symbols, and Texts.Exec writes every
// number of a text that way, the Facts' and the template's own. English keeps the renderers'
// form ("4.67 s", "8.2%", "72.0 GiB"); French writes "4,67 s", "8,2 %", "72,0 Gio", "450 Go/s".

// numberFormat is one language's way of writing numbers; the zero value changes nothing.
type numberFormat struct {
	decimal string            // the decimal mark, "" or "." for a point
	percent string            // what follows a percentage's number, "" or "%" for "%" glued
	units   map[string]string // unit symbol → the language's, "GiB" → "Gio"
	unitRE  *regexp.Regexp    // a number, a space and one of the units
}

// Keys of the texts that set the number format.
const (
	keyDecimal = "numbers.decimal"
	keyPercent = "numbers.percent"
	keyUnits   = "numbers.units"
)

// newNumberFormat reads the format from the texts: numbers.units is "GiB=Gio MiB=Mio …".
func newNumberFormat(src map[string]string) numberFormat {
	f := numberFormat{decimal: src[keyDecimal], percent: src[keyPercent]}
	if f.decimal == "." {
		f.decimal = ""
	}
	if f.percent == "%" {
		f.percent = ""
	}
	var names []string
	for _, pair := range strings.Fields(src[keyUnits]) {
		from, to, ok := strings.Cut(pair, "=")
		if !ok || from == "" || to == "" {
			continue
		}
		if f.units == nil {
			f.units = map[string]string{}
		}
		f.units[from] = to
		names = append(names, regexp.QuoteMeta(from))
	}
	if len(names) > 0 {
		// Longest first, so that "GiB" is not read as "B"; a unit ends before a letter or a digit.
		slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
		f.unitRE = regexp.MustCompile(`(\d[ \x{00a0}])(` + strings.Join(names, "|") + `)(/s)?([^\pL\pN]|$)`)
	}
	return f
}

// decimalRE is a number with a decimal point, not inside a name ("qwen2.5-72b", "llama-3.1-8b"):
// nothing but a space or punctuation before it.
var decimalRE = regexp.MustCompile(`(^|[^\pL\pN_.\-])(\d+)\.(\d+)`)

// percentRE is a percentage's sign after its number.
var percentRE = regexp.MustCompile(`(\d)%`)

// ansiRE is an escape sequence of the styles, left as it is.
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;:]*[A-Za-z]")

func (f numberFormat) identity() bool { return f.decimal == "" && f.percent == "" && f.unitRE == nil }

// apply writes the numbers of text in the format; the escape sequences of styled text are kept.
func (f numberFormat) apply(text string) string {
	if f.identity() || text == "" {
		return text
	}
	var b strings.Builder
	at := 0
	for _, loc := range ansiRE.FindAllStringIndex(text, -1) {
		b.WriteString(f.plain(text[at:loc[0]]))
		b.WriteString(text[loc[0]:loc[1]])
		at = loc[1]
	}
	b.WriteString(f.plain(text[at:]))
	return b.String()
}

// plain is apply on text without escape sequences.
func (f numberFormat) plain(s string) string {
	if s == "" {
		return s
	}
	if f.decimal != "" {
		s = decimalRE.ReplaceAllString(s, "${1}${2}"+f.decimal+"${3}")
	}
	if f.percent != "" {
		s = percentRE.ReplaceAllString(s, "${1}"+f.percent)
	}
	if f.unitRE != nil {
		s = f.unitRE.ReplaceAllStringFunc(s, func(m string) string {
			g := f.unitRE.FindStringSubmatch(m)
			return g[1] + f.units[g[2]] + g[3] + g[4]
		})
	}
	return s
}

// Numbers writes the numbers of a text (a number and its unit, a percentage) in the language's
// format, as Exec does: for the lines the explorer builds itself beside the texts.
func (t *Texts) Numbers(s string) string {
	if t == nil {
		return s
	}
	return t.nums.apply(s)
}

// Unit is a unit symbol in the language: "GiB" → "Gio" in French.
func (t *Texts) Unit(u string) string {
	if t != nil {
		if v, ok := t.nums.units[u]; ok {
			return v
		}
	}
	return u
}
