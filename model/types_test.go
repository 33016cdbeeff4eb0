package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParseEnumsRoundTrip(t *testing.T) {
	// names are the spellings the Parse* doc comments promise, in constant order.
	cases := []struct {
		field string
		names []string
		str   func(i int) string
		parse func(s string) (int, error)
	}{
		{"precision", []string{"bf16", "fp16", "fp8", "fp32"},
			func(i int) string { return Precision(i).String() },
			func(s string) (int, error) { v, err := ParsePrecision(s); return int(v), err }},
		{"mode", []string{"train", "infer"},
			func(i int) string { return Mode(i).String() },
			func(s string) (int, error) { v, err := ParseMode(s); return int(v), err }},
		{"schedule", []string{"1f1b", "gpipe", "interleaved", "zb-h1", "zb-v", "dualpipe", "dualpipev"},
			func(i int) string { return Schedule(i).String() },
			func(s string) (int, error) { v, err := ParseSchedule(s); return int(v), err }},
		{"recompute", []string{"none", "selective", "full"},
			func(i int) string { return Recompute(i).String() },
			func(s string) (int, error) { v, err := ParseRecompute(s); return int(v), err }},
		{"kind", []string{"nvlink", "pcie", "infiniband", "roce", "ethernet", "xgmi"},
			func(i int) string { return LinkKind(i).String() },
			func(s string) (int, error) { v, err := ParseLinkKind(s); return int(v), err }},
		{"pcie_path", []string{"switch", "host", "socket"},
			func(i int) string { return PCIePath(i).String() },
			func(s string) (int, error) { v, err := ParsePCIePath(s); return int(v), err }},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			for i, name := range tc.names {
				if got := tc.str(i); got != name {
					t.Errorf("value %d prints %q, want %q", i, got, name)
				}
				for _, in := range []string{name, strings.ToUpper(name), "  " + name + " "} {
					v, err := tc.parse(in)
					if err != nil || v != i {
						t.Errorf("parse %q = %d, %v; want %d", in, v, err, i)
					}
				}
			}
			if got, want := tc.str(len(tc.names)), fmt.Sprintf("unknown(%d)", len(tc.names)); got != want {
				t.Errorf("out of range prints %q, want %q", got, want)
			}
			if got := tc.str(-1); got != "unknown(-1)" {
				t.Errorf("-1 prints %q", got)
			}
			for _, bad := range []string{"", "bogus", tc.names[0] + "x"} {
				_, err := tc.parse(bad)
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("parse %q: want a *FieldError, got %v", bad, err)
				}
				if fe.Field != tc.field || fe.Value != bad {
					t.Errorf("parse %q: field %q value %v, want %q and %q", bad, fe.Field, fe.Value, tc.field, bad)
				}
				for _, n := range tc.names {
					if !strings.Contains(fe.Allowed, n) {
						t.Errorf("parse %q: allowed %q does not list %q", bad, fe.Allowed, n)
					}
				}
				if !strings.HasPrefix(fe.Error(), tc.field+" = "+bad+": ") {
					t.Errorf("message %q does not start with the field and value", fe.Error())
				}
			}
		})
	}
}

func TestPrecisionBytes(t *testing.T) {
	for _, tc := range []struct {
		p    Precision
		want float64
	}{{BF16, 2}, {FP16, 2}, {FP8, 1}, {FP32, 4}} {
		if got := tc.p.Bytes(); got != tc.want {
			t.Errorf("%s: %v bytes, want %v", tc.p, got, tc.want)
		}
	}
}

