package cli

import (
	"strings"
	"testing"
)

// complete runs cobra's __complete, as the shell's completion script does, and returns the words
// offered and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// Shell completion completes values: the presets' IDs, the enums' words, comm's algorithms and
// protocols, search's auto; a prefix narrows them; no file names are offered for them.
func TestCompletionValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // among the words
		not  []string // not among them
	}{
		{[]string{"report", "--model", ""}, []string{"llama-3-70b", "mixtral-8x7b", "qwen2.5-72b"}, nil},
		{[]string{"report", "--model", "llama-3"}, []string{"llama-3-70b", "llama-3-8b"}, []string{"llama-2-7b"}},
		{[]string{"--gpu", ""}, []string{"h100-sxm", "l40s", "rtx-4090", "mi300x"}, nil},
		{[]string{"report", "--intra", ""}, []string{"nvlink4", "pcie4", "xgmi"}, []string{"ib-ndr"}},
		{[]string{"report", "--inter", ""}, []string{"ib-ndr", "roce-400", "eth-100"}, []string{"nvlink4"}},
		{[]string{"report", "--schedule", ""}, []string{"1f1b", "gpipe", "interleaved", "zb-h1"}, nil},
		{[]string{"report", "--mode", ""}, []string{"train", "infer"}, nil},
		{[]string{"report", "--precision", ""}, []string{"bf16", "fp8"}, nil},
		{[]string{"report", "--recompute", ""}, []string{"none", "selective", "full"}, []string{"auto"}},
		{[]string{"search", "--recompute", ""}, []string{"auto", "none", "full"}, nil},
		{[]string{"report", "--offload", "optimizer+"}, []string{"optimizer+weights", "optimizer+weights+activations"}, []string{"none"}},
		{[]string{"search", "--objective", ""}, []string{"time", "throughput", "goodput"}, []string{"unknown"}},
		{[]string{"comm", "--algo", ""}, []string{"auto", "ring", "nvls", "one-shot"}, nil},
		{[]string{"comm", "--proto", ""}, []string{"auto", "ll", "ll128", "simple"}, nil},
		{[]string{"comm", "--op", ""}, []string{"all-reduce", "all-gather"}, nil},
		{[]string{"report", "--scenario", "tour/"}, []string{"tour/pcie"}, nil},
	} {
		words, directive := complete(t, tc.args...)
		has := map[string]bool{}
		for _, w := range words {
			has[w] = true
		}
		for _, w := range tc.want {
			if !has[w] {
				t.Errorf("%q: %q not offered: %q", tc.args, w, words)
			}
		}
		for _, w := range tc.not {
			if has[w] {
				t.Errorf("%q: %q offered: %q", tc.args, w, words)
			}
		}
		if tc.args[len(tc.args)-2] != "--scenario" && directive != ":4" {
			t.Errorf("%q: directive %s, want :4 (no file names)", tc.args, directive)
		}
	}
}

// Every word completion offers is one the flag takes: typed, it is not refused as a value.
func TestCompletionWordsAreAccepted(t *testing.T) {
	for _, c := range []struct {
		cmd, flag string
		extra     []string
	}{
		{"report", "model", nil}, {"report", "gpu", nil}, {"report", "intra", nil},
		{"report", "inter", []string{"--gpus", "16"}}, {"report", "schedule", nil}, {"report", "mode", nil},
		{"report", "precision", nil}, {"report", "recompute", nil}, {"search", "recompute", nil},
		{"report", "offload", nil}, {"report", "tp-overlap", nil}, {"report", "rank-order", nil},
		{"report", "zero", nil}, {"search", "zero", nil}, {"report", "collectives", []string{"--mode", "infer"}},
		{"report", "kv-cache", []string{"--mode", "infer"}}, {"report", "weights", []string{"--mode", "infer"}},
		{"search", "objective", nil}, {"comm", "algo", nil}, {"comm", "proto", nil}, {"comm", "op", nil},
		{"export", "lang", []string{"--markdown", "-"}},
	} {
		words, _ := complete(t, c.cmd, "--"+c.flag, "")
		if len(words) == 0 {
			t.Errorf("%s --%s: nothing offered", c.cmd, c.flag)
		}
		for _, w := range words {
			args := append([]string{c.cmd, "--" + c.flag, w}, c.extra...)
			if c.cmd == "comm" {
				args = append(args, "--max-bytes", "1M", "--step-factor", "64")
			}
			code, _, errs := runArgs(t, args...)
			// Refused as a word the flag does not know (a combination the hardware or the mode
			// cannot run, such as --algo tree on one node, is another matter, said otherwise).
			if code == 2 && strings.Contains(errs, "--"+c.flag+" "+w+": ") && (strings.Contains(errs, "one of") || strings.Contains(errs, "unknown") || strings.Contains(errs, "must be")) {
				t.Errorf("%s --%s %s offered and refused: %s", c.cmd, c.flag, w, errs)
			}
			if code != 0 && code != 2 {
				t.Errorf("%s --%s %s: exit %d: %s", c.cmd, c.flag, w, code, errs)
			}
		}
	}
}
