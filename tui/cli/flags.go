package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

// Defaults of the scenario flags; the bare `splitscope` evaluates exactly these. Scenario files
// (--scenario) take the same defaults for the keys they leave out: the shared ones live in
// package model, and the enums' defaults are their zero values there.
const (
	defaultModel       = "llama-3-70b"
	defaultGPU         = "h100-sxm"
	defaultGPUs        = model.DefaultGPUs
	defaultGPUsPerNode = model.DefaultGPUsPerNode
	defaultInter       = model.DefaultInter
	defaultMode        = "train"
	defaultSeq         = model.DefaultSeq
	defaultPrecision   = "bf16"
	defaultRecompute   = "none"
	defaultCollectives = "auto"
	defaultSchedule    = "1f1b"
	defaultChunks      = model.DefaultChunks
	defaultMicroBatch  = model.DefaultMicroBatch
	defaultPrompt      = model.DefaultPrompt
	defaultGen         = model.DefaultGen
)

// scenarioFlags holds the flags every command shares; scenario turns them into a model.Scenario.
type scenarioFlags struct {
	fs *pflag.FlagSet

	model                                      string
	layers, hidden, heads, kvHeads, ffn, vocab int
	seq                                        int
	lesson                                     string // --lesson DIR: the tour's steps (lesson.go)

	gpu                string
	gpus, gpusPerNode  int
	intra, inter       string
	nicsPerNode        int
	hostMemory         hostMemFlag // --host-memory: one node's host memory, bytes (0: the box's or the default)
	tp, pp, dp, chunks int
	ep                 int
	etp                int
	epImbalance        float64
	epDispatch         string
	cp                 int
	cpComm             string
	schedule, mode     string
	batch, microBatch  int
	precision          string
	recompute          string
	collectives        string
	tpOverlap          string
	rankOrder          string
	offload            string
	spGather           string
	sequenceParallel   spFlag
	unfusedAttention   bool
	serialDP           bool
	zero               zeroFlag
	prompt, gen, reqs  int
	// Serving: --rate, --concurrency, --seed, --workload FILE, the engine's limits, and the
	// formats of the weights and the KV cache.
	rate                    float64
	concurrency             int
	seed                    uint64
	workload                string
	maxSeqs, maxBatchTokens int
	recvInterval            int
	prefixHit               float64
	turns                   int
	think                   time.Duration
	kvHostGiB               float64
	disagg                  string // --disagg P:D (model.ParseDisagg)
	prefillTP, prefillPP    int
	prefillCP               int
	prefillEP               int
	weights, kvCache        string
	expertWeights           string
	engine                  string
	sloTTFT, sloTPOT        time.Duration
	// Speculative decoding (specflags.go): --spec-tokens, --spec-accept, --spec-method, --spec-draft.
	specTokens                        int
	specAccept, specMethod, specDraft string

	computeEff, memoryEff, intraEff, interEff, reserveGiB float64

	box  []string
	json bool

	// calibration is --calibration FILE; calib is the file once read (presets), whose link
	// parameters replace the presets'.
	calibration string
	calib       *model.Calibration

	// scenarioFile is --scenario: a scenario file or tour/NAME. Its keys are applied as flags,
	// under the ones typed, on the first call of scenario; scenarioTitle is then its title.
	scenarioFile    string
	scenarioTitle   string
	scenarioApplied bool
	// fileSet holds the flags the --scenario file set (not typed), by flag name, with the key
	// and its line, so that a problem with one of them names the file, the line and the key.
	fileSet map[string]assets.Setting
	// lang is --lang as typed; language() resolves the default from the environment.
	lang string

	// boxes is the hardware when it comes from boxes: the --box files once read, or what probe
	// found. boxWarnings are what gpu.ToCluster said about them.
	boxes       []gpu.Box
	boxWarnings []string

	// typed says which flags were typed on the command line, once a --scenario file has set
	// others (typedFlag); flagWarnings are the typed flags the scenario does not read.
	typed        map[string]bool
	flagWarnings []string
}

// canonicalEP stores --ep 1 as the layout's zero value (no expert parallelism), as a scenario
// file without the key does.
func canonicalEP(ep int) int {
	if ep == 1 {
		return 0
	}
	return ep
}

