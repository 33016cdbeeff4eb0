// Package memory is the explorer's Memory tab: one stacked bar per pipeline stage (weights,
// gradients, optimizer state, activations, KV cache, reserve) against the GPU's capacity, with
// what spills over the line drawn as such.
package memory

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// Parts of a bar, in drawing order; each has a fill glyph so that bars read without colour.
var (
	partGlyphs = [6]rune{'W', 'G', 'O', 'A', 'K', 'R'}
	partNames  = [6]string{"weights", "gradients", "optimizer", "activations", "KV cache", "reserved"}
	shortNames = [6]string{"weights", "grads", "optim", "act", "KV", "reserve"}
)

// Glyphs of the bars' surroundings.
const (
	glyphFree     = '·' // free memory up to the capacity line
	glyphCapacity = '│'
)

// parts lists a GPU's memory in drawing order, bytes.
func parts(m costmodel.Memory) [6]float64 {
	return [6]float64{m.Weights, m.Gradients, m.Optimizer, m.Activations, m.KVCache, m.Reserved}
}

// A MoE model's weights are drawn split by what they are (costmodel.ParamParts): attention,
// dense MLPs, shared experts and the router, routed experts, embedding and output; each in
// the weights' colour with its own glyph, in the weights' place. The kinds of a bar are these
// five, then the six parts.
const nWeightParts = 5

var (
	weightGlyphs = [nWeightParts]rune{'Q', 'M', 'S', 'E', 'V'}
	weightNames  = [nWeightParts]string{"attention", "dense MLP", "shared experts", "routed experts", "embedding+output"}
	weightShort  = [nWeightParts]string{"attn", "MLP", "shared", "experts", "emb+out"}
)

const nKinds = nWeightParts + 6

// kindGlyph, kindStyle: a kind's glyph and its colour's index in MemParts.
func kindGlyph(k int) rune {
	if k < nWeightParts {
		return weightGlyphs[k]
	}
	return partGlyphs[k-nWeightParts]
}

func kindStyle(k int) int { return max(k-nWeightParts, 0) }

// kindName is a kind's name in the legend (long or short): the KV cache is MLA's "latent KV".
func kindName(k int, short, mla bool) string {
	switch {
	case k < nWeightParts && short:
		return weightShort[k]
	case k < nWeightParts:
		return weightNames[k]
	case k == nWeightParts+4 && mla:
		return "latent KV"
	case short:
		return shortNames[k-nWeightParts]
	}
	return partNames[k-nWeightParts]
}

// amounts is a stage's memory by kind, bytes: its weights split by part where the stage holds
// experts (each part's parameters times the bytes of its format: the routed experts may be
// stored in another format than the rest, model.Scenario.ServeWeights, in serving), else whole.
func amounts(s model.Scenario, mem costmodel.Memory, d *costmodel.StageDetail) [nKinds]float64 {
	var out [nKinds]float64
	for i, v := range parts(mem) {
		out[nWeightParts+i] = v
	}
	if d == nil || d.Parts.Shared+d.Parts.Routed <= 0 || mem.Weights <= 0 {
		return out
	}
	p := d.Parts
	// Training holds every part alike; serving stores the layers and the experts in their
	// formats and the embedding and output in the compute precision.
	layers, experts, ends := 1.0, 1.0, 1.0
	if s.Workload.Mode == model.Infer {
		l, e := s.ServeWeights()
		layers, experts, ends = s.Workload.FormatBytes(l), s.Workload.FormatBytes(e), s.Workload.Precision.Bytes()
	}
	w := [nWeightParts]float64{p.Attention * layers, p.DenseMLP * layers, p.Shared * layers, p.Routed * experts, p.Ends * ends}
	raw := 0.0
	for _, v := range w {
		raw += v
	}
	if !(raw > 0) {
		return out
	}
	// Scaled to the weights the engine counts (ZeRO, offload and training's master copy
	// included): the split is in proportion, the total the engine's.
	for i, v := range w {
		out[i] = v / raw * mem.Weights
	}
	out[nWeightParts] = 0
	return out
}

// Model is the Memory pane.
type Model struct {
	styles  theme.Styles
	w, h    int
	data    common.Data
	hasData bool
}

var _ common.Pane = (*Model)(nil)

// New returns an empty Memory pane.
func New(st theme.Styles) *Model { return &Model{styles: st} }

