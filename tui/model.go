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
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab"
	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/memory"
	"github.com/splitscope/splitscope/tui/pipeline"
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
	"tp-node-pp-across": TabCompare, "inference": TabCompare, "experts": TabMemory,
	"long-context": TabTensor, // the CP exchange of one layer, played
}

// whySections is the Learn section that explains each tab (the "why?" key).
var whySections = map[int]learn.Section{
	TabPipeline: learn.SecBubble, TabTensor: learn.SecAllReduce, TabMemory: learn.SecMemory, TabCompare: learn.SecWinner,
}

// resultMsg carries an evaluation back to Update.
type resultMsg struct {
	rev     int
	skipped bool // superseded before it ran (take, in work.go)
	s       model.Scenario
	report  costmodel.Report
	toFit   *costmodel.FitChange // when the report does not fit
	knobs   []costmodel.KnobSaving
	noCP    *common.CompareRow
	err     error
}

// compareMsg carries the Compare tab's contenders back to Update.
type compareMsg struct {
	rev     int
	skipped bool
	cmp     common.Compare
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
	// quiz is the step's question, answered or not (the step's own from quizzes, or fresh).
	quiz classroom.Quiz
}

// Model is the explorer's root model.
type Model struct {
	presets *assets.Presets
	styles  *theme.Styles // by pointer: 22 KB that every Update would copy
	keys    keyMap

	fields  []field
	sel     int // index into fields
	editing bool
	input   *textinput.Model // shared by copies of the Model until written: see editInput
	// inputSel says the typed value is still the field's whole text, selected: the first key
	// typed replaces it.
	inputSel bool
	inputErr string
	// offer is set when the last edit could not apply: why, and the nearest valid scenario that
	// y takes. moved says what else the last applied edit changed (DP, m, …).
	offer *offer
	moved string
	// helpOpen shows every key in the main pane, scrolled to helpTop.
	helpOpen bool
	helpTop  int

	cur model.Scenario // being edited; may be invalid
	rev int            // revision of cur; results of older revisions are dropped
	// At most one evaluation and one comparison run at a time, each for the newest revision
	// when it started (newest, shared with the commands, which skip a superseded one): evalAt
	// and cmpAt are the revisions running, 0 for none; work holds the places they take
	// (WithWorkSlots; nil: no limit).
	evalAt, cmpAt int
	evalRev       int // the revision of the last result taken (data or evalErr)
	newest        *atomic.Int64
	work          chan struct{}
	memo          *Memo // results shared with other explorers (WithMemo); nil: none
	// lesson is the guided tour's steps when they are the user's own (WithLesson); nil: the
	// embedded tour.
	lesson []assets.ScenarioFile
	// readArch reads a config.json typed into the model row (WithModelReader; nil: served).
	readArch func(path string) (model.Arch, error)
	data     common.Data // the last valid evaluation
	hasData  bool
	evalErr  error

	compare *compare.Model
	box     *boxtab.Model
	pipe    *pipeline.Model
	learn   *learn.Model
	// cmp is the last comparison received; cmpOK says it belongs to the current revision.
	cmp     common.Compare
	cmpHave bool
	cmpOK   bool
	// sweep is the Compare tab's sequence sweeps (work.go: ensureSweep); shared by copies.
	sweep *sweepState

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
	// calib is the calibration file the presets' links were calibrated with ("" for none).
	calib string
	// calibFit is what the calibration file holds (its parameters and its fit), nil when the
	// explorer was told only its name: the footer says what it calibrates and how well it fits.
	calibFit *model.Calibration
	// trace is the profiler traces overlaid on the Pipeline tab (nil for none); shared by copies.
	trace *traceState
	// saveDir is where s and x write ("" is the current directory; tests use a temporary one).
	saveDir string
	// served: s and x show what they would write (sheet, scrolled to sheetTop) instead of
	// writing on the serving machine's disk. renderer draws every style (theme.For).
	served bool
	// frame is the time between animation frames (WithFrameInterval).
	frame    time.Duration
	sheet    []string
	sheetTop int
	renderer *lipgloss.Renderer
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
	// quizzes are the tour's answers by step, kept when the tour moves on (teach.go): back on
	// a step, its answer and reveal are as they were; in a class, also across leaving the tour
	// and following again.
	quizzes classroom.Answers

	// vc is the frame's cache (viewcache.go); gen counts the messages other than frame ticks
	// and the pane's own keys, footGen those keys (they change the footer's key help alone).
	vc      *viewCache
	gen     int
	footGen int

	// class is the classroom: a served explorer that leads (the teacher's) or follows (a
	// student's); zero elsewhere.
	class classroom.Class
}

