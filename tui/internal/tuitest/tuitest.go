// Package tuitest holds what the explorer's pane tests share: preset scenarios built the way the
// CLI's defaults build them, and the frame check every View must pass.
package tuitest

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// Scenario builds a valid preset scenario: gpus GPUs (8 per node), IB NDR between nodes, seq
// 4096, global batch 64, micro-batch 1; inference 1024 + 256 tokens, 8 requests, one group per
// stage.
func Scenario(tb testing.TB, arch, gpu, intra string, mode model.Mode, gpus, tp, pp int) model.Scenario {
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
	dp := gpus / (tp * pp)
	s := model.Scenario{
		Arch:         a,
		Cluster:      model.Cluster{GPU: g, GPUs: gpus, GPUsPerNode: min(gpus, 8), Intra: in, Inter: ib, NICsPerNode: min(gpus, 8)},
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

// CheckFrame fails unless v is exactly h lines of at most w cells.
func CheckFrame(tb testing.TB, v string, w, h int) {
	tb.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		tb.Fatalf("%d×%d: %d lines, want %d", w, h, len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			tb.Fatalf("%d×%d: line %d is %d cells: %q", w, h, i, lw, l)
		}
	}
}
