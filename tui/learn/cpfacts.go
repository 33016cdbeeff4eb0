package learn

import (
	"strconv"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
)

// CPFacts explain context parallelism: each sequence cut into 2·C chunks, two per GPU of a CP
// group (one early, one late, so that causal attention's work is even), the K/V exchange one
// layer makes and what it costs the step, and the same GPUs without CP (common.Data.NoCP).
type CPFacts struct {
	On bool // training with CP > 1
	// C GPUs a CP group, Chunks = 2·C, Seq tokens a sequence, Tokens = Seq/C a GPU; SeqK and
	// TokensK the same in K ("128K", "32K").
	C, Chunks, Seq, Tokens int
	SeqK, TokensK          string
	// Kind is the exchange (ring, all-gather, ulysses, hybrid); Ring says it passes blocks.
	Kind string
	Ring bool
	// One layer's ring on one GPU: Steps sends over Link, each Send beside Block of attention on
	// the block held; Block is the K/V one GPU holds (its tokens' keys and values).
	Steps               int
	Send, Block, KV     string
	Link                string
	Hidden              bool // every send hides behind the attention beside it
	Exposed, Share      string
	Mem                 string // the fullest GPU, with CP
	NoCP                bool   // the same GPUs without CP were evaluated
	NoCPSplit, NoCPTokS string
	NoCPMem, NoCPOver   string
	NoCPFits            bool
}

func cpFacts(d common.Data) CPFacts {
	s, r := d.Scenario, d.Report
	c := s.Layout.CPSize()
	if s.Workload.Mode != model.Train || c <= 1 {
		return CPFacts{}
	}
	f := CPFacts{On: true, C: c, Chunks: 2 * c, Seq: s.Workload.Seq, Tokens: s.Workload.Seq / c,
		SeqK: kTokens(s.Workload.Seq), TokensK: kTokens(s.Workload.Seq / c),
		Kind: s.Layout.CPComm.String(), Mem: Bytes(r.Memory.Total),
		Exposed: Seconds(r.Breakdown.CPComm), Share: Percent(ratio(r.Breakdown.CPComm, r.StepTime))}
	if cp := r.Detail.Layer.CP; cp != nil {
		f.Ring = cp.Steps > 0
		f.Steps, f.Link = cp.Steps, cp.Link
		f.Send, f.Block, f.KV = Seconds(cp.SendS), Seconds(cp.BlockS), Bytes(cp.BlockBytes)
		f.Hidden = cp.StepExposedS <= 0
	}
	if n := d.NoCP; n != nil {
		f.NoCP = true
		f.NoCPSplit = nb(common.SplitName(n.Layout))
		f.NoCPTokS = Count(n.Report.TokensPerS)
		f.NoCPMem = Bytes(n.Report.Memory.Total)
		f.NoCPOver = Bytes(max(n.Report.Memory.Total-n.Report.Memory.Capacity, 0))
		f.NoCPFits = n.Report.Memory.Fits
	}
	return f
}

// kTokens writes a token count in K when it is a whole number of them: "128K", else "1000".
func kTokens(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "K"
	}
	return strconv.Itoa(n)
}
