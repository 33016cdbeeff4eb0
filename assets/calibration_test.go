package assets

import (
	"errors"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func presetsT(t *testing.T) *Presets {
	t.Helper()
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// What MarshalCalibration writes, ParseCalibration reads back (numbers to four digits).
func TestCalibrationRoundTrip(t *testing.T) {
	c := model.Calibration{
		GPU: "a100-sxm-80gb", From: []string{"a100-8x-all_reduce_perf.log", "two nodes.log"},
		Intra: &model.LinkCalibration{Link: "nvlink3", Bandwidth: 300e9, Latency: 2.993e-6, Efficiency: 0.7973, LLBandwidth: 24.29e9},
		Inter: &model.LinkCalibration{Link: "ib-hdr", Bandwidth: 25e9, Latency: 6.1e-6, Efficiency: 0.78},
		Rows:  51, MeanError: 0.02253, MaxError: 0.1137,
	}
	data := MarshalCalibration(c, []string{"measured on dgx-a100-01", "intra: nvls_efficiency: not fitted (the link has none)"})
	got, err := ParseCalibration("box.yaml", data, presetsT(t))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.GPU != c.GPU || len(got.From) != 2 || got.From[1] != "two nodes.log" || *got.Intra != *c.Intra || *got.Inter != *c.Inter || // exactly: four digits were written

		got.Rows != c.Rows || got.MeanError != c.MeanError || got.MaxError != c.MaxError {
		t.Errorf("read back %+v (intra %+v inter %+v), wrote %+v\n%s", got, got.Intra, got.Inter, c, data)
	}
	for _, want := range []string{"# measured on dgx-a100-01\n", "    # nvls_efficiency: not fitted (the link has none)\n", "    latency_us: 2.993\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lacks %q:\n%s", want, data)
		}
	}
}

// Applied to the presets, a calibration changes the links it names and nothing else.
func TestPresetsCalibrate(t *testing.T) {
	p := presetsT(t)
	before, _ := p.Link("nvlink4")
	p.Calibrate(model.Calibration{GPU: "a100-sxm-80gb", Intra: &model.LinkCalibration{Link: "nvlink3", Latency: 4e-6, Efficiency: 0.7}}, "box.yaml")
	l, _ := p.Link("nvlink3")
	if l.Latency != 4e-6 || l.Efficiency != 0.7 || l.Bandwidth != 300e9 || l.LLBandwidth != 23.6e9 || l.Calibrated != "box.yaml" {
		t.Errorf("nvlink3 %+v", l)
	}
	if after, _ := p.Link("nvlink4"); after != before {
		t.Errorf("nvlink4 changed: %+v", after)
	}
	if fresh := presetsT(t); fresh.Links[1].Latency != 3e-6 {
		t.Errorf("the embedded presets changed: %+v", fresh.Links[1])
	}
}

