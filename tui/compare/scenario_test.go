package compare

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
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

// defaultTrain is the explorer's first screen: llama-3-70b training on 32 H100s in four nodes,
// TP 8 inside each node, PP 4 across them, global batch 32.
func defaultTrain(tb testing.TB) model.Scenario {
	s := tuitest.Scenario(tb, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	s.Workload.GlobalBatch = 32
	if err := s.Validate(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// tourStep is the embedded tour step name ("pcie", "tp-node-pp-across", …).
func tourStep(tb testing.TB, name string) model.Scenario {
	tb.Helper()
	p, err := assets.Load()
	if err != nil {
		tb.Fatal(err)
	}
	f, err := assets.TourScenario(name, p)
	if err != nil {
		tb.Fatal(err)
	}
	return f.Scenario
}

func tourPCIe(tb testing.TB) model.Scenario { return tourStep(tb, "pcie") }