// register adds the scenario flags to fs. Help strings name the unit and the default; flags whose
// default depends on other flags or on a preset say how it is derived.
func (f *scenarioFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.scenarioFile, "scenario", "", "scenario `FILE` (YAML; keys named like these flags, micro_batch for --micro-batch) or tour/NAME, a step of the guided tour (tour/one-gpu … tour/long-context), as the base: flags typed on the command line override its keys (default none)")
	fs.StringVar(&f.model, "model", defaultModel, "model preset `ID` (list: splitscope presets), or a Hugging Face config.json FILE or the folder holding one (model_type "+strings.Join(assets.HFConfigKinds, ", ")+"; a field the model cannot honour is refused by name)")
	fs.IntVar(&f.layers, "layers", 0, "transformer layers; overrides the preset (default: the model's)")
	fs.IntVar(&f.hidden, "hidden", 0, "hidden size d_model, elements; overrides the preset (default: the model's)")
	fs.IntVar(&f.heads, "heads", 0, "attention heads; overrides the preset (default: the model's)")
	fs.IntVar(&f.kvHeads, "kv-heads", 0, "key/value heads, fewer than --heads for GQA; overrides the preset (default: the model's; follows --heads for a multi-head model)")
	fs.IntVar(&f.ffn, "ffn", 0, "MLP intermediate size, elements (per expert for MoE); overrides the preset (default: the model's)")
	fs.IntVar(&f.vocab, "vocab", 0, "vocabulary size, tokens; overrides the preset (default: the model's)")
	fs.IntVar(&f.seq, "seq", defaultSeq, "training sequence length, tokens")

	fs.StringVar(&f.gpu, "gpu", defaultGPU, "GPU preset `ID` (list: splitscope presets)")
	fs.IntVar(&f.gpus, "gpus", defaultGPUs, "GPUs in the job, all nodes")
	fs.IntVar(&f.gpusPerNode, "gpus-per-node", defaultGPUsPerNode, "GPUs per node")
	fs.StringVar(&f.intra, "intra", "", "link preset `LINK` between GPUs inside a node (default: the GPU's native link, nvlink4 for h100-sxm)")
	fs.StringVar(&f.inter, "inter", defaultInter, "link preset `LINK` between nodes, per NIC")
	fs.IntVar(&f.nicsPerNode, "nics-per-node", 0, "NICs of the --inter link per node (default: --gpus-per-node)")
	fs.Var(&f.hostMemory, "host-memory", hostMemoryHelp)

	fs.IntVar(&f.tp, "tp", 0, "tensor-parallel size, GPUs per TP group; search tries only this TP (default: the largest ≤ min(gpus-per-node, gpus) that divides gpus/(pp·dp), heads and ffn and divides or is a multiple of kv-heads)")
	fs.IntVar(&f.pp, "pp", 0, "pipeline-parallel stages; search tries only this PP (default: the number of nodes when --tp and --dp are not given either, so TP stays inside a node and PP crosses nodes; else 1)")
	fs.IntVar(&f.dp, "dp", 0, "data-parallel replicas; search tries only this DP (default: gpus / (tp × pp))")
	fs.IntVar(&f.ep, "ep", 1, "expert parallelism for MoE models: the experts of each MoE layer are divided among this many data-parallel replicas, which exchange tokens by all-to-all; must divide dp and the experts")
	fs.IntVar(&f.etp, "etp", 0, "MoE models: expert tensor parallelism, the GPUs of the TP group each expert's matrices are split over (Megatron-core's --expert-tensor-parallel-size); below --tp the TP group's slices hold different experts, exchanged by all-to-all over ep × tp/etp GPUs, and the MLP's TP all-reduce shrinks to etp GPUs (none at 1); must divide tp (default 0: tp)")
	fs.Float64Var(&f.epImbalance, "ep-imbalance", 0, "with --ep: the busiest GPU's share of the routed tokens over the mean, ≥ 1; it slows that GPU's expert GEMMs and the all-to-alls every GPU waits for (default 0: 1.06, Mixtral 8x22B's dropless routing against forced balance on H100, Megatron-MoE-ModelZoo)")
	fs.StringVar(&f.epDispatch, "ep-dispatch", "direct", "with --ep across nodes: how the dispatch/combine all-to-alls cross them: direct (one all-to-all, each token copy for a remote expert on the network) or two-hop (DeepEP's internode kernels: each token once over RDMA to the same-rank GPU of each node holding its experts, one rail, then NVLink to them)")
	fs.IntVar(&f.cp, "cp", 1, "context parallelism: each sequence is cut into 2·cp chunks, two per GPU of a CP group, which hold 1/cp of the activations and of the attention's work and exchange attention's keys and values (--cp-comm); GPUs = tp × cp × pp × dp; in training cp must split --seq into 2·cp equal chunks; in serving (not with --disagg) a replica's prompts are split so, its KV cache sharded by token over the cp GPUs, and decode merges partial attention over them")
	fs.StringVar(&f.cpComm, "cp-comm", "ring", "with --cp: how the CP group exchanges K/V: ring (blocks passed peer to peer, hidden behind the attention's blocks where the link is fast enough), all-gather (once per layer, as Llama 3), ulysses (all-to-alls of Q, K, V and the output; cp must divide the KV heads per TP rank) or hybrid (Ulysses inside a node, ring across nodes)")
	fs.IntVar(&f.chunks, "chunks", defaultChunks, "virtual pipeline stages `V` per GPU, interleaved schedule only")
	fs.StringVar(&f.schedule, "schedule", defaultSchedule, "pipeline schedule: gpipe, 1f1b, interleaved, zb-h1, zb-v, dualpipe or dualpipev")
	fs.StringVar(&f.mode, "mode", defaultMode, "train (one optimizer step) or infer (serve --requests)")
	fs.IntVar(&f.batch, "batch", 0, "global batch `B` in sequences per optimizer step (default 32, raised to a multiple of micro-batch × dp, × pp for the interleaved schedule, when smaller or not a multiple)")
	fs.IntVar(&f.microBatch, "micro-batch", defaultMicroBatch, "training: micro-batch size `b`, sequences (serving has none: the engine batches what runs, --max-seqs and --max-batch-tokens)")
	fs.StringVar(&f.precision, "precision", defaultPrecision, "number format of weights and activations: bf16, fp16, fp8 or fp32")
	fs.StringVar(&f.recompute, "recompute", defaultRecompute, "activation recomputation: none, selective (attention core) or full (whole layer); search: auto (the default there) tries each")
	fs.Var(&f.sequenceParallel, "sequence-parallel", "shard norm and dropout activations across TP ranks, Megatron sequence parallelism (default off); search: auto (the default there) tries both")
	fs.Lookup("sequence-parallel").NoOptDefVal = "true"
	fs.BoolVar(&f.unfusedAttention, "unfused-attention", false, "software: attention materialises the s×s scores in HBM, as before FlashAttention (Megatron-LM 2021) (default off)")
	fs.BoolVar(&f.serialDP, "serial-dp", false, "software: all-reduce gradients after the whole backward instead of overlapping it (Megatron-LM 2021) (default off)")
	fs.StringVar(&f.collectives, "collectives", defaultCollectives, "whose TP all-reduce runs: nccl, engine (the serving engine's one-shot/two-shot kernels, vLLM and TensorRT-LLM, on one NVLink node below 8 MiB) or auto (engine in infer mode, nccl in training)")
	fs.StringVar(&f.tpOverlap, "tp-overlap", "none", "training: hide the TP collectives behind the GEMMs beside them: none, ring (the GEMM cut in TP tiles, each tile's exchange beside the next tile's compute) or pipe (one more exchange tile exposed); search: auto (the default there) tries each")
	fs.StringVar(&f.rankOrder, "rank-order", "tp-dp-pp", "how ranks are numbered over the GPUs, which fill the nodes in order: the nesting of the axes, innermost first, as Megatron-core's order: tp, cp, dp and pp each once (cp may be left out: it then follows tp), ep, if given, next to dp (ep-dp: EP inside DP, the default; dp-ep: outside); tp-dp-pp (Megatron's default tp-cp-ep-dp-pp: DP replicas beside TP in a node, the pipeline across nodes), tp-pp-dp (tp-cp-ep-pp-dp, Megatron's --use-tp-pp-dp-mapping, Llama 3's (TP, CP, PP, DP): pipeline stages beside TP, DP across nodes), or any other such as cp-tp-dp-pp; matters where the inner groups leave room in a node; search: auto (the default there) tries the orders with TP innermost and CP next to it (tp-dp-pp, tp-pp-dp) where they place the split differently")
	fs.StringVar(&f.offload, "offload", "none", "training: keep in host memory, over the GPU's PCIe link: none, optimizer (fp32 master, Adam and gradients; the CPU steps), optimizer+weights (the 16-bit weights too, streamed in for each pass), activations (the ones kept for the backward), optimizer+activations or optimizer+weights+activations; search: auto (the default there) tries each")
	fs.StringVar(&f.spGather, "sp-gather", "redo", "training, with --sequence-parallel: redo the all-gather of the QKV and MLP inputs in the backward (Megatron) or keep them gathered from the forward (more memory); search: auto (the default there) tries both")
	fs.Var(&f.zero, "zero", "ZeRO stage 0-3: what data parallelism shards (1 optimizer state, 2 + gradients, 3 + weights) (default 0: none); search: auto (the default there) tries each")

	fs.IntVar(&f.prompt, "prompt", defaultPrompt, "inference: prompt tokens per request")
	fs.IntVar(&f.gen, "gen", defaultGen, "inference: generated tokens per request")
	fs.IntVar(&f.reqs, "requests", 0, "inference: requests to serve (default 8); the balancer hands them to the DP replicas in turn")
	fs.Float64Var(&f.rate, "rate", 0, "inference: requests/s arriving as a Poisson process (seeded by --seed); 0: all at once, the offline benchmark (default 0)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "inference: a closed loop of this many clients, each sending its next request when its last one ends; not with --rate (default 0: off)")
	fs.Uint64Var(&f.seed, "seed", 0, "inference: seed of the arrivals and the lengths drawn from --workload (default 0)")
	fs.StringVar(&f.workload, "workload", "", "inference: workload `FILE` (YAML) with length distributions, e.g. prompt: {dist: uniform, min: 128, max: 2048} and gen: {dist: lognormal, mean: 256, sigma: 0.6} (a length left out keeps --prompt or --gen); system_prompt: N tokens before every prompt, or {tokens: N, share: 0.6} of them (in the engine's prefix cache after the first request that carries them, as vLLM V1 and SGLang by default; cached: false prefills them every time); prefix_cached: N tokens of every prompt already cached (a benchmark that cycles fixed prompts); stages: [{rate: 1, duration: 60s}, {rate: 5, requests: 600}], Poisson arrivals stage after stage, replacing --rate and --requests (default none)")
	fs.IntVar(&f.maxSeqs, "max-seqs", 0, "inference: most sequences in one engine step, vLLM's max_num_seqs (default: vLLM's, 1024 on GPUs of 70 GiB or more but A100, else 256)")
	fs.IntVar(&f.maxBatchTokens, "max-batch-tokens", 0, "inference: most tokens in one engine step, decode first then prefill chunks, vLLM's max_num_batched_tokens (default: vLLM's, 8192 on GPUs of 70 GiB or more but A100, else 2048)")
	fs.StringVar(&f.expertWeights, "expert-weights", "", "inference, MoE models: storage of the routed experts where it differs from --weights (mxfp4 or fp8 experts beside bf16 attention, as gpt-oss ships); default: --weights, else the model's checkpoint's format")
	fs.StringVar(&f.weights, "weights", "", "inference: storage of the weights: "+strings.Join(model.WeightFormats, ", ")+" or bits per weight (4.5 for a 4.5 bpw quantization); fp8 runs on FP8 cores where the GPU has them, the others dequantize into --precision matmuls (default: --precision)")
	fs.StringVar(&f.kvCache, "kv-cache", "", "inference: KV cache format: bf16, fp16 or fp8 (default: --precision)")
	fs.IntVar(&f.recvInterval, "scheduler-recv-interval", 0, fmt.Sprintf("inference: the engine's scheduler takes new requests only every N decode steps, SGLang's --scheduler-recv-interval (a step after a prompt step takes them at once); 0 or 1: every step, 2 to %d (default 0)", model.MaxRecvInterval))
	fs.Float64Var(&f.prefixHit, "prefix-hit", 0, "inference: the share of each prompt the engine's prefix cache holds when it arrives, 0 to 1 (a multi-turn chat's earlier turns, an agent loop's context): whole KV blocks of it are not prefilled, 1 leaves the last token; with a workload file's prefix_cached, the larger (default 0: none)")
	fs.IntVar(&f.turns, "turns", 0, fmt.Sprintf("inference: conversations of N turns, 2 to %d: --requests and --rate count conversations; each later turn's prompt is the conversation so far plus a new message of --prompt tokens, sent --think after the turn before it ended, to the same replica; the engine's prefix cache keeps the conversation while its pool has room (default 0: single requests)", model.MaxTurns))
	fs.DurationVar(&f.think, "think", 0, "inference, with --turns: the user's mean time between a turn's answer and the next turn (exponential), e.g. 30s; the longer, the likelier the conversation was evicted from the GPUs' cache (default 0)")
	fs.Float64Var(&f.kvHostGiB, "kv-host-gib", 0, "inference: a host-memory tier of the KV cache, GiB per GPU (vLLM's KV offloading connector, LMCache's CPU backend): cached prefixes evicted from the GPU are kept there and loaded back over PCIe instead of prefilled again; counts against --host-memory (default 0: none)")
	fs.StringVar(&f.disagg, "disagg", "", "inference: disaggregated serving, `P:D` GPUs in the prefill and decode pools (P + D = --gpus, whole nodes when they span nodes): the prefill pool runs the prompts and ships each request's KV cache to a decode instance over the link between them; --tp, --pp, --dp and --ep are the decode pool's; an open loop (--rate, or all at once), a closed one (--concurrency) or conversations (--turns); search: auto tries one pool and every split, with prefill CP where prompts are 8K tokens or more (default off: one pool)")
	fs.IntVar(&f.prefillTP, "prefill-tp", 0, "inference, with --disagg: the prefill pool's tensor-parallel size (default 0: --tp)")
	fs.IntVar(&f.prefillPP, "prefill-pp", 0, "inference, with --disagg: the prefill pool's pipeline stages (default 0: 1)")
	fs.IntVar(&f.prefillCP, "prefill-cp", 0, "inference, with --disagg: the prefill pool's context parallelism, each prompt split over that many GPUs of an instance (TP × CP × PP), its KV cache sharded by token (--cp-comm: the exchange; default 0: none)")
	fs.IntVar(&f.prefillEP, "prefill-ep", 0, "inference, with --disagg, MoE models: the prefill pool's expert-parallel size, dividing its DP (default 0: --ep where it divides the pool's DP, else none)")
	fs.StringVar(&f.engine, "engine", "", "inference: the serving engine whose defaults the simulation follows: "+engineHelp()+"; each read from its engine's source (scheduler, chunk budget, CUDA-graph limits, all-reduce kernels), cited in docs/costmodel.md § Serving (default vllm)")
	fs.DurationVar(&f.sloTTFT, "slo-ttft", 0, "inference: the latency target for the p90 time to first token, e.g. 500ms; judges the run, report --sweep-rate's goodput and search --objective goodput (default 0: none)")
	fs.DurationVar(&f.sloTPOT, "slo-tpot", 0, "inference: the latency target for the p90 time per output token, e.g. 50ms (default 0: none)")
	f.specFlags(fs)

	fs.Float64Var(&f.computeEff, "compute-eff", 0, "calibration: fraction of peak FLOP/s a large matmul reaches, (0, 1] (default 0: the GPU preset's)")
	fs.Float64Var(&f.memoryEff, "memory-eff", 0, "calibration: fraction of HBM bandwidth a streaming kernel reaches, (0, 1] (default 0: the GPU preset's)")
	fs.Float64Var(&f.intraEff, "intra-eff", 0, "calibration: fraction of the --intra bandwidth large collectives reach, (0, 1] (default 0: the link preset's)")
	fs.Float64Var(&f.interEff, "inter-eff", 0, "calibration: fraction of the --inter bandwidth large collectives reach, (0, 1] (default 0: the link preset's)")
	fs.Float64Var(&f.reserveGiB, "reserve-gib", 0, "calibration: memory per GPU lost to the CUDA context and allocator, GiB (default 0: 1 GiB)")

	fs.StringArrayVar(&f.box, "box", nil, "saved probe `FILE` (probe --save) as the hardware instead of --gpu, --gpus, --gpus-per-node and --intra; repeat it for several nodes, one file each, joined by --inter (default none)")
	fs.StringVar(&f.calibration, "calibration", "", "calibration `FILE` written by splitscope calibrate --out: the link parameters it measured replace the presets' for the links it names, wherever they are used (default none)")
	fs.BoolVar(&f.json, "json", false, "print JSON instead of tables (default off)")
	fs.StringVar(&f.lesson, "lesson", "", "`DIR` of scenario files, one a step in name order, each with a title, a caption (en, fr) and optionally a question and a tab: the guided tour (g) is this lesson (default: the embedded tour)")
	fs.StringVar(&f.lang, "lang", "", "language of the teaching texts (Learn tab, tour, exports): "+strings.Join(languages, " or ")+" (default: fr when LC_ALL, LC_MESSAGES or LANG starts with fr, else en)")
}

