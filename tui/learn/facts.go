package learn

import (
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/static"
)

// Facts are the numbers the explanations and the tour's captions quote, every one taken from the
// Report (or the Compare rows) and formatted with the renderers' formatters (tui/static), so the
// text says what the other tabs show. The templates of assets/text read them by field name.
// Quantities with a unit hold a non-breaking space between number and unit, so that wrapping
// never splits them; the pane turns it back into a space when it draws.
type Facts struct {
	// The scenario.
	Model, GPU, Precision, Schedule string
	GPUs, NodeGPUs, Nodes           int
	Train, Infer                    bool
	// The split: p stages, m micro-batches (requests a replica in inference), v chunks, t TP ranks, d replicas,
	// b sequences per micro-batch, Batch sequences per step (requests in inference).
	P, M, V, T, D, B, Batch int
	// Headline results.
	Step, TokS, TTFT, TPOT string

	Bubble BubbleFacts
	TP     TPFacts
	Coll   CollFacts // today's TP collective: algorithm, protocol, formula
	Algos  AlgoFacts // ring against NVLS, no peer-to-peer, NCCL against the engine
	Mem    MemFacts
	Serve  ServeFacts
	Spec   SpecFacts // speculative decoding (specfacts.go)
	Cmp    CompareFacts
	// A MoE model's experts across GPUs, an MLA model's latent cache (moefacts.go).
	Experts ExpertFacts
	MLA     MLAFacts
	// Context parallelism: the sequence split, its exchange, the same GPUs without it.
	CP CPFacts
}

// ServeFacts explain a serving run: the KV cache the engine got and how full the run kept it.
type ServeFacts struct {
	Util, KVTokens, Peak, Weights string
	KVSeqs, Running, Preemptions  int
	MaxTokens, DecodeBatch        int
	// Prefill and decode: the prompt's mean length, its FLOPs in all, the GPU's sustained matmul
	// rate and streaming bandwidth, a decode step's weight read on one GPU, the batch from which a
	// decode step's matmuls take longer than its weight read, one sequence's step alone.
	Prompt                             int
	PrefillFLOPs, Rate, BW, WeightRead string
	CrossBatch                         int
	DecodeStep                         string
}

// BubbleFacts explain the pipeline bubble.
type BubbleFacts struct {
	Sim     string // Report.BubbleFraction
	Closed  string // Detail.BubbleClosedForm
	Formula string // the closed form's name, "(p−1)/(m+p−1)"
	Time    string // Breakdown.Bubble
	// PM1 = p−1 and VM = v·m: the textbook idle-to-busy ratio (p−1)/(v·m), Ratio as a percentage.
	PM1, VM int
	Ratio   string
	// Slots: in p−1+v·m op slots a stage is idle in p−1 (GPipe, 1F1B, interleaved).
	Slots, Idle int
	// Double is the closed form with twice the micro-batches (DoubleM).
	Double  string
	DoubleM int
	// InFlight is the most micro-batches the first stage holds activations for.
	InFlight                 int
	GPipe, Interleaved, ZBH1 bool
	// ZBV, Dual (DualPipe or DualPipeV) and DualV: the 2024–25 schedules; SplitW any schedule
	// that runs W apart (ZB-H1 and those), whose bubble no "twice m" line sums up.
	ZBV, Dual, DualV, SplitW bool
	Fill                     bool // inference with fewer requests than stages: the pipeline never fills
	// Busiest is the stage with the most busy time, BusiestShareText its share of the step
	// (Report.StageBusyShare).
	Busiest, BusiestShareText string
	// MeanIdle is the stages' idle share of the step on average (1 − StageBusyShare, over the
	// stages): what the serving closed form (p − requests)/p bounds from below, since at most
	// that many batches keep a stage busy at once; a stage with more work than the others can
	// idle less than the closed form (the busiest one's idle is Sim).
	MeanIdle string
}

