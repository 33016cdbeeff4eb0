// Package model holds splitscope's domain types: the transformer (Arch), the hardware (GPU, Link,
// Cluster), how the model is split (Layout), what it does (Workload) and the Scenario that joins
// them, with validation that reports every problem at once. Standard library only.
//
// Units are SI and in the field names: bytes, bytes per second, FLOP per second, seconds.
package model

import (
	"math"
	"strings"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// Arch is a decoder-only transformer.
type Arch struct {
	ID      string `json:"id" yaml:"id"`
	Name    string `json:"name" yaml:"name"`
	Layers  int    `json:"layers" yaml:"layers"`
	Hidden  int    `json:"hidden" yaml:"hidden"`
	Heads   int    `json:"heads" yaml:"heads"`
	KVHeads int    `json:"kv_heads" yaml:"kv_heads"` // = Heads for multi-head attention, fewer for GQA
	// HeadSize is each attention head's width where it is not Hidden / Heads (a config.json's
	// head_dim: Qwen3, Gemma); 0: Hidden / Heads.
	HeadSize int `json:"head_dim,omitempty" yaml:"head_dim"`
	// ModelType is the Hugging Face model_type of a model read from a config.json ("" for a
	// preset).
	ModelType string `json:"model_type,omitempty" yaml:"-"`
	// File is the config.json a model was read from, as an absolute path ("" for a preset): a
	// saved scenario names it.
	File     string `json:"-" yaml:"-"`
	FFN      int    `json:"ffn" yaml:"ffn"` // MLP intermediate size (per expert for MoE)
	Vocab    int    `json:"vocab" yaml:"vocab"`
	GatedMLP bool   `json:"gated_mlp" yaml:"gated_mlp"` // SwiGLU: three MLP matrices instead of two
	// QKNorm: each head's queries and keys pass an RMSNorm of their own before attention
	// (Qwen3's and Gemma 3's q_norm and k_norm): two more kernels a decode layer and 2 × head_dim
	// weights, in the softmax-attention layers.
	QKNorm bool `json:"qk_norm,omitempty" yaml:"qk_norm"`
	// Experts is the number of MLP experts (0 or 1: dense); TopK of them run per token.
	Experts int `json:"experts,omitempty" yaml:"experts"`
	TopK    int `json:"top_k,omitempty" yaml:"top_k"`
	// The layer kinds (issue 20; costmodel/arch turns them into per-layer parameters, FLOPs,
	// bytes and KV). Each is zero for the one-shape transformer every preset before 2025 is.
	//
	// SharedFFN is the summed width of the shared experts every token runs through beside its
	// routed ones (DeepSeek's n_shared_experts × moe_intermediate_size, Qwen's
	// shared_expert_intermediate_size); SharedExperts how many experts that width is (for the
	// text). DenseLayers is how many layers before the first MoE layer have a dense MLP of
	// DenseFFN (first_k_dense_replace; 0: FFN); MoEEvery puts experts in every n-th layer after
	// them (1 or 0: every one; Llama 4 Maverick's interleave 2), the others dense.
	SharedExperts int `json:"shared_experts,omitempty" yaml:"shared_experts"`
	SharedFFN     int `json:"shared_ffn,omitempty" yaml:"shared_ffn"`
	DenseLayers   int `json:"dense_layers,omitempty" yaml:"dense_layers"`
	DenseFFN      int `json:"dense_ffn,omitempty" yaml:"dense_ffn"`
	MoEEvery      int `json:"moe_every,omitempty" yaml:"moe_every"`
	// ExpertGroups and GroupLimit are node-limited routing (DeepSeek-V3's n_group and
	// topk_group): the routed experts fall in ExpertGroups equal groups and a token's top-k are
	// drawn from its GroupLimit best groups only, so that with a group per node a token reaches
	// at most GroupLimit nodes. Zero for routing over every expert.
	ExpertGroups int `json:"expert_groups,omitempty" yaml:"expert_groups"`
	GroupLimit   int `json:"group_limit,omitempty" yaml:"group_limit"`
	// MLA is multi-head latent attention (DeepSeek-V2/V3, Kimi K2): zero for none.
	MLA MLA `json:"mla,omitzero" yaml:"mla"`
	// Indexer is sparse indexed attention (DeepSeek-V3.2's DSA): a lightning indexer scores
	// every cached token and the attention reads only the TopK best; zero for none.
	Indexer Indexer `json:"indexer,omitzero" yaml:"indexer"`
	// LayerTypes is each layer's attention, comma-separated, repeating from the first layer:
	// "full", "sliding" (attends to the last SlidingWindow tokens), "chunked" (to the tokens of
	// its SlidingWindow-token chunk: Llama 4), "linear" (a fixed state per sequence: Linear).
	// "sliding,full" alternates; empty: every layer full. A string keeps Arch comparable.
	LayerTypes    string `json:"layer_types,omitempty" yaml:"layer_types"`
	SlidingWindow int    `json:"sliding_window,omitempty" yaml:"sliding_window"`
	// Linear is the linear-attention layers' shape (Qwen3-Next's Gated DeltaNet).
	Linear LinearAttn `json:"linear_attn,omitzero" yaml:"linear_attn"`
	// AttnGate says the full-attention layers gate their output per head (Qwen3-Next): the query
	// projection is twice as wide.
	AttnGate bool `json:"attn_gate,omitempty" yaml:"attn_gate"`
	// MTPLayers is the multi-token prediction layers a checkpoint carries beside its Layers
	// (num_nextn_predict_layers): counted apart (MTPParams), as the makers count them.
	MTPLayers int `json:"mtp_layers,omitempty" yaml:"mtp_layers"`
	// OtherParams is parameters outside the decoder (a vision encoder and its projector) that
	// the makers' totals count; held in memory, not run per token.
	OtherParams float64 `json:"other_params,omitempty" yaml:"other_params"`
	// Checkpoint is the formats the model's own checkpoint stores its layers' weights in (a
	// config.json's quantization_config: DeepSeek-V3's fp8 blocks, gpt-oss's mxfp4 experts),
	// each a --weights format; "" for the compute precision. Serving reads them unless
	// --weights (or --expert-weights) says otherwise.
	Checkpoint Checkpoint `json:"checkpoint,omitzero" yaml:"checkpoint"`
	// TiedEmbeddings shares the input embedding with the output projection.
	TiedEmbeddings bool   `json:"tied_embeddings,omitempty" yaml:"tied_embeddings"`
	MaxSeq         int    `json:"max_seq,omitempty" yaml:"max_seq"`
	Source         string `json:"source,omitempty" yaml:"source"`
	// Changes is how the sizes differ from the preset named ID ("layers 40": ArchChanges),
	// set where the model is built from a preset and flags; "" for the preset as it is. Titles
	// say it (Label) so that a changed model is not taken for the preset.
	Changes string `json:"-" yaml:"-"`
}

// MLA is multi-head latent attention's shape (config.json names): queries through a rank
// QLoRARank bottleneck (0: a full projection), keys and values from a KVLoRARank latent cached per
// token with a QKRopeDim rotary key; each head's query and key are QKNopeDim + QKRopeDim wide, its
// value VHeadDim.
type MLA struct {
	QLoRARank  int `json:"q_lora_rank,omitempty" yaml:"q_lora_rank"`
	KVLoRARank int `json:"kv_lora_rank" yaml:"kv_lora_rank"`
	QKNopeDim  int `json:"qk_nope_head_dim" yaml:"qk_nope_head_dim"`
	QKRopeDim  int `json:"qk_rope_head_dim" yaml:"qk_rope_head_dim"`
	VHeadDim   int `json:"v_head_dim" yaml:"v_head_dim"`
}

// Checkpoint is a checkpoint's weight formats: Weights for the layers' matrices, Experts for the
// routed experts' where they differ.
type Checkpoint struct {
	Weights string `json:"weights,omitempty" yaml:"weights"`
	Experts string `json:"experts,omitempty" yaml:"experts"`
}

// Indexer is sparse indexed attention's shape (DeepSeek-V3.2's index_n_heads, index_head_dim,
// index_topk): Heads scoring heads of HeadDim over every cached token, whose keys (HeadDim a
// token and layer) are cached beside the attention's, and the TopK tokens each query attends to.
type Indexer struct {
	Heads   int `json:"heads" yaml:"heads"`
	HeadDim int `json:"head_dim" yaml:"head_dim"`
	TopK    int `json:"top_k" yaml:"top_k"`
}

// On says the model's attention is sparse indexed.
func (x Indexer) On() bool { return x.TopK > 0 }

// On says the model uses MLA.
func (m MLA) On() bool { return m.KVLoRARank > 0 }

// LinearAttn is a linear-attention layer's shape (Gated DeltaNet: Qwen3-Next's linear_* fields):
// KeyHeads heads of KeyDim for queries and keys, ValueHeads of ValueDim for values, a causal
// convolution of ConvKernel taps over them; its state per sequence is ValueHeads × KeyDim ×
// ValueDim, whatever the context.
type LinearAttn struct {
	KeyHeads   int `json:"key_heads" yaml:"key_heads"`
	ValueHeads int `json:"value_heads" yaml:"value_heads"`
	KeyDim     int `json:"key_dim" yaml:"key_dim"`
	ValueDim   int `json:"value_dim" yaml:"value_dim"`
	ConvKernel int `json:"conv_kernel,omitempty" yaml:"conv_kernel"`
}

// Layer attention kinds, as LayerTypes names them.
const (
	AttnFull    = "full"
	AttnSliding = "sliding"
	AttnChunked = "chunked"
	AttnLinear  = "linear"
)

// LayerType is layer i's attention kind (LayerTypes repeating; "full" when empty).
func (a Arch) LayerType(i int) string {
	kinds := a.LayerPattern()
	if len(kinds) == 0 || i < 0 {
		return AttnFull
	}
	return kinds[i%len(kinds)]
}

// LayerPattern is LayerTypes as a list (nil when empty).
func (a Arch) LayerPattern() []string {
	if a.LayerTypes == "" {
		return nil
	}
	return strings.Split(a.LayerTypes, ",")
}

// MoELayer says whether layer i has routed experts (false for every layer of a dense model).
func (a *Arch) MoELayer(i int) bool {
	if a.Experts <= 1 || i < a.DenseLayers {
		return false
	}
	n := max(a.MoEEvery, 1)
	return (i-a.DenseLayers)%n == n-1
}

// HeadDim is each head's width: HeadSize, or Hidden / Heads.
func (a Arch) HeadDim() float64 {
	if a.HeadSize > 0 {
		return float64(a.HeadSize)
	}
	return float64(a.Hidden) / float64(max(a.Heads, 1))
}

// QWidth is the width of the queries and of the attention's output, Heads × HeadDim (Hidden
// unless HeadSize says otherwise).
func (a Arch) QWidth() float64 { return float64(a.Heads) * a.HeadDim() }

// KVWidth is the width of the keys (and of the values) of one token, KVHeads × HeadDim.
func (a Arch) KVWidth() float64 { return float64(a.KVHeads) * a.HeadDim() }

// MLPMatrices is 3 for a gated (SwiGLU) MLP and 2 otherwise.
func (a Arch) MLPMatrices() float64 {
	if a.GatedMLP {
		return 3
	}
	return 2
}

// ExpertCount is the number of MLP experts held (1 for dense models).
func (a Arch) ExpertCount() int { return max(a.Experts, 1) }

// ActiveExperts is the number of experts a token runs through (1 for dense models).
func (a Arch) ActiveExperts() int {
	if a.Experts <= 1 {
		return 1
	}
	return max(min(a.TopK, a.Experts), 1)
}

// GPU is one accelerator model.
type GPU struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Dense peak tensor throughput per precision, FLOP/s (FP32 is non-tensor).
	PeakBF16 float64 `json:"peak_bf16_flops"`
	PeakFP16 float64 `json:"peak_fp16_flops"`
	PeakFP8  float64 `json:"peak_fp8_flops"` // 0: no FP8 support (runs at the BF16 rate)
	PeakFP32 float64 `json:"peak_fp32_flops"`
	// MemoryBytes is the HBM / GDDR capacity.
	MemoryBytes float64 `json:"memory_bytes"`
	// HBMBandwidth is the memory bandwidth, bytes/s.
	HBMBandwidth float64 `json:"hbm_bandwidth_bps"`
	// ComputeEff is the fraction of peak a large matmul reaches (maximum achievable matmul FLOPS).
	ComputeEff float64 `json:"compute_eff"`
	// ComputeEffFP8 is that fraction for FP8 matmuls where it was measured apart (0: ComputeEff).
	ComputeEffFP8 float64 `json:"compute_eff_fp8,omitempty"`
	// MemoryEff is the fraction of HBM bandwidth a streaming kernel reaches.
	MemoryEff float64 `json:"memory_eff"`
	// GEMMMemoryEff is the fraction of HBM bandwidth a matmul reaches while it streams its
	// weights for a few tokens (a decode step's projections, 1–64 tokens), where it was measured
	// apart from MemoryEff (Ampere's: 0.77); 0: MemoryEff. A memory efficiency the user or a
	// calibration gives replaces both (ApplyGPU, --memory-eff). GEMMStreamEff reads it.
	GEMMMemoryEff float64 `json:"gemm_memory_eff,omitempty"`
	// BoostClockMHz is the SM (shader engine) clock at boost, MHz: what a kernel's fixed cycles
	// (its launch inside a CUDA graph, prologue, epilogue, the wait for its last block) take
	// time at. 0: not known (the serving model's per-kernel floor is then its 4 µs).
	BoostClockMHz float64 `json:"boost_clock_mhz,omitempty"`
	// KernelFloorCycles is the serving model's per-kernel floor in cycles of BoostClockMHz for
	// this GPU family (costmodel/serving.go, kernelFloorOn); 0: the one fitted on NVIDIA's GPUs
	// (7920 cycles). AMD's CDNA 3 (MI300X, MI325X) sets its own.
	KernelFloorCycles float64 `json:"kernel_floor_cycles,omitempty"`
	// StepOverhead and KernelFloor replace, on this box, the serving engine's host time once a
	// step (sampling, scheduling, input preparation) and the launch gap a small kernel pays
	// (costmodel/serving.go); 0 keeps the engine's default. Only a calibration sets them
	// (`splitscope calibrate --from`, model.ServingCalibration). Seconds.
	StepOverhead float64 `json:"step_overhead_s,omitempty"`
	KernelFloor  float64 `json:"kernel_floor_s,omitempty"`
	// GEMMLatency replaces the GEMM curve's fixed time per kernel (costmodel.GEMMSeconds, 6 µs
	// built in) on this box; 0 keeps the built-in. Only a calibration fitted to a profiler
	// trace's GEMM kernels sets it (calibrate --from TRACE). Seconds.
	GEMMLatency float64 `json:"gemm_latency_s,omitempty"`
	// EngineCal is a serving calibration fitted on one engine's runs (a calibration with
	// engine:), put on the GPU only where that engine serves (ForEngine); nil without one.
	EngineCal *EngineCalibration `json:"-"`
	// NativeLink is the ID of the GPU-to-GPU link the GPU has inside its node; PCIeLink its host bus.
	NativeLink string `json:"native_link"`
	PCIeLink   string `json:"pcie_link"`
	// NVLinkBridge says that a PCIe card (NativeLink = PCIeLink) takes an NVLink bridge, which
	// joins two cards: a pair of them may talk over NVLink, a whole node cannot.
	NVLinkBridge bool `json:"nvlink_bridge,omitempty"`
	// NoP2P says the GPU's driver gives it no peer-to-peer access to other GPUs over PCIe
	// (GeForce cards with NVIDIA's stock driver): every transfer between two of them is staged
	// through host memory. The zero value, peer-to-peer, is what datacenter and workstation
	// cards do.
	NoP2P bool `json:"no_p2p,omitempty"`
	// FP4 says the GPU has FP4 tensor cores (Blackwell's fifth generation).
	FP4 bool `json:"fp4,omitempty"`
	// HostBandwidth is what the GPU's PCIe link to host memory moves, bytes/s each way (its
	// pcie_link preset's bandwidth × efficiency): what offloading pays.
	HostBandwidth float64 `json:"host_bandwidth_bps,omitempty"`
	TDPWatts      float64 `json:"tdp_watts,omitempty"`
	Source        string  `json:"source,omitempty"`
}

