package learn

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// deepseekEP8 is DeepSeek-V3 served on 8 H200s as DeepSeek serves it: attention data-parallel
// (TP 1, DP 8) with the experts spread by EP 8.
func deepseekEP8(t *testing.T) model.Scenario {
	s := tuitest.Scenario(t, "deepseek-v3", "h200-sxm", "nvlink4", model.Infer, 8, 1, 1)
	s.Layout.EP = 8
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// "Experts across GPUs" with today's numbers: 256 experts over EP 8 is 32 a GPU, each token's
// dispatch is top-8 × hidden × 2 B, and the all-to-all's bytes and time are the engine's.
func TestExpertsSection(t *testing.T) {
	d := evaluate(t, deepseekEP8(t))
	f := NewFacts(d, common.Compare{}, false)
	e := f.Experts
	if !e.On || e.Experts != 256 || e.TopK != 8 || e.EP != 8 || e.PerGPU != 32 || e.MoELayers != 58 || e.Shared != 1 {
		t.Fatalf("facts: %+v", e)
	}
	var ep *struct{ bytes, secs float64 }
	for _, u := range d.Report.Collectives {
		if u.Comm == "ep" {
			ep = &struct{ bytes, secs float64 }{u.Bytes, u.Seconds}
		}
	}
	if ep == nil || !e.A2AOn || e.A2A != Bytes(ep.bytes) || e.A2ATime != Seconds(ep.secs) {
		t.Fatalf("all-to-all %+v, facts %q %q", ep, e.A2A, e.A2ATime)
	}
	if want := DecBytes(8 * 7168 * 2); e.Dispatch != want {
		t.Errorf("dispatch %q, want %q", e.Dispatch, want)
	}
	sec := section(t, f, SecExperts)
	wantAll(t, "en EP 8", sec["en"], "Experts across GPUs", "256 experts / EP 8 = 32 a GPU and layer", e.A2A, e.A2ATime, "58 MoE layers", "37.6B")
	wantAll(t, "fr EP 8", sec["fr"], "Les experts répartis sur les GPU", "256 experts / EP 8 = 32 par GPU et couche", e.A2A, e.A2ATime, "37.6B")
	// At TP 8 without EP: no all-to-all, and what EP 8 over the node would hold.
	s := tuitest.Scenario(t, "deepseek-v3", "h200-sxm", "nvlink4", model.Infer, 8, 8, 1)
	f = NewFacts(evaluate(t, s), common.Compare{}, false)
	if f.Experts.A2AOn || f.Experts.NodeEP != 8 || f.Experts.NodePerGPU != 32 || f.Experts.PerGPU != 256 {
		t.Errorf("TP 8: %+v", f.Experts)
	}
	wantAll(t, "en TP 8", section(t, f, SecExperts)["en"], "256 experts / EP 1 = 256 a GPU and layer", "Each is cut in 8 by TP", "With EP 8 over the node", "no all-to-all")
}

// "Why MLA shrinks the KV cache": DeepSeek-V3 caches 512 + 64 = 576 elements a token and layer
// (the engine's layer shape), where multi-head attention of its 128 heads would cache
// 128 × (192 + 128) = 40960.
func TestMLASection(t *testing.T) {
	s := deepseekEP8(t)
	f := NewFacts(evaluate(t, s), common.Compare{}, false)
	m := f.MLA
	eng := 0.0
	for _, sh := range arch.Of(s.Arch).Shapes {
		if sh.Kind.Attn == arch.MLA {
			eng = sh.KVCache
		}
	}
	if !m.On || m.PerToken != 576 || float64(m.PerToken) != eng || m.MHAPerToken != 40960 || m.Ratio != "71" || m.Layers != 61 {
		t.Fatalf("facts: %+v (engine %v)", m, eng)
	}
	sec := section(t, f, SecMLA)
	wantAll(t, "en MLA", sec["en"], "512 + 64 = 576 a token and layer: 71× fewer", "128 × (192 + 128) = 40960 a token and layer", m.KVTokens, m.MHATokens)
	wantAll(t, "fr MLA", sec["fr"], "512 + 64 = 576 par jeton et couche, 71 fois moins", "128 × (192 + 128) = 40960 par jeton et couche", m.KVTokens)
}

// A dense model's Learn tab has neither section, and its sections keep their numbers.
func TestDenseHasNoExpertsOrMLA(t *testing.T) {
	f := NewFacts(data(t), common.Compare{}, false)
	if f.Experts.On || f.MLA.On {
		t.Fatalf("llama-2-13b: experts %v, MLA %v", f.Experts.On, f.MLA.On)
	}
	if sec := section(t, f, SecExperts); len(sec) != 0 {
		t.Errorf("experts section for a dense model: %v", sec)
	}
	m := pane(t, "en", 100, 40)
	m.layout()
	text := strings.Join(m.lines, "\n")
	if strings.Contains(text, "8 · ") || !strings.Contains(text, "7 · Why the Compare tab") {
		t.Errorf("dense model's sections:\n%s", text)
	}
}