// TPFacts explain the TP all-reduce.
type TPFacts struct {
	On                     bool // t > 1
	S, BW, Alpha, AR, Link string
	// Steps = 2(t−1) ring steps, Frac = 2(t−1)/t of S through each GPU's link.
	Steps int
	Frac  string
	// All-reduces per layer and micro-batch: forward, backward, both.
	Fwd, Bwd, PerLayer int
	// Layers on one GPU (the first stage) and all-reduces per step on one GPU.
	Layers, PerStep int
	LayerShare      string // Detail.Layer.CommShare
	StepShare       string // Breakdown.TPComm over the step
	Time            string // Breakdown.TPComm
	InNode          bool   // the TP group fits in one node
	SeqPar          bool
	Intra, Inter    string
}

// MemFacts explain the fullest GPU's memory.
type MemFacts struct {
	Stage                                   int
	Total, Capacity, Over, Free             string
	Fits                                    bool
	Weights, Grads, Optim, Act, KV, Reserve string
	// Params is the parameters one GPU holds; WPer, GPer, OPer and StatePer are bytes per
	// parameter of the weights, gradients, optimizer and all three.
	Params, WPer, GPer, OPer, StatePer string
	ZeRO                               int
	// InFlight micro-batches keep activations for Layers layers; Logits: the last stage's.
	InFlight, Layers int
	Logits           bool
	Recompute        string
	// Inference: requests per replica and tokens of context each.
	Requests, Context int
	// Model state (weights, gradients, optimizer) and its share of the total.
	State, StateShare string
}

// CompareFacts explain the Compare tab's winner: its best layout.
type CompareFacts struct {
	Ready, Pending bool
	Err            string
	Winner         *RowFacts // nil when nothing is feasible
	Rows           []RowFacts
	// LatencyWinner is the row with the lowest TTFT (inference) when it is not the winner.
	LatencyWinner string
	LatencyTTFT   string
	// TPRow and PPRow are the TP-only (PP = 1) and PP-only (TP = 1) contenders, nil if missing;
	// TPFaster says TP only answers sooner (lower TTFT, or step time in training) and PPMore that
	// PP only serves more tokens per second, both between feasible rows.
	TPRow, PPRow     *RowFacts
	TPFaster, PPMore bool
	// Better says the winner serves over 1% more tokens per second than the layout on screen.
	Better bool
	// CrossM is the micro-batch count (requests at once in inference) from which PP only overtakes TP only in
	// the Compare tab's sweep, 0 when it does not. The claim holds only where both layouts fit
	// (common.Bound, as the Compare tab bounds its sentence): CrossUntil is the count at which PP
	// only no longer fits, CrossTPGone the one from which TP only no longer fits, CrossBack the one
	// from which TP only is back ahead; each 0 when there is none.
	CrossM, CrossUntil, CrossTPGone, CrossBack int
}

// RowFacts is one contender of the Compare tab.
type RowFacts struct {
	Name, Layout, TokS, Step, TTFT, TPOT, Comm, Bubble, Memory string
	TP, PP, DP                                                 int
	// IsWinner: this is the best layout, or the contender whose layout it is.
	Feasible, IsWinner bool
	// InNode: it has a TP group (TP > 1) and the group fits in one node.
	InNode bool
	Reason string
	// Why this row loses to the winner: "memory", "invalid", "comm", "bubble" or "compute".
	Why string
	// By how much its worst cost exceeds the winner's (Comm or Bubble points, formatted).
	Gap string

	tokS float64
}

// nb glues a number to its unit with a non-breaking space.
func nb(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }

// Seconds, Bytes, Bandwidth, Count and Percent are the formatters of tui/static, with the unit
// glued: what Facts hold and what a test compares them with.
func Seconds(x float64) string   { return nb(static.Seconds(x)) }
func Bytes(x float64) string     { return nb(static.Bytes(x)) }
func Bandwidth(x float64) string { return nb(static.Bandwidth(x)) }
func Count(x float64) string     { return nb(static.Count(x)) }
func Percent(x float64) string   { return static.Percent(x) }

// DecBytes writes bytes with decimal prefixes, as the Tensor tab writes the all-reduce's S so that
// S/B reads in the units of the link's bandwidth: "41.9 MB".
func DecBytes(x float64) string {
	s := static.Count(x)
	if !strings.Contains(s, " ") {
		s += " "
	}
	return nb(s + "B")
}

