package learn

import (
	"math"
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// CollFacts describe today's TP collective as the collective model runs it: its algorithm and
// protocol and its formula with the numbers in (the Tensor tab's, from collective.Explain).
type CollFacts struct {
	On bool // t > 1 and the report describes the collective
	// Algo is the algorithm and protocol, "NVLS/Simple", "one-shot"; Name the algorithm, "NVLS".
	Algo, Name string
	// Which algorithm it is; Engine: the serving engine's kernel rather than NCCL's.
	Ring, Tree, NVLS, OneShot, TwoShot, Engine bool
	// Proto is the NCCL protocol, "LL", "LL128" or "Simple" ("" for the engine's kernels); Floored says
	// Simple's handshakes, not the transfer, set the time.
	Proto   string
	Floored bool
	// Group is where it runs, "8 GPUs", "16 GPUs in 2 nodes"; Nodes the nodes it spans.
	Group string
	Nodes int
	// The formula in symbols and with its numbers (language-neutral, as the Tensor tab prints it).
	Symbols, Numbers string
	// Exact says the formula gives the modelled time (it always should; see collective.Explain).
	Exact bool
	// Pair: with sequence parallelism a reduce-scatter and an all-gather, each of Each.
	Pair bool
	Each string
	// How is the paragraph "learn.allreduce.how" rendered over these facts, which the TP
	// all-reduce section includes (set by Document).
	How string
}

// AlgoFacts compare the algorithms for today's TP group, with today's numbers: the ring against
// NVLS, a box without peer-to-peer, NCCL against the serving engine's one-shot kernel for a
// decode step.
type AlgoFacts struct {
	On bool // t > 1 and the report describes the group
	T  int
	S  string
	// The ring on today's S: 2(t−1) steps, 2(t−1)/t·S through each link, its time, algorithm and
	// protocol ("ring/Simple").
	RingSteps            int
	RingWire, Ring       string
	RingProto            string
	RingFrac             string // 2(t−1)/t
	RingBeatsNVLSOnToday bool
	// NVLS, when the group has NVLink SHARP: its time on today's S, its bus bandwidth at 1 GiB
	// against the link's per-GPU bandwidth, and how much faster than the ring it is there.
	HasNVLS bool
	// NVLSLink says the link has NVLink SHARP but the group is below NVLSMin GPUs of a node.
	NVLSLink      bool
	NVLSMin       int
	NVLS          string
	NVLSBus, Link string
	NVLSOverLink  bool
	NVLSGain      string
	// Without peer-to-peer: each GPU's ring traffic crosses PCIe twice. PCIe says today's TP
	// group is on one PCIe node (then WireTime is today's all-reduce with peer-to-peer and
	// StagedTime staged through host memory); Staged that today's link has no peer-to-peer;
	// GeForce that today's GPU has none (the GeForce presets).
	PCIe                 bool
	Staged               bool
	GeForce              bool
	StagedWire           string
	WireTime, StagedTime string
	// A decode step's all-reduce (today's in inference; one token of one request, h·e, in
	// training): NCCL's best and the serving engine's kernel.
	DecS, DecNCCL, DecNCCLAlgo string
	EngineApplies              bool
	DecEngine, DecEngineAlgo   string
	DecRatio                   string
	// EngineWhyNot is why the engine falls back on NCCL here: "nodes", "size" (a group size other
	// than 2, 4, 6, 8), "link" (no NVLink), "bytes" (over its 8 MiB buffer).
	EngineWhyNot string
}

// times writes a ratio as "1.34×", "12×".
func times(x float64) string {
	if !(x > 0) || math.IsInf(x, 0) {
		return "?×"
	}
	p := 2
	if x >= 10 {
		p = 0
	} else if x >= 3 {
		p = 1
	}
	return strconv.FormatFloat(x, 'f', p, 64) + "×"
}

func collFacts(r costmodel.Report) CollFacts {
	u := r.Detail.TPCollective
	var c CollFacts
	if r.Layout.TP <= 1 || u.Op == "" {
		return c
	}
	op, res, ok := static.UseResult(u)
	if !ok {
		return c
	}
	c.On = true
	c.Algo, c.Name = static.AlgoProto(res.Algo, res.Proto), static.AlgoName(res.Algo)
	c.Ring, c.Tree = res.Algo == collective.Ring, res.Algo == collective.Tree
	c.NVLS = res.Algo == collective.NVLS || res.Algo == collective.NVLSTree
	c.OneShot, c.TwoShot = res.Algo == collective.OneShot, res.Algo == collective.TwoShot
	c.Engine = static.Engine(res.Algo)
	if !c.Engine {
		c.Proto = static.ProtoName(res.Proto)
	}
	c.Group = strconv.Itoa(u.GPUs) + " GPUs"
	c.Nodes = max(u.Nodes, 1)
	if u.Nodes > 1 {
		c.Group += " in " + strconv.Itoa(u.Nodes) + " nodes"
	}
	c.Pair = op == collective.ReduceScatter
	c.Each = Seconds(u.Seconds)
	if e, ok := collective.Explain(op, u.Bytes, u.Group, u.Fabric, res); ok {
		f := static.Formula(e)
		c.Symbols, c.Numbers = f.Symbols, f.Numbers
		c.Exact, c.Floored = e.Matches(res), e.Floored
	}
	return c
}

func algoFacts(s model.Scenario, r costmodel.Report) AlgoFacts {
	u := r.Detail.TPCollective
	t := r.Layout.TP
	a := AlgoFacts{T: t, GeForce: s.Cluster.GPU.NoP2P}
	if t <= 1 || u.Op == "" || !(u.Bytes > 0) {
		return a
	}
	a.On = true
	g, fab := u.Group, u.Fabric
	S := u.Bytes
	a.S = DecBytes(S)
	n := float64(g.Ranks)
	a.RingSteps = 2 * (g.Ranks - 1)
	a.RingFrac = strconv.FormatFloat(2*(n-1)/n, 'g', 3, 64)
	wire := 2 * (n - 1) / n * S
	a.RingWire, a.StagedWire = DecBytes(wire), DecBytes(2*wire)
	ring := collective.Time(collective.AllReduce, S, g, fab, collective.Ring)
	a.Ring, a.RingProto = Seconds(ring.Seconds), static.AlgoProto(ring.Algo, ring.Proto)
	if nv := collective.Time(collective.AllReduce, S, g, fab, collective.NVLS); nv.Algo == collective.NVLS || nv.Algo == collective.NVLSTree {
		a.HasNVLS = true
		a.NVLS = Seconds(nv.Seconds)
		a.RingBeatsNVLSOnToday = ring.Seconds < nv.Seconds
		const big = 1 << 30
		nvBig := collective.Time(collective.AllReduce, big, g, fab, collective.NVLS)
		ringBig := collective.Time(collective.AllReduce, big, g, fab, collective.Ring)
		bus := big / nvBig.Seconds * collective.AllReduce.BusFactor(g.Ranks)
		a.NVLSBus, a.Link = Bandwidth(bus), Bandwidth(fab.Intra.Bandwidth)
		a.NVLSOverLink = bus > fab.Intra.Bandwidth
		a.NVLSGain = times(ringBig.Seconds / nvBig.Seconds)
	} else if fab.Intra.NVLS {
		a.NVLSLink, a.NVLSMin = true, max(fab.Intra.NVLSMinRanks, 2)
	}
	if fab.Intra.Kind == model.PCIe && g.Nodes <= 1 {
		a.PCIe, a.Staged = true, fab.Intra.Staged
		p2p, staged := fab, fab
		p2p.Intra.Staged, staged.Intra.Staged = false, true
		a.WireTime = Seconds(collective.Time(collective.AllReduce, S, g, p2p, collective.Auto).Seconds)
		a.StagedTime = Seconds(collective.Time(collective.AllReduce, S, g, staged, collective.Auto).Seconds)
	}
	// A decode step's all-reduce.
	dec := S
	if s.Workload.Mode != model.Infer {
		dec = float64(s.Arch.Hidden) * s.Workload.Precision.Bytes()
	}
	a.DecS = DecBytes(dec)
	nccl := collective.Time(collective.AllReduce, dec, g, fab, collective.Auto)
	a.DecNCCL, a.DecNCCLAlgo = Seconds(nccl.Seconds), static.AlgoProto(nccl.Algo, nccl.Proto)
	if e, ok := collective.Engine(dec, g, fab); ok {
		a.EngineApplies = true
		a.DecEngine, a.DecEngineAlgo = Seconds(e.Seconds), static.AlgoName(e.Algo)
		a.DecRatio = times(nccl.Seconds / e.Seconds)
	} else {
		switch {
		case g.Nodes > 1:
			a.EngineWhyNot = "nodes"
		case g.Ranks != 2 && g.Ranks != 4 && g.Ranks != 6 && g.Ranks != 8:
			a.EngineWhyNot = "size"
		case fab.Intra.Kind != model.NVLink && fab.Intra.Kind != model.XGMI:
			a.EngineWhyNot = "link"
		default:
			a.EngineWhyNot = "bytes"
		}
	}
	return a
}
