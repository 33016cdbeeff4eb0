package common

// The crossover of the Compare tab's chart, one implementation for every view that states it
// (the Compare tab's sentence, the Learn tab's facts): where the lead in tokens per second passes
// between TP-only and PP-only, and how far that claim holds, since it holds only where both
// layouts fit.

// Crossing is where the leading series of the sweep changes.
type Crossing struct {
	Index int  // into the points
	Micro int  // m at which the new leader is ahead
	PPWon bool // PP-only took the lead from TP-only (else the reverse)
}

// Crossovers finds every change of leader between TP-only and PP-only, comparing only points
// where both have a value (> 0, both layouts fit); exact ties keep the previous leader.
func Crossovers(pts []CrossPoint) []Crossing {
	var out []Crossing
	lead := 0 // +1: PP ahead, -1: TP ahead, 0: unknown yet
	for i, p := range pts {
		if !(p.TP > 0) || !(p.PP > 0) || p.TP == p.PP {
			continue
		}
		now := -1
		if p.PP > p.TP {
			now = 1
		}
		if lead != 0 && now != lead {
			out = append(out, Crossing{Index: i, Micro: p.Micro, PPWon: now > 0})
		}
		lead = now
	}
	return out
}

// StopsFitting is the first point at or after index from where the series (PP-only when pp)
// has no value, having had one before it: the m where it no longer fits; -1 when none.
func StopsFitting(pts []CrossPoint, from int, pp bool) int {
	had := false
	for i, p := range pts {
		v := p.TP
		if pp {
			v = p.PP
		}
		switch {
		case v > 0:
			had = true
		case had && i >= from:
			return i
		}
	}
	return -1
}

// CrossBound is how far crossing k of cs holds before the next crossing: Leader is the index of
// the point where the new leader no longer fits (the claim ends there), Other where the layout
// it overtook no longer fits (the lead holds on, but against nothing), each -1 when none; Other
// is set only when Leader is not. Next is the index of the next crossing, -1 when none.
type CrossBound struct{ Leader, Other, Next int }

// Bound bounds crossing k of cs (from Crossovers(pts)).
func Bound(pts []CrossPoint, cs []Crossing, k int) CrossBound {
	b := CrossBound{Leader: -1, Other: -1, Next: -1}
	if k < 0 || k >= len(cs) {
		return b
	}
	end := len(pts)
	if k+1 < len(cs) {
		end, b.Next = cs[k+1].Index, cs[k+1].Index
	}
	c := cs[k]
	if i := StopsFitting(pts, c.Index, c.PPWon); i >= 0 && i < end {
		b.Leader = i
	} else if i := StopsFitting(pts, c.Index, !c.PPWon); i >= 0 && i < end {
		b.Other = i
	}
	return b
}
