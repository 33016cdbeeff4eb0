package assets

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/splitscope/splitscope/model"
)

// Calibration files.
//
// `splitscope calibrate --out FILE` writes one; --calibration FILE reads it. It holds one box's
// link parameters, fitted from its nccl-tests logs, under one key:
//
//	# splitscope calibration …
//	calibration:
//	  gpu: a100-sxm-80gb               # the GPU preset the logs were measured on
//	  engine: vllm                     # serving: only where this engine serves (runs of one engine)
//	  from: [a100-8x-all_reduce_perf.log]
//	  intra:                           # the link between the GPUs of a node
//	    link: nvlink3                  # the link preset it replaces
//	    bandwidth_gbps: 300            # what the efficiency is relative to, GB/s per GPU and way
//	    latency_us: 2.99               # α, the LL step
//	    efficiency: 0.797
//	    ll_bandwidth_gbps: 24.3        # LL's bus bandwidth ceiling
//	    nvls_efficiency: 0.6           # NVLink SHARP links only
//	  inter:                           # the network, per NIC: same keys (no nvls_efficiency)
//	    link: ib-hdr
//	    latency_us: 6.1
//	    efficiency: 0.78
//	  serving:                         # calibrate --from: the GPU's and the engine's serving parameters
//	    compute_eff: 0.61              # fraction of peak a prompt's matmuls reach (every precision)
//	    compute_eff_fp8: 0.5           # fp8's apart (calibrate --from on fp8 training logs)
//	    memory_eff: 0.83               # fraction of the memory bandwidth decode reaches
//	    step_overhead_us: 412          # the engine's host time once a step
//	    kernel_floor_us: 4             # what a kernel too small to fill the GPU pays
//	    gemm_latency_us: 7.5           # the GEMM curve's time per kernel (calibrate --from TRACE)
//
// The GPU's parameters may instead be kept under the name of what they were fitted to, as
// calibrate --from writes them: training: (training logs: compute_eff, compute_eff_fp8) or
// gemm: (a profiler trace's GEMM kernels: compute_eff or compute_eff_fp8, gemm_latency_us). A
// file has one of serving:, training: and gemm:; serving: takes every key.
//	  fit:                             # how well the fit went (not read back into the model)
//	    rows: 51
//	    mean_error: 0.021
//	    max_error: 0.114
//
// Every key but link is optional in intra and inter (a key left out keeps the preset's value),
// every key of serving (training, gemm) is optional (at least one), and at least one of intra,
// inter and serving (training, gemm) is present. Unknown keys, repeated keys, values of the wrong
// type and values outside the ranges a calibration may take (model.CalLatency, …) are refused,
// each naming the file, the line and the key.

// calibrationKeys are the keys of each level, in the order MarshalCalibration writes them.
var (
	calibrationTop  = []string{"calibration"}
	calibrationKeys = []string{"gpu", "engine", "from", "intra", "inter", "serving", "training", "gemm", "fit"}
	calServingKeys  = []string{"compute_eff", "compute_eff_fp8", "memory_eff", "step_overhead_us", "kernel_floor_us", "gemm_latency_us"}
	// calSectionKeys are the keys each section of the GPU's parameters takes.
	calSectionKeys = map[string][]string{
		model.SectionServing:  calServingKeys,
		model.SectionTraining: {"compute_eff", "compute_eff_fp8"},
		model.SectionGEMM:     {"compute_eff", "compute_eff_fp8", "gemm_latency_us"},
	}
	calLinkKeys = []string{"link", "bandwidth_gbps", "latency_us", "efficiency", "ll_bandwidth_gbps", "nvls_efficiency"}
	calFitKeys  = []string{"rows", "mean_error", "max_error"}
)

// Bounds of a calibration file's lists and fit figures.
const (
	maxCalibrationFrom = 256
	maxFitRows         = 1 << 24
	maxFitError        = 1e3 // a relative error of 100000%: anything above is not a fit
)