func TestParseCalibrationErrors(t *testing.T) {
	const good = "calibration:\n  gpu: a100-sxm-80gb\n  intra:\n    link: nvlink3\n    latency_us: 3.1\n"
	if _, err := ParseCalibration("c.yaml", []byte(good), presetsT(t)); err != nil {
		t.Fatalf("good: %v", err)
	}
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"empty", "", []string{"c.yaml line 1: empty file"}},
		{"not yaml", "calibration: [\n", []string{"c.yaml line 1: not YAML"}},
		{"a list", "- 1\n", []string{"c.yaml line 1: a calibration must be a mapping"}},
		{"unknown top key", "calib:\n  gpu: x\n", []string{"c.yaml line 1: calib: unknown key; the file takes calibration"}},
		{"unknown key", strings.Replace(good, "latency_us", "latency_ms", 1), []string{"c.yaml line 5: calibration.intra.latency_ms: unknown key; calibration.intra takes link, bandwidth_gbps, latency_us"}},
		{"out of range", strings.Replace(good, "3.1", "900", 1), []string{"c.yaml line 5: calibration.intra.latency_us = 900: must be a number from 0.5 to 200 µs"}},
		{"efficiency above 1", good + "    efficiency: 1.2\n", []string{"line 6: calibration.intra.efficiency = 1.2: must be a number from 0.05 to 1"}},
		{"a string for a number", good + "    efficiency: \"0.8\"\n", []string{"line 6: calibration.intra.efficiency = 0.8: must be a number"}},
		{"NaN", good + "    efficiency: .nan\n", []string{"line 6: calibration.intra.efficiency = .nan: must be a number"}},
		{"twice", good + "    latency_us: 3.2\n", []string{"line 6: calibration.intra.latency_us: written twice (first on line 5)"}},
		{"unknown gpu", strings.Replace(good, "a100-sxm-80gb", "a100", 1), []string{"line 2: calibration.gpu = a100: unknown GPU; one of v100-sxm"}},
		{"unknown link", strings.Replace(good, "nvlink3", "nvlink9", 1), []string{"line 4: calibration.intra.link = nvlink9: unknown link"}},
		{"network inside a node", strings.Replace(good, "nvlink3", "ib-hdr", 1), []string{"line 4: calibration.intra.link = ib-hdr: is a infiniband link"}},
		{"NVLink across nodes", strings.Replace(good, "intra:", "inter:", 1), []string{"line 4: calibration.inter.link = nvlink3: is a nvlink link: inter is the network"}},
		{"NVLS on NVLink 3", good + "    nvls_efficiency: 0.6\n", []string{"line 6: calibration.intra.nvls_efficiency = 0.6: nvlink3 has no NVLink SHARP"}},
		{"no link", "calibration:\n  gpu: a100-sxm-80gb\n  intra:\n    latency_us: 3\n", []string{"line 4: calibration.intra.link: missing (required)"}},
		{"nothing calibrated", "calibration:\n  gpu: a100-sxm-80gb\n  intra:\n    link: nvlink3\n", []string{"line 4: calibration.intra: calibrates nothing"}},
		{"no links", "calibration:\n  gpu: a100-sxm-80gb\n", []string{"line 2: calibration: has neither intra, inter nor serving"}},
		{"no gpu", "calibration:\n  intra:\n    link: nvlink3\n    efficiency: 0.7\n", []string{"line 2: calibration.gpu: missing (required)"}},
		{"same link twice", good + "  inter:\n    link: nvlink3\n    efficiency: 0.7\n", []string{"calibration.inter.link = nvlink3: is a nvlink link"}},
		{"bad fit", good + "  fit:\n    rows: -3\n    mean_error: x\n", []string{"line 7: calibration.fit.rows = -3: must be a whole number", "line 8: calibration.fit.mean_error = x: must be a number"}},
		{"no value", "calibration:\n  gpu:\n  intra:\n    link: nvlink3\n    efficiency: 0.7\n", []string{"line 2: calibration.gpu: has no value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCalibration("c.yaml", []byte(tc.doc), presetsT(t))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("%v: want Errors", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant …%s…", err, w)
				}
			}
		})
	}
}

func FuzzParseCalibration(f *testing.F) {
	p, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(MarshalCalibration(model.Calibration{GPU: "h100-sxm", Intra: &model.LinkCalibration{Link: "nvlink4", Latency: 3e-6, NVLSEfficiency: 0.6}}, nil)))
	f.Add([]byte("calibration:\n  gpu: a100-sxm-80gb\n  inter:\n    link: ib-hdr\n    efficiency: 0.7\n"))
	f.Add([]byte("calibration:\n  gpu: h200-sxm\n  serving:\n    memory_eff: 0.8\n    step_overhead_us: 400\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCalibration("f.yaml", data, p)
		if err != nil {
			return
		}
		if c.Intra == nil && c.Inter == nil && (c.Serving == nil || c.Serving.Empty()) {
			t.Errorf("a calibration of nothing: %+v", c)
		}
		if sc := c.Serving; sc != nil {
			for _, v := range []struct {
				x float64
				r model.Range
			}{{sc.ComputeEff, model.CalComputeEff}, {sc.MemoryEff, model.CalMemoryEff}, {sc.StepOverhead, model.CalStepOverhead}, {sc.KernelFloor, model.CalKernelFloor}} {
				if v.x != 0 && !v.r.Contains(v.x) {
					t.Errorf("accepted serving %+v", *sc)
				}
			}
		}
		for _, l := range c.Links() {
			if _, err := p.Link(l.Link); err != nil || (l.Latency != 0 && !model.CalLatency.Contains(l.Latency)) || (l.Efficiency != 0 && !model.CalEfficiency.Contains(l.Efficiency)) {
				t.Errorf("accepted %+v", l)
			}
		}
	})
}

