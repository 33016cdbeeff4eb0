package costmodel

import "github.com/splitscope/splitscope/costmodel/arch"

// A decode layer's kernel count by its kind: layerKernels (serving.go) is a dense layer's with
// grouped-query attention (two norms, the QKV projection, rotary embedding, the KV-cache
// write, attention, the output projection, the residual adds, the gate-up projection, the
// activation, the down projection), each paying kernelFloor. The other kinds launch more, as
// the engines run them (counted as in bf16, without the fp8 quantization kernels a dense layer
// is not charged either):
//
//   - mlaKernels: multi-head latent attention in its absorbed decode form (SGLang's
//     DeepseekV2AttentionMLA, forward_absorb_prepare and forward_absorb_core;
//     vLLM's MLA backends alike, U: not counted here) runs the fused q_a/kv_a down-projection where a GQA layer runs its
//     QKV projection, then five kernels a GQA layer does not have: the q_a and kv_a latent
//     norms (q_a_layernorm, kv_a_layernorm), the query up-projection (q_b_proj), and the two
//     per-head batched matmuls of the absorbed form (q_nope × w_kc before attention, the
//     output × w_vc after it: kv_b_proj split into w_kc and w_vc at load). The fp8 path adds a
//     per-tensor quantization before each bmm (per_tensor_quant_mla_fp8), not counted.
//   - moeKernels: a routed MLP runs the router's GEMM, the top-k gate (SGLang's
//     biased_grouped_topk / moe_fused_gate, vLLM's topk_softmax), the sort of tokens by
//     expert (moe_align_block_size) and the weighted sum of the top-k outputs (moe_sum_reduce)
//     around the two grouped GEMMs and the activation a dense MLP also runs (fused_moe_triton:
//     fused_experts_impl); a shared expert rides in the routed GEMMs (SGLang fuses it as
//     expert 257 on SM90, the shared-experts fusion) or adds its own three, not counted (U).
//
// DeepSeek-V3's MoE layer so runs 21 kernels, not 12 (its 3 dense MLA layers 17): 9 × 4 µs on
// 58 layers and 5 × 4 µs on 3, 2.2 ms a decode step on any GPU, about what the model missed of
// SGLang 0.5.7's TPOT on 8 × H200 (InferenceX issue 870, published.MeasuredInferenceX: −22% to
// −17% at 8–64 clients with 12 kernels a layer, −5% to −13% with these). Not fitted: the counts
// are the engines' code paths, kernelFloor is the dense layers' (serving.go). A profiled decode
// step of DeepSeek-R1 on B200 under SGLang 0.5.6 (IX863) lists 14 launches a layer among its
// ten heaviest kernels alone (3 FP4 projection GEMMs and 3 FP4 quantizations, three NVJet
// GEMMs, attention, two expert GEMMs, the finalize, the shared expert), before the norms,
// rotary, all-reduces, router and top-k. The MoE count, held out on another engine and model:
// Qwen3 and Gemma 3 norm each head's queries and keys (qkNormKernels, two more): TT340's Qwen3-1.7B
// on one A100 under vLLM, one request at a time, TPOT −9%..−14% without them, −2%..−8% with.
// gpt-oss-120b (GQA, MXFP4 experts) under vLLM 0.15.1 on H100 at TP 2–8 (IX828), median |TPOT
// error| 17.3% with 12 kernels a layer, 5.9% with 16. On Mixtral 8x7B (vLLM V1, 2 × H100, the BLIS runs)
// the 4 routing kernels move TPOT from +0.3%..+3.5% to +3.1%..+6.4%.
const (
	mlaKernels = 5
	moeKernels = 4
)

// qkNormKernels: a layer that norms each head's queries and keys (Qwen3, Gemma 3) runs the two
// RMSNorms as kernels of their own (vLLM's Qwen3Attention: q_norm and k_norm on the heads
// between the QKV projection and the rotary embedding, before its fused QK-norm-RoPE pass; SGLang
// alike).
const qkNormKernels = 2

// shapeKernels is the kernel count of a decode layer of shape sh.
func shapeKernels(sh arch.Shape) float64 {
	k := sh.Kind
	n := layerKernels
	if sh.QKNorm {
		n += qkNormKernels
	}
	if k.Attn == arch.MLA {
		n += mlaKernels
	}
	if k.MoE {
		n += moeKernels
	}
	return float64(n)
}

// gemmKernels is how many of a decode layer's kernels (shapeKernels) are GEMMs: a dense GQA
// layer's QKV, output, gate-up and down projections (4); latent attention adds the query
// up-projection and the absorbed form's two batched matmuls (3; its fused down-projection is in
// the QKV's place); routed experts the router's GEMM (1; the two grouped GEMMs are in the gate-up
// and down projections' place). What a calibrated GEMM curve's latency applies to (serving.go).
func gemmKernels(sh arch.Shape) float64 {
	n := 4.0
	if sh.Kind.Attn == arch.MLA {
		n += 3
	}
	if sh.Kind.MoE {
		n++
	}
	return n
}

// eagerHost is the host's time to issue stage s's layers in a step that runs outside CUDA
// graphs (a prompt step; a decode step over the engine's largest graph): the engine's
// EagerLayerS for each layer with latent attention or routed experts (model.EagerPrefill), its
// EagerDenseLayerS for each other layer (model.EagerDense04; 0 where a dense layer's launches
// hide under its GPU time).
func (c *servingCost) eagerHost(s int) float64 {
	var t float64
	for kind, k := range c.kinds[s] {
		per := c.eng.EagerDenseLayerS
		if kd := c.p.k.Shapes[kind].Kind; kd.MoE || kd.Attn == arch.MLA {
			per = c.eng.EagerLayerS
		}
		t += float64(k) * per
	}
	return t
}