// calRange is a parameter's range in SI units, and the file's unit: a value in the file is
// SI × perSI (GB/s: 1e-9; µs: 1e6).
type calRange struct {
	r     model.Range
	perSI float64
	unit  string
}

var calRanges = map[string]calRange{
	"bandwidth_gbps":    {model.CalBandwidth, 1e-9, "GB/s"},
	"latency_us":        {model.CalLatency, 1e6, "µs"},
	"efficiency":        {model.CalEfficiency, 1, ""},
	"ll_bandwidth_gbps": {model.CalLLBandwidth, 1e-9, "GB/s"},
	"nvls_efficiency":   {model.CalNVLSEfficiency, 1, ""},
	"compute_eff":       {model.CalComputeEff, 1, ""},
	"compute_eff_fp8":   {model.CalComputeEff, 1, ""},
	"memory_eff":        {model.CalMemoryEff, 1, ""},
	"step_overhead_us":  {model.CalStepOverhead, 1e6, "µs"},
	"kernel_floor_us":   {model.CalKernelFloor, 1e6, "µs"},
	"gemm_latency_us":   {model.CalGEMMLatency, 1e6, "µs"},
}

// toSI converts a value in the file's unit to SI, dividing by a whole number where the unit is
// smaller (GB/s: × 1e9) so that what the file says comes back exactly.
func (c calRange) toSI(v float64) float64 {
	if c.perSI < 1 {
		return v * math.Round(1/c.perSI)
	}
	return v / c.perSI
}

// fromSI converts an SI value to the file's unit.
func (c calRange) fromSI(v float64) float64 {
	if c.perSI < 1 {
		return v / math.Round(1/c.perSI)
	}
	return v * c.perSI
}

func (c calRange) allowed() string {
	u := ""
	if c.unit != "" {
		u = " " + c.unit
	}
	return fmt.Sprintf("must be a number from %s to %s%s", calNumber(c.fromSI(c.r.Min)), calNumber(c.fromSI(c.r.Max)), u)
}

// isNetwork says whether a link kind joins nodes.
func isNetwork(k model.LinkKind) bool {
	return k == model.InfiniBand || k == model.RoCE || k == model.Ethernet
}

// calParser collects the problems of one calibration file.
type calParser struct {
	name   string
	p      *Presets
	errs   Errors
	failed int
}

func (c *calParser) fail(line int, key, value, format string, args ...any) {
	if c.failed++; c.failed <= maxScenarioErrors {
		c.errs = append(c.errs, &Error{File: c.name, Row: -1, Line: line, Field: key, Value: value, Msg: fmt.Sprintf(format, args...)})
	}
}

func (c *calParser) done() error {
	if c.failed == 0 {
		return nil
	}
	if more := c.failed - len(c.errs); more > 0 {
		c.errs = append(c.errs, &Error{File: c.name, Row: -1, Msg: fmt.Sprintf("%d more problems not shown", more)})
	}
	return c.errs
}

// mapping walks the keys of a mapping node named path, refusing unknown and repeated keys and
// keys without a value, and calls each with the key's node and value.
func (c *calParser) mapping(n *yaml.Node, path string, known []string, each func(key string, k, v *yaml.Node)) map[string]int {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		full := path + k.Value
		if k.Kind != yaml.ScalarNode {
			c.fail(k.Line, path+"<"+kindName(k)+">", "", "a key must be a plain word")
			continue
		}
		if !slices.Contains(known, k.Value) {
			c.fail(k.Line, full, "", "unknown key; %s takes %s", strings.TrimSuffix(path, ".")+orTop(path), strings.Join(known, ", "))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			c.fail(k.Line, full, "", "written twice (first on line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
			c.fail(k.Line, full, "", "has no value")
			continue
		}
		each(k.Value, k, v)
	}
	return seen
}

func orTop(path string) string {
	if path == "" {
		return "the file"
	}
	return ""
}