func (f *scenarioFlags) changed(name string) bool {
	fl := f.fs.Lookup(name)
	return fl != nil && fl.Changed
}

// unknownPreset is the error for an ID that names no preset: the flag, the value and the IDs known.
func unknownPreset(flag, kind, id string, known []string) *model.FieldError {
	return &model.FieldError{Field: flag, Value: id, Allowed: "unknown " + kind + "; one of " + strings.Join(known, ", ")}
}

// enumError turns a model.Parse* error into one that names the flag and lists the choices.
func enumError(flag, value string, err error) *model.FieldError {
	allowed := err.Error()
	if fe, ok := err.(*model.FieldError); ok {
		allowed = fe.Allowed
	}
	if !strings.HasPrefix(allowed, "one of") {
		allowed = "one of " + allowed
	}
	return &model.FieldError{Field: flag, Value: value, Allowed: allowed}
}

// defaultTP is model.DefaultTP, the TP size used when --tp is not given.
func defaultTP(n, perNode int, a model.Arch) int { return model.DefaultTP(n, perNode, a) }

// scenario builds the Scenario the flags describe and validates it. Every problem is returned at
// once, as a scenarioError that says each against what the user wrote (explain) and unwraps to
// the model.ValidationError. For search, the layout is only a starting point that keeps the
// sizes typed (searchFix).
func (f *scenarioFlags) scenario(p *assets.Presets, forSearch bool) (model.Scenario, error) {
	var errs model.ValidationError
	var s model.Scenario

	boxed := len(f.box) > 0 || f.boxes != nil
	if err := f.applyScenarioFile(p, boxed); err != nil {
		return s, err
	}
	if boxed {
		errs = append(errs, f.boxConflicts()...)
	}
	arch, err := p.Model(f.model)
	if err != nil && looksLikeConfigPath(f.model) {
		// A Hugging Face config.json, or the folder that holds one.
		var fe *model.FieldError
		if arch, fe = readHFConfigFlag(f.model); fe != nil {
			errs = append(errs, fe)
		} else {
			// One more model for this run: the explorer's model row cycles back to it, and
			// capacity answers count it.
			arch.ID = p.AddModel(arch)
		}
	} else if err != nil {
		errs = append(errs, unknownPreset("model", "model", f.model, p.ModelIDs()))
	}
	var dev model.GPU
	var intra model.Link
	if !boxed {
		dev, err = p.GPU(f.gpu)
		gpuOK := err == nil
		if !gpuOK {
			errs = append(errs, unknownPreset("gpu", "GPU", f.gpu, p.GPUIDs()))
		}
		if f.changed("intra") {
			if intra, err = p.Link(f.intra); err != nil {
				errs = append(errs, unknownPreset("intra", "link", f.intra, p.LinkIDs()))
			}
		} else if gpuOK {
			if intra, err = p.Link(dev.NativeLink); err != nil {
				return s, fmt.Errorf("native link %q of gpu %s: %w", dev.NativeLink, dev.ID, err)
			}
		}
	}
	inter, err := p.Link(f.inter)
	if err != nil {
		errs = append(errs, unknownPreset("inter", "link", f.inter, p.LinkIDs()))
	}

	mode, err := model.ParseMode(f.mode)
	if err != nil {
		errs = append(errs, enumError("mode", f.mode, err))
	}
	sched, err := model.ParseSchedule(f.schedule)
	if err != nil {
		errs = append(errs, enumError("schedule", f.schedule, err))
	}
	prec, err := model.ParsePrecision(f.precision)
	if err != nil {
		errs = append(errs, enumError("precision", f.precision, err))
	}
	// The training knobs: auto (search's, swept) stands as the zero value; knobAutoErrors
	// refuses it elsewhere.
	rc := knobValue("recompute", f.recompute, model.ParseRecompute, &errs)
	tpo := knobValue("tp-overlap", f.tpOverlap, model.ParseTPOverlap, &errs)
	order := knobValue("rank-order", f.rankOrder, model.ParseRankOrder, &errs)
	epd, err := model.ParseEPDispatch(f.epDispatch)
	if err != nil {
		errs = append(errs, enumError("ep-dispatch", f.epDispatch, err))
	}
	cpc, err := model.ParseCPComm(f.cpComm)
	if err != nil {
		errs = append(errs, enumError("cp-comm", f.cpComm, err))
	}
	spg := knobValue("sp-gather", f.spGather, model.ParseSPGather, &errs)
	off := knobValue("offload", f.offload, model.ParseOffload, &errs)
	if !forSearch {
		errs = append(errs, f.knobAutoErrors()...)
	}
	if f.ep == 0 {
		lo, hi, _ := model.IntLimits("ep")
		errs = append(errs, &model.FieldError{Field: "ep", Value: f.ep, Allowed: fmt.Sprintf("must be between %d and %d", lo, hi)})
	}
	if f.cp < 1 {
		lo, hi, _ := model.IntLimits("cp")
		errs = append(errs, &model.FieldError{Field: "cp", Value: f.cp, Allowed: fmt.Sprintf("must be between %d and %d", lo, hi)})
	}
	coll, err := model.ParseCollectives(f.collectives)
	if err != nil {
		errs = append(errs, enumError("collectives", f.collectives, err))
	}
	// The float flags: NaN, ±Inf and values out of range are named here, with what is allowed
	// (comparisons with NaN are false, so NaN fails each test).
	for _, c := range []struct {
		name string
		v    float64
	}{{"compute-eff", f.computeEff}, {"memory-eff", f.memoryEff}, {"intra-eff", f.intraEff}, {"inter-eff", f.interEff}} {
		if c.v != 0 && !(c.v > 0 && c.v <= 1) {
			errs = append(errs, &model.FieldError{Field: c.name, Value: c.v, Allowed: floatAllowed[c.name]})
		}
	}
	// The engine's limits: 0 is their default, but a typed 0 is a mistake.
	for _, c := range []struct {
		name string
		v    int
	}{{"max-seqs", f.maxSeqs}, {"max-batch-tokens", f.maxBatchTokens}} {
		if f.changed(c.name) && c.v == 0 {
			lo, hi, _ := model.IntLimits(c.name)
			errs = append(errs, &model.FieldError{Field: c.name, Value: 0, Allowed: fmt.Sprintf("must be between %d and %d (leave it out for vLLM's default)", lo, hi)})
		}
	}
	if !(f.reserveGiB >= 0 && f.reserveGiB <= maxReserveGiB) {
		errs = append(errs, &model.FieldError{Field: "reserve-gib", Value: f.reserveGiB, Allowed: floatAllowed["reserve-gib"]})
	}
	reserve := float64(model.DefaultReserveBytes)
	if f.reserveGiB > 0 {
		reserve = f.reserveGiB * model.GiB
	}
	specAcc, specDraft, specErrs := f.speculation(p)
	errs = append(errs, specErrs...)
	if len(errs) > 0 {
		return s, f.explain(errs, s, forSearch)
	}

	// The boxes set the GPU, how many, how many per node and the link between them.
	gpus, perNode := f.gpus, f.gpusPerNode
	var hostMem float64
	nics := f.gpusPerNode
	if f.changed("nics-per-node") {
		nics = f.nicsPerNode
	}
	if boxed {
		if f.interEff != 0 {
			inter.Efficiency = f.interEff
		}
		c, err := f.boxCluster(p, inter)
		if err != nil {
			return s, err
		}
		dev, intra, gpus, perNode, nics = c.GPU, c.Intra, c.GPUs, c.GPUsPerNode, c.NICsPerNode
		hostMem = c.HostMemoryBytes
	}
	if f.hostMemory.v > 0 {
		hostMem = f.hostMemory.v // the flag (or the scenario file's host_memory) over the box
	}

	// Architecture overrides. A multi-head preset stays multi-head when only --heads changes.
	if f.changed("heads") && !f.changed("kv-heads") && arch.KVHeads == arch.Heads {
		arch.KVHeads = f.heads
	}
	for _, o := range []struct {
		name string
		dst  *int
		v    int
	}{
		{"layers", &arch.Layers, f.layers}, {"hidden", &arch.Hidden, f.hidden}, {"heads", &arch.Heads, f.heads},
		{"kv-heads", &arch.KVHeads, f.kvHeads}, {"ffn", &arch.FFN, f.ffn}, {"vocab", &arch.Vocab, f.vocab},
	} {
		if f.changed(o.name) {
			*o.dst = o.v
		}
	}
	if preset, err := p.Model(arch.ID); err == nil {
		arch.Changes = model.ArchChanges(preset, arch)
	}

	// Calibration overrides: 0 keeps the preset's value.
	if f.computeEff != 0 {
		dev.ComputeEff, dev.ComputeEffFP8 = f.computeEff, 0 // one efficiency for every precision when typed
	}
	if f.memoryEff != 0 {
		dev.MemoryEff, dev.GEMMMemoryEff = f.memoryEff, 0 // the matmuls' streaming too
	}
	if f.intraEff != 0 {
		intra.Efficiency = f.intraEff
	}
	if f.interEff != 0 {
		inter.Efficiency = f.interEff
	}

	s.Arch = arch
	s.Cluster = model.Cluster{GPU: dev, GPUs: gpus, GPUsPerNode: perNode, Intra: intra, Inter: inter, NICsPerNode: nics, HostMemoryBytes: hostMem}
	s.ReserveBytes = reserve

	// Layout, batch and requests: the ones not given take their defaults (model.ResolveSizes).
	// Search sweeps the layout: only the sizes typed fix it (searchFix), not a file's.
	given := model.SizesGiven{TP: f.changed("tp"), PP: f.changed("pp"), DP: f.changed("dp"), MicroBatch: f.changed("micro-batch"),
		Batch: f.changed("batch"), Requests: f.changed("requests")}
	if forSearch {
		given.TP, given.PP, given.DP, given.MicroBatch = f.typedFlag("tp"), f.typedFlag("pp"), f.typedFlag("dp"), f.typedFlag("micro-batch")
	}
	// Disaggregated serving: the layout's sizes are the decode pool's, on the GPUs the prefill
	// pool leaves.
	disagg := f.disagg
	if forSearch && isAuto(disagg) {
		disagg = "" // search tries every split (searchFix)
	}
	prefill, derr := model.ParseDisagg(disagg, gpus)
	if derr != nil {
		return s, f.explain(model.ValidationError{derr.(*model.FieldError)}, s, forSearch)
	}
	poolGPUs := gpus - prefill
	sz, split := model.ResolveSizes(model.SplitGPUs(poolGPUs, f.cp), perNode, arch, sched, mode,
		model.Sizes{TP: f.tp, PP: f.pp, DP: f.dp, MicroBatch: f.microBatch, Batch: f.batch, Requests: f.reqs}, given, forSearch)
	if split != nil && f.cp > 1 {
		// Name the split with CP's factor and the GPUs as typed.
		split.Allowed = fmt.Sprintf("tp × cp × pp (%d × %d × %d) must divide gpus (%d)", sz.TP, f.cp, sz.PP, gpus)
	}
	s.Layout = model.Layout{TP: sz.TP, PP: sz.PP, DP: sz.DP, Chunks: f.chunks, MicroBatch: sz.MicroBatch,
		Schedule: sched, SequenceParallel: f.sequenceParallel.v, Recompute: rc, ZeRO: f.zero.v, TPOverlap: tpo, RankOrder: order, Offload: off, SPGather: spg,
		UnfusedAttention: f.unfusedAttention, SerialDP: f.serialDP, Collectives: coll, EP: canonicalEP(f.ep), EPImbalance: f.epImbalance, ETP: f.etp, EPDispatch: epd, CP: canonicalEP(f.cp), CPComm: cpc,
		Disagg: model.Disagg{PrefillGPUs: prefill, PrefillTP: f.prefillTP, PrefillPP: f.prefillPP, PrefillEP: f.prefillEP, PrefillCP: f.prefillCP}}
	batch, reqs := sz.Batch, sz.Requests
	s.Workload = model.Workload{Mode: mode, Seq: f.seq, GlobalBatch: batch, PromptTokens: f.prompt,
		GenTokens: f.gen, Requests: reqs, Precision: prec, Rate: f.rate, Concurrency: f.concurrency, Seed: f.seed,
		MaxSeqs: f.maxSeqs, MaxBatchTokens: f.maxBatchTokens, Weights: f.weights, ExpertWeights: f.expertWeights, KVCache: f.kvCache, Engine: f.engine,
		SchedulerRecvInterval: f.recvInterval, SLOTTFT: f.sloTTFT.Seconds(), SLOTPOT: f.sloTPOT.Seconds(), PrefixHit: f.prefixHit,
		Turns: f.turns, ThinkS: f.think.Seconds(), KVHostGiB: f.kvHostGiB,
		SpecTokens: f.specTokens, SpecAccept: specAcc, SpecMethod: f.specMethod, SpecDraft: specDraft}
	if f.workload != "" {
		data, err := readBoundedFile("workload", f.workload, maxInputBytes, "a workload file")
		if err != nil {
			return s, err
		}
		wf, err := assets.ParseWorkload(f.workload, data)
		if err != nil {
			return s, fileProblems(err)
		}
		s.Workload.PromptDist, s.Workload.GenDist = wf.Prompt, wf.Gen
		s.Workload.SystemPrompt, s.Workload.SystemShare = wf.SystemPrompt, wf.SystemShare
		s.Workload.SystemUncached, s.Workload.PrefixCached = wf.SystemUncached, wf.PrefixCached
		if len(wf.Stages) > 0 {
			st := model.RateStages(wf.Stages)
			s.Workload.Stages = &st
			// The schedule sends its own requests: Requests is their expected number (the label's).
			s.Workload.Rate, s.Workload.Requests = 0, max(int(math.Round(model.ExpectedRequests(wf.Stages))), 1)
		}
	}

	f.flagWarnings = append(f.typedWarnings(s), f.calibrationWarnings(s)...)
	if prefill == 0 && (f.prefillTP != 0 || f.prefillPP != 0 || f.prefillEP != 0 || f.prefillCP != 0) {
		f.flagWarnings = append(f.flagWarnings, "--prefill-tp, --prefill-pp, --prefill-ep and --prefill-cp have no effect without --disagg")
	}
	if s.Workload.Stages != nil {
		for _, name := range []string{"rate", "requests"} {
			if f.changed(name) {
				f.flagWarnings = append(f.flagWarnings, fmt.Sprintf("--%s has no effect: the workload file's stages replace --rate and --requests", name))
			}
		}
	}
	err = s.Validate()
	ve, ok := err.(model.ValidationError)
	if err != nil && !ok {
		return s, err
	}
	if split == nil {
		return s, f.explain(ve, s, forSearch)
	}
	// The derived dp is a placeholder: report the tp × pp split, not the dp it implies.
	for _, fe := range ve {
		if fe.Field != "dp" {
			errs = append(errs, fe)
		}
	}
	return s, f.explain(append(errs, split), s, forSearch)
}

