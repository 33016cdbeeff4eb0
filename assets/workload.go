package assets

import (
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/splitscope/splitscope/model"
)

// A workload file (--workload FILE) gives the length distributions of the requests a serving
// run draws, one mapping per length:
//
//	# prompts between 128 and 2048 tokens, outputs around 256
//	prompt: {dist: uniform, min: 128, max: 2048}
//	gen:    {dist: lognormal, mean: 256, sigma: 0.6, max: 1024}
//
// dist is fixed (mean), uniform (min, max), normal (mean, sigma) or lognormal (mean: the
// distribution's mean; sigma: of the log); min and max clip the others. A length left out keeps
// --prompt or --gen. Every problem is an Error naming the file, the line and the key.
//
// More keys describe a benchmark as it ran:
//
//	system_prompt: 512                      # tokens prepended to every prompt
//	system_prompt: {tokens: 512, share: 0.6} # or to 60% of them, drawn with the seed
//	system_prompt: {tokens: 512, cached: false} # every request prefills it (prefix caching off)
//	prefix_cached: 448                      # tokens of every prompt already in the prefix cache
//	stages:                                  # Poisson arrivals, one stage after another
//	  - {rate: 1, duration: 60s}
//	  - {rate: 5, requests: 600}
//
// The system prompt counts in the prompt's length; the engine's prefix cache holds it after the
// first request that carries it (vLLM V1 and SGLang cache prefixes by default), so later ones
// prefill only the rest, unless cached: false. prefix_cached is for a benchmark that cycles a
// fixed set of prompts (inference-perf's shared_prefix): that many of each prompt's first tokens
// are cache hits. A stage list replaces --rate and --requests.

// WorkloadFile is what a workload file sets: nil for a length it leaves out.
type WorkloadFile struct {
	Prompt, Gen *model.LengthDist
	// SystemPrompt tokens go before the prompt of a share SystemShare of the requests (0: all).
	SystemPrompt int
	SystemShare  float64
	// SystemUncached: every request prefills the system prompt (system_prompt's cached: false).
	SystemUncached bool
	// PrefixCached tokens of every prompt are prefix-cache hits (prefix_cached:).
	PrefixCached int
	Stages       []model.RateStage
}

var workloadKeys = "prompt:, gen:, system_prompt:, prefix_cached: and stages:"

var distKeys = []string{"dist", "mean", "sigma", "min", "max"}

// ParseWorkload reads a workload file named name (for messages).
func ParseWorkload(name string, data []byte) (WorkloadFile, error) {
	var errs Errors
	fail := func(line int, key, value, format string, args ...any) {
		if len(errs) < maxScenarioErrors {
			errs = append(errs, &Error{File: name, Row: -1, Line: line, Field: key, Value: value, Msg: fmt.Sprintf(format, args...)})
		}
	}
	top, line, msg := topMapping(data, "empty file: a workload needs prompt: or gen: (a length distribution), system_prompt: or stages:",
		"a workload must be a mapping of "+workloadKeys)
	if top == nil {
		fail(line, "", "", "%s", msg)
		return WorkloadFile{}, errs
	}
	var out WorkloadFile
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, n := top.Content[i], resolve(top.Content[i+1])
		var dst **model.LengthDist
		switch k.Value {
		case "prompt":
			dst = &out.Prompt
		case "gen":
			dst = &out.Gen
		case "system_prompt", "stages", "prefix_cached":
		default:
			fail(k.Line, k.Value, "", "unknown key: a workload has %s", workloadKeys)
			continue
		}
		if l, ok := seen[k.Value]; ok {
			fail(k.Line, k.Value, "", "given twice (first on line %d)", l)
			continue
		}
		seen[k.Value] = k.Line
		switch k.Value {
		case "system_prompt":
			parseSystem(n, &out, fail)
			continue
		case "stages":
			parseStages(n, &out, fail)
			continue
		case "prefix_cached":
			if x, ok := parseTokens(n, "prefix_cached", fail); ok {
				out.PrefixCached = x
			}
			continue
		}
		d, ok := parseDist(n, k.Value, fail)
		if !ok {
			continue
		}
		if err := d.Validate(""); err != nil {
			fail(n.Line, k.Value, "", "%s", err.Error())
			continue
		}
		*dst = &d
	}
	if len(errs) > 0 {
		return WorkloadFile{}, errs
	}
	if out.Prompt == nil && out.Gen == nil && out.SystemPrompt == 0 && out.PrefixCached == 0 && len(out.Stages) == 0 {
		return WorkloadFile{}, Errors{&Error{File: name, Row: -1, Line: 1, Msg: "sets none of " + workloadKeys}}
	}
	return out, nil
}

