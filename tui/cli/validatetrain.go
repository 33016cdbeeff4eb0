package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// trainRun is one training log read, with the file as the user named it.
type trainRun struct {
	path string
	log  model.TrainLog
}

// trainFlags are the flags a training log may set: each one the user did not type is put back
// to its default before a log's scenario is built, so one log's settings do not carry into the
// next.
var trainFlags = []string{"mode", "model", "gpu", "gpus", "gpus-per-node", "tp", "pp", "dp", "ep", "chunks", "schedule",
	"layers", "hidden", "heads", "kv-heads", "ffn", "seq", "batch", "micro-batch", "precision", "recompute",
	"sequence-parallel", "zero"}

// trainLayoutNames are the logged settings that set a flag as they are.
var trainLayoutNames = []string{"gpus", "tp", "pp", "dp", "ep", "chunks", "seq", "batch", "micro-batch", "precision", "recompute", "sequence-parallel", "zero"}

// trainSizes are the model's sizes a log may state, by flag, with the preset's value.
var trainSizes = []struct {
	name string
	of   func(model.Arch) int
}{
	{"layers", func(a model.Arch) int { return a.Layers }},
	{"hidden", func(a model.Arch) int { return a.Hidden }},
	{"heads", func(a model.Arch) int { return a.Heads }},
	{"kv-heads", func(a model.Arch) int { return a.KVHeads }},
	{"ffn", func(a model.Arch) int { return a.FFN }},
	{"vocab", func(a model.Arch) int { return a.Vocab }},
	{"experts", func(a model.Arch) int { return a.Experts }},
}