// A serving calibration (calibrate --from) is written and read back, and applied to the GPU it
// names alone; its keys are checked by name and range like the links'.
func TestServingCalibration(t *testing.T) {
	c := model.Calibration{GPU: "h200-sxm", From: []string{"online.jsonl"},
		Serving: &model.ServingCalibration{ComputeEff: 0.6123, MemoryEff: 0.8311, StepOverhead: 412.3e-6, KernelFloor: 4e-6},
		Rows:    17, MeanError: 0.1, MaxError: 0.4}
	data := MarshalCalibration(c, []string{"serving: kernel_floor_us: not fitted"})
	got, err := ParseCalibration("box.yaml", data, presetsT(t))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.Serving == nil || *got.Serving != *c.Serving || got.Intra != nil || got.Inter != nil {
		t.Errorf("read back %+v, wrote %+v\n%s", got.Serving, c.Serving, data)
	}
	for _, want := range []string{"  serving:\n    compute_eff: 0.6123\n", "    step_overhead_us: 412.3\n", "    # kernel_floor_us: not fitted\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lacks %q:\n%s", want, data)
		}
	}
	p := presetsT(t)
	other, _ := p.GPU("h100-sxm")
	p.Calibrate(got, "box.yaml")
	g, _ := p.GPU("h200-sxm")
	if g.ComputeEff != 0.6123 || g.ComputeEffFP8 != 0 || g.MemoryEff != 0.8311 || g.StepOverhead != 412.3e-6 || g.KernelFloor != 4e-6 {
		t.Errorf("h200-sxm after the calibration: %+v", g)
	}
	if after, _ := p.GPU("h100-sxm"); after != other {
		t.Errorf("h100-sxm changed: %+v", after)
	}

	const good = "calibration:\n  gpu: h200-sxm\n  serving:\n    memory_eff: 0.8\n"
	if _, err := ParseCalibration("c.yaml", []byte(good), presetsT(t)); err != nil {
		t.Fatalf("good: %v", err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown key", good + "    step_overhead_ms: 1\n", "line 5: calibration.serving.step_overhead_ms: unknown key; calibration.serving takes compute_eff, compute_eff_fp8, memory_eff, step_overhead_us, kernel_floor_us"},
		{"efficiency above 1", strings.Replace(good, "0.8", "1.3", 1), "line 4: calibration.serving.memory_eff = 1.3: must be a number from 0.2 to 1"},
		{"overhead out of range", good + "    step_overhead_us: 50000\n", "line 5: calibration.serving.step_overhead_us = 50000: must be a number from 10 to 20000 µs"},
		{"floor out of range", good + "    kernel_floor_us: 0.1\n", "calibration.serving.kernel_floor_us = 0.1: must be a number from 0.5 to 50 µs"},
		{"fp8 efficiency out of range", good + "    compute_eff_fp8: 0.05\n", "line 5: calibration.serving.compute_eff_fp8 = 0.05: must be a number from 0.1 to 1"},
		{"empty", "calibration:\n  gpu: h200-sxm\n  serving: {}\n", "line 3: calibration.serving: calibrates nothing"},
		{"a number", "calibration:\n  gpu: h200-sxm\n  serving: 3\n", "line 3: calibration.serving = 3: must be a mapping of compute_eff"},
	} {
		_, err := ParseCalibration("c.yaml", []byte(tc.doc), presetsT(t))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant …%s…", tc.name, err, tc.want)
		}
	}
}