// GEMMStreamEff is the fraction of the memory bandwidth a matmul streaming its weights
// reaches: GEMMMemoryEff where the GPU has one, else MemoryEff.
func (g GPU) GEMMStreamEff() float64 {
	if g.GEMMMemoryEff > 0 {
		return g.GEMMMemoryEff
	}
	return g.MemoryEff
}

// Peak is the dense peak FLOP/s in a precision; FP8 falls back to BF16 on GPUs without it.
// MatmulEff is the fraction of the precision's peak a large matmul reaches.
func (g GPU) MatmulEff(p Precision) float64 {
	if p == FP8 && g.PeakFP8 > 0 && g.ComputeEffFP8 > 0 {
		return g.ComputeEffFP8
	}
	return g.ComputeEff
}

func (g GPU) Peak(p Precision) float64 {
	switch p {
	case FP16:
		return g.PeakFP16
	case FP8:
		if g.PeakFP8 > 0 {
			return g.PeakFP8
		}
		return g.PeakBF16
	case FP32:
		return g.PeakFP32
	default:
		return g.PeakBF16
	}
}

// TensorCores reports whether the GPU has tensor cores for the precision, read from its peaks:
// FP32 is the non-tensor rate by definition, FP8 needs a peak of its own, and a 16-bit format
// whose peak is no higher than the FP32 rate runs without them (V100's BF16).
func (g GPU) TensorCores(p Precision) bool {
	switch p {
	case FP32:
		return false
	case FP8:
		return g.PeakFP8 > 0
	default:
		return g.Peak(p) > g.PeakFP32
	}
}

