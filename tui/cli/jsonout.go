package cli

import (
	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// jsonReport prepares a report for `report --json`: the contract has "warnings": [], never null.
func jsonReport(r costmodel.Report) costmodel.Report {
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return r
}

// searchCandidate is one element of `search --json`: the report's fields plus the verdict.
type searchCandidate struct {
	costmodel.Report
	Feasible bool   `json:"feasible"`
	Reason   string `json:"reason"`
	// GoodputRate is the highest request rate meeting the SLO (search --objective goodput).
	GoodputRate float64 `json:"goodput_rate,omitempty"`
}

// searchOutput is the `search --json` document: the ranked candidates, the Pareto front of step
// time against memory per GPU (fastest first), and the warnings: the settings that have no
// effect on any layout tried, what --box said about the hardware, typed flags not read.
type searchOutput struct {
	Candidates []searchCandidate `json:"candidates"`
	Pareto     []searchCandidate `json:"pareto"`
	Warnings   []string          `json:"warnings"`
	// Counts: the configurations the space held, evaluated, pruned and simulated.
	Counts costmodel.SearchCounts `json:"counts"`
}

// jsonCandidate is one candidate of s's search. A candidate rejected before evaluation still
// shows its layout.
func jsonCandidate(s model.Scenario, c costmodel.Candidate) searchCandidate {
	r := jsonReport(c.Report)
	if r.Layout.TP == 0 {
		sc := s
		sc.Layout = c.Layout
		r.Layout = costmodel.SummaryOf(c.Layout)
		r.Layout.MicroBatches = sc.MicroBatches()
	}
	return searchCandidate{Report: r, Feasible: c.Feasible, Reason: c.Reason, GoodputRate: c.Goodput}
}

// jsonSearch lists the top feasible candidates (top ≤ 0: all) best first, then every infeasible
// one, and the whole Pareto front.
func jsonSearch(s model.Scenario, res costmodel.SearchResult, top int) searchOutput {
	out := searchOutput{Candidates: []searchCandidate{}, Pareto: []searchCandidate{}, Warnings: append([]string{}, res.Warnings...), Counts: res.Counts}
	shown := 0
	for _, c := range res.Candidates {
		if c.Feasible {
			if top > 0 && shown >= top {
				continue
			}
			shown++
		}
		out.Candidates = append(out.Candidates, jsonCandidate(s, c))
	}
	for _, c := range costmodel.Pareto(res.Candidates) {
		out.Pareto = append(out.Pareto, jsonCandidate(s, c))
	}
	// Feasible first, whatever order Search used for the rest.
	feasible := out.Candidates[:0:0]
	var infeasible []searchCandidate
	for _, c := range out.Candidates {
		if c.Feasible {
			feasible = append(feasible, c)
		} else {
			infeasible = append(infeasible, c)
		}
	}
	out.Candidates = append(feasible, infeasible...)
	return out
}

// reportOutput is the `report --json` document: the report with the figures the text prints
// (static.ReportJSON), and the capacity verdict with --capacity.
type reportOutput struct {
	// Model is what was read: a preset's id or a config.json's, its parameters in all and those a
	// token runs through.
	Model modelOutput `json:"model"`
	static.ReportJSON
	Capacity *capacityOutput `json:"capacity,omitempty"`
	// ToFit is, for a scenario that does not fit, the fastest change that makes it fit
	// (null when none of those tried does); absent when it fits.
	ToFit *costmodel.FitChange `json:"to_fit,omitempty"`
}

// capacityOutput is the capacity verdict: the best layout of the scenario's model in its mode,
// and the largest preset models with a feasible layout in inference and in training (null when
// none fits).
type capacityOutput struct {
	Model string `json:"model"`
	// ModelModified is how the model differs from the preset named Model ("layers 40"), when
	// flags changed its sizes: the verdict is not the preset's.
	ModelModified string           `json:"model_modified,omitempty"`
	Mode          string           `json:"mode"`
	Best          *searchCandidate `json:"best"`
	LargestInfer  *capacityModel   `json:"largest_infer"`
	LargestTrain  *capacityModel   `json:"largest_train"`
	// Verdict says in words whether the model fits on the GPUs alone, only with offload (and
	// what that costs in host memory), or not; BestOnGPUs is the best layout that offloads
	// nothing and LargestTrainOnGPUs the largest model that trains without offload (null when
	// none); HostShort, when nothing fits, the fastest offloaded layout were host memory
	// unlimited (its memory.host is what it would need per GPU).
	Verdict            string           `json:"verdict"`
	BestOnGPUs         *searchCandidate `json:"best_on_gpus"`
	LargestTrainOnGPUs *capacityModel   `json:"largest_train_on_gpus"`
	HostShort          *searchCandidate `json:"host_short,omitempty"`
	// HostMemoryPerGPU is the host memory offload may fill per GPU (its share of the node's),
	// HostMemoryDefault whether that is the default rather than the box's or --host-memory.
	HostMemoryPerGPU  float64 `json:"host_memory_per_gpu_bytes"`
	HostMemoryDefault bool    `json:"host_memory_default"`
	ModelsChecked     int     `json:"models_checked"`
}

// capacityModel is a model that fits and its best layout.
type capacityModel struct {
	Model     string          `json:"model"`
	Params    float64         `json:"params"`
	Candidate searchCandidate `json:"candidate"`
}

func jsonCapacity(s model.Scenario, res costmodel.CapacityResult, checked int) *capacityOutput {
	out := &capacityOutput{Model: s.Arch.ID, ModelModified: s.Arch.Changes, Mode: s.Workload.Mode.String(), ModelsChecked: checked}
	if out.Model == "" {
		out.Model = "custom"
	}
	if res.Best != nil {
		c := jsonCandidate(s, *res.Best)
		out.Best = &c
	}
	side := func(a *model.Arch, c *costmodel.Candidate, mode model.Mode) *capacityModel {
		if a == nil || c == nil {
			return nil
		}
		sc := s
		sc.Arch, sc.Workload.Mode = *a, mode
		return &capacityModel{Model: a.ID, Params: arch.Of(*a).Params(), Candidate: jsonCandidate(sc, *c)}
	}
	out.LargestInfer = side(res.LargestInfer, res.LargestInferLayout, model.Infer)
	out.LargestTrain = side(res.LargestTrain, res.LargestTrainLayout, model.Train)
	out.Verdict = static.CapacityVerdict(res)
	if g := res.OnGPUs(); g != nil {
		c := jsonCandidate(s, *g)
		out.BestOnGPUs = &c
	}
	if res.HostShort != nil {
		c := jsonCandidate(s, *res.HostShort)
		out.HostShort = &c
	}
	ga, gc := res.TrainOnGPUs()
	out.LargestTrainOnGPUs = side(ga, gc, model.Train)
	out.HostMemoryPerGPU, out.HostMemoryDefault = res.HostPerGPU, res.HostDefault
	return out
}

// presetLink is a link with its kind spelled out ("nvlink"), not model.LinkKind's number.
type presetLink struct {
	model.Link
	Kind string `json:"kind"`
}

// presetsOutput is the `presets --json` document.
// modelOutput is report --json's model.
type modelOutput struct {
	ID           string  `json:"id"`
	ModelType    string  `json:"model_type,omitempty"`
	Layers       int     `json:"layers"`
	HeadDim      float64 `json:"head_dim"`
	ParamsTotal  float64 `json:"params_total"`
	ParamsActive float64 `json:"params_active"`
	// LayerKinds is the model's layers by kind (costmodel/arch), in the order they first appear.
	LayerKinds []layerKindOutput `json:"layer_kinds"`
	Experts    int               `json:"experts,omitempty"`
	TopK       int               `json:"top_k,omitempty"`
	SharedFFN  int               `json:"shared_ffn,omitempty"`
	// KVPerToken is the elements one token caches over all layers on one GPU without TP (MLA's
	// latent, a window's and a linear layer's none counted per token).
	KVPerToken float64 `json:"kv_elements_per_token"`
	Source     string  `json:"source,omitempty"`
}

type layerKindOutput struct {
	Attention string `json:"attention"`
	MoE       bool   `json:"moe"`
	Layers    int    `json:"layers"`
}

func jsonModel(a model.Arch) modelOutput {
	m := arch.Of(a)
	out := modelOutput{ID: a.ID, ModelType: a.ModelType, Layers: a.Layers, HeadDim: a.HeadDim(), ParamsTotal: m.Params(),
		ParamsActive: m.ActiveParams(), KVPerToken: m.KVPerToken(1), Source: a.Source}
	if a.Experts > 1 {
		out.Experts, out.TopK, out.SharedFFN = a.Experts, a.ActiveExperts(), a.SharedFFN
	}
	all := m.All()
	for k, sh := range m.Shapes {
		out.LayerKinds = append(out.LayerKinds, layerKindOutput{Attention: sh.Kind.Attn, MoE: sh.Kind.MoE, Layers: all[k]})
	}
	return out
}

// presetModel is a preset model in presets --json, with its parameter counts.
type presetModel struct {
	model.Arch
	ParamsTotal  float64 `json:"params_total"`
	ParamsActive float64 `json:"params_active"`
}

type presetsOutput struct {
	Models []presetModel `json:"models"`
	GPUs   []model.GPU   `json:"gpus"`
	Links  []presetLink  `json:"links"`
}

func jsonPresets(p *assets.Presets) presetsOutput {
	out := presetsOutput{Models: make([]presetModel, len(p.Models)), GPUs: p.GPUs, Links: make([]presetLink, len(p.Links))}
	for i, a := range p.Models {
		out.Models[i] = presetModel{Arch: a, ParamsTotal: arch.Of(a).Params(), ParamsActive: arch.Of(a).ActiveParams()}
	}
	if out.GPUs == nil {
		out.GPUs = []model.GPU{}
	}
	for i, l := range p.Links {
		out.Links[i] = presetLink{Link: l, Kind: l.Kind.String()}
	}
	return out
}

// commOutput is comm --json: the contract of docs/architecture.md.
type commOutput struct {
	Op    string `json:"op"`
	GPUs  int    `json:"gpus"`
	Nodes int    `json:"nodes"`
	// ForcedAlgo and ForcedProto are --algo and --proto when given (not auto).
	ForcedAlgo  string    `json:"forced_algo,omitempty"`
	ForcedProto string    `json:"forced_proto,omitempty"`
	Rows        []commRow `json:"rows"`
}

type commRow struct {
	Bytes     float64 `json:"bytes"`
	TimeS     float64 `json:"time_s"`
	AlgBWGBs  float64 `json:"algbw_gbs"`
	BusBWGBs  float64 `json:"busbw_gbs"`
	Algorithm string  `json:"algorithm"`
	Protocol  string  `json:"protocol"`
	// Fallback is why the forced algorithm or protocol did not run at this size; algorithm and
	// protocol then name what ran.
	Fallback string `json:"fallback,omitempty"`
}

func jsonComm(op collective.Op, c model.Cluster, algo collective.Algo, proto collective.Proto, rows []collective.Point) commOutput {
	out := commOutput{Op: op.String(), GPUs: c.GPUs, Nodes: c.Nodes(), Rows: []commRow{}}
	if algo != collective.Auto {
		out.ForcedAlgo = algo.String()
	}
	if proto != collective.AnyProto {
		out.ForcedProto = proto.String()
	}
	for _, r := range rows {
		out.Rows = append(out.Rows, commRow{Bytes: r.Bytes, TimeS: r.Seconds, AlgBWGBs: r.AlgBW / 1e9, BusBWGBs: r.BusBW / 1e9,
			Algorithm: r.Algo.String(), Protocol: r.Proto.String(), Fallback: r.Fallback})
	}
	return out
}
