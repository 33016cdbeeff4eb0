package tui

import (
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
)

// The panel's text input is bubbles' textinput with one key taken over: delete-word-forward
// (alt+d, alt+delete). bubbles v1.0.0's deleteWordForward reads one rune past the value when
// the cursor is on its last rune ("index out of range [2] with length 2" for ↓ enter ← alt+d on
// a two-digit value: a panic that ended the explorer, or a served session), and on the last
// rune of a word it deletes the next word too. No release fixes it (v1.0.0 is the newest v1;
// v2.2.1 has the same code, charmbracelet/bubbles#1056), so newInput disables the binding and
// typing calls deleteWordForward below instead.

// ctrl+v is not bubbles' Paste either: that runs the clipboard tool of the machine the explorer
// runs on (xclip, xsel or wl-paste, where one is installed) and sends its text as a message the
// explorer never passes to the input, so it pasted nothing, and under splitscope serve each
// student's ctrl+v ran the tool on the server. The terminal's own paste arrives as keys and
// types as usual.

// deleteWordForwardKeys is the binding bubbles gives delete-word-forward, handled by typing.
var deleteWordForwardKeys = textinput.DefaultKeyMap.DeleteWordForward

// newInput is the panel's text input: no prompt, 32 runes at most, delete-word-forward ours, no
// clipboard.
func newInput() textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 1024 // a config.json path for the model row; every other value is short
	in.KeyMap.DeleteWordForward = key.NewBinding(key.WithDisabled())
	in.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	return in
}

// deleteWordForward deletes from the cursor to the end of the next word: the spaces after the
// cursor, then the word after them, as emacs's M-d does. The cursor stays where it is.
func deleteWordForward(in *textinput.Model) {
	v, pos := []rune(in.Value()), in.Position()
	if pos < 0 || pos >= len(v) {
		return
	}
	end := pos
	for end < len(v) && unicode.IsSpace(v[end]) {
		end++
	}
	for end < len(v) && !unicode.IsSpace(v[end]) {
		end++
	}
	in.SetValue(string(v[:pos]) + string(v[end:]))
	in.SetCursor(pos)
}
