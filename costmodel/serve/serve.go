// Package serve simulates an inference engine at iteration level, the way vLLM, SGLang and
// TensorRT-LLM run: requests arrive; each engine step runs every running sequence's next decode
// token plus prefill chunks of new requests within a token budget (chunked prefill); a paged KV
// cache admits requests while it has blocks and preempts the newest when a running sequence
// needs a block it cannot get; finished requests leave. Pipeline parallelism keeps one batch in
// flight per stage, each with its own requests and one KV cache for all; DP replicas serve
// behind a round-robin balancer.
//
// The package knows nothing of GPUs: the time of a step on each pipeline stage comes from a
// StepCost the caller supplies (costmodel builds it from its roofline and collective models).
// Everything here is pure and deterministic: the same Config and workload give the same result.
package serve

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/model"
)

// Batch is what one engine step runs, summed over its sequences.
type Batch struct {
	// DecodeSeqs sequences each run one token; DecodeCtx is the sum of their contexts (the
	// tokens whose keys and values each one reads, its own new token included).
	DecodeSeqs int
	DecodeCtx  float64
	// PrefillTokens prompt tokens of PrefillSeqs sequences (whole prompts or chunks of them);
	// PrefillAttn is Σ chunk · (tokens before the chunk + (chunk+1)/2), the keys their queries
	// attend to in all; PrefillCtx is Σ (tokens before the chunk + chunk), the context each
	// chunk's attention reads.
	PrefillTokens int
	PrefillSeqs   int
	PrefillAttn   float64
	PrefillCtx    float64
	// Samples is the number of sequences that produce a token this step (logits): every decode
	// sequence, and each prefill whose last chunk this is.
	Samples int
	// Spec is the speculative tokens each decode sequence verifies beside its own (Config.SpecTokens):
	// a decode sequence runs 1 + Spec tokens, and its logits are taken at each of them.
	Spec int
	// LoadBlocks is the KV blocks the step loads from the host tier before its forward
	// (Config.HostBlocks): prefixes of the requests it admits.
	LoadBlocks int
	// InSystem is the replica's requests that have reached its scheduler and not yet finished
	// or been refused when the batch is built: running or waiting (an engine that walks all it
	// holds every step pays for them, costmodel's trtPPHostPerActive).
	InSystem int
}

// Tokens is the batch's tokens: one per decode sequence (1 + Spec with speculation) plus the
// prefill tokens.
func (b *Batch) Tokens() int { return b.DecodeSeqs*(1+b.Spec) + b.PrefillTokens }

// StepCost times an engine step.
type StepCost interface {
	// Stage is the time of the batch on pipeline stage s (its compute, its collectives and the
	// engine's own per-step overhead), with the part of it that is TP and expert communication.
	Stage(s int, b *Batch) StageTime
	// Transfer is the time to send the batch's activations from stage s to stage s+1.
	Transfer(s int, b *Batch) float64
}

// StageTime is one step on one stage, seconds: in all, and its TP and expert (all-to-all)
// communication.
type StageTime struct{ Seconds, TP, EP, CP float64 }

// Request is one request of the workload.
type Request struct {
	Arrival float64 // seconds; ignored in a closed loop (Config.Concurrency > 0)
	Prompt  int     // prompt tokens
	Gen     int     // tokens to generate (≥ 1)
	Stage   int     // the stage of a rate schedule it arrived in (0 without one)
	// Cached is how many of the prompt's first tokens the engine's prefix cache already holds
	// (vLLM's automatic prefix caching, on by default in V1, of a prompt it has served before):
	// whole blocks of them, never the last token, are not computed; their keys and values are
	// still read by the sequence's attention and held in its blocks (a static hit: such a
	// cache is counted once per request, in its own blocks).
	Cached int
	// Group > 0 names a prefix the requests of the group share: their first Shared tokens (a
	// system prompt). Each replica holds the group's whole blocks of it once, in a pool of
	// cached blocks with a reference count (vLLM V1's BlockPool: cached blocks that no running
	// request uses stay cached in a free queue and are evicted least recently used first, when
	// the pool needs blocks, before anything is preempted). A request admitted while its
	// group's blocks are cached skips their prefill (a hit); otherwise it prefills them and
	// they become the group's (a miss); one admitted while another request is still prefilling
	// them prefills its own copy. 0: no shared prefix.
	Group  int
	Shared int
	// A conversation's turns (Workload.Turns). After > 0: the request is the next turn of
	// request After−1, sent Think seconds after that one's last token came (its Arrival is
	// ignored; it runs on the same replica, as a session-affine router sends it). Then > 0: when
	// the request finishes, the whole blocks of its context (prompt and output) stay cached as
	// prefix group Then, for its next turn to hit (vLLM's automatic prefix caching keeps a
	// finished request's full blocks in the pool's free queue, evicted LRU), taking over the
	// blocks of the turn before it.
	After int
	Think float64
	Then  int
}

