package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/gpu"
)

// rtx4090Box is a box file written by hand: two RTX 4090s under one PCIe host bridge, no P2P.
// GPU 1's memory_total_bytes is on line 28 (gpu1Mem changes it there).
const rtx4090Box = `{
  "host": "ws1",
  "driver": "550.54.15",
  "cuda": "12.4",
  "gpus": [
    {
      "index": 0,
      "name": "NVIDIA GeForce RTX 4090",
      "uuid": "GPU-0a1b2c3d",
      "bus_id": "00000000:01:00.0",
      "memory_total_bytes": 25757220864,
      "memory_free_bytes": 25300000000,
      "memory_used_bytes": 457220864,
      "pcie_max_gen": 4,
      "pcie_gen": 1,
      "pcie_max_width": 16,
      "pcie_width": 16,
      "util_gpu_pct": 0,
      "util_memory_pct": 0,
      "power_w": 21.5,
      "temperature_c": 34
    },
    {
      "index": 1,
      "name": "NVIDIA GeForce RTX 4090",
      "uuid": "GPU-4e5f6a7b",
      "bus_id": "00000000:02:00.0",
      "memory_total_bytes": 25757220864,
      "memory_free_bytes": 25300000000,
      "memory_used_bytes": 457220864,
      "pcie_max_gen": 4,
      "pcie_gen": 4,
      "pcie_max_width": 16,
      "pcie_width": 16,
      "util_gpu_pct": -1,
      "util_memory_pct": -1,
      "power_w": -1,
      "temperature_c": 36
    }
  ],
  "p2p": [["X", "NS"], ["NS", "X"]],
  "topology": [["X", "PHB"], ["PHB", "X"]]
}
`

// gpu1MemLine is the line of GPU 1's memory_total_bytes in rtx4090Box.
const gpu1MemLine = 28

// writeFile writes content to name in a fresh temporary directory and returns the path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gpu1Mem replaces GPU 1's memory_total_bytes value in rtx4090Box.
func gpu1Mem(v string) string {
	lines := strings.Split(rtx4090Box, "\n")
	lines[gpu1MemLine-1] = `      "memory_total_bytes": ` + v + `,`
	return strings.Join(lines, "\n")
}

func TestBoxFixtureLine(t *testing.T) {
	if l := strings.Split(rtx4090Box, "\n")[gpu1MemLine-1]; !strings.Contains(l, "memory_total_bytes") {
		t.Fatalf("line %d of the fixture is %q", gpu1MemLine, l)
	}
}

// fakeProbe makes probe find box (or fail with err) for the test's duration.
func fakeProbe(t *testing.T, box gpu.Box, err error) {
	t.Helper()
	old := probeGPUs
	probeGPUs = func() (gpu.Box, error) { return box, err }
	t.Cleanup(func() { probeGPUs = old })
}

func parseFixtureBox(t *testing.T) gpu.Box {
	t.Helper()
	b, err := gpu.ParseBox("fixture.json", []byte(rtx4090Box))
	if err != nil {
		t.Fatalf("fixture does not parse: %v", err)
	}
	return b
}

