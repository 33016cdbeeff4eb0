package costmodel

import (
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// moeSearchScenarios are small searches over MoE models of every shape Search meets, each
// with EP and expert-TP to try: Mixtral 8x7B (8 experts, uniform layers) on 32 H100s,
// Qwen3-30B-A3B (128 experts) on 16, DeepSeek-V3 (MLA, 3 dense and 58 MoE layers, node-limited
// two-hop dispatch) on 128, Llama 4 Maverick (MoE every other layer) on 32, gpt-oss-20b on 8,
// and a dense model (no EP) on 16.
func moeSearchScenarios(t *testing.T) map[string]model.Scenario {
	mk := func(id string, gpus, batch int) model.Scenario {
		s := scenario(t, id, "h100-sxm", "nvlink4", gpus, 1, 1)
		s.Workload.GlobalBatch = batch
		return s
	}
	ds := mk("deepseek-v3", 128, 256)
	ds.Layout.EPDispatch = model.EPDispatchTwoHop
	return map[string]model.Scenario{
		"mixtral-32":   mk("mixtral-8x7b", 32, 64),
		"qwen3-a3b-16": mk("qwen3-30b-a3b", 16, 32),
		"deepseek-128": ds,
		"maverick-32":  mk("llama-4-maverick", 32, 64),
		"gpt-oss-8":    mk("gpt-oss-20b", 8, 32),
		"llama-13b-16": mk("llama-2-13b", 16, 32),
	}
}

// TestSearchLayerMemoExact: Search's workers take a layer's costs from what they computed for
// an earlier split with the same layer key (layerMemo). Every hit is checked against the costs
// computed afresh (a key that missed something a layer's cost depends on would return another
// split's costs), and the whole result, every candidate, report and count, equals that of the
// search without the memo.
func TestSearchLayerMemoExact(t *testing.T) {
	for name, base := range moeSearchScenarios(t) {
		t.Run(name, func(t *testing.T) {
			var memos []*layerMemo
			checked := func() *layerMemo {
				m := newLayerMemo()
				m.check = true
				memos = append(memos, m)
				return m
			}
			opt := SearchOptions{MaxMicroBatch: 8, MaxChunks: 4}
			with, err := searchMemo(base, opt, searchRefine, checked)
			if err != nil {
				t.Fatal(err)
			}
			without, err := searchMemo(base, opt, searchRefine, nil)
			if err != nil {
				t.Fatal(err)
			}
			hits, bad := 0, 0
			for _, m := range memos {
				hits, bad = hits+m.hits, bad+m.mismatch
			}
			if hits == 0 || bad > 0 {
				t.Errorf("%d of %d memo hits differ from the costs computed again", bad, hits)
			}
			if !reflect.DeepEqual(with, without) {
				t.Errorf("the memo moves the result: %d/%d candidates, counts %+v / %+v, best %+v / %+v",
					len(with.Candidates), len(without.Candidates), with.Counts, without.Counts,
					with.Candidates[0].Layout, without.Candidates[0].Layout)
			}
			t.Logf("%d candidates, %d feasible, %d memo hits, counts %+v", len(with.Candidates), with.Feasible, hits, with.Counts)
		})
	}
}

// TestSearchKnobsMatchBruteForceMoE is TestSearchKnobsMatchBruteForce on MoE spaces (Mixtral
// 8x7B on 8 H100s, Qwen3-30B-A3B on 16 with the two-hop dispatch, gpt-oss-20b on 8), every EP
// and expert-TP split with its knobs: each split's kept setting has exactly the best closed-form
// step time of all its settings evaluated alone, and the counts add up to the brute-force space.
func TestSearchKnobsMatchBruteForceMoE(t *testing.T) {
	mk := func(id string, gpus, batch int) model.Scenario {
		s := scenario(t, id, "h100-sxm", "nvlink4", gpus, 1, 1)
		s.Workload.GlobalBatch = batch
		return s
	}
	two := mk("qwen3-30b-a3b", 16, 16)
	two.Layout.EPDispatch = model.EPDispatchTwoHop
	for name, base := range map[string]model.Scenario{
		"mixtral-8":    mk("mixtral-8x7b", 8, 16),
		"qwen3-a3b-16": two,
		"gpt-oss-8":    mk("gpt-oss-20b", 8, 16),
	} {
		t.Run(name, func(t *testing.T) { checkKnobsBruteForce(t, base, SearchOptions{MaxMicroBatch: 4, MaxChunks: 2}) })
	}
}