// A training fit's fp8 efficiency: written, read back, and put on fp8's matmuls after bf16's.
func TestCalibrationFP8Efficiency(t *testing.T) {
	c := model.Calibration{GPU: "h100-sxm", Serving: &model.ServingCalibration{ComputeEff: 0.55, ComputeEffFP8: 0.41}, Rows: 9, MeanError: 0.02, MaxError: 0.05}
	data := MarshalCalibration(c, nil)
	got, err := ParseCalibration("box.yaml", data, presetsT(t))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.Serving == nil || *got.Serving != *c.Serving || !strings.Contains(string(data), "    compute_eff_fp8: 0.41\n") {
		t.Errorf("read back %+v\n%s", got.Serving, data)
	}
	p := presetsT(t)
	p.Calibrate(got, "box.yaml")
	g, _ := p.GPU("h100-sxm")
	if g.MatmulEff(model.BF16) != 0.55 || g.MatmulEff(model.FP8) != 0.41 {
		t.Errorf("h100-sxm: bf16 %.3f fp8 %.3f", g.MatmulEff(model.BF16), g.MatmulEff(model.FP8))
	}
}

// A serving calibration fitted on one engine's runs (engine:) is written and read back with it,
// kept on the GPU preset rather than put on it, and rejected by name when the engine is unknown
// or there is nothing for it to scope.
func TestEngineCalibration(t *testing.T) {
	c := model.Calibration{GPU: "h200-sxm", Engine: "sglang", Serving: &model.ServingCalibration{ComputeEff: 0.67, MemoryEff: 0.64}}
	data := MarshalCalibration(c, nil)
	if !strings.Contains(string(data), "  gpu: h200-sxm\n  engine: sglang\n") {
		t.Errorf("engine not written after gpu:\n%s", data)
	}
	got, err := ParseCalibration("box.yaml", data, presetsT(t))
	if err != nil || got.Engine != "sglang" || got.Serving == nil || *got.Serving != *c.Serving {
		t.Fatalf("read back %+v, %v\n%s", got, err, data)
	}
	p := presetsT(t)
	before, _ := p.GPU("h200-sxm")
	p.Calibrate(got, "box.yaml")
	g, _ := p.GPU("h200-sxm")
	if g.MemoryEff != before.MemoryEff || g.ComputeEff != before.ComputeEff || g.EngineCal == nil || g.EngineCal.Engine != "sglang" {
		t.Errorf("h200-sxm after an sglang calibration: memory_eff %g, compute_eff %g, engine calibration %+v", g.MemoryEff, g.ComputeEff, g.EngineCal)
	}
	if s := g.ForEngine("sglang"); s.MemoryEff != 0.64 || s.ComputeEff != 0.67 || s.EngineCal != nil {
		t.Errorf("as sglang serves: %+v", s)
	}
	for _, other := range []string{"", "vllm", "trtllm", "sglang-0.4"} {
		if s := g.ForEngine(other); s != before {
			t.Errorf("as %q serves the GPU changed: %+v", other, s)
		}
	}

	const good = "calibration:\n  gpu: h200-sxm\n  engine: sglang\n  serving:\n    memory_eff: 0.8\n"
	if _, err := ParseCalibration("c.yaml", []byte(good), presetsT(t)); err != nil {
		t.Fatalf("good: %v", err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown engine", strings.Replace(good, "sglang", "sglang-9", 1), "line 3: calibration.engine = sglang-9: unknown engine; one of "},
		{"nothing to scope", "calibration:\n  gpu: h200-sxm\n  engine: vllm\n  intra:\n    link: nvlink4\n    latency_us: 3\n", "calibration.engine = vllm: scopes the serving parameters to an engine, and there is no serving:"},
	} {
		_, err := ParseCalibration("c.yaml", []byte(tc.doc), presetsT(t))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant …%s…", tc.name, err, tc.want)
		}
	}
}

