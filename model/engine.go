package model

import (
	"sort"
	"strings"
)

// EngineProfile is what a serving engine does by default, as the serving simulator follows it:
// how it builds a step, what it admits, what it costs before the scheduler sees a request. The
// figures come from each engine's own source (cited per field) and are stated in `--engine`'s
// help; one is fitted on a measured run (FrontEndTriton), the rest come from the source.
type EngineProfile struct {
	ID, Name string
	// Versions are the releases whose defaults these are.
	Versions string
	// PrefillFirst: a step that can run a prompt runs prompts only (vLLM V0, SGLang); false:
	// decodes first and prompt chunks in the rest of the budget (vLLM V1, TensorRT-LLM).
	PrefillFirst bool
	// WholePrompts: prompts are never split over steps (vLLM V0 without chunked prefill).
	WholePrompts bool
	// LongContextChunks: a model whose context is over 32K tokens gets chunked prefill with this
	// budget instead (vLLM V0 turned it on by itself: "Chunked prefill is enabled by default for
	// models with max_model_len > 32K", max_num_batched_tokens 512, vllm/engine/arg_utils.py of
	// 0.5.4 to 0.6). 0: no such rule.
	LongContextChunks int
	// Overlap: the next step is scheduled while one runs (vLLM V1's async scheduling, SGLang's
	// overlap scheduler); one step more before a request that arrived mid-step is in a batch.
	Overlap bool
	// ReserveWhole: a request is admitted only with blocks for its whole prompt and output
	// (TensorRT-LLM's GUARANTEED_NO_EVICT); nothing is preempted.
	ReserveWhole bool
	// PPHost: each pipeline rank runs the executor's host loop between its forwards
	// (TensorRT-LLM's PyTorch executor).
	PPHost bool
	// FrontEndS is the API server's time from a request's sending to the scheduler (HTTP,
	// tokenizing, hand-over to the engine process); 0: the benchmark sends tokens.
	FrontEndS float64
	// MultiStep > 1: a batch of decodes runs that many steps before the scheduler runs again,
	// its tokens handed on at the window's end (vLLM 0.6's --num-scheduler-steps).
	MultiStep int
	// EagerLayerS is the host's time for one layer with latent attention or routed experts
	// in a step that runs prompts outside CUDA graphs: such a step takes at least that times
	// those layers (EagerPrefill, below). 0: prompts run in CUDA graphs or the host keeps up.
	EagerLayerS float64
	// GraphMaxBatch > 0: a decode step of more sequences than this runs outside CUDA graphs,
	// launched layer by layer from the host like a prompt step (SGLang's cuda_graph_max_bs:
	// CudaGraphRunner.can_run replays a graph only for a batch of at most max_bs). 0: every
	// decode step replays a graph.
	GraphMaxBatch int
	// EagerDenseLayerS is the host's time for one layer with neither latent attention nor routed
	// experts in a step that runs outside CUDA graphs (EagerDense04 for SGLang 0.4); such a step
	// takes at least that times those layers, with EagerLayerS for the others. 0: a dense
	// layer's launches hide under its GPU time.
	EagerDenseLayerS float64
	// HostPerSeqS is the host's work for each sequence of a step, serial with the GPU: the engine
	// builds each request's output in its own loop between forwards, with no overlap (TGI's
	// generate_token, HostPerSeqTGI). 0: none, or hidden under the GPU by an overlap scheduler.
	HostPerSeqS float64
	// LibraryAllReduce: the engine's tensor-parallel all-reduces go through the collective
	// library (NCCL, RCCL on ROCm), never its own one-shot or two-shot kernels (TGI's
	// torch.distributed.all_reduce). false: the engine's kernels where they apply
	// (collective.TimeEngine), as vLLM, SGLang and TensorRT-LLM have.
	LibraryAllReduce bool
	// HostLoadAsync: with a host tier of the KV cache (--kv-host-gib), a request whose prefix is
	// there waits for its blocks out of the batches while they are copied over the host link
	// beside the steps (vLLM's OffloadingConnector, 0.11 and later, on the asynchronous connector
	// API of 0.9: the request waits in WAITING_FOR_REMOTE_KVS, the steps go on). false: the
	// step that admits it loads them before its forward (a synchronous connector, as LMCache's
	// start_load_kv).
	HostLoadAsync bool
	// HostLoadLayerwise (HostLoadAsync off): the admitting step's load runs beside its forward
	// layer by layer, each layer's attention waiting for its own KV (SGLang's HiCache: the KV
	// pool's get_key_buffer waits on layer_transfer_counter.wait_until(layer), the load thread
	// copying layer after layer on its own stream; mem_cache/memory_pool.py, managers/
	// cache_controller.py).
	HostLoadLayerwise bool
	// Source says where each default comes from.
	Source string
	// limits are max sequences and max batched tokens a step on the GPU, for a model whose
	// context is maxSeq tokens.
	limits func(g GPU, maxSeq int) (maxSeqs, maxBatchTokens int)
}

