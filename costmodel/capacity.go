package costmodel

import (
	"sort"

	"github.com/splitscope/splitscope/model"
)

// CapacityResult answers "what fits on this hardware": the best layout for the scenario's model,
// and the largest of the given models (by parameters) that fits for inference and for training
// (any layout Search finds).
type CapacityResult struct {
	// Best is the best feasible layout for base's model and mode by the objective; nil if none.
	Best *Candidate
	// LargestInfer is the largest model with a feasible inference layout, LargestInferLayout
	// the best such layout; both nil when no model fits.
	LargestInfer       *model.Arch
	LargestInferLayout *Candidate
	// LargestTrain and LargestTrainLayout are the same for training.
	LargestTrain       *model.Arch
	LargestTrainLayout *Candidate
}

// Capacity searches base's hardware for the best layout of base's model in base's mode, and for
// the largest of models that has a feasible layout in inference and in training. The inference
// and training checks keep base's other settings (cluster, precision, sequence, batch, requests;
// recompute, ZeRO and serial DP in training) and switch only the model and the mode. Models are tried largest first and
// the search stops at the first that fits, so a box on which everything fits costs one Search
// per mode. A model Search rejects outright (an invalid scenario) counts as not fitting.
func Capacity(base model.Scenario, models []model.Arch, opt SearchOptions) CapacityResult {
	var out CapacityResult
	out.Best = bestLayout(base, opt)

	order := make([]model.Arch, len(models))
	copy(order, models)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Params() > order[j].Params() })

	largest := func(mode model.Mode) (*model.Arch, *Candidate) {
		for i := range order {
			s := base
			s.Arch = order[i]
			s.Workload.Mode = mode
			if mode == model.Infer {
				// Serving has no backward pass, gradients or optimizer state: training's
				// recomputation, ZeRO, serial DP, TP overlap and offload change nothing there
				// but the warnings.
				s.Layout.Recompute, s.Layout.ZeRO, s.Layout.SerialDP = model.RecomputeNone, 0, false
				s.Layout.TPOverlap, s.Layout.Offload = model.TPOverlapNone, model.OffloadNone
			}
			var c *Candidate
			if s.Arch == base.Arch && mode == base.Workload.Mode {
				c = out.Best // already searched
			} else {
				c = bestLayout(s, opt)
			}
			if c != nil {
				a := order[i]
				return &a, c
			}
		}
		return nil, nil
	}
	out.LargestInfer, out.LargestInferLayout = largest(model.Infer)
	out.LargestTrain, out.LargestTrainLayout = largest(model.Train)
	return out
}

// bestLayout is Search's best feasible candidate for s, or nil.
func bestLayout(s model.Scenario, opt SearchOptions) *Candidate {
	res, err := Search(s, opt)
	if err != nil || res.Feasible == 0 || len(res.Candidates) == 0 || !res.Candidates[0].Feasible {
		return nil
	}
	c := res.Candidates[0]
	return &c
}
