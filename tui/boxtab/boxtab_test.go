package boxtab

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

func presets(tb testing.TB) *assets.Presets {
	tb.Helper()
	p, err := assets.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// scenario is llama-2-7b training on 8 H100s: it fits on four L40S.
func scenario(tb testing.TB) model.Scenario {
	return tuitest.Scenario(tb, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 4, 2)
}

// loaded is a pane that has probed once with probe and, when there is a box, has its capacity
// verdict for s; commands run synchronously, the poll timer is not run.
func loaded(tb testing.TB, probe func() (gpu.Box, error), s model.Scenario) *Model {
	tb.Helper()
	m := New(theme.Default(), probe, presets(tb))
	m.SetData(common.Data{Scenario: s})
	cmd := m.SetActive(true)
	if cmd == nil {
		tb.Fatal("SetActive(true) started no probe")
	}
	msg := cmd()
	if next := m.Update(msg); (next == nil) != errors.Is(msg.(probeMsg).err, gpu.ErrNoGPU) {
		tb.Fatalf("after the first probe (%v) the next poll is armed: %v", msg.(probeMsg).err, next != nil)
	}
	if cmd := m.Recheck(); cmd != nil {
		m.Update(cmd())
	}
	return m
}

var sizes = [][2]int{{50, 18}, {86, 28}, {130, 42}, {196, 58}}

func TestViewGolden(t *testing.T) {
	cases := []struct {
		name  string
		probe func() (gpu.Box, error)
	}{
		{"l40s", boxtest.NewProbe(boxtest.L40S4()).Probe},
		{"nogpu", boxtest.NoGPU},
	}
	for _, tc := range cases {
		m := loaded(t, tc.probe, scenario(t))
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m.SetSize(sz[0], sz[1])
				v := m.View()
				tuitest.CheckFrame(t, v, sz[0], sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

func TestViewShowsTheBox(t *testing.T) {
	m := loaded(t, boxtest.NewProbe(boxtest.L40S4()).Probe, scenario(t))
	m.SetSize(130, 42)
	v := m.View()
	for _, want := range []string{
		"4× NVIDIA L40S", "driver 550.54.15", "CUDA 12.4",
		"3.1/45.0 GiB", "37%", "121 W", "45°C", "gen4 ×16",
		"GPU0", "PIX", "SYS", "SYS across CPU sockets",
		"as a cluster: 4× l40s", "host RAM 512 GiB", "431 GiB available",
		"llama-2-7b (training) fits on the GPUs", "largest model that fits", "training on the GPUs: llama-3-8b",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
}

func TestNoGPUPanel(t *testing.T) {
	m := loaded(t, boxtest.NoGPU, scenario(t))
	m.SetSize(80, 20)
	v := m.View()
	for _, want := range []string{"No NVIDIA GPU here: libnvidia-ml.so.1 not found", "probe --save", "--box"} {
		if !strings.Contains(v, want) {
			t.Errorf("the no-GPU panel lacks %q:\n%s", want, v)
		}
	}
	if m.Recheck() != nil {
		t.Error("a capacity check started without a box")
	}
	if m.Update(keyMsg("u")) != nil {
		t.Error("u without a box asked to use it")
	}
}

func TestUnknownValuesShowAsQuestionMarks(t *testing.T) {
	b := boxtest.L40S4()
	for i := range b.GPUs {
		d := &b.GPUs[i]
		d.MemUsed, d.UtilGPU, d.PowerW, d.TempC, d.PCIeGen, d.PCIeW = gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown, gpu.Unknown
	}
	b.Topology = nil
	m := loaded(t, func() (gpu.Box, error) { return b, nil }, scenario(t))
	m.SetSize(196, 40)
	v := m.View()
	for _, want := range []string{"?/45.0 GiB", "gen? ×? (max 4 ×16)", "? unknown"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
}

func TestNeverPanicsAtAnySize(t *testing.T) {
	boxes := map[string]func() (gpu.Box, error){
		"l40s":  boxtest.NewProbe(boxtest.L40S4()).Probe,
		"nogpu": boxtest.NoGPU,
		"empty": func() (gpu.Box, error) { return gpu.Box{}, nil },
		"failed": func() (gpu.Box, error) {
			return gpu.Box{}, errors.New("nvml: GPU is lost")
		},
	}
	for name, probe := range boxes {
		m := loaded(t, probe, scenario(t))
		for w := 0; w <= 200; w += 7 {
			for h := 0; h <= 60; h += 5 {
				m.SetSize(w, h)
				v := m.View()
				if h == 0 || w == 0 {
					if v != "" {
						t.Errorf("%s %d×%d: %q, want nothing", name, w, h, v)
					}
					continue
				}
				tuitest.CheckFrame(t, v, w, h)
			}
		}
	}
}

func keyMsg(k string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)} }

func TestPollingStopsWhenInactive(t *testing.T) {
	fake := boxtest.NewProbe(boxtest.L40S4())
	m := New(theme.Default(), fake.Probe, presets(t))
	cmd := m.SetActive(true)
	first := cmd()
	if m.SetActive(true) != nil {
		t.Error("activating twice started a second poll")
	}
	// Leaving the tab: the probe in flight comes back and re-arms nothing.
	m.SetActive(false)
	if next := m.Update(first); next != nil {
		t.Error("a probe result after SetActive(false) re-armed the poll")
	}
	if m.probed {
		t.Error("a late probe result was shown")
	}
	// A timer of the stopped run fires: nothing is probed.
	if next := m.Update(pollMsg{seq: m.seq - 1}); next != nil {
		t.Error("a timer of the stopped run started a probe")
	}
	if next := m.Update(pollMsg{seq: m.seq}); next != nil {
		t.Error("a timer fired while inactive started a probe")
	}
	// Back on the tab: a new run, whose results re-arm the timer, and whose timer probes.
	cmd = m.SetActive(true)
	if cmd == nil {
		t.Fatal("coming back started no probe")
	}
	if next := m.Update(cmd()); next == nil {
		t.Fatal("a result while active did not re-arm")
	}
	if next := m.Update(pollMsg{seq: m.seq}); next == nil {
		t.Fatal("the timer of the current run did not probe")
	}
	if fake.Calls() != 2 {
		t.Errorf("%d probes, want 2", fake.Calls())
	}
}

func TestProbeNowRestartsTheRun(t *testing.T) {
	fake := boxtest.NewProbe(boxtest.L40S4())
	m := New(theme.Default(), fake.Probe, presets(t))
	old := m.SetActive(true)()
	cmd := m.Update(keyMsg("r"))
	if cmd == nil {
		t.Fatal("r started no probe")
	}
	if m.Update(old) != nil {
		t.Error("a result of the run r replaced re-armed the poll: two polls would run")
	}
	if m.Update(cmd()) == nil {
		t.Error("r's result did not re-arm the poll")
	}
	if m.box.GPUs[0].UtilGPU != 83 {
		t.Errorf("utilisation %d, want the second probe's 83", m.box.GPUs[0].UtilGPU)
	}
}

func TestUseKeyAsksTheRoot(t *testing.T) {
	m := loaded(t, boxtest.NewProbe(boxtest.L40S4()).Probe, scenario(t))
	cmd := m.Update(keyMsg("u"))
	if cmd == nil {
		t.Fatal("u returned no command")
	}
	msg, ok := cmd().(UseBoxMsg)
	if !ok || len(msg.Box.GPUs) != 4 {
		t.Fatalf("u gave %#v", msg)
	}
	if Owns(msg) {
		t.Error("UseBoxMsg is for the root, not the pane")
	}
	for _, x := range []tea.Msg{pollMsg{}, probeMsg{}, capacityMsg{}} {
		if !Owns(x) {
			t.Errorf("Owns(%T) is false", x)
		}
	}
}

func TestCapacityFollowsTheScenario(t *testing.T) {
	s := scenario(t)
	m := loaded(t, boxtest.NewProbe(boxtest.L40S4()).Probe, s)
	m.SetSize(130, 42)
	if m.Recheck() != nil {
		t.Error("a capacity check started with nothing changed")
	}
	// Another split of the same scenario: Search picks the split, the verdict stands.
	split := s
	split.Layout.TP, split.Layout.PP = 2, 4
	m.SetData(common.Data{Scenario: split})
	if m.Recheck() != nil {
		t.Error("a new TP/PP asked for a new capacity verdict")
	}
	// A new scenario: "computing…" until its verdict comes; an older verdict does not count.
	s2 := s
	s2.Workload.Mode = model.Infer
	m.SetData(common.Data{Scenario: s2})
	cmd := m.Recheck()
	if cmd == nil {
		t.Fatal("a new scenario started no capacity check")
	}
	if m.Recheck() != nil {
		t.Error("a second check started while one is in flight")
	}
	if !strings.Contains(m.View(), "computing…") {
		t.Error("no computing… while the verdict is pending")
	}
	m.Update(capacityMsg{base: m.capShown, res: costmodel.CapacityResult{}})
	if !strings.Contains(m.View(), "computing…") {
		t.Error("a verdict for the old scenario was shown for the new one")
	}
	m.Update(cmd())
	v := m.View()
	if !strings.Contains(v, "(inference)") || !strings.Contains(v, "TPOT") {
		t.Errorf("the inference verdict is missing:\n%s", v)
	}
	// Inactive: nothing is computed until the tab is shown again.
	m.SetActive(false)
	m.SetData(common.Data{Scenario: s})
	if m.Recheck() != nil {
		t.Error("a capacity check started on an inactive tab")
	}
}

// TestCapacityCountsHostMemory: offload counts against the box's host memory (512 GiB for 4
// GPUs: 128 GiB each), or the scenario's when it has one (--host-memory over the box), and the
// verdict says what offload costs.
func TestCapacityCountsHostMemory(t *testing.T) {
	s := tuitest.Scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", model.Train, 8, 4, 2)
	m := loaded(t, boxtest.NewProbe(boxtest.L40S4()).Probe, s)
	m.SetSize(240, 42) // wide: the verdict on one line
	v := m.View()
	for _, want := range []string{"mixtral-8x7b (training) on this box does not fit: its fastest layout with",
		"host RAM per GPU; this box has 128 GiB per GPU"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	// 1 TiB of host memory (--host-memory 1TiB): 256 GiB per GPU, and it fits, with offload only.
	s.Cluster.HostMemoryBytes = 1 << 40
	m.SetData(common.Data{Scenario: s})
	cmd := m.Recheck()
	if cmd == nil {
		t.Fatal("a new host memory started no capacity check")
	}
	m.Update(cmd())
	v = m.View()
	for _, want := range []string{"mixtral-8x7b (training) fits here only with", "offloaded (", "host RAM per GPU; this box has 256 GiB per GPU)"} {
		if !strings.Contains(v, want) {
			t.Errorf("with 1 TiB the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "(training) fits on the GPUs") {
		t.Errorf("mixtral-8x7b said to fit on 4 L40S without offload:\n%s", v)
	}
}

func BenchmarkViewBox(b *testing.B) {
	m := loaded(b, boxtest.NewProbe(boxtest.L40S4()).Probe, scenario(b))
	m.SetSize(196, 58)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

func TestNoGPUStopsPollingUntilAskedAgain(t *testing.T) {
	m := New(theme.Default(), boxtest.NoGPU, presets(t))
	if m.Update(m.SetActive(true)()) != nil {
		t.Error("no GPU, and the poll was re-armed")
	}
	cmd := m.Update(keyMsg("r"))
	if cmd == nil {
		t.Fatal("r probed nothing")
	}
	if _, ok := cmd().(probeMsg); !ok {
		t.Error("r's command is not a probe")
	}
}
