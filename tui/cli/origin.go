package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/model"
)

// A problem with the scenario is said against what the user wrote. model.Validate names fields
// by their flag, but a value may come from four places: a flag typed on the command line, a key
// of the --scenario file, the --box files (or probe), or a default derived from other values.
// Each needs its own words: "--tp 3" only when --tp was typed, "lesson.yaml line 3: tp = 3" for
// the file, and for a derived value how it was derived ("dp = gpus / (tp × pp) = 4"), which is
// said only when nothing the user gave is wrong: then it is the consequence, not the cause.

// origin is where the value of a field came from.
type origin int

const (
	fromDefault origin = iota // a default, or derived from other values
	fromTyped                 // a flag typed on the command line
	fromFile                  // a key of the --scenario file
	fromBox                   // the --box files or the probed box
)

// scenarioError is a scenario's problems, one line each, said against what the user wrote. It
// unwraps to the model.ValidationError, so that callers still ask it OnlyLayout.
type scenarioError struct {
	lines []string
	errs  model.ValidationError
}

func (e *scenarioError) Error() string { return strings.Join(e.lines, "\n") }
func (e *scenarioError) Unwrap() error { return e.errs }

// explain turns the problems found in building and validating s into a scenarioError. With
// forSearch, a scenario file's tp, pp and dp fix nothing (search sweeps them): those fields are
// the user's only when typed on the command line.
func (f *scenarioFlags) explain(errs model.ValidationError, s model.Scenario, forSearch bool) error {
	if len(errs) == 0 {
		return nil
	}
	given := slices.ContainsFunc(errs, func(fe *model.FieldError) bool {
		return f.origin(fe.Field, forSearch) != fromDefault
	})
	se := &scenarioError{errs: errs}
	for _, fe := range errs {
		o := f.origin(fe.Field, forSearch)
		if given && o == fromDefault {
			continue // a consequence of what the user gave, which is reported
		}
		se.lines = append(se.lines, f.describe(fe, o, s))
	}
	return se
}

// origin says where the field's value came from.
func (f *scenarioFlags) origin(field string, forSearch bool) origin {
	if forSearch && (field == "tp" || field == "pp" || field == "dp") {
		if f.typedFlag(field) {
			return fromTyped
		}
		return fromDefault
	}
	if _, ok := f.fileSet[field]; ok {
		return fromFile
	}
	if f.changed(field) {
		return fromTyped
	}
	if (len(f.box) > 0 || f.boxes != nil) && (field == "gpus" || field == "gpus-per-node") {
		return fromBox
	}
	return fromDefault
}

// describe is one problem as the user reads it.
func (f *scenarioFlags) describe(fe *model.FieldError, o origin, s model.Scenario) string {
	v := showValue(fe.Value)
	switch o {
	case fromTyped:
		return fmt.Sprintf("--%s %s: %s", fe.Field, v, fe.Allowed)
	case fromFile:
		kv := f.fileSet[fe.Field]
		return fmt.Sprintf("%s line %d: %s = %s: %s", f.scenarioFile, kv.Line, kv.Key, v, fe.Allowed)
	case fromBox:
		what := "the GPUs of the boxes"
		if fe.Field == "gpus-per-node" {
			what = "the GPUs of a box"
		}
		return fmt.Sprintf("%s = %s (%s, %s): %s", fe.Field, v, what, f.boxSource(), fe.Allowed)
	}
	expr, note := f.derivation(fe.Field, s)
	switch {
	case expr != "":
		return fmt.Sprintf("%s = %s = %s: %s", fe.Field, expr, v, fe.Allowed)
	case note != "":
		return fmt.Sprintf("%s = %s (%s): %s", fe.Field, v, note, fe.Allowed)
	}
	return fmt.Sprintf("%s = %s: %s", fe.Field, v, fe.Allowed)
}

// boxSource names where the boxes came from: the --box files, or probe.
func (f *scenarioFlags) boxSource() string {
	if len(f.box) == 0 {
		return "found by probe"
	}
	return "--box " + strings.Join(f.box, ", ")
}