func parseDist(n *yaml.Node, key string, fail func(int, string, string, string, ...any)) (model.LengthDist, bool) {
	var d model.LengthDist
	if n.Kind != yaml.MappingNode {
		fail(n.Line, key, "", "must be a mapping such as {dist: uniform, min: 128, max: 2048}, not a %s", kindName(n))
		return d, false
	}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		field := key + "." + k.Value
		if v.Kind != yaml.ScalarNode {
			fail(v.Line, field, "", "must be a single value, not a %s", kindName(v))
			ok = false
			continue
		}
		switch k.Value {
		case "dist":
			d.Kind = model.DistKind(v.Value)
			if d.Kind == model.List {
				// A list is a benchmark file's lengths, request by request (validate --against).
				fail(v.Line, field, v.Value, "a list of each request's lengths comes from a benchmark's file (validate --against); a workload gives fixed, uniform, normal or lognormal")
				ok = false
			}
		case "mean", "sigma":
			x, err := strconv.ParseFloat(v.Value, 64)
			if err != nil {
				fail(v.Line, field, v.Value, "must be a number")
				ok = false
				continue
			}
			if k.Value == "mean" {
				d.Mean = x
			} else {
				d.Sigma = x
			}
		case "min", "max":
			x, err := strconv.Atoi(v.Value)
			if err != nil {
				fail(v.Line, field, v.Value, "must be a whole number of tokens")
				ok = false
				continue
			}
			if k.Value == "min" {
				d.Min = x
			} else {
				d.Max = x
			}
		default:
			fail(k.Line, field, "", "unknown key: one of %v", distKeys)
			ok = false
		}
	}
	if ok && d.Kind == "" {
		fail(n.Line, key+".dist", "", "missing: fixed, uniform, normal or lognormal")
		ok = false
	}
	return d, ok
}

// parseTokens reads a whole number of tokens, 1 to model.MaxTokens, failing with key.
func parseTokens(v *yaml.Node, key string, fail func(int, string, string, string, ...any)) (int, bool) {
	x, err := strconv.Atoi(v.Value)
	if err != nil || v.Kind != yaml.ScalarNode || x < 1 || x > model.MaxTokens {
		fail(v.Line, key, v.Value, "must be a whole number of tokens from 1 to %d", model.MaxTokens)
		return 0, false
	}
	return x, true
}

