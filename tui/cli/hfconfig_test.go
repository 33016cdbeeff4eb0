package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// --model takes a Hugging Face config.json, or the folder that holds one: report --json says
// what it read (model_type, parameters in all and active), the text report its name (with
// "-config": the qwen3-32b preset has its id).
func TestModelFromHFConfig(t *testing.T) {
	src := filepath.Join("..", "..", "assets", "testdata", "hfconfig", "qwen3-32b.json")
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{src, dir} {
		code, out, errs := runArgs(t, "report", "--model", m, "--gpus", "2", "--mode", "infer", "--json")
		if code != 0 {
			t.Fatalf("--model %s: exit %d: %s", m, code, errs)
		}
		var r struct {
			Model struct {
				ID           string  `json:"id"`
				ModelType    string  `json:"model_type"`
				HeadDim      float64 `json:"head_dim"`
				ParamsTotal  float64 `json:"params_total"`
				ParamsActive float64 `json:"params_active"`
			} `json:"model"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Model.ID != "qwen3-32b-config" || r.Model.ModelType != "qwen3" || r.Model.HeadDim != 128 ||
			r.Model.ParamsTotal < 32.4e9 || r.Model.ParamsTotal > 33.2e9 || r.Model.ParamsActive != r.Model.ParamsTotal {
			t.Errorf("--model %s: model %+v", m, r.Model)
		}
	}
	code, out, _ := runArgs(t, "report", "--model", src, "--gpus", "2", "--mode", "infer")
	if code != 0 || !strings.HasPrefix(out, "qwen3-32b-config (64 layers, 32.8B params)") {
		t.Errorf("text report: exit %d, starts %q", code, strings.SplitN(out, "\n", 2)[0])
	}
}

// A config the model cannot honour, a folder without one, a file that is not JSON: exit 2
// naming --model, the file and the field.
func TestModelFromHFConfigBad(t *testing.T) {
	ds := filepath.Join("..", "..", "assets", "testdata", "hfconfig", "deepseek-v3.2.json") // DeepSeek's indexed sparse attention
	requireBadInput(t, []string{"report", "--model", ds}, []string{"--model", "deepseek-v3.2.json", "index_topk"})
	requireBadInput(t, []string{"report", "--model", t.TempDir()}, []string{"--model", "without a config.json"})
	bad := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(bad, []byte("{nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	requireBadInput(t, []string{"report", "--model", bad}, []string{"--model", "not a JSON object"})
	requireBadInput(t, []string{"report", "--model", filepath.Join(t.TempDir(), "missing.json")}, []string{"--model", "missing.json"})
}

// A config.json's model joins the presets for the run (the explorer's model row cycles back to
// it), under "-config" when a preset has its id.
func TestModelFromHFConfigJoinsPresets(t *testing.T) {
	src := filepath.Join("..", "..", "assets", "testdata", "hfconfig", "qwen3-32b.json")
	sf := &scenarioFlags{}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	sf.register(fs)
	if err := fs.Parse([]string{"--model", src, "--gpus", "2"}); err != nil {
		t.Fatal(err)
	}
	p, s, _, err := evaluateFlags(sf)
	if err != nil {
		t.Fatal(err)
	}
	if s.Arch.ID != "qwen3-32b-config" || s.Arch.HeadSize != 128 {
		t.Errorf("model %s (head %d), want qwen3-32b-config: the preset qwen3-32b has the id", s.Arch.ID, s.Arch.HeadSize)
	}
	a, err := p.Model("qwen3-32b-config")
	if err != nil || a.Source != s.Arch.Source {
		t.Errorf("presets lack the config's model: %v", err)
	}
	if _, err := p.Model("qwen3-32b"); err != nil {
		t.Errorf("the preset qwen3-32b is gone: %v", err)
	}
}
