package costmodel

import (
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
)

// LayoutSummary is the "layout" object of the JSON contract.
type LayoutSummary struct {
	TP int `json:"tp"`
	PP int `json:"pp"`
	DP int `json:"dp"`
	EP int `json:"ep"`
	// EPImbalance is the busiest GPU's token share over the mean the run takes (experts.go);
	// absent without expert parallelism.
	EPImbalance float64 `json:"ep_imbalance,omitempty"`
	// EPDispatch is direct or two-hop: how the EP all-to-alls cross nodes (dispatch.go); absent
	// without expert parallelism.
	EPDispatch string `json:"ep_dispatch,omitempty"`
	// ETP is the GPUs each expert is split over where it is not TP (MoE models); absent when TP.
	ETP          int    `json:"etp,omitempty"`
	Chunks       int    `json:"chunks"`
	MicroBatch   int    `json:"micro_batch"`
	MicroBatches int    `json:"micro_batches"`
	Schedule     string `json:"schedule"`
	// The knobs of the layout: recompute (none, selective, full), sequence parallelism, the ZeRO
	// stage, the TP overlap.
	Recompute        string `json:"recompute"`
	SequenceParallel bool   `json:"sequence_parallel"`
	ZeRO             int    `json:"zero"`
	// TPOverlap is none, ring or pipe: how the TP collectives overlap the GEMMs (training).
	TPOverlap string `json:"tp_overlap"`
	// Offload is none, optimizer, optimizer+weights or activations (training).
	Offload string `json:"offload"`
	// SPGather is redo or keep: the sequence-parallel all-gather of the backward (training).
	SPGather string `json:"sp_gather"`
	// SerialDP is the gradient sync after the whole backward instead of beside its last
	// micro-batch (training).
	SerialDP bool `json:"serial_dp"`
	// RankOrder is tp-dp-pp or tp-pp-dp: which of DP and PP shares a node with TP.
	RankOrder string `json:"rank_order"`
	// CP is the context-parallel size and CPComm its exchange (ring, all-gather, ulysses,
	// hybrid); absent at CP 1.
	CP     int    `json:"cp,omitempty"`
	CPComm string `json:"cp_comm,omitempty"`
}

// SummaryOf is the layout object of l as given, before any evaluation: the micro-batch count,
// EP's size and inference's "forward" schedule are the report's to fill.
func SummaryOf(l model.Layout) LayoutSummary {
	return LayoutSummary{TP: l.TP, PP: l.PP, DP: l.DP, EP: l.EP, Chunks: l.Chunks, MicroBatch: l.MicroBatch,
		Schedule: l.Schedule.String(), Recompute: l.Recompute.String(), SequenceParallel: l.SequenceParallel,
		ZeRO: l.ZeRO, TPOverlap: l.TPOverlap.String(), Offload: l.Offload.String(), SPGather: l.SPGather.String(),
		SerialDP: l.SerialDP, RankOrder: l.RankOrder.String(), CP: cpShown(l), CPComm: cpCommShown(l)}
}

// cpShown is the CP size a summary shows: 0 (absent) at CP 1.
func cpShown(l model.Layout) int {
	if l.CPSize() > 1 {
		return l.CP
	}
	return 0
}

func cpCommShown(l model.Layout) string {
	if l.CPSize() > 1 {
		return l.CPComm.String()
	}
	return ""
}

// Breakdown splits the step time, seconds. Compute, recompute and communication are the
// critical (slowest) stage's own time; bubble is what is left of the step on that stage.
type Breakdown struct {
	Compute   float64 `json:"compute"`
	Recompute float64 `json:"recompute"`
	TPComm    float64 `json:"tp_comm"`
	PPComm    float64 `json:"pp_comm"`
	DPComm    float64 `json:"dp_comm"` // exposed (not hidden behind backward)
	// Offload is the host traffic (streamed weights or activations) the compute does not hide;
	// the optimizer step on the CPU is Optimizer.
	Offload float64 `json:"offload"`
	EPComm  float64 `json:"ep_comm"` // expert-parallel all-to-all
	// CPComm is context parallelism's K/V exchange the attention does not hide (cp.go).
	CPComm    float64 `json:"cp_comm,omitempty"`
	Bubble    float64 `json:"bubble"`
	Optimizer float64 `json:"optimizer"`
}

