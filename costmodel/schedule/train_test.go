package schedule

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// classicSchedules are the schedules before 2024, whose closed forms the oracles below hold;
// train2025_test.go checks ZB-V, DualPipe and DualPipeV.
func classicSchedules() []model.Schedule {
	return []model.Schedule{model.OneFOneB, model.GPipe, model.Interleaved, model.ZBH1}
}

func fill(n int, x float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = x
	}
	return xs
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// uniformTrain has every rank cost tF, tB, tW per micro-batch in total, split evenly over v
// chunks, and free p2p.
func uniformTrain(s model.Schedule, p, v, m int, tF, tB, tW float64) Train {
	n := p * v
	in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m, F: fill(n, tF/float64(v)), B: fill(n, tB/float64(v))}
	if splitW(s) {
		in.W = fill(n, tW/float64(v))
	}
	return in
}

// randomTrain has uneven stages (each cost within ±spread of its mean) and p2p up to maxP2P.
func randomTrain(rng *rand.Rand, s model.Schedule, p, v, m int, spread, maxP2P float64) Train {
	n := p * v
	in := Train{Schedule: s, Stages: p, Chunks: v, Micro: m,
		F: make([]float64, n), B: make([]float64, n), P2P: make([]float64, n-1)}
	jitter := func(x float64) float64 { return x * (1 + spread*(2*rng.Float64()-1)) / float64(v) }
	for i := range n {
		in.F[i], in.B[i] = jitter(1), jitter(2)
	}
	if splitW(s) {
		in.W = make([]float64, n)
		for i := range n {
			in.B[i], in.W[i] = jitter(1), jitter(0.9)
		}
	}
	for i := range in.P2P {
		in.P2P[i] = maxP2P * rng.Float64()
	}
	return in
}

// trainOracle is the makespan of in on uniform stages with free p2p, in closed form.
func trainOracle(s model.Schedule, p, v, m int, tF, tB, tW float64) float64 {
	P, M := float64(p), float64(m)
	switch s {
	case model.Interleaved:
		// Bubble (p−1)/(v·m) of the ideal m(tF+tB).
		return M*(tF+tB) + (P-1)*(tF+tB)/float64(v)
	case model.ZBH1:
		if m < p {
			return (M+P-1)*(tF+tB) + tW + (M-1)*math.Max(tW-math.Min(tF, tB), 0)
		}
		// (p−1)(F+B−W) when W ≤ F and W ≤ B (Qi et al.); a W longer than F or B leaves more.
		return M*(tF+tB+tW) + (P-1)*math.Max(tB+math.Max(tF-tW, 0), tF)
	}
	return (M + P - 1) * (tF + tB)
}

func scheduleShapes(s model.Schedule) [][3]int { // (p, v, m)
	if s == model.Interleaved {
		return [][3]int{{1, 2, 1}, {1, 3, 5}, {2, 2, 2}, {2, 3, 8}, {4, 2, 4}, {4, 2, 8}, {4, 4, 16}, {8, 2, 64}, {3, 3, 12}, {4, 1, 4}, {4, 1, 12}}
	}
	return [][3]int{{1, 1, 1}, {1, 1, 7}, {4, 1, 1}, {4, 1, 3}, {4, 1, 4}, {4, 1, 5}, {8, 1, 64}, {5, 1, 40}, {16, 1, 7}}
}

func TestSimulateTrainOracles(t *testing.T) {
	costs := []struct{ f, b, w float64 }{
		{1, 2, 0}, {1.3, 2.9, 0}, // W folded into B
		{1, 1, 1},       // ZB-H1 with equal F, B, W: bubble a third of 1F1B's
		{1.5, 1.2, 0.8}, // W ≤ B ≤ F
		{1, 2, 1.5},     // F < W ≤ B
		{2, 1, 1.7},     // B < W ≤ F
	}
	for _, s := range classicSchedules() {
		for _, sh := range scheduleShapes(s) {
			for _, c := range costs {
				if (s == model.ZBH1) != (c.w > 0) {
					continue
				}
				p, v, m := sh[0], sh[1], sh[2]
				t.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d/F=%g,B=%g,W=%g", s, p, v, m, c.f, c.b, c.w), func(t *testing.T) {
					in := uniformTrain(s, p, v, m, c.f, c.b, c.w)
					res, err := SimulateTrain(in)
					if err != nil {
						t.Fatal(err)
					}
					want := trainOracle(s, p, v, m, c.f, c.b, c.w)
					if relErr(res.Makespan, want) > 1e-9 {
						t.Errorf("makespan %.12g, want %.12g", res.Makespan, want)
					}
					in.Record = true
					rec, err := SimulateTrain(in)
					if err != nil {
						t.Fatal(err)
					}
					checkTrain(t, in, rec)
					// Without Record the steady state may be extrapolated: the same to 1e-12.
					if d := sameResult(res, rec, 1e-12); d != "" {
						t.Errorf("Record changes the result: %s", d)
					}
					if res.Ops != nil {
						t.Errorf("Record=false kept %d ops", len(res.Ops))
					}
				})
			}
		}
	}
}