// Config is one deployment and its engine settings.
type Config struct {
	Replicas int // DP replicas, each an engine with its own pipeline and KV cache
	Stages   int // PP stages of one replica; as many batches in flight
	// MaxSeqs is the most sequences one batch runs (vLLM max_num_seqs); MaxBatchTokens the most
	// tokens (max_num_batched_tokens), decode tokens first, prefill chunks in what is left.
	MaxSeqs        int
	MaxBatchTokens int
	// KVBlocks is the KV cache of one replica in blocks of BlockTokens tokens (every stage holds
	// its layers' share of each block), one pool for all its batches in flight.
	KVBlocks    int
	BlockTokens int
	// ReserveWhole admits a request only when the blocks of its whole prompt and output are
	// free, and takes them all at once (TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy):
	// a running sequence never needs a block, so nothing is preempted. false: vLLM's rule.
	ReserveWhole bool
	// Concurrency > 0 runs a closed loop: that many clients, each sending its next request when
	// its last one ends (the requests' Arrival is ignored). 0: requests arrive at Arrival.
	Concurrency int
	// Record keeps replica 0's first MaxRecord engine steps (each on every stage) for the
	// Serve view.
	Record    bool
	MaxRecord int
	// ITL keeps every gap between a request's tokens (Result.ITL).
	ITL bool
	// Overlap schedules a step while the one before it runs (vLLM V1's async scheduling:
	// EngineCore.step_with_batch_queue with a batch queue of 2, vllm/v1/engine/core.py; SGLang's
	// and TensorRT-LLM's overlap schedulers do the same): the batch that starts when step k ends
	// was built when step k started, so a request that arrives while step k runs is first in step
	// k+2, one step later than with the step built when it starts. An engine that was idle
	// builds its step at once. With pipeline stages the batch entering stage 0 was built when
	// the one before it entered stage 0 (vLLM's async scheduling with PP, PR #32359: a batch
	// more in flight than stages).
	Overlap bool
	// PrefillFirst runs prompts before decodes: a step that can start or continue a prompt
	// runs prompts only, and the running sequences decode in the steps when none can (vLLM
	// V0's default scheduler, Scheduler._schedule_default in vllm/core/scheduler.py; SGLang's
	// Scheduler.get_next_batch_to_run, which runs a new prefill batch whenever it can build
	// one). false: decodes first and prompt chunks in what is left of the budget (vLLM V1, V0
	// with chunked prefill, TensorRT-LLM's in-flight batching).
	PrefillFirst bool
	// WholePrompts never splits a prompt over steps: a prompt that does not fit in what is
	// left of the budget waits for the next step (vLLM V0 without chunked prefill, whose
	// budget is at least the model's context); one longer than the whole budget runs alone.
	WholePrompts bool
	// FrontEndS is the engine's front end, seconds from a request's sending to its reaching the
	// scheduler: the API server's HTTP handling, tokenizing and hand-over to the engine process
	// (tenstorrent/tt-inference-server issue #190 measured vLLM online 4 ms above vLLM offline
	// on 128-token prompts). TTFT and E2E count it from the request's sending. 0: the requests
	// come tokenized to the engine (an offline benchmark such as trtllm-bench).
	FrontEndS float64
	// MultiStep > 1 runs a batch of decodes for that many steps before the scheduler runs again
	// (vLLM 0.6's multi-step scheduling, --num-scheduler-steps: LLMEngine.step skips the
	// scheduler while the batch has steps left, _has_remaining_steps, and hands the window's
	// outputs on at its last step). A request that arrives during a window waits for its end;
	// every token of the window comes out at its end, one chunk to the client; each decode
	// sequence takes the blocks of the window's tokens when the window is scheduled (vLLM's
	// lookahead slots). A step with a prompt in it is one step. The window ends when its
	// longest sequence is done (U: vLLM runs all n steps; a sequence past its end only idles).
	// 0 or 1: the scheduler runs every step.
	MultiStep int
	// RecvInterval > 1 takes new requests into the scheduler only every that many decode steps
	// (SGLang's --scheduler-recv-interval: SchedulerRecvSkipper, managers/scheduler_recv_skipper.py,
	// adds each batch's weight to a counter and polls the request socket when it reaches the
	// interval, then starts again from 0; a DECODE batch weighs 1, a batch with prompts in it
	// 1000, so the step after a prompt step polls at once, and an idle scheduler's empty turns
	// weigh 1 each and spin through the interval at once). A request that reaches the engine
	// between two polls waits for the next: up to that many decode steps. 0 or 1: every step
	// polls.
	RecvInterval int
	// SpecTokens > 0 decodes speculatively (spec.go): every decode sequence of a step verifies
	// SpecTokens proposals beside its own token (Batch.Spec; the drafter's work is in the step's
	// cost) and holds their KV slots, and keeps 1 + SpecAccepted tokens a step on average.
	SpecTokens   int
	SpecAccepted float64
	// HostBlocks > 0 is a host-memory tier of a replica's KV cache, in blocks (vLLM's KV
	// offloading connector, LMCache's local CPU backend): a cached prefix evicted from the GPUs
	// is kept there, least recently used dropped first, and a request whose prefix is there
	// loads its blocks back instead of prefilling them. HostLoadS is the time to load one block
	// to the GPUs (every stage loads its layers' share at once over its own host link), paid in
	// the step that admits the request, before its forward (LMCache's retrieve in start_load_kv,
	// not layer by layer).
	HostBlocks int
	HostLoadS  float64
	// HostAsync loads the host tier's blocks beside the steps instead (vLLM's OffloadingConnector
	// since 0.11, on the asynchronous connector API of 0.9): the request admitted with them
	// holds its blocks and waits, out of the batches, until its transfer is done, the replica's
	// transfers one after another over its host link; a request hitting the prefix meanwhile
	// waits for it too; no step is held.
	HostAsync bool
	// HostLayers > 0 (and HostAsync off): the step's load runs beside its forward layer by layer,
	// over this many layers a stage, each layer's attention waiting for its own KV (SGLang's
	// HiCache: the attention backend reads layer i's KV after layer_transfer_counter.wait_until(i)):
	// a stage's forward C and load L take max(C + L/n, L + C/n), not C + L.
	HostLayers int
}

// MaxRecvInterval is the most decode steps Config.RecvInterval may put between two polls.
const MaxRecvInterval = model.MaxRecvInterval

// recvPromptWeight is what a batch with prompts in it adds to SGLang's recv counter
// (SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DEFAULT, 1000: every mode but DECODE, TARGET_VERIFY
// and no batch); a decode batch adds 1.
const recvPromptWeight = 1000

// Step is one recorded engine step on one stage.
type Step struct {
	// Index counts replica 0's engine steps from 1.
	Index                  int
	Replica, Engine, Stage int
	Start, End             float64
	DecodeSeqs             int
	PrefillTokens          int
	KVUsed                 float64 // fraction of the engine's blocks in use when it was scheduled
	Waiting                int     // requests queued, not yet admitted
	Running                int     // sequences admitted on the replica, all its engines
}

// Result is what a run measured.
type Result struct {
	// Per request, in workload order: when its first token and its last token came, and
	// whether it ran at all (a request whose prompt and output can never fit the KV cache is
	// rejected, as an engine refuses it).
	FirstToken, Done []float64
	Arrival          []float64
	Rejected         []bool
	Preemptions      int
	// Duration is from time 0 to the last request's last token.
	Duration float64
	// MaxRunning is the most sequences admitted at once (each replica's peak, summed); KVPeak
	// the highest fraction of an engine's KV blocks in use.
	MaxRunning int
	KVPeak     float64
	// MeanInSystem is the time average of requests arrived and not yet done (all replicas).
	MeanInSystem float64
	// Steps counts engine steps (all replicas); Busy[s] is stage s's busy time on replica 0,
	// BusyTP[s], BusyEP[s] and BusyCP[s] the communication in it.
	Steps                        int
	Busy, BusyTP, BusyEP, BusyCP []float64
	// Replica 0's steps, the tokens they ran and their decode sequences, in all; of them the
	// steps with no prompt token (decode only) and their tokens.
	Steps0            int
	Tokens0, Decodes0 float64
	DecodeSteps0      int
	DecodeTokens0     float64
	// PromptTokens is the prompt tokens of every admission (a preempted request's again),
	// CacheHitTokens those of them the prefix cache served (Request.Cached and groups' hits):
	// CacheHitTokens/PromptTokens is the prefix cache's hit rate. PrefixPeak is the highest
	// fraction of an engine's KV blocks that groups' shared prefixes held (referenced or not).
	PromptTokens, CacheHitTokens float64
	PrefixPeak                   float64
	// HostHitTokens is the prompt tokens of CacheHitTokens loaded from the host tier
	// (Config.HostBlocks) rather than found on the GPUs.
	HostHitTokens float64
	// SpecSeqSteps0 counts replica 0's decode sequences run speculatively (one a sequence a
	// step), SpecTokens0 the tokens they kept: SpecTokens0/SpecSeqSteps0 is the tokens a step.
	SpecSeqSteps0, SpecTokens0 float64
	Trace                      []Step
	// ITL is every gap between two tokens of a request (with Config.ITL), in runs.
	ITL Gaps
}

// Gaps holds inter-token gaps in runs: run k is a gap of Gap[k] seconds that each request
// IDs[Off[k]:Off[k+1]] (IDs[Off[k]:] for the last run) saw once. The sequences of a batch
// mostly had their last token from the same step, so a step makes one run or a few.
// Replicas append their runs one after the other.
type Gaps struct {
	Gap []float64
	Off []int32
	IDs []int32
}

// maxSimSteps bounds one run (a workload that makes no progress, or an absurd one).
const maxSimSteps = 1 << 24