// parseSystem reads system_prompt: a number of tokens, or {tokens: N, share: F}.
func parseSystem(n *yaml.Node, out *WorkloadFile, fail func(int, string, string, string, ...any)) {
	tokens := func(v *yaml.Node, key string) (int, bool) { return parseTokens(v, key, fail) }
	switch n.Kind {
	case yaml.ScalarNode:
		if x, ok := tokens(n, "system_prompt"); ok {
			out.SystemPrompt = x
		}
	case yaml.MappingNode:
		var tok int
		share := 0.0
		uncached := false
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], resolve(n.Content[i+1])
			field := "system_prompt." + k.Value
			switch k.Value {
			case "tokens":
				x, good := tokens(v, field)
				tok, ok = x, ok && good
			case "share":
				x, err := strconv.ParseFloat(v.Value, 64)
				if err != nil || v.Kind != yaml.ScalarNode || !(x > 0 && x <= 1) {
					fail(v.Line, field, v.Value, "must be the share of the requests that carry it, above 0 and at most 1")
					ok = false
					continue
				}
				share = x
			case "cached":
				switch v.Value {
				case "true", "on", "yes":
				case "false", "off", "no":
					uncached = true
				default:
					fail(v.Line, field, v.Value, "must be true (the prefix cache holds it after its first request, the engines' default) or false")
					ok = false
				}
			default:
				fail(k.Line, field, "", "unknown key: one of tokens, share, cached")
				ok = false
			}
		}
		if ok && tok == 0 {
			fail(n.Line, "system_prompt.tokens", "", "missing: the system prompt's length in tokens")
			ok = false
		}
		if ok {
			out.SystemPrompt, out.SystemShare, out.SystemUncached = tok, share, uncached
		}
	default:
		fail(n.Line, "system_prompt", "", "must be a number of tokens or {tokens: 512, share: 0.6}, not a %s", kindName(n))
	}
}

// parseStages reads stages: a list of {rate, duration} or {rate, requests}, bounded.
func parseStages(n *yaml.Node, out *WorkloadFile, fail func(int, string, string, string, ...any)) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		fail(n.Line, "stages", "", "must be a list such as [{rate: 1, duration: 60s}, {rate: 5, requests: 600}], not a %s", kindName(n))
		return
	}
	if len(n.Content) > model.MaxRateStages {
		fail(n.Line, "stages", strconv.Itoa(len(n.Content)), "%d stages: at most %d", len(n.Content), model.MaxRateStages)
		return
	}
	var stages []model.RateStage
	ok := true
	for i, item := range n.Content {
		item = resolve(item)
		key := fmt.Sprintf("stages[%d]", i+1)
		if item.Kind != yaml.MappingNode {
			fail(item.Line, key, "", "must be a mapping such as {rate: 5, duration: 120s}, not a %s", kindName(item))
			ok = false
			continue
		}
		var st model.RateStage
		good := true
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], resolve(item.Content[j+1])
			field := key + "." + k.Value
			if v.Kind != yaml.ScalarNode {
				fail(v.Line, field, "", "must be a single value, not a %s", kindName(v))
				good = false
				continue
			}
			switch k.Value {
			case "rate":
				x, err := strconv.ParseFloat(v.Value, 64)
				if err != nil || !(x > 0 && x <= 1e6) {
					fail(v.Line, field, v.Value, "must be requests/s above 0, at most 1e6")
					good = false
					continue
				}
				st.Rate = x
			case "duration":
				d, err := time.ParseDuration(v.Value)
				x := d.Seconds()
				if err != nil {
					x, err = strconv.ParseFloat(v.Value, 64)
				}
				if err != nil || !(x > 0 && x <= model.MaxStageSeconds) {
					fail(v.Line, field, v.Value, "must be a time such as 90s or 5m (or seconds), above 0 and at most %g s", model.MaxStageSeconds)
					good = false
					continue
				}
				st.DurationS = x
			case "requests":
				x, err := strconv.Atoi(v.Value)
				if err != nil || x < 1 || x > model.MaxStageRequests {
					fail(v.Line, field, v.Value, "must be a whole number of requests from 1 to %d", model.MaxStageRequests)
					good = false
					continue
				}
				st.Requests = x
			default:
				fail(k.Line, field, "", "unknown key: one of rate, duration, requests")
				good = false
			}
		}
		if good {
			switch {
			case st.Rate == 0:
				fail(item.Line, key+".rate", "", "missing: the stage's requests/s")
				good = false
			case (st.DurationS > 0) == (st.Requests > 0):
				fail(item.Line, key, "", "give duration: or requests:, one of the two")
				good = false
			}
		}
		ok = ok && good
		stages = append(stages, st)
	}
	if !ok {
		return
	}
	if k, v, allowed := model.CheckStages(stages); k != "" {
		fail(n.Line, k, fmt.Sprint(v), "%s", allowed)
		return
	}
	out.Stages = stages
}
