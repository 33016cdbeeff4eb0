package assets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// HFConfigKinds are the Hugging Face model_type values ReadHFConfig takes: decoder-only
// transformers whose layers the model's layer kinds describe (multi-head or grouped-query
// attention of any head size over the whole context, a sliding window or a chunk; multi-head
// latent attention, sparse indexed (DeepSeek-V3.2) or not; Gated DeltaNet linear attention; a dense gated MLP or routed experts with
// shared experts, dense first layers or experts every n-th layer; multi-token prediction
// layers; fp8 and mxfp4 checkpoints). A field one of them sets that the model cannot honour is
// refused by name.
var HFConfigKinds = []string{"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
	"qwen3_next", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe", "gpt_oss", "llama4", "gemma3", "gemma3_text"}

// hfArchFields are the config.json fields that shape the model, each with what it is. One that
// is set (not null, zero, false or empty) and that the reader of the file's model_type did not
// read refuses the file by its name: nothing that changes the model is dropped.
var hfArchFields = map[string]string{
	"q_lora_rank":                     "multi-head latent attention",
	"kv_lora_rank":                    "multi-head latent attention",
	"qk_nope_head_dim":                "multi-head latent attention",
	"qk_rope_head_dim":                "multi-head latent attention",
	"v_head_dim":                      "multi-head latent attention",
	"n_routed_experts":                "routed experts",
	"num_local_experts":               "routed experts",
	"num_experts":                     "routed experts",
	"num_experts_per_tok":             "experts a token runs through",
	"experts_per_token":               "experts a token runs through",
	"n_shared_experts":                "shared experts",
	"n_group":                         "node-limited routing's expert groups",
	"topk_group":                      "node-limited routing's groups per token",
	"shared_expert_intermediate_size": "a shared expert",
	"moe_intermediate_size":           "the experts' width",
	"intermediate_size_mlp":           "the dense layers' width",
	"first_k_dense_replace":           "dense first layers before the experts",
	"moe_layer_freq":                  "experts every n-th layer",
	"decoder_sparse_step":             "experts every n-th layer",
	"interleave_moe_layer_step":       "experts every n-th layer",
	"moe_layers":                      "which layers have experts",
	"mlp_only_layers":                 "layers without experts",
	"num_nextn_predict_layers":        "multi-token prediction layers",
	"quantization_config":             "a quantized checkpoint",
	"text_config":                     "a multimodal model's text config",
	"vision_config":                   "a vision encoder",
	"index_topk":                      "indexed sparse attention (DeepSeek's DSA)",
	"index_n_heads":                   "indexed sparse attention (DeepSeek's DSA)",
	"index_head_dim":                  "indexed sparse attention (DeepSeek's DSA)",
	"linear_num_key_heads":            "linear attention layers",
	"linear_num_value_heads":          "linear attention layers",
	"linear_key_head_dim":             "linear attention layers",
	"linear_value_head_dim":           "linear attention layers",
	"linear_conv_kernel_dim":          "linear attention layers",
	"full_attention_interval":         "linear and full attention layers",
	"layer_types":                     "each layer's attention",
	"sliding_window_pattern":          "sliding-window and full attention layers",
	"attention_chunk_size":            "chunked attention",
	"no_rope_layers":                  "chunked and full attention layers",
	"no_rope_layer_interval":          "chunked and full attention layers",
	"max_window_layers":               "sliding-window attention from a layer on",
}

// hfMaxField bounds each size a config may give (the model's own limits apply after), and
// MaxHFConfigBytes the file: the largest real config.json files are tens of KiB.
const (
	hfMaxField       = 1 << 24
	MaxHFConfigBytes = 1 << 20
)

// hfReader reads one config: cfg is the text model's fields (the file's, or its text_config's),
// used the fields read, errs the problems found.
type hfReader struct {
	file, kind string
	cfg        map[string]json.RawMessage
	used       map[string]bool
	errs       []error
}

func (r *hfReader) fail(field, value, msg string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Row: -1, Field: field, Value: clip(value), Msg: fmt.Sprintf(msg, args...)})
}

// has says whether field is present and not null, and marks it read.
func (r *hfReader) has(field string) bool {
	r.used[field] = true
	v, ok := r.cfg[field]
	return ok && strings.TrimSpace(string(v)) != "null"
}

