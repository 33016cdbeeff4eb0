package export

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
)

// The sequence sweep, when the explorer made it, follows the comparison: a row a length with
// each family's layout, tokens/s and memory, ★ on the most tokens/s, what the closest layout
// needs where none fits and — where there is no layout; in French too. Without it, no section.
func TestMarkdownSeqSweep(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	over := r
	over.Memory.Total, over.Memory.Fits = 2*r.Memory.Capacity, false
	fast := r
	fast.TokensPerS = 2 * r.TokensPerS
	sw := common.SeqSweep{Batch: 32, Points: []common.SeqPoint{{Seq: 131072, Fams: [common.NumSeqFamilies]common.CompareRow{
		{Layout: model.Layout{TP: 8, PP: 1, DP: 4}, Report: over},
		{Layout: model.Layout{TP: 1, CP: 8, PP: 4, DP: 1}, Report: r, Feasible: true},
		{Layout: model.Layout{TP: 8, CP: 4, PP: 1, DP: 1}, Report: fast, Feasible: true},
	}}, {Seq: 4096, Fams: [common.NumSeqFamilies]common.CompareRow{
		{Layout: model.Layout{TP: 8, PP: 1, DP: 4}, Report: r, Feasible: true},
		{Reason: "search tries CP from 8K-token sequences"},
		{Reason: "search tries CP from 8K-token sequences"},
	}}}}
	if md := renderMarkdown(t, s, r, common.Compare{}, "en"); strings.Contains(md, "Sequence sweep") {
		t.Fatal("a sweep section without a sweep")
	}
	c := common.Compare{Seq: &sw}
	en := renderMarkdown(t, s, r, c, "en")
	for _, want := range []string{
		"Sequence sweep, TP vs CP vs both, at a global batch of 32 sequences",
		"| sequence | TP, no CP | CP, least TP | TP × CP |",
		"| 131072 | TP 8 × DP 4 · ✗ needs ",
		"| CP 8 × PP 4 · ",
		"| TP 8 × CP 4 · ",
		"| 4096 | TP 8 × DP 4 · ",
		" | — | — |",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("no %q in:\n%s", want, en)
		}
	}
	for _, l := range strings.Split(en, "\n") {
		if strings.HasPrefix(l, "| 131072 |") {
			cells := strings.Split(l, " | ")
			if strings.Contains(cells[2], WinnerMark) || !strings.HasSuffix(strings.TrimSuffix(l, " |"), WinnerMark) {
				t.Errorf("★ not on TP × CP alone (twice the tokens/s): %s", l)
			}
		}
	}
	fr := renderMarkdown(t, s, r, c, "fr")
	for _, want := range []string{"Balayage de la longueur de séquence", "| séquence | TP, sans CP | CP, TP minimal | TP × CP |", "✗ il faudrait "} {
		if !strings.Contains(fr, want) {
			t.Errorf("no %q in the French:\n%s", want, fr)
		}
	}
}
