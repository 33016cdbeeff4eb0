package collective_test

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// hardwareKinds are the boxes a forced setting is tried on: an NVSwitch node, PCIe GPUs with
// peer-to-peer, GeForce cards without it, two PCIe GPUs, an NVLink node without NVLink SHARP,
// an XGMI mesh, and NVSwitch nodes across a network (one of which runs Simple only).
func hardwareKinds(t *testing.T) map[string]struct {
	g collective.Group
	f collective.Fabric
} {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	fab := func(gpu, intra, inter string, nics int) collective.Fabric {
		g, err := p.GPU(gpu)
		if err != nil {
			t.Fatal(err)
		}
		c := model.Cluster{GPU: g}
		if c.Intra, err = p.Link(intra); err != nil {
			t.Fatal(err)
		}
		if inter != "" {
			if c.Inter, err = p.Link(inter); err != nil {
				t.Fatal(err)
			}
		}
		c.NICsPerNode = nics
		return collective.FabricOf(c)
	}
	simpleOnly := fab("h100-sxm", "nvlink4", "ib-ndr", 8)
	simpleOnly.Inter.SimpleOnly = true
	return map[string]struct {
		g collective.Group
		f collective.Fabric
	}{
		"8 h100 nvswitch":      {collective.Group{Ranks: 8, Nodes: 1}, fab("h100-sxm", "nvlink4", "", 0)},
		"8 l40s pcie p2p":      {collective.Group{Ranks: 8, Nodes: 1}, fab("l40s", "pcie4", "", 0)},
		"2 l40s pcie p2p":      {collective.Group{Ranks: 2, Nodes: 1}, fab("l40s", "pcie4", "", 0)},
		"4 rtx-4090 no p2p":    {collective.Group{Ranks: 4, Nodes: 1}, fab("rtx-4090", "pcie4", "", 0)},
		"8 a100 nvlink3":       {collective.Group{Ranks: 8, Nodes: 1}, fab("a100-sxm-80gb", "nvlink3", "", 0)},
		"2 h100 nvswitch":      {collective.Group{Ranks: 2, Nodes: 1}, fab("h100-sxm", "nvlink4", "", 0)},
		"16 h100 2 nodes":      {collective.Group{Ranks: 16, Nodes: 2}, fab("h100-sxm", "nvlink4", "ib-ndr", 8)},
		"32 h100 4 nodes":      {collective.Group{Ranks: 32, Nodes: 4}, fab("h100-sxm", "nvlink4", "ib-ndr", 8)},
		"16 h100 simple-only":  {collective.Group{Ranks: 16, Nodes: 2}, simpleOnly},
		"16 l40s 2 pcie nodes": {collective.Group{Ranks: 16, Nodes: 2}, fab("l40s", "pcie4", "ib-ndr", 2)},
	}
}

// Every forced algorithm and protocol × hardware kind × operation × size: TimeForced says it
// ran exactly when Unavailable has no reason; what ran is then what was forced; and where it did
// not run, the reason is one of the rules (names the hardware's fact), not the catch-all.
func TestForcedSettingsRunOrSayWhy(t *testing.T) {
	sizes := []float64{8, 64 << 10, 4 << 20, 8 << 20, 1 << 30}
	for name, hw := range hardwareKinds(t) {
		for _, op := range collective.Ops() {
			for _, algo := range collective.Algos() {
				for _, proto := range append([]collective.Proto{collective.AnyProto}, collective.Protos()...) {
					for _, b := range sizes {
						r, ok := collective.TimeForced(op, b, hw.g, hw.f, algo, proto)
						why := collective.Unavailable(op, b, hw.g, hw.f, algo, proto)
						label := name + " " + op.String() + " " + algo.String() + "/" + proto.String()
						if ok != (why == "") {
							t.Fatalf("%s at %.0f B: ran %v but reason %q", label, b, ok, why)
						}
						if !(r.Seconds > 0) {
							t.Fatalf("%s at %.0f B: %v s", label, b, r.Seconds)
						}
						if ok {
							if (algo != collective.Auto && r.Algo != algo) || (proto != collective.AnyProto && r.Proto != proto) {
								t.Fatalf("%s at %.0f B: said it ran, ran %s/%s", label, b, r.Algo, r.Proto)
							}
							continue
						}
						if strings.HasPrefix(why, "NCCL has no") {
							t.Errorf("%s at %.0f B: no rule says why: %q", label, b, why)
						}
					}
				}
			}
		}
	}
}

// The cases of the issue: NVLS on PCIe L40S and one-shot without peer-to-peer are refused with
// the hardware's reason; one-shot on NVSwitch runs below 8 MiB only.
func TestForcedReasons(t *testing.T) {
	hw := hardwareKinds(t)
	for _, tc := range []struct {
		kind  string
		algo  collective.Algo
		proto collective.Proto
		bytes float64
		want  string // "" runs
	}{
		{"8 l40s pcie p2p", collective.NVLS, collective.AnyProto, 1 << 20, "NVSwitch"},
		{"8 l40s pcie p2p", collective.NVLS, collective.AnyProto, 1 << 20, "pcie4"},
		{"4 rtx-4090 no p2p", collective.OneShot, collective.AnyProto, 4096, "peer-to-peer"},
		{"8 l40s pcie p2p", collective.OneShot, collective.AnyProto, 4096, "NVLink"},
		{"2 l40s pcie p2p", collective.OneShot, collective.AnyProto, 4096, ""},
		{"8 h100 nvswitch", collective.OneShot, collective.AnyProto, 4096, ""},
		{"8 h100 nvswitch", collective.OneShot, collective.AnyProto, 8 << 20, "8 MiB"},
		{"8 h100 nvswitch", collective.Tree, collective.AnyProto, 4096, "one node"},
		{"16 h100 2 nodes", collective.NVLS, collective.AnyProto, 4096, "nvls-tree"},
		{"16 h100 2 nodes", collective.NVLSTree, collective.AnyProto, 1 << 20, ""},
		{"8 l40s pcie p2p", collective.Auto, collective.LL128, 4096, "LL128"},
		{"8 h100 nvswitch", collective.Auto, collective.LL128, 4096, ""},
		{"16 h100 simple-only", collective.Ring, collective.LL, 4096, "Simple only"},
	} {
		h := hw[tc.kind]
		why := collective.Unavailable(collective.AllReduce, tc.bytes, h.g, h.f, tc.algo, tc.proto)
		if tc.want == "" && why != "" || tc.want != "" && !strings.Contains(why, tc.want) {
			t.Errorf("%s %s/%s at %.0f B: reason %q, want one with %q", tc.kind, tc.algo, tc.proto, tc.bytes, why, tc.want)
		}
	}
}
