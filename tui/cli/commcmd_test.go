package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestCommJSON(t *testing.T) {
	code, out, errs := runArgs(t, "comm", "--gpu", "h100-sxm", "--gpus", "8", "--min-bytes", "1K", "--max-bytes", "1G", "--step-factor", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Op    string `json:"op"`
		GPUs  int    `json:"gpus"`
		Nodes int    `json:"nodes"`
		Rows  []struct {
			Bytes     float64 `json:"bytes"`
			TimeS     float64 `json:"time_s"`
			AlgBW     float64 `json:"algbw_gbs"`
			BusBW     float64 `json:"busbw_gbs"`
			Algorithm string  `json:"algorithm"`
			Protocol  string  `json:"protocol"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// 1 KiB, 4 KiB, … 1 GiB: 11 rows.
	if doc.Op != "all-reduce" || doc.GPUs != 8 || doc.Nodes != 1 || len(doc.Rows) != 11 {
		t.Fatalf("op %s, %d GPUs, %d nodes, %d rows", doc.Op, doc.GPUs, doc.Nodes, len(doc.Rows))
	}
	for i, r := range doc.Rows {
		if want := float64(int64(1024) << (2 * i)); r.Bytes != want {
			t.Errorf("row %d: %v B, want %v", i, r.Bytes, want)
		}
		// busbw is algbw × 2(n−1)/n, algbw size / time, as nccl-tests defines them.
		if r.TimeS <= 0 || !near(r.AlgBW, r.Bytes/r.TimeS/1e9, 1e-9) || !near(r.BusBW, r.AlgBW*1.75, 1e-9) {
			t.Errorf("row %d: time %v, algbw %v, busbw %v", i, r.TimeS, r.AlgBW, r.BusBW)
		}
	}
	// Small sizes run the ring's LL, large ones NVLS on 8 H100s.
	if first, last := doc.Rows[0], doc.Rows[len(doc.Rows)-1]; first.Algorithm != "ring" || first.Protocol != "ll" || last.Algorithm != "nvls" {
		t.Errorf("first %s/%s, last %s/%s", first.Algorithm, first.Protocol, last.Algorithm, last.Protocol)
	}
}

func near(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*max(a, b, 1e-300)
}

func TestCommText(t *testing.T) {
	code, out, errs := runArgs(t, "comm", "--gpu", "h100-sxm", "--gpus", "8", "--algo", "ring", "--min-bytes", "1G", "--max-bytes", "1G")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"# splitscope comm: all-reduce on 8× h100-sxm, nvlink4 · algorithm ring", "(GB/s)", "1073741824", "ring       simple"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// Across nodes the header names the network.
	_, out, _ = runArgs(t, "comm", "--gpu", "a100-sxm-80gb", "--gpus", "32", "--inter", "ib-hdr", "--op", "all-gather", "--max-bytes", "1M")
	if !strings.Contains(out, "all-gather on 32× a100-sxm-80gb (4 nodes × 8), nvlink3 / ib-hdr ×8 NICs") {
		t.Errorf("multi-node header:\n%s", out)
	}
}

func TestCommBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"comm", "--op", "allreduse"}, "--op allreduse: one of all-reduce, reduce-scatter"},
		{[]string{"comm", "--min-bytes", "0"}, "--min-bytes 0: a size of 1 byte to 1P"},
		{[]string{"comm", "--max-bytes", "lots"}, "--max-bytes lots: a size of 1 byte to 1P"},
		{[]string{"comm", "--min-bytes", "1G", "--max-bytes", "1M"}, "--max-bytes 1M: must be at least --min-bytes 1G"},
		{[]string{"comm", "--step-factor", "1"}, "--step-factor 1: a number above 1"},
		{[]string{"comm", "--step-factor", "1.0001", "--max-bytes", "1T"}, "--step-factor 1.0001: too small for 8 to 1T"},
		{[]string{"comm", "--algo", "collnet"}, "--algo collnet: one of auto, ring, tree, nvls, nvls-tree"},
		{[]string{"comm", "--tp", "8"}, "--tp 8: comm times collectives on the hardware"},
		{[]string{"comm", "--gpu", "nope"}, "--gpu nope: unknown GPU"},
	} {
		requireBadInput(t, tc.args, []string{tc.want})
	}
}

// A GeForce box has no peer-to-peer: comm says so in its header, and its all-reduce pays the
// staging through host memory (about twice the time of the same PCIe link with P2P at 256 MiB).
func TestCommNoP2P(t *testing.T) {
	run := func(gpu string) (string, float64) {
		t.Helper()
		code, out, errs := runArgs(t, "comm", "--gpu", gpu, "--gpus", "8", "--intra", "pcie4", "--min-bytes", "256M", "--max-bytes", "256M")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", gpu, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		f := strings.Fields(lines[len(lines)-1])
		var us float64
		if _, err := fmt.Sscan(f[1], &us); err != nil {
			t.Fatalf("%s: %v in %q", gpu, err, lines[len(lines)-1])
		}
		return lines[0], us
	}
	head, geforce := run("rtx-4090")
	if !strings.Contains(head, "on 8× rtx-4090, pcie4 (no peer-to-peer: staged through host memory)") {
		t.Errorf("header %q", head)
	}
	head, l40s := run("l40s")
	if strings.Contains(head, "peer-to-peer") {
		t.Errorf("header %q names staging on a card with P2P", head)
	}
	if r := geforce / l40s; r < 1.8 || r > 2.2 {
		t.Errorf("256 MiB: %.0f µs without P2P, %.0f with: ×%.2f, want about ×2", geforce, l40s, r)
	}
}

// No silent fallback: every --algo and --proto value on every kind of hardware (an NVSwitch
// node, PCIe L40S with peer-to-peer, a pair of them, GeForce without peer-to-peer, NVSwitch nodes
// across InfiniBand, PCIe nodes across it) either exits 2 naming the flag and why, or prints
// rows whose algorithm and protocol are what ran — the forced ones, or, marked *, NCCL's own
// with the reason under the header.
func TestCommForcedRunsOrRefuses(t *testing.T) {
	hardware := map[string][]string{
		"nvswitch h100":   {"--gpu", "h100-sxm", "--gpus", "8"},
		"pcie l40s p2p":   {"--gpu", "l40s", "--gpus", "8"},
		"pcie l40s pair":  {"--gpu", "l40s", "--gpus", "2"},
		"rtx 4090 no p2p": {"--gpu", "rtx-4090", "--gpus", "4"},
		"h100 multi-node": {"--gpu", "h100-sxm", "--gpus", "16", "--inter", "ib-ndr"},
		"l40s multi-node": {"--gpu", "l40s", "--gpus", "16", "--gpus-per-node", "8", "--inter", "ib-ndr"},
	}
	algos := []string{"auto", "ring", "tree", "nvls", "nvls-tree", "one-shot", "two-shot"}
	protos := []string{"auto", "ll", "ll128", "simple"}
	refused, fellBack := 0, 0
	for hw, args := range hardware {
		for _, op := range []string{"all-reduce", "all-gather"} {
			for _, algo := range algos {
				for _, proto := range protos {
					label := fmt.Sprintf("%s %s --algo %s --proto %s", hw, op, algo, proto)
					a := append(append([]string{"comm"}, args...), "--op", op, "--algo", algo, "--proto", proto, "--min-bytes", "1K", "--max-bytes", "64M", "--step-factor", "8")
					code, out, errs := runArgs(t, a...)
					if code == 2 {
						refused++
						if strings.Contains(errs, "one-shot and two-shot are all-reduce kernels") {
							continue // refused before any hardware is looked at
						}
						if !(strings.Contains(errs, "--algo "+algo+": ") || strings.Contains(errs, "--proto "+proto+": ")) {
							t.Errorf("%s: exit 2 without naming the flag: %s", label, errs)
						}
						continue
					}
					if code != 0 {
						t.Fatalf("%s: exit %d: %s", label, code, errs)
					}
					lines := strings.Split(strings.TrimSpace(out), "\n")
					forced := algo != "auto" || proto != "auto"
					if forced != strings.Contains(lines[0], "(forced)") {
						t.Errorf("%s: header %q", label, lines[0])
					}
					if algo != "auto" && !strings.Contains(lines[0], "algorithm "+algo) {
						t.Errorf("%s: header %q does not name the algorithm forced", label, lines[0])
					}
					ranForced := 0
					for _, l := range lines {
						if strings.HasPrefix(l, "#") {
							continue
						}
						f := strings.Fields(l) // size time algbw busbw algorithm protocol
						ranAlgo, ranProto := f[4], f[5]
						if strings.HasSuffix(ranAlgo, "*") {
							fellBack++
							if !strings.Contains(out, "# * not forced at") {
								t.Errorf("%s: a row marked * and no reason:\n%s", label, out)
							}
							continue
						}
						ranForced++
						if algo != "auto" && ranAlgo != algo || proto != "auto" && ranProto != proto {
							t.Errorf("%s: row %q ran %s/%s unmarked", label, l, ranAlgo, ranProto)
						}
					}
					if ranForced == 0 {
						t.Errorf("%s: no row ran what was forced, and exit 0:\n%s", label, out)
					}
				}
			}
		}
	}
	// The cases of the issue, and that both outcomes are exercised.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"comm", "--gpu", "l40s", "--gpus", "8", "--algo", "nvls"}, "--algo nvls: NVLink SHARP needs an NVSwitch"},
		{[]string{"comm", "--gpu", "rtx-4090", "--gpus", "4", "--algo", "one-shot"}, "--algo one-shot: one-shot reads the peers' memory directly and needs peer-to-peer"},
		{[]string{"comm", "--gpu", "l40s", "--gpus", "8", "--proto", "ll128"}, "--proto ll128: NCCL enables LL128 only where"},
	} {
		requireBadInput(t, tc.args, []string{tc.want})
	}
	if refused == 0 || fellBack == 0 {
		t.Errorf("%d refused, %d rows fell back: the grid exercises neither", refused, fellBack)
	}
}

// --json says what was forced and, per row, why it did not run where it did not.
func TestCommForcedJSON(t *testing.T) {
	code, out, errs := runArgs(t, "comm", "--gpu", "h100-sxm", "--gpus", "8", "--algo", "one-shot", "--min-bytes", "4M", "--max-bytes", "16M", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		ForcedAlgo string `json:"forced_algo"`
		Rows       []struct {
			Algorithm, Fallback string
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ForcedAlgo != "one-shot" || len(doc.Rows) != 3 || doc.Rows[0].Algorithm != "one-shot" || doc.Rows[0].Fallback != "" ||
		doc.Rows[2].Algorithm == "one-shot" || !strings.Contains(doc.Rows[2].Fallback, "below 8 MiB") {
		t.Errorf("%+v", doc)
	}
}

// A preset's name with other sizes is no longer the preset: report's title, the capacity
// verdict and its JSON, and the Markdown export say "modified" and what changed; the preset
// itself is titled as before.
func TestModifiedModelTitle(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--model", "llama-3-70b", "--layers", "40", "--capacity")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "llama-3-70b (modified: layers 40; 40 layers, ") {
		t.Errorf("title %q", first)
	}
	if strings.Contains(out, "  llama-3-70b, ") || !strings.Contains(out, "llama-3-70b (modified: layers 40), ") {
		t.Errorf("capacity verdict names the preset:\n%s", out)
	}
	_, out, _ = runArgs(t, "report", "--model", "llama-3-70b", "--layers", "40", "--heads", "32", "--capacity", "--json")
	var doc struct {
		Capacity struct {
			Model         string `json:"model"`
			ModelModified string `json:"model_modified"`
		} `json:"capacity"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Capacity.ModelModified != "layers 40, heads 32" || doc.Capacity.Model != "llama-3-70b" {
		t.Errorf("capacity JSON %+v (%v)", doc.Capacity, err)
	}
	_, out, _ = runArgs(t, "export", "--model", "llama-3-70b", "--layers", "40", "--markdown", "-")
	if !strings.Contains(out, "llama-3-70b (modified: layers 40; ") {
		t.Errorf("markdown lacks the modified title")
	}
	_, out, _ = runArgs(t, "report", "--model", "llama-3-70b", "--layers", "80")
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "llama-3-70b (80 layers, ") {
		t.Errorf("the preset's own size is the preset: %q", first)
	}
}