// Title is the tab's label.
func (m *Model) Title() string { return "Memory" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetData hands the pane a new evaluation.
func (m *Model) SetData(d common.Data) { m.data, m.hasData = d, true }

// Update does nothing: the pane has no keys and no animation.
func (m *Model) Update(tea.Msg) tea.Cmd { return nil }

// Animating is always false.
func (m *Model) Animating() bool { return false }

// Keys lists no bindings of its own.
func (m *Model) Keys() []key.Binding { return nil }

// stage is one bar: a pipeline rank (or, without stage detail, the fullest GPU).
type stage struct {
	label  string
	mem    costmodel.Memory
	detail *costmodel.StageDetail
	kinds  [nKinds]float64 // mem by kind (amounts)
}

func (m *Model) stages() []stage {
	ds := m.data.Report.Detail.Stages
	if len(ds) == 0 {
		if m.data.Report.Memory.Capacity > 0 || m.data.Report.Memory.Total > 0 {
			return []stage{{label: "GPU", mem: m.data.Report.Memory, kinds: amounts(m.data.Scenario, m.data.Report.Memory, nil)}}
		}
		return nil
	}
	out := make([]stage, len(ds))
	digits := len(strconv.Itoa(len(ds) - 1))
	for i := range ds {
		out[i] = stage{label: fmt.Sprintf("stage %*d", digits, i), mem: ds[i].Memory, detail: &ds[i],
			kinds: amounts(m.data.Scenario, ds[i].Memory, &ds[i])}
	}
	return out
}

// gib formats bytes as GiB with one decimal.
func gib(b float64) string { return strconv.FormatFloat(b/model.GiB, 'f', 1, 64) + " GiB" }

// View renders the pane in exactly its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.styles
	if m.data.Stale {
		d := st.Dim
		st.Bold, st.Over, st.Axis, st.Label, st.Value, st.Warn = d, d, d, d, d, d
		for i := range st.MemParts {
			st.MemParts[i] = d
		}
	}
	ss := m.stages()
	if !m.hasData || len(ss) == 0 {
		return common.Fit([]string{st.Dim.Render("no evaluation yet")}, m.w, m.h)
	}
	full := 0
	capacity := 0.0
	for i, s := range ss {
		if s.mem.Total > ss[full].mem.Total {
			full = i
		}
		capacity = max(capacity, s.mem.Capacity)
	}
	lines := []string{m.header(st, ss, full, capacity)}
	avail := m.h - 1
	if !m.data.Report.Memory.Fits && m.h >= 8 {
		// What would make it fit, under the header.
		// Wrapped on two lines where the height allows (an offload's host RAM is part of it).
		fit := strings.Split(ansi.Wordwrap(static.ToFitText(m.data.ToFit), max(m.w, 1), ""), "\n")
		if len(fit) > 1 && m.h >= 12 {
			fit = []string{fit[0], strings.Join(fit[1:], " ")}
		} else {
			fit = []string{strings.Join(fit, " ")}
		}
		for _, l := range fit {
			lines = append(lines, ansi.Truncate(st.Warn.Render(l), m.w, "…"))
			avail--
		}
	}
	if rm := m.data.Report.Memory; rm.Host > 0 && m.h >= 10 {
		// What offloading keeps on the host, and of how much.
		style := st.Dim
		if rm.Host > rm.HostCapacity {
			style = st.Over
		}
		lines = append(lines, ansi.Truncate(style.Render(fmt.Sprintf("host: %s offloaded of %s (the node's host memory over its GPUs)",
			gib(rm.Host), gib(rm.HostCapacity))), m.w, "…"))
		avail--
	}
	if kl := knobLines(st, m.data.Knobs, m.data.Report.StepTime, m.w); len(kl) > 0 && avail-len(kl) >= 8 {
		// What each memory knob would save on the fullest GPU, and what it would cost.
		lines = append(lines, kl...)
		avail -= len(kl)
	}
	g := m.geometry(ss, capacity)
	g.paints(st)

	// The legend takes as many lines as it needs to keep every entry whole.
	legend := m.legend(st, ss, capacity)
	barRows, ruler, showLegend := avail, false, false
	switch {
	case avail >= 3+len(legend):
		barRows, ruler, showLegend = avail-1-len(legend), true, true
	case avail >= 1+len(legend):
		barRows, showLegend = avail-len(legend), true
	}
	if ruler {
		lines = append(lines, g.ruler(st, capacity))
	}
	if t := thickness(len(ss), barRows); t > 0 && ss[0].detail != nil {
		for i := range ss {
			if i > 0 {
				lines = append(lines, "")
			}
			bar := g.bar(ss[i], true)
			lines = append(lines, bar)
			for range t - 1 {
				lines = append(lines, g.bar(ss[i], false))
			}
			lines = append(lines, g.detailLine(st, ss[i], m.w))
		}
	} else {
		rows := foldRows(len(ss), barRows, full)
		for i, r := range rows {
			if r < 0 {
				lines = append(lines, st.Dim.Render(fmt.Sprintf("%s⋮ %d stages ⋮", strings.Repeat(" ", g.labelW+1), foldedCount(rows, i, len(ss)))))
				continue
			}
			lines = append(lines, g.bar(ss[r], true))
		}
	}
	if pl := m.partLines(st, ss[full]); len(pl) > 0 && (!showLegend || len(lines)+1+len(pl) <= m.h-len(legend)) {
		lines = append(lines, "")
		lines = append(lines, pl...)
	}
	if showLegend {
		for len(lines) < m.h-len(legend) {
			lines = append(lines, "")
		}
		lines = append(lines, legend...)
	}
	return common.Fit(lines, m.w, m.h)
}