// Option configures the explorer.
type Option func(*options)

type options struct {
	probe    func() (gpu.Box, error)
	source   string
	lang     string
	calib    string
	calibFit *model.Calibration
	traces   []string
	renderer *lipgloss.Renderer
	served   bool
	frame    time.Duration
	lead     func(Lead)
	follow   func(Follow)
	answer   func(Answer)
	reveal   func(Reveal)
	work     chan struct{}
	memo     *Memo
	lesson   []assets.ScenarioFile
	readArch func(path string) (model.Arch, error)
}

// WithModelReader lets the model row take a config.json path (or its folder), read by read in a
// command (bounded, the CLI's reader); without it (splitscope serve: a student's text never
// names a file on the server) the row takes preset ids alone.
func WithModelReader(read func(path string) (model.Arch, error)) Option {
	return func(o *options) { o.readArch = read }
}

// WithRenderer draws the explorer with a renderer of its own (its colour profile and
// background) instead of lipgloss' default one: splitscope serve gives each SSH session the
// renderer of the client's terminal.
func WithRenderer(r *lipgloss.Renderer) Option {
	return func(o *options) { o.renderer = r }
}

// WithLesson makes the guided tour (g) the user's own lesson: its steps in order, each a scenario
// file with a title, a caption and optionally a question and a tab (assets.ParseLesson).
func WithLesson(steps []assets.ScenarioFile) Option {
	return func(o *options) { o.lesson = steps }
}

// lessonStep is the name a lesson's step i goes by in the texts and the tour.
func lessonStep(i int) string { return fmt.Sprintf("lesson-%d", i+1) }

// lessonTabs are the tabs a lesson step may name (assets.LessonTabs).
var lessonTabs = map[string]int{"pipeline": TabPipeline, "tensor": TabTensor, "compare": TabCompare,
	"memory": TabMemory, "box": TabBox, "learn": TabLearn}

// WithWorkSlots makes the explorer's evaluations and comparisons (the cost model and its search,
// in commands) take one of slots' places while they compute: splitscope serve shares a few
// among every session, so that a class changing parameters at once (a held ←: 30 scenarios a
// second a student, each with its search) leaves the cores free for the frames. A place is
// taken only by the session's newest scenario: one superseded while it waits is skipped.
func WithWorkSlots(slots chan struct{}) Option {
	return func(o *options) { o.work = slots }
}

// WithServed marks the explorer as served to someone else's terminal (splitscope serve): s and
// x write nothing on this machine's disk and show the scenario file or the report on screen
// instead. The Box tab's probe is the caller's choice (WithProbe, WithSavedBox).
func WithServed() Option {
	return func(o *options) { o.served = true }
}

// WithFrameInterval paces the animations' frames (common.FrameInterval, 30 a second, by
// default; never faster): splitscope serve draws fewer frames a second for each session so that a
// class shares the server's cores. The animations keep their pace, frames only come less often.
func WithFrameInterval(d time.Duration) Option {
	return func(o *options) { o.frame = max(d, common.FrameInterval) }
}

// WithCalibration says that the presets' links carry a calibration file's measurements (name is
// the file, as the title shows it): splitscope --calibration FILE.
func WithCalibration(name string) Option {
	return func(o *options) { o.calib = name }
}

