// Package tui is the explorer: a bubbletea program over the cost engine. The root Model owns the
// scenario being edited, the parameter panel, the tabs and the footer; each tab is a pane in its
// own package (tui/pipeline, tui/tensor, tui/compare, tui/memory, tui/boxtab, tui/learn) behind
// common.Pane. Evaluation runs in a tea.Cmd tagged with a revision, so Update never blocks and
// stale results are dropped.
//
// For teaching, the root also runs the guided tour (g: the scenarios of assets/scenarios/tour,
// each with its tab and a caption of live numbers), the "why?" key (w: the focused tab's
// explanation on the Learn tab), presentation mode (P) and the save and export keys (s, x).
package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	"github.com/splitscope/splitscope/tui/export"
	"github.com/splitscope/splitscope/tui/learn"
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
	TabLearn
)

// noteFor is how long a footer note ("saved to …") stays.
const noteFor = 4 * time.Second

// tourTabs is the tab each tour step shows its effect on.
var tourTabs = map[string]int{
	"one-gpu": TabMemory, "pp-split": TabPipeline, "bubble": TabPipeline, "micro-batches": TabPipeline,
	"tp-split": TabTensor, "all-reduce": TabTensor, "pcie": TabTensor,
	"tp-node-pp-across": TabCompare, "inference": TabCompare,
}

// whySections is the Learn section that explains each tab (the "why?" key).
var whySections = map[int]learn.Section{
	TabPipeline: learn.SecBubble, TabTensor: learn.SecAllReduce, TabMemory: learn.SecMemory, TabCompare: learn.SecWinner,
}

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

// noteMsg puts a line in the footer for noteFor (what a save or an export did).
type noteMsg struct {
	text string
	err  bool
}

// clearNoteMsg takes the footer note away, unless a newer one replaced it.
type clearNoteMsg struct{ seq int }

// tourState is the guided tour: its steps, the step shown, and what to restore on leaving.
type tourState struct {
	on    bool
	steps []string
	files []assets.ScenarioFile
	at    int
	// The user's own scenario, tab and selected parameter, restored exactly by Esc.
	saved    model.Scenario
	savedTab int
	savedSel int
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
	pipe    *pipeline.Model
	learn   *learn.Model
	// cmp is the last comparison received; cmpOK says it belongs to the current revision.
	cmp     common.Compare
	cmpHave bool
	cmpOK   bool

	// Teaching: the language of the Learn tab and the tour, the tour, presentation mode (high
	// contrast, large lanes, no parameter panel), the "why?" key's way back, a footer note.
	lang         string
	texts        *learn.Texts
	tour         tourState
	presentation bool
	whyFrom      int
	capRows      int
	note         string
	noteErr      bool
	noteSeq      int
	// saveDir is where s and x write ("" is the current directory; tests use a temporary one).
	saveDir string
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
	lang  string
}