// partLines says, where the fullest stage's weights are split by part, what each part is, in
// words: its share, the routed experts' format and how many a GPU holds, and MLA's latent KV.
func (m *Model) partLines(st theme.Styles, s stage) []string {
	if s.kinds[nWeightParts] > 0 || s.mem.Weights <= 0 || m.w < 40 {
		return nil
	}
	sc := m.data.Scenario
	a, l := sc.Arch, sc.Layout
	layers, experts := sc.Workload.Precision.String(), sc.Workload.Precision.String()
	if sc.Workload.Mode == model.Infer {
		lf, ef := sc.ServeWeights()
		layers, experts = cmp.Or(lf, layers), cmp.Or(ef, experts)
	}
	order := []int{3, 0, 2, 4, 1} // routed experts first: the bulk
	var items []string
	for _, k := range order {
		if v := s.kinds[k]; v > 0 {
			item := fmt.Sprintf("%c %s %s", weightGlyphs[k], weightNames[k], strconv.FormatFloat(v/model.GiB, 'f', 1, 64))
			if k == 3 {
				per := a.ExpertCount() / l.EPSize()
				item += fmt.Sprintf(" (%s; %d of %d experts a layer on this GPU", experts, per, a.ExpertCount())
				if l.TP > 1 {
					item += fmt.Sprintf(", each cut in %d by TP", l.TP)
				}
				item += ")"
			}
			items = append(items, item)
		}
	}
	wrap := func(text string) []string { return strings.Split(ansi.Wordwrap(text, m.w, ""), "\n") }
	out := wrap(fmt.Sprintf("weights %s, layers in %s: %s", gib(s.mem.Weights), layers, strings.Join(items, " · ")))
	if kv := s.mem.KVCache; kv > 0 && a.MLA.On() {
		out = append(out, wrap(fmt.Sprintf("K latent KV %s: %d + %d = %d elements a token and layer, whole on every TP rank",
			gib(kv), a.MLA.KVLoRARank, a.MLA.QKRopeDim, a.MLA.KVLoRARank+a.MLA.QKRopeDim))...)
	}
	for i := range out {
		out[i] = st.Dim.Render(out[i])
	}
	return out
}

// header names the fullest stage and how full it is.
func (m *Model) header(st theme.Styles, ss []stage, full int, capacity float64) string {
	f := ss[full].mem
	who := "fullest: " + strings.Join(strings.Fields(ss[full].label), " ")
	if ss[full].detail == nil {
		who = "fullest GPU"
	}
	pct := "n/a"
	if capacity > 0 {
		pct = strconv.FormatFloat(100*f.Total/capacity, 'f', 0, 64) + "%"
	}
	head := fmt.Sprintf("%s, %s of %s (%s)", who, strings.TrimSuffix(gib(f.Total), " GiB"), gib(capacity), pct)
	tail := gib(capacity-f.Total) + " free"
	if f.Total > capacity {
		tail = "over by " + gib(f.Total-capacity)
	}
	if lipgloss.Width(head+" · "+tail) > m.w {
		head = strings.TrimPrefix(head, "fullest: ")
	}
	out := st.Bold.Render(head) + " · "
	if f.Total > capacity {
		out += st.Over.Render(tail)
	} else {
		out += st.OK.Render(tail)
	}
	if m.data.Stale {
		out += st.Warn.Render(" · stale")
	}
	return out
}

