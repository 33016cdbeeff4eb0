package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// cpDoc is what the CP tests read of report --json.
type cpDoc struct {
	Layout struct {
		TP, PP, DP int
		CP         int    `json:"cp"`
		CPComm     string `json:"cp_comm"`
	} `json:"layout"`
	Breakdown struct {
		CPComm float64 `json:"cp_comm"`
	} `json:"breakdown_s"`
	Memory struct {
		Activations float64 `json:"activations"`
	} `json:"memory"`
}

// --cp 4 --cp-comm KIND: the layout says it, DP is what is left of the GPUs (tp × cp × pp × dp),
// a GPU keeps a quarter of CP 1's activations, and all-gather's exchange is exposed.
func TestCPFlags(t *testing.T) {
	base := []string{"report", "--json", "--model", "llama-3-8b", "--gpus", "16", "--tp", "2", "--seq", "32768", "--batch", "8"}
	run := func(args ...string) cpDoc {
		t.Helper()
		code, out, errs := runArgs(t, append(append([]string{}, base...), args...)...)
		var v cpDoc
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v: %s", args, code, err, errs)
		}
		return v
	}
	one := run()
	if one.Layout.CP != 0 || one.Layout.CPComm != "" || one.Layout.DP != 8 {
		t.Errorf("no --cp: layout %+v, want no cp and DP 8", one.Layout)
	}
	for _, k := range []string{"ring", "all-gather", "ulysses", "hybrid"} {
		v := run("--cp", "4", "--cp-comm", k)
		if v.Layout.CP != 4 || v.Layout.CPComm != k || v.Layout.DP != 2 {
			t.Errorf("--cp 4 --cp-comm %s: layout %+v, want CP 4 and DP 16/(2×4) = 2", k, v.Layout)
		}
		if r := v.Memory.Activations / one.Memory.Activations; r < 0.249 || r > 0.251 {
			t.Errorf("--cp 4 --cp-comm %s: activations %.4g of CP 1's, want 1/4", k, r)
		}
		if k == "all-gather" && !(v.Breakdown.CPComm > 0) {
			t.Errorf("--cp-comm all-gather: nothing exposed")
		}
	}
}

// Bad --cp and --cp-comm values exit 2 naming the flag, the rule and the nearest valid value.
func TestCPFlagsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--cp", "3", "--seq", "4100", "--gpus", "48", "--tp", "2"}, []string{"--cp 3", "2·cp equal chunks", "nearest valid cp 2"}},
		{[]string{"--cp", "0"}, []string{"--cp 0", "between 1"}},
		{[]string{"--cp", "x"}, []string{"--cp"}},
		{[]string{"--cp-comm", "star"}, []string{"--cp-comm star", "ring, all-gather, ulysses, hybrid"}},
		{[]string{"--cp", "16", "--cp-comm", "ulysses", "--tp", "1", "--gpus", "16", "--seq", "65536"}, []string{"--cp 16", "kv-heads", "nearest valid cp 8"}},
		{[]string{"--cp", "2", "--mode", "infer", "--gpus", "16", "--disagg", "8:8"}, []string{"--cp 2", "--disagg"}},
		{[]string{"--cp", "3", "--mode", "infer", "--gpus", "16", "--tp", "8"}, []string{"--cp 3", "must divide gpus (16)"}},
		{[]string{"--mode", "infer", "--gpus", "16", "--tp", "8", "--disagg", "8:8", "--prefill-cp", "3"}, []string{"--prefill-cp 3", "must divide the prefill pool's 8 GPUs"}},
		{[]string{"--cp", "16", "--cp-comm", "ulysses", "--mode", "infer", "--tp", "1", "--pp", "1", "--gpus", "16"}, []string{"--cp 16", "kv-heads", "nearest valid cp 8"}},
		{[]string{"--cp", "4", "--gpus", "16", "--tp", "8"}, []string{"--tp 8", "tp × cp × pp (8 × 4 × 1) must divide gpus (16)"}},
	} {
		args := append([]string{"report", "--model", "llama-3-8b"}, c.args...)
		code, _, errs := runArgs(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", c.args, code, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: %q does not say %q", c.args, errs, w)
			}
		}
	}
}

// FuzzCPFlags: any --cp and --cp-comm (and sequence, TP, GPUs) either report (exit 0) with a
// layout of that CP, or are refused as bad input (exit 2) naming a flag; nothing else.
func FuzzCPFlags(f *testing.F) {
	f.Add(4, "ring", 32768, 2, 16)
	f.Add(3, "ulysses", 4100, 1, 24)
	f.Add(0, "hybrid", 1, 8, 8)
	f.Add(-7, "all-gather\x00", 1<<30, 3, 1<<21)
	f.Fuzz(func(t *testing.T, cp int, kind string, seq, tp, gpus int) {
		args := []string{"report", "--json", "--model", "llama-3-8b", "--batch", "8",
			"--cp", strconv.Itoa(cp), "--cp-comm", kind, "--seq", strconv.Itoa(seq), "--tp", strconv.Itoa(tp), "--gpus", strconv.Itoa(gpus)}
		code, out, errs := runArgs(t, args...)
		switch code {
		case 0:
			var v cpDoc
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%v: exit 0 but %v", args, err)
			}
			if want := max(cp, 1); max(v.Layout.CP, 1) != want {
				t.Fatalf("%v: layout CP %d", args, v.Layout.CP)
			}
		case 2:
			if !strings.Contains(errs, "--") {
				t.Fatalf("%v: refused without naming a flag: %s", args, errs)
			}
		default:
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	})
}

// --mode infer --cp 2: a serving replica of TP × CP GPUs, DP what is left; the exchange exposed
// in the breakdown; a larger KV cache a replica than CP 1's.
func TestCPFlagsServing(t *testing.T) {
	run := func(args ...string) (cpDoc, float64) {
		t.Helper()
		base := []string{"report", "--json", "--model", "llama-3-8b", "--mode", "infer", "--gpus", "16", "--tp", "2", "--pp", "1",
			"--prompt", "16384", "--gen", "32", "--requests", "8"}
		code, out, errs := runArgs(t, append(base, args...)...)
		var v cpDoc
		var inf struct {
			Inference struct {
				KV float64 `json:"kv_cache_tokens"`
			} `json:"inference"`
		}
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v: %s", args, code, err, errs)
		}
		if err := json.Unmarshal([]byte(out), &inf); err != nil {
			t.Fatal(err)
		}
		return v, inf.Inference.KV
	}
	one, kv1 := run()
	two, kv2 := run("--cp", "2")
	if one.Layout.DP != 8 || two.Layout.CP != 2 || two.Layout.DP != 4 || !(two.Breakdown.CPComm > 0) {
		t.Errorf("CP 1 layout %+v; CP 2 layout %+v, exposed %v", one.Layout, two.Layout, two.Breakdown.CPComm)
	}
	if !(kv2 > 1.9*kv1) {
		t.Errorf("KV cache a replica: CP 2 %.0f tokens, CP 1 %.0f", kv2, kv1)
	}
}