// Inference holds serving metrics (infer mode only).
type Inference struct {
	TTFT       float64 `json:"ttft_s"`       // mean time to first token
	TPOT       float64 `json:"tpot_s"`       // mean time per output token after the first
	TokensPerS float64 `json:"tokens_per_s"` // generated tokens per second, all replicas
	// Percentiles over the requests (linear interpolation, as vLLM's benchmark_serving).
	TTFTP50 float64 `json:"ttft_p50_s"`
	TTFTP90 float64 `json:"ttft_p90_s"`
	TTFTP99 float64 `json:"ttft_p99_s"`
	TPOTP50 float64 `json:"tpot_p50_s"`
	TPOTP90 float64 `json:"tpot_p90_s"`
	TPOTP99 float64 `json:"tpot_p99_s"`
	E2EMean float64 `json:"e2e_mean_s"`
	E2EP50  float64 `json:"e2e_p50_s"`
	E2EP90  float64 `json:"e2e_p90_s"`
	E2EP99  float64 `json:"e2e_p99_s"`
	// ITL: every gap between two tokens of a request, each counted once (vLLM's
	// benchmark_serving's ITL); `report` only (0 in sweeps and search). TPOT weighs each request
	// once, ITL each token.
	ITL    float64 `json:"itl_s"`
	ITLP50 float64 `json:"itl_p50_s"`
	ITLP90 float64 `json:"itl_p90_s"`
	ITLP99 float64 `json:"itl_p99_s"`
	// Stages: a rate schedule's stages, each measured over its own steady window.
	Stages []ServeStage `json:"stages,omitempty"`
	// Throughput over the run (time 0 to the last token).
	OutputTokensPerS       float64 `json:"output_tokens_per_s"`
	TotalTokensPerS        float64 `json:"total_tokens_per_s"`
	OutputTokensPerSPerGPU float64 `json:"output_tokens_per_s_per_gpu"`
	RequestsPerS           float64 `json:"requests_per_s"`
	// The KV cache: its highest fill (fraction of an engine's blocks), the preemptions, and the
	// most sequences running at once (each replica's peak, summed); the tokens one replica's
	// cache holds.
	KVCachePeakFraction float64 `json:"kv_cache_peak_fraction"`
	Preemptions         int     `json:"preemptions"`
	MaxConcurrency      int     `json:"max_concurrency"`
	KVCacheTokens       float64 `json:"kv_cache_tokens"`
	// The prefix cache: the share of the prompt tokens admitted that it served (their prefill
	// skipped: a shared system prompt's cached blocks, prefix_cached, --prefix-hit), and the
	// highest fraction of an engine's KV blocks that shared prefixes held (each once a replica).
	PrefixHitRate           float64 `json:"prefix_hit_rate"`
	PrefixCachePeakFraction float64 `json:"prefix_cache_peak_fraction"`
	// The KV cache's host tier (--kv-host-gib): the tokens one replica's tier holds, and the
	// share of the prompt tokens admitted that it served (loaded back over PCIe, in
	// prefix_hit_rate too).
	KVHostTokens float64 `json:"kv_host_tokens,omitempty"`
	HostHitRate  float64 `json:"host_hit_rate,omitempty"`
	// The engine's limits used, requests completed and refused, engine steps, and the mean
	// number of requests in the system (Little's L).
	// Engine is the serving engine whose defaults the run followed (model.Engines).
	Engine         string  `json:"engine"`
	MaxSeqs        int     `json:"max_seqs"`
	MaxBatchTokens int     `json:"max_batch_tokens"`
	Completed      int     `json:"completed"`
	Rejected       int     `json:"rejected"`
	Steps          int     `json:"steps"`
	MeanInSystem   float64 `json:"mean_in_system"`
	// MeetsSLO says, when the scenario sets a latency target, whether the run's p90 TTFT and p90
	// TPOT meet it (with no request refused); absent without a target.
	MeetsSLO    *bool   `json:"meets_slo,omitempty"`
	PrefillS    float64 `json:"prefill_s"`     // when the last request got its first token
	DecodeStepS float64 `json:"decode_step_s"` // one sequence's decode step alone, all stages
	// Confidence: with Poisson arrivals (--rate), the latencies above are those of the requests
	// that arrived in the run's steady window; this says which, how sure, and what to fix.
	Confidence *ServeConfidence `json:"confidence,omitempty"`
	// Spec is the run's speculative decoding (spec.go); absent without.
	Spec *SpecStats `json:"spec,omitempty"`
	// Disagg describes the pools of disaggregated serving (model.Disagg); absent with one pool.
	Disagg *DisaggDetail `json:"disagg,omitempty"`
}