// trainScenario is the scenario a training log describes: the log's layout, sizes, sequence,
// batch, number format and recomputation; the flags' for what it does not say (the GPU, the
// links, the model when its sizes name no single preset). A logged setting that contradicts a
// flag typed is refused naming both.
func trainScenario(sf *scenarioFlags, p *assets.Presets, tr trainRun, typed map[string]bool) (s model.Scenario, modelNote string, warnings []string, err error) {
	t, at := tr.log, tr.path
	refuse := func(format string, args ...any) error {
		return &inputError{err: fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))}
	}
	set := func(name, value string) error {
		if err := sf.fs.Set(name, value); err != nil {
			return fmt.Errorf("%s: --%s %s: %w", at, name, value, err)
		}
		return nil
	}
	where := func(s model.TrainSetting) string {
		if s.Field == s.Name || s.Raw == "" {
			return fmt.Sprintf("%s (line %d)", s.Field, s.Line)
		}
		return fmt.Sprintf("%s = %s (line %d)", s.Field, s.Raw, s.Line)
	}
	for _, name := range trainFlags {
		if fl := sf.fs.Lookup(name); fl != nil && !typed[name] && fl.Changed {
			if err := fl.Value.Set(fl.DefValue); err != nil {
				return model.Scenario{}, "", nil, fmt.Errorf("%s: reset --%s: %w", at, name, err)
			}
			fl.Changed = false
		}
	}
	if err := set("mode", "train"); err != nil {
		return model.Scenario{}, "", nil, err
	}
	if s, ok := t.Setting("cp"); ok && s.Value != "1" {
		return model.Scenario{}, "", nil, refuse("%s: context parallelism, which splitscope does not model (it splits the sequence over GPUs); compare a run without it", where(s))
	}
	var fromFlags []string
	for _, name := range trainLayoutNames {
		s, ok := t.Setting(name)
		if !ok {
			if (name == "seq" || name == "batch" || name == "micro-batch" || name == "precision" || name == "recompute") && !typed[name] {
				fromFlags = append(fromFlags, "--"+name+" "+sf.fs.Lookup(name).Value.String())
			}
			continue
		}
		if typed[name] {
			if have := sf.fs.Lookup(name).Value.String(); have != s.Value {
				return model.Scenario{}, "", nil, refuse("%s but --%s %s: the log's run contradicts the flags; drop --%s (the log says it) or give the log of the run you mean", where(s), name, have, name)
			}
			continue
		}
		if typed["scenario"] || typed["box"] {
			if name == "gpus" {
				continue // the scenario's or the boxes' hardware
			}
		}
		if err := set(name, s.Value); err != nil {
			return model.Scenario{}, "", nil, err
		}
	}
	if c, ok := t.Setting("chunks"); ok && c.Value != "1" && !typed["schedule"] {
		if err := set("schedule", "interleaved"); err != nil {
			return model.Scenario{}, "", nil, err
		}
	}
	// How many GPUs: the log's world size, else its layout's product, else the flags'.
	if _, ok := t.Setting("gpus"); !ok && !typed["gpus"] && !typed["box"] && !typed["scenario"] {
		n := 1
		for _, name := range []string{"tp", "pp", "dp"} {
			s, ok := t.Setting(name)
			if !ok {
				return model.Scenario{}, "", nil, refuse("the log does not say how many GPUs ran it (Megatron's world_size, torchtitan's parallelism degrees); give --gpus")
			}
			v, _ := strconv.Atoi(s.Value)
			n *= v
		}
		if err := set("gpus", strconv.Itoa(n)); err != nil {
			return model.Scenario{}, "", nil, err
		}
	}
	if !typed["gpus-per-node"] && !typed["box"] && !typed["scenario"] {
		if n, _ := strconv.Atoi(sf.fs.Lookup("gpus").Value.String()); n > 0 && n < defaultGPUsPerNode {
			if err := set("gpus-per-node", strconv.Itoa(n)); err != nil {
				return model.Scenario{}, "", nil, err
			}
		}
	}
	// The GPU: the flags', else the one the log names.
	if !typed["gpu"] && !typed["box"] && !typed["scenario"] {
		if t.GPUName == "" {
			return model.Scenario{}, "", nil, refuse("the log does not say which GPU ran it; give --gpu (%s)", strings.Join(p.GPUIDs(), ", "))
		}
		g, ok := gpu.MatchGPU(t.GPUName, p.GPUs)
		if !ok {
			return model.Scenario{}, "", nil, refuse("CUDA capacity: %s: no GPU preset matches; give --gpu (%s)", t.GPUName, strings.Join(p.GPUIDs(), ", "))
		}
		if err := set("gpu", g.ID); err != nil {
			return model.Scenario{}, "", nil, err
		}
	}
	// The model: the flags' (its sizes must be the log's), else the preset the logged sizes
	// name, else one built from them.
	var logged []model.TrainSetting
	for _, sz := range trainSizes {
		if s, ok := t.Setting(sz.name); ok {
			logged = append(logged, s)
		}
	}
	sizeOf := func(a model.Arch, name string) int {
		for _, sz := range trainSizes {
			if sz.name == name {
				return sz.of(a)
			}
		}
		return 0
	}
	matches := func(a model.Arch) (model.TrainSetting, int, bool) {
		for _, s := range logged {
			v, _ := strconv.Atoi(s.Value)
			if have := sizeOf(a, s.Name); have != v && !(s.Name == "vocab" && have >= v && have-v < 1024) {
				return s, have, false
			}
		}
		return model.TrainSetting{}, 0, true
	}
	switch {
	case typed["model"] || typed["scenario"]:
		a, err := p.Model(sf.model)
		if err != nil && looksLikeConfigPath(sf.model) {
			var fe *model.FieldError
			if a, fe = readHFConfigFlag(sf.model); fe != nil {
				return model.Scenario{}, "", nil, fmt.Errorf("%s: %w", at, fe)
			}
		} else if err != nil && !typed["scenario"] {
			return model.Scenario{}, "", nil, unknownPreset("model", "model", sf.model, p.ModelIDs())
		}
		if typed["scenario"] && !typed["model"] {
			s, err := sf.scenario(p, false)
			if err != nil {
				return s, "", nil, fmt.Errorf("%s: %w", at, err)
			}
			a = s.Arch
		}
		if bad, have, ok := matches(a); !ok {
			return model.Scenario{}, "", nil, refuse("%s but --model %s has %s %d: the log ran another model; give --model for it (a preset or its config.json)", where(bad), sf.model, bad.Name, have)
		}
	case len(logged) == 0:
		return model.Scenario{}, "", nil, refuse("the log states none of the model's sizes (num_layers, hidden_size, num_attention_heads, …); give --model (%s)", strings.Join(p.ModelIDs(), ", "))
	default:
		var ids []string
		for _, a := range p.Models {
			if _, _, ok := matches(a); ok {
				ids = append(ids, a.ID)
			}
		}
		var names []string
		for _, s := range logged {
			names = append(names, fmt.Sprintf("%s %s", s.Field, s.Raw))
		}
		switch {
		case len(ids) == 1:
			if err := set("model", ids[0]); err != nil {
				return model.Scenario{}, "", nil, err
			}
			modelNote = " (the preset of the logged sizes)"
		case len(ids) > 1:
			return model.Scenario{}, "", nil, refuse("the logged sizes (%s) fit several presets: %s; give --model", strings.Join(names, ", "), strings.Join(ids, ", "))
		default:
			// No preset: the sizes on the default model, when the log gives the ones that
			// make a dense transformer.
			for _, need := range []string{"layers", "hidden", "heads"} {
				if _, ok := t.Setting(need); !ok {
					return model.Scenario{}, "", nil, refuse("no preset has the logged sizes (%s) and the log lacks %s to build the model; give --model (a preset or the model's config.json)", strings.Join(names, ", "), need)
				}
			}
			if _, ok := t.Setting("experts"); ok {
				return model.Scenario{}, "", nil, refuse("no preset has the logged sizes (%s) of this mixture of experts; give --model (the model's config.json)", strings.Join(names, ", "))
			}
			for _, s := range logged {
				if s.Name == "experts" || s.Name == "vocab" {
					continue
				}
				if err := set(s.Name, s.Value); err != nil {
					return model.Scenario{}, "", nil, err
				}
			}
			base := sf.fs.Lookup("model").Value.String()
			modelNote = " (built from the logged sizes)"
			if _, ok := t.Setting("vocab"); !ok {
				warnings = append(warnings, fmt.Sprintf("no preset has the logged sizes: built from them, with the vocabulary and the rest of --model %s", base))
			}
		}
	}
	if len(fromFlags) > 0 {
		warnings = append(warnings, "not in the log, from the flags: "+strings.Join(fromFlags, ", "))
	}
	if s, err = sf.scenario(p, false); err != nil {
		return s, "", nil, fmt.Errorf("%s: %w", at, err)
	}
	if err := s.Validate(); err != nil {
		return s, "", nil, fmt.Errorf("%s: %w", at, err)
	}
	return s, modelNote, append(warnings, sf.cliWarnings()...), nil
}

