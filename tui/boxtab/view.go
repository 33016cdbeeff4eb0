package boxtab

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// Glyphs of the bars; they read without colour.
const (
	glyphFull  = '█'
	glyphEmpty = '░'
)

// paints are the pane's styles as escape sequences, built per View (cheap: a few Renders).
type paints struct {
	bold, dim, label, ok, warn, over, err, fill theme.Paint
}

func newPaints(st theme.Styles) paints {
	return paints{
		bold: theme.NewPaint(st.Bold), dim: theme.NewPaint(st.Dim), label: theme.NewPaint(st.Label),
		ok: theme.NewPaint(st.OK), warn: theme.NewPaint(st.Warn), over: theme.NewPaint(st.Over),
		err: theme.NewPaint(st.Error), fill: theme.NewPaint(st.ComputeFill),
	}
}

// View renders the pane in exactly its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	p := newPaints(m.styles)
	var secs []section
	switch {
	case !m.probed:
		secs = []section{{lines: []string{p.dim.Wrap("probing the GPUs…")}, prio: 100}}
	case !m.hasBox:
		secs = m.noGPU(p)
	default:
		secs = m.boxSections(p)
	}
	return common.Fit(arrange(secs, m.h), m.w, m.h)
}

// noGPU is the panel shown when the probe found no GPU: the reason, what the tab would show, and
// how to bring a box from elsewhere.
func (m *Model) noGPU(p paints) []section {
	w := max(m.w, 1)
	title := "Probe failed: " + errText(m.err)
	if errors.Is(m.err, gpu.ErrNoGPU) {
		title = "No NVIDIA GPU here: " + reason(m.err)
	}
	head := paintAll(p.warn, wrapText(title, w, 0))
	var what []string
	what = append(what, paintAll(p.label, wrapText("On a machine with NVIDIA GPUs this tab shows, polled once a second:", w, 0))...)
	for _, b := range []string{
		"each GPU: memory used/total, utilisation, power, temperature, PCIe generation × width, NVLinks",
		"the topology matrix, as nvidia-smi topo -m prints it",
		"the host RAM (total, available, per NUMA node) and the cluster splitscope infers: GPU preset, count, intra-node link",
		"what fits: the best layout for the scenario's model on the GPUs alone, or only with offload and the host RAM it takes; the largest preset model for inference and for training",
		"u makes that box the scenario's hardware",
	} {
		what = append(what, bullet(b, w)...)
	}
	hint := wrapText("To plan for a GPU box from here: run `splitscope probe --save box.json` on it, "+
		"then `splitscope --box box.json` here (repeat --box for one file per node).", w, 0)
	return []section{
		{lines: head, prio: 100},
		{lines: what, prio: gapPrio - 1, cut: true}, // after the blank lines: it gives way line by line
		{lines: paintAll(p.dim, hint), prio: 80},
		{lines: []string{p.dim.Wrap("r probe again")}, prio: 10},
	}
}

// bullet is one wrapped list item with a hanging indent.
func bullet(text string, w int) []string {
	lines := wrapText(text, max(w-4, 1), 0)
	for i := range lines {
		if i == 0 {
			lines[i] = "  • " + lines[i]
		} else {
			lines[i] = "    " + lines[i]
		}
	}
	return lines
}

