package compare

import (
	"testing"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// scenario is a preset scenario on 8 GPUs in one node (tuitest.Scenario).
func scenario(tb testing.TB, arch, gpu, intra string, mode model.Mode, tp, pp int) model.Scenario {
	return tuitest.Scenario(tb, arch, gpu, intra, mode, 8, tp, pp)
}

func inferL40S(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-3-70b", "l40s", "pcie4", model.Infer, 8, 1)
}

func trainH100(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 2, 4)
}

func overH100(tb testing.TB) model.Scenario {
	return scenario(tb, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 8, 1)
}