// Link is an interconnect, described per GPU.
type Link struct {
	ID   string   `json:"id"`
	Name string   `json:"name"`
	Kind LinkKind `json:"kind"`
	// Bandwidth is the per-GPU unidirectional bandwidth, bytes/s (NIC links: per NIC).
	Bandwidth float64 `json:"bandwidth_bps"`
	// Latency is α, the fixed cost of one step of a collective or one send, seconds.
	Latency float64 `json:"latency_s"`
	// Efficiency is the fraction of Bandwidth that large collectives reach (nccl-tests busbw).
	Efficiency float64 `json:"efficiency"`
	// NVLS says the link is an NVSwitch fabric with NVLink SHARP (Hopper and later): the switch
	// reduces and multicasts, and NCCL uses it for groups of at least NVLSMinRanks GPUs of a node.
	NVLS         bool `json:"nvls,omitempty"`
	NVLSMinRanks int  `json:"nvls_min_ranks,omitempty"`
	// NVLSEfficiency is the fraction of Bandwidth an NVLS all-reduce moves as algorithm
	// bandwidth.
	NVLSEfficiency float64 `json:"nvls_efficiency,omitempty"`
	// LLBandwidth caps the bus bandwidth of NCCL's LL protocol on this link, bytes/s, where it is
	// bound by the channels NCCL opens for small messages rather than by the link (0: half the
	// link's bus bandwidth, LL's own limit).
	LLBandwidth float64 `json:"ll_bandwidth_bps,omitempty"`
	// SimpleOnly says NCCL runs only its Simple protocol across this network link: the NIC does
	// not deliver a message's bytes in order, which LL and LL128 rely on (AWS EFA v1, where the
	// network plugin sets NCCL_PROTO=simple).
	SimpleOnly bool `json:"simple_only,omitempty"`
	// PluginLatency is the latency a network plugin declares to NCCL for this network link,
	// seconds (ncclNetProperties.latency): NCCL's tuner adds it to each network step of its
	// estimates (twice for Simple), which moves its choice of algorithm, not the time a step takes
	// (AWS's plugin declares 75 µs on p4d and p5, 35 µs on p5en and p6-b200). 0: none.
	PluginLatency float64 `json:"plugin_latency_s,omitempty"`
	// PCIePath is where a PCIe link's traffic between two GPUs goes: under PCIe switches, through
	// the CPU's host bridge, or across CPU sockets (nvidia-smi topo -m's PIX/PXB, PHB/NODE, SYS).
	PCIePath PCIePath `json:"pcie_path,omitempty"`
	// Staged says a PCIe link carries no peer-to-peer traffic: each transfer between two GPUs
	// goes through host memory (the GPUs cannot map each other's memory).
	Staged bool `json:"staged,omitempty"`
	// MeshLinks > 0 says the link is a full mesh of point-to-point links, one to each other GPU
	// of the node (XGMI on an 8-GPU MI300X board: 7), Bandwidth being their sum: a group of k
	// GPUs of the node uses k−1 of them.
	MeshLinks int    `json:"mesh_links,omitempty"`
	Source    string `json:"source,omitempty"`
	// Calibrated names the calibration file whose measured parameters the link carries in place
	// of the preset's (see Calibration); "" for a preset as it is.
	Calibrated string `json:"calibrated,omitempty"`
}