// reason is the probe error without the "no NVIDIA GPU: " that ErrNoGPU puts in front.
func reason(err error) string {
	s := errText(err)
	if r, ok := strings.CutPrefix(s, gpu.ErrNoGPU.Error()+": "); ok {
		return r
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// boxSections is the tab with a probed box, in screen order.
func (m *Model) boxSections(p paints) []section {
	w := max(m.w, 1)
	b := m.box
	head := []string{m.headLine(p)}
	if m.err != nil {
		head = append(head, paintAll(p.warn, wrapText("! last probe failed ("+errText(m.err)+"); showing the one before", w, 2))...)
	}
	secs := []section{
		{lines: head, prio: 100},
		{lines: m.gpuTable(p), prio: 90, cut: true},
	}
	if len(b.GPUs) > 1 {
		secs = append(secs,
			section{lines: m.topology(p), prio: 60},
			section{lines: []string{p.dim.Wrap(legend(topoEntries(b)))}, prio: 40, attached: true, parent: len(secs)})
	}
	cl := len(secs)
	secs = append(secs, section{lines: m.clusterLines(p), prio: 80})
	if warns := m.allWarnings(); len(warns) > 0 {
		var lines []string
		for _, s := range warns {
			lines = append(lines, paintAll(p.warn, wrapText("! "+s, w, 2))...)
		}
		secs = append(secs, section{lines: lines, prio: 50, attached: true, parent: cl})
	}
	secs = append(secs,
		section{lines: m.capacityLines(p), prio: 85},
		section{lines: []string{p.dim.Wrap("u use this box as the scenario's hardware · r probe now")}, prio: 10})
	return secs
}

// headLine names the GPUs, the driver and CUDA versions and the host, and says the tab is live.
func (m *Model) headLine(p paints) string {
	b := m.box
	parts := []string{p.bold.Wrap(gpuSummary(b.GPUs))}
	if b.Driver != "" {
		parts = append(parts, "driver "+b.Driver)
	}
	if b.CUDA != "" {
		parts = append(parts, "CUDA "+b.CUDA)
	}
	if b.Host != "" {
		parts = append(parts, b.Host)
	}
	state := "● live, every 1 s"
	switch {
	case m.source != "":
		state = "saved box " + m.source
	case !m.active:
		state = "○ paused"
	}
	parts = append(parts, p.dim.Wrap(state))
	return strings.Join(parts, " · ")
}

// gpuSummary is "4× NVIDIA L40S", or "2× NVIDIA H100 PCIe + 2× NVIDIA L40S" for a mixed box.
func gpuSummary(ds []gpu.Device) string {
	if len(ds) == 0 {
		return "no GPUs"
	}
	var names []string
	count := map[string]int{}
	for _, d := range ds {
		if count[d.Name] == 0 {
			names = append(names, d.Name)
		}
		count[d.Name]++
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%d× %s", count[n], orUnknown(n))
	}
	return strings.Join(parts, " + ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown GPU"
	}
	return s
}

// cell is a rendered table cell and its width in cells.
type cell struct {
	s string
	w int
}

func plain(p theme.Paint, text string) cell { return cell{p.Wrap(text), ansi.StringWidth(text)} }

// column is one column of the GPU table.
type column struct {
	head  string
	cells []cell
	right bool
	gap   int // spaces before it
	gone  bool
}

func (c *column) width() int {
	w := ansi.StringWidth(c.head)
	for _, x := range c.cells {
		w = max(w, x.w)
	}
	return w
}

// Columns of the GPU table, in screen order.
const (
	colIndex = iota
	colName
	colMem
	colMemBar
	colUtil
	colUtilBar
	colPower
	colTemp
	colPCIe
	colNVLink
	nCols
)

// gpuTable is one row per GPU; columns give way, least useful first, when the pane is narrow.
func (m *Model) gpuTable(p paints) []string {
	ds := m.box.GPUs
	barW := 8
	if m.w < 100 {
		barW = 6
	}
	build := func(barW int) []column {
		cols := make([]column, nCols)
		cols[colIndex] = column{head: "GPU", right: true}
		cols[colName] = column{head: "name", gap: 2}
		cols[colMem] = column{head: "memory used", right: true, gap: 2}
		cols[colMemBar] = column{gap: 1}
		cols[colUtil] = column{head: "util", right: true, gap: 2}
		cols[colUtilBar] = column{gap: 1}
		cols[colPower] = column{head: "power", right: true, gap: 2}
		cols[colTemp] = column{head: "temp", right: true, gap: 2}
		cols[colPCIe] = column{head: "PCIe", gap: 2}
		cols[colNVLink] = column{head: "NVLink", gap: 2}
		for _, d := range ds {
			memFrac, utilFrac := -1.0, -1.0
			if d.MemTotal > 0 && d.MemUsed >= 0 {
				memFrac = float64(d.MemUsed) / float64(d.MemTotal)
			}
			if d.UtilGPU >= 0 {
				utilFrac = float64(d.UtilGPU) / 100
			}
			cols[colIndex].cells = append(cols[colIndex].cells, plain(theme.Paint{}, strconv.Itoa(d.Index)))
			name := plain(theme.Paint{}, shortName(d.Name))
			if d.Lost {
				name = plain(p.err, shortName(d.Name)+" ✗ lost")
			}
			cols[colName].cells = append(cols[colName].cells, name)
			cols[colMem].cells = append(cols[colMem].cells, plain(theme.Paint{}, memText(d)))
			cols[colMemBar].cells = append(cols[colMemBar].cells, bar(p, memFrac, barW, memPaint(p, memFrac)))
			cols[colUtil].cells = append(cols[colUtil].cells, plain(theme.Paint{}, pct(d.UtilGPU)))
			cols[colUtilBar].cells = append(cols[colUtilBar].cells, bar(p, utilFrac, barW, p.fill))
			cols[colPower].cells = append(cols[colPower].cells, plain(theme.Paint{}, watts(d.PowerW)))
			cols[colTemp].cells = append(cols[colTemp].cells, plain(theme.Paint{}, celsius(d.TempC)))
			cols[colPCIe].cells = append(cols[colPCIe].cells, plain(theme.Paint{}, pcie(d)))
			cols[colNVLink].cells = append(cols[colNVLink].cells, plain(theme.Paint{}, nvlinks(d)))
		}
		return cols
	}
	cols := build(barW)
	// What gives way first: NVLink on a box without any, then temperature, power, PCIe, shorter
	// bars, NVLink, the utilisation bar and the memory bar.
	steps := []func(){
		func() {
			if !anyNVLink(ds) {
				cols[colNVLink].gone = true
			}
		},
		func() { cols[colTemp].gone = true },
		func() { cols[colPower].gone = true },
		func() { cols[colPCIe].gone = true },
		func() {
			if barW > 4 {
				gone := cols
				cols = build(4)
				for i := range cols {
					cols[i].gone = gone[i].gone
				}
			}
		},
		func() { cols[colNVLink].gone = true },
		func() { cols[colUtilBar].gone = true },
		func() { cols[colMemBar].gone = true },
	}
	for _, step := range steps {
		if tableWidth(cols) <= m.w {
			break
		}
		step()
	}
	widths := make([]int, len(cols))
	for i := range cols {
		widths[i] = cols[i].width()
	}
	row := func(get func(c *column) cell) string {
		var sb strings.Builder
		started := false
		for i := range cols {
			c := &cols[i]
			if c.gone {
				continue
			}
			if started {
				sb.WriteString(strings.Repeat(" ", c.gap))
			}
			started = true
			x := get(c)
			pad := strings.Repeat(" ", max(widths[i]-x.w, 0))
			if c.right {
				sb.WriteString(pad + x.s)
			} else {
				sb.WriteString(x.s + pad)
			}
		}
		return strings.TrimRight(sb.String(), " ")
	}
	out := []string{row(func(c *column) cell { return plain(p.label, c.head) })}
	for r := range ds {
		out = append(out, row(func(c *column) cell { return c.cells[r] }))
	}
	return out
}

func tableWidth(cols []column) int {
	w, started := 0, false
	for i := range cols {
		if cols[i].gone {
			continue
		}
		if started {
			w += cols[i].gap
		}
		started = true
		w += cols[i].width()
	}
	return w
}

// shortName drops the vendor prefix every name shares: the header line has the full one.
func shortName(n string) string {
	n = strings.TrimPrefix(n, "NVIDIA ")
	if n == "" {
		return "?"
	}
	return n
}

func gib(b int64) string { return strconv.FormatFloat(float64(b)/model.GiB, 'f', 1, 64) }

func memText(d gpu.Device) string {
	used, total := "?", "?"
	if d.MemUsed >= 0 {
		used = gib(d.MemUsed)
	}
	if d.MemTotal > 0 {
		total = gib(d.MemTotal)
	}
	return used + "/" + total + " GiB"
}

func pct(v int) string {
	if v < 0 {
		return "?"
	}
	return strconv.Itoa(v) + "%"
}

func watts(w float64) string {
	if w < 0 || math.IsNaN(w) {
		return "?"
	}
	return strconv.FormatFloat(w, 'f', 0, 64) + " W"
}

func celsius(c int) string {
	if c < 0 {
		return "?"
	}
	return strconv.Itoa(c) + "°C"
}

func orQ(v int) string {
	if v < 0 {
		return "?"
	}
	return strconv.Itoa(v)
}

// pcie is "gen4 ×16", with the maximum after it when the link runs below it (idle GPUs drop
// their PCIe generation to save power).
func pcie(d gpu.Device) string {
	s := "gen" + orQ(d.PCIeGen) + " ×" + orQ(d.PCIeW)
	if (d.PCIeMaxGen > 0 && d.PCIeMaxGen != d.PCIeGen) || (d.PCIeMaxW > 0 && d.PCIeMaxW != d.PCIeW) {
		s += " (max " + orQ(d.PCIeMaxGen) + " ×" + orQ(d.PCIeMaxW) + ")"
	}
	return s
}

// nvlinks is the active links and their version: "12 × v4"; "—" without NVLink.
func nvlinks(d gpu.Device) string {
	if len(d.NVLinks) == 0 {
		return "—"
	}
	active, version := d.ActiveNVLinks()
	ls := d.NVLinks
	if active == 0 {
		return fmt.Sprintf("0 of %d up", len(ls))
	}
	v := "v?"
	if version > 0 {
		v = "v" + strconv.Itoa(version)
	}
	return fmt.Sprintf("%d × %s", active, v)
}

func anyNVLink(ds []gpu.Device) bool {
	for _, d := range ds {
		for _, l := range d.NVLinks {
			if l.Active {
				return true
			}
		}
	}
	return false
}

// bar is a w-cell bar filled to frac; an unknown fraction (< 0) is an empty dim bar.
func bar(p paints, frac float64, w int, fill theme.Paint) cell {
	if frac < 0 || math.IsNaN(frac) {
		return cell{p.dim.Wrap(strings.Repeat(string(glyphEmpty), w)), w}
	}
	n := int(math.Round(min(frac, 1) * float64(w)))
	if frac > 0 && n == 0 {
		n = 1 // in use shows, however little
	}
	s := ""
	if n > 0 {
		s = fill.Wrap(strings.Repeat(string(glyphFull), n))
	}
	if n < w {
		s += p.dim.Wrap(strings.Repeat(string(glyphEmpty), w-n))
	}
	return cell{s, w}
}

// memPaint colours a memory bar by how full the GPU is.
func memPaint(p paints, frac float64) theme.Paint {
	switch {
	case frac >= 0.9:
		return p.over
	case frac >= 0.6:
		return p.warn
	}
	return p.ok
}

// topology is the matrix of common ancestors, as nvidia-smi topo -m prints it; with short labels
// when the full ones do not fit.
func (m *Model) topology(p paints) []string {
	topo := topoEntries(m.box)
	n := len(topo)
	widest := 1
	for _, row := range topo {
		for _, e := range row {
			widest = max(widest, ansi.StringWidth(e))
		}
	}
	label := func(i int) string { return "GPU" + strconv.Itoa(i) }
	lw := ansi.StringWidth(label(n-1)) + 2
	cw := max(widest, lw-2) + 2
	if lw+n*cw > m.w {
		label = strconv.Itoa
		lw = len(strconv.Itoa(n-1)) + 1
		cw = widest + 1
	}
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0)) }
	var sb strings.Builder
	sb.WriteString(strings.Repeat(" ", lw))
	for j := range n {
		sb.WriteString(pad(label(j), cw))
	}
	out := []string{p.label.Wrap(strings.TrimRight(sb.String(), " "))}
	for i := range n {
		sb.Reset()
		sb.WriteString(p.label.Wrap(pad(label(i), lw)))
		for j := range n {
			e := topo[i][j]
			cellText := pad(e, cw)
			if j == n-1 {
				cellText = e
			}
			sb.WriteString(topoPaint(p, e).Wrap(cellText))
		}
		out = append(out, sb.String())
	}
	return out
}