// languages are the values --lang takes; the first is the fallback.
var languages = []string{"en", "fr"}

// language is the language of the teaching texts: --lang when given (checkLang has checked it),
// else the locale's (the first of LC_ALL, LC_MESSAGES and LANG that is set) when it is French,
// else English.
func (f *scenarioFlags) language() string {
	if f.changed("lang") {
		return strings.ToLower(strings.TrimSpace(f.lang))
	}
	return langFromEnv(os.Getenv)
}

// langFromEnv reads the POSIX locale variables in their order of precedence.
func langFromEnv(getenv func(string) string) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := strings.ToLower(getenv(v)); loc != "" {
			if strings.HasPrefix(loc, "fr") {
				return "fr"
			}
			return languages[0]
		}
	}
	return languages[0]
}

// checkLang rejects a --lang that is not one of languages.
func (f *scenarioFlags) checkLang() error {
	if !f.changed("lang") {
		return nil
	}
	for _, l := range languages {
		if strings.EqualFold(strings.TrimSpace(f.lang), l) {
			return nil
		}
	}
	return &model.FieldError{Field: "lang", Value: f.lang, Allowed: "one of " + strings.Join(languages, ", ")}
}

// tourPrefix marks a --scenario value that names a step of the embedded tour.
const tourPrefix = "tour/"

