package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is the explorer's global keys; each pane adds its own (Pane.Keys).
type keyMap struct {
	Quit, Help, NextTab, PrevTab, Up, Down, Dec, Inc, Edit, Cancel, Present key.Binding
	// Teaching: "why?" (the focused tab's explanation on the Learn tab), the guided tour,
	// presentation mode, save the scenario, export the picture and the report.
	Why, Tour, Presentation, Save, Export key.Binding
	Tabs                                  []key.Binding
	pane                                  []key.Binding
}

// DefaultKeyMap builds the global key bindings.
func DefaultKeyMap() keyMap {
	return keyMap{
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		NextTab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "select parameter")),
		Down:         key.NewBinding(key.WithKeys("down", "j")),
		Dec:          key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", "change value")),
		Inc:          key.NewBinding(key.WithKeys("right", "l")),
		Edit:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "type a value")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel typing / leave the tour")),
		Present:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "hide/show parameters")),
		Why:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "why? (explain this tab)")),
		Tour:         key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "guided tour")),
		Presentation: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "presentation mode")),
		Save:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save the scenario")),
		Export:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "export SVG + Markdown")),
		Tabs: []key.Binding{
			key.NewBinding(key.WithKeys("1"), key.WithHelp("1-6", "go to tab")),
			key.NewBinding(key.WithKeys("2")),
			key.NewBinding(key.WithKeys("3")),
			key.NewBinding(key.WithKeys("4")),
			key.NewBinding(key.WithKeys("5")),
			key.NewBinding(key.WithKeys("6")),
		},
	}
}

// ShortHelp is the one-line help of the footer, in short words so that it fits 100 columns.
func (k keyMap) ShortHelp() []key.Binding {
	short := func(b key.Binding, desc string) key.Binding {
		b.SetHelp(b.Help().Key, desc)
		return b
	}
	out := []key.Binding{short(k.Up, "parameter"), short(k.Dec, "value"), k.NextTab}
	if len(k.pane) > 0 {
		out = append(out, k.pane[0])
	}
	return append(out, short(k.Why, "why?"), short(k.Tour, "tour"), k.Help, k.Quit)
}

// FullHelp is every key, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Dec, k.Edit, k.Cancel},
		{k.NextTab, k.PrevTab, k.Tabs[0], k.Present},
		{k.Why, k.Tour, k.Presentation, k.Save, k.Export},
		k.pane,
		{k.Help, k.Quit},
	}
}
