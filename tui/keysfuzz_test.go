package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

var altD = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}, Alt: true}

// The reported crash (issue 21): ↓ enter ← alt+d on a panel field, the cursor on the value's
// last rune, panicked in bubbles' deleteWordForward. Now it deletes that rune.
func TestAltDOnTheLastRuneDeletesIt(t *testing.T) {
	m := ready(t, 80, 24, nil)
	m, _ = press(m, "down", "enter", "left")
	before := m.input.Value()
	t.Logf("field %s, text %q", m.fields[m.sel].name, before)
	n, _ := m.Update(altD)
	m = n.(Model)
	if want := before[:len(before)-1]; m.input.Value() != want || m.input.Position() != len(want) || !m.editing {
		t.Errorf("alt+d on the last rune of %q: text %q, cursor %d, editing %v; want %q, cursor %d, still editing",
			before, m.input.Value(), m.input.Position(), m.editing, want, len(want))
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyEnd}, altD, {Type: tea.KeyHome}, altD, altD} {
		n, _ = m.Update(k) // at the end, and on an empty text: nothing to delete
		m = n.(Model)
	}
	if m.input.Value() != "" || !m.editing {
		t.Errorf("alt+d from the start: %q, editing %v", m.input.Value(), m.editing)
	}
}

// deleteWordForward deletes the spaces after the cursor and the word after them, nothing more.
func TestDeleteWordForward(t *testing.T) {
	for _, c := range []struct {
		text string
		pos  int
		want string
	}{
		{"ab", 1, "a"},       // the last rune (bubbles v1.0.0 panicked)
		{"ab c", 1, "a c"},   // the last rune of a word (bubbles deleted " c" too)
		{"abc d", 1, "a d"},  // inside a word
		{"a  b c", 1, "a c"}, // the spaces, then the word
		{"a b ", 3, "a b"},   // trailing spaces only
		{"ab", 2, "ab"},      // at the end: nothing
		{"", 0, ""},
		{"été 4", 1, "é 4"}, // runes, not bytes
	} {
		in := newInput()
		in.Focus()
		in.SetValue(c.text)
		in.SetCursor(c.pos)
		deleteWordForward(&in)
		if in.Value() != c.want || in.Position() != min(c.pos, len([]rune(c.want))) {
			t.Errorf("%q at %d: %q, cursor %d; want %q", c.text, c.pos, in.Value(), in.Position(), c.want)
		}
	}
}
