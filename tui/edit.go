package tui

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// Edits change one thing. A change to a row (a step with ←/→, a typed value, a wheel notch)
// is tried on a copy of the scenario: DP follows TP and PP (DP = GPUs / (TP × PP)), the global
// batch (requests in inference) stays, and the micro-batch count m follows from them. A valid
// result applies, and the footer names what else moved. An invalid one does not apply: the
// reason shows, with the nearest valid scenario that keeps the edit, which y (or Enter again,
// when typing) takes.

// offer is the nearest valid scenario to an edit that cannot apply as it is.
type offer struct {
	field string         // the row that was edited
	tried model.Scenario // the edit as asked, invalid
	typed string         // the text that was typed, when the edit was typed
	why   string         // why the edit cannot apply as it is
	s     model.Scenario // the nearest valid scenario that keeps the edit, when found
	ok    bool           // whether s was found
	what  string         // what taking it sets: "TP 4 × PP 2 × DP 1, batch 32"
}

// text is the offer in one line: why, then what y takes.
func (o offer) text(key string) string {
	if !o.ok {
		return o.why
	}
	return o.why + " · " + key + ": " + o.what
}

// tryEdit applies change to a copy of the scenario being edited and derives DP (unless the
// edit is to DP itself). It returns the result and, when it is invalid, an offer.
func tryEdit(cur model.Scenario, name string, change func(*model.Scenario) error) (model.Scenario, *offer, error) {
	next := cur
	if err := change(&next); err != nil {
		return cur, nil, err
	}
	if name != "dp" {
		deriveDP(&next)
	}
	err := next.Validate()
	if err == nil {
		return next, nil, nil
	}
	o := &offer{field: name, why: whyInvalid(err, next, name)}
	if near, ok := nearestValid(next, cur, name); ok {
		o.s, o.ok = near, true
		o.what = describeChange(cur, near)
	}
	return next, o, nil
}

// whyInvalid is the reason an edited scenario is invalid, in the user's terms: the edited row's
// own problem first; a split that does not fit the GPUs is said as such.
func whyInvalid(err error, s model.Scenario, name string) string {
	var ve model.ValidationError
	if !errors.As(err, &ve) || len(ve) == 0 {
		return err.Error()
	}
	for _, fe := range ve {
		if fe.Field == name && name != "dp" {
			return fmt.Sprintf("%s %v: %s", fe.Field, fe.Value, fe.Allowed)
		}
	}
	l, gpus := s.Layout, s.Cluster.GPUs
	if cp := l.CPSize(); cp > 1 && l.TP >= 1 && l.PP >= 1 && l.DP >= 1 && l.GPUs() != gpus {
		return fmt.Sprintf("TP %d × CP %d × PP %d × DP %d is %d GPUs; there are %d", l.TP, cp, l.PP, l.DP, l.GPUs(), gpus)
	}
	if l.TP >= 1 && l.PP >= 1 && l.DP >= 1 && l.TP*l.PP*l.DP != gpus {
		switch {
		case name == "dp" && gpus%l.DP != 0:
			return fmt.Sprintf("DP %d does not divide %d GPUs", l.DP, gpus)
		case name == "dp":
			return fmt.Sprintf("DP %d gives each replica %d GPUs, not TP %d × PP %d = %d", l.DP, gpus/l.DP, l.TP, l.PP, l.TP*l.PP)
		case l.TP*l.PP > gpus && l.PP == 1:
			return fmt.Sprintf("TP %d needs %d GPUs; there are %d", l.TP, l.TP, gpus)
		case l.TP*l.PP > gpus && name == "pp" && l.TP == gpus:
			return fmt.Sprintf("TP %d uses all %d GPUs: no room for PP %d", l.TP, gpus, l.PP)
		case l.TP*l.PP > gpus:
			return fmt.Sprintf("TP %d × PP %d needs %d GPUs; there are %d", l.TP, l.PP, l.TP*l.PP, gpus)
		default:
			return fmt.Sprintf("TP %d × PP %d does not divide %d GPUs", l.TP, l.PP, gpus)
		}
	}
	fe := ve[0]
	return fmt.Sprintf("%s %v: %s", fe.Field, fe.Value, fe.Allowed)
}