// Limits are the engine's default max sequences and max batched tokens a step on the GPU, for a
// model whose context is maxSeq tokens.
func (e EngineProfile) Limits(g GPU, maxSeq int) (maxSeqs, maxBatchTokens int) {
	if e.limits == nil {
		return ServeDefaults(g)
	}
	return e.limits(g, maxSeq)
}

// Schedule is how the engine builds its steps for a model of maxSeq tokens of context: prompts
// first or decodes first, whole prompts or chunks, and the token budget that replaces its
// default (0: none). vLLM V0's chunked prefill of a long context builds steps decodes first
// (Scheduler._schedule_chunked_prefill).
func (e EngineProfile) Schedule(maxSeq int) (prefillFirst, wholePrompts bool, budget int) {
	if e.WholePrompts && e.LongContextChunks > 0 && maxSeq > 32768 {
		return false, false, e.LongContextChunks
	}
	return e.PrefillFirst, e.WholePrompts, 0
}

// FrontEnd4ms is an OpenAI-compatible API server's time to hand a request to its engine: vLLM
// online answered 4 ms later than vLLM offline on Llama-3.3-70B with 128-token prompts at batch
// 32 ("acceptable from HTTP server + ZMQ latency"; tenstorrent/tt-inference-server issue #190,
// May 2025). Longer prompts tokenize longer (10–21 µs a token for 131 tokens with a chat
// template, the same project's issue #2173); the model keeps the one measured figure (U).
const FrontEnd4ms = 4e-3

// HostPerSeqV0Sync is vLLM V0's host time for each sequence of a step when its outputs are
// processed synchronously: LLMEngine.step runs _process_model_outputs (each sequence's sampled
// token appended, incrementally detokenized, checked against its stop conditions, its
// RequestOutput built) after the forward returns and before the scheduler builds the next step,
// the GPU idle meanwhile. Measured in the proposal that replaced it [ISS vllm#6913] (July 2024:
// Llama 3 70B on 4 × H100 at 128 prompt tokens): the function took 0.2 ms at batch 1 and 3.4 ms
// at batch 32, so (3.4 − 0.2) / 31 = 0.103 ms a sequence (its third row, 0.2 ms at batch 1024,
// contradicts its own expected 20% off the TPOT and is not used: U). Synchronous in every
// release before the asynchronous output processor (PR #7049, vLLM 0.6.0) and, after it, in any
// V0 server with pipeline parallelism (vllm/config.py turns it off: "Async output processing can
// not be enabled with pipeline parallel", as SUR's 0.8.3 server logged, use_async_output_proc=False).
// Not fitted on any run here. U: the per-step work it leaves out (the sampler's pythonizing of
// its output, the scheduler's and the input preparation's work per sequence, and in 0.4–0.5 the
// API server's streaming in the engine's own process) would only add to it.
const HostPerSeqV0Sync = 0.103e-3

// FrontEndTriton is TensorRT-LLM 0.9's front end behind Triton (trtllm-triton): the request
// through Triton's HTTP server and the ensemble of the tensorrtllm_backend's inflight_batcher_llm
// (a Python preprocessing model that tokenizes, the tensorrt_llm model that hands it to the batch
// manager, a Python postprocessing model that detokenizes each streamed token: each Python model
// a separate stub process fed over shared memory), and back. Fitted on one run: ZHJ's RTX 3090 at
// 1 request/s (median TTFT 103.4 ms, where the engine's own part, the step it waits for and its
// prompt step with no overlap, is 60 ms in the model: 40 ms, −3.2% with it); held out: the same
// server at 2 requests/s (103.4 ms: +1.5%). U: no measurement of the ensemble's parts was
// found; the measured median is 35 ms over vLLM 0.4.1's and LMDeploy 0.4.0's on the same GPU and
// prompts (68–69 ms), whose decode steps are as fast (ZHJ; the ensemble's models: TRTB-SRC).
const FrontEndTriton = 40e-3

