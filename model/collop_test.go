package model

import (
	"errors"
	"math"
	"testing"
)

func TestCollOpNamesRoundTrip(t *testing.T) {
	for _, op := range CollOps() {
		for _, s := range []string{op.String(), " " + op.String() + " "} {
			got, err := ParseCollOp(s)
			if err != nil || got != op {
				t.Errorf("ParseCollOp(%q) = %v, %v; want %v", s, got, err, op)
			}
		}
	}
	for _, s := range []string{"allreduce", "ALL_REDUCE", "All-Reduce"} {
		if got, err := ParseCollOp(s); err != nil || got != CollAllReduce {
			t.Errorf("ParseCollOp(%q) = %v, %v; want all-reduce", s, got, err)
		}
	}
	_, err := ParseCollOp("reduce")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Value != "reduce" || fe.Allowed == "" {
		t.Errorf("ParseCollOp(reduce) = %v; want a FieldError naming the value and what is allowed", err)
	}
	if s := CollOp(200).String(); s != "?200" {
		t.Errorf("CollOp(200) = %q", s)
	}
}

// The factors of nccl-tests' doc/PERFORMANCE.md: busbw = algbw × factor.
func TestCollOpBusFactor(t *testing.T) {
	for _, c := range []struct {
		op   CollOp
		n    int
		want float64
	}{
		{CollAllReduce, 8, 2 * 7.0 / 8}, {CollReduceScatter, 4, 0.75}, {CollAllGather, 16, 15.0 / 16},
		{CollAllToAll, 2, 0.5}, {CollBroadcast, 8, 1}, {CollSendRecv, 2, 1}, {CollAllReduce, 1, 1}, {CollAllGather, 0, 1},
	} {
		if got := c.op.BusFactor(c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v.BusFactor(%d) = %v, want %v", c.op, c.n, got, c.want)
		}
	}
}