// nearestValid searches the valid scenarios that keep the edited row's value for the one that
// changes least: TP and PP over the divisors of the GPUs (DP derived), the chunks of an
// interleaved schedule, and the global batch (requests) at its nearest multiples of micro-batch ×
// DP. Changing the batch costs less than changing another layout size, so a split that only
// leaves the batch uneven proposes the nearest batch. When nothing keeps the edit (TP 3 with 64
// heads), the edited size itself may move too, at a higher cost. It never changes anything else.
func nearestValid(t, prev model.Scenario, edited string) (model.Scenario, bool) {
	if best, ok := searchValid(t, prev, edited, false); ok {
		return best, true
	}
	return searchValid(t, prev, edited, true)
}

// maxSplitCandidates bounds the search: divisors of any GPU count ≤ model.MaxGPUs are few (at
// most a few hundred pairs), so this is a guard, not a limit that bites.
const maxSplitCandidates = 20000

func searchValid(t, prev model.Scenario, edited string, relax bool) (model.Scenario, bool) {
	all := t.Cluster.GPUs
	if all < 1 || all > model.MaxGPUs {
		return t, false
	}
	fixed := func(name string) bool { return edited == name && !relax }
	// CP keeps its value unless it is the edited row relaxed: then every divisor of the GPUs.
	cps := []int{t.Layout.CP}
	if edited == "cp" && relax {
		cps = model.Divisors(all)
	}
	var best model.Scenario
	bestCost := math.Inf(1)
	tried := 0
	for _, cp := range cps {
		if all%max(cp, 1) != 0 {
			continue
		}
		t := t
		t.Layout.CP = cp
		b, cost, n := searchSplits(t, prev, edited, fixed, all/max(cp, 1), tried)
		tried = n
		if cost < bestCost {
			best, bestCost = b, cost
		}
	}
	return best, !math.IsInf(bestCost, 1)
}

// searchSplits is searchValid's search over TP, PP and DP for the gpus that CP leaves (t's CP
// kept), with tried candidates so far; it returns the best, its cost and the candidates tried.
func searchSplits(t, prev model.Scenario, edited string, fixed func(string) bool, gpus, tried int) (model.Scenario, float64, int) {
	tps := model.Divisors(gpus)
	if fixed("tp") {
		tps = []int{t.Layout.TP}
	}
	var best model.Scenario
	bestCost := math.Inf(1)
	for _, tp := range tps {
		if tp < 1 || gpus%tp != 0 {
			continue
		}
		pps := model.Divisors(gpus / tp)
		switch {
		case fixed("pp"):
			pps = []int{t.Layout.PP}
		case fixed("dp"):
			if t.Layout.DP < 1 || gpus%(tp*t.Layout.DP) != 0 {
				continue
			}
			pps = []int{gpus / (tp * t.Layout.DP)}
		}
		for _, pp := range pps {
			if pp < 1 || gpus%(tp*pp) != 0 {
				continue
			}
			for _, v := range chunkCandidates(t, pp) {
				for _, units := range unitCandidates(t, tp*t.Layout.CPSize(), pp, v, edited) {
					if tried++; tried > maxSplitCandidates {
						return best, bestCost, tried
					}
					c := t
					c.Layout.TP, c.Layout.PP, c.Layout.DP, c.Layout.Chunks = tp, pp, gpus/(tp*pp), v
					setUnits(&c, units)
					if c.Validate() != nil {
						continue
					}
					if cost := changeCost(c, t, prev, edited); cost < bestCost {
						best, bestCost = c, cost
					}
				}
			}
		}
	}
	return best, bestCost, tried
}

// chunkCandidates are the interleaving depths to try: the edit's, then fewer (pp × chunks must
// not exceed the layers).
func chunkCandidates(t model.Scenario, pp int) []int {
	v := max(t.Layout.Chunks, 1)
	if t.Layout.Schedule != model.Interleaved || v == 1 {
		return []int{v}
	}
	out := []int{v}
	for c := v - 1; c >= 2; c-- {
		if t.Arch.Layers <= 0 || pp*c <= t.Arch.Layers {
			out = append(out, c)
		}
	}
	return out
}

