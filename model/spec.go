package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Speculative decoding: each decode step a drafter proposes K tokens per sequence, the target
// model verifies the K proposals and samples one more in one forward over K+1 positions per
// sequence, and the sequence keeps 1 + the proposals accepted before the first rejected one.
//
// The acceptance is given either as one per-token rate a in (0, 1] (each proposal accepted
// with probability a once the ones before it were: a chain), whose expected accepted count per
// step is a + a² + … + a^K = (1 − a^(K+1))/(1 − a) − 1, or as a measured per-position curve
// c₁ ≥ c₂ ≥ … ≥ c_K: the share of steps whose proposal i was accepted (vLLM's
// spec_decode_num_accepted_tokens_per_pos over its number of drafts), so the expected count
// is c₁ + … + c_K.

// Speculation methods (--spec-method).
const (
	SpecDraft = "draft" // a smaller model of the same vocabulary, K forwards of its own
	SpecMTP   = "mtp"   // the checkpoint's multi-token prediction layers (DeepSeek-V3, GLM-4.5)
	SpecEAGLE = "eagle" // an EAGLE head: one decoder layer on the target's hidden states
	SpecNGram = "ngram" // prompt lookup on the host: no GPU work
)

// SpecMethods are the methods, in help order.
var SpecMethods = []string{SpecEAGLE, SpecMTP, SpecDraft, SpecNGram}

// SpecAccept is the acceptance: one value (a per-token rate) or a per-position curve.
type SpecAccept []float64

// SpecAcceptance is w's acceptance, nil without one.
func (w Workload) SpecAcceptance() []float64 {
	if w.SpecAccept == nil {
		return nil
	}
	return *w.SpecAccept
}

// SpecMethodOr is w's speculation method, eagle when none is named.
func (w Workload) SpecMethodOr() string {
	if w.SpecMethod == "" {
		return SpecEAGLE
	}
	return w.SpecMethod
}

// ExpectedAccepted is the expected proposals a step keeps for k proposals and acceptance acc
// (one per-token rate, or a per-position curve of k values); 0 when k ≤ 0 or acc is empty.
func ExpectedAccepted(k int, acc []float64) float64 {
	if k <= 0 || len(acc) == 0 {
		return 0
	}
	if len(acc) > 1 {
		var s float64
		for i := 0; i < k && i < len(acc); i++ {
			s += acc[i]
		}
		return s
	}
	// a + a² + … + a^k, summed term by term: exact at a = 1, no 0/0.
	a := acc[0]
	var s, p float64 = 0, 1
	for i := 0; i < k; i++ {
		p *= a
		s += p
	}
	return s
}

// SpecLimit is what an engine allows: the most speculative tokens a step, and the methods it
// runs. Engines not listed do not speculate in the simulator.
type SpecLimit struct {
	MaxTokens int
	Methods   []string
	Source    string
}

// SpecLimits are the engines' limits on speculation, by engine id.
var SpecLimits = map[string]SpecLimit{
	// vllm/v1/sample/rejection_sampler.py MAX_SPEC_LEN = 32 ("Maximum number of speculative
	// draft tokens allowed per request in a single step"; RejectionSampler.forward asserts
	// max_spec_len <= MAX_SPEC_LEN), read at vllm-project/vllm 0097a7b. Methods: ngram, eagle
	// (EAGLE and EAGLE-3), deepseek_mtp and draft models (vllm/config SpeculativeConfig).
	"vllm": {MaxTokens: 32, Methods: []string{SpecDraft, SpecMTP, SpecEAGLE, SpecNGram},
		Source: "vllm/v1/sample/rejection_sampler.py MAX_SPEC_LEN = 32"},
	// SGLang: EAGLE/EAGLE-3, MTP (as EAGLE with the checkpoint's NextN layer), STANDALONE draft
	// models and NGRAM (docs/advanced_features/speculative_decoding.md). No upper bound on
	// speculative_num_steps was found in its source: the model keeps vLLM's 32 (U).
	"sglang": {MaxTokens: 32, Methods: []string{SpecDraft, SpecMTP, SpecEAGLE, SpecNGram},
		Source: "speculative_num_steps: no bound found in server_args.py (32 assumed, U)"},
	// TensorRT-LLM: examples/eagle/convert_checkpoint.py asserts max_draft_len <= 256; MTP,
	// EAGLE-3, draft-target and NGram decoding configs in the PyTorch flow (llm_args.py).
	"trtllm": {MaxTokens: 256, Methods: []string{SpecDraft, SpecMTP, SpecEAGLE, SpecNGram},
		Source: "examples/eagle/convert_checkpoint.py: max_draft_len <= 256"},
}

// MaxSpecTokens bounds --spec-tokens whatever the engine (the largest engine limit).
const MaxSpecTokens = 256

