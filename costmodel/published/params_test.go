package published

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
)

// Every preset with a published parameter count is within 1% of it (or of the unit of its last
// printed digit), in all and activated; the twelve presets each have their rows.
func TestPresetParams(t *testing.T) {
	checks, err := ParamChecks(presets(t))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, c := range checks {
		cases = append(cases, c.Case)
		t.Logf("%-28s %9.4gB published %9.4gB (%+.2f%%, tolerance %.2f%%)", c.Case, c.Predicted/1e9, c.Published/1e9, 100*c.RelErr(), 100*c.Tolerance)
		if e := math.Abs(c.RelErr()); e > c.Tolerance {
			t.Errorf("%s: %.4g params, published %.4g (%+.2f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr())
		}
	}
	for _, id := range []string{"deepseek-v3", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b", "qwen3-next-80b-a3b", "gpt-oss-20b",
		"gpt-oss-120b", "llama-4-scout", "llama-4-maverick", "kimi-k2", "glm-4.5"} {
		if !slices.Contains(cases, id+" total") || !slices.Contains(cases, id+" active") && id != "qwen3-32b" {
			t.Errorf("%s: no params rows in %s", id, strings.Join(cases, ", "))
		}
	}
	if !slices.Contains(cases, "gemma-3-27b total") {
		t.Error("gemma-3-27b: no params row")
	}
}

// The makers' conventions, checked on the counts they print to a tenth of a billion: DeepSeek's
// 36.6B activated is the layers and the output head without the input embedding (0.93B), and
// gpt-oss-120b's 5.1B likewise; counted with the embedding both miss by more than 1%.
func TestActiveConventions(t *testing.T) {
	p := presets(t)
	for _, c := range []struct {
		id   string
		want float64
	}{{"deepseek-v3", 36.6e9}, {"gpt-oss-120b", 5.1e9}, {"gpt-oss-20b", 3.6e9}} {
		a, err := p.Model(c.id)
		if err != nil {
			t.Fatal(err)
		}
		m := arch.Of(a)
		without, with := ActiveAsCounted(m, ActiveNoEmbedding), ActiveAsCounted(m, ActiveAll)
		if math.Abs(without/c.want-1) > 0.01 || math.Abs(with/c.want-1) < 0.02 || with-without != m.EmbeddingParams() {
			t.Errorf("%s: %.4gB without the embedding, %.4gB with: want %.3gB without, within 1%%", c.id, without/1e9, with/1e9, c.want/1e9)
		}
	}
}

// DeepSeek-V3's multi-token prediction module, counted apart: 11.5B unique parameters, the
// embedding and output head it shares not counted again [DSK].
func TestMTPParams(t *testing.T) {
	a, err := presets(t).Model("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	if got := arch.Of(a).MTPParams(); math.Abs(got/11.5e9-1) > 0.01 {
		t.Errorf("deepseek-v3 MTP: %.4gB, want 11.5B within 1%%", got/1e9)
	}
}
