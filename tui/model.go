// Package tui is the explorer: a bubbletea program over the cost engine. The root Model owns the
// scenario being edited, the parameter panel, the tabs and the footer; each tab is a pane in its
// own package (tui/pipeline, tui/tensor, tui/compare, tui/memory, tui/boxtab) behind common.Pane.
// Evaluation runs in a tea.Cmd tagged with a revision, so Update never blocks and stale results
// are dropped.
package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/memory"
	"github.com/splitscope/splitscope/tui/pipeline"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/tensor"
	"github.com/splitscope/splitscope/tui/theme"
)

// Tab indices.
const (
	TabPipeline = iota
	TabTensor
	TabCompare
	TabMemory
	TabBox
)

// resultMsg carries an evaluation back to Update.
type resultMsg struct {
	rev    int
	s      model.Scenario
	report costmodel.Report
	err    error
}

// compareMsg carries the Compare tab's contenders back to Update.
type compareMsg struct {
	rev int
	cmp common.Compare
}

// Model is the explorer's root model.
type Model struct {
	presets *assets.Presets
	styles  theme.Styles
	keys    keyMap
	help    help.Model

	fields  []field
	sel     int // index into fields
	editing bool
	input   textinput.Model
	// fieldErrs holds, per field name, why the scenario being edited is invalid.
	fieldErrs map[string]string
	inputErr  string

	cur     model.Scenario // being edited; may be invalid
	rev     int            // revision of cur; results of older revisions are dropped
	data    common.Data    // the last valid evaluation
	hasData bool
	evalErr error

	compare *compare.Model
	box     *boxtab.Model
	// boxNotes are ToCluster's warnings from the last "use this box", shown under the parameters
	// while the scenario's hardware is still that box's (boxCluster); boxErr says why it failed.
	boxNotes   []string
	boxCluster model.Cluster
	boxErr     string

	panes    []common.Pane
	tab      int
	ticking  bool
	present  bool
	width    int
	height   int
	lay      layout
	quitting bool
}

// Option configures the explorer.
type Option func(*options)

type options struct {
	probe func() (gpu.Box, error)
}

// WithProbe sets how the Box tab reads this machine's GPUs (default gpu.Probe): a fake in tests,
// or a saved box.
func WithProbe(probe func() (gpu.Box, error)) Option {
	return func(o *options) { o.probe = probe }
}

// New builds the explorer for a starting scenario.
func New(s model.Scenario, p *assets.Presets, opts ...Option) Model {
	o := options{probe: gpu.Probe}
	for _, opt := range opts {
		opt(&o)
	}
	st := theme.Default()
	in := textinput.New()
	in.Prompt = "› "
	in.CharLimit = 32
	cmp := compare.New(st)
	bx := boxtab.New(st, o.probe, p)
	m := Model{
		presets: p, styles: st, keys: DefaultKeyMap(), help: help.New(),
		fields: fields(), input: in, fieldErrs: map[string]string{}, cur: s, compare: cmp, box: bx,
		panes: []common.Pane{pipeline.New(st), tensor.New(st), cmp, memory.New(st), bx},
	}
	m.keys.pane = m.panes[m.tab].Keys()
	return m
}

// Init starts the first evaluation.
func (m Model) Init() tea.Cmd { return m.evaluateAll() }

func (m Model) evaluateAll() tea.Cmd {
	return tea.Batch(evaluate(m.rev, m.cur), buildCompare(m.rev, m.cur))
}

// evaluate runs the cost model off the update loop.
func evaluate(rev int, s model.Scenario) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = resultMsg{rev: rev, s: s, err: fmt.Errorf("cost model panicked: %v", r)}
			}
		}()
		r, err := costmodel.Evaluate(s)
		return resultMsg{rev: rev, s: s, report: r, err: err}
	}
}

// buildCompare computes the Compare tab (it runs Search) off the update loop.
func buildCompare(rev int, s model.Scenario) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = compareMsg{rev: rev, cmp: common.Compare{Err: fmt.Errorf("compare panicked: %v", r)}}
			}
		}()
		return compareMsg{rev: rev, cmp: compare.Build(s)}
	}
}

func tick() tea.Cmd {
	return tea.Tick(common.FrameInterval, func(t time.Time) tea.Msg { return common.FrameMsg(t) })
}

