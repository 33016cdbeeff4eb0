package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b), 1e-12) }

// TestOffloadOracle: what each offload mode keeps on the GPU and the host, and what it costs,
// by its formula on llama-3-70b over 8 H100s (TP 8, one stage):
//   - optimizer: the GPU keeps 2 B of weights and 2 B of gradients a parameter, no optimizer
//     state; the host 16 B (master, moments, fp32 gradients), halved by ZeRO 1 over DP 2; the
//     step is the node's CPU-Adam over its GPUs' shards plus the weights' return over PCIe;
//   - activations: the host holds what the GPU held for the backward, the GPU two layers; the
//     stream is 2·m·(one micro-batch's activations) over PCIe, exposed where the busy time
//     does not hide it.
func TestOffloadOracle(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Workload.GlobalBatch = 16
	s.Layout.Recompute = model.RecomputeFull
	base := eval(t, s)
	st0 := base.Detail.Stages[0]
	params := st0.ParamsOnGPU
	bw := s.Cluster.GPU.HostBandwidth
	if bw <= 0 {
		t.Fatal("h100-sxm has no host bandwidth")
	}

	s.Layout.Offload = model.OffloadOptimizer
	r := eval(t, s)
	m := r.Memory
	if !near(m.Weights, 2*params) || !near(m.Gradients, 2*params) || m.Optimizer != 0 || !near(m.Host, 16*params) {
		t.Errorf("optimizer offload: weights %g, gradients %g, optimizer %g, host %g; want %g, %g, 0, %g",
			m.Weights, m.Gradients, m.Optimizer, m.Host, 2*params, 2*params, 16*params)
	}
	// 18 B a parameter become 2 B of weights and 2 B of gradients: 14 B saved.
	if saved := base.Memory.Total - m.Total; !near(saved, 14*params) {
		t.Errorf("optimizer offload saves %g B on the GPU, want 14 B a parameter (%g)", saved, 14*params)
	}
	cpu := params * 8 / cpuAdamParamsPerS
	if want := cpu + 2*params/bw; !near(r.Breakdown.Optimizer, want) {
		t.Errorf("optimizer step %g s, want CPU-Adam %g s + weights back %g s", r.Breakdown.Optimizer, cpu, 2*params/bw)
	}
	if r.StepTime < base.StepTime-base.Breakdown.Optimizer+cpu {
		t.Errorf("offloaded step %g s is faster than its parts", r.StepTime)
	}

	// ZeRO 1 over DP 2 halves the host's share and the CPU's work per GPU.
	s2 := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 1)
	s2.Workload.GlobalBatch = 16
	s2.Layout.Recompute, s2.Layout.ZeRO, s2.Layout.Offload = model.RecomputeFull, 1, model.OffloadOptimizer
	r2 := eval(t, s2)
	if !near(r2.Memory.Host, 8*params) || !near(r2.Breakdown.Optimizer, params/2*8/cpuAdamParamsPerS+params/bw) {
		t.Errorf("ZeRO 1, DP 2: host %g (want %g), optimizer %g s", r2.Memory.Host, 8*params, r2.Breakdown.Optimizer)
	}

	s.Layout.Offload, s.Layout.Recompute = model.OffloadActivations, model.RecomputeNone
	none := s
	none.Layout.Offload = model.OffloadNone
	rn := eval(t, none)
	ra := eval(t, s)
	perLayer := layerActivationBytes(arch.Of(s.Arch).Shapes[0], s.Arch, s.Layout, float64(s.Workload.Seq), 1, s.Workload.Precision)
	if !near(ra.Memory.Host, rn.Detail.Stages[0].LayerActBytes) || !near(ra.Detail.Stages[0].LayerActBytes, min(2*perLayer, rn.Detail.Stages[0].LayerActBytes)) {
		t.Errorf("activations offload: host %g (want %g), GPU layers %g (want %g)", ra.Memory.Host, rn.Detail.Stages[0].LayerActBytes,
			ra.Detail.Stages[0].LayerActBytes, 2*perLayer)
	}
	// Out during the forwards, back during the backwards: each direction hides behind its phase.
	mb := float64(ra.Layout.MicroBatches)
	oneWay := mb * float64(s.Arch.Layers) * perLayer / bw
	st := ra.Detail.Stages[0]
	if want := max(oneWay-mb*st.F, 0) + max(oneWay-mb*(st.B+st.W), 0); !near(ra.Breakdown.Offload, want) {
		t.Errorf("activations stream: exposed %g s, want %g s (each way %g s, forwards %g s)", ra.Breakdown.Offload, want, oneWay, mb*st.F)
	}
	// A large micro-batch on a slow host link: the forwards cannot hide the way out.
	slow := s
	slow.Cluster.GPU.HostBandwidth = bw / 20
	if rs := eval(t, slow); rs.Breakdown.Offload <= 0 || rs.StepTime <= ra.StepTime {
		t.Errorf("a 20× slower host link hides everything: offload %g s, step %g s against %g s", rs.Breakdown.Offload, rs.StepTime, ra.StepTime)
	}
	if ra.StepTime < rn.StepTime {
		t.Errorf("offloading activations made the step faster: %g < %g s", ra.StepTime, rn.StepTime)
	}
}