// geometry is the horizontal layout of the bars.
type geometry struct {
	labelW, barW, capCol, overW, totalW int
	scale                               float64
	labels                              bool
	// Styles of the bar, as escape sequences around the text.
	free, over, capLine, label, value theme.Paint
	part                              [6]theme.Paint
}

// paints takes the bar's styles apart once per view.
func (g *geometry) paints(st theme.Styles) {
	g.free, g.over, g.capLine, g.label, g.value = theme.NewPaint(st.Dim), theme.NewPaint(st.Over), theme.NewPaint(st.Bold), theme.NewPaint(st.Label), theme.NewPaint(st.Value)
	for i := range g.part {
		g.part[i] = theme.NewPaint(st.MemParts[i])
	}
}

// geometry fits label, bar, capacity line, "+X GiB over" and total into the pane's width,
// dropping the extras (over text, totals, long labels) when the bar would get too thin.
func (m *Model) geometry(ss []stage, capacity float64) geometry {
	g := geometry{labels: true}
	maxTotal := 0.0
	for _, s := range ss {
		g.labelW = max(g.labelW, lipgloss.Width(s.label))
		g.totalW = max(g.totalW, 1+lipgloss.Width(gib(s.mem.Total)))
		maxTotal = max(maxTotal, s.mem.Total)
		if s.mem.Total > capacity {
			g.overW = max(g.overW, 1+lipgloss.Width(overText(s.mem, capacity)))
		}
	}
	g.scale = max(capacity, maxTotal)
	const minBar = 12
	bar := func() int { return m.w - g.labelW - 1 - 1 - g.overW - g.totalW }
	if bar() < minBar && g.overW > 0 {
		g.overW = 0
	}
	if bar() < minBar {
		g.totalW = 0
	}
	if bar() < minBar {
		g.labelW, g.labels = 0, false
	}
	g.barW = max(bar(), 1)
	if capacity >= g.scale {
		g.capCol = g.barW
	} else {
		g.capCol = min(cellsFor(capacity, g.scale, g.barW), g.barW-1)
	}
	return g
}

func overText(mem costmodel.Memory, capacity float64) string {
	return "+" + gib(mem.Total-capacity) + " over"
}

// ruler marks the capacity line above the bars.
func (g geometry) ruler(st theme.Styles, capacity float64) string {
	pre := ""
	if g.labels {
		pre = strings.Repeat(" ", g.labelW+1)
	}
	return pre + st.Axis.Render(rulerText(g.barW+1, g.capCol, "capacity "+gib(capacity), gib(capacity)))
}

// rulerText places the first of texts that fits in a line of width cells so that a corner sits
// at column col, pointing down at the capacity line: "text ┐" ending there, or "┌ text" starting
// there when the text does not fit on its left. "0" marks where the bars start when there is
// room. With no text fitting, the corner stands alone.
func rulerText(width, col int, texts ...string) string {
	if col < 0 || col >= width {
		return ""
	}
	line := []rune(strings.Repeat(" ", width))
	line[col] = '┐'
	for _, text := range texts {
		t := []rune(text)
		if start := col - len(t) - 1; start >= 0 {
			copy(line[start:], t)
			if start >= 3 {
				line[0] = '0'
			}
			break
		}
		if col+2+len(t) <= width {
			line[col] = '┌'
			copy(line[col+2:], t)
			break
		}
	}
	return strings.TrimRight(string(line), " ")
}

// thickness is how many lines each of n bars gets, each followed by a detail line and separated
// by a blank one, in rows lines: up to 2, or 0 when even one line per bar with its detail does
// not fit.
func thickness(n, rows int) int {
	if n <= 0 {
		return 0
	}
	t := (rows-(n-1))/n - 1
	return min(max(t, 0), 2)
}

