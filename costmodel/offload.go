package costmodel

import "github.com/splitscope/splitscope/model"

// Offload (ZeRO-Offload and ZeRO-Infinity, `--offload`): training state or activations kept in
// host memory and moved over each GPU's PCIe link (model.GPU.HostBandwidth, its pcie_link
// preset's bandwidth × efficiency).
//
//   - optimizer: the GPU keeps its 16-bit weights and 16-bit gradients (as ZeRO shards them);
//     the host keeps the fp32 master weights, Adam's two moments and fp32 gradients, 16 B per
//     parameter of the GPU's ZeRO-1 shard. After the backward the shard's 16-bit gradients go
//     down (after the DP reduce-scatter, inside the same backward window), the node's CPUs run
//     AdamW (cpuAdamParamsPerS for the whole node, shared by its GPUs) and the updated 16-bit
//     weights come back up: the step's optimizer time.
//   - optimizer+weights: the 16-bit weights stay on the host too; every forward and backward of
//     every micro-batch streams the rank's weights in, two layers at a time on the GPU
//     (prefetch), overlapped with compute: only what the busy time cannot hide is exposed. The
//     updated weights stay on the host.
//   - activations: the activations kept for the backward go to the host after each layer's
//     forward and come back before its backward, overlapped with compute; the GPU holds two
//     layers' worth for one micro-batch.
//   - optimizer+activations, optimizer+weights+activations: both at once. The link is full
//     duplex: in the forwards the weights stream in beside the activations going out; in the
//     backwards the weights and the activations both come in, so their times add.
//
// Copies run on the GPU's DMA engines: no SMs are taken, so hidden traffic costs nothing. What
// goes during the forwards hides behind the rank's forwards (m·F), what goes during the
// backwards behind its backwards (m·(B+W)); the rest is exposed.

// cpuAdamParamsPerS is how many parameters one node's CPUs update per second with DeepSpeed's
// vectorised CPU-Adam: 11.6B parameters in 8.2 s [ISS DeepSpeed#735] (2021, Intel AVX CPUs),
// 1.41 G/s. Today's servers have more memory bandwidth; the figure is likely a floor.
const cpuAdamParamsPerS = 11.6e9 / 8.2

// bytesHostOptimizer is the host memory per parameter of a GPU's shard under optimizer
// offload: fp32 master weights (4), Adam's moments (8) and fp32 gradients (4).
const bytesHostOptimizer = bytesMaster32 + bytesAdamStates + bytesGradients

// offloadedState is one GPU's training state for `params` parameters sharded by ZeRO over d,
// with the optimizer on the host: the GPU's weights and gradients in the training format, and
// the host's bytes.
func offloadedState(params float64, prec model.Precision, zero, d int) (weights, grads, host float64) {
	df := float64(max(d, 1))
	w := float64(bytesWeights16)
	if prec == model.FP32 {
		w = 4
	}
	weights, grads, host = params*w, params*w, params*bytesHostOptimizer
	if zero >= 3 {
		weights /= df
	}
	if zero >= 2 {
		grads /= df
	}
	if zero >= 1 {
		host /= df
	}
	return
}

// hostSeconds is the time to move bytes over the GPU's PCIe link to host memory.
func (p *plan) hostSeconds(bytes float64) float64 {
	bw := p.c.GPU.HostBandwidth
	if bytes <= 0 || bw <= 0 {
		return 0
	}
	return bytes / bw
}

// offloadTimes are a rank's offload traffic: fwd and bwd, what the forwards and the backwards
// can hide (the weights streamed in for each pass; the activations out during the forward and
// back during the backward); down, the gradients sent after the backward. The optimizer step
// on the CPU is optimizerSeconds.
func (p *plan) offloadTimes(rs rankState) (fwd, bwd, down float64) {
	off := p.l.Offload
	if off == model.OffloadNone || p.s.Workload.Mode != model.Train {
		return 0, 0, 0
	}
	m := p.mv
	if off.Optimizer() {
		down = p.hostSeconds(rs.hostParams * p.trainWeightBytes())
	}
	var weights, acts float64 // each pass's stream, each way
	if off.Weights() {
		weights = p.hostSeconds(m * rs.weights)
	}
	if off.Activations() {
		acts = p.hostSeconds(m * rs.actMicro)
	}
	// PCIe is full duplex: in the forwards the weights come in while the activations go out, side
	// by side; in the backwards both come in, one after the other.
	return max(weights, acts), weights + acts, down
}
