package memory

import (
	"testing"

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
