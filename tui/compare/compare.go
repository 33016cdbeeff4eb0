// Package compare is the explorer's Compare tab: for the same GPUs and workload, the fastest
// layout with TP alone, with PP alone, the fastest of all and, when that is not a hybrid, the
// fastest hybrid, side by side (latency, throughput, memory, communication, bubble, fit) with the
// best value of each row among the layouts that fit starred, and a chart of tokens per second
// against the number of micro-batches that shows where pipeline parallelism overtakes tensor
// parallelism.
package compare

import (
	"fmt"
	"math"
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

// Glyphs of the Compare tab; each distinction also reads without colour.
const (
	GlyphWinner = '★'
	GlyphTP     = 'T' // TP-only points of the chart
	GlyphPP     = 'P' // PP-only points
	GlyphBoth   = '*' // both series on one cell
	trailTP     = '·'
	trailPP     = '∘'
	glyphCross  = '┊'
)

// Model is the Compare pane. The root hands it each evaluation with SetData and the contenders,
// computed by Build in a tea.Cmd, with SetCompare.
type Model struct {
	styles   theme.Styles
	w, h     int
	data     common.Data
	hasData  bool
	cmp      common.Compare
	computed bool // a Compare has arrived
	pending  bool // the Compare shown is outdated; a new one is being computed
	// The sequence sweep's page (seqview.go): on (L), the sweep, whether one has arrived and
	// whether it is outdated.
	seqOn, seqHave, seqPending bool
	seq                        common.SeqSweep
}

var _ common.Pane = (*Model)(nil)

// New returns an empty Compare pane; it shows "computing…" until SetCompare.
func New(st theme.Styles) *Model { return &Model{styles: st} }

// Title is the tab's label.
func (m *Model) Title() string { return "Compare" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetData hands the pane the current evaluation (its scenario names the GPUs and the mode).
func (m *Model) SetData(d common.Data) { m.data, m.hasData = d, true }

// SetCompare hands the pane the contenders and the crossover sweep that Build computed.
func (m *Model) SetCompare(c common.Compare) { m.cmp, m.computed, m.pending = c, true, false }

// Invalidate marks the comparison on screen outdated until the next SetCompare: it stays, dimmed
// and headed "computing…", so the tab does not flash empty on every change.
func (m *Model) Invalidate() { m.pending = true }

// TakeBetterMsg asks the root to make the search's best layout (common.Compare.Better) the
// scenario's, through the explorer's edit path (key b).
type TakeBetterMsg struct{ Layout model.Layout }

// takeKey takes the search's best when it is ahead of the contenders'.
var takeKey = key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "search's best"))

// canTake says whether there is a search's best to take: computed for the scenario shown, which
// is the panel's (not an outdated or stale one).
func (m *Model) canTake() bool {
	return m.computed && !m.pending && !m.data.Stale && m.cmp.Better.Feasible
}

// Update takes b, the search's best, when there is one: the root applies it (TakeBetterMsg).
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.seqUpdate(msg); ok {
		return cmd
	}
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, takeKey) && m.canTake() && !m.SeqView() {
		l := m.cmp.Better.Layout
		return func() tea.Msg { return TakeBetterMsg{Layout: l} }
	}
	return nil
}

// Animating is always false.
func (m *Model) Animating() bool { return false }

// Keys lists L (the sequence sweep's page, training) and b while there is a search's best to
// take.
func (m *Model) Keys() []key.Binding {
	out := m.seqKeys() // first: the footer shows one pane key, and the contenders' line says b
	if m.canTake() && !m.SeqView() {
		out = append(out, takeKey)
	}
	return out
}

// View renders the pane in exactly its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.styles
	if m.SeqView() {
		return m.seqView(st)
	}
	if m.data.Stale || m.pending {
		st = dimmed(st)
	}
	lines := []string{m.title(st)}
	switch {
	case !m.computed:
		lines = append(lines, "", st.Dim.Render("computing…"))
		return common.Fit(lines, m.w, m.h)
	case m.cmp.Err != nil:
		lines = append(lines, "", st.Error.Render("compare failed: "+m.cmp.Err.Error()))
		return common.Fit(lines, m.w, m.h)
	}
	if m.tableTop() > 1 {
		lines = append(lines, m.betterLine(st))
	}
	lines = append(lines, m.table(st)...)
	if len(m.cmp.Rows) > 0 {
		lines = append(lines, m.starRule(st))
	}
	notes := m.notes(st)
	left := m.h - len(lines) - 1
	need := chartMinLines // the sweep keeps its chart…
	if !plottable(m.cmp.Cross) {
		need = 1 // …or its one sentence
	}
	if len(notes) > 0 && left-len(notes)-1 >= need {
		lines = append(lines, "")
		lines = append(lines, notes...)
		left -= len(notes) + 1
	}
	if left > 0 {
		lines = append(lines, "")
		lines = append(lines, m.sweep(st, left)...)
	}
	return common.Fit(lines, m.w, m.h)
}