// Engines are the serving engines the simulator follows, by id; "" is vllm.
var Engines = map[string]EngineProfile{
	"vllm": {ID: "vllm", Name: "vLLM V1", Versions: "0.11 and later",
		Overlap: true, FrontEndS: FrontEnd4ms, HostLoadAsync: true,
		Source: "vllm/v1/core/sched/scheduler.py (decodes first, chunked prefill always on); " +
			"vllm/engine/arg_utils.py get_batch_defaults (1024 sequences and 8192 tokens on GPUs of 70 GiB or more but the A100, else 256 and 2048); " +
			"async scheduling on by default since PR #27614 (EngineCore.step_with_batch_queue); " +
			"the KV offloading connector loads a host-tier prefix beside the steps, its request in WAITING_FOR_REMOTE_KVS meanwhile (VLLM-OFF)"},
	"vllm-v0": {ID: "vllm-v0", Name: "vLLM V0", Versions: "0.4 to 0.7",
		PrefillFirst: true, WholePrompts: true, LongContextChunks: 512, FrontEndS: FrontEnd4ms,
		Source: "vllm/core/scheduler.py Scheduler._schedule_default (prompts first, decodes in steps with none); " +
			"without chunked prefill max_num_batched_tokens = max(max_model_len, 2048), max_num_seqs 256 (vllm/config.py SchedulerConfig); " +
			"chunked prefill turned on with 512 tokens for a context over 32K (arg_utils.py, 0.5.4 to 0.6)",
		limits: func(_ GPU, maxSeq int) (int, int) { return 256, max(maxSeq, 2048) }},
	"vllm-v0-sync": {ID: "vllm-v0-sync", Name: "vLLM V0, synchronous output processing", Versions: "0.4 to 0.5, and any V0 server with pipeline parallelism",
		PrefillFirst: true, WholePrompts: true, LongContextChunks: 512, FrontEndS: FrontEnd4ms, HostPerSeqS: HostPerSeqV0Sync,
		Source: "vllm-v0's scheduler; LLMEngine.step processes each sequence's output (_process_model_outputs: detokenizing, stop checks, " +
			"the RequestOutput) after the forward and before the next schedule, nothing overlapped (HostPerSeqV0Sync): every release " +
			"before the asynchronous output processor (PR #7049, 0.6.0), and later V0 with pipeline parallelism " +
			"(vllm/config.py: \"Async output processing can not be enabled with pipeline parallel\")",
		limits: func(_ GPU, maxSeq int) (int, int) { return 256, max(maxSeq, 2048) }},
	"vllm-v0-ms": {ID: "vllm-v0-ms", Name: "vLLM V0 multi-step", Versions: "0.6 with --num-scheduler-steps 10",
		PrefillFirst: true, WholePrompts: true, MultiStep: 10, FrontEndS: FrontEnd4ms,
		Source: "vllm-v0's scheduler, and vllm/engine/llm_engine.py LLMEngine.step: the scheduler runs only when the batch " +
			"has no steps left (_has_remaining_steps), outputs go out at the window's last step, decodes take " +
			"num_scheduler_steps − 1 lookahead slots; prompt steps are single steps without chunked prefill; " +
			"10 steps as vLLM 0.6's benchmarks and SGLang's comparison with it ran it (sgl-project/sglang benchmark/benchmark_vllm_060)",
		limits: func(_ GPU, maxSeq int) (int, int) { return 256, max(maxSeq, 2048) }},
	"sglang": {ID: "sglang", Name: "SGLang", Versions: "0.4 of 2025 and later (sglang-0.4: December 2024's)",
		PrefillFirst: true, Overlap: true, FrontEndS: FrontEnd4ms, EagerLayerS: EagerPrefill, HostLoadLayerwise: true,
		Source: "python/sglang/srt/managers/scheduler.py get_next_batch_to_run (a new prefill batch whenever one can be built, else decode); " +
			"server_args.py chunked_prefill_size 2048 under 35 GiB, 8192 under 160 GiB, else 16384; " +
			"max_running_requests bounded by the KV cache (4096 here: U); " +
			"prefill (EXTEND) batches outside CUDA graphs (forward_batch_info.py is_cuda_graph: DECODE, TARGET_VERIFY, IDLE), EagerPrefill; " +
			"HiCache loads a host-tier prefix layer by layer beside the forward (mem_cache/memory_pool.py: wait_until(layer) before the attention reads it)",
		limits: func(g GPU, _ int) (int, int) {
			switch {
			case g.MemoryBytes < 35*GiB:
				return 4096, 2048
			case g.MemoryBytes < 160*GiB:
				return 4096, 8192
			}
			return 4096, 16384
		}},
	"sglang-0.4": {ID: "sglang-0.4", Name: "SGLang 0.4", Versions: "of December 2024 (0.4.0 and 0.4.1, the first releases with the overlap scheduler on by default)",
		PrefillFirst: true, Overlap: true, FrontEndS: FrontEnd4ms, EagerLayerS: EagerPrefill,
		GraphMaxBatch: CUDAGraphMaxBS04, EagerDenseLayerS: EagerDense04,
		Source: "python/sglang/srt/managers/scheduler.py get_next_batch_to_run (a new prefill batch whenever one can be built, else decode; enable_mixed_chunk off); " +
			"server_args.py of 0.4: chunked_prefill_size 2048 under 25,000 MiB, else 8192; cuda_graph_max_bs 8 under 25,000 MiB, else 160 (CUDAGraphMaxBS04); disable_overlap_schedule false; " +
			"max_running_requests bounded by the KV cache (4096 here: U); " +
			"prefill batches, and decode batches over cuda_graph_max_bs, run outside CUDA graphs, issued from the overlap scheduler's forward thread (EagerDense04)",
		limits: func(g GPU, _ int) (int, int) {
			if g.MemoryBytes < 25000*GiB/1024 { // 25,000 MiB
				return 4096, 2048
			}
			return 4096, 8192
		}},
	"tgi": {ID: "tgi", Name: "TGI", Versions: "2.x of October 2024 (sha-11d7af7-rocm, as dstack ran it on MI300X), before prefill chunking",
		PrefillFirst: true, WholePrompts: true, FrontEndS: FrontEnd4ms,
		GraphMaxBatch: TGIGraphMaxBS, EagerDenseLayerS: EagerDenseTGI, HostPerSeqS: HostPerSeqTGI, LibraryAllReduce: true,
		Source: "router (batching_task: a new prefill batch whenever one can be built, decodes otherwise; whole prompts up to --max-batch-prefill-tokens, max_input_tokens + 50 by default); " +
			"launcher --cuda-graphs default 1,2,4,8,16,32 (TGIGraphMaxBS): flash_causal_lm.py forward replays a graph only for a decode batch no larger than a captured size, and never for a prefill; " +
			"an eager step's host issues every op (EagerDenseTGI); generate_token's per-request loop after each forward (HostPerSeqTGI); " +
			"layers/tensor_parallel.py all-reduces with torch.distributed (NCCL, RCCL on ROCm), no custom kernel; " +
			"max concurrent requests 8192, admission by the KV cache's tokens (4096 sequences here: U)",
		limits: func(_ GPU, maxSeq int) (int, int) { return 4096, max(maxSeq+50, 4096) }},
	"lmdeploy": {ID: "lmdeploy", Name: "LMDeploy TurboMind", Versions: "0.4",
		FrontEndS: FrontEnd4ms,
		Source: "src/turbomind/models/llama/LlamaBatch.cc of v0.4.0, LlamaBatch::InternalThreadEntry: one thread loops: " +
			"take the queued requests (every iteration), then Initialize and one Forward of the prompts' chunks and the decodes, then Finish; " +
			"nothing scheduled while a step runs (no overlap); lmdeploy/messages.py TurbomindEngineConfig: max_batch_size 128, " +
			"max_prefill_token_num 8192 (a step's prompt tokens); its KV cache (cache_max_entry_count 0.8 of the memory left) is sized as vLLM's here (U); " +
			"api_server front end as FrontEnd4ms (U) (LMD-SRC)",
		limits: func(GPU, int) (int, int) { return 128, 8192 }},
	"trtllm-triton": {ID: "trtllm-triton", Name: "TensorRT-LLM behind Triton", Versions: "0.9 (tensorrtllm_backend's inflight_batcher_llm ensemble)",
		FrontEndS: FrontEndTriton, ReserveWhole: true, WholePrompts: true,
		Source: "the batch manager's loop (GptManager::decoupled_execution_loop, cpp/tensorrt_llm/batch_manager/GptManager.cpp as later published; " +
			"0.9 shipped it as a library, U): wait for the step, return its tokens, fetch new requests, launch the next step (no overlap); " +
			"the Triton server's own log for 0.9 (ZHJ): enable_chunked_context false (whole prompts), the scheduler policy set to " +
			"guaranteed_no_evict (a request admitted with blocks for its whole output), enableTrtOverlap 0; " +
			"max batch as the engine was built (MaxSeqs); front end FrontEndTriton (fitted) (TRTB-SRC, ZHJ)"},
	"trtllm": {ID: "trtllm", Name: "TensorRT-LLM", Versions: "1.0, as trtllm-bench runs it",
		ReserveWhole: true, PPHost: true, Overlap: true,
		Source: "tensorrt_llm/_torch/pyexecutor: in-flight batching, decodes and context chunks in one step; " +
			"overlap scheduler on (disable_overlap_scheduler false by default); " +
			"GUARANTEED_NO_EVICT capacity scheduler (the default); trtllm-bench sends tokens (no front end)"},
}

