// Package calibrate fits the collective model's link parameters to a box's own measurements:
// given the runs of nccl-tests logs (model.NCCLRun, which assets.ParseNCCLLog reads from the
// files) it finds the link latency, efficiency, LL ceiling and NVLS efficiency with which
// costmodel/collective reproduces them best (Fit). It reads no file. `splitscope
// calibrate` writes the result as a calibration file, and --calibration FILE puts it in place of
// the presets' values.
//
// The fit changes physical parameters of the links only, never the model's constants, and keeps
// each in a range a person could defend (model.CalLatency, …). It is pure and deterministic: a
// bounded coordinate search, no randomness, no clock.
package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Sample is one measured row: an operation on a group took Seconds.
type Sample struct {
	Op      collective.Op
	Bytes   float64
	Seconds float64
	Group   collective.Group
	// Algo is the algorithm the run forced with NCCL_ALGO (Auto: NCCL's choice).
	Algo collective.Algo
	// Run is the index of the row's run in what Samples was given; File and Line say where the
	// row is.
	Run  int
	File string
	Line int
}

// Samples turns runs into samples, one per row, with the run's NCCL_ALGO when it names one
// algorithm the model has. The warnings say which NCCL_ALGO values were not understood.
func Samples(runs []model.NCCLRun) ([]Sample, []string) {
	var out []Sample
	var warn []string
	for i, r := range runs {
		algo := collective.Auto
		if r.NCCLAlgo != "" {
			a, ok := ncclAlgo(r.NCCLAlgo)
			if ok {
				algo = a
			} else {
				warn = append(warn, fmt.Sprintf("%s:%d: NCCL_ALGO=%s is not one algorithm the model has (ring, tree, nvls, nvlstree): the fit lets the model choose", r.File, r.NCCLAlgoLine, r.NCCLAlgo))
			}
		}
		ranks, nodes := r.Measured()
		g := collective.Group{Ranks: ranks, Nodes: nodes}
		for _, row := range r.Rows {
			out = append(out, Sample{Op: r.Op, Bytes: row.Bytes, Seconds: row.Seconds(), Group: g, Algo: algo,
				Run: i, File: r.File, Line: row.Line})
		}
	}
	return out, warn
}

// ncclAlgo reads one NCCL_ALGO value: a single algorithm, any case.
func ncclAlgo(s string) (collective.Algo, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ring":
		return collective.Ring, true
	case "tree":
		return collective.Tree, true
	case "nvls":
		return collective.NVLS, true
	case "nvlstree", "nvls_tree", "nvls-tree":
		return collective.NVLSTree, true
	}
	return collective.Auto, false
}

// Param is a link parameter the fit can move.
type Param uint8

// The parameters: α (model.Link.Latency), the efficiency of large collectives, the LL
// protocol's bandwidth ceiling and the NVLS efficiency.
const (
	Latency Param = iota
	Efficiency
	LLBandwidth
	NVLSEfficiency
)

var paramNames = []string{"latency", "efficiency", "ll_bandwidth", "nvls_efficiency"}

func (p Param) String() string {
	if int(p) < len(paramNames) {
		return paramNames[p]
	}
	return fmt.Sprintf("param(%d)", int(p))
}

// Status says what the fit did with a parameter.
type Status uint8

// Fitted: moved to where the rows say; NoRows: kept, since no row's time depends on it (no
// message small enough for LL, no NVLS run, …); NotApplicable: the link does not have it.
const (
	Fitted Status = iota
	NoRows
	NotApplicable
)