// num reads a whole number from lo to hfMaxField into dst: missing or null leaves dst (its
// default) and is an error when required.
func (r *hfReader) num(field string, dst *int, lo int, required bool) bool {
	if !r.has(field) {
		if required {
			r.fail(field, "", "missing: model_type %s needs it", r.kind)
		}
		return false
	}
	v := r.cfg[field]
	var f float64
	if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < float64(lo) || f > hfMaxField {
		r.fail(field, string(v), "must be a whole number from %d to %d", lo, hfMaxField)
		return false
	}
	*dst = int(f)
	return true
}

// boolean reads true or false into dst; missing or null leaves dst.
func (r *hfReader) boolean(field string, dst *bool) {
	if !r.has(field) {
		return
	}
	if json.Unmarshal(r.cfg[field], dst) != nil {
		r.fail(field, string(r.cfg[field]), "must be true or false")
	}
}

// ints reads a list of whole numbers (at most hfMaxField entries of 0 to hfMaxField).
func (r *hfReader) ints(field string) ([]int, bool) {
	if !r.has(field) {
		return nil, false
	}
	var fs []float64
	if json.Unmarshal(r.cfg[field], &fs) != nil || len(fs) > model.MaxLayers {
		r.fail(field, string(r.cfg[field]), "must be a list of at most %d whole numbers", model.MaxLayers)
		return nil, false
	}
	out := make([]int, len(fs))
	for i, f := range fs {
		if f != math.Trunc(f) || f < 0 || f > hfMaxField {
			r.fail(field, strconv.FormatFloat(f, 'g', -1, 64), "must be whole numbers from 0 to %d", hfMaxField)
			return nil, false
		}
		out[i] = int(f)
	}
	return out, true
}

// ReadHFConfig reads a Hugging Face config.json (its bytes, named file in messages) into a
// model: its sizes, heads and head size, the attention of each layer, the MLP or experts,
// vocabulary, tied embeddings, context, multi-token prediction layers, the checkpoint's weight
// formats and a vision encoder's parameters. A field the model cannot honour is refused by
// name, never dropped; the errors name the file, the field and the value.
func ReadHFConfig(file string, data []byte) (model.Arch, error) {
	fail := func(field, value, msg string, args ...any) (model.Arch, error) {
		return model.Arch{}, &Error{File: file, Row: -1, Field: field, Value: clip(value), Msg: fmt.Sprintf(msg, args...)}
	}
	if len(data) > MaxHFConfigBytes {
		return fail("", "", "%d bytes: a config.json is a few KiB, at most %d bytes", len(data), MaxHFConfigBytes)
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		return fail("", "", "not a JSON object: %v", err)
	}
	if dec.More() {
		return fail("", "", "more than one JSON value")
	}
	var kind string
	if v, ok := top["model_type"]; !ok || json.Unmarshal(v, &kind) != nil || kind == "" {
		return fail("model_type", string(top["model_type"]), "missing or not a string: a Hugging Face config.json names its model_type")
	}
	if !slices.Contains(HFConfigKinds, kind) {
		var set []string
		for _, k := range sortedKeys(hfArchFields) {
			if v, ok := top[k]; ok && hfSet(v) {
				set = append(set, k)
			}
		}
		msg := "not one the model reads: " + strings.Join(HFConfigKinds, ", ")
		if len(set) > 0 {
			msg += "; it sets " + strings.Join(set, ", ") + ", which shape its layers"
		}
		return fail("model_type", kind, "%s", msg)
	}
	r := &hfReader{file: file, kind: kind, cfg: top, used: map[string]bool{"model_type": true}}
	// A multimodal model's text model is its text_config (Llama 4, Gemma 3); its vision
	// encoder is counted into OtherParams where its shape is one the reader knows.
	var vision map[string]json.RawMessage
	if kind == "llama4" || kind == "gemma3" {
		r.used["text_config"], r.used["vision_config"] = true, true
		var text map[string]json.RawMessage
		if v, ok := top["text_config"]; !ok || json.Unmarshal(v, &text) != nil || text == nil {
			return fail("text_config", string(top["text_config"]), "missing or not an object: model_type %s keeps its text model there", kind)
		}
		if v, ok := top["vision_config"]; ok && hfSet(v) {
			if json.Unmarshal(v, &vision) != nil {
				return fail("vision_config", string(v), "must be an object")
			}
		}
		// The top level's other fields that shape the model must not be set beside it.
		for _, k := range sortedKeys(hfArchFields) {
			if v, ok := top[k]; ok && hfSet(v) && !r.used[k] {
				return fail(k, string(v), "%s at the top level of a model_type %s config (its text model is text_config): not read", hfArchFields[k], kind)
			}
		}
		var tied *bool
		if v, ok := top["tie_word_embeddings"]; ok && string(v) != "null" {
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return fail("tie_word_embeddings", string(v), "must be true or false")
			}
			tied = &b
		}
		r.cfg = text
		r.used = map[string]bool{"model_type": true}
		if tied != nil {
			if _, inner := text["tie_word_embeddings"]; !inner {
				b, _ := json.Marshal(*tied)
				text["tie_word_embeddings"] = b
			}
		}
	}
	a := r.read()
	if len(r.errs) > 0 {
		return model.Arch{}, joinErrors(r.errs)
	}
	if vision != nil {
		p, err := visionParams(file, vision, a.Hidden)
		if err != nil {
			return model.Arch{}, err
		}
		a.OtherParams = p
	}
	// What shapes the model and was not read is refused by name.
	var missing []string
	for _, k := range sortedKeys(hfArchFields) {
		if v, ok := r.cfg[k]; ok && hfSet(v) && !r.used[k] {
			missing = append(missing, fmt.Sprintf("%s = %s (%s)", k, clip(string(v)), hfArchFields[k]))
		}
	}
	if len(missing) > 0 {
		return fail("", "", "model_type %s: what the model cannot be for it: %s", kind, strings.Join(missing, ", "))
	}
	a.ModelType = kind
	a.ID = hfID(top, kind, file)
	a.Name = a.ID
	a.Source = "config.json " + file + " (model_type " + kind + ")"
	if err := a.Validate(); err != nil {
		return model.Arch{}, &Error{File: file, Row: -1, Msg: "sizes the model cannot take: " + err.Error()}
	}
	return a, nil
}

