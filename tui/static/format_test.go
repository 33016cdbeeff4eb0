package static

import (
	"math"
	"testing"
)

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0 s"},
		{812e-6, "812 µs"},
		{12.34e-3, "12.3 ms"},
		{4.2149, "4.21 s"},
		{4.2151, "4.22 s"},
		{37, "37.0 s"},
		{119, "119 s"},
		{150, "2.50 min"},
		{9000, "2.50 h"},
		{999.7e-6, "1.00 ms"}, // rounds into the next unit
		{999.4e-6, "999 µs"},
		{1.5e-9, "1.50 ns"},
		{-0.25, "-250 ms"},
		{math.NaN(), "n/a"},
		{math.Inf(1), "n/a"},
	} {
		if got := Seconds(tc.in); got != tc.want {
			t.Errorf("Seconds(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{12.34e-3, "12.3"},
		{0.81e-3, "0.81"},
		{1.5204, "1520"},
		{math.NaN(), "n/a"},
	} {
		if got := Millis(tc.in); got != tc.want {
			t.Errorf("Millis(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0 B"},
		{0.4, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1536, "1.50 KiB"},
		{812 << 20, "812 MiB"},
		{37.5 * gib, "37.5 GiB"},
		{80 * gib, "80.0 GiB"},
		{141 * gib, "141 GiB"},
		{2048 * gib, "2.00 TiB"},
		{-12.34 * gib, "-12.3 GiB"},
		{math.Inf(1), "n/a"},
	} {
		if got := Bytes(tc.in); got != tc.want {
			t.Errorf("Bytes(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFLOPS(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0 FLOP/s"},
		{412e12, "412 TFLOP/s"},
		{989.4e12, "989 TFLOP/s"},
		{1979e12, "1.98 PFLOP/s"},
		{45.6e9, "45.6 GFLOP/s"},
		{math.NaN(), "n/a"},
	} {
		if got := FLOPS(tc.in); got != tc.want {
			t.Errorf("FLOPS(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBandwidth(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{3.35e12, "3.35 TB/s"},
		{450e9, "450 GB/s"},
		{25e9, "25.0 GB/s"},
	} {
		if got := Bandwidth(tc.in); got != tc.want {
			t.Errorf("Bandwidth(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{812, "812"},
		{18421, "18.4 k"},
		{1.234e6, "1.23 M"},
		{7.5, "7.50"},
	} {
		if got := Count(tc.in); got != tc.want {
			t.Errorf("Count(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0%"},
		{0.123, "12.3%"},
		{0.12345, "12.3%"},
		{1, "100.0%"},
		{-0.0001, "0.0%"},
		{math.NaN(), "n/a"},
	} {
		if got := Percent(tc.in); got != tc.want {
			t.Errorf("Percent(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInts(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, "-"},
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, "0-7"},
		{[]int{0, 1}, "0, 1"},
		{[]int{0, 2, 4}, "0, 2, 4"},
		{[]int{8, 9, 10, 11, 16}, "8-11, 16"},
	} {
		if got := Ints(tc.in); got != tc.want {
			t.Errorf("Ints(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
