package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// The TP-vs-PP strip under the title: what each kind of split costs in the current result, side
// by side, without a key. TP pays its all-reduces (cheap on NVLink, dear on PCIe or across
// nodes); PP pays the bubble (hidden by micro-batches) and small sends between stages. A bar
// scaled to the step shows each share. Two lines on screens of 30 rows or more, one below.

// stripBarW is the width of each share bar.
const stripBarW = 12

// stripPart is one line of the strip: its head ("TP 8 inside each node · nvlink4"), the share of
// the step it costs, the cost in words, and an explanation that goes first when space runs out.
type stripPart struct {
	head    string
	short   string // the one-line form: "TP 8 (nvlink4) all-reduce"
	share   float64
	cost    string
	explain string
	none    bool // no such split: no bar
}

// stripParts builds the TP and PP parts from a result (a zero Report: the heads and explanations
// alone are meant).
func stripParts(s model.Scenario, r costmodel.Report) (tp, pp stripPart) {
	l, c := s.Layout, s.Cluster
	of := "of the step"
	if s.Workload.Mode == model.Infer {
		of = "of the serve time"
	}
	share := r.Share
	if l.TP <= 1 {
		tp = stripPart{head: "TP 1", short: "TP 1", cost: "no tensor split", explain: "each GPU holds whole layers, so no all-reduce", none: true}
	} else {
		where := "inside each node"
		if c.Nodes() <= 1 {
			where = "inside the node"
		}
		if l.TP > c.NodeSize() {
			where = "across nodes"
		}
		tp = stripPart{
			head:    fmt.Sprintf("TP %d %s · %s", l.TP, where, r.Detail.TPLink),
			short:   fmt.Sprintf("TP %d (%s) all-reduce", l.TP, r.Detail.TPLink),
			share:   share(r.Breakdown.TPComm),
			cost:    fmt.Sprintf("all-reduces %s = %s %s", static.Seconds(r.Breakdown.TPComm), static.Percent(share(r.Breakdown.TPComm)), of),
			explain: "every layer's matrices cut in " + fmt.Sprint(l.TP) + ", an all-reduce after each half-layer",
		}
	}
	if l.PP <= 1 {
		pp = stripPart{head: "PP 1", short: "PP 1", cost: "no pipeline", explain: "every GPU runs all the layers, so no bubble and no sends", none: true}
	} else {
		where, link := ppPlacement(s)
		// The bar and the share are the bubble's own (Report.BubbleFraction, as the footer, the
		// Pipeline tab and report print it); the sends are named beside it, not added to it.
		bubble := r.Breakdown.Bubble
		pp = stripPart{
			head:  fmt.Sprintf("PP %d %s · %s", l.PP, where, link),
			short: fmt.Sprintf("PP %d (%s) bubble", l.PP, link),
			share: r.BubbleFraction,
			cost: fmt.Sprintf("bubble %s = %s, sends %s", static.Seconds(bubble), static.Percent(r.BubbleFraction),
				static.Seconds(r.Breakdown.PPComm)),
			explain: fmt.Sprintf("%d layers in %d stages; %s the pipe", s.Arch.Layers, l.PP, fills(s.MicroBatches())),
		}
		if s.Workload.Mode == model.Infer {
			// Serving: the sends have no part of their own (Report.PPSendsInIdle); their time is
			// inside the idle, as report's "pp sends" row says.
			pp.short = fmt.Sprintf("PP %d (%s) idle", l.PP, link)
			pp.cost = fmt.Sprintf("idle %s = %s, sends %s in it", static.Seconds(bubble), static.Percent(r.BubbleFraction),
				static.Seconds(r.PPSendTime()))
			pp.explain = fmt.Sprintf("%d layers in %d stages; up to %d engine batches in flight", s.Arch.Layers, l.PP, l.PP)
		}
	}
	if l.DP > 1 {
		if s.Workload.Mode == model.Infer {
			pp.explain = fmt.Sprintf("DP %d replicas", l.DP) + " · " + pp.explain
		} else if r.StepTime > 0 {
			pp.explain = fmt.Sprintf("DP %d: gradient sync %s exposed", l.DP, static.Seconds(r.Breakdown.DPComm)) + " · " + pp.explain
		} else { // no result (the strip hidden behind a question): no sync time to name
			pp.explain = fmt.Sprintf("DP %d replicas sync gradients", l.DP) + " · " + pp.explain
		}
	}
	if l.EP > 1 {
		tp.cost += fmt.Sprintf(" · EP %d all-to-alls %s", l.EP, static.Seconds(r.Breakdown.EPComm))
	}
	if l.CPSize() > 1 && s.Workload.Mode == model.Infer {
		// Serving CP: the prompts' K/V exchange and decode's merges, exposed (training's tour
		// and figures name CP on their own).
		tp.cost += fmt.Sprintf(" · CP %d %s %s", l.CPSize(), l.CPComm, static.Seconds(r.Breakdown.CPComm))
	}
	return tp, pp
}