// DisaggDetail is a disaggregated run's pools: their GPUs, splits and instances, the link the
// KV caches cross and a prompt's mean transfer time, each pool's busiest stage's share of its
// run, and the prefill pool's own mean TTFT (without the transfer and the decode pool).
type DisaggDetail struct {
	PrefillGPUs      int     `json:"prefill_gpus"`
	DecodeGPUs       int     `json:"decode_gpus"`
	PrefillTP        int     `json:"prefill_tp"`
	PrefillPP        int     `json:"prefill_pp"`
	PrefillCP        int     `json:"prefill_cp,omitempty"` // 0: none
	PrefillInstances int     `json:"prefill_instances"`
	DecodeInstances  int     `json:"decode_instances"`
	Link             string  `json:"link"`
	KVTransferMeanS  float64 `json:"kv_transfer_mean_s"`
	PrefillBusy      float64 `json:"prefill_busy"`
	DecodeBusy       float64 `json:"decode_busy"`
	PrefillTTFTMean  float64 `json:"prefill_ttft_mean_s"`
}

// Memory is the fullest GPU's memory, bytes.
type Memory struct {
	Weights     float64 `json:"weights"`
	Gradients   float64 `json:"gradients"`
	Optimizer   float64 `json:"optimizer"`
	Activations float64 `json:"activations"`
	KVCache     float64 `json:"kv_cache"`
	Reserved    float64 `json:"reserved"`
	Total       float64 `json:"total"`
	Capacity    float64 `json:"capacity"`
	// Host is what offloading keeps in host memory for this GPU, HostCapacity its share of the
	// node's host memory; Fits needs both to fit.
	Host         float64 `json:"host"`
	HostCapacity float64 `json:"host_capacity"`
	Fits         bool    `json:"fits"`
	// Stage is the pipeline rank this GPU belongs to.
	Stage int `json:"stage"`
}

// Report is the result of Evaluate; its JSON form is the `report --json` contract.
type Report struct {
	Layout         LayoutSummary `json:"layout"`
	StepTime       float64       `json:"step_time_s"`
	Breakdown      Breakdown     `json:"breakdown_s"`
	BubbleFraction float64       `json:"bubble_fraction"`
	CommFraction   float64       `json:"comm_fraction"`
	ModelTFLOPS    float64       `json:"model_tflops_per_gpu"`
	HWTFLOPS       float64       `json:"hw_tflops_per_gpu"`
	MFU            float64       `json:"mfu"`
	TokensPerS     float64       `json:"tokens_per_s"`
	Inference      *Inference    `json:"inference,omitempty"`
	Memory         Memory        `json:"memory"`
	Warnings       []string      `json:"warnings"`
	// Collectives lists every kind of communication of the step with the algorithm it runs
	// (Evaluate only; empty from the fast path Search uses).
	Collectives []CollectiveUse `json:"collectives,omitempty"`

	// Not in the JSON contract: detail for the explorer and the teaching pane.
	Detail   Detail    `json:"-"`
	Timeline *Timeline `json:"-"`
}

// Detail carries the intermediate numbers the renderers explain.
type Detail struct {
	// Stages, one per pipeline rank.
	Stages []StageDetail
	// BubbleClosedForm is the textbook bubble fraction of idle to step time for this schedule.
	BubbleClosedForm float64
	// TP all-reduce of one layer's activations (forward): bytes, seconds, ranks.
	TPAllReduceBytes float64
	TPAllReduceS     float64
	// Ring parameters of the TP group's link: α seconds, effective bandwidth bytes/s.
	TPLinkAlpha float64
	TPLinkBW    float64
	TPLink      string
	// TPCollective is that all-reduce as the collective model runs it: its algorithm, protocol
	// and communicator (zero with TP = 1).
	TPCollective CollectiveUse
	// P2PBytes and P2PS: one micro-batch's activations across one stage boundary.
	P2PBytes float64
	P2PS     float64
	// DP gradient sync of the fullest stage: bytes, total seconds, exposed seconds.
	DPBytes   float64
	DPS       float64
	DPExposed float64
	// Layer is one transformer layer on one GPU for one micro-batch, training forward or one
	// decode step in inference: its compute and communication segments in order.
	Layer LayerDetail
	// FLOPs of one step, all GPUs: model (no recompute) and hardware (with recompute).
	ModelFLOPs float64
	HWFLOPs    float64
}

