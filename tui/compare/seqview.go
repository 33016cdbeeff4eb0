package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// The Compare tab's second page: the sequence sweep, TP vs CP vs both (BuildSeq), which the root
// computes in a tea.Cmd when the page is shown for a training scenario and hands over with
// SetSweep; "sweeping…" until then.

// SeqViewMsg tells the root that the sweep page was turned on or off: it computes the sweep
// for the scenario on screen when it has none.
type SeqViewMsg struct{ On bool }

// seqKey turns the sweep page on and off.
var seqKey = key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "TP vs CP"))

// seqBackKey is seqKey's help while the page is on.
var seqBackKey = key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "contenders"))

// SetSweep hands the pane the sweep of the scenario shown.
func (m *Model) SetSweep(sw common.SeqSweep) { m.seq, m.seqHave, m.seqPending = sw, true, false }

// InvalidateSweep marks the sweep on screen outdated until the next SetSweep: the page says
// "sweeping…".
func (m *Model) InvalidateSweep() { m.seqPending = true }

// SeqView says whether the sweep page is on (and applies: a training scenario).
func (m *Model) SeqView() bool { return m.seqOn && m.seqApplies() }

// SetSeqView turns the sweep page on or off (a rebuilt pane keeps the page it was on).
func (m *Model) SetSeqView(on bool) { m.seqOn = on }

// seqApplies says whether the scenario shown has a sweep: training.
func (m *Model) seqApplies() bool { return m.hasData && SeqSweepApplies(m.data.Scenario) }

// seqUpdate takes L: the page on or off.
func (m *Model) seqUpdate(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !key.Matches(k, seqKey) || !m.seqApplies() {
		return nil, false
	}
	m.seqOn = !m.seqOn
	on := m.seqOn
	return func() tea.Msg { return SeqViewMsg{On: on} }, true
}

// seqKeys is the page's key for the footer.
func (m *Model) seqKeys() []key.Binding {
	switch {
	case !m.seqApplies():
		return nil
	case m.seqOn:
		return []key.Binding{seqBackKey}
	}
	return []key.Binding{seqKey}
}

// seqLabel is a sequence length as the sweep names it: "4K", "128K".
func seqLabel(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "K"
	}
	return strconv.Itoa(n)
}

// compactSplit names a layout in a few cells: "TP8·CP4", "CP8·PP4", "TP2·CP2·PP2"; DP, the
// rest of the GPUs, goes unsaid ("DP only" when it is all).
func compactSplit(l model.Layout) string {
	var parts []string
	for _, d := range []struct {
		name string
		n    int
	}{{"TP", l.TP}, {"CP", l.CP}, {"PP", l.PP}} {
		if d.n > 1 {
			parts = append(parts, d.name+strconv.Itoa(d.n))
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "·")
	case l.DP > 1:
		return "DP only"
	}
	return "1 GPU"
}

// compactBytes is static.Bytes in fewer cells: "53.6G".
func compactBytes(x float64) string {
	return strings.TrimSuffix(strings.ReplaceAll(static.Bytes(x), " ", ""), "iB")
}

// seqCell is one family at one length in each of the page's forms (seqForms): a line or two
// lines, widest first.
type seqCell struct {
	forms    [len(seqForms)][2]string
	win, bad bool
}

// seqForms are the page's forms: how many lines a length takes in each.
var seqForms = [...]int{1, 2, 1, 2}

func (m *Model) seqCellOf(r common.CompareRow) seqCell {
	switch {
	case r.Feasible:
		rep := r.Report
		split := compactSplit(r.Layout)
		step, tok, mem := static.Seconds(rep.StepTime), static.Count(rep.TokensPerS)+" tok/s", static.Bytes(rep.Memory.Total)
		figs := short(rep.TokensPerS) + " " + compactBytes(rep.Memory.Total)
		return seqCell{forms: [len(seqForms)][2]string{
			{split + "  " + step + "  " + tok + "  " + mem},
			{split + "  " + step, tok + " · " + mem},
			{split + " " + figs},
			{split, figs},
		}}
	case evaluated(r):
		split := compactSplit(r.Layout)
		need := "✗ needs " + static.Bytes(r.Report.Memory.Total)
		if r.Report.Memory.Total <= r.Report.Memory.Capacity {
			need = "✗ host memory" // over the host's, offloading
		}
		sh := "✗ needs " + compactBytes(r.Report.Memory.Total)
		return seqCell{forms: [len(seqForms)][2]string{{split + "  " + need}, {split, need}, {split + " " + sh}, {split, sh}}, bad: true}
	}
	return seqCell{forms: [len(seqForms)][2]string{{"—"}, {"—"}, {"—"}, {"—"}}, bad: true}
}

