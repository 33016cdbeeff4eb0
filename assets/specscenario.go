package assets

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/splitscope/splitscope/model"
)

// Speculative decoding's scenario keys (model/spec.go), as the flags:
//
//	spec_tokens: 3
//	spec_accept: 0.7              # a per-token rate in (0, 1]
//	spec_accept: [0.9, 0.8, 0.7]  # or a measured per-position curve (its length sets K)
//	spec_method: eagle            # eagle, mtp, draft or ngram
//	spec_draft: llama-3-8b        # with draft: a model preset or a config.json
//
// The values' ranges and the rules between them are model.Validate's, which names the key.

// decodeSpec reads spec_accept, spec_method or spec_draft, returning the value as the flag
// takes it.
func (v *scenarioValues) decodeSpec(p *Presets, kind keyKind, n *yaml.Node, bad func(string, ...any)) (string, bool) {
	text := strings.TrimSpace(n.Value)
	switch kind {
	case kSpecAccept:
		var acc model.SpecAccept
		if n.Kind == yaml.SequenceNode {
			if len(n.Content) == 0 || len(n.Content) > model.MaxSpecTokens {
				bad("must be a rate in (0, 1] or a list of 1 to %d per-position rates such as [0.9, 0.8, 0.7]", model.MaxSpecTokens)
				return "", false
			}
			for _, e := range n.Content {
				e = resolve(e)
				var x float64
				if e.Kind != yaml.ScalarNode || (e.Tag != "!!int" && e.Tag != "!!float") || e.Decode(&x) != nil {
					bad("each position's acceptance must be a number, not %q", e.Value)
					return "", false
				}
				acc = append(acc, x)
			}
		} else {
			a, err := model.ParseSpecAccept(text)
			if err != nil {
				bad("must be a rate in (0, 1] or a list of per-position rates such as [0.9, 0.8, 0.7]: %s", err.Error())
				return "", false
			}
			acc = a
		}
		v.specAcc = &acc
		return acc.String(), true
	case kSpecMethod:
		for _, m := range model.SpecMethods {
			if text == m {
				v.texts["spec_method"] = m
				return m, true
			}
		}
		bad("must be one of %s", strings.Join(model.SpecMethods, ", "))
		return "", false
	}
	// kSpecDraft: a preset, or a config.json relative to the scenario file's folder.
	a, ok := v.modelOf(p, text, bad)
	if !ok {
		return "", false
	}
	v.specDraft = &a
	return a.ID, true
}

// marshalSpec writes w's speculation keys through add.
func marshalSpec(w model.Workload, add func(string, any)) {
	if w.SpecTokens > 0 {
		add("spec_tokens", w.SpecTokens)
	}
	if acc := w.SpecAcceptance(); len(acc) == 1 {
		add("spec_accept", acc[0])
	} else if len(acc) > 1 {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, x := range acc {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'g', -1, 64)})
		}
		add("spec_accept", seq)
	}
	if w.SpecMethod != "" {
		add("spec_method", w.SpecMethod)
	}
	if w.SpecDraft != nil {
		if w.SpecDraft.File != "" {
			add("spec_draft", w.SpecDraft.File)
		} else {
			add("spec_draft", w.SpecDraft.ID)
		}
	}
}
