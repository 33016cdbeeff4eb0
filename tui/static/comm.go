package static

import (
	"fmt"
	"io"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// RenderComm prints a collective's size sweep as nccl-tests does: a header naming the op and
// the hardware, then size, time, algorithm and bus bandwidth, and the algorithm and protocol
// the model runs. A forced algorithm or protocol is said forced in the header; rows where it
// could not run are marked * beside what ran instead, and the reasons follow the header.
func RenderComm(w io.Writer, op collective.Op, c model.Cluster, algo collective.Algo, proto collective.Proto, rows []collective.Point) error {
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
	what := "algorithm " + algo.String()
	switch {
	case algo != collective.Auto && proto != collective.AnyProto:
		what = fmt.Sprintf("algorithm %s, protocol %s (forced)", algo, proto)
	case proto != collective.AnyProto:
		what = fmt.Sprintf("algorithm auto, protocol %s (forced)", proto)
	case algo != collective.Auto:
		what += " (forced)"
	}
	ew.line(fmt.Sprintf("# splitscope comm: %s on %s · %s", op, hw, what))
	// Each reason once, with the sizes it holds for.
	var reasons []string
	from := map[string][2]float64{}
	for _, r := range rows {
		if r.Fallback == "" {
			continue
		}
		span, seen := from[r.Fallback]
		if !seen {
			reasons = append(reasons, r.Fallback)
			span[0] = r.Bytes
		}
		span[1] = r.Bytes
		from[r.Fallback] = span
	}
	for _, why := range reasons {
		span := from[why]
		sizes := fmt.Sprintf("%.0f B", span[0])
		if span[1] != span[0] {
			sizes = fmt.Sprintf("%.0f to %.0f B", span[0], span[1])
		}
		ew.line(fmt.Sprintf("# * not forced at %s: %s; those rows ran what their algorithm and protocol say", sizes, why))
	}
	ew.line("#")
	ew.line(fmt.Sprintf("# %12s %12s %9s %9s  %-10s %s", "size", "time", "algbw", "busbw", "algorithm", "protocol"))
	ew.line(fmt.Sprintf("# %12s %12s %9s %9s", "(B)", "(us)", "(GB/s)", "(GB/s)"))
	for _, r := range rows {
		ran := r.Algo.String()
		if r.Fallback != "" {
			ran += "*"
		}
		ew.line(fmt.Sprintf("  %12.0f %12.2f %9.2f %9.2f  %-10s %s", r.Bytes, r.Seconds*1e6, r.AlgBW/1e9, r.BusBW/1e9, ran, r.Proto))
	}
	return ew.err
}
