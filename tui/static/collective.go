package static

import (
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
)

// The formula of a collective as the model times it, in words and with its numbers in: what the
// Tensor tab, the Learn tab and the export print for the TP all-reduce. The terms come from
// collective.Explain, so the formula is the model's own arithmetic; Exact says so.

// AlgoName is an algorithm as the screens name it: "ring", "tree", "NVLS", "NVLS+tree",
// "one-shot"…
func AlgoName(a collective.Algo) string {
	switch a {
	case collective.NVLS:
		return "NVLS"
	case collective.NVLSTree:
		return "NVLS+tree"
	}
	return a.String()
}

// ProtoName is a protocol as NCCL spells it: "LL", "LL128", "Simple".
func ProtoName(p collective.Proto) string {
	switch p {
	case collective.LL:
		return "LL"
	case collective.LL128:
		return "LL128"
	case collective.Simple:
		return "Simple"
	}
	return p.String()
}

// Engine says the algorithm is a serving engine's kernel rather than NCCL's.
func Engine(a collective.Algo) bool { return a == collective.OneShot || a == collective.TwoShot }

// AlgoProto names how a collective runs: "NVLS/Simple", "ring/LL"; the engine's kernels have no
// NCCL protocol: "one-shot".
func AlgoProto(a collective.Algo, p collective.Proto) string {
	if Engine(a) {
		return AlgoName(a)
	}
	return AlgoName(a) + "/" + ProtoName(p)
}

// DecBytes formats bytes with decimal prefixes, as link bandwidths are, so that S/B reads in one
// unit: "33.6 MB", "8.19 kB".
func DecBytes(b float64) string {
	s := Count(b)
	if !strings.Contains(s, " ") {
		s += " "
	}
	return s + "B"
}

// UseResult is the result a CollectiveUse records, with its algorithm and protocol parsed back.
func UseResult(u costmodel.CollectiveUse) (collective.Op, collective.Result, bool) {
	op, err := collective.ParseOp(u.Op)
	if err != nil {
		return 0, collective.Result{}, false
	}
	a, err := collective.ParseAlgo(u.Algorithm)
	if err != nil {
		return 0, collective.Result{}, false
	}
	r := collective.Result{Seconds: u.Seconds, Algo: a, Proto: collective.Simple}
	for _, p := range []collective.Proto{collective.LL, collective.LL128, collective.Simple} {
		if strings.EqualFold(u.Protocol, p.String()) {
			r.Proto = p
		}
	}
	return op, r, true
}

// ExplainUse takes apart the time of a collective the report lists (Report.Detail.TPCollective,
// Report.Collectives); false when the model has no formula for it.
func ExplainUse(u costmodel.CollectiveUse) (collective.Explanation, bool) {
	op, r, ok := UseResult(u)
	if !ok {
		return collective.Explanation{}, false
	}
	return collective.Explain(op, u.Bytes, u.Group, u.Fabric, r)
}

// CollFormula is a collective's time as its algorithm's formula.
type CollFormula struct {
	// Name is the algorithm and protocol, "NVLS/Simple".
	Name string
	// Symbols is the formula, "L + S/(B·η)"; Numbers the same with the numbers in,
	// "55.8 µs + 33.6 MB / (450 GB/s × 0.603)"; Compact with each bandwidth multiplied out,
	// "55.8 µs + 33.6 MB / 271 GB/s"; Result its value, "213 µs".
	Symbols, Numbers, Compact, Result string
	// Legend names the symbols a reader may not know ("L: NVLS latency + pipeline fill"), ""
	// when none.
	Legend string
	// Gist is what each GPU moves, in one line; GistShort the same in a few words.
	Gist, GistShort string
	// Seconds is the formula's value.
	Seconds float64
}

