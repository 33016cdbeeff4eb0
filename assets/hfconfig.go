package assets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// HFConfigKinds are the Hugging Face model_type values ReadHFConfig takes: decoder-only
// transformers whose every layer is the model's one layer shape (multi-head, grouped-query or
// multi-query attention of any head size over the whole context; a gated MLP, or equal experts
// with top-k routing in every layer: Mixtral's, and Qwen3's MoE of moe_intermediate_size). The architectures of issue 20 (fine-grained and shared
// experts, MLA, sliding-window and linear attention, multi-token prediction, quantized
// checkpoints) are refused by the field that needs them.
var HFConfigKinds = []string{"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe"}

// hfUnmodelled are config.json fields that describe what the model's layer cannot be yet, each
// with what it is. A field among them that is set (not null, zero, false or empty) refuses the
// file by its name.
var hfUnmodelled = map[string]string{
	"q_lora_rank":                     "multi-head latent attention, DeepSeek's MLA",
	"kv_lora_rank":                    "multi-head latent attention, DeepSeek's MLA",
	"n_routed_experts":                "fine-grained routed experts, DeepSeek's",
	"n_shared_experts":                "shared experts",
	"shared_expert_intermediate_size": "a shared expert",
	"moe_intermediate_size":           "experts narrower than the dense MLP",
	"first_k_dense_replace":           "dense first layers before the experts",
	"moe_layer_freq":                  "experts every n-th layer",
	"decoder_sparse_step":             "experts every n-th layer",
	"mlp_only_layers":                 "layers without experts",
	"num_nextn_predict_layers":        "multi-token prediction layers",
	"quantization_config":             "a quantized checkpoint: give --weights fp8, int4 or fp4 for its weights",
	"text_config":                     "a multimodal model's text config",
	"index_topk":                      "indexed sparse attention",
	"linear_num_key_heads":            "linear attention layers",
}

// hfMaxField bounds each size a config may give (the model's own limits apply after), and
// MaxHFConfigBytes the file: the largest real config.json files are tens of KiB.
const (
	hfMaxField       = 1 << 24
	MaxHFConfigBytes = 1 << 20
)

