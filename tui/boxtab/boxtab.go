// Package boxtab is the explorer's Box tab: the GPUs of this machine as NVML reports them
// (memory, utilisation, power, temperature, PCIe, NVLink), the topology matrix as nvidia-smi
// topo -m prints it, the cluster splitscope infers from them, and a capacity verdict — the best
// layout for the scenario's model on this box and the largest preset model that fits for
// inference and for training.
//
// The pane polls once a second, and only while it is the active tab: the root calls SetActive on
// every tab switch. Without any GPU (the probe's error wraps gpu.ErrNoGPU) it stops after the
// first probe; r probes again. Probes run in a tea.Cmd and carry the sequence number of the polling run that
// asked for them, so a result that arrives after the tab was left (or after a restart) is
// dropped and re-arms nothing. The capacity verdict runs in a tea.Cmd too (Recheck), keyed by the
// scenario it answers for.
package boxtab

import (
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/theme"
)

// Interval is how often the tab probes the GPUs while it is the active tab.
const Interval = time.Second

// UseBoxMsg asks the root to make this box the scenario's hardware (key u).
type UseBoxMsg struct{ Box gpu.Box }

// pollMsg is the poll timer firing for polling run seq.
type pollMsg struct{ seq int }

// probeMsg is a probe's answer, with the cluster inferred from it, for polling run seq.
type probeMsg struct {
	seq        int
	box        gpu.Box
	err        error
	cluster    model.Cluster
	warnings   []string
	clusterErr error
}

// capacityMsg is the capacity verdict for base (the scenario on this box's hardware).
type capacityMsg struct {
	base model.Scenario
	res  costmodel.CapacityResult
	err  error
}

// Owns reports whether msg is one of the pane's own messages (poll timer, probe and capacity
// results). The root forwards them to the pane whichever tab is active, so a result that comes
// in after a tab switch still reaches it (and is dropped there if it is stale).
func Owns(msg tea.Msg) bool {
	switch msg.(type) {
	case pollMsg, probeMsg, capacityMsg:
		return true
	}
	return false
}

// Model is the Box pane.
type Model struct {
	styles  theme.Styles
	probe   func() (gpu.Box, error)
	presets *assets.Presets
	keys    keyMap
	w, h    int

	active bool
	// seq numbers polling runs: SetActive and r start a new one, so the answers and timers of
	// an older run are recognised and dropped.
	seq int

	probed     bool    // some probe has answered
	hasBox     bool    // box holds a successful probe
	box        gpu.Box // the last successful probe
	err        error   // the last probe's error; nil when it succeeded
	polls      int     // successful probes so far
	cluster    model.Cluster
	warnings   []string // ToCluster's, for the last box
	clusterErr error

	data    common.Data
	hasData bool

	// The capacity verdict: what is shown (for capShown), and what was last asked for.
	capRes    costmodel.CapacityResult
	capErr    error
	capShown  model.Scenario
	capHas    bool
	capAsked  model.Scenario
	capAsking bool
	source    string // a saved box's file name; "" when probing this machine
}

var _ common.Pane = (*Model)(nil)

// New returns a Box pane that reads the GPUs with probe (gpu.Probe in the program, a fake in
// tests) and maps them to presets. Nothing is probed until SetActive(true).
func New(st theme.Styles, probe func() (gpu.Box, error), presets *assets.Presets) *Model {
	return &Model{styles: st, probe: probe, presets: presets, keys: DefaultKeyMap()}
}

// SetSource marks the box as read from a file (`--box FILE`): the header names it instead of
// claiming live readings.
func (m *Model) SetSource(name string) { m.source = name }

// Title is the tab's label.
func (m *Model) Title() string { return "Box" }

// SetSize gives the pane its content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetData hands the pane the current evaluation: its scenario is what the capacity verdict
// answers for (call Recheck after it).
func (m *Model) SetData(d common.Data) { m.data, m.hasData = d, true }

// Animating is always false: polling uses its own timer, not the frame clock.
func (m *Model) Animating() bool { return false }

// Keys lists the pane's bindings that do something now: u only when a box was read (without a
// GPU there is nothing to use), r always (it probes again).
func (m *Model) Keys() []key.Binding {
	if !m.hasBox || m.err != nil {
		return []key.Binding{m.keys.Probe}
	}
	return []key.Binding{m.keys.Use, m.keys.Probe}
}

// Active reports whether the pane is polling (it is the active tab).
func (m *Model) Active() bool { return m.active }

// SetActive starts polling when the tab becomes the active one (it returns the first probe) and
// stops it when the tab is left: a probe or timer of the stopped run re-arms nothing.
func (m *Model) SetActive(on bool) tea.Cmd {
	if on == m.active {
		return nil
	}
	m.active = on
	m.seq++
	if !on {
		return nil
	}
	return m.probeCmd(m.seq)
}

