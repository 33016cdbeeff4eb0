// Package arch is the layer kinds' room: it turns a model.Arch into the kinds of layer it is made
// of (attention: multi-head/grouped-query over the whole context, sliding-window, chunked,
// linear, multi-head latent; MLP: dense or mixture of experts with shared experts) and gives,
// per kind, the parameters, the FLOPs and bytes the engine's kernels need and the KV cache or
// state a sequence keeps. The engine (costmodel) times the kernels; this package only counts.
//
// Sources for the shapes: DeepSeek-V2 §2.1 and DeepSeek-V3's config.json (MLA and its absorbed
// form, fine-grained and shared experts, dense first layers), Qwen3-Next's config.json and the
// Gated DeltaNet paper (linear attention's state), Gemma 3's and gpt-oss's configs (sliding
// windows), Llama 4's (chunked attention, MoE every other layer). Tags in docs/references.md.
package arch

import (
	"math"

	"github.com/splitscope/splitscope/model"
)

// MLA is the attention kind of multi-head latent attention layers.
const MLA = "mla"

// Kind is one kind of layer: its attention and whether its MLP has routed experts.
type Kind struct {
	Attn string // model.AttnFull, AttnSliding, AttnChunked, AttnLinear or MLA
	MoE  bool
}

// Shape is one layer kind, whole (before tensor parallelism divides it), in elements and FLOPs
// per token: what the engine's kernels read, write and compute.
type Shape struct {
	Kind Kind
	// QKNorm says the layer norms each head's queries and keys (model.Arch.QKNorm).
	QKNorm bool

	// Attention projections: weights tensor parallelism splits (by heads) and weights each
	// TP rank holds whole (MLA's down-projections to its latents); ProjIO the activation
	// elements per token the split projections write and the output projection reads.
	ProjSplit, ProjRep, ProjIO float64

	// The attention core in training and prefill: FLOPs per (query, key) pair, K and V elements
	// read per context token, query/output elements per token; DecPair and DecKVRead in decode
	// (MLA's absorbed form attends over the latent itself).
	Pair, KVRead, CoreIO float64
	DecPair, DecKVRead   float64
	// Window bounds the keys a query attends to (sliding and chunked layers); 0: the context.
	// TopKeys bounds them too (sparse indexed attention: the indexer's top-k), and IdxPair is
	// the indexer's FLOPs per (query, key) over the whole context, IdxCache its key elements
	// cached per token (whole on every TP rank).
	Window            int
	TopKeys           int
	IdxPair, IdxCache float64

	// Cache: elements kept per token (K and V, or MLA's latent and rotary key) and how many
	// ways tensor parallelism can divide them (the KV heads; 1 for MLA's latent, which every
	// TP rank keeps whole). Linear layers keep State elements per sequence instead, divided by
	// TP over StateSplit heads, and spend StateFLOPs per token on it.
	KVCache    float64
	KVSplit    int
	State      float64
	StateSplit int
	StateFLOPs float64

	// MLP: Mats matrices (3 gated, 2 not) of width FFN for a dense layer; a MoE layer routes
	// each token to TopK of Experts experts of width FFN and runs every token through shared
	// experts of summed width Shared.
	Mats          float64
	FFN, Shared   float64
	Experts, TopK int

	// Parameters: attention (projections and their norms), MLP (all experts, router, shared),
	// the routed experts' matrices (what expert parallelism divides), what a token runs
	// through, and the layer's two norms.
	AttnParams, MLPParams, ExpertParams, ActiveParams float64
}

// ActiveFFN is the MLP width a token runs through: FFN for a dense layer, TopK × FFN + Shared
// for a MoE layer.
func (s Shape) ActiveFFN() float64 {
	if !s.Kind.MoE {
		return s.FFN
	}
	return float64(s.TopK)*s.FFN + s.Shared
}

// Params is the layer's parameters.
func (s Shape) Params() float64 { return s.AttnParams + s.MLPParams }

// Model is an Arch as its layer kinds: Kinds in the order they first appear, Of[i] the kind of
// layer i.
type Model struct {
	Arch   model.Arch
	Shapes []Shape
	Of     []uint8
	all    [MaxKinds]int // layers of each kind (All), counted as Of is filled
}

// MaxKinds bounds the kinds a model can have (attention kinds × dense or MoE).
const MaxKinds = 10

// Of compiles a into its layer kinds. It never fails: an Arch that validation would refuse
// still gives finite figures (zero sizes count as zero).
func Of(a model.Arch) Model { return OfInto(a, nil, nil) }

