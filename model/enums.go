package model

import (
	"fmt"
	"strings"
)

// Precision is the number format of weights and activations.
type Precision int

// Precisions, in the order the CLI lists them.
const (
	BF16 Precision = iota
	FP16
	FP8
	FP32
)

var precisionNames = []string{"bf16", "fp16", "fp8", "fp32"}

func (p Precision) String() string { return enumName(precisionNames, int(p)) }

// Bytes is the size of one element in this precision.
func (p Precision) Bytes() float64 {
	switch p {
	case FP8:
		return 1
	case FP32:
		return 4
	default:
		return 2
	}
}

// ParsePrecision reads "bf16", "fp16", "fp8" or "fp32".
func ParsePrecision(s string) (Precision, error) {
	i, err := parseEnum("precision", precisionNames, s)
	return Precision(i), err
}

// Mode says whether the scenario trains or serves the model.
type Mode int

// Modes.
const (
	Train Mode = iota
	Infer
)

var modeNames = []string{"train", "infer"}

func (m Mode) String() string { return enumName(modeNames, int(m)) }

// ParseMode reads "train" or "infer".
func ParseMode(s string) (Mode, error) {
	i, err := parseEnum("mode", modeNames, s)
	return Mode(i), err
}

// Schedule is the pipeline schedule used for training.
type Schedule int

// Schedules.
const (
	OneFOneB Schedule = iota // PipeDream-Flush / Megatron 1F1B
	GPipe
	Interleaved // Megatron interleaved 1F1B with Layout.Chunks virtual stages per GPU
	ZBH1        // zero-bubble H1 (Qi et al.): B and W split, W fills the cool-down
	// ZBV is zero-bubble V (Qi et al. 2024): two chunks a rank in a V, the first going down the
	// ranks and the second coming back, B and W split; 1F1B's activation memory.
	ZBV
	// DualPipe (DeepSeek-V3): micro-batches fed from both ends, each rank holding two stages
	// (weights ×2), a forward overlapped with another micro-batch's backward.
	DualPipe
	// DualPipeV is DualPipe cut in half (Sea AI Lab): one copy of the weights, two chunks a
	// rank in a V, fed from rank 0.
	DualPipeV
)

var scheduleNames = []string{"1f1b", "gpipe", "interleaved", "zb-h1", "zb-v", "dualpipe", "dualpipev"}

func (s Schedule) String() string { return enumName(scheduleNames, int(s)) }

// ParseSchedule reads "gpipe", "1f1b", "interleaved", "zb-h1", "zb-v", "dualpipe" or "dualpipev".
func ParseSchedule(s string) (Schedule, error) {
	i, err := parseEnum("schedule", scheduleNames, s)
	return Schedule(i), err
}

// Schedules lists every schedule.
func Schedules() []Schedule {
	return []Schedule{OneFOneB, GPipe, Interleaved, ZBH1, ZBV, DualPipe, DualPipeV}
}

// VirtualChunks is how many model chunks each rank runs under s given the layout's chunks:
// the layout's for interleaved, two for the V and bidirectional schedules, one otherwise.
func (s Schedule) VirtualChunks(chunks int) int {
	switch s {
	case Interleaved:
		return chunks
	case ZBV, DualPipe, DualPipeV:
		return 2
	}
	return 1
}

// ModelStages is how many stages the model is cut into under s with pp ranks and the layout's
// chunks: DualPipe keeps pp stages (each rank holds two of them, one per direction); the others
// pp × their chunks.
func (s Schedule) ModelStages(pp, chunks int) int {
	if s == DualPipe {
		return pp
	}
	return pp * s.VirtualChunks(chunks)
}

// Recompute is the activation recomputation policy.
type Recompute int

// Recompute policies (Korthikanti et al. 2022).
const (
	RecomputeNone      Recompute = iota
	RecomputeSelective           // attention core recomputed in backward
	RecomputeFull                // whole layer recomputed; only layer inputs kept
)

var recomputeNames = []string{"none", "selective", "full"}

func (r Recompute) String() string { return enumName(recomputeNames, int(r)) }

