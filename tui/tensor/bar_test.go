package tensor

import (
	"math"
	"slices"
	"testing"
)

func TestSegmentCols(t *testing.T) {
	tests := []struct {
		name string
		durs []float64
		cols int
		want []int
	}{
		{"halves", []float64{1, 1}, 10, []int{5, 5}},
		{"quarter", []float64{1, 3}, 8, []int{2, 6}},
		{"tiny segments keep one column", []float64{0.01, 10, 0.01}, 10, []int{1, 8, 1}},
		{"zero stays zero", []float64{0, 5}, 4, []int{0, 4}},
		{"largest remainder", []float64{1, 1, 1}, 10, []int{4, 3, 3}},
		{"fewer columns than segments: longest win", []float64{1, 3, 2}, 2, []int{0, 1, 1}},
		{"no columns", []float64{1, 2, 3}, 0, []int{0, 0, 0}},
		{"nothing to draw", []float64{0, 0}, 5, []int{0, 0}},
		{"NaN and Inf are nothing", []float64{math.NaN(), 2, math.Inf(1)}, 5, []int{0, 5, 0}},
		{"NVLink forward at 70 columns", []float64{187, 260, 340, 260}, 70, []int{13, 17, 23, 17}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := segmentCols(tc.durs, tc.cols); !slices.Equal(got, tc.want) {
				t.Errorf("segmentCols(%v, %d) = %v, want %v", tc.durs, tc.cols, got, tc.want)
			}
		})
	}
	// Always exactly cols, and at least one column per nonzero segment when there is room.
	durs := []float64{1e-6, 3, 0, 0.2, 7, 1e-3}
	for cols := 0; cols <= 200; cols++ {
		got := segmentCols(durs, cols)
		sum := 0
		for i, c := range got {
			sum += c
			if cols >= 5 && durs[i] > 0 && c < 1 {
				t.Errorf("cols=%d: segment %d got no column: %v", cols, i, got)
			}
		}
		if want := min(cols, 200); sum != want {
			t.Errorf("cols=%d: columns sum to %d: %v", cols, sum, got)
		}
	}
}

func TestBarCols(t *testing.T) {
	tests := []struct {
		total, max float64
		width      int
		want       int
	}{
		{1, 1, 80, 80},
		{1.05, 1.57, 100, 67},
		{1e-9, 1, 80, 1}, // nonzero shows
		{0, 1, 80, 0},
		{2, 1, 80, 80}, // never past the width
		{1, 0, 80, 0},
		{1, 1, 0, 0},
	}
	for _, tc := range tests {
		if got := barCols(tc.total, tc.max, tc.width); got != tc.want {
			t.Errorf("barCols(%g, %g, %d) = %d, want %d", tc.total, tc.max, tc.width, got, tc.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	tests := []struct {
		span  float64
		ticks int
		want  float64
	}{
		{1.57e-3, 10, 200e-6},
		{1.57e-3, 16, 100e-6},
		{104e-6, 5, 50e-6},
		{1, 1, 1},
		{0, 5, 0},
		{1, 0, 0},
	}
	for _, tc := range tests {
		if got := niceStep(tc.span, tc.ticks); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("niceStep(%g, %d) = %g, want %g", tc.span, tc.ticks, got, tc.want)
		}
	}
}