// WithCalibrationFile is WithCalibration with what the file holds: the footer then says what
// it calibrates (its serving parameters, its links) and its fit's error on the files it was
// fitted to; the title counts a serving calibration of the scenario's GPU as calibrating it.
func WithCalibrationFile(name string, c model.Calibration) Option {
	return func(o *options) { o.calib, o.calibFit = name, &c }
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

// WithSavedBox shows a box read from a file on the Box tab (name is the file) instead of probing.
func WithSavedBox(name string, b gpu.Box) Option {
	return func(o *options) {
		o.probe = func() (gpu.Box, error) { return b, nil }
		o.source = name
	}
}

// New builds the explorer for a starting scenario.
func New(s model.Scenario, p *assets.Presets, opts ...Option) Model {
	o := options{probe: gpu.Probe}
	for _, opt := range opts {
		opt(&o)
	}
	if o.renderer == nil {
		o.renderer = lipgloss.DefaultRenderer()
	}
	st := theme.For(o.renderer)
	in := newInput()
	lang := assets.NormalizeLang(o.lang)
	texts, err := assets.Texts(lang)
	if err != nil {
		lang = assets.DefaultLang
		texts, _ = assets.Texts(lang) // the embedded English texts; a test loads them
	}
	for i, f := range o.lesson { // a lesson's steps bring their own texts
		name := lessonStep(i)
		caption := f.Caption[lang]
		if caption == "" {
			caption = f.Caption[assets.DefaultLang]
		}
		texts["tour."+name+".title"], texts["tour."+name+".caption"] = f.Title, caption
	}
	cmp := compare.New(st)
	bx := boxtab.New(st, o.probe, p)
	bx.SetSource(o.source)
	pipe := pipeline.New(st)
	lrn := learn.New(st, texts)
	m := Model{
		presets: p, styles: &st, keys: DefaultKeyMap(),
		fields: fields(), input: &in, cur: s, compare: cmp, box: bx,
		pipe: pipe, learn: lrn, lang: lang, texts: learn.NewTexts(texts),
		panes: []common.Pane{pipe, tensor.New(st), cmp, memory.New(st), bx, lrn},
		calib: o.calib, calibFit: o.calibFit, renderer: o.renderer, served: o.served, frame: max(o.frame, common.FrameInterval),
		class: classroom.New(o.lead, o.follow, o.answer, o.reveal),
		vc:    &viewCache{}, work: o.work, memo: o.memo, newest: &atomic.Int64{}, lesson: o.lesson,
		readArch: o.readArch, sweep: &sweepState{cache: map[model.Scenario]common.SeqSweep{}},
	}
	if len(o.traces) > 0 {
		m.trace = &traceState{paths: o.traces, loading: true}
	}
	m.keys.pane = m.panes[m.tab].Keys()
	return m
}

// editInput is the text input to change: a copy of the one this Model shares with the copies
// Update made of it (the input is 5 KB, and every Update returns the Model boxed), so that an
// earlier Model keeps what it had.
func (m *Model) editInput() *textinput.Model {
	in := *m.input
	m.input = &in
	return m.input
}

// Init starts the first evaluation.
func (m Model) Init() tea.Cmd {
	var tr tea.Cmd
	if m.trace != nil {
		tr = traceCmd(m.trace.paths)
	}
	return tea.Batch(m.evalCmd(), m.cmpCmd(), tr)
}

// evaluateAll starts the evaluation and the comparison of the current revision, each unless
// one is running already: that one's result starts the newest when it comes back (update).
func (m *Model) evaluateAll() tea.Cmd {
	m.newest.Store(int64(m.rev))
	return m.startWork()
}

// startWork starts what the current revision lacks and nothing runs for: its evaluation, its
// comparison.
func (m *Model) startWork() tea.Cmd {
	var cmds []tea.Cmd
	if m.evalAt == 0 && m.evalRev != m.rev {
		m.evalAt = m.rev
		cmds = append(cmds, m.evalCmd())
	}
	if m.cmpAt == 0 && !m.cmpOK {
		m.cmpAt = m.rev
		cmds = append(cmds, m.cmpCmd())
	}
	return tea.Batch(cmds...)
}

// evaluate runs the cost model off the update loop.
func evaluate(rev int, s model.Scenario) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = resultMsg{rev: rev, s: s, err: fmt.Errorf("cost model panicked: %v", r)}
			}
		}()
		// Knobs left to search take its choice for the split first (the panel's "auto → …").
		s, err := costmodel.ResolveAuto(s)
		if err != nil {
			return resultMsg{rev: rev, s: s, err: err}
		}
		r, err := costmodel.Evaluate(s)
		var toFit *costmodel.FitChange
		var knobs []costmodel.KnobSaving
		if err == nil && !r.Memory.Fits {
			toFit, _ = costmodel.MakeItFit(s) // none found is nil, as is an error: the footer says so
		}
		if err == nil {
			knobs, _ = costmodel.KnobSavings(s) // the Memory tab's list; none on an error
		}
		var noCP *common.CompareRow
		if err == nil {
			noCP = withoutCP(s)
		}
		return resultMsg{rev: rev, s: s, report: r, toFit: toFit, knobs: knobs, noCP: noCP, err: err}
	}
}

