// Package static renders splitscope's results as plain text for a terminal or a pipe: the report
// of one scenario, the ranked layouts of a search and the embedded presets. Every renderer is a
// pure function of its arguments that writes to an io.Writer; nothing here queries the terminal.
package static

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// na is shown for a number that is not finite.
const na = "n/a"

// roundSig rounds x to sig significant digits.
func roundSig(x float64, sig int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(sig-1-int(math.Floor(math.Log10(math.Abs(x))))))
	return math.Round(x*p) / p
}

// sig3 formats a value already scaled to its unit with three significant digits:
// "812", "12.3", "4.21".
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

type unit struct {
	scale float64 // x / scale is the number shown
	from  float64 // the unit applies from this x on; 0 means scale
	name  string
}

func (u unit) start() float64 {
	if u.from > 0 {
		return u.from
	}
	return u.scale
}

// scaled formats |x| with the largest unit it reaches and three significant digits, moving to the
// next unit when rounding reaches it, so that 999.7 µs reads "1.00 ms", not "1000 µs".
// units are ascending.
func scaled(x float64, units []unit, zero string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return na
	}
	if x == 0 {
		return zero
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	i := 0
	for j := 1; j < len(units); j++ {
		if x >= units[j].start() {
			i = j
		}
	}
	v := roundSig(x/units[i].scale, 3)
	if i+1 < len(units) && v*units[i].scale >= units[i+1].start() {
		i++
		v = roundSig(x/units[i].scale, 3)
	}
	return sign + sig3(v) + " " + units[i].name
}

var secondUnits = []unit{{1e-9, 0, "ns"}, {1e-6, 0, "µs"}, {1e-3, 0, "ms"}, {1, 0, "s"}, {60, 120, "min"}, {3600, 7200, "h"}}

// Seconds formats a duration in seconds with three significant digits and a unit from ns to h:
// "812 µs", "12.3 ms", "4.21 s", "2.50 min".
func Seconds(x float64) string { return scaled(x, secondUnits, "0 s") }

// Millis formats a duration in seconds as milliseconds without a unit, for table columns
// headed "ms": "12.3", "0.81", "1520".
func Millis(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return na
	}
	if x == 0 {
		return "0"
	}
	return sig3(roundSig(x*1e3, 3))
}

var byteUnits = []unit{{1, 0, "B"}, {1 << 10, 0, "KiB"}, {1 << 20, 0, "MiB"}, {1 << 30, 0, "GiB"}, {1 << 40, 0, "TiB"}, {1 << 50, 0, "PiB"}}

// Bytes formats a size in binary units with three significant digits: "37.5 GiB", "812 MiB".
func Bytes(x float64) string {
	if !math.IsNaN(x) && math.Abs(x) < 1024 {
		r := math.Round(x)
		if r == 0 {
			return "0 B"
		}
		return strconv.FormatFloat(r, 'f', 0, 64) + " B"
	}
	return scaled(x, byteUnits, "0 B")
}

var flopUnits = []unit{{1, 0, "FLOP/s"}, {1e3, 0, "kFLOP/s"}, {1e6, 0, "MFLOP/s"}, {1e9, 0, "GFLOP/s"}, {1e12, 0, "TFLOP/s"}, {1e15, 0, "PFLOP/s"}, {1e18, 0, "EFLOP/s"}}

// FLOPS formats a rate in FLOP per second with decimal prefixes: "412 TFLOP/s", "1.98 PFLOP/s".
func FLOPS(x float64) string { return scaled(x, flopUnits, "0 FLOP/s") }

var bandwidthUnits = []unit{{1, 0, "B/s"}, {1e3, 0, "kB/s"}, {1e6, 0, "MB/s"}, {1e9, 0, "GB/s"}, {1e12, 0, "TB/s"}}

// Bandwidth formats bytes per second with decimal prefixes, as vendors quote links and HBM:
// "3.35 TB/s", "450 GB/s".
func Bandwidth(x float64) string { return scaled(x, bandwidthUnits, "0 B/s") }

var countUnits = []unit{{1, 0, ""}, {1e3, 0, "k"}, {1e6, 0, "M"}, {1e9, 0, "G"}, {1e12, 0, "T"}}

// Count formats a plain quantity with a decimal prefix: "812", "18.4 k", "1.23 M".
func Count(x float64) string {
	return strings.TrimSuffix(scaled(x, countUnits, "0"), " ")
}

// Percent formats a fraction (0.123) as a percentage with one decimal: "12.3%".
func Percent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return na
	}
	s := strconv.FormatFloat(f*100, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	return s + "%"
}

// Ints formats a list of GPU ids compactly: "0-7", "0, 2, 4", "8-11, 16".
func Ints(v []int) string {
	if len(v) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(v[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(v[i]), strconv.Itoa(v[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Thousands writes a count with thousands separators: 1234567 → "1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