// topoEntries is the box's topology matrix, n×n for its n GPUs, with "?" where it says nothing.
func topoEntries(b gpu.Box) [][]string {
	n := len(b.GPUs)
	out := make([][]string, n)
	for i := range n {
		out[i] = make([]string, n)
		for j := range n {
			switch {
			case i < len(b.Topology) && j < len(b.Topology[i]) && b.Topology[i][j] != "":
				out[i][j] = b.Topology[i][j]
			case i == j:
				out[i][j] = "X"
			default:
				out[i][j] = "?"
			}
		}
	}
	return out
}

// topoPaint colours a topology entry by how fast that path is: NVLink fast, crossing sockets slow.
func topoPaint(p paints, e string) theme.Paint {
	switch {
	case strings.HasPrefix(e, "NV"):
		return p.ok
	case e == "PHB" || e == "NODE":
		return p.warn
	case e == "SYS":
		return p.over
	case e == "X" || e == "?":
		return p.dim
	}
	return theme.Paint{}
}

// legend explains the topology entries the matrix uses, in nvidia-smi's order.
func legend(topo [][]string) string {
	seen := map[string]bool{}
	nv := false
	for _, row := range topo {
		for _, e := range row {
			if strings.HasPrefix(e, "NV") {
				nv = true
			}
			seen[e] = true
		}
	}
	all := []struct{ key, text string }{
		{"X", "X self"},
		{"NV", "NV# a bonded set of # NVLinks"},
		{"PIX", "PIX one PCIe switch"},
		{"PXB", "PXB several PCIe switches"},
		{"PHB", "PHB PCIe host bridge"},
		{"NODE", "NODE host bridges in one NUMA node"},
		{"SYS", "SYS across CPU sockets"},
		{"?", "? unknown"},
	}
	var parts []string
	for _, e := range all {
		if (e.key == "NV" && nv) || (e.key == "X") || seen[e.key] {
			parts = append(parts, e.text)
		}
	}
	return strings.Join(parts, " · ")
}