// number reads a number in a range (file units) and returns it in SI units.
func (c *calParser) number(v *yaml.Node, key string, cr calRange) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		c.fail(v.Line, key, scalarText(v), "%s", cr.allowed())
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	x := cr.toSI(f)
	// The range's ends as the file writes them are in it, whatever the rounding of the units.
	lo, hi := cr.fromSI(cr.r.Min), cr.fromSI(cr.r.Max)
	if err != nil || math.IsNaN(f) || f < lo*(1-1e-12) || f > hi*(1+1e-12) {
		c.fail(v.Line, key, v.Value, "%s", cr.allowed())
		return 0, false
	}
	return min(max(x, cr.r.Min), cr.r.Max), true
}

// text reads a single string value.
func (c *calParser) text(v *yaml.Node, key string) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		c.fail(v.Line, key, "<"+kindName(v)+">", "must be a single value")
		return "", false
	}
	return v.Value, true
}

func scalarText(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		return "<" + kindName(v) + ">"
	}
	return v.Value
}

// ParseCalibration reads a calibration file named name (for messages) against the presets p:
// the GPU and the links it names must be presets. Every problem is reported (the first ten), as
// an Errors whose items name the file, the line and the key.
func ParseCalibration(name string, data []byte, p *Presets) (model.Calibration, error) {
	if p == nil {
		p = &Presets{}
	}
	c := &calParser{name: name, p: p}
	var out model.Calibration
	top, line, msg := topMapping(data,
		"empty file: a calibration holds calibration: with gpu: and intra: or inter: (splitscope calibrate --out writes one)",
		"a calibration must be a mapping with one key, calibration:")
	if top == nil {
		c.fail(line, "", "", "%s", msg)
		return out, c.done()
	}
	var body *yaml.Node
	c.mapping(top, "", calibrationTop, func(_ string, _, v *yaml.Node) { body = v })
	if body == nil {
		if c.failed == 0 {
			c.fail(top.Line, "calibration", "", "missing (required)")
		}
		return out, c.done()
	}
	if body.Kind != yaml.MappingNode {
		c.fail(body.Line, "calibration", scalarText(body), "must be a mapping of gpu, engine, from, intra, inter, serving (or training, gemm) and fit")
		return out, c.done()
	}
	links := map[string]int{}
	seen := c.mapping(body, "calibration.", calibrationKeys, func(key string, k, v *yaml.Node) {
		full := "calibration." + key
		switch key {
		case "gpu":
			if id, ok := c.text(v, full); ok {
				if g, err := p.GPU(id); err != nil {
					c.fail(v.Line, full, id, "unknown GPU; one of %s", strings.Join(p.GPUIDs(), ", "))
				} else {
					out.GPU = g.ID
				}
			}
		case "engine":
			if id, ok := c.text(v, full); ok {
				if _, known := model.Engine(id); !known || id == "" {
					c.fail(v.Line, full, id, "unknown engine; one of %s", strings.Join(model.EngineIDs(), ", "))
				} else {
					out.Engine = id
				}
			}
		case "from":
			if v.Kind != yaml.SequenceNode {
				c.fail(v.Line, full, scalarText(v), "must be a list of the logs the fit read")
				return
			}
			if len(v.Content) > maxCalibrationFrom {
				c.fail(v.Line, full, "", "lists %d logs: at most %d", len(v.Content), maxCalibrationFrom)
				return
			}
			for _, f := range v.Content {
				if s, ok := c.text(resolve(f), full); ok {
					out.From = append(out.From, s)
				}
			}
		case "intra", "inter":
			if lc, ok := c.link(v, full, key == "inter", links); ok {
				if key == "intra" {
					out.Intra = lc
				} else {
					out.Inter = lc
				}
			}
		case model.SectionServing, model.SectionTraining, model.SectionGEMM:
			if out.Section != "" {
				c.fail(k.Line, full, "", "beside calibration.%s: the GPU's parameters are in one section (serving: takes every key)", out.Section)
				return
			}
			out.Section = key
			if sc, ok := c.serving(v, full, calSectionKeys[key]); ok {
				out.Serving = sc
			}
		case "fit":
			c.fit(v, full, &out)
		}
	})
	if _, ok := seen["gpu"]; !ok {
		c.fail(body.Line, "calibration.gpu", "", "missing (required): the GPU preset the logs were measured on")
	}
	if _, ok := seen["engine"]; ok {
		if _, hasServing := seen["serving"]; !hasServing {
			c.fail(body.Line, "calibration.engine", out.Engine, "scopes the serving parameters to an engine, and there is no serving:")
		}
	}
	_, hasIntra := seen["intra"]
	_, hasInter := seen["inter"]
	if !hasIntra && !hasInter && out.Section == "" {
		c.fail(body.Line, "calibration", "", "has neither intra, inter nor serving (training, gemm): it calibrates nothing")
	}
	if err := c.done(); err != nil {
		return model.Calibration{}, err
	}
	return out, nil
}