// bar draws one line of a stage's bar: its parts up to the capacity line, the line, what spills
// over, and, on the first line of the bar, its label, the over text and the total.
func (g *geometry) bar(s stage, first bool) string {
	var b strings.Builder
	if g.labels {
		label := ""
		if first {
			label = s.label
		}
		b.WriteString(g.label.Wrap(pad(label, g.labelW)) + " ")
	}
	n := cellsFor(s.mem.Total, g.scale, g.barW)
	capacity := s.mem.Capacity
	over := s.mem.Total > capacity && capacity > 0
	if over {
		n = min(max(n, g.capCol+1), g.barW)
	} else {
		n = min(n, g.capCol)
	}
	widths := apportion(s.kinds[:], n)
	// One rune per bar cell, with the part index (-1: free, -2: beyond capacity and empty).
	cells := make([]int, g.barW)
	c := 0
	for p, w := range widths {
		for range w {
			cells[c] = p
			c++
		}
	}
	for ; c < g.barW; c++ {
		cells[c] = -1
		if c >= g.capCol {
			cells[c] = -2
		}
	}
	run := func(from, to int, over bool) {
		for i := from; i < to; {
			j := i
			for j < to && cells[j] == cells[i] {
				j++
			}
			switch p := cells[i]; {
			case p == -1:
				b.WriteString(g.free.Wrap(strings.Repeat(string(glyphFree), j-i)))
			case p == -2:
				b.WriteString(strings.Repeat(" ", j-i))
			case over:
				b.WriteString(g.over.Wrap(strings.Repeat(string(kindGlyph(p)), j-i)))
			default:
				b.WriteString(g.part[kindStyle(p)].Wrap(strings.Repeat(string(kindGlyph(p)), j-i)))
			}
			i = j
		}
	}
	run(0, min(g.capCol, g.barW), false)
	b.WriteString(g.capLine.Wrap(string(glyphCapacity)))
	run(min(g.capCol, g.barW), g.barW, true)
	if !first {
		return strings.TrimRight(b.String(), " ")
	}
	if g.overW > 0 {
		t := ""
		if over {
			t = overText(s.mem, capacity)
		}
		b.WriteString(" " + g.over.Wrap(pad(t, g.overW-1)))
	}
	if g.totalW > 0 {
		t := gib(s.mem.Total)
		b.WriteString(g.value.Wrap(strings.Repeat(" ", max(g.totalW-lipgloss.Width(t), 0)) + t))
	}
	return strings.TrimRight(b.String(), " ")
}

// detailLine says what a stage holds: layers, embedding or logits, in-flight micro-batches, and
// its parts in GiB keyed by their glyphs, in at most width cells: the prose goes first (in-flight
// count, then embedding and logits, then the layers), so that the parts stay whole.
func (g geometry) detailLine(st theme.Styles, s stage, width int) string {
	d := s.detail
	layers := fmt.Sprintf("%d layers", d.Layers)
	if d.Layers == 1 {
		layers = "1 layer"
	}
	withEnds := layers
	if d.Embedding {
		withEnds += " + embedding"
	}
	if d.Logits {
		withEnds += " + logits"
	}
	inFlight := ""
	if d.InFlight > 0 {
		inFlight = fmt.Sprintf("%d in flight", d.InFlight)
	}
	var ps []string
	for i, v := range s.kinds {
		if v > 0 {
			ps = append(ps, string(kindGlyph(i))+" "+strconv.FormatFloat(v/model.GiB, 'f', 1, 64))
		}
	}
	key := ""
	if len(ps) > 0 {
		key = strings.Join(ps, "  ") + " GiB"
	}
	pre := ""
	if g.labels {
		pre = strings.Repeat(" ", g.labelW+1)
	}
	join := func(fields ...string) string {
		var kept []string
		for _, f := range fields {
			if f != "" {
				kept = append(kept, f)
			}
		}
		return strings.Join(kept, " · ")
	}
	forms := []string{
		join(withEnds, inFlight, key), join(withEnds, key), join(layers, key), key,
		strings.Join(ps, " ") + " GiB",
	}
	text := forms[len(forms)-1]
	for _, f := range forms {
		if lipgloss.Width(pre+f) <= width {
			return pre + st.Dim.Render(f)
		}
	}
	// A bar split in many parts (a MoE model's weights): each glyph against its figure, then
	// from the pane's edge.
	var cs []string
	for _, p := range ps {
		cs = append(cs, strings.Replace(p, " ", "", 1))
	}
	compact := strings.Join(cs, " ") + " GiB"
	for _, f := range []string{pre + text, pre + compact, text} {
		if lipgloss.Width(f) <= width {
			return st.Dim.Render(f)
		}
	}
	return st.Dim.Render(compact)
}

