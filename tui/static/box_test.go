package static

import (
	"bytes"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

func nvlinks(n, active, version int) []gpu.NVLink {
	var l []gpu.NVLink
	for i := range n {
		l = append(l, gpu.NVLink{Link: i, Active: i < active, Version: version})
	}
	return l
}

func TestRenderBox(t *testing.T) {
	dev := func(i int) gpu.Device {
		return gpu.Device{Index: i, Name: "NVIDIA H100 80GB HBM3", MemTotal: 80 * gib, MemFree: 79 * gib, MemUsed: gib,
			PCIeMaxGen: 5, PCIeGen: 5, PCIeMaxW: 16, PCIeW: 16, NVLinks: nvlinks(18, 18, 4),
			UtilGPU: 97, UtilMem: 40, PowerW: 650.4, TempC: 61}
	}
	b := gpu.Box{Host: "dgx1", Driver: "550.54.15", CUDA: "12.4", GPUs: []gpu.Device{dev(0), dev(1), dev(2)},
		P2P:      [][]string{{"X", "OK", "OK"}, {"OK", "X", "OK"}, {"OK", "OK", "X"}},
		Topology: [][]string{{"X", "NV18", "NV18"}, {"NV18", "X", "NV18"}, {"NV18"}}, // row 2 cut short
		Warnings: []string{"GPU 2: NVLink version not supported"}}
	u := &b.GPUs[1]
	u.MemUsed, u.PCIeGen, u.PCIeW, u.UtilGPU, u.UtilMem, u.PowerW, u.TempC = gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown
	u.NVLinks = nvlinks(18, 12, gpu.Unknown)
	b.GPUs[2].NVLinks = nil
	b.GPUs[2].Lost = true

	var out bytes.Buffer
	if err := RenderBox(&out, b); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"dgx1 · driver 550.54.15 · CUDA 12.4 · 3 GPUs",
		"GPU  name", "PCIe now/max", "NVLink", "util", "power", "temp",
		"NVIDIA H100 80GB HBM3", "80.0 GiB", "1.00 GiB", "5×16 / 5×16", "18/18 v4", "97%", "40%", "650 W", "61 °C",
		"?×? / 5×16", "12/18 v?", "NVIDIA H100 80GB HBM3 (lost)",
		"topology (nvidia-smi topo -m)", "GPU0  GPU1  GPU2", "NV18", "PHB PCIe host bridge", "SYS across CPU sockets",
		"peer-to-peer", "OK peer-to-peer supported",
		"warnings", "! GPU 2: NVLink version not supported",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("box lacks %q:\n%s", want, s)
		}
	}
	// GPU 1's unknowns read "?", one per column; GPU 2's short topology row is padded with "?".
	var row1, topo2 string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  1  ") {
			row1 = l
		}
		if strings.HasPrefix(l, "  GPU2  ") && topo2 == "" {
			topo2 = l
		}
	}
	if strings.Count(row1, "?") != 8 { // used, PCIe generation and width now, NVLink version, util, mem util, power, temp
		t.Errorf("GPU 1 row %q: want 8 question marks", row1)
	}
	if strings.Fields(topo2)[2] != "?" || strings.Fields(topo2)[3] != "?" {
		t.Errorf("short topology row not padded: %q", topo2)
	}
	for _, l := range strings.Split(s, "\n") {
		if n := len([]rune(l)); n > 110 {
			t.Errorf("line of %d runes: %q", n, l)
		}
	}
}

func TestRenderBoxEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := RenderBox(&out, gpu.Box{}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "driver ? · CUDA ? · 0 GPUs\n" {
		t.Errorf("empty box: %q", got)
	}
}

