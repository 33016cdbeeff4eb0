package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/model"
)

// Exit codes of the command line contract.
const (
	exitOK      = 0
	exitFailure = 1 // anything that is not the user's input: presets that do not load, a cost model error
	exitUsage   = 2 // bad input: flags, IDs, enum values, an invalid scenario
)

// usageError marks an error caused by the command line itself (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return &usageError{err: fmt.Errorf(format, args...)} }

// inputError marks bad input that is not a flag value, such as a --box file that does not parse
// (exit 2). Its message is the cause's, which names the file, the line and the field.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	var ve model.ValidationError
	var fe *model.FieldError
	var ue *usageError
	var ie *inputError
	var be *boxError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ve), errors.As(err, &fe), errors.As(err, &ue), errors.As(err, &ie), errors.As(err, &be):
		return exitUsage
	default:
		return exitFailure
	}
}

// isFlag reports whether name is a flag of cmd, its own or inherited.
func isFlag(cmd *cobra.Command, name string) bool {
	if cmd == nil {
		return false
	}
	return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil ||
		cmd.Root().PersistentFlags().Lookup(name) != nil
}

// fieldLine is "--tp 3: must divide heads (64): one of 1, 2, 4, …": the flag, the value given and
// what is allowed. Fields that are not flags (a preset's number, a derived count) keep their name.
func fieldLine(cmd *cobra.Command, fe *model.FieldError) string {
	name := fe.Field
	if isFlag(cmd, name) {
		name = "--" + name
	}
	return fmt.Sprintf("%s %s: %s", name, showValue(fe.Value), fe.Allowed)
}

// maxWord is the longest run of non-blank characters an error line keeps whole: longer ones (a
// value echoed by cobra, a path, a value inside a message's own words) are cut as
// model.Shorten cuts a value.
const maxWord = 2 * model.MaxShown

// maxLine is the longest error line kept whole.
const maxLine = 1024

// shortLines writes to w with every over-long word of each line cut (cutWords).
type shortLines struct{ w io.Writer }

func (s shortLines) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(cutWords(string(p)), "\n")
	for i, l := range lines {
		// A line of many short words (a value with blanks inside cobra's own message) is cut
		// whole past maxLine.
		if body := strings.TrimSuffix(l, "\n"); utf8.RuneCountInString(body) > maxLine {
			r := []rune(body)
			lines[i] = fmt.Sprintf("%s… (line of %d characters)", string(r[:maxLine]), len(r)) + l[len(body):]
		}
	}
	if _, err := io.WriteString(s.w, strings.Join(lines, "")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cutWords cuts every run of more than maxWord non-blank characters of text to model.Shorten's
// form, keeping the blanks and line breaks between them.
func cutWords(text string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 {
			word := text[start:end]
			if utf8.RuneCountInString(word) > maxWord {
				word = model.Shorten(word)
			}
			b.WriteString(word)
			start = -1
		}
	}
	for i, r := range text {
		if unicode.IsSpace(r) {
			flush(i)
			b.WriteRune(r)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(text))
	return b.String()
}

// printError writes err to w, one line per invalid field, each prefixed with the program name.
// A value the user gave is shown cut when long (showValue, cutWords): an error is a line or a
// few, whatever was typed.
func printError(w io.Writer, cmd *cobra.Command, err error) {
	w = shortLines{w}
	var ve model.ValidationError
	var fe *model.FieldError
	var ie *inputError
	var se *scenarioError
	switch {
	case errors.As(err, &se):
		for _, l := range se.lines {
			fmt.Fprintf(w, "splitscope: %s\n", l)
		}
	case errors.As(err, &ie), isBoxError(err):
		// The message names the file, the line and the field itself, one problem a line.
		for _, l := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
			fmt.Fprintf(w, "splitscope: %s\n", l)
		}
	case errors.As(err, &ve):
		for _, e := range ve {
			fmt.Fprintf(w, "splitscope: %s\n", fieldLine(cmd, e))
		}
	case errors.As(err, &fe):
		fmt.Fprintf(w, "splitscope: %s\n", fieldLine(cmd, fe))
	default:
		fmt.Fprintf(w, "splitscope: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) && cmd != nil {
			fmt.Fprintf(w, "run '%s --help' for usage\n", cmd.CommandPath())
		}
	}
}

func isBoxError(err error) bool {
	var be *boxError
	return errors.As(err, &be)
}
