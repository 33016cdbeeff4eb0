package costmodel

import (
	"strings"

	"github.com/splitscope/splitscope/model"
)

// Objective is what Search optimises.
type Objective int

// Objectives.
const (
	ObjTime       Objective = iota // lowest step time (train) or time to serve all requests (infer)
	ObjThroughput                  // most tokens per second
	ObjLatency                     // lowest TPOT (infer) or step time (train)
	ObjMemory                      // least memory per GPU
	ObjGoodput                     // inference: the highest request rate that meets the SLO
)

var objectiveNames = []string{"time", "throughput", "latency", "memory", "goodput"}

func (o Objective) String() string {
	if o < 0 || int(o) >= len(objectiveNames) {
		return "unknown"
	}
	return objectiveNames[o]
}

// ParseObjective reads "time", "throughput", "latency", "memory" or "goodput".
func ParseObjective(s string) (Objective, error) {
	for i, n := range objectiveNames {
		if strings.EqualFold(n, strings.TrimSpace(s)) {
			return Objective(i), nil
		}
	}
	return 0, &model.FieldError{Field: "objective", Value: s, Allowed: "one of time, throughput, latency, memory"}
}

// SearchOptions bounds the layouts Search enumerates.
type SearchOptions struct {
	Objective Objective
	// MaxMicroBatch is the largest micro-batch size tried (every divisor of a replica's batch up
	// to it); 0 means every divisor.
	MaxMicroBatch int
	// MaxChunks is the largest interleaving tried; 0 means 8, a negative value every one the
	// layers allow (at least one layer a chunk), up to 64.
	MaxChunks int
	// Fix holds the layout sizes the user chose: Search tries only layouts with them.
	Fix SearchFix
	// SLO is the latency target of the goodput objective.
	SLO SLO
}

// SearchFix narrows Search to the layouts a user asked for (search --tp 8 means "the best layout
// with TP 8"). A size of 0 is swept. Schedule and Chunks apply to pipelines (PP > 1): a layout
// with one stage has no schedule and runs 1F1B.
type SearchFix struct {
	TP, PP, DP, MicroBatch int
	// Chunks fixes the interleaving: 1 for the non-interleaved schedules, above 1 interleaved.
	Chunks int
	// EP fixes expert parallelism (MoE models; 0 sweeps the divisors of DP and the experts).
	EP int
	// ETP fixes expert tensor parallelism (MoE models with TP > 1; 0 tries the experts split over
	// all of TP and over one GPU, folded into the all-to-all).
	ETP int
	// CP fixes context parallelism (0 sweeps it where the sequence is long enough: cpSizes);
	// CPComm is the only CP exchange tried when HasCPComm.
	CP        int
	CPComm    model.CPComm
	HasCPComm bool
	// Schedule is the only pipeline schedule tried when HasSchedule.
	Schedule    model.Schedule
	HasSchedule bool
	// The training knobs the user gave keep the base scenario's value; the others are swept:
	// recompute none, selective and full; sequence parallelism off and on (TP > 1); ZeRO 0–3
	// (DP × CP > 1); TP overlap none, ring and pipe (TP > 1); offload none, optimizer,
	// optimizer+weights, activations. Serving has none of them.
	HasRecompute, HasSequenceParallel, HasZeRO, HasTPOverlap, HasOffload bool
	// HasSerialDP keeps the base's DP overlap; otherwise both are tried (DP × CP > 1).
	HasSerialDP bool
	// HasSPGather keeps the base's sequence-parallel all-gather; otherwise, with SP, redo and
	// keep are tried.
	HasSPGather bool
	// HasRankOrder keeps the base's rank order; otherwise the orders with TP innermost and CP
	// next to it that place the split differently (searchOrders) are tried, in serving too.
	HasRankOrder bool
	// Disagg fixes serving's pools (model.Disagg): with PrefillGPUs > 0 only that pool split is
	// tried, with its PrefillTP if given (0 sweeps the prefill pool's TP). DisaggAuto tries one
	// pool and every pool split (disaggOptions). Neither: one pool, aggregated serving.
	Disagg     model.Disagg
	DisaggAuto bool
}

// KeepKnobsBut returns f with every training knob kept at the base scenario's value except those
// marked auto, which Search tries.
func (f SearchFix) KeepKnobsBut(auto model.AutoKnobs) SearchFix {
	f = f.KeepKnobs()
	f.HasRecompute = auto&model.AutoRecompute == 0
	f.HasSequenceParallel = auto&model.AutoSequenceParallel == 0
	f.HasSPGather = auto&model.AutoSPGather == 0
	f.HasZeRO = auto&model.AutoZeRO == 0
	f.HasTPOverlap = auto&model.AutoTPOverlap == 0
	f.HasOffload = auto&model.AutoOffload == 0
	f.HasRankOrder = auto&model.AutoRankOrder == 0
	f.HasSerialDP = auto&model.AutoSerialDP == 0
	return f
}

// KeepKnobs returns f with every training knob kept at the base scenario's value: Search then
// varies the split alone.
func (f SearchFix) KeepKnobs() SearchFix {
	f.HasRecompute, f.HasSequenceParallel, f.HasZeRO, f.HasTPOverlap, f.HasOffload = true, true, true, true, true
	f.HasSerialDP, f.HasSPGather, f.HasRankOrder = true, true, true
	return f
}

// Candidate is one layout Search looked at.
type Candidate struct {
	Layout   model.Layout
	Report   Report
	Feasible bool
	Reason   string // why not feasible: over memory, invalid split, …
	// Goodput is the highest request rate meeting the SLO (objective goodput only).
	Goodput float64
}

// SearchResult lists feasible candidates best first, then infeasible ones with their reason.
// Warnings are the settings of the search's scenario that have no effect on any layout tried,
// or that contradict the hardware (ScenarioWarnings, and LayoutWarnings every layout shares).
type SearchResult struct {
	Candidates []Candidate
	Feasible   int
	Warnings   []string
	// Counts says how many configurations the space held and what became of them.
	Counts SearchCounts
}
