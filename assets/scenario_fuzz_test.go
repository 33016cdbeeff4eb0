package assets

import (
	"path"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseScenario feeds ParseScenario any bytes: it must not panic; a refusal names the file
// on every line and stays a screenful; a scenario it accepts and that validates writes back
// (MarshalScenarioFile) to a file that reads as the same scenario, title, caption and tab.
func FuzzParseScenario(f *testing.F) {
	p, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range tourFiles() {
		data, err := scenarioFS.ReadFile(path.Join(TourDir, file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		sf, err := ParseScenario(file, data, p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(MarshalScenario(sf.Scenario, sf.Title))
	}
	for _, s := range []string{"", "model: llama-3-70b\ngpu: h100-sxm\ntp: 3\n", "tpp: 4\n", "- a\n",
		"model: llama-3-70b\ngpu: h100-sxm\nreserve_gib: 1e300\ncompute_eff: .nan\n", "a: &x [*x]\n",
		"model: llama-2-7b\ngpu: l40s\nheads: 16\nmode: infer\nmicro_batch: 3\n", lessonStep,
		"model: llama-2-7b\ngpu: h100-sxm\ncaption: {en: \"a: b\", fr: \"\\u00e9\"}\ntab: box\n",
		// Speculative decoding's keys: a rate, a curve, a method, a draft model.
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 1\nmode: infer\nspec_tokens: 3\nspec_accept: 0.7\nspec_method: eagle\n",
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 1\nmode: infer\nspec_accept: [0.9, 0.8, 0.7]\nspec_method: ngram\n",
		"model: llama-3-70b\ngpu: h100-sxm\nmode: infer\nspec_tokens: 4\nspec_accept: \"0.8,0.6\"\nspec_method: draft\nspec_draft: llama-3-8b\n",
		"model: deepseek-v3\ngpu: h200\nmode: infer\nspec_tokens: 1\nspec_accept: [.nan]\nspec_method: mtp\n",
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 16\ntp: 2\ncp: 4\ncp_comm: ulysses\nseq: 32768\n", "cp: 3\ncp_comm: star\n",
		// Rank orders: Llama 3's, a CP-first one, EP outside DP, and bad ones.
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 32\ntp: 2\ncp: 2\npp: 2\nseq: 32768\nrank_order: tp-cp-pp-dp\n",
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 32\ntp: 2\ncp: 4\nseq: 32768\nrank_order: cp-tp-dp-pp\n",
		"model: mixtral-8x7b\ngpu: h100-sxm\ngpus: 32\ntp: 2\nep: 4\nrank_order: tp-dp-ep-pp\n",
		"rank_order: tp-ep-pp-dp\n", "rank_order: tp-tp-dp-pp\n", "rank_order: pp\n",
		// Serving with CP: prompts split over the CP GPUs, the KV cache sharded; with --disagg refused.
		"model: llama-3-70b\ngpu: h100-sxm\ngpus: 32\ntp: 8\npp: 1\ncp: 4\nmode: infer\nprompt: 65536\ngen: 64\nrequests: 8\n",
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 16\ntp: 2\ncp: 2\nmode: infer\ndisagg: \"8:8\"\n",
		// Conversations and the host tier.
		"model: llama-3-8b\ngpu: h100-sxm\ngpus: 1\nmode: infer\nturns: 6\nthink: 45s\nkv_host_gib: 64\n", "mode: infer\nturns: -1\nthink: 2\nkv_host_gib: .inf\n"} {

		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := ParseScenario("fuzz.yaml", data, p)
		if err != nil {
			lines := strings.Split(err.Error(), "\n")
			if len(lines) > maxScenarioErrors+1 {
				t.Errorf("%d lines of errors", len(lines))
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "assets: fuzz.yaml") {
					t.Errorf("error line %q does not name the file", l)
				}
			}
			return
		}
		if sf.Scenario.Validate() != nil {
			return
		}
		out := MarshalScenarioFile(sf)
		back, err := ParseScenario("back.yaml", out, p)
		if err != nil {
			t.Fatalf("the scenario written back does not parse: %v\n%s", err, out)
		}
		if back.Title != sf.Title || !reflect.DeepEqual(back.Scenario, sf.Scenario) {
			t.Fatalf("round trip differs:\n got %q %+v\nwant %q %+v\n%s", back.Title, back.Scenario, sf.Title, sf.Scenario, out)
		}
		if back.Tab != sf.Tab || !reflect.DeepEqual(back.Caption, sf.Caption) {
			t.Fatalf("a lesson step's caption or tab written back differs: %q %q, want %q %q\n%s", back.Caption, back.Tab, sf.Caption, sf.Tab, out)
		}
	})
}