// derivation says how a field the user did not give got its value: an expression of other
// fields ("gpus / (tp × pp)") or a note ("default").
func (f *scenarioFlags) derivation(field string, s model.Scenario) (expr, note string) {
	isFlag := f.fs.Lookup(field) != nil
	switch field {
	case "dp":
		return "gpus / (tp × pp)", ""
	case "tp":
		return "", "default: the largest TP size that fits a node and divides the model"
	case "pp":
		if s.Layout.PP > 1 {
			return "gpus / gpus-per-node", ""
		}
	case "batch":
		return "", fmt.Sprintf("default: %d raised to a multiple of micro-batch × dp", model.DefaultBatch)
	case "requests":
		return "", fmt.Sprintf("default: %d raised to a multiple of micro-batch × dp", model.DefaultRequests)
	case "micro-batch":
		if s.Workload.Mode == model.Infer {
			return "requests / (dp × pp)", ""
		}
	case "micro-batches":
		return "batch / (micro-batch × dp)", ""
	case "nics-per-node":
		return "gpus-per-node", ""
	case "kv-heads":
		if f.changed("heads") {
			return "heads", ""
		}
		return "", "the model's"
	case "layers", "hidden", "heads", "ffn", "vocab":
		return "", "the model's"
	}
	if isFlag {
		return "", "default"
	}
	return "", ""
}

// showValue prints a value as the user would type it: strings quoted when empty or spaced, and
// a long one cut to its start and its length (model.Shorten).
func showValue(v any) string {
	if s, ok := v.(string); ok && (s == "" || strings.ContainsAny(s, " \t")) {
		if r := []rune(s); len(r) > model.MaxShown {
			return fmt.Sprintf("%q… (%d characters)", string(r[:model.MaxShown]), len(r))
		}
		return fmt.Sprintf("%q", s)
	}
	return model.Shorten(fmt.Sprint(v))
}

// badFlagValue turns pflag's "invalid argument" error (a value that does not parse: a word, a
// number out of range, an int with a fraction) into a FieldError that names the flag and says
// what is allowed; nil for other errors.
func badFlagValue(err error) *model.FieldError {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return nil
	}
	fl := ive.GetFlag()
	return &model.FieldError{Field: fl.Name, Value: ive.GetValue(), Allowed: flagAllowed(fl.Name, fl.Value.Type(), ive.Unwrap())}
}

// maxReserveGiB bounds --reserve-gib: far above any GPU's memory, and its bytes stay finite.
const maxReserveGiB = 1 << 20

// floatAllowed is what each float flag allows, as the messages say it.
var floatAllowed = map[string]string{
	"compute-eff": "must be a fraction in (0, 1], or 0 for the GPU preset's",
	"memory-eff":  "must be a fraction in (0, 1], or 0 for the GPU preset's",
	"intra-eff":   "must be a fraction in (0, 1], or 0 for the link preset's",
	"inter-eff":   "must be a fraction in (0, 1], or 0 for the link preset's",
	"reserve-gib": fmt.Sprintf("must be a number of GiB from 0 to %d (0: the default, 1 GiB)", maxReserveGiB),
	"rate":        "must be a number of requests/s from 0 (all at once) to 1e6",
}

// flagAllowed says what a flag of type typ allows, for a value that did not parse (cause).
func flagAllowed(name, typ string, cause error) string {
	switch typ {
	case "int":
		if lo, hi, ok := model.IntLimits(name); ok {
			return fmt.Sprintf("must be a whole number between %d and %d", lo, hi)
		}
		return "must be a whole number of 0 or more"
	case "float64":
		if a, ok := floatAllowed[name]; ok {
			return a
		}
		return "must be a number"
	case "bool":
		return "must be true or false"
	case "uint64":
		return "must be a whole number from 0 to 18446744073709551615"
	}
	return cause.Error()
}
