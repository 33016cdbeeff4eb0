package schedule

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSimulateInferOneGroup(t *testing.T) {
	// With one group nothing overlaps: every token goes through every stage in turn.
	for _, c := range []struct {
		name string
		in   Infer
	}{
		{"p=1", Infer{Stages: 1, Groups: 1, Gen: 5, Prefill: []float64{4}, Decode: []float64{0.5}}},
		{"p=4", Infer{Stages: 4, Groups: 1, Gen: 7, Prefill: []float64{3, 2, 2.5, 4}, Decode: []float64{0.3, 0.2, 0.25, 0.4}}},
		{"p=4 p2p", Infer{Stages: 4, Groups: 1, Gen: 7, Prefill: []float64{3, 2, 2.5, 4}, Decode: []float64{0.3, 0.2, 0.25, 0.4},
			P2P: []float64{0.1, 0.2, 0.1}, P2PTok: []float64{0.01, 0.02, 0.03}}},
		{"gen=1", Infer{Stages: 3, Groups: 1, Gen: 1, Prefill: []float64{1, 2, 3}, Decode: []float64{9, 9, 9}, P2P: []float64{0.5, 0.5}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.Record = true
			res, err := SimulateInfer(in)
			if err != nil {
				t.Fatal(err)
			}
			checkInfer(t, in, res)
			first := sum(in.Prefill) + sum(in.P2P)
			want := first + float64(in.Gen-1)*(sum(in.Decode)+sum(in.P2PTok))
			if relErr(res.Makespan, want) > 1e-9 || relErr(res.Done[0], want) > 1e-9 {
				t.Errorf("makespan %g, done %g, want %g", res.Makespan, res.Done[0], want)
			}
			if relErr(res.FirstToken[0], first) > 1e-9 {
				t.Errorf("first token %g, want %g", res.FirstToken[0], first)
			}
		})
	}
}

func TestSimulateInferManyGroups(t *testing.T) {
	// Uniform stages (prefill q, decode d, free p2p). With G ≥ p groups the stages take turns:
	// each decode wave is G·d on every stage, i.e. one token per group every G·d, the throughput
	// of a single stage. Stage s starts each wave s·q after stage 0 (it finishes the prefills
	// later), and when (p−1)·q ≤ (G−1)·d and d ≤ q no stage ever waits inside a wave:
	// Done[g] = (G+p−1)q + ((Gen−2)G + g + 1)d.
	for _, c := range []struct{ p, g, gen int }{{4, 8, 5}, {4, 7, 2}, {2, 6, 10}, {8, 16, 3}} {
		const q, d = 2.0, 1.0
		if float64(c.p-1)*q > float64(c.g-1)*d {
			t.Fatalf("case %+v does not meet (p−1)q ≤ (G−1)d", c)
		}
		t.Run(fmt.Sprintf("p=%d/G=%d/gen=%d", c.p, c.g, c.gen), func(t *testing.T) {
			in := Infer{Stages: c.p, Groups: c.g, Gen: c.gen, Prefill: fill(c.p, q), Decode: fill(c.p, d), Record: true}
			res, err := SimulateInfer(in)
			if err != nil {
				t.Fatal(err)
			}
			checkInfer(t, in, res)
			G, P := float64(c.g), float64(c.p)
			for j := range c.g {
				if want := (float64(j) + P) * q; relErr(res.FirstToken[j], want) > 1e-9 {
					t.Errorf("group %d: first token %g, want %g", j, res.FirstToken[j], want)
				}
				want := (G+P-1)*q + (float64(c.gen-2)*G+float64(j)+1)*d
				if relErr(res.Done[j], want) > 1e-9 {
					t.Errorf("group %d: done %g, want %g", j, res.Done[j], want)
				}
			}
			if want := (G+P-1)*q + float64(c.gen-1)*G*d; relErr(res.Makespan, want) > 1e-9 {
				t.Errorf("makespan %g, want %g", res.Makespan, want)
			}
		})
	}
}

