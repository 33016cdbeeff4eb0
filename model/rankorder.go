package model

import (
	"fmt"
	"strings"
)

// RankOrder is how the ranks of the job are numbered over the GPUs, which the nodes fill in
// order: the nesting of the axes TP, CP, DP and PP, innermost first (Megatron-core's `order`,
// "tp-cp-ep-dp-pp" by default; torchtitan's device mesh [pp, dp, cp, tp] written outermost
// first is the same order). Each axis' ranks are spaced by the product of the sizes of the
// axes before it, so the axes first in the order have their groups on neighbouring GPUs, in a
// node where they fit, and the last ones cross nodes. The EP groups are sub-groups of DP:
// EP inside it (ep-dp, the default: an EP group's ranks are DP neighbours, Megatron's
// tp-cp-ep-dp-pp) or outside (dp-ep: the expert-data-parallel replicas are the neighbours).
//
// The value is an index into the table of the 48 orders (4! nestings × the two EP places):
// 0 is tp-cp-ep-dp-pp, written tp-dp-pp (Megatron's default: DP replicas beside TP in a node,
// the pipeline across nodes), 1 tp-cp-ep-pp-dp, written tp-pp-dp (Megatron's
// --use-tp-pp-dp-mapping, and Llama 3's (TP, CP, PP, DP): pipeline stages beside TP, DP across
// nodes). The table is fixed, so Strides is a lookup without allocation.
type RankOrder int

// The two orders with short names; every other is its table index (see RankOrders).
const (
	RankOrderTPDPPP RankOrder = iota
	RankOrderTPPPDP
)

// NumRankOrders is how many rank orders there are: 24 nestings of tp, cp, dp, pp, each with EP
// inside DP or outside it.
const NumRankOrders = 48

// The axes of a rank order, as rankPerm.ax holds them.
const (
	axisTP = iota
	axisCP
	axisDP
	axisPP
)

var axisNames = [4]string{"tp", "cp", "dp", "pp"}

// rankPerm is one order: the axes innermost first, and whether EP sits outside the expert-DP
// replicas (dp-ep) rather than inside DP (ep-dp).
type rankPerm struct {
	ax    [4]uint8
	epOut bool
}

// rankPerms lists the orders: the 24 nestings in lexicographic order of the axes (tp, cp, dp,
// pp), whose first two are tp-cp-dp-pp and tp-cp-pp-dp (the orders 0 and 1 of old), with EP
// inside DP; then the same 24 with EP outside.
var rankPerms = func() (out [NumRankOrders]rankPerm) {
	i := 0
	var rec func(pre []uint8, used [4]bool)
	rec = func(pre []uint8, used [4]bool) {
		if len(pre) == 4 {
			copy(out[i].ax[:], pre)
			out[i+24] = rankPerm{ax: out[i].ax, epOut: true}
			i++
			return
		}
		for a := range uint8(4) {
			if !used[a] {
				used[a] = true
				rec(append(pre, a), used)
				used[a] = false
			}
		}
	}
	rec(nil, [4]bool{})
	return out
}()

func (o RankOrder) valid() bool { return o >= 0 && o < NumRankOrders }

func (o RankOrder) perm() rankPerm {
	if !o.valid() {
		return rankPerms[0]
	}
	return rankPerms[o]
}

// RankOrders lists every rank order, the default first.
func RankOrders() []RankOrder {
	out := make([]RankOrder, NumRankOrders)
	for i := range out {
		out[i] = RankOrder(i)
	}
	return out
}

// String is the order's name: tp-dp-pp and tp-pp-dp for the two of old, else the four axes
// innermost first, with "ep" after dp where EP sits outside DP.
func (o RankOrder) String() string {
	switch {
	case !o.valid():
		return fmt.Sprintf("unknown(%d)", int(o))
	case o == RankOrderTPDPPP:
		return "tp-dp-pp"
	case o == RankOrderTPPPDP:
		return "tp-pp-dp"
	}
	pm := rankPerms[o]
	var b strings.Builder
	for i, a := range pm.ax {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(axisNames[a])
		if a == axisDP && pm.epOut {
			b.WriteString("-ep")
		}
	}
	return b.String()
}