// legend keys the glyphs of the parts present and the capacity line, every entry whole: on one
// line with the parts' full names, or their short ones, or else the full names over as many
// lines as the width needs.
func (m *Model) legend(st theme.Styles, ss []stage, capacity float64) []string {
	var present [nKinds]bool
	for _, s := range ss {
		for i, v := range s.kinds {
			present[i] = present[i] || v > 0
		}
	}
	mla := m.data.Scenario.Arch.MLA.On()
	items := func(short bool, capText string) []string {
		var out []string
		for i := range present {
			if present[i] {
				out = append(out, st.MemParts[kindStyle(i)].Render(string(kindGlyph(i)))+" "+st.Label.Render(kindName(i, short, mla)))
			}
		}
		return append(out, st.Bold.Render(string(glyphCapacity))+" "+st.Label.Render(capText))
	}
	long := items(false, "capacity "+gib(capacity))
	if l := strings.Join(long, "  "); lipgloss.Width(l) <= m.w {
		return []string{l}
	}
	if l := strings.Join(items(true, gib(capacity)), " "); lipgloss.Width(l) <= m.w {
		return []string{l}
	}
	return wrapItems(long, "  ", m.w)
}

// wrapItems lays items out in lines of at most w cells, sep between two on a line; an item
// wider than w gets a line of its own (and is cut there by the frame).
func wrapItems(items []string, sep string, w int) []string {
	var out []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case lipgloss.Width(cur+sep+it) <= w:
			cur += sep + it
		default:
			out = append(out, cur)
			cur = it
		}
	}
	return append(out, cur)
}

// pad right-pads s with spaces to w cells.
func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// maxKnobLines caps the lines of the knob list.
const maxKnobLines = 3

// knobLines lists what each single change of a memory knob does to the fullest GPU: "recompute
// full −9.6 GiB +0.41 s", a saving in the OK style, a cost in the warning style, a change that
// does not fit marked ✗; the changes that fit first (fastest first), then the others (largest
// saving first), those that move less than 0.05 GiB left out; wrapped at width, at most
// maxKnobLines lines.
func knobLines(st theme.Styles, ks []costmodel.KnobSaving, step float64, width int) []string {
	if len(ks) == 0 || width < 30 {
		return nil
	}
	ks = slices.DeleteFunc(slices.Clone(ks), func(k costmodel.KnobSaving) bool { return math.Abs(k.Saved) < 0.05*model.GiB })
	slices.SortStableFunc(ks, func(a, b costmodel.KnobSaving) int {
		switch {
		case a.Fits != b.Fits:
			if a.Fits {
				return -1
			}
			return 1
		case a.Fits:
			return cmp.Compare(a.StepTime, b.StepTime)
		}
		return cmp.Compare(b.Saved, a.Saved)
	})
	var items []string
	for _, k := range ks {
		mem := ""
		switch {
		case k.Saved >= 0.05*model.GiB:
			mem = st.OK.Render("−" + gib(k.Saved))
		case k.Saved <= -0.05*model.GiB:
			mem = st.Warn.Render("+" + gib(-k.Saved))
		}
		item := k.What + " " + mem
		if d := k.StepTime - step; d > 0.005*step {
			item += " " + st.Dim.Render("+"+static.Seconds(d))
		} else if d < -0.005*step {
			item += " " + st.Dim.Render("−"+static.Seconds(-d))
		}
		if !k.Fits {
			item += st.Over.Render(" ✗")
		}
		items = append(items, item)
	}
	if len(items) == 0 {
		return nil
	}
	head := st.Label.Render("one knob changed, fullest GPU: ")
	var lines []string
	cur := head
	for _, it := range items {
		sep := " · "
		if cur == head {
			sep = ""
		}
		if lipgloss.Width(cur+sep+it) > width && cur != head {
			lines = append(lines, cur)
			if len(lines) == maxKnobLines {
				return lines
			}
			cur, sep = "  ", ""
		}
		cur += sep + it
	}
	return append(lines, ansi.Truncate(cur, width, "…"))
}