// clusterLines is the cluster splitscope infers from the box, or why it cannot.
func (m *Model) clusterLines(p paints) []string {
	w := max(m.w, 1)
	if m.clusterErr != nil {
		return paintAll(p.err, wrapText("as a cluster: "+errText(m.clusterErr), w, 2))
	}
	if m.presets == nil {
		return nil
	}
	c := m.cluster
	kind := "preset"
	if strings.HasPrefix(c.GPU.ID, "generic-") {
		kind = "no preset: generic"
	}
	text := fmt.Sprintf("as a cluster: %d× %s (%s) · intra %s, %s per GPU · %s per GPU from the device",
		c.GPUs, c.GPU.ID, kind, c.Intra.ID, static.Bandwidth(c.Intra.Bandwidth), static.Bytes(c.GPU.MemoryBytes))
	if n := c.Nodes(); n > 1 {
		text += fmt.Sprintf(" · %d nodes × %d", n, c.GPUsPerNode)
	}
	text += " · " + hostLine(m.box, c)
	return wrapText(text, w, 2)
}

// hostLine is the host memory offload may fill: "host RAM 256 GiB (64.0 GiB per GPU), 201 GiB
// available", or the default assumed when the box does not say.
func hostLine(b gpu.Box, c model.Cluster) string {
	if c.HostMemoryDefault() {
		return fmt.Sprintf("host RAM unknown: %s per GPU assumed", static.Bytes(c.HostMemoryPerGPU()))
	}
	text := fmt.Sprintf("host RAM %s (%s per GPU)", static.Bytes(c.HostMemory()), static.Bytes(c.HostMemoryPerGPU()))
	if h := b.HostMemory; h != nil && h.AvailableBytes >= 0 {
		text += fmt.Sprintf(", %s available", static.Bytes(float64(h.AvailableBytes)))
	}
	return text
}

