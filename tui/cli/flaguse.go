package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// No silent ignores, on the command line's side. The scenario flags live on the root, so that
// `splitscope --tp 4 report` works, and every subcommand would accept them all; flagRules says
// which of them each command uses, and a command refuses the others (exit 2). The same table
// filters each command's help. What a flag does not do in the scenario at hand (--batch in
// inference) is a warning, as the cost model's are (costmodel.ScenarioWarnings).

// outputFlags are the shared flags that shape the output rather than the scenario.
var outputFlags = []string{"json", "lang"}

// flagRule is what one command does with the shared flags.
type flagRule struct {
	// noScenario, when set, refuses every scenario flag (all shared flags but outputFlags) and
	// says why.
	noScenario string
	// refuse gives the shared flags the command refuses, each with the reason.
	refuse map[string]string
	// only, when set, lists the shared flags the command takes; onlyWhy says why not the others.
	only    []string
	onlyWhy string
	// with, when set, is one of the command's own flags that makes it take the scenario flags
	// (validate --against); withRefuse then gives the shared flags it refuses, each with the
	// reason, in place of refuse and noScenario. Its help lists the flags it takes with it.
	with       string
	withRefuse map[string]string
}

const (
	noTeachingTexts = "prints no teaching texts (--lang is for the explorer and export)"
	capacityLayouts = "probe's capacity verdict tries every layout; use search --box FILE to fix one"
	probeHardware   = "conflicts with probe, which sets the GPU type, the GPU count, GPUs per node and the intra-node link"
	againstWorkload = "validate --against serves each file's own workload (its rate or concurrency, its requests and their lengths)"
	fromWorkload    = "calibrate --from serves each file's own workload (its rate or concurrency, its requests and their lengths)"
)

// flagRules holds, per command (its path below the root), what it does with the shared flags. A
// command left out (help, completion bash) takes none of them.
var flagRules = map[string]flagRule{
	"splitscope": {},
	"report":     {refuse: map[string]string{"lang": "report " + noTeachingTexts}},
	"search":     {refuse: map[string]string{"lang": "search " + noTeachingTexts}},
	"export":     {refuse: map[string]string{"json": "export writes SVG (--svg) and Markdown (--markdown), not JSON"}},
	"probe": {refuse: map[string]string{
		"tp": capacityLayouts, "pp": capacityLayouts, "dp": capacityLayouts, "micro-batch": capacityLayouts,
		"schedule": capacityLayouts, "chunks": capacityLayouts, "ep": capacityLayouts, "lang": "probe " + noTeachingTexts,
		"gpu": probeHardware, "gpus": probeHardware, "gpus-per-node": probeHardware, "intra": probeHardware,
	}},
	"presets": {
		noScenario: "presets lists the embedded presets; it takes no scenario flags",
		refuse:     map[string]string{"lang": "presets " + noTeachingTexts},
	},
	"comm": {
		only: []string{"gpu", "gpus", "gpus-per-node", "intra", "inter", "nics-per-node", "intra-eff", "inter-eff",
			"box", "calibration", "scenario", "json"},
		onlyWhy: "comm times collectives on the hardware; it takes the hardware flags (--gpu --gpus --gpus-per-node --intra --inter --nics-per-node --box --calibration)",
	},
	"calibrate": {
		only:    []string{"gpu", "intra", "inter", "nics-per-node", "json"},
		onlyWhy: "calibrate reads the GPUs, how many and on how many nodes from the logs; it takes --gpu (when the logs' GPU is not a preset), --intra, --inter and --nics-per-node (the links the fit starts from) and --json",
		with:    "from",
		withRefuse: map[string]string{
			"lang": "calibrate " + noTeachingTexts, "mode": fromWorkload, "rate": fromWorkload, "concurrency": fromWorkload,
			"requests": fromWorkload, "prompt": fromWorkload, "gen": fromWorkload, "workload": fromWorkload,
			// --seq, --batch and --micro-batch: a training log's, where it does not say them
			// (runCalibrateFrom refuses them beside a serving benchmark).
		},
	},
	"serve": {refuse: map[string]string{"json": "serve serves the explorer over SSH; report --json prints the scenario's report"}},
	"validate": {
		noScenario: "validate runs the published setups the model is checked on (8×A100, Megatron-LM); it takes no scenario flags (but with --against FILE, your runs, it takes those the file does not say)",
		refuse:     map[string]string{"lang": "validate " + noTeachingTexts},
		with:       "against",
		withRefuse: map[string]string{
			"lang": "validate " + noTeachingTexts, "mode": againstWorkload, "rate": againstWorkload, "concurrency": againstWorkload,
			"requests": againstWorkload, "prompt": againstWorkload, "gen": againstWorkload, "workload": againstWorkload,
			// --seq, --batch and --micro-batch: a training log's, where it does not say them
			// (runValidateAgainst refuses them beside a serving benchmark).
		},
	},
}

