package costmodel

import (
	"fmt"
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

func TestParamState(t *testing.T) {
	// Mixed-precision AdamW, 1e9 parameters over d = 8 [docs/costmodel.md, reference §4.4]:
	// 16-bit weights 2 B + fp32 master 4 B, fp32 gradients 4 B, two fp32 Adam moments 8 B.
	// ZeRO-1 shards the optimizer state (master copy and moments), ZeRO-2 also the gradients,
	// ZeRO-3 also the 16-bit weights.
	const P = 1e9
	cases := []struct {
		name    string
		prec    model.Precision
		zero, d int
		w, g, o float64
	}{
		{"bf16 zero 0", model.BF16, 0, 8, 6e9, 4e9, 8e9},
		{"bf16 zero 1", model.BF16, 1, 8, (2 + 4.0/8) * P, 4e9, 1e9},
		{"bf16 zero 2", model.BF16, 2, 8, (2 + 4.0/8) * P, 4e9 / 8, 1e9},
		{"bf16 zero 3", model.BF16, 3, 8, (2.0/8 + 4.0/8) * P, 4e9 / 8, 1e9},
		{"fp16 zero 0", model.FP16, 0, 8, 6e9, 4e9, 8e9},
		// ZeRO over a single rank shards nothing; d = 0 counts as 1.
		{"bf16 zero 3 d 1", model.BF16, 3, 1, 6e9, 4e9, 8e9},
		{"bf16 zero 3 d 0", model.BF16, 3, 0, 6e9, 4e9, 8e9},
		// fp32 training keeps one 4-byte copy of the weights: 4 + 4 + 8 = 16 B per parameter.
		{"fp32 zero 0", model.FP32, 0, 8, 4e9, 4e9, 8e9},
		{"fp32 zero 1", model.FP32, 1, 8, 4e9, 4e9, 1e9},
		{"fp32 zero 3", model.FP32, 3, 8, 4e9 / 8, 4e9 / 8, 1e9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, g, o := paramState(P, tc.prec, tc.zero, tc.d)
			if !relNear(w, tc.w, 1e-12) || !relNear(g, tc.g, 1e-12) || !relNear(o, tc.o, 1e-12) {
				t.Errorf("weights %.4g, grads %.4g, optimizer %.4g; want %.4g, %.4g, %.4g", w, g, o, tc.w, tc.g, tc.o)
			}
		})
	}
	t.Run("18 and 16 bytes per parameter unsharded", func(t *testing.T) {
		for prec, want := range map[model.Precision]float64{model.BF16: 18, model.FP16: 18, model.FP32: 16} {
			w, g, o := paramState(1, prec, 0, 1)
			if w+g+o != want {
				t.Errorf("%s: %v B per parameter, want %v", prec, w+g+o, want)
			}
		}
	})
}