// Run simulates the requests on the deployment.
func Run(cfg Config, reqs []Request, cost StepCost) (Result, error) {
	if err := cfg.validate(reqs); err != nil {
		return Result{}, err
	}
	n := len(reqs)
	res := newResult(cfg, reqs)
	// The balancer: request i (or client i of a closed loop) goes to replica i mod d; a closed
	// loop of fewer clients than replicas keeps the extra replicas idle.
	var inSystemArea float64
	ended := make([]bool, n) // finished or refused
	active := cfg.Replicas
	if cfg.Concurrency > 0 {
		active = min(cfg.Replicas, cfg.Concurrency)
	}
	// A conversation's later turns (Request.After) go where its first went and are sent when the
	// turn before them ends: a replica starts from the first turns only.
	follow := make([]int, n)
	home := make([]int, n)
	roots := 0
	for i, q := range reqs {
		follow[i] = -1
		if q.After > 0 {
			follow[q.After-1] = i
			home[i] = home[q.After-1]
			continue
		}
		home[i] = roots % active
		roots++
	}
	for rep := 0; rep < active; rep++ {
		var ids []int
		clients := 0
		if cfg.Concurrency > 0 {
			clients = cfg.Concurrency / active
			if rep < cfg.Concurrency%active {
				clients++
			}
		}
		for i := range reqs {
			if reqs[i].After == 0 && home[i] == rep {
				ids = append(ids, i)
			}
		}
		if len(ids) == 0 {
			continue
		}
		r := newReplica(cfg, rep, reqs, ids, clients, cost, &res)
		r.ended, r.follow = ended, follow
		if err := r.run(); err != nil {
			return Result{}, err
		}
		// Every request ended: the blocks are all free or cached for nobody.
		if r.free+r.evictable != r.blocks || r.hostUsed > max(cfg.HostBlocks, 0) || r.hostUsed < 0 {
			return Result{}, fmt.Errorf("serve: replica %d ends with %d free and %d cached of %d KV blocks, %d host blocks of %d: blocks lost", rep, r.free, r.evictable, r.blocks, r.hostUsed, cfg.HostBlocks)
		}
		inSystemArea += r.area
		res.MaxRunning += r.maxRunning
	}
	for i := range reqs {
		if !res.Rejected[i] {
			res.Duration = max(res.Duration, res.Done[i])
		}
		if !ended[i] {
			return Result{}, fmt.Errorf("serve: request %d never finished (a scheduling dead end)", i)
		}
	}
	if res.Duration > 0 {
		res.MeanInSystem = inSystemArea / res.Duration
	}
	return res, nil
}

func (cfg Config) validate(reqs []Request) error {
	switch {
	case cfg.Replicas < 1:
		return fmt.Errorf("serve: replicas %d: need at least 1", cfg.Replicas)
	case cfg.Stages < 1:
		return fmt.Errorf("serve: stages %d: need at least 1", cfg.Stages)
	case cfg.MaxSeqs < 1:
		return fmt.Errorf("serve: max-seqs %d: need at least 1", cfg.MaxSeqs)
	case cfg.MaxBatchTokens < 1:
		return fmt.Errorf("serve: max-batch-tokens %d: need at least 1", cfg.MaxBatchTokens)
	case cfg.BlockTokens < 1:
		return fmt.Errorf("serve: block size %d tokens: need at least 1", cfg.BlockTokens)
	case cfg.KVBlocks < 0:
		return fmt.Errorf("serve: KV blocks %d: need at least 0", cfg.KVBlocks)
	case cfg.Concurrency < 0:
		return fmt.Errorf("serve: concurrency %d: need 0 (open loop) or more", cfg.Concurrency)
	case math.IsNaN(cfg.FrontEndS) || math.IsInf(cfg.FrontEndS, 0) || cfg.FrontEndS < 0 || cfg.FrontEndS > 60:
		return fmt.Errorf("serve: front end %v s: need a finite time from 0 to 60 s", cfg.FrontEndS)
	case cfg.MultiStep < 0 || cfg.MultiStep > 1024:
		return fmt.Errorf("serve: multi-step %d: need 0 to 1024 decode steps a window", cfg.MultiStep)
	case cfg.RecvInterval < 0 || cfg.RecvInterval > MaxRecvInterval:
		return fmt.Errorf("serve: recv interval %d: need 0 to %d decode steps between polls", cfg.RecvInterval, MaxRecvInterval)
	case cfg.SpecTokens < 0 || cfg.SpecTokens > model.MaxSpecTokens:
		return fmt.Errorf("serve: speculative tokens %d: need 0 to %d", cfg.SpecTokens, model.MaxSpecTokens)
	case math.IsNaN(cfg.SpecAccepted) || cfg.SpecAccepted < 0 || cfg.SpecAccepted > float64(cfg.SpecTokens):
		return fmt.Errorf("serve: %v accepted tokens a step: need 0 to the %d speculative tokens", cfg.SpecAccepted, cfg.SpecTokens)
	case cfg.SpecTokens > 0 && cfg.MultiStep > 1:
		return fmt.Errorf("serve: speculative decoding with multi-step scheduling: an engine runs one or the other")
	case cfg.HostBlocks < 0:
		return fmt.Errorf("serve: host KV blocks %d: need 0 or more", cfg.HostBlocks)
	case math.IsNaN(cfg.HostLoadS) || math.IsInf(cfg.HostLoadS, 0) || cfg.HostLoadS < 0 || cfg.HostLoadS > 1:
		return fmt.Errorf("serve: host load %v s a block: need a finite time from 0 to 1 s", cfg.HostLoadS)
	case cfg.HostLayers < 0 || cfg.HostLayers > 1<<20:
		return fmt.Errorf("serve: %d host-tier layers a stage: need 0 (no layer-wise overlap) to %d", cfg.HostLayers, 1<<20)
	case len(reqs) == 0:
		return fmt.Errorf("serve: no requests")
	}
	prev := -1 // the last request that arrives at its Arrival
	followed := map[int]bool{}
	for i, r := range reqs {
		if r.Prompt < 1 || r.Gen < 1 {
			return fmt.Errorf("serve: request %d: prompt %d, gen %d tokens: need at least 1 of each", i, r.Prompt, r.Gen)
		}
		if r.Cached < 0 {
			return fmt.Errorf("serve: request %d: cached %d tokens: need 0 or more", i, r.Cached)
		}
		if r.Group < 0 || r.Shared < 0 {
			return fmt.Errorf("serve: request %d: prefix group %d, %d shared tokens: need 0 or more", i, r.Group, r.Shared)
		}
		if r.Then < 0 {
			return fmt.Errorf("serve: request %d: keeps its context as prefix group %d: need 0 or more", i, r.Then)
		}
		if r.After > 0 {
			if r.After-1 >= i || followed[r.After-1] {
				return fmt.Errorf("serve: request %d follows request %d: need an earlier request that no other one follows", i, r.After-1)
			}
			if math.IsNaN(r.Think) || math.IsInf(r.Think, 0) || r.Think < 0 {
				return fmt.Errorf("serve: request %d: think time %v s: need a finite time ≥ 0", i, r.Think)
			}
			followed[r.After-1] = true
			continue
		}
		if r.After < 0 {
			return fmt.Errorf("serve: request %d follows %d: need 0 (none) or 1 + an earlier request", i, r.After)
		}
		if math.IsNaN(r.Arrival) || math.IsInf(r.Arrival, 0) || r.Arrival < 0 {
			return fmt.Errorf("serve: request %d arrives at %v s: need a finite time ≥ 0", i, r.Arrival)
		}
		if prev >= 0 && cfg.Concurrency == 0 && r.Arrival < reqs[prev].Arrival {
			return fmt.Errorf("serve: request %d arrives at %g s, before request %d (%g s): arrivals must be in order", i, r.Arrival, prev, reqs[prev].Arrival)
		}
		prev = i
	}
	return nil
}