// read reads r's text model. Problems go to r.errs.
func (r *hfReader) read() model.Arch {
	var a model.Arch
	kind := r.kind
	gemma := kind == "gemma3" || kind == "gemma3_text"
	r.num("hidden_size", &a.Hidden, 1, true)
	r.num("num_hidden_layers", &a.Layers, 1, true)
	r.num("num_attention_heads", &a.Heads, 1, true)
	if gemma {
		a.Vocab = 262208 // Gemma3TextConfig's default: Gemma 3's configs leave it out
	}
	r.num("vocab_size", &a.Vocab, 1, !gemma)
	r.num("num_key_value_heads", &a.KVHeads, 1, false)
	r.num("head_dim", &a.HeadSize, 1, false)
	if gemma {
		a.MaxSeq = 131072 // Gemma3TextConfig's default
	}
	r.num("max_position_embeddings", &a.MaxSeq, 1, false)
	var ffn int
	r.num("intermediate_size", &ffn, 1, true)
	a.FFN = ffn
	a.TiedEmbeddings = gemma // Gemma ties its embeddings unless the config says otherwise
	r.boolean("tie_word_embeddings", &a.TiedEmbeddings)
	if a.Layers > model.MaxLayers {
		r.fail("num_hidden_layers", strconv.Itoa(a.Layers), "must be at most %d", model.MaxLayers)
	}
	if len(r.errs) > 0 {
		return a
	}
	if a.KVHeads == 0 {
		a.KVHeads = a.Heads // multi-head attention
	}
	if a.HeadSize == 0 && a.Heads > 0 && a.Hidden%a.Heads != 0 && kind != "deepseek_v3" && kind != "deepseek_v32" && kind != "kimi_k2" {
		r.fail("num_attention_heads", strconv.Itoa(a.Heads), "must divide hidden_size (%d) where head_dim is absent", a.Hidden)
		return a
	}
	if a.HeadSize > 0 && a.HeadSize*a.Heads == a.Hidden {
		a.HeadSize = 0 // the usual hidden / heads
	}
	if a.MaxSeq > model.MaxSeq {
		a.MaxSeq = model.MaxSeq
	}

	// The MLP: gated, with SiLU (SwiGLU) or, for Gemma, tanh-approximated GELU (GeGLU): three
	// matrices either way.
	act, actField := hfString(r.cfg["hidden_act"]), "hidden_act"
	r.used["hidden_act"] = true
	if gemma {
		r.used["hidden_activation"] = true
		if s := hfString(r.cfg["hidden_activation"]); s != "" {
			act, actField = s, "hidden_activation"
		}
		if act != "" && act != "gelu_pytorch_tanh" && act != "gelu" {
			r.fail(actField, act, "Gemma 3's MLP is gated with GELU (gelu_pytorch_tanh)")
		}
	} else if act != "" && act != "silu" && act != "swish" {
		r.fail(actField, act, "the model's MLP is gated with SiLU (SwiGLU), as model_type %s's is", kind)
	}
	a.GatedMLP = true
	// Per-head query and key norms: Qwen3's and Gemma 3's attention has them (q_norm, k_norm in
	// their modeling code), with no config field to say so.
	switch kind {
	case "qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text":
		a.QKNorm = true
	}

	r.readExperts(&a, ffn)
	if a.MTPLayers == 0 && (kind == "deepseek_v3" || kind == "deepseek_v32" || kind == "kimi_k2" || kind == "glm4_moe") {
		r.num("num_nextn_predict_layers", &a.MTPLayers, 0, false)
	}
	r.readAttention(&a)
	r.readQuantization(&a)
	return a
}

