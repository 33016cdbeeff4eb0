package compare

import (
	"testing"
	"time"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// gemma32 is Gemma 3 27B training on 32 H100s in four nodes, global batch 32.
func gemma32(tb testing.TB) model.Scenario {
	s := tuitest.Scenario(tb, "gemma-3-27b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	s.Workload.GlobalBatch = 32
	return s
}

func logSweep(t *testing.T, sw common.SeqSweep) {
	for _, p := range sw.Points {
		line := ""
		for _, r := range p.Fams {
			line += "  |  " + common.SplitName(r.Layout)
			if r.Feasible {
				line += " " + time.Duration(r.Report.StepTime*1e9).String()
			} else {
				line += " ✗ " + r.Reason
			}
			if evaluated(r) {
				line += " " + itoaG(r.Report.Memory.Total/model.GiB)
			}
		}
		t.Logf("%6d%s", p.Seq, line)
	}
}

func itoaG(x float64) string { return time.Duration(x * 1e9).String() }

func TestSeqSweepProbe(t *testing.T) {
	g := gemma32(t)
	g.Layout.Recompute, g.Layout.ZeRO = model.RecomputeFull, 1
	for _, s := range []model.Scenario{gemma32(t), g, defaultTrain(t)} {
		t0 := time.Now()
		sw := BuildSeq(s)
		t.Logf("%s: %v", s.Arch.Label(), time.Since(t0))
		logSweep(t, sw)
	}
}
