package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
)

// The calibration set's 8×A100 all_reduce_perf sweep and a synthetic two-node one, as nccl-tests
// prints them (assets/testdata/nccl-tests).
const (
	a100Log     = "../../assets/testdata/nccl-tests/a100-8x-all_reduce_perf.log"
	twoNodesLog = "../../assets/testdata/nccl-tests/a100-2x8-all_reduce_perf.log"
)

// calibrateDoc is calibrate --json.
type calibrateDoc struct {
	GPU  string `json:"gpu"`
	Runs []struct {
		File     string `json:"file"`
		Line     int    `json:"line"`
		Op       string `json:"op"`
		OpFrom   string `json:"op_from"`
		Ranks    int    `json:"ranks"`
		Nodes    int    `json:"nodes"`
		GPUName  string `json:"gpu_name"`
		Rows     int    `json:"rows"`
		NCCLAlgo string `json:"nccl_algo"`
	} `json:"runs"`
	Links map[string]struct {
		Link   string `json:"link"`
		Fitted bool   `json:"fitted"`
		Rows   int    `json:"rows"`
	} `json:"links"`
	Parameters []struct {
		Role, Link, Name, Status, Bound string
		Preset                          float64 `json:"preset"`
		Fitted                          float64 `json:"fitted"`
		Min, Max                        float64
		Rows                            int
	} `json:"parameters"`
	Rows []struct {
		File        string  `json:"file"`
		Line        int     `json:"line"`
		Op          string  `json:"op"`
		Ranks       int     `json:"ranks"`
		Nodes       int     `json:"nodes"`
		Bytes       float64 `json:"bytes"`
		MeasuredS   float64 `json:"measured_s"`
		PresetS     float64 `json:"preset_s"`
		PresetError float64 `json:"preset_error"`
		FittedS     float64 `json:"fitted_s"`
		FittedError float64 `json:"fitted_error"`
		Algorithm   string  `json:"algorithm"`
		Protocol    string  `json:"protocol"`
	} `json:"rows"`
	MeanError struct{ Preset, Fitted float64 } `json:"mean_error"`
	MaxError  struct{ Preset, Fitted float64 } `json:"max_error"`
	Warnings  []string                         `json:"warnings"`
	Out       string                           `json:"out"`
}

