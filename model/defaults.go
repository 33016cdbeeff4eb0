package model

import "fmt"

// Defaults for what a scenario leaves out, shared by the command line's flags and by scenario
// files (package assets), so that `--gpus 16` and a file saying `gpus: 16` describe the same
// scenario. The enums' defaults are their zero values: train, 1f1b, bf16, no recomputation.
const (
	DefaultGPUs        = 32 // four nodes: TP fills each node, PP runs across them
	DefaultGPUsPerNode = 8
	DefaultInter       = "ib-ndr" // link preset ID between nodes
	DefaultSeq         = 4096
	DefaultChunks      = 1
	DefaultMicroBatch  = 1
	DefaultBatch       = 32
	DefaultPrompt      = 1024
	DefaultGen         = 256
	DefaultRequests    = 8
)

// Sizes are the layout and batch sizes that a scenario may leave out to take their defaults.
type Sizes struct {
	TP, PP, DP, MicroBatch, Batch, Requests int
}

// SizesGiven says which of Sizes were given; the others are filled in by ResolveSizes.
type SizesGiven struct {
	TP, PP, DP, MicroBatch, Batch, Requests bool
}

// ResolveSizes fills in the sizes not given, in this order: PP the number of nodes when none of
// TP, PP and DP is given (TP inside a node, PP across nodes: the usual way to combine them), else
// 1; TP the DefaultTP of the GPUs left once PP
// (and DP, when given) are taken out; DP gpus / (TP × PP); the global batch
// DefaultBatch raised to a multiple of micro-batch × DP (× PP for the interleaved schedule). In
// inference the requests are DefaultRequests and the micro-batch 1 when not given (serving has
// neither micro-batches nor a split to round to); in training the requests (unused) are
// DefaultRequests raised to a multiple of micro-batch × DP. A micro-batch not given is
// DefaultMicroBatch.
//
// When TP × PP does not divide the GPUs no DP can be derived: DP is then 1 and split names the
// size at fault (tp, or pp when only PP was given). With forSearch the layout is only a starting
// point: the sizes given are those the search keeps, PP is not spread over the nodes, and a
// micro-batch not given neither shapes the default batch nor is derived in inference.
func ResolveSizes(gpus, perNode int, a Arch, sched Schedule, mode Mode, v Sizes, given SizesGiven, forSearch bool) (out Sizes, split *FieldError) {
	if !given.MicroBatch {
		v.MicroBatch = DefaultMicroBatch
	}
	pp := 1
	if given.PP {
		pp = v.PP
	} else if !given.TP && !given.DP && !forSearch {
		pp = DefaultPP(gpus, perNode, a)
	}
	tp := v.TP
	if !given.TP {
		n := gpus
		if pp > 0 && n%pp == 0 {
			n /= pp
			if given.DP && v.DP > 0 && n%v.DP == 0 {
				n /= v.DP
			}
		}
		tp = DefaultTP(n, perNode, a)
	}
	dp := v.DP
	if !given.DP {
		dp = 1
		if tp > 0 && pp > 0 && gpus > 0 {
			if gpus%(tp*pp) == 0 {
				dp = gpus / (tp * pp)
			} else {
				field, val := "tp", tp
				if given.PP && !given.TP {
					field, val = "pp", pp
				}
				split = &FieldError{Field: field, Value: val,
					Allowed: fmt.Sprintf("tp × pp (%d × %d) must divide gpus (%d)", tp, pp, gpus)}
			}
		}
	}
	out = Sizes{TP: tp, PP: pp, DP: dp, MicroBatch: v.MicroBatch, Batch: v.Batch, Requests: v.Requests}

	// Batch and requests: the defaults rise to the nearest split into whole micro-batches.
	// Search sweeps micro-batch sizes itself unless one is given, so then only the starting DP
	// shapes its default batch.
	per := v.MicroBatch * dp
	if forSearch && !given.MicroBatch {
		per = dp
	}
	if !given.Batch {
		bper := per
		if sched == Interleaved && pp > 1 {
			bper *= pp
		}
		out.Batch = RoundUpTo(DefaultBatch, bper)
	}
	switch {
	case mode == Infer:
		// Serving has no micro-batches (the engine batches what runs) and no split to round
		// the requests to: the balancer hands them to the replicas one by one.
		if !given.Requests {
			out.Requests = DefaultRequests
		}
		if !given.MicroBatch {
			out.MicroBatch = 1
		}
	case !given.Requests:
		out.Requests = RoundUpTo(DefaultRequests, per)
	}
	return out, split
}

// DefaultPP is the number of nodes the GPUs span, so that TP stays inside a node and PP crosses
// nodes; 1 on one node, when the GPUs do not fill whole nodes, or when there are more nodes than
// layers.
func DefaultPP(gpus, perNode int, a Arch) int {
	if perNode <= 0 || gpus <= perNode || gpus%perNode != 0 {
		return 1
	}
	nodes := gpus / perNode
	if a.Layers > 0 && nodes > a.Layers {
		return 1
	}
	return nodes
}

// DefaultTP is the largest TP size t ≤ min(perNode, n) that divides n, heads and ffn and that
// divides kv-heads or is a multiple of it, where n is the GPUs left for TP once PP (and DP, when
// given) are taken out. Arch fields that are not positive are left to validation.
func DefaultTP(n, perNode int, a Arch) int {
	limit := n
	if perNode > 0 {
		limit = min(limit, perNode)
	}
	limit = min(limit, 1<<16)
	for t := limit; t > 1; t-- {
		if n%t != 0 {
			continue
		}
		if a.Heads > 0 && a.Heads%t != 0 {
			continue
		}
		if a.KVHeads > 0 && a.KVHeads%t != 0 && t%a.KVHeads != 0 {
			continue
		}
		if a.FFN > 0 && a.FFN%t != 0 {
			continue
		}
		return t
	}
	return 1
}

// RoundUpTo raises v to the smallest multiple of per that is at least v (and at least per).
func RoundUpTo(v, per int) int {
	if per <= 0 {
		return v
	}
	if v < per {
		return per
	}
	return (v + per - 1) / per * per
}

// SplitGPUs is the GPUs left for TP × PP × DP once context parallelism takes its factor: gpus / cp
// when cp > 1 divides them (the defaults of the other sizes are found on those), else gpus (and
// validation names the product that does not hold).
func SplitGPUs(gpus, cp int) int {
	if cp > 1 && gpus%cp == 0 {
		return gpus / cp
	}
	return gpus
}
