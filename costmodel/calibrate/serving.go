package calibrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Serving: the GPU's and the serving engine's physical parameters, fitted to a box's own serving
// benchmarks (`splitscope calibrate --from`). Each run is served in the model as it ran (the
// caller builds its scenario, as validate --against does) and its figures (TTFT, TPOT, ITL, E2E,
// throughput) are set beside the model's; the fit changes four parameters of the box, each in a
// range a person could defend (model.CalMemoryEff, …):
//
//   - memory_eff, the fraction of the memory bandwidth a decode step's reads reach: TPOT and ITL,
//     and the throughput of a decode-bound run;
//   - compute_eff, the fraction of peak a prompt's matmuls reach: TTFT, and the throughput of a
//     prompt-heavy run;
//   - step_overhead, the engine's host time once a step: TPOT and ITL at light load (where the
//     step is short), less under a full batch;
//   - kernel_floor, what each small kernel pays, once per kernel of every layer: the same figures
//     as step_overhead, scaled by the layers; fitted only beside a fitted step_overhead, from
//     which runs of models of different depth tell it.
//
// A parameter is fitted only where the files pin it down: a parameter no figure moves with is
// left at its default, and so is one that moves the figures the way a parameter fitted before
// it does (at one batch size and one model, a slower memory and a longer step are the same
// TPOT): runs at other loads, lengths or models separate them. The fit is a bounded coordinate
// search, golden sections on the logarithm of each parameter, minimising the mean |log error|
// over every figure (robust to one figure far off), deterministic: no randomness, no clock.

// ServeParam is one serving parameter the fit may change.
type ServeParam uint8

const (
	MemoryEff ServeParam = iota
	ComputeEff
	StepOverhead
	KernelFloor
	numServeParams
)

var serveParamKeys = []string{"memory_eff", "compute_eff", "step_overhead_us", "kernel_floor_us"}

// Key is the parameter's key in a calibration file's serving: section.
func (p ServeParam) Key() string {
	if int(p) < len(serveParamKeys) {
		return serveParamKeys[p]
	}
	return fmt.Sprintf("ServeParam(%d)", p)
}

// Range is where the fit may put the parameter, SI units.
func (p ServeParam) Range() model.Range {
	switch p {
	case MemoryEff:
		return model.CalMemoryEff
	case ComputeEff:
		return model.CalComputeEff
	case StepOverhead:
		return model.CalStepOverhead
	default:
		return model.CalKernelFloor
	}
}

// clamp puts v in the parameter's range (a value exp(log(bound)) gives may round outside it).
func (p ServeParam) clamp(v float64) float64 {
	r := p.Range()
	return math.Min(math.Max(v, r.Min), r.Max)
}

// InKeyUnits is v in the unit of the parameter's key (µs for the overheads).
func (p ServeParam) InKeyUnits(v float64) float64 {
	if p == StepOverhead || p == KernelFloor {
		return v * 1e6
	}
	return v
}

// ServeStatus says what the fit did with a parameter.
type ServeStatus uint8

const (
	ServeFitted    ServeStatus = iota // fitted
	ServeUnpinned                     // no figure moves with it: left at its default
	ServeCollinear                    // moves the figures as one fitted before it: left at its default
	ServeWeak                         // moves them little apart from what one fitted before it does: left at its default
)

// ServeFigure is one measured figure of a run: Name as validate --against names it
// (itl_median_s), Measured in seconds or per second.
type ServeFigure struct {
	Name     string
	Measured float64
}

// ServeRun is one measured run: the scenario it is served as, its figures, and Predict, which
// gives the model's value of each figure (in Figures' order) from the served inference.
type ServeRun struct {
	Where    string // the file and line, for messages
	Scenario model.Scenario
	Figures  []ServeFigure
	Predict  func(costmodel.Inference) []float64
}

// ServeParamFit is one parameter's fit.
type ServeParamFit struct {
	Param   ServeParam
	Default float64 // the GPU preset's value (or the engine's)
	Value   float64 // fitted; Default when not fitted
	Range   model.Range
	Status  ServeStatus
	With    ServeParam // ServeCollinear: the fitted parameter it moves with
	Bound   string     // "lower" or "upper" when the fit stopped at a bound
	// Figures are the kinds of figure (ttft, tpot, itl, e2e, requests_per_s, …) that move with
	// the parameter, by how much: d log figure / d log parameter, the largest of each kind.
	Figures []FigureSensitivity
}

// FigureSensitivity is how much figures of one kind move with a parameter.
type FigureSensitivity struct {
	Kind  string  `json:"kind"`
	Slope float64 `json:"slope"` // d log figure / d log parameter, the largest in size over the kind's figures
}

