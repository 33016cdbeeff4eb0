package tensor

import (
	"fmt"
	"math"
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/tui/static"
)

// coll is today's TP collective as the collective model runs it: the report's TPCollective with
// its algorithm parsed, its formula taken apart (collective.Explain) and written out
// (static.Formula). Built once per SetData.
type coll struct {
	ok      bool // a TP collective is described (t > 1 and the report has it)
	use     costmodel.CollectiveUse
	op      collective.Op
	res     collective.Result
	pair    bool // sequence parallelism: a reduce-scatter and an all-gather, each of use.Seconds
	engine  bool // the serving engine's kernel
	explain collective.Explanation
	exact   bool // the formula gives the model's time
	f       static.CollFormula
	anim    animKind
	// The animation's shape: t GPUs in nodes of local, depth levels of tree between nodes.
	t, local, nodes, depth int
}

func newColl(d costmodel.Detail, t int) coll {
	c := coll{t: max(t, 1), local: max(t, 1), nodes: 1}
	u := d.TPCollective
	if t <= 1 || u.Op == "" || (u.GPUs != 0 && u.GPUs != t) {
		return c // no TP collective, or one of another group (a hand-made result)
	}
	op, r, ok := static.UseResult(u)
	if !ok {
		return c
	}
	c.ok, c.use, c.op, c.res = true, u, op, r
	c.pair = op == collective.ReduceScatter
	c.engine = static.Engine(r.Algo)
	c.nodes = max(u.Nodes, 1)
	c.local = max(t/c.nodes, 1)
	if c.nodes > 1 {
		c.depth = int(math.Ceil(math.Log2(float64(c.nodes))))
	}
	if e, ok := collective.Explain(op, u.Bytes, u.Group, u.Fabric, r); ok {
		c.explain, c.exact = e, e.Matches(r)
		c.f = static.Formula(e)
	}
	switch r.Algo {
	case collective.Tree:
		c.anim = animTree
	case collective.NVLS, collective.NVLSTree:
		c.anim = animNVLS
	case collective.OneShot:
		c.anim = animOneShot
	case collective.TwoShot:
		c.anim = animTwoShot
	default:
		c.anim = animRing
	}
	return c
}

// name is the algorithm and protocol, "NVLS/Simple".
func (c coll) name() string { return static.AlgoProto(c.res.Algo, c.res.Proto) }

// opName is what the TP collective is: "all-reduce", or with sequence parallelism the pair.
func (c coll) opName() string {
	if c.pair {
		return "reduce-scatter + all-gather"
	}
	return c.op.String()
}

// opShort is opName for narrow lines.
func (c coll) opShort() string {
	if c.pair {
		return "RS+AG"
	}
	return "AR"
}

// group is where the collective runs: "8 GPUs", "16 GPUs in 2 nodes".
func (c coll) group() string {
	if c.nodes > 1 {
		return fmt.Sprintf("%d GPUs in %d nodes", c.t, c.nodes)
	}
	return fmt.Sprintf("%d GPUs", c.t)
}

// links names the links it crosses: the intra-node link, and the network across nodes.
func (c coll) links() string {
	l := c.use.Fabric.Intra.ID
	if c.use.Fabric.Intra.Staged {
		l += " no-P2P" // staged through host memory
	}
	if c.nodes > 1 && c.use.Fabric.Inter.ID != "" {
		l += " + " + c.use.Fabric.Inter.ID
	}
	if l == "" {
		l = c.use.Link
	}
	return l
}

// time is one collective's time as shown: "213 µs", "2 × 107 µs" for the pair.
func (c coll) time() string {
	if c.pair {
		return "2 × " + static.Seconds(c.use.Seconds)
	}
	return static.Seconds(c.use.Seconds)
}

// formulaVariants are the formula line, longest first: the algorithm's formula in symbols and
// with its numbers, then shorter forms. When the formula is not the model's own time (a case
// explain.go does not follow), it says so.
func (c coll) formulaVariants() [][]span {
	f := c.f
	if f.Symbols == "" {
		res := static.Seconds(c.use.Seconds)
		return [][]span{
			{{c.name(), stBold}, {": " + res + " modelled (no formula for this case)", stLabel}},
			{{c.name() + " ", stBold}, {res, stBold}},
		}
	}
	name := span{c.name() + ": ", stBold}
	res := span{f.Result, stBold}
	var tail []span
	short := tail
	if !c.exact {
		tail = []span{{" (simplified: the model says " + static.Seconds(c.res.Seconds) + ")", stSub}}
		short = []span{{" (model " + static.Seconds(c.res.Seconds) + ")", stSub}}
	}
	if c.pair {
		tail = append([]span{{" each", stLabel}}, tail...)
		short = append([]span{{" each", stLabel}}, short...)
	}
	cat := func(ps ...[]span) []span {
		var out []span
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	return [][]span{
		cat([]span{name, {f.Symbols, stLabel}, {" = " + f.Numbers + " = ", stPlain}, res}, tail),
		cat([]span{name, {f.Symbols, stLabel}, {" = " + f.Compact + " = ", stPlain}, res}, tail),
		cat([]span{name, {f.Numbers + " = ", stPlain}, res}, tail),
		cat([]span{name, {f.Compact + " = ", stPlain}, res}, short),
		cat([]span{{f.Compact + " = ", stPlain}, res}, short),
		cat([]span{name, {f.Symbols, stLabel}}),
		{name, res},
		{res},
	}
}

// headerVariants are the collective's line: what, how big, where, how, how long, how often.
// per is how many a layer runs; regather, the extra all-gathers of sequence parallelism's
// backward, counted apart.
func (c *coll) headerVariants(what string, per, regather int, infer bool) [][]span {
	S := static.DecBytes(c.use.Bytes)
	perLong := fmt.Sprintf(", %d per layer", per)
	if infer {
		perLong = fmt.Sprintf(", %d per layer per token", per)
	}
	if regather > 0 {
		perLong += fmt.Sprintf(" and %d all-gathers again", regather)
	}
	x := " ×" + strconv.Itoa(per)
	who, whoShort := "", ""
	if c.engine {
		who, whoShort = " (serving engine)", " (engine)"
	}
	op := span{c.opName() + " ", stLabel}
	size := span{"S = " + S, stBold}
	algo := span{c.name(), stBold}
	arrow := span{" → ", stPlain}
	tm := span{c.time(), stWarn}
	sep := func(s string) span { return span{" · " + s + " · ", stLabel} }
	return [][]span{
		{op, size, {what, stLabel}, sep(c.group() + " · " + c.links()), algo, {who, stLabel}, arrow, tm, {perLong, stLabel}},
		{op, size, sep(c.group() + " · " + c.links()), algo, {who, stLabel}, arrow, tm, {perLong, stLabel}},
		{op, size, sep(c.group() + " · " + c.links()), algo, {whoShort, stLabel}, arrow, tm, {x, stLabel}},
		{op, size, sep(c.group()), algo, {whoShort, stLabel}, arrow, tm, {x, stLabel}},
		{op, {S, stBold}, sep(strconv.Itoa(c.t) + " GPUs"), algo, arrow, tm, {x, stLabel}},
		{{c.opShort() + " ", stLabel}, {S + " ", stBold}, {c.name() + " ", stBold}, tm, {x, stLabel}},
		{{S + " ", stBold}, {c.name() + " ", stBold}, tm},
		{{c.name() + " ", stBold}, tm},
	}
}

// gist is what each GPU moves, in w cells ("" when even the short form does not fit).
func (c *coll) gist(w int) string { return fit(w, c.f.Gist, c.f.GistShort, "") }
