// Package tensor is the explorer's Tensor tab: one transformer layer on one GPU of the TP group,
// its compute and all-reduces drawn to scale, the communication share, today's TP all-reduce
// named (algorithm, protocol) with its formula filled in, its bus bandwidth against the message
// size, and an animation of the algorithm in use (ring, tree, NVLS, or the serving engine's
// one-shot and two-shot kernels) over the TP group's GPUs.
package tensor

import (
	"math"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// KeyMap is the Tensor tab's own keys.
type KeyMap struct {
	Play, Step, Faster, Slower key.Binding
}

// DefaultKeyMap returns the Tensor tab's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Play:   key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause/play the collective")),
		Step:   key.NewBinding(key.WithKeys("."), key.WithHelp(".", "one step")),
		Faster: key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower: key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
	}
}

// ShortHelp lists the keys for the one-line help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Play, k.Step, k.Faster, k.Slower} }

// FullHelp lists the keys for the full help.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// speeds are the playback multipliers + and - move through.
var speeds = []float64{0.25, 0.5, 1, 2, 4}

const defaultSpeed = 2 // index of 1×

// Model is the Tensor tab. Use New; the zero value is not ready.
type Model struct {
	styles theme.Styles
	keys   KeyMap
	pal    [numStyles]lipgloss.Style
	dimPal [numStyles]lipgloss.Style
	plain  [numStyles]bool

	w, h int
	data common.Data
	has  bool

	// Today's TP collective, rebuilt by SetData; rev counts SetData calls, so that the curve's
	// sweep (cur) is redone only for new data or a new width.
	coll coll
	rev  int
	cur  curve

	// Animation: pos counts the algorithm's steps, the integer part the step under way (the
	// last, its step count, is the finished state, held for one step before it loops), the
	// fraction its progress.
	playing bool
	pos     float64
	a2aPos  float64 // the expert-parallel all-to-all's animation, in its steps (a2a.go)
	cpPos   float64 // context parallelism's exchange, in its phases (cpview.go)
	speed   int
	last    time.Time

	cv canvas
}

var _ common.Pane = (*Model)(nil)

// New builds the Tensor tab with the explorer's styles; the ring plays from the start.
func New(s theme.Styles) *Model {
	m := &Model{styles: s, keys: DefaultKeyMap(), playing: true, speed: defaultSpeed}
	m.pal = [numStyles]lipgloss.Style{
		stPlain:       lipgloss.NewStyle(),
		stDim:         s.Dim,
		stBold:        s.Bold,
		stLabel:       s.Label,
		stValue:       s.Value,
		stAxis:        s.Axis,
		stCompute:     s.Compute,
		stComputeFill: s.ComputeFill,
		stComm:        s.Comm,
		stHighlight:   s.Highlight,
		stWarn:        s.Warn,
		stOK:          s.OK,
		stSub:         s.Subtitle,
		stError:       s.Error,
		stCurve:       s.P2P,
		stToday:       s.Playhead,
	}
	for i := range m.dimPal {
		m.dimPal[i] = s.Dim
	}
	m.dimPal[stWarn] = s.Warn
	m.plain[stPlain] = true
	return m
}

// Title is the tab's label.
func (m *Model) Title() string { return "Tensor" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetData hands the pane a new evaluation; the animation restarts when the TP degree or the
// algorithm changes.
func (m *Model) SetData(d common.Data) {
	c := newColl(d.Report.Detail, max(d.Report.Layout.TP, 1))
	if !m.has || d.Report.Layout.TP != m.data.Report.Layout.TP || c.anim != m.coll.anim || c.steps() != m.coll.steps() {
		m.pos = 0
	}
	if !m.has || max(d.Report.Layout.EP, 1) != max(m.data.Report.Layout.EP, 1) {
		m.a2aPos = 0
	}
	if old, nw := m.cpDetail(), d.Report.Detail.Layer.CP; old == nil || nw == nil || old.Kind != nw.Kind || old.Ranks != nw.Ranks || old.Steps != nw.Steps {
		m.cpPos = 0
	}
	m.data, m.has, m.coll = d, true, c
	m.rev++
	m.pos = math.Mod(max(m.pos, 0), float64(m.positions()))
}

// Keys lists the pane's own key bindings.
func (m *Model) Keys() []key.Binding { return m.keys.ShortHelp() }

// Animating reports whether the all-reduce, the all-to-all or the CP exchange is playing (and
// there is one to play).
func (m *Model) Animating() bool { return m.playing && (m.tp() > 1 || m.a2aOn() || m.cpOn()) }

// Playing reports whether the all-reduce plays (space toggles it).
func (m *Model) Playing() bool { return m.playing }

// Step is the step under way, 0 … its algorithm's step count (2(t−1) for the ring), which is the
// finished state.
func (m *Model) Step() int { return int(m.pos) }

// Algorithm names the algorithm the animation plays, "ring", "NVLS", "one-shot"…
func (m *Model) Algorithm() string {
	if !m.coll.ok {
		return "ring"
	}
	return static.AlgoName(m.coll.res.Algo)
}

// Speed is the playback multiplier.
func (m *Model) Speed() float64 { return speeds[m.speed] }

// Update handles the pane's keys and the animation clock.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Play):
			m.playing = !m.playing
			m.last = time.Time{}
		case key.Matches(msg, m.keys.Step):
			m.playing = false
			m.last = time.Time{}
			m.pos = math.Mod(math.Floor(m.pos)+1, float64(m.positions()))
			m.a2aPos = math.Mod(math.Floor(m.a2aPos)+1, float64(m.a2aPositions()))
			m.cpPos = math.Mod(math.Floor(m.cpPos)+1, float64(m.cpPositions()))
		case key.Matches(msg, m.keys.Faster):
			m.speed = min(m.speed+1, len(speeds)-1)
		case key.Matches(msg, m.keys.Slower):
			m.speed = max(m.speed-1, 0)
		}
	case common.FrameMsg:
		m.advance(time.Time(msg))
	}
	return nil
}

// advance moves the animation by the wall time since the previous frame (one frame interval for the
// first frame after a pause), at the modelled pace.
func (m *Model) advance(now time.Time) {
	if !m.Animating() {
		m.last = time.Time{}
		return
	}
	dt := common.FrameStep(m.last, now)
	m.last = now
	if m.tp() > 1 {
		m.pos = math.Mod(m.pos+dt.Seconds()/m.stepWall(), float64(m.positions()))
	}
	if m.a2aOn() {
		m.advanceA2A(dt.Seconds())
	}
	if m.cpOn() {
		m.advanceCP(dt.Seconds())
	}
}

// tp is the TP degree, at least 1.
func (m *Model) tp() int {
	if !m.has {
		return 1
	}
	return max(m.data.Report.Layout.TP, 1)
}

// positions is the length of the animation loop in steps: the algorithm's steps and the
// finished state.
func (m *Model) positions() int {
	if m.tp() <= 1 {
		return 1
	}
	return m.coll.steps() + 1
}

// wall is the on-screen duration of one all-reduce at the current speed, seconds.
func (m *Model) wall() float64 {
	return wallSeconds(m.data.Report.Detail.TPAllReduceS) / speeds[m.speed]
}

// stepWall is the on-screen duration of one step, seconds.
func (m *Model) stepWall() float64 {
	return m.wall() / float64(max(m.positions()-1, 1))
}