// seq is one request inside an engine.
type seq struct {
	id       int     // index in the workload
	arrival  float64 // when it reached the engine
	prompt   int     // tokens to prefill: the prompt, and after a preemption what it had generated
	gen      int     // tokens still to generate
	computed int     // tokens whose KV is in the cache
	blocks   int
	started  bool    // its first token has come
	admitted int     // when it was (last) admitted, in the replica's order: the newest is preempted first
	last     float64 // when its last token came
	// credit is the accepted proposals it is owed (Config.SpecAccepted a step, whole ones taken).
	credit float64
	// pg is its group's shared prefix (nil: none); pshared the blocks of it that it references
	// (not in blocks, which are its own).
	pg      *prefix
	pshared int
	// loadAt is when its prefix's blocks are back from the host tier (Config.HostAsync): until
	// then it is in no batch and never preempted.
	loadAt float64
}

// prefix is one group's shared prefix on a replica: nb whole blocks, cached (resident) or not;
// ready once its prefill is done; refs running sequences use it; lastUse orders eviction.
// chain: a conversation's context kept by the turn before (Request.Then), which a turn whose
// prompt is longer still hits. host: not resident but in the host tier (Config.HostBlocks).
type prefix struct {
	nb, refs int
	resident bool
	ready    bool
	filler   *seq
	lastUse  float64
	chain    bool
	host     bool
	listed   bool    // in replica.glist
	loadAt   float64 // when its blocks are back from the host tier (Config.HostAsync)
}

// engine is one scheduler with one batch in flight at most (a replica has one per stage).
type engine struct {
	// stalled: it could schedule nothing, for want of KV blocks other engines hold; it waits for
	// a batch to complete or a request to arrive.
	stalled bool
	waiting []*seq // FCFS; preempted requests go back to the front
	running []*seq
	ready   float64 // when its last batch leaves (left) the last stage
	// started is when its last batch started, when Config.Overlap built the next one (0 before
	// its first batch).
	started float64
	// The batch in flight, applied when it leaves the last stage: its sequences and the tokens
	// each runs.
	inFlight bool
	seqs     []*seq
	chunks   []int
	// window is the decode steps the batch in flight runs (Config.MultiStep; 1 otherwise).
	window int
	// Config.RecvInterval: the counter of batch weights since the last poll, the weight of
	// the last batch built, and the time up to which the last poll saw arrivals.
	recvCount, lastWeight int
	polled                float64
	// wake: with nothing to run but sequences waiting for the host tier (Config.HostAsync), the
	// engine's next step is when the first of them is loaded.
	wake float64
}

type replica struct {
	cfg     Config
	idx     int
	reqs    []Request
	ids     []int
	cost    StepCost
	res     *Result
	engines []engine
	stage   []float64 // when each stage is next free
	start0  float64   // when the last batch started on stage 0
	pending []arrival // arrivals not yet delivered, by time (open loop: in workload order)
	// mustDecode: the last step preempted; the next is not prompts only (Config.PrefillFirst).
	mustDecode bool
	next       int // closed loop: the next request a client sends
	clients    int
	now        float64 // the time of the event being processed
	stepT      float64 // the time the batch being built starts (step)
	hostFree   float64 // when the host link is free for the next load (Config.HostAsync)
	ended      []bool  // per request of the workload: it finished or was refused
	follow     []int   // per request of the workload: the request of its next turn (−1: none)
	// The KV cache, shared by the replica's engines: free blocks of all; admissions so far.
	free, blocks int
	admitted     int
	// Groups' shared prefixes (Request.Group), in the order first seen; evictable is the blocks
	// of the cached ones no sequence uses (free to take after an eviction), resident of all
	// cached ones.
	groups              map[int]*prefix
	glist               []*prefix
	evictable, resident int
	hostUsed            int     // blocks of the host tier holding prefixes
	area                float64 // ∫ requests in system dt
	inSys               int
	lastT               float64
	running             int
	batch               Batch
	sched               []*seq // the sequences of the batch being built, decode first
	chunks              []int  // tokens each runs
	// maxRunning is the most sequences admitted at once on this replica.
	maxRunning int
	// after, when set, is told of every request that ends here (finished at t, or refused)
	// in place of the replica's own closed loop and conversations (RunPools).
	after func(t float64, id int)
}

// arrival is a request reaching the scheduler at t, sent by its client at sent (earlier by
// the front end, Config.FrontEndS).
type arrival struct {
	t, sent float64
	id      int
}

func newReplica(cfg Config, idx int, reqs []Request, ids []int, clients int, cost StepCost, res *Result) *replica {
	r := &replica{cfg: cfg, idx: idx, reqs: reqs, ids: ids, cost: cost, res: res, clients: clients,
		stage: make([]float64, cfg.Stages), engines: make([]engine, cfg.Stages)}
	r.free, r.blocks = cfg.KVBlocks, cfg.KVBlocks
	if clients > 0 {
		for c := 0; c < clients && r.next < len(ids); c++ {
			r.pending = append(r.pending, r.sent(0, ids[r.next]))
			r.next++
		}
	} else {
		for _, id := range ids {
			r.pending = append(r.pending, r.sent(reqs[id].Arrival, id))
		}
	}
	return r
}

// sent is request id sent at t: it reaches the scheduler through the front end.
func (r *replica) sent(t float64, id int) arrival {
	return arrival{t: t + r.cfg.FrontEndS, sent: t, id: id}
}

// unstall lets every stalled engine try again: blocks or requests may have come.
func (r *replica) unstall() {
	for i := range r.engines {
		r.engines[i].stalled = false
		r.engines[i].wake = 0 // and what came may run before the host tier's next load is done
	}
}

// account advances the time integral of requests in the system to t.
func (r *replica) account(t float64) {
	if t > r.lastT {
		r.area += float64(r.inSys) * (t - r.lastT)
		r.lastT = t
	}
}

// deliver hands the arrival to the engine with the fewest unfinished requests (vLLM's rule
// for its virtual engines; the first of them on a tie).
func (r *replica) deliver(a arrival) {
	r.account(a.t)
	r.inSys++
	r.area += a.t - a.sent // in the system from its sending: its time in the front end
	best := 0
	for e := range r.engines {
		if len(r.engines[e].waiting)+len(r.engines[e].running) < len(r.engines[best].waiting)+len(r.engines[best].running) {
			best = e
		}
	}
	q := r.reqs[a.id]
	r.res.Arrival[a.id] = a.sent
	s := &seq{id: a.id, arrival: a.t, prompt: q.Prompt, gen: q.Gen, computed: cachedTokens(q, r.cfg.BlockTokens)}
	if nb := min(q.Shared, q.Prompt-1) / r.cfg.BlockTokens; q.Group > 0 && nb > 0 {
		if r.groups == nil {
			r.groups = map[int]*prefix{}
		}
		p := r.groups[q.Group]
		if p == nil {
			p = &prefix{nb: nb, chain: q.After > 0}
			r.groups[q.Group] = p
		}
		if p.nb == nb || p.chain && p.nb < nb {
			s.pg = p // a request whose prompt cuts the prefix shorter shares none of it
		}
	}
	r.engines[best].waiting = append(r.engines[best].waiting, s)
}

