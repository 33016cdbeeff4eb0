package gpu

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

func presets(t *testing.T) *assets.Presets {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func link(t *testing.T, p *assets.Presets, id string) model.Link {
	t.Helper()
	l, err := p.Link(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestMatchGPU(t *testing.T) {
	p := presets(t)
	for _, c := range []struct{ name, want string }{
		{"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},
		{"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"},
		{"Mock NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"}, // go-nvml's mock/dgxa100
		{"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},
		{"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
		{"NVIDIA H100 80GB HBM3", "h100-sxm"},
		{"NVIDIA H100 PCIe", "h100-pcie"},
		{"NVIDIA H100 NVL", "h100-nvl"},
		{"NVIDIA H20", "h20"},
		{"NVIDIA GH200 480GB", "gh200"},
		{"NVIDIA GH200 144G HBM3e", "gh200"},
		{"NVIDIA GB200", "gb200"},
		{"NVIDIA L4", "l4"},
		{"NVIDIA A10G", "a10g"},
		{"NVIDIA GeForce RTX 5090", "rtx-5090"},
		{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000"},
		{"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000"},
		{"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"},
		{"AMD Instinct MI325X", "mi325x"},
		{"NVIDIA H200", "h200-sxm"},
		{"NVIDIA B200", "b200"},
		{"NVIDIA L40S", "l40s"},
		{"NVIDIA GeForce RTX 4090", "rtx-4090"},
		{"NVIDIA GeForce RTX 3090", "rtx-3090"},
		{"Tesla V100-SXM2-32GB", "v100-sxm"},
		{"Tesla V100-SXM2-16GB", "v100-sxm"},
		{"l40s", "l40s"},                      // a preset ID
		{"NVIDIA H100 SXM5 80GB", "h100-sxm"}, // a preset name
		{"NVIDIA L40", ""},                    // not an L40S
		{"NVIDIA GeForce RTX 4090 D", ""},     // cut-down 4090
		{"NVIDIA GeForce RTX 3090 Ti", ""},    //
		{"NVIDIA RTX 6000", ""},               // the Turing Quadro RTX 6000, not the Ada card
		{"NVIDIA L40", ""},                    //
		{"NVIDIA H200 NVL", ""},               // PCIe card, no preset
		{"Tesla V100-PCIE-32GB", ""},          // only the SXM2 part is a preset
		{"NVIDIA A10", ""},                    //
		{"", ""},                              //
		{"unknown", ""},                       // what the probe writes when GetName fails
	} {
		g, ok := MatchGPU(c.name, p.GPUs)
		if ok != (c.want != "") || g.ID != c.want {
			t.Errorf("MatchGPU(%q) = %q, %v; want %q", c.name, g.ID, ok, c.want)
		}
	}
}

// fullBox is a box with every field set, lost GPU and NVLinks included.
func fullBox() Box {
	dev := func(i int) Device {
		d := Device{
			Index: i, Name: "NVIDIA A100-SXM4-80GB", UUID: fmt.Sprintf("GPU-%08d", i),
			BusID: fmt.Sprintf("00000000:%02X:00.0", 0x07+i), MemTotal: 85899345920, MemFree: 85000000000, MemUsed: 899345920,
			PCIeMaxGen: 4, PCIeGen: 1, PCIeMaxW: 16, PCIeW: 16, UtilGPU: 3, UtilMem: 0, PowerW: 61.5, TempC: 33,
		}
		for l := range 12 {
			d.NVLinks = append(d.NVLinks, NVLink{Link: l, Active: true, Version: 3, RemoteBusID: fmt.Sprintf("00000000:%02X:00.0", 0xC0+l/2)})
		}
		return d
	}
	b := Box{Host: "node-1", Driver: "550.54.15", CUDA: "12.4", Warnings: []string{"GPU 3 lost during the probe: memory: ERROR_GPU_IS_LOST"}}
	for i := range 4 {
		b.GPUs = append(b.GPUs, dev(i))
	}
	b.GPUs[3] = unknownDevice(3)
	b.GPUs[3].Name, b.GPUs[3].Lost = "NVIDIA A100-SXM4-80GB", true
	b.P2P = [][]string{{"X", "OK", "OK", "?"}, {"OK", "X", "OK", "?"}, {"OK", "OK", "X", "?"}, {"?", "?", "?", "X"}}
	b.Topology = [][]string{{"X", "NV12", "NV12", "?"}, {"NV12", "X", "NV12", "?"}, {"NV12", "NV12", "X", "?"}, {"?", "?", "?", "X"}}
	return b
}

func TestBoxRoundTrip(t *testing.T) {
	b := fullBox()
	data, err := MarshalBox(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := MarshalBox(b)
	if !bytes.Equal(data, again) {
		t.Error("MarshalBox is not stable")
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.HasPrefix(data, []byte("{\n  \"host\": \"node-1\",\n  \"driver\"")) {
		t.Errorf("want indented JSON in field order, got:\n%.200s", data)
	}
	got, err := ParseBox("node-1.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, b) {
		t.Errorf("round trip differs:\ngot  %+v\nwant %+v", got, b)
	}
}

// lineOf is the 1-based line of the first occurrence of sub in data.
func lineOf(t *testing.T, data []byte, sub string) int {
	t.Helper()
	i := bytes.Index(data, []byte(sub))
	if i < 0 {
		t.Fatalf("%q not in the text", sub)
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// nth replaces the n-th (0-based) occurrence of old in s.
func nth(s, old, repl string, n int) string {
	at := 0
	for range n {
		at += strings.Index(s[at:], old) + len(old)
	}
	i := at + strings.Index(s[at:], old)
	return s[:i] + repl + s[i+len(old):]
}

func TestParseBoxErrors(t *testing.T) {
	good, err := MarshalBox(fullBox())
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	// each case: the file text and the exact error (the lines computed from the text)
	type tc struct {
		name, text, want string
	}
	var cases []tc

	neg := nth(g, `"memory_total_bytes": 85899345920`, `"memory_total_bytes": -5`, 2)
	cases = append(cases, tc{"negative memory", neg,
		fmt.Sprintf("node-1.json:%d: gpus[2].memory_total_bytes: must be a number above 0", lineOf(t, []byte(neg), `-5`))})

	badJSON := strings.Replace(g, `"cuda": "12.4",`, `"cuda": "12.4"`, 1)
	cases = append(cases, tc{"bad JSON", badJSON,
		fmt.Sprintf("node-1.json:%d: invalid character '\"' after object key:value pair", lineOf(t, []byte(badJSON), `"gpus"`))})

	unknown := nth(g, `"uuid":`, `"colour": "green",
      "uuid":`, 1)
	cases = append(cases, tc{"unknown field", unknown,
		fmt.Sprintf("node-1.json:%d: gpus[1].colour: unknown field (known there: bus_id, index, lost, memory_free_bytes, memory_total_bytes, memory_used_bytes, name, nvlinks, pcie_gen, pcie_max_gen, pcie_max_width, pcie_width, power_w, temperature_c, util_gpu_pct, util_memory_pct, uuid)",
			lineOf(t, []byte(unknown), `"colour"`))})

	unknownTop := strings.Replace(g, `"cuda": "12.4",`, `"cuda": "12.4", "nodes": 2,`, 1)
	cases = append(cases, tc{"unknown top-level field", unknownTop,
		fmt.Sprintf("node-1.json:%d: nodes: unknown field (known there: cuda, driver, gpus, host, host_memory, p2p, topology, warnings)", lineOf(t, []byte(unknownTop), `"nodes"`))})

	str := nth(g, `"memory_total_bytes": 85899345920`, `"memory_total_bytes": "80GB"`, 1)
	cases = append(cases, tc{"string memory", str,
		fmt.Sprintf("node-1.json:%d: gpus[1].memory_total_bytes: must be a whole number, not string", lineOf(t, []byte(str), `"80GB"`))})

	flt := nth(g, `"temperature_c": 33`, `"temperature_c": 33.5`, 2)
	cases = append(cases, tc{"fractional temperature", flt,
		fmt.Sprintf("node-1.json:%d: gpus[2].temperature_c: must be a whole number, not number 33.5", lineOf(t, []byte(flt), `33.5`))})

	noName := nth(g, `"name": "NVIDIA A100-SXM4-80GB"`, `"name": " "`, 0)
	cases = append(cases, tc{"blank name", noName,
		fmt.Sprintf("node-1.json:%d: gpus[0].name: must not be empty", lineOf(t, []byte(noName), `" "`))})

	both := nth(noName, `"util_gpu_pct": 3`, `"util_gpu_pct": 300`, 1)
	cases = append(cases, tc{"two problems", both,
		fmt.Sprintf("node-1.json:%d: gpus[0].name: must not be empty\nnode-1.json:%d: gpus[1].util_gpu_pct: must be -1 (unknown) or a percentage from 0 to 100",
			lineOf(t, []byte(both), `" "`), lineOf(t, []byte(both), `300`))})

	topo := strings.Replace(g, `"NV12"`, `"NV0"`, 1)
	cases = append(cases, tc{"bad topology entry", topo,
		fmt.Sprintf("node-1.json:%d: topology[0][1]: must be one of X, NV<n>, PIX, PXB, PHB, NODE, SYS, ?, not \"NV0\"", lineOf(t, []byte(topo), `"NV0"`))})

	cases = append(cases,
		tc{"empty file", "", "node-1.json:1: empty file: a box file is one JSON object (splitscope probe --save writes it)"},
		tc{"no gpus", "{\n  \"driver\": \"550\",\n  \"gpus\": []\n}\n", "node-1.json:3: gpus: must list at least one GPU"},
		tc{"gpus missing", "{\n  \"driver\": \"550\"\n}\n", "node-1.json:1: gpus: must list at least one GPU"},
		tc{"truncated", g[:200], fmt.Sprintf("node-1.json:%d: unexpected end of file (truncated JSON?)", lineOf(t, []byte(g[:200]), g[190:200]))},
		tc{"trailing text", g + "{}\n", fmt.Sprintf("node-1.json:%d: unexpected text after the box (one JSON object per file)", strings.Count(g, "\n")+1)},
		tc{"not an object", "[1, 2]\n", "node-1.json:1: must be an object, not array"},
		tc{"short matrix row", "{\"gpus\": [{\"name\": \"x\", \"memory_total_bytes\": 1}],\n \"p2p\": [[\"X\", \"OK\"]]}",
			"node-1.json:2: p2p[0]: must have 1 entries (one per GPU), has 2"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBox("node-1.json", []byte(c.text))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != c.want {
				t.Errorf("got  %s\nwant %s", err, c.want)
			}
		})
	}
}

// pcieBox is n GPUs on PCIe (no NVLink) with topology level lvl(i, j) between them.
func pcieBox(name string, n int, mem int64, gen int, lvl func(i, j int) string) Box {
	b := Box{Driver: "550.54.15", CUDA: "12.4", P2P: square(n), Topology: square(n)}
	for i := range n {
		d := unknownDevice(i)
		d.Name, d.MemTotal, d.PCIeMaxGen, d.PCIeGen, d.PCIeMaxW, d.PCIeW = name, mem, gen, 1, 16, 16
		b.GPUs = append(b.GPUs, d)
		for j := range n {
			if i == j {
				b.Topology[i][j], b.P2P[i][j] = "X", "X"
			} else {
				b.Topology[i][j] = lvl(i, j)
			}
		}
	}
	return b
}

// nvBox is n GPUs where every pair shares k NVLinks of generation gen.
func nvBox(name string, n int, mem int64, gen, k int) Box {
	b := pcieBox(name, n, mem, 4, func(i, j int) string { return fmt.Sprintf("NV%d", k) })
	for i := range b.GPUs {
		for l := range k {
			b.GPUs[i].NVLinks = append(b.GPUs[i].NVLinks, NVLink{Link: l, Active: true, Version: gen})
		}
	}
	return b
}

const gib = 1 << 30

func wantWarning(t *testing.T, warns []string, sub string) {
	t.Helper()
	for _, w := range warns {
		if strings.Contains(w, sub) {
			return
		}
	}
	t.Errorf("no warning containing %q in %q", sub, warns)
}

func TestToClusterTwoBoxes(t *testing.T) {
	p := presets(t)
	a, b := nvBox("NVIDIA A100-SXM4-80GB", 8, 81920*1024*1024, 3, 12), nvBox("NVIDIA A100-SXM4-80GB", 8, 81920*1024*1024, 3, 12)
	a.Host, b.Host = "node-1", "node-2"
	ndr := link(t, p, "ib-ndr")
	c, warns, err := ToCluster([]Box{a, b}, p.GPUs, p.Links, ndr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	if c.GPUs != 16 || c.GPUsPerNode != 8 || c.Nodes() != 2 || c.NICsPerNode != 8 {
		t.Errorf("got %d GPUs, %d per node, %d NICs; want 16, 8, 8", c.GPUs, c.GPUsPerNode, c.NICsPerNode)
	}
	if c.GPU.ID != "a100-sxm-80gb" || c.GPU.MemoryBytes != 81920*1024*1024 {
		t.Errorf("GPU %s with %.0f bytes", c.GPU.ID, c.GPU.MemoryBytes)
	}
	if c.Intra != link(t, p, "nvlink3") || c.Inter != ndr {
		t.Errorf("intra %s, inter %s; want nvlink3, ib-ndr", c.Intra.ID, c.Inter.ID)
	}
	c, _, _ = ToCluster([]Box{a, b}, p.GPUs, p.Links, ndr, 4)
	if c.NICsPerNode != 4 {
		t.Errorf("NICs per node %d, want 4", c.NICsPerNode)
	}

	// The boxes must have as many GPUs each.
	small := nvBox("NVIDIA A100-SXM4-80GB", 4, 81920*1024*1024, 3, 12)
	small.Host = "node-3"
	if _, _, err := ToCluster([]Box{a, small}, p.GPUs, p.Links, ndr, 0); err == nil ||
		err.Error() != "boxes need the same number of GPUs each: node-1: 8, node-3: 4" {
		t.Errorf("mismatched counts: %v", err)
	}
	// Several boxes need an inter-node link; a single box does not.
	if _, _, err := ToCluster([]Box{a, b}, p.GPUs, p.Links, model.Link{}, 0); err == nil {
		t.Error("two boxes without an inter link: no error")
	}
	if c, _, err := ToCluster([]Box{a}, p.GPUs, p.Links, model.Link{}, 0); err != nil || c.GPUs != 8 || c.Nodes() != 1 {
		t.Errorf("single box: %v, %d GPUs", err, c.GPUs)
	}
	if _, _, err := ToCluster(nil, p.GPUs, p.Links, ndr, 0); err == nil {
		t.Error("no boxes: no error")
	}
}

func TestToClusterUnknownGPU(t *testing.T) {
	p := presets(t)
	mem := int64(23028) * 1024 * 1024 // an A10's 24 GB
	c, warns, err := ToCluster([]Box{pcieBox("NVIDIA A10", 2, mem, 4, func(i, j int) string { return "PHB" })}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, `unknown GPU "NVIDIA A10"`)
	if c.GPU.MemoryBytes != float64(mem) || !strings.HasPrefix(c.GPU.ID, "generic-") || !strings.Contains(c.GPU.Name, "NVIDIA A10") {
		t.Errorf("GPU %s %q, %.0f bytes", c.GPU.ID, c.GPU.Name, c.GPU.MemoryBytes)
	}
	// Closest by memory is a 24 GB card; of the two, the slower one.
	if c.GPU.ID != "generic-rtx-3090" { // the 4090 is closer (23.99 GiB against 24), but faster
		t.Errorf("modelled on %s, want rtx-3090", c.GPU.ID)
	}
	if c.Intra.ID != "pcie4-host" || c.Intra.PCIePath != model.PathHost { // PHB: through the host bridge
		t.Errorf("intra %s (%s), want pcie4-host", c.Intra.ID, c.Intra.PCIePath)
	}
	if err := (model.Scenario{Cluster: c}).Validate(); err != nil && strings.Contains(err.Error(), "gpu.") {
		t.Errorf("generic GPU does not validate: %v", err)
	}
}

func TestToClusterLinks(t *testing.T) {
	p := presets(t)
	ndr := link(t, p, "ib-ndr")
	socket := func(i, j int) string { // GPUs 0-1 on one socket, 2-3 on the other
		if i/2 == j/2 {
			return "NODE"
		}
		return "SYS"
	}
	l40s := int64(46068) * 1024 * 1024
	for _, c := range []struct {
		name string
		box  Box
		want string
		bw   float64 // GB/s, 0: the preset's
		warn string
	}{
		{"L40S across sockets", pcieBox("NVIDIA L40S", 4, l40s, 4, socket), "pcie4-sys", 0, ""},
		{"L40S one socket", pcieBox("NVIDIA L40S", 4, l40s, 4, func(i, j int) string { return "PXB" }), "pcie4", 0, ""},
		{"H100 PCIe gen 5", pcieBox("NVIDIA H100 PCIe", 2, 80*gib, 5, socket), "pcie5-host", 0, ""},
		{"H100 PCIe under a switch", pcieBox("NVIDIA H100 PCIe", 2, 80*gib, 5, func(i, j int) string { return "PIX" }), "pcie5", 0, ""},
		{"PCIe 3 host", pcieBox("NVIDIA L40S", 2, l40s, 3, socket), "pcie3-host", 0, ""},
		{"topology unknown", pcieBox("NVIDIA L40S", 2, l40s, 4, func(i, j int) string { return "?" }), "pcie4", 0, "PCIe topology unknown"},
		{"full NVLink 4", nvBox("NVIDIA H100 80GB HBM3", 8, 80*gib, 4, 18), "nvlink4", 0, ""},
		{"4 of 12 NVLink 3 links", nvBox("NVIDIA A100 80GB PCIe", 4, 80*gib, 3, 4), "nvlink3-x4", 100, "only 4 of NVLink 3's 12 links"},
		{"NVLink version unknown", nvBox("NVIDIA H100 80GB HBM3", 8, 80*gib, Unknown, 18), "nvlink4", 0, ""},
		{"NVML version off", nvBox("NVIDIA H100 80GB HBM3", 8, 80*gib, 5, 18), "nvlink4", 0, "NVML reports NVLink 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, warns, err := ToCluster([]Box{c.box}, p.GPUs, p.Links, ndr, 0)
			if err != nil {
				t.Fatal(err)
			}
			if cl.Intra.ID != c.want {
				t.Errorf("intra %s, want %s (warnings %q)", cl.Intra.ID, c.want, warns)
			}
			if c.bw > 0 && math.Abs(cl.Intra.Bandwidth/1e9-c.bw) > 1e-6 {
				t.Errorf("bandwidth %.3f GB/s, want %.0f", cl.Intra.Bandwidth/1e9, c.bw)
			}
			if c.warn != "" {
				wantWarning(t, warns, c.warn)
			} else if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
		})
	}
}

func TestToClusterMixedAndLost(t *testing.T) {
	p := presets(t)
	ndr := link(t, p, "ib-ndr")

	// 2×A100 PCIe joined by an NVLink bridge, 2×L40S: mixed, the L40S sets the pace, PCIe links.
	b := pcieBox("NVIDIA A100 80GB PCIe", 4, 80*gib, 4, func(i, j int) string { return "PHB" })
	b.GPUs[2].Name, b.GPUs[3].Name = "NVIDIA L40S", "NVIDIA L40S"
	b.GPUs[2].MemTotal, b.GPUs[3].MemTotal = 46068*1024*1024, 46068*1024*1024
	b.Topology[0][1], b.Topology[1][0] = "NV12", "NV12"
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, ndr, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "mixed GPUs (2× NVIDIA A100 80GB PCIe, 2× NVIDIA L40S): the weakest sets the pace: compute of a100-pcie-80gb (312 TFLOPS BF16), memory bandwidth of l40s (864 GB/s)")
	wantWarning(t, warns, "NVLink joins only some GPU pairs")
	a100, _ := p.GPU("a100-pcie-80gb")
	l40s, _ := p.GPU("l40s")
	if c.GPU.PeakBF16 != a100.PeakBF16 || c.GPU.ComputeEff != a100.ComputeEff || c.GPU.HBMBandwidth != l40s.HBMBandwidth ||
		c.GPU.MemoryBytes != 46068*1024*1024 || c.Intra.ID != "pcie4-host" || c.GPUs != 4 {
		t.Errorf("got %+v over %s, %d GPUs", c.GPU, c.Intra.ID, c.GPUs)
	}
	if err := (model.Scenario{Cluster: c}).Validate(); err != nil && strings.Contains(err.Error(), "gpu.") {
		t.Errorf("mixed GPU does not validate: %v", err)
	}

	// H100 and A100: the A100 is weaker in compute and memory bandwidth, so it sets the pace.
	b = nvBox("NVIDIA H100 80GB HBM3", 4, 80*gib, 4, 18)
	b.GPUs[2].Name, b.GPUs[3].Name = "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"
	c, warns, err = ToCluster([]Box{b}, p.GPUs, p.Links, ndr, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "mixed GPUs (2× NVIDIA H100 80GB HBM3, 2× NVIDIA A100-SXM4-80GB): the slowest, a100-sxm-80gb, sets the pace")
	if c.GPU.ID != "a100-sxm-80gb" || c.Intra.ID != "nvlink3" {
		t.Errorf("got %s over %s", c.GPU.ID, c.Intra.ID)
	}

	// A lost GPU is left out.
	b = pcieBox("NVIDIA H100 PCIe", 4, 80*gib, 5, func(i, j int) string { return "NODE" })
	b.GPUs[1] = unknownDevice(1)
	b.GPUs[1].Name, b.GPUs[1].Lost = "NVIDIA H100 PCIe", true
	c, warns, err = ToCluster([]Box{b}, p.GPUs, p.Links, ndr, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "GPU 1 (NVIDIA H100 PCIe) was lost during the probe; left out")
	if c.GPUs != 3 || c.GPUsPerNode != 3 || c.GPU.ID != "h100-pcie" || c.Intra.ID != "pcie5-host" {
		t.Errorf("got %d GPUs (%d per node) of %s over %s", c.GPUs, c.GPUsPerNode, c.GPU.ID, c.Intra.ID)
	}
	for i := range b.GPUs {
		b.GPUs[i].Lost = true
	}
	if _, _, err := ToCluster([]Box{b}, p.GPUs, p.Links, ndr, 0); err == nil || !strings.Contains(err.Error(), "no usable GPU") {
		t.Errorf("all lost: %v", err)
	}
}