func TestLayerActivationBytes(t *testing.T) {
	// Korthikanti et al. 2022, Table 2 (bytes per layer, 16-bit activations): a GPT layer
	// (MHA, ffn = 4h, GELU) with s = 2048, b = 2, h = 4096, a = 32:
	//   sbh = 2048 · 2 · 4096 = 16,777,216; 5as/h = 5 · 32 · 2048 / 4096 = 80.
	const s, b = 2048.0, 2.0
	const sbh = s * b * 4096
	gpt := model.Arch{Layers: 1, Hidden: 4096, Heads: 32, KVHeads: 32, FFN: 16384, Vocab: 51200}
	// Llama-3-8B-like: GQA 8 of 32 heads (kv width 1024), SwiGLU ffn 14336. The 34 generalises
	// to 4 (norms) + 7 + 4·kv/h (attention) + 3 + 2·k·f/h (MLP) = 4 + 7 + 1 + 3 + 2·3·3.5 = 36.
	gqa := model.Arch{Layers: 1, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 128256, GatedMLP: true}
	// Mixtral-like: the same, but every token runs through 2 experts: 2·3·(2 · 14336)/4096 = 42,
	// 4 + 7 + 1 + 3 + 42 = 57.
	moe := gqa
	moe.Experts, moe.TopK = 8, 2

	type lay struct {
		t       int
		sp      bool
		rc      model.Recompute
		unfused bool
	}
	cases := []struct {
		name string
		a    model.Arch
		l    lay
		prec model.Precision
		want float64 // in units of sbh
	}{
		{"no parallelism: 34 + 5as/h", gpt, lay{1, false, model.RecomputeNone, true}, model.BF16, 34 + 80},
		{"tp 8: 10 + 24/t + 5as/(ht)", gpt, lay{8, false, model.RecomputeNone, true}, model.BF16, 10 + 24.0/8 + 80.0/8},
		{"tp 4: 10 + 24/t + 5as/(ht)", gpt, lay{4, false, model.RecomputeNone, true}, model.BF16, 10 + 6 + 20},
		{"tp 8 + sp: (34 + 5as/h)/t", gpt, lay{8, true, model.RecomputeNone, true}, model.BF16, 114.0 / 8},
		{"sp with t = 1 changes nothing", gpt, lay{1, true, model.RecomputeNone, true}, model.BF16, 114},
		{"selective, t 1: 34", gpt, lay{1, false, model.RecomputeSelective, true}, model.BF16, 34},
		{"selective, tp 8: 10 + 24/t", gpt, lay{8, false, model.RecomputeSelective, true}, model.BF16, 13},
		{"selective + sp, tp 8: 34/t", gpt, lay{8, true, model.RecomputeSelective, true}, model.BF16, 34.0 / 8},
		{"full recompute: 2", gpt, lay{1, false, model.RecomputeFull, true}, model.BF16, 2},
		{"full recompute, tp 8: layer input whole", gpt, lay{8, false, model.RecomputeFull, true}, model.BF16, 2},
		{"full recompute + sp, tp 8: input split", gpt, lay{8, true, model.RecomputeFull, true}, model.BF16, 2.0 / 8},
		// FlashAttention never stores the s×s scores: the 5as/h term goes, as with selective.
		{"flash, t 1", gpt, lay{1, false, model.RecomputeNone, false}, model.BF16, 34},
		{"flash, tp 8", gpt, lay{8, false, model.RecomputeNone, false}, model.BF16, 13},
		{"flash + sp, tp 8", gpt, lay{8, true, model.RecomputeNone, false}, model.BF16, 34.0 / 8},
		// fp32 activations take twice the bytes.
		{"fp32, tp 8", gpt, lay{8, false, model.RecomputeNone, true}, model.FP32, 2 * 23},
		{"fp32 full recompute", gpt, lay{1, false, model.RecomputeFull, true}, model.FP32, 4},
		{"gqa swiglu, t 1", gqa, lay{1, false, model.RecomputeNone, false}, model.BF16, 36},
		{"gqa swiglu, tp 8: 10 + 26/8", gqa, lay{8, false, model.RecomputeNone, false}, model.BF16, 10 + 26.0/8},
		{"moe top-2, t 1", moe, lay{1, false, model.RecomputeNone, false}, model.BF16, 57},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := model.Layout{TP: tc.l.t, SequenceParallel: tc.l.sp, Recompute: tc.l.rc, UnfusedAttention: tc.l.unfused}
			got := layerActivationBytes(arch.Of(tc.a).Shapes[0], tc.a, l, s, b, tc.prec)
			if !relNear(got, tc.want*sbh, 1e-12) {
				t.Errorf("got %.6g B = %.4f sbh, want %.4f sbh", got, got/sbh, tc.want)
			}
		})
	}
}

