package published

import (
	"fmt"

	"github.com/splitscope/splitscope/costmodel/arch"
)

// PublishedParams are the parameter counts model makers publish for the presets, in all and
// activated a token (equal for a dense model), with the value of the last digit each is printed
// to: validate's params group. [QW3]
var PublishedParams = []struct {
	Model                   string
	Total, Active           float64
	TotalDigit, ActiveDigit float64
	Source                  string
}{
	{"qwen3-32b", 32.8e9, 32.8e9, 0.1e9, 0.1e9, "QW3: Qwen3-32B's model card, 32.8B (31.2B without embeddings)"},
	{"qwen3-30b-a3b", 30.5e9, 3.3e9, 0.1e9, 0.1e9, "QW3: Qwen3-30B-A3B's model card, 30.5B in all, 3.3B activated"},
	{"qwen3-235b-a22b", 235e9, 22e9, 1e9, 1e9, "QW3: Qwen3-235B-A22B's model card, 235B in all, 22B activated"},
}

// paramsTolerance is the bar: within 1% of what the makers publish. A figure printed to
// few digits pins the count no closer than one unit of its last digit (the cards cut as often as
// they round: 235B-A22B's 22.19B activated is printed 22B, 30B-A3B's 3.35B 3.3B), so a row's
// tolerance is that unit over the figure where it is wider than 1%.
const paramsTolerance = 0.01

func paramsTol(published, digit float64) float64 { return max(paramsTolerance, digit/published) }

// ParamChecks are validate's params rows: each preset's parameters beside its makers' count.
func ParamChecks(p ServePresets) ([]Check, error) {
	var out []Check
	for _, r := range PublishedParams {
		a, err := p.Model(r.Model)
		if err != nil {
			return nil, fmt.Errorf("params check %s: %w", r.Model, err)
		}
		out = append(out, Check{Group: "params", Case: r.Model + " total", Published: r.Total, Predicted: arch.Of(a).Params(),
			Unit: "params", Tolerance: paramsTol(r.Total, r.TotalDigit), Note: r.Source})
		if r.Active != r.Total {
			out = append(out, Check{Group: "params", Case: r.Model + " active", Published: r.Active, Predicted: arch.Of(a).ActiveParams(),
				Unit: "params", Tolerance: paramsTol(r.Active, r.ActiveDigit), Note: r.Source})
		}
	}
	return out, nil
}