// ParseSpecAccept reads --spec-accept: one rate or a comma-separated per-position curve.
func ParseSpecAccept(s string) (SpecAccept, error) {
	parts := strings.Split(strings.TrimSpace(s), ",")
	if len(parts) > MaxSpecTokens {
		return nil, fmt.Errorf("at most %d positions", MaxSpecTokens)
	}
	out := make(SpecAccept, 0, len(parts))
	for _, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", strings.TrimSpace(p))
		}
		out = append(out, x)
	}
	return out, nil
}

// String writes the acceptance as --spec-accept takes it.
func (a SpecAccept) String() string {
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// SpecTokensOr is the speculative tokens a step: --spec-tokens, else the curve's length when
// a curve is given (0: no speculation).
func (w Workload) SpecTokensOr() int {
	if w.SpecTokens > 0 {
		return w.SpecTokens
	}
	if acc := w.SpecAcceptance(); len(acc) > 1 {
		return len(acc)
	}
	return 0
}

// speculation checks the speculative-decoding inputs of an inference scenario.
func (c *checker) speculation(s Scenario) {
	w := s.Workload
	acc := w.SpecAcceptance()
	if w.SpecTokens < 0 || w.SpecTokens > MaxSpecTokens {
		c.add("spec-tokens", w.SpecTokens, "must be 0 (no speculation) to %d speculative tokens a step", MaxSpecTokens)
		return
	}
	k := w.SpecTokensOr()
	if k == 0 {
		switch {
		case len(acc) > 0:
			c.add("spec-accept", SpecAccept(acc).String(), "needs --spec-tokens K (speculative tokens a step) or a curve of K values")
		case w.SpecMethod != "":
			c.add("spec-method", w.SpecMethod, "needs --spec-tokens K (speculative tokens a step)")
		case w.SpecDraft != nil:
			c.add("spec-draft", w.SpecDraft.ID, "needs --spec-tokens K and --spec-method draft")
		}
		return
	}
	if w.Mode != Infer {
		c.add("spec-tokens", k, "speculative decoding is for --mode infer")
		return
	}
	switch {
	case len(acc) == 0:
		c.add("spec-tokens", k, "needs --spec-accept, the acceptance: a per-token rate in (0, 1] or a per-position curve of %d values", k)
	case len(acc) > 1 && len(acc) != k:
		c.add("spec-accept", SpecAccept(acc).String(), "a per-position curve needs one value per speculative token: %d values for --spec-tokens %d", k, k)
	default:
		for i, a := range acc {
			if !finite(a) || a <= 0 || a > 1 {
				c.add("spec-accept", SpecAccept(acc).String(), "each acceptance must be in (0, 1]: value %d is %v", i+1, a)
				return
			}
			if i > 0 && a > acc[i-1] {
				c.add("spec-accept", SpecAccept(acc).String(), "a per-position curve is the share of steps whose proposal i was accepted, so it cannot rise: value %d (%v) is above value %d (%v)", i+1, a, i, acc[i-1])
				return
			}
		}
	}
	method := w.SpecMethodOr()
	if !contains(SpecMethods, method) {
		c.add("spec-method", w.SpecMethod, "must be one of %s", strings.Join(SpecMethods, ", "))
		return
	}
	eng, _ := Engine(w.Engine)
	lim, ok := SpecLimits[eng.ID]
	switch {
	case !ok:
		c.add("spec-tokens", k, "engine %s does not run speculative decoding in the simulator (engines that do: %s)", eng.ID, strings.Join(specEngines(), ", "))
	case k > lim.MaxTokens:
		c.add("spec-tokens", k, "engine %s allows at most %d speculative tokens a step (%s)", eng.ID, lim.MaxTokens, lim.Source)
	case !contains(lim.Methods, method):
		c.add("spec-method", method, "engine %s runs %s", eng.ID, strings.Join(lim.Methods, ", "))
	}
	switch {
	case method == SpecMTP && s.Arch.MTPLayers < 1:
		c.add("spec-method", method, "model %s carries no multi-token prediction layer (mtp_layers): use eagle, draft or ngram", s.Arch.ID)
	case method == SpecDraft && w.SpecDraft == nil:
		c.add("spec-method", method, "needs --spec-draft, the draft model (a preset name or a config.json)")
	case method != SpecDraft && w.SpecDraft != nil:
		c.add("spec-draft", w.SpecDraft.ID, "a draft model is for --spec-method draft, not %s", method)
	case w.SpecDraft != nil && w.SpecDraft.Vocab != s.Arch.Vocab:
		c.add("spec-draft", w.SpecDraft.ID, "a draft model must share the target's vocabulary: %d tokens against %s's %d", w.SpecDraft.Vocab, s.Arch.ID, s.Arch.Vocab)
	case w.SpecDraft != nil && (w.SpecDraft.Layers < 1 || w.SpecDraft.Hidden < 1 || w.SpecDraft.Heads < 1):
		c.add("spec-draft", w.SpecDraft.ID, "the draft model needs layers, hidden and heads")
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func specEngines() []string {
	out := make([]string, 0, len(SpecLimits))
	for id := range SpecLimits {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
