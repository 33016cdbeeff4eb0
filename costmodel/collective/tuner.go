package collective

import (
	"math"

	"github.com/splitscope/splitscope/model"
)

// NCCL chooses the algorithm of a collective from its own cost table, not from measurements:
// for each algorithm and protocol a latency (a base plus a hardware latency per step, by the
// kind of link) and a bandwidth, time = latency + size / bandwidth, and the smallest wins
// [NCCL tuning.cc: ncclTopoTuneModel, ncclTopoGetAlgoTime]. The model reproduces that table to
// choose the algorithm the way NCCL does (a ring LL at 32 KiB on an NVSwitch box even though
// NVLS exists; NVLS from about a megabyte), then times the choice with the calibrated protocol
// costs of algos.go, which follow what nccl-tests measure.

// NCCL's default tuner constants, microseconds [NCCL tuning.cc, ncclTunerConstantsDefaults],
// indexed [algorithm][protocol] with protocols LL, LL128, Simple.
// Arrays, not maps: Time runs in Evaluate's hot path and must not hash.
var (
	tunerBase = [numAlgos][3]float64{
		Tree: {6.8, 14.0, 8.4}, Ring: {6.6, 14.0, 8.4}, NVLS: {0, 0, 0}, NVLSTree: {0, 0, 0},
	}
	tunerHWNVLink = [numAlgos][3]float64{
		Tree: {0.6, 1.25, 4.0}, Ring: {0.6, 1.9, 3.4}, NVLS: {0, 0, 25}, NVLSTree: {0, 0, 25},
	}
	tunerHWPCIe = [numAlgos][3]float64{
		Tree: {1.0, 1.9, 4.0}, Ring: {1.0, 2.5, 5.7},
	}
	tunerHWNet = [numAlgos][3]float64{
		Tree: {5.0, 8.5, 14}, Ring: {2.7, 4.0, 14.0}, NVLS: {0, 0, 18}, NVLSTree: {0, 0, 20.9},
	}
)

// NCCL's NVLS efficiency on Hopper (0.85) and its LL bandwidth ceilings, GB/s, for one node by
// GPU generation (Volta, Ampere, Hopper, Blackwell) and for 2 and more nodes (Intel hosts)
// [NCCL tuning.cc: nvlsEfficiency, llMaxBws].
const (
	tunerNVLSEfficiency = 0.85
	tunerLLMaxTwoNodes  = 39.0
	tunerLLMaxManyNodes = 20.4
	// tunerNetOverhead: NCCL's per-step cost of posting to the network in a ring across nodes,
	// µs, on an Intel host (2 on AMD) [NCCL tuning.cc getNetOverhead].
	tunerNetOverhead = 1.0
)

// GPU generations as NCCL's tables index them (compCapIndex in tuning.cc).
const (
	genVolta = iota
	genAmpere
	genHopper
	genBlackwell
)

// generation is the GPU generation the intra link implies: NVLink 5 Blackwell, NVLink 4 Hopper,
// NVLink 3 and PCIe Ampere, older NVLink Volta.
func generation(l model.Link) int {
	switch {
	case l.Kind == model.NVLink && l.Bandwidth >= 900e9:
		return genBlackwell
	case l.Kind == model.NVLink && l.Bandwidth >= 450e9:
		return genHopper
	case l.Kind == model.NVLink && l.Bandwidth < 300e9:
		return genVolta
	}
	return genAmpere
}

// tunerLLMaxOneNode is NCCL's LL ceiling on one node for the GPU generation the intra link
// implies [NCCL tuning.cc llMaxBws, the N1 column].
func tunerLLMaxOneNode(l model.Link) float64 {
	return [...]float64{39.0, 87.7, 141.0, 282.0}[generation(l)]
}

// NCCL's LL128 ceilings per channel, GB/s, by GPU generation and by node count (1, 2, more)
// [NCCL tuning.cc perChMaxRingLL128Bws, perChMaxTreeLL128Bws]: LL128 is copied by the SMs, one
// thread block a channel, and a block moves no more than this whatever the link.
var (
	tunerRingLL128PerCh = [4][3]float64{
		{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0},
	}
	tunerTreeLL128PerCh = [4][3]float64{
		{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0},
	}
)

// tunerTreeCorrection is NCCL's correction of its tree estimate for medium sizes, by protocol
// (LL, LL128, Simple) and log2 of the size in 64-byte units (64 B to 256 MiB): "trees are not
// perfectly sticking to the model for medium sizes" [NCCL tuning.cc treeCorrectionFactor,
// applied in ncclTopoGetAlgoTime to the tree all-reduce's bandwidth].
var tunerTreeCorrection = [3][24]float64{
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}

// treeCorrection is tunerTreeCorrection's factor for the case's size (1 outside its range).
func (c caseData) treeCorrection(p Proto) float64 {
	if c.sizeClass < 0 || c.sizeClass >= len(tunerTreeCorrection[p]) {
		return 1
	}
	return tunerTreeCorrection[p][c.sizeClass]
}