// Update routes messages: global keys, size, domain messages, then the focused pane.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if boxtab.Owns(msg) {
		// Probe and capacity results reach the Box pane whichever tab is active; it drops stale ones.
		return m, tea.Batch(m.box.Update(msg), m.box.Recheck())
	}
	switch msg := msg.(type) {
	case boxtab.UseBoxMsg:
		return m.useBox(msg.Box)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case resultMsg:
		if msg.rev != m.rev {
			return m, nil // a newer change is being evaluated
		}
		if msg.err != nil {
			m.evalErr = msg.err
			m.markStale()
			return m, nil
		}
		m.evalErr = nil
		m.data = common.Data{Scenario: msg.s, Report: msg.report}
		m.hasData = true
		for _, p := range m.panes {
			p.SetData(m.data)
		}
		return m, tea.Batch(m.ensureTick(), m.box.Recheck())
	case compareMsg:
		if msg.rev == m.rev {
			m.compare.SetCompare(msg.cmp)
		}
		return m, nil
	case common.FrameMsg:
		cmd := m.panes[m.tab].Update(msg)
		if m.panes[m.tab].Animating() {
			return m, tea.Batch(cmd, tick())
		}
		m.ticking = false
		return m, cmd
	case tea.KeyMsg:
		return m.key(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	}
	return m, nil
}

// ensureTick arms the frame clock when the active pane animates and no tick is in flight.
func (m *Model) ensureTick() tea.Cmd {
	if m.ticking || !m.panes[m.tab].Animating() {
		return nil
	}
	m.ticking = true
	return tick()
}

func (m *Model) resize() {
	footer := 1 + lipgloss.Height(m.helpView())
	m.lay = computeLayout(m.width, m.height, footer, m.present)
	m.help.Width = m.width
	m.input.Width = max(m.lay.Params.W-6, 4)
	if !m.lay.TooSmall {
		for _, p := range m.panes {
			p.SetSize(m.lay.Content.W, m.lay.Content.H)
		}
	}
}