// seqWinners marks, at each length, the family with the most tokens per second among those
// that fit (a tie as shown is marked twice).
func seqWinners(p common.SeqPoint) [common.NumSeqFamilies]bool {
	var vals []float64
	var ok []bool
	var shown []string
	for _, r := range p.Fams {
		vals = append(vals, r.Report.TokensPerS)
		ok = append(ok, r.Feasible)
		shown = append(shown, static.Count(r.Report.TokensPerS))
	}
	var out [common.NumSeqFamilies]bool
	copy(out[:], common.Winners(vals, ok, false, shown))
	return out
}

// seqView renders the sweep page in the pane's size.
func (m *Model) seqView(st theme.Styles) string {
	if m.data.Stale || m.seqPending {
		st = dimmed(st)
	}
	lines := []string{m.seqTitle(st)}
	switch {
	case !m.seqHave:
		lines = append(lines, "", st.Dim.Render("sweeping… one search a sequence length, 4K to 128K"))
		return common.Fit(lines, m.w, m.h)
	case m.seq.Err != nil:
		lines = append(lines, "", st.Error.Render("sweep failed: "+m.seq.Err.Error()))
		return common.Fit(lines, m.w, m.h)
	}
	lines = append(lines, m.seqTable(st, m.h-2)...) // a line for how far each fits
	notes := m.seqNotes(st)
	if len(lines)+1+len(notes) <= m.h {
		lines = append(lines, "") // a blank line before them when all fit
	}
	lines = append(lines, notes...)
	return common.Fit(lines, m.w, m.h)
}

