package pipeline

import "github.com/charmbracelet/bubbles/key"

// keyMap is the Pipeline tab's own keys.
type keyMap struct {
	Play     key.Binding // pause / play; at the end, play again from the start
	Step     key.Binding // jump to the next op start and pause
	Faster   key.Binding
	Slower   key.Binding
	Restart  key.Binding
	PageUp   key.Binding // scroll folded stages
	PageDown key.Binding
}

// DefaultKeyMap returns the Pipeline tab's key bindings.
func DefaultKeyMap() keyMap {
	return keyMap{
		Play:     key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "play/pause")),
		Step:     key.NewBinding(key.WithKeys("."), key.WithHelp(".", "next op")),
		Faster:   key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:   key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		Restart:  key.NewBinding(key.WithKeys("home", "0"), key.WithHelp("home/0", "restart")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "["), key.WithHelp("pgup/[", "stages up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "]"), key.WithHelp("pgdn/]", "stages down")),
	}
}

// ShortHelp lists the keys shown in the footer.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Play, k.Step, k.Faster, k.Slower, k.Restart, k.PageUp, k.PageDown}
}

// FullHelp groups the keys: playback, then scrolling.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Play, k.Step, k.Restart}, {k.Faster, k.Slower}, {k.PageUp, k.PageDown}}
}