// Prefix sharing at admission.
const (
	private = iota // no shared prefix, or its blocks are being prefilled by another sequence
	hit            // the group's blocks are cached: s references them and skips their prefill
	fill           // they are not: s prefills them into blocks that become the group's
	load           // they are in the host tier: s loads them into blocks that become the group's
)

// share is how s, admitted now, shares its group's prefix, and the blocks of it that s takes
// references to (a hit) or allocates for the group (a fill).
func (r *replica) share(s *seq) (kind, nb int) {
	p := s.pg
	switch {
	case p == nil:
		return private, 0
	case p.resident && p.ready:
		return hit, p.nb
	case !p.resident && p.host:
		return load, p.nb
	case !p.resident:
		return fill, p.nb
	}
	return private, 0
}

// admitNeed is the free blocks admitting s with want tokens of its prompt in this step takes,
// and the blocks it would take from the pool's evictable ones by referencing them (a hit).
func (r *replica) admitNeed(s *seq, want int) (need, reuse int) {
	bt := r.cfg.BlockTokens
	kind, nb := r.share(s)
	computed := s.computed
	if kind == hit || kind == load {
		computed = max(computed, nb*bt)
		if kind == hit && s.pg.refs == 0 {
			reuse = nb
		}
		want = min(want, s.prompt-computed)
	}
	total := blocksFor(computed+want, bt)
	if r.cfg.ReserveWhole {
		total = blocksFor(r.whole(s), bt)
	}
	switch kind {
	case hit:
		need = max(total-nb, 0)
	case fill, load:
		need = max(total, nb)
	default:
		need = total
	}
	return need - s.blocks, reuse
}

// list puts p among the prefixes held (resident or in the host tier), in the order they came;
// reclaim and toHost drop those no longer held, so a run of many conversations does not scan
// every prefix it ever had.
func (r *replica) list(p *prefix) {
	if !p.listed {
		p.listed = true
		r.glist = append(r.glist, p)
	}
}

// held drops from glist the prefixes neither resident nor in the host tier.
func (r *replica) held() {
	k := 0
	for _, p := range r.glist {
		if p.resident || p.host {
			r.glist[k] = p
			k++
		} else {
			p.listed = false
		}
	}
	clear(r.glist[k:])
	r.glist = r.glist[:k]
}

// reclaim evicts the least recently used cached prefix no sequence uses (the first seen on a
// tie) and says whether there was one.
func (r *replica) reclaim() bool {
	r.held()
	var v *prefix
	for _, p := range r.glist {
		if p.resident && p.ready && p.refs == 0 && (v == nil || p.lastUse < v.lastUse) {
			v = p
		}
	}
	if v == nil {
		return false
	}
	v.resident = false
	r.evictable -= v.nb
	r.resident -= v.nb
	r.free += v.nb
	r.toHost(v)
	return true
}

// toHost keeps prefix v, just evicted from the GPUs, in the host tier, dropping the least
// recently used there while it is over its size; one larger than the tier is dropped.
func (r *replica) toHost(v *prefix) {
	if r.cfg.HostBlocks <= 0 || v.nb > r.cfg.HostBlocks {
		return
	}
	v.host = true
	r.hostUsed += v.nb
	for r.hostUsed > r.cfg.HostBlocks {
		var o *prefix
		for _, p := range r.glist {
			if p.host && p != v && (o == nil || p.lastUse < o.lastUse) {
				o = p
			}
		}
		if o == nil {
			return
		}
		o.host = false
		r.hostUsed -= o.nb
	}
}

// release drops s's reference to its group's prefix (it finished or was preempted). A prefix
// still being prefilled by s is lost: its blocks come back free.
func (r *replica) release(s *seq) {
	p := s.pg
	if p == nil || s.pshared == 0 {
		return
	}
	s.pshared = 0
	p.refs--
	if !p.ready {
		p.resident, p.filler = false, nil
		r.resident -= p.nb
		r.free += p.nb
		return
	}
	if p.refs == 0 {
		p.lastUse = r.now
		r.evictable += p.nb
	}
}

// cachedTokens is what of q's prompt the prefix cache serves: whole blocks of its Cached tokens,
// short of the prompt's last token (an engine computes that one to sample the first token).
func cachedTokens(q Request, bt int) int {
	c := min(q.Cached, q.Prompt-1)
	if c <= 0 || bt < 1 {
		return 0
	}
	return c / bt * bt
}

// push adds a closed loop's next request, keeping pending in time order.
func (r *replica) push(a arrival) {
	i := len(r.pending)
	r.pending = append(r.pending, a)
	for i > 0 && r.pending[i-1].t > a.t {
		r.pending[i] = r.pending[i-1]
		i--
	}
	r.pending[i] = a
}

func (r *replica) run() error {
	for steps := 0; ; steps++ {
		if steps > maxSimSteps {
			return fmt.Errorf("serve: more than %d events: the workload makes no progress", maxSimSteps)
		}
		if !r.advance() {
			return nil // nothing left
		}
	}
}

// Event kinds of a replica (peek).
const (
	evNone     = iota
	evComplete // a batch leaves the last stage
	evArrive   // a request reaches the scheduler
	evStep     // an idle engine with work starts a batch
)

// peek is the replica's next event, its time and its engine (evNone at +Inf when nothing is
// left to do until a request is pushed from outside): a batch leaving the last stage (its
// tokens come out), then an arrival, then an idle engine with work starting a batch when stage
// 0 is free for it. At equal times in that order, so a step sees what arrived and what
// finished by its start.
func (r *replica) peek() (kind int, t float64, e int) {
	done, tDone := -1, math.Inf(1)
	e, tStep := -1, math.Inf(1)
	for i := range r.engines {
		en := &r.engines[i]
		switch {
		case en.inFlight:
			if en.ready < tDone {
				done, tDone = i, en.ready
			}
		case len(en.waiting)+len(en.running) > 0 && !en.stalled:
			// Not before now: an engine idle since its last batch starts when work comes.
			if s := max(en.ready, en.wake, r.stage[0], r.now); s < tStep {
				e, tStep = i, s
			}
		}
	}
	tArr := math.Inf(1)
	if len(r.pending) > 0 {
		tArr = r.pending[0].t
	}
	switch {
	case done >= 0 && tDone <= tArr && tDone <= tStep:
		return evComplete, tDone, done
	case len(r.pending) > 0 && tArr <= tStep:
		return evArrive, tArr, -1
	case e >= 0:
		return evStep, tStep, e
	}
	return evNone, math.Inf(1), -1
}

// advance runs the replica's next event (peek); false when there is none.
func (r *replica) advance() bool {
	kind, t, e := r.peek()
	switch kind {
	case evComplete:
		r.now = t
		r.complete(e)
		r.unstall()
	case evArrive:
		a := r.pending[0]
		r.pending = r.pending[1:]
		r.now = a.t
		r.deliver(a)
		r.unstall()
	case evStep:
		r.step(e, t)
	default:
		return false
	}
	return true
}

