package costmodel

import (
	"fmt"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// Fixtures for the engine's tests: the presets, and the Megatron-LM papers' GPT and Selene
// runs that many tests use as a known training scenario. The published figures and the checks
// on them live in costmodel/published, whose Selene and GPTArch these mirror.

func presets(t testing.TB) *assets.Presets {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustGPU(t testing.TB, p *assets.Presets, id string) model.GPU {
	t.Helper()
	g, err := p.GPU(id)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustLink(t testing.TB, p *assets.Presets, id string) model.Link {
	t.Helper()
	l, err := p.Link(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// gptArch is a Megatron GPT: multi-head attention, 4h MLP, vocabulary 51,200.
func gptArch(layers, hidden, heads int) model.Arch {
	return model.Arch{ID: fmt.Sprintf("gpt-%dx%d", layers, hidden), Layers: layers, Hidden: hidden,
		Heads: heads, KVHeads: heads, FFN: 4 * hidden, Vocab: 51200}
}

// seleneScenario is a Megatron-LM training run on Selene (A100 80 GB SXM, 8 a node on NVLink 3,
// eight HDR InfiniBand NICs a node) with the 2021 paper's software: full recompute, unfused
// attention, gradient all-reduce after backward, 1F1B, micro-batch 1, fp16.
func seleneScenario(t testing.TB, p *assets.Presets, a model.Arch, tp, pp, gpus, batch int) model.Scenario {
	return model.Scenario{
		Arch: a,
		Cluster: model.Cluster{GPU: mustGPU(t, p, "a100-sxm-80gb"), GPUs: gpus, GPUsPerNode: 8,
			Intra: mustLink(t, p, "nvlink3"), Inter: mustLink(t, p, "ib-hdr"), NICsPerNode: 8},
		Layout: model.Layout{TP: tp, PP: pp, DP: gpus / max(tp*pp, 1), Chunks: 1, MicroBatch: 1,
			Schedule: model.OneFOneB, Recompute: model.RecomputeFull,
			UnfusedAttention: true, SerialDP: true},
		Workload:     model.Workload{Mode: model.Train, Seq: 2048, GlobalBatch: batch, Precision: model.FP16},
		ReserveBytes: model.DefaultReserveBytes,
	}
}

// kvCacheBytes is the KV cache of `layers` layers of a one-shape model for `seqs` sequences of
// `ctx` tokens on one GPU, from its layer kind's cache per token (arch).
func kvCacheBytes(a model.Arch, l model.Layout, layers, seqs, ctx, e float64) float64 {
	return layers * seqs * ctx * arch.Of(a).Shapes[0].KVCacheOnGPU(l.TP) * e
}
