package boxtab

import "github.com/charmbracelet/bubbles/key"

// keyMap is the Box tab's own keys.
type keyMap struct {
	Use   key.Binding // make this box the scenario's hardware
	Probe key.Binding // probe now instead of at the next tick
}

// DefaultKeyMap returns the Box tab's key bindings.
func DefaultKeyMap() keyMap {
	return keyMap{
		Use:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "use this box")),
		Probe: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "probe now")),
	}
}

// ShortHelp lists the keys shown in the footer.
func (k keyMap) ShortHelp() []key.Binding { return []key.Binding{k.Use, k.Probe} }

// FullHelp lists every key of the tab.
func (k keyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Use, k.Probe}} }
