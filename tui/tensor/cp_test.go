package tensor

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// cpTrain is llama-3-8b training at seq tokens on 16 H100s in two nodes, TP tp × CP 4 (TP 4:
// the CP ring crosses the nodes over the NICs), exchange kind.
func cpTrain(t testing.TB, tp, seq int, kind model.CPComm) common.Data {
	return build(t, "nvlink4", model.Train, tp, func(s *model.Scenario) {
		s.Cluster.GPUs = 16
		s.Layout.CP, s.Layout.CPComm, s.Layout.DP = 4, kind, 16/(4*tp)
		s.Workload.Seq, s.Workload.GlobalBatch = seq, 8*s.Layout.DP
	})
}

// TestViewGoldenCP: the Tensor tab with CP 4 at 80×24 (the compact strip) and 160×48 (the GPUs,
// the attention's and the link's rows, the caption): the ring mid-way through its second step,
// with its sends exposed across the nodes, all-gather and Ulysses on the attention.
func TestViewGoldenCP(t *testing.T) {
	cases := []struct {
		name string
		tp   int
		kind model.CPComm
		pos  float64
	}{
		{"ring", 4, model.CPRing, 1.5},
		{"all-gather", 4, model.CPAllGather, 1.5},
		{"ulysses", 2, model.CPUlysses, 0.5},
	}
	for _, tc := range cases {
		d := cpTrain(t, tc.tp, 16384, tc.kind)
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			if tc.kind == model.CPAllGather && sz[0] == 80 || tc.kind == model.CPUlysses && sz[0] == 160 {
				continue // one size each beside the ring's two
			}
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m := newPane(sz[0], sz[1], d)
				m.cpPos = tc.pos
				out := m.View()
				tuitest.CheckFrame(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// The CP drawing's numbers are the report's: send, block, link, step and layer exposure for the
// ring; the all-gather's and the all-to-alls' seconds; at both sizes the exposed time; and the
// phases the animation plays sum to the exchange's exposed time beyond the attention.
func TestCPNumbersAreTheReports(t *testing.T) {
	for _, tc := range []struct {
		tp   int
		kind model.CPComm
	}{{4, model.CPRing}, {4, model.CPAllGather}, {2, model.CPUlysses}, {4, model.CPHybrid}} {
		data := cpTrain(t, tc.tp, 16384, tc.kind)
		d := data.Report.Detail.Layer.CP
		if d == nil {
			t.Fatalf("%s: no CP detail in the report", tc.kind)
		}
		big := newPane(160, 48, data).View()
		small := newPane(80, 24, data).View()
		want := []string{static.Seconds(d.ExposedS)}
		switch tc.kind {
		case model.CPRing, model.CPHybrid:
			want = append(want, static.Seconds(d.SendS), static.Seconds(d.BlockS), fmt.Sprintf("×%d", d.Steps))
		case model.CPAllGather:
			want = append(want, static.Seconds(d.GatherS), static.Seconds(d.CoreS))
		case model.CPUlysses:
			want = append(want, static.Seconds(d.BeforeS), static.Seconds(d.AfterS), static.Seconds(d.CoreS))
		}
		for _, s := range want {
			if !strings.Contains(small, s) {
				t.Errorf("%s 80×24: %q not shown:\n%s", tc.kind, s, small)
			}
		}
		if tc.kind == model.CPRing && (!strings.Contains(big, d.Link) || !strings.Contains(big, static.Seconds(d.StepExposedS))) {
			t.Errorf("ring 160×48: link %s or step exposure %s not shown", d.Link, static.Seconds(d.StepExposedS))
		}
		// The phases: the transfers beyond the attention are the layer's exposed exchange.
		ps := cpPhases(d)
		exposed, attn := 0.0, 0.0
		for _, p := range ps {
			exposed += max(p.comm-p.compute, 0)
			attn += p.compute
		}
		if rel(exposed, d.ExposedS) > 1e-9 || rel(attn, d.CoreS) > 1e-9 {
			t.Errorf("%s: phases expose %g s over %g s of attention, report %g s over %g s", tc.kind, exposed, attn, d.ExposedS, d.CoreS)
		}
	}
	// Without CP, no drawing and nothing to play.
	m := newPane(160, 48, scenario(t, "nvlink4", model.Train, 8))
	if m.cpOn() || strings.Contains(m.View(), "CP ring") {
		t.Error("CP 1: a CP drawing")
	}
}

func rel(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// The exposed part is drawn only when the link is slower than the block's attention: the ring
// across the nodes (IB) shows ▓ on its K/V row, the ring inside one NVLink node none.
func TestCPExposedShownOnlyWhenSlow(t *testing.T) {
	kvRow := func(data common.Data) string {
		m := newPane(160, 48, data)
		m.cpPos = float64(m.cpPositions() - 1) // the finished state: every cell played
		return line(strings.TrimLeft(strings.ReplaceAll(m.View(), "\n  ", "\n"), " "), "K/V  │")
	}
	slow := cpTrain(t, 4, 16384, model.CPRing) // across nodes
	fast := cpTrain(t, 2, 16384, model.CPRing) // one NVLink node
	if d := slow.Report.Detail.Layer.CP; d.StepExposedS <= 0 {
		t.Fatalf("the slow ring hides its sends: %+v", *d)
	}
	if d := fast.Report.Detail.Layer.CP; d.StepExposedS != 0 {
		t.Fatalf("the fast ring exposes %g s a step", d.StepExposedS)
	}
	if r := kvRow(slow); !strings.Contains(r, "▓") || !strings.Contains(r, "▸") {
		t.Errorf("slow ring: no exposed (▓) and hidden (▸) send on the K/V row: %q", r)
	}
	if r := kvRow(fast); strings.Contains(r, "▓") || !strings.Contains(r, "▸") {
		t.Errorf("fast ring: exposed send drawn, or no hidden send: %q", r)
	}
}

// The CP animation runs on the frames at the modelled pace, stops when paused, steps with "."
// and loops through its phases; the ring's GPUs pass their blocks on.
func TestCPAnimation(t *testing.T) {
	data := cpTrain(t, 4, 16384, model.CPRing)
	m := New(theme.Default())
	m.SetSize(160, 48)
	m.SetData(data)
	if !m.Animating() || m.cpPositions() != 5 { // 3 steps, the last block, done
		t.Fatalf("animating %v, %d positions", m.Animating(), m.cpPositions())
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	seen := map[int]bool{}
	for range int(3 * m.cpWall() / common.FrameInterval.Seconds()) {
		now = now.Add(common.FrameInterval)
		m.Update(common.FrameMsg(now))
		seen[m.CPStep()] = true
	}
	for k := range m.cpPositions() {
		if !seen[k] {
			t.Errorf("phase %d never shown in three loops (seen %v)", k, seen)
		}
	}
	m.Update(press(" "))
	pos := m.cpPos
	for range 50 {
		now = now.Add(common.FrameInterval)
		m.Update(common.FrameMsg(now))
	}
	if m.cpPos != pos {
		t.Errorf("paused CP moved %g → %g", pos, m.cpPos)
	}
	m.cpPos = 0
	if v := m.View(); !strings.Contains(v, "G0[KV0] ▸ G1[KV1]") {
		t.Errorf("step 1: G0 does not hold its own block:\n%s", v)
	}
	m.Update(press("."))
	if m.CPStep() != 1 || !strings.Contains(m.View(), "G0[KV3] ▸ G1[KV0]") {
		t.Errorf("after one step: phase %d, G0 does not hold G3's block:\n%s", m.CPStep(), m.View())
	}
}