// TestOffloadCombined: optimizer+activations and optimizer+weights+activations keep on the host
// the sum of what each part keeps, and their streams share the PCIe link as a full-duplex link
// does: in the forwards the weights come in while the activations go out (the longer of the
// two), in the backwards both come in (their sum); the optimizer's step is its own.
func TestOffloadCombined(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Workload.GlobalBatch = 16
	with := func(o model.Offload) Report {
		c := s
		c.Layout.Offload = o
		return eval(t, c)
	}
	none, opt, ow, act := with(model.OffloadNone), with(model.OffloadOptimizer), with(model.OffloadOptimizerWeights), with(model.OffloadActivations)
	oa, all := with(model.OffloadOptimizerActivations), with(model.OffloadAll)
	actHost := act.Memory.Host
	if !near(oa.Memory.Host, opt.Memory.Host+actHost) || !near(all.Memory.Host, ow.Memory.Host+actHost) {
		t.Errorf("host: optimizer+activations %g (want %g), all %g (want %g)", oa.Memory.Host, opt.Memory.Host+actHost, all.Memory.Host, ow.Memory.Host+actHost)
	}
	if saved := none.Memory.Total - oa.Memory.Total; !near(saved, (none.Memory.Total-opt.Memory.Total)+(none.Memory.Total-act.Memory.Total)) {
		t.Errorf("optimizer+activations saves %g B, not the sum of its parts", saved)
	}
	if !near(oa.Breakdown.Optimizer, opt.Breakdown.Optimizer) || !near(all.Breakdown.Optimizer, ow.Breakdown.Optimizer) {
		t.Errorf("optimizer step: %g and %g, want %g and %g", oa.Breakdown.Optimizer, all.Breakdown.Optimizer, opt.Breakdown.Optimizer, ow.Breakdown.Optimizer)
	}
	// The streams, by hand: one micro-batch's weights and activations over the link, m times.
	p := newPlan(s)
	p.l.Offload = model.OffloadAll
	st := all.Detail.Stages[0]
	bw := s.Cluster.GPU.HostBandwidth
	mb := float64(all.Layout.MicroBatches)
	ri := p.rankInfos()[0] // one stage: its 16-bit weights stream in for every pass
	weightsStream := mb * ri.params * 2 / bw
	actStream := mb * float64(s.Arch.Layers) * p.layerActBytes()[0] / bw
	fwd, bwd, _ := p.offloadTimes(rankState{weights: ri.params * 2, actMicro: float64(s.Arch.Layers) * p.layerActBytes()[0], hostParams: ri.params})
	if !near(fwd, max(weightsStream, actStream)) || !near(bwd, weightsStream+actStream) {
		t.Errorf("streams: forwards %g s (want %g), backwards %g s (want %g)", fwd, max(weightsStream, actStream), bwd, weightsStream+actStream)
	}
	want := max(fwd-mb*st.F, 0) + max(bwd-mb*(st.B+st.W), 0)
	if !near(all.Breakdown.Offload, want) {
		t.Errorf("exposed offload %g s, want %g s", all.Breakdown.Offload, want)
	}
	for name, r := range map[string]Report{"optimizer+activations": oa, "all": all} {
		if r.StepTime < opt.StepTime*(1-1e-12) {
			t.Errorf("%s: step %g s, faster than the optimizer offload alone (%g s)", name, r.StepTime, opt.StepTime)
		}
	}
}

