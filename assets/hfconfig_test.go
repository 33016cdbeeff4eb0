package assets

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

func readHF(t *testing.T, name string) (model.Arch, error) {
	t.Helper()
	path := filepath.Join("testdata", "hfconfig", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ReadHFConfig(path, data)
}

// A config.json of a model the presets hold reads as the preset: the same sizes and the same
// parameter count (Llama 3.1 8B is the llama-3-8b preset's shape but for its 128K context;
// Mixtral 8x7B's experts; Qwen3's heads of 128 and, in its MoE models, experts of
// moe_intermediate_size in every layer).
func TestHFConfigMatchesPresets(t *testing.T) {
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for file, id := range map[string]string{"llama-3.1-8b.json": "llama-3-8b", "mixtral-8x7b.json": "mixtral-8x7b",
		"qwen3-32b.json": "qwen3-32b", "qwen3-30b-a3b.json": "qwen3-30b-a3b", "qwen3-235b-a22b.json": "qwen3-235b-a22b"} {
		a, err := readHF(t, file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want, err := p.Model(id)
		if err != nil {
			t.Fatal(err)
		}
		if a.Layers != want.Layers || a.Hidden != want.Hidden || a.Heads != want.Heads || a.KVHeads != want.KVHeads ||
			a.FFN != want.FFN || a.Vocab != want.Vocab || a.Experts != want.Experts || a.TopK != want.TopK ||
			a.GatedMLP != want.GatedMLP || a.TiedEmbeddings != want.TiedEmbeddings || a.HeadSize != want.HeadSize ||
			(a.MaxSeq != want.MaxSeq && file != "llama-3.1-8b.json") {
			t.Errorf("%s read as %+v, want the %s preset's sizes %+v", file, a, id, want)
		}
		if arch.Of(a).Params() != arch.Of(want).Params() || arch.Of(a).ActiveParams() != arch.Of(want).ActiveParams() {
			t.Errorf("%s: %.4g params (%.4g active), the preset %.4g (%.4g)", file, arch.Of(a).Params(), arch.Of(a).ActiveParams(), arch.Of(want).Params(), arch.Of(want).ActiveParams())
		}
	}
}

// Qwen3-32B: heads of 128 on a hidden size of 5120 (64 × 128 = 8192 ≠ 5120), so the head size is
// the config's head_dim; 32.8B parameters as Qwen publishes (31.2B without the embeddings).
func TestHFConfigHeadDim(t *testing.T) {
	a, err := readHF(t, "qwen3-32b.json")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "qwen3-32b" || a.ModelType != "qwen3" || a.HeadSize != 128 || a.HeadDim() != 128 || a.QWidth() != 8192 || a.KVWidth() != 1024 {
		t.Errorf("read %+v: want id qwen3-32b, head 128, q width 8192, kv width 1024", a)
	}
	if got := arch.Of(a).Params() / 1e9; math.Abs(got-32.8)/32.8 > 0.01 {
		t.Errorf("%.2fB parameters, want 32.8B within 1%%", got)
	}
	nonEmb := (arch.Of(a).Params() - arch.Of(a).EmbeddingParams() - arch.Of(a).OutputParams()) / 1e9
	if math.Abs(nonEmb-31.2)/31.2 > 0.01 {
		t.Errorf("%.2fB parameters without the embeddings, want 31.2B within 1%%", nonEmb)
	}
	if a.MaxSeq != 40960 || a.TiedEmbeddings {
		t.Errorf("context %d, tied %v: want 40960, untied", a.MaxSeq, a.TiedEmbeddings)
	}
}

// What the layer cannot be yet is refused by the field that needs it, with the file's name.
func TestHFConfigRefusesByField(t *testing.T) {
	for file, fields := range map[string][]string{
		"deepseek-v3.json":     {"first_k_dense_replace", "kv_lora_rank", "moe_intermediate_size", "n_routed_experts", "q_lora_rank"},
		"gpt-oss-20b.json":     {"layer_types", "model_type"},
		"mistral-sliding.json": {"sliding_window"},
	} {
		_, err := readHF(t, file)
		if err == nil {
			t.Errorf("%s accepted", file)
			continue
		}
		named := false
		for _, f := range fields {
			named = named || strings.Contains(err.Error(), f)
		}
		if !named || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v: want the file and one of %v", file, err, fields)
		}
	}
}

// Bad files: each refused naming the field and the value.
func TestHFConfigBadInput(t *testing.T) {
	base := `"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000`
	for _, c := range []struct{ data, want string }{
		{`not json`, "not a JSON object"},
		{`[1, 2]`, "not a JSON object"},
		{`{"hidden_size": 4096}`, "model_type"},
		{`{"model_type": "falcon", "hidden_size": 4096}`, "falcon"},
		{`{"model_type": "llama", "hidden_size": 4096}`, "num_hidden_layers"},
		{`{` + base + `, "num_key_value_heads": 5}`, "kv-heads"},
		{`{` + base + `, "hidden_size": 4000, "num_attention_heads": 30}`, "heads"},
		{`{` + base + `, "hidden_size": -1}`, "hidden_size"},
		{`{` + base + `, "num_hidden_layers": 1.5}`, "num_hidden_layers"},
		{`{` + base + `, "hidden_act": "gelu"}`, "hidden_act"},
		{`{` + base + `, "tie_word_embeddings": "yes"}`, "tie_word_embeddings"},
		{`{` + strings.Replace(base, `"llama"`, `"mixtral"`, 1) + `, "num_local_experts": 8, "num_experts_per_tok": 9}`, "top-k"},
		{`{` + base + `} {}`, "more than one"},
	} {
		_, err := ReadHFConfig("config.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "config.json") {
			t.Errorf("%s: %v, want an error naming config.json and %q", c.data, err, c.want)
		}
	}
	if _, err := ReadHFConfig("big.json", make([]byte, MaxHFConfigBytes+1)); err == nil {
		t.Error("a file over the bound was read")
	}
	// A head_dim equal to hidden / heads is the usual head size (Llama 3.1's config carries it).
	a, err := ReadHFConfig("config.json", []byte(`{`+base+`, "head_dim": 128}`))
	if err != nil || a.HeadSize != 0 {
		t.Errorf("head_dim 128 of 4096/32: %+v, %v: want head size 0 (hidden / heads)", a, err)
	}
}

// FuzzReadHFConfig: any bytes are read without a panic, and what is accepted validates.
func FuzzReadHFConfig(f *testing.F) {
	for _, name := range []string{"qwen3-32b.json", "llama-3.1-8b.json", "mixtral-8x7b.json", "deepseek-v3.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "hfconfig", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_type":"qwen3","hidden_size":1,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":1,"vocab_size":1,"head_dim":1024}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadHFConfig("config.json", data)
		if err != nil {
			return
		}
		if verr := a.Validate(); verr != nil {
			t.Fatalf("accepted %+v that does not validate: %v", a, verr)
		}
		if p := arch.Of(a).Params(); math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 {
			t.Fatalf("params %v", p)
		}
	})
}

