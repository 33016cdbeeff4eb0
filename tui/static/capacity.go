package static

import (
	"fmt"
	"io"

	"github.com/splitscope/splitscope/costmodel"
	karch "github.com/splitscope/splitscope/costmodel/arch"
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

// HostHas says what host memory each GPU has for offload: "this box has 64.0 GiB per GPU", or,
// when the cluster does not say, "256 GiB per GPU assumed, the default: --host-memory … sets it".
func HostHas(res costmodel.CapacityResult) string {
	if res.HostDefault {
		return Bytes(res.HostPerGPU) + " per GPU assumed, the default: --host-memory or a probed box sets it"
	}
	return "this box has " + Bytes(res.HostPerGPU) + " per GPU"
}

// OffloadCost says what a layout's offload costs in host memory: "optimizer+weights offloaded
// (148 GiB host RAM per GPU; this box has 256 GiB per GPU)", or "" when it offloads nothing.
func OffloadCost(c costmodel.Candidate, res costmodel.CapacityResult) string {
	if c.Layout.Offload == model.OffloadNone {
		return ""
	}
	return fmt.Sprintf("%s offloaded (%s host RAM per GPU; %s)", c.Layout.Offload, Bytes(costmodel.HostNeed(c)), HostHas(res))
}

// FasterWithOffload is res.Best when it offloads and is at least 1% faster than the best layout on
// the GPUs alone (a gain worth its host memory); nil otherwise.
func FasterWithOffload(res costmodel.CapacityResult) *costmodel.Candidate {
	b, g := res.Best, res.OnGPUs()
	if b == nil || g == nil || b.Layout.Offload == model.OffloadNone || !(b.Report.StepTime < 0.99*g.Report.StepTime) {
		return nil
	}
	return b
}

// CapacityVerdict is the capacity verdict for the scenario's model in words, what it costs included:
// "fits on the GPUs", "fits only with optimizer+weights offloaded (148 GiB host RAM per GPU; …)",
// "does not fit: its fastest layout with … offloaded would need 194 GiB host RAM per GPU; this box has 8.0 GiB
// per GPU", "does not fit in any layout". The layout itself is not in it.
func CapacityVerdict(res costmodel.CapacityResult) string {
	switch {
	case res.OnGPUs() != nil:
		return "fits on the GPUs"
	case res.Best != nil:
		return "fits only with " + OffloadCost(*res.Best, res)
	case res.HostShort != nil:
		return fmt.Sprintf("does not fit: its fastest layout with %s offloaded would need %s host RAM per GPU; %s",
			res.HostShort.Layout.Offload, Bytes(costmodel.HostNeed(*res.HostShort)), HostHas(res))
	}
	return "does not fit in any layout"
}

// RenderCapacity writes the capacity verdict on s's hardware: the best layout for s's model in
// its mode, on the GPUs alone and, where it needs or gains from offload, with offload and its
// cost in host memory; and the largest of the checked preset models that fits for inference and
// for training (on the GPUs, and with offload when that is a larger one), each with its best
// layout.
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
	name := fmt.Sprintf("%s, %s", id, mode)
	switch g := res.OnGPUs(); {
	case g != nil:
		t.add(name, "fits on the GPUs: "+CandidateLine(s, *g))
		if b := FasterWithOffload(res); b != nil {
			t.add("", "faster with "+OffloadCost(*b, res)+": "+CandidateLine(s, *b))
		}
	case res.Best != nil:
		t.add(name, CapacityVerdict(res)+": "+CandidateLine(s, *res.Best))
	default:
		t.add(name, CapacityVerdict(res))
	}
	side := func(label string, mode model.Mode, arch *model.Arch, layout *costmodel.Candidate) {
		if arch == nil || layout == nil {
			t.add(label, fmt.Sprintf("none of the %d presets fits", checked))
			return
		}
		sc := s
		sc.Arch, sc.Workload.Mode = *arch, mode
		text := fmt.Sprintf("%s (%.1fB params): ", arch.ID, karch.Of(*arch).Params()/1e9)
		if cost := OffloadCost(*layout, res); cost != "" {
			text += "only with " + cost + ": "
		}
		t.add(label, text+CandidateLine(sc, *layout))
	}
	side("largest for inference", model.Infer, res.LargestInfer, res.LargestInferLayout)
	ga, gc := res.TrainOnGPUs()
	switch {
	case res.LargestTrain == nil:
		side("largest for training", model.Train, nil, nil)
	case ga != nil && ga.ID == res.LargestTrain.ID:
		side("largest for training", model.Train, ga, gc)
	default:
		side("largest for training on the GPUs", model.Train, ga, gc)
		side("largest for training with offload", model.Train, res.LargestTrain, res.LargestTrainLayout)
	}
	t.write(ew)
	return ew.err
}