// fills is what fills the pipeline: "1 micro-batch fills", "8 micro-batches fill".
func fills(m int) string {
	if m == 1 {
		return "1 micro-batch fills"
	}
	return fmt.Sprintf("%d micro-batches fill", m)
}

// ppPlacement says where the pipeline's stage boundaries fall and the link they cross. Ranks fill
// TP groups, then DP replicas, then stages: a stage is a block of TP × DP GPUs.
func ppPlacement(s model.Scenario) (where, link string) {
	c, l := s.Cluster, s.Layout
	block, node := l.TP*l.DP, c.NodeSize()
	switch {
	case c.Nodes() <= 1 || block*l.PP <= node:
		return "inside the node", c.Intra.ID
	case block == node && l.PP == c.Nodes():
		return fmt.Sprintf("across %d nodes", c.Nodes()), c.Inter.ID
	case block >= node:
		return "across nodes", c.Inter.ID
	default:
		return "in and across nodes", c.Intra.ID + "/" + c.Inter.ID
	}
}

// stripView renders the strip in h lines (1 or 2) of width w.
func stripView(st theme.Styles, s model.Scenario, r costmodel.Report, stale bool, w, h int) string {
	tp, pp := stripParts(s, r)
	dim := func(x string) string {
		if stale {
			return st.Dim.Render(x)
		}
		return x
	}
	if h <= 1 {
		one := func(p stripPart) string {
			if p.none {
				return p.short + ": " + p.cost
			}
			return fmt.Sprintf("%s %s %s", st.Bold.Render(p.short), bar(st, p.share, 6, stale), static.Percent(p.share))
		}
		return dim(ansi.Truncate(" "+one(tp)+"  │  "+one(pp), w, "…"))
	}
	headW := 0
	for _, p := range []stripPart{tp, pp} {
		if !p.none {
			headW = max(headW, common.Width(p.head))
		}
	}
	line := func(p stripPart) string {
		if p.none {
			return dim(ansi.Truncate(" "+st.Bold.Render(p.head)+" · "+p.cost+st.Dim.Render(": "+p.explain), w, "…"))
		}
		head := p.head + strings.Repeat(" ", headW-common.Width(p.head))
		out := " " + st.Bold.Render(head) + " " + bar(st, p.share, stripBarW, stale) + " " + p.cost
		if p.explain != "" && common.Width(out)+3+common.Width(p.explain) <= w {
			out += st.Dim.Render(" · " + p.explain)
		}
		return dim(ansi.Truncate(out, w, "…"))
	}
	return line(tp) + "\n" + line(pp)
}

// stripHidden is the strip while the tour's question is open: where each split falls and what it
// does, without its cost (the report's numbers show once the question is answered).
func stripHidden(st theme.Styles, s model.Scenario, w, h int) string {
	// No report yet, but where the TP group runs is the scenario's: the link a ring of the group
	// is bound by (costmodel's TP link), so that the head reads whole, without an empty field.
	var r costmodel.Report
	r.Detail.TPLink = tpLinkOf(s)
	tp, pp := stripParts(s, r)
	line := func(p stripPart) string {
		head, what := p.head, p.explain
		if p.none {
			head, what = p.head+" · "+p.cost, p.explain
		}
		if h <= 1 {
			head = p.short
		}
		return st.Bold.Render(head) + st.Dim.Render(" · "+what)
	}
	if h <= 1 {
		return ansi.Truncate(" "+line(tp)+"  │  "+line(pp), w, "…")
	}
	return ansi.Truncate(" "+line(tp), w, "…") + "\n" + ansi.Truncate(" "+line(pp), w, "…")
}

// tpLinkOf is the link the TP group's all-reduces cross, as the cost model finds it
// (Report.Detail.TPLink): the inter-node link when the group spans nodes, the node's own otherwise.
func tpLinkOf(s model.Scenario) string {
	if s.Layout.TP > s.Cluster.NodeSize() {
		return s.Cluster.Inter.ID
	}
	return s.Cluster.Intra.ID
}

// bar is a share from 0 to 1 as w cells: full cells, then empty ones (glyphs, so NO_COLOR reads).
func bar(st theme.Styles, share float64, w int, stale bool) string {
	n := int(share*float64(w) + 0.5)
	if share > 0 && n == 0 {
		n = 1
	}
	n = min(max(n, 0), w)
	full := strings.Repeat("█", n)
	if !stale {
		full = st.Warn.Render(full)
	}
	return full + st.Dim.Render(strings.Repeat("░", w-n))
}