// EffBandwidth is Bandwidth × Efficiency.
func (l Link) EffBandwidth() float64 { return l.Bandwidth * l.Efficiency }

// Cluster is a set of identical nodes of identical GPUs.
type Cluster struct {
	GPU         GPU  `json:"gpu"`
	GPUs        int  `json:"gpus"`
	GPUsPerNode int  `json:"gpus_per_node"`
	Intra       Link `json:"intra"`         // between GPUs of one node
	Inter       Link `json:"inter"`         // between nodes, per NIC
	NICsPerNode int  `json:"nics_per_node"` // NICs of the Inter link each node has
	// HostMemoryBytes is one node's host memory, what offloading may fill (0: DefaultHostMemoryPerGPU
	// for each GPU of the node).
	HostMemoryBytes float64 `json:"host_memory_bytes,omitempty"`
}

// IntraLink is the link between two GPUs of a node as their traffic sees it: Intra, staged
// through host memory when it is PCIe and the GPU has no peer-to-peer.
func (c Cluster) IntraLink() Link {
	l := c.Intra
	if l.Kind == PCIe && c.GPU.NoP2P {
		l.Staged = true
	}
	return l
}

// AutoKnobs is a set of training knobs left to search (Layout.Auto).
type AutoKnobs uint8

// The knobs that can be auto.
const (
	AutoRecompute AutoKnobs = 1 << iota
	AutoSequenceParallel
	AutoSPGather
	AutoZeRO
	AutoTPOverlap
	AutoOffload
	AutoRankOrder
	AutoSerialDP
)