// RankOrderForm says what ParseRankOrder accepts, for help texts and messages.
const RankOrderForm = "the axes tp, cp, dp and pp each once, innermost first, joined by '-' (cp may be left out: it then follows tp); " +
	"ep, if given, next to dp (ep-dp: EP groups inside DP, the default; dp-ep: outside); " +
	"e.g. tp-dp-pp (Megatron's default tp-cp-ep-dp-pp), tp-pp-dp (tp-cp-ep-pp-dp: Megatron's --use-tp-pp-dp-mapping, Llama 3's tp-cp-pp-dp), cp-tp-dp-pp, tp-cp-dp-ep-pp"

// ParseRankOrder reads an order written innermost first: "tp-dp-pp", "tp-pp-dp" or any nesting
// of tp, cp, dp and pp, with or without cp (then right after tp) and ep (then inside dp).
func ParseRankOrder(s string) (RankOrder, error) {
	bad := func(why string) (RankOrder, error) {
		return 0, &FieldError{Field: "rank-order", Value: s, Allowed: why + RankOrderForm}
	}
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "-")
	if strings.Join(parts, "-") == "tp-cp-ep-pp-dp" {
		// Megatron's --use-tp-pp-dp-mapping writes ep before pp; splitscope keeps EP inside DP
		// (tp-pp-dp) as it always has.
		return RankOrderTPPPDP, nil
	}
	seen := map[string]int{}
	for _, p := range parts {
		switch p {
		case "tp", "cp", "dp", "pp", "ep":
			seen[p]++
		default:
			return bad(fmt.Sprintf("%q is not an axis; want ", p))
		}
	}
	for _, n := range []string{"tp", "cp", "dp", "pp", "ep"} {
		if seen[n] > 1 {
			return bad(n + " is given twice; want ")
		}
	}
	for _, n := range []string{"tp", "dp", "pp"} {
		if seen[n] == 0 {
			return bad(n + " is missing; want ")
		}
	}
	epOut := false
	var ax []string
	for i, p := range parts {
		if p != "ep" {
			ax = append(ax, p)
			continue
		}
		switch {
		case i+1 < len(parts) && parts[i+1] == "dp":
		case i > 0 && parts[i-1] == "dp":
			epOut = true
		default:
			// The nearest valid order: the same with ep just inside dp.
			var near []string
			for _, q := range parts {
				if q == "dp" {
					near = append(near, "ep")
				}
				if q != "ep" {
					near = append(near, q)
				}
			}
			return bad(fmt.Sprintf("ep must be next to dp (nearest valid %s); want ", strings.Join(near, "-")))
		}
	}
	if seen["cp"] == 0 {
		for i, p := range ax {
			if p == "tp" {
				ax = append(ax[:i+1], append([]string{"cp"}, ax[i+1:]...)...)
				break
			}
		}
	}
	var want rankPerm
	want.epOut = epOut
	for i, p := range ax {
		for a, n := range axisNames {
			if n == p {
				want.ax[i] = uint8(a)
			}
		}
	}
	for i, pm := range rankPerms {
		if pm == want {
			return RankOrder(i), nil
		}
	}
	return bad("")
}

// Strides are the distances between neighbouring ranks of a TP, CP, DP and PP group for a
// layout of TP t, CP c, DP d and PP p under the order: each the product of the sizes of the
// axes inside it.
func (o RankOrder) Strides(t, c, d, p int) (tp, cp, dp, pp int) {
	size := [4]int{max(t, 1), max(c, 1), max(d, 1), max(p, 1)}
	var st [4]int
	acc := 1
	for _, a := range o.perm().ax {
		st[a] = acc
		acc *= size[a]
	}
	return st[axisTP], st[axisCP], st[axisDP], st[axisPP]
}

// EPStrides are the distances between neighbouring ranks of an EP group and of an expert-DP
// group (the replicas of one expert), given the DP stride, d and ep: with EP inside DP the EP
// ranks are DP neighbours and the replicas ep of them apart; outside, the reverse.
func (o RankOrder) EPStrides(dpStride, d, ep int) (epStride, expDPStride int) {
	ep = max(ep, 1)
	if o.perm().epOut {
		return dpStride * max(d/ep, 1), dpStride
	}
	return dpStride, dpStride * ep
}

// Span is where a communicator's ranks sit: N ranks over Nodes nodes, Local on each.
type Span struct {
	N, Nodes, Local int
}