// refusal says why cmd does not take the shared flag name, or "" when it does.
func refusal(cmd *cobra.Command, name string) string { return refusalAs(cmd, name, false) }

// helpRefusal is refusal as the command's help tells it: with its with flag given.
func helpRefusal(cmd *cobra.Command, name string) string { return refusalAs(cmd, name, true) }

// refusalAs is refusal, taking the rule's with flag as given when with is true.
func refusalAs(cmd *cobra.Command, name string, with bool) string {
	path := cmd.Name() // the root
	if cmd.HasParent() {
		path = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	rule, ok := flagRules[path]
	if !ok {
		return path + " takes none of the scenario or output flags"
	}
	if name == "lesson" && path != "splitscope" && path != "serve" {
		return path + " runs no tour: --lesson DIR is the explorer's (g) and serve's"
	}
	if rule.with != "" {
		if f := cmd.Flags().Lookup(rule.with); with || (f != nil && f.Changed) {
			return rule.withRefuse[name]
		}
	}
	if why := rule.refuse[name]; why != "" {
		return why
	}
	if rule.only != nil && !slices.Contains(rule.only, name) {
		return rule.onlyWhy
	}
	if rule.noScenario != "" && !slices.Contains(outputFlags, name) {
		return rule.noScenario
	}
	return ""
}

// checkFlagUse refuses the shared flags typed for a command that does not use them, naming each.
// It runs before the command, when Changed still means typed: a --scenario file is applied later.
func checkFlagUse(cmd *cobra.Command) error {
	var bad []string
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if why := refusal(cmd, f.Name); f.Changed && why != "" {
			bad = append(bad, fmt.Sprintf("%s: %s", typedFlagText(f), why))
		}
	})
	if len(bad) == 0 {
		return nil
	}
	// One refusal a line, each with the program's prefix as printError gives the first.
	return usagef("%s", strings.Join(bad, "\nsplitscope: "))
}

// typedFlagText is the flag as typed, with its value unless it is a switch or a list:
// "--gpus 4", "--sequence-parallel", "--box".
func typedFlagText(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool", "stringArray":
		return "--" + f.Name
	}
	v := f.Value.String()
	if v == "" || strings.ContainsAny(v, " \t") {
		v = fmt.Sprintf("%q", v)
	}
	return "--" + f.Name + " " + v
}

func init() {
	cobra.AddTemplateFunc("sharedFlags", sharedFlags)
}

// sharedFlags is the help section of the shared flags cmd takes (none: ""), titled by what they
// are. The root lists them as its own flags.
func sharedFlags(cmd *cobra.Command) string {
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.SortFlags = false
	scenario := false
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if helpRefusal(cmd, f.Name) == "" && !f.Hidden {
			fs.AddFlag(f)
			scenario = scenario || !slices.Contains(outputFlags, f.Name)
		}
	})
	if !fs.HasFlags() {
		return ""
	}
	title := "Output Flags:"
	if scenario {
		title = "Scenario Flags:"
	}
	return "\n\n" + title + "\n" + strings.TrimRight(fs.FlagUsages(), " \n")
}