// allWarnings are the probe's and ToCluster's, each once.
func (m *Model) allWarnings() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range append(append([]string(nil), m.box.Warnings...), m.warnings...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// capacityLines is the verdict: the best layout for the scenario's model here, and the largest
// preset models that fit.
func (m *Model) capacityLines(p paints) []string {
	w := max(m.w, 1)
	base, ok := m.capBase()
	switch {
	case m.clusterErr != nil:
		return nil
	case !ok:
		return []string{p.dim.Wrap("capacity: waiting for the first evaluation…")}
	case !m.capHas || m.capShown != base:
		return []string{p.dim.Wrap("capacity on this box: computing…")}
	case m.capErr != nil:
		return paintAll(p.err, wrapText("capacity: "+errText(m.capErr), w, 2))
	}
	r := m.capRes
	id := base.Arch.Label()
	if base.Arch.ID == "" {
		id = "this model"
	}
	mode := "training"
	if base.Workload.Mode == model.Infer {
		mode = "inference"
	}
	line := func(c costmodel.Candidate) string {
		s := base
		s.Layout = c.Layout
		return fmt.Sprintf("%s · %s · %s/GPU", static.LayoutLine(s), timing(c.Report), static.Bytes(c.Report.Memory.Total))
	}
	var out []string
	switch g := r.OnGPUs(); {
	case g != nil:
		text := fmt.Sprintf("%s (%s) fits on the GPUs: %s", id, mode, line(*g))
		out = append(out, paintAll(p.ok, wrapText(text, w, 2))...)
		if b := static.FasterWithOffload(r); b != nil {
			out = append(out, wrapText("  faster with "+static.OffloadCost(*b, r)+": "+line(*b), w, 4)...)
		}
	case r.Best != nil:
		text := fmt.Sprintf("%s (%s) fits here only with %s: %s", id, mode, static.OffloadCost(*r.Best, r), line(*r.Best))
		out = append(out, paintAll(p.warn, wrapText(text, w, 2))...)
	default:
		text := fmt.Sprintf("%s (%s) on this box %s", id, mode, static.CapacityVerdict(r))
		out = append(out, paintAll(p.over, wrapText(text, w, 2))...)
	}
	text := "largest model that fits — inference: " + largest(r.LargestInfer, r.LargestInferLayout) + ", training"
	ga, gc := r.TrainOnGPUs()
	switch {
	case r.LargestTrain == nil:
		text += ": none"
	case ga != nil && ga.ID == r.LargestTrain.ID:
		text += " on the GPUs: " + largest(ga, gc)
	default:
		text += " on the GPUs: " + largest(ga, gc) +
			"; with offload: " + largest(r.LargestTrain, r.LargestTrainLayout)
		if c := r.LargestTrainLayout; c != nil {
			text += fmt.Sprintf(", %s host RAM per GPU of %s", static.Bytes(costmodel.HostNeed(*c)), static.Bytes(r.HostPerGPU))
			if r.HostDefault {
				text += " assumed"
			}
		}
	}
	return append(out, wrapText(text, w, 2)...)
}

// timing is the headline time of a report: TPOT and TTFT in inference, the step otherwise.
func timing(r costmodel.Report) string {
	if r.Inference != nil {
		return "TPOT " + static.Seconds(r.Inference.TPOT) + " · TTFT " + static.Seconds(r.Inference.TTFT)
	}
	return "step " + static.Seconds(r.StepTime)
}

// largest is "llama-3-70b (TP=4 PP=2)", or "none".
func largest(a *model.Arch, c *costmodel.Candidate) string {
	if a == nil {
		return "none"
	}
	if c == nil {
		return a.ID
	}
	l := c.Layout
	s := fmt.Sprintf("TP=%d", l.TP)
	if l.PP > 1 {
		s += fmt.Sprintf(" PP=%d", l.PP)
	}
	if l.DP > 1 {
		s += fmt.Sprintf(" DP=%d", l.DP)
	}
	return a.ID + " (" + s + ")"
}

// wrapText word-wraps plain text to w cells at spaces only (flags like --box stay whole);
// continuation lines get indent spaces; a word wider than a line is cut.
func wrapText(text string, w, indent int) []string {
	w = max(w, 1)
	if ansi.StringWidth(text) <= w {
		return []string{text}
	}
	if w <= indent+4 {
		indent = 0
	}
	var out []string
	line, lineW := "", 0
	limit := w
	flush := func() {
		out = append(out, line)
		line, lineW, limit = strings.Repeat(" ", indent), indent, w
	}
	for _, word := range strings.Fields(text) {
		ww := ansi.StringWidth(word)
		if lineW > 0 && strings.TrimSpace(line) != "" && lineW+1+ww > limit {
			flush()
		}
		for ww > limit-lineW && limit-lineW > 0 { // a word wider than the line
			n := limit - lineW
			if strings.TrimSpace(line) != "" {
				line += " "
				n--
			}
			line += ansi.Cut(word, 0, n)
			word = ansi.Cut(word, n, ww)
			ww = ansi.StringWidth(word)
			flush()
		}
		if ww == 0 {
			continue
		}
		if strings.TrimSpace(line) != "" {
			line += " "
			lineW++
		}
		line += word
		lineW += ww
	}
	if strings.TrimSpace(line) != "" {
		out = append(out, line)
	}
	return out
}

func paintAll(p theme.Paint, lines []string) []string {
	for i := range lines {
		lines[i] = p.Wrap(lines[i])
	}
	return lines
}

// section is a block of the pane. When the height runs short, sections are kept by priority
// (highest first) and blank lines between them come after priority gapPrio; an attached section
// (a legend, warnings) sits right under its parent, without a blank line, and only with it. The
// caller's sections may have their lines cut.
type section struct {
	lines    []string
	prio     int
	attached bool
	parent   int
	cut      bool // may show its first lines only
}

// gapPrio is where blank lines between sections rank among the sections.
const gapPrio = 45

// arrange picks the sections that fit in h lines and lays them out in order.
func arrange(secs []section, h int) []string {
	order := make([]int, len(secs))
	for i := range order {
		order[i] = i
	}
	// Stable insertion sort by priority, highest first (a handful of sections).
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && secs[order[j]].prio > secs[order[j-1]].prio; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	in := make([]bool, len(secs))
	used, blocks, gaps, gapsDecided := 0, 0, false, false
	for _, i := range order {
		s := secs[i]
		if !gapsDecided && s.prio < gapPrio {
			gapsDecided = true
			if need := max(blocks-1, 0); used+need <= h {
				gaps, used = true, used+need
			}
		}
		if len(s.lines) == 0 || (s.attached && !in[s.parent]) {
			continue
		}
		cost := len(s.lines)
		if !s.attached && gaps && blocks > 0 {
			cost++
		}
		fits := used+cost <= h
		if !fits && (blocks == 0 || s.cut) && used < h {
			// The first section always shows, and a cuttable one takes what is left.
			keep := max(h-used-(cost-len(s.lines)), 1)
			secs[i].lines = s.lines[:min(keep, len(s.lines))]
			cost -= len(s.lines) - len(secs[i].lines)
			fits = true
		}
		if fits {
			in[i], used = true, used+cost
			if !s.attached {
				blocks++
			}
		}
	}
	if !gapsDecided && used+max(blocks-1, 0) <= h {
		gaps = true
	}
	var out []string
	for i, s := range secs {
		if !in[i] {
			continue
		}
		if gaps && !s.attached && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, s.lines...)
	}
	return out
}
