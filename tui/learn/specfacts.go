package learn

import (
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
)

// SpecFacts explain speculative decoding (the Learn tab's spec section, inference only): what
// the run's speculation did, or, without it, what it would take.
type SpecFacts struct {
	On bool
	// K proposals a step by Method at acceptance Accept; Expected accepted a step by it,
	// TokPerStep tokens a speculative step kept in the run, Drafter its share of a decode step.
	K                                             int
	Method, Accept, Expected, TokPerStep, Drafter string
	// Best is 1 + K: the most a step can yield.
	Best int
}

func specFacts(r costmodel.Report) SpecFacts {
	if r.Inference == nil || r.Inference.Spec == nil {
		return SpecFacts{}
	}
	sp := r.Inference.Spec
	return SpecFacts{On: true, K: sp.Tokens, Method: sp.Method, Accept: sp.Accept,
		Expected: strconv.FormatFloat(sp.ExpectedAccepted, 'f', 2, 64), TokPerStep: strconv.FormatFloat(sp.TokensPerStep, 'f', 2, 64),
		Drafter: Percent(sp.DrafterShare), Best: 1 + sp.Tokens}
}