// readScenarioFile reads --scenario: tour/NAME from the embedded tour, anything else from disk.
func (f *scenarioFlags) readScenarioFile(p *assets.Presets) (assets.ScenarioFile, error) {
	ref := f.scenarioFile
	if strings.HasPrefix(ref, tourPrefix) && !strings.HasSuffix(ref, ".yaml") && !strings.HasSuffix(ref, ".yml") {
		sf, err := assets.TourScenario(ref, p)
		if errors.Is(err, assets.ErrUnknownTourStep) {
			steps := assets.TourSteps()
			for i, s := range steps {
				steps[i] = tourPrefix + s
			}
			return sf, &model.FieldError{Field: "scenario", Value: ref, Allowed: "unknown tour step; one of " + strings.Join(steps, ", ")}
		}
		return sf, err
	}
	data, err := readInputFile("scenario", ref)
	if err != nil {
		return assets.ScenarioFile{}, err
	}
	sf, err := assets.ParseScenario(ref, data, p)
	if err != nil {
		return sf, fileProblems(err)
	}
	return sf, nil
}

// fileProblems is an assets error about a file the user gave, one problem a line, each naming
// the file, the line and the key (exit 2).
func fileProblems(err error) error {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "assets: ")
	}
	return &inputError{err: fmt.Errorf("%s", strings.Join(lines, "\n"))}
}