// ServeFigureFit is one figure before and after the fit.
type ServeFigureFit struct {
	Run       int
	Where     string
	Name      string
	Measured  float64
	Before    float64 // the model's, with the defaults
	After     float64 // with the fitted parameters
	BeforeErr float64 // predicted / measured − 1
	AfterErr  float64
}

// ServeStats summarise |errors| over figures.
type ServeStats struct {
	N                 int
	Mean, Median, Max float64
}

// ServeResult is a serving fit.
type ServeResult struct {
	GPU           model.GPU
	Params        []ServeParamFit
	Figures       []ServeFigureFit
	Before, After ServeStats
	// Calibration holds the fitted parameters alone (zero for the others); Empty when none could
	// be fitted.
	Calibration model.ServingCalibration
	// Evaluations is how many times the runs were served.
	Evaluations int
}

// ErrNoRuns is FitServing's error for an empty input.
var ErrNoRuns = errors.New("calibrate: no serving runs to fit")

// Sensitivity: secant slopes, d log figure / d log parameter over a threefold change of an
// efficiency and a tenfold one of an overhead (whose range spans three decades), so that a
// parameter small at its default, a short step, is judged over what the fit may make of it. A
// column of slopes under minSlopeRMS (RMS) moves nothing; one that keeps under minIndependent of
// its size once the fitted parameters' columns are projected out moves the figures as they do;
// one that keeps under minOwnSlope (RMS) moves them too little apart from them.
const (
	sensStep       = 3.0
	overheadStep   = 10.0
	minSlopeRMS    = 0.02
	minIndependent = 0.2
	minOwnSlope    = 0.05
	// A figure the model gives as 0 or not a number counts as this far off (|log error|).
	badFigure = 5.0
)

// serveValues are the four parameters' values, indexed by ServeParam.
type serveValues [numServeParams]float64

func defaults(g model.GPU) serveValues {
	step, floor := costmodel.ServingDefaults(g)
	v := serveValues{g.MemoryEff, g.ComputeEff, step, floor}
	if g.StepOverhead > 0 {
		v[StepOverhead] = g.StepOverhead
	}
	if g.KernelFloor > 0 {
		v[KernelFloor] = g.KernelFloor
	}
	return v
}

func (v serveValues) gpu(g model.GPU) model.GPU {
	for p := range numServeParams {
		v[p] = p.clamp(v[p])
	}
	return model.ServingCalibration{MemoryEff: v[MemoryEff], ComputeEff: v[ComputeEff], StepOverhead: v[StepOverhead], KernelFloor: v[KernelFloor]}.ApplyGPU(g)
}

// server serves the runs with given parameters, every run at once.
type server struct {
	runs     []ServeRun
	timeline []bool // the run has ITL figures
	gpu      model.GPU
	evals    int
}

func (s *server) predict(v serveValues) ([][]float64, error) {
	s.evals++
	g := v.gpu(s.gpu)
	out := make([][]float64, len(s.runs))
	errs := make([]error, len(s.runs))
	var wg sync.WaitGroup
	for i := range s.runs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := s.runs[i]
			sc := r.Scenario
			sc.Cluster.GPU = g
			evaluate := costmodel.EvaluateFast
			if s.timeline[i] {
				evaluate = costmodel.Evaluate // the timeline's record gives the ITL figures
			}
			rep, err := evaluate(sc)
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("%s: %w", r.Where, err)
			case rep.Inference == nil:
				errs[i] = fmt.Errorf("%s: the model served no requests", r.Where)
			default:
				out[i] = r.Predict(*rep.Inference)
				if len(out[i]) != len(r.Figures) {
					errs[i] = fmt.Errorf("%s: %d predictions for %d figures", r.Where, len(out[i]), len(r.Figures))
				}
			}
		}(i)
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// logErrs are the figures' log errors, one list over every run.
func (s *server) logErrs(pred [][]float64) []float64 {
	var out []float64
	for i, r := range s.runs {
		for j, f := range r.Figures {
			out = append(out, logErr(pred[i][j], f.Measured))
		}
	}
	return out
}

func logErr(pred, meas float64) float64 {
	if !(pred > 0) || math.IsInf(pred, 0) || !(meas > 0) {
		return badFigure
	}
	return math.Log(pred / meas)
}

func meanAbs(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Min(math.Abs(x), badFigure)
	}
	return sum / float64(len(xs))
}

