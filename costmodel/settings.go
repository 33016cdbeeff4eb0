package costmodel

import (
	"fmt"
	"strings"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// No silent ignores: a setting that the rest of the scenario makes moot, or that the hardware
// cannot have, is still evaluated as given, and says so in one line of the report's warnings:
// what is set, why it has no effect or what it contradicts, and what to do. A setting at its
// default (ZeRO 0, no recomputation, 1F1B, the GPU's native link, the default network, one NIC
// per GPU) never warns, so the default scenario and the tour stay quiet.

// ScenarioWarnings lists the settings of s that have no effect whatever the TP × PP × DP split,
// or that contradict the hardware: training-only settings in inference, an intra-node link the
// GPU cannot have, a number format without tensor cores, network settings on one node. Search
// reports them once for all the layouts it tries.
func ScenarioWarnings(s model.Scenario) []string {
	var w []string
	w = append(w, precisionWarnings(s.Cluster.GPU, s.Workload.Precision)...)
	w = append(w, clusterWarnings(s.Cluster)...)
	// The model's context, whatever the layout: search and Compare say it too (it was a
	// report's alone, and a disaggregated report's twice, once a pool).
	if n := s.TokensPerSequence(); s.Arch.MaxSeq > 0 && n > s.Arch.MaxSeq {
		w = append(w, fmt.Sprintf("sequence of %d tokens exceeds %s's context of %d", n, s.Arch.ID, s.Arch.MaxSeq))
	}
	if s.Workload.Mode == model.Infer {
		w = append(w, inferenceWarnings(s.Layout)...)
		if s.Workload.Weights == "fp4" && !s.Cluster.GPU.FP4 {
			w = append(w, fmt.Sprintf("weights fp4 on %s: it has no FP4 tensor cores (Blackwell GPUs have them); the model reads 4.5 bits a weight and dequantizes into %s matmuls, as weight-only kernels do; int4 is the usual 4-bit format here",
				s.Cluster.GPU.ID, s.Workload.Precision))
		}
	} else if s.Layout.Collectives == model.CollectivesEngine {
		w = append(w, "collectives engine has no effect in training: training frameworks all-reduce with NCCL; the one-shot/two-shot kernels are the serving engines' (vLLM, TensorRT-LLM); set collectives auto or nccl")
	}
	return w
}

// LayoutWarnings lists the settings of s that its TP, PP or DP size makes moot: ZeRO or serial
// DP without data or context parallelism, sequence parallelism without tensor parallelism, a pipeline
// schedule without a pipeline.
func LayoutWarnings(s model.Scenario) []string {
	l := s.Layout
	train := s.Workload.Mode == model.Train
	var w []string
	// ZeRO and the gradient sync act over DP × CP (model.Layout.GradGroup): with CP > 1 at DP = 1
	// the CP ranks still all-reduce gradients and shard the optimizer.
	if train && l.ZeRO > 0 && l.GradGroup() == 1 {
		w = append(w, fmt.Sprintf("ZeRO %d has no effect with DP = 1: it shards the training state across data-parallel replicas, and there is one; raise DP or set ZeRO 0", l.ZeRO))
	}
	if train && l.SerialDP && l.GradGroup() == 1 {
		w = append(w, "serial DP has no effect with DP = 1: there is no gradient all-reduce to hold back; raise DP or turn serial DP off")
	}
	if train && l.SPGather == model.SPGatherKeep && !spKeepsGather(l) {
		why := "without sequence parallelism there is no sharded input to gather; turn SP on or set it to redo"
		switch {
		case l.SequenceParallel && l.TP == 1:
			why = "with TP = 1 nothing is sharded; raise TP or set it to redo"
		case l.SequenceParallel:
			why = "full recompute redoes the forward, all-gathers included; set it to redo"
		}
		w = append(w, "SP all-gather keep has no effect: "+why)
	}
	switch {
	case !train || l.TPOverlap == model.TPOverlapNone:
	case l.TP == 1:
		w = append(w, fmt.Sprintf("TP overlap %s has no effect with TP = 1: there is no TP collective to hide; raise TP or set it to none", l.TPOverlap))
	case l.TP > s.Cluster.NodeSize():
		w = append(w, fmt.Sprintf("TP overlap %s has no effect with TP = %d across nodes: the userbuffer overlap exchanges tiles through peer memory inside a node (%d GPUs); keep TP inside a node or set it to none", l.TPOverlap, l.TP, s.Cluster.NodeSize()))
	case s.Cluster.IntraLink().Staged:
		w = append(w, fmt.Sprintf("TP overlap %s has no effect on %s: without peer-to-peer the GPUs cannot reach each other's buffers; set it to none", l.TPOverlap, s.Cluster.GPU.ID))
	}
	if l.RankOrder != model.RankOrderTPDPPP && model.SameRankPlacement(s.Arch, l, l.RankOrder, model.RankOrderTPDPPP, s.Cluster.NodeSize()) {
		why := "it places every group on the same nodes as tp-dp-pp"
		switch {
		case l.GPUs() <= s.Cluster.NodeSize():
			why = "the job fits in one node, where every group is on the same links either way"
		case l.TP >= s.Cluster.NodeSize():
			why = fmt.Sprintf("TP %d fills the nodes of %d GPUs, so every DP and PP group crosses nodes either way", l.TP, s.Cluster.NodeSize())
		case l.TP*l.CPSize() >= s.Cluster.NodeSize() && l.RankOrder == model.RankOrderTPPPDP:
			why = fmt.Sprintf("TP × CP (%d × %d) fills the nodes of %d GPUs, so every DP and PP group crosses nodes either way", l.TP, l.CPSize(), s.Cluster.NodeSize())
		case l.PP == 1 && l.CPSize() == 1:
			why = "with PP = 1 there is no pipeline to place"
		case l.DP == 1 && l.CPSize() == 1:
			why = "with DP = 1 there is one replica to place"
		}
		w = append(w, fmt.Sprintf("rank order %s has no effect: %s; set it to tp-dp-pp", l.RankOrder, why))
	}
	if l.CPComm != model.CPRing && l.CPSize() <= 1 && l.Disagg.PrefillCP <= 1 { // a CP prefill pool uses it
		w = append(w, fmt.Sprintf("cp-comm %s has no effect with CP = 1: there is no CP group to exchange K/V; raise cp or leave it ring", l.CPComm))
	}
	if l.CPComm == model.CPHybrid && l.CPSize() > 1 {
		if u, r := l.CPSplit(s.Arch, s.Cluster.NodeSize()); u == 1 || r == 1 {
			kind := "ring"
			if r == 1 {
				kind = "Ulysses"
			}
			w = append(w, fmt.Sprintf("cp-comm hybrid runs as %s here (Ulysses over %d × ring over %d): the CP group's GPUs in a node and the heads leave no two-level split", kind, u, r))
		}
	}
	if l.SequenceParallel && l.TP == 1 {
		w = append(w, "sequence parallelism has no effect with TP = 1: it splits activations across the TP group, which is one GPU; raise TP or turn it off")
	}
	if l.EP > 1 && s.Arch.Experts <= 1 {
		w = append(w, fmt.Sprintf("ep %d has no effect: the model is dense (no experts to divide); set ep 1", l.EP))
	}
	if l.EPImbalance != 0 && (l.EPSize() <= 1 || s.Arch.Experts <= 1) {
		w = append(w, fmt.Sprintf("ep imbalance %g has no effect without expert parallelism: every GPU holds every expert and runs its own tokens; raise ep on a MoE model or leave it unset", l.EPImbalance))
	}
	if l.EPDispatch == model.EPDispatchTwoHop && (l.FoldSize() <= 1 || s.Arch.Experts <= 1 || s.Cluster.Nodes() <= 1) {
		w = append(w, "ep dispatch two-hop has no effect without expert parallelism across nodes: on one node it is the direct all-to-all; raise ep over several nodes on a MoE model or leave it direct")
	}
	if !train && l.Collectives == model.CollectivesEngine {
		w = append(w, engineWarnings(s)...)
	}
	if train && l.PP == 1 && (l.Schedule != model.OneFOneB || l.Chunks > 1) {
		w = append(w, fmt.Sprintf("schedule %s has no effect with PP = 1: one stage has no pipeline to schedule (it runs 1F1B, plain gradient accumulation); raise PP or set the schedule to 1f1b", scheduleName(l)))
	}
	return w
}

// engineWarnings: collectives engine asked for where the engine's all-reduce never runs, so
// NCCL runs every TP all-reduce as with collectives nccl.
func engineWarnings(s model.Scenario) []string {
	l, c := s.Layout, s.Cluster
	if l.TP <= 1 {
		return []string{"collectives engine has no effect with TP = 1: there is no TP all-reduce; raise TP or set collectives auto"}
	}
	if l.TP > c.GPUs || c.NodeSize() < 1 {
		return nil // invalid split: validation says so
	}
	k := newComms(spanGroup(1, l.TP, c.NodeSize()), c)
	if _, ok := collective.Engine(1, k.g, k.f); ok {
		return nil
	}
	return []string{fmt.Sprintf("collectives engine has no effect here: the engines' all-reduce runs on 2, 4, 6 or 8 GPUs of one node joined by NVLink or XGMI (or 2 PCIe GPUs), and this TP group is %d GPUs %s over %s; NCCL runs its all-reduces",
		k.g.Ranks, nodesPhrase(k.g.Nodes), k.link().ID)}
}

// nodesPhrase is "on one node" or "on N nodes".
func nodesPhrase(n int) string {
	if n <= 1 {
		return "on one node"
	}
	return fmt.Sprintf("on %d nodes", n)
}

// settingWarnings is every warning of ScenarioWarnings and LayoutWarnings, for Evaluate.
func settingWarnings(s model.Scenario) []string {
	return append(ScenarioWarnings(s), LayoutWarnings(s)...)
}

// scheduleName is the schedule with its chunks when interleaved: "interleaved (2 chunks)".
func scheduleName(l model.Layout) string {
	if l.Chunks > 1 {
		return fmt.Sprintf("%s (%d chunks)", l.Schedule, l.Chunks)
	}
	return l.Schedule.String()
}

// inferenceWarnings are the training-only settings of a serving scenario: there is no backward
// pass, no gradient and no optimizer state, and each stage runs its forward passes in turn.
func inferenceWarnings(l model.Layout) []string {
	var w []string
	if l.Recompute != model.RecomputeNone {
		w = append(w, fmt.Sprintf("recompute %s has no effect in inference: there is no backward pass to recompute activations for; set recompute none", l.Recompute))
	}
	if l.ZeRO > 0 {
		w = append(w, fmt.Sprintf("ZeRO %d has no effect in inference: it shards gradients and optimizer state (and, stage 3, training weights), which serving does not have; set ZeRO 0", l.ZeRO))
	}
	if l.SerialDP {
		w = append(w, "serial DP has no effect in inference: there are no gradients to all-reduce; turn serial DP off")
	}
	if l.SPGather != model.SPGatherRedo {
		w = append(w, "SP all-gather keep has no effect in inference: there is no backward to gather for; set it to redo")
	}
	if l.Offload != model.OffloadNone {
		w = append(w, fmt.Sprintf("offload %s has no effect in inference: it moves training state (optimizer, weights, activations for the backward) to the host; serving keeps its weights and KV cache on the GPU; set it to none", l.Offload))
	}
	if l.TPOverlap != model.TPOverlapNone {
		w = append(w, fmt.Sprintf("TP overlap %s has no effect in inference: it is training's GEMM tiling (Megatron, Transformer Engine); the engines' all-reduce is modelled on its own (collectives); set it to none", l.TPOverlap))
	}
	if l.Schedule != model.OneFOneB || l.Chunks > 1 {
		w = append(w, fmt.Sprintf("schedule %s has no effect in inference: serving runs forward passes only, each stage in turn; the schedule applies to training", scheduleName(l)))
	}
	return w
}

// precisionWarnings: a number format the GPU has no tensor cores for runs at a far lower rate
// (16-bit formats at the FP32 rate, FP8 at the BF16 rate, model.GPU.Peak), which no one would
// choose knowingly; the warning names the format that has tensor cores and its rate.
func precisionWarnings(g model.GPU, p model.Precision) []string {
	if p == model.FP32 || g.TensorCores(p) {
		return nil
	}
	alt := "no 16-bit format has tensor cores on it either"
	for _, q := range []model.Precision{model.BF16, model.FP16} {
		if g.TensorCores(q) {
			alt = fmt.Sprintf("set precision %s (%s TFLOP/s on its tensor cores)", q, tflops(g.Peak(q)))
			break
		}
	}
	if p == model.FP8 {
		return []string{fmt.Sprintf("fp8 on %s: it has no FP8 tensor cores; the model runs fp8 at the bf16 rate (%s TFLOP/s) and halves the bytes, which no kernel on it does; %s",
			g.ID, tflops(g.Peak(p)), alt)}
	}
	return []string{fmt.Sprintf("%s on %s: it has no %s tensor cores, so %s runs at its FP32 rate, %s TFLOP/s; %s",
		p, g.ID, strings.ToUpper(p.String()), p, tflops(g.Peak(p)), alt)}
}

// clusterWarnings: an intra-node link the GPU cannot have, and links or NICs that nothing uses.
func clusterWarnings(c model.Cluster) []string {
	var w []string
	g, in := c.GPU, c.Intra
	switch {
	case in.ID == g.NativeLink, strings.HasPrefix(in.ID, g.NativeLink+"-"):
		// The native link, or a probed share of it ("nvlink4-x12": gpu.ToCluster).
	case !knownLinks(g):
		// A GPU built from a probe (gpu.ToCluster's generic- and mixed- GPUs) has the links the
		// probe found, whatever the preset it borrows its peaks from says.
	case c.NodeSize() == 1 && in.ID == g.PCIeLink:
		// One GPU per node on its host bus: what a probe of such a node gives.
	case c.NodeSize() == 1:
		w = append(w, fmt.Sprintf("intra link %s has no effect: there is one GPU per node, so no traffic stays inside a node", in.ID))
	case in.Kind == model.InfiniBand || in.Kind == model.RoCE || in.Kind == model.Ethernet:
		w = append(w, fmt.Sprintf("intra link %s on %s: %s joins nodes, not the GPUs inside one, which %s joins; set the intra link to %s",
			in.ID, g.ID, linkKind(in.Kind), g.NativeLink, g.NativeLink))
	case in.Kind == model.PCIe:
		// Any GPU sits on a PCIe bus: a slower slot, or a path across CPU sockets, is real.
	case g.NativeLink != g.PCIeLink:
		w = append(w, fmt.Sprintf("intra link %s on %s: its GPUs are joined by %s, not %s; set the intra link to %s",
			in.ID, g.ID, g.NativeLink, in.ID, g.NativeLink))
	case g.NVLinkBridge && in.Kind == model.NVLink && c.NodeSize() <= 2:
		// A bridged pair of PCIe cards.
	case g.NVLinkBridge && in.Kind == model.NVLink:
		w = append(w, fmt.Sprintf("intra link %s on %s: an NVLink bridge joins 2 of these PCIe cards, not %d; the GPUs of a node talk over %s: set the intra link to %s (or use 2 GPUs per node)",
			in.ID, g.ID, c.NodeSize(), g.PCIeLink, g.PCIeLink))
	default:
		w = append(w, fmt.Sprintf("intra link %s on %s: this PCIe card has no %s; its GPUs talk over %s: set the intra link to %s",
			in.ID, g.ID, linkKind(in.Kind), g.PCIeLink, g.PCIeLink))
	}
	if c.Nodes() <= 1 {
		if c.Inter.ID != model.DefaultInter {
			w = append(w, fmt.Sprintf("inter link %s has no effect: the %d GPUs fit in one node of %d, so nothing crosses nodes; add GPUs to span nodes or leave the inter link alone",
				c.Inter.ID, c.GPUs, c.GPUsPerNode))
		}
		if c.NICsPerNode != c.GPUsPerNode {
			w = append(w, fmt.Sprintf("%d NICs per node have no effect: the %d GPUs fit in one node of %d, so nothing crosses nodes; add GPUs to span nodes",
				c.NICsPerNode, c.GPUs, c.GPUsPerNode))
		}
	}
	return w
}

// knownLinks says whether the GPU's native and PCIe links are a preset's facts: not so for the
// GPUs gpu.ToCluster builds for devices that match no preset, or for a box of mixed GPUs.
func knownLinks(g model.GPU) bool {
	return g.NativeLink != "" && !strings.HasPrefix(g.ID, "generic-") && !strings.HasPrefix(g.ID, "mixed-")
}

// tflops formats FLOP/s as TFLOP/s, three significant digits below 100: 15.7, 125, 1979.
func tflops(f float64) string {
	if t := f / 1e12; t < 100 {
		return fmt.Sprintf("%.3g", t)
	}
	return fmt.Sprintf("%.0f", f/1e12)
}

// linkKind is a link family as vendors write it: NVLink, PCIe, InfiniBand, RoCE, Ethernet, XGMI.
func linkKind(k model.LinkKind) string {
	switch k {
	case model.NVLink:
		return "NVLink"
	case model.PCIe:
		return "PCIe"
	case model.InfiniBand:
		return "InfiniBand"
	case model.RoCE:
		return "RoCE"
	case model.Ethernet:
		return "Ethernet"
	case model.XGMI:
		return "XGMI"
	}
	return k.String()
}