func TestArchHelpers(t *testing.T) {
	cases := []struct {
		name                string
		a                   Arch
		headDim, matrices   float64
		experts, activeExps int
	}{
		{"dense gated", Arch{Hidden: 4096, Heads: 32, GatedMLP: true}, 128, 3, 1, 1},
		{"dense gelu", Arch{Hidden: 12288, Heads: 96}, 128, 2, 1, 1},
		{"moe top-2 of 8", Arch{Hidden: 4096, Heads: 32, Experts: 8, TopK: 2, GatedMLP: true}, 128, 3, 8, 2},
		{"one expert is dense", Arch{Hidden: 64, Heads: 4, Experts: 1, TopK: 4}, 16, 2, 1, 1},
		{"top-k clamped to experts", Arch{Hidden: 64, Heads: 4, Experts: 4, TopK: 9}, 16, 2, 4, 4},
		{"top-k 0 runs one", Arch{Hidden: 64, Heads: 4, Experts: 4}, 16, 2, 4, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.HeadDim(); got != tc.headDim {
				t.Errorf("HeadDim %v, want %v", got, tc.headDim)
			}
			if got := tc.a.MLPMatrices(); got != tc.matrices {
				t.Errorf("MLPMatrices %v, want %v", got, tc.matrices)
			}
			if got := tc.a.ExpertCount(); got != tc.experts {
				t.Errorf("ExpertCount %v, want %v", got, tc.experts)
			}
			if got := tc.a.ActiveExperts(); got != tc.activeExps {
				t.Errorf("ActiveExperts %v, want %v", got, tc.activeExps)
			}
		})
	}
}

func TestClusterNodes(t *testing.T) {
	cases := []struct {
		gpus, gpn, nodes, size int
	}{
		{16, 8, 2, 8},
		{8, 8, 1, 8},
		{4, 8, 1, 4}, // part of one node: the job uses 4 of its GPUs
		{1, 8, 1, 1},
		{17, 8, 3, 8}, // rounds up (Validate rejects it, the helper still answers)
		{3072, 8, 384, 8},
		{0, 8, 0, 1}, // NodeSize is at least 1
		{16, 0, 0, 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d_of_%d", tc.gpus, tc.gpn), func(t *testing.T) {
			c := Cluster{GPUs: tc.gpus, GPUsPerNode: tc.gpn}
			if got := c.Nodes(); got != tc.nodes {
				t.Errorf("Nodes = %d, want %d", got, tc.nodes)
			}
			if got := c.NodeSize(); got != tc.size {
				t.Errorf("NodeSize = %d, want %d", got, tc.size)
			}
		})
	}
}

func TestHardwareHelpers(t *testing.T) {
	l := Link{Bandwidth: 450e9, Efficiency: 0.74}
	if got, want := l.EffBandwidth(), 333e9; math.Abs(got-want) > 1 {
		t.Errorf("EffBandwidth %v, want %v", got, want)
	}
	g := GPU{PeakBF16: 1, PeakFP16: 2, PeakFP8: 3, PeakFP32: 4}
	for _, tc := range []struct {
		p    Precision
		want float64
	}{{BF16, 1}, {FP16, 2}, {FP8, 3}, {FP32, 4}} {
		if got := g.Peak(tc.p); got != tc.want {
			t.Errorf("Peak(%s) = %v, want %v", tc.p, got, tc.want)
		}
	}
	g.PeakFP8 = 0 // no FP8 tensor cores: runs at the BF16 rate
	if got := g.Peak(FP8); got != 1 {
		t.Errorf("Peak(fp8) without FP8 = %v, want the BF16 rate 1", got)
	}
}

func TestTensorCores(t *testing.T) {
	// V100: FP16 on tensor cores, BF16 only at the FP32 rate, no FP8.
	v100 := GPU{PeakBF16: 15.7e12, PeakFP16: 125e12, PeakFP32: 15.7e12}
	h100 := GPU{PeakBF16: 989e12, PeakFP16: 989e12, PeakFP8: 1979e12, PeakFP32: 67e12}
	for _, tc := range []struct {
		name string
		g    GPU
		want map[Precision]bool
	}{
		{"v100", v100, map[Precision]bool{BF16: false, FP16: true, FP8: false, FP32: false}},
		{"h100", h100, map[Precision]bool{BF16: true, FP16: true, FP8: true, FP32: false}},
	} {
		for p, want := range tc.want {
			if got := tc.g.TensorCores(p); got != want {
				t.Errorf("%s: TensorCores(%s) = %v, want %v", tc.name, p, got, want)
			}
		}
	}
}

