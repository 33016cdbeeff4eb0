package pipeline

import (
	"math"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	space  = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	home   = tea.KeyMsg{Type: tea.KeyHome}
	pgdown = tea.KeyMsg{Type: tea.KeyPgDown}
	pgup   = tea.KeyMsg{Type: tea.KeyPgUp}
	frame  = common.FrameMsg(time.Time{})
)

func train(t *testing.T) *Model {
	t.Helper()
	return newPane(t, evaluate(t, fixtures[0].edit), 120, 34)
}

func TestPaneContract(t *testing.T) {
	m := New(theme.Default())
	if m.Title() != "Pipeline" {
		t.Errorf("title %q", m.Title())
	}
	if m.Animating() {
		t.Error("animating without data")
	}
	if cmd := m.Update(frame); cmd != nil {
		t.Error("a frame returns no command: the root re-arms the clock")
	}
	if len(m.Keys()) == 0 {
		t.Error("no keys")
	}
}

func TestSpaceTogglesAnimating(t *testing.T) {
	m := train(t)
	if !m.Animating() {
		t.Fatal("a new result plays from the start")
	}
	m.Update(space)
	if m.Animating() {
		t.Error("space should pause")
	}
	m.Update(space)
	if !m.Animating() {
		t.Error("space should play again")
	}
}

func TestFrameAdvancesPlayhead(t *testing.T) {
	m := train(t)
	span := m.ix.span
	perFrame := span / stepWall * common.FrameInterval.Seconds()
	m.Update(frame)
	if math.Abs(m.playhead-perFrame) > 1e-12 {
		t.Fatalf("one frame moved the playhead to %v, want %v", m.playhead, perFrame)
	}
	// A whole step takes stepWall seconds of frames.
	frames := int(math.Ceil(stepWall / common.FrameInterval.Seconds()))
	for range frames {
		m.Update(frame)
	}
	if m.playhead != span || m.Animating() {
		t.Errorf("after %d frames the playhead is at %v of %v, animating %v", frames+1, m.playhead, span, m.Animating())
	}
	// Paused, frames do nothing.
	m.Update(home)
	m.Update(space)
	m.Update(frame)
	if m.playhead != 0 {
		t.Errorf("paused playhead moved to %v", m.playhead)
	}
}

func TestSpeedKeys(t *testing.T) {
	m := train(t)
	base := m.rate()
	m.Update(runes("+"))
	if got := m.rate(); math.Abs(got-2*base) > 1e-12 {
		t.Errorf("+ gives rate %v, want %v", got, 2*base)
	}
	m.Update(runes("-"))
	m.Update(runes("-"))
	if got := m.rate(); math.Abs(got-base/2) > 1e-12 {
		t.Errorf("+ - - gives rate %v, want %v", got, base/2)
	}
	before := m.playhead
	m.Update(frame)
	if got := m.playhead - before; math.Abs(got-base/2*common.FrameInterval.Seconds()) > 1e-12 {
		t.Errorf("a frame at half speed moved %v", got)
	}
	for range 20 {
		m.Update(runes("+"))
	}
	if m.speedExp != maxSpeedExp {
		t.Errorf("speed not clamped: 2^%d", m.speedExp)
	}
	for range 30 {
		m.Update(runes("-"))
	}
	if m.speedExp != minSpeedExp {
		t.Errorf("speed not clamped: 2^%d", m.speedExp)
	}
}

func TestStepToNextOpStart(t *testing.T) {
	m := train(t)
	starts := map[float64]bool{}
	for _, op := range m.tl.Ops {
		starts[op.Start] = true
	}
	prev := m.playhead
	for i := range 5 {
		m.Update(runes("."))
		if m.Animating() {
			t.Fatal(". should pause")
		}
		if !(m.playhead > prev) || !starts[m.playhead] {
			t.Fatalf("step %d: playhead %v is not the next op start after %v", i, m.playhead, prev)
		}
		// No op starts strictly between the two.
		for s := range starts {
			if s > prev && s < m.playhead {
				t.Fatalf("step %d skipped the op start %v", i, s)
			}
		}
		prev = m.playhead
	}
	// Past the last op start, . goes to the end.
	m.seek(m.ix.starts[len(m.ix.starts)-1])
	m.Update(runes("."))
	if m.playhead != m.ix.span {
		t.Errorf("after the last op start: %v, want the end %v", m.playhead, m.ix.span)
	}
}

