package model

// A calibration is a box's own link parameters, fitted from its nccl-tests logs by `splitscope
// calibrate` and read back with --calibration FILE: each LinkCalibration replaces the parameters
// of the link preset it names, wherever that preset is used (the scenario's intra or inter link,
// a link the explorer cycles to, the link a --box file implies). A ServingCalibration, fitted
// from the box's serving benchmarks (calibrate --from), replaces the GPU preset's efficiencies
// and the engine's step overhead and kernel floor on that GPU.

// Range is a closed interval of allowed values.
type Range struct{ Min, Max float64 }

// Contains reports whether v lies in the range (false for NaN).
func (r Range) Contains(v float64) bool { return v >= r.Min && v <= r.Max }

// The ranges a calibrated link parameter may take: what a person could defend for a real link,
// whatever a fit would prefer. The fitter searches inside them and says when it stops at a bound;
// a calibration file outside them is refused. Seconds, fractions, bytes/s.
var (
	// CalLatency: α, the LL step. 0.5 µs is below any NCCL step measured (NVLink's is about 3);
	// 200 µs is a slow TCP network's.
	CalLatency = Range{0.5e-6, 200e-6}
	// CalEfficiency: the fraction of the link's bandwidth a large collective's bus reaches.
	CalEfficiency = Range{0.05, 1}
	// CalLLBandwidth: the LL protocol's bus bandwidth ceiling, 0.1 GB/s to 2 TB/s.
	CalLLBandwidth = Range{0.1e9, 2000e9}
	// CalNVLSEfficiency: an NVLS all-reduce's algorithm bandwidth over the link's bandwidth
	// (0.60 on 8×H200); the switch cannot move more than the link.
	CalNVLSEfficiency = Range{0.05, 1}
	// CalBandwidth: a link's per-GPU bandwidth, 0.1 GB/s to 100 TB/s.
	CalBandwidth = Range{0.1e9, 100e12}

	// The serving engine's parameters, fitted from a box's serving benchmarks (calibrate --from):
	// CalComputeEff, the fraction of peak a prompt's matmuls reach (10%: a card throttled or
	// starved; the peak is the most); CalMemoryEff, the fraction of the memory bandwidth a decode
	// step's reads reach (20% to all of it); CalStepOverhead, the host's time once a step (10 µs:
	// a C++ loop replaying CUDA graphs; 20 ms: a Python scheduler on a slow host); CalKernelFloor,
	// what a kernel too small to fill the GPU pays (0.5 µs to 50 µs). Seconds and fractions.
	CalComputeEff   = Range{0.1, 1}
	CalMemoryEff    = Range{0.2, 1}
	CalStepOverhead = Range{10e-6, 20e-3}
	CalKernelFloor  = Range{0.5e-6, 50e-6}
	// CalGEMMLatency: the GEMM curve's fixed time per kernel, fitted to a trace's GEMMs (0.1 µs
	// to 50 µs; 6 µs built in).
	CalGEMMLatency = Range{0.1e-6, 50e-6}
)

// ServingCalibration is one box's serving parameters, fitted by `splitscope calibrate --from`
// on its serving benchmarks and put on the GPU preset the calibration names (ApplyGPU). Zero
// fields keep the preset's (or the engine's) value.
type ServingCalibration struct {
	// ComputeEff is the fraction of peak a large matmul reaches, every precision.
	ComputeEff float64 `json:"compute_eff,omitempty"`
	// ComputeEffFP8 is that fraction for fp8 matmuls apart (fitted from fp8 training runs);
	// set after ComputeEff.
	ComputeEffFP8 float64 `json:"compute_eff_fp8,omitempty"`
	// MemoryEff is the fraction of the memory bandwidth a streaming kernel reaches.
	MemoryEff float64 `json:"memory_eff,omitempty"`
	// StepOverhead is the engine's host time once a step, seconds.
	StepOverhead float64 `json:"step_overhead_s,omitempty"`
	// KernelFloor is what a kernel too small to fill the GPU pays, seconds.
	KernelFloor float64 `json:"kernel_floor_s,omitempty"`
	// GEMMLatency is the GEMM curve's fixed time per kernel, seconds (calibrate --from TRACE).
	GEMMLatency float64 `json:"gemm_latency_s,omitempty"`
}

// Empty says the calibration sets no parameter.
func (c ServingCalibration) Empty() bool {
	return c.ComputeEff == 0 && c.ComputeEffFP8 == 0 && c.MemoryEff == 0 && c.StepOverhead == 0 && c.KernelFloor == 0 && c.GEMMLatency == 0
}

// ApplyGPU returns g with the calibrated parameters in place of its own. A compute efficiency
// replaces every precision's (as --compute-eff does); an fp8 one then replaces fp8's.
func (c ServingCalibration) ApplyGPU(g GPU) GPU {
	if c.ComputeEff > 0 {
		g.ComputeEff, g.ComputeEffFP8 = c.ComputeEff, 0
	}
	if c.ComputeEffFP8 > 0 {
		g.ComputeEffFP8 = c.ComputeEffFP8
	}
	if c.MemoryEff > 0 {
		// The calibrated efficiency is the decode step's reads, its matmuls' weights with them.
		g.MemoryEff, g.GEMMMemoryEff = c.MemoryEff, 0
	}
	if c.StepOverhead > 0 {
		g.StepOverhead = c.StepOverhead
	}
	if c.KernelFloor > 0 {
		g.KernelFloor = c.KernelFloor
	}
	if c.GEMMLatency > 0 {
		g.GEMMLatency = c.GEMMLatency
	}
	return g
}