func TestSimulateInferFewGroups(t *testing.T) {
	// G ≤ p groups with prefill = decode = q: the groups ride the pipeline q apart and never meet,
	// so each is as slow as alone: Done[g] = (g + Gen·p)·q.
	for _, c := range []struct{ p, g, gen int }{{4, 1, 3}, {4, 2, 5}, {4, 4, 2}, {8, 3, 4}} {
		const q = 1.5
		t.Run(fmt.Sprintf("p=%d/G=%d/gen=%d", c.p, c.g, c.gen), func(t *testing.T) {
			in := Infer{Stages: c.p, Groups: c.g, Gen: c.gen, Prefill: fill(c.p, q), Decode: fill(c.p, q), Record: true}
			res, err := SimulateInfer(in)
			if err != nil {
				t.Fatal(err)
			}
			checkInfer(t, in, res)
			for j := range c.g {
				if want := float64(j+c.gen*c.p) * q; relErr(res.Done[j], want) > 1e-9 {
					t.Errorf("group %d: done %g, want %g", j, res.Done[j], want)
				}
			}
		})
	}
}

// TestPipelineDoesNotCutLatency: splitting the same work over p stages leaves one request's
// latency as it was (longer with p2p); only groups in flight gain.
func TestPipelineDoesNotCutLatency(t *testing.T) {
	pre, dec := []float64{3, 2, 2.5, 4}, []float64{0.3, 0.2, 0.25, 0.4}
	one := Infer{Stages: 1, Groups: 1, Gen: 20, Prefill: []float64{sum(pre)}, Decode: []float64{sum(dec)}}
	four := Infer{Stages: 4, Groups: 1, Gen: 20, Prefill: pre, Decode: dec}
	withP2P := four
	withP2P.P2P, withP2P.P2PTok = fill(3, 0.05), fill(3, 0.01)
	r1, err1 := SimulateInfer(one)
	r4, err4 := SimulateInfer(four)
	rc, errc := SimulateInfer(withP2P)
	if err1 != nil || err4 != nil || errc != nil {
		t.Fatal(err1, err4, errc)
	}
	if relErr(r4.Done[0], r1.Done[0]) > 1e-9 || relErr(r4.FirstToken[0], r1.FirstToken[0]) > 1e-9 {
		t.Errorf("p=4: done %g, first %g; p=1: done %g, first %g", r4.Done[0], r4.FirstToken[0], r1.Done[0], r1.FirstToken[0])
	}
	if rc.Done[0] <= r1.Done[0] {
		t.Errorf("with p2p, p=4 done %g, not slower than p=1 %g", rc.Done[0], r1.Done[0])
	}
}

// checkInfer verifies a recorded inference: each (stage, token, group) once at its index, stages
// serve first come in (token, group) order without overlap, every input arrives before use, each
// op starts as early as allowed, Dep points at the input that held it back, and the summary
// fields agree with the ops.
func checkInfer(t *testing.T, in Infer, res Result) {
	t.Helper()
	p, g, gen := in.Stages, in.Groups, in.Gen
	if len(res.Ops) != p*g*gen {
		t.Fatalf("%d ops, want %d", len(res.Ops), p*g*gen)
	}
	link := func(k, s int) float64 { // p2p from stage s−1 to s for token k
		xs := in.P2P
		if k > 0 {
			xs = in.P2PTok
		}
		if xs == nil {
			return 0
		}
		return xs[s-1]
	}
	eps := 1e-9 * max(1, res.Makespan) // times are sums, exact to rounding
	busy := make([]float64, p)
	var makespan float64
	i := 0
	for s := range p {
		prevEnd := 0.0
		for k := range gen {
			for j := range g {
				o := res.Ops[i]
				if o.Stage != s || o.Token != k || o.Micro != j || o.Kind != F || o.Chunk != 0 {
					t.Fatalf("op %d is %+v, want stage %d token %d group %d", i, o, s, k, j)
				}
				cost := in.Prefill[s]
				if k > 0 {
					cost = in.Decode[s]
				}
				if math.Abs(o.End-o.Start-cost) > eps {
					t.Errorf("op %d %+v lasts %g, costs %g", i, o, o.End-o.Start, cost)
				}
				ready, dep := 0.0, -1
				switch {
				case s > 0:
					dep = opIndex(s-1, k, j, g, gen)
					ready = res.Ops[dep].End + link(k, s)
				case k > 0:
					dep = opIndex(p-1, k-1, j, g, gen)
					ready = res.Ops[dep].End
				}
				if o.Start < prevEnd-eps || o.Start < ready-eps {
					t.Errorf("op %d %+v starts at %g before its stage is free (%g) or its input is there (%g)", i, o, o.Start, prevEnd, ready)
				}
				if want := max(prevEnd, ready); math.Abs(o.Start-want) > eps {
					t.Errorf("op %d %+v starts at %g, could at %g", i, o, o.Start, want)
				}
				if (o.Dep >= 0 && o.Dep != dep) || (o.Dep < 0 && dep >= 0 && ready > prevEnd+eps) {
					t.Errorf("op %d %+v: Dep %d, its input is op %d (ready %g, stage free %g)", i, o, o.Dep, dep, ready, prevEnd)
				}
				if s == p-1 && k == 0 && o.End != res.FirstToken[j] {
					t.Errorf("group %d: FirstToken %g, prefill leaves at %g", j, res.FirstToken[j], o.End)
				}
				if s == p-1 && k == gen-1 && o.End != res.Done[j] {
					t.Errorf("group %d: Done %g, last token leaves at %g", j, res.Done[j], o.End)
				}
				prevEnd = o.End
				busy[s] += cost
				makespan = max(makespan, o.End)
				i++
			}
		}
	}
	for s := range p {
		if last := res.Ops[opIndex(s, gen-1, g-1, g, gen)].End; len(res.Finish) != p || res.Finish[s] != last {
			t.Errorf("stage %d: Finish %v, last op ends at %g", s, res.Finish, last)
		}
		if relErr(res.Busy[s], busy[s]) > 1e-9 || res.PeakInFlight[s] != g {
			t.Errorf("stage %d: busy %g (ops %g), in flight %d (want %d)", s, res.Busy[s], busy[s], res.PeakInFlight[s], g)
		}
	}
	if res.Makespan != makespan {
		t.Errorf("makespan %g, last op ends at %g", res.Makespan, makespan)
	}
}

