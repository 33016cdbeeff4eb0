// Package overlay sets what a PyTorch profiler trace measured beside what the model predicts for
// the same layout: per rank, the time the GPU computed, communicated (NCCL) and sat idle, as
// shares and as a row of cells to draw, and the one difference that stands out most ("NCCL
// all-reduce 2.1× the model's on ranks 0–7"). The Pipeline tab and export --svg draw it; the
// command line and the explorer load the files (Load) and refuse traces of another layout
// (Check). Pure functions of the traces, the scenario and its report, except Load.
package overlay

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/splitscope/splitscope/assets/trace"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Error is a trace refused: the file (or "--trace" for the set), and why.
type Error struct {
	File, Msg string
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

// Load reads each trace file (a regular file, plain or gzip-compressed JSON; the reader bounds
// what it reads) in order. An unreadable or bad file is an error naming it.
func Load(paths []string) ([]model.Trace, error) {
	out := make([]model.Trace, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, &Error{File: p, Msg: "cannot read the trace: " + errText(err)}
		}
		if !fi.Mode().IsRegular() {
			return nil, &Error{File: p, Msg: "not a regular file (a directory, a device or a pipe): a trace is a .json or .json.gz file"}
		}
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, &Error{File: p, Msg: "cannot read the trace: " + errText(err)}
		}
		t, err := trace.Read(p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Check refuses traces that contradict the scenario's layout: a world size other than its GPUs,
// a rank outside them, two files of one rank, more files than GPUs. A trace that does not say
// its rank takes its place in the list.
func Check(traces []model.Trace, s model.Scenario) error {
	gpus := s.Layout.GPUs()
	lay := fmt.Sprintf("the layout runs %d GPUs (TP %d × PP %d × DP %d)", gpus, s.Layout.TP, s.Layout.PP, s.Layout.DP)
	if len(traces) == 0 {
		return &Error{File: "--trace", Msg: "no trace"}
	}
	if len(traces) > gpus {
		return &Error{File: "--trace", Msg: fmt.Sprintf("%d traces, one per rank, but %s", len(traces), lay)}
	}
	seen := map[int]string{}
	for i, t := range traces {
		if t.WorldSize > 0 && t.WorldSize != gpus {
			return &Error{File: t.File, Msg: fmt.Sprintf("distributedInfo.world_size is %d, but %s", t.WorldSize, lay)}
		}
		r := rankOf(t, i)
		if r >= gpus {
			return &Error{File: t.File, Msg: fmt.Sprintf("distributedInfo.rank is %d, but %s (ranks 0–%d)", r, lay, gpus-1)}
		}
		if prev, ok := seen[r]; ok {
			return &Error{File: t.File, Msg: fmt.Sprintf("rank %d again (%s is rank %d): give one trace per rank", r, prev, r)}
		}
		seen[r] = t.File
		for _, c := range t.Collectives {
			if c.GroupSize > gpus {
				return &Error{File: t.File, Msg: fmt.Sprintf("an NCCL %s over %d GPUs (Group size), but %s", c.Op, c.GroupSize, lay)}
			}
		}
	}
	return nil
}

func rankOf(t model.Trace, i int) int {
	if t.Rank >= 0 {
		return t.Rank
	}
	return i
}

// StageOf is the pipeline stage of a global rank under the layout's rank order.
func StageOf(l model.Layout, rank int) int {
	pp := max(l.PP, 1)
	_, _, _, stride := l.RankOrder.Strides(l.TP, l.CPSize(), l.DP, pp)
	return min((rank/stride)%pp, pp-1)
}

// Shares is where a rank's time went, as fractions of the time drawn: compute (every kernel
// that is not NCCL), communication (NCCL), idle (neither). Compute and communication may
// overlap, so they can sum past 1 − idle.
type Shares struct {
	Compute, Comm, Idle float64
	// Span is the time the shares are of: the trace's span, or the model's step.
	Span float64
}

// Rank is one rank's measured and modelled time.
type Rank struct {
	Rank, Stage       int
	File              string
	Measured, Modeled Shares
	trace             *model.Trace
	comp, comm        [][2]float64 // the trace's compute and NCCL time, merged
}

// Overlay is the traces set against the scenario's report.
type Overlay struct {
	Ranks []Rank
	// Diff is the biggest difference, one line; DiffRatio its factor (measured over modelled).
	Diff      string
	DiffRatio float64
	// GEMM is the GEMM curve fitted to the traces' GEMM kernels whose shapes were recorded, on
	// the scenario's GPU in their precision (nil when fewer than calibrate.MinGEMMShapes shapes);
	// GEMMNote says in one line what it found, or why there is no fit ("" when no GEMM had a
	// shape).
	GEMM     *calibrate.GEMMFit
	GEMMNote string
	tl       *costmodel.Timeline
	rep      costmodel.Report
}

// Set is traces read, with what does not depend on the scenario worked out once: each trace's
// merged compute and NCCL time and shares, and the GEMM fit per GPU. The explorer makes it in the
// command that reads the files and builds an overlay from it on every result. A Set is used by
// one goroutine at a time.
type Set struct {
	traces     []model.Trace
	comp, comm [][][2]float64
	shares     []Shares
	fits       map[string]gemmResult // by GPU ID
}

type gemmResult struct {
	fit  *calibrate.GEMMFit
	note string
}

// NewSet works out what the traces say whatever the scenario.
func NewSet(traces []model.Trace) *Set {
	st := &Set{traces: traces, fits: map[string]gemmResult{}}
	for _, t := range traces {
		comp, comm := merged(t, false), merged(t, true)
		st.comp, st.comm = append(st.comp, comp), append(st.comm, comm)
		st.shares = append(st.shares, measuredShares(t, comp, comm))
	}
	return st
}

// Traces are the set's traces.
func (st *Set) Traces() []model.Trace { return st.traces }

// Build checks the traces against the scenario (Check) and sets each rank's measured time beside
// the model's for its stage: BuildSet(NewSet(traces), s, r).
func Build(traces []model.Trace, s model.Scenario, r costmodel.Report) (*Overlay, error) {
	return BuildSet(NewSet(traces), s, r)
}

// BuildSet is Build on a Set: its cost is the model's side and the comparison of collectives,
// plus the GEMM fit the first time a GPU is seen.
func BuildSet(st *Set, s model.Scenario, r costmodel.Report) (*Overlay, error) {
	if err := Check(st.traces, s); err != nil {
		return nil, err
	}
	o := &Overlay{tl: r.Timeline, rep: r}
	model := modelShares(r)
	for i := range st.traces {
		t := &st.traces[i]
		rk := Rank{Rank: rankOf(*t, i), File: t.File, trace: t, comp: st.comp[i], comm: st.comm[i]}
		rk.Stage = StageOf(s.Layout, rk.Rank)
		rk.Measured = st.shares[i]
		rk.Modeled = model
		o.Ranks = append(o.Ranks, rk)
	}
	sort.SliceStable(o.Ranks, func(i, j int) bool { return o.Ranks[i].Rank < o.Ranks[j].Rank })
	o.Diff, o.DiffRatio = o.biggest(s)
	g := s.Cluster.GPU
	res, ok := st.fits[g.ID]
	if !ok {
		res.fit, res.note = fitGEMM(st.traces, g)
		st.fits[g.ID] = res
	}
	o.GEMM, o.GEMMNote = res.fit, res.note
	return o, nil
}

// precisionOf maps a CPU op's input type ("c10::BFloat16", "c10::Half", "float") to a precision
// the GEMM curve has a peak for; false for the others (fp32 runs on TF32 or CUDA cores).
func precisionOf(dtype string) (model.Precision, bool) {
	switch strings.ToLower(strings.TrimPrefix(dtype, "c10::")) {
	case "bfloat16":
		return model.BF16, true
	case "half", "float16":
		return model.FP16, true
	case "float8_e4m3fn", "float8_e5m2":
		return model.FP8, true
	}
	return 0, false
}

// fitGEMM fits the GEMM curve (calibrate.FitGEMM) to the shaped GEMM kernels of the precision
// most of them ran in.
func fitGEMM(traces []model.Trace, g model.GPU) (*calibrate.GEMMFit, string) {
	f, _, note := GEMMFitOf(traces, g)
	return f, note
}

// GEMMFitOf is fitGEMM with the precision fitted: calibrate --from TRACE writes the fit as that
// precision's efficiency. The note says what was fitted, or why nothing was (nil fit).
func GEMMFitOf(traces []model.Trace, g model.GPU) (*calibrate.GEMMFit, model.Precision, string) {
	by := map[model.Precision][]calibrate.GEMMSample{}
	all := 0
	for _, t := range traces {
		for _, k := range t.GEMMs {
			all++
			if p, ok := precisionOf(k.Dtype); ok {
				by[p] = append(by[p], calibrate.GEMMSample{M: k.M, N: k.N, K: k.K, Seconds: k.Dur})
			}
		}
	}
	if all == 0 {
		return nil, 0, ""
	}
	var p model.Precision
	n := -1
	for _, q := range []model.Precision{model.BF16, model.FP16, model.FP8} {
		if len(by[q]) > n {
			p, n = q, len(by[q])
		}
	}
	if n == 0 {
		return nil, 0, fmt.Sprintf("GEMM: %d kernels with shapes, none in bf16, fp16 or fp8: no curve fitted", all)
	}
	f, err := calibrate.FitGEMM(g, p, by[p])
	if err != nil {
		return nil, p, fmt.Sprintf("GEMM: %d %s kernels with shapes: %v", n, p, err)
	}
	return &f, p, fmt.Sprintf("GEMM on %s (%s, %d shapes, %d kernels): fitted %.0f%% of peak and %.1f µs a kernel (built-in %.0f%%, 6.0 µs); rms log error %.0f%% → %.0f%%",
		g.ID, p, f.Shapes, f.Kernels, 100*f.Eff, f.Latency*1e6, 100*g.MatmulEff(p), 100*f.BuiltinRMS, 100*f.FittedRMS)
}

// modelShares splits the model's step: compute (with recompute, the optimizer and offload),
// communication (TP, PP, exposed DP, EP), idle (the bubble).
func modelShares(r costmodel.Report) Shares {
	b := r.Breakdown
	step := r.StepTime
	if !(step > 0) {
		return Shares{}
	}
	return Shares{
		Compute: (b.Compute + b.Recompute + b.Optimizer + b.Offload) / step,
		Comm:    (b.TPComm + b.PPComm + b.DPComm + b.EPComm) / step,
		Idle:    b.Bubble / step,
		Span:    step,
	}
}

// merged is the union of intervals of one kind, sorted and disjoint.
func merged(t model.Trace, comm bool) [][2]float64 {
	var iv [][2]float64
	for _, st := range t.Streams {
		for _, k := range st.Intervals {
			if k.Class.Comm() == comm {
				iv = append(iv, [2]float64{k.Start, k.End})
			}
		}
	}
	return union(iv)
}

func union(iv [][2]float64) [][2]float64 {
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	out := iv[:0]
	for _, x := range iv {
		if n := len(out); n > 0 && x[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

func length(iv [][2]float64) float64 {
	s := 0.0
	for _, x := range iv {
		s += x[1] - x[0]
	}
	return s
}

func measuredShares(t model.Trace, comp, comm [][2]float64) Shares {
	if !(t.Span > 0) {
		return Shares{Idle: 1}
	}
	all := union(append(append([][2]float64{}, comp...), comm...))
	return Shares{
		Compute: length(comp) / t.Span,
		Comm:    length(comm) / t.Span,
		Idle:    max(1-length(all)/t.Span, 0),
		Span:    t.Span,
	}
}

// Cell is what one column of a lane shows.
type Cell uint8

// Cells: idle, compute, communication, both at once.
const (
	CellIdle Cell = iota
	CellCompute
	CellComm
	CellBoth
)

// cells turns the coverage of each of w equal slices of [0, span) into cells: a kind holds a
// cell where it covers half of it or more; else the larger where together they do.
func cells(comp, comm [][2]float64, span float64, w int) []Cell {
	out := make([]Cell, max(w, 0))
	if w <= 0 || !(span > 0) {
		return out
	}
	a, b := coverage(comp, span, w), coverage(comm, span, w)
	for i := range out {
		switch {
		case a[i] >= 0.5 && b[i] >= 0.5:
			out[i] = CellBoth
		case b[i] >= 0.5:
			out[i] = CellComm
		case a[i] >= 0.5:
			out[i] = CellCompute
		case a[i]+b[i] >= 0.5 && b[i] > a[i]:
			out[i] = CellComm
		case a[i]+b[i] >= 0.5:
			out[i] = CellCompute
		}
	}
	return out
}

// coverage is the share of each of w slices of [0, span) the disjoint intervals cover.
func coverage(iv [][2]float64, span float64, w int) []float64 {
	c := make([]float64, w)
	dt := span / float64(w)
	for _, x := range iv {
		s, e := max(x[0], 0), min(x[1], span)
		if !(e > s) {
			continue
		}
		i0, i1 := min(int(s/dt), w-1), min(int(e/dt), w-1)
		for i := i0; i <= i1; i++ {
			lo, hi := float64(i)*dt, float64(i+1)*dt
			if i == w-1 {
				hi = span
			}
			if d := min(e, hi) - max(s, lo); d > 0 {
				c[i] += d / dt
			}
		}
	}
	return c
}

// MeasuredCells is rank i's trace over w columns, its whole span.
func (o *Overlay) MeasuredCells(i, w int) []Cell {
	rk := o.Ranks[i]
	return cells(rk.comp, rk.comm, rk.trace.Span, w)
}

// ModeledCells is rank i's stage in the model's step over w columns: its ops (their TP and EP
// collectives as communication), then the exposed DP communication after the last op.
func (o *Overlay) ModeledCells(i, w int) []Cell {
	step := o.rep.StepTime
	var comp, comm [][2]float64
	if o.tl != nil {
		stage := o.Ranks[i].Stage
		for k, op := range o.tl.Ops {
			if op.Stage != stage {
				continue
			}
			var segs []costmodel.Segment
			if k < len(o.tl.Segments) {
				segs = o.tl.Segments[k]
			}
			if len(segs) == 0 {
				comp = append(comp, [2]float64{op.Start, op.End})
				continue
			}
			for _, sg := range segs {
				x := [2]float64{op.Start + sg.Start, op.Start + sg.End}
				if sg.Kind == costmodel.SegTPComm || sg.Kind == costmodel.SegEPComm {
					comm = append(comm, x)
				} else {
					comp = append(comp, x)
				}
			}
		}
		if dp := o.rep.Breakdown.DPComm; dp > 0 {
			comm = append(comm, [2]float64{o.tl.Makespan, o.tl.Makespan + dp})
		}
		step = max(step, o.tl.Makespan)
	}
	return cells(union(comp), union(comm), step, w)
}

// A metric compared, per rank.
type metric struct {
	what   string
	ratio  float64
	diff   float64 // a share's measured less modelled
	detail string
}

// biggest names the difference that stands out most, with the ranks where it holds: an NCCL
// collective whose median time per call is more than 1.5× off the model's for the same bytes
// over a communicator of the same GPUs (the furthest), else the share of time (compute,
// communication, idle) furthest from the model's step, in points.
func (o *Overlay) biggest(s model.Scenario) (string, float64) {
	per := map[string]map[int]metric{}
	add := func(rank int, m metric) {
		if per[m.what] == nil {
			per[m.what] = map[int]metric{}
		}
		per[m.what][rank] = m
	}
	fab := collective.FabricOf(s.Cluster)
	for _, rk := range o.Ranks {
		byOp := map[string][]float64{}
		sizes := map[string][]float64{}
		for _, c := range rk.trace.Collectives {
			op, err := collective.ParseOp(c.Op)
			if err != nil || !(c.Bytes > 0) || c.GroupSize < 2 || !(c.Dur > 0) {
				continue
			}
			var g *collective.Group
			for _, u := range o.rep.Collectives {
				if u.GPUs == c.GroupSize && u.Group.Ranks == c.GroupSize {
					gg := u.Group
					g = &gg
					if u.Op == c.Op {
						break
					}
				}
			}
			if g == nil {
				continue // no communicator of that size in the model's layout
			}
			pred := collective.Time(op, c.Bytes, *g, fab, collective.Auto).Seconds
			if !(pred > 0) {
				continue
			}
			byOp[c.Op] = append(byOp[c.Op], c.Dur/pred)
			sizes[c.Op] = append(sizes[c.Op], c.Bytes)
		}
		for op, rs := range byOp {
			add(rk.Rank, metric{what: "NCCL " + op, ratio: median(rs),
				detail: fmt.Sprintf("median of %d calls of %s", len(rs), fmtBytes(median(sizes[op])))})
		}
		m, p := rk.Measured, rk.Modeled
		for _, x := range []struct {
			what    string
			got, at float64
		}{{"compute", m.Compute, p.Compute}, {"communication", m.Comm, p.Comm}, {"idle", m.Idle, p.Idle}} {
			r := math.Max(x.got, 0.01) / math.Max(x.at, 0.01)
			add(rk.Rank, metric{what: x.what, ratio: r, diff: x.got - x.at,
				detail: fmt.Sprintf("%.0f%% of the trace, %.0f%% of the model's step", 100*x.got, 100*x.at)})
		}
	}
	// A collective off by more than half is named first, the furthest; else the share furthest
	// from the model's, in points.
	score := func(w string, m metric) float64 {
		if strings.HasPrefix(w, "NCCL ") {
			if sc := math.Abs(math.Log(m.ratio)); sc > math.Log(1.5) {
				return 10 + sc
			}
			return 0
		}
		return math.Abs(m.diff)
	}
	bestWhat, bestScore := "", 0.0
	whats := make([]string, 0, len(per))
	for w := range per {
		whats = append(whats, w)
	}
	sort.Strings(whats)
	for _, w := range whats {
		for _, m := range per[w] {
			if sc := score(w, m); sc > bestScore {
				bestWhat, bestScore = w, sc
			}
		}
	}
	if bestWhat == "" || bestScore < 0.01 {
		return "the trace's compute, communication and idle shares are the model's within a point", 1
	}
	// The ranks where that metric is within a fifth of its worst, on the same side.
	ms := per[bestWhat]
	var worstM metric
	for _, m := range ms {
		if sc := score(bestWhat, m); sc >= bestScore {
			worstM = m
		}
	}
	var ranks []int
	var ratios []float64
	for r, m := range ms {
		if (m.ratio >= 1) == (worstM.ratio >= 1) && score(bestWhat, m) >= 0.8*bestScore {
			ranks = append(ranks, r)
			ratios = append(ratios, m.ratio)
		}
	}
	sort.Ints(ranks)
	if len(ranks) > 1 {
		worstM.detail = "worst " + worstM.detail
	}
	if strings.HasPrefix(bestWhat, "NCCL ") {
		ratio := median(ratios)
		return fmt.Sprintf("%s %s the model's on %s (%s)", bestWhat, fmtRatio(ratio), rankList(ranks), worstM.detail), ratio
	}
	return fmt.Sprintf("%s %s on %s: %s", bestWhat, fmtPoints(worstM.diff), rankList(ranks), worstM.detail), worstM.ratio
}

func fmtPoints(d float64) string {
	if d >= 0 {
		return fmt.Sprintf("+%.0f points", 100*d)
	}
	return fmt.Sprintf("−%.0f points", -100*d)
}

func fmtRatio(r float64) string {
	if r >= 10 || r < 0.1 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64{}, x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// rankList writes ranks as "rank 3", "ranks 0–7" or "ranks 0–1, 4".
func rankList(r []int) string {
	if len(r) == 1 {
		return fmt.Sprintf("rank %d", r[0])
	}
	var parts []string
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", r[i], r[j]))
		} else {
			parts = append(parts, fmt.Sprint(r[i]))
		}
		i = j + 1
	}
	return "ranks " + strings.Join(parts, ", ")
}

// Files names the traces for a footer: the file's base name, or "N traces".
func (o *Overlay) Files() string {
	if len(o.Ranks) == 1 {
		return filepath.Base(o.Ranks[0].File)
	}
	return fmt.Sprintf("%d traces", len(o.Ranks))
}
