package compare

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// scenario builds a preset scenario the way the CLI's defaults do: 8 GPUs in one node, IB NDR
// between nodes, seq 4096, global batch 64, micro-batch 1; inference 1024 + 256 tokens, 8
// requests in one group per stage.
func scenario(tb testing.TB, arch, gpu, intra string, mode model.Mode, tp, pp int) model.Scenario {
	tb.Helper()
	p, err := assets.Load()
	if err != nil {
		tb.Fatal(err)
	}
	a, err := p.Model(arch)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := p.GPU(gpu)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := p.Link(intra)
	if err != nil {
		tb.Fatal(err)
	}
	ib, err := p.Link("ib-ndr")
	if err != nil {
		tb.Fatal(err)
	}
	const gpus = 8
	dp := gpus / (tp * pp)
	s := model.Scenario{
		Arch:         a,
		Cluster:      model.Cluster{GPU: g, GPUs: gpus, GPUsPerNode: gpus, Intra: in, Inter: ib, NICsPerNode: gpus},
		Layout:       model.Layout{TP: tp, PP: pp, DP: dp, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB},
		Workload:     model.Workload{Mode: mode, Seq: 4096, GlobalBatch: 64, PromptTokens: 1024, GenTokens: 256, Requests: 8},
		ReserveBytes: model.DefaultReserveBytes,
	}
	if mode == model.Infer {
		s.Layout.MicroBatch = max(8/(dp*pp), 1)
	}
	if err := s.Validate(); err != nil {
		tb.Fatal(err)
	}
	return s
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
