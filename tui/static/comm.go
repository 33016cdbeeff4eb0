package static

import (
	"fmt"
	"io"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// RenderComm prints a collective's size sweep as nccl-tests does: a header naming the op and
// the hardware, then size, time, algorithm and bus bandwidth, and the algorithm and protocol
// the model runs.
func RenderComm(w io.Writer, op collective.Op, c model.Cluster, algo collective.Algo, rows []collective.Point) error {
	ew := &errWriter{w: w}
	hw := fmt.Sprintf("%d× %s", c.GPUs, c.GPU.ID)
	if n := c.Nodes(); n > 1 {
		hw += fmt.Sprintf(" (%d nodes × %d), %s / %s ×%d NICs", n, c.GPUsPerNode, LinkLabel(c.Intra), LinkLabel(c.Inter), c.NICsPerNode)
	} else {
		hw += ", " + LinkLabel(c.Intra)
	}
	if c.Intra.Kind == model.PCIe && c.IntraLink().Staged {
		hw += " (no peer-to-peer: staged through host memory)"
	}
	ew.line(fmt.Sprintf("# splitscope comm: %s on %s · algorithm %s", op, hw, algo))
	ew.line("#")
	ew.line(fmt.Sprintf("# %12s %12s %9s %9s  %-10s %s", "size", "time", "algbw", "busbw", "algorithm", "protocol"))
	ew.line(fmt.Sprintf("# %12s %12s %9s %9s", "(B)", "(us)", "(GB/s)", "(GB/s)"))
	for _, r := range rows {
		ew.line(fmt.Sprintf("  %12.0f %12.2f %9.2f %9.2f  %-10s %s", r.Bytes, r.Seconds*1e6, r.AlgBW/1e9, r.BusBW/1e9, r.Algo, r.Proto))
	}
	return ew.err
}
