package tui

import (
	"math"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Predict, then reveal: the model's side of a tour step's question. The scenario file names a
// quantity (assets.QuestionQuantities); its value comes from the step's report here, so the
// right answer is always the cost model's.

// questionValue is the report's value of a question's quantity, in the unit the question is
// answered in (percentages from 0 to 100); false when the report has none (an inference
// quantity of a training step).
func questionValue(name string, r costmodel.Report) (float64, bool) {
	switch name {
	case "bubble_fraction":
		return 100 * r.BubbleFraction, true
	case "comm_fraction":
		return 100 * r.CommFraction, true
	case "tp_comm_share":
		if r.StepTime <= 0 {
			return 0, false
		}
		return 100 * r.Breakdown.TPComm / r.StepTime, true
	case "layer_comm_share":
		return 100 * r.Detail.Layer.CommShare, true
	case "memory_gib":
		return r.Memory.Total / model.GiB, true
	case "fits":
		if r.Memory.Fits {
			return 1, true
		}
		return 0, true
	case "step_s":
		return r.StepTime, r.StepTime > 0
	case "tokens_per_s":
		return r.TokensPerS, true
	case "ttft_ms":
		if r.Inference == nil {
			return 0, false
		}
		return 1000 * r.Inference.TTFT, true
	case "tpot_ms":
		if r.Inference == nil {
			return 0, false
		}
		return 1000 * r.Inference.TPOT, true
	}
	return math.NaN(), false
}