// notes say in full why each contender that is not feasible fails.
func (m *Model) notes(st theme.Styles) []string {
	var out []string
	for _, r := range m.cmp.Rows {
		if !r.Feasible && r.Reason != "" {
			out = append(out, st.Dim.Render("✗ "+r.Name+": "+r.Reason))
		}
	}
	return out
}

// dimmed turns every style the pane uses into Dim: a stale result reads as such.
func dimmed(st theme.Styles) theme.Styles {
	d := st.Dim
	st.Title, st.Bold, st.Error, st.Warn, st.OK, st.Label, st.Value, st.Axis, st.Winner = d, d, d, d, d, d, d, d, d
	st.Subtitle = d
	st.Series = [2]lipgloss.Style{d, d}
	return st
}

// title names what is compared and the state of the result: the longest of its forms that fits.
func (m *Model) title(st theme.Styles) string {
	state := ""
	switch {
	case m.pending && m.computed:
		state = " · computing…"
	case m.data.Stale:
		state = " · stale"
	}
	best := "the fastest layout"
	if n := m.cmp.Searched; n > 0 {
		best = fmt.Sprintf("the fastest of %d layouts", n)
	}
	forms := []string{"TP only vs PP only vs " + best, best}
	if m.hasData {
		s := m.data.Scenario
		mode := "training"
		if s.Workload.Mode == model.Infer {
			mode = "inference"
		}
		forms = append([]string{forms[0] + fmt.Sprintf(" · %s on %d× %s (%s) · %s", s.Arch.Label(), s.Cluster.GPUs, s.Cluster.GPU.ID, s.Cluster.Intra.ID, mode)}, forms...)
	}
	t := forms[len(forms)-1]
	for _, f := range forms {
		if lipgloss.Width(f+state) <= m.w {
			t = f
			break
		}
	}
	return st.Bold.Render(t) + st.Warn.Render(state)
}

// tableTop is the table's first line: under the title, and under the search's best when the
// contenders' best is behind it.
func (m *Model) tableTop() int {
	if m.cmp.Better.Feasible {
		return 2
	}
	return 1
}

// betterLine says, under the title, that the contenders hold the panel's knobs and what search
// finds with them free, with the key that takes it: the longest form that fits.
func (m *Model) betterLine(st theme.Styles) string {
	b := m.cmp.Better
	fig := static.Seconds(b.Report.StepTime)
	if inf := b.Report.Inference; inf != nil {
		fig = "TTFT " + static.Seconds(inf.TTFT) + " · TPOT " + static.Seconds(inf.TPOT)
	}
	l := b.Layout
	split := fmt.Sprintf("%d×%d×%d", l.TP, l.PP, l.DP) + cpSuffix(l)
	key := ""
	if m.canTake() {
		key = " · b takes it"
	}
	holds := "with every knob free"
	if len(m.cmp.Held) > 0 {
		holds = "holding the panel's " + strings.Join(m.cmp.Held, ", ")
	}
	forms := []string{
		holds + "; search's best: " + fig + " (" + common.SplitName(l) + ")" + key,
		holds + "; search's best: " + fig + " (" + split + ")" + key,
		"the panel's knobs held; search's best: " + fig + key,
		"knobs held; search's best: " + fig + key,
		"search's best: " + fig + key,
	}
	if len(m.cmp.Held) == 0 {
		forms = append(forms[:2], forms[4])
	}
	for _, f := range forms {
		if lipgloss.Width(f) <= m.w {
			return st.Warn.Render(f)
		}
	}
	return st.Warn.Render(truncate(forms[len(forms)-1], m.w))
}

// starRule is the line under the table that says what ★ marks: the longest form that fits.
func (m *Model) starRule(st theme.Styles) string {
	fits := false
	for _, r := range m.cmp.Rows {
		fits = fits || r.Feasible
	}
	if !fits {
		return st.Dim.Render("no " + string(GlyphWinner) + ": none of these layouts fits")
	}
	var most, least []string
	for _, mt := range m.metrics() {
		if mt.lower {
			least = append(least, mt.label)
		} else {
			most = append(most, mt.label)
		}
	}
	w := string(GlyphWinner)
	forms := []string{
		w + " best of those that fit: most " + strings.Join(most, ", ") + "; least " + strings.Join(least, ", "),
		w + " each row's best of the layouts that fit",
		w + " best of those that fit",
	}
	for _, f := range forms {
		if lipgloss.Width(f) <= m.w {
			return st.Dim.Render(f)
		}
	}
	return st.Dim.Render(forms[len(forms)-1])
}