func TestSimulateInferRecordOff(t *testing.T) {
	in := Infer{Stages: 3, Groups: 4, Gen: 6, Prefill: []float64{1, 2, 1}, Decode: []float64{0.1, 0.3, 0.2}, P2P: []float64{0.1, 0.1}}
	a, err := SimulateInfer(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Record = true
	b, err := SimulateInfer(in)
	if err != nil {
		t.Fatal(err)
	}
	checkInfer(t, in, b)
	if a.Ops != nil || a.Makespan != b.Makespan || fmt.Sprint(a.Done, a.FirstToken, a.Busy) != fmt.Sprint(b.Done, b.FirstToken, b.Busy) {
		t.Errorf("Record changes the result: %+v vs %+v", a, b)
	}
}

func TestSimulateInferErrors(t *testing.T) {
	ok := func() Infer {
		return Infer{Stages: 2, Groups: 2, Gen: 3, Prefill: []float64{1, 1}, Decode: []float64{0.1, 0.1}}
	}
	for _, c := range []struct {
		name, field string
		edit        func(*Infer)
	}{
		{"no stages", "stages", func(in *Infer) { in.Stages = 0 }},
		{"no groups", "groups", func(in *Infer) { in.Groups = -1 }},
		{"no tokens", "gen", func(in *Infer) { in.Gen = 0 }},
		{"huge", "gen", func(in *Infer) { in.Gen = math.MaxInt / 4 }},
		{"huge groups", "gen", func(in *Infer) { in.Groups = math.MaxInt }},
		{"short prefill", "len(prefill)", func(in *Infer) { in.Prefill = in.Prefill[:1] }},
		{"nil decode", "len(decode)", func(in *Infer) { in.Decode = nil }},
		{"NaN decode", "decode[1]", func(in *Infer) { in.Decode[1] = math.NaN() }},
		{"negative prefill", "prefill[0]", func(in *Infer) { in.Prefill[0] = -2 }},
		{"long p2p", "len(p2p)", func(in *Infer) { in.P2P = []float64{1, 2} }},
		{"infinite p2ptok", "p2ptok[0]", func(in *Infer) { in.P2PTok = []float64{math.Inf(1)} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := ok()
			c.edit(&in)
			res, err := SimulateInfer(in)
			if err == nil {
				t.Fatalf("no error; got %+v", res)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, c.field+" = ") {
				t.Errorf("error %q does not name %s and its value", msg, c.field)
			}
		})
	}
}
