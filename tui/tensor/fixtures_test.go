package tensor

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
)

// scenario is llama-3-8b on 8× h100-sxm in one node, with the given intra-node link, mode and TP.
func scenario(t testing.TB, link string, mode model.Mode, tp int) common.Data {
	t.Helper()
	return build(t, link, mode, tp, nil)
}

// build is scenario with a change applied before the evaluation (more GPUs, nodes, a batch).
func build(t testing.TB, link string, mode model.Mode, tp int, change func(*model.Scenario)) common.Data {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Model("llama-3-8b")
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Link(link)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := p.Link("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	s := model.Scenario{
		Arch:    a,
		Cluster: model.Cluster{GPU: g, GPUs: 8, GPUsPerNode: 8, NICsPerNode: 8, Intra: l, Inter: ib},
		Layout:  model.Layout{TP: tp, PP: 1, DP: 8 / tp, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB},
		Workload: model.Workload{Mode: mode, Seq: 4096, GlobalBatch: 64,
			PromptTokens: 1024, GenTokens: 256, Requests: 16, Precision: model.BF16},
		ReserveBytes: model.DefaultReserveBytes,
	}
	if change != nil {
		change(&s)
	}
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}

// treeInfer is decoding with TP 16 over two nodes of 8: small all-reduces across the network,
// which NCCL runs as a tree.
func treeInfer(t testing.TB) common.Data {
	return build(t, "nvlink4", model.Infer, 16, func(s *model.Scenario) {
		s.Cluster.GPUs = 16
		s.Layout.DP = 1
	})
}

// twoShotInfer is serving 96 requests at once: the engine decodes about 90 together, all-reduces
// of about 720 KiB, the engine's two-shot.
func twoShotInfer(t testing.TB) common.Data {
	return build(t, "nvlink4", model.Infer, 8, func(s *model.Scenario) {
		s.Workload.Requests = 96
	})
}
