package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/overlay"
)

// traceUsage is --trace's help, on the explorer and on export.
const traceUsage = "PyTorch profiler trace `FILE` (Chrome trace JSON, .json or .json.gz, one per rank) to draw beside the model's timeline for the same layout, with the biggest difference named; repeat it for more ranks (default none)"

// addTraceFlag registers --trace on cmd.
func addTraceFlag(cmd *cobra.Command, paths *[]string) {
	cmd.Flags().StringArrayVar(paths, "trace", nil, traceUsage)
}

// buildOverlay reads the traces and sets them against the scenario's report; a bad file or one
// of another layout is bad input (exit 2), naming the file and what contradicts the flags.
func buildOverlay(paths []string, s model.Scenario, r costmodel.Report) (*overlay.Overlay, error) {
	traces, err := overlay.Load(paths)
	if err != nil {
		return nil, &inputError{err: fmt.Errorf("--trace %w", err)}
	}
	o, err := overlay.Build(traces, s, r)
	if err != nil {
		return nil, &inputError{err: fmt.Errorf("--trace %w", err)}
	}
	return o, nil
}

// writeOverlayNote says on errw what the overlay found, for a report printed instead of the
// explorer: the biggest difference and each rank's shares.
func writeOverlayNote(errw io.Writer, o *overlay.Overlay) {
	fmt.Fprintf(errw, "splitscope: trace: %s\n", o.Diff)
	if o.GEMMNote != "" {
		fmt.Fprintf(errw, "splitscope: trace: %s\n", o.GEMMNote)
	}
	for _, r := range o.Ranks {
		m, p := r.Measured, r.Modeled
		fmt.Fprintf(errw, "splitscope: trace: rank %d (stage %d): compute %.0f%%, NCCL %.0f%%, idle %.0f%% of %s; model %.0f%%, %.0f%%, %.0f%% of a %s step\n",
			r.Rank, r.Stage, 100*m.Compute, 100*m.Comm, 100*m.Idle, secs(m.Span), 100*p.Compute, 100*p.Comm, 100*p.Idle, secs(p.Span))
	}
}

func secs(s float64) string { return strings.TrimSpace(fmt.Sprintf("%.3g s", s)) }