// SpanOf places a communicator of count ranks spaced stride apart on nodes of gpn GPUs (the
// first group; the layout rules keep the others alike).
func SpanOf(stride, count, gpn int) Span {
	if count <= 1 {
		return Span{N: max(count, 1), Nodes: 1, Local: 1}
	}
	if stride >= gpn {
		return Span{N: count, Nodes: count, Local: 1}
	}
	local := min(count, max(gpn/max(stride, 1), 1))
	return Span{N: count, Nodes: (count + local - 1) / local, Local: local}
}

// ComposeSpans is the group of an inner group's ranks times an outer group's (the outer's
// stride a multiple of the inner's span): DP × CP, whose CP ranks repeat for every DP replica.
// Inside a node it holds the inner ranks there times the outer's.
func ComposeSpans(in, out Span) Span {
	n := in.N * out.N
	local := in.Local
	if in.Nodes == 1 {
		local *= out.Local
	}
	local = max(min(local, n), 1)
	return Span{N: n, Nodes: (n + local - 1) / local, Local: local}
}

// Placement is where a layout's communicators sit under its rank order, on nodes of gpn GPUs:
// every group the cost model times, and the strides it numbers GPUs by.
type Placement struct {
	// TP; CP, its Ulysses and ring sub-groups (CPSplit); DP × CP, the gradient group; the
	// MoE groups: EP alone, Fold (the all-to-all: EP × TP/ETP), ETP (inside TP), ExpDP × CP
	// (an expert's gradient group); PP, the pipeline ranks of one replica.
	TP, CP, Uly, Ring, DP, EP, Fold, ETP, ExpDP, PP Span
	// DPOnly is the DP replicas alone (DP is DP × CP).
	DPOnly                       Span
	TPStride, CPStride, PPStride int
}

// Place places the layout's groups under its rank order on nodes of gpn GPUs.
func (l Layout) Place(a Arch, gpn int) Placement {
	t, c, d, pp := max(l.TP, 1), l.CPSize(), max(l.DP, 1), max(l.PP, 1)
	ts, cs, ds, ps := l.RankOrder.Strides(t, c, d, pp)
	ep, etp, fold := 1, t, 1
	if a.Experts > 1 {
		ep, etp, fold = l.EPSize(), min(l.ETPSize(), t), l.FoldSize()
	}
	es, xs := l.RankOrder.EPStrides(ds, d, ep)
	var pl Placement
	pl.TPStride, pl.CPStride, pl.PPStride = ts, cs, ps
	pl.TP = SpanOf(ts, t, gpn)
	pl.CP = SpanOf(cs, c, gpn)
	uly, ring := l.CPSplit(a, gpn)
	pl.Uly = SpanOf(cs, uly, gpn)
	pl.Ring = SpanOf(cs*uly, ring, gpn)
	pl.DP = SpanOf(ds, d, gpn)
	pl.ExpDP = SpanOf(xs, max(d/ep, 1), gpn)
	pl.DPOnly = pl.DP
	if c > 1 {
		pl.DP = composeAxes(pl.CP, cs, pl.DP, ds)
		pl.ExpDP = composeAxes(pl.CP, cs, pl.ExpDP, xs)
	}
	pl.EP = SpanOf(es, ep, gpn)
	switch {
	case fold == ep:
		pl.Fold = pl.EP
	case ep == 1 || es == ts*t:
		// MoE parallel folding: the TP group's t/etp slices (stride etp) and the EP ranks
		// right outside TP make one run of stride etp.
		pl.Fold = SpanOf(ts*etp, fold, gpn)
	default:
		// EP further out than TP's neighbours: the group's span is the EP ranks'; its size,
		// the fold's.
		pl.Fold = SpanOf(es*ep/fold, fold, gpn)
	}
	if etp > 1 && etp < t {
		pl.ETP = SpanOf(ts, etp, gpn)
	} else {
		pl.ETP = SpanOf(1, 1, gpn)
	}
	pl.PP = SpanOf(ps, pp, gpn)
	return pl
}

// composeAxes composes two axes' groups, the one of smaller stride inside.
func composeAxes(a Span, as int, b Span, bs int) Span {
	if as <= bs {
		return ComposeSpans(a, b)
	}
	return ComposeSpans(b, a)
}

// TPInnermost says whether TP is the order's first axis (its groups on neighbouring GPUs).
func (o RankOrder) TPInnermost() bool { return o.perm().ax[0] == axisTP }

// CPNextToTP says whether CP is the order's second axis, right outside a TP innermost.
func (o RankOrder) CPNextToTP() bool { p := o.perm().ax; return p[0] == axisTP && p[1] == axisCP }