// readExperts reads the MLP: routed experts, top-k, shared experts and which layers have them.
func (r *hfReader) readExperts(a *model.Arch, ffn int) {
	kind := r.kind
	var expertsField, topkField, widthField string
	switch kind {
	case "mixtral", "gpt_oss", "llama4":
		expertsField, widthField = "num_local_experts", "intermediate_size"
	case "qwen2_moe", "qwen3_moe", "qwen3_next":
		expertsField, widthField = "num_experts", "moe_intermediate_size"
	case "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe":
		expertsField, widthField = "n_routed_experts", "moe_intermediate_size"
	default:
		return // dense
	}
	topkField = "num_experts_per_tok"
	r.num(expertsField, &a.Experts, 1, true)
	if kind == "gpt_oss" {
		// gpt-oss names top-k twice (experts_per_token, num_experts_per_tok); they must agree.
		var k2 int
		if r.num("experts_per_token", &k2, 1, false) {
			if r.has("num_experts_per_tok") {
				r.num(topkField, &a.TopK, 1, true)
				if a.TopK != k2 {
					r.fail("experts_per_token", strconv.Itoa(k2), "must equal num_experts_per_tok (%d)", a.TopK)
				}
			} else {
				a.TopK = k2
			}
		} else {
			r.num(topkField, &a.TopK, 1, true)
		}
	} else {
		r.num(topkField, &a.TopK, 1, true)
	}
	width := ffn
	if widthField != "intermediate_size" {
		r.num(widthField, &width, 1, true)
	}
	if len(r.errs) > 0 {
		return
	}
	if a.TopK > a.Experts {
		r.fail(topkField, strconv.Itoa(a.TopK), "must be at most %s (%d)", expertsField, a.Experts)
		return
	}
	a.FFN = width
	dense := ffn // the width of a layer without experts
	// Node-limited routing (DeepSeek-V3 §2.1.2): top-k drawn from the topk_group best of n_group
	// groups of experts; one group, or every group, is no limit.
	switch kind {
	case "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe":
		groups, limit := 1, 0
		r.num("n_group", &groups, 1, false)
		limit = groups
		r.num("topk_group", &limit, 1, false)
		switch {
		case limit > groups:
			r.fail("topk_group", strconv.Itoa(limit), "must be at most n_group (%d)", groups)
			return
		case a.Experts%groups != 0:
			r.fail("n_group", strconv.Itoa(groups), "must divide %s (%d): the experts fall in equal groups", expertsField, a.Experts)
			return
		case limit < groups:
			a.ExpertGroups, a.GroupLimit = groups, limit
		}
	}
	// Shared experts every token runs through.
	switch kind {
	case "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe":
		if r.num("n_shared_experts", &a.SharedExperts, 0, false) {
			a.SharedFFN = a.SharedExperts * width
		}
	case "qwen2_moe", "qwen3_next":
		var s int
		if r.num("shared_expert_intermediate_size", &s, 0, false) && s > 0 {
			a.SharedExperts, a.SharedFFN = 1, s
		}
	case "llama4":
		a.SharedExperts, a.SharedFFN = 1, width // Llama 4's shared expert is one more expert
		r.num("intermediate_size_mlp", &dense, 1, false)
	}
	// Which layers have experts.
	n := a.Layers
	moe := make([]bool, n)
	switch kind {
	case "mixtral", "gpt_oss":
		for i := range moe {
			moe[i] = true
		}
	case "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe":
		first, freq := 0, 1
		r.num("first_k_dense_replace", &first, 0, false)
		if kind != "glm4_moe" {
			r.num("moe_layer_freq", &freq, 1, false)
		} else if step := 1; r.num("decoder_sparse_step", &step, 1, false) && step != 1 {
			// GLM-4.5's configs carry Qwen's decoder_sparse_step (1); Glm4MoeConfig does not read
			// it, so another value says something the model does not do.
			r.fail("decoder_sparse_step", strconv.Itoa(step), "must be 1 for model_type glm4_moe: its experts follow first_k_dense_replace only")
		}
		for i := range moe {
			moe[i] = i >= first && i%freq == 0
		}
	case "qwen2_moe", "qwen3_moe", "qwen3_next":
		step := 1
		r.num("decoder_sparse_step", &step, 1, false)
		only, _ := r.ints("mlp_only_layers")
		for i := range moe {
			moe[i] = (i+1)%step == 0 && !slices.Contains(only, i)
		}
	case "llama4":
		step := 1
		r.num("interleave_moe_layer_step", &step, 1, false)
		if layers, ok := r.ints("moe_layers"); ok {
			for _, i := range layers {
				if i >= n {
					r.fail("moe_layers", strconv.Itoa(i), "must be layers 0 to %d", n-1)
					return
				}
				moe[i] = true
			}
		} else {
			for i := range moe {
				moe[i] = (i+1)%step == 0
			}
		}
	}
	if len(r.errs) > 0 {
		return
	}
	d, every, ok := moeLayout(moe)
	if !ok {
		field := map[string]string{"deepseek_v3": "first_k_dense_replace", "deepseek_v32": "first_k_dense_replace", "kimi_k2": "moe_layer_freq", "glm4_moe": "first_k_dense_replace",
			"qwen2_moe": "mlp_only_layers", "qwen3_moe": "mlp_only_layers", "qwen3_next": "mlp_only_layers", "llama4": "moe_layers"}[kind]
		r.fail(field, string(r.cfg[field]), "the layers with experts are not the model's pattern: some dense layers first, then experts every n-th layer")
		return
	}
	a.DenseLayers = d
	if every > 1 {
		a.MoEEvery = every
	}
	if d > 0 || every > 1 {
		a.DenseFFN = dense
	}
}

