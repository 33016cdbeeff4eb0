package static

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

// unknownCell is shown for a value NVML did not report (gpu.Unknown).
const unknownCell = "?"

// TopologyLegend explains the cells of the topology matrix, as nvidia-smi topo -m does, from
// the closest pair of GPUs to the farthest.
var TopologyLegend = []string{
	"X self · NV# # bonded NVLinks · PIX one PCIe switch · PXB several PCIe switches",
	"PHB PCIe host bridge · NODE same NUMA node · SYS across CPU sockets · ? unknown",
}

// P2PLegend explains the cells of the peer-to-peer matrix.
const P2PLegend = "OK peer-to-peer supported · NS not supported · X self · ? unknown"

// known formats v with f, or "?" when it is gpu.Unknown (or any negative value).
func known[T int | int64 | float64](v T, f func(T) string) string {
	if v < 0 {
		return unknownCell
	}
	return f(v)
}

// pcieCell is "4×16": generation × lanes, each "?" when unknown.
func pcieCell(gen, width int) string {
	return known(gen, strconv.Itoa) + "×" + known(width, strconv.Itoa)
}

// nvlinkCell is "12/18 v4": active links of those listed and their NVLink generation; "-" for a
// GPU without NVLink.
func nvlinkCell(d gpu.Device) string {
	links := d.NVLinks
	if len(links) == 0 {
		return "-"
	}
	active, version := d.ActiveNVLinks()
	if active == 0 {
		return fmt.Sprintf("0/%d", len(links))
	}
	return fmt.Sprintf("%d/%d v%s", active, len(links), known(version, strconv.Itoa))
}

// BoxHeader is "host · driver 550.54.15 · CUDA 12.4 · 2 GPUs", leaving out what is unknown.
func BoxHeader(b gpu.Box) string {
	var parts []string
	if b.Host != "" {
		parts = append(parts, b.Host)
	}
	driver, cuda := b.Driver, b.CUDA
	if driver == "" {
		driver = unknownCell
	}
	if cuda == "" {
		cuda = unknownCell
	}
	parts = append(parts, "driver "+driver, "CUDA "+cuda)
	n := fmt.Sprintf("%d GPUs", len(b.GPUs))
	if len(b.GPUs) == 1 {
		n = "1 GPU"
	}
	return strings.Join(append(parts, n), " · ")
}

// RenderBox writes what a probe found: a header line (host, driver, CUDA), one row per GPU
// (memory, PCIe now and at most, NVLinks, utilisation, power, temperature; "?" where NVML did not
// say), the topology matrix as nvidia-smi topo -m prints it, the peer-to-peer matrix and the
// probe's warnings.
func RenderBox(w io.Writer, b gpu.Box) error {
	ew := &errWriter{w: w}
	ew.line(BoxHeader(b))
	if len(b.GPUs) > 0 {
		ew.line("")
		t := newTable("", true, false, true, true, false, false, true, true, true, true)
		t.add("GPU", "name", "memory", "used", "PCIe now/max", "NVLink", "util", "mem util", "power", "temp")
		for _, d := range b.GPUs {
			name := d.Name
			if d.Lost {
				name += " (lost)" // failed during the probe
			}
			t.add(strconv.Itoa(d.Index), name,
				known(d.MemTotal, func(v int64) string { return Bytes(float64(v)) }),
				known(d.MemUsed, func(v int64) string { return Bytes(float64(v)) }),
				pcieCell(d.PCIeGen, d.PCIeW)+" / "+pcieCell(d.PCIeMaxGen, d.PCIeMaxW),
				nvlinkCell(d),
				known(d.UtilGPU, func(v int) string { return strconv.Itoa(v) + "%" }),
				known(d.UtilMem, func(v int) string { return strconv.Itoa(v) + "%" }),
				known(d.PowerW, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + " W" }),
				known(d.TempC, func(v int) string { return strconv.Itoa(v) + " °C" }))
		}
		t.write(ew)
		ew.line("  PCIe as generation×lanes, now / at most (a link idles at a lower generation)")
	}
	if len(b.GPUs) > 0 || b.HostMemory != nil {
		renderHostMemory(ew, b.HostMemory)
	}
	if len(b.Topology) > 0 {
		ew.line("")
		ew.line("topology (nvidia-smi topo -m)")
		renderMatrix(ew, b.Topology, len(b.GPUs))
		for _, l := range TopologyLegend {
			ew.line("  " + l)
		}
	}
	if len(b.P2P) > 0 {
		ew.line("")
		ew.line("peer-to-peer")
		renderMatrix(ew, b.P2P, len(b.GPUs))
		ew.line("  " + P2PLegend)
	}
	if len(b.Warnings) > 0 {
		ew.line("")
		ew.line("warnings")
		for _, wn := range b.Warnings {
			ew.line("  ! " + wn)
		}
	}
	return ew.err
}