var statusNames = []string{"fitted", "no rows depend on it", "the link has none"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// ParamFit is one parameter's fit, in SI units (seconds, a fraction, bytes/s).
type ParamFit struct {
	// Role is "intra" or "inter"; Link the link's ID.
	Role, Link string
	Param      Param
	Preset     float64
	Value      float64
	Range      model.Range
	Status     Status
	// Bound is "lower" or "upper" when the fit stopped at that end of Range, "" otherwise.
	Bound string
	// Rows is how many rows' times move when the parameter moves 10% from its value.
	Rows int
}

// RowFit is one sample with the model's time before the fit (the presets) and after.
type RowFit struct {
	Sample
	Preset, Fitted collective.Result
}

// PresetError and FittedError are the model's relative time errors, signed: + when the model is
// slower than the measurement.
func (r RowFit) PresetError() float64 { return r.Preset.Seconds/r.Seconds - 1 }

// FittedError is the fitted model's relative time error, signed.
func (r RowFit) FittedError() float64 { return r.Fitted.Seconds/r.Seconds - 1 }

// Stats summarise relative errors: the mean and the largest of their sizes over N rows.
type Stats struct {
	Mean, Max float64
	N         int
}

// Result is a fit: the links with their fitted parameters, each parameter's fit, every row
// before and after, and the mean errors.
type Result struct {
	// Fabric is the base fabric with the fitted parameters in place.
	Fabric collective.Fabric
	// IntraFitted and InterFitted say which links had rows to fit (single-node rows fit the
	// intra-node link, multi-node rows the network).
	IntraFitted, InterFitted bool
	Params                   []ParamFit
	Rows                     []RowFit
	Before, After            Stats
}

// ErrNoSamples is returned by Fit when there is nothing to fit.
var ErrNoSamples = errors.New("calibrate: no rows to fit")

// The search: gridPoints log-spaced values over a parameter's range, then a golden-section
// search between the best grid point's neighbours, goldenSteps times; passes over the
// parameters until a pass gains less than minGain of mean error, at most maxPasses.
const (
	gridPoints  = 24
	goldenSteps = 40
	maxPasses   = 16
	minGain     = 1e-7
)

// Fit finds the link parameters with which the collective model reproduces the samples best:
// the smallest mean relative time error, each parameter inside its model.Cal* range. Rows on one
// node fit the intra-node link (α, efficiency, the LL ceiling and, on an NVLink SHARP link, the
// NVLS efficiency); rows across nodes then fit the network link (α and efficiency) with the
// intra-node link as fitted. A parameter no row depends on keeps the base's value. base is the
// fabric to start from: the presets of the GPU's links.
func Fit(samples []Sample, base collective.Fabric) (Result, error) {
	var one, many, all []Sample
	for _, s := range samples {
		if !(s.Seconds > 0) || !(s.Bytes > 0) || s.Group.Ranks < 2 || math.IsInf(s.Seconds, 0) || math.IsInf(s.Bytes, 0) {
			continue
		}
		all = append(all, s)
		if s.Group.Nodes > 1 {
			many = append(many, s)
		} else {
			one = append(one, s)
		}
	}
	if len(one)+len(many) == 0 {
		return Result{}, ErrNoSamples
	}
	if err := checkLink("intra", base.Intra); err != nil {
		return Result{}, err
	}
	if len(many) > 0 {
		if err := checkLink("inter", base.Inter); err != nil {
			return Result{}, err
		}
	}
	res := Result{Fabric: base}
	f := base
	if len(one) > 0 {
		res.IntraFitted = true
		ps := []Param{Latency, Efficiency, LLBandwidth, NVLSEfficiency}
		res.Params = append(res.Params, fitParams(one, &f, true, ps)...)
	}
	if len(many) > 0 {
		res.InterFitted = true
		res.Params = append(res.Params, fitParams(many, &f, false, []Param{Latency, Efficiency})...)
	}
	res.Fabric = f
	for _, s := range all {
		res.Rows = append(res.Rows, RowFit{Sample: s, Preset: collective.Time(s.Op, s.Bytes, s.Group, base, s.Algo),
			Fitted: collective.Time(s.Op, s.Bytes, s.Group, f, s.Algo)})
	}
	res.Before = stats(res.Rows, func(r RowFit) float64 { return r.PresetError() })
	res.After = stats(res.Rows, func(r RowFit) float64 { return r.FittedError() })
	return res, nil
}

// checkLink refuses a base link the model cannot time.
func checkLink(role string, l model.Link) error {
	good := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	if !good(l.Bandwidth) || !good(l.Latency) || !good(l.Efficiency) {
		return fmt.Errorf("calibrate: %s link %q: bandwidth, latency and efficiency must be positive", role, l.ID)
	}
	return nil
}

func stats(rows []RowFit, e func(RowFit) float64) Stats {
	var s Stats
	for _, r := range rows {
		a := math.Abs(e(r))
		s.Mean += a
		s.Max = max(s.Max, a)
		s.N++
	}
	if s.N > 0 {
		s.Mean /= float64(s.N)
	}
	return s
}

// knob is one parameter being fitted: where it lives in the fabric, its range, and whether 0
// means "none" (the LL ceiling).
type knob struct {
	p      Param
	at     *float64
	r      model.Range
	start  float64
	status Status
}

// fitParams fits the parameters ps of the intra-node link (intra) or the network link of f, in
// place, on the samples.
func fitParams(samples []Sample, f *collective.Fabric, intra bool, ps []Param) []ParamFit {
	l, role := &f.Inter, "inter"
	if intra {
		l, role = &f.Intra, "intra"
	}
	var knobs []*knob
	for _, p := range ps {
		k := &knob{p: p}
		switch p {
		case Latency:
			k.at, k.r = &l.Latency, model.CalLatency
		case Efficiency:
			k.at, k.r = &l.Efficiency, model.CalEfficiency
		case LLBandwidth:
			// The ceiling matters below half the link's bus bandwidth, LL's own limit.
			k.at, k.r = &l.LLBandwidth, model.Range{Min: model.CalLLBandwidth.Min, Max: min(model.CalLLBandwidth.Max, max(l.Bandwidth, 2*model.CalLLBandwidth.Min))}
		case NVLSEfficiency:
			k.at, k.r = &l.NVLSEfficiency, model.CalNVLSEfficiency
			if !l.NVLS {
				k.status = NotApplicable
			}
		}
		k.start = *k.at
		knobs = append(knobs, k)
	}
	obj := func() float64 { return meanError(samples, *f) }

	// A parameter no row depends on, across its whole range, is left as it is.
	for _, k := range knobs {
		if k.status != Fitted {
			continue
		}
		if !moves(samples, f, k, k.r.Min, k.r.Max) {
			k.status = NoRows
		}
	}
	// Start inside the ranges: an LL ceiling of 0 (none) starts at LL's own limit.
	for _, k := range knobs {
		if k.status != Fitted {
			continue
		}
		if k.p == LLBandwidth && *k.at == 0 {
			*k.at = 0.5 * l.Bandwidth * l.Efficiency
		}
		*k.at = min(max(*k.at, k.r.Min), k.r.Max)
	}
	best := obj()
	for range maxPasses {
		before := best
		for _, k := range knobs {
			if k.status == Fitted {
				best = search1(k, obj, best)
			}
		}
		if before-best < minGain {
			break
		}
	}

	// A value no row moves with (an LL ceiling above LL's own limit) goes back to the base's when
	// that changes nothing: the rows cannot tell them apart.
	for _, k := range knobs {
		if k.status != Fitted || countMoves(samples, f, k, *k.at*0.9, min(*k.at*1.1, k.r.Max)) > 0 {
			continue
		}
		v := *k.at
		*k.at = k.start
		if e := obj(); e > best*(1+1e-12) {
			*k.at = v
			continue
		}
		k.status = NoRows
	}

	var out []ParamFit
	for _, k := range knobs {
		pf := ParamFit{Role: role, Link: l.ID, Param: k.p, Preset: k.start, Value: *k.at, Range: k.r, Status: k.status}
		if k.status == Fitted {
			lo, hi := math.Log(k.r.Min), math.Log(k.r.Max)
			switch v := math.Log(*k.at); {
			case v-lo < 1e-3*(hi-lo):
				pf.Bound = "lower"
			case hi-v < 1e-3*(hi-lo):
				pf.Bound = "upper"
			}
			pf.Rows = countMoves(samples, f, k, *k.at*0.9, min(*k.at*1.1, k.r.Max))
		}
		out = append(out, pf)
	}
	return out
}

// search1 moves one parameter to its best value in log space, the others fixed: the best of a
// grid over its range (the error is not unimodal: the model switches protocols and algorithms),
// refined by a golden-section search around it. It keeps the current value unless another is
// better, and returns the error there.
func search1(k *knob, obj func() float64, cur float64) float64 {
	lo, hi := math.Log(k.r.Min), math.Log(k.r.Max)
	at := func(x float64) float64 {
		*k.at = math.Exp(x)
		return obj()
	}
	bestX, bestE := math.Log(*k.at), cur
	step := (hi - lo) / float64(gridPoints-1)
	gi := -1
	for i := range gridPoints {
		x := lo + float64(i)*step
		if e := at(x); e < bestE {
			bestX, bestE, gi = x, e, i
		}
	}
	// Refine between the neighbours of the best point (of the grid, or the current value).
	a, b := max(bestX-step, lo), min(bestX+step, hi)
	if gi < 0 {
		a, b = max(bestX-step/2, lo), min(bestX+step/2, hi)
	}
	const g = 0.6180339887498949
	c, d := b-g*(b-a), a+g*(b-a)
	ec, ed := at(c), at(d)
	for range goldenSteps {
		if ec <= ed {
			b, d, ed = d, c, ec
			c = b - g*(b-a)
			ec = at(c)
		} else {
			a, c, ec = c, d, ed
			d = a + g*(b-a)
			ed = at(d)
		}
	}
	for _, x := range []struct{ x, e float64 }{{c, ec}, {d, ed}} {
		if x.e < bestE {
			bestX, bestE = x.x, x.e
		}
	}
	*k.at = math.Exp(bestX)
	return bestE
}

// meanError is the mean relative time error of the model on the fabric over the samples.
func meanError(samples []Sample, f collective.Fabric) float64 {
	var sum float64
	for _, s := range samples {
		t := collective.Time(s.Op, s.Bytes, s.Group, f, s.Algo).Seconds
		sum += math.Abs(t/s.Seconds - 1)
	}
	return sum / float64(len(samples))
}

// moves reports whether some sample's time changes between the parameter at a and at b.
func moves(samples []Sample, f *collective.Fabric, k *knob, a, b float64) bool {
	return countMoves(samples, f, k, a, b) > 0
}

// countMoves counts the samples whose time changes (by more than a millionth) between the
// parameter at a and at b, the others as they are; the parameter is restored.
func countMoves(samples []Sample, f *collective.Fabric, k *knob, a, b float64) int {
	keep := *k.at
	defer func() { *k.at = keep }()
	n := 0
	for _, s := range samples {
		*k.at = a
		ta := collective.Time(s.Op, s.Bytes, s.Group, *f, s.Algo).Seconds
		*k.at = b
		tb := collective.Time(s.Op, s.Bytes, s.Group, *f, s.Algo).Seconds
		if math.Abs(ta-tb) > 1e-6*max(ta, tb) {
			n++
		}
	}
	return n
}

// Key is the parameter's key in a calibration file, with its unit: latency_us, efficiency,
// ll_bandwidth_gbps, nvls_efficiency.
func (p Param) Key() string {
	switch p {
	case Latency:
		return "latency_us"
	case LLBandwidth:
		return "ll_bandwidth_gbps"
	}
	return p.String()
}

// InKeyUnits converts a value of the parameter from SI to the unit its Key names (µs, GB/s).
func (p Param) InKeyUnits(v float64) float64 {
	switch p {
	case Latency:
		return v * 1e6
	case LLBandwidth:
		return v / 1e9
	}
	return v
}
