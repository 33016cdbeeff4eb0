package model

import (
	"fmt"
	"strings"
)

// ArchChanges says how a differs from the preset it is named after, field by field as the flags
// name them: "layers 40, heads 32"; "" when a is the preset as it is. A model given a preset's
// name and other sizes is no longer that preset, and its title must say so (Arch.Changes).
func ArchChanges(preset, a Arch) string {
	var out []string
	add := func(name string, was, is any) {
		if was != is {
			out = append(out, fmt.Sprintf("%s %v", name, is))
		}
	}
	add("layers", preset.Layers, a.Layers)
	add("hidden", preset.Hidden, a.Hidden)
	add("heads", preset.Heads, a.Heads)
	add("kv-heads", preset.KVHeads, a.KVHeads)
	add("ffn", preset.FFN, a.FFN)
	add("vocab", preset.Vocab, a.Vocab)
	add("experts", preset.Experts, a.Experts)
	add("top-k", preset.TopK, a.TopK)
	add("gated-mlp", preset.GatedMLP, a.GatedMLP)
	add("tied-embeddings", preset.TiedEmbeddings, a.TiedEmbeddings)
	return strings.Join(out, ", ")
}

// Label is the model as titles name it: its preset ID, "llama-3-70b (modified: layers 40)" when
// its sizes were changed from the preset's (Changes), "custom model" without an ID.
func (a Arch) Label() string {
	switch {
	case a.ID == "":
		return "custom model"
	case a.Changes != "":
		return fmt.Sprintf("%s (modified: %s)", a.ID, a.Changes)
	}
	return a.ID
}
