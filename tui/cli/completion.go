package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
)

// Shell completion of values. cobra's `completion` command writes the shell's script; the
// script asks `splitscope __complete ARGS…` for the words that may come next. Flags complete
// names, and flags that take a preset ID or a fixed word complete those: the IDs from the
// embedded presets (read only when a completion is asked), the words from the enums that parse
// them (every word offered is one the flag accepts: TestCompletionValues), search's "auto"
// where it sweeps a knob. Files (--box, --scenario, --calibration, --svg …) keep the shell's
// own file completion.

// valueLists are the flags whose values complete, and their words for the command being
// completed (search takes auto for its swept knobs).
var valueLists = map[string]func(cmd *cobra.Command) []string{
	"model": func(*cobra.Command) []string {
		return presetIDs(func(p *assets.Presets) []string { return p.ModelIDs() })
	},
	"gpu": func(*cobra.Command) []string {
		return presetIDs(func(p *assets.Presets) []string { return p.GPUIDs() })
	},
	"intra":     func(*cobra.Command) []string { return linkIDs(false) },
	"inter":     func(*cobra.Command) []string { return linkIDs(true) },
	"mode":      enumWords(func(i int) string { return model.Mode(i).String() }, false),
	"schedule":  enumWords(func(i int) string { return model.Schedule(i).String() }, false),
	"precision": enumWords(func(i int) string { return model.Precision(i).String() }, false),
	"kv-cache": func(*cobra.Command) []string {
		return []string{model.BF16.String(), model.FP16.String(), model.FP8.String()}
	},
	"weights":        func(*cobra.Command) []string { return append([]string(nil), model.WeightFormats...) },
	"expert-weights": func(*cobra.Command) []string { return append([]string(nil), model.WeightFormats...) },
	"engine":         func(*cobra.Command) []string { return model.EngineIDs() },
	"recompute":      enumWords(func(i int) string { return model.Recompute(i).String() }, true),
	"offload":        enumWords(func(i int) string { return model.Offload(i).String() }, true),
	"tp-overlap":     enumWords(func(i int) string { return model.TPOverlap(i).String() }, true),
	"sp-gather":      enumWords(func(i int) string { return model.SPGather(i).String() }, true),
	"rank-order":     enumWords(func(i int) string { return model.RankOrder(i).String() }, true),
	"ep-dispatch":    enumWords(func(i int) string { return model.EPDispatch(i).String() }, false),
	"cp-comm":        enumWords(func(i int) string { return model.CPComm(i).String() }, false),
	"collectives":    enumWords(func(i int) string { return model.Collectives(i).String() }, false),
	"zero":           withAuto([]string{"0", "1", "2", "3"}),
	"lang":           func(*cobra.Command) []string { return append([]string(nil), languages...) },
	"objective":      enumWords(func(i int) string { return costmodel.Objective(i).String() }, false),
	"algo":           func(*cobra.Command) []string { return collective.AlgoNames() },
	"proto":          func(*cobra.Command) []string { return collective.ProtoNames() },
	"op":             func(*cobra.Command) []string { return opNames() },
}

// registerCompletions gives every flag of valueLists its completion, on the root for the
// shared flags and on each subcommand for its own.
func registerCompletions(root *cobra.Command) {
	cmds := append([]*cobra.Command{root}, root.Commands()...)
	for _, c := range cmds {
		fs := c.Flags()
		if c == root {
			fs = c.PersistentFlags()
		}
		for name, list := range valueLists {
			if fs.Lookup(name) == nil {
				continue
			}
			_ = c.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
				var out []string
				for _, w := range list(cmd) {
					if strings.HasPrefix(w, typed) {
						out = append(out, w)
					}
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			})
		}
	}
	// --scenario: the tour's steps, and files.
	_ = root.RegisterFlagCompletionFunc("scenario", func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, s := range assets.TourSteps() {
			if w := tourPrefix + s; strings.HasPrefix(w, typed) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveDefault
	})
}

// presetIDs is the IDs of one kind of preset, or none when the presets do not load.
func presetIDs(ids func(*assets.Presets) []string) []string {
	p, err := assets.Load()
	if err != nil {
		return nil
	}
	return ids(p)
}

// linkIDs is the links --inter takes (networks: InfiniBand, RoCE, Ethernet) or --intra takes
// (the others: NVLink, PCIe, XGMI).
func linkIDs(network bool) []string {
	p, err := assets.Load()
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range p.Links {
		isNet := l.Kind == model.InfiniBand || l.Kind == model.RoCE || l.Kind == model.Ethernet
		if isNet == network {
			out = append(out, l.ID)
		}
	}
	return out
}

// enumWords is every name of an enum (name(i) for i = 0, 1, … until a name is no name), with
// auto first for search when its knob takes it.
func enumWords(name func(int) string, searchAuto bool) func(*cobra.Command) []string {
	var words []string
	for i := 0; i < 64; i++ {
		n := name(i)
		if strings.HasPrefix(n, "unknown") || strings.HasPrefix(n, "?") || n == "" {
			break
		}
		words = append(words, n)
	}
	if !searchAuto {
		return func(*cobra.Command) []string { return words }
	}
	return withAuto(words)
}

// withAuto is words, with auto first on search.
func withAuto(words []string) func(*cobra.Command) []string {
	return func(cmd *cobra.Command) []string {
		if cmd != nil && cmd.Name() == "search" {
			return append([]string{"auto"}, words...)
		}
		return words
	}
}
