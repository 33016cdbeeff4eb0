package calibrate

import (
	"fmt"
	"strings"

	"github.com/splitscope/splitscope/costmodel/collective"
)

// Writing nccl-tests logs from the model, for the tests: what all_reduce_perf would print if the
// box behaved exactly as the collective model says.

// testNames are the program names of the operations.
var testNames = map[collective.Op]string{
	collective.AllReduce: "all_reduce", collective.AllGather: "all_gather", collective.ReduceScatter: "reduce_scatter",
	collective.SendRecv: "sendrecv", collective.Broadcast: "broadcast", collective.AllToAll: "alltoall",
}

// logSpec is one run to write.
type logSpec struct {
	op       collective.Op
	hosts    int
	perHost  int
	gpu      string
	min, max float64 // bytes
	fabric   collective.Fabric
	algo     collective.Algo // forced with NCCL_ALGO unless Auto
}

// timeStr formats a time as nccl-tests does: 2 decimals below 100 µs, 1 below 10 ms, none above.
func timeStr(us float64) string {
	switch {
	case us >= 10000:
		return fmt.Sprintf("%7.0f", us)
	case us >= 100:
		return fmt.Sprintf("%7.1f", us)
	}
	return fmt.Sprintf("%7.2f", us)
}

// modelLog writes the run as nccl-tests 2.18 prints it, with the model's times out of place and
// 0.3% slower in place.
func modelLog(s logSpec) string {
	var b strings.Builder
	name := testNames[s.op] + "_perf"
	n := s.hosts * s.perHost
	if s.algo != collective.Auto {
		fmt.Fprintf(&b, "$ mpirun -np %d -x NCCL_ALGO=%s ./build/%s -b %.0f -e %.0f -f 2 -g 1\n", n, s.algo, name, s.min, s.max)
	} else {
		fmt.Fprintf(&b, "$ mpirun -np %d ./build/%s -b %.0f -e %.0f -f 2 -g 1\n", n, name, s.min, s.max)
	}
	b.WriteString("# nccl-tests version 2.18.3 nccl-headers=22703 nccl-library=22703\n")
	fmt.Fprintf(&b, "# Collective test starting: %s\n", name)
	fmt.Fprintf(&b, "# nThread 1 nGpus 1 minBytes %.0f maxBytes %.0f step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n", s.min, s.max)
	for r := range n {
		fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] %s\n", r, 4000+r, fmt.Sprintf("node%02d", r/s.perHost), r%s.perHost, 0x10+r%s.perHost, s.gpu)
	}
	b.WriteString("node00:4000:4000 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.1<0>\n")
	b.WriteString("NCCL version 2.27.3+cuda12.9\n")
	b.WriteString("#\n#                                                              out-of-place                       in-place          \n")
	b.WriteString("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
	b.WriteString("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n")
	redop, root := "sum", -1
	switch s.op {
	case collective.AllGather, collective.SendRecv, collective.AllToAll:
		redop = "none"
	case collective.Broadcast:
		redop, root = "none", 0
	}
	g := collective.Group{Ranks: n, Nodes: s.hosts}
	if s.op == collective.SendRecv {
		g = collective.Group{Ranks: 2, Nodes: min(s.hosts, 2)}
	}
	var sum float64
	rows := 0
	for size := s.min; size <= s.max; size *= 2 {
		t := collective.Time(s.op, size, g, s.fabric, s.algo).Seconds * 1e6
		ti := t * 1.003
		alg, algi := size/t/1e3, size/ti/1e3
		f := s.op.BusFactor(n)
		fmt.Fprintf(&b, "%12.0f  %12.0f  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6d  %7s  %6.2f  %6.2f  %6d\n",
			size, size/4, "float", redop, root, timeStr(t), alg, alg*f, 0, timeStr(ti), algi, algi*f, 0)
		sum += alg*f + algi*f
		rows += 2
	}
	fmt.Fprintf(&b, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %.4g \n#\n", sum/float64(max(rows, 1)))
	fmt.Fprintf(&b, "# Collective test concluded: %s\n", name)
	return b.String()
}
