package costmodel

import (
	"math"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// Compute is a roofline per kernel: time = max(FLOPs / (peak · compute efficiency),
// bytes / (HBM bandwidth · memory efficiency)). Matmuls are rooflined one GEMM at a time, so a
// decode step (a handful of tokens against all the weights) comes out memory-bound and a
// training micro-batch compute-bound without a special case. Element-wise work (norms, residual
// adds, dropout, activation functions, softmax) is pure memory traffic.

// Element-wise traffic per token in forward, in elements: two norms (read+write h each),
// two fused bias-dropout-residual adds (read 2h, write h, a 1-byte mask ≈ h/2 elements each):
// ≈ 11·h; the MLP activation reads and writes its f-wide input(s): 2·f (3·f when gated).
// The counts follow the tensors Korthikanti et al. list for the 34·s·b·h activation bytes.
const elementwisePerHidden = 11

// unfusedScoreBytes is the memory traffic per attention score element in forward when the
// s×s scores are materialised (pre-FlashAttention kernels): write the scores, read and write
// them in a fused softmax, write the dropout mask and the dropped probabilities, read them
// for P·V: ≈ 10 bytes in 16-bit precision (Korthikanti et al. count 5 stored bytes).
const unfusedScoreBytes = 10

// kernel is one roofline-timed piece of work.
type kernel struct{ flops, bytes float64 }

func (k kernel) add(o kernel) kernel { return kernel{k.flops + o.flops, k.bytes + o.bytes} }

// hw is the GPU the kernels run on, in one precision.
type hw struct {
	flops float64 // achievable FLOP/s
	bw    float64 // achievable bytes/s
}

// sustainedMatmulFraction is the share of the maximum achievable matmul rate (the presets'
// compute_eff, SA's MAMF) that a training or prefill step sustains. MAMF is the best shape of a
// brute-force search, measured in short bursts; a real step runs the model's fixed GEMM shapes
// (tile and wave quantisation) for hours at power-capped clocks. One factor for every GPU,
// set on Megatron-LM's Table 1 (reference §4.1) and checked against Korthikanti et al.'s 530B
// MFU (42.1% with full recompute, 54.2% with selective; §4.3), which it was not fitted on.
const sustainedMatmulFraction = 0.85

// SustainedMatmulFraction is sustainedMatmulFraction, for the teaching texts' figures.
const SustainedMatmulFraction = sustainedMatmulFraction

func newHW(g model.GPU, p model.Precision) hw {
	return hw{flops: g.Peak(p) * g.MatmulEff(p) * sustainedMatmulFraction, bw: g.HBMBandwidth * g.MemoryEff}
}

func (h hw) time(k kernel) float64 {
	if h.flops <= 0 || h.bw <= 0 {
		return 0
	}
	return math.Max(k.flops/h.flops, k.bytes/h.bw)
}

// gemm is an M×K by K×N matmul in e-byte elements; weights are the K×N operand.
func gemm(m, k, n, e float64) kernel {
	return kernel{flops: 2 * m * k * n, bytes: (m*k + k*n + m*n) * e}
}

// pass is the forward of one layer on one GPU of the TP group, split the way the Tensor tab
// draws it, plus what backward and recompute add.
type pass struct {
	attnGEMM kernel // QKV and output projections
	attnCore kernel // Q·Kᵀ, softmax, P·V (one fused kernel)
	scores   kernel // unfused attention only: the s×s scores through HBM
	mlp      kernel // MLP matmuls (active experts)
	// mlpSlow is the hardware FLOPs over mlp's model FLOPs (experts.go: routing imbalance,
	// grouped-GEMM efficiency, the router); 0 or 1 for a dense MLP.
	mlpSlow float64
	elem    kernel // element-wise traffic
	// tpBytes is the size of each of the two TP all-reduces of forward (b·s·h·e).
	tpBytes float64
	// a2aBytes is one expert-parallel all-to-all's buffer on the busiest GPU (experts.go);
	// 0 without expert parallelism.
	a2aBytes float64
	// moe says the layer's MLP is routed experts.
	moe bool
}

// layerPass builds one layer's forward on one GPU: tokens processed (b·s, or b in decode),
// ctx the keys each query attends to, seqs the number of sequences (for KV reads); sh is the
// layer's kind (arch), decode its MLA attention in the absorbed form.
func layerPass(sh arch.Shape, a model.Arch, l model.Layout, tokens, ctx, seqs float64, e float64, unfused, decode bool) pass {
	t := float64(l.TP)
	h := float64(a.Hidden)
	k := sh.Mats

	var p pass
	// Projections: the weights once (those split by heads on 1/t of the GPUs' share, MLA's
	// down-projections whole), the tokens in and out of each.
	projW := sh.ProjSplit/t + sh.ProjRep
	p.attnGEMM = kernel{flops: 2 * tokens * projW, bytes: (projW + tokens*(2*h+sh.ProjIO/t)) * e}

	// Attention core: Pair FLOPs per query and key (4·q: Q·Kᵀ and P·V, 4·b·s²·h in training),
	// over the keys the layer's window leaves. Reads Q and writes O, reads K and V for the
	// context. KV heads replicate when TP exceeds them, so a GPU reads at least one KV head;
	// MLA's latent is whole on every GPU. Linear attention updates and reads its state per token.
	keys := sh.Keys(ctx)
	pair, kvRead, kvSplit := sh.Pair, sh.KVRead, float64(sh.KVSplit)
	if decode {
		pair, kvRead = sh.DecPair, sh.DecKVRead
	}
	if sh.Kind.Attn == arch.MLA {
		kvSplit = t // materialised K and V are per head; the latent (decode) is whole
		if decode {
			kvSplit = 1
		}
	}
	kvPerGPU := kvRead / math.Max(math.Min(t, kvSplit), 1)
	p.attnCore = kernel{
		flops: pair*tokens*keys/t + sh.StateFLOPs*tokens/t,
		bytes: (sh.CoreIO*tokens/t + seqs*keys*kvPerGPU + 2*seqs*sh.StateOnGPU(l.TP)) * e,
	}
	if sh.IdxPair > 0 {
		// Sparse indexed attention: the indexer scores every key of the context (whole on each
		// TP rank) before the attention reads its top-k.
		p.attnCore = p.attnCore.add(kernel{flops: sh.IdxPair * tokens * ctx, bytes: seqs * ctx * sh.IdxCache * e})
	}
	if unfused && keys > 0 {
		// Separate kernels (Q·Kᵀ, softmax, dropout, P·V): the score traffic adds to the GEMMs'
		// time instead of overlapping it.
		p.scores = kernel{bytes: unfusedScoreBytes * float64(a.Heads) / t * tokens * keys * e / 2}
	}

	// MLP: dense, or the experts as they run across GPUs (experts.go).
	p.mlp, p.mlpSlow = mlpKernel(sh, h, l, tokens, e)

	hShare := h
	if l.SequenceParallel {
		hShare = h / t
	}
	p.elem = kernel{bytes: tokens * (elementwisePerHidden*hShare + k*sh.ActiveFFN()/t) * e}.add(routingKernel(sh, h, l, tokens, e))
	p.tpBytes = tokens * h * e
	p.a2aBytes = a2aBytes(sh, h, l, tokens, e)
	p.moe = sh.Kind.MoE
	return p
}

// expertsTouched is how many experts' weights one GPU reads for a batch of tokens: all it holds
// when enough tokens, else the expected number of distinct experts hit by uniform top-k picks.
// With expert parallelism a GPU holds E/fold experts (fold = ep × t/etp, folding the TP group's
// slices in) and serves the tokens of ep replicas; the FLOPs are the same (each replica's
// tokens·k expert passes spread over the fold).
func expertsTouched(sh arch.Shape, tokens float64, ep, fold int) float64 {
	if !sh.Kind.MoE || sh.Experts <= 1 {
		return 1
	}
	e := float64(sh.Experts)
	q := 1 - float64(sh.TopK)/e
	return e / float64(max(fold, 1)) * (1 - math.Pow(q, tokens*float64(ep)))
}

func (p pass) forward() kernel {
	return p.attnGEMM.add(p.attnCore).add(p.scores).add(p.mlp).add(p.elem)
}

// logits is the output projection and loss for `tokens` tokens on one GPU of the TP group.
func logits(a model.Arch, l model.Layout, tokens, e float64) kernel {
	t := float64(l.TP)
	v := float64(a.Vocab)
	k := gemm(tokens, float64(a.Hidden), v/t, e)
	k.bytes += 3 * tokens * v / t * 4 // fp32 softmax cross-entropy: read, exp, write
	return k
}

// forwardFLOPs is the model FLOPs of one forward pass of `tokens` tokens (whole model, no TP),
// with the attention core over ctx and the logits over logitTokens.
func forwardFLOPs(m arch.Model, tokens, ctx, logitTokens float64) float64 {
	layers := m.Sum(m.All(), func(s arch.Shape) float64 {
		return 2*tokens*(s.AttnParams+s.ActiveParams) + s.Pair*tokens*s.Keys(ctx) + s.StateFLOPs*tokens + s.IdxPair*tokens*ctx
	})
	return layers + 2*logitTokens*float64(m.Arch.Hidden)*float64(m.Arch.Vocab)
}
