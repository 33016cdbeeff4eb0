package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/model"
)

// modelReadMsg is a config.json typed into the model row, read (or not) by its command.
type modelReadMsg struct {
	path string
	arch model.Arch
	err  error
}

// readModelPath reads the config.json (or folder) typed into the model row in a command, so that
// a slow disk never holds Update; the row waits, its text kept, until modelRead takes the model.
// A served explorer reads no file on the server: it says so.
func (m Model) readModelPath(path string) (tea.Model, tea.Cmd) {
	if m.readArch == nil {
		m.inputErr, m.offer, m.inputSel = fmt.Sprintf("%q: not a preset; a config.json is read by splitscope on your own machine (--model FILE), not over splitscope serve", path), nil, true
		return m, nil
	}
	read := m.readArch
	m.inputErr = "reading " + path + " …"
	return m, func() tea.Msg {
		a, err := read(path)
		return modelReadMsg{path: path, arch: a, err: err}
	}
}

// modelRead takes a config.json's model: it joins the presets for the session (the model row
// cycles back to it) and becomes the scenario's model where the scenario stays valid; a read or
// validation problem shows under the row, the text selected for another try.
func (m Model) modelRead(msg modelReadMsg) (tea.Model, tea.Cmd) {
	if !m.editing || m.sel >= len(m.fields) || m.fields[m.sel].name != "model" || m.input.Value() != msg.path {
		return m, nil // the row was left or its text changed since: this read is stale
	}
	if msg.err != nil {
		m.inputErr, m.offer, m.inputSel = msg.err.Error(), nil, true
		return m, nil
	}
	return m.commitValue(m.fields[m.sel], msg.path, m.presets.AddModel(msg.arch))
}