// Update handles the pane's keys and its own messages (see Owns).
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case probeMsg:
		if msg.seq != m.seq {
			return nil // from a run that was stopped or restarted
		}
		m.probed = true
		m.err = msg.err
		if msg.err == nil {
			m.box, m.hasBox, m.polls = msg.box, true, m.polls+1
			m.cluster, m.warnings, m.clusterErr = msg.cluster, msg.warnings, msg.clusterErr
		}
		if !m.active || (!m.hasBox && errors.Is(msg.err, gpu.ErrNoGPU)) {
			return nil // no GPU here: probing again each second would not find one (r does)
		}
		seq := m.seq
		return tea.Tick(Interval, func(time.Time) tea.Msg { return pollMsg{seq: seq} })
	case pollMsg:
		if msg.seq != m.seq || !m.active {
			return nil
		}
		return m.probeCmd(m.seq)
	case capacityMsg:
		if m.capAsking && msg.base == m.capAsked {
			m.capAsking = false
		}
		m.capRes, m.capErr, m.capShown, m.capHas = msg.res, msg.err, msg.base, true
		return nil
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Use):
			if !m.hasBox || m.err != nil {
				return nil
			}
			box := m.box
			return func() tea.Msg { return UseBoxMsg{Box: box} }
		case key.Matches(msg, m.keys.Probe):
			m.seq++ // the pending timer belongs to the old run: one poll chain at a time
			return m.probeCmd(m.seq)
		}
	}
	return nil
}

// probeCmd probes the GPUs off the update loop and maps the box to a cluster with the
// scenario's inter-node link and NIC count.
func (m *Model) probeCmd(seq int) tea.Cmd {
	probe, presets := m.probe, m.presets
	inter, nics := m.interLink()
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = probeMsg{seq: seq, err: fmt.Errorf("probe panicked: %v", r)}
			}
		}()
		if probe == nil {
			return probeMsg{seq: seq, err: fmt.Errorf("%w: no probe configured", gpu.ErrNoGPU)}
		}
		box, err := probe()
		out := probeMsg{seq: seq, box: box, err: err}
		if err == nil && presets != nil {
			out.cluster, out.warnings, out.clusterErr = gpu.ToCluster([]gpu.Box{box}, presets.GPUs, presets.Links, inter, nics)
		}
		return out
	}
}

// interLink is the scenario's inter-node link and NICs per node, or IB NDR with one NIC per GPU
// before the first evaluation.
func (m *Model) interLink() (model.Link, int) {
	if m.hasData {
		c := m.data.Scenario.Cluster
		return c.Inter, c.NICsPerNode
	}
	var l model.Link
	if m.presets != nil {
		l, _ = m.presets.Link("ib-ndr")
	}
	return l, 8
}

// capBase is the scenario the capacity verdict answers for: the last valid one on this box's
// hardware.
func (m *Model) capBase() (model.Scenario, bool) {
	if !m.hasData || !m.hasBox || m.clusterErr != nil || m.cluster.GPUs <= 0 {
		return model.Scenario{}, false
	}
	base := m.data.Scenario
	c := m.cluster
	c.Inter, c.NICsPerNode = base.Cluster.Inter, base.Cluster.NICsPerNode
	if base.Cluster.HostMemoryBytes > 0 {
		// The scenario's host memory (--host-memory, a scenario file's host_memory) over the box's.
		c.HostMemoryBytes = base.Cluster.HostMemoryBytes
	}
	base.Cluster = c
	// Search chooses the split, the micro-batch size and the schedule itself: a change of TP or
	// PP on the panel does not change the verdict, so it does not ask for a new one.
	l := &base.Layout
	l.TP, l.PP, l.DP, l.Chunks, l.MicroBatch, l.Schedule = 1, 1, c.GPUs, 1, 1, model.OneFOneB
	return base, true
}

// Recheck starts the capacity verdict when the scenario or the box's hardware changed since the
// one shown (or asked for), and only while the tab is active; nil otherwise. The root calls it
// after every evaluation, every message of the pane and every tab switch.
func (m *Model) Recheck() tea.Cmd {
	base, ok := m.capBase()
	if !ok || !m.active || (m.capHas && base == m.capShown) || (m.capAsking && base == m.capAsked) {
		return nil
	}
	m.capAsked, m.capAsking = base, true
	var models []model.Arch
	if m.presets != nil {
		models = append(models, m.presets.Models...)
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = capacityMsg{base: base, err: fmt.Errorf("capacity check panicked: %v", r)}
			}
		}()
		return capacityMsg{base: base, res: costmodel.Capacity(base, models, costmodel.SearchOptions{})}
	}
}