// infer reports whether the contenders serve requests (TTFT/TPOT) rather than train.
func (m *Model) infer() bool {
	for _, r := range m.cmp.Rows {
		if r.Report.Inference != nil {
			return true
		}
	}
	return m.hasData && m.data.Scenario.Workload.Mode == model.Infer
}

// gpus is the GPUs of the scenario compared.
func (m *Model) gpus() int { return m.data.Scenario.Cluster.GPUs }

// shownRows are the table's columns: every contender, but for a MoE model's five (its EP
// column beside the hybrid) in a pane too narrow for five columns and the row labels, where the
// best hybrid, the least of them, gives way.
func (m *Model) shownRows() []common.CompareRow {
	rows := m.cmp.Rows
	const labelW, minCol = len("throughput"), 8
	if len(rows) < 5 || m.w >= labelW+len(rows)*(minCol+1) {
		return rows
	}
	out := make([]common.CompareRow, 0, len(rows))
	for _, r := range rows {
		if r.Kind != common.RowHybrid {
			out = append(out, r)
		}
	}
	return out
}

// maxCol caps a table column: wider cells use their short form or are cut.
const maxCol = 28

// cell is one table entry; short replaces long when the column is narrow.
type cell struct {
	long, short string
	win, bad    bool
}

func (c cell) text(w int) string {
	s := c.long
	if lipgloss.Width(s) > w && c.short != "" {
		s = c.short
	}
	return s
}

// evaluated reports whether the row has a report (it may not fit; it may not be valid).
func evaluated(r common.CompareRow) bool { return r.Report.Layout.TP > 0 }

// metric is one numeric row of the table.
type metric struct {
	label string
	lower bool
	value func(costmodel.Report) float64
	fmt   func(costmodel.Report) cell
	// shown is the figure as the cell shows it, for ties (winners); nil: the cell's long text.
	shown func(costmodel.Report) string
}

func (m *Model) metrics() []metric {
	secs := func(f func(costmodel.Report) float64) func(costmodel.Report) cell {
		return func(r costmodel.Report) cell { return cell{long: static.Seconds(f(r))} }
	}
	pct := func(f func(costmodel.Report) float64) func(costmodel.Report) cell {
		return func(r costmodel.Report) cell { return cell{long: static.Percent(f(r))} }
	}
	var out []metric
	if m.infer() {
		ttft := func(r costmodel.Report) float64 { return infOf(r).TTFT }
		tpot := func(r costmodel.Report) float64 { return infOf(r).TPOT }
		out = append(out, metric{"TTFT", true, ttft, secs(ttft), nil}, metric{"TPOT", true, tpot, secs(tpot), nil})
	} else {
		step := func(r costmodel.Report) float64 { return r.StepTime }
		out = append(out, metric{"step time", true, step, secs(step), nil})
	}
	tps := func(r costmodel.Report) float64 { return r.TokensPerS }
	mem := func(r costmodel.Report) float64 { return r.Memory.Total }
	comm := func(r costmodel.Report) float64 { return r.CommFraction }
	bub := func(r costmodel.Report) float64 { return r.BubbleFraction }
	return append(out,
		metric{"throughput", false, tps, func(r costmodel.Report) cell {
			return cell{long: static.Count(r.TokensPerS) + " tok/s", short: short(r.TokensPerS)}
		}, nil},
		metric{"memory/GPU", true, mem, func(r costmodel.Report) cell {
			c := cell{long: static.Bytes(r.Memory.Total), short: strings.ReplaceAll(static.Bytes(r.Memory.Total), " ", "")}
			if r.Memory.Capacity > 0 {
				c.long += fmt.Sprintf(" (%.0f%%)", 100*r.Memory.Total/r.Memory.Capacity)
			}
			return c
		}, func(r costmodel.Report) string { return static.Bytes(r.Memory.Total) }},
		metric{"comm", true, comm, pct(comm), nil},
		metric{"bubble", true, bub, pct(bub), nil},
	)
}

func infOf(r costmodel.Report) costmodel.Inference {
	if r.Inference == nil {
		return costmodel.Inference{TTFT: math.NaN(), TPOT: math.NaN()}
	}
	return *r.Inference
}