// ll128Enabled says NCCL runs LL128 on the fabric [NCCL tuning.cc, the LL128 enable rules]: only
// where every GPU of the node reaches the others over NVLink (typeIntra ≤ PATH_NVB; Volta and
// later), never on PCIe, where a 128-byte store may be split and seen out of order; across
// nodes as well (NICs beside their GPUs: typeInter ≤ PXB, ≤ PXN on Hopper and later), unless the
// network runs Simple only. RCCL enables it on MI200 only (gfx90a), not on the MI300X's XGMI
// [RCCL tuning.cc], so an XGMI link has none.
func (c caseData) ll128Enabled() bool {
	return c.ll128 && !(c.nodes > 1 && c.netSimpleOnly)
}

// tunerTime is NCCL's estimate, seconds, of running the case with an algorithm and protocol, or
// +Inf when NCCL would not (NVLS needs Simple; a tree all-reduce only).
func (c caseData) tunerTime(a Algo, p Proto, f Fabric) float64 {
	if p == LL128 && !c.ll128Enabled() {
		return math.Inf(1)
	}
	if c.nodes > 1 && c.netSimpleOnly && p != Simple {
		return math.Inf(1) // the network plugin set NCCL_PROTO=simple
	}
	hwIntra := &tunerHWPCIe
	if f.Intra.Kind != model.PCIe {
		hwIntra = &tunerHWNVLink
	}
	intraLat := hwIntra[a][p]
	netLat := tunerHWNet[a][p]
	if c.local == 1 {
		netLat = tunerHWNet[Tree][p] // one GPU a node: "latencies are fully exposed, use the Tree network latency"
	}
	// The latency the network plugin declares, on every network step; Simple pays it again for
	// the flush [NCCL tuning.cc: interLat += latencyInter, twice for Simple].
	netLat += c.pluginLatency * 1e6
	if p == Simple {
		netLat += c.pluginLatency * 1e6
	}
	n, nodes := float64(c.n), c.nodes
	busGB := c.intraBus / 1e9
	if nodes > 1 {
		busGB = min(busGB, c.netBus/1e9)
	}
	steps, inter := 2*(c.n-1), 2*(nodes-1)
	if c.op != AllReduce {
		steps, inter = c.n-1, nodes-1
	}
	llMax := tunerLLMaxOneNode(f.Intra)
	scale := min(nodes, 3) - 1 // NCCL's N1, N2, N4 columns
	switch {
	case nodes == 2:
		llMax = tunerLLMaxTwoNodes
	case nodes > 2:
		llMax = tunerLLMaxManyNodes
	}
	gen, depth := c.gen, c.depth
	var lat, algbw float64 // µs, GB/s
	switch a {
	case Ring:
		if nodes > 1 {
			// "Inter-node rings still have to launch nsteps * net overhead": 1 µs a step on an
			// Intel host, 3 for Simple [NCCL tuning.cc getNetOverhead].
			overhead := tunerNetOverhead
			if p == Simple {
				overhead *= 3
			}
			intraLat = max(intraLat, overhead)
		}
		lat = tunerBase[a][p] + float64(steps-inter)*intraLat + float64(inter)*netLat
		bus := busGB
		switch p {
		case LL:
			bus = min(llMax, bus*0.5)
		case LL128:
			bus *= 0.92 // NCCL: "120.0/128.0"
			if nodes > 1 {
				bus = min(bus, c.rails*tunerRingLL128PerCh[gen][scale])
			}
		}
		algbw = bus * n / float64(steps)
	case Tree:
		if c.op != AllReduce || nodes < 2 {
			return math.Inf(1)
		}
		lat = tunerBase[a][p] + 2*(float64(c.local-1)*intraLat+depth*netLat)
		alg := min(c.intraBus/2e9, c.netBus/1e9*treeAlgFactor(nodes)) * 0.92
		switch p {
		case LL:
			alg = min(2*alg/3.8, llMax) / 2 // NCCL: the tree's bus bandwidth / 3.8, as algorithm bandwidth
		case LL128:
			alg = min(2*alg*120/128, c.rails*tunerTreeLL128PerCh[gen][scale]) / 2
		}
		algbw = alg * c.treeCorrection(p)
	case NVLS, NVLSTree:
		if p != Simple || !c.nvls {
			return math.Inf(1)
		}
		// NVLS inside the node: NCCL's estimate is 0.85 of the link, both directions pipelined.
		intra := tunerNVLSEfficiency * c.intraRaw / 1e9
		if c.op != AllReduce {
			intra *= (float64(c.local) - 1) / float64(c.local)
		}
		if a == NVLS {
			if nodes > 1 {
				return math.Inf(1) // NCCL runs NVLS across nodes only with CollNet
			}
			lat = intraLat
			algbw = intra
		} else {
			if nodes < 2 || c.op != AllReduce {
				return math.Inf(1)
			}
			lat = intraLat + 2*depth*netLat
			algbw = min(intra, c.netBus/1e9*treeAlgFactor(nodes))
		}
	default:
		return math.Inf(1)
	}
	if !(algbw > 0) {
		return math.Inf(1)
	}
	return (lat + c.bytes/(1e3*algbw)) * 1e-6
}

// treeAlgFactor is a tree's algorithm bandwidth over the network's bus bandwidth: every byte
// goes up and comes down (½), except on two nodes, one hop where each node sends half and
// receives half each way (1) — what NCCL's doubling of the inter-node bandwidth for two nodes
// expresses [NCCL tuning.cc], and what 2 × 8 A100 measure [ADT].
func treeAlgFactor(nodes int) float64 {
	if nodes <= 2 {
		return 1
	}
	return 0.5
}