// modeOnly are the scenario flags one mode reads and the other ignores, with what the other
// reads instead.
var modeOnly = []struct {
	flag string
	mode model.Mode
	why  string
}{
	{"batch", model.Train, "serving runs --requests requests"},
	{"seq", model.Train, "a request is --prompt + --gen tokens long"},
	{"prompt", model.Infer, "training sequences are --seq tokens long"},
	{"gen", model.Infer, "training sequences are --seq tokens long"},
	{"requests", model.Infer, "training runs --batch sequences per step"},
	{"micro-batch", model.Train, "the serving engine batches the running sequences itself (--max-seqs, --max-batch-tokens)"},
	{"rate", model.Infer, "training has no arrivals"},
	{"concurrency", model.Infer, "training has no clients"},
	{"seed", model.Infer, "training draws nothing at random"},
	{"workload", model.Infer, "training sequences are --seq tokens long"},
	{"max-seqs", model.Infer, "training runs --batch sequences per step"},
	{"max-batch-tokens", model.Infer, "training runs --batch sequences per step"},
	{"weights", model.Infer, "training keeps --precision weights and an fp32 master copy"},
	{"expert-weights", model.Infer, "training keeps --precision weights and an fp32 master copy"},
	{"kv-cache", model.Infer, "training keeps no KV cache"},
	{"engine", model.Infer, "training runs no serving engine"},
	{"slo-ttft", model.Infer, "training has no latency target"},
	{"slo-tpot", model.Infer, "training has no latency target"},
	{"prefix-hit", model.Infer, "training has no prefix cache"},
	{"turns", model.Infer, "training has no conversations"},
	{"think", model.Infer, "training has no conversations"},
	{"kv-host-gib", model.Infer, "training keeps no KV cache"},
	{"prefill-tp", model.Infer, "training has no prefill pool"},
	{"prefill-pp", model.Infer, "training has no prefill pool"},
	{"prefill-ep", model.Infer, "training has no prefill pool"},
	{"prefill-cp", model.Infer, "training has no prefill pool"},
	{"spec-tokens", model.Infer, "training decodes nothing"},
	{"spec-accept", model.Infer, "training decodes nothing"},
	{"spec-method", model.Infer, "training decodes nothing"},
	{"spec-draft", model.Infer, "training decodes nothing"},
}

// typedWarnings are the flags typed on the command line that the scenario does not read: the
// other mode's, and link calibrations for links nothing crosses. A scenario file's keys do not
// warn (report --print-scenario writes them all); settings the cost model can judge from the
// scenario itself warn there, for every front end.
func (f *scenarioFlags) typedWarnings(s model.Scenario) []string {
	var w []string
	mode := s.Workload.Mode
	for _, m := range modeOnly {
		if m.mode != mode && f.typedFlag(m.flag) {
			w = append(w, fmt.Sprintf("--%s has no effect in %s mode: %s; drop it or use --mode %s", m.flag, mode, m.why, m.mode))
		}
	}
	c := s.Cluster
	if f.typedFlag("inter-eff") && c.Nodes() <= 1 {
		w = append(w, fmt.Sprintf("--inter-eff has no effect: the %d GPUs fit in one node of %d, so nothing crosses nodes; drop it or add GPUs", c.GPUs, c.GPUsPerNode))
	}
	if f.typedFlag("intra-eff") && c.NodeSize() <= 1 {
		w = append(w, "--intra-eff has no effect: there is one GPU per node, so no traffic stays inside a node; drop it")
	}
	return w
}

// typedFlag says whether the flag was typed on the command line (not set by a --scenario file).
func (f *scenarioFlags) typedFlag(name string) bool {
	if f.typed != nil {
		return f.typed[name]
	}
	return f.changed(name)
}