func TestBoxReport(t *testing.T) {
	box := writeFile(t, "ws1.json", rtx4090Box)
	for _, args := range [][]string{
		{"report", "--box", box, "--model", "llama-2-7b", "--mode", "infer"},
		{"--box", box, "--model", "llama-2-7b", "--mode", "infer"}, // the bare command prints the report off a terminal
	} {
		code, out, errs := runArgs(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d; stderr:\n%s", args, code, errs)
		}
		header := strings.SplitN(out, "\n", 2)[0]
		for _, want := range []string{"2× rtx-4090", "pcie4", "TP=2 PP=1 DP=1"} {
			if !strings.Contains(header, want) {
				t.Errorf("%v: header %q lacks %q", args, header, want)
			}
		}
		if !strings.Contains(out, "of 24.0 GiB") {
			t.Errorf("%v: capacity is not the device's 24 GiB:\n%s", args, out)
		}
	}

	code, out, errs := runArgs(t, "report", "--box", box, "--model", "llama-2-7b", "--mode", "infer", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d; stderr:\n%s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if tp, _ := lookup(doc, "layout.tp"); tp != float64(2) {
		t.Errorf("layout.tp = %v, want 2 (the box's GPUs)", tp)
	}
	if c, _ := lookup(doc, "memory.capacity"); c != float64(25757220864) {
		t.Errorf("memory.capacity = %v, want the device's 25757220864", c)
	}
	if _, ok := doc["capacity"]; ok {
		t.Errorf("capacity without --capacity")
	}
}

func TestBoxSearch(t *testing.T) {
	box := writeFile(t, "ws1.json", rtx4090Box)
	code, out, errs := runArgs(t, "search", "--box", box, "--model", "llama-2-13b", "--mode", "infer")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	for _, want := range []string{"2× rtx-4090", "rank", "TTFT p90", "TPOT p90", "out tok/s",
		"infeasible", "over memory by"} {
		if !strings.Contains(out, want) {
			t.Errorf("search --box lacks %q:\n%s", want, out)
		}
	}
}

// Two boxes, one per node, make a two-node cluster joined by --inter.
func TestTwoBoxes(t *testing.T) {
	a := writeFile(t, "node-0.json", rtx4090Box)
	b := writeFile(t, "node-1.json", strings.Replace(rtx4090Box, `"ws1"`, `"ws2"`, 1))
	code, out, errs := runArgs(t, "report", "--box", a, "--box", b, "--inter", "roce-100", "--model", "llama-2-7b", "--mode", "infer")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	if h := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(h, "4× rtx-4090 (2 nodes × 2)") || !strings.Contains(h, "roce-100 ×2 NICs") {
		t.Errorf("header %q", h)
	}
	code, out, _ = runArgs(t, "report", "--box", a, "--box", b, "--nics-per-node", "1")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "ib-ndr ×1 NICs") {
		t.Errorf("--nics-per-node 1: exit %d\n%s", code, out)
	}

	// Boxes of different sizes make no cluster: bad input.
	one := parseFixtureBox(t)
	one.GPUs, one.P2P, one.Topology = one.GPUs[:1], nil, nil
	data, err := gpu.MarshalBox(one)
	if err != nil {
		t.Fatal(err)
	}
	c := writeFile(t, "node-2.json", string(data))
	code, _, errs = runArgs(t, "search", "--box", a, "--box", c)
	if code != 2 || !strings.Contains(errs, "splitscope: --box: ") {
		t.Errorf("boxes of 2 and 1 GPUs: exit %d, stderr %q", code, errs)
	}
}

func TestBoxBadInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    []string // besides the file's path
	}{
		{"wrong type", gpu1Mem(`"lots"`), []string{fmt.Sprintf(":%d:", gpu1MemLine), "gpus[1].memory_total_bytes"}},
		{"out of range", gpu1Mem(`0`), []string{fmt.Sprintf(":%d:", gpu1MemLine), "gpus[1].memory_total_bytes"}},
		{"unknown field", strings.Replace(rtx4090Box, `"cuda"`, `"cuda_version"`, 1), []string{":4:", "cuda_version"}},
		{"not JSON", "driver: 550\n", []string{":1:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "bad.json", tc.content)
			code, out, errs := runArgs(t, "report", "--box", path)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, errs)
			}
			if out != "" {
				t.Errorf("stdout on bad input:\n%s", out)
			}
			for _, w := range append([]string{path}, tc.want...) {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
				if !strings.HasPrefix(l, "splitscope: ") {
					t.Errorf("stderr line %q lacks the splitscope: prefix", l)
				}
			}
		})
	}
}

func TestBoxConflicts(t *testing.T) {
	box := writeFile(t, "ws1.json", rtx4090Box)
	for _, flag := range [][]string{{"--gpus", "4"}, {"--gpu", "l40s"}, {"--gpus-per-node", "2"}, {"--intra", "nvlink4"}} {
		for _, cmd := range []string{"report", "search", "probe"} {
			args := append([]string{cmd, "--box", box}, flag...)
			code, out, errs := runArgs(t, args...)
			want := flag[0] + " " + flag[1] + ": conflicts with --box"
			if cmd == "probe" {
				want = flag[0] + " " + flag[1] + ": conflicts with probe" // refused before the boxes are read
			}
			if code != 2 || !strings.Contains(errs, want) || out != "" {
				t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", args, code, errs, out, want)
			}
		}
	}
	// probe's own box is the hardware too.
	fakeProbe(t, parseFixtureBox(t), nil)
	if code, _, errs := runArgs(t, "probe", "--gpus", "4"); code != 2 || !strings.Contains(errs, "--gpus 4: conflicts with probe") {
		t.Errorf("probe --gpus: exit %d, stderr %q", code, errs)
	}
}