// step builds engine e's next batch at time t and runs it through the stages; its tokens come
// out when it leaves the last stage (complete). A request that can never fit is rejected
// instead, and when nothing can run the engine waits for its next arrival.
func (r *replica) step(e int, t float64) {
	en := &r.engines[e]
	cfg := r.cfg
	r.stepT = t
	r.batch = Batch{InSystem: r.inSys, Spec: cfg.SpecTokens}
	r.sched, r.chunks = r.sched[:0], r.chunks[:0]
	// The queue this batch sees: with Overlap and a batch just ended (the engine busy until t),
	// what had arrived when that batch started and this one was built; otherwise what is here.
	// With pipeline stages, the batch entering stage 0 was built when the one before it entered
	// stage 0, if stage 0 has been busy until now (vLLM's async scheduling with PP keeps a batch
	// more in flight than stages: PR #32359).
	seen := t
	switch {
	case !cfg.Overlap || len(en.running) == 0:
	case cfg.Stages == 1 && en.ready >= t:
		seen = en.started
	case cfg.Stages > 1 && r.stage[0] >= t:
		seen = r.start0
	}
	seen = r.poll(en, seen)

	// Prefill first: a step that can run a prompt runs prompts only (its decodes wait); when
	// no prompt could start after all, the running sequences decode.
	// After a step that preempted, the next is decodes first (as without prefill first), until
	// one runs without preempting: the sequences it has to preempt are the prompts just
	// admitted, and taking them back at once could go on for ever.
	prefillOnly := cfg.PrefillFirst && !r.mustDecode && r.canPrefill(en, seen)
	preempted, blocked := r.fill(e, t, seen, prefillOnly)
	if len(r.sched) == 0 && prefillOnly {
		p2, b2 := r.fill(e, t, seen, false)
		preempted, blocked = preempted || p2, b2
	}
	r.mustDecode = preempted
	en.lastWeight = 1
	if r.batch.PrefillTokens > 0 {
		en.lastWeight = recvPromptWeight
	}
	if len(r.sched) == 0 {
		// Nothing ran. After a preemption the next step tries again. Otherwise the head of the
		// queue waits for blocks: those another engine holds come back when its batches finish
		// (the engine stalls until then); with the whole cache free it can never start. With
		// sequences waiting for the host tier, the engine steps again when the first is loaded.
		wake := math.Inf(1)
		for _, s := range en.running {
			if s.loadAt > t {
				wake = min(wake, s.loadAt)
			}
		}
		switch {
		case preempted && !blocked:
		case !math.IsInf(wake, 1):
			en.wake = wake
		case r.free+r.evictable < r.blocks:
			en.stalled = true
		case len(en.running) == 0 && len(en.waiting) > 0:
			s := en.waiting[0]
			en.waiting = en.waiting[1:]
			r.reject(s, t)
		}
		return
	}
	used := 1 - float64(r.free+r.evictable)/float64(max(r.blocks, 1))
	r.res.KVPeak = max(r.res.KVPeak, used)
	if r.resident > 0 {
		r.res.PrefixPeak = max(r.res.PrefixPeak, float64(r.resident)/float64(r.blocks))
	}
	// A batch of decodes only runs a multi-step window: as many steps as its longest sequence
	// needs, up to Config.MultiStep, each one token longer in every sequence's context.
	window := 1
	if cfg.MultiStep > 1 && r.batch.PrefillTokens == 0 {
		for _, s := range r.sched {
			window = max(window, min(cfg.MultiStep, s.gen))
		}
	}

	// Through the pipeline: stage s starts when the batch arrives and the stage is free.
	at := t
	for s := 0; s < cfg.Stages; s++ {
		if s > 0 {
			at += float64(window) * r.cost.Transfer(s-1, &r.batch)
		}
		start := max(at, r.stage[s])
		if s == 0 {
			r.start0 = start
		}
		st := r.cost.Stage(s, &r.batch)
		st.Seconds = withLoad(st.Seconds, float64(r.batch.LoadBlocks)*cfg.HostLoadS, cfg.HostLayers)
		if window > 1 {
			b := r.batch
			for j := 1; j < window; j++ {
				b.DecodeCtx += float64(b.DecodeSeqs)
				x := r.cost.Stage(s, &b)
				st.Seconds, st.TP, st.EP, st.CP = st.Seconds+x.Seconds, st.TP+x.TP, st.EP+x.EP, st.CP+x.CP
			}
		}
		end := start + st.Seconds
		r.stage[s] = end
		if r.idx == 0 {
			r.res.Busy[s] += st.Seconds
			r.res.BusyTP[s] += st.TP
			r.res.BusyEP[s] += st.EP
			r.res.BusyCP[s] += st.CP
		}
		if cfg.Record && r.idx == 0 && len(r.res.Trace) < cfg.MaxRecord*cfg.Stages {
			r.res.Trace = append(r.res.Trace, Step{Index: r.res.Steps0 + 1, Replica: r.idx, Engine: e, Stage: s, Start: start, End: end,
				DecodeSeqs: r.batch.DecodeSeqs, PrefillTokens: r.batch.PrefillTokens, KVUsed: used, Waiting: len(en.waiting),
				Running: r.running})
		}
		at = end
	}
	if r.idx == 0 {
		// A multi-step window's steps are engine steps each (forward passes: their collectives).
		w := float64(window)
		r.res.Steps0 += window
		r.res.Tokens0 += w * float64(r.batch.Tokens())
		r.res.Decodes0 += w * float64(r.batch.DecodeSeqs)
		if r.batch.PrefillTokens == 0 {
			r.res.DecodeSteps0 += window
			r.res.DecodeTokens0 += w * float64(r.batch.Tokens())
		}
	}
	en.ready = at
	en.started = t
	en.inFlight = true
	en.seqs = append(en.seqs[:0], r.sched...)
	en.chunks = append(en.chunks[:0], r.chunks...)
	en.window = window
	r.res.Steps += window
}

// withLoad is a stage's time c with a load of l from the host tier before its forward (n = 0) or
// beside it layer by layer over n layers (Config.HostLayers): each layer's forward starts when
// the one before it is done and its own KV is in, the loads back to back, so the last layer ends
// at the latest of (i+1)·l/n + (n−i)·c/n over the layers i, that is max(c + l/n, l + c/n).
func withLoad(c, l float64, n int) float64 {
	if l <= 0 {
		return c
	}
	if n <= 0 {
		return c + l
	}
	k := float64(n)
	return max(c+l/k, l+c/k)
}

// complete applies engine e's batch as it leaves the last stage: prompt chunks are in the
// cache, and each sequence whose prompt is all in samples a token, its first or its next.
func (r *replica) complete(e int) {
	en := &r.engines[e]
	at := en.ready
	r.account(at)
	en.inFlight = false
	for i, s := range en.seqs {
		// A decoding sequence in a multi-step window: the window's tokens, all at once.
		c, tok := en.chunks[i], 1
		if en.window > 1 && s.computed >= s.prompt {
			tok = min(en.window, s.gen)
			c = tok
		}
		if r.cfg.SpecTokens > 0 && s.computed >= s.prompt {
			// A speculative step: its own token and the proposals accepted, the expectation
			// taken whole proposals at a time (deterministic; the fraction carried on).
			s.credit += r.cfg.SpecAccepted
			n := math.Floor(s.credit)
			s.credit -= n
			tok = min(1+int(n), s.gen)
			c = tok
			if r.idx == 0 {
				r.res.SpecSeqSteps0++
				r.res.SpecTokens0 += float64(tok)
			}
		}
		s.computed += c
		if p := s.pg; p != nil && p.filler == s && s.computed >= p.nb*r.cfg.BlockTokens {
			p.ready, p.filler = true, nil // the group's blocks are prefilled: later requests hit
		}
		if s.computed < s.prompt {
			continue
		}
		if !s.started {
			s.started = true
			r.res.FirstToken[s.id] = at
		} else if r.cfg.ITL {
			g := &r.res.ITL
			if k := len(g.Gap) - 1; k < 0 || g.Gap[k] != at-s.last {
				g.Gap = append(g.Gap, at-s.last)
				g.Off = append(g.Off, int32(len(g.IDs)))
			}
			g.IDs = append(g.IDs, int32(s.id))
		}
		s.last = at
		s.gen -= tok
		if s.gen == 0 {
			r.finish(en, s, at)
		}
	}
}