// OfInto is Of with its kinds and layers in the backing arrays of shapes and of (their
// contents overwritten) where they are large enough: a pooled plan compiles every evaluation's
// model into the arrays its last one left.
func OfInto(a model.Arch, shapes []Shape, of []uint8) Model {
	m := Model{Arch: a, Shapes: shapes[:0]}
	n := max(a.Layers, 0)
	if of != nil && cap(of) >= n {
		m.Of = of[:n]
	} else {
		m.Of = make([]uint8, n)
	}
	// The pattern is split once and the Arch (a large struct) is not copied a layer: Of runs on
	// every Evaluate that is not memoised (96 layers of GPT-3 took a fifth of one before).
	pat := a.LayerPattern()
	mla := a.MLA.On()
	if n > 0 && len(pat) == 0 && a.Experts <= 1 {
		// Every layer the one kind (MoELayer is false throughout): what the loop below finds,
		// without asking each layer.
		k := Kind{Attn: model.AttnFull}
		if mla {
			k.Attn = MLA
		}
		m.Shapes = append(m.Shapes, shape(a, k))
		clear(m.Of)
		m.all[0] = n
		return m
	}
	last, lastJ := Kind{}, -1
	for i := range n {
		k := Kind{Attn: model.AttnFull, MoE: a.MoELayer(i)}
		if len(pat) > 0 {
			k.Attn = pat[i%len(pat)]
		}
		if mla && k.Attn == model.AttnFull {
			k.Attn = MLA
		}
		j := lastJ
		if j < 0 || k != last {
			j = m.index(k)
		}
		if j < 0 {
			if len(m.Shapes) >= MaxKinds {
				j = 0 // unreachable for a validated Arch: the kinds are few
			} else {
				m.Shapes = append(m.Shapes, shape(a, k))
				j = len(m.Shapes) - 1
			}
		}
		m.Of[i] = uint8(j)
		m.all[j]++
		last, lastJ = k, j
	}
	if len(m.Shapes) == 0 {
		m.Shapes = append(m.Shapes, shape(a, Kind{Attn: model.AttnFull}))
	}
	return m
}

func (m *Model) index(k Kind) int {
	for j, s := range m.Shapes {
		if s.Kind == k {
			return j
		}
	}
	return -1
}

// Uniform says every layer is one kind (every model before 2025).
func (m *Model) Uniform() bool { return len(m.Shapes) == 1 }

// Counts is how many layers of each kind lie in [from, to), into dst (grown as needed).
func (m *Model) Counts(from, to int, dst []int) []int {
	if cap(dst) >= len(m.Shapes) {
		dst = dst[:len(m.Shapes)]
		clear(dst)
	} else {
		dst = make([]int, len(m.Shapes))
	}
	from, to = max(from, 0), min(to, len(m.Of))
	for i := from; i < to; i++ {
		dst[m.Of[i]]++
	}
	return dst
}

// Sum is Σ counts[k] · f(shape k).
func (m *Model) Sum(counts []int, f func(Shape) float64) float64 {
	s := 0.0
	for k, n := range counts {
		if n > 0 && k < len(m.Shapes) {
			s += float64(n) * f(m.Shapes[k])
		}
	}
	return s
}

// All is the count of every kind over the whole model.
func (m *Model) All() []int {
	if len(m.Shapes) > MaxKinds { // cannot happen: OfInto keeps to MaxKinds
		return m.Counts(0, len(m.Of), nil)
	}
	return m.all[:len(m.Shapes):len(m.Shapes)]
}

// LayerParams is every layer's parameters, summed.
func (m Model) LayerParams() float64 { return m.Sum(m.All(), Shape.Params) }

// EmbeddingParams is the input embedding table.
func (m Model) EmbeddingParams() float64 {
	return float64(m.Arch.Vocab) * float64(m.Arch.Hidden)
}

// OutputParams is the output projection (zero when tied to the embedding) and the final norm.
func (m Model) OutputParams() float64 {
	a := m.Arch
	p := float64(a.Hidden)
	if !a.TiedEmbeddings {
		p += float64(a.Vocab) * float64(a.Hidden)
	}
	return p
}

// Params is the model's parameters as its makers count them: the layers, the embedding, the
// output and what lies outside the decoder (OtherParams), without multi-token prediction
// layers (MTPParams).
func (m Model) Params() float64 {
	return m.LayerParams() + m.EmbeddingParams() + m.OutputParams() + max(m.Arch.OtherParams, 0)
}