// StageDetail describes one pipeline rank.
type StageDetail struct {
	Layers      int     // transformer layers on this rank (all chunks)
	Embedding   bool    // holds the input embedding
	Logits      bool    // holds the output projection
	GPUs        []int   // global GPU ids of DP replica 0's TP group
	F, B, W     float64 // per micro-batch op times summed over chunks, seconds
	Busy        float64 // simulated busy time of the step
	Memory      Memory
	InFlight    int     // peak in-flight micro-batches (activation memory)
	ParamsOnGPU float64 // parameters held by one GPU of this stage
	LayerParams float64 // of which transformer layers
	// Parts is ParamsOnGPU by what the parameters are (the Memory tab's split).
	Parts        ParamParts
	PeakActBytes float64
	// LayerActBytes is the part of PeakActBytes held for transformer layers (no logits).
	LayerActBytes float64
}

// ParamParts is one GPU's parameters by part: the layers' attention (projections and norms),
// their dense MLPs, their shared experts, their routed experts (this GPU's share under expert
// parallelism), and the embedding and output projection.
type ParamParts struct {
	Attention, DenseMLP, Shared, Routed, Ends float64
}

// SegmentKind labels a piece of a layer or an op.
type SegmentKind uint8

// Segment kinds.
const (
	SegCompute SegmentKind = iota
	SegTPComm              // TP all-reduce (or reduce-scatter/all-gather with sequence parallelism)
	SegEPComm              // expert-parallel all-to-all (MoE dispatch and combine)
	SegMemory              // memory-bound work: element-wise ops, decode weight reads
	SegCPComm              // context parallelism's K/V exchange (ring sends, all-gather, all-to-all)
)

func (k SegmentKind) String() string {
	switch k {
	case SegCompute:
		return "compute"
	case SegTPComm:
		return "tp-comm"
	case SegEPComm:
		return "ep-comm"
	case SegMemory:
		return "memory"
	case SegCPComm:
		return "cp-comm"
	}
	return "?"
}

// Segment is a piece of work inside a layer or an op; Start and End are relative to its start.
type Segment struct {
	Kind  SegmentKind
	Label string
	Start float64
	End   float64
}

// LayerDetail is one layer on one GPU: the segments of its forward (and backward in training).
type LayerDetail struct {
	Forward  []Segment
	Backward []Segment // empty in inference
	// CommShare is TP communication over the layer's total time.
	CommShare float64
	// CP is the layer's context-parallel exchange (nil without CP, or in inference).
	CP *CPDetail `json:",omitempty"`
}

// CPDetail is one layer's context-parallel K/V exchange on one GPU for one micro-batch, as the
// cost model charges it (cp.go): the Tensor tab draws and plays it.
type CPDetail struct {
	// Kind is the exchange: ring, all-gather, ulysses or hybrid; Ranks the CP size, split in
	// Ulysses × Ring GPUs (hybrid; ring: Ulysses 1; ulysses: Ring 1).
	Kind                 string
	Ranks, Ring, Ulysses int
	// BlockBytes is one GPU's K/V for its tokens (one ring step's message); CoreS the layer's
	// attention core forward on this GPU, all keys.
	BlockBytes, CoreS float64
	// The ring (ring and hybrid): Steps = Ring − 1 sends a layer over Link, each SendS beside
	// BlockS of attention on the block held (CoreS/Ring); StepExposedS = max(0, SendS − BlockS).
	Link                        string
	Steps                       int
	SendS, BlockS, StepExposedS float64
	// GatherS is all-gather's one K/V all-gather; BeforeS and AfterS Ulysses' all-to-alls (Q, K,
	// V before the attention, the output after), all exposed.
	GatherS, BeforeS, AfterS float64
	// ExposedS is the forward's exposed exchange (the forward's CP segment), BackwardS the
	// backward's.
	ExposedS, BackwardS float64
}

