package schedule

import "github.com/splitscope/splitscope/model"

// Where the virtual stages sit. Train's costs are indexed c·p + s: chunk c on rank s. The
// simulation follows micro-batches along chains, in model order: position q of a chain needs the
// forward of q−1 and the backward of q+1. For GPipe, 1F1B, ZB-H1 and interleaved the chain is
// the cost index itself (chunk c of rank s is model stage c·p + s). The V schedules (ZB-V,
// DualPipeV) cut the model in 2p stages, the first p going down the ranks and the last p coming
// back: model stage q sits on rank q for q < p and on rank 2p−1−q after, as chunk 1. DualPipe
// runs two chains of p stages, one a direction: positions 0..p−1 are the stages 0..p−1 of the
// micro-batches that enter at rank 0 (chunk 0 of rank q), positions p..2p−1 the stages 0..p−1 of
// those that enter at rank p−1 (stage k on rank p−1−k, its chunk 1).

// CostIndex is the cost index (c·p + s) of chain position q under schedule s with p ranks.
func CostIndex(s model.Schedule, p, q int) int {
	switch s {
	case model.ZBV, model.DualPipeV:
		if q >= p {
			return p + 2*p - 1 - q
		}
	case model.DualPipe:
		if q >= p {
			return p + p - 1 - (q - p)
		}
	}
	return q
}

// ChainBreak is the first position of DualPipe's second chain (p), or 0 for a schedule whose
// virtual stages make one chain: the boundary before it carries nothing.
func ChainBreak(s model.Schedule, p int) int {
	if s == model.DualPipe {
		return p
	}
	return 0
}

// Bidirectional says whether s feeds micro-batches from both ends (DualPipe): half of them,
// each direction.
func Bidirectional(s model.Schedule) bool { return s == model.DualPipe }

// twoChunk says whether s runs exactly two chunks a rank in its own arrangement.
func twoChunk(s model.Schedule) bool {
	return s == model.ZBV || s == model.DualPipe || s == model.DualPipeV
}

// splitW says whether s splits the backward into B and W (W costs allowed).
func splitW(s model.Schedule) bool { return s == model.ZBH1 || twoChunk(s) }
