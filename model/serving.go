package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LengthDist is a distribution of token counts: fixed (Mean), uniform on [Min, Max], normal (Mean,
// Sigma) or lognormal (Mean, Sigma of the log), clipped to [Min, Max] when they are set and
// never below 1; or a list (Values, one a request in order, again from the first when the
// requests outrun it, with Mean, Min and Max its own): the lengths a benchmark's file kept.
type LengthDist struct {
	Kind   DistKind `json:"dist"`
	Mean   float64  `json:"mean,omitempty"`
	Sigma  float64  `json:"sigma,omitempty"`
	Min    int      `json:"min,omitempty"`
	Max    int      `json:"max,omitempty"`
	Values []int    `json:"values,omitempty"`
}

// DistKind names a LengthDist's family.
type DistKind string

// Distribution families.
const (
	Fixed     DistKind = "fixed"
	Uniform   DistKind = "uniform"
	Normal    DistKind = "normal"
	LogNormal DistKind = "lognormal"
	List      DistKind = "list"
)

// MaxListValues bounds a List's values (model.MaxBatch, as a result file's per-request lists).
const MaxListValues = MaxBatch

// ListDist is the List of values (each at least 1), with their mean and range.
func ListDist(values []int) LengthDist {
	d := LengthDist{Kind: List, Values: values}
	sum := 0.0
	for i, v := range values {
		if i == 0 || v < d.Min {
			d.Min = v
		}
		d.Max = max(d.Max, v)
		sum += float64(v)
	}
	if len(values) > 0 {
		d.Mean = sum / float64(len(values))
	}
	return d
}

// FixedDist is a LengthDist that always gives n.
func FixedDist(n int) LengthDist { return LengthDist{Kind: Fixed, Mean: float64(n)} }

// Validate names what is wrong with d; what is the caller's name for it (a flag or a key),
// left out of the message when empty.
func (d LengthDist) Validate(what string) error {
	bad := func(f string, v any, allowed string) error {
		if what == "" {
			return fmt.Errorf("%s %v: %s", f, v, allowed)
		}
		return fmt.Errorf("%s: %s %v: %s", what, f, v, allowed)
	}
	switch d.Kind {
	case Fixed, Normal, LogNormal:
		if !finite(d.Mean) || d.Mean < 1 || d.Mean > MaxTokens {
			return bad("mean", d.Mean, fmt.Sprintf("need 1 to %d tokens", MaxTokens))
		}
	case Uniform:
		if d.Min < 1 || d.Max < d.Min || d.Max > MaxTokens {
			return bad("min..max", fmt.Sprintf("%d..%d", d.Min, d.Max), fmt.Sprintf("need 1 ≤ min ≤ max ≤ %d", MaxTokens))
		}
	case List:
		if len(d.Values) == 0 || len(d.Values) > MaxListValues {
			return bad("values", len(d.Values), fmt.Sprintf("need 1 to %d lengths", MaxListValues))
		}
		for i, v := range d.Values {
			if v < 1 || v > MaxTokens {
				return bad(fmt.Sprintf("values[%d]", i), v, fmt.Sprintf("need 1 to %d tokens", MaxTokens))
			}
		}
		if l := ListDist(d.Values); l.Min != d.Min || l.Max != d.Max || math.Abs(l.Mean-d.Mean) > 1e-9*l.Mean {
			return bad("mean, min, max", fmt.Sprintf("%g, %d, %d", d.Mean, d.Min, d.Max), fmt.Sprintf("need the values' own: %g, %d, %d", l.Mean, l.Min, l.Max))
		}
		return nil
	default:
		return bad("dist", string(d.Kind), "need fixed, uniform, normal, lognormal or list")
	}
	if d.Kind == Normal || d.Kind == LogNormal {
		if !finite(d.Sigma) || d.Sigma < 0 || d.Sigma > 1e6 {
			return bad("sigma", d.Sigma, "need a finite value ≥ 0")
		}
	}
	if d.Min < 0 || d.Max < 0 || d.Max > MaxTokens || (d.Max > 0 && d.Min > d.Max) {
		return bad("min..max", fmt.Sprintf("%d..%d", d.Min, d.Max), fmt.Sprintf("need 0 ≤ min ≤ max ≤ %d (0: no bound)", MaxTokens))
	}
	return nil
}

// MaxTokens bounds one request's prompt or output.
const MaxTokens = 1 << 21

// MaxRecvInterval is the most decode steps Workload.SchedulerRecvInterval may put between two
// polls of the engine's request socket (serve.MaxRecvInterval: the same bound).
const MaxRecvInterval = 1000

// MeanValue is the distribution's mean before clipping (the midpoint of a uniform one).
func (d LengthDist) MeanValue() float64 {
	if d.Kind == Uniform {
		return float64(d.Min+d.Max) / 2
	}
	return d.Mean
}

// Serving defaults, as vLLM V1's `vllm serve` sets them (vllm/engine/arg_utils.py,
// get_batch_defaults, 2025): on a GPU of at least 70 GiB that is not an A100, 1024 sequences
// and 8192 batched tokens a step; on the others 256 and 2048. The KV cache gets what is left of
// 90% of the GPU's memory (gpu_memory_utilization 0.9) in blocks of 16 tokens.
const (
	ServeMemoryUtilization = 0.9
	ServeBlockTokens       = 16
)

// ServeDefaults are vLLM's max_num_seqs and max_num_batched_tokens for the GPU.
func ServeDefaults(g GPU) (maxSeqs, maxBatchTokens int) {
	if g.MemoryBytes >= 70*GiB && !strings.HasPrefix(g.ID, "a100") {
		return 1024, 8192
	}
	return 256, 2048
}

// WeightFormats are the names --weights takes besides a number of bits.
var WeightFormats = []string{"bf16", "fp16", "fp8", "int8", "int4", "fp4", "mxfp4"}

// WeightBits is the storage of one weight in the named format: fp4 is NVFP4, four bits and an
// fp8 scale for every 16 (4.5 bits); mxfp4 the OCP microscaling format, an 8-bit scale for every
// 32 (4.25 bits); a number is bits as given (4.5 for a 4.5 bpw
// quantization), from 1 to 32.
func WeightBits(name string) (float64, error) {
	switch name {
	case "bf16", "fp16":
		return 16, nil
	case "fp8", "int8":
		return 8, nil
	case "int4":
		return 4, nil
	case "fp4":
		return 4.5, nil
	case "mxfp4":
		return 4.25, nil // OCP MX: four bits and an 8-bit scale for every 32
	}
	b, err := strconv.ParseFloat(name, 64)
	if err != nil || !finite(b) || b < 1 || b > 32 {
		return 0, fmt.Errorf("must be one of %s, or bits per weight from 1 to 32", strings.Join(WeightFormats, ", "))
	}
	return b, nil
}

// ServeWeights is the storage of a served model's layer weights and of its routed experts'
// (WeightBits' names, "" the precision's): --weights, else the checkpoint's own format; for the
// experts --expert-weights, else --weights, else the checkpoint's experts' format, else the
// layers'.
func (s Scenario) ServeWeights() (layers, experts string) {
	w, c := s.Workload, s.Arch.Checkpoint
	layers = w.Weights
	if layers == "" {
		layers = c.Weights
	}
	switch {
	case w.ExpertWeights != "":
		experts = w.ExpertWeights
	case w.Weights != "":
		experts = w.Weights
	case c.Experts != "":
		experts = c.Experts
	default:
		experts = layers
	}
	return layers, experts
}

// FormatBytes is the bytes of one weight stored in format f (WeightBits' names), the
// precision's for "" or a name it does not know.
func (w Workload) FormatBytes(f string) float64 {
	if f == "" {
		return w.Precision.Bytes()
	}
	b, err := WeightBits(f)
	if err != nil {
		return w.Precision.Bytes()
	}
	return b / 8
}

// WeightBytes is the bytes of one stored weight: the --weights format, else the precision's.
func (w Workload) WeightBytes() float64 {
	if w.Weights == "" {
		return w.Precision.Bytes()
	}
	b, err := WeightBits(w.Weights)
	if err != nil {
		return w.Precision.Bytes()
	}
	return b / 8
}

// KVBytes is the bytes of one cached key or value element: the --kv-cache format, else the
// precision's.
func (w Workload) KVBytes() float64 {
	if p, err := ParsePrecision(w.KVCache); err == nil && w.KVCache != "" {
		return p.Bytes()
	}
	return w.Precision.Bytes()
}

// Prompts and Gens are the length distributions of the requests: the workload's, else fixed at
// PromptTokens and GenTokens.
func (w Workload) Prompts() LengthDist {
	if w.PromptDist != nil {
		return *w.PromptDist
	}
	return FixedDist(w.PromptTokens)
}

// Gens: see Prompts.
func (w Workload) Gens() LengthDist {
	if w.GenDist != nil {
		return *w.GenDist
	}
	return FixedDist(w.GenTokens)
}

// RateStage is one stage of a multi-stage rate schedule: Poisson arrivals at Rate requests/s
// for DurationS seconds, or for Requests requests (one of the two).
type RateStage struct {
	Rate      float64 `json:"rate"`
	DurationS float64 `json:"duration_s,omitempty"`
	Requests  int     `json:"requests,omitempty"`
}

// RateStages is a rate schedule, stage after stage.
type RateStages []RateStage

// StageList is the workload's rate schedule, nil without one.
func (w Workload) StageList() []RateStage {
	if w.Stages == nil {
		return nil
	}
	return *w.Stages
}

// Bounds of a rate schedule and of the shared system prompt.
const (
	MaxRateStages    = 64
	MaxStageRequests = 1_000_000 // all stages: the requests given plus rate × duration
	MaxStageSeconds  = 1e6
)

// ExpectedRequests is the requests a schedule sends on average: each stage's Requests, or its
// rate × duration.
func ExpectedRequests(stages []RateStage) float64 {
	var n float64
	for _, st := range stages {
		if st.Requests > 0 {
			n += float64(st.Requests)
		} else {
			n += st.Rate * st.DurationS
		}
	}
	return n
}

// CheckStages names what is wrong with a rate schedule ("" when nothing): the key (stages[i].rate
// and so on, i from 1), its value and what is allowed.
func CheckStages(stages []RateStage) (key string, value any, allowed string) {
	if len(stages) > MaxRateStages {
		return "stages", len(stages), fmt.Sprintf("at most %d stages", MaxRateStages)
	}
	for i, st := range stages {
		k := fmt.Sprintf("stages[%d]", i+1)
		switch {
		case !finite(st.Rate) || st.Rate <= 0 || st.Rate > 1e6:
			return k + ".rate", st.Rate, "must be requests/s above 0, at most 1e6"
		case st.Requests < 0 || st.Requests > MaxStageRequests:
			return k + ".requests", st.Requests, fmt.Sprintf("must be 1 to %d", MaxStageRequests)
		case !finite(st.DurationS) || st.DurationS < 0 || st.DurationS > MaxStageSeconds:
			return k + ".duration", st.DurationS, fmt.Sprintf("must be a time above 0, at most %g s", MaxStageSeconds)
		case (st.Requests > 0) == (st.DurationS > 0):
			return k, fmt.Sprintf("duration %gs, requests %d", st.DurationS, st.Requests), "give duration or requests, one of the two"
		}
	}
	if n := ExpectedRequests(stages); n > MaxStageRequests {
		return "stages", fmt.Sprintf("%.0f requests", n), fmt.Sprintf("at most %d requests in all (each stage's requests, or rate × duration)", MaxStageRequests)
	}
	return "", nil, ""
}

// MaxTurns bounds a conversation's turns (Workload.Turns); MaxThinkS the mean time between
// them, seconds.
const (
	MaxTurns  = 256
	MaxThinkS = 86400
)

// MaxServeTokens bounds the engine steps one simulation may take in the worst case: requests ×
// (prompt chunks + generated tokens).
const MaxServeTokens = 1 << 25

func (c *checker) serving(w Workload, g GPU) {
	if !finite(w.Rate) || w.Rate < 0 || w.Rate > 1e6 {
		c.add("rate", w.Rate, "must be a number of requests/s from 0 (all at once) to 1e6")
	}
	if w.Concurrency != 0 {
		c.intRange("concurrency", w.Concurrency)
	}
	if w.PrefixCached < 0 || w.PrefixCached > 1<<24 {
		c.add("prefix-cached", w.PrefixCached, "must be a number of prompt tokens from 0 to 16777216")
	}
	if !finite(w.PrefixHit) || w.PrefixHit < 0 || w.PrefixHit > 1 {
		c.add("prefix-hit", w.PrefixHit, "must be a share of each prompt from 0 (no prefix-cache hit) to 1 (all but its last token cached)")
	}
	if w.Rate > 0 && w.Concurrency > 0 {
		c.add("concurrency", w.Concurrency, "give --rate (open loop) or --concurrency (closed loop), not both")
	}
	if w.Turns < 0 || w.Turns > MaxTurns {
		c.add("turns", w.Turns, "must be 0 or 1 (single requests) to %d turns a conversation", MaxTurns)
	}
	switch {
	case !finite(w.ThinkS) || w.ThinkS < 0 || w.ThinkS > MaxThinkS:
		c.add("think", w.ThinkS, "must be a time from 0 to %d s between a conversation's turns", MaxThinkS)
	case w.ThinkS > 0 && w.Turns <= 1:
		c.add("think", w.ThinkS, "is the time between a conversation's turns: give --turns above 1")
	}
	if !finite(w.KVHostGiB) || w.KVHostGiB < 0 || w.KVHostGiB*GiB > MaxHostMemoryBytes {
		c.add("kv-host-gib", w.KVHostGiB, "must be GiB of host memory per GPU from 0 (no host tier) to %d", MaxHostMemoryBytes/GiB)
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"slo-ttft", w.SLOTTFT}, {"slo-tpot", w.SLOTPOT}} {
		if !finite(x.v) || x.v < 0 || x.v > 1e6 {
			c.add(x.name, x.v, "must be a time from 0 (none) to 1e6 s")
		}
	}
	if w.MaxSeqs != 0 {
		c.intRange("max-seqs", w.MaxSeqs)
	}
	if w.MaxBatchTokens != 0 {
		c.intRange("max-batch-tokens", w.MaxBatchTokens)
	}
	if w.Weights != "" {
		if _, err := WeightBits(w.Weights); err != nil {
			c.add("weights", w.Weights, "%s", err.Error())
		}
	}
	if w.ExpertWeights != "" {
		if _, err := WeightBits(w.ExpertWeights); err != nil {
			c.add("expert-weights", w.ExpertWeights, "%s", err.Error())
		}
	}
	if w.KVCache != "" {
		if p, err := ParsePrecision(w.KVCache); err != nil || p == FP32 {
			c.add("kv-cache", w.KVCache, "must be bf16, fp16 or fp8")
		}
	}
	if _, ok := Engine(w.Engine); !ok {
		c.add("engine", w.Engine, "%s", engineAllowed())
	}
	if w.SchedulerRecvInterval < 0 || w.SchedulerRecvInterval > MaxRecvInterval {
		c.add("scheduler-recv-interval", w.SchedulerRecvInterval, "must be 0 to %d decode steps (0 or 1: every step)", MaxRecvInterval)
	}
	if w.PromptDist != nil {
		if err := w.PromptDist.Validate("prompt"); err != nil {
			c.add("prompt", w.PromptDist.Kind, "%s", err.Error())
		}
	}
	if w.GenDist != nil {
		if err := w.GenDist.Validate("gen"); err != nil {
			c.add("gen", w.GenDist.Kind, "%s", err.Error())
		}
	}
	if w.SystemPrompt < 0 || w.SystemPrompt > MaxTokens {
		c.add("system_prompt", w.SystemPrompt, "must be 0 to %d tokens", MaxTokens)
	}
	if !finite(w.SystemShare) || w.SystemShare < 0 || w.SystemShare > 1 {
		c.add("system_share", w.SystemShare, "must be a share of the requests from 0 to 1 (0: all)")
	}
	if len(w.StageList()) > 0 {
		if k, v, allowed := CheckStages(w.StageList()); k != "" {
			c.add(k, v, "%s", allowed)
		}
		if w.Concurrency > 0 {
			c.add("concurrency", w.Concurrency, "a rate schedule (stages) sends Poisson arrivals: leave --concurrency out")
		}
		if w.Turns > 1 {
			c.add("turns", w.Turns, "conversations with a rate schedule (stages) are not modelled: give --rate")
		}
	}
	// The engine steps a run can take: each request's prompt in chunks of the token budget, then
	// one step a generated token (with a budget of one token, the worst case).
	_, budget := ServeDefaults(g)
	if w.MaxBatchTokens > 0 {
		budget = w.MaxBatchTokens
	}
	reqs, key := float64(w.Requests), "requests"
	if len(w.StageList()) > 0 {
		reqs, key = ExpectedRequests(w.StageList()), "stages"
	}
	// A conversation's turns are as many requests, the last one's prompt all of them.
	turns := float64(max(w.Turns, 1))
	prompt := w.Prompts().MaxValue() + float64(max(w.SystemPrompt, 0)) + (turns-1)*(w.Prompts().MaxValue()+w.Gens().MaxValue())
	if steps := reqs * turns * (math.Ceil(prompt/float64(max(budget, 1))) + w.Gens().MaxValue()); reqs > 0 && steps > MaxServeTokens {
		c.add(key, reqs, "requests × (prompt chunks of max-batch-tokens %d + gen tokens) must be at most %d engine steps to simulate (%.3g here)",
			budget, MaxServeTokens, steps)
	}
	if w.Turns > 1 && prompt+w.Gens().MaxValue() > MaxSeq {
		c.add("turns", w.Turns, "× (prompt + gen) must be at most %d tokens: the last turn's prompt is the whole conversation", MaxSeq)
	}
}

// MaxValue is the largest value d gives (its mean for a distribution without a bound).
func (d LengthDist) MaxValue() float64 {
	switch {
	case d.Kind == Uniform || d.Max > 0:
		return float64(d.Max)
	default:
		return d.Mean
	}
}