func TestScenarioDerived(t *testing.T) {
	cases := []struct {
		name               string
		w                  Workload
		l                  Layout
		gpus, units, micro int
		tokensPerSeq       int
	}{
		// 64 sequences over micro-batches of 2 and DP 4: m = 64 / 8 = 8.
		{"train", Workload{Mode: Train, Seq: 4096, GlobalBatch: 64, Requests: 5}, Layout{TP: 2, PP: 2, DP: 4, MicroBatch: 2}, 16, 64, 8, 4096},
		// Inference splits the concurrent requests: 32 / (1 · 2) = 16 groups per replica; a
		// sequence is prompt + generated tokens.
		{"infer", Workload{Mode: Infer, Seq: 4096, GlobalBatch: 64, PromptTokens: 1000, GenTokens: 24, Requests: 32},
			Layout{TP: 8, PP: 1, DP: 2, MicroBatch: 1}, 16, 32, 16, 1024},
		{"zero micro-batch", Workload{Mode: Train, Seq: 1, GlobalBatch: 8}, Layout{TP: 1, PP: 1, DP: 1}, 1, 8, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Scenario{Workload: tc.w, Layout: tc.l}
			if got := s.Layout.GPUs(); got != tc.gpus {
				t.Errorf("GPUs %d, want %d", got, tc.gpus)
			}
			if got := s.BatchUnits(); got != tc.units {
				t.Errorf("BatchUnits %d, want %d", got, tc.units)
			}
			if got := s.MicroBatches(); got != tc.micro {
				t.Errorf("MicroBatches %d, want %d", got, tc.micro)
			}
			if got := s.TokensPerSequence(); got != tc.tokensPerSeq {
				t.Errorf("TokensPerSequence %d, want %d", got, tc.tokensPerSeq)
			}
		})
	}
}

// A PCIe path reads and writes as its name in JSON; an out-of-range one does not write.
func TestPCIePathJSON(t *testing.T) {
	l := Link{ID: "pcie5-sys", Kind: PCIe, PCIePath: PathSocket}
	b, err := json.Marshal(l)
	if err != nil || !strings.Contains(string(b), `"pcie_path":"socket"`) {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	var back Link
	if err := json.Unmarshal(b, &back); err != nil || back.PCIePath != PathSocket {
		t.Errorf("unmarshal: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"pcie_path":"bus"}`), &back); err == nil || !strings.Contains(err.Error(), "switch, host, socket") {
		t.Errorf("bad path: %v", err)
	}
	if _, err := json.Marshal(Link{PCIePath: 7}); err == nil {
		t.Error("path 7 marshalled")
	}
	// A switch, the zero value, is left out.
	if b, _ := json.Marshal(Link{ID: "pcie5", Kind: PCIe}); strings.Contains(string(b), "pcie_path") {
		t.Errorf("a switch path written: %s", b)
	}
}

// A cluster's GPUs without peer-to-peer stage their PCIe link through host memory; NVLink and
// XGMI are not staged whatever the GPU says.
func TestClusterIntraLink(t *testing.T) {
	pcie := Link{ID: "pcie4", Kind: PCIe, Bandwidth: 31e9}
	for _, c := range []struct {
		noP2P bool
		link  Link
		want  bool
	}{
		{false, pcie, false},
		{true, pcie, true},
		{true, Link{ID: "nvlink3", Kind: NVLink}, false},
		{true, Link{ID: "xgmi", Kind: XGMI, MeshLinks: 7}, false},
		{false, Link{ID: "pcie4-nop2p", Kind: PCIe, Staged: true}, true},
	} {
		cl := Cluster{GPU: GPU{ID: "g", NoP2P: c.noP2P}, Intra: c.link}
		if got := cl.IntraLink(); got.Staged != c.want || got.ID != c.link.ID || got.Bandwidth != c.link.Bandwidth {
			t.Errorf("no P2P %v on %s: staged %v, want %v", c.noP2P, c.link.ID, got.Staged, c.want)
		}
		if cl.Intra.Staged != c.link.Staged {
			t.Errorf("IntraLink changed the cluster's own link")
		}
	}
}