func TestKVCacheBytes(t *testing.T) {
	// Llama-3-70B: 80 layers, h = 8192, 64 heads of 128, 8 KV heads: K and V are 8 · 128 = 1024
	// wide, 2 · 80 · 1024 · 2 B = 327,680 B (320 KiB) per token in bf16. One sequence of 4096
	// tokens: 1,342,177,280 B = 1.25 GiB for the whole model.
	a := model.Arch{Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672, Vocab: 128256, GatedMLP: true}
	const whole = 1342177280.0
	cases := []struct {
		name                 string
		tp                   int
		layers, seqs, ctx, e float64
		want                 float64
	}{
		{"tp 1", 1, 80, 1, 4096, 2, whole},
		{"tp 2", 2, 80, 1, 4096, 2, whole / 2},
		{"tp 8: one KV head per GPU", 8, 80, 1, 4096, 2, whole / 8}, // 167,772,160 B = 160 MiB
		// TP 16 > 8 KV heads: each KV head lives on two GPUs, a GPU still holds one of them.
		{"tp 16: KV heads replicate", 16, 80, 1, 4096, 2, whole / 8},
		{"tp 64: KV heads replicate", 64, 80, 1, 4096, 2, whole / 8},
		{"4 sequences of 1024", 8, 80, 4, 1024, 2, whole / 8},
		{"half the layers (a PP stage)", 8, 40, 1, 4096, 2, whole / 16},
		{"fp8", 8, 80, 1, 4096, 1, whole / 16},
		{"32 requests", 8, 80, 32, 4096, 2, 32 * whole / 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := kvCacheBytes(a, model.Layout{TP: tc.tp}, tc.layers, tc.seqs, tc.ctx, tc.e)
			if !relNear(got, tc.want, 1e-12) {
				t.Errorf("got %.0f B, want %.0f B", got, tc.want)
			}
		})
	}
	t.Run("mha splits over tp", func(t *testing.T) {
		// MHA (32 KV heads of 128): 2 · 32 layers · 2048 tokens · 4096 · 2 B / 8.
		mha := model.Arch{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32}
		want := 2.0 * 32 * 2048 * 4096 * 2 / 8
		if got := kvCacheBytes(mha, model.Layout{TP: 8}, 32, 1, 2048, 2); !relNear(got, want, 1e-12) {
			t.Errorf("got %.0f B, want %.0f B", got, want)
		}
	})
}

func TestZeROLowersMemoryAndZeRO3RaisesDPComm(t *testing.T) {
	// Llama-2-7B on 8 H100s, pure DP 8: each GPU holds all P = 6,738,415,616 parameters
	// (one stage: layers + embedding + output). m = 64 / (1 · 8) = 8 micro-batches.
	base := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 1, 1)
	P := arch.Of(base.Arch).Params()
	link := base.Cluster.Intra
	m := float64(base.MicroBatches())
	if m != 8 || base.Layout.DP != 8 {
		t.Fatalf("scenario: m %v, dp %d", m, base.Layout.DP)
	}
	cases := []struct {
		zero    int
		w, g, o float64 // bytes per parameter on one GPU
		dpS     float64
	}{
		// ZeRO 0: all-reduce of the fp32 gradients.
		{0, 6, 4, 8, refAllReduce(4*P, 8, link)},
		// ZeRO 1 and 2: reduce-scatter the gradients, all-gather the updated 16-bit weights.
		{1, 2 + 4.0/8, 4, 1, refHalf(4*P, 8, link) + refHalf(2*P, 8, link)},
		{2, 2 + 4.0/8, 0.5, 1, refHalf(4*P, 8, link) + refHalf(2*P, 8, link)},
		// ZeRO 3 also gathers the weights before every forward and every backward:
		// 2 · m = 16 more all-gathers of 2P bytes.
		{3, 2.0/8 + 4.0/8, 0.5, 1, refHalf(4*P, 8, link) + refHalf(2*P, 8, link) + 2*m*refHalf(2*P, 8, link)},
	}
	var reports []Report
	for _, tc := range cases {
		t.Run(fmt.Sprintf("zero %d", tc.zero), func(t *testing.T) {
			s := base
			s.Layout.ZeRO = tc.zero
			r := eval(t, s)
			mem := r.Memory
			if !relNear(mem.Weights, tc.w*P, 1e-9) || !relNear(mem.Gradients, tc.g*P, 1e-9) || !relNear(mem.Optimizer, tc.o*P, 1e-9) {
				t.Errorf("weights %.4g, grads %.4g, optimizer %.4g B; want %.4g, %.4g, %.4g",
					mem.Weights, mem.Gradients, mem.Optimizer, tc.w*P, tc.g*P, tc.o*P)
			}
			if !relNear(r.Detail.DPS, tc.dpS, 1e-9) {
				t.Errorf("DP sync %.6g s, want %.6g s", r.Detail.DPS, tc.dpS)
			}
			if n := len(reports); n > 0 {
				prev := reports[n-1]
				if mem.Total >= prev.Memory.Total {
					t.Errorf("total %.2f GiB not below ZeRO-%d's %.2f GiB", mem.Total/model.GiB, tc.zero-1, prev.Memory.Total/model.GiB)
				}
				if mem.Activations != prev.Memory.Activations {
					t.Errorf("activations changed with ZeRO: %.4g vs %.4g", mem.Activations, prev.Memory.Activations)
				}
			}
			if tc.zero == 3 && len(reports) == 3 {
				z2 := reports[2]
				if r.Detail.DPS <= z2.Detail.DPS {
					t.Errorf("ZeRO-3 DP sync %.4g s not above ZeRO-2's %.4g s", r.Detail.DPS, z2.Detail.DPS)
				}
				if r.Breakdown.DPComm < z2.Breakdown.DPComm || r.StepTime < z2.StepTime {
					t.Errorf("ZeRO-3 exposed DP %.4g s / step %.4g s below ZeRO-2's %.4g / %.4g", r.Breakdown.DPComm, r.StepTime,
						z2.Breakdown.DPComm, z2.StepTime)
				}
			}
			reports = append(reports, r)
		})
	}
}

