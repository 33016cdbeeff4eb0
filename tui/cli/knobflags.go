package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// The training knobs search sweeps (--recompute, --sequence-parallel, --sp-gather, --zero,
// --tp-overlap, --offload, --rank-order) also take "auto":
// search then tries every value, as it does when the flag is not typed. The other commands
// evaluate one scenario and refuse it.

const autoValue = "auto"

func isAuto(s string) bool { return strings.EqualFold(strings.TrimSpace(s), autoValue) }

// knobValue reads a training knob's flag with its enum's parser: auto gives the zero value (the
// knob's default, which search sweeps); any other word the parser refuses is an error naming
// the flag and what it allows.
func knobValue[T any](name, text string, parse func(string) (T, error), errs *model.ValidationError) T {
	var zero T
	if isAuto(text) {
		return zero
	}
	v, err := parse(text)
	if err != nil {
		*errs = append(*errs, enumError(name, text, err))
	}
	return v
}

// zeroFlag is --zero: a stage 0–3, or auto.
type zeroFlag struct {
	v    int
	auto bool
}

func (z *zeroFlag) String() string {
	if z.auto {
		return autoValue
	}
	return strconv.Itoa(z.v)
}

func (z *zeroFlag) Set(s string) error {
	if isAuto(s) {
		z.v, z.auto = 0, true
		return nil
	}
	// A whole number out of range is the scenario's to refuse, beside its other problems.
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, strconv.IntSize)
	if err != nil {
		lo, hi, _ := model.IntLimits("zero")
		return fmt.Errorf("must be a whole number between %d and %d", lo, hi)
	}
	z.v, z.auto = int(n), false
	return nil
}

func (z *zeroFlag) Type() string { return "stage" }

// spFlag is --sequence-parallel: a switch (alone it means true), or auto.
type spFlag struct {
	v    bool
	auto bool
}

func (b *spFlag) String() string {
	if b.auto {
		return autoValue
	}
	return strconv.FormatBool(b.v)
}

func (b *spFlag) Set(s string) error {
	if isAuto(s) {
		b.v, b.auto = false, true
		return nil
	}
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("must be true or false, or auto (search: try both)")
	}
	b.v, b.auto = v, false
	return nil
}

func (b *spFlag) Type() string { return "bool" }

// IsBoolFlag lets --sequence-parallel stand alone for true.
func (b *spFlag) IsBoolFlag() bool { return true }

// knobAutoErrors refuses auto outside search: one scenario has one value of each knob.
func (f *scenarioFlags) knobAutoErrors() model.ValidationError {
	var errs model.ValidationError
	if isAuto(f.recompute) {
		errs = append(errs, &model.FieldError{Field: "recompute", Value: f.recompute, Allowed: "auto is for search, which tries each; give none, selective or full"})
	}
	if f.sequenceParallel.auto {
		errs = append(errs, &model.FieldError{Field: "sequence-parallel", Value: autoValue, Allowed: "auto is for search, which tries both; give true or false"})
	}
	if isAuto(f.spGather) {
		errs = append(errs, &model.FieldError{Field: "sp-gather", Value: f.spGather, Allowed: "auto is for search, which tries both; give redo or keep"})
	}
	if isAuto(f.offload) {
		errs = append(errs, &model.FieldError{Field: "offload", Value: f.offload, Allowed: "auto is for search, which tries each; give none, optimizer, optimizer+weights, activations, optimizer+activations or optimizer+weights+activations"})
	}
	if isAuto(f.rankOrder) {
		errs = append(errs, &model.FieldError{Field: "rank-order", Value: f.rankOrder, Allowed: "auto is for search, which tries tp-dp-pp and tp-pp-dp where they place the split differently; give " + model.RankOrderForm})
	}
	if isAuto(f.tpOverlap) {
		errs = append(errs, &model.FieldError{Field: "tp-overlap", Value: f.tpOverlap, Allowed: "auto is for search, which tries each; give none, ring or pipe"})
	}
	if f.zero.auto {
		errs = append(errs, &model.FieldError{Field: "zero", Value: autoValue, Allowed: "auto is for search, which tries each; give a stage from 0 to 3"})
	}
	return errs
}
