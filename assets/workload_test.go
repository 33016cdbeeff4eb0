package assets

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestParseWorkload(t *testing.T) {
	w, err := ParseWorkload("w.yaml", []byte("# lengths\nprompt: {dist: uniform, min: 128, max: 2048}\ngen:\n  dist: lognormal\n  mean: 256\n  sigma: 0.6\n  max: 1024\n"))
	if err != nil {
		t.Fatal(err)
	}
	if *w.Prompt != (model.LengthDist{Kind: model.Uniform, Min: 128, Max: 2048}) ||
		*w.Gen != (model.LengthDist{Kind: model.LogNormal, Mean: 256, Sigma: 0.6, Max: 1024}) {
		t.Errorf("got %+v %+v", *w.Prompt, *w.Gen)
	}
	w, err = ParseWorkload("w.yaml", []byte("gen: {dist: fixed, mean: 64}\n"))
	if err != nil || w.Prompt != nil || w.Gen.Mean != 64 {
		t.Errorf("gen only: %+v, %v", w, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "w.yaml line 1: empty file"},
		{"[1, 2]", "w.yaml line 1: a workload must be a mapping"},
		{"prompt: 5", "w.yaml line 1: prompt: must be a mapping"},
		{"prompt: {dist: uniform, min: 9, max: 3}", "w.yaml line 1: prompt: min..max 9..3"},
		{"gen: {mean: 3}", "w.yaml line 1: gen.dist: missing"},
		{"gen: {dist: normal, mean: x}", "w.yaml line 1: gen.mean = x: must be a number"},
		{"gen: {dist: normal, mean: 10, sigma: -1}", "sigma -1"},
		{"gen: {dist: fixed, mean: 10, colour: red}", "gen.colour: unknown key"},
		{"gen: {dist: fixed, mean: 10}\ngen: {dist: fixed, mean: 20}", "w.yaml line 2: gen: given twice (first on line 1)"},
		{"batch: 3", "w.yaml line 1: batch: unknown key"},
		{"prompt: {dist: fixed, mean: 1e30}", "mean 1e+30"},
		{"prompt: [a", "not YAML"},
	} {
		_, err := ParseWorkload("w.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseWorkload: never a panic; what it accepts validates.
func FuzzParseWorkload(f *testing.F) {
	f.Add("prompt: {dist: uniform, min: 128, max: 2048}\ngen: {dist: lognormal, mean: 256, sigma: 0.6}\n")
	f.Add("gen: {dist: normal, mean: 100, sigma: 30, min: 10, max: 500}")
	f.Add("prompt: &a {dist: fixed, mean: 5}\ngen: *a")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ParseWorkload("f.yaml", []byte(in))
		if err != nil {
			return
		}
		for _, d := range []*model.LengthDist{w.Prompt, w.Gen} {
			if d != nil {
				if err := d.Validate("x"); err != nil {
					t.Fatalf("accepted %q: %v", in, err)
				}
			}
		}
	})
}

// The serving keys of a scenario file set the workload, and MarshalScenario writes them back.
func TestScenarioServingKeys(t *testing.T) {
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	in := "model: llama-3-8b\ngpu: l40s\nmode: infer\nrate: 2.5\nseed: 9\nmax_seqs: 64\nmax_batch_tokens: 4096\nweights: '4.5'\nkv_cache: fp8\nslo_ttft: 500ms\nslo_tpot: 0.05\n"
	sf, err := ParseScenario("s.yaml", []byte(in), p)
	if err != nil {
		t.Fatal(err)
	}
	w := sf.Scenario.Workload
	if w.Rate != 2.5 || w.Seed != 9 || w.MaxSeqs != 64 || w.MaxBatchTokens != 4096 || w.Weights != "4.5" || w.KVCache != "fp8" ||
		w.SLOTTFT != 0.5 || w.SLOTPOT != 0.05 {
		t.Errorf("workload %+v", w)
	}
	back, err := ParseScenario("back.yaml", MarshalScenario(sf.Scenario, ""), p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Scenario.Workload != w {
		t.Errorf("round trip: %+v, want %+v", back.Scenario.Workload, w)
	}
	for _, bad := range []string{"weights: int3", "kv_cache: fp32", "concurrency: x", "slo_tpot: -1s", "slo_ttft: soon"} {
		if _, err := ParseScenario("b.yaml", []byte("model: llama-3-8b\ngpu: l40s\n"+bad+"\n"), p); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
