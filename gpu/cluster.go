package gpu

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/splitscope/splitscope/model"
)

// MatchGPU maps an NVML device name to a GPU preset: "NVIDIA A100-SXM4-80GB" → a100-sxm-80gb,
// "NVIDIA A100 80GB PCIe" → a100-pcie-80gb, "NVIDIA H100 80GB HBM3" → h100-sxm, "NVIDIA H100 PCIe"
// → h100-pcie, "NVIDIA H100 NVL" → h100-nvl, "NVIDIA H200" → h200-sxm, "NVIDIA GH200 480GB" →
// gh200, "NVIDIA B200" → b200, "NVIDIA L40S" → l40s, "NVIDIA L4" → l4, "NVIDIA A10G" → a10g,
// "NVIDIA GeForce RTX 4090" → rtx-4090, "NVIDIA RTX PRO 6000 Blackwell Server Edition" →
// rtx-pro-6000, "Tesla V100-SXM2-32GB" → v100-sxm, "AMD Instinct MI325X" → mi325x, and so on. A
// name that is exactly a preset's name or ID matches it too. ok is false for anything else
// (L40, A10, RTX 4090 D, V100 PCIe, …): ToCluster then builds a generic GPU.
func MatchGPU(name string, presets []model.GPU) (model.GPU, bool) {
	if id := presetID(name); id != "" {
		for _, g := range presets {
			if g.ID == id {
				return g, true
			}
		}
		return model.GPU{}, false
	}
	n := strings.TrimSpace(name)
	for _, g := range presets {
		if n != "" && (strings.EqualFold(n, g.Name) || strings.EqualFold(n, g.ID)) {
			return g, true
		}
	}
	return model.GPU{}, false
}

