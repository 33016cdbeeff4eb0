package serve

import (
	"testing"

	"github.com/splitscope/splitscope/model"
)

// A List gives each request its own lengths in order, prompt and output together, again from
// the first when the requests outrun it; the seed and the rate change the arrivals only.
func TestGenerateList(t *testing.T) {
	p, g := model.ListDist([]int{13, 25, 399}), model.ListDist([]int{120, 429, 3})
	for _, w := range []Workload{{N: 5, Prompt: p, Gen: g}, {N: 5, Rate: 4, Seed: 9, Prompt: p, Gen: g},
		{Stages: []model.RateStage{{Rate: 2, Requests: 2}, {Rate: 8, Requests: 3}}, Prompt: p, Gen: g}} {
		reqs := Generate(w)
		if len(reqs) != 5 {
			t.Fatalf("%d requests", len(reqs))
		}
		for i, q := range reqs {
			if q.Prompt != p.Values[i%3] || q.Gen != g.Values[i%3] {
				t.Errorf("request %d: %d / %d, want %d / %d", i, q.Prompt, q.Gen, p.Values[i%3], g.Values[i%3])
			}
		}
	}
	if p.Mean != (13+25+399)/3.0 || p.Min != 13 || p.Max != 399 || p.Validate("prompt") != nil {
		t.Errorf("ListDist %+v: %v", p, p.Validate("prompt"))
	}
	for _, bad := range []model.LengthDist{{Kind: model.List}, model.ListDist([]int{4, 0}), {Kind: model.List, Values: []int{5}, Mean: 6, Min: 5, Max: 5}} {
		if bad.Validate("prompt") == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