// seqTitle names the page and its state: the longest form that fits.
func (m *Model) seqTitle(st theme.Styles) string {
	state := ""
	switch {
	case m.seqPending && m.seqHave:
		state = " · sweeping…"
	case m.data.Stale:
		state = " · stale"
	}
	s := m.data.Scenario
	what := fmt.Sprintf(" · %s on %d× %s, batch %d", s.Arch.Label(), s.Cluster.GPUs, s.Cluster.GPU.ID, m.seq.Batch)
	forms := []string{
		"TP vs CP vs both as the sequence grows" + what,
		"TP vs CP vs both by sequence: tok/s, memory/GPU", // the narrow cells' figures
		"TP vs CP vs both by sequence",
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

// seqTable is the sweep's table in the widest form that fits w and rows lines: one line a
// length when it can, else two.
func (m *Model) seqTable(st theme.Styles, rows int) []string {
	const labelW = 4 // "128K"
	n := int(common.NumSeqFamilies)
	_, cols := columns(m.w, labelW, n, 8)
	colW := cols[len(cols)-1] // the narrowest
	cells := make([][common.NumSeqFamilies]seqCell, len(m.seq.Points))
	for i, p := range m.seq.Points {
		win := seqWinners(p)
		for f, r := range p.Fams {
			c := m.seqCellOf(r)
			c.win = win[f]
			cells[i][f] = c
		}
	}
	fits := func(f int) bool {
		for _, row := range cells {
			for _, c := range row {
				for li, txt := range c.forms[f] {
					n := lipgloss.Width(txt)
					if c.win && li == seqForms[f]-1 {
						n += 2 // " ★" on the figures' line
					}
					if n > colW {
						return false
					}
				}
			}
		}
		return 1+seqForms[f]*len(cells) <= rows
	}
	form := len(seqForms) - 1
	for f := range seqForms {
		if fits(f) {
			form = f
			break
		}
	}
	render := func(c seqCell, txt string, w int) string {
		if c.win {
			txt += " " + string(GlyphWinner)
		}
		txt = pad(truncate(txt, w), w)
		switch {
		case c.win:
			return st.Winner.Render(txt)
		case c.bad:
			return st.Dim.Render(txt)
		}
		return st.Value.Render(txt)
	}
	var b strings.Builder
	b.WriteString(st.Label.Render(pad("seq", labelW)))
	for f := range n {
		b.WriteByte(' ')
		b.WriteString(st.Bold.Render(pad(truncate(SeqFamilyNames[f], cols[f]), cols[f])))
	}
	out := []string{b.String()}
	for i, p := range m.seq.Points {
		for li := range seqForms[form] {
			var b strings.Builder
			label := ""
			if li == 0 {
				label = seqLabel(p.Seq)
			}
			b.WriteString(st.Label.Render(pad(label, labelW)))
			for f := range n {
				b.WriteByte(' ')
				c := cells[i][f]
				c.win = c.win && li == seqForms[form]-1 // the ★ goes with the figures
				b.WriteString(render(c, c.forms[form][li], cols[f]))
			}
			out = append(out, b.String())
		}
	}
	return out
}

// seqNotes say how far each family fits, why a cell is empty and what the figures are, in that
// order of importance: each the longest form that fits.
func (m *Model) seqNotes(st theme.Styles) []string {
	var long, short []string
	for f := range common.NumSeqFamilies {
		n := m.seq.LongestFit(f)
		to, sh := "fits nowhere", "none"
		switch {
		case n == 0:
		case n == SeqLens[len(SeqLens)-1]:
			to, sh = "fits to "+seqLabel(n), seqLabel(n)
		default:
			to, sh = "fits to "+seqLabel(n)+" only", seqLabel(n)
		}
		long = append(long, SeqFamilyNames[f]+" "+to)
		short = append(short, seqShortNames[f]+" "+sh)
	}
	var out []string
	add := func(style lipgloss.Style, forms ...string) {
		for _, f := range forms {
			if lipgloss.Width(f) <= m.w {
				out = append(out, style.Render(f))
				return
			}
		}
	}
	add(st.Value, strings.Join(long, " · "), "fits to: "+strings.Join(short, " · "))
	if held := m.seqHeld(); len(held) > 0 {
		var names []string
		for _, h := range held {
			names = append(names, strings.Fields(h)[0])
		}
		add(st.Warn, "✗ with the panel's "+strings.Join(held, ", ")+": set them to auto for search to turn them",
			"✗ with the panel's "+strings.Join(held, ", ")+"; auto frees them",
			"held: "+strings.Join(held, ", ")+"; auto frees them",
			"held: "+strings.Join(names, ", ")+"; auto frees them",
			"knobs held; auto frees them")
	}
	for _, p := range m.seq.Points {
		if r := p.Fams[common.FamCP]; r.Layout.TP == 0 && r.Reason != "" {
			add(st.Dim, "— at "+seqLabel(p.Seq)+": "+r.Reason, "— "+r.Reason)
			break
		}
	}
	w := string(GlyphWinner)
	add(st.Dim, w+" most tokens/s at that length · ✗ the closest layout's memory per GPU · DP: the GPUs left · panel knobs held (auto: free)",
		w+" most tokens/s · ✗ the closest's memory/GPU · DP the rest",
		w+" most tok/s · ✗ closest's memory")
	return out
}

// seqHeld names the memory knobs the panel holds (not auto) at their lightest setting while a
// family does not fit somewhere: what keeps it from fitting that search was not let to turn.
func (m *Model) seqHeld() []string {
	miss := false
	for _, p := range m.seq.Points {
		for _, r := range p.Fams {
			miss = miss || (evaluated(r) && !r.Feasible)
		}
	}
	if !miss {
		return nil
	}
	l := m.data.Scenario.Layout
	var out []string
	if l.Auto&model.AutoRecompute == 0 && l.Recompute != model.RecomputeFull {
		out = append(out, "recompute "+l.Recompute.String())
	}
	if l.Auto&model.AutoZeRO == 0 && l.ZeRO < 3 {
		out = append(out, fmt.Sprintf("ZeRO %d", l.ZeRO))
	}
	if l.Auto&model.AutoOffload == 0 && l.Offload == model.OffloadNone {
		out = append(out, "offload none")
	}
	return out
}

// seqShortNames are the families in the fewest cells.
var seqShortNames = [common.NumSeqFamilies]string{"no CP", "CP", "TP×CP"}