func calibrateJSON(t *testing.T, args ...string) calibrateDoc {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"calibrate", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc calibrateDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

func TestCalibrateJSON(t *testing.T) {
	doc := calibrateJSON(t, "--nccl-tests", a100Log)
	if doc.GPU != "a100-sxm-80gb" || len(doc.Runs) != 1 || doc.Warnings == nil || len(doc.Warnings) != 0 {
		t.Fatalf("gpu %q, %d runs, warnings %v", doc.GPU, len(doc.Runs), doc.Warnings)
	}
	r := doc.Runs[0]
	if r.File != a100Log || r.Line != 2 || r.Op != "all-reduce" || r.Ranks != 8 || r.Nodes != 1 || r.Rows != 20 || r.GPUName != "NVIDIA A100-SXM4-80GB" {
		t.Errorf("run %+v", r)
	}
	if l := doc.Links["intra"]; l.Link != "nvlink3" || !l.Fitted || l.Rows != 20 {
		t.Errorf("intra %+v", l)
	}
	if l := doc.Links["inter"]; l.Fitted || l.Rows != 0 {
		t.Errorf("inter %+v", l)
	}
	names := map[string]float64{}
	for _, p := range doc.Parameters {
		if p.Status == "fitted" {
			names[p.Link+" "+p.Name] = p.Fitted
		}
	}
	// In the units of the keys: µs, a fraction, GB/s.
	if lat, eff, ll := names["nvlink3 latency_us"], names["nvlink3 efficiency"], names["nvlink3 ll_bandwidth_gbps"]; len(names) != 3 ||
		lat < 2.5 || lat > 3.5 || eff < 0.75 || eff > 0.85 || ll < 20 || ll > 28 {
		t.Errorf("fitted %v", names)
	}
	if len(doc.Rows) != 20 {
		t.Fatalf("%d rows", len(doc.Rows))
	}
	var sum float64
	for _, row := range doc.Rows {
		if row.Ranks != 8 || row.Nodes != 1 || row.Op != "all-reduce" || !near(row.FittedError, row.FittedS/row.MeasuredS-1, 1e-9) {
			t.Errorf("row %+v", row)
		}
		sum += math.Abs(row.FittedError)
	}
	if !near(doc.MeanError.Fitted, sum/20, 1e-9) || doc.MeanError.Fitted >= doc.MeanError.Preset || doc.MeanError.Fitted > 0.05 {
		t.Errorf("mean error %+v (rows: %v)", doc.MeanError, sum/20)
	}
	if first := doc.Rows[0]; first.Bytes != 32768 || first.Line != 46 || first.MeasuredS != 43.83e-6 || first.Algorithm != "ring" || first.Protocol != "ll" {
		t.Errorf("first row %+v", first)
	}
}

func TestCalibrateText(t *testing.T) {
	code, out, errs := runArgs(t, "calibrate", "--nccl-tests", a100Log)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"calibrate: 1 log, 1 run, 20 rows on a100-sxm-80gb",
		"all-reduce, 8 ranks on 1 node (NVIDIA A100-SXM4-80GB), 20 rows; the operation from all_reduce_perf (line 1, the command line)",
		"nvlink3, inside a node (300 GB/s per GPU): fitted on 20 rows",
		"  latency_us                   3 ",
		"ib-ndr, between nodes: not fitted (no run across nodes)",
		"     46          32768        43.83 ",
		"mean error over 20 rows: presets 3.43%, fitted 3.35%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// One log on one node and one across two: the node's link from the first, the network from the
// second, and a warning that the network's preset was assumed.
func TestCalibrateTwoNodes(t *testing.T) {
	doc := calibrateJSON(t, "--nccl-tests", twoNodesLog, a100Log)
	if len(doc.Runs) != 2 || doc.Runs[0].Nodes != 2 || doc.Runs[0].NCCLAlgo != "Ring" || !doc.Links["inter"].Fitted || doc.Links["inter"].Rows != 31 {
		t.Fatalf("runs %+v links %+v", doc.Runs, doc.Links)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "the default network, ib-ndr with 8 NICs per node") {
		t.Errorf("warnings %v", doc.Warnings)
	}
	// The synthetic log was made with ib-hdr α 6.1 µs and efficiency 0.78 (on the nvlink3 preset).
	doc = calibrateJSON(t, "--nccl-tests", twoNodesLog, "--inter", "ib-hdr", "--nccl-tests", a100Log)
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings %v", doc.Warnings)
	}
	for _, p := range doc.Parameters {
		if p.Role != "inter" {
			continue
		}
		if (p.Name == "latency_us" && math.Abs(p.Fitted/6.1-1) > 0.05) || (p.Name == "efficiency" && math.Abs(p.Fitted/0.78-1) > 0.05) {
			t.Errorf("ib-hdr %s %v", p.Name, p.Fitted)
		}
	}
}

// --out writes a calibration file that --calibration reads; it never replaces a file without
// --force.
func TestCalibrateOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "box.yaml")
	doc := calibrateJSON(t, "--nccl-tests", a100Log, "--out", out)
	if doc.Out != out {
		t.Errorf("out %q", doc.Out)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := assets.Load()
	c, err := assets.ParseCalibration(out, data, p)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if c.GPU != "a100-sxm-80gb" || c.Intra == nil || c.Intra.Link != "nvlink3" || c.Inter != nil || c.Rows != 20 ||
		len(c.From) != 1 || c.From[0] != "a100-8x-all_reduce_perf.log" {
		t.Errorf("%+v\n%s", c, data)
	}
	// Again: refused, the file left alone.
	requireBadInput(t, []string{"calibrate", "--nccl-tests", a100Log, "--out", out}, []string{"splitscope: --out " + out + ": the file exists: pass --force to replace it"})
	if again, _ := os.ReadFile(out); string(again) != string(data) {
		t.Error("the file changed")
	}
	// With --force, replaced.
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runArgs(t, "calibrate", "--nccl-tests", a100Log, "--out", out, "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errs)
	}
	if again, _ := os.ReadFile(out); string(again) != string(data) {
		t.Errorf("--force wrote:\n%s", again)
	}
	// The text names the file.
	_, text, _ := runArgs(t, "calibrate", "--nccl-tests", a100Log, "--out", filepath.Join(dir, "b.yaml"))
	if !strings.Contains(text, "wrote "+filepath.Join(dir, "b.yaml")+": use it with --calibration") {
		t.Errorf("text:\n%s", text)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, _ := os.ReadFile(a100Log)
	lines := strings.SplitAfter(string(good), "\n")
	truncated := write("trunc.log", strings.Join(lines[:52], "")+"     2097152        524288     float     sum")
	headerOnly := write("head.log", strings.Join(lines[:45], "")) // through the units line
	garbage := write("garbage.log", "Segmentation fault (core dumped)\n")
	empty := write("empty.log", "")
	rtx := write("rtx.log", strings.ReplaceAll(string(good), "NVIDIA A100-SXM4-80GB", "NVIDIA RTX 6000D"))
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no logs", []string{"calibrate"}, []string{"splitscope: calibrate needs --nccl-tests FILE"}},
		{"a row cut mid-line", []string{"calibrate", "--nccl-tests", truncated}, []string{"splitscope: " + truncated + ":53: row cut short: 4 of the 13 columns"}},
		{"a header without rows", []string{"calibrate", "--nccl-tests", headerOnly}, []string{"splitscope: " + headerOnly + ":45: truncated: the results table (line 44) has no rows"}},
		{"garbage", []string{"calibrate", "--nccl-tests", garbage}, []string{"splitscope: " + garbage + ":1: not nccl-tests output"}},
		{"empty", []string{"calibrate", "--nccl-tests", empty}, []string{"splitscope: " + empty + ":1: empty file"}},
		{"every bad file, one line each", []string{"calibrate", "--nccl-tests", garbage, empty, a100Log}, []string{
			"splitscope: " + garbage + ":1: not nccl-tests output", "splitscope: " + empty + ":1: empty file"}},
		{"a missing file", []string{"calibrate", "--nccl-tests", filepath.Join(dir, "nope.log")}, []string{"splitscope: --nccl-tests " + filepath.Join(dir, "nope.log") + ": cannot read the file"}},
		{"a directory", []string{"calibrate", "--nccl-tests", dir}, []string{"must be a regular file, not a directory"}},
		{"a GPU that is not a preset", []string{"calibrate", "--nccl-tests", rtx}, []string{"splitscope: " + rtx + ":5: the GPU \"NVIDIA RTX 6000D\" is not a preset: give --gpu ID"}},
		{"an unknown --gpu", []string{"calibrate", "--nccl-tests", a100Log, "--gpu", "a100"}, []string{"splitscope: --gpu a100: unknown GPU"}},
		{"a network inside a node", []string{"calibrate", "--nccl-tests", a100Log, "--intra", "ib-hdr"}, []string{"splitscope: --intra ib-hdr: is a infiniband link"}},
		{"NVLink between nodes", []string{"calibrate", "--nccl-tests", a100Log, "--inter", "nvlink3"}, []string{"splitscope: --inter nvlink3: is a nvlink link"}},
		{"the same log twice", []string{"calibrate", "--nccl-tests", a100Log, a100Log}, []string{"splitscope: --nccl-tests " + a100Log + ": given twice"}},
		{"--out over a log", []string{"calibrate", "--nccl-tests", garbage, "--out", garbage, "--force"}, []string{"splitscope: --out " + garbage + ": is one of the logs read"}},
		{"--out to stdout", []string{"calibrate", "--nccl-tests", a100Log, "--out", "-"}, []string{"splitscope: --out -: must name a file"}},
		{"a flag calibrate does not take", []string{"calibrate", "--nccl-tests", a100Log, "--tp", "8"}, []string{"splitscope: --tp 8: calibrate reads the GPUs"}},
		{"--calibration", []string{"calibrate", "--nccl-tests", a100Log, "--calibration", "box.yaml"}, []string{"splitscope: --calibration box.yaml: calibrate reads the GPUs"}},
	} {
		t.Run(tc.name, func(t *testing.T) { requireBadInput(t, tc.args, tc.want) })
	}
	// --gpu names a GPU the presets do not know by its device name.
	code, out, errs := runArgs(t, "calibrate", "--nccl-tests", rtx, "--gpu", "rtx-4090", "--intra", "nvlink3")
	if code != 0 || !strings.Contains(out, "on rtx-4090") || !strings.Contains(out, `--gpu rtx-4090: `+rtx+`:5 names the GPUs "NVIDIA RTX 6000D"`) {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// writeCalibration writes a calibration file named name with body, in a fresh directory.
func writeCalibration(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// slowNVLink3 makes nvlink3 much slower than its preset.
const slowNVLink3 = "calibration:\n  gpu: a100-sxm-80gb\n  intra:\n    link: nvlink3\n    latency_us: 9\n    efficiency: 0.4\n"

// --calibration changes what comm prints, and says so in its header.
func TestCalibrationChangesComm(t *testing.T) {
	box := writeCalibration(t, "box.yaml", slowNVLink3)
	args := []string{"comm", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--min-bytes", "32K", "--max-bytes", "1G", "--step-factor", "32", "--json"}
	plain, calibrated := commJSON(t, args...), commJSON(t, append(args, "--calibration", box)...)
	if len(plain.Rows) != 4 || len(calibrated.Rows) != len(plain.Rows) {
		t.Fatalf("%d and %d rows", len(plain.Rows), len(calibrated.Rows))
	}
	for i := range plain.Rows {
		// α 3 → 9 µs and efficiency 0.8 → 0.4: every size is slower, large ones about twice.
		if r := calibrated.Rows[i].TimeS / plain.Rows[i].TimeS; r < 1.5 || r > 3.5 {
			t.Errorf("%v B: %v s calibrated, %v s preset", plain.Rows[i].Bytes, calibrated.Rows[i].TimeS, plain.Rows[i].TimeS)
		}
	}
	_, text, _ := runArgs(t, "comm", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--max-bytes", "1K", "--calibration", box)
	if !strings.Contains(text, "# splitscope comm: all-reduce on 8× a100-sxm-80gb, nvlink3 (calibrated: box.yaml) · algorithm auto") {
		t.Errorf("header:\n%s", text)
	}
}

type commDoc struct {
	Rows []struct {
		Bytes float64 `json:"bytes"`
		TimeS float64 `json:"time_s"`
	} `json:"rows"`
}

func commJSON(t *testing.T, args ...string) commDoc {
	t.Helper()
	code, out, errs := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errs)
	}
	var doc commDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// What calibrate fits, comm --calibration reproduces: the file carries the fitted model.
func TestCalibrateThenComm(t *testing.T) {
	out := filepath.Join(t.TempDir(), "box.yaml")
	doc := calibrateJSON(t, "--nccl-tests", a100Log, "--out", out)
	comm := commJSON(t, "comm", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--min-bytes", "32K", "--max-bytes", "16G", "--json", "--calibration", out)
	if len(comm.Rows) != len(doc.Rows) {
		t.Fatalf("%d comm rows, %d fitted", len(comm.Rows), len(doc.Rows))
	}
	for i, r := range doc.Rows {
		// The file keeps four significant digits.
		if comm.Rows[i].Bytes != r.Bytes || !near(comm.Rows[i].TimeS, r.FittedS, 2e-3) {
			t.Errorf("%v B: comm %v s, calibrate's fit %v s", r.Bytes, comm.Rows[i].TimeS, r.FittedS)
		}
	}
}

// --calibration changes the report's TP communication, names the link calibrated, and warns when
// it was measured on another GPU or calibrates no link the scenario uses.
func TestCalibrationChangesReport(t *testing.T) {
	box := writeCalibration(t, "box.yaml", slowNVLink3)
	args := []string{"report", "--model", "llama-2-13b", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--tp", "8", "--json"}
	plain, calibrated := reportJSON(t, args...), reportJSON(t, append(args, "--calibration", box)...)
	if calibrated.Breakdown.TPComm < 1.5*plain.Breakdown.TPComm {
		t.Errorf("tp comm %v s calibrated, %v s preset", calibrated.Breakdown.TPComm, plain.Breakdown.TPComm)
	}
	if len(calibrated.Warnings) != 0 {
		t.Errorf("warnings %v", calibrated.Warnings)
	}
	_, text, _ := runArgs(t, "report", "--model", "llama-2-13b", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--tp", "8", "--calibration", box)
	if !strings.Contains(strings.SplitN(text, "\n", 2)[0], "8× a100-sxm-80gb · nvlink3 (calibrated: box.yaml) / ib-ndr") {
		t.Errorf("header: %s", strings.SplitN(text, "\n", 2)[0])
	}
	// Measured on A100 80 GB, used on A100 40 GB over the same nvlink3: another GPU, said so.
	other := reportJSON(t, "report", "--model", "llama-2-13b", "--gpu", "a100-sxm-40gb", "--gpus", "8", "--tp", "8", "--json", "--calibration", box)
	if len(other.Warnings) != 1 || !strings.Contains(other.Warnings[0], "--calibration "+box+" was measured on a100-sxm-80gb, the scenario's GPUs are a100-sxm-40gb: its nvlink3 parameters are used as they are") {
		t.Errorf("warnings %v", other.Warnings)
	}
	unused := reportJSON(t, "report", "--model", "llama-2-13b", "--gpu", "h100-sxm", "--gpus", "8", "--json", "--calibration", box)
	if len(unused.Warnings) != 1 || !strings.Contains(unused.Warnings[0], "calibrates nvlink3, but the scenario's GPUs talk over nvlink4 inside a node: it changes nothing here") {
		t.Errorf("warnings %v", unused.Warnings)
	}
	// --intra-eff still wins, and says what it replaces.
	eff := reportJSON(t, append(args, "--calibration", box, "--intra-eff", "0.8")...)
	if !near(eff.Breakdown.TPComm, plain.Breakdown.TPComm, 0.5) || len(eff.Warnings) != 1 || !strings.Contains(eff.Warnings[0], "--intra-eff 0.8 replaces the efficiency --calibration") {
		t.Errorf("tp comm %v (preset %v), warnings %v", eff.Breakdown.TPComm, plain.Breakdown.TPComm, eff.Warnings)
	}
	// Search and export take it too.
	if code, _, errs := runArgs(t, "search", "--model", "llama-2-13b", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--top", "1", "--calibration", box); code != 0 {
		t.Errorf("search: exit %d: %s", code, errs)
	}
	if code, md, errs := runArgs(t, "export", "--model", "llama-2-13b", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--markdown", "-", "--calibration", box); code != 0 || !strings.Contains(md, "calibrated: box.yaml") {
		t.Errorf("export: exit %d: %s", code, errs)
	}
}

type reportDoc struct {
	Breakdown struct {
		TPComm float64 `json:"tp_comm"`
	} `json:"breakdown_s"`
	Warnings []string `json:"warnings"`
}

func reportJSON(t *testing.T, args ...string) reportDoc {
	t.Helper()
	code, out, errs := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errs)
	}
	var doc reportDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// A calibration file that does not parse is bad input naming the file, the line and the key.
func TestCalibrationBadFile(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"unknown key", strings.Replace(slowNVLink3, "latency_us", "latency", 1), ".yaml line 5: calibration.intra.latency: unknown key"},
		{"out of range", strings.Replace(slowNVLink3, "0.4", "1.4", 1), ".yaml line 6: calibration.intra.efficiency = 1.4: must be a number from 0.05 to 1"},
		{"unknown link", strings.Replace(slowNVLink3, "nvlink3", "nvlink7", 1), ".yaml line 4: calibration.intra.link = nvlink7: unknown link"},
		{"not a calibration", "model: llama-2-13b\n", ".yaml line 1: model: unknown key; the file takes calibration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box := writeCalibration(t, "bad.yaml", tc.body)
			for _, cmd := range [][]string{{"report"}, {"comm"}, {"search", "--top", "1"}} {
				requireBadInput(t, append(cmd, "--calibration", box), []string{"splitscope: " + strings.TrimSuffix(box, ".yaml") + tc.want})
			}
		})
	}
	requireBadInput(t, []string{"report", "--calibration", "/nonexistent/box.yaml"}, []string{"splitscope: --calibration /nonexistent/box.yaml: cannot read the file"})
	requireBadInput(t, []string{"report", "--calibration", os.TempDir()}, []string{"must be a regular file, not a directory"})
	requireBadInput(t, []string{"report", "--print-scenario", "--calibration", "x.yaml"}, []string{"splitscope: --calibration x.yaml: a scenario file cannot hold a calibration"})
	requireBadInput(t, []string{"presets", "--calibration", "x.yaml"}, []string{"splitscope: --calibration x.yaml: presets lists the embedded presets"})
}
