package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
)

// keyMap is the explorer's global keys; each pane adds its own (Pane.Keys). Model.activeKeys
// disables the keys that do nothing in the current state, so that neither the footer nor the
// help page offers them.
type keyMap struct {
	Quit, Help, NextTab, PrevTab, Up, Down, Dec, Inc, Edit, Cancel, Present key.Binding
	// Take applies the nearest valid scenario offered when an edit could not apply.
	Take key.Binding
	// The guided tour's own ←/→ (the parameter panel's wait while the tour runs).
	TourPrev, TourNext key.Binding
	// Teaching: "why?" (the focused tab's explanation on the Learn tab), the guided tour,
	// presentation mode, save the scenario, export the picture and the report.
	Why, Tour, Presentation, Save, Export key.Binding
	// Follow, in a student's served session that wandered off, follows the teacher again.
	Follow key.Binding
	// Reveal, in the teacher's served session on a step with a question, shows the model's answer
	// on every follower's screen.
	Reveal key.Binding
	Tabs   []key.Binding
	pane   []key.Binding
}

// DefaultKeyMap builds the global key bindings.
func DefaultKeyMap() keyMap {
	return keyMap{
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q, ctrl+c", "quit")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		NextTab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓ k/j", "select a parameter")),
		Down:         key.NewBinding(key.WithKeys("down", "j")),
		Dec:          key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→ h/l", "change its value")),
		Inc:          key.NewBinding(key.WithKeys("right", "l")),
		Edit:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "type a value (enter applies, esc cancels)")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "dismiss the offer / leave the tour")),
		Take:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "take the offered fix")),
		TourPrev:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", "tour: previous/next step")),
		TourNext:     key.NewBinding(key.WithKeys("right", "l")),
		Present:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "hide/show the parameters")),
		Why:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "why? (explain this tab)")),
		Tour:         key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "guided tour")),
		Presentation: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "presentation mode")),
		Save:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save the scenario (a new file)")),
		Export:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "export SVG + Markdown (new files)")),
		Follow:       key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow the teacher again")),
		Reveal:       key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reveal the answer to the class")),
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

// activeKeys is the key map with the keys that would do nothing now disabled: the parameter
// keys while the panel is hidden (p, P) or, for ←/→, while the tour uses them; y without an
// offer; esc with nothing to dismiss or leave; x before there is a result. The pane's keys are
// the active tab's, as it lists them now (the Box tab offers u only with a box).
func (m *Model) activeKeys() keyMap {
	k := m.keys
	panel := !m.present
	k.Up.SetEnabled(panel)
	k.Down.SetEnabled(panel)
	k.Dec.SetEnabled(panel && !m.tour.on)
	k.Inc.SetEnabled(panel && !m.tour.on)
	k.Edit.SetEnabled(panel)
	k.TourPrev.SetEnabled(m.tour.on)
	k.TourNext.SetEnabled(m.tour.on)
	k.Take.SetEnabled(m.offer != nil && m.offer.ok)
	k.Cancel.SetEnabled(m.offer != nil || m.tour.on)
	k.Export.SetEnabled(m.hasData)
	// F only where there is a teacher to follow and this student does not follow now.
	k.Follow.SetEnabled(m.class.Follow != nil && !m.class.Following)
	k.Reveal.SetEnabled(m.teacherReveals())
	if m.served {
		// Nothing is written on the serving machine: the keys show instead.
		k.Save.SetHelp("s", "show the scenario file (to copy)")
		k.Export.SetHelp("x", "show the report (Markdown, to copy)")
	}
	if m.lesson != nil {
		k.Tour.SetHelp("g", fmt.Sprintf("your lesson (%d steps)", len(m.lesson)))
	}
	if m.tour.on {
		k.Tour.SetHelp("g", "leave the tour (as esc does)")
	}
	k.pane = m.panes[m.tab].Keys()
	return k
}

// ShortHelp is the footer's keys, most useful first: the footer drops them from the end when
// the line is too narrow, keeping "? all keys" and "q quit" (see Model.shortHelp).
func (k keyMap) ShortHelp() []key.Binding {
	short := func(b key.Binding, keys, desc string) key.Binding {
		b.SetHelp(keys, desc)
		return b
	}
	out := []key.Binding{short(k.Take, "y", "take the fix"), short(k.Up, "↑/↓", "select"), short(k.Dec, "←/→", "change"),
		short(k.TourPrev, "←/→", "tour step")}
	if len(k.pane) > 0 {
		out = append(out, k.pane[0])
	}
	return append(out, short(k.Why, "w", "why?"), short(k.Tour, "g", "tour"), short(k.NextTab, "tab", "next tab"), k.Help,
		short(k.Quit, "q", "quit"))
}

// FullHelp is every key, in columns (the help page lays out its own sections; see helpSections).
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Dec, k.Edit, k.Take, k.Cancel},
		{k.NextTab, k.PrevTab, k.Tabs[0], k.Present},
		{k.Why, k.Tour, k.TourPrev, k.Follow, k.Reveal, k.Presentation, k.Save, k.Export},
		k.pane,
		{k.Help, k.Quit},
	}
}
