package common

// SeqFamily is one column of the Compare tab's long-context sweep: which layouts compete in it.
type SeqFamily uint8

// The sweep's families, in the order the tab lists them.
const (
	FamNoCP SeqFamily = iota // CP 1: TP, PP and DP as search picks them, no context parallelism
	FamCP                    // CP > 1 at the least TP that fits (TP 1 when that fits)
	FamBoth                  // CP > 1 and TP > 1
	NumSeqFamilies
)

// SeqPoint is one sequence length of the sweep: each family's best layout there (Feasible), or
// the one closest to fitting with its reason, or no layout at all (Layout.TP 0, Reason says why).
type SeqPoint struct {
	Seq  int
	Fams [NumSeqFamilies]CompareRow
}

// SeqSweep is the Compare tab's sweep of the sequence length, TP vs CP vs both, computed in a
// tea.Cmd (a Search a length) for a training scenario. Batch is the global batch each length
// trains (sequences a step).
type SeqSweep struct {
	Points []SeqPoint
	Batch  int
	Err    error
}

// LongestFit is the longest sequence family f fits at in the sweep, 0 when none.
func (s SeqSweep) LongestFit(f SeqFamily) int {
	n := 0
	for _, p := range s.Points {
		if p.Fams[f].Feasible {
			n = max(n, p.Seq)
		}
	}
	return n
}