func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.Quit) && (!m.editing || msg.String() == "ctrl+c") {
		m.quitting = true
		return m, tea.Quit
	}
	if m.editing {
		switch {
		case key.Matches(msg, m.keys.Cancel):
			m.editing, m.inputErr = false, ""
			m.input.Blur()
			return m, nil
		case key.Matches(msg, m.keys.Edit):
			return m.commitInput()
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	vis := visibleFields(m.fields, &m.cur)
	switch {
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.resize()
		return m, nil
	case key.Matches(msg, m.keys.NextTab):
		return m.setTab((m.tab + 1) % len(m.panes))
	case key.Matches(msg, m.keys.PrevTab):
		return m.setTab((m.tab + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, m.keys.Present):
		m.present = !m.present
		m.resize()
		return m, nil
	case key.Matches(msg, m.keys.Up):
		m.sel = moveSel(vis, m.sel, -1)
		return m, nil
	case key.Matches(msg, m.keys.Down):
		m.sel = moveSel(vis, m.sel, +1)
		return m, nil
	case key.Matches(msg, m.keys.Dec):
		return m.stepField(-1)
	case key.Matches(msg, m.keys.Inc):
		return m.stepField(+1)
	case key.Matches(msg, m.keys.Edit):
		m.editing, m.inputErr = true, ""
		m.input.SetValue(m.fields[m.sel].get(&m.cur))
		m.input.CursorEnd()
		return m, m.input.Focus()
	}
	for i, b := range m.keys.Tabs {
		if key.Matches(msg, b) && i < len(m.panes) {
			return m.setTab(i)
		}
	}
	cmd := m.panes[m.tab].Update(msg)
	return m, tea.Batch(cmd, m.ensureTick())
}

// setTab switches tabs; the Box tab polls the GPUs only while it is the active one.
func (m Model) setTab(i int) (tea.Model, tea.Cmd) {
	m.tab = i
	m.keys.pane = m.panes[i].Keys()
	m.resize()
	return m, tea.Batch(m.ensureTick(), m.box.SetActive(i == TabBox), m.box.Recheck())
}

// useBox makes the probed box the scenario's hardware: the cluster ToCluster infers (GPU preset
// with the device's memory, GPU count, intra-node link), with the current inter-node link and
// NICs. TP and PP stay when they still divide the GPUs, else shrink to fit; DP follows and the
// micro-batch count is kept.
func (m Model) useBox(b gpu.Box) (tea.Model, tea.Cmd) {
	var gpus []model.GPU
	var links []model.Link
	if m.presets != nil {
		gpus, links = m.presets.GPUs, m.presets.Links
	}
	c, warns, err := gpu.ToCluster([]gpu.Box{b}, gpus, links, m.cur.Cluster.Inter, m.cur.Cluster.NICsPerNode)
	if err != nil {
		m.boxErr, m.boxNotes = "can't use this box: "+err.Error(), nil
		return m, nil
	}
	keepMicroBatches(func(s *model.Scenario) {
		s.Cluster = c
		fitSplit(s)
	})(&m.cur)
	m.boxErr, m.boxNotes, m.boxCluster = "", warns, m.cur.Cluster
	return m.changed()
}

// moveSel moves the selection to the next visible field in a direction.
func moveSel(vis []int, sel, dir int) int {
	if len(vis) == 0 {
		return sel
	}
	pos := 0
	for i, f := range vis {
		if f == sel {
			pos = i
		}
	}
	pos = min(max(pos+dir, 0), len(vis)-1)
	return vis[pos]
}

func (m Model) stepField(dir int) (tea.Model, tea.Cmd) {
	m.boxErr = ""
	f := m.fields[m.sel]
	f.step(&m.cur, m.presets, dir)
	return m.changed()
}

func (m Model) commitInput() (tea.Model, tea.Cmd) {
	f := m.fields[m.sel]
	next := m.cur
	if err := f.set(&next, m.presets, m.input.Value()); err != nil {
		m.inputErr = err.Error()
		return m, nil
	}
	m.cur = next
	m.editing, m.inputErr, m.boxErr = false, "", ""
	m.input.Blur()
	return m.changed()
}

// changed validates the edited scenario: invalid fields turn red and the last valid result
// stays (dimmed); a valid one is evaluated in the background.
func (m Model) changed() (tea.Model, tea.Cmd) {
	m.rev++
	m.fieldErrs = map[string]string{}
	err := m.cur.Validate()
	var ve model.ValidationError
	if errors.As(err, &ve) {
		// A row shows its own field's first problem before one mapped to it from elsewhere.
		for _, exact := range []bool{true, false} {
			for _, fe := range ve {
				name := rowFor(fe.Field)
				if _, dup := m.fieldErrs[name]; !dup && (name == fe.Field) == exact {
					m.fieldErrs[name] = fmt.Sprintf("%s = %v: %s", fe.Field, fe.Value, fe.Allowed)
				}
			}
		}
		m.markStale()
		return m, nil
	}
	if err != nil {
		m.evalErr = err
		m.markStale()
		return m, nil
	}
	m.compare.Invalidate() // dimmed, "computing…", until this revision's comparison arrives
	return m, m.evaluateAll()
}

// rowFor maps a validation field to the panel row that can fix it.
func rowFor(field string) string {
	switch field {
	case "kv-heads":
		return "heads"
	case "batch", "requests":
		return "micro-batches"
	case "dp":
		return "tp"
	case "ffn", "vocab", "experts", "top-k":
		return "model"
	}
	return field
}

func (m *Model) markStale() {
	if !m.hasData {
		return
	}
	m.data.Stale = true
	for _, p := range m.panes {
		p.SetData(m.data)
	}
}

func (m Model) mouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.lay.TooSmall {
		return m, nil
	}
	me := tea.MouseEvent(msg)
	switch {
	case me.Action == tea.MouseActionPress && me.Button == tea.MouseButtonLeft:
		if m.lay.Tabs.contains(me.X, me.Y) {
			if i := tabAt(m.tabTitles(), me.X-m.lay.Tabs.X); i >= 0 {
				return m.setTab(i)
			}
		}
		if i, ok := m.fieldAt(me.Y); ok && m.lay.Params.contains(me.X, me.Y) {
			m.sel = i
		}
	case me.Button == tea.MouseButtonWheelUp || me.Button == tea.MouseButtonWheelDown:
		if i, ok := m.fieldAt(me.Y); ok && m.lay.Params.contains(me.X, me.Y) {
			m.sel = i
			dir := 1
			if me.Button == tea.MouseButtonWheelDown {
				dir = -1
			}
			return m.stepField(dir)
		}
	}
	return m, nil
}

// fieldAt is the field on screen row y of the parameter panel.
func (m Model) fieldAt(y int) (int, bool) {
	vis := visibleFields(m.fields, &m.cur)
	rowsH := m.lay.Params.H - 2 - len(m.paramNotes(m.lay.Params.W-2, m.lay.Params.H-2))
	row := y - m.lay.Params.Y - 1 // inside the border
	if row < 0 || row >= rowsH {
		return 0, false
	}
	row += scrollWindow(len(vis), rowsH, indexOf(vis, m.sel))
	if row >= len(vis) {
		return 0, false
	}
	return vis[row], true
}

func (m Model) tabTitles() []string {
	out := make([]string, len(m.panes))
	for i, p := range m.panes {
		out[i] = fmt.Sprintf("%d %s", i+1, p.Title())
	}
	return out
}

// tabAt is the tab under column x of the tab bar, or −1; tabs are drawn with one cell of padding
// on each side.
func tabAt(titles []string, x int) int {
	at := 0
	for i, t := range titles {
		w := lipgloss.Width(t) + 2
		if x >= at && x < at+w {
			return i
		}
		at += w
	}
	return -1
}

// View renders the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	if m.width == 0 {
		return "starting splitscope…"
	}
	if m.lay.TooSmall {
		msg := fmt.Sprintf("splitscope needs at least %d×%d; this terminal is %d×%d.\nEnlarge it, or press q to quit.",
			MinWidth, MinHeight, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
	}
	// Compose line by line: lipgloss' joins re-measure every line of both boxes, and the frame
	// is redrawn up to 30 times a second.
	main := strings.Split(m.mainView(), "\n")
	if !m.present {
		params := strings.Split(m.paramsView(), "\n")
		for i := range main {
			if i < len(params) {
				main[i] = params[i] + main[i]
			}
		}
	}
	var b strings.Builder
	b.WriteString(m.titleView())
	for _, l := range main {
		b.WriteString("\n")
		b.WriteString(l)
	}
	b.WriteString("\n")
	b.WriteString(m.footerView())
	return b.String()
}

