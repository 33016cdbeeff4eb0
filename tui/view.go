package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// Rendering: the frame (title, parameter panel, tabbed main pane, tour caption, footer), composed
// line by line.

// View renders the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	if m.width == 0 {
		return "starting splitscope…"
	}
	if m.lay.TooSmall {
		return tooSmallView(m.width, m.height)
	}
	// Compose line by line: lipgloss' joins re-measure every line of both boxes, and the frame
	// is redrawn up to 30 times a second.
	c := m.parts()
	var main []string
	switch w, h := m.width-2, m.lay.Main.H-2; {
	case m.helpOpen:
		// The help page takes the whole body, so that the descriptions read whole at 80 columns.
		main = boxLines(m.styles.Plain, m.styles.PaneFocused, fitSlice(strings.Split(m.helpPage(w, h), "\n"), w, h), w, h)
	case m.sheet != nil:
		// What s or x would have written, in a served session: the whole body, to copy whole.
		main = boxLines(m.styles.Plain, m.styles.PaneFocused, fitSlice(strings.Split(m.sheetPage(w, h), "\n"), w, h), w, h)
	default:
		main = m.mainView(c)
	}
	var params []string // beside the main pane, line by line
	if !m.helpOpen && m.sheet == nil && !m.present {
		params = m.paramLines(c)
	}
	title, strip, footer := "", "", ""
	if c != nil {
		title, strip, footer = c.title, c.strip, c.footer
	} else {
		title, strip, footer = m.titleView(), m.stripView(), m.footerView()
	}
	var b strings.Builder
	b.Grow(m.width * m.height * 4) // a frame in colour: about 3 bytes a cell; one allocation
	b.WriteString(title)
	b.WriteString("\n")
	b.WriteString(strip)
	for i, l := range main {
		b.WriteString("\n")
		if i < len(params) {
			b.WriteString(params[i])
		}
		b.WriteString(l)
	}
	if m.tour.on {
		b.WriteString("\n")
		b.WriteString(m.captionView())
	}
	b.WriteString("\n")
	b.WriteString(footer)
	return b.String()
}

// tooSmallView is the polite message below the minimum size, word-wrapped to the terminal so
// that it reads whole down to 20 columns.
func tooSmallView(w, h int) string {
	msg := fmt.Sprintf("splitscope needs %d×%d or more; this terminal is %d×%d. Enlarge it, or press q to quit.",
		MinWidth, MinHeight, w, h)
	text := lipgloss.NewStyle().Width(max(min(w, 44), 1)).Render(msg)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, text)
}

func (m *Model) titleView() string {
	s := m.cur
	if m.hasData {
		s = m.data.Scenario
	}
	// A model edited away from its preset is titled as modified (model.Arch.Label).
	if preset, err := m.presets.Model(s.Arch.ID); err == nil && s.Arch.ID != "" {
		s.Arch.Changes = model.ArchChanges(preset, s.Arch)
	}
	return m.styles.Title.Width(m.width).Render(titleLineFit(s, m.width, m.calib, m.calibFit))
}

// calibrationTag says what a calibration file does to the scenario: "calibrated: box.yaml" when
// a link the GPUs talk over carries its parameters or its serving parameters are the scenario's
// GPU's (fit, when known), "box.yaml: no link here" when neither (the explorer may step to a link
// or a GPU it does not calibrate).
func calibrationTag(s model.Scenario, calib string, fit *model.Calibration) string {
	if calib == "" {
		return ""
	}
	if calibrationApplies(s, fit) {
		return "calibrated: " + calib
	}
	return calib + ": no link here"
}

// calibrationLinks are the scenario's links that carry a calibration: the node's when its GPUs
// talk over it, the network's when there are nodes.
func calibrationLinks(s model.Scenario) []model.Link {
	c := s.Cluster
	var out []model.Link
	if c.NodeSize() > 1 && c.Intra.Calibrated != "" {
		out = append(out, c.Intra)
	}
	if c.Nodes() > 1 && c.Inter.Calibrated != "" {
		out = append(out, c.Inter)
	}
	return out
}

