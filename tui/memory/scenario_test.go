package memory

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// scenario is a preset scenario (tuitest.Scenario).
func scenario(tb testing.TB, arch, gpu, intra string, mode model.Mode, gpus, tp, pp int) model.Scenario {
	return tuitest.Scenario(tb, arch, gpu, intra, mode, gpus, tp, pp)
}

func inferL40S(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-3-70b", "l40s", "pcie4", model.Infer, 8, 2, 4)
}

func trainH100(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 8, 2, 4)
}

func overH100(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 8, 8, 1)
}

// deepPP is a 96-stage pipeline: more stages than any golden height shows.
func deepPP(tb testing.TB) model.Scenario {
	return scenario(tb, "gpt3-175b", "h100-sxm", "nvlink4", model.Train, 96, 1, 96)
}

// tourPCIe is the guided tour's PCIe step, llama-2-13b on 8 H100 PCIe at TP 8: one stage whose
// detail line and legend hold all of weights, gradients, optimizer, activations and reserve.
func tourPCIe(tb testing.TB) model.Scenario {
	tb.Helper()
	p, err := assets.Load()
	if err != nil {
		tb.Fatal(err)
	}
	f, err := assets.TourScenario("pcie", p)
	if err != nil {
		tb.Fatal(err)
	}
	return f.Scenario
}

// defaultTrain is the explorer's first screen: llama-3-70b on 32 H100s, TP 8 × PP 4, batch 32.
func defaultTrain(tb testing.TB) model.Scenario {
	s := scenario(tb, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	s.Workload.GlobalBatch = 32
	return s
}