func TestRecomputeTradesMemoryForTime(t *testing.T) {
	// Llama-2-7B, TP 4 × PP 2 on one node, the 2021 software (unfused attention), so that
	// selective recompute has scores to drop.
	var rep [3]Report
	for _, rc := range []model.Recompute{model.RecomputeNone, model.RecomputeSelective, model.RecomputeFull} {
		s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 8, 4, 2)
		s.Layout.Recompute = rc
		s.Layout.UnfusedAttention = true
		rep[rc] = eval(t, s)
	}
	none, sel, full := rep[model.RecomputeNone], rep[model.RecomputeSelective], rep[model.RecomputeFull]
	cases := []struct {
		name string
		ok   bool
	}{
		{"full keeps less activation memory than none", full.Memory.Activations < none.Memory.Activations},
		{"selective keeps less than none", sel.Memory.Activations < none.Memory.Activations},
		{"full keeps less than selective", full.Memory.Activations < sel.Memory.Activations},
		{"full is slower than none", full.StepTime > none.StepTime},
		{"full is slower than selective", full.StepTime > sel.StepTime},
		{"selective is not faster than none", sel.StepTime >= none.StepTime},
		{"no recompute time without recompute", none.Breakdown.Recompute == 0},
		{"full recompute shows in the breakdown", full.Breakdown.Recompute > sel.Breakdown.Recompute && sel.Breakdown.Recompute > 0},
		{"weights untouched", full.Memory.Weights == none.Memory.Weights},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("none: %.2f GiB act, %.4f s; selective: %.2f GiB, %.4f s; full: %.2f GiB, %.4f s",
					none.Memory.Activations/model.GiB, none.StepTime, sel.Memory.Activations/model.GiB, sel.StepTime,
					full.Memory.Activations/model.GiB, full.StepTime)
			}
		})
	}
	t.Run("full recompute keeps 2sbh per layer and micro-batch in flight", func(t *testing.T) {
		// Stage 0: 16 layers, s = 4096, b = 1, h = 4096: 2 · 4096 · 4096 = 33,554,432 B per
		// layer, times the micro-batches the schedule keeps in flight.
		st := full.Detail.Stages[0]
		want := float64(st.InFlight) * 16 * 2 * 4096 * 4096
		if st.Layers != 16 || st.InFlight < 1 || !relNear(st.LayerActBytes, want, 1e-12) {
			t.Errorf("stage 0: %d layers, %d in flight, %.6g B; want %.6g B", st.Layers, st.InFlight, st.LayerActBytes, want)
		}
	})
}

