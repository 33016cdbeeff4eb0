package costmodel

import (
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// archByID is the preset model id, or fails the test.
func archByID(t testing.TB, id string) model.Arch {
	t.Helper()
	a, err := presets(t).Model(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// archID is a's id, "" for nil.
func archID(a *model.Arch) string {
	if a == nil {
		return ""
	}
	return a.ID
}

func TestCapacity(t *testing.T) {
	all := presets(t).Models
	for _, tc := range []struct {
		name                 string
		s                    func(t testing.TB) model.Scenario
		bestFits             bool
		wantInfer, wantTrain string // the largest presets that fit; "" none
		// inferFits and inferNotFits are models that must (not) fit inference on their own.
		inferFits, inferNotFits []string
	}{
		{
			name: "8× h100-sxm nvlink4, llama-3-70b",
			s: func(t testing.TB) model.Scenario {
				s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
				s.Workload.Mode = model.Infer
				return s
			},
			bestFits: true,
			// bf16 weights: Qwen3-235B-A22B's 235B × 2 B = 470 GB fits 8 × 79.6 GiB, 405B × 2 B =
			// 810 GB does not (175B fits too; the largest that fits is the 235B).
			// Training with the optimizer and weights offloaded to the host (18 B/parameter
			// there, 256 GiB per GPU): gpt-oss-120b's 116.8B (263 GB a GPU) fits, 175B (394 GB)
			// does not.
			wantInfer: "qwen3-235b-a22b", wantTrain: "gpt-oss-120b",
			inferFits: []string{"llama-3-70b", "llama-2-70b", "qwen2.5-72b"},
		},
		{
			name: "1× rtx-4090",
			s: func(t testing.TB) model.Scenario {
				s := scenario(t, "llama-2-7b", "rtx-4090", "pcie4", 1, 1, 1)
				s.Cluster.GPUsPerNode, s.Cluster.NICsPerNode = 1, 1
				return s
			},
			// 8.0B × 2 B = 16 GB fits 24 GiB, 13B × 2 B = 26 GB does not; gpt-oss-20b's 20.9B
			// fit with its checkpoint's mxfp4 experts (19.1B at 4.25 bits and 1.8B in bf16: 14 GB).
			// Training: AdamW's 18 B/parameter rules out every preset on the GPU alone; with the
			// optimizer and the weights on the host, the GPU keeps the 16-bit gradients: 16 GB
			// for 8.0B.
			wantInfer: "gpt-oss-20b", wantTrain: "llama-3-8b",
			inferFits:    []string{"llama-2-7b"},
			inferNotFits: []string{"llama-2-70b", "llama-3-70b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.s(t)
			res := Capacity(base, all, SearchOptions{})
			if tc.bestFits && (res.Best == nil || !res.Best.Feasible) {
				t.Errorf("no best layout for %s", base.Arch.ID)
			}
			if got := archID(res.LargestInfer); got != tc.wantInfer {
				t.Errorf("largest for inference %q, want %q", got, tc.wantInfer)
			}
			if got := archID(res.LargestTrain); got != tc.wantTrain {
				t.Errorf("largest for training %q, want %q", got, tc.wantTrain)
			}
			if res.Best != nil && !res.Best.Feasible {
				t.Errorf("best layout is infeasible: %+v", res.Best)
			}
			// The largest model found fits, and every larger preset does not.
			for _, side := range []struct {
				mode   model.Mode
				arch   *model.Arch
				layout *Candidate
			}{{model.Infer, res.LargestInfer, res.LargestInferLayout}, {model.Train, res.LargestTrain, res.LargestTrainLayout}} {
				if (side.arch == nil) != (side.layout == nil) {
					t.Fatalf("%s: arch %v with layout %v", side.mode, side.arch, side.layout)
				}
				if side.arch != nil && !side.layout.Feasible {
					t.Errorf("%s: %s's layout is infeasible", side.mode, side.arch.ID)
				}
				for _, a := range all {
					if side.arch != nil && arch.Of(a).Params() <= arch.Of(*side.arch).Params() {
						continue
					}
					s := base
					s.Arch, s.Workload.Mode = a, side.mode
					if res, err := Search(s, SearchOptions{}); err == nil && res.Feasible > 0 {
						t.Errorf("%s: %s (%.0fB) fits but the largest found is %q", side.mode, a.ID, arch.Of(a).Params()/1e9, archID(side.arch))
					}
				}
			}
			for _, id := range tc.inferFits {
				r := Capacity(base, []model.Arch{archByID(t, id)}, SearchOptions{})
				if archID(r.LargestInfer) != id {
					t.Errorf("%s does not fit inference (largest: %q)", id, archID(r.LargestInfer))
				}
			}
			for _, id := range tc.inferNotFits {
				r := Capacity(base, []model.Arch{archByID(t, id)}, SearchOptions{})
				if r.LargestInfer != nil {
					t.Errorf("%s fits inference: %+v", id, r.LargestInferLayout.Layout)
				}
			}
			t.Logf("best %v; infer %q; train %q", res.Best != nil, archID(res.LargestInfer), archID(res.LargestTrain))
		})
	}
}

func TestCapacityRTX4090(t *testing.T) {
	s := scenario(t, "llama-2-7b", "rtx-4090", "pcie4", 1, 1, 1)
	s.Cluster.GPUsPerNode, s.Cluster.NICsPerNode = 1, 1
	s.Workload.Mode = model.Infer
	res := Capacity(s, presets(t).Models, SearchOptions{})
	if res.Best == nil {
		t.Fatal("llama-2-7b in bf16 does not fit inference on one RTX 4090")
	}
	if got := res.Best.Report.Memory; got.Total > got.Capacity || got.Capacity > 24*model.GiB {
		t.Errorf("memory %v of %v", got.Total, got.Capacity)
	}
	// gpt-oss-20b's 20.9B fit with mxfp4 experts (14 GB); nothing of 25B or more does.
	if res.LargestInfer == nil || arch.Of(*res.LargestInfer).Params() >= 25e9 {
		t.Errorf("largest inference model on 24 GiB: %q", archID(res.LargestInfer))
	}
	// With offload the GPU still holds the 16-bit gradients: 8B's 16 GB fit 24 GiB, 13B's 26 GB
	// do not.
	if res.LargestTrain == nil || arch.Of(*res.LargestTrain).Params() > 10e9 {
		t.Errorf("largest training model on one 24 GiB GPU with offload: %q", archID(res.LargestTrain))
	} else if off := res.LargestTrainLayout.Layout.Offload; off == model.OffloadNone {
		t.Errorf("%s trains on one 24 GiB GPU without offload", res.LargestTrain.ID)
	}
}

func TestCapacityEmpty(t *testing.T) {
	s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 8, 1)
	res := Capacity(s, nil, SearchOptions{})
	if res.Best == nil || res.LargestInfer != nil || res.LargestTrain != nil {
		t.Errorf("no models: %+v", res)
	}
	// An invalid base gives no layout, not a panic.
	s.Workload.Seq = 0
	if res := Capacity(s, presets(t).Models[:2], SearchOptions{}); res.Best != nil {
		t.Errorf("invalid base has a best layout")
	}
}

// BenchmarkCapacity12Models8GPU is the verdict probe and report --capacity compute: 12 presets
// on 8× H100 in training (most models do not fit training there, so most are searched).
func BenchmarkCapacity12Models8GPU(b *testing.B) {
	s := scenario(b, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	models := presets(b).Models
	b.ReportAllocs()
	for b.Loop() {
		if res := Capacity(s, models, SearchOptions{}); res.LargestInfer == nil {
			b.Fatal("nothing fits")
		}
	}
}

// TestCapacityOffloadCost: on 8 H100s llama-3-70b trains only with offload, which the result
// separates from what fits on the GPUs alone; with 64 GiB of host memory a node (8 a GPU) no
// offload fits, and HostShort says what the fastest offloaded layout would need.
func TestCapacityOffloadCost(t *testing.T) {
	all := presets(t).Models
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Workload.Mode = model.Train
	res := Capacity(s, all, SearchOptions{})
	if res.Best == nil || res.Best.Layout.Offload == model.OffloadNone {
		t.Fatalf("best: %+v, want a layout that offloads", res.Best)
	}
	if res.BestOnGPUs != nil || res.OnGPUs() != nil {
		t.Errorf("llama-3-70b said to train on 8 H100s without offload: %+v", res.BestOnGPUs.Layout)
	}
	need := HostNeed(*res.Best)
	if !(need > 0 && need <= res.HostPerGPU) || !res.HostDefault || res.HostPerGPU != model.DefaultHostMemoryPerGPU {
		t.Errorf("host need %v of %v (default %v)", need, res.HostPerGPU, res.HostDefault)
	}
	if res.HostShort != nil {
		t.Errorf("HostShort set while a layout fits")
	}
	// The largest on the GPUs alone is smaller than the largest with offload, and offloads nothing.
	ga, gc := res.TrainOnGPUs()
	if ga == nil || gc == nil || gc.Layout.Offload != model.OffloadNone || !(arch.Of(*ga).Params() < arch.Of(*res.LargestTrain).Params()) {
		t.Errorf("largest on the GPUs %s (%+v), with offload %s", archID(ga), gc, archID(res.LargestTrain))
	}
	if res.LargestTrainLayout.Layout.Offload == model.OffloadNone {
		t.Errorf("largest with offload %s needs none", archID(res.LargestTrain))
	}

	// 64 GiB a node: 8 GiB a GPU.
	s.Cluster.HostMemoryBytes = 64 * model.GiB
	small := Capacity(s, all, SearchOptions{})
	if small.Best != nil {
		t.Errorf("fits with 8 GiB of host memory a GPU: %+v, host %v", small.Best.Layout, HostNeed(*small.Best))
	}
	if small.HostShort == nil || !(HostNeed(*small.HostShort) > 8*model.GiB) || small.HostShort.Layout.Offload == model.OffloadNone {
		t.Fatalf("HostShort %+v", small.HostShort)
	}
	if small.HostDefault || small.HostPerGPU != 8*model.GiB {
		t.Errorf("host per GPU %v (default %v), want 8 GiB from the cluster", small.HostPerGPU, small.HostDefault)
	}
	if small.LargestTrain != nil && small.LargestTrainLayout.Layout.Offload != model.OffloadNone &&
		HostNeed(*small.LargestTrainLayout) > small.HostPerGPU {
		t.Errorf("largest for training %s needs %v host memory of %v", archID(small.LargestTrain), HostNeed(*small.LargestTrainLayout), small.HostPerGPU)
	}
}
