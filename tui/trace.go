package tui

import (
	"errors"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/tui/overlay"
)

// WithTraces overlays PyTorch profiler traces (one file per rank) on the Pipeline tab: they are
// read in a command once the explorer starts, and set against each result whose layout they fit.
func WithTraces(paths []string) Option {
	return func(o *options) { o.traces = append([]string(nil), paths...) }
}

// traceMsg carries the traces read and worked out, or why they could not be.
type traceMsg struct {
	set *overlay.Set
	err error
}

// traceState is the explorer's overlay: the files, what was read, why it is off.
type traceState struct {
	paths   []string
	set     *overlay.Set
	err     error // the files could not be read, or the current layout contradicts them
	loading bool
}

// traceCmd reads the traces off the Update loop.
func traceCmd(paths []string) tea.Cmd {
	if len(paths) == 0 {
		return nil
	}
	return func() tea.Msg {
		t, err := overlay.Load(paths)
		if err != nil {
			return traceMsg{err: err}
		}
		return traceMsg{set: overlay.NewSet(t)} // the unions sorted here, off the Update loop
	}
}

// applyOverlay sets the traces against the current result, or takes the overlay off and says
// why when its layout contradicts them.
func (m *Model) applyOverlay() {
	ts := m.trace
	if ts == nil || ts.loading || ts.set == nil || !m.hasData {
		return
	}
	o, err := overlay.BuildSet(ts.set, m.data.Scenario, m.data.Report)
	ts.err = err
	m.pipe.SetOverlay(o) // nil when refused
}

// traceTag is the footer's word on the overlay: "" when none.
func (m *Model) traceTag() (string, bool) {
	ts := m.trace
	switch {
	case ts == nil:
		return "", false
	case ts.loading:
		return "reading trace…", false
	case ts.err != nil:
		var oe *overlay.Error
		if errors.As(ts.err, &oe) { // the file's base name: the footer is one line
			return "trace off: " + filepath.Base(oe.File) + ": " + oe.Msg, true
		}
		return "trace off: " + ts.err.Error(), true
	}
	if o := m.pipe.Overlay(); o != nil {
		return "trace overlaid: " + o.Files() + " (1 Pipeline)", false
	}
	return "", false
}