// withoutCP evaluates s (training, CP > 1) with its CP group as data parallelism instead: the
// same TP and PP, DP × CP replicas, the batch raised to a multiple of them if need be. Nil at
// CP 1, in serving, or when that layout is invalid.
func withoutCP(s model.Scenario) *common.CompareRow {
	c := s.Layout.CPSize()
	if s.Workload.Mode != model.Train || c <= 1 {
		return nil
	}
	s.Layout.DP *= c
	s.Layout.CP, s.Layout.CPComm = 0, model.CPRing
	if unit := s.Layout.DP * max(s.Layout.MicroBatch, 1); s.Workload.GlobalBatch%unit != 0 {
		s.Workload.GlobalBatch = (s.Workload.GlobalBatch/unit + 1) * unit
	}
	r, err := costmodel.EvaluateFast(s)
	if err != nil {
		return nil
	}
	return &common.CompareRow{Name: "without CP", Layout: s.Layout, Report: r, Feasible: r.Memory.Fits}
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

func tick(every time.Duration) tea.Cmd {
	return tea.Tick(every, func(t time.Time) tea.Msg { return common.FrameMsg(t) })
}

// Update routes messages: the classroom's (see class.go), then global keys, size, domain
// messages, then the focused pane.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && !m.editing {
		return m.eachRune(k)
	}
	if _, frame := msg.(common.FrameMsg); !frame {
		m.gen++ // anything but a frame tick may change what the frame's cache holds
	}
	var next tea.Model
	var cmd tea.Cmd
	if !m.class.On() {
		next, cmd = m.update(msg)
	} else {
		next, cmd = m.classUpdate(msg)
	}
	if n, ok := next.(Model); ok && n.tour.on {
		if _, frame := msg.(common.FrameMsg); !frame {
			n.refitCaption() // the caption may have grown or shrunk: a result, an answer, a step
			next = n
		}
	}
	return next, cmd
}

