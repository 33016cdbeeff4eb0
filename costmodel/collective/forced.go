package collective

import (
	"fmt"
	"math"

	"github.com/splitscope/splitscope/model"
)

// Forcing an algorithm or a protocol, as NCCL_ALGO and NCCL_PROTO do. Time gives way to NCCL's
// own choice where the forced algorithm does not apply (its callers read Result.Algo); a user
// who forces one must not be told it ran when it did not. Forced says whether what ran is what
// was forced, and Unavailable says why not, in words that name the hardware.

// AnyProto leaves the protocol to NCCL's choice (TimeForced, Unavailable).
const AnyProto = anyProto

// Protos lists the protocols a user can force.
func Protos() []Proto { return []Proto{LL, LL128, Simple} }

// ProtoNames is "auto" then Protos, as ParseProto reads them.
func ProtoNames() []string {
	out := []string{"auto"}
	for _, p := range Protos() {
		out = append(out, p.String())
	}
	return out
}

// ParseProto reads a protocol name; "auto" is AnyProto.
func ParseProto(s string) (Proto, error) {
	i, err := parse(ProtoNames(), s)
	if err != nil {
		return 0, err
	}
	if i == 0 {
		return AnyProto, nil
	}
	return Protos()[i-1], nil
}

// TimeForced times op with algo and proto forced (Auto and AnyProto: not forced) and says
// whether the result ran them. Where it did not (Unavailable says why), the result is what NCCL
// would run instead with the protocol still forced where that runs, else NCCL's own choice; its
// Algo and Proto name what ran.
func TimeForced(op Op, bytes float64, g Group, f Fabric, algo Algo, proto Proto) (Result, bool) {
	if !(bytes > 0) || g.Ranks <= 1 || math.IsInf(bytes, 0) {
		r := Time(op, bytes, g, f, Auto)
		return r, algo == Auto && proto == AnyProto
	}
	r := timeWith(op, bytes, g, f, algo, proto)
	if r.Seconds > 0 && matches(r, algo, proto) {
		return r, true
	}
	if proto != AnyProto {
		if r := timeWith(op, bytes, g, f, Auto, proto); r.Seconds > 0 && r.Proto == proto {
			return r, algo == Auto
		}
	}
	return Time(op, bytes, g, f, Auto), false
}

func matches(r Result, algo Algo, proto Proto) bool {
	return (algo == Auto || r.Algo == algo) && (proto == AnyProto || r.Proto == proto)
}

// Unavailable says why algo and proto (Auto and AnyProto: not forced) cannot run op on bytes
// over the group and fabric, "" when they can: the rule of NCCL or of the engine they break and
// the hardware's fact that breaks it. TimeForced runs them exactly when it is "".
func Unavailable(op Op, bytes float64, g Group, f Fabric, algo Algo, proto Proto) string {
	if _, ok := TimeForced(op, bytes, g, f, algo, proto); ok {
		return ""
	}
	g.Nodes = max(g.Nodes, 1)
	if why := algoUnavailable(op, bytes, g, f, algo); why != "" {
		return why
	}
	if proto != AnyProto {
		if why := protoUnavailable(op, g, f, algo, proto); why != "" {
			return why
		}
	}
	// No rule of ours names it: say what was asked and what the case is.
	what := algo.String()
	if proto != AnyProto {
		what += " with " + proto.String()
	}
	return fmt.Sprintf("NCCL has no %s for %s on %s", what, op, groupWords(g, f))
}

// groupWords is the group as a sentence: "8 GPUs on one node over pcie4".
func groupWords(g Group, f Fabric) string {
	where := "one node"
	if g.Nodes > 1 {
		where = fmt.Sprintf("%d nodes", g.Nodes)
	}
	s := fmt.Sprintf("%d GPUs on %s over %s", g.Ranks, where, linkWords(f.Intra))
	if g.Nodes > 1 && f.Inter.ID != "" {
		s += " and " + f.Inter.ID
	}
	return s
}

// linkWords names a link with what matters to the rules: "pcie4 (no peer-to-peer)".
func linkWords(l model.Link) string {
	name := l.ID
	if name == "" {
		name = l.Kind.String()
	}
	if l.Kind == model.PCIe && l.Staged {
		name += " (no peer-to-peer)"
	}
	return name
}