// presets loads the embedded presets with --calibration applied: the links the calibration
// names carry its measured parameters wherever they are used (the scenario's links, those a
// --box implies, the links the explorer steps through).
func (f *scenarioFlags) presets() (*assets.Presets, error) {
	p, err := loadPresets()
	if err != nil || f.calibration == "" {
		return p, err
	}
	data, err := readBoundedFile("calibration", f.calibration, maxInputBytes, "a calibration file")
	if err != nil {
		return nil, err
	}
	c, err := assets.ParseCalibration(f.calibration, data, p)
	if err != nil {
		return nil, fileProblems(err)
	}
	f.calib = &c
	p.Calibrate(c, filepath.Base(f.calibration))
	return p, nil
}

// calibrationWarnings say when --calibration does not do what it seems to: it calibrates no link
// the scenario uses, it was measured on another GPU, or --intra-eff / --inter-eff override the
// efficiency it measured.
func (f *scenarioFlags) calibrationWarnings(s model.Scenario) []string {
	if f.calib == nil {
		return nil
	}
	c, name := s.Cluster, f.calibration
	var w []string
	if sc := f.calib.Serving; sc != nil {
		switch {
		case f.calib.GPU != c.GPU.ID:
			w = append(w, fmt.Sprintf("--calibration %s calibrates serving on %s, the scenario's GPUs are %s: its serving parameters change nothing here",
				name, f.calib.GPU, c.GPU.ID))
		case f.calib.Engine != "" && (s.Workload.Mode != model.Infer || engineName(s.Workload.Engine) != f.calib.Engine):
			what := "the scenario trains"
			if s.Workload.Mode == model.Infer {
				what = "the scenario serves with " + engineName(s.Workload.Engine)
			}
			w = append(w, fmt.Sprintf("--calibration %s calibrates %s on %s, %s: its serving parameters change nothing here",
				name, f.calib.Engine, f.calib.GPU, what))
		default:
			for _, o := range []struct {
				flag string
				v    float64
			}{{"compute-eff", sc.ComputeEff}, {"memory-eff", sc.MemoryEff}} {
				if f.changed(o.flag) && o.v > 0 {
					w = append(w, fmt.Sprintf("--%s replaces the %s --calibration %s fitted (%.3g)", o.flag, strings.TrimSuffix(o.flag, "-eff")+" efficiency", name, o.v))
				}
			}
		}
		if len(f.calib.Links()) == 0 {
			return w
		}
	}
	var used, talks []string
	if c.NodeSize() > 1 {
		talks = append(talks, c.Intra.ID+" inside a node")
		if c.Intra.Calibrated != "" {
			used = append(used, c.Intra.ID)
		}
	}
	if c.Nodes() > 1 {
		talks = append(talks, c.Inter.ID+" between nodes")
		if c.Inter.Calibrated != "" {
			used = append(used, c.Inter.ID)
		}
	}
	if len(used) == 0 {
		over := "nothing (one GPU)"
		if len(talks) > 0 {
			over = strings.Join(talks, " and ")
		}
		return append(w, fmt.Sprintf("--calibration %s calibrates %s, but the scenario's GPUs talk over %s: it changes nothing here",
			name, strings.Join(f.calib.LinkIDs(), " and "), over))
	}
	if f.calib.GPU != c.GPU.ID {
		w = append(w, fmt.Sprintf("--calibration %s was measured on %s, the scenario's GPUs are %s: its %s parameters are used as they are",
			name, f.calib.GPU, c.GPU.ID, strings.Join(used, " and ")))
	}
	for _, o := range []struct {
		flag string
		link model.Link
		lc   *model.LinkCalibration
	}{{"intra-eff", c.Intra, f.calib.Intra}, {"inter-eff", c.Inter, f.calib.Inter}} {
		if f.changed(o.flag) && o.lc != nil && o.lc.Efficiency > 0 && o.link.ID == o.lc.Link && slices.Contains(used, o.link.ID) {
			w = append(w, fmt.Sprintf("--%s %g replaces the efficiency --calibration %s measured for %s (%g)",
				o.flag, o.link.Efficiency, name, o.link.ID, o.lc.Efficiency))
		}
	}
	return w
}

