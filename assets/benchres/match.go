package benchres

import (
	"regexp"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// MatchModel is the preset a result file's model names: its Hugging Face ID or path
// ("meta-llama/Meta-Llama-3-8B-Instruct", "/models/Qwen3-32B") against the presets' IDs and
// names, ignoring case, punctuation, the organisation or folder, a leading "Meta-" and the tuning
// suffixes that leave the architecture as it is (-Instruct, -Chat, -hf, -it, -Base, a version
// such as -v0.1). ok is false when no preset is that model: a checkpoint of another size,
// version or quantization is not guessed.
func MatchModel(id string, models []model.Arch) (model.Arch, bool) {
	want := modelKey(id)
	if want == "" {
		return model.Arch{}, false
	}
	for _, a := range models {
		if modelKey(a.ID) == want || modelKey(a.Name) == want {
			return a, true
		}
	}
	return model.Arch{}, false
}

var (
	reNameSep = regexp.MustCompile(`[^a-z0-9.]+`)
	reVersion = regexp.MustCompile(`^v\d+(\.\d+)*$`)
	// tuningSuffixes name a fine-tune or a packaging of the same architecture.
	tuningSuffixes = map[string]bool{"instruct": true, "chat": true, "hf": true, "it": true, "base": true}
)

// modelKey is a model's name reduced to what tells architectures apart: "llama-3-8b".
func modelKey(name string) string {
	name = strings.ToLower(strings.TrimSpace(strings.TrimRight(name, "/")))
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	toks := reNameSep.Split(name, -1)
	var kept []string
	for _, t := range toks {
		if t = strings.Trim(t, "."); t != "" {
			kept = append(kept, t)
		}
	}
	if len(kept) > 1 && kept[0] == "meta" && kept[1] == "llama" {
		kept = kept[1:]
	}
	for len(kept) > 1 && (tuningSuffixes[kept[len(kept)-1]] || reVersion.MatchString(kept[len(kept)-1])) {
		kept = kept[:len(kept)-1]
	}
	return strings.Join(kept, "-")
}
