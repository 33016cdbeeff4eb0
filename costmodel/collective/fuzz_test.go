package collective

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// FuzzTime drives every input of Time, TimeProto, Explain and the engine: never a panic, never
// NaN, Inf or a negative time, and Explain, when it applies, sums to Time.
func FuzzTime(f *testing.F) {
	f.Add(uint8(0), 1048576.0, 8, 1, uint8(0), 300e9, 3e-6, 0.8, true, 25e9, 5e-6, 0.85, 8, uint8(0), false, uint8(0), 0.0, uint8(3))
	f.Add(uint8(4), 8.0, 16, 2, uint8(5), 64e9, 1e-6, 0.73, false, 50e9, 14e-6, 0.95, 32, uint8(3), true, uint8(2), 75e-6, uint8(1))
	f.Add(uint8(5), 1e12, 2, 2, uint8(1), 31e9, 1.75e-6, 0.8, false, 12.5e9, 6e-6, 0.8, 1, uint8(6), false, uint8(1), 35e-6, uint8(2))
	f.Fuzz(func(t *testing.T, op uint8, bytes float64, ranks, nodes int, kind uint8, bw, lat, eff float64, nvls bool,
		nbw, nlat, neff float64, nics int, algo uint8, simpleOnly bool, path uint8, plugin float64, proto uint8) {
		intra := model.Link{Kind: model.LinkKind(kind % 6), Bandwidth: bw, Latency: lat, Efficiency: eff, NVLS: nvls,
			NVLSMinRanks: 2 + int(kind%7), NVLSEfficiency: eff, PCIePath: model.PCIePath(path % 4), Staged: path%2 == 1,
			MeshLinks: int(path % 8)}
		inter := model.Link{Kind: model.RoCE, Bandwidth: nbw, Latency: nlat, Efficiency: neff, SimpleOnly: simpleOnly,
			PluginLatency: plugin}
		fab := Fabric{Intra: intra, Inter: inter, NICs: nics}
		g := Group{Ranks: ranks % 100000, Nodes: nodes % 10000}
		o, a := Op(op%6), Algo(algo%uint8(TwoShot+1))
		rs := []Result{Time(o, bytes, g, fab, a), TimeEngine(o, bytes, g, fab)}
		if p := Proto(proto % 4); p <= Simple {
			rs = append(rs, TimeProto(o, bytes, g, fab, a, p))
		}
		for _, r := range rs {
			if math.IsNaN(r.Seconds) || math.IsInf(r.Seconds, 0) || r.Seconds < 0 {
				t.Fatalf("Time(%v, %g, %+v, %+v, %v) = %+v", o, bytes, g, fab, a, r)
			}
			if e, ok := Explain(o, bytes, g, fab, r); ok && r.Seconds > 0 && !e.Matches(r) {
				t.Fatalf("Explain = %g s, Time %g s (%v/%v)", e.Seconds, r.Seconds, r.Algo, r.Proto)
			}
		}
	})
}
