package cli

import (
	"strings"
	"testing"
)

// Bad speculation input exits 2 naming the flag (or the file's line and key), the value and
// the rule.
func TestSpecInputsRefused(t *testing.T) {
	base := []string{"report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "1", "--requests", "4"}
	curve := writeFile(t, "curve.yaml", "model: llama-3-8b\ngpu: h100-sxm\ngpus: 1\nmode: infer\nspec_accept: [0.5, 0.9]\n")
	method := writeFile(t, "method.yaml", "model: llama-3-8b\ngpu: h100-sxm\ngpus: 1\nmode: infer\nspec_tokens: 2\nspec_accept: 0.5\nspec_method: medusa\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--spec-tokens", "3", "--spec-accept", "1.5"}, "--spec-accept 1.5: each acceptance must be in (0, 1]"},
		{[]string{"--spec-tokens", "3", "--spec-accept", "0"}, "--spec-accept 0: each acceptance must be in (0, 1]"},
		{[]string{"--spec-tokens", "3", "--spec-accept", "-0.2,0.1"}, "--spec-accept -0.2,0.1:"},
		{[]string{"--spec-tokens", "3", "--spec-accept", "half"}, `--spec-accept half: must be a per-token rate in (0, 1] or a per-position curve such as 0.9,0.8,0.7: "half" is not a number`},
		{[]string{"--spec-tokens", "33", "--spec-accept", "0.7"}, "--spec-tokens 33: engine vllm allows at most 32 speculative tokens a step"},
		{[]string{"--spec-tokens", "3", "--spec-accept", "0.7", "--engine", "lmdeploy"}, "--spec-tokens 3: engine lmdeploy does not run speculative decoding"},
		{[]string{"--spec-tokens", "1", "--spec-accept", "0.87", "--spec-method", "mtp"}, "--spec-method mtp: model llama-3-8b carries no multi-token prediction layer"},
		{[]string{"--spec-tokens", "2", "--spec-accept", "0.7", "--spec-method", "draft"}, "--spec-method draft: needs --spec-draft, the draft model"},
		{[]string{"--spec-tokens", "2", "--spec-accept", "0.7", "--spec-method", "draft", "--spec-draft", "llama-2-7b"}, "--spec-draft llama-2-7b: a draft model must share the target's vocabulary"},
		{[]string{"--spec-tokens", "2", "--spec-accept", "0.7", "--spec-method", "draft", "--spec-draft", "nosuch"}, "--spec-draft nosuch: unknown model; one of"},
		{[]string{"--spec-tokens", "3"}, "--spec-tokens 3: needs --spec-accept"},
		{[]string{"--scenario", curve}, "line 5: spec_accept = 0.5,0.9: a per-position curve"},
		{[]string{"--scenario", method}, "line 7: spec_method = medusa: must be one of eagle, mtp, draft, ngram"},
	} {
		args := append(append([]string{}, base...), tc.args...)
		first, _ := firstLine(t, args...)
		if !strings.Contains(first, tc.want) {
			t.Errorf("%v:\n got %q\nwant %q", tc.args, first, tc.want)
		}
	}
}

// A good speculative run reports its tokens a step; the curve alone sets K.
func TestSpecReported(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "1",
		"--requests", "8", "--concurrency", "2", "--spec-accept", "0.9,0.8,0.7", "--spec-method", "ngram")
	if code != 0 || !strings.Contains(out, "K=3 ngram, acceptance 0.9,0.8,0.7 (1 + 2.40 expected)") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errs)
	}
}