func (m Model) titleView() string {
	s := m.cur
	if m.hasData {
		s = m.data.Scenario
	}
	line := " splitscope · " + static.Header(s)
	return m.styles.Title.Width(m.width).Render(ansi.Truncate(line, m.width, "…"))
}

func (m Model) paramsView() string {
	r := m.lay.Params
	innerW, innerH := r.W-2, r.H-2
	notes := m.paramNotes(innerW, innerH)
	vis := visibleFields(m.fields, &m.cur)
	rowsH := innerH - len(notes)
	first := scrollWindow(len(vis), rowsH, indexOf(vis, m.sel))
	var lines []string
	for _, i := range vis[first:min(first+rowsH, len(vis))] {
		f := m.fields[i]
		label := f.label
		val := f.get(&m.cur)
		_, bad := m.fieldErrs[f.name]
		if bad {
			val = "✗ " + val
		}
		marker := " "
		if i == m.sel {
			marker = "›"
		}
		gap := max(innerW-lipgloss.Width(label)-lipgloss.Width(val)-2, 1)
		text := marker + label + strings.Repeat(" ", gap) + val + " "
		text = ansi.Truncate(text, innerW, "…")
		switch {
		case i == m.sel && bad:
			text = m.styles.ValueError.Reverse(true).Render(text)
		case i == m.sel:
			text = m.styles.ValueSelected.Render(text)
		case bad:
			text = m.styles.ValueError.Render(text)
		}
		lines = append(lines, text)
	}
	for len(lines) < rowsH {
		lines = append(lines, "")
	}
	lines = append(lines, notes...)
	content := fitLines(lines, innerW, innerH)
	return box(m.styles.Pane, content, innerW, innerH)
}