// presetID is the preset a device name stands for, "" if none.
func presetID(name string) string {
	toks := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(toks) == 0 {
		return ""
	}
	has := func(w string) bool {
		for _, t := range toks {
			if t == w {
				return true
			}
		}
		return false
	}
	hasPrefix := func(p string) bool {
		for _, t := range toks {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
		return false
	}
	last := toks[len(toks)-1]
	switch {
	case has("a100"):
		form, mem := "sxm", "40gb"
		if has("pcie") {
			form = "pcie"
		}
		if has("80gb") {
			mem = "80gb"
		}
		return "a100-" + form + "-" + mem
	case has("gh200"):
		return "gh200"
	case has("gb200"):
		return "gb200"
	case has("h100"):
		switch {
		case has("nvl"):
			return "h100-nvl"
		case has("pcie"):
			return "h100-pcie"
		}
		return "h100-sxm"
	case has("h20"):
		return "h20"
	case has("h200"):
		if has("pcie") || has("nvl") {
			return "" // H200 NVL: a PCIe card with less power than the SXM part; no preset
		}
		return "h200-sxm"
	case has("b200"):
		return "b200"
	case has("l40s"):
		return "l40s"
	case has("l4"):
		return "l4"
	case has("a10g"):
		return "a10g"
	case has("rtx") && has("pro") && has("6000"):
		return "rtx-pro-6000"
	case has("rtx") && has("6000") && has("ada"):
		return "rtx-6000-ada"
	case has("v100"):
		if hasPrefix("sxm") {
			return "v100-sxm"
		}
		return ""
	case has("rtx") && last == "4090":
		return "rtx-4090"
	case has("rtx") && last == "3090":
		return "rtx-3090"
	case has("rtx") && last == "5090":
		return "rtx-5090"
	case has("mi300x"):
		return "mi300x"
	case has("mi325x"):
		return "mi325x"
	}
	return ""
}

// ToCluster turns one box per node into a cluster.
//
//   - GPU: the preset the device names match (MatchGPU). An unknown name becomes a generic GPU
//     ("generic-<preset>") built on a conservative NVIDIA preset (the slowest of those closest in
//     memory), with a warning. Mixed types warn and the weakest sets the pace: the GPU with the
//     lowest effective BF16 rate (peak × compute_eff); if another has the lower effective memory
//     bandwidth, a "mixed-<a>+<b>" GPU takes its HBM figures (L40S + A100: the A100's compute,
//     the L40S's bandwidth).
//   - MemoryBytes: the smallest memory_total_bytes of the GPUs used.
//   - Intra: NVLink when every pair of GPUs shares active NVLinks ("NV<n>" in the topology): the
//     generation's link preset (nvlink2..5), its Bandwidth scaled by n / the generation's full
//     link count (6, 12, 18, 18) for the weakest pair. Otherwise PCIe: pcie3/4/5 from the lowest
//     PCIe generation of the GPUs (the maximum the device and the system allow, since the current
//     one drops while the GPU idles; the current one if the maximum is unknown), on the farthest
//     path between two of them: the -sys variant when some pair crosses CPU sockets (SYS), -host
//     when some pair goes through a host bridge (PHB, NODE), the plain preset under switches
//     (PIX, PXB); Bandwidth scaled below x16.
//   - Peer-to-peer over PCIe, as NVML reports it (the box's P2P matrix): a pair without it ("NS")
//     stages the intra link through host memory (Staged, "-nop2p"); P2P between every pair of
//     GPUs whose preset has none (a driver that enables it) clears the GPU's NoP2P; an unknown
//     status keeps the preset's fact.
//   - GPUsPerNode: the GPUs of a box; GPUs: the sum over the boxes, which must all have the same
//     number. Lost GPUs (and GPUs with unknown memory) are left out with a warning.
//   - HostMemoryBytes: the smallest host_memory total of the boxes (0, the default, when one
//     does not say), with a warning when they differ.
//   - Inter: inter, with nicsPerNode NICs per node (GPUsPerNode when nicsPerNode <= 0). Several
//     boxes need an inter link; a single box takes inter as it is.
//
// The strings returned are warnings for people.
func ToCluster(boxes []Box, gpus []model.GPU, links []model.Link, inter model.Link, nicsPerNode int) (model.Cluster, []string, error) {
	var warns []string
	if len(boxes) == 0 {
		return model.Cluster{}, nil, errors.New("no box: probe this machine or give box files")
	}
	type node struct {
		label string // "node-1: " with several boxes, "" with one
		box   Box
		use   []int
	}
	nodes := make([]node, len(boxes))
	for k, b := range boxes {
		n := node{box: b}
		if len(boxes) > 1 {
			n.label = b.Host
			if n.label == "" {
				n.label = fmt.Sprintf("box %d", k+1)
			}
			n.label += ": "
		}
		if len(b.GPUs) > model.MaxGPUsPerNode {
			return model.Cluster{}, warns, fmt.Errorf("%s%d GPUs: a box is one node, at most %d GPUs", labelOr(n.label, "box"), len(b.GPUs), model.MaxGPUsPerNode)
		}
		for i, d := range b.GPUs {
			switch {
			case d.Lost:
				warns = append(warns, fmt.Sprintf("%sGPU %d (%s) was lost during the probe; left out", n.label, d.Index, d.Name))
			case d.MemTotal <= 0:
				warns = append(warns, fmt.Sprintf("%sGPU %d (%s): memory unknown; left out", n.label, d.Index, d.Name))
			default:
				n.use = append(n.use, i)
			}
		}
		if len(n.use) == 0 {
			return model.Cluster{}, warns, fmt.Errorf("%sno usable GPU in the box", labelOr(n.label, "box"))
		}
		nodes[k] = n
	}
	per := len(nodes[0].use)
	for _, n := range nodes[1:] {
		if len(n.use) != per {
			return model.Cluster{}, warns, fmt.Errorf("boxes need the same number of GPUs each: %s%d, %s%d",
				nodes[0].label, per, n.label, len(n.use))
		}
	}
	if per*len(nodes) > model.MaxGPUs {
		return model.Cluster{}, warns, fmt.Errorf("%d boxes of %d GPUs: at most %d GPUs in all", len(nodes), per, model.MaxGPUs)
	}

	// GPU type: one per distinct device name, in order of appearance.
	type kind struct {
		name  string
		count int
		mem   int64 // smallest
		gpu   model.GPU
	}
	var kinds []*kind
	byName := map[string]*kind{}
	minMem := int64(math.MaxInt64)
	for _, n := range nodes {
		for _, i := range n.use {
			d := n.box.GPUs[i]
			k := byName[d.Name]
			if k == nil {
				k = &kind{name: d.Name, mem: d.MemTotal}
				byName[d.Name] = k
				kinds = append(kinds, k)
			}
			k.count++
			k.mem = min(k.mem, d.MemTotal)
			minMem = min(minMem, d.MemTotal)
		}
	}
	for _, k := range kinds {
		if g, ok := MatchGPU(k.name, gpus); ok {
			k.gpu = g
			continue
		}
		base, ok := closestPreset(k.mem, gpus)
		if !ok {
			return model.Cluster{}, warns, fmt.Errorf("GPU %q is not a preset and there is no NVIDIA preset to model it on", k.name)
		}
		k.gpu = base
		k.gpu.ID = "generic-" + base.ID
		k.gpu.Name = fmt.Sprintf("%s (generic, modelled on %s)", k.name, base.Name)
		k.gpu.MemoryBytes = float64(k.mem)
		k.gpu.Source = fmt.Sprintf("generic: %q is not a preset; peaks and bandwidths of %s, memory from the device", k.name, base.ID)
		warns = append(warns, fmt.Sprintf("unknown GPU %q: modelled as a generic GPU with the peaks of %s (the preset closest in memory) and its real memory, %.1f GiB; pass --gpu to choose",
			k.name, base.ID, float64(k.mem)/model.GiB))
	}
	gpu := kinds[0].gpu
	ids := map[string]bool{}
	for _, k := range kinds {
		ids[k.gpu.ID] = true
	}
	if len(ids) > 1 {
		parts := make([]string, len(kinds))
		gs := make([]model.GPU, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%d× %s", k.count, k.name)
			gs[i] = k.gpu
		}
		var how string
		gpu, how = weakest(gs)
		warns = append(warns, fmt.Sprintf("mixed GPUs (%s): %s", strings.Join(parts, ", "), how))
	}
	gpu.MemoryBytes = float64(minMem)
	if gpu.NoP2P && !slices.ContainsFunc(nodes, func(n node) bool { return !allP2P(n.box, n.use) }) {
		gpu.NoP2P = false
		warns = append(warns, fmt.Sprintf("NVML reports peer-to-peer between every pair of GPUs, which %s lacks with NVIDIA's stock driver (a driver that enables it?): modelled with peer-to-peer", gpu.ID))
	}

	// Intra-node link: the slowest over the nodes.
	var intra model.Link
	intraIDs := map[string]bool{}
	for k, n := range nodes {
		l, w, err := intraLink(n.box, n.use, gpu, links)
		for _, s := range w {
			warns = append(warns, n.label+s)
		}
		if err != nil {
			return model.Cluster{}, warns, fmt.Errorf("%s%w", n.label, err)
		}
		intraIDs[l.ID] = true
		if k == 0 || l.EffBandwidth() < intra.EffBandwidth() {
			intra = l
		}
	}
	if len(intraIDs) > 1 {
		warns = append(warns, fmt.Sprintf("the nodes' GPUs are linked differently; the slowest link, %s, is used", intra.ID))
	}

	if len(nodes) > 1 && inter.Bandwidth <= 0 {
		return model.Cluster{}, warns, fmt.Errorf("%d boxes need an inter-node link (--inter)", len(nodes))
	}
	nics := nicsPerNode
	if nics <= 0 {
		nics = per
	}
	bs := make([]Box, len(nodes))
	for i, n := range nodes {
		bs[i] = n.box
	}
	host, hw := hostMemory(bs)
	warns = append(warns, hw...)
	return model.Cluster{
		GPU:             gpu,
		GPUs:            per * len(nodes),
		GPUsPerNode:     per,
		Intra:           intra,
		Inter:           inter,
		NICsPerNode:     nics,
		HostMemoryBytes: host,
	}, warns, nil
}

// hostMemory is the cluster's host memory per node: the smallest of the boxes' totals (the
// cluster's nodes are identical, and offload must fit on each), or 0 (the default, which the
// capacity verdict states) when a box does not say.
func hostMemory(boxes []Box) (float64, []string) {
	var least int64
	distinct := map[int64]bool{}
	for _, b := range boxes {
		if b.HostMemory == nil || b.HostMemory.TotalBytes <= 0 {
			return 0, nil
		}
		t := b.HostMemory.TotalBytes
		distinct[t] = true
		if least == 0 || t < least {
			least = t
		}
	}
	var w []string
	if len(distinct) > 1 {
		w = append(w, fmt.Sprintf("the nodes' host memory differs; the smallest, %.1f GiB, is used for each", float64(least)/model.GiB))
	}
	return float64(least), w
}

// weakest is the GPU that sets the pace in a mixed box: the compute figures (peaks and
// ComputeEff) of the GPU with the lowest effective BF16 rate (peak × efficiency), the memory
// figures (HBMBandwidth, MemoryEff) of the one with the lowest effective bandwidth. When one GPU
// is the weaker in both, it is that GPU's preset; otherwise a "mixed" GPU joining the two.
func weakest(gs []model.GPU) (model.GPU, string) {
	comp, mem := gs[0], gs[0]
	for _, g := range gs[1:] {
		if g.PeakBF16*g.ComputeEff < comp.PeakBF16*comp.ComputeEff {
			comp = g
		}
		if g.HBMBandwidth*g.MemoryEff < mem.HBMBandwidth*mem.MemoryEff {
			mem = g
		}
	}
	if comp.ID == mem.ID {
		return comp, fmt.Sprintf("the slowest, %s, sets the pace", comp.ID)
	}
	w := comp
	w.ID = "mixed-" + comp.ID + "+" + mem.ID
	w.Name = fmt.Sprintf("mixed: compute of %s, memory bandwidth of %s", comp.Name, mem.Name)
	w.HBMBandwidth, w.MemoryEff, w.GEMMMemoryEff = mem.HBMBandwidth, mem.MemoryEff, mem.GEMMMemoryEff
	w.PCIeLink = min(comp.PCIeLink, mem.PCIeLink)
	if comp.NativeLink != mem.NativeLink {
		w.NativeLink = w.PCIeLink
	}
	w.TDPWatts = 0
	w.Source = fmt.Sprintf("mixed box: peaks of %s, HBM bandwidth of %s, memory from the devices", comp.ID, mem.ID)
	return w, fmt.Sprintf("the weakest sets the pace: compute of %s (%.0f TFLOPS BF16), memory bandwidth of %s (%.0f GB/s)",
		comp.ID, comp.PeakBF16/1e12, mem.ID, mem.HBMBandwidth/1e9)
}

func labelOr(label, alt string) string {
	if label == "" {
		return alt + ": "
	}
	return label
}

// closestPreset models an unknown GPU of mem bytes on an NVIDIA preset: of the presets within
// 10% of the device's memory of the closest one, the slowest (lowest BF16 peak); the slowest of
// all when mem is unknown.
func closestPreset(mem int64, gpus []model.GPU) (model.GPU, bool) {
	var cands []model.GPU
	for _, g := range gpus {
		if !strings.HasPrefix(strings.ToUpper(g.Name), "AMD") && g.NativeLink != "xgmi" {
			cands = append(cands, g)
		}
	}
	if len(cands) == 0 {
		return model.GPU{}, false
	}
	dist := func(g model.GPU) float64 {
		if mem <= 0 {
			return 0
		}
		return math.Abs(g.MemoryBytes - float64(mem))
	}
	closest := math.Inf(1)
	for _, g := range cands {
		closest = min(closest, dist(g))
	}
	best := -1
	for i, g := range cands {
		if dist(g) > closest+0.1*float64(max(mem, 0)) {
			continue
		}
		if best < 0 || g.PeakBF16 < cands[best].PeakBF16 || (g.PeakBF16 == cands[best].PeakBF16 && dist(g) < dist(cands[best])) {
			best = i
		}
	}
	return cands[best], true
}

// nvlinkFullLinks is the link count of a full NVLink of each generation (the presets' figure).
var nvlinkFullLinks = map[int]int{2: 6, 3: 12, 4: 18, 5: 18}

// intraLink picks the link between the GPUs use of one box.
func intraLink(b Box, use []int, gpu model.GPU, links []model.Link) (model.Link, []string, error) {
	ps := summarisePairs(b, use)
	switch {
	case ps.minNV > 0: // every pair shares NVLinks
		l, w, ok := nvlinkFor(b, use, ps.minNV, gpu, links)
		if ok {
			return l, w, nil
		}
		pl, pw, err := pcieFor(b, use, ps, gpu, links)
		return pl, append(w, pw...), err
	case ps.someNV:
		l, w, err := pcieFor(b, use, ps, gpu, links)
		return l, append([]string{"NVLink joins only some GPU pairs; the others talk over PCIe, which sets the pace"}, w...), err
	}
	return pcieFor(b, use, ps, gpu, links)
}

// pairSummary is what the topology and P2P matrices say about the pairs of GPUs a box uses.
type pairSummary struct {
	minNV   int  // the fewest NVLinks joining a pair: 0 when some pair has none (or one GPU)
	someNV  bool // some pair shares NVLinks
	sys     bool // some pair without NVLink crosses CPU sockets ("SYS")
	host    bool // some pair without NVLink goes through a host bridge ("PHB", "NODE")
	unknown bool // some pair without NVLink has an unknown topology ("?")
	// noP2P is the first pair (box indices) whose P2P status is "NS", ok false when none is.
	noP2P struct {
		i, j int
		ok   bool
	}
}

// allP2P reports whether NVML says every pair of the GPUs use has peer-to-peer ("OK" both ways).
func allP2P(b Box, use []int) bool {
	if len(use) < 2 || !isSquare(b.P2P, len(b.GPUs)) {
		return false
	}
	for a, i := range use {
		for _, j := range use[a+1:] {
			if b.P2P[i][j] != "OK" || b.P2P[j][i] != "OK" {
				return false
			}
		}
	}
	return true
}

// summarisePairs reads the topology of every pair of the GPUs use once. A pair's NVLinks may
// be written on either side of the diagonal. A matrix that is not n×n for the box's n GPUs
// (ParseBox refuses those; a box built in memory may have none) says "?" for every pair: it is
// not read at all, so that a large box without a matrix costs nothing per pair, and the work
// stays in proportion to the matrix, which is the size of the input.
func summarisePairs(b Box, use []int) pairSummary {
	var ps pairSummary
	if len(use) < 2 {
		return ps
	}
	if isSquare(b.P2P, len(b.GPUs)) {
	p2p:
		for a, i := range use {
			for _, j := range use[a+1:] {
				if b.P2P[i][j] == "NS" || b.P2P[j][i] == "NS" {
					ps.noP2P.i, ps.noP2P.j, ps.noP2P.ok = i, j, true
					break p2p
				}
			}
		}
	}
	if !isSquare(b.Topology, len(b.GPUs)) {
		ps.unknown = true
		return ps
	}
	ps.minNV = math.MaxInt
	for a, i := range use {
		for _, j := range use[a+1:] {
			t := b.Topology[i][j]
			n := nvCount(t)
			if n == 0 {
				n = nvCount(b.Topology[j][i])
			}
			ps.minNV = min(ps.minNV, n)
			switch {
			case n > 0:
				ps.someNV = true
			case t == "SYS":
				ps.sys = true
			case t == "PHB" || t == "NODE":
				ps.host = true
			case t == "?":
				ps.unknown = true
			}
		}
	}
	return ps
}

// isSquare reports whether m is an n×n matrix.
func isSquare(m [][]string, n int) bool {
	if len(m) != n {
		return false
	}
	for _, row := range m {
		if len(row) != n {
			return false
		}
	}
	return true
}

// nvlinkFor is the NVLink preset of the GPUs' generation scaled to n links per pair; ok is false
// when no NVLink preset fits (the caller falls back to PCIe).
func nvlinkFor(b Box, use []int, n int, gpu model.GPU, links []model.Link) (model.Link, []string, bool) {
	var warns []string
	gen := Unknown
	for _, i := range use {
		for _, l := range b.GPUs[i].NVLinks {
			if l.Active && l.Version > 0 && (gen == Unknown || l.Version < gen) {
				gen = l.Version
			}
		}
	}
	native := 0 // the GPU's own NVLink generation; NVML's version numbers have been confusing
	if g, ok := strings.CutPrefix(gpu.NativeLink, "nvlink"); ok && !strings.HasPrefix(gpu.ID, "generic-") {
		native, _ = strconv.Atoi(g)
	}
	switch {
	case native > 0 && gen > 0 && gen != native:
		warns = append(warns, fmt.Sprintf("NVML reports NVLink %d, but %s has NVLink %d; using nvlink%d", gen, gpu.ID, native, native))
		gen = native
	case gen <= 0 && native > 0:
		gen = native
	case gen <= 0:
		return model.Link{}, []string{"NVLink version unknown; assuming PCIe"}, false
	}
	if gen > 5 {
		warns = append(warns, fmt.Sprintf("NVLink %d has no preset; modelled as nvlink5", gen))
		gen = 5
	}
	base, ok := findLink(links, fmt.Sprintf("nvlink%d", gen))
	if !ok {
		return model.Link{}, append(warns, fmt.Sprintf("no link preset for NVLink %d; assuming PCIe", gen)), false
	}
	full := nvlinkFullLinks[gen]
	if full == 0 || n >= full {
		return base, warns, true
	}
	l := base
	l.ID = fmt.Sprintf("%s-x%d", base.ID, n)
	l.Name = fmt.Sprintf("%s: %d of %d links per pair", base.Name, n, full)
	l.Bandwidth = base.Bandwidth * float64(n) / float64(full)
	l.Source = strings.TrimSpace(fmt.Sprintf("%s; scaled to %d/%d links from the probe", base.Source, n, full))
	warns = append(warns, fmt.Sprintf("GPU pairs share only %d of NVLink %d's %d links: %.0f GB/s instead of %.0f", n, gen, full, l.Bandwidth/1e9, base.Bandwidth/1e9))
	return l, warns, true
}

// pcieFor is the PCIe preset for the GPUs' generation, across sockets if some pair is.
func pcieFor(b Box, use []int, ps pairSummary, gpu model.GPU, links []model.Link) (model.Link, []string, error) {
	var warns []string
	gen, width := Unknown, Unknown
	for _, i := range use {
		d := b.GPUs[i]
		g := d.PCIeMaxGen
		if g <= 0 {
			g = d.PCIeGen
		}
		if g > 0 && (gen == Unknown || g < gen) {
			gen = g
		}
		w := d.PCIeMaxW
		if w <= 0 {
			w = d.PCIeW
		}
		if w > 0 && (width == Unknown || w < width) {
			width = w
		}
	}
	switch {
	case gen <= 0:
		g, ok := strings.CutPrefix(gpu.PCIeLink, "pcie")
		if n, err := strconv.Atoi(g); ok && err == nil {
			gen = n
		} else {
			gen = 4
		}
		warns = append(warns, fmt.Sprintf("PCIe generation unknown; assuming PCIe %d (%s's bus)", gen, gpu.ID))
	case gen < 3:
		warns = append(warns, fmt.Sprintf("PCIe %d: modelled as PCIe 3", gen))
		gen = 3
	case gen > 5:
		warns = append(warns, fmt.Sprintf("PCIe %d has no preset; modelled as PCIe 5", gen))
		gen = 5
	}
	id := fmt.Sprintf("pcie%d", gen)
	base, ok := findLink(links, id)
	if !ok {
		return model.Link{}, warns, fmt.Errorf("no link preset %q", id)
	}
	// The farthest path between two of the GPUs sets the pace of a ring through them all.
	path, suffix := model.PathSwitch, ""
	switch {
	case ps.sys:
		path, suffix = model.PathSocket, "-sys"
	case ps.host:
		path, suffix = model.PathHost, "-host"
	case ps.unknown:
		warns = append(warns, "PCIe topology unknown for some GPU pairs; assuming they share a PCIe switch (through the host bridge or across sockets is slower)")
	}
	if suffix != "" {
		if l, ok := findLink(links, id+suffix); ok && l.PCIePath == path && !l.Staged {
			base = l
		} else {
			base.ID, base.PCIePath = id+suffix, path
			base.Name = fmt.Sprintf("%s, %s", base.Name, path.Route())
			base.Source = strings.TrimSpace(fmt.Sprintf("%s; path from the probe: %s", base.Source, path.Route()))
		}
	}
	l := base
	if width > 0 && width < 16 {
		l.ID = fmt.Sprintf("%s-x%d", base.ID, width)
		l.Name = fmt.Sprintf("%s at x%d", base.Name, width)
		l.Bandwidth = base.Bandwidth * float64(width) / 16
		l.Source = strings.TrimSpace(fmt.Sprintf("%s; scaled to x%d from the probe", base.Source, width))
		warns = append(warns, fmt.Sprintf("GPUs run PCIe x%d: %.1f GB/s instead of %.1f", width, l.Bandwidth/1e9, base.Bandwidth/1e9))
	}
	if ps.noP2P.ok {
		l.Staged = true
		l.ID += "-nop2p"
		l.Name += ", without peer-to-peer"
		l.Source = strings.TrimSpace(l.Source + "; no peer-to-peer per NVML: staged through host memory")
		if !gpu.NoP2P { // a card without P2P is no news; a datacenter card without it is
			warns = append(warns, fmt.Sprintf("NVML reports no peer-to-peer between GPUs %d and %d: every transfer is staged through host memory (about half the PCIe bandwidth, a slower step)",
				b.GPUs[ps.noP2P.i].Index, b.GPUs[ps.noP2P.j].Index))
		}
	}
	return l, warns, nil
}

func findLink(links []model.Link, id string) (model.Link, bool) {
	for _, l := range links {
		if l.ID == id {
			return l, true
		}
	}
	return model.Link{}, false
}
