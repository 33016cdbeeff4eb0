package compare

import (
	"reflect"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
	"github.com/splitscope/splitscope/tui/theme"
)

// gemma32 is Gemma 3 27B training on 32 H100s in four nodes, global batch 32.
func gemma32(tb testing.TB) model.Scenario {
	s := tuitest.Scenario(tb, "gemma-3-27b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	s.Workload.GlobalBatch = 32
	return s
}

// BuildSeq's sweep: one point a length of SeqLens; each family's row is of its family, on the
// scenario's GPUs, and fits when it says so; the CP families are empty below search's CP
// threshold with the reason; the CP family's TP is the least of the CP layouts that fit (no more
// than TP × CP's); and it is deterministic. On Gemma 3 27B with full recompute and ZeRO 1, the
// physics: without CP the 128K sequence does not fit, with CP it does.
func TestSeqSweep(t *testing.T) {
	s := gemma32(t)
	s.Layout.Recompute, s.Layout.ZeRO = model.RecomputeFull, 1
	sw := BuildSeq(s)
	if sw.Err != nil || len(sw.Points) != len(SeqLens) || sw.Batch != s.Workload.GlobalBatch {
		t.Fatalf("sweep: err %v, %d points, batch %d", sw.Err, len(sw.Points), sw.Batch)
	}
	for i, p := range sw.Points {
		if p.Seq != SeqLens[i] {
			t.Errorf("point %d at %d tokens, want %d", i, p.Seq, SeqLens[i])
		}
		for f, r := range p.Fams {
			l := r.Layout
			t.Logf("%6d %-13s %-22s fits %-5v %6.1f GiB %8.0f tok/s %s", p.Seq, SeqFamilyNames[f], common.SplitName(l), r.Feasible,
				r.Report.Memory.Total/model.GiB, r.Report.TokensPerS, r.Reason)
			if l.TP == 0 {
				if r.Feasible || r.Reason == "" {
					t.Errorf("%d %s: no layout, feasible %v, reason %q", p.Seq, SeqFamilyNames[f], r.Feasible, r.Reason)
				}
				continue
			}
			if !seqFamilyIn(common.SeqFamily(f), l) || l.GPUs() != s.Cluster.GPUs {
				t.Errorf("%d %s: layout %+v is not of the family or not on %d GPUs", p.Seq, SeqFamilyNames[f], l, s.Cluster.GPUs)
			}
			if r.Feasible != r.Report.Memory.Fits || r.Report.Layout.TP == 0 {
				t.Errorf("%d %s: feasible %v, report fits %v", p.Seq, SeqFamilyNames[f], r.Feasible, r.Report.Memory.Fits)
			}
		}
		cp, both := p.Fams[common.FamCP], p.Fams[common.FamBoth]
		if p.Seq < 8192 && (cp.Layout.TP != 0 || both.Layout.TP != 0) {
			t.Errorf("%d: CP layouts below search's CP threshold", p.Seq)
		}
		if cp.Feasible && both.Feasible && cp.Layout.TP > both.Layout.TP {
			t.Errorf("%d: CP's least TP %d above TP × CP's %d", p.Seq, cp.Layout.TP, both.Layout.TP)
		}
	}
	last := sw.Points[len(sw.Points)-1]
	if last.Fams[common.FamNoCP].Feasible || !last.Fams[common.FamCP].Feasible {
		t.Errorf("at 128K: without CP fits %v, with CP %v; want only CP to fit", last.Fams[common.FamNoCP].Feasible, last.Fams[common.FamCP].Feasible)
	}
	if sw.LongestFit(common.FamNoCP) >= sw.LongestFit(common.FamCP) {
		t.Errorf("longest fit without CP %d, with %d", sw.LongestFit(common.FamNoCP), sw.LongestFit(common.FamCP))
	}
	if again := BuildSeq(s); !reflect.DeepEqual(again, sw) {
		t.Error("BuildSeq is not deterministic")
	}
	inf := s
	inf.Workload.Mode = model.Infer
	if BuildSeq(inf).Err == nil {
		t.Error("a serving sweep")
	}
}

// A contender with CP names it beside TP×PP×DP (the three sizes alone would not add up to the
// GPUs): its layout cell, as the table shows it.
func TestLayoutCellNamesCP(t *testing.T) {
	m := New(theme.Default())
	m.SetSize(120, 30)
	s := gemma32(t)
	s.Workload.Seq = 131072
	s.Layout = model.Layout{TP: 4, CP: 4, PP: 1, DP: 2, Chunks: 1, MicroBatch: 1}
	m.SetData(common.Data{Scenario: s})
	m.SetCompare(common.Compare{Rows: []common.CompareRow{{Kind: common.RowTPOnly, Name: NameTP, Layout: s.Layout}}})
	for _, l := range m.tableLines() {
		if l.label == "layout" {
			if got := l.cells[0].long; got != "4×1×2 CP4" {
				t.Errorf("layout cell %q, want 4×1×2 CP4", got)
			}
			return
		}
	}
	t.Fatal("no layout line")
}

// Where a family does not fit and the panel holds the memory knobs, the page names them, in
// some form at every width down to the 80-column explorer's pane.
func TestSeqHeldNamed(t *testing.T) {
	s := defaultTrain(t)
	m := New(theme.Default())
	m.SetData(common.Data{Scenario: s})
	m.SetSweep(BuildSeq(s))
	m.SetSeqView(true)
	for _, w := range []int{50, 80, 122} {
		m.SetSize(w, 30)
		if v := m.View(); !strings.Contains(v, "auto frees them") && !strings.Contains(v, "set them to auto") {
			t.Errorf("%d columns: no word of the held knobs:\n%s", w, v)
		}
	}
}