// paramNotes is what goes under the parameter rows: the value being typed, or why the selected
// (or some) field is invalid; at most half the panel.
func (m Model) paramNotes(innerW, innerH int) []string {
	var notes []string
	if m.editing {
		notes = append(notes, " "+m.fields[m.sel].label+":", " "+m.input.View())
		if m.inputErr != "" {
			notes = append(notes, wrap(m.styles.ValueError, m.inputErr, innerW)...)
		}
	} else if reason, ok := m.fieldErrs[m.fields[m.sel].name]; ok {
		notes = append(notes, wrap(m.styles.ValueError, reason, innerW)...)
	} else if len(m.fieldErrs) > 0 {
		notes = append(notes, wrap(m.styles.ValueError, fmt.Sprintf("%d invalid field(s): select the red one", len(m.fieldErrs)), innerW)...)
	} else if m.evalErr != nil {
		notes = append(notes, wrap(m.styles.ValueError, m.evalErr.Error(), innerW)...)
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

func (m Model) mainView() string {
	r := m.lay.Main
	innerW := r.W - 2
	var tabs []string
	for i, t := range m.tabTitles() {
		st := m.styles.Tab
		if i == m.tab {
			st = m.styles.TabActive
		}
		tabs = append(tabs, st.Render(t))
	}
	tabLine := ansi.Truncate(lipgloss.JoinHorizontal(lipgloss.Top, tabs...), innerW, "…")
	var content string
	if m.hasData || m.tab == TabBox { // the Box tab does not need an evaluation
		content = m.panes[m.tab].View()
	} else if m.evalErr != nil {
		content = m.styles.Error.Render(m.evalErr.Error())
	} else {
		content = m.styles.Dim.Render("evaluating…")
	}
	content = fitLines(strings.Split(content, "\n"), innerW, m.lay.Content.H)
	return box(m.styles.PaneFocused, tabLine+"\n"+content, innerW, r.H-2)
}

// helpView is the key help, cut to the terminal's width.
func (m Model) helpView() string {
	lines := strings.Split(m.help.View(m.keys), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, max(m.width, 1), "…")
	}
	return strings.Join(lines, "\n")
}

func (m Model) footerView() string {
	return m.helpView() + "\n" + m.verdict()
}

// verdict is the footer's one-line summary of the current result.
func (m Model) verdict() string {
	if !m.hasData {
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
	parts = append(parts, "bubble "+static.Percent(r.BubbleFraction), "comm "+static.Percent(r.CommFraction))
	mem := r.Memory
	fits := m.styles.OK.Render(fmt.Sprintf("fits %s / %s", static.Bytes(mem.Total), static.Bytes(mem.Capacity)))
	if !mem.Fits {
		fits = m.styles.Over.Render(fmt.Sprintf("OVER by %s", static.Bytes(mem.Total-mem.Capacity))) +
			m.styles.Dim.Render(" (more GPUs, recompute, ZeRO, or see 4 Memory)")
	}
	parts = append(parts, fits)
	line := " " + strings.Join(parts, " · ")
	if m.data.Stale {
		reason := "invalid change"
		if r, ok := m.fieldErrs[m.fields[m.sel].name]; ok {
			reason = r
		} else {
			for _, f := range m.fields {
				if r, ok := m.fieldErrs[f.name]; ok {
					reason = r
					break
				}
			}
		}
		line = m.styles.Warn.Render(" ✗ "+reason+" · last valid:") + m.styles.Dim.Render(line)
	}
	return ansi.Truncate(line, m.width, "…")
}

// box draws a rounded border in the style's border colour around content of exactly h lines
// of at most w cells (fitLines' output), padding each line to w.
func box(st lipgloss.Style, content string, w, h int) string {
	paint := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	side := paint.Render("│")
	var b strings.Builder
	b.WriteString(paint.Render("╭" + strings.Repeat("─", w) + "╮"))
	lines := strings.Split(content, "\n")
	for i := 0; i < h; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString("\n")
		b.WriteString(side)
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", max(w-ansi.StringWidth(l), 0)))
		b.WriteString(side)
	}
	b.WriteString("\n")
	b.WriteString(paint.Render("╰" + strings.Repeat("─", w) + "╯"))
	return b.String()
}

// fitLines pads or cuts lines to exactly h lines of at most w cells.
func fitLines(lines []string, w, h int) string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = ansi.Truncate(lines[i], w, "")
		}
	}
	return strings.Join(out, "\n")
}

// wrap word-wraps text to width w in a style.
func wrap(st lipgloss.Style, text string, w int) []string {
	return strings.Split(st.Width(max(w-1, 1)).Render(text), "\n")
}