// applyScenarioFile sets the --scenario file's keys as flags, except those typed on the command
// line: defaults < the file < the command line. A file's dp is left out when the command line
// sets gpus, tp or pp, so that DP is derived again; with boxes, the file's hardware keys (gpu,
// gpus, gpus_per_node, intra) are left out, as the boxes set them.
func (f *scenarioFlags) applyScenarioFile(p *assets.Presets, boxed bool) error {
	if f.scenarioApplied || f.scenarioFile == "" {
		return nil
	}
	f.scenarioApplied = true
	sf, err := f.readScenarioFile(p)
	if err != nil {
		return err
	}
	f.scenarioTitle = sf.Title
	typed := map[string]bool{}
	// Changed, not Visit: cobra parses a subcommand's copy of the set, sharing the flags.
	f.fs.VisitAll(func(fl *pflag.Flag) { typed[fl.Name] = fl.Changed })
	f.typed = typed
	f.fileSet = map[string]assets.Setting{}
	for _, kv := range sf.Set {
		name := kv.Flag()
		switch {
		case typed[name]:
			continue
		case name == "dp" && (typed["gpus"] || typed["tp"] || typed["pp"] || boxed):
			continue
		case boxed && slices.Contains(boxFlags, name):
			continue
		}
		if err := f.fs.Set(name, kv.Value); err != nil {
			why := err.Error()
			if fe := badFlagValue(err); fe != nil {
				why = fe.Allowed
			}
			return &inputError{err: fmt.Errorf("%s line %d: %s = %s: %s", f.scenarioFile, kv.Line, kv.Key, kv.Value, why)}
		}
		f.fileSet[name] = kv
	}
	return nil
}

