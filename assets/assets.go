// Package assets embeds splitscope's preset models, GPUs and interconnects (presets/*.yaml, one
// row per item, each row citing its source) and loads them into model types.
//
// The files use the units datasheets use (TFLOPS, GiB, GB/s, µs); loading converts them to the
// SI units of package model (FLOP/s, bytes, bytes/s, seconds) and rejects bad rows with errors
// that name the file, the row, its line and the field. Every bad row is reported, not just the
// first.
package assets

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/splitscope/splitscope/model"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Paths of the preset files inside the file system given to Parse (and inside the embedded one).
const (
	ModelsFile = "presets/models.yaml"
	GPUsFile   = "presets/gpus.yaml"
	LinksFile  = "presets/links.yaml"
)

// Presets is every model, GPU and link preset, in file order.
type Presets struct {
	Models []model.Arch
	GPUs   []model.GPU
	Links  []model.Link
	// ModelFile reads a model from a Hugging Face config.json (or the folder holding one) for a
	// scenario file's model: key; nil: model: names presets only. The caller supplies it (the
	// CLI's bounded reader): assets reads no file of the user's itself.
	ModelFile func(path string) (model.Arch, error)
}

// LooksLikeConfigPath says whether a model value names a file rather than a preset: a path
// separator, or a .json name.
func LooksLikeConfigPath(v string) bool {
	return strings.ContainsAny(v, `/\`) || strings.HasSuffix(strings.ToLower(v), ".json")
}

// ErrUnknownID is wrapped by the lookup methods when no preset has the ID asked for.
var ErrUnknownID = errors.New("unknown preset id")

var loadEmbedded = sync.OnceValues(func() (*Presets, error) { return Parse(presetFS) })

// Load returns the embedded presets. They are parsed once; each call returns its own copy, so a
// caller may change what it gets without affecting other callers.
func Load() (*Presets, error) {
	p, err := loadEmbedded()
	if err != nil {
		return nil, err
	}
	return p.clone(), nil
}

// Parse reads ModelsFile, GPUsFile and LinksFile from fsys, checks every row and converts the
// units. On failure it returns an Errors listing every problem found.
func Parse(fsys fs.FS) (*Presets, error) {
	var errs Errors
	p := &Presets{}
	p.Models = parseModels(fsys, &errs)
	links, linksRead := parseLinks(fsys, &errs)
	p.Links = links.items
	p.GPUs = parseGPUs(fsys, links.kinds, linksRead, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	// Each GPU's host bandwidth is its PCIe link's (what offloading moves over).
	for i, g := range p.GPUs {
		if l, err := p.Link(g.PCIeLink); err == nil {
			p.GPUs[i].HostBandwidth = l.Bandwidth * l.Efficiency
		}
	}
	return p, nil
}

// Model returns the model preset with this ID (case-insensitive).
func (p *Presets) Model(id string) (model.Arch, error) {
	var items []model.Arch
	if p != nil {
		items = p.Models
	}
	return find(items, id, "model", func(a model.Arch) string { return a.ID })
}

// GPU returns the GPU preset with this ID (case-insensitive).
func (p *Presets) GPU(id string) (model.GPU, error) {
	var items []model.GPU
	if p != nil {
		items = p.GPUs
	}
	return find(items, id, "gpu", func(g model.GPU) string { return g.ID })
}

// Link returns the link preset with this ID (case-insensitive).
func (p *Presets) Link(id string) (model.Link, error) {
	var items []model.Link
	if p != nil {
		items = p.Links
	}
	return find(items, id, "link", func(l model.Link) string { return l.ID })
}

func find[T any](items []T, id, kind string, key func(T) string) (T, error) {
	want := strings.ToLower(strings.TrimSpace(id))
	known := make([]string, len(items))
	for i, it := range items {
		if key(it) == want {
			return it, nil
		}
		known[i] = key(it)
	}
	var zero T
	return zero, fmt.Errorf("assets: %s %q: %w (known: %s)", kind, id, ErrUnknownID, strings.Join(known, ", "))
}

func (p *Presets) clone() *Presets {
	return &Presets{Models: slices.Clone(p.Models), GPUs: slices.Clone(p.GPUs), Links: slices.Clone(p.Links)}
}

// Unit conversions from the files' units to package model's SI units.
const (
	tera     = 1e12 // TFLOPS -> FLOP/s
	giga     = 1e9  // GB/s -> bytes/s
	perMicro = 1e6  // µs per s
	maxLatUS = 1e6  // model.Link allows at most 1 s of latency
)

// modelRequired are the required fields of a models.yaml row; experts and top_k are optional
// (dense models omit them).
var modelRequired = []string{"id", "name", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab",
	"gated_mlp", "tied_embeddings", "max_seq", "source"}

func parseModels(fsys fs.FS, errs *Errors) []model.Arch {
	rows, ok := readRows(fsys, ModelsFile, "models", errs)
	if !ok {
		return nil
	}
	ids := newIDSet()
	var out []model.Arch
	for _, r := range rows {
		var a model.Arch // model.Arch's yaml tags are the file's field names
		r.decode(&a, modelRequired)
		r.checkCommon(ids, a.ID, a.Name, a.Source)
		var ve model.ValidationError
		if errors.As(a.Validate(), &ve) {
			for _, fe := range ve {
				field := strings.ReplaceAll(fe.Field, "-", "_") // CLI flag names -> file fields
				if !r.bad[field] {
					r.fail(field, fmt.Sprint(fe.Value), "%s", fe.Allowed)
				}
			}
		}
		if !r.bad["max_seq"] && (a.MaxSeq < 1 || a.MaxSeq > model.MaxSeq) {
			r.fail("max_seq", fmt.Sprint(a.MaxSeq), "must be between 1 and %d", model.MaxSeq)
		}
		if _, set := r.nodes["top_k"]; set && !r.bad["top_k"] && !r.bad["experts"] && a.Experts <= 1 {
			r.fail("top_k", fmt.Sprint(a.TopK), "needs experts above 1 (experts = %d)", a.Experts)
		}
		if r.finish(errs) {
			out = append(out, a)
		}
	}
	return out
}

// gpuRow is one row of gpus.yaml, in the file's units.
type gpuRow struct {
	ID             string  `yaml:"id"`
	Name           string  `yaml:"name"`
	PeakBF16TFLOPS float64 `yaml:"peak_bf16_tflops"`
	PeakFP16TFLOPS float64 `yaml:"peak_fp16_tflops"`
	PeakFP8TFLOPS  float64 `yaml:"peak_fp8_tflops"`
	PeakFP32TFLOPS float64 `yaml:"peak_fp32_tflops"`
	MemoryGiB      float64 `yaml:"memory_gib"`
	HBMGBps        float64 `yaml:"hbm_gbps"`
	ComputeEff     float64 `yaml:"compute_eff"`
	ComputeEffFP8  float64 `yaml:"compute_eff_fp8"`
	MemoryEff      float64 `yaml:"memory_eff"`
	GEMMMemoryEff  float64 `yaml:"gemm_memory_eff"`
	BoostClockMHz  float64 `yaml:"boost_clock_mhz"`
	KernelFloorCyc float64 `yaml:"kernel_floor_cycles"`
	NativeLink     string  `yaml:"native_link"`
	PCIeLink       string  `yaml:"pcie_link"`
	NVLinkBridge   bool    `yaml:"nvlink_bridge"`
	P2P            bool    `yaml:"p2p"`
	FP4            bool    `yaml:"fp4"`
	TDPWatts       float64 `yaml:"tdp_watts"`
	Source         string  `yaml:"source"`
}

func parseGPUs(fsys fs.FS, linkKinds map[string]model.LinkKind, linksRead bool, errs *Errors) []model.GPU {
	rows, ok := readRows(fsys, GPUsFile, "gpus", errs)
	if !ok {
		return nil
	}
	ids := newIDSet()
	var out []model.GPU
	for _, r := range rows {
		var g gpuRow
		// Every GPU field but nvlink_bridge (false when left out) is required, p2p included: whether
		// a GPU does peer-to-peer is a fact each row states; peak_fp8_tflops says 0 for none.
		r.decode(&g, slices.DeleteFunc(allFields(&g), func(f string) bool {
			return f == "nvlink_bridge" || f == "compute_eff_fp8" || f == "fp4" || f == "boost_clock_mhz" || f == "kernel_floor_cycles" ||
				f == "gemm_memory_eff"
		}))
		r.checkCommon(ids, g.ID, g.Name, g.Source)
		r.positive("peak_bf16_tflops", g.PeakBF16TFLOPS)
		r.positive("peak_fp16_tflops", g.PeakFP16TFLOPS)
		r.nonNegative("peak_fp8_tflops", g.PeakFP8TFLOPS, "0 (no FP8) or above")
		r.positive("peak_fp32_tflops", g.PeakFP32TFLOPS)
		r.positive("memory_gib", g.MemoryGiB)
		r.positive("hbm_gbps", g.HBMGBps)
		r.fraction("compute_eff", g.ComputeEff)
		if g.ComputeEffFP8 != 0 {
			r.fraction("compute_eff_fp8", g.ComputeEffFP8)
		}
		r.fraction("memory_eff", g.MemoryEff)
		if g.GEMMMemoryEff != 0 {
			r.fraction("gemm_memory_eff", g.GEMMMemoryEff)
		}
		r.nonNegative("boost_clock_mhz", g.BoostClockMHz, "0 (not known) or above")
		r.nonNegative("kernel_floor_cycles", g.KernelFloorCyc, "0 (the default) or above")
		r.positive("tdp_watts", g.TDPWatts)
		if linksRead {
			r.linkRef("native_link", g.NativeLink, linkKinds, model.NVLink, model.PCIe, model.XGMI)
			r.linkRef("pcie_link", g.PCIeLink, linkKinds, model.PCIe)
		}
		if g.NVLinkBridge && g.NativeLink != g.PCIeLink {
			r.fail("nvlink_bridge", "true", "only a PCIe card (native_link = pcie_link) takes a bridge; %s has %s", g.ID, g.NativeLink)
		}
		if r.finish(errs) {
			out = append(out, model.GPU{
				ID:                g.ID,
				Name:              g.Name,
				PeakBF16:          g.PeakBF16TFLOPS * tera,
				PeakFP16:          g.PeakFP16TFLOPS * tera,
				PeakFP8:           g.PeakFP8TFLOPS * tera,
				PeakFP32:          g.PeakFP32TFLOPS * tera,
				MemoryBytes:       g.MemoryGiB * model.GiB,
				HBMBandwidth:      g.HBMGBps * giga,
				ComputeEff:        g.ComputeEff,
				ComputeEffFP8:     g.ComputeEffFP8,
				MemoryEff:         g.MemoryEff,
				GEMMMemoryEff:     g.GEMMMemoryEff,
				BoostClockMHz:     g.BoostClockMHz,
				KernelFloorCycles: g.KernelFloorCyc,
				NativeLink:        g.NativeLink,
				PCIeLink:          g.PCIeLink,
				NVLinkBridge:      g.NVLinkBridge,
				NoP2P:             !g.P2P,
				FP4:               g.FP4,
				TDPWatts:          g.TDPWatts,
				Source:            g.Source,
			})
		}
	}
	return out
}

// linkRow is one row of links.yaml, in the file's units.
type linkRow struct {
	ID            string  `yaml:"id"`
	Name          string  `yaml:"name"`
	Kind          string  `yaml:"kind"`
	BandwidthGBps float64 `yaml:"bandwidth_gbps"`
	LatencyUS     float64 `yaml:"latency_us"`
	Efficiency    float64 `yaml:"efficiency"`
	NVLS          bool    `yaml:"nvls"`
	NVLSMinRanks  int     `yaml:"nvls_min_ranks"`
	NVLSEff       float64 `yaml:"nvls_efficiency"`
	LLGBps        float64 `yaml:"ll_bandwidth_gbps"`
	SimpleOnly    bool    `yaml:"simple_only"`
	PluginLatUS   float64 `yaml:"plugin_latency_us"`
	PCIePath      string  `yaml:"pcie_path"`
	P2P           bool    `yaml:"p2p"`
	MeshLinks     int     `yaml:"mesh_links"`
	Source        string  `yaml:"source"`
}

// linkOptional are the link fields a row may leave out: no NVLink SHARP, LL's own limit, a PCIe
// switch's path, peer-to-peer, no mesh.
var linkOptional = []string{"nvls", "nvls_min_ranks", "nvls_efficiency", "ll_bandwidth_gbps", "pcie_path", "p2p", "mesh_links", "simple_only", "plugin_latency_us"}

// parsedLinks is what the GPU rows need from links.yaml: every ID seen and its kind, bad rows
// included, so that one bad link row does not also fail every GPU that names it.
type parsedLinks struct {
	items []model.Link
	kinds map[string]model.LinkKind // unknownKind where the row's kind is unreadable
}

// unknownKind marks a link whose kind could not be read; GPU rows naming it skip the kind check.
const unknownKind model.LinkKind = -1

func parseLinks(fsys fs.FS, errs *Errors) (parsedLinks, bool) {
	pl := parsedLinks{kinds: map[string]model.LinkKind{}}
	rows, ok := readRows(fsys, LinksFile, "links", errs)
	if !ok {
		return pl, false
	}
	ids := newIDSet()
	for _, r := range rows {
		var l linkRow
		r.decode(&l, slices.DeleteFunc(allFields(&l), func(f string) bool { return slices.Contains(linkOptional, f) }))
		r.checkCommon(ids, l.ID, l.Name, l.Source)
		kind, err := model.ParseLinkKind(l.Kind)
		if err != nil && !r.bad["kind"] {
			var fe *model.FieldError
			allowed := err.Error()
			if errors.As(err, &fe) {
				allowed = fe.Allowed
			}
			r.fail("kind", l.Kind, "must be one of %s", allowed)
		}
		r.positive("bandwidth_gbps", l.BandwidthGBps)
		if r.finite("latency_us", l.LatencyUS) && (l.LatencyUS <= 0 || l.LatencyUS > maxLatUS) {
			r.fail("latency_us", fmtFloat(l.LatencyUS), "must be above 0 and at most %g (1 s)", maxLatUS)
		}
		r.fraction("efficiency", l.Efficiency)
		switch {
		case l.NVLS && kind != model.NVLink:
			r.fail("nvls", "true", "NVLink SHARP needs an NVLink (NVSwitch) link; %s is %s", l.ID, l.Kind)
		case l.NVLSMinRanks != 0 && !l.NVLS:
			r.fail("nvls_min_ranks", strconv.Itoa(l.NVLSMinRanks), "applies only with nvls: true")
		case l.NVLS && (l.NVLSMinRanks < 2 || l.NVLSMinRanks > 72):
			r.fail("nvls_min_ranks", strconv.Itoa(l.NVLSMinRanks), "must be 2 to 72 GPUs with nvls: true")
		case l.NVLS != (l.NVLSEff != 0):
			r.fail("nvls_efficiency", fmtFloat(l.NVLSEff), "goes with nvls: true, and only with it")
		case l.NVLS:
			r.fraction("nvls_efficiency", l.NVLSEff)
		}
		if l.LLGBps != 0 {
			r.positive("ll_bandwidth_gbps", l.LLGBps)
		}
		if l.SimpleOnly && (kind == model.NVLink || kind == model.PCIe || kind == model.XGMI) {
			r.fail("simple_only", "true", "applies to a network link between nodes; %s is %s", l.ID, l.Kind)
		}
		if _, set := r.nodes["plugin_latency_us"]; set && r.finite("plugin_latency_us", l.PluginLatUS) {
			switch {
			case kind == model.NVLink || kind == model.PCIe || kind == model.XGMI:
				r.fail("plugin_latency_us", fmtFloat(l.PluginLatUS), "applies to a network link between nodes; %s is %s", l.ID, l.Kind)
			case l.PluginLatUS < 0 || l.PluginLatUS > maxLatUS:
				r.fail("plugin_latency_us", fmtFloat(l.PluginLatUS), "must be 0 to %g (1 s)", maxLatUS)
			}
		}
		path, staged := r.pcieTopology(l, kind, err == nil)
		if _, set := r.nodes["mesh_links"]; set && !r.bad["mesh_links"] && (l.MeshLinks < 1 || l.MeshLinks >= model.MaxGPUsPerNode) {
			r.fail("mesh_links", strconv.Itoa(l.MeshLinks), "must be 1 to %d peer links per GPU (leave it out for a switch or a bus)", model.MaxGPUsPerNode-1)
		}
		if _, dup := pl.kinds[l.ID]; l.ID != "" && !dup {
			if err != nil {
				pl.kinds[l.ID] = unknownKind
			} else {
				pl.kinds[l.ID] = kind
			}
		}
		if r.finish(errs) {
			pl.items = append(pl.items, model.Link{
				ID:             l.ID,
				Name:           l.Name,
				Kind:           kind,
				Bandwidth:      l.BandwidthGBps * giga,
				Latency:        l.LatencyUS / perMicro,
				Efficiency:     l.Efficiency,
				NVLS:           l.NVLS,
				NVLSMinRanks:   l.NVLSMinRanks,
				NVLSEfficiency: l.NVLSEff,
				LLBandwidth:    l.LLGBps * giga,
				SimpleOnly:     l.SimpleOnly,
				PluginLatency:  l.PluginLatUS / perMicro,
				PCIePath:       path,
				Staged:         staged,
				MeshLinks:      l.MeshLinks,
				Source:         l.Source,
			})
		}
	}
	return pl, true
}

// pcieTopology reads a link row's pcie_path and p2p, which only a PCIe link may have: the path
// between two GPUs (a switch when left out) and whether traffic is staged through host memory
// (p2p: false). kindOK says the row's kind was readable.
func (r *row) pcieTopology(l linkRow, kind model.LinkKind, kindOK bool) (model.PCIePath, bool) {
	var path model.PCIePath
	if _, set := r.nodes["pcie_path"]; set && !r.bad["pcie_path"] {
		p, err := model.ParsePCIePath(l.PCIePath)
		switch {
		case err != nil:
			r.fail("pcie_path", l.PCIePath, "must be one of switch, host, socket (nvidia-smi topo's PIX/PXB, PHB/NODE, SYS)")
		case kindOK && kind != model.PCIe:
			r.fail("pcie_path", l.PCIePath, "applies to PCIe links only; %s is %s", l.ID, kind)
		default:
			path = p
		}
	}
	_, p2pSet := r.nodes["p2p"]
	staged := p2pSet && !l.P2P
	if staged && kindOK && kind != model.PCIe && !r.bad["p2p"] {
		r.fail("p2p", "false", "only a PCIe link can lack peer-to-peer (staging through host memory); %s is %s", l.ID, kind)
	}
	return path, staged
}

// Checks shared by the three kinds of row.

// idSet remembers where each ID was first seen in one file.
type idSet map[string][2]int // id -> row index, line

func newIDSet() idSet { return idSet{} }

// checkCommon checks id, name and source, and that the id is new in this file.
func (r *row) checkCommon(ids idSet, id, name, source string) {
	if _, ok := r.nodes["id"]; ok && !r.bad["id"] {
		if !validID(id) {
			r.fail("id", id, "must be lower-case letters, digits, '.' and '-', starting with a letter or digit")
		} else if first, dup := ids[id]; dup {
			r.fail("id", id, "duplicate of row %d (line %d)", first[0], first[1])
		} else {
			ids[id] = [2]int{r.index, r.line}
		}
	}
	r.nonEmpty("name", name)
	r.nonEmpty("source", source)
}

func validID(id string) bool {
	if id == "" {
		return false
	}
	for i, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

func (r *row) nonEmpty(field, v string) {
	if _, ok := r.nodes[field]; ok && !r.bad[field] && strings.TrimSpace(v) == "" {
		r.fail(field, v, "must not be empty")
	}
}

// finite reports whether v is a finite number, reporting it if not; fields already reported
// (missing, unreadable) count as not finite so that they are not reported twice.
func (r *row) finite(field string, v float64) bool {
	if r.bad[field] {
		return false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail(field, fmtFloat(v), "must be a finite number")
		return false
	}
	return true
}

func (r *row) positive(field string, v float64) {
	if r.finite(field, v) && v <= 0 {
		r.fail(field, fmtFloat(v), "must be above 0")
	}
}

func (r *row) nonNegative(field string, v float64, want string) {
	if r.finite(field, v) && v < 0 {
		r.fail(field, fmtFloat(v), "must be %s", want)
	}
}

func (r *row) fraction(field string, v float64) {
	if r.finite(field, v) && (v <= 0 || v > 1) {
		r.fail(field, fmtFloat(v), "must be a fraction in (0, 1]")
	}
}

// linkRef checks that a GPU's link field names a link of links.yaml of one of the wanted kinds.
func (r *row) linkRef(field, id string, kinds map[string]model.LinkKind, want ...model.LinkKind) {
	if r.bad[field] {
		return
	}
	if strings.TrimSpace(id) == "" {
		r.fail(field, id, "must not be empty")
		return
	}
	kind, ok := kinds[id]
	if !ok {
		known := make([]string, 0, len(kinds))
		for k := range kinds {
			known = append(known, k)
		}
		slices.Sort(known)
		r.fail(field, id, "unknown link id in %s (known: %s)", LinksFile, strings.Join(known, ", "))
		return
	}
	if kind != unknownKind && !slices.Contains(want, kind) {
		names := make([]string, len(want))
		for i, k := range want {
			names[i] = k.String()
		}
		r.fail(field, id, "is of kind %s; must be of kind %s", kind, strings.Join(names, " or "))
	}
}

// ModelIDs lists the model presets' IDs in file order.
func (p *Presets) ModelIDs() []string {
	return ids(p.Models, func(a model.Arch) string { return a.ID })
}

// AddModel adds a model read from elsewhere (a config.json) after the presets, for this run, and
// returns its ID: its own, or with "-config" when a preset already has it.
func (p *Presets) AddModel(a model.Arch) string {
	for _, id := range []string{a.ID, a.ID + "-config"} {
		if have, err := p.Model(id); err == nil && have.File != "" && have.File == a.File {
			return id // read before (a scenario's model: and --model naming one file)
		}
	}
	if _, err := p.Model(a.ID); err == nil {
		a.ID += "-config"
		a.Name = a.ID
	}
	p.Models = append(p.Models, a)
	return a.ID
}

// GPUIDs lists the GPU presets' IDs in file order.
func (p *Presets) GPUIDs() []string { return ids(p.GPUs, func(g model.GPU) string { return g.ID }) }

// LinkIDs lists the link presets' IDs in file order.
func (p *Presets) LinkIDs() []string { return ids(p.Links, func(l model.Link) string { return l.ID }) }

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = id(x)
	}
	return out
}
