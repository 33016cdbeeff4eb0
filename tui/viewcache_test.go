package tui

import (
	"math/rand/v2"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/tui/common"
)

// TestViewCacheMatchesFreshRender draws the explorer after each of a sequence of changes, with
// frame ticks in between, and compares the cached View with one drawn without the cache.
func TestViewCacheMatchesFreshRender(t *testing.T) {
	m := ready(t, 120, 40, nil)
	at := time.Now()
	check := func(step string) {
		t.Helper()
		for i := range 3 { // the first View fills the cache, the next ones and the ticks reuse it
			if got, want := m.View(), m.uncachedView(); got != want {
				t.Fatalf("%s (frame %d): the cached View differs from a fresh one\ncached:\n%s\nfresh:\n%s", step, i, got, want)
			}
			at = at.Add(common.FrameInterval)
			next, _ := m.Update(common.FrameMsg(at))
			m = next.(Model)
		}
	}
	do := func(step string, msgs ...tea.Msg) {
		t.Helper()
		for _, msg := range msgs {
			next, _ := m.Update(msg)
			m = next.(Model)
		}
		check(step)
	}
	key := func(step string, keys ...string) {
		t.Helper()
		m, _ = press(m, keys...)
		check(step)
	}
	check("ready")
	key("select", "down", "down")
	m = selectField(t, m, "gpus")
	check("select gpus")
	key("edit a value", "right")
	m = settle(m)
	check("the edit's result")
	key("type a value", "enter", "7")
	key("a refused typed value", "enter")
	key("cancel", "esc")
	key("help", "?")
	key("help closed", "?")
	do("resize", tea.WindowSizeMsg{Width: 100, Height: 34})
	do("resize back", tea.WindowSizeMsg{Width: 120, Height: 40})
	key("tab switch", "tab")
	key("tab switch again", "tab", "tab")
	key("pipeline tab", "1")
	key("pause", "space")
	key("play", "space")
	key("tour", "g")
	m = settle(m)
	check("tour settled")
	key("tour step", "right")
	m = settle(m)
	check("tour step settled")
	key("tour left", "esc")
	m = settle(m)
	check("tour left settled")
	do("note", noteMsg{text: "saved to x.yaml"})
	do("note cleared", clearNoteMsg{seq: m.noteSeq})
	key("presentation", "P")
	key("presentation off", "P")
	m.helpOpen = true // changed without Update: the key's fingerprint still sees it
	check("help set directly")
	m.helpOpen = false
	check("help unset directly")
}

// TestViewCacheRandomWalk presses keys at random (a fixed seed), the panes' own among them, on
// every tab and in the tour, and after each compares the cached View with a fresh one: a key
// that changed what a cached part shows without invalidating it fails here.
func TestViewCacheRandomWalk(t *testing.T) {
	keys := []string{"space", ".", "+", "-", "0", "home", "end", "[", "]", "r", "u", "up", "down", "left", "right",
		"tab", "1", "2", "3", "4", "5", "6", "g", "esc", "?", "p", "P", "w", "y", "enter", "2", "backspace"}
	rng := rand.New(rand.NewPCG(12, 1))
	m := ready(t, 120, 40, nil)
	at := time.Now()
	for i := range 600 {
		k := keys[rng.IntN(len(keys))]
		m, _ = press(m, k)
		if rng.IntN(4) == 0 {
			m = settle(m)
		}
		for f := range 2 {
			if got, want := m.View(), m.uncachedView(); got != want {
				t.Fatalf("key %d %q (frame %d): the cached View differs from a fresh one\ncached:\n%s\nfresh:\n%s", i, k, f, got, want)
			}
			at = at.Add(common.FrameInterval)
			next, _ := m.Update(common.FrameMsg(at))
			m = next.(Model)
		}
	}
}
