package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/export"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/memory"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/tensor"
	"github.com/splitscope/splitscope/tui/theme"
)

// Teaching: the guided tour, the "why?" key, presentation mode, save and export.

// captionRows is the number of text lines of the tour's caption box (resize sets it).
func (m *Model) captionRows() int { return max(m.capRows, 1) }

// captionHeight is the caption box's height with its borders, 0 outside the tour.
func (m *Model) captionHeight() int {
	if !m.tour.on {
		return 0
	}
	return m.captionRows() + 2
}

// minBodyH is the fewest lines the parameter panel and the main pane keep when the tour's caption
// grows: the main pane's borders, its tab line and 8 lines of content.
const minBodyH = 11

// fitCaptionRows sets the caption box's rows for the step on screen: four at 100 columns and
// more, five narrower (never more than the footer's third of the screen), and more when the
// caption needs them, so that it reads whole: the panes above give up the lines, down to
// minBodyH. helpH is the key line's height.
func (m *Model) fitCaptionRows(helpH int) {
	need := 0
	if m.tour.on && m.width > 0 {
		need = len(m.captionLines(m.captionWidth()))
	}
	top := 1 + stripLines(m.height)
	room := m.height - top - minBodyH - helpH - 1 - 2 // the verdict and the box's borders
	m.capRows = classroom.CaptionRows(m.width, m.height, helpH, need, room)
}

// refitCaption gives the caption the rows it now needs (an evaluation arrived, a question was
// answered, the step changed), laying the screen out again when that changes them.
func (m *Model) refitCaption() {
	if !m.tour.on || m.lay.TooSmall {
		return
	}
	before := m.capRows
	m.fitCaptionRows(lipgloss.Height(m.helpView()))
	if m.capRows != before {
		m.resize()
	}
}

// tourReady reports whether the result on screen is the tour step's own evaluation.
func (m Model) tourReady() bool {
	return m.hasData && !m.data.Stale && m.data.Scenario == m.cur
}

// captionWidth is the width of the caption's text: the screen less the box's borders and a
// margin each side.
func (m *Model) captionWidth() int { return max(m.width-4, 1) }

// captionLines are the tour step's caption, word-wrapped to w cells: what to look at, with the
// numbers of the step's evaluation; while its question is open, the question instead, and once
// answered, the answer beside the model's (and the class's tally, for the teacher) before it.
func (m *Model) captionLines(w int) []string {
	step := m.tour.steps[m.tour.at]
	f := learn.NewFacts(m.data, m.cmp, m.cmpOK)
	_, lines, err := learn.Caption(m.texts, step, f, m.tourReady(), w)
	if err != nil {
		lines = []string{m.styles.Error.Render(err.Error())}
	}
	// Predict, then reveal: the question hides the caption's numbers until it is answered.
	switch {
	case m.quizOpen():
		lines = m.quizLines(w)
	case m.question() != nil:
		lines = append(learn.Wrap(m.revealLine(), w), lines...)
		if t := m.tallyLine(w, false); t != "" {
			lines = append([]string{t}, lines...) // the teacher's, after R
		}
	}
	return lines
}

// captionView is the tour step's caption in a box across the screen, its title in the top border.
// The box has the rows the caption needs (fitCaptionRows); only where the screen cannot give them
// is the last line cut, with "…".
func (m *Model) captionView() string {
	w := max(m.width-2, 1)
	step := m.tour.steps[m.tour.at]
	title, err := m.texts.Exec("tour."+step+".title", learn.NewFacts(m.data, m.cmp, m.cmpOK))
	if err != nil {
		title = step
	}
	title = strings.TrimSpace(title)
	lines := m.captionLines(m.captionWidth())
	rows := m.captionRows()
	lines = classroom.CutCaption(lines, rows, w)
	paint := m.styles.Plain.Foreground(m.styles.PaneFocused.GetBorderTopForeground())
	head := classroom.CaptionHead(m.tour.at, len(m.tour.steps), title, w)
	top := paint.Render("╭─") + m.styles.Bold.Render(head) + paint.Render(strings.Repeat("─", max(w-1-lipgloss.Width(head), 0))+"╮")
	body := box(m.styles.Plain, m.styles.PaneFocused, fitLines(lines, w, rows), w, rows)
	return top + body[strings.Index(body, "\n"):]
}