// perParam writes bytes per parameter: "18", "6", "4.5".
func perParam(bytes, params float64) string {
	if params <= 0 {
		return "0"
	}
	return strconv.FormatFloat(math.Round(bytes/params*10)/10, 'f', -1, 64)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// closedForm is the textbook bubble share of the step, (p−1)/(v·m+p−1), the formula of
// Detail.BubbleClosedForm for GPipe, 1F1B and interleaved schedules.
func closedForm(p, m, v int) float64 {
	if p <= 1 {
		return 0
	}
	return float64(p-1) / float64(v*m+p-1)
}

// NewFacts gathers the numbers of one evaluation and its comparison.
func NewFacts(d common.Data, cmp common.Compare, cmpReady bool) Facts {
	s, r := d.Scenario, d.Report
	l := r.Layout
	f := Facts{
		Model: s.Arch.ID, GPU: s.Cluster.GPU.ID, Precision: s.Workload.Precision.String(),
		Schedule: l.Schedule, GPUs: s.Cluster.GPUs, NodeGPUs: s.Cluster.NodeSize(), Nodes: s.Cluster.Nodes(),
		Train: s.Workload.Mode == model.Train, Infer: s.Workload.Mode == model.Infer,
		P: l.PP, M: l.MicroBatches, V: max(l.Chunks, 1), T: l.TP, D: l.DP, B: l.MicroBatch,
		Batch: s.BatchUnits(), Step: Seconds(r.StepTime), TokS: Count(r.TokensPerS),
	}
	if r.Timeline != nil && r.Timeline.MicroBatches > 0 && !f.Infer {
		f.M = r.Timeline.MicroBatches
	}
	if r.Inference != nil {
		f.TTFT, f.TPOT = Seconds(r.Inference.TTFT), Seconds(r.Inference.TPOT)
	}
	f.Bubble = bubbleFacts(f, s, r)
	f.TP = tpFacts(f, s, r)
	f.Coll = collFacts(r)
	f.Algos = algoFacts(s, r)
	f.Mem = memFacts(s, r)
	f.Serve = serveFacts(s, r)
	f.Spec = specFacts(r)
	f.Experts = expertFacts(s, r)
	f.MLA = mlaFacts(s, r)
	f.CP = cpFacts(d)
	if f.Infer {
		// Requests a replica: the most batches that can be in flight.
		f.M = max(s.Workload.Requests/max(s.Layout.DP, 1), 1)
	}
	f.Cmp = compareFacts(cmp, cmpReady, f.Infer, s.Cluster.GPUsPerNode)
	if w := f.Cmp.Winner; w != nil {
		f.Cmp.Better = w.tokS > r.TokensPerS*1.01 && (w.TP != f.T || w.PP != f.P || w.DP != f.D)
	}
	return f
}

func bubbleFacts(f Facts, s model.Scenario, r costmodel.Report) BubbleFacts {
	p, m, v := f.P, f.M, f.V
	b := BubbleFacts{
		Sim: Percent(r.BubbleFraction), Closed: Percent(r.Detail.BubbleClosedForm), Time: Seconds(r.Breakdown.Bubble),
		PM1: p - 1, VM: v * m, Ratio: Percent(ratio(float64(p-1), float64(v*m))),
		Slots: v*m + p - 1, Idle: p - 1, DoubleM: 2 * m, Double: Percent(closedForm(p, 2*m, v)),
		GPipe: s.Layout.Schedule == model.GPipe, Interleaved: s.Layout.Schedule == model.Interleaved,
		ZBH1: s.Layout.Schedule == model.ZBH1, Fill: f.Infer && p > 1 && m < p,
		ZBV: s.Layout.Schedule == model.ZBV, DualV: s.Layout.Schedule == model.DualPipeV,
		Dual: s.Layout.Schedule == model.DualPipe || s.Layout.Schedule == model.DualPipeV,
	}
	b.SplitW = b.ZBH1 || b.ZBV || b.Dual
	switch {
	case f.Infer:
		b.Formula = "max(p−m, 0)/p"
	case b.Interleaved:
		b.Formula = "(p−1)/(v·m+p−1)"
	case b.ZBH1:
		b.Formula = "(p−1)(F+B−2W)"
	case b.ZBV:
		b.Formula = "(p−1)·F"
	case b.DualV:
		b.Formula = "(p−1)(F&B+B−3W)"
	case b.Dual:
		b.Formula = "(p/2−1)(F&B+B−3W)"
	default:
		b.Formula = "(p−1)/(m+p−1)"
	}
	if st := r.Detail.Stages; len(st) > 0 {
		b.InFlight = st[0].InFlight
		busiest := 0
		for i := range st {
			if r.StageBusyShare(i) > r.StageBusyShare(busiest) {
				busiest = i
			}
		}
		// The report's one definition of a stage's busy share (of the step, as report, the
		// Pipeline tab and the strip print it), not of the timeline's makespan.
		b.Busiest, b.BusiestShareText = "S"+strconv.Itoa(busiest), Percent(r.StageBusyShare(busiest))
		b.MeanIdle = Percent(MeanIdle(r))
	}
	return b
}

// MeanIdle is the pipeline stages' idle share of the step, on average over the stages: 1 minus
// their mean Report.StageBusyShare; 0 without stages.
func MeanIdle(r costmodel.Report) float64 {
	n := len(r.Detail.Stages)
	if n == 0 {
		return 0
	}
	busy := 0.0
	for i := range n {
		busy += r.StageBusyShare(i)
	}
	return max(1-busy/float64(n), 0)
}

func tpFacts(f Facts, s model.Scenario, r costmodel.Report) TPFacts {
	dt := r.Detail
	t := TPFacts{
		On: f.T > 1, S: DecBytes(dt.TPAllReduceBytes), BW: Bandwidth(dt.TPLinkBW), Alpha: Seconds(dt.TPLinkAlpha),
		AR: Seconds(dt.TPAllReduceS), Link: dt.TPLink, Steps: 2 * (f.T - 1),
		Frac:       strconv.FormatFloat(ratio(2*float64(f.T-1), float64(f.T)), 'f', -1, 64),
		LayerShare: Percent(dt.Layer.CommShare), StepShare: Percent(ratio(r.Breakdown.TPComm, r.StepTime)),
		Time: Seconds(r.Breakdown.TPComm), InNode: f.T <= s.Cluster.GPUsPerNode, SeqPar: s.Layout.SequenceParallel,
		Intra: s.Cluster.Intra.ID, Inter: s.Cluster.Inter.ID,
	}
	if len(t.Frac) > 4 {
		t.Frac = strconv.FormatFloat(ratio(2*float64(f.T-1), float64(f.T)), 'f', 2, 64)
	}
	count := func(ss []costmodel.Segment) int {
		n := 0
		for _, x := range ss {
			if x.Kind == costmodel.SegTPComm {
				n++
			}
		}
		return n
	}
	t.Fwd, t.Bwd = count(dt.Layer.Forward), count(dt.Layer.Backward)
	t.PerLayer = t.Fwd + t.Bwd
	if len(dt.Stages) > 0 {
		t.Layers = dt.Stages[0].Layers
	}
	t.PerStep = t.PerLayer * t.Layers * max(f.M, 1)
	if f.Infer {
		t.PerStep = t.PerLayer * t.Layers // per engine step
	}
	return t
}

func serveFacts(s model.Scenario, r costmodel.Report) ServeFacts {
	inf := r.Inference
	if inf == nil {
		return ServeFacts{}
	}
	ctx := s.Workload.Prompts().MeanValue() + s.Workload.Gens().MeanValue()
	f := ServeFacts{
		Util: Percent(model.ServeMemoryUtilization), KVTokens: Count(inf.KVCacheTokens), Peak: Percent(inf.KVCachePeakFraction),
		Weights: s.Workload.Weights, KVSeqs: int(inf.KVCacheTokens / max(ctx, 1)), Running: inf.MaxConcurrency,
		Preemptions: inf.Preemptions, MaxTokens: inf.MaxBatchTokens, DecodeBatch: 1,
	}
	if h, e := float64(s.Arch.Hidden), s.Workload.Precision.Bytes(); h > 0 && e > 0 {
		f.DecodeBatch = max(int(math.Round(r.Detail.TPAllReduceBytes/(h*e))), 1)
	}
	g := s.Cluster.GPU
	rate := g.Peak(s.Workload.Precision) * g.MatmulEff(s.Workload.Precision) * costmodel.SustainedMatmulFraction
	bw := g.HBMBandwidth * g.MemoryEff
	f.Prompt = int(s.Workload.Prompts().MeanValue())
	// FLOPs, written with the FLOP/s units' prefixes.
	f.PrefillFLOPs = strings.TrimSuffix(nb(static.FLOPS(2*arch.Of(s.Arch).Params()*float64(f.Prompt))), "/s")
	f.Rate, f.BW = nb(static.FLOPS(rate)), nb(static.Bandwidth(bw))
	f.WeightRead = Seconds(ratio(r.Memory.Weights, bw))
	if wb := s.Workload.WeightBytes(); bw > 0 {
		f.CrossBatch = int(math.Round(rate * wb / (2 * bw)))
	}
	f.DecodeStep = Seconds(inf.DecodeStepS)
	return f
}

func memFacts(s model.Scenario, r costmodel.Report) MemFacts {
	mem := r.Memory
	m := MemFacts{
		Stage: mem.Stage, Total: Bytes(mem.Total), Capacity: Bytes(mem.Capacity), Fits: mem.Fits,
		Over: Bytes(max(mem.Total-mem.Capacity, 0)), Free: Bytes(max(mem.Capacity-mem.Total, 0)),
		Weights: Bytes(mem.Weights), Grads: Bytes(mem.Gradients), Optim: Bytes(mem.Optimizer),
		Act: Bytes(mem.Activations), KV: Bytes(mem.KVCache), Reserve: Bytes(mem.Reserved),
		ZeRO: s.Layout.ZeRO, Recompute: s.Layout.Recompute.String(),
		Context:  s.Workload.PromptTokens + s.Workload.GenTokens,
		Requests: s.Workload.Requests / max(s.Layout.DP, 1),
	}
	if st := r.Detail.Stages; mem.Stage >= 0 && mem.Stage < len(st) {
		sd := st[mem.Stage]
		params := sd.ParamsOnGPU
		m.Params = Count(params)
		m.WPer, m.GPer, m.OPer = perParam(mem.Weights, params), perParam(mem.Gradients, params), perParam(mem.Optimizer, params)
		m.StatePer = perParam(mem.Weights+mem.Gradients+mem.Optimizer, params)
		m.InFlight, m.Layers, m.Logits = sd.InFlight, sd.Layers, sd.Logits
	}
	state := mem.Weights + mem.Gradients + mem.Optimizer
	m.State, m.StateShare = Bytes(state), Percent(ratio(state, mem.Total))
	return m
}

func compareFacts(c common.Compare, ready, infer bool, perNode int) CompareFacts {
	out := CompareFacts{Ready: ready}
	if !ready {
		return out
	}
	if c.Err != nil {
		out.Err = c.Err.Error()
		return out
	}
	// The winner is the Compare tab's best layout (the fastest, so the most tokens per second);
	// a contender with the very same layout (TP only's or PP only's) wins with it.
	win := c.Row(common.RowBest)
	if win >= 0 && !c.Rows[win].Feasible {
		win = -1
	}
	wins := func(i int) bool { return win >= 0 && c.Twin(i) == c.Twin(win) }
	lat := -1
	for i, r := range c.Rows {
		if r.Feasible && r.Report.Inference != nil &&
			(lat < 0 || r.Report.Inference.TTFT < c.Rows[lat].Report.Inference.TTFT) {
			lat = i
		}
	}
	for i, r := range c.Rows {
		rf := RowFacts{Name: r.Name, TP: r.Layout.TP, PP: r.Layout.PP, DP: r.Layout.DP, Feasible: r.Feasible,
			IsWinner: wins(i), Reason: r.Reason, InNode: r.Layout.TP > 1 && r.Layout.TP <= perNode, tokS: r.Report.TokensPerS}
		if r.Layout.TP > 0 {
			rf.Layout = "TP " + strconv.Itoa(r.Layout.TP) + " × PP " + strconv.Itoa(r.Layout.PP) + " × DP " + strconv.Itoa(r.Layout.DP)
			if r.Layout.EP > 1 {
				rf.Layout += " × EP " + strconv.Itoa(r.Layout.EP)
			}
		}
		if r.Report.Layout.TP > 0 {
			rr := r.Report
			rf.TokS, rf.Step, rf.Comm, rf.Bubble, rf.Memory = Count(rr.TokensPerS), Seconds(rr.StepTime),
				Percent(rr.CommFraction), Percent(rr.BubbleFraction), Bytes(rr.Memory.Total)
			if rr.Inference != nil {
				rf.TTFT, rf.TPOT = Seconds(rr.Inference.TTFT), Seconds(rr.Inference.TPOT)
			}
		}
		if win >= 0 && !wins(i) {
			rf.Why, rf.Gap = whyLoses(r, c.Rows[win])
		}
		out.Rows = append(out.Rows, rf)
	}
	if win >= 0 {
		w := out.Rows[win]
		out.Winner = &w
	}
	tp, pp := c.Row(common.RowTPOnly), c.Row(common.RowPPOnly)
	out.CrossM, out.CrossUntil, out.CrossTPGone, out.CrossBack = crossM(c.Cross)
	if tp >= 0 {
		out.TPRow = &out.Rows[tp]
	}
	if pp >= 0 {
		out.PPRow = &out.Rows[pp]
	}
	if tp >= 0 && pp >= 0 && c.Rows[tp].Feasible && c.Rows[pp].Feasible {
		a, b := c.Rows[tp].Report, c.Rows[pp].Report
		if a.Inference != nil && b.Inference != nil {
			out.TPFaster = a.Inference.TTFT < b.Inference.TTFT
		} else {
			out.TPFaster = a.StepTime < b.StepTime
		}
		out.PPMore = b.TokensPerS > a.TokensPerS
	}
	if infer && lat >= 0 && !wins(lat) {
		out.LatencyWinner, out.LatencyTTFT = c.Rows[lat].Name, Seconds(c.Rows[lat].Report.Inference.TTFT)
	}
	return out
}

// whyLoses names the main reason a contender trails the winner: it does not fit, it is not a
// valid split, or the cost it pays more of (communication or bubble, in points of the step), or
// else slower compute.
func whyLoses(r, win common.CompareRow) (why, gap string) {
	switch {
	case !r.Feasible && r.Report.Layout.TP > 0 && !r.Report.Memory.Fits:
		return "memory", Bytes(r.Report.Memory.Total - r.Report.Memory.Capacity)
	case !r.Feasible:
		return "invalid", ""
	}
	dc := r.Report.CommFraction - win.Report.CommFraction
	db := r.Report.BubbleFraction - win.Report.BubbleFraction
	switch {
	case dc <= 0.005 && db <= 0.005:
		return "compute", ""
	case dc >= db:
		return "comm", points(dc)
	default:
		return "bubble", points(db)
	}
}

// points writes a difference of two fractions in percentage points: "12.3".
func points(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }

// crossM is where the sweep's PP-only tokens per second overtake TP-only's, with the Compare tab's
// crossovers (common.Crossovers, among the points where both fit): the first crossing at which the
// lead passes from TP to PP, and how far it holds (common.Bound): the count at which PP only no
// longer fits, the one from which TP only no longer fits, the one where TP only is back ahead;
// all 0 when PP never overtakes.
func crossM(pts []common.CrossPoint) (from, until, tpGone, back int) {
	cs := common.Crossovers(pts)
	for k, c := range cs {
		if !c.PPWon {
			continue
		}
		b := common.Bound(pts, cs, k)
		at := func(i int) int {
			if i < 0 {
				return 0
			}
			return pts[i].Micro
		}
		return c.Micro, at(b.Leader), at(b.Other), at(b.Next)
	}
	return 0, 0, 0, 0
}