// moeLayout expresses which layers have experts as the model's pattern: d dense layers, then
// experts in every n-th layer ((i-d) % n == n-1). ok is false when no such pattern fits (or no
// layer has experts).
func moeLayout(moe []bool) (d, n int, ok bool) {
	var at []int
	for i, m := range moe {
		if m {
			at = append(at, i)
		}
	}
	switch {
	case len(at) == 0:
		return 0, 0, false
	case len(at) == 1:
		d, n = at[0], 1
	default:
		n = at[1] - at[0]
		d = at[0] - (n - 1)
	}
	if d < 0 {
		return 0, 0, false
	}
	for i, m := range moe {
		if m != (i >= d && (i-d)%n == n-1) {
			return 0, 0, false
		}
	}
	return d, n, true
}

// hfLayerKinds maps layer_types' names to the model's.
var hfLayerKinds = map[string]string{
	"full_attention": model.AttnFull, "sliding_attention": model.AttnSliding,
	"chunked_attention": model.AttnChunked, "linear_attention": model.AttnLinear,
}

// readAttention reads the attention: MLA's shape, each layer's kind, the window, linear
// attention's shape and Qwen3-Next's output gate.
func (r *hfReader) readAttention(a *model.Arch) {
	kind := r.kind
	n := a.Layers
	var kinds []string // each layer's kind; nil: every layer full
	switch kind {
	case "deepseek_v3", "deepseek_v32", "kimi_k2":
		m := &a.MLA
		r.num("q_lora_rank", &m.QLoRARank, 0, false) // null: a full query projection (V2-Lite)
		r.num("kv_lora_rank", &m.KVLoRARank, 1, true)
		r.num("qk_nope_head_dim", &m.QKNopeDim, 0, true)
		r.num("qk_rope_head_dim", &m.QKRopeDim, 0, true)
		r.num("v_head_dim", &m.VHeadDim, 1, true)
		a.KVHeads = a.Heads // num_key_value_heads is not used by MLA: each head has its keys
		a.HeadSize = 0
		if kind == "deepseek_v32" {
			// DeepSeek Sparse Attention: a lightning indexer of index_n_heads heads of
			// index_head_dim scores every cached token; MLA attends to the index_topk best.
			x := &a.Indexer
			r.num("index_n_heads", &x.Heads, 1, true)
			r.num("index_head_dim", &x.HeadDim, 1, true)
			r.num("index_topk", &x.TopK, 1, true)
		}
	case "gpt_oss":
		kinds = r.layerTypes(n)
	case "qwen3_next":
		a.AttnGate = true // gated attention: q_proj is 2 × heads × head_dim wide
		l := &a.Linear
		r.num("linear_num_key_heads", &l.KeyHeads, 1, true)
		r.num("linear_num_value_heads", &l.ValueHeads, 1, true)
		r.num("linear_key_head_dim", &l.KeyDim, 1, true)
		r.num("linear_value_head_dim", &l.ValueDim, 1, true)
		r.num("linear_conv_kernel_dim", &l.ConvKernel, 1, true)
		// layer_types, where the config has it, wins over full_attention_interval (as in
		// Qwen3NextConfig).
		interval := 4 // Qwen3NextConfig's default
		r.num("full_attention_interval", &interval, 1, false)
		if kinds = r.layerTypes(n); kinds == nil && len(r.errs) == 0 {
			kinds = make([]string, n)
			for i := range kinds {
				kinds[i] = model.AttnLinear
				if (i+1)%interval == 0 {
					kinds[i] = model.AttnFull
				}
			}
		}
	case "llama4":
		// Layers with RoPE attend within chunks of attention_chunk_size; the NoPE ones (every
		// no_rope_layer_interval-th, or no_rope_layers' 0s) attend to the whole context
		// (Llama4TextConfig's layer_types).
		// layer_types, where the config has it (transformers 4.54 on), wins (Llama4TextConfig).
		rope, ok := r.ints("no_rope_layers")
		if ok && len(rope) > 0 && len(rope) != n {
			r.fail("no_rope_layers", strconv.Itoa(len(rope))+" entries", "must have one 0 or 1 for each of the %d layers", n)
			return
		}
		interval := 4 // Llama4TextConfig's default
		r.num("no_rope_layer_interval", &interval, 1, false)
		if !ok || len(rope) == 0 {
			rope = make([]int, n)
			for i := range rope {
				if (i+1)%interval != 0 {
					rope[i] = 1
				}
			}
		}
		chunk := 0
		r.num("attention_chunk_size", &chunk, 1, false)
		if kinds = r.layerTypes(n); kinds == nil && len(r.errs) == 0 {
			kinds = make([]string, n)
			for i, v := range rope {
				switch {
				case v > 1:
					r.fail("no_rope_layers", strconv.Itoa(v), "must be 0 (no RoPE: full attention) or 1 (RoPE, chunked attention)")
					return
				case v == 1 && chunk > 0:
					kinds[i] = model.AttnChunked
				default:
					kinds[i] = model.AttnFull
				}
			}
		}
		a.SlidingWindow = chunk
	case "gemma3", "gemma3_text":
		// layer_types, where the config has it, wins over sliding_window_pattern (as in
		// Gemma3TextConfig).
		pattern := 6 // Gemma3TextConfig's default: five sliding layers, then a full one
		r.num("sliding_window_pattern", &pattern, 1, false)
		if kinds = r.layerTypes(n); kinds == nil && len(r.errs) == 0 {
			kinds = make([]string, n)
			for i := range kinds {
				kinds[i] = model.AttnSliding
				if (i+1)%pattern == 0 {
					kinds[i] = model.AttnFull
				}
			}
		}
	default:
		kinds = r.layerTypes(n)
	}
	if len(r.errs) > 0 {
		return
	}
	// The window of sliding layers. Mistral's and Mixtral's configs slide every layer when
	// they give one; Qwen's only with use_sliding_window, from max_window_layers on.
	// (max_window_layers matters only with use_sliding_window, which is refused.)
	r.used["sliding_window"], r.used["use_sliding_window"], r.used["max_window_layers"] = true, true, true
	window := 0
	if v, ok := r.cfg["sliding_window"]; ok && hfSet(v) {
		on := true
		if u, ok := r.cfg["use_sliding_window"]; ok {
			on = json.Unmarshal(u, &on) == nil && on
		}
		var w float64
		if json.Unmarshal(v, &w) != nil || w != math.Trunc(w) || w < 1 || w > hfMaxField {
			r.fail("sliding_window", string(v), "must be a whole number from 1 to %d", hfMaxField)
			return
		}
		switch {
		case !on:
		case kind == "qwen2" || kind == "qwen3" || kind == "qwen3_moe" || kind == "qwen2_moe" || kind == "qwen3_next":
			r.fail("use_sliding_window", "true", "Qwen's sliding window from max_window_layers on: not modelled")
			return
		case kinds == nil && (kind == "mistral" || kind == "mixtral"):
			if a.MaxSeq == 0 || int(w) < a.MaxSeq {
				kinds = []string{model.AttnSliding}
			}
			window = int(w)
		default:
			window = int(w)
		}
	} else if kind == "gemma3" || kind == "gemma3_text" {
		window = 4096 // Gemma3TextConfig's default
	}
	if kind != "llama4" {
		a.SlidingWindow = window
	}
	a.LayerTypes = pattern(kinds)
	needsWindow := strings.Contains(a.LayerTypes, model.AttnSliding) || strings.Contains(a.LayerTypes, model.AttnChunked)
	if needsWindow && a.SlidingWindow == 0 {
		field := "sliding_window"
		if kind == "llama4" {
			field = "attention_chunk_size"
		}
		r.fail(field, "", "missing: the config's sliding or chunked layers need it")
	}
	if !needsWindow {
		a.SlidingWindow = 0
	}
}