// ParseRecompute reads "none", "selective" or "full".
func ParseRecompute(s string) (Recompute, error) {
	i, err := parseEnum("recompute", recomputeNames, s)
	return Recompute(i), err
}

// Collectives says whose all-reduce the TP group runs: NCCL's, or the serving engine's own
// one-shot/two-shot kernels (vLLM, TensorRT-LLM) where they apply.
type Collectives int

// Collective implementations.
const (
	CollectivesAuto   Collectives = iota // the engine's in inference, NCCL's in training
	CollectivesNCCL                      // NCCL only
	CollectivesEngine                    // the engine's kernels where they apply (inference)
)

var collectivesNames = []string{"auto", "nccl", "engine"}

func (c Collectives) String() string { return enumName(collectivesNames, int(c)) }

// ParseCollectives reads "auto", "nccl" or "engine".
func ParseCollectives(s string) (Collectives, error) {
	i, err := parseEnum("collectives", collectivesNames, s)
	return Collectives(i), err
}

// UsesEngine says whether the TP all-reduce runs the engine's kernels in this mode.
func (c Collectives) UsesEngine(m Mode) bool {
	return m == Infer && c != CollectivesNCCL
}

// TPOverlap says whether the TP collectives overlap the GEMMs beside them (Megatron's and
// Transformer Engine's userbuffer overlap, Calculon's tensor_par_overlap): none; ring, the GEMM
// cut into TP tiles with each tile's exchange hidden behind the next tile's compute; pipe, the
// same with one more exchange tile exposed (a pipelined collective instead of the ring of
// point-to-point exchanges).
type TPOverlap int

// TP overlap modes.
const (
	TPOverlapNone TPOverlap = iota
	TPOverlapRing
	TPOverlapPipe
)

var tpOverlapNames = []string{"none", "ring", "pipe"}

func (o TPOverlap) String() string { return enumName(tpOverlapNames, int(o)) }

// ParseTPOverlap reads "none", "ring" or "pipe".
func ParseTPOverlap(s string) (TPOverlap, error) {
	i, err := parseEnum("tp-overlap", tpOverlapNames, s)
	return TPOverlap(i), err
}

// EPDispatch is how a MoE layer's tokens reach their experts on other GPUs (docs/costmodel.md
// §Experts across GPUs). Direct: one all-to-all over the EP group, every copy of a token to a
// remote expert crossing the network on its own (NCCL's all-to-all, Megatron-core's alltoall
// dispatcher). Two-hop: DeepEP's internode kernels, a token sent once over RDMA to the GPU of the
// same local rank on each node holding one of its experts (one rail), then over NVLink to those
// experts; the combine the reverse.
type EPDispatch int

// EP dispatches.
const (
	EPDispatchDirect EPDispatch = iota
	EPDispatchTwoHop
)

var epDispatchNames = []string{"direct", "two-hop"}

func (d EPDispatch) String() string { return enumName(epDispatchNames, int(d)) }

// ParseEPDispatch reads "direct" or "two-hop".
func ParseEPDispatch(s string) (EPDispatch, error) {
	i, err := parseEnum("ep-dispatch", epDispatchNames, s)
	return EPDispatch(i), err
}

// Offload says what training keeps in host memory instead of the GPU's, moved over the GPU's
// PCIe link (ZeRO-Offload and ZeRO-Infinity in DeepSpeed): the optimizer (fp32 master weights,
// Adam's moments and gradients, the AdamW step run by the CPU), that and the 16-bit weights
// (streamed in for every forward and backward), the activations kept for the backward
// (DeepSpeed's cpu_checkpointing), or the activations with either of the first two.
type Offload int

// Offload modes. The weights go to the host only with the optimizer (ZeRO-Infinity's parameter
// offload keeps the fp32 master copy there too).
const (
	OffloadNone Offload = iota
	OffloadOptimizer
	OffloadOptimizerWeights
	OffloadActivations
	OffloadOptimizerActivations
	OffloadAll
)

var offloadNames = []string{"none", "optimizer", "optimizer+weights", "activations", "optimizer+activations", "optimizer+weights+activations"}