// DefaultHostMemoryPerGPU is the host memory a node has per GPU when the cluster does not say:
// 256 GiB, a DGX H100's 2 TiB over its 8 GPUs (NVIDIA's DGX H100 datasheet; DGX A100 has 1 or 2
// TiB for 8, workstations less).
const DefaultHostMemoryPerGPU = 256 * GiB

// HostMemory is one node's host memory.
func (c Cluster) HostMemory() float64 {
	if c.HostMemoryBytes > 0 {
		return c.HostMemoryBytes
	}
	return DefaultHostMemoryPerGPU * float64(max(c.NodeSize(), 1))
}

// HostMemoryPerGPU is one GPU's share of its node's host memory: what offloading may fill on
// its behalf (the GPUs of a node share the node's memory).
func (c Cluster) HostMemoryPerGPU() float64 {
	return c.HostMemory() / float64(max(c.NodeSize(), 1))
}

// HostMemoryDefault says whether the host memory is the default (no box, flag or file said).
func (c Cluster) HostMemoryDefault() bool { return !(c.HostMemoryBytes > 0) }

// Nodes is the number of nodes the GPUs occupy.
func (c Cluster) Nodes() int {
	if c.GPUsPerNode <= 0 {
		return 0
	}
	return (c.GPUs + c.GPUsPerNode - 1) / c.GPUsPerNode
}

// NodeSize is the number of GPUs in one node that the job uses.
func (c Cluster) NodeSize() int { return max(min(c.GPUs, c.GPUsPerNode), 1) }