// TestZBH1Paper pins the textbook forms: the (p−1)(F+B−W) bubble of ZB-H1, a third of 1F1B's
// when F = B = W, with 1F1B's memory; and the memory bound that keeps it above ZB-H2's
// (p−1)(F+B−2W).
func TestZBH1Paper(t *testing.T) {
	for _, c := range []struct {
		p, m    int
		f, b, w float64
	}{{4, 8, 1, 1, 1}, {8, 32, 1, 1, 1}, {8, 64, 1.2, 1.1, 0.9}, {6, 6, 2, 1.5, 1}, {3, 30, 1, 3, 1}} {
		t.Run(fmt.Sprintf("p=%d/m=%d", c.p, c.m), func(t *testing.T) {
			res, err := SimulateTrain(uniformTrain(model.ZBH1, c.p, 1, c.m, c.f, c.b, c.w))
			if err != nil {
				t.Fatal(err)
			}
			P, M := float64(c.p), float64(c.m)
			ideal := M * (c.f + c.b + c.w)
			if want := ideal + (P-1)*(c.f+c.b-c.w); relErr(res.Makespan, want) > 1e-9 {
				t.Errorf("makespan %g, want %g", res.Makespan, want)
			}
			// The same oracle as costmodel.md and DualPipe's table write it, (p−1)(F+B−2W),
			// where B is the whole backward (input and weight gradients): here B + W.
			if want := ideal + (P-1)*(c.f+(c.b+c.w)-2*c.w); relErr(res.Makespan, want) > 1e-9 {
				t.Errorf("makespan %g, want (p−1)(F+B−2W) with B the full backward: %g", res.Makespan, want)
			}
			oneF1B := ideal + (P-1)*(c.f+c.b+c.w)
			if c.f == c.b && c.b == c.w && relErr(res.Makespan-ideal, (oneF1B-ideal)/3) > 1e-9 {
				t.Errorf("bubble %g, want a third of 1F1B's %g", res.Makespan-ideal, oneF1B-ideal)
			}
			if res.Makespan < ideal+(P-1)*c.b-1e-9 {
				t.Errorf("makespan %g beats the memory bound %g", res.Makespan, ideal+(P-1)*c.b)
			}
			for r, got := range res.PeakInFlight {
				if want := min(c.p-r, c.m); got != want {
					t.Errorf("rank %d holds %d micro-batches, want %d (1F1B)", r, got, want)
				}
			}
		})
	}
}

func TestSimulateTrainInvariants(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, s := range classicSchedules() {
		for _, sh := range scheduleShapes(s) {
			for _, spread := range []float64{0, 0.3, 0.9} {
				p, v, m := sh[0], sh[1], sh[2]
				in := randomTrain(rng, s, p, v, m, spread, 0.2)
				in.Record = true
				t.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d/spread=%g", s, p, v, m, spread), func(t *testing.T) {
					res, err := SimulateTrain(in)
					if err != nil {
						t.Fatal(err)
					}
					checkTrain(t, in, res)
				})
			}
		}
	}
}