// WithLang sets the language of the Learn tab and the guided tour: "en" (the default), "fr", or
// a locale such as "fr_FR.UTF-8". A language without texts reads English. The rest of the
// explorer is in English.
func WithLang(lang string) Option {
	return func(o *options) { o.lang = lang }
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
	lang := assets.NormalizeLang(o.lang)
	texts, err := assets.Texts(lang)
	if err != nil {
		lang = assets.DefaultLang
		texts, _ = assets.Texts(lang) // the embedded English texts; a test loads them
	}
	cmp := compare.New(st)
	bx := boxtab.New(st, o.probe, p)
	pipe := pipeline.New(st)
	lrn := learn.New(st, texts)
	m := Model{
		presets: p, styles: st, keys: DefaultKeyMap(), help: help.New(),
		fields: fields(), input: in, fieldErrs: map[string]string{}, cur: s, compare: cmp, box: bx,
		pipe: pipe, learn: lrn, lang: lang, texts: learn.NewTexts(texts),
		panes: []common.Pane{pipe, tensor.New(st), cmp, memory.New(st), bx, lrn},
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
			m.cmp, m.cmpHave, m.cmpOK = msg.cmp, true, true
			m.compare.SetCompare(msg.cmp)
			m.learn.SetCompare(msg.cmp)
		}
		return m, nil
	case noteMsg:
		m.noteSeq++
		m.note, m.noteErr = msg.text, msg.err
		seq := m.noteSeq
		return m, tea.Tick(noteFor, func(time.Time) tea.Msg { return clearNoteMsg{seq: seq} })
	case clearNoteMsg:
		if msg.seq == m.noteSeq {
			m.note = ""
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
	helpH := lipgloss.Height(m.helpView())
	// The tour's caption: four lines at 100 columns and more, five narrower, and never more than
	// the footer's third of the screen allows.
	m.capRows = 4
	if m.width < 100 {
		m.capRows = 5
	}
	m.capRows = max(min(m.capRows, m.height/3-helpH-1-2), 1)
	footer := 1 + helpH + m.captionHeight()
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
	if m.tour.on {
		switch {
		case key.Matches(msg, m.keys.Cancel):
			return m.leaveTour()
		case key.Matches(msg, m.keys.Dec):
			return m.tourStep(m.tour.at - 1)
		case key.Matches(msg, m.keys.Inc):
			return m.tourStep(m.tour.at + 1)
		}
	}
	vis := visibleFields(m.fields, &m.cur)
	switch {
	case key.Matches(msg, m.keys.Tour):
		if m.tour.on {
			return m, nil
		}
		return m.startTour()
	case key.Matches(msg, m.keys.Why):
		return m.why()
	case key.Matches(msg, m.keys.Presentation):
		return m.setPresentation(!m.presentation)
	case key.Matches(msg, m.keys.Save):
		return m.save()
	case key.Matches(msg, m.keys.Export):
		return m.export()
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
	m.learn.Invalidate()
	m.cmpOK = false
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

// tabTitles are the tab labels, "1 Pipeline", or without their numbers when the tab bar is too
// narrow for six numbered tabs (80 columns with the parameter panel).
func (m Model) tabTitles() []string {
	out := make([]string, len(m.panes))
	w := 0
	for i, p := range m.panes {
		out[i] = fmt.Sprintf("%d %s", i+1, p.Title())
		w += lipgloss.Width(out[i]) + 2
	}
	if m.lay.Tabs.W > 0 && w > m.lay.Tabs.W {
		for i, p := range m.panes {
			out[i] = p.Title()
		}
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
	if m.tour.on {
		b.WriteString("\n")
		b.WriteString(m.captionView())
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

// helpView is the key help, cut to the terminal's width; during the tour, how to move through it.
func (m Model) helpView() string {
	if m.tour.on && !m.help.ShowAll {
		line := fmt.Sprintf(" tour %d/%d · ←/→ · esc leaves", m.tour.at+1, len(m.tour.steps))
		rest := m.styles.Dim.Render(" · tab other tabs · w why? · P presentation · q quit")
		return ansi.Truncate(m.styles.Bold.Render(line)+rest, max(m.width, 1), "…")
	}
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
	parts = append(parts, "bubble "+static.Percent(r.BubbleFraction), "comm "+static.Percent(r.CommFraction))
	mem := r.Memory
	fits := m.styles.OK.Render(fmt.Sprintf("fits %s / %s", static.Bytes(mem.Total), static.Bytes(mem.Capacity)))
	if !mem.Fits {
		fits = m.styles.Over.Render(fmt.Sprintf("OVER by %s", static.Bytes(mem.Total-mem.Capacity))) +
			m.styles.Dim.Render(" (more GPUs, recompute, ZeRO, or see 4 Memory)")
	}
	parts = append(parts, fits)
	line := " " + strings.Join(parts, " · ")
	if m.note != "" {
		st := m.styles.OK
		if m.noteErr {
			st = m.styles.Error
		}
		line = st.Render(" "+m.note) + m.styles.Dim.Render(" ·") + line
	}
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

// Teaching: the guided tour, the "why?" key, presentation mode, save and export.

// captionRows is the number of text lines of the tour's caption box (resize sets it).
func (m Model) captionRows() int { return max(m.capRows, 1) }

// captionHeight is the caption box's height with its borders, 0 outside the tour.
func (m Model) captionHeight() int {
	if !m.tour.on {
		return 0
	}
	return m.captionRows() + 2
}

// tourReady reports whether the result on screen is the tour step's own evaluation.
func (m Model) tourReady() bool {
	return m.hasData && !m.data.Stale && m.data.Scenario == m.cur
}

// captionView is the tour step's caption in a box across the screen, its title in the top border:
// what to look at, with the numbers of the step's evaluation.
func (m Model) captionView() string {
	w := max(m.width-2, 1)
	step := m.tour.steps[m.tour.at]
	f := learn.NewFacts(m.data, m.cmp, m.cmpOK)
	title, lines, err := learn.Caption(m.texts, step, f, m.tourReady(), w-2)
	if err != nil {
		title, lines = step, []string{m.styles.Error.Render(err.Error())}
	}
	rows := m.captionRows()
	if len(lines) > rows {
		lines = lines[:rows]
		lines[rows-1] = ansi.Truncate(lines[rows-1]+" …", w-2, "…")
	}
	for i, l := range lines {
		lines[i] = " " + l
	}
	paint := lipgloss.NewStyle().Foreground(m.styles.PaneFocused.GetBorderTopForeground())
	head := fmt.Sprintf(" %d/%d · %s ", m.tour.at+1, len(m.tour.steps), title)
	head = ansi.Truncate(head, max(w-2, 1), "…")
	top := paint.Render("╭─") + m.styles.Bold.Render(head) + paint.Render(strings.Repeat("─", max(w-1-lipgloss.Width(head), 0))+"╮")
	body := box(m.styles.PaneFocused, fitLines(lines, w, rows), w, rows)
	return top + body[strings.Index(body, "\n"):]
}

// startTour saves the user's scenario and tab and shows the tour's first step.
func (m Model) startTour() (tea.Model, tea.Cmd) {
	steps := assets.TourSteps()
	files := make([]assets.ScenarioFile, 0, len(steps))
	for _, name := range steps {
		f, err := assets.TourScenario(name, m.presets)
		if err != nil {
			return m, noteCmd("can't start the tour: "+err.Error(), true)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return m, noteCmd("can't start the tour: no tour scenarios", true)
	}
	m.tour = tourState{on: true, steps: steps, files: files, at: -1, saved: m.cur, savedTab: m.tab, savedSel: m.sel}
	return m.tourStep(0)
}

// tourStep shows step i (clamped): its scenario, its tab, its caption.
func (m Model) tourStep(i int) (tea.Model, tea.Cmd) {
	i = min(max(i, 0), len(m.tour.files)-1)
	if i == m.tour.at {
		return m, nil
	}
	m.tour.at = i
	m.cur = m.tour.files[i].Scenario
	m.boxErr, m.editing, m.inputErr = "", false, ""
	m.input.Blur()
	tab, ok := tourTabs[m.tour.steps[i]]
	if !ok {
		tab = TabPipeline
	}
	// Each step's pipeline sweeps from the start, so the fill shows; a paused one stays paused.
	m.pipe.Update(tea.KeyMsg{Type: tea.KeyHome})
	next, evalCmd := m.changed()
	next, tabCmd := next.(Model).setTab(tab)
	return next, tea.Batch(evalCmd, tabCmd)
}

// leaveTour restores the user's own scenario, tab and selection exactly.
func (m Model) leaveTour() (tea.Model, tea.Cmd) {
	saved := m.tour
	m.tour = tourState{}
	m.cur, m.sel = saved.saved, saved.savedSel
	next, evalCmd := m.changed()
	next, tabCmd := next.(Model).setTab(saved.savedTab)
	return next, tea.Batch(evalCmd, tabCmd)
}

// why shows the Learn tab's explanation of the focused tab; on the Learn tab it goes back.
func (m Model) why() (tea.Model, tea.Cmd) {
	if m.tab == TabLearn {
		return m.setTab(m.whyFrom)
	}
	sec, ok := whySections[m.tab]
	if !ok {
		return m, nil
	}
	m.whyFrom = m.tab
	m.learn.ScrollTo(sec)
	return m.setTab(TabLearn)
}

// setPresentation turns presentation mode on or off: the parameter panel hidden, the
// high-contrast theme, taller pipeline lanes. The Tensor, Compare and Memory panes are rebuilt
// with the new styles (they take them once); the Pipeline and Learn panes keep their state.
func (m Model) setPresentation(on bool) (tea.Model, tea.Cmd) {
	m.presentation, m.present = on, on
	st := theme.Default()
	if on {
		st = theme.HighContrast()
	}
	m.styles = st
	m.pipe.SetStyles(st)
	m.pipe.SetLarge(on)
	m.learn.SetStyles(st)
	cmp := compare.New(st)
	panes := []common.Pane{m.pipe, tensor.New(st), cmp, memory.New(st), m.box, m.learn}
	for _, p := range []common.Pane{panes[1], cmp, panes[3]} {
		if m.hasData {
			p.SetData(m.data)
		}
	}
	if m.cmpHave {
		cmp.SetCompare(m.cmp)
		if !m.cmpOK {
			cmp.Invalidate()
		}
	}
	m.compare, m.panes = cmp, panes
	m.keys.pane = m.panes[m.tab].Keys()
	m.resize()
	m.ticking = false // the rebuilt pane may animate: arm a fresh clock
	cmd := m.ensureTick()
	return m, cmd
}

// noteCmd puts a line in the footer.
func noteCmd(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return noteMsg{text: text, err: isErr} }
}

// fileStem is "splitscope-<model>" with only the model ID's safe characters.
func fileStem(s model.Scenario) string {
	id := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s.Arch.ID)
	if id == "" {
		id = "scenario"
	}
	return "splitscope-" + id
}

// save writes the scenario being edited to splitscope-<model>-<n>.yaml in the save directory,
// n the first number not taken, in a command; the footer says where.
func (m Model) save() (tea.Model, tea.Cmd) {
	if len(m.fieldErrs) > 0 {
		return m, noteCmd("not saved: fix the red field first", true)
	}
	title := static.Header(m.cur)
	if m.tour.on {
		title = m.tour.files[m.tour.at].Title
	}
	return m, saveScenario(m.saveDir, fileStem(m.cur), assets.MarshalScenario(m.cur, title))
}

// saveScenario creates the first free splitscope-<model>-<n>.yaml (never overwriting one).
func saveScenario(dir, stem string, data []byte) tea.Cmd {
	return func() tea.Msg {
		for n := 1; n < 10000; n++ {
			name := filepath.Join(dir, stem+"-"+strconv.Itoa(n)+".yaml")
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, os.ErrExist) {
				continue
			}
			if err != nil {
				return noteMsg{text: "not saved: " + err.Error(), err: true}
			}
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return noteMsg{text: "not saved: " + err.Error(), err: true}
			}
			return noteMsg{text: "saved to " + name}
		}
		return noteMsg{text: "not saved: too many " + stem + "-N.yaml files", err: true}
	}
}

// export writes the last valid result's Pipeline and Tensor picture (splitscope-<model>.svg) and
// its report with the comparison (splitscope-<model>.md), in the Learn tab's language.
func (m Model) export() (tea.Model, tea.Cmd) {
	if !m.hasData {
		return m, noteCmd("nothing to export yet", true)
	}
	var cmp common.Compare
	if m.cmpOK {
		cmp = m.cmp
	}
	d, dir, lang := m.data, m.saveDir, m.lang
	stem := filepath.Join(dir, fileStem(d.Scenario))
	return m, func() tea.Msg {
		var svg, md bytes.Buffer
		if err := export.SVG(&svg, d.Scenario, d.Report, export.SVGOptions{Lang: lang}); err != nil {
			return noteMsg{text: "export failed: " + err.Error(), err: true}
		}
		if err := export.Markdown(&md, d.Scenario, d.Report, cmp, lang); err != nil {
			return noteMsg{text: "export failed: " + err.Error(), err: true}
		}
		for _, f := range []struct {
			name string
			data []byte
		}{{stem + ".svg", svg.Bytes()}, {stem + ".md", md.Bytes()}} {
			if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
				return noteMsg{text: "export failed: " + err.Error(), err: true}
			}
		}
		return noteMsg{text: "exported " + stem + ".svg and .md"}
	}
}
