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
		{"no links", "calibration:\n  gpu: a100-sxm-80gb\n", []string{"line 2: calibration: has neither intra nor inter"}},
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
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCalibration("f.yaml", data, p)
		if err != nil {
			return
		}
		if c.Intra == nil && c.Inter == nil {
			t.Errorf("a calibration without links: %+v", c)
		}
		for _, l := range c.Links() {
			if _, err := p.Link(l.Link); err != nil || (l.Latency != 0 && !model.CalLatency.Contains(l.Latency)) || (l.Efficiency != 0 && !model.CalEfficiency.Contains(l.Efficiency)) {
				t.Errorf("accepted %+v", l)
			}
		}
	})
}