// TestOffloadHostMemoryBounds: what does not fit the host does not fit.
func TestOffloadHostMemoryBounds(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1)
	s.Layout.Recompute, s.Layout.Offload = model.RecomputeFull, model.OffloadOptimizerWeights
	if r := eval(t, s); !r.Memory.Fits {
		t.Fatalf("70B with the optimizer and weights offloaded does not fit: GPU %g, host %g of %g", r.Memory.Total, r.Memory.Host, r.Memory.HostCapacity)
	}
	s.Cluster.HostMemoryBytes = 512 * model.GiB // 64 GiB a GPU
	if r := eval(t, s); r.Memory.Fits || r.Memory.Total > r.Memory.Capacity {
		t.Errorf("host %g of %g fits", r.Memory.Host, r.Memory.HostCapacity)
	}
}

// TestSPGatherKeep: keeping the sequence-parallel all-gathered inputs of QKV and MLP up costs
// 4·s·b·h·(1 − 1/t) bytes a layer (two 16-bit tensors whole instead of 1/t shards) and saves
// the backward's two re-gathers a layer; under full recompute, or without SP, it does nothing.
func TestSPGatherKeep(t *testing.T) {
	s := scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", 8, 4, 2)
	s.Layout.SequenceParallel = true
	redo := eval(t, s)
	s.Layout.SPGather = model.SPGatherKeep
	keep := eval(t, s)
	a, l := s.Arch, s.Layout
	sbh := float64(s.Workload.Seq) * float64(l.MicroBatch) * float64(a.Hidden)
	per := layerActivationBytes(arch.Of(a).Shapes[0], a, l, float64(s.Workload.Seq), float64(l.MicroBatch), s.Workload.Precision)
	l.SPGather = model.SPGatherRedo
	if d := per - layerActivationBytes(arch.Of(a).Shapes[0], a, l, float64(s.Workload.Seq), float64(l.MicroBatch), s.Workload.Precision); !near(d, 4*sbh*(1-1.0/4)) {
		t.Errorf("keep adds %g bytes a layer, want 4·sbh·(1 − 1/t) = %g", d, 4*sbh*0.75)
	}
	if keep.Memory.Total <= redo.Memory.Total || keep.Breakdown.TPComm >= redo.Breakdown.TPComm || keep.StepTime >= redo.StepTime {
		t.Errorf("keep: memory %g vs %g, TP comm %g vs %g s, step %g vs %g s", keep.Memory.Total, redo.Memory.Total,
			keep.Breakdown.TPComm, redo.Breakdown.TPComm, keep.StepTime, redo.StepTime)
	}
	s.Layout.Recompute = model.RecomputeFull
	full := eval(t, s)
	s.Layout.SPGather = model.SPGatherRedo
	if fullRedo := eval(t, s); full.StepTime != fullRedo.StepTime || full.Memory.Total != fullRedo.Memory.Total {
		t.Errorf("keep under full recompute changed the step (%g vs %g s) or memory", full.StepTime, fullRedo.StepTime)
	}
}