func TestRenderCluster(t *testing.T) {
	c := fixtureScenario().Cluster
	c.GPU.Name = "NVIDIA H100 SXM5 80GB"
	c.Intra.Bandwidth, c.Intra.Name = 450e9, "NVLink 4"
	c.GPUs = 16
	var out bytes.Buffer
	if err := RenderCluster(&out, &c, []string{"mixed GPUs"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"inferred cluster", "h100-sxm (NVIDIA H100 SXM5 80GB), 80.0 GiB each", "16 (2 nodes × 8)",
		"nvlink4 (NVLink 4, 450 GB/s per GPU)", "inter link  ib-ndr × 8 NICs per node", "! mixed GPUs"} {
		if !strings.Contains(s, want) {
			t.Errorf("cluster lacks %q:\n%s", want, s)
		}
	}
	out.Reset()
	if err := RenderCluster(&out, nil, []string{"no cluster inferred: boxes need the same number of GPUs each"}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "  none\n") || !strings.Contains(s, "! no cluster inferred") {
		t.Errorf("no cluster:\n%s", s)
	}
}

func TestRenderCapacity(t *testing.T) {
	s := fixtureScenario()
	s.Workload.Requests = 64
	good := fixtureReport()
	good.Memory.Fits, good.Memory.Total = true, 60*gib
	c := costmodel.Candidate{Layout: model.Layout{TP: 4, PP: 2, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.ZBH1},
		Report: good, Feasible: true}
	offRep := good
	offRep.Memory.Host = 194 * gib
	off := c
	off.Layout.Offload, off.Report = model.OffloadAll, offRep
	fast := off
	fast.Layout.Offload = model.OffloadOptimizer
	fast.Report.StepTime = 30
	small := model.Arch{ID: "llama-3-8b", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 128256, GatedMLP: true}
	big := model.Arch{ID: "llama-3.1-405b", Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, FFN: 53248, Vocab: 128256, GatedMLP: true}
	for _, tc := range []struct {
		name string
		res  costmodel.CapacityResult
		want []string
	}{
		{"nothing fits", costmodel.CapacityResult{}, []string{
			"capacity on 8× h100-sxm · nvlink4 (12 preset models checked, any layout)",
			"llama-3-70b, training  does not fit in any layout",
			"largest for inference  none of the 12 presets fits", "largest for training   none of the 12 presets fits"}},
		{"fits", costmodel.CapacityResult{Best: &c, LargestInfer: &big, LargestInferLayout: &c}, []string{
			"llama-3-70b, training  fits on the GPUs: TP=4 PP=2 DP=1 zb-h1 m=64 b=1 · step 40.0 s · 60.0 GiB of 80.0 GiB per GPU",
			"largest for inference  llama-3.1-405b (405.9B params): TP=4 PP=2 DP=1 · serve 40.0 s",
			"largest for training   none"}},
		{"only with offload", costmodel.CapacityResult{Best: &off, HostPerGPU: 256 * gib, HostDefault: true,
			LargestTrain: &big, LargestTrainLayout: &off, LargestTrainOnGPUs: &small, LargestTrainOnGPUsLayout: &c}, []string{
			"llama-3-70b, training              fits only with optimizer+weights+activations offloaded (194 GiB host RAM per GPU; 256 GiB per GPU assumed, the default: --host-memory or a probed box sets it): TP=4",
			"largest for training on the GPUs   llama-3-8b (8.0B params): TP=4 PP=2",
			"largest for training with offload  llama-3.1-405b (405.9B params): only with optimizer+weights+activations offloaded (194 GiB host RAM per GPU;"}},
		{"host too small", costmodel.CapacityResult{HostShort: &off, HostPerGPU: 64 * gib}, []string{
			"llama-3-70b, training  does not fit: its fastest layout with optimizer+weights+activations offloaded would need 194 GiB host RAM per GPU; this box has 64.0 GiB per GPU"}},
		{"faster with offload", costmodel.CapacityResult{Best: &fast, BestOnGPUs: &c, HostPerGPU: 256 * gib}, []string{
			"llama-3-70b, training  fits on the GPUs: TP=4 PP=2",
			"                       faster with optimizer offloaded (194 GiB host RAM per GPU; this box has 256 GiB per GPU): TP=4 PP=2 DP=1 zb-h1 m=64 b=1 · step 30.0 s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := RenderCapacity(&out, s, tc.res, 12); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("capacity lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestRenderSearchPareto(t *testing.T) {
	s := fixtureScenario()
	good := fixtureReport()
	good.Memory.Fits = true
	var cands []costmodel.Candidate
	// Ranked by time: TP 8 fastest but largest, TP 2 slowest but smallest; TP 1 is dominated.
	for i, x := range []struct {
		tp        int
		t, memGiB float64
	}{{8, 10, 70}, {4, 20, 50}, {1, 25, 60}, {2, 30, 40}} {
		r := good
		r.StepTime, r.Memory.Total = x.t, x.memGiB*gib
		cands = append(cands, costmodel.Candidate{Layout: model.Layout{TP: x.tp, PP: 8 / x.tp, DP: 1, Chunks: 1, MicroBatch: 1 + i},
			Report: r, Feasible: true})
	}
	cands = append(cands, costmodel.Candidate{Layout: model.Layout{TP: 3, PP: 1, DP: 1, Chunks: 1, MicroBatch: 1},
		Reason: "TP 3 does not divide the 64 heads"})
	var b bytes.Buffer
	if err := RenderSearch(&b, s, costmodel.SearchResult{Candidates: cands, Feasible: 4}, 1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i, j, k := strings.Index(out, "rank"), strings.Index(out, "Pareto front: time vs memory (3 layouts"), strings.Index(out, "infeasible (1)")
	if i < 0 || j < i || k < j {
		t.Fatalf("sections out of order (ranking %d, Pareto %d, infeasible %d):\n%s", i, j, k, out)
	}
	front := out[j:k]
	for _, want := range []string{"step time", "mem/GPU", "10.0 s", "70.0 GiB", "20.0 s", "50.0 GiB", "30.0 s", "40.0 GiB"} {
		if !strings.Contains(front, want) {
			t.Errorf("front lacks %q:\n%s", want, front)
		}
	}
	if strings.Contains(front, "25.0 s") {
		t.Errorf("dominated layout on the front:\n%s", front)
	}
	// Ranks on the front are the objective's ranks, though --top 1 shows only the first.
	var ranks []string
	for _, l := range strings.Split(strings.TrimSpace(front), "\n")[2:] {
		ranks = append(ranks, strings.Fields(l)[0])
	}
	if strings.Join(ranks, " ") != "1 2 4" {
		t.Errorf("front ranks %v, want 1 2 4:\n%s", ranks, front)
	}
	if !strings.Contains(out, "TP 3 does not divide the 64 heads") {
		t.Errorf("infeasible reason missing:\n%s", out)
	}
}
