// Package schedule simulates pipeline schedules op by op: GPipe, 1F1B, interleaved 1F1B and
// zero-bubble H1, and the 2024–25 schedules ZB-V, DualPipe and DualPipeV (chain.go, orders2025.go) for training (inference is served by costmodel/serve; its steps reuse Op for the
// timeline). It is pure and deterministic: costs
// in, ops with start and end times out. The makespan of the simulation, not a closed form, is the
// step time; the closed forms live in the tests as oracles.
package schedule

import "github.com/splitscope/splitscope/model"

// Kind is what an op computes.
type Kind uint8

// Op kinds. Training schedules other than ZB-H1 fold W into B (their W costs are zero).
const (
	F Kind = iota // forward (inference: prefill or one decode step)
	B             // backward: input gradients (and weight gradients unless split out)
	W             // backward: weight gradients, split out by zero-bubble schedules
)

func (k Kind) String() string {
	switch k {
	case F:
		return "F"
	case B:
		return "B"
	case W:
		return "W"
	}
	return "?"
}

// Op is one simulated op on one pipeline stage.
type Op struct {
	Stage int  // pipeline rank 0..p-1 (the GPU group that runs it)
	Chunk int  // virtual stage on that rank (interleaved), 0 otherwise
	Micro int  // micro-batch (inference: the engine batch in flight)
	Token int  // inference: 0 = prefill, k ≥ 1 = k-th decode step; 0 in training
	Kind  Kind // F, B or W
	// Paired: the op ran overlapped with another micro-batch's op on its rank (DualPipe's
	// forward–backward pairs); the pair's time is shared between its ops in proportion to their
	// costs (a whole backward's B and W are shared the same way, unpaired).
	Paired bool
	Start  float64 // seconds from the start of the step
	End    float64
	// Dep is the index in Result.Ops of the op on another stage (or the previous token) whose
	// output this op waited for, or -1 when only its own stage's order held it back.
	Dep int
}

// Train describes one training step to simulate.
type Train struct {
	Schedule model.Schedule
	Stages   int // p
	Chunks   int // v (1 unless Interleaved)
	Micro    int // m micro-batches
	// Costs per virtual stage: index c·p + s is chunk c on rank s. Length p·v. For GPipe, 1F1B
	// and interleaved, W must be all zero and B holds the whole backward. ZB-V, DualPipe and
	// DualPipeV take Chunks 2 (see chain.go for which model stage each chunk is).
	F, B, W []float64
	// P2P[i] is the time to send activations (forward) or gradients (backward) across the
	// boundary between chain positions i and i+1 (model order; for the schedules before 2024
	// virtual stage i and i+1). Length p·v − 1 (may be nil for free p2p); DualPipe's P2P[p−1],
	// between its two chains, is not used.
	P2P []float64
	// Overlap[i] is the part of each F and each B of virtual stage i (cost index) that is
	// communication (an expert-parallel all-to-all) a DualPipe or DualPipeV forward–backward
	// pair hides under the other op's compute: the pair takes max(compute, communication) of
	// the two, not their sum. Nil: no overlap. At most F[i] and B[i].
	Overlap []float64
	// Record keeps every op in Result.Ops (for the timeline); off for the fast path.
	Record bool
	// Scratch, when not nil and Record is off, holds the result's per-rank slices (Busy, Finish,
	// PeakInFlight) and the run's per-rank counters from one run to the next: the result is
	// then the caller's until its next run on the same Scratch. Nil: fresh slices.
	Scratch *Scratch
}

// Scratch is the per-rank storage a caller lends its runs (Train.Scratch).
type Scratch struct {
	floats []float64
	ints   []int
}

// Result is the outcome of a simulation.
type Result struct {
	Makespan float64
	// Busy is, per stage (rank), the total time spent in ops.
	Busy []float64
	// PeakInFlight is, per rank, the most micro-batch × chunk forward passes whose backward had
	// not finished at any one time (activation memory).
	PeakInFlight []int
	// Finish is, per rank, when its last op ends (a rank that drains early can hide its
	// data-parallel gradient sync in the rest of the step).
	Finish []float64
	// Ops in the order they were scheduled per stage, stages one after the other; only if Record.
	Ops []Op
}