// checkTrain verifies a recorded result against its input: every op once, no overlap on a rank,
// every dependency met, each op as early as its rank and inputs allow, Dep pointing at the binding
// input, and Busy, PeakInFlight and Makespan consistent with the ops.
func checkTrain(t *testing.T, in Train, res Result) {
	t.Helper()
	p, v, m := in.Stages, in.Chunks, in.Micro
	nvs := p * v
	kinds := 2
	if in.Schedule == model.ZBH1 {
		kinds = 3
	}
	if len(res.Ops) != kinds*nvs*m {
		t.Fatalf("%d ops, want %d", len(res.Ops), kinds*nvs*m)
	}
	p2p := func(i int) float64 {
		if in.P2P == nil {
			return 0
		}
		return in.P2P[i]
	}
	type key struct {
		k      Kind
		vs, mb int
	}
	at := map[key]int{}
	for i, o := range res.Ops {
		if o.Stage < 0 || o.Stage >= p || o.Chunk < 0 || o.Chunk >= v || o.Micro < 0 || o.Micro >= m || int(o.Kind) >= kinds || o.Token != 0 {
			t.Fatalf("op %d out of range: %+v", i, o)
		}
		k := key{o.Kind, o.Chunk*p + o.Stage, o.Micro}
		if j, dup := at[k]; dup {
			t.Fatalf("ops %d and %d are both %+v", j, i, k)
		}
		at[k] = i
	}
	eps := 1e-9 * max(1, res.Makespan) // times are sums, exact to rounding
	busy := make([]float64, p)
	peak := make([]int, p)
	fly := make([]int, p)
	finish := make([]float64, p)
	var makespan float64
	for i, o := range res.Ops {
		finish[o.Stage] = max(finish[o.Stage], o.End)
		vs := o.Chunk*p + o.Stage
		cost := map[Kind][]float64{F: in.F, B: in.B, W: in.W}[o.Kind][vs]
		if math.Abs(o.End-o.Start-cost) > eps {
			t.Errorf("op %d %+v lasts %g, costs %g", i, o, o.End-o.Start, cost)
		}
		busy[o.Stage] += cost
		makespan = max(makespan, o.End)
		switch o.Kind {
		case F:
			fly[o.Stage]++
			peak[o.Stage] = max(peak[o.Stage], fly[o.Stage])
		case B:
			fly[o.Stage]--
		}
		// Inputs: the cross-stage one (if any) with its p2p, and the same-stage one.
		cross, crossReady := -1, 0.0
		var own = -1
		switch o.Kind {
		case F:
			if vs > 0 {
				cross = at[key{F, vs - 1, o.Micro}]
				crossReady = res.Ops[cross].End + p2p(vs-1)
			}
		case B:
			own = at[key{F, vs, o.Micro}]
			if vs < nvs-1 {
				cross = at[key{B, vs + 1, o.Micro}]
				crossReady = res.Ops[cross].End + p2p(vs)
			}
		case W:
			own = at[key{B, vs, o.Micro}]
		}
		if own >= 0 && o.Start < res.Ops[own].End-eps {
			t.Errorf("op %d %+v starts before its own input %+v ends", i, o, res.Ops[own])
		}
		if cross >= 0 && o.Start < crossReady-eps {
			t.Errorf("op %d %+v starts at %g, before its input arrives at %g", i, o, o.Start, crossReady)
		}
		prevEnd := 0.0 // the rank's previous op (ops are recorded in each rank's order)
		if i > 0 && res.Ops[i-1].Stage == o.Stage {
			prevEnd = res.Ops[i-1].End
			if o.Start < prevEnd-eps {
				t.Errorf("op %d %+v overlaps %+v", i, o, res.Ops[i-1])
			}
		}
		if want := max(prevEnd, crossReady); math.Abs(o.Start-want) > eps {
			t.Errorf("op %d %+v starts at %g, could at %g", i, o, o.Start, want)
		}
		switch {
		case o.Dep >= 0 && o.Dep != cross:
			t.Errorf("op %d %+v: Dep %d, its input is op %d", i, o, o.Dep, cross)
		case o.Dep < 0 && cross >= 0 && crossReady > prevEnd+eps:
			t.Errorf("op %d %+v waited for op %d but Dep = -1", i, o, cross)
		}
	}
	for r := range p {
		if !busyMatches(res.Busy[r], busy[r], len(res.Ops), res.Makespan) {
			t.Errorf("rank %d: Busy %g, ops sum to %g", r, res.Busy[r], busy[r])
		}
		if res.PeakInFlight[r] != peak[r] {
			t.Errorf("rank %d: PeakInFlight %d, ops give %d", r, res.PeakInFlight[r], peak[r])
		}
		if len(res.Finish) != p || res.Finish[r] != finish[r] {
			t.Errorf("rank %d: Finish %v, last op ends at %g", r, res.Finish, finish[r])
		}
		if res.Busy[r] > res.Makespan+eps {
			t.Errorf("rank %d busy %g > makespan %g", r, res.Busy[r], res.Makespan)
		}
	}
	if res.Makespan != makespan {
		t.Errorf("Makespan %g, last op ends at %g", res.Makespan, makespan)
	}
}

