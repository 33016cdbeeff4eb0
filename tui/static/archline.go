package static

import (
	"fmt"
	"slices"
	"strings"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// ArchLine says what a model's layers are, for a model that is more than one dense shape
// (experts, MLA, windows, linear layers; "" for a dense one-shape model): "architecture: 3 dense
// + 58 MoE layers (256 experts of 2048, top-8, + 1 shared of 2048) · MLA (latent 512 + rope 64
// cached a token) · 671.0B params, 37.6B active".
func ArchLine(a model.Arch) string {
	m := arch.Of(a)
	if m.Uniform() && m.Shapes[0].Kind == (arch.Kind{Attn: model.AttnFull}) {
		return ""
	}
	var parts []string
	all := m.All()
	var dense, moe int
	attn := map[string]int{}
	state := 0.0 // linear layers' state a sequence, elements
	var order []string
	for k, sh := range m.Shapes {
		if sh.Kind.MoE {
			moe += all[k]
		} else {
			dense += all[k]
		}
		if attn[sh.Kind.Attn] == 0 {
			order = append(order, sh.Kind.Attn)
		}
		attn[sh.Kind.Attn] += all[k]
		state += float64(all[k]) * sh.State
	}
	if moe > 0 {
		layers := fmt.Sprintf("%d MoE layers", moe)
		if dense > 0 {
			layers = fmt.Sprintf("%d dense + %s", dense, layers)
		}
		e := fmt.Sprintf("%d experts of %d, top-%d", a.ExpertCount(), a.FFN, a.ActiveExperts())
		if a.SharedFFN > 0 {
			n := max(a.SharedExperts, 1)
			e += fmt.Sprintf(", + %d shared of %d", n, a.SharedFFN/n)
		}
		parts = append(parts, layers+" ("+e+")")
	}
	var kinds []string
	for _, k := range order {
		n := attn[k]
		switch k {
		case arch.MLA:
			kinds = append(kinds, fmt.Sprintf("MLA (latent %d + rope %d cached a token)", a.MLA.KVLoRARank, a.MLA.QKRopeDim))
		case model.AttnSliding:
			kinds = append(kinds, fmt.Sprintf("%d sliding-window (%d tokens)", n, a.SlidingWindow))
		case model.AttnChunked:
			kinds = append(kinds, fmt.Sprintf("%d chunked (%d tokens)", n, a.SlidingWindow))
		case model.AttnLinear:
			kinds = append(kinds, fmt.Sprintf("%d linear (a %s state a sequence in 16 bits)", n, Bytes(2*state)))
		default:
			kinds = append(kinds, fmt.Sprintf("%d full", n))
		}
	}
	if len(kinds) > 1 || order[0] != model.AttnFull {
		parts = append(parts, "attention "+strings.Join(kinds, " + "))
	}
	active := fmt.Sprintf("%.1fB params, %.1fB active", m.Params()/1e9, m.ActiveParams()/1e9)
	if !a.TiedEmbeddings && m.ActiveParams() < m.Params() {
		// Makers print the active count both ways (DeepSeek and OpenAI leave the input
		// embedding, a lookup, out; Qwen and Meta keep it): say both.
		active += fmt.Sprintf(" (%.1fB without the input embedding)", (m.ActiveParams()-m.EmbeddingParams())/1e9)
	}
	parts = append(parts, active)
	return "architecture: " + strings.Join(parts, " · ")
}

// ArchRows is a model's architecture in the parameter panel's few cells, "" where a part does
// not apply: the routed experts and how many a token runs ("top-8 of 256"), the shared experts
// ("1"), the parameters a token runs through ("37.6B of 671B") and the attention kind ("MLA
// 512+64", "sliding+full", "GQA 8 KV"). All are "" for a dense one-shape model (ArchLine's "").
func ArchRows(a model.Arch) (experts, shared, active, attention string) {
	if ArchLine(a) == "" {
		return "", "", "", ""
	}
	m := arch.Of(a)
	if a.ExpertCount() > 1 {
		experts = fmt.Sprintf("top-%d of %d", a.ActiveExperts(), a.ExpertCount())
		if a.SharedFFN > 0 {
			shared = fmt.Sprint(max(a.SharedExperts, 1))
		}
	}
	active = fmt.Sprintf("%s of %s", shortParams(m.ActiveParams()), shortParams(m.Params()))
	var kinds []string
	for _, sh := range m.Shapes {
		k := sh.Kind.Attn
		if k == model.AttnFull {
			k = "full"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	switch {
	case len(kinds) == 1 && kinds[0] == arch.MLA:
		attention = fmt.Sprintf("MLA %d+%d", a.MLA.KVLoRARank, a.MLA.QKRopeDim)
	case len(kinds) == 1 && kinds[0] == "full":
		switch kv := a.KVHeads; {
		case kv == a.Heads:
			attention = "MHA"
		case kv == 1:
			attention = "MQA"
		default:
			attention = fmt.Sprintf("GQA %d KV", kv)
		}
	default:
		for i, k := range kinds {
			if k == arch.MLA {
				kinds[i] = "MLA"
			}
		}
		attention = strings.Join(kinds, "+")
	}
	return experts, shared, active, attention
}

// shortParams is a parameter count in three figures or fewer: "671B", "37.6B", "3.3B", "950M".
func shortParams(p float64) string {
	switch {
	case p >= 100e9:
		return fmt.Sprintf("%.0fB", p/1e9)
	case p >= 1e9:
		return fmt.Sprintf("%.1fB", p/1e9)
	}
	return fmt.Sprintf("%.0fM", p/1e6)
}
