package costmodel

import (
	"math"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// How a MoE layer's dispatch and combine all-to-alls cross nodes (Layout.EPDispatch; docs/
// costmodel.md §Experts across GPUs).
//
//   - Direct (the default): one all-to-all over the EP group (NCCL's, Megatron-core's alltoall
//     dispatcher). Every copy of a token for an expert on another node crosses the network on
//     its own: k·(N−1)/N copies a token on N nodes, on the GPU's share of the node's NICs.
//   - Two-hop (DeepEP's internode normal kernels [DEP]): a token goes once over RDMA to the GPU
//     of the same local rank on each other node that holds one of its experts (one rail: the
//     GPU's own NIC), and is forwarded there over NVLink to those experts; the combine runs the
//     reverse. The network carries each token once per distinct remote node it reaches, and
//     NVLink carries the (L−1)/L of its copies that land on another GPU of their node (L the EP
//     group's GPUs a node). DeepEP pipelines the two in one kernel: the slower hop sets the time.
//
//   - Low-latency (DeepEP's low-latency kernels [DEP], for decoding): every copy of a token is
//     its own GPU-initiated RDMA write, sent to all peers at once (no per-peer handshake, no
//     forwarding), the copies for the node's own GPUs over NVLink beside them. One dispatch or
//     combine is a fixed floor (DeepEPLowLatencyFloor) plus the slower of the network's share,
//     k·(N−1)/N copies a token on the GPU's NIC share, and the node's. A two-hop layout runs its
//     decode-only steps this way (SGLang's --deepep-mode auto: normal kernels for a step with
//     prompt tokens, low-latency ones for a decode batch), and a step with prompt tokens two-hop.
//
// Distinct nodes. With the token's k experts uniform over the experts of the nodes it may reach
// (Nr of the N), it reaches Nr·(1−(1−1/Nr)^k) of them on average, (N−1)/N of those remote.
// Without node-limited routing Nr = N: (N−1)(1−(1−1/N)^k) remote nodes a token. Node-limited
// routing (DeepSeek-V3 §2.1.2, n_group 8 and topk_group 4: Arch.ExpertGroups, GroupLimit) draws
// the k experts from GroupLimit of the ExpertGroups groups, so a token reaches at most
// GroupLimit·max(1, N/ExpertGroups) nodes (at most 4 with a group a node, as the paper sets it).
// For DeepSeek-V3 over 8 nodes, k 8: direct sends 7 copies a token across the network, two-hop
// 7·(1−(7/8)^8) = 4.59 without the limit and 3.15 with it.

// nodeReach is how many of the EP group's n nodes one token's experts may lie on: n, or fewer
// under node-limited routing.
func nodeReach(a model.Arch, n int) float64 {
	N := float64(max(n, 1))
	if a.ExpertGroups <= 0 || a.GroupLimit <= 0 || a.GroupLimit >= a.ExpertGroups {
		return N
	}
	return math.Min(N, float64(a.GroupLimit)*math.Max(1, N/float64(a.ExpertGroups)))
}

// ReachedNodes is the expected number of the EP group's n nodes (its own included) that one
// token's k experts lie on: Nr·(1−(1−1/Nr)^k), Nr = nodeReach. 1 on one node.
func ReachedNodes(a model.Arch, k, n int) float64 {
	if n <= 1 || k <= 0 {
		return 1
	}
	nr := nodeReach(a, n)
	return nr * (1 - math.Pow(1-1/nr, float64(k)))
}

// RemoteNodes is ReachedNodes less the token's own node: (N−1)/N of them, by symmetry.
func RemoteNodes(a model.Arch, k, n int) float64 {
	if n <= 1 || k <= 0 {
		return 0
	}
	return ReachedNodes(a, k, n) * float64(n-1) / float64(n)
}

// EPNetworkBytes is what one GPU sends across the network in one dispatch (or combine) whose
// buffer holds bytes: every token's k copies (bytes/k a copy-set of one token each), on an EP
// group over n nodes. Direct: the copies for the other nodes, bytes·(N−1)/N. Two-hop: one copy a
// distinct remote node, bytes/k · RemoteNodes.
func EPNetworkBytes(d model.EPDispatch, a model.Arch, bytes float64, k, n int) float64 {
	if n <= 1 || !(bytes > 0) {
		return 0
	}
	if d == model.EPDispatchTwoHop && k > 0 {
		return bytes / float64(k) * RemoteNodes(a, k, n)
	}
	return bytes * float64(n-1) / float64(n)
}

// epHop is one hop of an EP all-to-all: bytes (nccl-tests' size) on communicator k.
type epHop struct {
	k     comms
	bytes float64
	what  string // "" for the direct all-to-all
}

// epHops are the hops of one dispatch or combine over the EP communicator k of a layout l on
// cluster c for arch a, the busiest GPU's buffer bytes: the direct all-to-all, or where l asks
// for two hops and the group spans nodes (on one node the two are the same all-to-all) the
// rail's RDMA and the node's NVLink forward.
// They are appended to buf (Search times millions of them: a buffer on the caller's stack).
func epHops(buf []epHop, k comms, a model.Arch, l model.Layout, c model.Cluster, bytes float64) []epHop {
	if l.EPDispatch != model.EPDispatchTwoHop || k.g.Nodes <= 1 {
		return append(buf, epHop{k: k, bytes: bytes})
	}
	n := k.g.Nodes
	local := max((k.g.Ranks+n-1)/n, 1)
	// Hop 1: the rail, one GPU a node (its own NIC), an all-to-all of which (N−1)/N crosses.
	net := EPNetworkBytes(model.EPDispatchTwoHop, a, bytes, a.ActiveExperts(), n)
	hops := append(buf, epHop{k: newComms(group{n: n, nodes: n, local: 1}, c), bytes: net * float64(n) / float64(n-1),
		what: " (two-hop: RDMA on one rail, once a token and node)"})
	// Hop 2: inside the node, the copies for the node's other GPUs, as an all-to-all of the
	// whole buffer over its local GPUs ((L−1)/L of it moves).
	if local > 1 {
		hops = append(hops, epHop{k: newComms(group{n: local, nodes: 1, local: local}, c), bytes: bytes,
			what: " (two-hop: NVLink forward, beside the RDMA)"})
	}
	return hops
}

// DeepEPLowLatencyFloor is one low-latency dispatch or combine's fixed time: the kernel's
// launch, its FP8 cast and packing, the GPU-initiated RDMA writes' round trip and the
// receiver's polling. Fitted on DEP's EP 16 dispatch row alone (118 µs, of which 3.78 MB at
// InfiniBand NDR's 42.5 GB/s effective are 89 µs); DEP's other nine internode rows, EP 16–256,
// dispatch and combine, are held out (validate's moe group).
const DeepEPLowLatencyFloor = 29e-6

// lowLatencyAllToAll is one dispatch or combine by DeepEP's low-latency kernels over the EP
// communicator k, bytes the GPU's buffer (every copy of its tokens); false on one node, where
// the direct all-to-all applies.
func lowLatencyAllToAll(k comms, bytes float64) (float64, bool) {
	g, f := k.g, k.f
	if g.Nodes <= 1 || !(bytes > 0) {
		return 0, false
	}
	n, local := float64(g.Ranks), float64(max(g.Local(), 1))
	t := 0.0
	if nic := f.Inter.Bandwidth * f.Inter.Efficiency * float64(max(f.NICs, 1)) / local; nic > 0 {
		t = bytes * (n - local) / n / nic
	}
	if nvl := f.Intra.Bandwidth * f.Intra.Efficiency; nvl > 0 {
		t = math.Max(t, bytes*(local-1)/n/nvl)
	}
	return DeepEPLowLatencyFloor + t, true
}

// EPLowLatencyTime is EPAllToAllTime by DeepEP's low-latency kernels (every copy sent on its
// own; 0 on one node): for validate's DeepEP low-latency rows.
func EPLowLatencyTime(a model.Arch, c model.Cluster, l model.Layout, tokens, e float64) float64 {
	ep := l.EPSize()
	if ep <= 1 || !(tokens > 0) || !(e > 0) {
		return 0
	}
	k := newComms(spanGroup(1, ep, max(c.NodeSize(), 1)), c)
	t, _ := lowLatencyAllToAll(k, tokens*float64(a.ActiveExperts())*float64(a.Hidden)*e)
	return t
}

// epAllToAll is one dispatch or combine (epHops): the direct all-to-all's time, or the slower of
// the two hops, which DeepEP pipelines in one kernel.
func epAllToAll(k comms, a model.Arch, l model.Layout, c model.Cluster, bytes float64) float64 {
	t := 0.0
	var buf [2]epHop
	for _, h := range epHops(buf[:0], k, a, l, c, bytes) {
		t = math.Max(t, h.k.run(collective.AllToAll, h.bytes).Seconds)
	}
	return t
}

// EPAllToAllTime is one dispatch (or combine) of a MoE layer for arch a on cluster c with
// layout l's EP (l.TP 1: the EP ranks side by side on the nodes, as DeepEP's tests place them):
// tokens tokens a GPU, each sent as k copies of h·e bytes, imbalance 1. Its seconds and the
// bytes each GPU sends across the network. For validate's DeepEP rows.
func EPAllToAllTime(a model.Arch, c model.Cluster, l model.Layout, tokens, e float64) (seconds, netBytes float64) {
	ep := l.EPSize()
	if ep <= 1 || !(tokens > 0) || !(e > 0) {
		return 0, 0
	}
	g := spanGroup(1, ep, max(c.NodeSize(), 1))
	k := newComms(g, c)
	bytes := tokens * float64(a.ActiveExperts()) * float64(a.Hidden) * e
	return epAllToAll(k, a, l, c, bytes), EPNetworkBytes(l.EPDispatch, a, bytes, a.ActiveExperts(), g.nodes)
}