// compareTrain sets the model's figure beside each one the log measured: the step time, model
// TFLOP/s per GPU, tokens/s per GPU (the job's over its GPUs) and the peak memory of the fullest
// GPU (the model's weights, gradients, optimizer state and activations there: PyTorch's counters
// do not see the CUDA context the model's reserve stands for).
func compareTrain(tr trainRun, s model.Scenario, modelNote string, r costmodel.Report) static.AgainstRun {
	t := tr.log
	ar := static.AgainstRun{File: tr.path, Scenario: describeTrain(t, s, modelNote)}
	for _, m := range t.Metrics {
		var pred float64
		switch m.Name {
		case "step_time_s":
			pred = r.StepTime
		case "tflops_per_gpu":
			pred = r.ModelTFLOPS
		case "tokens_per_s_per_gpu":
			pred = r.TokensPerS / float64(max(s.Cluster.GPUs, 1))
		case "peak_memory_bytes":
			pred = r.Memory.Total - r.Memory.Reserved
		default:
			ar.Skipped = append(ar.Skipped, m.Name)
			continue
		}
		if !(m.Value > 0) {
			ar.Skipped = append(ar.Skipped, m.Name+" (0)")
			continue
		}
		ar.Metrics = append(ar.Metrics, static.AgainstMetric{Name: m.Name, Measured: m.Value, Predicted: pred, Error: pred/m.Value - 1})
	}
	return ar
}

// describeTrain is the scenario a log was evaluated as, in one line.
func describeTrain(t model.TrainLog, s model.Scenario, modelNote string) string {
	l, w := s.Layout, s.Workload
	layout := fmt.Sprintf("TP %d PP %d DP %d", l.TP, l.PP, l.DP)
	if l.EP > 1 {
		layout += fmt.Sprintf(" EP %d", l.EP)
	}
	if l.Chunks > 1 {
		layout += fmt.Sprintf(" V %d", l.Chunks)
	}
	its := t.Iterations
	span := fmt.Sprintf("iteration %d", its[0])
	if len(its) > 1 {
		span = fmt.Sprintf("iterations %d–%d (%d lines)", its[0], its[len(its)-1], len(its))
	}
	warm := "no warm-up logged"
	if len(t.Warmup) > 0 {
		var ws []string
		for _, i := range t.Warmup[:min(len(t.Warmup), 5)] {
			ws = append(ws, strconv.Itoa(i))
		}
		warm = "warm-up skipped: iteration " + strings.Join(ws, ", ")
	}
	return fmt.Sprintf("%s: %s%s on %d× %s, %s · seq %d, batch %d × micro %d, %s, recompute %s · %s averaged, %s",
		t.Tool, s.Arch.ID, modelNote, s.Cluster.GPUs, s.Cluster.GPU.ID, layout,
		w.Seq, w.GlobalBatch, l.MicroBatch, w.Precision, l.Recompute, span, warm)
}