// Layout is how a model is split across the GPUs.
type Layout struct {
	TP int `json:"tp"`
	PP int `json:"pp"`
	DP int `json:"dp"`
	// Chunks is the number of virtual pipeline stages per GPU (interleaved schedule; 1 otherwise).
	Chunks int `json:"chunks"`
	// MicroBatch is the micro-batch size b in sequences (inference: requests per group).
	MicroBatch       int       `json:"micro_batch"`
	Schedule         Schedule  `json:"schedule"`
	SequenceParallel bool      `json:"sequence_parallel"`
	Recompute        Recompute `json:"recompute"`
	ZeRO             int       `json:"zero"` // 0..3: how much of the optimizer/gradients/weights DP shards
	// TPOverlap hides the TP collectives behind the GEMMs beside them (training).
	TPOverlap TPOverlap `json:"tp_overlap,omitempty"`
	// Offload keeps training state or activations in host memory (training).
	Offload Offload `json:"offload,omitempty"`
	// SPGather redoes or keeps the sequence-parallel all-gather for the backward (training).
	SPGather SPGather `json:"sp_gather,omitempty"`
	// RankOrder numbers the ranks TP, DP, PP (the default) or TP, PP, DP over the GPUs: which of
	// DP and PP shares a node with TP where TP leaves room.
	RankOrder RankOrder `json:"rank_order,omitempty"`
	// Auto marks the training knobs whose value is chosen for the split by search (the
	// explorer's "auto"); the fields above then hold the choice. Evaluate reads the fields only.
	Auto AutoKnobs `json:"auto,omitempty"`
	// Software generation. The zero value is today's frameworks; Megatron-LM as of 2021
	// (Narayanan et al.) materialised the s×s attention scores and all-reduced gradients after
	// the whole backward.
	UnfusedAttention bool `json:"unfused_attention,omitempty"` // no FlashAttention: s×s scores in HBM
	SerialDP         bool `json:"serial_dp,omitempty"`         // gradient sync not overlapped with backward
	// Collectives picks NCCL or the serving engine's own all-reduce for TP (inference).
	Collectives Collectives `json:"collectives,omitempty"`
	// EP is expert parallelism for MoE models: the experts of each MoE layer are divided among
	// EP data-parallel replicas (EP divides DP and the experts), which exchange tokens by
	// all-to-all. 0 or 1: every replica holds every expert.
	EP int `json:"ep,omitempty"`
	// EPImbalance is the busiest GPU's share of the routed tokens over the mean of its EP group
	// (≥ 1; 0: the cost model's default, from a published measurement). It slows that GPU's
	// expert GEMMs and its all-to-alls, which every GPU of the group waits for.
	EPImbalance float64 `json:"ep_imbalance,omitempty"`
	// ETP is expert tensor parallelism: each expert's matrices are split over ETP GPUs of the TP
	// group instead of all TP of them (Megatron-core's --expert-tensor-parallel-size). Below TP
	// the TP group's TP/ETP slices hold different experts ("MoE parallel folding"): a MoE layer's
	// tokens are exchanged by all-to-all over EP × TP/ETP GPUs and its MLP needs no TP
	// all-reduce beyond the ETP GPUs. 0: TP, the experts split like the dense layers.
	ETP int `json:"etp,omitempty"`
	// EPDispatch is how the EP all-to-alls move tokens across nodes: direct (the default) or
	// DeepEP's two hops, RDMA on one rail then NVLink (enums.go).
	EPDispatch EPDispatch `json:"ep_dispatch,omitempty"`
	// Disagg serves prompts and decodes on separate GPU pools (serving only); TP, PP, DP and EP
	// above are then the decode pool's. The zero value: one pool (aggregated serving).
	Disagg Disagg `json:"disagg,omitzero"`
	// CP is context parallelism (training): each sequence is cut into 2·CP chunks and every GPU
	// of a CP group holds two of them (the first and the last, for the causal mask's balance),
	// its activations and its share of the attention; the group exchanges attention's K/V as
	// CPComm says. CP ranks hold the same weights, so the gradients are synced (and ZeRO-sharded)
	// over DP × CP. Ranks are numbered TP, CP, then DP and PP in the rank order (Megatron's
	// tp-cp-ep-dp-pp). 0 or 1: none.
	CP int `json:"cp,omitempty"`
	// CPComm is how the CP group exchanges K/V (enums.go); ring by default.
	CPComm CPComm `json:"cp_comm,omitempty"`
}

// CPSize is CP, 1 when unset.
func (l Layout) CPSize() int { return max(l.CP, 1) }

// GradGroup is the number of ranks that hold the same weights and average their gradients:
// DP × CP. A CP group's ranks hold the whole model and see different tokens of the same
// sequences, so they all-reduce gradients like data-parallel replicas, and ZeRO (Megatron's
// distributed optimizer) shards over this group, its data-parallel-with-context-parallel group.
func (l Layout) GradGroup() int { return max(l.DP, 1) * l.CPSize() }

