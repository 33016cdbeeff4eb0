package assets

import (
	"fmt"
	"strconv"

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

// WorkloadFile is what a workload file sets: nil for a length it leaves out.
type WorkloadFile struct {
	Prompt, Gen *model.LengthDist
}

var distKeys = []string{"dist", "mean", "sigma", "min", "max"}

// ParseWorkload reads a workload file named name (for messages).
func ParseWorkload(name string, data []byte) (WorkloadFile, error) {
	var errs Errors
	fail := func(line int, key, value, format string, args ...any) {
		if len(errs) < maxScenarioErrors {
			errs = append(errs, &Error{File: name, Row: -1, Line: line, Field: key, Value: value, Msg: fmt.Sprintf(format, args...)})
		}
	}
	top, line, msg := topMapping(data, "empty file: a workload needs prompt: or gen: (a length distribution)",
		"a workload must be a mapping of prompt: and gen:")
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
		default:
			fail(k.Line, k.Value, "", "unknown key: a workload has prompt: and gen:")
			continue
		}
		if l, ok := seen[k.Value]; ok {
			fail(k.Line, k.Value, "", "given twice (first on line %d)", l)
			continue
		}
		seen[k.Value] = k.Line
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
	if out.Prompt == nil && out.Gen == nil {
		return WorkloadFile{}, Errors{&Error{File: name, Row: -1, Line: 1, Msg: "sets neither prompt: nor gen:"}}
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
