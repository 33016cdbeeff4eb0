package serve

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/splitscope/splitscope/model"
)

// draw takes one value of d, for the request of index i (a List gives its i-th value).
func draw(d model.LengthDist, i int, rng *rand.Rand) int {
	var x float64
	switch d.Kind {
	case model.List:
		if len(d.Values) == 0 {
			return max(int(math.Round(d.Mean)), 1)
		}
		return max(d.Values[i%len(d.Values)], 1)
	case model.Uniform:
		return d.Min + rng.IntN(d.Max-d.Min+1)
	case model.Normal:
		x = d.Mean + d.Sigma*rng.NormFloat64()
	case model.LogNormal:
		// Mean is the distribution's mean: μ = ln(mean) − σ²/2.
		x = math.Exp(math.Log(d.Mean) - d.Sigma*d.Sigma/2 + d.Sigma*rng.NormFloat64())
	default:
		x = d.Mean
	}
	n := int(math.Round(x))
	if d.Max > 0 {
		n = min(n, d.Max)
	}
	return max(n, d.Min, 1)
}

// Workload is how requests arrive and how long they are.
type Workload struct {
	N           int     // requests
	Rate        float64 // requests/s, Poisson arrivals; 0: all at time 0 (or a closed loop)
	Prompt, Gen model.LengthDist
	Seed        uint64
	// System tokens are prepended to the prompt of a share SystemShare of the requests (0: all):
	// a shared system prompt. With SystemCached, the requests that carry it share it as a prefix
	// group (Request.Group 1, Shared the system tokens): the engine's prefix cache holds its
	// blocks once per replica after a request has prefilled them, while the pool keeps them
	// (vLLM V1's automatic prefix caching and SGLang's radix cache are on by default); without,
	// every request prefills it.
	System       int
	SystemShare  float64
	SystemCached bool
	// Stages, when set, replace N and Rate: Poisson arrivals at each stage's rate, for its
	// duration or its number of requests, one stage after the other.
	Stages []model.RateStage
	// Turns > 1 makes each drawn request the first turn of a conversation of that many turns
	// (N and Rate then count conversations): turn k's prompt is the whole conversation so far
	// (every earlier turn's prompt and answer) and a new message drawn from Prompt, its answer
	// drawn from Gen, sent ThinkS seconds on average (exponential) after the turn before it
	// ended. The conversation so far is a prefix the engine's cache can hold (Request.Then and
	// Group): the next turn hits it if it was not evicted. The system prompt is part of the
	// conversation's context (not shared between conversations) with more than one turn.
	Turns  int
	ThinkS float64
}

// Span is one stage of a run as it was drawn: its requests [First, First+N) and the time it
// lasted, [Start, End) (a stage of a number of requests ends at its last arrival).
type Span struct {
	Rate       float64
	First, N   int
	Start, End float64
}

// Generate draws the requests: lengths from one random stream, arrivals from another, so the
// same seed gives the same requests at every rate, their arrival times scaled by 1/rate.
func Generate(w Workload) []Request {
	reqs, _ := GenerateStages(w)
	return reqs
}

// maxDrawn bounds the requests a rate schedule draws (its duration stages are random).
const maxDrawn = 2 * model.MaxStageRequests

// GenerateStages is Generate with the stages as drawn (one Span for a single rate).
func GenerateStages(w Workload) ([]Request, []Span) {
	lengths := rand.New(rand.NewPCG(w.Seed, 0x5eed1))
	gaps := rand.New(rand.NewPCG(w.Seed, 0x5eed2))
	shares := rand.New(rand.NewPCG(w.Seed, 0x5eed3))
	drawn := 0 // requests drawn: a List's index
	one := func(arrival float64, stage int) Request {
		q := Request{Arrival: arrival, Stage: stage, Prompt: draw(w.Prompt, drawn, lengths)}
		q.Gen = draw(w.Gen, drawn, lengths)
		drawn++
		if w.System > 0 && (w.SystemShare <= 0 || w.SystemShare >= 1 || shares.Float64() < w.SystemShare) {
			q.Prompt += w.System
			if w.SystemCached && w.Turns <= 1 {
				q.Group, q.Shared = 1, w.System
			}
		}
		return q
	}
	if len(w.Stages) == 0 {
		out := make([]Request, max(w.N, 0))
		t := 0.0
		for i := range out {
			if w.Rate > 0 && i > 0 {
				t += gaps.ExpFloat64() / w.Rate
			}
			out[i] = one(t, 0)
		}
		span := Span{Rate: w.Rate, N: len(out)}
		if len(out) > 0 {
			span.End = out[len(out)-1].Arrival
		}
		return conversations(w, out), []Span{span}
	}
	// Each stage is a Poisson process from the end of the one before: arrivals at exponential
	// gaps while they fall inside its duration, or until it has sent its requests.
	var out []Request
	spans := make([]Span, 0, len(w.Stages))
	start := 0.0
	for s, st := range w.Stages {
		sp := Span{Rate: st.Rate, First: len(out), Start: start}
		if !(st.Rate > 0) || math.IsInf(st.Rate, 0) {
			spans = append(spans, sp)
			continue
		}
		t := start
		for len(out) < maxDrawn {
			next := t + gaps.ExpFloat64()/st.Rate
			if st.Requests > 0 {
				if sp.N == st.Requests {
					break
				}
			} else if next >= start+st.DurationS {
				break
			}
			t = next
			out = append(out, one(t, s))
			sp.N++
		}
		sp.End = t
		if st.Requests == 0 {
			sp.End = start + st.DurationS
		}
		spans = append(spans, sp)
		start = sp.End
	}
	return conversations(w, out), spans
}

// conversations appends every first turn's later turns (Workload.Turns) after all the first
// turns, from streams of their own: the first turns are the requests a single-turn workload
// draws. Turn k+1 of request i follows turn k; its prefix group is 2 + its index (group 1 is the
// shared system prompt).
func conversations(w Workload, first []Request) []Request {
	if w.Turns <= 1 || len(first) == 0 {
		return first
	}
	lengths := rand.New(rand.NewPCG(w.Seed, 0x5eed4))
	think := rand.New(rand.NewPCG(w.Seed, 0x5eed5))
	out := slices.Grow(first, len(first)*(w.Turns-1))
	drawn := len(first)
	for i := range first {
		prev := i
		for k := 1; k < w.Turns; k++ {
			p := out[prev]
			q := Request{After: prev + 1, Stage: p.Stage, Think: w.ThinkS * think.ExpFloat64()}
			q.Shared = p.Prompt + p.Gen // the conversation so far
			q.Prompt = q.Shared + draw(w.Prompt, drawn, lengths)
			q.Gen = draw(w.Gen, drawn, lengths)
			drawn++
			q.Group = 2 + len(out)
			out[prev].Then = q.Group
			out = append(out, q)
			prev = len(out) - 1
		}
	}
	return out
}