// poll is what of the queue engine en's scheduler sees when it builds a batch that would see
// the arrivals by seen: all of them when it polls the request socket for this batch, else those
// of its last poll (Config.RecvInterval). An engine with nothing running is idle and polls.
func (r *replica) poll(en *engine, seen float64) float64 {
	if r.cfg.RecvInterval <= 1 {
		return seen
	}
	if len(en.running) == 0 {
		en.recvCount, en.polled = 0, seen
		return seen
	}
	en.recvCount += en.lastWeight
	if en.recvCount >= r.cfg.RecvInterval {
		en.recvCount, en.polled = 0, seen
	}
	return en.polled
}

// fill builds engine e's batch at t: running sequences first, then the queue (what arrived by
// seen); prefillOnly leaves the decodes out. It says whether it preempted a sequence, and
// whether a running sequence had to wait for blocks.
func (r *replica) fill(e int, t, seen float64, prefillOnly bool) (preempted, blocked bool) {
	en := &r.engines[e]
	cfg := r.cfg
	budget := cfg.MaxBatchTokens
	bt := cfg.BlockTokens
	// Running sequences first, in the order they were admitted: a decode token each, or their
	// prompt's next chunk. A sequence that needs a block when none is free preempts the newest
	// admitted sequence of the replica that is not in a batch in flight (vLLM's rule: the
	// newest goes first), itself if it is that one. When sequences newer than it are in flight
	// on other engines it waits for them instead: the oldest sequence always gets its blocks.
	preempted, blocked = false, false
	for i := 0; i < len(en.running) && budget > 0; i++ {
		s := en.running[i]
		if s.loadAt > t {
			continue // its blocks are still on their way from the host tier
		}
		want, look := 1, 1
		if s.computed < s.prompt {
			want = min(s.prompt-s.computed, budget)
			look = want
		} else if prefillOnly {
			continue
		} else if cfg.MultiStep > 1 {
			look = min(cfg.MultiStep, s.gen) // the blocks of a window's tokens (lookahead slots)
		} else if cfg.SpecTokens > 0 {
			look = 1 + cfg.SpecTokens // the speculative tokens' slots
		}
		need := max(blocksFor(s.computed+look, bt)-s.blocks-s.pshared, 0)
		for need > r.free && !blocked {
			if r.evictable > 0 && r.reclaim() {
				continue // a cached prefix no one uses goes before a running sequence
			}
			v, owner := r.victim(e)
			switch {
			case v == s && r.newerInFlight(s):
				blocked = true
			default:
				r.preempt(owner, v)
				preempted = true
				blocked = v == s
			}
		}
		if blocked {
			break // s waits (or went back to the queue); so do the sequences after it
		}
		r.free -= need
		s.blocks += need
		r.add(s, want)
		budget -= want
		if s.computed >= s.prompt {
			budget -= cfg.SpecTokens // the verified proposals count in the budget
		}
	}
	// Then the queue, in order, while a sequence slot, the budget and the KV cache allow; not
	// in a step that had to preempt (vLLM V1 leaves the queue alone then).
	for !preempted && !blocked && len(en.waiting) > 0 && budget > 0 && len(en.running) < cfg.MaxSeqs {
		s := en.waiting[0]
		if s.arrival > seen {
			break // it came after this batch was built: the next one takes it
		}
		if blocksFor(r.whole(s), bt) > r.blocks {
			// It can never fit, not even alone: refuse it, as an engine does.
			en.waiting = en.waiting[1:]
			r.reject(s, t)
			continue
		}
		var need, reuse int
		kind, nb := private, 0
		if s.pg != nil {
			kind, nb = r.share(s)
		}
		computed := s.computed
		if kind == hit || kind == load {
			computed = max(computed, nb*bt)
		}
		want := min(s.prompt-computed, budget)
		if cfg.WholePrompts && want < s.prompt-computed {
			if len(r.sched) > 0 {
				break // it waits for a step with room for all of it
			}
			want = s.prompt - computed // longer than the whole budget: alone
		}
		if s.pg == nil {
			need = blocksFor(s.computed+want, bt) - s.blocks
			if cfg.ReserveWhole {
				need = blocksFor(r.whole(s), bt) - s.blocks
			}
			if need > r.free+r.evictable {
				break
			}
			for need > r.free && r.reclaim() { // cached prefixes no one uses, least recently used first
			}
		} else {
			need, reuse = r.admitNeed(s, want)
			if need > r.free+r.evictable-reuse {
				break
			}
			r.take(s, kind, nb, reuse)
			for need > r.free && r.reclaim() { // cached prefixes no one uses, least recently used first
			}
		}
		en.waiting = en.waiting[1:]
		r.free -= need
		s.blocks += need
		r.res.PromptTokens += float64(s.prompt)
		r.res.CacheHitTokens += float64(s.computed)
		r.admitted++
		s.admitted = r.admitted
		en.running = append(en.running, s)
		r.running++
		r.maxRunning = max(r.maxRunning, r.running)
		if s.loadAt > t {
			continue // it waits for its blocks from the host tier, out of this batch
		}
		r.add(s, want)
		budget -= want
	}
	return preempted, blocked
}

// canPrefill says whether engine e's next step can run a prompt: a running sequence has a
// prompt chunk left, or the queue's head (arrived by seen) has a sequence slot and the blocks
// of its first chunk (prefill first's test; a request that can never fit counts: it is refused
// in the step).
func (r *replica) canPrefill(en *engine, seen float64) bool {
	bt := r.cfg.BlockTokens
	for _, s := range en.running {
		if s.computed < s.prompt && s.loadAt <= r.stepT {
			// A prompt to go on with, if its next chunk's blocks are free (else the step is
			// built decodes first, and the oldest sequences get their blocks).
			want := min(s.prompt-s.computed, r.cfg.MaxBatchTokens)
			return blocksFor(s.computed+want, bt)-s.blocks-s.pshared <= r.free+r.evictable
		}
	}
	if len(en.waiting) == 0 || len(en.running) >= r.cfg.MaxSeqs {
		return false
	}
	s := en.waiting[0]
	if s.arrival > seen {
		return false
	}
	want := min(s.prompt-s.computed, r.cfg.MaxBatchTokens)
	if r.cfg.WholePrompts {
		want = s.prompt - s.computed
	}
	if s.pg != nil {
		need, reuse := r.admitNeed(s, want)
		return need <= r.free+r.evictable-reuse || blocksFor(r.whole(s), bt) > r.blocks
	}
	need := blocksFor(s.computed+want, bt) - s.blocks
	if r.cfg.ReserveWhole {
		need = blocksFor(r.whole(s), bt) - s.blocks
	}
	return need <= r.free+r.evictable || blocksFor(r.whole(s), bt) > r.blocks
}