// A GPU that is not a preset is modelled generically, with a warning: stderr in text mode,
// "warnings" with --json.
func TestBoxWarnings(t *testing.T) {
	box := writeFile(t, "odd.json", strings.ReplaceAll(rtx4090Box, "NVIDIA GeForce RTX 4090", "NVIDIA Imaginary X9"))
	code, out, errs := runArgs(t, "report", "--box", box, "--model", "llama-2-7b", "--mode", "infer")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	if !strings.Contains(errs, "splitscope: warning: ") || !strings.Contains(errs, "Imaginary X9") {
		t.Errorf("no warning on stderr:\n%s", errs)
	}
	if strings.Contains(out, "warning: ") {
		t.Errorf("box warning on stdout")
	}
	for _, cmd := range []string{"report", "search"} {
		code, out, _ = runArgs(t, cmd, "--box", box, "--model", "llama-2-7b", "--mode", "infer", "--json")
		var doc struct {
			Warnings []string `json:"warnings"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("%s --json: exit %d\n%s", cmd, code, out)
		}
		if !strings.Contains(strings.Join(doc.Warnings, "\n"), "Imaginary X9") {
			t.Errorf("%s --json warnings lack the box's: %q", cmd, doc.Warnings)
		}
	}
}

func TestProbeNoGPU(t *testing.T) {
	fakeProbe(t, gpu.Box{}, fmt.Errorf("%w: NVML library not found (libnvidia-ml.so.1)", gpu.ErrNoGPU))
	code, out, errs := runArgs(t, "probe")
	if code != 0 || out != "no NVIDIA GPU: NVML library not found (libnvidia-ml.so.1)\n" || errs != "" {
		t.Errorf("probe: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runArgs(t, "probe", "--json")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !strings.Contains(fmt.Sprint(doc["error"]), "NVML library not found") || len(doc) != 1 {
		t.Errorf("probe --json: exit %d, %q", code, out)
	}
	path := filepath.Join(t.TempDir(), "node.json")
	for _, args := range [][]string{{"probe", "--save", path}, {"probe", "--save", path, "--json"}} {
		// --save with nothing to save fails (exit 1), said on stderr.
		code, out, errs = runArgs(t, args...)
		if code != 1 || !strings.Contains(errs, "nothing saved to "+path) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%v wrote %s", args, path)
		}
	}
	// Another failure is exit 1, and --json still prints valid JSON.
	fakeProbe(t, gpu.Box{}, fmt.Errorf("nvml shutdown: unknown error"))
	code, out, _ = runArgs(t, "probe", "--json")
	if code != 1 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Errorf("probe --json on a failure: exit %d, %q", code, out)
	}
}

// The real probe on this machine: without a GPU (or in a CGO_ENABLED=0 build) it prints the
// reason and exits 0; with one it prints the box. Either way --json is one valid document.
func TestProbeThisMachine(t *testing.T) {
	code, out, errs := runArgs(t, "probe")
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("probe: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runArgs(t, "probe", "--json")
	var doc map[string]json.RawMessage
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("probe --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, hasErr := doc["error"]
	_, hasBox := doc["box"]
	if hasErr == hasBox {
		t.Errorf("probe --json has neither or both of error and box: %s", out)
	}
	if hasErr {
		if !strings.HasPrefix(out, "{") || strings.Count(strings.TrimSpace(out), "\n") != 2 {
			t.Errorf("no-GPU document is not one error: %s", out)
		}
		t.Logf("no GPU here: %s", doc["error"])
	}
}

func TestProbeFound(t *testing.T) {
	box := parseFixtureBox(t)
	fakeProbe(t, box, nil)

	code, out, errs := runArgs(t, "probe")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	for _, want := range []string{
		"ws1 · driver 550.54.15 · CUDA 12.4 · 2 GPUs",
		"NVIDIA GeForce RTX 4090", "24.0 GiB", "1×16 / 4×16", "34 °C", "22 W",
		"topology (nvidia-smi topo -m)", "GPU0  GPU1", "PHB", "peer-to-peer", "NS",
		"inferred cluster", "rtx-4090", "2 in one node", "pcie4",
		"capacity on 2× rtx-4090", "llama-3-70b, training", "largest for inference", "largest for training",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("probe lacks %q:\n%s", want, out)
		}
	}
	// Unknown values read "?".
	if !regexp.MustCompile(`(?m)^\s+1 .* \?\s+\?\s+\?\s+36 °C$`).MatchString(out) {
		t.Errorf("GPU 1's unknown utilisation and power do not read ?:\n%s", out)
	}

	code, out, errs = runArgs(t, "probe", "--json", "--model", "llama-2-7b")
	if code != 0 {
		t.Fatalf("--json: exit %d; stderr:\n%s", code, errs)
	}
	var doc struct {
		Box      gpu.Box        `json:"box"`
		Cluster  map[string]any `json:"cluster"`
		Warnings []string       `json:"warnings"`
		Capacity map[string]any `json:"capacity"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if len(doc.Box.GPUs) != 2 || doc.Box.GPUs[1].UUID != "GPU-4e5f6a7b" {
		t.Errorf("box: %+v", doc.Box)
	}
	// Two GeForce cards under one host bridge, NVML saying "NS": no peer-to-peer, the host's path.
	if doc.Cluster["gpu"] != "rtx-4090" || doc.Cluster["gpus"] != float64(2) || doc.Cluster["intra"] != "pcie4-host-nop2p" ||
		doc.Cluster["p2p"] != false || doc.Cluster["pcie_path"] != "host" || doc.Cluster["memory_bytes"] != float64(25757220864) {
		t.Errorf("cluster: %v", doc.Cluster)
	}
	if doc.Warnings == nil {
		t.Errorf("warnings is null, want an array")
	}
	if doc.Capacity["model"] != "llama-2-7b" || doc.Capacity["largest_infer"] == nil {
		t.Errorf("capacity: %v", doc.Capacity)
	}

	// --save writes a box file that --box reads back.
	dir := t.TempDir()
	code, out, errs = runArgs(t, "probe", "--save", filepath.Join(dir, "node-%h.json"))
	saved := filepath.Join(dir, "node-ws1.json")
	if code != 0 || !strings.Contains(out, "saved the box to "+saved) {
		t.Fatalf("--save: exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := gpu.ParseBox(saved, data); err != nil || len(back.GPUs) != 2 {
		t.Fatalf("saved box does not parse back: %v", err)
	}
	if code, out, errs := runArgs(t, "report", "--box", saved); code != 0 || !strings.Contains(out, "2× rtx-4090") {
		t.Errorf("report --box of the saved box: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runArgs(t, "probe", "--save", filepath.Join(dir, "again.json"), "--json")
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !strings.Contains(out, `"saved": "`+filepath.Join(dir, "again.json")) {
		t.Errorf("--save --json: exit %d\n%s", code, out)
	}

	// probe --box shows saved boxes without probing.
	fakeProbe(t, gpu.Box{}, fmt.Errorf("%w: must not be called", gpu.ErrNoGPU))
	code, out, _ = runArgs(t, "probe", "--box", saved)
	if code != 0 || !strings.Contains(out, "box "+saved) || !strings.Contains(out, "inferred cluster") {
		t.Errorf("probe --box: exit %d\n%s", code, out)
	}
	if code, _, errs := runArgs(t, "probe", "--box", saved, "--save", "x.json"); code != 2 || !strings.Contains(errs, "--save x.json") {
		t.Errorf("probe --box --save: exit %d, %q", code, errs)
	}
}

// A probe whose GPUs were all lost still shows the box, says why there is no cluster, exit 0.
func TestProbeNoCluster(t *testing.T) {
	box := parseFixtureBox(t)
	for i := range box.GPUs {
		box.GPUs[i].Lost, box.GPUs[i].MemTotal = true, gpu.Unknown
	}
	fakeProbe(t, box, nil)
	code, out, errs := runArgs(t, "probe")
	if code != 0 || !strings.Contains(out, "(lost)") || !strings.Contains(out, "inferred cluster\n  none") ||
		!strings.Contains(out, "! no cluster inferred: ") || strings.Contains(out, "capacity on") {
		t.Errorf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = runArgs(t, "probe", "--json")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if c, ok := doc["cluster"]; !ok || c != nil || !strings.Contains(fmt.Sprint(doc["warnings"]), "no cluster inferred") {
		t.Errorf("--json: cluster %v, warnings %v", doc["cluster"], doc["warnings"])
	}
}

func TestSearchPareto(t *testing.T) {
	code, out, errs := runArgs(t, "search", "--model", "llama-2-13b", "--gpus", "8", "--top", "3")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	i, j := strings.Index(out, "rank"), strings.Index(out, "Pareto front: time vs memory")
	if i < 0 || j < i {
		t.Errorf("no Pareto section after the ranking:\n%s", out)
	}
	code, out, _ = runArgs(t, "search", "--model", "llama-2-13b", "--gpus", "8", "--top", "3", "--json")
	var doc struct {
		Candidates []map[string]any `json:"candidates"`
		Pareto     []map[string]any `json:"pareto"`
		Warnings   []string         `json:"warnings"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json: exit %d", code)
	}
	if len(doc.Pareto) == 0 || doc.Warnings == nil {
		t.Fatalf("pareto %d, warnings %v", len(doc.Pareto), doc.Warnings)
	}
	prevT, prevM := 0.0, 0.0
	for k, c := range doc.Pareto {
		st, _ := lookup(c, "step_time_s")
		mem, _ := lookup(c, "memory.total")
		if c["feasible"] != true {
			t.Errorf("pareto[%d] infeasible", k)
		}
		if k > 0 && !(st.(float64) > prevT && mem.(float64) < prevM) {
			t.Errorf("pareto[%d] not slower and smaller than the one before", k)
		}
		prevT, prevM = st.(float64), mem.(float64)
	}
	if first, _ := lookup(doc.Candidates[0], "step_time_s"); first != doc.Pareto[0]["step_time_s"] {
		t.Errorf("front does not start at the fastest layout")
	}
}

func TestReportCapacity(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--gpus", "8", "--capacity", "--mode", "infer")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	for _, want := range []string{"capacity on 8× h100-sxm · nvlink4", "llama-3-70b, inference", "fits on the GPUs: TP=",
		"largest for inference", "largest for training", "params"} {
		if !strings.Contains(out, want) {
			t.Errorf("report --capacity lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runArgs(t, "report", "--gpus", "8", "--capacity", "--json")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	for _, path := range []string{"step_time_s", "capacity.model", "capacity.mode", "capacity.best",
		"capacity.largest_infer.model", "capacity.largest_infer.params", "capacity.largest_infer.candidate.layout.tp",
		"capacity.largest_train.candidate.feasible", "capacity.models_checked"} {
		if _, ok := lookup(doc, path); !ok {
			t.Errorf("report --capacity --json lacks %s", path)
		}
	}
	// llama-3-70b trains on 8 H100s only with its optimizer (and weights) on the host.
	if off, ok := lookup(doc, "capacity.best.layout.offload"); !ok || off == "none" {
		t.Errorf("capacity.best.layout.offload = %v, want an offload", off)
	}
	// llama-3.1-405b does not train there in any layout, even offloaded (911 GB of host memory
	// a GPU): best is null, not absent.
	code, out, _ = runArgs(t, "report", "--gpus", "8", "--model", "llama-3.1-405b", "--capacity", "--json")
	doc = nil
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if b, ok := lookup(doc, "capacity.best"); !ok || b != nil {
		t.Errorf("capacity.best = %v, want null", b)
	}
}

func TestExpandSavePath(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		pattern, node, want string
	}{
		{"box.json", "", "box.json"},
		{"node-%h.json", "", "node-gpu7.json"},
		{"node-%n.json", "", "node-gpu7.json"},
		{"node-%n.json", "3", "node-3.json"},
		{"%%n-%q-%", "3", "%n-%q-%"},
	} {
		env["SLURM_NODEID"] = tc.node
		if got := expandSavePath(tc.pattern, "gpu7", getenv); got != tc.want {
			t.Errorf("expandSavePath(%q) with node %q = %q, want %q", tc.pattern, tc.node, got, tc.want)
		}
	}
}
