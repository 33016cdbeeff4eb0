package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// Mixed-precision AdamW keeps 18 bytes per parameter [SP, reference §4.4]: 16-bit weights (2) and
// their fp32 master copy (4), fp32 gradients (4), Adam's two fp32 moments (8). This split is
// what reproduces the parameter-and-optimizer bars of Korthikanti et al.'s Figure 1.
const (
	bytesWeights16  = 2
	bytesMaster32   = 4
	bytesGradients  = 4
	bytesAdamStates = 8
	// adamTrafficPerParam is the HBM traffic of one fused AdamW step: read gradient, master,
	// two moments (16), write master and moments (12) and the 16-bit weights (2).
	adamTrafficPerParam = 30
)

// paramState is the training state of `params` parameters on one GPU, sharded by ZeRO over d.
func paramState(params float64, prec model.Precision, zero, d int) (weights, grads, opt float64) {
	df := float64(max(d, 1))
	w16, master := float64(bytesWeights16), float64(bytesMaster32)
	if prec == model.FP32 {
		w16, master = 4, 0 // fp32 training keeps one copy
	}
	if zero >= 1 {
		master /= df
	}
	if zero >= 3 {
		w16 /= df
	}
	weights = params * (w16 + master)
	grads = params * bytesGradients
	if zero >= 2 {
		grads /= df
	}
	opt = params * bytesAdamStates
	if zero >= 1 {
		opt /= df
	}
	return
}

// layerActivationBytes is the activation memory one layer keeps for one micro-batch until its
// backward [Korthikanti et al. 2022, §4]: s·b·h·(34 + 5·a·s/h) bytes without parallelism, of
// which 10 stay whole under tensor parallelism (norm inputs, the two block inputs, dropout
// masks) and the rest divides by t; sequence parallelism divides all of it. The 34 generalises
// to GQA and gated MLPs by counting the same tensors: 4 (norms) + 7 + 4·kv/h (attention block)
// + 3 + 2·k·f/h (MLP block, k matrices). The 5·a·s/h term is the s×s scores, softmax and dropout,
// gone with selective recompute or FlashAttention; full recompute keeps only the layer input.
func layerActivationBytes(sh arch.Shape, a model.Arch, l model.Layout, s, b float64, prec model.Precision) float64 {
	return layerActivationBytesCtx(sh, a, l, s, s, b, prec)
}

// layerActivationBytesCtx is layerActivationBytes for s tokens of each sequence on the GPU whose
// queries attend to ctx keys (context parallelism: s/c tokens, all ctx keys): the unfused
// scores are s × ctx.
func layerActivationBytesCtx(sh arch.Shape, a model.Arch, l model.Layout, s, ctx, b float64, prec model.Precision) float64 {
	h := float64(a.Hidden)
	t := float64(l.TP)
	sbh := s * b * h
	scale := 1.0
	if prec == model.FP32 {
		scale = 2
	}
	if l.Recompute == model.RecomputeFull {
		if l.SequenceParallel {
			return 2 * sbh / t * scale
		}
		return 2 * sbh * scale
	}
	// The attention block keeps its input, Q, K, V and output: 4·kv/h generalises to the
	// kind's projections (for GQA ProjIO − 2q is the 2·kv of K and V).
	kv := sh.KVRead / 2
	f := sh.ActiveFFN()
	total := 4 + 7 + 4*kv/h + 3 + 2*sh.Mats*f/h // 34 for GPT
	whole := 10.0
	scores := 0.0
	if l.UnfusedAttention && l.Recompute != model.RecomputeSelective && sh.Keys(ctx) > 0 {
		scores = 5 * float64(a.Heads) * sh.Keys(ctx) / h
	}
	if l.SequenceParallel {
		kept := 0.0
		if spKeepsGather(l) {
			// The QKV and MLP-up inputs (2 bytes an element each) kept whole, not as 1/t shards.
			kept = 4 * (1 - 1/t)
		}
		return sbh * ((total+scores)/t + kept) * scale
	}
	return sbh * (whole + (total-whole)/t + scores/t) * scale
}

// spKeepsGather says whether the layout keeps the sequence-parallel all-gathered inputs of the
// column-parallel GEMMs for the backward instead of gathering them again: with SP on more than
// one GPU and without full recompute (whose redone forward gathers them anyway).
func spKeepsGather(l model.Layout) bool {
	return l.SPGather == model.SPGatherKeep && l.SequenceParallel && l.TP > 1 && l.Recompute != model.RecomputeFull
}

// ParamState is the training state in bytes — 16-bit weights with their fp32 master copy,
// gradients, Adam's moments — of params parameters on one GPU, sharded by ZeRO stage zero over
// d ranks: what the model holds for a stage's weights before any activation.
func ParamState(params float64, prec model.Precision, zero, d int) (weights, grads, opt float64) {
	return paramState(params, prec, zero, d)
}
