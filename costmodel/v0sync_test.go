package costmodel

import (
	"math"
	"testing"

	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// vLLM V0 with synchronous output processing (the profile "vllm-v0-sync": releases before 0.6.0,
// and V0 with pipeline parallelism) is vllm-v0 with the host's per-sequence output work added to
// every step (model.HostPerSeqV0Sync, 0.103 ms a sequence: ISS vllm#6913). Oracle
// on the step: for any batch the two profiles' steps differ by exactly that times the batch's
// sequences, decodes and prompts alike (not by a constant a step: 1 and 16 sequences differ 16×).
// Oracle on the run: at a load where each request is served alone, its first token comes
// exactly one sequence's output work later (its prompt step holds one sequence), each later token
// one more, so E2E grows by gen times it; nothing else moves.
func TestV0SyncOutputProcessing(t *testing.T) {
	if e, ok := model.Engine("vllm-v0-sync"); !ok || e.HostPerSeqS != model.HostPerSeqV0Sync || model.HostPerSeqV0Sync != 0.103e-3 {
		t.Fatalf("vllm-v0-sync: %+v, want HostPerSeqS = HostPerSeqV0Sync = 0.103 ms", e.HostPerSeqS)
	}
	base := scenario(t, "llama-3-8b", "h100-sxm", "nvlink4", 1, 1, 1)
	base.Workload = model.Workload{Mode: model.Infer, PromptTokens: 512, GenTokens: 64, Requests: 6, Rate: 0.05,
		Precision: model.BF16, Seed: 7}
	with := func(engine string) model.Scenario {
		s := base
		s.Workload.Engine = engine
		return s
	}
	v0, sync := newPlan(with("vllm-v0")).servingCost(), newPlan(with("vllm-v0-sync")).servingCost()
	for _, b := range []serve.Batch{
		{DecodeSeqs: 1, DecodeCtx: 600, Samples: 1},
		{DecodeSeqs: 16, DecodeCtx: 16 * 600, Samples: 16},
		{PrefillTokens: 3 * 512, PrefillSeqs: 3, PrefillAttn: 3 * 512 * 256.5, PrefillCtx: 3 * 512, Samples: 3},
	} {
		n := b.DecodeSeqs + b.PrefillSeqs
		d := sync.Stage(0, &b).Seconds - v0.Stage(0, &b).Seconds
		if want := float64(n) * model.HostPerSeqV0Sync; math.Abs(d-want) > 1e-12 {
			t.Errorf("%d sequences (%d prompt tokens): vllm-v0-sync's step %.4f ms longer than vllm-v0's, want %.4f",
				n, b.PrefillTokens, 1e3*d, 1e3*want)
		}
	}

	a, b := eval(t, with("vllm-v0")).Inference, eval(t, with("vllm-v0-sync")).Inference
	if !(a.TTFT > 0) || !(b.TTFT > 0) {
		t.Fatalf("TTFT %v and %v", a.TTFT, b.TTFT)
	}
	if d := b.TTFT - a.TTFT; math.Abs(d-model.HostPerSeqV0Sync) > 1e-9 {
		t.Errorf("one request at a time: TTFT %.4f ms as vllm-v0-sync, %.4f ms as vllm-v0: %.4f ms more, want one sequence's output work %.4f ms",
			1e3*b.TTFT, 1e3*a.TTFT, 1e3*d, 1e3*model.HostPerSeqV0Sync)
	}
	if d := b.TPOT - a.TPOT; math.Abs(d-model.HostPerSeqV0Sync) > 1e-9 {
		t.Errorf("one request at a time: TPOT %.4f ms more, want %.4f ms", 1e3*d, 1e3*model.HostPerSeqV0Sync)
	}
	if d, want := b.E2EMean-a.E2EMean, float64(base.Workload.GenTokens)*model.HostPerSeqV0Sync; math.Abs(d-want) > 1e-8 {
		t.Errorf("one request at a time: E2E %.4f ms more, want %d tokens × %.3f ms = %.4f ms", 1e3*d, base.Workload.GenTokens,
			1e3*model.HostPerSeqV0Sync, 1e3*want)
	}
}