// whole is the tokens s holds at most: its prompt, its output, and the speculative slots of
// its last step.
func (r *replica) whole(s *seq) int { return s.prompt + s.gen + r.cfg.SpecTokens }

// add puts want tokens of s into the batch being built.
func (r *replica) add(s *seq, want int) {
	r.sched = append(r.sched, s)
	r.chunks = append(r.chunks, want)
	b := &r.batch
	if s.computed >= s.prompt {
		b.DecodeSeqs++
		b.DecodeCtx += float64(s.computed + 1 + b.Spec) // the proposals' keys too
		b.Samples += 1 + b.Spec
		return
	}
	c := float64(s.computed)
	w := float64(want)
	b.PrefillTokens += want
	b.PrefillSeqs++
	b.PrefillAttn += w * (c + (w+1)/2)
	b.PrefillCtx += c + w
	if s.computed+want >= s.prompt {
		b.Samples++
	}
}

// victim is the newest admitted running sequence of engine e or of an engine with no batch in
// flight, and its engine.
func (r *replica) victim(e int) (*seq, *engine) {
	var v *seq
	var owner *engine
	for i := range r.engines {
		en := &r.engines[i]
		if i != e && en.inFlight {
			continue
		}
		for _, s := range en.running {
			if s.loadAt > r.stepT {
				continue // waiting for the host tier: out of the running batch (vLLM's WAITING_FOR_REMOTE_KVS)
			}
			if v == nil || s.admitted > v.admitted {
				v, owner = s, en
			}
		}
	}
	return v, owner
}

// newerInFlight says whether a sequence admitted after s is in a batch in flight.
func (r *replica) newerInFlight(s *seq) bool {
	for i := range r.engines {
		en := &r.engines[i]
		if !en.inFlight {
			continue
		}
		for _, x := range en.running {
			if x.admitted > s.admitted {
				return true
			}
		}
	}
	return false
}

func (r *replica) preempt(en *engine, v *seq) {
	r.res.Preemptions++
	en.running = removeSeq(en.running, v)
	r.running--
	r.free += v.blocks
	v.blocks = 0
	r.release(v)
	// Recompute: it prefills again its prompt and every token it generated (the last one
	// sampled but not yet through the model included), and samples its next token.
	if v.started {
		v.prompt = v.computed + 1
	}
	v.computed = 0
	en.waiting = append([]*seq{v}, en.waiting...)
}

// keep caches finished sequence s's context as its next turn's prefix (Request.Then): the whole
// blocks of what it computed, its own blocks and those of the conversation's prefix before it,
// which it takes over when no other sequence uses it (a conversation's prefix is its own). s's
// blocks it keeps leave s.blocks; the rest go free with them.
func (r *replica) keep(s *seq) {
	g := r.reqs[s.id].Then
	if g <= 0 {
		return
	}
	held := s.blocks
	if p := s.pg; p != nil && p.chain && p.resident && p.ready && p.refs == 0 {
		p.resident = false
		r.evictable -= p.nb
		r.resident -= p.nb
		held += p.nb
	} else if p != nil {
		return // its prefix is shared or gone: this turn's blocks alone are not its context
	}
	nb := min(s.computed/r.cfg.BlockTokens, held)
	if nb <= 0 {
		r.free += held - s.blocks
		return
	}
	if r.groups == nil {
		r.groups = map[int]*prefix{}
	}
	q := r.groups[g]
	if q == nil {
		q = &prefix{}
		r.groups[g] = q
	} else if q.resident || q.refs > 0 {
		r.free += held - s.blocks
		return // the group is someone else's already
	}
	if q.host {
		q.host = false
		r.hostUsed -= q.nb
	}
	q.nb, q.chain, q.resident, q.ready, q.filler, q.lastUse = nb, true, true, true, nil, r.now
	r.list(q)
	r.resident += nb
	r.evictable += nb
	// Of the blocks held, the context's nb stay cached; the rest (the prefix's taken over
	// first) come back free with s's own.
	s.blocks = held - nb
}

// take gives s, being admitted, its share of its group's prefix: a hit references the cached
// blocks (reuse of them evictable until now) and skips their prefill; a fill allocates them for
// the group (in the admission's need), cached once s has prefilled them.
func (r *replica) take(s *seq, kind, nb, reuse int) {
	p := s.pg
	switch kind {
	case hit:
		s.computed = max(s.computed, nb*r.cfg.BlockTokens)
		r.evictable -= reuse
		if p.loadAt > r.stepT {
			s.loadAt = p.loadAt // still on its way from the host tier: s waits for it too
		}
	case fill:
		p.resident, p.ready, p.filler = true, false, s
		r.resident += nb
		r.list(p)
	case load:
		// Back from the host tier: in this step (its time in the step's, Batch.LoadBlocks), or
		// beside the steps (Config.HostAsync).
		p.resident, p.ready, p.host = true, true, false
		r.hostUsed -= nb
		r.resident += nb
		s.computed = max(s.computed, nb*r.cfg.BlockTokens)
		if r.cfg.HostAsync {
			// Over the host link beside the steps, after the loads before it.
			r.hostFree = max(r.hostFree, r.stepT) + float64(nb)*r.cfg.HostLoadS
			s.loadAt, p.loadAt = r.hostFree, r.hostFree
		} else {
			r.batch.LoadBlocks += nb
		}
		r.res.HostHitTokens += float64(nb * r.cfg.BlockTokens)
	default:
		return
	}
	p.refs++
	p.lastUse = r.now
	s.pshared = nb
	if kind == fill || kind == load {
		s.blocks -= nb // the admission's need counts the group's blocks: they are not s's own
	}
}

func (r *replica) finish(en *engine, s *seq, t float64) {
	en.running = removeSeq(en.running, s)
	r.running--
	r.release(s)
	r.keep(s)
	r.free += s.blocks
	s.blocks = 0
	r.res.Done[s.id] = t
	r.ended[s.id] = true
	r.inSys--
	r.more(t, s.id)
}

func (r *replica) reject(s *seq, t float64) {
	r.res.Rejected[s.id] = true
	r.ended[s.id] = true
	r.res.FirstToken[s.id], r.res.Done[s.id] = t, t
	r.account(t)
	r.inSys--
	r.more(t, s.id)
}

// more sends what comes after request id, ended at t: its conversation's next turn after the
// user's think time, or else a closed loop's client's next request.
func (r *replica) more(t float64, id int) {
	if r.after != nil {
		r.after(t, id)
		return
	}
	if id < len(r.follow) && r.follow[id] >= 0 {
		f := r.follow[id]
		r.push(r.sent(t+r.reqs[f].Think, f))
		return
	}
	if r.clients > 0 && r.next < len(r.ids) {
		r.push(r.sent(t, r.ids[r.next]))
		r.next++
	}
}

func blocksFor(tokens, bt int) int { return (tokens + bt - 1) / bt }

func removeSeq(ss []*seq, s *seq) []*seq {
	for i, x := range ss {
		if x == s {
			return append(ss[:i], ss[i+1:]...)
		}
	}
	return ss
}