// layerTypes reads layer_types (one name a layer) into the model's kinds; nil when absent.
func (r *hfReader) layerTypes(n int) []string {
	if !r.has("layer_types") {
		return nil
	}
	var names []string
	if json.Unmarshal(r.cfg["layer_types"], &names) != nil {
		r.fail("layer_types", string(r.cfg["layer_types"]), "must be a list of layer kinds")
		return nil
	}
	if len(names) != n {
		r.fail("layer_types", strconv.Itoa(len(names))+" entries", "must name each of the %d layers (num_hidden_layers)", n)
		return nil
	}
	out := make([]string, n)
	for i, s := range names {
		k, ok := hfLayerKinds[s]
		if !ok {
			r.fail("layer_types", s, "a layer kind the model does not have: %s", strings.Join(sortedKeys(hfLayerKinds), ", "))
			return nil
		}
		out[i] = k
	}
	return out
}

// pattern is each layer's kind as LayerTypes: the shortest repeating prefix, "" for every layer
// full.
func pattern(kinds []string) string {
	for p := 1; p <= len(kinds); p++ {
		repeats := true
		for i := p; i < len(kinds) && repeats; i++ {
			repeats = kinds[i] == kinds[i-p]
		}
		if repeats {
			if p == 1 && kinds[0] == model.AttnFull {
				return ""
			}
			return strings.Join(kinds[:p], ",")
		}
	}
	return ""
}

