package learn

import (
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// ExpertFacts explain a MoE model's experts across GPUs: how many each GPU holds under today's
// expert parallelism and under EP over a node, their bytes, and the all-to-all that carries
// each token to its experts and back.
type ExpertFacts struct {
	On bool // the model has routed experts
	// Experts routed experts of FFN a MoE layer, TopK of them a token, Shared experts every
	// token runs through (SharedFFN wide in all); MoELayers of the Layers have experts.
	Experts, TopK, FFN, Shared, SharedFFN, MoELayers, Layers int
	// Total and Active parameters of the model ("671.0B").
	Total, Active string
	// Today: EP (1: none), PerGPU experts of each MoE layer on a GPU, each cut in T by TP; their
	// weights Routed on the fullest GPU, in Format.
	EP, PerGPU int
	Routed     string
	Format     string
	// Under EP over a node's GPUs (NodeEP, the most of them that divide the experts, with
	// attention data-parallel on each): NodePerGPU experts a layer a GPU, NodeRouted bytes.
	NodeEP, NodePerGPU int
	NodeRouted         string
	// A token's trip: its hidden vector (Hidden elements of EB bytes, TokenBytes) to each of
	// its TopK experts (Dispatch = TopK × TokenBytes) and back (the combine, as much).
	Hidden     int
	EB         string
	TokenBytes string
	Dispatch   string
	// The engine's all-to-all today (EP > 1): one call's buffer on a GPU, its time, the calls,
	// and the share of the step the all-to-alls take.
	A2A, A2ATime, A2ATotal, A2AShare, A2ALink string
	A2ACalls                                  string
	A2AOn                                     bool
}

// MLAFacts explain multi-head latent attention's cache against the multi-head one of the same
// heads.
type MLAFacts struct {
	On bool // the model's attention is MLA
	// Latent + Rope = PerToken elements cached a token and layer.
	Latent, Rope, PerToken int
	// MHA of the same Heads would cache each head's key (QK wide) and value (V wide):
	// MHAPerToken = Heads × (QK + V) elements; Ratio = MHAPerToken / PerToken ("71").
	Heads, QK, V, MHAPerToken int
	Ratio                     string
	// GQAHeads is how many KV heads of a grouped-query model of the same head size the latent
	// is worth: PerToken / (2 × QK) ("1.5").
	GQAHeads string
	// Over Layers MLA layers at KVB bytes an element: a token's cache (Bytes) against MHA's.
	Layers           int
	KVB              string
	Bytes, MHABytes  string
	T                int // TP: the latent is whole on every rank, where MHA's heads divide
	KV, KVTokens     string
	MHATokens        string // the tokens today's KV cache would hold as MHA
	Infer            bool
	KVPerLayerTokens string
	// For a model without MLA: its own K and V elements a token and layer.
	Own int
}

// expertFacts reads the experts' numbers of the scenario and its report.
func expertFacts(s model.Scenario, r costmodel.Report) ExpertFacts {
	a := s.Arch
	if a.ExpertCount() <= 1 {
		return ExpertFacts{}
	}
	m := arch.Of(a)
	f := ExpertFacts{
		On: true, Experts: a.ExpertCount(), TopK: a.ActiveExperts(), FFN: a.FFN, SharedFFN: a.SharedFFN,
		Layers: a.Layers, Total: strconv.FormatFloat(m.Params()/1e9, 'f', 1, 64) + "B",
		Active: strconv.FormatFloat(m.ActiveParams()/1e9, 'f', 1, 64) + "B",
		EP:     s.Layout.EPSize(), Hidden: a.Hidden,
	}
	if a.SharedFFN > 0 {
		f.Shared = max(a.SharedExperts, 1)
	}
	for i := range a.Layers {
		if a.MoELayer(i) {
			f.MoELayers++
		}
	}
	f.PerGPU = f.Experts / f.EP
	f.NodeEP = 1
	for e := range max(s.Cluster.NodeSize(), 1) + 1 {
		if e > 0 && f.Experts%e == 0 {
			f.NodeEP = e
		}
	}
	f.NodePerGPU = f.Experts / f.NodeEP
	// The routed experts' bytes on the fullest GPU: their parameters there times their format.
	eb := s.Workload.Precision.Bytes()
	f.Format = s.Workload.Precision.String()
	if s.Workload.Mode == model.Infer {
		_, e := s.ServeWeights()
		eb = s.Workload.FormatBytes(e)
		if e != "" {
			f.Format = e
		}
	}
	if st := r.Detail.Stages; r.Memory.Stage >= 0 && r.Memory.Stage < len(st) {
		routed := st[r.Memory.Stage].Parts.Routed
		f.Routed = Bytes(routed * eb)
		f.NodeRouted = Bytes(routed * float64(f.EP) / float64(f.NodeEP) * eb)
	}
	ab := s.Workload.Precision.Bytes()
	f.EB = strconv.FormatFloat(ab, 'f', -1, 64)
	f.TokenBytes = DecBytes(float64(a.Hidden) * ab)
	f.Dispatch = DecBytes(float64(f.TopK*a.Hidden) * ab)
	for _, u := range r.Collectives {
		if u.Comm == "ep" {
			f.A2AOn = true
			f.A2A, f.A2ATime, f.A2ATotal, f.A2ALink = Bytes(u.Bytes), Seconds(u.Seconds), Seconds(u.Total()), u.Link
			f.A2ACalls = Count(u.Calls)
			break
		}
	}
	f.A2AShare = Percent(ratio(r.Breakdown.EPComm, r.StepTime))
	return f
}

// mlaFacts reads MLA's cache against MHA's for the scenario.
func mlaFacts(s model.Scenario, r costmodel.Report) MLAFacts {
	a := s.Arch
	m := arch.Of(a)
	f := MLAFacts{T: s.Layout.TP, Infer: s.Workload.Mode == model.Infer}
	kvb := s.Workload.KVBytes()
	f.KVB = strconv.FormatFloat(kvb, 'f', -1, 64)
	var mla *arch.Shape
	for i := range m.Shapes {
		if m.Shapes[i].Kind.Attn == arch.MLA {
			mla = &m.Shapes[i]
			break
		}
	}
	if mla == nil {
		f.Own = int(m.Shapes[0].KVCache)
		return f
	}
	f.On = true
	f.Latent, f.Rope, f.PerToken = a.MLA.KVLoRARank, a.MLA.QKRopeDim, int(mla.KVCache)
	f.Heads, f.QK, f.V = a.Heads, a.MLA.QKNopeDim+a.MLA.QKRopeDim, a.MLA.VHeadDim
	f.MHAPerToken = f.Heads * (f.QK + f.V)
	f.Ratio = strconv.FormatFloat(float64(f.MHAPerToken)/float64(max(f.PerToken, 1)), 'f', 0, 64)
	f.GQAHeads = strconv.FormatFloat(float64(f.PerToken)/float64(2*max(f.QK, 1)), 'f', -1, 64)
	for _, k := range m.Of {
		if m.Shapes[k].Kind.Attn == arch.MLA {
			f.Layers++
		}
	}
	f.Bytes = Bytes(float64(f.PerToken*f.Layers) * kvb)
	f.MHABytes = Bytes(float64(f.MHAPerToken*f.Layers) * kvb)
	f.KV = Bytes(r.Memory.KVCache)
	if inf := r.Inference; inf != nil {
		f.KVTokens = Count(inf.KVCacheTokens)
		f.MHATokens = Count(inf.KVCacheTokens * float64(f.PerToken) / float64(f.MHAPerToken) * float64(max(f.T, 1)))
	}
	return f
}