// servingCalibrated says whether the calibration's serving parameters are on the scenario's GPU
// (and, for one fitted on one engine's runs, where that engine serves).
func servingCalibrated(s model.Scenario, fit *model.Calibration) bool {
	return fit != nil && fit.Serving != nil && !fit.Serving.Empty() && fit.GPU == s.Cluster.GPU.ID && engineCalibrated(s, fit)
}

// engineCalibrated says whether a calibration holds for the scenario's engine: one with no
// engine holds for all; one fitted on an engine's runs, where that engine serves.
func engineCalibrated(s model.Scenario, fit *model.Calibration) bool {
	if fit.Engine == "" {
		return true
	}
	e := s.Workload.Engine
	if e == "" {
		e = "vllm"
	}
	return s.Workload.Mode == model.Infer && e == fit.Engine
}

func calibrationApplies(s model.Scenario, fit *model.Calibration) bool {
	return len(calibrationLinks(s)) > 0 || servingCalibrated(s, fit)
}

// calibrationFoot is what the footer says of the calibration, longest first: the file, what
// it calibrates here (its serving parameters on this GPU, its links) and its fit's mean error
// on the files it was fitted to; then shorter and shorter forms, for the verdict to take the
// longest that fits. Nothing without a calibration, or with one the title already says
// calibrates nothing here.
func calibrationFoot(s model.Scenario, calib string, fit *model.Calibration) []string {
	if calib == "" || !calibrationApplies(s, fit) {
		return nil
	}
	if fit == nil {
		return []string{"calibrated: " + calib, "calibrated"}
	}
	var what []string
	if servingCalibrated(s, fit) {
		sc := fit.Serving
		var ps []string
		for _, kv := range []struct {
			key  string
			v    float64
			text string
		}{{"memory_eff", sc.MemoryEff, fmt.Sprintf("%.2f", sc.MemoryEff)}, {"compute_eff", sc.ComputeEff, fmt.Sprintf("%.2f", sc.ComputeEff)},
			{"compute_eff_fp8", sc.ComputeEffFP8, fmt.Sprintf("%.2f", sc.ComputeEffFP8)},
			{"step", sc.StepOverhead, static.Seconds(sc.StepOverhead)}, {"floor", sc.KernelFloor, static.Seconds(sc.KernelFloor)},
			{"GEMM latency", sc.GEMMLatency, static.Seconds(sc.GEMMLatency)}} {
			if kv.v > 0 {
				ps = append(ps, kv.key+" "+kv.text)
			}
		}
		section := fit.Section
		if section == "" {
			section = model.SectionServing
		}
		what = append(what, section+": "+strings.Join(ps, ", "))
	}
	var links []string
	for _, l := range calibrationLinks(s) {
		links = append(links, l.ID)
	}
	if len(links) > 0 {
		what = append(what, "links: "+strings.Join(links, ", "))
	}
	var fitText, short string
	if fit.Rows > 0 {
		on := fmt.Sprintf("%d %s", fit.Rows, plural(fit.Rows, "figure", "figures"))
		if n := len(fit.From); n > 0 {
			on += fmt.Sprintf(" of %d %s", n, plural(n, "file", "files"))
		}
		fitText = "its fit: mean |error| " + static.Percent(fit.MeanError) + " on " + on
		short = "fit ±" + static.Percent(fit.MeanError)
	}
	var out []string
	if fitText != "" {
		out = append(out, "calibrated: "+calib+" ("+strings.Join(append(what, fitText), "; ")+")",
			"calibrated: "+calib+" ("+fitText+")", "calibrated: "+calib+" ("+short+")", "calibrated ("+short+")")
	} else {
		out = append(out, "calibrated: "+calib+" ("+strings.Join(what, "; ")+")")
	}
	return append(out, "calibrated: "+calib, "calibrated")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// titleLine is the scenario in one line of at most w cells, with the calibration file the links
// carry (calib, "" for none). The layout and the batch always stay; the model's prose (layers,
// parameters), the links, the node count, the workload, the GPUs (all in the parameter panel)
// and the calibration go first, in that order, when the line is too long.
func titleLine(s model.Scenario, w int, calib string) string { return titleLineFit(s, w, calib, nil) }

// titleLineFit is titleLine knowing what the calibration file holds (nil: only its name).
func titleLineFit(s model.Scenario, w int, calib string, fit *model.Calibration) string {
	c, wl := s.Cluster, s.Workload
	batch := fmt.Sprintf("batch %d", wl.GlobalBatch)
	work := fmt.Sprintf("train %s seq %d", wl.Precision, wl.Seq)
	if wl.Mode == model.Infer {
		batch = fmt.Sprintf("requests %d", wl.Requests)
		work = fmt.Sprintf("infer %s prompt %d gen %d", wl.Precision, wl.PromptTokens, wl.GenTokens)
	}
	nodes := ""
	if n := c.Nodes(); n > 1 {
		nodes = fmt.Sprintf(" (%d nodes × %d)", n, c.GPUsPerNode)
	}
	gpus := fmt.Sprintf("%d× %s", c.GPUs, c.GPU.ID)
	links := c.Intra.ID + " / " + c.Inter.ID
	tag := calibrationTag(s, calib, fit)
	keep := map[string]bool{"prose": true, "links": true, "nodes": true, "work": true, "calib": tag != "", "gpus": true}
	build := func() string {
		parts := []string{" splitscope", static.ModelTitle(s.Arch, keep["prose"])}
		parts = append(parts, static.LayoutLine(s), batch)
		if keep["gpus"] {
			g := gpus
			if keep["nodes"] {
				g += nodes
			}
			parts = append(parts, g)
		}
		if keep["links"] {
			parts = append(parts, links)
		}
		if keep["work"] {
			parts = append(parts, work)
		}
		if keep["calib"] {
			parts = append(parts, tag)
		}
		return strings.Join(parts, " · ")
	}
	line := build()
	for _, drop := range []string{"prose", "links", "nodes", "work", "gpus", "calib"} {
		if ansi.StringWidth(line) <= w {
			break
		}
		keep[drop] = false
		line = build()
	}
	return ansi.Truncate(line, w, "…")
}

// stripView is the TP-vs-PP strip for the last result (dimmed while a change is evaluated or
// refused), or a placeholder before the first one.
func (m *Model) stripView() string {
	h := m.lay.Strip.H
	if !m.hasData {
		return fitLines([]string{m.styles.Dim.Render(" evaluating…")}, m.width, h)
	}
	if m.quizOpen() {
		return fitLines(strings.Split(stripHidden(*m.styles, m.data.Scenario, m.width, h), "\n"), m.width, h)
	}
	return fitLines(strings.Split(stripView(*m.styles, m.data.Scenario, m.data.Report, m.data.Stale, m.width, h), "\n"), m.width, h)
}

func (m *Model) paramsView() string {
	r := m.lay.Params
	innerW, innerH := r.W-2, r.H-2
	notes := m.paramNotes(innerW, innerH)
	vis := visibleFields(m.fields, &m.cur)
	rowsH := innerH - len(notes)
	first := scrollWindow(len(vis), rowsH, indexOf(vis, m.sel))
	var lines []string
	for _, i := range vis[first:min(first+rowsH, len(vis))] {
		lines = append(lines, m.paramRow(i, innerW))
	}
	for len(lines) < rowsH {
		lines = append(lines, "")
	}
	lines = append(lines, notes...)
	content := fitLines(lines, innerW, innerH)
	return box(m.styles.Plain, m.styles.Pane, content, innerW, innerH)
}

// paramRow is one row of the panel: the label and the value, right-aligned. The selected row
// being typed into shows the input in place of the value (its text selected, reversed, until
// the first key); a row whose last edit was refused shows the value asked for after a ✗.
func (m *Model) paramRow(i, innerW int) string {
	f := m.fields[i]
	label, val := f.label, f.get(&m.cur)
	sel := i == m.sel
	refused := sel && m.offer != nil && m.offer.field == f.name && !m.editing
	switch {
	case sel && m.editing:
		typed := m.input.View()
		if m.inputSel {
			typed = m.styles.ValueSelected.Reverse(true).Render(m.input.Value())
		}
		gap := max(innerW-common.Width(label)-common.Width(typed)-3, 1)
		text := "›" + label + strings.Repeat(" ", gap) + "[" + typed + "]"
		return ansi.Truncate(text, innerW, "…")
	case refused:
		val += " ✗" + f.get(&m.offer.tried)
	}
	marker := " "
	if sel {
		marker = "›"
	}
	gap := max(innerW-common.Width(label)-common.Width(val)-2, 1)
	text := ansi.Truncate(marker+label+strings.Repeat(" ", gap)+val+" ", innerW, "…")
	switch {
	case refused:
		return m.styles.ValueError.Reverse(true).Render(text)
	case sel:
		return m.styles.ValueSelected.Render(text)
	}
	return text
}

// paramNotes is what goes under the parameter rows: why a typed value or the last edit was
// refused and the fix y (or Enter again) takes, what the derived row is made of, the box's notes;
// at most half the panel.
func (m *Model) paramNotes(innerW, innerH int) []string {
	var notes []string
	switch {
	case m.editing && m.inputErr != "":
		notes = append(notes, wrap(m.styles.ValueError, "✗ "+m.inputErr, innerW)...)
		if m.offer != nil && m.offer.ok {
			notes = append(notes, wrap(m.styles.OK, "enter: "+m.offer.what, innerW)...)
		}
	case m.editing:
		notes = append(notes, wrap(m.styles.Dim, "enter applies · esc cancels", innerW)...)
	case m.offer != nil:
		notes = append(notes, wrap(m.styles.ValueError, "✗ "+m.offer.why, innerW)...)
		if m.offer.ok {
			notes = append(notes, wrap(m.styles.OK, "y: "+m.offer.what, innerW)...)
		}
	case m.evalErr != nil:
		notes = append(notes, wrap(m.styles.ValueError, m.evalErr.Error(), innerW)...)
	default:
		if d := derivation(m.fields[m.sel].name, m.cur); d != "" {
			notes = append(notes, wrap(m.styles.Dim, d, innerW)...)
		}
	}
	if m.hasData && !m.data.Stale && !m.editing && !m.quizOpen() {
		// Settings with no effect or that the hardware contradicts, from the cost model (they
		// name the step's numbers: hidden while the tour's question is open).
		for _, w := range m.data.Report.Warnings {
			notes = append(notes, wrap(m.styles.Warn, "! "+w, innerW)...)
		}
	}
	if m.boxErr != "" {
		notes = append(notes, wrap(m.styles.ValueError, m.boxErr, innerW)...)
	} else if len(m.boxNotes) > 0 && sameHardware(m.cur.Cluster, m.boxCluster) {
		for _, n := range m.boxNotes {
			notes = append(notes, wrap(m.styles.Warn, "! "+n, innerW)...)
		}
	}
	if len(notes) > 0 {
		notes = append([]string{""}, notes...)
	}
	return notes[:min(len(notes), innerH/2)]
}

// derivation explains a derived row when it is selected: DP and m follow from the others.
func derivation(name string, s model.Scenario) string {
	l := s.Layout
	if slices.Contains(archRows, name) {
		return strings.TrimPrefix(static.ArchLine(s.Arch), "architecture: ")
	}
	switch name {
	case "dp":
		return fmt.Sprintf("DP = GPUs / (TP × PP) = %d / (%d × %d); ←/→ asks for another and offers the split", s.Cluster.GPUs, l.TP, l.PP)
	case "micro-batches":
		unit := "batch"
		if s.Workload.Mode == model.Infer {
			unit = "requests"
		}
		return fmt.Sprintf("m = %s / (b × DP) = %d / (%d × %d); ←/→ changes the %s", unit, s.BatchUnits(), l.MicroBatch, l.DP, unit)
	}
	return ""
}

// sameHardware reports whether two clusters have the same GPUs and intra-node link.
func sameHardware(a, b model.Cluster) bool {
	return a.GPU == b.GPU && a.GPUs == b.GPUs && a.GPUsPerNode == b.GPUsPerNode && a.Intra == b.Intra
}

// scrollWindow is the first row to show of n rows in a window of h so that row sel is visible,
// keeping it away from the edges when possible.
func scrollWindow(n, h, sel int) int {
	if h <= 0 || n <= h {
		return 0
	}
	first := sel - h/2
	return min(max(first, 0), n-h)
}

func indexOf(v []int, x int) int {
	for i, y := range v {
		if y == x {
			return i
		}
	}
	return 0
}

func (m *Model) mainView(c *viewCache) []string {
	r := m.lay.Main
	innerW := r.W - 2
	tabLine := ""
	if c != nil {
		if c.tabs == "" {
			c.tabs = m.tabLine(innerW)
		}
		tabLine = c.tabs
	} else {
		tabLine = m.tabLine(innerW)
	}
	var content string
	if m.quizOpen() && m.tab != TabBox { // predict, then reveal: the Box tab shows no step's numbers
		content = m.predictCard(innerW)
	} else if m.hasData || m.tab == TabBox { // the Box tab does not need an evaluation
		content = m.panes[m.tab].View()
	} else if m.evalErr != nil {
		content = m.styles.Error.Render(m.evalErr.Error())
	} else {
		content = m.styles.Dim.Render("evaluating…")
	}
	lines := append([]string{tabLine}, fitSlice(strings.Split(content, "\n"), innerW, m.lay.Content.H)...)
	return boxLines(m.styles.Plain, m.styles.PaneFocused, lines, innerW, r.H-2)
}

// tabLine is the main pane's first line: the tabs, the active one marked, in w cells.
func (m *Model) tabLine(w int) string {
	var tabs []string
	for i, t := range m.tabTitles() {
		st := m.styles.Tab
		if i == m.tab {
			st = m.styles.TabActive
		}
		tabs = append(tabs, st.Render(t))
	}
	return ansi.Truncate(lipgloss.JoinHorizontal(lipgloss.Top, tabs...), w, "…")
}

// helpView is the footer's key help, cut to the terminal's width: the keys that do something
// now; on the help page, how to leave it; during the tour, where it is and how to move through
// it and leave it (g again, or esc). Outside the help page, "g tour" (or the tour's own keys) and
// "? all keys" stay at every width: the other keys go first (fitKeys).
func (m *Model) helpView() string {
	if m.helpOpen {
		return m.styles.Dim.Render(ansi.Truncate(" ↑/↓ pgup/pgdn scroll · ? or esc closes · q quits", max(m.width, 1), "…"))
	}
	if m.sheet != nil {
		return m.styles.Dim.Render(ansi.Truncate(" nothing is written on the server · ↑/↓ pgup/pgdn scroll · esc closes · q quits", max(m.width, 1), "…"))
	}
	if m.tour.on {
		return m.withClassLine(m.tourHelp, max(m.width, 1))
	}
	return m.withClassLine(func(w int) string {
		if m.classLine() != "" { // after the classroom's " ·", a space
			return " " + m.shortHelp(max(w-1, 1))
		}
		return m.shortHelp(w)
	}, max(m.width, 1))
}

// footKey is one item of the footer's key line; keep ranks what stays when the line is too
// narrow: 0 goes first (from the end of the line), then 1 (q quit), never 2.
type footKey struct {
	text string
	keep int
}

// fitKeys joins the items with sep in at most w cells, dropping items of rank 0 from the end,
// then those of rank 1, until the line fits; what still does not fit is cut.
func fitKeys(items []footKey, sep string, w int) string {
	width := func(v []footKey) int {
		n := common.Width(sep) * max(len(v)-1, 0)
		for _, it := range v {
			n += common.Width(it.text)
		}
		return n
	}
	for rank := 0; rank < 2; rank++ {
		for i := len(items) - 1; i >= 0 && width(items) > w; i-- {
			if items[i].keep == rank {
				items = append(items[:i:i], items[i+1:]...)
			}
		}
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	return ansi.Truncate(strings.Join(texts, sep), w, "…")
}

// tourHelp is the footer's key line during the tour: where it is, ←/→, g or esc to leave, and
// "? all keys", kept; the teacher's R while the question is open, kept too; how to answer (the
// caption says it as well) and the other keys as they fit. Beside a classroom's line the tour's
// head takes shorter forms before anything is cut.
func (m *Model) tourHelp(w int) string {
	var answer footKey
	if q := m.question(); q != nil && m.quizOpen() {
		answer = footKey{"0-9 enter answers", 1}
		switch {
		case m.teacherReveals():
			answer = footKey{"R reveals", 2} // the class answers; the teacher shows the numbers
		case len(q.Choices) > 0:
			answer.text = fmt.Sprintf("1-%d answers", len(q.Choices))
		}
		answer.text = m.styles.Bold.Render(answer.text)
	}
	dim := func(k string) string { return m.styles.Dim.Render(k) }
	sep := dim(" · ")
	at := fmt.Sprintf("%d/%d", m.tour.at+1, len(m.tour.steps))
	line := func(form string) (string, bool) {
		items := []footKey{{m.styles.Bold.Render(" " + fmt.Sprintf(form, at)), 2}}
		if answer.text != "" {
			items = append(items, answer)
		}
		items = append(items, footKey{dim("tab other tabs"), 0}, footKey{dim("w why?"), 0},
			footKey{dim("P presentation"), 0}, footKey{dim("? all keys"), 2}, footKey{dim("q quit"), 1})
		kept := 0
		for _, it := range items {
			if it.keep == 2 {
				kept += common.Width(it.text) + common.Width(sep)
			}
		}
		return fitKeys(items, sep, w), kept-common.Width(sep) <= w
	}
	forms := []string{"tour %s · ←/→ · g or esc leaves", "tour %s · ←/→ · g/esc leaves", "tour %s ←/→ · g/esc leaves", "tour %s ←/→ g/esc leaves"}
	for _, f := range forms[:len(forms)-1] {
		if out, ok := line(f); ok {
			return out
		}
	}
	out, _ := line(forms[len(forms)-1])
	return out
}

// shortHelp is the footer's key line: as many of the active keys as fit in w, in order; "g tour"
// and "? all keys" always, "q quit" as long as it fits beside them, so that the tour is one key
// away and every other key two.
func (m *Model) shortHelp(w int) string {
	k := m.activeKeys()
	var items []footKey
	for _, b := range k.ShortHelp() {
		if !b.Enabled() || b.Help().Key == "" {
			continue
		}
		keep := 0
		switch {
		case slices.Equal(b.Keys(), k.Tour.Keys()), slices.Equal(b.Keys(), k.Help.Keys()):
			keep = 2
		case slices.Equal(b.Keys(), k.Quit.Keys()):
			keep = 1
		}
		items = append(items, footKey{m.styles.Bold.Render(b.Help().Key) + " " + m.styles.Dim.Render(b.Help().Desc), keep})
	}
	return fitKeys(items, " • ", w)
}

func (m *Model) footerView() string {
	return m.helpView() + "\n" + m.verdict()
}

// verdict is the footer's one-line summary of the current result, after what the last edit
// moved, why it was refused (with the fix y takes), or a note from a save or an export.
func (m *Model) verdict() string {
	if m.quizOpen() {
		return m.styles.Dim.Render(" answer the tour's question to see this step's numbers")
	}
	if !m.hasData {
		if m.note != "" {
			return ansi.Truncate(" "+m.note, m.width, "…")
		}
		return m.styles.Dim.Render("no result yet")
	}
	r := m.data.Report
	var parts []string
	if r.Inference != nil {
		parts = append(parts, "TTFT "+static.Seconds(r.Inference.TTFT), "TPOT "+static.Seconds(r.Inference.TPOT),
			static.Count(r.TokensPerS)+" tok/s")
	} else {
		parts = append(parts, "step "+static.Seconds(r.StepTime))
	}
	if tag, bad := m.traceTag(); tag != "" {
		st := m.styles.OK
		if bad {
			st = m.styles.Error
		}
		parts = append(parts, st.Render(tag))
	}
	idle := "bubble "
	if r.Inference != nil {
		idle = "idle " // serving: the busiest stage waits for requests as much as for the pipeline
	}
	shares := []string{idle + static.Percent(r.BubbleFraction), "comm " + static.Percent(r.CommFraction)}
	mem := r.Memory
	fits := m.styles.OK.Render(fmt.Sprintf("fits %s / %s", static.Bytes(mem.Total), static.Bytes(mem.Capacity)))
	if !mem.Fits {
		hint := " (no single change fits: more GPUs and recompute or lighter weights together; see 4 Memory)"
		if f := m.data.ToFit; f != nil {
			cost := "step " + static.Seconds(f.StepTime)
			if f.Host > 0 {
				cost += ", " + static.Bytes(f.Host) + " host RAM/GPU"
			}
			hint = " · to fit: " + f.What + " (" + cost + ")"
		}
		fits = m.styles.Over.Render(fmt.Sprintf("OVER by %s", static.Bytes(mem.Total-mem.Capacity))) + m.styles.Dim.Render(hint)
	}
	// A calibration says so after the figures it changes, in the longest form that fits the
	// line (warnings aside); the bubble and comm shares (the Pipeline and Overview tabs show them
	// too) give way before a shorter form is tried.
	join := func(cal string, withShares bool) []string {
		out := slices.Clone(parts)
		if cal != "" {
			out = append(out, m.styles.Dim.Render(cal))
		}
		if withShares {
			out = append(out, shares...)
		}
		return append(out, fits)
	}
	head := append(slices.Clone(parts), append(shares, fits)...)
	if foot := calibrationFoot(m.data.Scenario, m.calib, m.calibFit); len(foot) > 0 {
	pick:
		for _, cal := range foot {
			for _, withShares := range []bool{true, false} {
				if try := join(cal, withShares); ansi.StringWidth(" "+strings.Join(try, " · ")) <= m.width {
					head = try
					break pick
				}
			}
		}
	}
	parts = head
	if n := len(r.Warnings); n > 0 {
		parts = append(parts, m.styles.Warn.Render(fmt.Sprintf("! %s", r.Warnings[0])))
	}
	line := " " + strings.Join(parts, " · ")
	switch {
	case m.offer != nil && !m.editing:
		line = m.styles.Warn.Render(" ✗ "+m.offer.text("y")+" ·") + m.styles.Dim.Render(line)
	case m.note != "":
		st := m.styles.OK
		if m.noteErr {
			st = m.styles.Error
		}
		line = st.Render(" "+m.note) + m.styles.Dim.Render(" ·") + line
	case m.moved != "":
		line = m.styles.Dim.Render(" also moved: "+m.moved+" ·") + line
	}
	if m.data.Stale {
		line = m.styles.Warn.Render(" ✗ last valid result:") + m.styles.Dim.Render(line)
	}
	return ansi.Truncate(line, m.width, "…")
}

// box draws a rounded border in the style's border colour around content of exactly h lines
// of at most w cells (fitLines' output), padding each line to w. plain is the theme's Plain
// style, so the border is painted by the same renderer as the rest.
func box(plain, st lipgloss.Style, content string, w, h int) string {
	return strings.Join(boxLines(plain, st, strings.Split(content, "\n"), w, h), "\n")
}

// boxLines is box line by line: the h+2 lines are pieces of one string, built at once.
func boxLines(plain, st lipgloss.Style, lines []string, w, h int) []string {
	paint := theme.NewPaint(plain.Foreground(st.GetBorderTopForeground()))
	side := paint.Wrap("│")
	size := 2 * (3*w + 2*len(side) + 8)
	for _, l := range lines[:min(len(lines), h)] {
		size += len(l)
	}
	var b strings.Builder
	b.Grow(size + h*(2*len(side)+w/2))
	ends := make([]int, 0, h+2)
	b.WriteString(paint.Wrap("╭" + strings.Repeat("─", w) + "╮"))
	ends = append(ends, b.Len())
	for i := 0; i < h; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(side)
		b.WriteString(l)
		for range max(w-common.Width(l), 0) {
			b.WriteByte(' ')
		}
		b.WriteString(side)
		ends = append(ends, b.Len())
	}
	b.WriteString(paint.Wrap("╰" + strings.Repeat("─", w) + "╯"))
	ends = append(ends, b.Len())
	all, out, from := b.String(), make([]string, len(ends)), 0
	for i, e := range ends {
		out[i], from = all[from:e], e
	}
	return out
}

// fitLines pads or cuts lines to exactly h lines of at most w cells.
func fitLines(lines []string, w, h int) string { return strings.Join(fitSlice(lines, w, h), "\n") }

// fitSlice is fitLines line by line; a line that fits is kept as it is (no copy).
func fitSlice(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = common.Cut(lines[i], w)
		}
	}
	return out
}

// wrap word-wraps text to width w in a style.
func wrap(st lipgloss.Style, text string, w int) []string {
	return strings.Split(st.Width(max(w-1, 1)).Render(text), "\n")
}
