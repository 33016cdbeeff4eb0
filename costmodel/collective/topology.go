package collective

import "github.com/splitscope/splitscope/model"

// Topology as it is: what one GPU of a group gets from its node's link, before any algorithm
// runs on it. Three facts of the hardware change it.
//
//   - A full mesh of point-to-point links (XGMI on an 8-GPU MI300X or MI325X board: 7 links of
//     64 GB/s per direction, one to each peer [SN]) is not a switch: a group of k GPUs of the
//     node has k−1 links of each GPU to run on, so 2 GPUs get one peer link and 8 get all seven.
//     RCCL runs as many rings as it takes to use them (it opens more channels for 2 and 4 GPUs
//     for that reason [RCCL]); SN measured 47.7 GB/s of bus bandwidth on 2 MI300X against 313 on
//     8, 6.5× apart, where the 7-link aggregate would make them equal.
//   - A PCIe path under one switch (PIX, PXB) runs at the link's speed; through the CPU's host
//     bridge (PHB, NODE) the root complex forwards every peer write, and across CPU sockets (SYS)
//     the traffic also crosses the socket interconnect, each slower (pathHostFactor,
//     pathSocketFactor).
//   - Without peer-to-peer (GeForce cards with NVIDIA's stock driver, or NVML's P2P status "not
//     supported" on a probed box) NCCL falls back to its shared-memory transport: the sender
//     copies into pinned host memory and the receiver copies out, so each hop's bytes cross
//     PCIe twice and a step waits on host memory (stagingFactor, hostCopyLatency).
//
// The model uses what the link says (model.Link.MeshLinks, PCIePath, Staged; a cluster marks its
// PCIe link Staged when its GPU has no peer-to-peer, model.Cluster.IntraLink). NCCL's own
// policy of not using peer-to-peer beyond a PCIe switch unless NCCL_P2P_LEVEL says so (its
// default P2P level is PXB, except for pairs of GPUs on AMD hosts [NCCL paths.cc]) is not
// modelled: a host or socket path runs peer-to-peer here, as the published sweeps that set
// NCCL_P2P_LEVEL=SYS did [AIK, RTXPRO]; a box that stages anyway is described by Staged.
const (
	// pathHostFactor: peer-to-peer through the CPU's root complex. NCCL charges 6/5 of the PCIe
	// bandwidth for it on Intel hosts (INTEL_P2P_OVERHEAD, a factor 0.83) [NCCL search.cc, topo.h];
	// AMD root complexes forward at nearly the switch's rate (53–56 GB/s between direct-attached
	// RTX PRO 6000 on one socket against 54 under Broadcom switches [RTXPRO]). 0.9 lies between
	// (U: no all-reduce sweep on a single-socket direct-attached box found).
	pathHostFactor = 0.9
	// pathSocketFactor: peer-to-peer across CPU sockets. ISS nccl-tests#178 measured about
	// 20 GB/s of bus bandwidth across SYS on a PCIe 4 node, 0.65 of the 31 GB/s wire against the
	// 0.80 a switch reaches (a factor 0.81); GPU pairs across NUMA nodes copy at 0.72 (dual
	// EPYC 9374F), 0.91 (dual Turin) and 0.93 (switched dual-socket box) of their same-socket
	// rate [RTXPRO]; 8 RTX 5090 split over two EPYC sockets reach 45.7 GB/s, as much as GPUs
	// under switches [AIK]. 0.85, below the host bridge's factor: crossing sockets adds a hop.
	pathSocketFactor = 0.85
	// stagingFactor: without peer-to-peer every hop goes GPU → host memory → GPU, so its bytes
	// cross PCIe twice while the ring's other hops use the same links and host memory. A pair of
	// RTX 5090 copying both ways at once moves 56.5–57.5 GB/s with P2P disabled against 111 with
	// it, a factor 1.95 [AIK]; 8 RTX 5090 without P2P reach 28 GB/s of all-reduce bus bandwidth
	// (ISS nccl#1639) where 8 with P2P reach 45 [AIK] (1.6, on another host).
	stagingFactor = 2
	// hostCopyLatency: the extra latency of a staged step, seconds. An 8-byte all-reduce on 8 RTX
	// 4090 without P2P takes 42.56 µs [ISS nccl#1530], 14 steps of 3.04 µs, against 24.5–24.7 µs
	// (1.75 µs a step) on 8 RTX 5090 and 8 RTX PRO 6000 with P2P [AIK, RTXPRO]: 1.29 µs more a
	// step, the receiver's poll of host memory across PCIe.
	hostCopyLatency = 1.29e-6
)

// intraPath is what one GPU gets from the node's link l in a group with `local` ranks on the
// node: its bandwidth before and after the link's efficiency, bytes/s, and the LL step latency.
func intraPath(l model.Link, local int) (raw, bus, alpha float64) {
	raw, alpha = l.Bandwidth*meshShare(l, local), l.Latency
	if l.Kind == model.PCIe {
		switch l.PCIePath {
		case model.PathHost:
			raw *= pathHostFactor
		case model.PathSocket:
			raw *= pathSocketFactor
		}
		if l.Staged {
			raw /= stagingFactor
			alpha += hostCopyLatency
		}
	}
	return raw, raw * l.Efficiency, alpha
}

// meshShare is the fraction of a mesh link's bandwidth a group with `local` ranks on the node
// uses: local−1 of its MeshLinks peer links (1 when the link is no mesh).
func meshShare(l model.Link, local int) float64 {
	if l.MeshLinks <= 0 {
		return 1
	}
	return float64(min(max(local-1, 1), l.MeshLinks)) / float64(l.MeshLinks)
}

// LinkShare is what one GPU of a group with `local` ranks on its node gets from the node's link
// l, the topology applied (a mesh's peer links, the PCIe path, staging through host memory): its
// bus bandwidth, bytes/s after the link's efficiency, and its LL step latency, seconds. The
// renderers show these in the ring's formula.
func LinkShare(l model.Link, local int) (bus, alpha float64) {
	_, bus, alpha = intraPath(l, local)
	return bus, alpha
}

// GroupLink is the raw bandwidth, bytes/s per direction, one GPU of a group with `local` ranks on
// its node has on the node's link l, the topology applied (before the link's efficiency): what
// a busbw curve is drawn against.
func GroupLink(l model.Link, local int) float64 {
	raw, _, _ := intraPath(l, local)
	return raw
}
