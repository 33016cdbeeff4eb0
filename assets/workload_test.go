package assets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func TestParseWorkload(t *testing.T) {
	w, err := ParseWorkload("w.yaml", []byte("# lengths\nprompt: {dist: uniform, min: 128, max: 2048}\ngen:\n  dist: lognormal\n  mean: 256\n  sigma: 0.6\n  max: 1024\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*w.Prompt, model.LengthDist{Kind: model.Uniform, Min: 128, Max: 2048}) ||
		!reflect.DeepEqual(*w.Gen, model.LengthDist{Kind: model.LogNormal, Mean: 256, Sigma: 0.6, Max: 1024}) {
		t.Errorf("got %+v %+v", *w.Prompt, *w.Gen)
	}
	w, err = ParseWorkload("w.yaml", []byte("gen: {dist: fixed, mean: 64}\n"))
	if err != nil || w.Prompt != nil || w.Gen.Mean != 64 {
		t.Errorf("gen only: %+v, %v", w, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"prompt: {dist: list}\n", "w.yaml line 1: prompt.dist = list: a list of each request's lengths comes from a benchmark's file (validate --against)"},
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

// The keys that describe a benchmark as it ran: a shared system prompt and a rate schedule; every
// bad value is named with the file, the line, the key and what is allowed.
func TestParseWorkloadStages(t *testing.T) {
	in := "prompt: {dist: fixed, mean: 300}\nsystem_prompt: 512\nstages:\n  - {rate: 1, duration: 60s}\n  - {rate: 5, duration: 2m}\n  - {rate: 2.5, requests: 400}\n"
	w, err := ParseWorkload("s.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.RateStage{{Rate: 1, DurationS: 60}, {Rate: 5, DurationS: 120}, {Rate: 2.5, Requests: 400}}
	if w.SystemPrompt != 512 || w.SystemShare != 0 || len(w.Stages) != 3 || w.Stages[0] != want[0] || w.Stages[1] != want[1] || w.Stages[2] != want[2] {
		t.Errorf("got %+v", w)
	}
	w, err = ParseWorkload("s.yaml", []byte("system_prompt: {tokens: 2000, share: 0.25}\nstages: [{rate: 3, duration: 90}]"))
	if err != nil || w.SystemPrompt != 2000 || w.SystemShare != 0.25 || w.Prompt != nil || len(w.Stages) != 1 || w.Stages[0].DurationS != 90 {
		t.Errorf("share and seconds: %+v, %v", w, err)
	}
	// The prefix cache: the system prompt is cached unless said otherwise; prefix_cached tokens.
	w, err = ParseWorkload("s.yaml", []byte("system_prompt: {tokens: 300, cached: false}\nprefix_cached: 448"))
	if err != nil || w.SystemPrompt != 300 || !w.SystemUncached || w.PrefixCached != 448 {
		t.Errorf("cached: false and prefix_cached: %+v, %v", w, err)
	}
	if w, err = ParseWorkload("s.yaml", []byte("system_prompt: {tokens: 300, cached: true}")); err != nil || w.SystemUncached {
		t.Errorf("cached: true: %+v, %v", w, err)
	}
	many := "stages:\n" + strings.Repeat("  - {rate: 1, requests: 10}\n", model.MaxRateStages+1)
	for _, tc := range []struct{ in, want string }{
		{"system_prompt: -5", "s.yaml line 1: system_prompt = -5: must be a whole number of tokens from 1 to 2097152"},
		{"system_prompt: lots", "system_prompt = lots: must be a whole number of tokens"},
		{"system_prompt: {tokens: 100, share: 1.5}", "system_prompt.share = 1.5: must be the share of the requests that carry it, above 0 and at most 1"},
		{"system_prompt: {share: 0.5}", "system_prompt.tokens: missing"},
		{"system_prompt: {tokens: 100, who: me}", "system_prompt.who: unknown key"},
		{"system_prompt: [1]", "system_prompt: must be a number of tokens or {tokens: 512, share: 0.6}"},
		{"system_prompt: {tokens: 100, cached: maybe}", "system_prompt.cached = maybe: must be true"},
		{"prefix_cached: 0", "prefix_cached = 0: must be a whole number of tokens from 1 to 2097152"},
		{"prefix_cached: [1]", "prefix_cached"},
		{"stages: 5", "stages: must be a list"},
		{"stages: []", "stages: must be a list"},
		{"stages: [{rate: 0, duration: 10s}]", "stages[1].rate = 0: must be requests/s above 0, at most 1e6"},
		{"stages: [{rate: 1, duration: 10s}, {rate: -2, duration: 10s}]", "stages[2].rate = -2"},
		{"stages: [{rate: 1, duration: soon}]", "stages[1].duration = soon: must be a time such as 90s or 5m"},
		{"stages: [{rate: 1, duration: 0s}]", "stages[1].duration = 0s"},
		{"stages: [{rate: 1, requests: 0}]", "stages[1].requests = 0: must be a whole number of requests from 1 to 1000000"},
		{"stages: [{rate: 1}]", "stages[1]: give duration: or requests:, one of the two"},
		{"stages: [{rate: 1, duration: 5s, requests: 3}]", "stages[1]: give duration: or requests:, one of the two"},
		{"stages: [{duration: 5s}]", "stages[1].rate: missing"},
		{"stages: [{rate: 1, duration: 5s, ramp: yes}]", "stages[1].ramp: unknown key"},
		{"stages: [3]", "stages[1]: must be a mapping"},
		{"stages: [{rate: 1000, duration: 1001s}]", "stages = 1001000 requests: at most 1000000 requests in all"},
		{"stages: [{rate: 1, requests: 600000}, {rate: 1, requests: 600000}]", "at most 1000000 requests in all"},
		{many, "s.yaml line 2: stages = 65: 65 stages: at most 64"},
		{"stages: [{rate: 1, duration: 5s}]\nstages: [{rate: 2, duration: 5s}]", "s.yaml line 2: stages: given twice"},
	} {
		_, err := ParseWorkload("s.yaml", []byte(tc.in))
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
	f.Add("system_prompt: {tokens: 512, share: 0.6}\nstages: [{rate: 1, duration: 60s}, {rate: 5, requests: 600}]")
	f.Add("system_prompt: 64\nstages:\n  - &s {rate: 2, duration: 1m}\n  - *s")
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
		if k, v, allowed := model.CheckStages(w.Stages); k != "" {
			t.Fatalf("accepted %q: %s = %v: %s", in, k, v, allowed)
		}
		if w.SystemPrompt < 0 || w.SystemPrompt > model.MaxTokens || w.SystemShare < 0 || w.SystemShare > 1 {
			t.Fatalf("accepted %q: system prompt %d, share %g", in, w.SystemPrompt, w.SystemShare)
		}
	})
}

// The serving keys of a scenario file set the workload, and MarshalScenario writes them back.
func TestScenarioServingKeys(t *testing.T) {
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	in := "model: llama-3-8b\ngpu: l40s\nmode: infer\nrate: 2.5\nseed: 9\nmax_seqs: 64\nmax_batch_tokens: 4096\nweights: '4.5'\nkv_cache: fp8\nslo_ttft: 500ms\nslo_tpot: 0.05\nengine: sglang\nscheduler_recv_interval: 30\n"
	sf, err := ParseScenario("s.yaml", []byte(in), p)
	if err != nil {
		t.Fatal(err)
	}
	w := sf.Scenario.Workload
	if w.Rate != 2.5 || w.Seed != 9 || w.MaxSeqs != 64 || w.MaxBatchTokens != 4096 || w.Weights != "4.5" || w.KVCache != "fp8" ||
		w.SLOTTFT != 0.5 || w.SLOTPOT != 0.05 || w.Engine != "sglang" || w.SchedulerRecvInterval != 30 {
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
	// Out of its range, the scenario it reads is refused naming the field.
	for _, bad := range []string{"scheduler_recv_interval: 1001", "scheduler_recv_interval: -1"} {
		sf, err := ParseScenario("b.yaml", []byte("model: llama-3-8b\ngpu: l40s\nmode: infer\n"+bad+"\n"), p)
		if err == nil {
			err = sf.Scenario.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "scheduler-recv-interval") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