// Offloads lists every offload mode, none first.
func Offloads() []Offload {
	return []Offload{OffloadNone, OffloadOptimizer, OffloadOptimizerWeights, OffloadActivations, OffloadOptimizerActivations, OffloadAll}
}

func (o Offload) String() string { return enumName(offloadNames, int(o)) }

// Weights says whether the 16-bit weights live on the host, streamed in for every pass.
func (o Offload) Weights() bool { return o == OffloadOptimizerWeights || o == OffloadAll }

// Activations says whether the activations kept for the backward go to the host.
func (o Offload) Activations() bool {
	return o == OffloadActivations || o == OffloadOptimizerActivations || o == OffloadAll
}

// ParseOffload reads "none", "optimizer", "optimizer+weights", "activations",
// "optimizer+activations" or "optimizer+weights+activations".
func ParseOffload(s string) (Offload, error) {
	i, err := parseEnum("offload", offloadNames, s)
	return Offload(i), err
}

// Optimizer says whether the optimizer state and step live on the host.
func (o Offload) Optimizer() bool {
	return o == OffloadOptimizer || o == OffloadOptimizerWeights || o == OffloadOptimizerActivations || o == OffloadAll
}

// SPGather says what the backward does for the weight gradients of the column-parallel GEMMs
// (QKV, MLP up) under sequence parallelism, whose inputs the forward keeps as 1/TP shards: redo
// the all-gather (Megatron's choice, Korthikanti et al. §4.2.2), or keep the gathered inputs
// whole from the forward (more memory, no second all-gather; Calculon's seq_par_ag_redo off).
type SPGather int

// SP all-gather modes.
const (
	SPGatherRedo SPGather = iota
	SPGatherKeep
)

var spGatherNames = []string{"redo", "keep"}

func (g SPGather) String() string { return enumName(spGatherNames, int(g)) }

// ParseSPGather reads "redo" or "keep".
func ParseSPGather(s string) (SPGather, error) {
	i, err := parseEnum("sp-gather", spGatherNames, s)
	return SPGather(i), err
}

// LinkKind is the family of an interconnect.
type LinkKind int

// Link kinds.
const (
	NVLink LinkKind = iota
	PCIe
	InfiniBand
	RoCE
	Ethernet
	XGMI
)

var linkKindNames = []string{"nvlink", "pcie", "infiniband", "roce", "ethernet", "xgmi"}

func (k LinkKind) String() string { return enumName(linkKindNames, int(k)) }

// ParseLinkKind reads a link family name.
func ParseLinkKind(s string) (LinkKind, error) {
	i, err := parseEnum("kind", linkKindNames, s)
	return LinkKind(i), err
}

// PCIePath is the route PCIe traffic between two GPUs of a node takes, as nvidia-smi topo -m
// names it: under one or more PCIe switches (PIX, PXB), through the CPU's host bridge (PHB,
// NODE), or across CPU sockets (SYS). The zero value, a switch, is the shortest route; links
// other than PCIe keep it.
type PCIePath int

// PCIe paths.
const (
	PathSwitch PCIePath = iota
	PathHost
	PathSocket
)

var pciePathNames = []string{"switch", "host", "socket"}

func (p PCIePath) String() string { return enumName(pciePathNames, int(p)) }

// ParsePCIePath reads "switch", "host" or "socket".
func ParsePCIePath(s string) (PCIePath, error) {
	i, err := parseEnum("pcie_path", pciePathNames, s)
	return PCIePath(i), err
}

// Route says where the path goes, in words: "under PCIe switches", "through the CPU's host
// bridge", "across CPU sockets".
func (p PCIePath) Route() string {
	return enumName([]string{"under PCIe switches", "through the CPU's host bridge", "across CPU sockets"}, int(p))
}