func TestInferenceMemory(t *testing.T) {
	// Llama-3-70B served on 8 H100s. The KV cache is what is left of 90% of the GPU after the
	// weights (bf16 shard), a full step's working set (8192 tokens: 4h + 3f/t elements each,
	// and the logits of min(1024 sequences, 8192 tokens) in fp32) and the reserve, in blocks of
	// 16 tokens of 2 · 80 layers · 1024 (K/V width) · 2 B / min(t, 8) each; the number of
	// requests does not change it.
	const h, f, vocab = 8192.0, 28672.0, 128256.0
	for _, tc := range []struct {
		name         string
		tp, dp, reqs int
		kv           string
	}{
		{"tp 8, 8 requests", 8, 1, 8, ""},
		{"tp 8, 64 requests", 8, 1, 64, ""},
		{"tp 4 × dp 2, 16 requests", 4, 2, 16, ""},
		{"tp 8, fp8 KV cache", 8, 1, 8, "fp8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 8, tc.tp, 1)
			s.Workload.Mode = model.Infer
			s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = 1024, 128, tc.reqs
			s.Workload.KVCache = tc.kv
			r := eval(t, s)
			mem := r.Memory
			if mem.Gradients != 0 || mem.Optimizer != 0 {
				t.Errorf("inference holds gradients %.4g B and optimizer %.4g B", mem.Gradients, mem.Optimizer)
			}
			tp := float64(tc.tp)
			weights := arch.Of(s.Arch).Params() * 2 / tp
			if !relNear(mem.Weights, weights, 1e-12) {
				t.Errorf("weights %.6g B, want %.6g B", mem.Weights, weights)
			}
			work := 8192*(4*h+3*f/tp)*2 + 1024*vocab/tp*4
			kvb := 2.0
			if tc.kv == "fp8" {
				kvb = 1
			}
			perToken := 2 * 80 * 1024 * kvb / math.Min(tp, 8)
			left := 0.9*s.Cluster.GPU.MemoryBytes - weights - work - s.ReserveBytes
			tokens := math.Floor(left/perToken/16) * 16
			if !relNear(mem.KVCache, tokens*perToken, 1e-9) || !relNear(r.Inference.KVCacheTokens, left/perToken, 1e-9) {
				t.Errorf("KV cache %.6g B (%.0f tokens), want %.6g B (%.0f tokens)", mem.KVCache, r.Inference.KVCacheTokens, tokens*perToken, tokens)
			}
			if mem.Total > 0.9*mem.Capacity*(1+1e-12) || !mem.Fits {
				t.Errorf("total %.4g B of %.4g, fits %v", mem.Total, mem.Capacity, mem.Fits)
			}
		})
	}
}

func TestZeRO3GathersEachChunkOnce(t *testing.T) {
	// ZeRO-3 gathers a chunk's weights before each of its forward and backward ops. With v
	// interleaved chunks a rank runs m·v forward and m·v backward ops, each over its chunk's
	// 1/v of the rank's parameters: 2·m·v all-gathers of 2·P/v bytes, about the same traffic
	// as without interleaving (only the latency terms grow). Llama-2-7B, PP 2 × DP 8 on 16
	// H100s (DP inside each node), m = 64 / 8 = 8.
	for _, v := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d chunks", v), func(t *testing.T) {
			s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", 16, 1, 2)
			s.Layout.ZeRO = 3
			if v > 1 {
				s.Layout.Schedule, s.Layout.Chunks = model.Interleaved, v
			}
			r := eval(t, s)
			link := s.Cluster.Intra
			m, vf := float64(s.MicroBatches()), float64(v)
			want := 0.0
			for _, st := range r.Detail.Stages {
				P := st.ParamsOnGPU
				want = max(want, refHalf(4*P, 8, link)+refHalf(2*P, 8, link)+2*m*vf*refHalf(2*P/vf, 8, link))
			}
			if !relNear(r.Detail.DPS, want, 1e-9) {
				t.Errorf("DP sync %.6g s, want %.6g s", r.Detail.DPS, want)
			}
		})
	}
}