// unitCandidates are the global batches (requests) to try: the edit's own, then the nearest
// multiples of micro-batch × DP (× PP for the interleaved schedule) below and above it, unless
// the batch is the edited row.
func unitCandidates(t model.Scenario, tp, pp, v int, edited string) []int {
	u := t.BatchUnits()
	if edited == "batch" || edited == "requests" || edited == "micro-batches" {
		return []int{u}
	}
	per := max(t.Layout.MicroBatch, 1) * (t.Cluster.GPUs / (tp * pp))
	if t.Workload.Mode == model.Train && t.Layout.Schedule == model.Interleaved && pp > 1 && v > 1 {
		per *= pp
	}
	out := []int{u}
	if lo := u / per * per; lo >= per && lo != u {
		out = append(out, lo)
	}
	if hi := model.RoundUpTo(u, per); hi != u && hi <= model.MaxBatch {
		out = append(out, hi)
	}
	return out
}

func setUnits(s *model.Scenario, units int) {
	if s.Workload.Mode == model.Infer {
		s.Workload.Requests = units
	} else {
		s.Workload.GlobalBatch = units
	}
}

// changeCost ranks a candidate c against the edit t: a moved batch costs 1, a moved layout size
// (TP, PP, chunks) 2, the edited size itself 6, each plus how far it moved (log2 of the ratio).
// Ties go to what the user had before (prev), then to the larger TP (TP stays in the node).
func changeCost(c, t, prev model.Scenario, edited string) float64 {
	dist := func(a, b int) float64 { return math.Abs(math.Log2(float64(max(a, 1)) / float64(max(b, 1)))) }
	cost := 0.0
	add := func(name string, a, b int, w float64) {
		if a == b {
			return
		}
		if name == edited {
			w = 6
		}
		cost += w + dist(a, b)
	}
	add("tp", c.Layout.TP, t.Layout.TP, 2)
	add("pp", c.Layout.PP, t.Layout.PP, 2)
	if edited == "dp" {
		add("dp", c.Layout.DP, t.Layout.DP, 2)
	}
	add("chunks", c.Layout.Chunks, t.Layout.Chunks, 2)
	add("batch", c.BatchUnits(), t.BatchUnits(), 1)
	// Tie-breaks, far below one unit of cost.
	if c.Layout.TP != prev.Layout.TP || c.Layout.PP != prev.Layout.PP {
		cost += 1e-3
	}
	cost -= 1e-6 * float64(c.Layout.TP)
	return cost
}

// describeChange says what a scenario sets, against the one the user had: the split, then the
// batch and chunks when they differ.
func describeChange(from, to model.Scenario) string {
	l := to.Layout
	out := fmt.Sprintf("TP %d × PP %d × DP %d", l.TP, l.PP, l.DP)
	if l.Chunks != from.Layout.Chunks {
		out += fmt.Sprintf(", chunks %d", l.Chunks)
	}
	if to.BatchUnits() != from.BatchUnits() {
		unit := "batch"
		if to.Workload.Mode == model.Infer {
			unit = "requests"
		}
		out += fmt.Sprintf(", %s %d", unit, to.BatchUnits())
	}
	return out
}

// movedRows lists the visible rows whose value differs between two scenarios, except the edited
// one: "DP 1 → 2 · micro-batches m 32 → 16".
func movedRows(all []field, from, to model.Scenario, edited string) string {
	var parts []string
	for _, i := range visibleFields(all, &to) {
		f := all[i]
		if f.name == edited {
			continue
		}
		a, b := f.get(&from), f.get(&to)
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %s → %s", shortLabel(f.label), a, b))
		}
	}
	return strings.Join(parts, " · ")
}

// shortLabel drops the panel's "(derived)" from a row label.
func shortLabel(label string) string {
	return strings.TrimSpace(strings.TrimSuffix(label, "(derived)"))
}
