package static

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// The formula of each algorithm, written with the collective model's numbers: the symbols of the
// algorithm, the terms Explain gives, and the model's time at the end.
func TestFormula(t *testing.T) {
	nv3 := model.Link{ID: "nvlink3", Kind: model.NVLink, Bandwidth: 300e9, Latency: 3e-6, Efficiency: 0.80, LLBandwidth: 23.6e9}
	nv4 := model.Link{ID: "nvlink4", Kind: model.NVLink, Bandwidth: 450e9, Latency: 3e-6, Efficiency: 0.80,
		NVLS: true, NVLSMinRanks: 5, NVLSEfficiency: 0.603}
	ib := model.Link{ID: "ib", Kind: model.InfiniBand, Bandwidth: 50e9, Latency: 5e-6, Efficiency: 0.85}
	fab := func(l model.Link) collective.Fabric { return collective.Fabric{Intra: l, Inter: ib, NICs: 8} }
	g8 := collective.Group{Ranks: 8, Nodes: 1}
	cases := []struct {
		name   string
		bytes  float64
		g      collective.Group
		f      collective.Fabric
		engine bool
		want   []string
	}{
		{"ring LL", 8192, g8, fab(nv3), false, []string{"ring/LL", "2(t−1)·α + 2(t−1)/t·S/B_LL", "14·3.00 µs + 1.75·8.19 kB / 23.6 GB/s"}},
		{"ring Simple", 64 << 20, g8, fab(nv3), false, []string{"ring/Simple", "2(t−1)·h + 2(t−1)/t·S/(B·r)", "14·1.18 µs + 1.75·67.1 MB / (240 GB/s × 0.758)"}},
		{"Simple floor", 1 << 20, g8, fab(nv3), false, []string{"max(14·s, ", "max(14·7.26 µs, "}},
		{"NVLS", 64 << 20, g8, fab(nv4), false, []string{"NVLS/Simple", "L + S/(B·η)", "89.8 µs + 67.1 MB / (450 GB/s × 0.603)"}},
		{"one-shot", 8192, g8, fab(nv4), true, []string{"one-shot", "launch + (t−1)·S/B", "6.00 µs + 7·8.19 kB / 360 GB/s"}},
		{"two-shot", 4 << 20, g8, fab(nv4), true, []string{"two-shot", "2·launch + 2(t−1)/t·S/B", "12.0 µs + 1.75·4.19 MB / 360 GB/s"}},
		{"tree", 64 << 10, collective.Group{Ranks: 64, Nodes: 8}, fab(nv3), false, []string{"tree/LL", "2(l−1)·α + 2⌈log2 N⌉·α_net + S/B_tree", "14·3.00 µs + 6·5.00 µs + 65.5 kB"}},
		{"NVLS+tree", 64 << 20, collective.Group{Ranks: 16, Nodes: 2}, fab(nv4), false, []string{"NVLS+tree/Simple", "L + 2⌈log2 N⌉·s_net + S/(B·p)", "+ 2·14.0 µs +"}},
		{"ring across nodes", 64 << 20, collective.Group{Ranks: 16, Nodes: 2}, fab(nv3), false, []string{"2(t−N)·h + 2(N−1)·h_net", "28·1.18 µs + 2·14.0 µs"}},
	}
	for _, tc := range cases {
		r := collective.Time(collective.AllReduce, tc.bytes, tc.g, tc.f, collective.Auto)
		if tc.engine {
			r = collective.TimeEngine(collective.AllReduce, tc.bytes, tc.g, tc.f)
		}
		e, ok := collective.Explain(collective.AllReduce, tc.bytes, tc.g, tc.f, r)
		if !ok {
			t.Fatalf("%s: no explanation of %s/%s", tc.name, r.Algo, r.Proto)
		}
		f := Formula(e)
		all := f.Name + " | " + f.Symbols + " | " + f.Numbers
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: %q lacks %q", tc.name, all, w)
			}
		}
		if f.Result != Seconds(r.Seconds) || f.Gist == "" || f.GistShort == "" || f.Compact == "" {
			t.Errorf("%s: result %q (model %s), gist %q/%q, compact %q", tc.name, f.Result, Seconds(r.Seconds), f.Gist, f.GistShort, f.Compact)
		}
	}
	if AlgoProto(collective.NVLS, collective.Simple) != "NVLS/Simple" || AlgoProto(collective.OneShot, collective.Simple) != "one-shot" ||
		AlgoProto(collective.Ring, collective.LL) != "ring/LL" || AlgoName(collective.NVLSTree) != "NVLS+tree" {
		t.Error("names")
	}
}
