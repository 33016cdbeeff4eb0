package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// specFlags declares the speculative-decoding flags (model/spec.go).
func (f *scenarioFlags) specFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.specTokens, "spec-tokens", 0, fmt.Sprintf("inference: speculative decoding, K tokens proposed per sequence each decode step and verified by the target in one forward of K+1 tokens; at most the engine's limit (vLLM 32: MAX_SPEC_LEN of its rejection sampler; SGLang 32; TensorRT-LLM 256), %d in all (default 0: off)", model.MaxSpecTokens))
	fs.StringVar(&f.specAccept, "spec-accept", "", "inference, with --spec-tokens: the acceptance, a per-token rate in (0, 1] (each proposal kept with that chance once the ones before it were: 1 + a + … + a^K tokens a step) or a measured per-position curve 0.9,0.8,0.7 (the share of steps whose proposal i was kept, vLLM's per-position acceptance; its length sets K) (default none)")
	fs.StringVar(&f.specMethod, "spec-method", "", "inference, with --spec-tokens: what proposes the tokens: "+strings.Join(model.SpecMethods, ", ")+" (eagle: one decoder layer on the target's hidden states; mtp: the checkpoint's multi-token prediction layer, DeepSeek-V3 and GLM-4.5 carry one; draft: --spec-draft's model, K forwards of its own; ngram: prompt lookup on the CPU) (default eagle)")
	fs.StringVar(&f.specDraft, "spec-draft", "", "inference, with --spec-method draft: the draft model, a model preset or a config.json; it must share the target's vocabulary (default none)")
}

// speculation reads --spec-accept and --spec-draft; the rules between them (and the engine's
// limits) are model.Validate's.
func (f *scenarioFlags) speculation(p *assets.Presets) (*model.SpecAccept, *model.Arch, model.ValidationError) {
	var errs model.ValidationError
	var acc *model.SpecAccept
	if strings.TrimSpace(f.specAccept) != "" {
		a, err := model.ParseSpecAccept(f.specAccept)
		if err != nil {
			errs = append(errs, &model.FieldError{Field: "spec-accept", Value: f.specAccept,
				Allowed: "must be a per-token rate in (0, 1] or a per-position curve such as 0.9,0.8,0.7: " + err.Error()})
		} else {
			acc = &a
		}
	}
	var draft *model.Arch
	if f.specDraft != "" {
		a, err := p.Model(f.specDraft)
		switch {
		case err == nil:
			draft = &a
		case looksLikeConfigPath(f.specDraft):
			var fe *model.FieldError
			if a, fe = readHFConfigFlag(f.specDraft); fe != nil {
				fe.Field = "spec-draft"
				errs = append(errs, fe)
			} else {
				draft = &a
			}
		default:
			errs = append(errs, unknownPreset("spec-draft", "model", f.specDraft, p.ModelIDs()))
		}
	}
	return acc, draft, errs
}