// coef formats a count or a factor in a formula: "14", "1.75", "0.603".
func coef(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// stepsSym is the symbol of a ring's step count for an op: 2(t−1) for an all-reduce, (t−1) else.
func stepsSym(op collective.Op, v string) string {
	if op == collective.AllReduce {
		return "2(" + v + "−1)"
	}
	return "(" + v + "−1)"
}

// wireSym is the share of S a ring moves through each link.
func wireSym(op collective.Op) string {
	switch op {
	case collective.AllReduce:
		return "2(t−1)/t·S"
	case collective.ReduceScatter, collective.AllGather:
		return "(t−1)/t·S"
	}
	return "S"
}

// Formula writes an explanation as its algorithm's formula.
func Formula(e collective.Explanation) CollFormula {
	f := CollFormula{Name: AlgoProto(e.Algo, e.Proto), Result: Seconds(e.Seconds), Seconds: e.Seconds}
	S := DecBytes(e.Bytes)
	sec := Seconds
	// The transfer, with its bandwidth as a product (bw) or multiplied out (bwc).
	wire := func(sym, bwSym, bwNum string) (string, string, string) {
		w := coef(e.WireFactor) + "·" + S
		if e.WireFactor == 1 {
			w = S
		}
		return sym + "/" + bwSym, w + " / " + bwNum, w + " / " + Bandwidth(e.BW)
	}
	product := func() string {
		if e.Factor == 1 || !(e.Factor > 0) {
			return Bandwidth(e.Link)
		}
		return "(" + Bandwidth(e.Link) + " × " + coef(e.Factor) + ")"
	}
	hops := func(sym, netSym string) (string, string) {
		s, n := "", ""
		if e.Steps > 0 {
			s, n = sym, strconv.Itoa(e.Steps)+"·"+sec(e.Hop)
		}
		if e.NetSteps > 0 {
			if s != "" {
				s, n = s+" + ", n+" + "
			}
			s, n = s+netSym, n+strconv.Itoa(e.NetSteps)+"·"+sec(e.NetHop)
		}
		return s, n
	}
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, " + ")
	}
	t := e.Ranks
	switch e.Algo {
	case collective.Ring:
		hs, hn := "", ""
		lat := "α"
		switch e.Proto {
		case collective.Simple:
			lat = "h"
		case collective.LL128:
			lat = "λ"
		}
		if e.Nodes > 1 {
			intra := "2(t−N)"
			net := "2(N−1)"
			if e.Op != collective.AllReduce {
				intra, net = "(t−N)", "(N−1)"
			}
			hs, hn = hops(intra+"·"+lat, net+"·"+lat+"_net")
		} else {
			hs, hn = hops(stepsSym(e.Op, "t")+"·"+lat, "")
		}
		// LL's bandwidth is its own (half the bus, or the link's LL ceiling): shown as it is.
		bwSym, bwNum := "B_LL", Bandwidth(e.BW)
		switch e.Proto {
		case collective.Simple:
			bwSym, bwNum = "(B·r)", product()
		case collective.LL128:
			bwSym, bwNum = "(B·d)", product()
		}
		ws, wn, wc := wire(wireSym(e.Op), bwSym, bwNum)
		f.Symbols, f.Numbers, f.Compact = join(hs, ws), join(hn, wn), join(hn, wc)
		steps := e.Steps + e.NetSteps
		f.Gist = "each GPU sends and receives " + wireSym(e.Op) + " = " + DecBytes(e.Wire()) +
			" over its link, in " + stepsSym(e.Op, "t") + " = " + strconv.Itoa(steps) + " steps round the ring of " + strconv.Itoa(t)
		f.GistShort = "each GPU moves " + DecBytes(e.Wire()) + " in " + strconv.Itoa(steps) + " ring steps"
		switch {
		case e.Proto == collective.Simple && e.Nodes > 1:
			f.Legend = "h: Simple's hop latency, h_net: its step across the network, r: the share of B the ring's chunks reach (" +
				coef(e.Factor) + " at this size: ramp and the network's window)"
		case e.Proto == collective.Simple:
			f.Legend = "h: Simple's hop latency, r: its chunk ramp (" + coef(e.Factor) + " at this size)"
		case e.Proto == collective.LL128:
			f.Legend = "λ: LL128's step latency, d: its data share (120 bytes in each 128-byte line)"
		default:
			f.Legend = "α: the link's step latency, B_LL: LL's bandwidth (8 data bytes in 16)"
		}
	case collective.Tree:
		lat := "α"
		switch e.Proto {
		case collective.Simple:
			lat = "h"
		case collective.LL128:
			lat = "λ"
		}
		hs, hn := hops("2(l−1)·"+lat, "2⌈log2 N⌉·"+lat+"_net")
		ws, wn, wc := wire("S", "B_tree", Bandwidth(e.BW))
		f.Symbols, f.Numbers, f.Compact = join(hs, ws), join(hn, wn), join(hn, wc)
		f.Gist = "a chain of l = " + strconv.Itoa(e.Local) + " GPUs in each node, a binary tree across the " +
			strconv.Itoa(e.Nodes) + " nodes: S goes up to the root summed and comes back down"
		f.GistShort = "chains in the nodes, a tree across " + strconv.Itoa(e.Nodes)
		f.Legend = "l: GPUs per node, N: nodes, B_tree: the tree's share of the network"
		switch e.Proto {
		case collective.Simple:
			f.Legend += ", pipelined through its stages in chunks"
		case collective.LL128:
			f.Legend += ", λ: LL128's step latency; B_tree is 120/128 of the slowest stage, the broadcast's 30% of the threads counted as one"
		}
	case collective.NVLS, collective.NVLSTree:
		hs, hn := hops("", "2⌈log2 N⌉·s_net")
		bwSym, bwNum := "(B·η)", product()
		if e.Algo == collective.NVLSTree {
			bwSym = "(B·p)"
		}
		sym := "S"
		if e.Op != collective.AllReduce {
			sym = "(t−1)/t·S"
		}
		ws, wn, wc := wire(sym, bwSym, bwNum)
		f.Symbols, f.Numbers, f.Compact = join("L", hs, ws), join(sec(e.Fixed), hn, wn), join(sec(e.Fixed), hn, wc)
		f.Gist = "each GPU sends its " + S + " once to the NVSwitch, which adds them up, and receives the sum once: no ring steps"
		f.GistShort = "each GPU: S to the switch, the sum back"
		if e.Algo == collective.NVLSTree {
			f.Gist = "NVLS inside each node (each GPU sends S to its switch and gets the sum back), a tree between the " +
				strconv.Itoa(e.Nodes) + " nodes"
		}
		if e.Algo == collective.NVLSTree {
			f.GistShort = "NVLS in each node, a tree across " + strconv.Itoa(e.Nodes)
		}
		f.Legend = "L: NVLS latency " + sec(e.Fixed-e.Fill) + " + pipeline fill " + sec(e.Fill) + ", η: NVLS efficiency"
		if e.Algo == collective.NVLSTree {
			f.Legend = "L: NVLS latency " + sec(e.Fixed-e.Fill) + " + fill " + sec(e.Fill) + ", s_net: a Simple step across the network, " +
				"B: the slower of NVLS and the network's tree, p: the pipeline's share of it at this size (" + coef(e.Factor) + ")"
		}
	case collective.OneShot, collective.TwoShot:
		launch := "launch"
		if e.Launches > 1 {
			launch = strconv.Itoa(e.Launches) + "·launch"
		}
		sym := "(t−1)·S"
		if e.Algo == collective.TwoShot {
			sym = "2(t−1)/t·S"
		}
		ws, wn, wc := wire(sym, "B", Bandwidth(e.Link))
		f.Symbols, f.Numbers, f.Compact = join(launch, ws), join(sec(e.Fixed), wn), join(sec(e.Fixed), wc)
		if e.Algo == collective.OneShot {
			f.Gist = "each GPU reads all t−1 = " + strconv.Itoa(t-1) + " peers' whole buffers over NVLink and adds them: one kernel, no steps"
			f.GistShort = "each GPU reads " + strconv.Itoa(t-1) + " peers' S, one kernel"
		} else {
			f.Gist = "each GPU reads its 1/t slice from every peer and adds it, then reads the other sums: two kernels"
			f.GistShort = "slices read from every peer, two kernels"
		}
		f.Legend = "launch: one kernel launch and barrier, " + sec(e.Fixed/float64(max(e.Launches, 1)))
	default: // direct
		hs, hn := hops(strconv.Itoa(e.Steps)+"·h", "")
		ws, wn, wc := wire("S", "B", Bandwidth(e.BW))
		f.Symbols, f.Numbers, f.Compact = join(hs, ws), join(hn, wn), join(hn, wc)
		f.Gist, f.GistShort = "point to point", "point to point"
	}
	if e.Floored {
		// Simple's handshakes, not the transfer, set the time.
		fs := strconv.Itoa(e.FloorSteps) + "·s"
		fn := strconv.Itoa(e.FloorSteps) + "·" + sec(e.FloorHop)
		if e.NetSteps > 0 || e.FloorHop == 0 {
			fn = sec(e.Floor)
		}
		f.Symbols = "max(" + fs + ", " + f.Symbols + ")"
		f.Numbers = "max(" + fn + ", " + f.Numbers + ")"
		f.Compact = fn
		f.Legend = "s: Simple's handshake a step, a floor the transfer does not reach here"
	}
	if math.IsNaN(e.Seconds) {
		f.Result = na
	}
	return f
}