// ReadHFConfig reads a Hugging Face config.json (its bytes, named file in messages) into a
// model: its sizes, heads and head size, MLP or experts, vocabulary, tied embeddings and context.
// A field the model cannot honour is refused by name, never dropped; the errors name the file,
// the field and the value.
func ReadHFConfig(file string, data []byte) (model.Arch, error) {
	fail := func(field, value, msg string, args ...any) (model.Arch, error) {
		return model.Arch{}, &Error{File: file, Row: -1, Field: field, Value: value, Msg: fmt.Sprintf(msg, args...)}
	}
	if len(data) > MaxHFConfigBytes {
		return fail("", "", "%d bytes: a config.json is a few KiB, at most %d bytes", len(data), MaxHFConfigBytes)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return fail("", "", "not a JSON object: %v", err)
	}
	if dec.More() {
		return fail("", "", "more than one JSON value")
	}
	var kind string
	if v, ok := raw["model_type"]; !ok || json.Unmarshal(v, &kind) != nil || kind == "" {
		return fail("model_type", strings.TrimSpace(string(raw["model_type"])), "missing or not a string: a Hugging Face config.json names its model_type")
	}
	// Qwen3's MoE: experts of moe_intermediate_size in every layer (decoder_sparse_step 1, no
	// mlp_only_layers) is the model's one layer; its intermediate_size is then unused.
	var moeFFN int
	if kind == "qwen3_moe" {
		var step float64
		if v, ok := raw["decoder_sparse_step"]; ok && (json.Unmarshal(v, &step) != nil || step > 1) {
			return fail("decoder_sparse_step", clip(string(v)), "experts every n-th layer: not modelled yet (issue 20); 1 (every layer) is")
		}
		if v, ok := raw["moe_intermediate_size"]; ok {
			var f float64
			if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < 1 || f > hfMaxField {
				return fail("moe_intermediate_size", clip(string(v)), "must be a whole number from 1 to %d", hfMaxField)
			}
			moeFFN = int(f)
		}
		delete(raw, "decoder_sparse_step")
		delete(raw, "moe_intermediate_size")
	}
	// What the layer cannot be yet, by field, in a fixed order.
	var names []string
	for k := range hfUnmodelled {
		names = append(names, k)
	}
	sort.Strings(names)
	var missing []string
	for _, k := range names {
		if v, ok := raw[k]; ok && hfSet(v) {
			missing = append(missing, fmt.Sprintf("%s = %s (%s)", k, clip(string(v)), hfUnmodelled[k]))
		}
	}
	if len(missing) > 0 {
		return fail("", "", "model_type %s needs what the model's layer cannot be yet (issue 20): %s", kind, strings.Join(missing, ", "))
	}
	if v, ok := raw["layer_types"]; ok && hfSet(v) {
		var kinds []string
		if json.Unmarshal(v, &kinds) != nil {
			return fail("layer_types", clip(string(v)), "must be a list of layer kinds")
		}
		for _, lk := range kinds {
			if lk != "full_attention" {
				return fail("layer_types", lk, "a %s layer: only full attention is modelled yet (issue 20)", lk)
			}
		}
	}
	known := false
	for _, k := range HFConfigKinds {
		known = known || k == kind
	}
	if !known {
		return fail("model_type", kind, "not one the model reads: %s (others need issue 20's layer kinds)", strings.Join(HFConfigKinds, ", "))
	}

	var a model.Arch
	var errs []error
	num := func(field string, dst *int, required bool) {
		v, ok := raw[field]
		if !ok || string(v) == "null" {
			if required {
				errs = append(errs, &Error{File: file, Row: -1, Field: field, Msg: "missing: model_type " + kind + " needs it"})
			}
			return
		}
		var f float64
		if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < 1 || f > hfMaxField {
			errs = append(errs, &Error{File: file, Row: -1, Field: field, Value: clip(string(v)), Msg: fmt.Sprintf("must be a whole number from 1 to %d", hfMaxField)})
			return
		}
		*dst = int(f)
	}
	num("hidden_size", &a.Hidden, true)
	num("num_hidden_layers", &a.Layers, true)
	num("num_attention_heads", &a.Heads, true)
	num("intermediate_size", &a.FFN, true)
	num("vocab_size", &a.Vocab, true)
	num("num_key_value_heads", &a.KVHeads, false)
	num("head_dim", &a.HeadSize, false)
	num("max_position_embeddings", &a.MaxSeq, false)
	switch kind {
	case "mixtral":
		num("num_local_experts", &a.Experts, true)
		num("num_experts_per_tok", &a.TopK, true)
	case "qwen3_moe":
		num("num_experts", &a.Experts, true)
		num("num_experts_per_tok", &a.TopK, true)
		if moeFFN == 0 {
			errs = append(errs, &Error{File: file, Row: -1, Field: "moe_intermediate_size", Msg: "missing: model_type qwen3_moe needs it"})
		}
		a.FFN = moeFFN
	}
	if len(errs) > 0 {
		return model.Arch{}, joinErrors(errs)
	}
	if a.KVHeads == 0 {
		a.KVHeads = a.Heads // multi-head attention
	}
	if a.HeadSize > 0 && a.Heads > 0 && a.HeadSize*a.Heads == a.Hidden {
		a.HeadSize = 0 // the usual hidden / heads
	}
	if a.MaxSeq > model.MaxSeq {
		a.MaxSeq = model.MaxSeq
	}
	// Sliding-window attention bounds each layer's keys to the window: refused where the window
	// is on and shorter than the context (Mistral's and Qwen2's configs carry the field with
	// use_sliding_window false or null).
	if v, ok := raw["sliding_window"]; ok && hfSet(v) {
		var w float64
		on := true
		if u, ok := raw["use_sliding_window"]; ok {
			var b bool
			on = json.Unmarshal(u, &b) == nil && b
		}
		if json.Unmarshal(v, &w) == nil && on && (a.MaxSeq == 0 || w < float64(a.MaxSeq)) {
			return fail("sliding_window", clip(string(v)), "sliding-window attention: not modelled yet (issue 20)")
		}
	}
	if act := hfString(raw["hidden_act"]); act != "" && act != "silu" && act != "swish" {
		return fail("hidden_act", act, "the model's MLP is gated with SiLU (SwiGLU), as model_type %s's is", kind)
	}
	a.GatedMLP = true
	var tied bool
	if v, ok := raw["tie_word_embeddings"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &tied) != nil {
			return fail("tie_word_embeddings", clip(string(v)), "must be true or false")
		}
	}
	a.TiedEmbeddings = tied
	a.ModelType = kind
	a.ID = hfID(raw, kind, file)
	a.Name = a.ID
	a.Source = "config.json " + file + " (model_type " + kind + ")"
	if err := a.Validate(); err != nil {
		return model.Arch{}, &Error{File: file, Row: -1, Msg: "sizes the model cannot take: " + err.Error()}
	}
	return a, nil
}

// hfSet says whether a JSON value sets something: not null, 0, false, "" or empty.
func hfSet(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "null", "0", "false", `""`, "[]", "{}", "":
		return false
	}
	return true
}

// hfString is a JSON string's value, "" otherwise.
func hfString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// hfID names the model: the config's _name_or_path's last part, else the folder holding a
// config.json (a downloaded model's), else the file's name, else its model_type; lower case, and
// only letters, digits, '-', '.' and '_'.
func hfID(raw map[string]json.RawMessage, kind, file string) string {
	clean := func(name string) string {
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || len(name) > 64 || strings.IndexFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
		}) >= 0 {
			return ""
		}
		return name
	}
	base := filepath.Base(file)
	folder := ""
	if base == "config.json" {
		folder = filepath.Base(filepath.Dir(file))
	}
	for _, name := range []string{hfString(raw["_name_or_path"]), folder, strings.TrimSuffix(base, filepath.Ext(base))} {
		if n := clean(name); n != "" && n != "." && n != "config" {
			return n
		}
	}
	return kind
}

// clip shortens a value for a message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// joinErrors is several problems as one error, one a line.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return fmt.Errorf("%s", b.String())
}
