// Package collective times the collectives of a parallel job the way NCCL runs them: for an
// operation, a message size and a group of GPUs on a fabric, it costs every algorithm NCCL has
// for that case (ring, tree, NVLink SHARP, NVLS+tree) in every protocol (LL, LL128, Simple) and
// takes the fastest, as NCCL's tuner does (src/graph/tuning.cc in NVIDIA/nccl: a latency per
// algorithm and protocol, a bandwidth per algorithm and protocol, time = latency + size /
// bandwidth). On top of the tuner's shape it models what nccl-tests measure and the tuner does
// not: Simple's handshake floor at small sizes, and its slow bandwidth ramp from 1 MiB to
// 512 MiB as NCCL's chunks grow (see simple.go). Pure, O(1) and allocation-free.
//
// Sizes follow nccl-tests: S is the buffer of the operation in bytes (for all-gather the
// gathered output, for reduce-scatter the input), and bus bandwidth is algbw × the operation's
// factor (2(n−1)/n for all-reduce, (n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for
// broadcast and send/recv) [NT].
package collective

import (
	"fmt"
	"math"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// Op is a collective operation. Its identity (names, parsing, nccl-tests' bus factor) is
// model's, which the reader of nccl-tests logs (assets) shares; this package times it.
type Op = model.CollOp

// Operations, as nccl-tests names them.
const (
	AllReduce     = model.CollAllReduce
	ReduceScatter = model.CollReduceScatter
	AllGather     = model.CollAllGather
	Broadcast     = model.CollBroadcast
	AllToAll      = model.CollAllToAll
	SendRecv      = model.CollSendRecv
)

// Ops lists every operation.
func Ops() []Op { return model.CollOps() }

// ParseOp reads an operation name ("all-reduce", also "allreduce" or "all_reduce").
func ParseOp(s string) (Op, error) { return model.ParseCollOp(s) }

// Algo is an algorithm NCCL can run a collective with. Auto lets the model choose.
type Algo uint8

// Algorithms. NVLS is NVLink SHARP (the NVSwitch reduces and multicasts), NVLSTree NVLS inside
// the nodes and a tree across them; Direct is a point-to-point exchange (send/recv,
// all-to-all). OneShot and TwoShot are the inference engines' own all-reduce (Engine).
const (
	Auto Algo = iota
	Ring
	Tree
	NVLS
	NVLSTree
	Direct
	OneShot
	TwoShot
)

var algoNames = []string{"auto", "ring", "tree", "nvls", "nvls-tree", "direct", "one-shot", "two-shot"}

func (a Algo) String() string { return name(algoNames, int(a)) }

// Algos lists the algorithms a user can force, Auto first: NCCL's (NCCL_ALGO), then the
// inference engines' all-reduce kernels.
func Algos() []Algo { return []Algo{Auto, Ring, Tree, NVLS, NVLSTree, OneShot, TwoShot} }

// AlgoNames is Algos as the names ParseAlgo reads.
func AlgoNames() []string {
	var out []string
	for _, a := range Algos() {
		out = append(out, a.String())
	}
	return out
}

// ParseAlgo reads an algorithm name.
func ParseAlgo(s string) (Algo, error) {
	i, err := parse(algoNames, s)
	return Algo(i), err
}

// Proto is an NCCL protocol.
type Proto uint8

// Protocols: LL (8-byte stores carrying their own flag: low latency, low bandwidth), LL128
// (128-byte lines with a flag word) and Simple (plain copies with a handshake per step: full
// bandwidth, heavier latency).
const (
	LL Proto = iota
	LL128
	Simple
)

var protoNames = []string{"ll", "ll128", "simple"}

func (p Proto) String() string { return name(protoNames, int(p)) }

// Result is the time of one collective and how NCCL would run it.
type Result struct {
	Seconds float64
	Algo    Algo
	Proto   Proto
}

// Group is a communicator: Ranks GPUs on Nodes nodes, the same number on each.
type Group struct {
	Ranks, Nodes int
}

// Local is the ranks per node.
func (g Group) Local() int { return g.Ranks / max(g.Nodes, 1) }

// Fabric is what a group's traffic runs on: the link between GPUs of a node and, across nodes,
// the node's NICs.
type Fabric struct {
	// Intra is the per-GPU link inside a node (NVLink through NVSwitch, PCIe, XGMI …).
	Intra model.Link
	// Inter is one NIC port; NICs is the number of them per node, shared by its GPUs.
	Inter model.Link
	NICs  int
}

// FabricOf is the fabric of a cluster; its intra-node link is staged through host memory when
// the GPUs have no peer-to-peer (model.Cluster.IntraLink).
func FabricOf(c model.Cluster) Fabric {
	return Fabric{Intra: c.IntraLink(), Inter: c.Inter, NICs: max(c.NICsPerNode, 1)}
}

// Time is how long op on bytes takes over the group, run as NCCL runs it: the algorithm NCCL's
// own cost table picks (tuner.go), timed with the calibrated cost (algos.go) of the protocol it
// runs: LL128 where NCCL's table ranks LL128 first for that algorithm, otherwise the faster of
// LL and Simple by the calibrated costs (the crossover between those two moved between NCCL
// versions, and the calibration sweeps pin it down). With algo other than Auto that algorithm
// only (what NCCL_ALGO does; OneShot and TwoShot are the engines' kernels, engine.go), or, when
// it does not apply to the case (a tree on one node, NVLS without NVLink SHARP, one-shot across
// nodes), the choice as with Auto. Zero bytes, one rank or a fabric without bandwidth cost
// nothing.
func Time(op Op, bytes float64, g Group, f Fabric, algo Algo) Result {
	return timeWith(op, bytes, g, f, algo, anyProto)
}

// TimeProto is Time with the protocol forced, as NCCL_PROTO does: NCCL's table then picks the
// algorithm among those that run proto, and the time is that protocol's. Where no algorithm of
// the case runs proto (LL128 on PCIe, LL across a Simple-only network), the choice as with Time.
// Validation uses it for a sweep whose NCCL ran another protocol than today's table picks.
func TimeProto(op Op, bytes float64, g Group, f Fabric, algo Algo, proto Proto) Result {
	if r := timeWith(op, bytes, g, f, algo, proto); r.Proto == proto && r.Seconds > 0 {
		return r
	}
	return Time(op, bytes, g, f, algo)
}

// anyProto lets timeWith choose the protocol.
const anyProto Proto = 255

func timeWith(op Op, bytes float64, g Group, f Fabric, algo Algo, proto Proto) Result {
	none := Result{Algo: Ring, Proto: Simple}
	if !(bytes > 0) || g.Ranks <= 1 || math.IsInf(bytes, 0) {
		return none
	}
	g.Nodes = max(g.Nodes, 1)
	if op == AllReduce && (algo == OneShot || algo == TwoShot) {
		if t, ok := engineKernel(algo, bytes, g, f); ok {
			return Result{Seconds: t, Algo: algo, Proto: Simple}
		}
	}
	c := newCase(op, bytes, g, f)
	if !c.ok {
		return none
	}
	// Every algorithm and protocol's calibrated time (0: the case has none).
	var cal [numAlgos][3]float64
	c.each(func(a Algo, p Proto, t float64) {
		if t > 0 && !math.IsInf(t, 1) {
			cal[a][p] = t
		}
	})
	// NCCL's own estimates, for the algorithms the case has.
	var est [numAlgos][3]float64
	for a := Ring; a <= NVLSTree; a++ {
		if cal[a] != ([3]float64{}) {
			for p := LL; p <= Simple; p++ {
				est[a][p] = c.tunerTime(a, p, f)
			}
		}
	}
	// run is algorithm a as NCCL runs it: the protocol forced, or LL128 where NCCL's table ranks
	// it first, or else the faster of LL and Simple by their calibrated costs.
	run := func(a Algo) (Result, bool) {
		if proto != anyProto {
			return Result{Seconds: cal[a][proto], Algo: a, Proto: proto}, cal[a][proto] > 0
		}
		if e := est[a]; cal[a][LL128] > 0 && e[LL128] < e[LL] && e[LL128] < e[Simple] {
			return Result{Seconds: cal[a][LL128], Algo: a, Proto: LL128}, true
		}
		r, ok := Result{Seconds: math.Inf(1), Algo: a}, false
		for _, p := range [...]Proto{LL, Simple} {
			if t := cal[a][p]; t > 0 && t < r.Seconds {
				r.Seconds, r.Proto, ok = t, p, true
			}
		}
		return r, ok
	}
	if algo > Auto && int(algo) < numAlgos {
		if r, ok := run(algo); ok {
			return r
		}
	}
	if op == AllToAll || op == SendRecv {
		if r, ok := run(Direct); ok {
			return r
		}
		return none
	}
	// NCCL's choice of algorithm, by its own estimate, among those that run.
	var chosen Result
	found, best := false, math.Inf(1)
	for a := Ring; a <= NVLSTree; a++ {
		r, ok := run(a)
		if !ok {
			continue
		}
		for p := LL; p <= Simple; p++ {
			if proto != anyProto && p != proto {
				continue
			}
			if t := est[a][p]; t < best {
				chosen, found, best = r, true, t
			}
		}
	}
	if !found {
		return none
	}
	return chosen
}

// numAlgos sizes per-algorithm arrays (NCCL's algorithms: the engine's are timed apart).
const numAlgos = int(Direct) + 1

// Candidates lists every algorithm and protocol the model can time for the case with its
// calibrated time (unsorted), for explaining a choice: the Tensor tab, `comm`.
func Candidates(op Op, bytes float64, g Group, f Fabric) []Result {
	var out []Result
	if !(bytes > 0) || g.Ranks <= 1 || math.IsInf(bytes, 0) {
		return out
	}
	g.Nodes = max(g.Nodes, 1)
	c := newCase(op, bytes, g, f)
	if !c.ok {
		return out
	}
	c.each(func(a Algo, p Proto, t float64) {
		if t > 0 && !math.IsInf(t, 0) {
			out = append(out, Result{Seconds: t, Algo: a, Proto: p})
		}
	})
	return out
}

func name(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return fmt.Sprintf("?%d", i)
	}
	return names[i]
}