// ActiveParams is the parameters a text token runs through: Params less the routed experts it
// does not run through, the embedding and output counted whole. OtherParams (a vision encoder)
// is not counted: it runs on an image, not on each token, and the makers' active counts leave
// it out (Llama 4's 17B active of 109B: 17.2B with the embeddings, 18.0B with its 0.87B
// encoder).
func (m Model) ActiveParams() float64 {
	return m.Sum(m.All(), func(s Shape) float64 { return s.AttnParams + s.ActiveParams }) +
		m.EmbeddingParams() + m.OutputParams()
}

// MTPParams is the multi-token prediction layers' parameters: each a layer of the model's
// last kind, an eh-projection of 2h × h and two norms (DeepSeek-V3 §2.2); the embedding and
// output it shares are not counted again.
func (m Model) MTPParams() float64 {
	if m.Arch.MTPLayers <= 0 {
		return 0
	}
	h := float64(m.Arch.Hidden)
	last := m.Shapes[len(m.Shapes)-1]
	if len(m.Of) > 0 {
		last = m.Shapes[m.Of[len(m.Of)-1]]
	}
	return float64(m.Arch.MTPLayers) * (last.Params() + 2*h*h + 2*h)
}

// ExpertParams is the routed experts' matrices of all layers: what expert parallelism divides.
func (m Model) ExpertParams() float64 {
	return m.Sum(m.All(), func(s Shape) float64 { return s.ExpertParams })
}

// KVPerToken is the cache elements one token keeps over all layers on one GPU of a TP group
// of t (layers with a window counted as if the context were within it; linear layers none).
func (m Model) KVPerToken(t int) float64 {
	return m.Sum(m.All(), func(s Shape) float64 { return s.KVCacheOnGPU(t) })
}

// KVCacheOnGPU is the cache elements one token keeps in this layer on one GPU of a TP group
// of t: KV heads split over TP and replicated once TP exceeds them; MLA's latent whole.
func (s Shape) KVCacheOnGPU(t int) float64 {
	if s.KVCache <= 0 {
		return 0
	}
	return s.KVCache / float64(max(min(t, s.KVSplit), 1))
}

// StateOnGPU is a linear layer's state elements per sequence on one GPU of a TP group of t.
func (s Shape) StateOnGPU(t int) float64 {
	if s.State <= 0 {
		return 0
	}
	return s.State / float64(max(min(t, s.StateSplit), 1))
}

// Keys is how many keys a query at context ctx attends to in this layer: ctx, or the window, or
// the indexer's top-k.
func (s Shape) Keys(ctx float64) float64 {
	if s.Kind.Attn == model.AttnLinear {
		return 0
	}
	if s.Window > 0 {
		ctx = math.Min(ctx, float64(s.Window))
	}
	if s.TopKeys > 0 {
		ctx = math.Min(ctx, float64(s.TopKeys))
	}
	return ctx
}