// FitServing fits the serving parameters of the runs' GPU (every run must be on the same GPU
// preset) to their figures. It returns an error when a run cannot be served.
func FitServing(runs []ServeRun) (ServeResult, error) {
	var res ServeResult
	if len(runs) == 0 {
		return res, ErrNoRuns
	}
	g := runs[0].Scenario.Cluster.GPU
	for _, r := range runs[1:] {
		if id := r.Scenario.Cluster.GPU.ID; id != g.ID {
			return res, fmt.Errorf("%s runs on %s, %s on %s: fit one box at a time", runs[0].Where, g.ID, r.Where, id)
		}
	}
	res.GPU = g
	srv := &server{runs: runs, gpu: g, timeline: make([]bool, len(runs))}
	for i, r := range runs {
		srv.timeline[i] = slices.ContainsFunc(r.Figures, func(f ServeFigure) bool { return figureKind(f.Name) == "itl" })
	}
	x0 := defaults(g)
	for p := range numServeParams {
		if r := p.Range(); !r.Contains(x0[p]) {
			// A preset outside the calibration's range starts at the bound.
			x0[p] = math.Min(math.Max(x0[p], r.Min), r.Max)
		}
	}
	base, err := srv.predict(x0)
	if err != nil {
		return res, err
	}
	e0 := srv.logErrs(base)
	if len(e0) == 0 {
		return res, errors.New("calibrate: the runs have no figures")
	}

	// Slopes: d log figure / d log parameter, each parameter moved by sensStep alone.
	slopes := make([][]float64, numServeParams)
	for p := range numServeParams {
		x := x0
		step := float64(sensStep)
		if p == StepOverhead || p == KernelFloor {
			step = overheadStep
		}
		if x[p]*step > p.Range().Max {
			step = 1 / step
		}
		x[p] *= step
		pred, err := srv.predict(x)
		if err != nil {
			return res, err
		}
		e := srv.logErrs(pred)
		col := make([]float64, len(e))
		for i := range e {
			col[i] = (e[i] - e0[i]) / math.Log(step)
		}
		slopes[p] = col
	}

	// Which parameters the figures pin down, in ServeParam's order: a column with little size
	// moves nothing; one mostly in the span of the fitted ones' moves with them.
	var basis [][]float64 // orthonormal, of the fitted columns
	var basisOf []ServeParam
	res.Params = make([]ServeParamFit, numServeParams)
	var free []ServeParam
	for p := range numServeParams {
		pf := ServeParamFit{Param: p, Default: x0[p], Value: x0[p], Range: p.Range(), Figures: sensitivities(runs, slopes[p])}
		col := slopes[p]
		size := rms(col)
		switch {
		case size < minSlopeRMS:
			pf.Status = ServeUnpinned
		case p == KernelFloor && res.Params[StepOverhead].Status != ServeFitted:
			// Every layer's kernels pay the floor once a step: to the figures it is more step
			// overhead, unless the runs' models differ in depth. Without a fitted step overhead
			// to tell it from, it stands for it, which the host's time is more often.
			pf.Status, pf.With = ServeCollinear, StepOverhead
		default:
			r := slices.Clone(col)
			best, bestDot := ServeParam(0), -1.0
			for k, b := range basis {
				d := dot(r, b)
				if math.Abs(d) > bestDot {
					best, bestDot = basisOf[k], math.Abs(d)
				}
				for i := range r {
					r[i] -= d * b[i]
				}
			}
			if rest := rms(r); rest < minIndependent*size {
				pf.Status, pf.With = ServeCollinear, best
			} else if rest < minOwnSlope {
				pf.Status, pf.With = ServeWeak, best
			} else {
				n := math.Sqrt(dot(r, r))
				for i := range r {
					r[i] /= n
				}
				basis, basisOf = append(basis, r), append(basisOf, p)
				free = append(free, p)
			}
		}
		res.Params[p] = pf
	}

	// The coordinate search: a golden section over each free parameter's range in turn, then
	// narrower ones around the values found.
	x := x0
	obj := func(x serveValues) (float64, error) {
		pred, err := srv.predict(x)
		if err != nil {
			return 0, err
		}
		return meanAbs(srv.logErrs(pred)), nil
	}
	cur := meanAbs(e0)
	for sweep := 0; sweep < 6 && len(free) > 0; sweep++ {
		start, from := cur, x
		for _, p := range free {
			rg := p.Range()
			lo, hi, tol := math.Log(rg.Min), math.Log(rg.Max), 0.04
			if sweep > 0 {
				lo, hi, tol = math.Max(lo, math.Log(x[p])-0.3), math.Min(hi, math.Log(x[p])+0.3), 0.01
			}
			v, f, err := golden(lo, hi, tol, func(l float64) (float64, error) {
				y := x
				y[p] = math.Exp(l)
				return obj(y)
			})
			if err != nil {
				return res, err
			}
			if f < cur { // never worse than where the sweep started
				x[p], cur = p.clamp(math.Exp(v)), f
			}
		}
		// Along the sweep's whole move (Powell's step): parameters that trade against each other
		// (a slower memory, a shorter step) move together down their valley, which one at a
		// time they cross slowly.
		if sweep > 0 && x != from {
			along := func(k float64) serveValues {
				y := x
				for _, p := range free {
					l := math.Log(x[p]) + k*(math.Log(x[p])-math.Log(from[p]))
					y[p] = p.clamp(math.Exp(l))
				}
				return y
			}
			k, f, err := golden(0, 4, 0.05, func(k float64) (float64, error) { return obj(along(k)) })
			if err != nil {
				return res, err
			}
			if f < cur {
				x, cur = along(k), f
			}
		}
		if start-cur < 1e-3 {
			break
		}
	}
	after, err := srv.predict(x)
	if err != nil {
		return res, err
	}
	for _, p := range free {
		pf := &res.Params[p]
		pf.Value = x[p]
		if math.Log(x[p]/pf.Range.Min) < 0.02 {
			pf.Bound = "lower"
		}
		if math.Log(pf.Range.Max/x[p]) < 0.02 {
			pf.Bound = "upper"
		}
		switch p {
		case MemoryEff:
			res.Calibration.MemoryEff = x[p]
		case ComputeEff:
			res.Calibration.ComputeEff = x[p]
		case StepOverhead:
			res.Calibration.StepOverhead = x[p]
		case KernelFloor:
			res.Calibration.KernelFloor = x[p]
		}
	}
	var bErr, aErr []float64
	for i, r := range runs {
		for j, f := range r.Figures {
			ff := ServeFigureFit{Run: i, Where: r.Where, Name: f.Name, Measured: f.Measured, Before: base[i][j], After: after[i][j],
				BeforeErr: relErr(base[i][j], f.Measured), AfterErr: relErr(after[i][j], f.Measured)}
			res.Figures = append(res.Figures, ff)
			bErr, aErr = append(bErr, ff.BeforeErr), append(aErr, ff.AfterErr)
		}
	}
	res.Before, res.After = ServeStatsOf(bErr), ServeStatsOf(aErr)
	res.Evaluations = srv.evals
	return res, nil
}