func algoUnavailable(op Op, bytes float64, g Group, f Fabric, algo Algo) string {
	intra := linkWords(f.Intra)
	switch algo {
	case Ring:
		if op == AllToAll || op == SendRecv {
			return fmt.Sprintf("%s is point to point (direct): NCCL runs no ring for it", op)
		}
	case Tree:
		switch {
		case op != AllReduce:
			return fmt.Sprintf("NCCL's tree runs all-reduce only, not %s", op)
		case g.Nodes < 2:
			return fmt.Sprintf("NCCL's tree runs across nodes (a chain inside each, a tree between them); this group is one node of %d GPUs", g.Ranks)
		}
	case NVLS, NVLSTree:
		local := g.Local()
		switch {
		case op == AllToAll || op == SendRecv || op == Broadcast:
			return fmt.Sprintf("NVLink SHARP runs all-reduce, all-gather and reduce-scatter, not %s", op)
		case !f.Intra.NVLS || !(f.Intra.NVLSEfficiency > 0):
			return fmt.Sprintf("NVLink SHARP needs an NVSwitch that reduces (nvlink4 and later, Hopper or newer); this box's intra link is %s", intra)
		case local < max(f.Intra.NVLSMinRanks, 2):
			return fmt.Sprintf("NCCL runs NVLink SHARP for groups of at least %d GPUs of a node; this group has %d a node", max(f.Intra.NVLSMinRanks, 2), local)
		case algo == NVLS && g.Nodes > 1:
			return fmt.Sprintf("NCCL runs NVLS across nodes only as nvls-tree (NVLS inside, a tree between); this group spans %d nodes", g.Nodes)
		case algo == NVLSTree && g.Nodes < 2:
			return "nvls-tree is NVLS inside the nodes and a tree between them; this group is one node: use nvls"
		case algo == NVLSTree && op != AllReduce:
			return fmt.Sprintf("nvls-tree runs all-reduce only, not %s", op)
		}
	case OneShot, TwoShot:
		switch {
		case op != AllReduce:
			return fmt.Sprintf("%s is the inference engines' all-reduce kernel, not %s", algo, op)
		case g.Nodes > 1:
			return fmt.Sprintf("%s reads the peers' memory over NVLink: one node only; this group spans %d nodes", algo, g.Nodes)
		case !engineRanks(g.Ranks):
			return fmt.Sprintf("%s runs on 2, 4, 6 or 8 GPUs (vLLM's custom all-reduce); this group has %d", algo, g.Ranks)
		case f.Intra.Kind == model.PCIe && f.Intra.Staged:
			return fmt.Sprintf("%s reads the peers' memory directly and needs peer-to-peer; this box's GPUs have none: %s is staged through host memory", algo, f.Intra.ID)
		case f.Intra.Kind == model.PCIe && g.Ranks != 2:
			return fmt.Sprintf("%s needs GPUs fully connected by NVLink, or two PCIe GPUs with peer-to-peer; this group is %d GPUs on %s", algo, g.Ranks, intra)
		case f.Intra.Kind != model.NVLink && f.Intra.Kind != model.XGMI && f.Intra.Kind != model.PCIe:
			return fmt.Sprintf("%s needs GPUs fully connected by NVLink or XGMI; this box's intra link is %s", algo, intra)
		case bytes >= engineMaxBytes:
			return fmt.Sprintf("%s runs below 8 MiB (vLLM's custom all-reduce buffer); above it the engine calls NCCL", algo)
		}
	}
	return ""
}

func protoUnavailable(op Op, g Group, f Fabric, algo Algo, proto Proto) string {
	switch {
	case (algo == OneShot || algo == TwoShot) && proto != Simple:
		return fmt.Sprintf("%s is the engine's own kernel, not an NCCL protocol: use --proto auto or simple", algo)
	case (algo == NVLS || algo == NVLSTree) && proto != Simple:
		return fmt.Sprintf("NCCL runs NVLink SHARP with Simple only, not %s", proto)
	case op == AllToAll && proto != Simple:
		return fmt.Sprintf("NCCL's all-to-all runs Simple only, not %s", proto)
	case op == SendRecv && proto == LL128:
		return "NCCL's send/recv runs LL or Simple, not ll128"
	case proto == LL128 && f.Intra.Kind != model.NVLink:
		return fmt.Sprintf("NCCL enables LL128 only where the GPUs of a node reach each other over NVLink; this box's intra link is %s", linkWords(f.Intra))
	case proto != Simple && g.Nodes > 1 && f.Inter.SimpleOnly:
		return fmt.Sprintf("the network (%s) runs Simple only (its plugin sets NCCL_PROTO=simple), not %s", f.Inter.ID, proto)
	case algo == Tree && g.Nodes > 1 && proto == LL128 && f.Intra.Kind != model.NVLink:
		return "NCCL's tree runs LL128 only over NVLink"
	}
	return ""
}