// link reads intra: or inter:.
func (c *calParser) link(n *yaml.Node, path string, inter bool, links map[string]int) (*model.LinkCalibration, bool) {
	if n.Kind != yaml.MappingNode {
		c.fail(n.Line, path, scalarText(n), "must be a mapping of %s", strings.Join(calLinkKeys, ", "))
		return nil, false
	}
	failed := c.failed
	lc := &model.LinkCalibration{}
	var preset model.Link
	havePreset := false
	nvlsLine := 0
	seen := c.mapping(n, path+".", calLinkKeys, func(key string, _, v *yaml.Node) {
		full := path + "." + key
		if key == "link" {
			id, ok := c.text(v, full)
			if !ok {
				return
			}
			l, err := c.p.Link(id)
			switch {
			case err != nil:
				c.fail(v.Line, full, id, "unknown link; one of %s", strings.Join(c.p.LinkIDs(), ", "))
			case inter && !isNetwork(l.Kind):
				c.fail(v.Line, full, id, "is a %s link: inter is the network between nodes (infiniband, roce or ethernet)", l.Kind)
			case !inter && isNetwork(l.Kind):
				c.fail(v.Line, full, id, "is a %s link: intra is the link between the GPUs of a node", l.Kind)
			default:
				if first, dup := links[l.ID]; dup {
					c.fail(v.Line, full, id, "calibrated twice (first on line %d)", first)
					return
				}
				links[l.ID] = v.Line
				lc.Link, preset, havePreset = l.ID, l, true
			}
			return
		}
		if key == "nvls_efficiency" && inter {
			c.fail(v.Line, full, v.Value, "NVLink SHARP is inside a node: only intra has it")
			return
		}
		x, ok := c.number(v, full, calRanges[key])
		if !ok {
			return
		}
		switch key {
		case "bandwidth_gbps":
			lc.Bandwidth = x
		case "latency_us":
			lc.Latency = x
		case "efficiency":
			lc.Efficiency = x
		case "ll_bandwidth_gbps":
			lc.LLBandwidth = x
		case "nvls_efficiency":
			lc.NVLSEfficiency, nvlsLine = x, v.Line
		}
	})
	if _, ok := seen["link"]; !ok {
		c.fail(n.Line, path+".link", "", "missing (required): the link preset these parameters replace")
	}
	if len(seen) == 1 && seen["link"] > 0 {
		c.fail(n.Line, path, "", "calibrates nothing: give at least one of %s", strings.Join(calLinkKeys[1:], ", "))
	}
	if havePreset && nvlsLine > 0 && !preset.NVLS {
		c.fail(nvlsLine, path+".nvls_efficiency", fmtFloat(lc.NVLSEfficiency), "%s has no NVLink SHARP", preset.ID)
	}
	return lc, c.failed == failed
}

