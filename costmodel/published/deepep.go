package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// DeepEP's own benchmark of its dispatch and combine kernels [DEP] (docs/references.md §0), as
// rows of validate's moe group: H800 (8 a node, ~160 GB/s NVLink) with one 400 Gb/s CX7
// InfiniBand NIC a GPU, DeepSeek-V3's routing (hidden 7168, top-8 of 256 experts from the best
// min(4, nodes) of one group a node: the deepseek-v3 preset's n_group 8 / topk_group 4 reaches
// the same nodes at EP 16, 32 and 64), FP8 dispatch (7168 bytes and 56 fp32 scales a token) and
// BF16 combine.
//
// Normal kernels (two-hop, --ep-dispatch two-hop), 4096 tokens a GPU: DeepEP's "bottleneck
// bandwidth (RDMA)" is its test's RDMA bytes over the kernel's time, the RDMA bytes counting
// each token once for every node its experts are on, its own included (tests/test_internode.py:
// num_rdma_token_sent, the distinct nodes of each token's top-k). The model's figure is the same
// count (costmodel.ReachedNodes) over its two-hop time. Hold-outs: nothing was set on them.
//
// H800 is H100 with 8 NVLinks of H100's 18 (400 GB/s both ways, 200 each way, against 450):
// the nvlink4 link at 200/450 of its bandwidth. Tolerance 20%: the kernels' SM budget and
// chunking are not modelled, only the links.

// DeepEPRow is one of DEP's internode normal-kernel measurements.
type DeepEPRow struct {
	EP       int
	Combine  bool    // the combine (BF16); else the dispatch (FP8)
	RDMAGBps float64 // published bottleneck bandwidth, GB/s of RDMA bytes
}

// DeepEPRows are DEP's internode rows (V1's "Normal kernels with NVLink and RDMA forwarding", now
// docs/legacy.md "Performance").
func DeepEPRows() []DeepEPRow {
	return []DeepEPRow{
		{16, false, 43}, {32, false, 58}, {64, false, 51},
		{16, true, 43}, {32, true, 57}, {64, true, 50},
	}
}

// deepEPTolerance is the tolerance of the DeepEP rows.
const deepEPTolerance = 0.20

// deepEPTokens is DEP's tokens a GPU in the normal-kernel benchmark.
const deepEPTokens = 4096

// DeepEPScenario is the cluster and layout of a DEP row (TP 1, DP = EP, two-hop dispatch) and
// the element size of its tokens.
func DeepEPScenario(r DeepEPRow, p ServePresets) (model.Arch, model.Cluster, model.Layout, float64, error) {
	a, err := p.Model("deepseek-v3")
	if err != nil {
		return a, model.Cluster{}, model.Layout{}, 0, err
	}
	g, err := p.GPU("h100-sxm")
	if err != nil {
		return a, model.Cluster{}, model.Layout{}, 0, err
	}
	intra, err := p.Link("nvlink4")
	if err != nil {
		return a, model.Cluster{}, model.Layout{}, 0, err
	}
	intra.Bandwidth *= 200.0 / 450 // H800: 8 NVLinks of H100's 18
	inter, err := p.Link("ib-ndr")
	if err != nil {
		return a, model.Cluster{}, model.Layout{}, 0, err
	}
	c := model.Cluster{GPU: g, GPUs: r.EP, GPUsPerNode: 8, Intra: intra, Inter: inter, NICsPerNode: 8}
	l := model.Layout{TP: 1, PP: 1, DP: r.EP, EP: r.EP, MicroBatch: 1, EPDispatch: model.EPDispatchTwoHop}
	e := 2.0 // BF16 combine
	if !r.Combine {
		e = 1 + 4.0/128 // FP8 dispatch: a byte an element and a 4-byte scale every 128
	}
	return a, c, l, e, nil
}