// EPOutside says whether the order puts EP outside the expert-DP replicas (dp-ep).
func (o RankOrder) EPOutside() bool { return o.perm().epOut }

// SamePlacement says whether two placements put every group on the same nodes the same way
// (the strides aside: they number the GPUs, not the links).
func SamePlacement(x, y Placement) bool {
	x.TPStride, x.CPStride, x.PPStride = 0, 0, 0
	y.TPStride, y.CPStride, y.PPStride = 0, 0, 0
	return x == y
}

// DistinctRankOrders lists the rank orders that place the layout's groups differently on nodes
// of gpn GPUs, the first of each alike set in table order (so the default comes first; axes
// of size 1 do not count). Orders that would let a group straddle nodes unevenly (StraddleRule) are left out.
func DistinctRankOrders(a Arch, l Layout, gpn int) []RankOrder {
	var out []RankOrder
	var seen []Placement
	for o := range RankOrder(NumRankOrders) {
		l.RankOrder = o
		if f, _ := l.StraddleRule(gpn, l.GPUs()); f != "" {
			continue
		}
		pl := l.Place(a, gpn)
		dup := false
		for _, q := range seen {
			if SamePlacement(q, pl) {
				dup = true
				break
			}
		}
		if !dup {
			seen = append(seen, pl)
			out = append(out, o)
		}
	}
	return out
}

// SameRankPlacement says whether orders o and q place the layout's groups alike on nodes of
// gpn GPUs.
func SameRankPlacement(a Arch, l Layout, o, q RankOrder, gpn int) bool {
	l.RankOrder = o
	x := l.Place(a, gpn)
	l.RankOrder = q
	return SamePlacement(x, l.Place(a, gpn))
}

// StraddleRule checks that under the layout's rank order no group straddles two nodes
// unevenly on nodes of gpn GPUs when the job has gpus GPUs over several nodes: the block of
// every axis' ranks with those inside it must divide the node size or be a multiple of it.
// It returns the field at fault and the rule, or "" when every group tiles the nodes.
func (l Layout) StraddleRule(gpn, gpus int) (field, rule string) {
	if gpn <= 0 || gpus <= gpn {
		return "", ""
	}
	t, c, d, p := max(l.TP, 1), l.CPSize(), max(l.DP, 1), max(l.PP, 1)
	size := [4]int{t, c, d, p}
	ax := l.RankOrder.perm().ax
	block := 1
	for k, a := range ax {
		block *= size[a]
		if size[a] <= 1 && a != axisTP {
			continue
		}
		later := false
		for _, b := range ax[k+1:] {
			later = later || size[b] > 1
		}
		if a != axisTP && a != axisCP && !later {
			continue
		}
		if gpn%block == 0 || block%gpn == 0 {
			continue
		}
		// The block's name: its axes of size > 1, and TP.
		var label []string
		for _, b := range ax[:k+1] {
			if size[b] > 1 || b == axisTP {
				label = append(label, axisNames[b])
			}
		}
		what := "so no " + strings.ToUpper(axisNames[a]) + " group straddles nodes unevenly"
		switch {
		case len(label) == 1:
			return axisNames[a], fmt.Sprintf("must divide gpus-per-node (%d) or be a multiple of it, so no %s group straddles two nodes", gpn, strings.ToUpper(axisNames[a]))
		case k+1 < 4 && ax[k+1] == axisPP && a == axisDP:
			what = "so no pipeline stage straddles two nodes"
		}
		order := ""
		if l.RankOrder != RankOrderTPDPPP {
			order = " in rank order " + l.RankOrder.String()
		}
		return axisNames[a], fmt.Sprintf("%s (%d)%s must divide gpus-per-node (%d) or be a multiple of it, %s", strings.Join(label, " × "), block, order, gpn, what)
	}
	return "", ""
}

// evenOrder is the first rank order with TP innermost (its groups on neighbouring GPUs) under
// which no group of the layout straddles nodes unevenly, or "" when there is none.
func evenOrder(l Layout, gpn, gpus int) string {
	for o := range RankOrder(NumRankOrders) {
		if !o.TPInnermost() {
			continue
		}
		l.RankOrder = o
		if f, _ := l.StraddleRule(gpn, gpus); f == "" {
			return o.String()
		}
	}
	return ""
}