// eachRune takes keys that arrived together as one message (typed fast, or batched by an SSH
// connection: Bubble Tea reads "246" as one key of three runes) one rune at a time, as they were
// typed: a tour answer typed quickly is the number typed, not a key nothing matches.
func (m Model) eachRune(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	var next tea.Model = m
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		var cmd tea.Cmd
		next, cmd = next.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt})
		cmds = append(cmds, cmd)
	}
	return next, tea.Batch(cmds...)
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if boxtab.Owns(msg) {
		// Probe and capacity results reach the Box pane whichever tab is active; it drops stale ones.
		return m, tea.Batch(m.box.Update(msg), m.box.Recheck())
	}
	switch msg := msg.(type) {
	case traceMsg:
		if m.trace != nil {
			m.trace.loading = false
			m.trace.set, m.trace.err = msg.set, msg.err
			m.applyOverlay()
		}
		return m, nil
	case modelReadMsg:
		return m.modelRead(msg)
	case boxtab.UseBoxMsg:
		return m.useBox(msg.Box)
	case compare.SeqViewMsg:
		m.keys.pane = m.panes[m.tab].Keys()
		return m, m.ensureSweep()
	case seqMsg:
		m.sweep.running = false
		if !msg.skipped {
			m.sweep.put(msg.key, msg.sw)
		}
		return m, m.ensureSweep()
	case compare.TakeBetterMsg:
		// The Compare tab's b: search's best layout, knobs included, through the edit path.
		return m.edit("search's best", func(s *model.Scenario) error {
			s.Layout = msg.Layout
			return nil
		})
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case resultMsg:
		if msg.rev >= m.evalAt {
			m.evalAt = 0 // the one running came back, or a newer one did
		}
		if msg.rev != m.rev || msg.skipped {
			return m, m.restart() // a newer change: evaluate it now
		}
		m.evalRev = msg.rev
		if msg.err != nil {
			m.evalErr = msg.err
			m.markStale()
			return m, nil
		}
		m.evalErr = nil
		if a := msg.s.Layout.Auto; a != 0 && m.cur.Layout.Auto == a {
			// The panel shows what search chose for the knobs left to it.
			m.cur.Layout = withAutoKnobs(m.cur.Layout, msg.s.Layout)
		}
		m.data = common.Data{Scenario: msg.s, Report: msg.report, ToFit: msg.toFit, Knobs: msg.knobs, NoCP: msg.noCP}
		m.hasData = true
		for _, p := range m.panes {
			p.SetData(m.data)
		}
		m.applyOverlay()
		return m, tea.Batch(m.ensureTick(), m.box.Recheck())
	case compareMsg:
		if msg.rev >= m.cmpAt {
			m.cmpAt = 0
		}
		if msg.rev != m.rev || msg.skipped {
			return m, m.restart()
		}
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
			return m, tea.Batch(cmd, tick(m.frame))
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
	return tick(m.frame)
}

func (m *Model) resize() {
	helpH := lipgloss.Height(m.helpView())
	m.fitCaptionRows(helpH) // the tour's caption: the rows it needs to read whole
	footer := 1 + helpH + m.captionHeight()
	m.lay = computeLayout(m.width, m.height, footer, m.present)
	if w := max(m.lay.Params.W-6, 4); m.input.Width != w {
		m.editInput().Width = w
	}
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
		return m.typing(msg)
	}
	if m.helpOpen {
		return m.helpKey(msg), nil
	}
	if m.sheet != nil {
		return m.sheetKey(msg), nil
	}
	k := m.activeKeys()
	if m.quizOpen() {
		if next, ok := m.quizKey(msg); ok {
			return next, nil
		}
	}
	if m.tour.on {
		switch {
		case key.Matches(msg, k.Cancel):
			return m.leaveTour()
		case key.Matches(msg, k.TourPrev):
			return m.tourStep(m.tour.at - 1)
		case key.Matches(msg, k.TourNext):
			return m.tourStep(m.tour.at + 1)
		}
	}
	vis := visibleFields(m.fields, &m.cur)
	switch {
	case key.Matches(msg, k.Take):
		return m.takeOffer()
	case key.Matches(msg, k.Cancel) && m.offer != nil:
		m.offer = nil
		return m, nil
	case key.Matches(msg, k.Tour):
		if m.tour.on {
			return m.leaveTour() // g again leaves, as esc does (the footer says "g or esc leaves")
		}
		return m.startTour()
	case key.Matches(msg, k.Why):
		return m.why()
	case key.Matches(msg, k.Presentation):
		return m.setPresentation(!m.presentation)
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.Export):
		return m.export()
	case key.Matches(msg, k.Help):
		m.helpOpen, m.helpTop = true, 0
		return m, nil
	case key.Matches(msg, k.NextTab):
		return m.setTab((m.tab + 1) % len(m.panes))
	case key.Matches(msg, k.PrevTab):
		return m.setTab((m.tab + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, k.Present):
		m.present = !m.present
		m.resize()
		return m, nil
	case key.Matches(msg, k.Up):
		m.sel, m.offer = moveSel(vis, m.sel, -1), nil
		return m, nil
	case key.Matches(msg, k.Down):
		m.sel, m.offer = moveSel(vis, m.sel, +1), nil
		return m, nil
	case key.Matches(msg, k.Dec):
		return m.stepField(-1)
	case key.Matches(msg, k.Inc):
		return m.stepField(+1)
	case key.Matches(msg, k.Edit):
		m.editing, m.inputErr, m.inputSel = true, "", true
		in := m.editInput()
		in.SetValue(m.fields[m.sel].get(&m.cur))
		in.CursorEnd()
		return m, in.Focus()
	}
	for i, b := range k.Tabs {
		if key.Matches(msg, b) && i < len(m.panes) {
			return m.setTab(i)
		}
	}
	// A key only the pane takes (space, +, ., …) leaves the root's state as it was: the frame's
	// cache keeps the title, strip and panel, and redraws the footer (the pane's keys).
	m.gen, m.footGen = m.gen-1, m.footGen+1
	cmd := m.panes[m.tab].Update(msg)
	return m, tea.Batch(cmd, m.ensureTick())
}

