package collective

import (
	"math"

	"github.com/splitscope/splitscope/model"
)

// The inference engines' own all-reduce. vLLM and TensorRT-LLM replace NCCL for the small
// all-reduces of tensor-parallel decoding with kernels that read the peers' buffers directly over
// NVLink (CUDA IPC): one-shot, where every GPU reads all n−1 peers' whole buffers and reduces,
// and two-shot, a reduce-scatter and an all-gather done the same way. No protocol handshakes,
// no rings: a kernel launch and a barrier. vLLM uses them on one node, for 2, 4, 6 or 8 GPUs,
// below 8 MiB, when the GPUs are fully connected by NVLink (or are two PCIe GPUs with
// peer-to-peer) [VLLM custom_all_reduce.py], and falls back to NCCL otherwise.
const (
	// engineLatency: one kernel launch and barrier, 6 µs. MSCCL++'s latency kernels on 8×A100 and
	// 8×H100 take 6.5 µs at 8 KiB, 7.9 µs at 48 KiB on A100, and 6.2–6.9 µs from 24 to 72 KiB
	// on H100: intercepts of 6.3 and 5.7 µs [MSP].
	engineLatency = 6e-6
	// engineMaxBytes: vLLM's custom all-reduce buffer, 8 MiB (max_size=8192 * 1024).
	engineMaxBytes = 8 << 20
)

// engineRanks are the group sizes vLLM's custom all-reduce supports.
func engineRanks(n int) bool { return n == 2 || n == 4 || n == 6 || n == 8 }

// engineKernel times one of the engine's kernels (OneShot or TwoShot) on the group, and says
// whether the engine would run it there at all (otherwise it calls NCCL).
func engineKernel(a Algo, bytes float64, g Group, f Fabric) (float64, bool) {
	if !(bytes > 0) || math.IsInf(bytes, 0) || bytes >= engineMaxBytes || max(g.Nodes, 1) != 1 || !engineRanks(g.Ranks) {
		return 0, false
	}
	switch {
	case f.Intra.Kind == model.NVLink || f.Intra.Kind == model.XGMI: // fully connected
	case g.Ranks == 2 && f.Intra.Kind == model.PCIe && !f.Intra.Staged: // a pair with peer-to-peer
	default:
		return 0, false
	}
	_, bw, _ := intraPath(f.Intra, g.Ranks) // on a mesh, the links of the group's GPUs
	if !(bw > 0) || math.IsInf(bw, 0) {
		return 0, false
	}
	n := float64(g.Ranks)
	switch a {
	case OneShot: // read all n−1 peers' whole buffers, reduce locally
		return engineLatency + (n-1)*bytes/bw, true
	case TwoShot: // reduce-scatter then all-gather, each reading n−1 peers' 1/n slices
		return 2*engineLatency + 2*(n-1)/n*bytes/bw, true
	}
	return 0, false
}

// Engine is the engine's all-reduce of bytes over the group, the faster of one-shot and two-shot,
// and whether it applies at all (otherwise the engine uses NCCL).
func Engine(bytes float64, g Group, f Fabric) (Result, bool) {
	one, ok := engineKernel(OneShot, bytes, g, f)
	if !ok {
		return Result{}, false
	}
	two, _ := engineKernel(TwoShot, bytes, g, f)
	if one <= two {
		return Result{Seconds: one, Algo: OneShot, Proto: Simple}, true
	}
	return Result{Seconds: two, Algo: TwoShot, Proto: Simple}, true
}

// TimeEngine is an all-reduce as an inference engine runs it: its own kernels where they apply
// and are faster, NCCL otherwise. Other operations are NCCL's.
func TimeEngine(op Op, bytes float64, g Group, f Fabric) Result {
	nccl := Time(op, bytes, g, f, Auto)
	if op != AllReduce {
		return nccl
	}
	if e, ok := Engine(bytes, g, f); ok && e.Seconds < nccl.Seconds {
		return e
	}
	return nccl
}
