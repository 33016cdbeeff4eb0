package schedule

import (
	"fmt"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// benchTrain is a step with slightly uneven stages and p2p, as Search would pass.
func benchTrain(s model.Schedule, p, v, m int, record bool) Train {
	n := p * v
	in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m, Record: record,
		F: make([]float64, n), B: make([]float64, n), W: make([]float64, n), P2P: make([]float64, n-1)}
	for i := range n {
		x := 1 + 0.1*float64(i%3)
		in.F[i], in.B[i] = x/float64(v), 2*x/float64(v)
		if splitW(s) {
			in.B[i], in.W[i] = x/float64(v), x/float64(v)
		}
	}
	for i := range in.P2P {
		in.P2P[i] = 0.02
	}
	return in
}

func BenchmarkSimulateTrain(b *testing.B) {
	for _, c := range []struct {
		s       model.Schedule
		p, v, m int
		record  bool
	}{
		{model.OneFOneB, 8, 1, 64, false},
		{model.OneFOneB, 8, 1, 64, true},
		{model.Interleaved, 8, 2, 64, false},
		{model.ZBH1, 8, 1, 64, false},
		{model.GPipe, 8, 1, 64, false},
		{model.OneFOneB, 64, 1, 512, false},
		{model.OneFOneB, 64, 1, 512, true},
		{model.Interleaved, 64, 2, 512, true},
		{model.ZBV, 8, 2, 64, false},
		{model.DualPipe, 8, 2, 64, false},
		{model.DualPipeV, 8, 2, 64, false},
		{model.ZBV, 64, 2, 512, false},
		{model.DualPipe, 64, 2, 512, false},
		{model.DualPipeV, 64, 2, 512, false},
		{model.DualPipe, 64, 2, 512, true},
	} {
		in := benchTrain(c.s, c.p, c.v, c.m, c.record)
		b.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d/record=%v", c.s, c.p, c.v, c.m, c.record), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SimulateTrain(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEstimateTrain(b *testing.B) {
	for _, c := range []struct {
		s       model.Schedule
		p, v, m int
	}{{model.OneFOneB, 8, 1, 64}, {model.Interleaved, 8, 2, 64}, {model.ZBH1, 8, 1, 64}, {model.Interleaved, 64, 2, 512}} {
		in := benchTrain(c.s, c.p, c.v, c.m, false)
		b.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d", c.s, c.p, c.v, c.m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				EstimateTrain(in)
			}
		})
	}
}

// BenchmarkSimulate512GPU is the simulation of costmodel's BenchmarkEvaluateFast512GPUSchedules
// (gpt3-175b, TP 8 × PP 8 × DP 8, 192 micro-batches) alone: its inputs, as EvaluateFast passes
// them, in testdata/gpt3-512.
func BenchmarkSimulate512GPU(b *testing.B) {
	for _, s := range model.Schedules() {
		in := gpt3Train(b, s)
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SimulateTrain(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
