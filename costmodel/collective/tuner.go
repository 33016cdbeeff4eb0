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
)

// tunerLLMaxOneNode is NCCL's LL ceiling on one node for the GPU generation the intra link
// implies: NVLink 5 Blackwell, NVLink 4 Hopper, NVLink 3 and PCIe Ampere, older Volta.
func tunerLLMaxOneNode(l model.Link) float64 {
	switch {
	case l.Kind == model.NVLink && l.Bandwidth >= 900e9:
		return 282.0
	case l.Kind == model.NVLink && l.Bandwidth >= 450e9:
		return 141.0
	case l.Kind == model.NVLink && l.Bandwidth < 300e9:
		return 39.0
	}
	return 87.7
}

// tunerTime is NCCL's estimate, seconds, of running the case with an algorithm and protocol, or
// +Inf when NCCL would not (NVLS needs Simple; a tree all-reduce only).
func (c caseData) tunerTime(a Algo, p Proto, f Fabric) float64 {
	if p == LL128 {
		return math.Inf(1) // the calibrated model has no LL128 costs yet: keep the choice consistent
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
	switch {
	case nodes == 2:
		llMax = tunerLLMaxTwoNodes
	case nodes > 2:
		llMax = tunerLLMaxManyNodes
	}
	depth := math.Ceil(math.Log2(float64(nodes)))
	var lat, algbw float64 // µs, GB/s
	switch a {
	case Ring:
		lat = tunerBase[a][p] + float64(steps-inter)*intraLat + float64(inter)*netLat
		bus := busGB
		if p == LL {
			bus = min(llMax, bus*0.5)
		}
		algbw = bus * n / float64(steps)
	case Tree:
		if c.op != AllReduce || nodes < 2 {
			return math.Inf(1)
		}
		lat = tunerBase[a][p] + 2*(float64(c.local-1)*intraLat+depth*netLat)
		alg := min(c.intraBus/2e9, c.netBus/1e9*treeAlgFactor(nodes)) * 0.92
		if p == LL {
			alg = min(2*alg/3.8, llMax) / 2 // NCCL: the tree's bus bandwidth / 3.8, as algorithm bandwidth
		}
		algbw = alg
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
