package memory

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// deepseekH200 is DeepSeek-V3 served on 8 H200s at TP 8 (its fp8 checkpoint).
func deepseekH200(tb testing.TB) model.Scenario {
	return scenario(tb, "deepseek-v3", "h200-sxm", "nvlink4", model.Infer, 8, 8, 1)
}

// A MoE model's weights are drawn by part (attention, dense MLP, shared experts, routed
// experts, embedding and output) in place of W, each in proportion to its parameters times the
// bytes of its format, summing to the engine's weights; the KV cache of an MLA model is the
// latent KV. A dense model keeps W whole (its goldens unchanged).
func TestWeightsSplitByPart(t *testing.T) {
	s := deepseekH200(t)
	m := loaded(t, s)
	ss := m.stages()
	st := ss[0]
	if st.kinds[nWeightParts] != 0 {
		t.Fatalf("deepseek-v3 weights drawn whole: %v", st.kinds)
	}
	sum := 0.0
	for k := range nWeightParts {
		if st.kinds[k] <= 0 && k != 1 {
			t.Errorf("part %s empty", weightNames[k])
		}
		sum += st.kinds[k]
	}
	if math.Abs(sum-st.mem.Weights) > 1e-6*st.mem.Weights {
		t.Errorf("parts sum to %.4g, weights %.4g", sum, st.mem.Weights)
	}
	p := st.detail.Parts
	// Served, each part is its parameters times its format's bytes (fp8 layers and experts, the
	// embedding and output in bf16), to the byte the engine's weights.
	if got, want := st.kinds[3], p.Routed*1; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("routed experts %.6g B, want %.6g (fp8)", got, want)
	}
	if got, want := st.kinds[4], p.Ends*2; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("embedding+output %.6g B, want %.6g (bf16)", got, want)
	}
	// One format (the fp8 checkpoint): the parts in proportion to the parameters.
	if got, want := st.kinds[3]/st.kinds[0], p.Routed/p.Attention; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("routed/attention bytes %.4g, params %.4g", got, want)
	}
	// Experts in fp4 beside bf16 layers: the routed experts weigh 4.5/16 of the others a param.
	s.Workload.Weights, s.Workload.ExpertWeights = "bf16", "fp4"
	m = loaded(t, s)
	st = m.stages()[0]
	p = st.detail.Parts
	if got, want := st.kinds[3]/st.kinds[0], p.Routed/p.Attention*(4.5/8)/2; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("fp4 experts beside bf16: routed/attention bytes %.4g, want %.4g", got, want)
	}
	for _, sz := range sizes {
		m.SetSize(sz[0], sz[1])
		v := m.View()
		tuitest.CheckFrame(t, v, sz[0], sz[1])
		if strings.Contains(v, "W ") || !strings.Contains(v, "E") || !strings.Contains(v, "latent KV") {
			t.Errorf("%v: the bar is not split, or no latent KV:\n%s", sz, v)
		}
		if words := strings.Join(strings.Fields(v), " "); sz[1] >= 34 && !strings.Contains(words, "fp4; 256 of 256 experts a layer on this GPU, each cut in 8 by TP") {
			t.Errorf("%v: no line on the routed experts:\n%s", sz, v)
		}
	}
	// A dense model: the weights whole, no latent KV.
	m = loaded(t, inferL40S(t))
	for _, st := range m.stages() {
		for k := range nWeightParts {
			if st.kinds[k] != 0 {
				t.Fatalf("llama-3-70b weights split: %v", st.kinds)
			}
		}
	}
	m.SetSize(120, 34)
	if v := m.View(); strings.Contains(v, "latent") || !strings.Contains(v, "W weights") {
		t.Errorf("dense model's tab:\n%s", v)
	}
}

// The Memory tab of DeepSeek-V3 on 8 H200s, at the golden sizes.
func TestViewGoldenMoE(t *testing.T) {
	m := loaded(t, deepseekH200(t))
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("deepseek-v3/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m.SetSize(sz[0], sz[1])
			v := m.View()
			tuitest.CheckFrame(t, v, sz[0], sz[1])
			golden.RequireEqual(t, []byte(v))
		})
	}
}
