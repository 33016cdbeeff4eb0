package assets

import (
	"errors"
	"io/fs"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// Required preset IDs (docs/architecture.md).
var (
	requiredModels = []string{"gpt3-175b", "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b",
		"llama-3-70b", "llama-3.1-405b", "mixtral-8x7b", "qwen2.5-72b"}
	requiredGPUs = []string{"v100-sxm", "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm",
		"h100-pcie", "h100-nvl", "h200-sxm", "h20", "gh200", "b200", "gb200", "l4", "a10g", "l40s", "rtx-4090",
		"rtx-3090", "rtx-5090", "rtx-6000-ada", "rtx-pro-6000", "mi300x", "mi325x"}
	requiredLinks = []string{"nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink5-nvl72", "pcie3", "pcie4", "pcie5",
		"pcie4-host", "pcie5-host", "pcie4-sys", "pcie5-sys", "pcie4-nop2p", "pcie5-nop2p", "xgmi",
		"ib-hdr", "ib-ndr", "ib-xdr", "roce-100", "roce-200", "roce-400", "eth-100"}
)

func mustLoad(t *testing.T) *Presets {
	t.Helper()
	p, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func TestLoadEmbedded(t *testing.T) {
	p := mustLoad(t)
	if len(p.Models) == 0 || len(p.GPUs) == 0 || len(p.Links) == 0 {
		t.Fatalf("empty presets: %d models, %d GPUs, %d links", len(p.Models), len(p.GPUs), len(p.Links))
	}
	for _, m := range p.Models {
		if m.Source == "" || m.Name == "" {
			t.Errorf("model %s: missing name or source", m.ID)
		}
	}
	for _, g := range p.GPUs {
		if g.Source == "" || g.Name == "" {
			t.Errorf("gpu %s: missing name or source", g.ID)
		}
	}
	for _, l := range p.Links {
		if l.Source == "" || l.Name == "" {
			t.Errorf("link %s: missing name or source", l.ID)
		}
	}
}

func TestRequiredIDs(t *testing.T) {
	p := mustLoad(t)
	for _, id := range requiredModels {
		if _, err := p.Model(id); err != nil {
			t.Errorf("model: %v", err)
		}
	}
	for _, id := range requiredGPUs {
		if _, err := p.GPU(id); err != nil {
			t.Errorf("gpu: %v", err)
		}
	}
	for _, id := range requiredLinks {
		if _, err := p.Link(id); err != nil {
			t.Errorf("link: %v", err)
		}
	}
}

// Every preset must also pass package model's own validation when put into a scenario: each GPU
// with its native link inside the node, and each model on one GPU.
func TestPresetsValidateAsScenarios(t *testing.T) {
	p := mustLoad(t)
	ndr, err := p.Link("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	small, err := p.Model("llama-2-7b")
	if err != nil {
		t.Fatal(err)
	}
	base := func() model.Scenario {
		return model.Scenario{
			Arch:     small,
			Layout:   model.Layout{TP: 1, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
			Workload: model.Workload{Mode: model.Train, Seq: 2048, GlobalBatch: 8, Precision: model.BF16},
		}
	}
	for _, g := range p.GPUs {
		intra, err := p.Link(g.NativeLink)
		if err != nil {
			t.Fatalf("gpu %s: %v", g.ID, err)
		}
		if _, err := p.Link(g.PCIeLink); err != nil {
			t.Fatalf("gpu %s: %v", g.ID, err)
		}
		s := base()
		s.Cluster = model.Cluster{GPU: g, GPUs: 1, GPUsPerNode: 8, Intra: intra, Inter: ndr, NICsPerNode: 8}
		if err := s.Validate(); err != nil {
			t.Errorf("gpu %s: %v", g.ID, err)
		}
	}
	h100, _ := p.GPU("h100-sxm")
	nv4, _ := p.Link("nvlink4")
	for _, m := range p.Models {
		s := base()
		s.Arch = m
		s.Cluster = model.Cluster{GPU: h100, GPUs: 1, GPUsPerNode: 8, Intra: nv4, Inter: ndr, NICsPerNode: 8}
		if err := s.Validate(); err != nil {
			t.Errorf("model %s: %v", m.ID, err)
		}
	}
	for _, l := range p.Links {
		s := base()
		s.Cluster = model.Cluster{GPU: h100, GPUs: 1, GPUsPerNode: 8, Intra: nv4, Inter: l, NICsPerNode: 8}
		if err := s.Validate(); err != nil {
			t.Errorf("link %s: %v", l.ID, err)
		}
	}
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestSpotChecks(t *testing.T) {
	p := mustLoad(t)

	h100, _ := p.GPU("h100-sxm")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"h100-sxm bf16 FLOP/s", h100.PeakBF16, 9.89e14},
		{"h100-sxm fp8 FLOP/s", h100.PeakFP8, 1.979e15},
		{"h100-sxm fp32 FLOP/s", h100.PeakFP32, 6.7e13},
		{"h100-sxm HBM bytes/s", h100.HBMBandwidth, 3.35e12},
		{"h100-sxm memory bytes (81559 MiB)", h100.MemoryBytes, 81559 * (1 << 20)},
		{"h100-sxm compute_eff", h100.ComputeEff, 0.803},
		{"h100-sxm memory_eff (merged from calibration)", h100.MemoryEff, 0.85},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if h100.NativeLink != "nvlink4" || h100.PCIeLink != "pcie5" {
		t.Errorf("h100-sxm links = %s, %s; want nvlink4, pcie5", h100.NativeLink, h100.PCIeLink)
	}
	// The MI300X's streaming efficiency is its own measured one (BabelStream, 81% of 5.3 TB/s:
	// AMB), overriding the calibration's 0.85, and its source says where it comes from.
	mi, _ := p.GPU("mi300x")
	if !near(mi.MemoryEff, 0.81, 1e-12) || !strings.Contains(mi.Source, "memory_eff 0.81") || !strings.Contains(mi.Source, "AMB") {
		t.Errorf("mi300x memory_eff = %g (source %q), want 0.81 citing AMB", mi.MemoryEff, mi.Source)
	}
	a100, _ := p.GPU("a100-sxm-80gb")
	if a100.MemoryBytes != 80*model.GiB || a100.PeakFP8 != 0 || a100.Peak(model.FP8) != 3.12e14 {
		t.Errorf("a100-sxm-80gb: memory %g, fp8 %g, Peak(FP8) %g", a100.MemoryBytes, a100.PeakFP8, a100.Peak(model.FP8))
	}
	r3090, _ := p.GPU("rtx-3090")
	if r3090.PeakBF16 != 71e12 {
		t.Errorf("rtx-3090 bf16 = %g, want 7.1e13 (FP32 accumulate)", r3090.PeakBF16)
	}

	nv4, _ := p.Link("nvlink4")
	if !near(nv4.Bandwidth, 450e9, 1e-12) || nv4.Kind != model.NVLink {
		t.Errorf("nvlink4: %g B/s, kind %s; want 4.5e11, nvlink", nv4.Bandwidth, nv4.Kind)
	}
	// Every NVLink generation takes the one calibration block (merged with <<: *nvlink).
	nv3, _ := p.Link("nvlink3")
	if !near(nv4.Latency, 3e-6, 1e-12) || nv4.Efficiency != nv3.Efficiency || nv4.Efficiency <= 0 {
		t.Errorf("nvlink4 calibration: latency %g s, efficiency %g; want 3e-6 and nvlink3's %g", nv4.Latency, nv4.Efficiency, nv3.Efficiency)
	}
	ndr, _ := p.Link("ib-ndr")
	if !near(ndr.Bandwidth, 50e9, 1e-12) || ndr.Kind != model.InfiniBand || ndr.Efficiency != 0.85 {
		t.Errorf("ib-ndr: %+v", ndr)
	}
	xgmi, _ := p.Link("xgmi")
	if xgmi.Kind != model.XGMI || !near(xgmi.Bandwidth, 448e9, 1e-12) {
		t.Errorf("xgmi: %+v", xgmi)
	}

	l70, _ := p.Model("llama-3-70b")
	if l70.Layers != 80 || l70.KVHeads != 8 || l70.FFN != 28672 || l70.Vocab != 128256 || !l70.GatedMLP {
		t.Errorf("llama-3-70b: %+v", l70)
	}
	l27, _ := p.Model("llama-2-7b")
	if l27.KVHeads != 32 || l27.Vocab != 32000 {
		t.Errorf("llama-2-7b must be MHA with vocab 32000 (not LM sku_list's values): %+v", l27)
	}
	mix, _ := p.Model("mixtral-8x7b")
	if mix.Experts != 8 || mix.TopK != 2 {
		t.Errorf("mixtral-8x7b experts %d top-k %d, want 8, 2", mix.Experts, mix.TopK)
	}
	gpt3, _ := p.Model("gpt3-175b")
	if gpt3.Vocab != 51200 || gpt3.GatedMLP {
		t.Errorf("gpt3-175b: %+v", gpt3)
	}
}

func TestParams(t *testing.T) {
	p := mustLoad(t)
	for _, c := range []struct {
		id   string
		want float64
		rel  float64
	}{
		{"llama-2-7b", 6.74e9, 0.01},
		{"llama-2-13b", 13.0e9, 0.01},
		{"llama-2-70b", 69.0e9, 0.01},
		{"llama-3-8b", 8.03e9, 0.01},
		{"llama-3-70b", 70.6e9, 0.01},
		{"llama-3.1-405b", 405.9e9, 0.01},
		{"gpt3-175b", 175e9, 0.02},
		{"mixtral-8x7b", 46.7e9, 0.02},
		{"qwen2.5-72b", 72.7e9, 0.01},
		{"megatron-530b", 529.6e9, 0.01}, // MLC Table 1
		{"megatron-1t", 1008e9, 0.01},    // MLC Table 1
	} {
		m, err := p.Model(c.id)
		if err != nil {
			t.Error(err)
			continue
		}
		if got := arch.Of(m).Params(); !near(got, c.want, c.rel) {
			t.Errorf("%s Params() = %.4g, want %.4g ± %g%%", c.id, got, c.want, c.rel*100)
		}
	}
}

func TestLoadReturnsCopy(t *testing.T) {
	a := mustLoad(t)
	a.GPUs[0].PeakBF16 = -1
	a.Models = nil
	b := mustLoad(t)
	if b.GPUs[0].PeakBF16 <= 0 || len(b.Models) == 0 {
		t.Fatal("changing one Load result changed another")
	}
}

func TestLookupUnknown(t *testing.T) {
	p := mustLoad(t)
	if g, err := p.GPU(" H100-SXM "); err != nil || g.ID != "h100-sxm" {
		t.Errorf("lookup is case- and space-insensitive: %v", err)
	}
	for _, c := range []struct {
		err   error
		kind  string
		known string
	}{
		{func() error { _, err := p.Model("llama-9"); return err }(), `model "llama-9"`, "llama-3-70b"},
		{func() error { _, err := p.GPU("h900"); return err }(), `gpu "h900"`, "h100-sxm"},
		{func() error { _, err := p.Link("nvlink9"); return err }(), `link "nvlink9"`, "nvlink4"},
	} {
		if !errors.Is(c.err, ErrUnknownID) {
			t.Errorf("%v: does not wrap ErrUnknownID", c.err)
			continue
		}
		if msg := c.err.Error(); !strings.Contains(msg, c.kind) || !strings.Contains(msg, c.known) {
			t.Errorf("%q: want it to name %s and list known IDs such as %s", msg, c.kind, c.known)
		}
	}
	var nilP *Presets
	if _, err := nilP.Model("x"); !errors.Is(err, ErrUnknownID) {
		t.Errorf("nil Presets: %v", err)
	}
}

// embeddedWith returns the embedded preset files with some replaced.
func embeddedWith(t *testing.T, files map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, f := range []string{ModelsFile, GPUsFile, LinksFile} {
		data, err := fs.ReadFile(presetFS, f)
		if err != nil {
			t.Fatal(err)
		}
		m[f] = &fstest.MapFile{Data: data}
	}
	for f, s := range files {
		if s == "" {
			delete(m, f)
			continue
		}
		m[f] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// parseErrors parses the embedded files with some replaced and returns the problems found.
func parseErrors(t *testing.T, files map[string]string) Errors {
	t.Helper()
	p, err := Parse(embeddedWith(t, files))
	if err == nil {
		t.Fatalf("Parse accepted bad presets: %d models, %d GPUs, %d links", len(p.Models), len(p.GPUs), len(p.Links))
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %T is not an Errors: %v", err, err)
	}
	return errs
}

const goodGPU = `  - id: good-gpu
    name: Good GPU
    peak_bf16_tflops: 100
    peak_fp16_tflops: 100
    peak_fp8_tflops: 0
    peak_fp32_tflops: 10
    memory_gib: 24
    hbm_gbps: 1000
    compute_eff: 0.8
    memory_eff: 0.85
    native_link: pcie4
    pcie_link: pcie4
    p2p: true
    tdp_watts: 300
    source: test
`

const goodLink = `  - id: good-link
    name: Good link
    kind: pcie
    bandwidth_gbps: 100
    latency_us: 3
    efficiency: 0.8
    source: test
`

const goodModel = `  - id: good-model
    name: Good model
    layers: 2
    hidden: 64
    heads: 8
    kv_heads: 8
    ffn: 256
    vocab: 1000
    gated_mlp: true
    tied_embeddings: false
    max_seq: 1024
    source: test
`

// gpusOnGoodLink is a gpus.yaml whose one GPU uses only good-link, for tests with small links files.
var gpusOnGoodLink = "gpus:\n" + strings.ReplaceAll(goodGPU, "link: pcie4", "link: good-link")

// gpuFile is a gpus.yaml whose first row (row 0, from line 2) is good and whose second row
// (row 1, from line 17) is goodGPU with edit applied.
func gpuFile(edit func(string) string) string {
	bad := strings.Replace(goodGPU, "good-gpu", "bad-gpu", 1)
	return "gpus:\n" + goodGPU + edit(bad)
}

func linkFile(edit func(string) string) string {
	bad := strings.Replace(goodLink, "good-link", "bad-link", 1)
	return "links:\n" + goodLink + edit(bad)
}

func modelFile(edit func(string) string) string {
	bad := strings.Replace(goodModel, "good-model", "bad-model", 1)
	return "models:\n" + goodModel + edit(bad)
}

func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("test row lacks " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func TestExactMessage(t *testing.T) {
	errs := parseErrors(t, map[string]string{GPUsFile: gpuFile(replace("peak_bf16_tflops: 100", "peak_bf16_tflops: -1"))})
	want := "assets: presets/gpus.yaml row 1 (line 19, id bad-gpu): peak_bf16_tflops = -1: must be above 0"
	if len(errs) != 1 || errs.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", errs, want)
	}
	e := errs[0]
	if e.File != GPUsFile || e.Row != 1 || e.Line != 19 || e.ID != "bad-gpu" || e.Field != "peak_bf16_tflops" || e.Value != "-1" {
		t.Errorf("fields: %+v", *e)
	}
	var one *Error
	if !errors.As(error(errs), &one) || one != e {
		t.Error("errors.As cannot reach the *Error")
	}
}

func TestBadRows(t *testing.T) {
	for _, c := range []struct {
		name  string
		file  string
		text  string
		field string
		want  string // in the message, after the row header
		line  int    // line of the message; 0: don't check
		row   int
	}{
		// GPUs: row 1 starts on line 16; its fields are on lines 16..29 in goodGPU's order.
		{"gpu unknown field", GPUsFile, gpuFile(replace("    tdp_watts: 300\n", "    tdp_watts: 300\n    tflops: 5\n")),
			"tflops", "tflops: unknown field (known: id, name, peak_bf16_tflops", 31, 1},
		{"gpu missing field", GPUsFile, gpuFile(replace("    hbm_gbps: 1000\n", "")),
			"hbm_gbps", "hbm_gbps: missing (required)", 17, 1},
		{"gpu null value", GPUsFile, gpuFile(replace("hbm_gbps: 1000", "hbm_gbps:")),
			"hbm_gbps", "hbm_gbps: has no value", 24, 1},
		{"gpu zero memory", GPUsFile, gpuFile(replace("memory_gib: 24", "memory_gib: 0")),
			"memory_gib", "memory_gib = 0: must be above 0", 23, 1},
		{"gpu negative fp8", GPUsFile, gpuFile(replace("peak_fp8_tflops: 0", "peak_fp8_tflops: -5")),
			"peak_fp8_tflops", "peak_fp8_tflops = -5: must be 0 (no FP8) or above", 21, 1},
		{"gpu infinite peak", GPUsFile, gpuFile(replace("peak_fp16_tflops: 100", "peak_fp16_tflops: .inf")),
			"peak_fp16_tflops", "peak_fp16_tflops = +Inf: must be a finite number", 20, 1},
		{"gpu efficiency above 1", GPUsFile, gpuFile(replace("compute_eff: 0.8", "compute_eff: 1.2")),
			"compute_eff", "compute_eff = 1.2: must be a fraction in (0, 1]", 25, 1},
		{"gpu efficiency zero", GPUsFile, gpuFile(replace("memory_eff: 0.85", "memory_eff: 0")),
			"memory_eff", "memory_eff = 0: must be a fraction in (0, 1]", 26, 1},
		{"gpu negative clock", GPUsFile, gpuFile(replace("memory_eff: 0.85", "memory_eff: 0.85\n    boost_clock_mhz: -1410")),
			"boost_clock_mhz", "boost_clock_mhz = -1410: must be 0 (not known) or above", 27, 1},
		{"gpu not a number", GPUsFile, gpuFile(replace("tdp_watts: 300", "tdp_watts: lots")),
			"tdp_watts", "tdp_watts = lots: must be a number", 30, 1},
		{"gpu unknown link", GPUsFile, gpuFile(replace("native_link: pcie4", "native_link: nvlink9")),
			"native_link", "native_link = nvlink9: unknown link id in presets/links.yaml (known: efa-100, efa-200, efa-400, efa1-100, eth-100, ib-edr", 27, 1},
		{"gpu pcie_link not pcie", GPUsFile, gpuFile(replace("pcie_link: pcie4", "pcie_link: nvlink4")),
			"pcie_link", "pcie_link = nvlink4: is of kind nvlink; must be of kind pcie", 28, 1},
		{"gpu native_link is a network", GPUsFile, gpuFile(replace("native_link: pcie4", "native_link: ib-ndr")),
			"native_link", "native_link = ib-ndr: is of kind infiniband; must be of kind nvlink or pcie or xgmi", 27, 1},
		{"gpu bridge on an NVLink card", GPUsFile, gpuFile(replace("native_link: pcie4", "native_link: nvlink4\n    nvlink_bridge: true")),
			"nvlink_bridge", "nvlink_bridge = true: only a PCIe card (native_link = pcie_link) takes a bridge; bad-gpu has nvlink4", 28, 1},
		{"gpu duplicate id", GPUsFile, gpuFile(replace("bad-gpu", "good-gpu")),
			"id", "(line 17, id good-gpu): id = good-gpu: duplicate of row 0 (line 2)", 17, 1},
		{"gpu bad id", GPUsFile, gpuFile(replace("bad-gpu", "Bad GPU")),
			"id", "id = Bad GPU: must be lower-case letters", 17, 1},
		{"gpu empty source", GPUsFile, gpuFile(replace("source: test", `source: ""`)),
			"source", `source = "": must not be empty`, 31, 1},
		{"gpu field twice", GPUsFile, gpuFile(replace("    tdp_watts: 300\n", "    tdp_watts: 300\n    tdp_watts: 400\n")),
			"tdp_watts", "tdp_watts: written twice in one row (first on line 30)", 31, 1},
		{"gpu p2p not a bool", GPUsFile, gpuFile(replace("p2p: true", "p2p: maybe")),
			"p2p", "p2p = maybe: must be true or false", 29, 1},
		{"gpu missing p2p", GPUsFile, gpuFile(replace("    p2p: true\n", "")),
			"p2p", "p2p: missing (required)", 17, 1},
		{"gpu list value", GPUsFile, gpuFile(replace("tdp_watts: 300", "tdp_watts: [300, 400]")),
			"tdp_watts", "tdp_watts = <list>: must be a single value", 30, 1},

		// Links: row 1 starts on line 9.
		{"link efficiency zero", LinksFile, linkFile(replace("efficiency: 0.8", "efficiency: 0")),
			"efficiency", "efficiency = 0: must be a fraction in (0, 1]", 14, 1},
		{"link efficiency above 1", LinksFile, linkFile(replace("efficiency: 0.8", "efficiency: 1.5")),
			"efficiency", "efficiency = 1.5: must be a fraction in (0, 1]", 14, 1},
		{"link bad kind", LinksFile, linkFile(replace("kind: pcie", "kind: carrier-pigeon")),
			"kind", "kind = carrier-pigeon: must be one of nvlink, pcie, infiniband, roce, ethernet, xgmi", 11, 1},
		{"link negative bandwidth", LinksFile, linkFile(replace("bandwidth_gbps: 100", "bandwidth_gbps: -100")),
			"bandwidth_gbps", "bandwidth_gbps = -100: must be above 0", 12, 1},
		{"link zero latency", LinksFile, linkFile(replace("latency_us: 3", "latency_us: 0")),
			"latency_us", "latency_us = 0: must be above 0 and at most 1e+06 (1 s)", 13, 1},
		{"link missing kind", LinksFile, linkFile(replace("    kind: pcie\n", "")),
			"kind", "kind: missing (required)", 9, 1},
		{"link simple_only inside a node", LinksFile, linkFile(replace("efficiency: 0.8\n", "efficiency: 0.8\n    simple_only: true\n")),
			"simple_only", "simple_only = true: applies to a network link between nodes; bad-link is pcie", 15, 1},
		{"link plugin latency inside a node", LinksFile, linkFile(replace("    source: test\n", "    plugin_latency_us: 75\n    source: test\n")),
			"plugin_latency_us", "plugin_latency_us = 75: applies to a network link between nodes; bad-link is pcie", 15, 1},
		{"link bad pcie path", LinksFile, linkFile(replace("    source: test\n", "    pcie_path: bus\n    source: test\n")),
			"pcie_path", "pcie_path = bus: must be one of switch, host, socket", 15, 1},
		{"link pcie path on NVLink", LinksFile, linkFile(replace("kind: pcie", "kind: nvlink\n    pcie_path: host")),
			"pcie_path", "pcie_path = host: applies to PCIe links only; bad-link is nvlink", 12, 1},
		{"link no p2p on XGMI", LinksFile, linkFile(replace("kind: pcie", "kind: xgmi\n    p2p: false")),
			"p2p", "p2p = false: only a PCIe link can lack peer-to-peer (staging through host memory); bad-link is xgmi", 12, 1},
		{"link zero mesh links", LinksFile, linkFile(replace("    source: test\n", "    mesh_links: 0\n    source: test\n")),
			"mesh_links", "mesh_links = 0: must be 1 to 1023 peer links per GPU", 15, 1},

		// Models: row 1 starts on line 14.
		{"model kv_heads not dividing heads", ModelsFile, modelFile(replace("kv_heads: 8", "kv_heads: 3")),
			"kv_heads", "kv_heads = 3: must divide heads (8): one of 1, 2, 4, 8", 19, 1},
		{"model zero layers", ModelsFile, modelFile(replace("layers: 2", "layers: 0")),
			"layers", "layers = 0: must be between 1 and 4096", 16, 1},
		{"model negative vocab", ModelsFile, modelFile(replace("vocab: 1000", "vocab: -1")),
			"vocab", "vocab = -1: must be between 1 and", 21, 1},
		{"model fractional layers", ModelsFile, modelFile(replace("layers: 2", "layers: 2.5")),
			"layers", "layers = 2.5: must be a whole number", 16, 1},
		{"model quoted number", ModelsFile, modelFile(replace("layers: 2", `layers: "2"`)),
			"layers", "layers = 2: must be a whole number", 16, 1},
		{"model yes for a bool", ModelsFile, modelFile(replace("tied_embeddings: false", "tied_embeddings: no")),
			"tied_embeddings", "tied_embeddings = no: must be true or false", 23, 1},
		{"model missing ffn", ModelsFile, modelFile(replace("    ffn: 256\n", "")),
			"ffn", "ffn: missing (required)", 14, 1},
		{"model heads not dividing hidden", ModelsFile, modelFile(replace("heads: 8\n    kv_heads: 8", "heads: 7\n    kv_heads: 7")),
			"heads", "heads = 7: must divide hidden (64)", 18, 1},
		{"model top_k without experts", ModelsFile, modelFile(replace("    source: test\n", "    top_k: 2\n    source: test\n")),
			"top_k", "top_k = 2: needs experts above 1 (experts = 0)", 25, 1},
		{"model top_k above experts", ModelsFile, modelFile(replace("    source: test\n", "    experts: 4\n    top_k: 5\n    source: test\n")),
			"top_k", "top_k = 5: must be between 1 and experts (4)", 26, 1},
		{"model max_seq zero", ModelsFile, modelFile(replace("max_seq: 1024", "max_seq: 0")),
			"max_seq", "max_seq = 0: must be between 1 and", 24, 1},
		{"model gated_mlp not bool", ModelsFile, modelFile(replace("gated_mlp: true", "gated_mlp: swiglu")),
			"gated_mlp", "gated_mlp = swiglu: must be true or false", 22, 1},
		{"model unknown field", ModelsFile, modelFile(replace("    source: test\n", "    rope_theta: 10000\n    source: test\n")),
			"rope_theta", "rope_theta: unknown field", 25, 1},
		{"model unknown field in a group", ModelsFile, modelFile(replace("    source: test\n", "    mla:\n      kv_lora_rank: 512\n      qk_nope_head_dim: 16\n      qk_rope_head_dim: 8\n      v_head_dim: 16\n      q_rank: 3\n    source: test\n")),
			"mla.q_rank", "mla.q_rank: unknown field (known: q_lora_rank, kv_lora_rank,", 30, 1},
		{"model text in a group's number", ModelsFile, modelFile(replace("    source: test\n", "    mla:\n      kv_lora_rank: big\n    source: test\n")),
			"mla.kv_lora_rank", "mla.kv_lora_rank = big: must be a whole number", 26, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{c.file: c.text}
			if c.file == LinksFile { // the embedded GPUs name links this small file lacks
				files[GPUsFile] = gpusOnGoodLink
			}
			errs := parseErrors(t, files)
			var hit *Error
			for _, e := range errs {
				if e.Field == c.field {
					hit = e
					break
				}
			}
			if hit == nil {
				t.Fatalf("no error for field %s; got:\n%v", c.field, errs)
			}
			msg := hit.Error()
			if !strings.HasPrefix(msg, "assets: "+c.file+" row ") {
				t.Errorf("%q does not start with the file and row", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("message\n  %s\nwant it to contain\n  %s", msg, c.want)
			}
			if hit.Row != c.row {
				t.Errorf("row %d, want %d", hit.Row, c.row)
			}
			if c.line != 0 && hit.Line != c.line {
				t.Errorf("line %d, want %d (%s)", hit.Line, c.line, msg)
			}
			if len(errs) != 1 {
				t.Errorf("want one problem, got %d:\n%v", len(errs), errs)
			}
		})
	}
}

func TestAllBadRowsReported(t *testing.T) {
	gpu := strings.ReplaceAll(goodGPU, "link: pcie4", "link: good-link") // the small links file's one link
	gpus := "gpus:\n" + gpu +
		strings.NewReplacer("good-gpu", "bad-a", "memory_gib: 24", "memory_gib: -1", "compute_eff: 0.8", "compute_eff: 2").Replace(gpu) +
		strings.NewReplacer("good-gpu", "bad-b", "native_link: good-link", "native_link: nope").Replace(gpu)
	models := modelFile(replace("kv_heads: 8", "kv_heads: 5"))
	links := linkFile(replace("efficiency: 0.8", "efficiency: -0.1"))
	errs := parseErrors(t, map[string]string{GPUsFile: gpus, ModelsFile: models, LinksFile: links})
	want := []struct {
		file, id, field string
		row             int
	}{
		{ModelsFile, "bad-model", "kv_heads", 1},
		{LinksFile, "bad-link", "efficiency", 1},
		{GPUsFile, "bad-a", "memory_gib", 1},
		{GPUsFile, "bad-a", "compute_eff", 1},
		{GPUsFile, "bad-b", "native_link", 2},
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, w := range want {
		e := errs[i]
		if e.File != w.file || e.ID != w.id || e.Field != w.field || e.Row != w.row {
			t.Errorf("problem %d = %v; want %s row %d id %s field %s", i, e, w.file, w.row, w.id, w.field)
		}
	}
}

// A bad link row does not also fail the GPUs that name it: its ID still counts as known.
func TestBadLinkRowStillKnownToGPUs(t *testing.T) {
	for _, edit := range []string{"efficiency: 7", "kind: warp-drive"} {
		field, _, _ := strings.Cut(edit, ":")
		links := "links:\n" + replaceField(goodLink, field, edit)
		errs := parseErrors(t, map[string]string{LinksFile: links, GPUsFile: gpusOnGoodLink})
		if len(errs) != 1 || errs[0].File != LinksFile || errs[0].Field != field {
			t.Errorf("%s: want only the link's %s reported, got:\n%v", edit, field, errs)
		}
	}
}

// replaceField replaces the whole "field: ..." line of a row with line.
func replaceField(row, field, line string) string {
	lines := strings.Split(row, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), field+":") {
			lines[i] = "    " + line
		}
	}
	return strings.Join(lines, "\n")
}

// Calibration anchors merged into rows: a bad shared value is reported for every row that uses
// it, at the anchor's line; a row's own value overrides the merged one.
func TestCalibrationMerge(t *testing.T) {
	text := `calibration:
  fam: &fam
    latency_us: 3
    efficiency: 1.7
links:
  - id: a
    name: A
    kind: nvlink
    <<: *fam
    bandwidth_gbps: 100
    source: test
  - id: pcie4
    name: B
    kind: pcie
    <<: *fam
    efficiency: 0.5
    bandwidth_gbps: 100
    source: test
  - id: c
    name: C
    kind: roce
    <<: *fam
    bandwidth_gbps: 100
    source: test
`
	errs := parseErrors(t, map[string]string{LinksFile: text, GPUsFile: "gpus:\n" + goodGPU})
	if len(errs) != 2 {
		t.Fatalf("want 2 problems (rows 0 and 2), got:\n%v", errs)
	}
	for i, row := range []int{0, 2} {
		e := errs[i]
		if e.Row != row || e.Field != "efficiency" || e.Line != 4 || e.Value != "1.7" {
			t.Errorf("problem %d = %v; want row %d, efficiency = 1.7 at line 4", i, e, row)
		}
	}

	good := strings.Replace(text, "efficiency: 1.7", "efficiency: 0.9", 1)
	p, err := Parse(embeddedWith(t, map[string]string{LinksFile: good, GPUsFile: "gpus:\n" + goodGPU}))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Link("a")
	b, _ := p.Link("pcie4")
	if a.Efficiency != 0.9 || b.Efficiency != 0.5 || a.Latency != 3e-6 {
		t.Errorf("merge: a %+v, pcie4 %+v", a, b)
	}
}

func TestBadFiles(t *testing.T) {
	for _, c := range []struct {
		name string
		file string
		text string // "" removes the file
		want string
	}{
		{"missing file", GPUsFile, "", "assets: presets/gpus.yaml: open presets/gpus.yaml"},
		{"not YAML", ModelsFile, "models: [\n", "assets: presets/models.yaml: yaml: line"},
		{"empty", LinksFile, "# nothing\n", "assets: presets/links.yaml: empty file"},
		{"unknown top-level key", GPUsFile, "gpu:\n" + goodGPU, `assets: presets/gpus.yaml line 1: unknown top-level key "gpu"`},
		{"empty list", ModelsFile, "models: []\n", `"models" must be a non-empty list of rows`},
		{"top-level list", LinksFile, "- id: x\n", "the file must be a mapping"},
		{"row not a mapping", GPUsFile, "gpus:\n  - h100\n", "assets: presets/gpus.yaml row 0 (line 2): a row must be a mapping"},
		{"bad merge", LinksFile, "links:\n  - <<: 5\n" + strings.TrimPrefix(goodLink, "  - id: good-link\n") +
			"    id: x\n", "<<: must merge a mapping"},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := parseErrors(t, map[string]string{c.file: c.text})
			if !strings.Contains(errs.Error(), c.want) {
				t.Errorf("got\n%v\nwant it to contain\n%s", errs, c.want)
			}
		})
	}
}

func TestParseEmbeddedFS(t *testing.T) {
	p, err := Parse(embeddedWith(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	q := mustLoad(t)
	if len(p.Models) != len(q.Models) || len(p.GPUs) != len(q.GPUs) || len(p.Links) != len(q.Links) {
		t.Error("Parse of the embedded files differs from Load")
	}
}

// Whether a GPU does peer-to-peer is a fact of its preset: GeForce cards have none with NVIDIA's
// stock driver [AIK], datacenter and workstation cards do. The topology links say their path.
func TestTopologyFacts(t *testing.T) {
	p := mustLoad(t)
	for _, g := range p.GPUs {
		geforce := strings.Contains(g.Name, "GeForce")
		if g.NoP2P != geforce {
			t.Errorf("%s (%s): no P2P %v, want %v", g.ID, g.Name, g.NoP2P, geforce)
		}
		if strings.TrimSpace(g.Source) == "" {
			t.Errorf("%s has no source", g.ID)
		}
	}
	for _, c := range []struct {
		id     string
		path   model.PCIePath
		staged bool
		mesh   int
	}{
		{"pcie5", model.PathSwitch, false, 0}, {"pcie4-host", model.PathHost, false, 0}, {"pcie5-host", model.PathHost, false, 0},
		{"pcie4-sys", model.PathSocket, false, 0}, {"pcie5-sys", model.PathSocket, false, 0},
		{"pcie4-nop2p", model.PathSwitch, true, 0}, {"pcie5-nop2p", model.PathSwitch, true, 0}, {"xgmi", model.PathSwitch, false, 7},
	} {
		l, err := p.Link(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if l.PCIePath != c.path || l.Staged != c.staged || l.MeshLinks != c.mesh {
			t.Errorf("%s: path %s, staged %v, mesh %d; want %s, %v, %d", c.id, l.PCIePath, l.Staged, l.MeshLinks, c.path, c.staged, c.mesh)
		}
	}
	// The new GPUs' native links exist and are what the rack or board has.
	for id, link := range map[string]string{"gb200": "nvlink5-nvl72", "gh200": "nvlink4", "h20": "nvlink4", "mi325x": "xgmi",
		"rtx-pro-6000": "pcie5", "rtx-5090": "pcie5", "rtx-6000-ada": "pcie4", "l4": "pcie4", "a10g": "pcie4", "h100-nvl": "pcie5"} {
		g, err := p.GPU(id)
		if err != nil {
			t.Fatal(err)
		}
		if g.NativeLink != link {
			t.Errorf("%s: native link %s, want %s", id, g.NativeLink, link)
		}
	}
}
