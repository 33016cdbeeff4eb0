package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// hostCapacity is report --json's host memory per GPU for args (offloading the optimizer, so
// that the host's share is reported).
func hostCapacity(t *testing.T, args ...string) float64 {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"report", "--json", "--gpus", "8", "--gpus-per-node", "8", "--offload", "optimizer"}, args...)...)
	if code != 0 {
		t.Fatalf("%q: exit %d\n%s", args, code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	v, ok := lookup(doc, "memory.host_capacity")
	if !ok {
		t.Fatalf("no memory.host_capacity in\n%s", out)
	}
	return v.(float64)
}

func TestHostMemoryFlag(t *testing.T) {
	if got := hostCapacity(t); got != model.DefaultHostMemoryPerGPU {
		t.Errorf("default: %v bytes per GPU, want %v", got, float64(model.DefaultHostMemoryPerGPU))
	}
	// Per node, shared by its 8 GPUs.
	for _, v := range []string{"512GiB", "512G", "512 gib", "549755813888", "0.5TiB"} {
		if got := hostCapacity(t, "--host-memory", v); got != 64*model.GiB {
			t.Errorf("--host-memory %s: %v bytes per GPU, want 64 GiB", v, got)
		}
	}
	if got := hostCapacity(t, "--host-memory", "600GB"); got != 600e9/8 {
		t.Errorf("--host-memory 600GB: %v bytes per GPU, want 75e9 (GB: powers of 1000)", got)
	}
	for _, bad := range []string{"0", "-5GiB", "lots", "12XB", "2PiB", "1e400", "NaN", "GiB"} {
		code, out, errs := runArgs(t, "report", "--host-memory", bad)
		if code != 2 || out != "" || !strings.Contains(errs, "--host-memory "+bad+": must be a size of host memory per node") {
			t.Errorf("--host-memory %q: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
	// The help states the default.
	_, help, _ := runArgs(t, "report", "--help")
	if !strings.Contains(help, "--host-memory SIZE") || !strings.Contains(help, "else 256 GiB per GPU)") {
		t.Errorf("report --help does not state --host-memory's default:\n%s", help)
	}
	// A scenario file's host_memory, and the flag over it.
	file := writeFile(t, "host.yaml", "model: llama-3-70b\ngpu: h100-sxm\nhost_memory: 1TiB\n")
	if got := hostCapacity(t, "--scenario", file); got != 128*model.GiB {
		t.Errorf("host_memory: 1TiB: %v bytes per GPU, want 128 GiB", got)
	}
	if got := hostCapacity(t, "--scenario", file, "--host-memory", "256GiB"); got != 32*model.GiB {
		t.Errorf("--host-memory over the file: %v bytes per GPU, want 32 GiB", got)
	}
	bad := writeFile(t, "bad.yaml", "model: llama-3-70b\ngpu: h100-sxm\nhost_memory: plenty\n")
	if code, _, errs := runArgs(t, "report", "--scenario", bad); code != 2 || !strings.Contains(errs, "line 3") || !strings.Contains(errs, "host_memory") {
		t.Errorf("host_memory: plenty: exit %d, %s", code, errs)
	}
}

// TestCapacityVerdictSaysWhatOffloadCosts: llama-3-70b trains on 8 H100s only with its optimizer
// and weights in host memory; the verdict says so and what it needs per GPU, and with too little
// host memory it does not fit.
func TestCapacityVerdictSaysWhatOffloadCosts(t *testing.T) {
	args := []string{"report", "--capacity", "--gpu", "h100-sxm", "--gpus", "8", "--gpus-per-node", "8", "--model", "llama-3-70b"}
	verdict := func(extra ...string) string {
		t.Helper()
		code, out, errs := runArgs(t, append(append([]string{}, args...), extra...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", extra, code, errs)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  llama-3-70b, training") {
				return l
			}
		}
		t.Fatalf("no verdict line for llama-3-70b in\n%s", out)
		return ""
	}
	v := verdict()
	for _, want := range []string{"fits only with optimizer+weights offloaded (", "GiB host RAM per GPU; 256 GiB per GPU assumed, the default"} {
		if !strings.Contains(v, want) {
			t.Errorf("default host memory: %q lacks %q", v, want)
		}
	}
	if strings.Contains(v, "fits on the GPUs") {
		t.Errorf("said to fit on the GPUs: %q", v)
	}
	// 1.5 TiB a node (192 GiB a GPU): still fits, with offload, and says the box's figure.
	if v := verdict("--host-memory", "1.5TiB"); !strings.Contains(v, "fits only with optimizer+weights offloaded (") || !strings.Contains(v, "this box has 192 GiB per GPU)") {
		t.Errorf("--host-memory 1.5TiB: %q", v)
	}
	// 64 GiB a node: nothing fits, and the verdict says what the offload would need.
	v = verdict("--host-memory", "64GiB")
	if !strings.Contains(v, "does not fit: its fastest layout with optimizer") || !strings.Contains(v, "GiB host RAM per GPU; this box has 8.00 GiB per GPU") {
		t.Errorf("--host-memory 64GiB: %q", v)
	}
	// search sees the same host memory: its best layout fits with the default, none with 64 GiB.
	for _, tc := range []struct {
		host string
		fits bool
	}{{"", true}, {"64GiB", false}} {
		sargs := []string{"search", "--gpu", "h100-sxm", "--gpus", "8", "--model", "llama-3-70b", "--json"}
		if tc.host != "" {
			sargs = append(sargs, "--host-memory", tc.host)
		}
		code, out, _ := runArgs(t, sargs...)
		var doc struct {
			Candidates []map[string]any `json:"candidates"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Candidates) == 0 {
			t.Fatalf("search: exit %d\n%s", code, out)
		}
		if f := doc.Candidates[0]["feasible"]; f != tc.fits {
			t.Errorf("search --host-memory %q: first candidate feasible %v, want %v", tc.host, f, tc.fits)
		}
	}
}

// TestProbeBoxHostMemory: the sample box in docs/ shows its host memory and the verdict counts
// offload against it (504 GiB for 8 RTX 4090s); --host-memory overrides it.
func TestProbeBoxHostMemory(t *testing.T) {
	box := "../../docs/box-example.json"
	code, out, errs := runArgs(t, "probe", "--box", box, "--model", "llama-3-70b")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"host RAM  504 GiB, 475 GiB available (/proc/meminfo)", "NUMA node 1  252 GiB, 239 GiB free",
		"host RAM      504 GiB per node, 62.9 GiB per GPU",
		"llama-3-70b, training              does not fit: its fastest layout with optimizer+weights+activations offloaded would need",
		"this box has 62.9 GiB per GPU", "largest for training on the GPUs   llama-3-8b", "largest for training with offload  qwen3-32b"} {
		if !strings.Contains(out, want) {
			t.Errorf("probe --box lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runArgs(t, "probe", "--box", box, "--model", "llama-3-70b", "--json")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if v, _ := lookup(doc, "box.host_memory.total_bytes"); v != float64(527988948*1024) {
		t.Errorf("box.host_memory.total_bytes = %v", v)
	}
	if v, _ := lookup(doc, "capacity.host_memory_default"); v != false {
		t.Errorf("capacity.host_memory_default = %v, want false (the box says)", v)
	}
	// --host-memory over the box: 2 TiB (256 GiB a GPU) and llama-3-70b fits, with offload.
	code, out, _ = runArgs(t, "probe", "--box", box, "--model", "llama-3-70b", "--host-memory", "2TiB")
	if code != 0 || !strings.Contains(out, "llama-3-70b, training              fits only with optimizer+weights+activations offloaded (") ||
		!strings.Contains(out, "this box has 256 GiB per GPU)") {
		t.Errorf("probe --box --host-memory 2TiB: exit %d\n%s", code, out)
	}
}