// serving reads serving: (training:, gemm:), the GPU's and the engine's serving parameters,
// of the keys given.
func (c *calParser) serving(n *yaml.Node, path string, keys []string) (*model.ServingCalibration, bool) {
	if n.Kind != yaml.MappingNode {
		c.fail(n.Line, path, scalarText(n), "must be a mapping of %s", strings.Join(keys, ", "))
		return nil, false
	}
	failed := c.failed
	sc := &model.ServingCalibration{}
	seen := c.mapping(n, path+".", keys, func(key string, _, v *yaml.Node) {
		x, ok := c.number(v, path+"."+key, calRanges[key])
		if !ok {
			return
		}
		switch key {
		case "compute_eff":
			sc.ComputeEff = x
		case "compute_eff_fp8":
			sc.ComputeEffFP8 = x
		case "memory_eff":
			sc.MemoryEff = x
		case "step_overhead_us":
			sc.StepOverhead = x
		case "kernel_floor_us":
			sc.KernelFloor = x
		case "gemm_latency_us":
			sc.GEMMLatency = x
		}
	})
	if len(seen) == 0 && c.failed == failed {
		c.fail(n.Line, path, "", "calibrates nothing: give at least one of %s", strings.Join(keys, ", "))
	}
	return sc, c.failed == failed
}

// fit reads fit:, what the fit achieved.
func (c *calParser) fit(n *yaml.Node, path string, out *model.Calibration) {
	if n.Kind != yaml.MappingNode {
		c.fail(n.Line, path, scalarText(n), "must be a mapping of %s", strings.Join(calFitKeys, ", "))
		return
	}
	c.mapping(n, path+".", calFitKeys, func(key string, _, v *yaml.Node) {
		full := path + "." + key
		if key == "rows" {
			r, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || r < 0 || r > maxFitRows {
				c.fail(v.Line, full, scalarText(v), "must be a whole number from 0 to %d", maxFitRows)
				return
			}
			out.Rows = r
			return
		}
		x, ok := c.number(v, full, calRange{model.Range{Min: 0, Max: maxFitError}, 1, ""})
		if !ok {
			return
		}
		if key == "mean_error" {
			out.MeanError = x
		} else {
			out.MaxError = x
		}
	})
}

// plainWord matches what YAML writes without quotes.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9._/][A-Za-z0-9._/+-]*$`)

func yamlString(s string) string {
	if plainWord.MatchString(s) && !slices.Contains([]string{"true", "false", "null", "yes", "no", "on", "off", "~"}, strings.ToLower(s)) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return s
		}
	}
	return strconv.Quote(s)
}

