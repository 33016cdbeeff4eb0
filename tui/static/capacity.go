package static

import (
	"fmt"
	"io"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// CandidateLine describes a layout found for s's hardware and how it runs:
// "TP=2 PP=1 DP=1 m=1 b=8 · serve 12.3 s · 20.1 GiB of 24.0 GiB per GPU". s gives the model,
// the workload and the mode the candidate was searched with.
func CandidateLine(s model.Scenario, c costmodel.Candidate) string {
	s.Layout = c.Layout
	r := c.Report
	what := "step"
	if s.Workload.Mode == model.Infer {
		what = "serve"
	}
	line := fmt.Sprintf("%s · %s %s · %s of %s per GPU", LayoutLine(s), what, Seconds(r.StepTime),
		Bytes(r.Memory.Total), Bytes(r.Memory.Capacity))
	if s.Workload.Mode == model.Infer && r.Inference != nil {
		line += fmt.Sprintf(" · TPOT %s", Seconds(r.Inference.TPOT))
	}
	return line
}

// RenderCapacity writes the capacity verdict on s's hardware: the best layout for s's model in
// its mode, and the largest of the checked preset models that fits for inference and for
// training, each with its best layout.
func RenderCapacity(w io.Writer, s model.Scenario, res costmodel.CapacityResult, checked int) error {
	ew := &errWriter{w: w}
	c := s.Cluster
	ew.line(fmt.Sprintf("capacity on %d× %s · %s (%d preset models checked, any layout)", c.GPUs, c.GPU.ID, c.Intra.ID, checked))
	id := s.Arch.Label()
	t := newTable("  ")
	mode := "training"
	if s.Workload.Mode == model.Infer {
		mode = "inference"
	}
	if res.Best != nil {
		t.add(fmt.Sprintf("%s, %s", id, mode), "fits: "+CandidateLine(s, *res.Best))
	} else {
		t.add(fmt.Sprintf("%s, %s", id, mode), "does not fit in any layout")
	}
	for _, side := range []struct {
		name   string
		mode   model.Mode
		arch   *model.Arch
		layout *costmodel.Candidate
	}{
		{"largest for inference", model.Infer, res.LargestInfer, res.LargestInferLayout},
		{"largest for training", model.Train, res.LargestTrain, res.LargestTrainLayout},
	} {
		if side.arch == nil || side.layout == nil {
			t.add(side.name, fmt.Sprintf("none of the %d presets fits", checked))
			continue
		}
		sc := s
		sc.Arch, sc.Workload.Mode = *side.arch, side.mode
		t.add(side.name, fmt.Sprintf("%s (%.1fB params): %s", side.arch.ID, side.arch.Params()/1e9, CandidateLine(sc, *side.layout)))
	}
	t.write(ew)
	return ew.err
}