func TestPeakInFlight(t *testing.T) {
	for _, c := range []struct {
		s       model.Schedule
		p, v, m int
		want    func(r int) int
	}{
		{model.OneFOneB, 4, 1, 8, func(r int) int { return 4 - r }},
		{model.OneFOneB, 8, 1, 3, func(r int) int { return min(8-r, 3) }},
		{model.OneFOneB, 8, 1, 6, func(r int) int { return min(8-r, 6) }},
		{model.ZBH1, 4, 1, 8, func(r int) int { return 4 - r }},
		{model.GPipe, 4, 1, 8, func(r int) int { return 8 }},
		{model.GPipe, 4, 1, 2, func(r int) int { return 2 }},
		// Megatron's warm-up (p−r−1)·2 + (v−1)·p, plus the first steady forward.
		{model.Interleaved, 4, 2, 8, func(r int) int { return 2*(4-r-1) + 4 + 1 }},
		{model.Interleaved, 4, 3, 4, func(r int) int { return 12 }}, // m = p: every forward first
	} {
		t.Run(fmt.Sprintf("%v/p=%d/v=%d/m=%d", c.s, c.p, c.v, c.m), func(t *testing.T) {
			res, err := SimulateTrain(uniformTrain(c.s, c.p, c.v, c.m, 1, 2, 1))
			if err != nil {
				t.Fatal(err)
			}
			for r, got := range res.PeakInFlight {
				if got != c.want(r) {
					t.Errorf("rank %d: %d in flight, want %d", r, got, c.want(r))
				}
			}
		})
	}
}

// bubble is the idle share of the step over all ranks: 1 − Σ busy / (p · makespan).
func bubble(r Result) float64 {
	return 1 - sum(r.Busy)/(float64(len(r.Busy))*r.Makespan)
}

func TestBubbleFallsWithMicroBatches(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, s := range model.Schedules() {
		for _, p := range []int{1, 2, 4, 8} {
			v := 1
			if s == model.Interleaved || twoChunk(s) {
				v = 2
			}
			for _, spread := range []float64{0, 0.3} {
				base := randomTrain(rng, s, p, v, 1, spread, 0.05)
				if twoChunk(s) {
					// Off free sends (DualPipe on 2 ranks: an odd half pays one more send) and,
					// for ZB-V, off equal stages (its greedy order is planned for equal costs),
					// the property fails by a little: TestBubble2025Exceptions.
					base.P2P = nil
					if s == model.ZBV && spread > 0 {
						continue
					}
				}
				t.Run(fmt.Sprintf("%v/p=%d/spread=%g", s, p, spread), func(t *testing.T) {
					last := math.Inf(1)
					for m := 1; m <= 12*p; m++ {
						if s == model.Interleaved && m%p != 0 {
							continue
						}
						in := base
						in.Micro = m
						if model.CheckScheduleShape(s, p, m) != nil {
							continue // DualPipe's and DualPipeV's too few micro-batches, DualPipe's odd p
						}
						res, err := SimulateTrain(in)
						if err != nil {
							t.Fatal(err)
						}
						if b := bubble(res); b > last+1e-12 {
							t.Errorf("m=%d: bubble %.6f, more than %.6f with fewer micro-batches", m, b, last)
						} else {
							last = b
						}
					}
				})
			}
		}
	}
}