// table renders the contenders side by side, one line per quantity.
func (m *Model) table(st theme.Styles) []string {
	if len(m.cmp.Rows) == 0 {
		return []string{st.Dim.Render("no contenders")}
	}
	lines := m.tableLines()
	labelW := 0
	for _, l := range lines {
		labelW = max(labelW, lipgloss.Width(l.label))
	}
	labelW, cols := columns(m.w, labelW, len(m.shownRows()), 8)
	for i := range cols {
		natural := 0
		for _, l := range lines {
			natural = max(natural, min(lipgloss.Width(l.cells[i].long), maxCol)+2) // room for " ★"
		}
		cols[i] = min(cols[i], natural+1)
	}
	out := make([]string, 0, len(lines))
	for li, l := range lines {
		var b strings.Builder
		b.WriteString(st.Label.Render(pad(l.label, labelW)))
		for i, c := range l.cells {
			w := cols[i]
			b.WriteByte(' ')
			txt := truncate(c.text(w), w)
			if c.win {
				txt = truncate(c.text(w-2), w-2) + " " + string(GlyphWinner)
			}
			txt = pad(txt, w)
			switch {
			case li == 0:
				b.WriteString(st.Bold.Render(txt))
			case c.win:
				b.WriteString(st.Winner.Render(txt))
			case c.bad:
				b.WriteString(st.Dim.Render(txt))
			default:
				b.WriteString(st.Value.Render(txt))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// tableLine is one line of the table: a quantity and its cell for each contender.
type tableLine struct {
	label string
	cells []cell
}

// tableLines are the table's contents, the ★ marks decided, before any width is applied.
func (m *Model) tableLines() []tableLine {
	rows := m.shownRows()
	var lines []tableLine
	add := func(label string, f func(common.CompareRow) cell) {
		l := tableLine{label: label}
		for _, r := range rows {
			l.cells = append(l.cells, f(r))
		}
		lines = append(lines, l)
	}
	add("", func(r common.CompareRow) cell { return cell{long: r.Name, short: shortName(r)} })
	add("layout", func(r common.CompareRow) cell {
		l := r.Layout
		if l.TP <= 0 {
			return cell{long: "—"}
		}
		c := cell{long: fmt.Sprintf("%d×%d×%d", l.TP, l.PP, l.DP) + cpSuffix(l), short: fmt.Sprintf("%d×%d×%d", l.TP, l.PP, l.DP) + cpSuffix(l)}
		if l.EP > 1 {
			c.long += fmt.Sprintf(" EP %d", l.EP)
		}
		if l.Disagg.On() {
			// The pools' GPUs, prefill:decode, then the decode pool's split.
			pools := l.Disagg.String(m.gpus())
			c.long, c.short = pools+" · "+c.long, pools
		}
		return c
	})
	if !m.infer() {
		add("schedule", func(r common.CompareRow) cell {
			c := cell{long: scheduleText(r.Layout)}
			if r.Layout.PP > 1 && r.Layout.Schedule == model.Interleaved {
				c.short = fmt.Sprintf("intl ×%d", r.Layout.Chunks)
			}
			return c
		})
	}
	if !m.infer() {
		add("m × b", func(r common.CompareRow) cell {
			if r.Layout.TP <= 0 {
				return cell{long: "—"}
			}
			mm := "?"
			if evaluated(r) {
				mm = fmt.Sprint(r.Report.Layout.MicroBatches)
			}
			return cell{long: fmt.Sprintf("%s × %d", mm, r.Layout.MicroBatch)}
		})
	}
	if !m.infer() && m.turnsKnobs() {
		add("knobs", func(r common.CompareRow) cell {
			if r.Layout.TP <= 0 {
				return cell{long: "—"}
			}
			return knobsCell(r.Layout)
		})
	}
	for _, mt := range m.metrics() {
		vals := make([]float64, len(rows))
		ok := make([]bool, len(rows))
		shown := make([]string, len(rows))
		for i, r := range rows {
			vals[i] = mt.value(r.Report)
			if evaluated(r) {
				if mt.shown != nil {
					shown[i] = mt.shown(r.Report)
				} else {
					shown[i] = mt.fmt(r.Report).long
				}
			}
			// A layout listed twice (the best one is TP only's or PP only's) competes once.
			ok[i] = r.Feasible && evaluated(r) && m.cmp.Twin(i) == i
		}
		win := common.Winners(vals, ok, mt.lower, shown)
		l := tableLine{label: mt.label}
		for i, r := range rows {
			c := cell{long: "—", bad: !r.Feasible}
			if r.Feasible && evaluated(r) {
				c = mt.fmt(r.Report)
			}
			c.win = win[m.cmp.Twin(i)]
			l.cells = append(l.cells, c)
		}
		lines = append(lines, l)
	}
	add("fits", func(r common.CompareRow) cell {
		switch {
		case r.Feasible:
			return cell{long: "✓ yes"}
		case evaluated(r) && !r.Report.Memory.Fits:
			return cell{long: "✗ " + r.Reason, short: fmt.Sprintf("✗ +%.1f GiB", (r.Report.Memory.Total-r.Report.Memory.Capacity)/model.GiB), bad: true}
		case r.Reason != "":
			return cell{long: "✗ " + r.Reason, short: "✗ invalid", bad: true}
		}
		return cell{long: "✗ no", bad: true}
	})

	return lines
}

// shortName is a contender's label for a narrow column; its layout is on the next line.
func shortName(r common.CompareRow) string {
	switch r.Kind {
	case common.RowBest:
		switch {
		case r.SameAs == common.RowTPOnly:
			return "best = TP"
		case r.SameAs == common.RowPPOnly:
			return "best = PP"
		case r.SameAs == common.RowEP:
			return "best = EP"
		case r.Feasible:
			return "best"
		}
		return "none fits"
	case common.RowHybrid:
		return "hybrid"
	case common.RowEP:
		return "EP"
	case common.RowDisagg:
		return "disagg"
	}
	return ""
}

// turnsKnobs says whether any contender turns a training knob away from its default (the row
// that names them would otherwise say "none" in every column).
func (m *Model) turnsKnobs() bool {
	for _, r := range m.cmp.Rows {
		if r.Layout.TP > 0 && knobsCell(r.Layout).long != "none" {
			return true
		}
	}
	return false
}

// knobsCell names the training knobs a layout turns away from their defaults (recompute,
// sequence parallelism and its all-gather, ZeRO, TP overlap, a serial DP sync, offload), each
// contender's own when search chose them: "none" when it turns none.
func knobsCell(l model.Layout) cell {
	var long, short []string
	both := func(lg, sh string) { long, short = append(long, lg), append(short, sh) }
	switch l.Recompute {
	case model.RecomputeSelective:
		both("sel. recompute", "sel")
	case model.RecomputeFull:
		both("full recompute", "full")
	}
	if l.SequenceParallel && l.TP > 1 {
		if l.SPGather == model.SPGatherKeep {
			both("SP keep", "SPk")
		} else {
			both("SP", "SP")
		}
	}
	if l.ZeRO > 0 && l.GradGroup() > 1 {
		both(fmt.Sprintf("ZeRO %d", l.ZeRO), fmt.Sprintf("Z%d", l.ZeRO))
	}
	if l.TPOverlap != model.TPOverlapNone && l.TP > 1 {
		both("TP ovl "+l.TPOverlap.String(), l.TPOverlap.String())
	}
	if l.SerialDP && l.GradGroup() > 1 {
		both("serial DP", "ser")
	}
	switch l.Offload {
	case model.OffloadOptimizer:
		both("offload optimizer", "off:opt")
	case model.OffloadOptimizerWeights:
		both("offload optim.+weights", "off:o+w")
	case model.OffloadActivations:
		both("offload activations", "off:act")
	case model.OffloadOptimizerActivations:
		both("offload optim.+act.", "off:o+a")
	case model.OffloadAll:
		both("offload optim.+w.+act.", "off:all")
	}
	if len(long) == 0 {
		return cell{long: "none"}
	}
	return cell{long: strings.Join(long, " · "), short: strings.Join(short, " ")}
}

// scheduleText names a layout's pipeline schedule; "—" without a pipeline.
func scheduleText(l model.Layout) string {
	switch {
	case l.TP <= 0 || l.PP <= 1:
		return "—"
	case l.Schedule == model.Interleaved:
		return fmt.Sprintf("interleaved ×%d", l.Chunks)
	}
	return l.Schedule.String()
}

// cpSuffix follows a TP×PP×DP split with its context parallelism, " CP4", which the three
// sizes leave out ("" at CP 1): 4×1×2 CP4 is 32 GPUs.
func cpSuffix(l model.Layout) string {
	if l.CPSize() > 1 {
		return fmt.Sprintf(" CP%d", l.CP)
	}
	return ""
}

// pad right-pads s with spaces to w cells.
func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// truncate cuts s to w cells with an ellipsis.
func truncate(s string, w int) string { return ansi.Truncate(s, max(w, 0), "…") }