// UlyssesOK says whether u GPUs can share a layer's heads by all-to-all (DeepSpeed-Ulysses)
// under TP t: u divides the query heads of a TP rank and its KV heads (a KV head is not split,
// so Ulysses is bounded by the KV heads; KV heads replicated by TP leave one per rank).
func UlyssesOK(a Arch, t, u int) bool {
	if u <= 1 {
		return true
	}
	if t < 1 || a.Heads%t != 0 {
		return false
	}
	kv := max(a.KVHeads/max(t, 1), 1)
	if a.KVHeads < t {
		kv = 1
	}
	return (a.Heads/t)%u == 0 && kv%u == 0
}

// CPSplit is how the CP group divides its exchange on nodes of gpn GPUs: ulysses GPUs share
// each layer's heads by all-to-all and ring groups of them pass K/V blocks (ulysses × ring =
// CP). Ring and all-gather: (1, CP); ulysses: (CP, 1); hybrid: the largest Ulysses degree the
// heads allow among the CP ranks of one node (CP ranks are the axes inside CP apart: TP in the
// default order), ring across the rest.
func (l Layout) CPSplit(a Arch, gpn int) (ulysses, ring int) {
	cp := l.CPSize()
	switch l.CPComm {
	case CPUlysses:
		return cp, 1
	case CPHybrid:
		_, stride, _, _ := l.RankOrder.Strides(l.TP, cp, l.DP, l.PP)
		local := min(cp, max(gpn/stride, 1))
		for u := local; u >= 1; u-- {
			if local%u == 0 && cp%u == 0 && UlyssesOK(a, l.TP, u) {
				return u, cp / u
			}
		}
	}
	return 1, cp
}

// ETPSize is the GPUs each expert's matrices are split over: ETP, TP when unset.
func (l Layout) ETPSize() int {
	if l.ETP > 0 {
		return l.ETP
	}
	return max(l.TP, 1)
}

// FoldSize is the GPUs a MoE layer's experts are spread over by expert (EP × TP/ETP): its
// all-to-all group.
func (l Layout) FoldSize() int { return l.EPSize() * max(max(l.TP, 1)/l.ETPSize(), 1) }

// MaxEPImbalance is the largest EPImbalance accepted.
const MaxEPImbalance = 64

// EPSize is EP, 1 when unset.
func (l Layout) EPSize() int { return max(l.EP, 1) }

// GPUs is TP × CP × PP × DP.
func (l Layout) GPUs() int { return l.TP * l.CPSize() * l.PP * l.DP }