// typing handles a key while a value is typed in place: Enter applies (or, pressed again on a
// refused value, takes the offered fix), Esc cancels, and while the field's own text is still
// selected the first character typed replaces it.
func (m Model) typing(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.editing, m.inputErr, m.offer = false, "", nil
		m.editInput().Blur()
		return m, nil
	case key.Matches(msg, m.keys.Edit):
		return m.commitInput()
	}
	if m.inputSel {
		m.inputSel = false
		switch msg.Type {
		case tea.KeyRunes, tea.KeySpace:
			m.editInput().SetValue("")
		case tea.KeyBackspace, tea.KeyDelete, tea.KeyCtrlU:
			m.editInput().SetValue("")
			return m, nil
		}
	}
	m.offer = nil // the offer was for the text that was refused
	in := m.editInput()
	if key.Matches(msg, deleteWordForwardKeys) {
		deleteWordForward(in) // not bubbles' own: see input.go
		return m, nil
	}
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	return m, cmd
}

// setTab switches tabs; the Box tab polls the GPUs only while it is the active one.
func (m Model) setTab(i int) (tea.Model, tea.Cmd) {
	m.tab = i
	m.keys.pane = m.panes[i].Keys()
	m.resize()
	return m, tea.Batch(m.ensureTick(), m.box.SetActive(i == TabBox), m.box.Recheck(), m.ensureSweep())
}

// useBox makes the probed box the scenario's hardware: the cluster ToCluster infers (GPU preset
// with the device's memory, GPU count, intra-node link), with the current inter-node link and
// NICs. TP and PP stay when they still divide the GPUs, else shrink to fit; DP follows and the
// global batch stays (an uneven split is offered a batch, as any edit is). The footer says what
// moved.
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
	if h := m.cur.Cluster.HostMemoryBytes; h > 0 {
		c.HostMemoryBytes = h // --host-memory (or a file's host_memory) over the box's, as the Box tab's verdict
	}
	m.boxErr, m.boxNotes, m.boxCluster = "", warns, c
	return m.edit("box", func(s *model.Scenario) error {
		s.Cluster = c
		fitSplit(s)
		return nil
	})
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

// stepField moves the selected row one notch (dir = ±1) through its sensible values.
func (m Model) stepField(dir int) (tea.Model, tea.Cmd) {
	m.boxErr = ""
	f := m.fields[m.sel]
	return m.edit(f.name, func(s *model.Scenario) error {
		f.step(s, m.presets, dir)
		return nil
	})
}

// edit tries a change to one row (see tryEdit): a valid result applies and the footer says what
// else moved; an invalid one stays unapplied, with the reason and the nearest valid scenario on
// offer; a change that changes nothing says the row is at its limit.
func (m Model) edit(name string, change func(*model.Scenario) error) (tea.Model, tea.Cmd) {
	next, o, err := tryEdit(m.cur, name, change)
	if err != nil {
		return m, noteCmd(err.Error(), true)
	}
	m.offer = o
	if o != nil {
		o.tried = next
		return m, nil
	}
	if next == m.cur {
		return m, nil
	}
	return m.apply(next, name)
}

// apply makes next the scenario (valid: tryEdit checked it) and says what moved besides the
// edited row.
func (m Model) apply(next model.Scenario, edited string) (tea.Model, tea.Cmd) {
	// A model edited away from its preset is titled as modified everywhere (model.Arch.Label).
	if preset, err := m.presets.Model(next.Arch.ID); err == nil && next.Arch.ID != "" {
		next.Arch.Changes = model.ArchChanges(preset, next.Arch)
	}
	m.moved = movedRows(m.fields, m.cur, next, edited)
	m.cur, m.offer = next, nil
	return m.changed()
}