// shape counts one kind of layer of a.
func shape(a model.Arch, k Kind) Shape {
	h := float64(a.Hidden)
	heads := float64(a.Heads)
	s := Shape{Kind: k, Mats: a.MLPMatrices(), Window: 0}
	switch k.Attn {
	case MLA:
		m := a.MLA
		qk := float64(m.QKNopeDim + m.QKRopeDim)
		v := float64(m.VHeadDim)
		lat, rope := float64(m.KVLoRARank), float64(m.QKRopeDim)
		// Down-projections (whole on each TP rank): the query's to q_lora_rank with its norm,
		// the latent's to kv_lora_rank + the shared rotary key with its norm.
		s.ProjRep = h*(lat+rope) + lat
		var qUp float64
		if m.QLoRARank > 0 {
			qr := float64(m.QLoRARank)
			s.ProjRep += h*qr + qr
			qUp = qr * heads * qk
		} else {
			qUp = h * heads * qk
		}
		// Up-projections and output, split by heads: queries, keys' and values' from the
		// latent, the output from heads × v_head_dim.
		s.ProjSplit = qUp + lat*heads*(float64(m.QKNopeDim)+v) + heads*v*h
		s.ProjIO = heads*qk + 2*heads*qk + heads*v + heads*v // q, k, v written; o read
		// Training and prefill attend with keys and values materialised per head; decode in the
		// absorbed form scores the latent and rotary key (lat + rope) and sums the latent (lat)
		// per head, reading one latent per token (DeepSeek-V2 §2.1.3).
		s.Pair = 2*heads*qk + 2*heads*v
		s.KVRead = heads*qk + heads*v
		s.CoreIO = heads*qk + heads*v
		s.DecPair = 2*heads*(lat+rope) + 2*heads*lat
		s.DecKVRead = lat + rope
		s.KVCache, s.KVSplit = lat+rope, 1
		s.AttnParams = s.ProjRep + s.ProjSplit
	case model.AttnLinear:
		l := a.Linear
		kh, vh := float64(l.KeyHeads), float64(l.ValueHeads)
		kd, vd := float64(l.KeyDim), float64(l.ValueDim)
		qkv := 2*kh*kd + vh*vd
		// Gated DeltaNet as Qwen3-Next's config names it: q, k, v and the output gate z from h
		// (in_proj_qkvz), the decay and update rates per value head (in_proj_ba), a causal
		// convolution over q, k, v, per-head decay and bias, a norm, the output projection.
		s.ProjSplit = h*(qkv+vh*vd) + h*2*vh + vh*vd*h
		s.ProjIO = qkv + vh*vd + 2*vh + vh*vd
		conv := qkv*float64(max(l.ConvKernel, 0)) + 2*vh + vd
		s.AttnParams = s.ProjSplit + conv
		s.State, s.StateSplit = vh*kd*vd+qkv*float64(max(l.ConvKernel-1, 0)), max(int(vh), 1)
		// Per token and value head: the delta-rule update of the d_k × d_v state (decay, kᵀS,
		// the rank-one correction: ≈ 6 d_k d_v) and the readout Sq (2 d_k d_v).
		s.StateFLOPs = 8 * vh * kd * vd
		s.CoreIO = qkv + vh*vd
	default: // full, sliding, chunked: multi-head / grouped-query attention
		q, kv := a.QWidth(), a.KVWidth()
		gate := 0.0
		if a.AttnGate {
			gate = q // Qwen3-Next's gated attention: a second query-wide projection
		}
		s.ProjSplit = h*(q+gate+2*kv) + q*h
		s.ProjIO = q + gate + 2*kv + q
		s.Pair = 4 * q
		s.KVRead = 2 * kv
		s.CoreIO = 2 * q
		s.DecPair, s.DecKVRead = s.Pair, s.KVRead
		s.KVCache, s.KVSplit = 2*kv, max(a.KVHeads, 1)
		s.AttnParams = s.ProjSplit
		if k.Attn == model.AttnSliding || k.Attn == model.AttnChunked {
			s.Window = max(a.SlidingWindow, 0)
		}
	}
	if s.DecPair == 0 && k.Attn != model.AttnLinear {
		s.DecPair, s.DecKVRead = s.Pair, s.KVRead
	}
	if x := a.Indexer; x.On() && k.Attn != model.AttnLinear && s.Window == 0 {
		// DeepSeek-V3.2's lightning indexer: queries of Heads × HeadDim from the query latent
		// (or h), one key of HeadDim a token from h, a weight per head; it scores every cached
		// token (2·Heads·HeadDim FLOPs a pair, run in FP8 at twice the 16-bit rate: counted as
		// Heads·HeadDim) and the attention reads the TopK best [DSV32].
		hd, xh := float64(x.HeadDim), float64(x.Heads)
		qIn := h
		if a.MLA.QLoRARank > 0 {
			qIn = float64(a.MLA.QLoRARank)
		}
		s.TopKeys = x.TopK
		s.IdxPair = xh * hd
		s.IdxCache = hd
		s.ProjRep += qIn*xh*hd + h*hd + h*xh + 2*hd // wq, wk, the head weights, the key norm
		s.AttnParams += qIn*xh*hd + h*hd + h*xh + 2*hd
		s.KVCache += hd
	}

	if !k.MoE {
		s.FFN = float64(a.FFN)
		if a.Experts > 1 && a.DenseFFN > 0 {
			s.FFN = float64(a.DenseFFN) // a dense layer of a MoE model
		}
		s.MLPParams = s.Mats * h * s.FFN
		s.ActiveParams = s.MLPParams
	} else {
		s.FFN, s.Shared = float64(a.FFN), float64(max(a.SharedFFN, 0))
		s.Experts, s.TopK = a.ExpertCount(), a.ActiveExperts()
		one := s.Mats * h * s.FFN
		s.ExpertParams = one * float64(s.Experts)
		router := h * float64(s.Experts)
		shared := s.Mats * h * s.Shared
		s.MLPParams = s.ExpertParams + router + shared
		s.ActiveParams = one*float64(s.TopK) + router + shared
	}
	// The layer's two norms (the input's and the MLP's).
	s.AttnParams += 2 * h
	if a.QKNorm && k.Attn != MLA && k.Attn != model.AttnLinear {
		s.QKNorm = true
		s.AttnParams += 2 * float64(a.HeadDim()) // q_norm and k_norm, one head's width each
	}
	return s
}
