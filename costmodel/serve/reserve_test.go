package serve

import "testing"

// TensorRT-LLM's GUARANTEED_NO_EVICT: with ReserveWhole a request is admitted only when the
// blocks of its whole prompt and output are free, so a cache that holds 10 whole requests runs
// at most 10 at once and preempts none; vLLM's rule on the same cache admits more and preempts.
func TestReserveWholeNeverPreempts(t *testing.T) {
	c := linear{fixed: 1e-3, perToken: 1e-6}
	reqs := make([]Request, 60)
	for i := range reqs {
		reqs[i] = Request{Prompt: 160, Gen: 160} // 20 blocks of 16 tokens, whole
	}
	cfg := base()
	cfg.KVBlocks = 200 // ten whole requests
	vllm, _ := run(t, cfg, reqs, c)
	if vllm.Preemptions == 0 || vllm.MaxRunning <= 10 {
		t.Fatalf("vLLM's rule: %d preemptions, at most %d running; the test wants a cache it overfills", vllm.Preemptions, vllm.MaxRunning)
	}
	cfg.ReserveWhole = true
	trt, s := run(t, cfg, reqs, c)
	if trt.Preemptions != 0 || trt.MaxRunning != 10 {
		t.Errorf("ReserveWhole: %d preemptions, at most %d running; want 0 and 10", trt.Preemptions, trt.MaxRunning)
	}
	if s.Completed != len(reqs) {
		t.Errorf("ReserveWhole: %d of %d requests completed", s.Completed, len(reqs))
	}
}
