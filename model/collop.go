package model

import (
	"fmt"
	"strings"
)

// CollOp is a collective operation: what it is called and the bus factor nccl-tests measures
// it with. The cost of running one is costmodel/collective's business; this is only its name,
// shared by the model that times it and the reader of nccl-tests logs (assets) that finds it
// in a log.
type CollOp uint8

// Operations, as nccl-tests names them.
const (
	CollAllReduce CollOp = iota
	CollReduceScatter
	CollAllGather
	CollBroadcast
	CollAllToAll
	CollSendRecv
)

var collOpNames = []string{"all-reduce", "reduce-scatter", "all-gather", "broadcast", "all-to-all", "send-recv"}

func (o CollOp) String() string {
	if int(o) >= len(collOpNames) {
		return fmt.Sprintf("?%d", int(o))
	}
	return collOpNames[o]
}

// CollOps lists every operation.
func CollOps() []CollOp {
	return []CollOp{CollAllReduce, CollReduceScatter, CollAllGather, CollBroadcast, CollAllToAll, CollSendRecv}
}

// ParseCollOp reads an operation name ("all-reduce", also "allreduce" or "all_reduce"). The
// error is a *FieldError without its Field: the caller names it.
func ParseCollOp(s string) (CollOp, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.ReplaceAll(k, "_", "-")
	for i, n := range collOpNames {
		if k == n || k == strings.ReplaceAll(n, "-", "") {
			return CollOp(i), nil
		}
	}
	return 0, &FieldError{Value: s, Allowed: "one of " + strings.Join(collOpNames, ", ")}
}

// BusFactor is nccl-tests' ratio of bus to algorithm bandwidth for the operation on n ranks
// (busbw = algbw × factor, nccl-tests' doc/PERFORMANCE.md): 2(n−1)/n for all-reduce, (n−1)/n
// for reduce-scatter, all-gather and all-to-all, 1 for broadcast and send/recv.
func (o CollOp) BusFactor(n int) float64 {
	if n <= 1 {
		return 1
	}
	f := float64(n-1) / float64(n)
	switch o {
	case CollAllReduce:
		return 2 * f
	case CollReduceScatter, CollAllGather, CollAllToAll:
		return f
	}
	return 1
}
