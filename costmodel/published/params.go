package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel/arch"
)

// Active counts: what a maker's "activated parameters" include. Every maker counts the layers a
// token runs through (attention, the routed experts it is sent to, shared experts, routers) and
// the output projection; they differ on the input embedding table, a lookup that does no
// arithmetic.
const (
	// ActiveAll counts the input embedding too (Qwen: Qwen3-30B-A3B's 3.35B activated, printed
	// 3.3B; Meta: Llama 4's 17.2B, printed 17B).
	ActiveAll = iota
	// ActiveNoEmbedding leaves the input embedding out (DeepSeek: "Activation parameters:
	// 36.6B (including 0.9B for the output Head)" [DSK], our count without the embedding
	// 36.62B; OpenAI: gpt-oss-120b's 5.1B, ours 5.13B without, 5.71B with).
	ActiveNoEmbedding
)

// PublishedParams are the parameter counts model makers publish for the presets, in all and
// activated a token (equal for a dense model), with the value of the last digit each is printed
// to and what the active count includes: validate's params group. [QW3, DSK, KIMI, GOSS, QNEXT,
// LLF, GLM, GEMMA]
var PublishedParams = []struct {
	Model                   string
	Total, Active           float64
	TotalDigit, ActiveDigit float64
	ActiveCounts            int
	Source                  string
}{
	{"qwen3-32b", 32.8e9, 32.8e9, 0.1e9, 0.1e9, ActiveAll, "QW3: Qwen3-32B's model card, 32.8B (31.2B without embeddings)"},
	{"qwen3-30b-a3b", 30.5e9, 3.3e9, 0.1e9, 0.1e9, ActiveAll, "QW3: Qwen3-30B-A3B's model card, 30.5B in all, 3.3B activated"},
	{"qwen3-235b-a22b", 235e9, 22e9, 1e9, 1e9, ActiveAll, "QW3: Qwen3-235B-A22B's model card, 235B in all, 22B activated"},
	{"deepseek-v3", 671e9, 36.6e9, 1e9, 0.1e9, ActiveNoEmbedding,
		"DSK: DeepSeek-V3's main model, 671B, 36.6B activated with the 0.9B output head (README_WEIGHTS; 37B on the card); the MTP module's 11.5B apart"},
	{"kimi-k2", 1e12, 32e9, 0.1e12, 1e9, ActiveNoEmbedding,
		"KIMI: Kimi K2's model card, 1T in all (printed to one digit: our 1.026T is the checkpoint's), 32B activated (DeepSeek-V3's layer, counted as DeepSeek counts)"},
	{"gpt-oss-20b", 21e9, 3.6e9, 1e9, 0.1e9, ActiveNoEmbedding, "GOSS: gpt-oss-20b's model card, 21B in all, 3.6B active"},
	{"gpt-oss-120b", 117e9, 5.1e9, 1e9, 0.1e9, ActiveNoEmbedding, "GOSS: gpt-oss-120b's model card, 117B in all, 5.1B active"},
	{"qwen3-next-80b-a3b", 80e9, 3e9, 1e9, 1e9, ActiveAll, "QNEXT: Qwen3-Next-80B-A3B's model card, 80B in all, 3B activated"},
	{"llama-4-scout", 109e9, 17e9, 1e9, 1e9, ActiveAll, "LLF: Llama 4 Scout's model card, 109B in all (the vision encoder's 0.87B with it), 17B active"},
	{"llama-4-maverick", 400e9, 17e9, 1e9, 1e9, ActiveAll, "LLF: Llama 4 Maverick's model card, 400B in all, 17B active"},
	{"glm-4.5", 355e9, 32e9, 1e9, 1e9, ActiveNoEmbedding, "GLM: GLM-4.5's README, 355B in all, 32B active (the MTP layer apart)"},
	{"gemma-3-27b", 27e9, 27e9, 1e9, 1e9, ActiveAll, "GEMMA: Gemma 3 27B, 27B with its SigLIP vision encoder (0.42B)"},
}

// paramsTolerance is the bar: within 1% of what the makers publish. A figure printed to
// few digits pins the count no closer than one unit of its last digit (the cards cut as often as
// they round: 235B-A22B's 22.19B activated is printed 22B, 30B-A3B's 3.35B 3.3B), so a row's
// tolerance is that unit over the figure where it is wider than 1%.
const paramsTolerance = 0.01

func paramsTol(published, digit float64) float64 { return max(paramsTolerance, digit/published) }

// ActiveAsCounted is m's activated parameters as a maker whose convention is counts counts them.
func ActiveAsCounted(m arch.Model, counts int) float64 {
	p := m.ActiveParams()
	if counts == ActiveNoEmbedding && !m.Arch.TiedEmbeddings {
		p -= m.EmbeddingParams() // a tied table is the output head, which every maker counts
	}
	return p
}

// ParamChecks are validate's params rows: each preset's parameters beside its makers' count.
func ParamChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range PublishedParams {
		a, err := p.Model(r.Model)
		if err != nil {
			return nil, fmt.Errorf("params check %s: %w", r.Model, err)
		}
		m := arch.Of(a)
		out = append(out, Check{Group: "params", Case: r.Model + " total", Published: r.Total, Predicted: m.Params(),
			Unit: "params", Tolerance: paramsTol(r.Total, r.TotalDigit), Note: r.Source})
		if r.Active != r.Total {
			out = append(out, Check{Group: "params", Case: r.Model + " active", Published: r.Active, Predicted: ActiveAsCounted(m, r.ActiveCounts),
				Unit: "params", Tolerance: paramsTol(r.Active, r.ActiveDigit), Note: r.Source})
		}
	}
	return out, nil
}