func parse(names []string, s string) (int, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.ReplaceAll(k, "_", "-")
	for i, n := range names {
		if k == n || k == strings.ReplaceAll(n, "-", "") {
			return i, nil
		}
	}
	return 0, &model.FieldError{Value: s, Allowed: "one of " + strings.Join(names, ", ")}
}

// Point is one row of a size sweep, as nccl-tests prints it.
type Point struct {
	Bytes   float64
	Seconds float64
	AlgBW   float64 // bytes/s: size / time
	BusBW   float64 // bytes/s: algbw × the operation's bus factor
	Algo    Algo
	Proto   Proto
	// Fallback is why the forced algorithm or protocol did not run at this size (Unavailable);
	// Algo and Proto then name what NCCL ran instead. "" when it ran or nothing was forced.
	Fallback string
}

// MaxSweepRows bounds a sweep.
const MaxSweepRows = 4096

// Sweep times op from minBytes to maxBytes, multiplying by factor (> 1) each row, as
// nccl-tests' -b, -e and -f do; at most MaxSweepRows rows. algo and proto force an algorithm
// and a protocol (Auto, AnyProto: NCCL's choice); a row where they cannot run says why in its
// Fallback and names what ran instead.
func Sweep(op Op, minBytes, maxBytes, factor float64, g Group, f Fabric, algo Algo, proto Proto) []Point {
	if !(minBytes > 0) || !(maxBytes >= minBytes) || !(factor > 1) || math.IsInf(maxBytes, 0) {
		return nil
	}
	var out []Point
	for s := minBytes; s <= maxBytes*(1+1e-12) && len(out) < MaxSweepRows; s *= factor {
		b := math.Round(s)
		r, ok := TimeForced(op, b, g, f, algo, proto)
		p := Point{Bytes: b, Seconds: r.Seconds, Algo: r.Algo, Proto: r.Proto}
		if !ok {
			p.Fallback = Unavailable(op, b, g, f, algo, proto)
		}
		if r.Seconds > 0 {
			p.AlgBW = b / r.Seconds
			p.BusBW = p.AlgBW * op.BusFactor(g.Ranks)
		}
		out = append(out, p)
	}
	return out
}