func TestSimulateTrainErrors(t *testing.T) {
	ok := func() Train { return uniformTrain(model.OneFOneB, 2, 1, 4, 1, 2, 0) }
	cases := []struct {
		name, field string
		edit        func(*Train)
	}{
		{"schedule", "schedule", func(in *Train) { in.Schedule = 9 }},
		{"no stages", "stages", func(in *Train) { in.Stages = 0 }},
		{"negative stages", "stages", func(in *Train) { in.Stages = -3 }},
		{"no chunks", "chunks", func(in *Train) { in.Chunks = 0 }},
		{"chunks without interleaving", "chunks", func(in *Train) { in.Chunks = 2; in.F = fill(4, 1); in.B = fill(4, 1) }},
		{"no micro-batches", "micro", func(in *Train) { in.Micro = 0 }},
		{"huge", "micro", func(in *Train) { in.Micro = math.MaxInt / 2 }},
		{"huge stages", "micro", func(in *Train) { in.Stages = math.MaxInt }},
		{"interleaved m%p", "micro", func(in *Train) {
			*in = uniformTrain(model.Interleaved, 4, 2, 6, 1, 2, 0)
		}},
		{"short f", "len(f)", func(in *Train) { in.F = in.F[:1] }},
		{"nil b", "len(b)", func(in *Train) { in.B = nil }},
		{"NaN f", "f[1]", func(in *Train) { in.F[1] = math.NaN() }},
		{"negative b", "b[0]", func(in *Train) { in.B[0] = -1 }},
		{"infinite b", "b[1]", func(in *Train) { in.B[1] = math.Inf(1) }},
		{"w outside zb-h1", "w[0]", func(in *Train) { in.W = []float64{1, 0} }},
		{"long w", "len(w)", func(in *Train) { in.W = []float64{0, 0, 0} }},
		{"long p2p", "len(p2p)", func(in *Train) { in.P2P = []float64{0, 0} }},
		{"NaN p2p", "p2p[0]", func(in *Train) { in.P2P = []float64{math.NaN()} }},
		{"negative w in zb-h1", "w[1]", func(in *Train) {
			*in = uniformTrain(model.ZBH1, 2, 1, 4, 1, 1, 1)
			in.W[1] = -0.5
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ok()
			c.edit(&in)
			res, err := SimulateTrain(in)
			if err == nil {
				t.Fatalf("no error; got %+v", res)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, c.field+" = ") {
				t.Errorf("error %q does not name %s and its value", msg, c.field)
			}
			if e := EstimateTrain(in); !math.IsInf(e, 1) {
				t.Errorf("EstimateTrain = %g, want +Inf", e)
			}
		})
	}
}

// TestDeadlock feeds the loop an order that can never finish: a backward before its forward.
func TestDeadlock(t *testing.T) {
	in := uniformTrain(model.OneFOneB, 2, 1, 1, 1, 1, 0)
	order := []ref{mkref(B, 0, 0), mkref(F, 0, 0), mkref(F, 1, 0), mkref(B, 1, 0)}
	if _, err := simulate(&in, order, 2); err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Fatalf("err = %v, want a deadlock", err)
	}
}

// TestNoAllocPerOp: without Record the allocations do not grow with the number of ops (the
// steady-state shortcut may grow its short run a few times, as the transient needs, not m).
func TestNoAllocPerOp(t *testing.T) {
	for _, s := range model.Schedules() {
		v := 1
		if s == model.Interleaved {
			v = 2
		}
		var allocs []float64
		for _, m := range []int{8, 512, 4096} {
			in := randomTrain(rand.New(rand.NewSource(1)), s, 8, v, m, 0.1, 0.01)
			allocs = append(allocs, testing.AllocsPerRun(20, func() { SimulateTrain(in) }))
		}
		if allocs[0] > 10 || allocs[1] > 16 || allocs[2] != allocs[1] {
			t.Errorf("%v: %v allocations for m = 8, 512, 4096", s, allocs)
		}
	}
}

// gpt3Train is the step costmodel simulates for gpt3-175b on 512 GPUs (TP 8 × PP 8 × DP 8, 192
// micro-batches; interleaved with 2 chunks) under schedule s: uneven stages (rank 0 holds the
// embedding and the head) and uneven sends.
func gpt3Train(t testing.TB, s model.Schedule) Train {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gpt3-512", s.String()+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var in Train
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// busyMatches says whether a rank's busy time matches its recorded ops' durations summed: to
// 1e-9 of it, and each of the n durations (End − Start of two times up to the makespan) may
// carry a few ulps of the makespan's rounding, which matter when a long send puts the ops far
// from 0 (FuzzSimulateTrain: sends of 10⁵ s around ops of 10⁻² s).
func busyMatches(busy, sum float64, n int, makespan float64) bool {
	return math.Abs(busy-sum) <= 1e-9*math.Abs(sum)+float64(n)*4*0x1p-52*math.Abs(makespan)
}