// The GPU's parameters under the name of what they were fitted to: training: (training logs)
// and gemm: (a trace's GEMM curve), written and read back with their section, applied as
// serving:'s are; each takes its own keys only, and a file has one such section.
func TestCalibrationSections(t *testing.T) {
	for _, c := range []model.Calibration{
		{GPU: "h100-sxm", Section: model.SectionTraining, Serving: &model.ServingCalibration{ComputeEff: 0.55, ComputeEffFP8: 0.41}, Rows: 9, MeanError: 0.02, MaxError: 0.05},
		{GPU: "h100-sxm", Section: model.SectionGEMM, Serving: &model.ServingCalibration{ComputeEff: 0.78, GEMMLatency: 7.5e-6}},
	} {
		data := MarshalCalibration(c, []string{c.Section + ": a note"})
		if !strings.Contains(string(data), "\n  "+c.Section+":\n    compute_eff: ") || strings.Contains(string(data), "serving:") ||
			!strings.Contains(string(data), "    # a note\n") {
			t.Errorf("%s: written as\n%s", c.Section, data)
		}
		got, err := ParseCalibration("box.yaml", data, presetsT(t))
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if got.Section != c.Section || got.Serving == nil || *got.Serving != *c.Serving {
			t.Errorf("read back %q %+v, wrote %q %+v", got.Section, got.Serving, c.Section, c.Serving)
		}
		p := presetsT(t)
		p.Calibrate(got, "box.yaml")
		g, _ := p.GPU("h100-sxm")
		if g.MatmulEff(model.BF16) != c.Serving.ComputeEff || (c.Serving.GEMMLatency > 0 && g.GEMMLatency != c.Serving.GEMMLatency) {
			t.Errorf("%s: h100-sxm after: %+v", c.Section, g)
		}
	}
	// The old name reads as it did, and is written back as serving:.
	old, err := ParseCalibration("old.yaml", []byte("calibration:\n  gpu: h100-sxm\n  serving:\n    compute_eff: 0.6\n"), presetsT(t))
	if err != nil || old.Section != model.SectionServing || old.Serving.ComputeEff != 0.6 {
		t.Errorf("serving: %+v, %v", old, err)
	}
	if data := MarshalCalibration(model.Calibration{GPU: "h100-sxm", Serving: old.Serving}, nil); !strings.Contains(string(data), "\n  serving:\n") {
		t.Errorf("no section written as serving:\n%s", data)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"training takes no memory_eff", "calibration:\n  gpu: h100-sxm\n  training:\n    memory_eff: 0.8\n",
			"c.yaml line 4: calibration.training.memory_eff: unknown key; calibration.training takes compute_eff, compute_eff_fp8"},
		{"gemm takes no step overhead", "calibration:\n  gpu: h100-sxm\n  gemm:\n    gemm_latency_us: 7\n    step_overhead_us: 400\n",
			"line 5: calibration.gemm.step_overhead_us: unknown key; calibration.gemm takes compute_eff, compute_eff_fp8, gemm_latency_us"},
		{"two sections", "calibration:\n  gpu: h100-sxm\n  training:\n    compute_eff: 0.6\n  gemm:\n    gemm_latency_us: 7\n",
			"line 5: calibration.gemm: beside calibration.training: the GPU's parameters are in one section"},
		{"empty training", "calibration:\n  gpu: h100-sxm\n  training: {}\n", "line 3: calibration.training: calibrates nothing: give at least one of compute_eff, compute_eff_fp8"},
		{"out of range", "calibration:\n  gpu: h100-sxm\n  gemm:\n    gemm_latency_us: 900\n", "line 4: calibration.gemm.gemm_latency_us = 900: must be a number from"},
	} {
		_, err := ParseCalibration("c.yaml", []byte(tc.doc), presetsT(t))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant …%s…", tc.name, err, tc.want)
		}
	}
}