// relErr is predicted / measured − 1 (capped: a figure the model gives as 0 is −100%).
func relErr(pred, meas float64) float64 {
	if !(meas > 0) || math.IsNaN(pred) || math.IsInf(pred, 0) {
		return 0
	}
	return pred/meas - 1
}

// ServeStatsOf summarises the sizes of errors: how many, their mean, median and largest.
func ServeStatsOf(errs []float64) ServeStats {
	st := ServeStats{N: len(errs)}
	if len(errs) == 0 {
		return st
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
		st.Mean += abs[i]
		st.Max = math.Max(st.Max, abs[i])
	}
	st.Mean /= float64(len(abs))
	slices.Sort(abs)
	if n := len(abs); n%2 == 1 {
		st.Median = abs[n/2]
	} else {
		st.Median = (abs[n/2-1] + abs[n/2]) / 2
	}
	return st
}

// golden minimises f over [lo, hi] to within tol: the best point seen and its value.
func golden(lo, hi, tol float64, f func(float64) (float64, error)) (float64, float64, error) {
	const r = 0.6180339887498949
	a, b := lo, hi
	c, d := b-r*(b-a), a+r*(b-a)
	fc, err := f(c)
	if err != nil {
		return 0, 0, err
	}
	fd, err := f(d)
	if err != nil {
		return 0, 0, err
	}
	for b-a > tol {
		if fc <= fd {
			b, d, fd = d, c, fc
			c = b - r*(b-a)
			if fc, err = f(c); err != nil {
				return 0, 0, err
			}
		} else {
			a, c, fc = c, d, fd
			d = a + r*(b-a)
			if fd, err = f(d); err != nil {
				return 0, 0, err
			}
		}
	}
	if fc <= fd {
		return c, fc, nil
	}
	return d, fd, nil
}

// sensitivities groups a column of slopes by figure kind (the name before its statistic).
func sensitivities(runs []ServeRun, col []float64) []FigureSensitivity {
	var out []FigureSensitivity
	i := 0
	for _, r := range runs {
		for _, f := range r.Figures {
			kind := figureKind(f.Name)
			k := slices.IndexFunc(out, func(s FigureSensitivity) bool { return s.Kind == kind })
			if k < 0 {
				out = append(out, FigureSensitivity{Kind: kind})
				k = len(out) - 1
			}
			if math.Abs(col[i]) > math.Abs(out[k].Slope) {
				out[k].Slope = col[i]
			}
			i++
		}
	}
	return out
}

// figureKind is ttft of ttft_median_s, requests_per_s of requests_per_s.
func figureKind(name string) string {
	for _, k := range []string{"ttft", "tpot", "itl", "e2e"} {
		if strings.HasPrefix(name, k+"_") {
			return k
		}
	}
	return name
}

func rms(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return math.Sqrt(dot(xs, xs) / float64(len(xs)))
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
