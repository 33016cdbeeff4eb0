package costmodel

import (
	"sort"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// CapacityResult answers "what fits on this hardware": the best layout for the scenario's model,
// and the largest of the given models (by parameters) that fits for inference and for training
// (any layout Search finds). A layout that offloads (optimizer state, weights or activations in
// host memory) fits only within the host memory its GPU's share of the node gives it; the
// result separates what fits on the GPUs alone from what needs offload, and says what offload
// costs in host memory.
type CapacityResult struct {
	// Best is the best feasible layout for base's model and mode by the objective; nil if none.
	// It may offload.
	Best *Candidate
	// BestOnGPUs is the best feasible layout that offloads nothing: Best itself when Best
	// offloads nothing, nil when every layout that fits needs offload (or none fits).
	BestOnGPUs *Candidate
	// HostShort, only when nothing fits in training, is the best layout were host memory
	// unlimited: one that offloads, and needs more host memory than the box has (HostNeed).
	// nil when that would not fit either.
	HostShort *Candidate
	// LargestInfer is the largest model with a feasible inference layout, LargestInferLayout
	// the best such layout; both nil when no model fits. Serving offloads nothing.
	LargestInfer       *model.Arch
	LargestInferLayout *Candidate
	// LargestTrain and LargestTrainLayout are the same for training, offload allowed within the
	// host memory.
	LargestTrain       *model.Arch
	LargestTrainLayout *Candidate
	// LargestTrainOnGPUs and its layout are the largest model that trains without offload.
	LargestTrainOnGPUs       *model.Arch
	LargestTrainOnGPUsLayout *Candidate
	// HostPerGPU is the host memory each GPU may fill with offload (its share of its node's),
	// HostDefault whether it is the default (the cluster does not say).
	HostPerGPU  float64
	HostDefault bool
}

// OnGPUs is BestOnGPUs, or Best when it offloads nothing (a result built without BestOnGPUs).
func (r CapacityResult) OnGPUs() *Candidate {
	if r.BestOnGPUs == nil && r.Best != nil && r.Best.Layout.Offload == model.OffloadNone {
		return r.Best
	}
	return r.BestOnGPUs
}

// TrainOnGPUs is LargestTrainOnGPUs and its layout, or LargestTrain's when its layout offloads
// nothing.
func (r CapacityResult) TrainOnGPUs() (*model.Arch, *Candidate) {
	if r.LargestTrainOnGPUs == nil && r.LargestTrainLayout != nil && r.LargestTrainLayout.Layout.Offload == model.OffloadNone {
		return r.LargestTrain, r.LargestTrainLayout
	}
	return r.LargestTrainOnGPUs, r.LargestTrainOnGPUsLayout
}

// HostNeed is the host memory a candidate's offload needs per GPU: its fullest rank's (0 without
// offload).
func HostNeed(c Candidate) float64 {
	need := c.Report.Memory.Host
	for _, sd := range c.Report.Detail.Stages {
		need = max(need, sd.Memory.Host)
	}
	return need
}

// Capacity searches base's hardware for the best layout of base's model in base's mode, and for
// the largest of models that has a feasible layout in inference and in training. The inference
// and training checks keep base's other settings (cluster, precision, sequence, batch, requests;
// recompute, ZeRO and serial DP in training) and switch only the model and the mode. Models are tried largest first and
// the search stops at the first that fits, so a box on which everything fits costs one Search
// per mode, and one more per question whose answer offloads (the same without offload). A model
// Search rejects outright (an invalid scenario) counts as not fitting.
func Capacity(base model.Scenario, models []model.Arch, opt SearchOptions) CapacityResult {
	out := CapacityResult{HostPerGPU: base.Cluster.HostMemoryPerGPU(), HostDefault: base.Cluster.HostMemoryDefault()}
	out.Best = bestLayout(base, opt)
	if out.Best != nil { // nothing fits without offload where nothing fits with it
		out.BestOnGPUs = onGPUs(base, out.Best, opt)
	}
	if out.Best == nil && base.Workload.Mode == model.Train {
		s := base
		s.Cluster.HostMemoryBytes = model.MaxHostMemoryBytes
		if c := bestLayout(s, opt); c != nil && HostNeed(*c) > out.HostPerGPU {
			out.HostShort = c
		}
	}

	order := make([]model.Arch, len(models))
	copy(order, models)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := arch.Of(order[i]), arch.Of(order[j])
		return a.Params() > b.Params()
	})

	scenarioFor := func(a model.Arch, mode model.Mode) model.Scenario {
		s := base
		s.Arch = a
		s.Workload.Mode = mode
		if mode == model.Infer {
			// Serving has no backward pass, gradients or optimizer state: training's
			// recomputation, ZeRO, serial DP, TP overlap and offload change nothing there
			// but the warnings.
			s.Layout.Recompute, s.Layout.ZeRO, s.Layout.SerialDP = model.RecomputeNone, 0, false
			s.Layout.TPOverlap, s.Layout.Offload = model.TPOverlapNone, model.OffloadNone
		}
		return s
	}
	largest := func(mode model.Mode) (int, *Candidate) {
		for i := range order {
			var c *Candidate
			if order[i] == base.Arch && mode == base.Workload.Mode {
				c = out.Best // already searched
			} else {
				c = bestLayout(scenarioFor(order[i], mode), opt)
			}
			if c != nil {
				return i, c
			}
		}
		return -1, nil
	}
	if i, c := largest(model.Infer); c != nil {
		a := order[i]
		out.LargestInfer, out.LargestInferLayout = &a, c
	}
	i, c := largest(model.Train)
	if c == nil {
		return out
	}
	a := order[i]
	out.LargestTrain, out.LargestTrainLayout = &a, c
	// The largest without offload is no larger: from the same model down.
	for j := i; j < len(order); j++ {
		var g *Candidate
		switch {
		case j == i:
			g = onGPUs(scenarioFor(order[j], model.Train), c, opt)
		case order[j] == base.Arch && base.Workload.Mode == model.Train:
			g = out.BestOnGPUs
		default:
			g = onGPUs(scenarioFor(order[j], model.Train), nil, opt)
		}
		if g != nil {
			a := order[j]
			out.LargestTrainOnGPUs, out.LargestTrainOnGPUsLayout = &a, g
			break
		}
	}
	return out
}

// onGPUs is the best layout for s that offloads nothing: best itself when it offloads nothing,
// else a search with offload held at none (best nil: search without it).
func onGPUs(s model.Scenario, best *Candidate, opt SearchOptions) *Candidate {
	if best != nil && best.Layout.Offload == model.OffloadNone {
		return best
	}
	if s.Workload.Mode == model.Infer {
		return best // serving never offloads
	}
	s.Layout.Offload = model.OffloadNone
	opt.Fix.HasOffload = true
	return bestLayout(s, opt)
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