// readQuantization reads quantization_config into the checkpoint's weight formats: fp8 blocks
// (DeepSeek-V3, Kimi K2) for every layer matrix; mxfp4 (gpt-oss) for the routed experts where
// attention is left in bf16. Any other method is refused by name.
func (r *hfReader) readQuantization(a *model.Arch) {
	if !r.has("quantization_config") {
		return
	}
	var q struct {
		Method  string   `json:"quant_method"`
		Block   []int    `json:"weight_block_size"`
		Exclude []string `json:"modules_to_not_convert"`
	}
	v := r.cfg["quantization_config"]
	if json.Unmarshal(v, &q) != nil {
		r.fail("quantization_config", string(v), "must be an object with quant_method")
		return
	}
	switch {
	case q.Method == "fp8" && len(q.Block) == 2:
		a.Checkpoint.Weights = "fp8"
	case q.Method == "mxfp4":
		attnKept := false
		for _, m := range q.Exclude {
			attnKept = attnKept || strings.HasSuffix(m, "self_attn")
		}
		if !attnKept {
			r.fail("quantization_config.modules_to_not_convert", strings.Join(q.Exclude, ", "),
				"mxfp4 for attention too: the model keeps mxfp4 for the routed experts only (attention in bf16, as gpt-oss)")
			return
		}
		if a.Experts <= 1 {
			r.fail("quantization_config.quant_method", q.Method, "mxfp4 experts need routed experts")
			return
		}
		a.Checkpoint.Experts = "mxfp4"
	default:
		what := q.Method
		if q.Method == "fp8" {
			what = "fp8 without weight_block_size"
		}
		r.fail("quantization_config.quant_method", what, "a checkpoint format the model does not read: fp8 with weight_block_size, or mxfp4 experts; give --weights for others")
	}
}

