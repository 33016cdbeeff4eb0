package costmodel

import (
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// A serving calibration fitted on one engine's runs holds where that engine serves, and nowhere
// else: another engine's serving and training report exactly what the GPU reports without it;
// its own engine's, what the GPU with the parameters put on it reports.
func TestEngineCalibrationScope(t *testing.T) {
	serve := scenario(t, "llama-3-70b", "h200-sxm", "nvlink4", 4, 4, 1)
	serve.Workload.Mode = model.Infer
	serve.Workload.Requests, serve.Workload.Rate = 200, 4
	serve.Workload.PromptTokens, serve.Workload.GenTokens = 1000, 200
	train := scenario(t, "llama-3-70b", "h200-sxm", "nvlink4", 8, 4, 2)
	sc := model.ServingCalibration{MemoryEff: 0.6, ComputeEff: 0.6, StepOverhead: 2e-3}
	withCal := func(s model.Scenario, engine string) model.Scenario {
		s.Cluster.GPU.EngineCal = &model.EngineCalibration{Engine: engine, Serving: sc}
		return s
	}
	eval := func(s model.Scenario) Report {
		t.Helper()
		r, err := Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name   string
		s      model.Scenario
		engine string
	}{
		{"vllm serves, calibrated for sglang", serve, "sglang"},
		{"trains, calibrated for vllm", train, "vllm"},
	} {
		if got, want := eval(withCal(c.s, c.engine)), eval(c.s); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the report moved (step %g → %g)", c.name, want.StepTime, got.StepTime)
		}
	}
	put := serve
	put.Cluster.GPU = sc.ApplyGPU(put.Cluster.GPU)
	for _, engine := range []string{"", "vllm"} { // "" is vllm
		s := serve
		s.Workload.Engine = engine
		got, want := eval(withCal(s, "vllm")), eval(put)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("engine %q calibrated for vllm: step %g, want %g as with the parameters on the GPU", engine, got.StepTime, want.StepTime)
		}
		if got.StepTime == eval(serve).StepTime {
			t.Errorf("engine %q: the calibration changed nothing", engine)
		}
	}
}
