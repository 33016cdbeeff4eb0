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
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}