// visionParams counts a vision encoder's parameters from its vision_config, with the projector
// into the text model of width hidden: SigLIP (Gemma 3) and Llama 4's encoder, whose shapes the
// transformers models fix; any other vision_config is refused by name.
func visionParams(file string, v map[string]json.RawMessage, hidden int) (float64, error) {
	r := &hfReader{file: file, kind: "vision_config", cfg: v, used: map[string]bool{}}
	kind := hfString(v["model_type"])
	var h, layers, inter, patch, image, channels int
	channels = 3
	r.num("hidden_size", &h, 1, true)
	r.num("num_hidden_layers", &layers, 0, true)
	r.num("intermediate_size", &inter, 1, true)
	r.num("patch_size", &patch, 1, true)
	r.num("image_size", &image, 1, true)
	r.num("num_channels", &channels, 1, false)
	if len(r.errs) > 0 {
		return 0, joinErrors(r.errs)
	}
	H, L, I, P := float64(h), float64(layers), float64(inter), float64(patch)
	grid := float64(image / patch)
	// Each encoder layer: q, k, v, o with biases; a two-matrix MLP with biases; two LayerNorms
	// (weight and bias).
	layer := 4*(H*H+H) + 2*H*I + I + H + 4*H
	switch kind {
	case "siglip_vision_model":
		var use bool
		r.boolean("vision_use_head", &use)
		if use {
			return 0, &Error{File: file, Row: -1, Field: "vision_config.vision_use_head", Value: "true", Msg: "SigLIP's pooling head: not counted"}
		}
		// Patch convolution with bias, a position embedding per patch, the post LayerNorm; then
		// Gemma 3's projector (a hidden × text-hidden matrix and a norm).
		enc := float64(channels)*P*P*H + H + grid*grid*H + L*layer + 2*H
		return enc + H*float64(hidden) + H, nil
	case "llama4_vision_model":
		var pin, pout, vout int
		r.num("projector_input_dim", &pin, 1, true)
		r.num("projector_output_dim", &pout, 1, true)
		r.num("vision_output_dim", &vout, 1, true)
		var bias bool
		r.boolean("multi_modal_projector_bias", &bias)
		if len(r.errs) > 0 {
			return 0, joinErrors(r.errs)
		}
		// Class embedding, a position embedding per patch and the class token, the patch
		// projection (no bias), LayerNorms before and after; the pixel-shuffle adapter's two
		// matrices (intermediate × projector_input, projector_input × projector_output); the
		// projector into the text model.
		enc := H + (grid*grid+1)*H + float64(channels)*P*P*H + 4*H + L*layer
		adapter := I*float64(pin) + float64(pin)*float64(pout)
		proj := float64(vout) * float64(hidden)
		if bias {
			proj += float64(hidden)
		}
		return enc + adapter + proj, nil
	}
	return 0, &Error{File: file, Row: -1, Field: "vision_config.model_type", Value: clip(kind),
		Msg: "a vision encoder the model cannot count: siglip_vision_model (Gemma 3) or llama4_vision_model"}
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