// renderMatrix writes an n×n matrix with GPU0… row and column labels; a missing cell reads "?".
func renderMatrix(ew *errWriter, m [][]string, n int) {
	n = max(n, len(m))
	t := newTable("  ")
	head := []string{""}
	for j := range n {
		head = append(head, "GPU"+strconv.Itoa(j))
	}
	t.add(head...)
	for i := range n {
		row := []string{"GPU" + strconv.Itoa(i)}
		for j := range n {
			cell := unknownCell
			if i < len(m) && j < len(m[i]) && m[i][j] != "" {
				cell = m[i][j]
			}
			row = append(row, cell)
		}
		t.add(row...)
	}
	t.write(ew)
}

// RenderCluster writes the cluster splitscope infers from boxes: the GPU preset with its memory
// (from the device), the count and nodes, the links; then the warnings. A nil cluster says that
// none could be inferred.
func RenderCluster(w io.Writer, c *model.Cluster, warnings []string) error {
	ew := &errWriter{w: w}
	ew.line("inferred cluster")
	if c == nil {
		ew.line("  none")
	} else {
		t := newTable("  ")
		name := c.GPU.ID
		if c.GPU.Name != "" && c.GPU.Name != c.GPU.ID {
			name += " (" + c.GPU.Name + ")"
		}
		t.add("GPU", name+", "+Bytes(c.GPU.MemoryBytes)+" each")
		count := fmt.Sprintf("%d", c.GPUs)
		if n := c.Nodes(); n > 1 {
			count += fmt.Sprintf(" (%d nodes × %d)", n, c.GPUsPerNode)
		} else {
			count += " in one node"
		}
		t.add("GPUs", count)
		t.add("intra link", linkText(c.Intra, "GPU"))
		if c.Intra.Kind == model.PCIe {
			t.add("peer-to-peer", p2pText(*c))
		}
		if c.Nodes() > 1 {
			t.add("inter link", fmt.Sprintf("%s × %d NICs per node", linkText(c.Inter, "NIC"), c.NICsPerNode))
		}
		t.add("host RAM", HostMemoryText(*c))
		t.write(ew)
	}
	for _, wn := range warnings {
		ew.line("  ! " + wn)
	}
	return ew.err
}

// HostMemoryText is what offload may fill on a cluster: "512 GiB per node, 64.0 GiB per GPU", or
// with the default "2.00 TiB per node, 256 GiB per GPU: the default (--host-memory sets it)".
func HostMemoryText(c model.Cluster) string {
	text := fmt.Sprintf("%s per node, %s per GPU", Bytes(c.HostMemory()), Bytes(c.HostMemoryPerGPU()))
	if c.HostMemoryDefault() {
		text += ": the default, not measured (--host-memory sets it)"
	}
	return text
}

// renderHostMemory writes a box's host memory: the total, what was available, and each NUMA
// node's.
func renderHostMemory(ew *errWriter, h *gpu.HostMemory) {
	ew.line("")
	if h == nil {
		ew.line("host RAM  not in the box (probed before splitscope read /proc/meminfo): --host-memory gives it")
		return
	}
	line := "host RAM  " + Bytes(float64(h.TotalBytes))
	if h.AvailableBytes >= 0 {
		line += ", " + Bytes(float64(h.AvailableBytes)) + " available"
	}
	ew.line(line + " (/proc/meminfo)")
	for _, n := range h.NUMA {
		nl := fmt.Sprintf("  NUMA node %d  %s", n.Node, Bytes(float64(n.TotalBytes)))
		if n.FreeBytes >= 0 {
			nl += ", " + Bytes(float64(n.FreeBytes)) + " free"
		}
		ew.line(nl)
	}
}

// p2pText says how GPUs on a PCIe intra link reach each other: "yes, under PCIe switches", or
// "no: staged through host memory, across CPU sockets".
func p2pText(c model.Cluster) string {
	if c.IntraLink().Staged {
		return "no: staged through host memory, " + c.Intra.PCIePath.Route()
	}
	return "yes, " + c.Intra.PCIePath.Route()
}

// linkText is "nvlink4 (NVLink 4, 450 GB/s per GPU)"; per names what the bandwidth is for.
func linkText(l model.Link, per string) string {
	var extra []string
	if l.Name != "" && l.Name != l.ID {
		extra = append(extra, l.Name)
	}
	if l.Bandwidth > 0 {
		extra = append(extra, Bandwidth(l.Bandwidth)+" per "+per)
	}
	if len(extra) == 0 {
		return l.ID
	}
	return l.ID + " (" + strings.Join(extra, ", ") + ")"
}