// Timeline is the simulated step: every op, and the TP collectives inside each op.
type Timeline struct {
	Stages       int
	Chunks       int
	MicroBatches int
	Schedule     model.Schedule
	Mode         model.Mode
	Makespan     float64
	// StageGPUs lists, per pipeline rank, the GPU ids of DP replica 0's TP group.
	StageGPUs [][]int
	Ops       []schedule.Op
	// Segments gives, per op index, the TP collectives and compute inside it, relative to
	// the op's start. Ops of the same stage, chunk and kind share one slice.
	Segments [][]Segment
	// Serve gives, per op index in inference, the engine's state when that step was scheduled
	// (nil in training); Requests are replica 0's requests, for percentiles up to a time.
	Serve    []ServeState
	Requests []ServeRequest
}

// ServeRequest is one request of a serving run: when it arrived, got its first token and its
// last, and how many tokens it generated.
type ServeRequest struct {
	Arrival, FirstToken, Done float64
	Gen                       int
}

// ServeState is an engine's state at one step: its batch, its KV cache fill, its queue.
type ServeState struct {
	DecodeSeqs, PrefillTokens int
	KVUsed                    float64 // fraction of the engine's blocks in use
	Waiting                   int     // requests queued on the engine
	Running                   int     // sequences admitted on the replica
}

// The figures the views print (the explorer's strip, footer and Pipeline tab, report's text and
// JSON, the Markdown and SVG export) come from these: one definition each, so that no two
// surfaces print two numbers for one quantity.

// Share is x seconds over the step time (the serve time in inference); 0 without a step. The
// breakdown's shares, BubbleFraction among them, are Share of their part.
func (r Report) Share(x float64) float64 { return ratio(x, r.StepTime) }

// StageBusyShare is pipeline stage i's busy time over the step time, the share every other
// figure is taken of: on the critical stage, busy, pipeline sends, bubble, exposed gradient sync,
// offload and optimizer add up to the step. 0 for a stage the report does not have.
func (r Report) StageBusyShare(i int) float64 {
	if i < 0 || i >= len(r.Detail.Stages) {
		return 0
	}
	return r.Share(r.Detail.Stages[i].Busy)
}

// PPSendBytesPerGPU is what one GPU sends across a stage boundary at a time: its 1/TP share of
// one micro-batch's activations in training (Megatron's scatter/gather: each TP rank sends its
// slice, the group's links in parallel), of a typical decode step's in inference. The time of
// that send is Detail.P2PS. 0 without a pipeline.
func (r Report) PPSendBytesPerGPU() float64 {
	if r.Layout.PP <= 1 {
		return 0
	}
	return r.Detail.P2PBytes / float64(max(r.Layout.TP, 1))
}

// PPSendsInIdle says the pipeline's sends have no part of the step of their own: in serving a
// stage waits for its batch to arrive, so the sends fall in its idle time (Breakdown.Bubble) and
// Breakdown.PPComm is 0; in training Breakdown.PPComm is what the step waits on them.
func (r Report) PPSendsInIdle() bool { return r.Inference != nil }

// PPSendTime is one GPU of the busiest stage's send-recv time over the step (the whole run in
// inference), before overlap: the collectives' pp rows. 0 without a pipeline, or from the fast
// path Search uses (no collectives).
func (r Report) PPSendTime() float64 {
	t := 0.0
	for _, u := range r.Collectives {
		if u.Comm == "pp" {
			t += u.Total()
		}
	}
	return t
}

// ClosedFormBubble is the textbook bubble fraction and whether it applies. In training it
// always does: the schedule's (p−1)/(m+p−1) or its variant, 0 without a pipeline. In serving
// there is no such formula; the one floor that holds is (p − requests)/p of idle on average
// over the stages (a stage with more work than the others can idle less) when a replica has
// fewer requests than stages, so it applies only then.
func (r Report) ClosedFormBubble() (float64, bool) {
	f := r.Detail.BubbleClosedForm
	if r.Inference != nil {
		return f, f > 0
	}
	return f, true
}
