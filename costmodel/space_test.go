package costmodel

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// knobSpaceScenarios are small spaces where the knobs decide what fits: llama-2-13b training
// on 4 H100s, llama-3-70b on two 8×H100 nodes (tight memory), and llama-2-7b on 8 L40S over
// PCIe.
func knobSpaceScenarios(t *testing.T) map[string]model.Scenario {
	one := scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", 4, 4, 1)
	one.Workload.GlobalBatch = 16
	two := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 16, 8, 2)
	two.Workload.GlobalBatch = 32
	pcie := scenario(t, "llama-2-7b", "l40s", "pcie4", 8, 1, 1)
	pcie.Workload.GlobalBatch = 32
	return map[string]model.Scenario{"13b-4": one, "70b-16": two, "7b-l40s": pcie}
}

// allKnobs is every knob setting of a split, brute force: no pruning, no dominance.
func allKnobs(s model.Scenario) []knobs {
	var out []knobs
	for _, rc := range []model.Recompute{model.RecomputeNone, model.RecomputeSelective, model.RecomputeFull} {
		for _, sp := range []bool{false, true} {
			if sp && (s.Layout.TP == 1 || s.Workload.Seq%s.Layout.TP != 0) {
				continue
			}
			for z := 0; z <= 3; z++ {
				if z > 0 && s.Layout.DP == 1 {
					continue
				}
				for _, tpo := range []model.TPOverlap{model.TPOverlapNone, model.TPOverlapRing, model.TPOverlapPipe} {
					l := s.Layout
					l.TPOverlap = model.TPOverlapRing
					if tpo != model.TPOverlapNone && !tpOverlapApplies(l, s.Cluster, s.Workload.Mode) {
						continue
					}
					for _, off := range model.Offloads() {
						for _, serial := range []bool{false, true} {
							if serial && s.Layout.DP == 1 {
								continue
							}
							for _, keep := range []bool{false, true} {
								if keep && (!sp || s.Layout.TP == 1 || rc == model.RecomputeFull) {
									continue
								}
								for _, order := range model.RankOrders() {
									// The orders that place the split differently, TP innermost:
									// each placement once (searchOrders' rule, written out).
									if !searchable(s, order) {
										continue
									}
									out = append(out, knobs{rc, sp, z, tpo, off, serial, keep, order})
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// bruteBounds keeps the brute-force checks' spaces small (every split still has every knob
// setting): the micro-batch sizes up to 16 and interleavings up to 4, the defaults of old.
var bruteBounds = SearchOptions{MaxMicroBatch: 16, MaxChunks: 4}

// TestSearchKnobsMatchBruteForce: for every split, the knob setting Search keeps (before the
// simulation re-ranks the head) has exactly the best closed-form step time of all the settings
// that fit, each evaluated alone; when none fits, Search says so. Pruning by memory and by
// dominance never drops the optimum, and the counts add up to the brute-force space.
func TestSearchKnobsMatchBruteForce(t *testing.T) {
	for name, base := range knobSpaceScenarios(t) {
		t.Run(name, func(t *testing.T) { checkKnobsBruteForce(t, base, bruteBounds) })
	}
}

// checkKnobsBruteForce is TestSearchKnobsMatchBruteForce's check of one search space.
func checkKnobsBruteForce(t *testing.T, base model.Scenario, bounds SearchOptions) {
	t.Helper()
	res, err := search(base, bounds, 0)
	if err != nil {
		t.Fatal(err)
	}
	space := 0
	for _, c := range res.Candidates {
		if c.Report.Layout.TP == 0 {
			continue // a split rejected before any evaluation
		}
		s := base
		s.Layout = c.Layout
		var best *Report
		settings := allKnobs(s)
		space += len(settings)
		for _, k := range settings {
			k.apply(&s.Layout)
			r, err := evaluate(s, modeEstimate)
			if err != nil || !r.Memory.Fits {
				continue
			}
			if best == nil || r.StepTime < best.StepTime || r.StepTime == best.StepTime && keepHostFree(r, *best) {
				best = &r
			}
		}
		switch {
		case best == nil && c.Feasible:
			t.Errorf("%+v: Search says it fits, no setting does alone", c.Layout)
		case best != nil && !c.Feasible:
			t.Errorf("%+v: Search says %q, yet a setting fits at %.4g s", c.Layout, c.Reason, best.StepTime)
		case best != nil && (c.Report.StepTime != best.StepTime || c.Report.Memory.Total != best.Memory.Total):
			t.Errorf("%+v: Search keeps %.6g s, %.4g GiB; brute force %.6g s, %.4g GiB (%+v)", c.Layout,
				c.Report.StepTime, c.Report.Memory.Total/model.GiB, best.StepTime, best.Memory.Total/model.GiB, best.Layout)
		}
	}
	n := res.Counts
	if n.Space != space || n.Evaluated+n.PrunedMemory+n.Dominated+n.PrunedBound != n.Space {
		t.Errorf("counts %+v: brute force has %d configurations", n, space)
	}
	if n.PrunedMemory == 0 || n.Dominated == 0 || n.Evaluated == 0 {
		t.Errorf("counts %+v: expected some of each", n)
	}
	t.Logf("%+v", n)
}

// TestSearchSameOnOneAndManyCores: the result, its order and its counts do not depend on how
// many cores run the search.
func TestSearchSameOnOneAndManyCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, base := range knobSpaceScenarios(t) {
		runtime.GOMAXPROCS(1)
		one, err1 := Search(base, SearchOptions{})
		runtime.GOMAXPROCS(4)
		many, err4 := Search(base, SearchOptions{})
		if err1 != nil || err4 != nil {
			t.Fatal(err1, err4)
		}
		if !reflect.DeepEqual(one, many) {
			t.Errorf("%s: 1 core and 4 differ: %d/%d candidates, counts %+v / %+v", name, len(one.Candidates), len(many.Candidates), one.Counts, many.Counts)
		}
	}
}

// TestSearchBestBeatsEverySingleLayout: no configuration of the space, evaluated alone (the
// simulation, as the user's report runs it), beats Search's best; the best's own report is
// the one evaluating its layout gives.
func TestSearchBestBeatsEverySingleLayout(t *testing.T) {
	for name, base := range knobSpaceScenarios(t) {
		t.Run(name, func(t *testing.T) {
			res, err := Search(base, SearchOptions{MaxMicroBatch: 8, MaxChunks: 2})
			if err != nil || res.Feasible == 0 {
				t.Fatalf("%v, %d feasible", err, res.Feasible)
			}
			best := res.Candidates[0]
			s := base
			s.Layout = best.Layout
			if r, err := EvaluateFast(s); err != nil || r.StepTime != best.Report.StepTime {
				t.Errorf("best %+v: Search says %.6g s, EvaluateFast %.6g s (%v)", best.Layout, best.Report.StepTime, r.StepTime, err)
			}
			for _, c := range res.Candidates {
				if c.Report.Layout.TP == 0 {
					continue
				}
				s := base
				s.Layout = c.Layout
				for _, k := range allKnobs(s) {
					k.apply(&s.Layout)
					r, err := EvaluateFast(s)
					if err == nil && r.Memory.Fits && r.StepTime < best.Report.StepTime {
						t.Errorf("%+v alone: %.6g s, faster than Search's best %.6g s (%+v)", s.Layout, r.StepTime, best.Report.StepTime, best.Layout)
					}
				}
			}
		})
	}
}

// keepHostFree is Search's tie-break at the same step time: no offload first, then less memory.
func keepHostFree(a, b Report) bool {
	if ao, bo := a.Layout.Offload == "none", b.Layout.Offload == "none"; ao != bo {
		return ao
	}
	return a.Memory.Total < b.Memory.Total
}

// TestResolveAutoTakesTheSplitsBest: the knobs a layout leaves to auto take the setting with
// the best closed-form step time among those that fit on that split (the others kept as given),
// each setting evaluated alone; knobs not auto keep their value, and serving is left as it is.
func TestResolveAutoTakesTheSplitsBest(t *testing.T) {
	s := scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", 16, 4, 2) // DP 2
	s.Workload.GlobalBatch = 32
	s.Layout.TPOverlap = model.TPOverlapRing
	s.Layout.Auto = model.AutoRecompute | model.AutoZeRO | model.AutoSequenceParallel
	got, err := ResolveAuto(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout.TPOverlap != model.TPOverlapRing || got.Layout.Offload != s.Layout.Offload || got.Layout.Auto != s.Layout.Auto {
		t.Fatalf("knobs not auto moved: %+v", got.Layout)
	}
	r, err := evaluate(got, modeEstimate)
	if err != nil || !r.Memory.Fits {
		t.Fatalf("the resolved setting: %v, fits %v", err, r.Memory.Fits)
	}
	for _, rc := range []model.Recompute{model.RecomputeNone, model.RecomputeSelective, model.RecomputeFull} {
		for z := 0; z <= 3; z++ {
			for _, sp := range []bool{false, true} {
				o := s
				o.Layout.Recompute, o.Layout.ZeRO, o.Layout.SequenceParallel = rc, z, sp
				or, err := evaluate(o, modeEstimate)
				if err == nil && or.Memory.Fits && or.StepTime < r.StepTime*(1-1e-12) {
					t.Errorf("recompute %v ZeRO %d SP %v: %.6g s beats the resolved %+v at %.6g s",
						rc, z, sp, or.StepTime, got.Layout, r.StepTime)
				}
			}
		}
	}
	inf := s
	inf.Workload.Mode = model.Infer
	if back, err := ResolveAuto(inf); err != nil || back.Layout != inf.Layout {
		t.Errorf("serving: %v, %+v", err, back.Layout)
	}
}

// searchable says whether Search should try order on s's split: TP innermost, EP inside DP, no
// group straddling nodes, and no earlier such order placing every group alike.
func searchable(s model.Scenario, order model.RankOrder) bool {
	l := s.Layout
	l.EP, l.ETP = 1, 0
	gpn := s.Cluster.NodeSize()
	ok := func(o model.RankOrder) bool {
		l.RankOrder = o
		f, _ := l.StraddleRule(gpn, l.GPUs())
		return o.TPInnermost() && !o.EPOutside() && (l.CPSize() == 1 || o.CPNextToTP()) && f == ""
	}
	if !ok(order) {
		return false
	}
	for o := range order {
		if ok(o) && model.SameRankPlacement(s.Arch, l, o, order, gpn) {
			return false
		}
	}
	return true
}