func TestEndStopsAndSpaceRestarts(t *testing.T) {
	m := train(t)
	m.seek(m.ix.span - 1e-9)
	m.Update(frame)
	if m.Animating() || m.playhead != m.ix.span {
		t.Fatalf("at the end: playhead %v, animating %v", m.playhead, m.Animating())
	}
	if !m.playing {
		t.Error("reaching the end is not a pause")
	}
	m.Update(space)
	if !m.Animating() || m.playhead != 0 {
		t.Errorf("space at the end should play from 0: playhead %v, animating %v", m.playhead, m.Animating())
	}
	for _, k := range []tea.KeyMsg{home, runes("0")} {
		m.seek(m.ix.span / 2)
		m.Update(k)
		if m.playhead != 0 {
			t.Errorf("%s: playhead %v, want 0", k, m.playhead)
		}
	}
}

func TestNewDataKeepsPlayheadShare(t *testing.T) {
	m := train(t)
	m.Update(space)
	m.seek(m.ix.span / 4)
	m.SetData(evaluate(t, fixtures[1].edit))
	if got := m.playhead / m.ix.span; math.Abs(got-0.25) > 1e-9 {
		t.Errorf("playhead at %v of the new step, want 0.25", got)
	}
	if m.Animating() {
		t.Error("a paused tab stays paused across a change")
	}
	// The same result again (say, now stale) changes nothing.
	d := m.data
	d.Stale = true
	m.SetData(d)
	if got := m.playhead / m.ix.span; math.Abs(got-0.25) > 1e-9 {
		t.Errorf("stale data moved the playhead to %v", got)
	}
}

func TestScrollFoldedStages(t *testing.T) {
	m := newPane(t, evaluate(t, fixtures[4].edit), 120, 34)
	if !m.folded() {
		t.Fatal("64 stages in 34 rows should fold")
	}
	enabled := func() bool {
		for _, k := range m.Keys() {
			if slices.Contains(k.Keys(), "pgdown") {
				return k.Enabled()
			}
		}
		return false
	}
	if !enabled() {
		t.Error("scroll keys hidden while stages are folded")
	}
	top := m.View()
	m.Update(pgdown)
	if m.laneOff == 0 || m.View() == top {
		t.Errorf("pgdown did not scroll (offset %d)", m.laneOff)
	}
	for range 20 {
		m.Update(runes("]"))
	}
	_, _, maxOff, _ := foldLanes(64, mustLayout(t, m).rows, 0)
	if m.laneOff != maxOff {
		t.Errorf("offset %d after scrolling to the end, want %d", m.laneOff, maxOff)
	}
	for range 20 {
		m.Update(pgup)
	}
	m.Update(runes("["))
	if m.laneOff != 0 || m.View() != top {
		t.Errorf("offset %d after scrolling back up", m.laneOff)
	}

	small := train(t)
	small.Update(pgdown)
	if small.laneOff != 0 {
		t.Error("four stages do not scroll")
	}
	for _, k := range small.Keys() {
		if slices.Contains(k.Keys(), "pgdown") && k.Enabled() {
			t.Error("scroll keys shown while every stage fits")
		}
	}
}

func mustLayout(t *testing.T, m *Model) layout {
	t.Helper()
	l, ok := m.layout()
	if !ok {
		t.Fatal("no layout")
	}
	return l
}

func TestKeyMapHelp(t *testing.T) {
	k := DefaultKeyMap()
	if len(k.ShortHelp()) != 7 {
		t.Errorf("short help has %d keys", len(k.ShortHelp()))
	}
	n := 0
	for _, g := range k.FullHelp() {
		n += len(g)
	}
	if n != len(k.ShortHelp()) {
		t.Errorf("full help has %d keys, short help %d", n, len(k.ShortHelp()))
	}
	for _, b := range k.ShortHelp() {
		if b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("binding %v has no help", b.Keys())
		}
	}
}