// cliWarnings are the command line's own warnings: what gpu.ToCluster said about the boxes, and
// the typed flags the scenario does not read.
func (f *scenarioFlags) cliWarnings() []string {
	return append(slices.Clone(f.boxWarnings), f.flagWarnings...)
}

// searchFix turns the layout flags typed for search into the sizes it keeps: search --tp 8 ranks
// the layouts with TP 8. A scenario file's layout is only a starting point and fixes nothing.
// s is the flags' scenario, whose schedule is already checked.
func (f *scenarioFlags) searchFix(s model.Scenario) (costmodel.SearchFix, error) {
	var fix costmodel.SearchFix
	var errs model.ValidationError
	for _, x := range []struct {
		name string
		v    int
		dst  *int
	}{{"tp", f.tp, &fix.TP}, {"pp", f.pp, &fix.PP}, {"dp", f.dp, &fix.DP}, {"micro-batch", f.microBatch, &fix.MicroBatch}, {"chunks", f.chunks, &fix.Chunks}, {"ep", f.ep, &fix.EP}, {"etp", f.etp, &fix.ETP}, {"cp", f.cp, &fix.CP}} {
		switch {
		case !f.typedFlag(x.name):
		case x.v < 1:
			errs = append(errs, &model.FieldError{Field: x.name, Value: x.v, Allowed: "must be 1 or more"})
		default:
			*x.dst = x.v
		}
	}
	if f.typedFlag("schedule") {
		fix.Schedule, fix.HasSchedule = s.Layout.Schedule, true
	}
	if f.typedFlag("cp-comm") {
		fix.CPComm, fix.HasCPComm = s.Layout.CPComm, true
	}
	// The training knobs typed (and not auto) stay; the others are swept.
	fix.HasRecompute = f.typedFlag("recompute") && !isAuto(f.recompute)
	fix.HasSequenceParallel = f.typedFlag("sequence-parallel") && !f.sequenceParallel.auto
	fix.HasZeRO = f.typedFlag("zero") && !f.zero.auto
	fix.HasTPOverlap = f.typedFlag("tp-overlap") && !isAuto(f.tpOverlap)
	fix.HasOffload = f.typedFlag("offload") && !isAuto(f.offload)
	fix.HasSerialDP = f.typedFlag("serial-dp")
	fix.HasSPGather = f.typedFlag("sp-gather") && !isAuto(f.spGather)
	fix.HasRankOrder = f.typedFlag("rank-order") && !isAuto(f.rankOrder)
	fix.DisaggAuto = isAuto(f.disagg)
	fix.Disagg = s.Layout.Disagg
	if !f.typedFlag("prefill-tp") {
		fix.Disagg.PrefillTP = 0 // swept
	}
	if len(errs) > 0 {
		return fix, errs
	}
	return fix, nil
}

// searchBoundsUsed refuses a search bound typed where nothing is swept: --max-micro-batch beside
// --micro-batch, --max-chunks beside --chunks, a non-interleaved --schedule, or in inference.
func searchBoundsUsed(cmd *cobra.Command, s model.Scenario, fix costmodel.SearchFix) error {
	fl := cmd.Flags()
	if fl.Changed("max-micro-batch") && fix.MicroBatch > 0 {
		return usagef("%s: --micro-batch %d fixes the micro-batch size; give one or the other", typedFlagText(fl.Lookup("max-micro-batch")), fix.MicroBatch)
	}
	if !fl.Changed("max-chunks") {
		return nil
	}
	maxChunks := typedFlagText(fl.Lookup("max-chunks"))
	switch {
	case fix.Chunks > 0:
		return usagef("%s: --chunks %d fixes the interleaving; give one or the other", maxChunks, fix.Chunks)
	case fix.HasSchedule && fix.Schedule != model.Interleaved:
		return usagef("%s: --schedule %s does not interleave; only the interleaved schedule has chunks", maxChunks, fix.Schedule)
	case s.Workload.Mode == model.Infer:
		return usagef("%s: inference has no interleaving; serving runs forward passes only", maxChunks)
	}
	return nil
}