// takeOffer applies the offered fix of the last edit that could not apply.
func (m Model) takeOffer() (tea.Model, tea.Cmd) {
	if m.offer == nil || !m.offer.ok {
		return m, nil
	}
	o := *m.offer
	m.editing, m.inputErr = false, ""
	m.editInput().Blur()
	return m.apply(o.s, o.field)
}

// commitInput applies the typed value. A value that does not parse, or gives an invalid
// scenario, is refused: the reason shows under the field with the nearest valid scenario, the
// text is selected again, and Enter on the same text takes the offer.
func (m Model) commitInput() (tea.Model, tea.Cmd) {
	f := m.fields[m.sel]
	text := m.input.Value()
	if m.offer != nil && m.offer.ok && m.offer.typed == text {
		return m.takeOffer()
	}
	if f.name == "model" && assets.LooksLikeConfigPath(strings.TrimSpace(text)) {
		if _, err := m.presets.Model(strings.TrimSpace(text)); err != nil {
			return m.readModelPath(strings.TrimSpace(text))
		}
	}
	return m.commitValue(f, text, text)
}

// commitValue applies value to field f as the text typed (typed, which an offer remembers):
// commitInput's, and a config.json's model once read (modelRead).
func (m Model) commitValue(f field, typed, value string) (tea.Model, tea.Cmd) {
	next, o, err := tryEdit(m.cur, f.name, func(s *model.Scenario) error { return f.set(s, m.presets, value) })
	if err != nil {
		m.inputErr, m.offer, m.inputSel = err.Error(), nil, true
		return m, nil
	}
	if o != nil {
		o.tried, o.typed = next, typed
		m.inputErr, m.offer, m.inputSel = o.why, o, true
		return m, nil
	}
	m.editing, m.inputErr, m.boxErr = false, "", ""
	m.editInput().Blur()
	if next == m.cur {
		m.offer = nil
		return m, nil
	}
	return m.apply(next, f.name)
}

// changed evaluates the scenario in the background. Edits only apply valid scenarios; a
// scenario that fails validation anyway (a bug) shows its error and keeps the last result.
func (m Model) changed() (tea.Model, tea.Cmd) {
	m.rev++
	if err := m.cur.Validate(); err != nil {
		m.evalErr = err
		m.markStale()
		return m, nil
	}
	m.compare.Invalidate() // dimmed, "computing…", until this revision's comparison arrives
	m.learn.Invalidate()
	m.cmpOK = false
	return m, tea.Batch(m.evaluateAll(), m.ensureSweep())
}

// restart evaluates the current revision when what ran was older and nothing runs for it now.
func (m *Model) restart() tea.Cmd {
	if m.cur.Validate() != nil {
		return nil // an invalid scenario is not evaluated (changed says why)
	}
	return m.startWork()
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
func (m *Model) tabTitles() []string {
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

// withAutoKnobs is l with the values of the knobs it leaves to search taken from resolved.
func withAutoKnobs(l, resolved model.Layout) model.Layout {
	a := l.Auto
	if a&model.AutoRecompute != 0 {
		l.Recompute = resolved.Recompute
	}
	if a&model.AutoSequenceParallel != 0 {
		l.SequenceParallel = resolved.SequenceParallel
	}
	if a&model.AutoSPGather != 0 {
		l.SPGather = resolved.SPGather
	}
	if a&model.AutoZeRO != 0 {
		l.ZeRO = resolved.ZeRO
	}
	if a&model.AutoTPOverlap != 0 {
		l.TPOverlap = resolved.TPOverlap
	}
	if a&model.AutoOffload != 0 {
		l.Offload = resolved.Offload
	}
	if a&model.AutoRankOrder != 0 {
		l.RankOrder = resolved.RankOrder
	}
	if a&model.AutoSerialDP != 0 {
		l.SerialDP = resolved.SerialDP
	}
	return l
}