// calNumber writes a number with four significant digits, enough for a fit, in plain notation
// where that is short (300, 0.7973, 2.429e+10 stays as it is).
func calNumber(v float64) string {
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil && strings.Contains(s, "e") && math.Abs(f) >= 1e-4 && math.Abs(f) < 1e6 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// MarshalCalibration writes c as a calibration file, its GPU's parameters under c.Section
// (serving: when ""); notes become comments under the link or section they name ("intra: …",
// "inter: …", "serving: …", "training: …", "gemm: …") or at the top. ParseCalibration reads it back to c (its numbers
// to four significant digits).
func MarshalCalibration(c model.Calibration, notes []string) []byte {
	var b strings.Builder
	section := c.Section
	if section == "" {
		section = model.SectionServing
	}
	if c.Serving != nil && c.Intra == nil && c.Inter == nil {
		what := map[string]string{model.SectionServing: "serving benchmarks", model.SectionTraining: "training logs",
			model.SectionGEMM: "profiler traces' GEMM kernels"}[section]
		fmt.Fprintf(&b, "# splitscope calibration: this box's GPU parameters, fitted by `splitscope calibrate --from` on\n")
		fmt.Fprintf(&b, "# its %s. --calibration FILE puts them on the GPU preset named.\n", what)
		b.WriteString("# Units: overheads µs, efficiencies fractions.\n")
	} else {
		b.WriteString("# splitscope calibration: this box's link parameters, fitted by `splitscope calibrate` from its\n")
		b.WriteString("# nccl-tests logs. --calibration FILE puts them in place of the presets' for the links named.\n")
		b.WriteString("# Units: bandwidths GB/s (10^9 bytes/s, per GPU and direction; per NIC for the network),\n")
		b.WriteString("# latencies µs, efficiencies fractions.\n")
	}
	for _, n := range notes {
		if !strings.HasPrefix(n, "intra: ") && !strings.HasPrefix(n, "inter: ") && !strings.HasPrefix(n, section+": ") {
			fmt.Fprintf(&b, "# %s\n", n)
		}
	}
	b.WriteString("calibration:\n")
	fmt.Fprintf(&b, "  gpu: %s\n", yamlString(c.GPU))
	if c.Engine != "" {
		fmt.Fprintf(&b, "  engine: %s\n", yamlString(c.Engine))
	}
	if len(c.From) > 0 {
		b.WriteString("  from:\n")
		for _, f := range c.From {
			fmt.Fprintf(&b, "    - %s\n", yamlString(f))
		}
	}
	for _, l := range []struct {
		key string
		lc  *model.LinkCalibration
	}{{"intra", c.Intra}, {"inter", c.Inter}} {
		if l.lc == nil {
			continue
		}
		fmt.Fprintf(&b, "  %s:\n    link: %s\n", l.key, yamlString(l.lc.Link))
		for _, kv := range []struct {
			key string
			v   float64
		}{{"bandwidth_gbps", l.lc.Bandwidth}, {"latency_us", l.lc.Latency}, {"efficiency", l.lc.Efficiency},
			{"ll_bandwidth_gbps", l.lc.LLBandwidth}, {"nvls_efficiency", l.lc.NVLSEfficiency}} {
			if kv.v > 0 {
				fmt.Fprintf(&b, "    %s: %s\n", kv.key, calNumber(calRanges[kv.key].fromSI(kv.v)))
			}
		}
		for _, n := range notes {
			if rest, ok := strings.CutPrefix(n, l.key+": "); ok {
				fmt.Fprintf(&b, "    # %s\n", rest)
			}
		}
	}
	if sc := c.Serving; sc != nil {
		fmt.Fprintf(&b, "  %s:\n", section)
		for _, kv := range []struct {
			key string
			v   float64
		}{{"compute_eff", sc.ComputeEff}, {"compute_eff_fp8", sc.ComputeEffFP8}, {"memory_eff", sc.MemoryEff}, {"step_overhead_us", sc.StepOverhead}, {"kernel_floor_us", sc.KernelFloor}, {"gemm_latency_us", sc.GEMMLatency}} {
			if kv.v > 0 {
				fmt.Fprintf(&b, "    %s: %s\n", kv.key, calNumber(calRanges[kv.key].fromSI(kv.v)))
			}
		}
		for _, n := range notes {
			if rest, ok := strings.CutPrefix(n, section+": "); ok {
				fmt.Fprintf(&b, "    # %s\n", rest)
			}
		}
	}
	if c.Rows > 0 || c.MeanError > 0 || c.MaxError > 0 {
		fmt.Fprintf(&b, "  fit:\n    rows: %d\n    mean_error: %s\n    max_error: %s\n", c.Rows, calNumber(c.MeanError), calNumber(c.MaxError))
	}
	return []byte(b.String())
}

// Calibrate puts the calibration's link parameters in place of the presets' for the links it
// names, each marked Calibrated by source, and its serving parameters on the GPU preset it
// names. The presets must be the caller's own copy (Load's).
func (p *Presets) Calibrate(c model.Calibration, source string) {
	c.ApplyLinks(p.Links, source)
	if c.Serving != nil {
		for i := range p.GPUs {
			if p.GPUs[i].ID != c.GPU {
				continue
			}
			if c.Engine != "" {
				p.GPUs[i].EngineCal = &model.EngineCalibration{Engine: c.Engine, Serving: *c.Serving}
			} else {
				p.GPUs[i] = c.Serving.ApplyGPU(p.GPUs[i])
			}
		}
	}
}