// EngineCalibration is a serving calibration fitted on one engine's runs, kept on the GPU preset
// and put on it only where that engine serves (GPU.ForEngine): what a decode step's reads reach
// and the host's step are the engine's kernels and loop as much as the GPU's.
type EngineCalibration struct {
	Engine  string
	Serving ServingCalibration
}

// ForEngine is g as the engine serves on it: with its engine calibration's parameters when that
// calibration was fitted on engine ("" is vllm), as it is otherwise; never with the calibration
// still attached.
func (g GPU) ForEngine(engine string) GPU {
	c := g.EngineCal
	if c == nil {
		return g
	}
	g.EngineCal = nil
	if engineID(c.Engine) != engineID(engine) {
		return g
	}
	return c.Serving.ApplyGPU(g)
}

// engineID is the engine id "" stands for.
func engineID(id string) string {
	if id == "" {
		return "vllm"
	}
	return id
}

// LinkCalibration is one link's parameters as measured on a box. Zero fields keep the preset's
// value.
type LinkCalibration struct {
	// Link is the ID of the link preset whose parameters this replaces.
	Link string `json:"link"`
	// Bandwidth is the per-GPU one-way bandwidth the efficiency is relative to, bytes/s.
	Bandwidth float64 `json:"bandwidth_bps,omitempty"`
	// Latency is α, seconds.
	Latency float64 `json:"latency_s,omitempty"`
	// Efficiency is the fraction of Bandwidth large collectives reach.
	Efficiency float64 `json:"efficiency,omitempty"`
	// LLBandwidth caps the LL protocol's bus bandwidth, bytes/s.
	LLBandwidth float64 `json:"ll_bandwidth_bps,omitempty"`
	// NVLSEfficiency is an NVLS all-reduce's algorithm bandwidth over Bandwidth.
	NVLSEfficiency float64 `json:"nvls_efficiency,omitempty"`
}

// Apply returns l with the calibrated parameters in place of its own, marked Calibrated by
// source (the calibration file's name).
func (c LinkCalibration) Apply(l Link, source string) Link {
	if c.Bandwidth > 0 {
		l.Bandwidth = c.Bandwidth
	}
	if c.Latency > 0 {
		l.Latency = c.Latency
	}
	if c.Efficiency > 0 {
		l.Efficiency = c.Efficiency
	}
	if c.LLBandwidth > 0 {
		l.LLBandwidth = c.LLBandwidth
	}
	if c.NVLSEfficiency > 0 && l.NVLS {
		l.NVLSEfficiency = c.NVLSEfficiency
	}
	l.Calibrated = source
	if source == "" {
		l.Calibrated = "calibration"
	}
	return l
}

// Calibration is what `splitscope calibrate` fitted on one box.
type Calibration struct {
	// GPU is the GPU preset the logs were measured on.
	GPU string `json:"gpu"`
	// Engine, when set, is the serving engine (an Engines id) whose runs the serving parameters
	// were fitted on: they then hold where that engine serves on the GPU, not for another
	// engine's kernels nor for training (EngineCalibration). "" puts them on the GPU for all.
	Engine string `json:"engine,omitempty"`
	// From lists the logs the fit read.
	From []string `json:"from,omitempty"`
	// Intra is the link between GPUs of a node; Inter the network link, per NIC. Either may be
	// nil, never both.
	Intra *LinkCalibration `json:"intra,omitempty"`
	Inter *LinkCalibration `json:"inter,omitempty"`
	// Serving is the GPU's and the engine's serving parameters (calibrate --from); nil when
	// the fit was of links alone. At least one of Intra, Inter and Serving is present.
	Serving *ServingCalibration `json:"serving,omitempty"`
	// Section is the key the file keeps Serving under: SectionServing (also for ""),
	// SectionTraining (fitted to training logs) or SectionGEMM (the GEMM curve of a trace).
	Section string `json:"section,omitempty"`
	// Rows, MeanError and MaxError describe the fit: the rows it used and the model's relative
	// time error over them, mean and worst.
	Rows      int     `json:"rows,omitempty"`
	MeanError float64 `json:"mean_error,omitempty"`
	MaxError  float64 `json:"max_error,omitempty"`
}

// The sections a calibration file keeps the GPU's parameters under, by what they were fitted to.
const (
	SectionServing  = "serving"
	SectionTraining = "training"
	SectionGEMM     = "gemm"
)

// Links lists the link calibrations present, intra first.
func (c Calibration) Links() []LinkCalibration {
	var out []LinkCalibration
	for _, l := range []*LinkCalibration{c.Intra, c.Inter} {
		if l != nil {
			out = append(out, *l)
		}
	}
	return out
}

// LinkIDs lists the IDs of the links the calibration replaces, intra first.
func (c Calibration) LinkIDs() []string {
	var out []string
	for _, l := range c.Links() {
		out = append(out, l.Link)
	}
	return out
}

// ApplyLinks replaces, in links, the parameters of every link the calibration names, each
// marked Calibrated by source. It returns the IDs it found.
func (c Calibration) ApplyLinks(links []Link, source string) []string {
	var found []string
	for _, lc := range c.Links() {
		for i := range links {
			if links[i].ID == lc.Link {
				links[i] = lc.Apply(links[i], source)
				found = append(found, lc.Link)
			}
		}
	}
	return found
}