// engineHelp lists the engines --engine takes, each with what it does by default.
func engineHelp() string {
	var parts []string
	for _, id := range model.EngineIDs() {
		e := model.Engines[id]
		var how []string
		if e.PrefillFirst {
			how = append(how, "prompts first")
		} else {
			how = append(how, "decodes first")
		}
		if e.WholePrompts {
			how = append(how, "whole prompts")
		} else {
			how = append(how, "chunked prompts")
		}
		if e.Overlap {
			how = append(how, "overlapped scheduling")
		}
		if e.ReserveWhole {
			how = append(how, "admits with blocks for the whole output")
		}
		if e.MultiStep > 1 {
			how = append(how, fmt.Sprintf("decodes in windows of %d steps", e.MultiStep))
		}
		if e.FrontEndS > 0 {
			how = append(how, fmt.Sprintf("%g ms API front end", e.FrontEndS*1e3))
		}
		if e.EagerLayerS > 0 {
			how = append(how, fmt.Sprintf("prompt steps outside CUDA graphs (%g ms of host time a MLA or MoE layer)", e.EagerLayerS*1e3))
		}
		if e.GraphMaxBatch > 0 {
			how = append(how, fmt.Sprintf("decode batches of more than %d sequences outside CUDA graphs", e.GraphMaxBatch))
		}
		if e.EagerDenseLayerS > 0 {
			how = append(how, fmt.Sprintf("%g ms of host time a dense layer outside CUDA graphs", e.EagerDenseLayerS*1e3))
		}
		if e.HostPerSeqS > 0 {
			how = append(how, fmt.Sprintf("%g ms of host time a sequence every step", e.HostPerSeqS*1e3))
		}
		if e.LibraryAllReduce {
			how = append(how, "all-reduces through NCCL/RCCL, no engine kernel")
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s: %s)", id, e.Name, e.Versions, strings.Join(how, ", ")))
	}
	return strings.Join(parts, "; ")
}