// startTour saves the user's scenario and tab and shows the tour's first step.
func (m Model) startTour() (tea.Model, tea.Cmd) {
	if !m.class.On() {
		m.quizzes = nil // a new tour alone: every question open again
	}
	return m.startTourAt(0)
}

// keepQuiz files the step's answer in quizzes (a copy: earlier Models keep theirs).
func (m *Model) keepQuiz() {
	if m.tour.on {
		m.quizzes = m.quizzes.Keep(m.tour.at, m.tour.quiz)
	}
}

// tourSteps are the tour's step names and, for a lesson of the user's own, its files (nil for
// the embedded tour, read when it starts).
func (m *Model) tourSteps() ([]string, []assets.ScenarioFile) {
	if m.lesson == nil {
		return assets.TourSteps(), nil
	}
	names := make([]string, len(m.lesson))
	for i := range m.lesson {
		names[i] = lessonStep(i)
	}
	return names, m.lesson
}

// startTourAt starts the tour at step i (a student joining the teacher's lesson mid-tour).
func (m Model) startTourAt(i int) (tea.Model, tea.Cmd) {
	steps, files := m.tourSteps()
	if files == nil {
		for _, name := range steps {
			f, err := assets.TourScenario(name, m.presets)
			if err != nil {
				return m, noteCmd("can't start the tour: "+err.Error(), true)
			}
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return m, noteCmd("can't start the tour: no tour scenarios", true)
	}
	m.tour = tourState{on: true, steps: steps, files: files, at: -1, saved: m.cur, savedTab: m.tab, savedSel: m.sel}
	return m.tourStep(i)
}

// tourStep shows step i (clamped): its scenario, its tab, its caption.
func (m Model) tourStep(i int) (tea.Model, tea.Cmd) {
	i = classroom.StepAt(i, len(m.tour.files))
	if i == m.tour.at {
		return m, nil
	}
	m.keepQuiz()
	m.tour.at = i
	m.tour.quiz = m.quizzes.Recall(i)
	m.cur = m.tour.files[i].Scenario
	m.boxErr, m.editing, m.inputErr, m.offer, m.moved = "", false, "", nil, ""
	m.editInput().Blur()
	tab, ok := tourTabs[m.tour.steps[i]]
	if t := m.tour.files[i].Tab; t != "" {
		tab, ok = lessonTabs[t]
	}
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
	m.keepQuiz()
	saved := m.tour
	m.tour = tourState{}
	m.cur, m.sel = saved.saved, saved.savedSel
	m.offer, m.moved = nil, "" // the tour's scenarios were not the user's edits
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
	st := theme.For(m.renderer)
	if on {
		st = theme.HighContrastFor(m.renderer)
	}
	m.styles = &st
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
	cmp.SetSeqView(m.compare.SeqView())
	if m.sweep != nil {
		if sw, ok := m.sweep.cache[compare.SeqKey(m.cur)]; ok {
			cmp.SetSweep(sw)
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
	if err := m.cur.Validate(); err != nil {
		return m, noteCmd("not saved: "+err.Error(), true)
	}
	title := static.Header(m.cur)
	if m.tour.on {
		title = m.tour.files[m.tour.at].Title
	}
	data := assets.MarshalScenario(m.cur, title)
	if m.served {
		return m.showSheet("Scenario file · save it as lesson.yaml, then: splitscope --scenario lesson.yaml", data), nil
	}
	return m, saveScenario(m.saveDir, fileStem(m.cur), data)
}

// saveScenario creates the first free splitscope-<model>-<n>.yaml (never overwriting one).
func saveScenario(dir, stem string, data []byte) tea.Cmd {
	return func() tea.Msg {
		names, err := writeFree(filepath.Join(dir, stem), map[string][]byte{".yaml": data})
		if err != nil {
			return noteMsg{text: "not saved: " + err.Error(), err: true}
		}
		return noteMsg{text: "saved to " + names[0]}
	}
}

// maxFreeNames bounds the search for a free file name.
const maxFreeNames = 10000

// writeFree writes files named stem-<n><ext>, one per extension, with the first n for which none
// of them exists: each is created exclusively (O_EXCL), so no file the user has is ever
// overwritten, even by a race. It returns the names written, in the order of the extensions.
func writeFree(stem string, files map[string][]byte) ([]string, error) {
	exts := make([]string, 0, len(files))
	for ext := range files {
		exts = append(exts, ext)
	}
	slices.Sort(exts)
	for n := 1; n <= maxFreeNames; n++ {
		var created []string
		taken := false
		for _, ext := range exts {
			name := stem + "-" + strconv.Itoa(n) + ext
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, os.ErrExist) {
				taken = true
				break
			}
			if err == nil {
				created = append(created, name)
				_, err = f.Write(files[ext])
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				removeAll(created)
				return nil, err
			}
		}
		if !taken {
			return created, nil
		}
		removeAll(created) // this n is partly taken: give back what was created for it
	}
	return nil, fmt.Errorf("too many %s-N files", filepath.Base(stem))
}

func removeAll(names []string) {
	for _, n := range names {
		_ = os.Remove(n)
	}
}

// export writes the last valid result's Pipeline and Tensor picture and its report with the
// comparison, in the Learn tab's language, to splitscope-<model>-<n>.svg and .md: the first n
// for which neither exists, as s does, so nothing is overwritten.
func (m Model) export() (tea.Model, tea.Cmd) {
	if !m.hasData {
		return m, noteCmd("nothing to export yet", true)
	}
	var cmp common.Compare
	if m.cmpOK {
		cmp = m.cmp
	}
	if m.sweep != nil && compare.SeqSweepApplies(m.cur) {
		if sw, ok := m.sweep.cache[compare.SeqKey(m.cur)]; ok {
			cmp.Seq = &sw // the sequence sweep, when it was made for this scenario (never made here)
		}
	}
	d, dir, lang := m.data, m.saveDir, m.lang
	title := ""
	if m.tour.on {
		title = m.tour.files[m.tour.at].Title // the tour step's title heads the picture
	}
	if m.served {
		// The Markdown report is text the client's terminal can show; the SVG is not.
		var md bytes.Buffer
		if err := export.Markdown(&md, d.Scenario, d.Report, cmp, lang); err != nil {
			return m, noteCmd("export failed: "+err.Error(), true)
		}
		return m.showSheet("Report (Markdown) · for the SVG too, save the scenario (s) and run splitscope export on your machine", md.Bytes()), nil
	}
	stem := filepath.Join(dir, fileStem(d.Scenario))
	return m, func() tea.Msg {
		var svg, md bytes.Buffer
		if err := export.SVG(&svg, d.Scenario, d.Report, export.SVGOptions{Lang: lang, Title: title}); err != nil {
			return noteMsg{text: "export failed: " + err.Error(), err: true}
		}
		if err := export.Markdown(&md, d.Scenario, d.Report, cmp, lang); err != nil {
			return noteMsg{text: "export failed: " + err.Error(), err: true}
		}
		names, err := writeFree(stem, map[string][]byte{".md": md.Bytes(), ".svg": svg.Bytes()})
		if err != nil {
			return noteMsg{text: "export failed: " + err.Error(), err: true}
		}
		return noteMsg{text: "exported " + strings.Join(names, " and ")}
	}
}