// Workload is what the GPUs do.
type Workload struct {
	Mode Mode `json:"mode"`
	// Seq is the training sequence length.
	Seq int `json:"seq"`
	// GlobalBatch is the number of sequences per optimizer step (training).
	GlobalBatch int `json:"global_batch"`
	// Inference: tokens of prompt and generated tokens per request, and requests served at once.
	PromptTokens int       `json:"prompt_tokens"`
	GenTokens    int       `json:"gen_tokens"`
	Requests     int       `json:"requests"`
	Precision    Precision `json:"precision"`
	// Serving (inference): Poisson arrivals at Rate requests/s, or a closed loop of Concurrency
	// clients, or neither (every request at time 0); lengths from PromptDist and GenDist when
	// set; the engine's limits (0: ServeDefaults); the storage of the weights (WeightBits' names,
	// "" the precision's) and of the KV cache (a precision, "" the precision's).
	Rate        float64     `json:"rate,omitempty"`
	Concurrency int         `json:"concurrency,omitempty"`
	Seed        uint64      `json:"seed,omitempty"`
	PromptDist  *LengthDist `json:"prompt_dist,omitempty"`
	GenDist     *LengthDist `json:"gen_dist,omitempty"`
	// SystemPrompt tokens are prepended to the prompt of a share SystemShare of the requests (0:
	// all of them): a shared system prompt, counted in the prompt's length; the engine's prefix
	// cache holds it after the first request that carries it (vLLM V1 and SGLang cache prefixes
	// by default), unless SystemUncached, when every request prefills it. Stages, when set,
	// replace Rate and Requests: Poisson arrivals at each stage's rate for its duration or its
	// number of requests, one stage after another.
	SystemPrompt   int         `json:"system_prompt,omitempty"`
	SystemShare    float64     `json:"system_share,omitempty"`
	SystemUncached bool        `json:"system_uncached,omitempty"`
	Stages         *RateStages `json:"stages,omitempty"` // a pointer: Workload stays comparable
	MaxSeqs        int         `json:"max_seqs,omitempty"`
	MaxBatchTokens int         `json:"max_batch_tokens,omitempty"`
	Weights        string      `json:"weights,omitempty"`
	// ExpertWeights is the routed experts' storage where it differs from Weights (a MoE
	// checkpoint with mxfp4 or fp8 experts and bf16 attention); "" Weights', else the model's
	// checkpoint's (Arch.Checkpoint).
	ExpertWeights string `json:"expert_weights,omitempty"`
	KVCache       string `json:"kv_cache,omitempty"`
	// Engine is the serving engine whose defaults the simulation follows (Engines: vllm, the
	// default; vllm-v0, vllm-v0-sync, vllm-v0-ms, sglang, sglang-0.4, tgi, trtllm, trtllm-triton, lmdeploy): how it builds a step,
	// what it admits, its front end.
	Engine string `json:"engine,omitempty"`
	// Offline: the benchmark hands the engine token ids (trtllm-bench, an engine's offline
	// throughput script, TensorRT-LLM's own tables), so no front end tokenizes the prompts.
	Offline bool `json:"offline,omitempty"`
	// SchedulerRecvInterval > 1 lets the engine's scheduler take new requests only every that
	// many decode steps (SGLang's --scheduler-recv-interval; a step after a prompt step and an
	// idle scheduler take them at once). 0 or 1: every step (every engine's default).
	SchedulerRecvInterval int `json:"scheduler_recv_interval,omitempty"`
	// PrefixCached is how many of each prompt's first tokens the engine's prefix cache holds
	// when the request arrives (a system prompt every request shares, or a benchmark that
	// cycles a fixed set of prompts): whole KV blocks of them are not prefilled (0: none).
	PrefixCached int `json:"prefix_cached,omitempty"`
	// PrefixHit is the share of each prompt's tokens the prefix cache holds when the request
	// arrives, in [0, 1] (a multi-turn chat's earlier turns, an agent loop's growing context):
	// whole KV blocks of that many first tokens are not prefilled; 1 leaves the last token only
	// (0: none). With PrefixCached, the larger of the two.
	PrefixHit float64 `json:"prefix_hit,omitempty"`
	// Turns > 1 makes each request the first turn of a conversation of that many turns
	// (Requests and Rate then count conversations): each later turn's prompt is the whole
	// conversation so far and a new message of the prompt's length, sent ThinkS seconds on
	// average (exponential) after the turn before it ended, to the same replica; the engine's
	// prefix cache keeps the conversation so far while its pool has room (0 or 1: single requests).
	Turns  int     `json:"turns,omitempty"`
	ThinkS float64 `json:"think_s,omitempty"`
	// KVHostGiB is a host-memory tier of the KV cache, GiB per GPU (vLLM's KV offloading
	// connector, LMCache's CPU backend): cached prefixes evicted from the GPU are kept there and
	// loaded back over PCIe instead of prefilled again; it counts against the host memory (0: none).
	KVHostGiB float64 `json:"kv_host_gib,omitempty"`
	// The latency target of the serving run, seconds (0: none): the p90 time to first token and
	// the p90 time per output token. It judges the run, the rate sweep's goodput and Search's
	// goodput objective; it changes no time.
	SLOTTFT float64 `json:"slo_ttft_s,omitempty"`
	SLOTPOT float64 `json:"slo_tpot_s,omitempty"`
	// Speculative decoding (spec.go): SpecTokens proposals a decode step per sequence (0: none;
	// a curve's length when only SpecAccept's curve is given), their acceptance (one per-token
	// rate or a per-position curve), the method proposing them (SpecMethods; "" eagle) and, for
	// draft, the draft model. Pointers: Workload stays comparable.
	SpecTokens int         `json:"spec_tokens,omitempty"`
	SpecAccept *SpecAccept `json:"spec_accept,omitempty"`
	SpecMethod string      `json:"spec_method,omitempty"`
	SpecDraft  *Arch       `json:"spec_draft,omitempty"`
}

// Scenario is everything the cost model needs.
type Scenario struct {
	Arch     Arch     `json:"arch"`
	Cluster  Cluster  `json:"cluster"`
	Layout   Layout   `json:"layout"`
	Workload Workload `json:"workload"`
	// ReserveBytes is memory per GPU lost to the CUDA context and the allocator.
	ReserveBytes float64 `json:"reserve_bytes"`
}

// DefaultReserveBytes is the per-GPU reserve for CUDA context and allocator fragmentation.
const DefaultReserveBytes = 1 * GiB

// BatchUnits is the number of sequences split into micro-batches: the global batch in training,
// the concurrent requests in inference.
func (s Scenario) BatchUnits() int {
	if s.Workload.Mode == Infer {
		return s.Workload.Requests
	}
	return s.Workload.GlobalBatch
}

// MicroBatches is m = units / (b · d): micro-batches per pipeline per step (in inference, the
// requests a replica serves, micro-batch 1).
func (s Scenario) MicroBatches() int {
	d := s.Layout.MicroBatch * s.Layout.DP
	if d <= 0 {
		return 0
	}
	return s.BatchUnits() / d
}

// TokensPerSequence is the sequence length a forward pass sees: Seq in training,
// prompt + generated tokens (the longest KV) in inference.
func (s Scenario) TokensPerSequence() int {
	if s.Workload.Mode == Infer {
		return s.Workload.PromptTokens + s.Workload.GenTokens
	}
	return s.Workload.Seq
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
