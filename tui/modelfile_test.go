package tui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
)

// typeModel opens the model row, types text over it and presses Enter.
func typeModel(t *testing.T, m Model, text string) (Model, tea.Cmd) {
	t.Helper()
	m = selectField(t, m, "model")
	m, _ = press(m, "enter")
	m.input.SetValue("")
	m, _ = press(m, text)
	return press(m, "enter")
}

// A config.json typed into the model row is read in a command (never in Update), joins the
// presets and becomes the scenario's model; a read that fails says why under the row.
func TestModelRowReadsConfig(t *testing.T) {
	s, p := testScenario(t)
	want := s.Arch
	want.ID, want.Name, want.Layers, want.File = "my-model", "my model", want.Layers/2, "/models/my/config.json"
	var asked []string
	read := func(path string) (model.Arch, error) {
		asked = append(asked, path)
		if strings.Contains(path, "broken") {
			return model.Arch{}, errors.New("model = broken/config.json: hidden_size: missing")
		}
		return want, nil
	}
	m := New(s, p, WithProbe(boxtest.NoGPU), WithModelReader(read))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = settle(next.(Model))

	m, cmd := typeModel(t, m, "~/models/my/config.json")
	if cmd == nil || len(asked) != 0 {
		t.Fatalf("the read ran in Update (%v) or no command came (%v)", asked, cmd != nil)
	}
	next, _ = m.Update(cmd())
	m = next.(Model)
	if m.cur.Arch.ID != "my-model" || m.cur.Arch.Layers != want.Layers || m.editing {
		t.Fatalf("after the read: model %q, %d layers, editing %v, error %q", m.cur.Arch.ID, m.cur.Arch.Layers, m.editing, m.inputErr)
	}
	if _, err := p.Model("my-model"); err != nil {
		t.Errorf("the model did not join the presets: %v", err)
	}

	m, cmd = typeModel(t, m, "broken/config.json")
	next, _ = m.Update(cmd())
	m = next.(Model)
	if !m.editing || !strings.Contains(m.inputErr, "hidden_size: missing") || m.cur.Arch.ID != "my-model" {
		t.Errorf("a broken config: editing %v, error %q, model %q", m.editing, m.inputErr, m.cur.Arch.ID)
	}
}

// Served (no reader), a path is refused with the reason: the server reads no student's file.
func TestServedModelRowReadsNoFile(t *testing.T) {
	m := ready(t, 120, 40, nil)
	m, cmd := typeModel(t, m, "/etc/passwd")
	if cmd != nil || !strings.Contains(m.inputErr, "not over splitscope serve") {
		t.Errorf("served: command %v, error %q", cmd != nil, m.inputErr)
	}
}