// EngineIDs are the engines' ids, sorted.
func EngineIDs() []string {
	ids := make([]string, 0, len(Engines))
	for id := range Engines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Engine is the profile of the named engine ("" is vllm) and whether it is known.
func Engine(id string) (EngineProfile, bool) {
	if id == "" {
		id = "vllm"
	}
	e, ok := Engines[id]
	return e, ok
}

// engineAllowed is the error text for an unknown engine.
func engineAllowed() string { return "must be one of " + strings.Join(EngineIDs(), ", ") }

// EagerPrefill is SGLang's host time for one layer with latent attention or routed experts
// (DeepSeek-V3's MLA and MoE layers) in a prefill step. SGLang runs a step with prompts in it
// (an EXTEND batch) outside CUDA graphs: ModelRunner.forward replays a graph only when
// forward_batch.forward_mode.is_cuda_graph() (DECODE, TARGET_VERIFY, IDLE:
// model_executor/forward_batch_info.py, 0.3 to 0.5.x) and the CudaGraphRunner can run the
// batch; an EXTEND batch goes to forward_extend, where the Python host issues every op of
// every layer (prefill graphs came as --enable-piecewise-cuda-graph, off by default, PR #10062
// of October 2025, DeepSeek-V3 in PR #12996). So a prompt step takes the longer of its GPU
// time and the host's: a DeepSeek layer's eager path (fp8 per-token-group quantization before
// each of its projections, the absorbed-MLA prefill's splits and rope, the router's top-k, the
// fused-MoE alignment and Triton grouped GEMMs, the shared expert) is many more host calls than
// its kernel count (kindKernels). Measured: SGLang's DeepSeek-R1 first token on 16 × H100 is
// 179.7 ms at 128 prompt tokens and 199.7 ms at 4096 (tenstorrent/tt-inference-server issue
// #356), +11% for 32× the prompt, while the GPU's prefill work grows ~30×: the step is the
// host's. Fitted on that one run (TT356 128×128, c1): 2.9 ms a layer, 61 layers, 177 ms a
// prompt step; every other run is held out. A dense GQA layer's eager launches (a dozen
// kernels) hide under its GPU time: any host cost of 50 µs a kernel or more would put SGLang
// 0.3's Llama-3.1 8B and 70B first tokens (SGL060) 22–53% over the measured, where the model
// without it is within 0–9%; so dense layers are charged nothing. U: the share of each op in
// the 2.9 ms (no profile of SGLang's eager DeepSeek prefill is published); SGLang's own
// DeepSeek-R1 W8A8-INT8 run at TP 8 (PR #14918, 1024 tokens, one client) had a mean TTFT of
// 115 ms eager, under what 2.9 ms a layer gives: the host time varies with the version and
// the quantization path.
const EagerPrefill = 2.9e-3

// CUDAGraphMaxBS04 is SGLang 0.4's largest CUDA-graph decode batch: server_args.py sets
// cuda_graph_max_bs to 160 on a GPU of 25,000 MiB or more (8 below; the smaller GPUs are not
// told apart here), and CudaGraphRunner.can_run replays a graph only for a batch of at most
// that many sequences (padded up to the next captured size). A larger decode batch runs the
// model's forward eagerly (ModelRunner.forward_decode), every kernel issued by the host. Later
// releases raised it (0.5: 512 on an H200 at TP 4 or more).
const CUDAGraphMaxBS04 = 160

// EagerDense04 is SGLang 0.4's host time for one dense layer (grouped-query attention, a dense
// MLP: Llama) in a step that runs outside CUDA graphs: every prefill batch (EagerPrefill), and
// every decode batch over CUDAGraphMaxBS04. SGLang 0.4's overlap scheduler (on by default from
// 0.4: disable_overlap_schedule false) issues the forward from a second thread of the
// scheduler's process (tp_worker_overlap_thread.py, TpModelWorkerClient.forward_thread_func)
// while the first builds the next batch and processes the last one's tokens, request by
// request, in Python: an eager layer's dozen-odd kernels (the norms, the QKV projection,
// rotary, the KV write, FlashInfer's attention wrapper, the output projection and its custom
// all-reduce, the gate-up projection, the activation, the down projection and its all-reduce)
// are issued under one interpreter lock with that work, so a large decode batch's kernels are
// issued more slowly than the GPU runs them. Fitted on one figure: the median inter-token
// latency of Llama 3.3 70B at TP 4 on 4 × H200 at 8 requests/s (H200B, 70.8 ms: SGLang's
// batch there held ~360 sequences, over 160, and its decode steps were host-bound; the model
// 68.7 ms); every other H200B figure is held out (at 1 ms a layer the model's server
// saturates at 8 requests/s, at 0.6 its median ITL there is 49 ms). U: no profile of SGLang 0.4's eager step is published;
// SGLang 0.3.0 (no overlap thread) shows no such cost on its dense prompts (SGL060's first
// tokens, EagerPrefill), so the profile "sglang" keeps 0.
const EagerDense04 = 0.85e-3

// TGIGraphMaxBS is TGI's largest captured decode batch (October 2024, on ROCm): the launcher's
// --cuda-graphs defaults to 1, 2, 4, 8, 16 and 32 sequences, and a larger decode batch runs
// eagerly (flash_causal_lm.py forward: no captured size at least the batch, no graph), as does
// every prefill [TGISRC].
const TGIGraphMaxBS = 32

// EagerDenseTGI is TGI's host time for one dense layer in a step outside graphs (every prefill,
// and every decode over TGIGraphMaxBS sequences): the Python model code issuing a layer's norms,
// projections, rotary, paged attention, all-reduces and activation one by one. Fitted on one
// figure, dstack's TGI TPOT of 101.4 ms at 64 80-token prompts at once on 8 × MI300X (DSTK,
// costmodel/published/mi300xruns.go: 126 layers, so 82 ms a decode step of the host alone);
// the other TGI figures are held out. U: no profile of TGI's eager step is published.
const EagerDenseTGI = 0.65e-3

// HostPerSeqTGI is TGI's host time for each sequence of a step: FlashCausalLM.generate_token
// loops over the batch's requests in Python after every forward (the next-token choice's
// bookkeeping, stopping criteria, incremental detokenizing, the Generation sent back to the
// router) with nothing overlapped [TGISRC]. Fitted on one figure, dstack's TGI TPOT of 625 ms
// at 1024 prompts at once (DSTK); held out: its TPOT at 256 (195 ms measured, 183 modelled).
// U: the share of each part is not published.
const HostPerSeqTGI = 0.54e-3