// A model's id: the config's _name_or_path, else the folder of a config.json, else the file's
// name, else its model_type; lower case and plain.
func TestHFConfigID(t *testing.T) {
	body := `"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100`
	for _, c := range []struct{ file, data, want string }{
		{"x/config.json", `{"_name_or_path": "meta-llama/Llama-3.1-8B", ` + body + `}`, "llama-3.1-8b"},
		{"models/Llama-3.1-8B-Instruct/config.json", `{` + body + `}`, "llama-3.1-8b-instruct"},
		{"tiny.json", `{` + body + `}`, "tiny"},
		{"config.json", `{` + body + `}`, "llama"},
		{"we ird/config.json", `{"_name_or_path": "a b\nc", ` + body + `}`, "llama"},
	} {
		a, err := ReadHFConfig(c.file, []byte(c.data))
		if err != nil || a.ID != c.want {
			t.Errorf("%s: id %q, %v; want %q", c.file, a.ID, err, c.want)
		}
	}
}

// A scenario file's model: may name a config.json, relative to the scenario's folder, read by
// the caller's ModelFile; saving the scenario names the file, and reading that back gives the
// same model. Without a ModelFile (or with a name that is no path) model: names presets only.
func TestScenarioModelFromConfig(t *testing.T) {
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	p.ModelFile = func(path string) (model.Arch, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return model.Arch{}, err
		}
		a, err := ReadHFConfig(path, data)
		if abs, aerr := filepath.Abs(path); aerr == nil {
			a.File = abs
		}
		return a, err
	}
	scn := filepath.Join("testdata", "hfconfig", "lesson.yaml")
	sf, err := ParseScenario(scn, []byte("model: qwen3-30b-a3b.json\ngpu: h100-sxm\ngpus: 2\nmode: infer\n"), p)
	if err != nil {
		t.Fatal(err)
	}
	a := sf.Scenario.Arch
	if a.ID != "qwen3-30b-a3b-config" || a.Experts != 128 || a.FFN != 768 || !filepath.IsAbs(a.File) {
		t.Fatalf("model %+v: want qwen3-30b-a3b-config read from the scenario's folder", a)
	}
	out := MarshalScenario(sf.Scenario, "")
	if !strings.Contains(string(out), "model: "+a.File) {
		t.Errorf("saved scenario does not name the config:\n%s", out)
	}
	back, err := ParseScenario("elsewhere.yaml", out, p)
	if err != nil {
		t.Fatal(err)
	}
	if b := back.Scenario.Arch; b.ID != a.ID || arch.Of(b).Params() != arch.Of(a).Params() || b.File != a.File {
		t.Errorf("read back %s (%.4g params, %s), want %s (%.4g, %s)", b.ID, arch.Of(b).Params(), b.File, a.ID, arch.Of(a).Params(), a.File)
	}
	p.ModelFile = nil
	if _, err := ParseScenario(scn, []byte("model: qwen3-30b-a3b.json\ngpu: h100-sxm\n"), p); err == nil || !strings.Contains(err.Error(), "unknown model preset") {
		t.Errorf("without a reader: %v, want the unknown preset refused", err)
	}
}