// DeepEPChecks are the moe group's DeepEP rows: the RDMA bandwidth DEP counts, published
// against the model's.
func DeepEPChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range DeepEPRows() {
		a, c, l, e, err := DeepEPScenario(r, p)
		if err != nil {
			return nil, fmt.Errorf("deepep ep %d: %w", r.EP, err)
		}
		sec, _ := costmodel.EPAllToAllTime(a, c, l, deepEPTokens, e)
		nodes := c.Nodes()
		rdma := deepEPTokens * costmodel.ReachedNodes(a, a.ActiveExperts(), nodes) * float64(a.Hidden) * e
		pred := 0.0
		if sec > 0 {
			pred = rdma / sec / 1e9
		}
		what := "dispatch (FP8)"
		if r.Combine {
			what = "combine (BF16)"
		}
		out = append(out, Check{Group: "moe",
			Case:      fmt.Sprintf("DeepEP two-hop %s EP %d on %d H800 nodes, RDMA GB/s [DEP]", what, r.EP, nodes),
			Published: r.RDMAGBps, Predicted: pred, Unit: "GB/s", Tolerance: deepEPTolerance,
			Note: "hold-out; --ep-dispatch two-hop, 4096 tokens a GPU, DeepSeek-V3 routing"})
	}
	return out, nil
}

// DeepEPLowLatencyRow is one of DEP's low-latency kernel measurements: 128 tokens a GPU
// (DeepSeek-V3's decoding), one H800 a 400 Gb/s CX7 NIC, pure RDMA.
type DeepEPLowLatencyRow struct {
	EP        int
	Combine   bool    // the combine (BF16); else the dispatch (FP8)
	LatencyUS float64 // published latency of one kernel, µs
}

// DeepEPLowLatencyRows are DEP's internode low-latency rows (docs/legacy.md "Low-latency kernels
// with pure RDMA"). Its EP 8 row (77 µs dispatch, 114 µs combine) is left out: on one node the
// V1 kernels it measured went through the NIC too (NVSHMEM's peer-to-peer off), where the model
// sends a node's own copies over NVLink.
func DeepEPLowLatencyRows() []DeepEPLowLatencyRow {
	return []DeepEPLowLatencyRow{
		{16, false, 118}, {32, false, 155}, {64, false, 173}, {128, false, 192}, {256, false, 194},
		{16, true, 195}, {32, true, 273}, {64, true, 314}, {128, true, 369}, {256, true, 360},
	}
}

// deepEPLowLatencyTokens is DEP's tokens a GPU in the low-latency benchmark.
const deepEPLowLatencyTokens = 128

// DeepEPLowLatencyChecks are the moe group's low-latency rows: one kernel's latency, published
// against the model's (costmodel.EPLowLatencyTime; its floor fitted on the EP 16 dispatch row).
func DeepEPLowLatencyChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range DeepEPLowLatencyRows() {
		a, c, l, e, err := DeepEPScenario(DeepEPRow{EP: r.EP, Combine: r.Combine}, p)
		if err != nil {
			return nil, fmt.Errorf("deepep low-latency ep %d: %w", r.EP, err)
		}
		what := "dispatch (FP8)"
		if r.Combine {
			what = "combine (BF16)"
		}
		note := "hold-out; 128 tokens a GPU, every copy sent on its own"
		if r.EP == 16 && !r.Combine {
			note = "fitted: costmodel.DeepEPLowLatencyFloor"
		}
		out = append(out, Check{Group: "moe",
			Case:      fmt.Sprintf("DeepEP low-latency %s EP %d on %d H800 nodes, latency [DEP]", what, r.EP, c.Nodes()),
			Published: r.LatencyUS * 1e-6, Predicted: costmodel.EPLowLatencyTime(a, c, l, deepEPLowLatencyTokens, e), Unit: "s",
			Tolerance: deepEPLowLatencyTolerance, Note: note})
	}
	return out, nil
}

// deepEPLowLatencyTolerance is the low-latency rows' tolerance: the NIC's share and one floor,
// nothing of the kernels' internals.
const deepEPLowLatencyTolerance = 0.15