// MarshalText writes the path's name, so JSON says "host", not 1.
func (p PCIePath) MarshalText() ([]byte, error) {
	if p < PathSwitch || p > PathSocket {
		return nil, &FieldError{Field: "pcie_path", Value: int(p), Allowed: strings.Join(pciePathNames, ", ")}
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a path's name.
func (p *PCIePath) UnmarshalText(b []byte) error {
	v, err := ParsePCIePath(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

func enumName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return fmt.Sprintf("unknown(%d)", i)
	}
	return names[i]
}

func parseEnum(field string, names []string, s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range names {
		if n == t {
			return i, nil
		}
	}
	return 0, &FieldError{Field: field, Value: s, Allowed: strings.Join(names, ", ")}
}

// ScheduleShapeRule checks the shape rules of the 2024–25 schedules on pp ranks and m
// micro-batches (the whole step's): DualPipe wants an even pp (its two directions meet in the
// middle) and an even m of at least 2·pp, DualPipeV m ≥ 2·pp (deepseek-ai/DualPipe's
// asserts: num_ranks % 2 == 0, num_chunks % 2 == 0 and num_chunks >= num_ranks * 2; dualpipev.py
// num_chunks >= num_ranks * 2). It returns the field at fault ("pp" or "micro-batches"), and the
// rule with the nearest valid value, or "" when the shape is valid.
func ScheduleShapeRule(s Schedule, pp, m int) (field, rule string) {
	if pp < 1 {
		return "", ""
	}
	switch s {
	case DualPipe:
		if pp == 1 {
			// No pipeline on one rank, and DualPipe's two directions need two (its num_ranks % 2).
			return "pp", "must be even for dualpipe (its two directions meet in the middle): nearest 2"
		}
		if pp%2 != 0 {
			return "pp", fmt.Sprintf("must be even for dualpipe (its two directions meet in the middle): nearest %d or %d", pp-1, pp+1)
		}
		if m%2 != 0 || m < 2*pp {
			return "micro-batches", fmt.Sprintf("must be even and at least 2 × pp (%d) for dualpipe (half enter at each end, each half at least pp): nearest %d", 2*pp, max(2*pp, m+m%2))
		}
	case DualPipeV:
		if m < 2*pp {
			return "micro-batches", fmt.Sprintf("must be at least 2 × pp (%d) for %s (its steady step needs every rank's two chunks busy): nearest %d", 2*pp, s, 2*pp)
		}
	}
	return "", ""
}

// CheckScheduleShape is ScheduleShapeRule as a FieldError (nil when valid), naming the schedule
// simulation's fields (stages, micro).
func CheckScheduleShape(s Schedule, pp, m int) error {
	field, rule := ScheduleShapeRule(s, pp, m)
	switch field {
	case "":
		return nil
	case "pp":
		return &FieldError{Field: "stages", Value: pp, Allowed: rule, Layout: true}
	}
	return &FieldError{Field: "micro", Value: m, Allowed: rule, Layout: true}
}

func scheduleShapeBad(s Schedule, pp, m int) bool {
	field, _ := ScheduleShapeRule(s, pp, m)
	return field != ""
}

// CPComm is how context parallelism's ranks exchange attention's keys and values (docs/costmodel.md
// "Context parallelism"): ring passes K/V blocks peer to peer, overlapped with the attention
// blocks (ring attention; Megatron-core's p2p); all-gather gathers each layer's K/V once before
// the attention (Llama 3); ulysses redistributes heads by all-to-all before and after the
// attention (DeepSpeed-Ulysses); hybrid is Ulysses among a node's CP ranks and ring across the
// nodes (USP, Fang & Zhao 2024).
type CPComm int

// CP communication kinds.
const (
	CPRing CPComm = iota
	CPAllGather
	CPUlysses
	CPHybrid
)

var cpCommNames = []string{"ring", "all-gather", "ulysses", "hybrid"}

func (k CPComm) String() string { return enumName(cpCommNames, int(k)) }

// ParseCPComm reads "ring", "all-gather", "ulysses" or "hybrid".
func ParseCPComm(s string) (CPComm, error) {
	i, err := parseEnum("cp-comm", cpCommNames, s)
	return CPComm(i), err
}

// CPComms lists the CP communication kinds, ring first.
func CPComms() []CPComm { return []CPComm{CPRing, CPAllGather, CPUlysses, CPHybrid} }
