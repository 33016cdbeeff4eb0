package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/export"
)

// newExportCmd is `splitscope export`: the flags' scenario as an SVG picture for slides and as a
// Markdown report with the TP-vs-PP comparison table.
func newExportCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var svgPath, mdPath string
	var force bool
	var traces []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the Pipeline timeline and Tensor breakdown as SVG (--svg FILE), the report and TP-vs-PP table as Markdown (--markdown FILE)",
		Long: `export evaluates the scenario the flags describe and writes files to take away.

--svg FILE writes one self-contained SVG picture, 1600 px wide, for slides: the --scenario
file's title if it has one, and the scenario; the Pipeline timeline with one lane per pipeline
stage, one box per op (F, B, W, or prefill and decode in inference; a long timeline, over 4,500
ops or ops under a pixel wide, is drawn as boxes of consecutive ops, as a note under its axis
says), a time axis and the simulated bubble against its closed form;
the Tensor breakdown of one layer on one GPU to scale, compute against TP all-reduce, with the
ring all-reduce formula filled in; and a legend.

--markdown FILE writes the report (scenario, layout, step time and its breakdown, efficiency,
memory per GPU, warnings) and the Compare tab's contenders under the same labels (TP only, PP
only, the best layout of the search, the best hybrid when that is not it): what is split,
communication per layer, latency, throughput, interconnect needs, memory per GPU, with each
row's winner among the layouts that fit marked ★.

Give either or both, each its own file; "-" writes to standard output (one of them). A file
that exists is left alone unless --force is given; then it is replaced whole, never half-written.
--lang fr writes French texts.

--trace FILE (repeated, one PyTorch profiler trace per rank) adds to the SVG, under the
timeline, what each rank's GPU measured (compute, NCCL, idle) beside the model's stage, and the
biggest difference in one line; a trace of another layout than the flags' is refused (exit 2).`,
		Example: `  splitscope export --svg pipeline.svg
  splitscope export --model llama-2-13b --pp 4 --tp 2 --svg lesson.svg --markdown lesson.md
  splitscope export --scenario tour/pcie --lang fr --markdown -
  splitscope export --gpu a100-sxm-40gb --gpus 2 --tp 1 --pp 1 --trace rank0.json.gz --svg overlay.svg`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(traces) > 0 && svgPath == "" {
				return usagef("--trace: the overlay is drawn in the SVG; give --svg FILE")
			}
			return runExport(stdout, cmd.ErrOrStderr(), sf, output{"svg", svgPath}, output{"markdown", mdPath}, force, traces)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&svgPath, "svg", "", "write the Pipeline timeline and Tensor breakdown as SVG to `FILE` (\"-\": standard output)")
	fs.StringVar(&mdPath, "markdown", "", "write the report and the TP-vs-PP comparison as Markdown to `FILE` (\"-\": standard output)")
	fs.BoolVar(&force, "force", false, "replace --svg and --markdown files that exist (default off: refuse)")
	addTraceFlag(cmd, &traces)
	return cmd
}

// runExport evaluates the flags' scenario (with its timeline) and writes the files asked for.
// Outputs that would lose data are refused before anything is evaluated or written.
func runExport(stdout, errw io.Writer, sf *scenarioFlags, svg, md output, force bool, traces []string) error {
	if svg.path == "" && md.path == "" {
		return usagef("export needs --svg FILE or --markdown FILE")
	}
	if err := checkOutputs(force, svg, md); err != nil {
		return err
	}
	_, s, r, err := evaluateFlags(sf)
	if err != nil {
		return err
	}
	opt := export.SVGOptions{Lang: sf.language(), Title: sf.scenarioTitle}
	if len(traces) > 0 {
		if opt.Overlay, err = buildOverlay(traces, s, r); err != nil {
			return err
		}
	}
	writeWarnings(errw, sf)
	lang := sf.language()
	if svg.path != "" {
		var b bytes.Buffer
		if err := export.SVG(&b, s, r, opt); err != nil {
			return fmt.Errorf("export svg: %w", err)
		}
		if err := writeOutput(stdout, svg, b.Bytes(), force); err != nil {
			return err
		}
		if opt.Overlay != nil {
			writeOverlayNote(errw, opt.Overlay)
		}
	}
	if md.path != "" {
		var b bytes.Buffer
		if err := export.Markdown(&b, s, r, compare.Build(s), lang); err != nil {
			return fmt.Errorf("export markdown: %w", err)
		}
		if err := writeOutput(stdout, md, b.Bytes(), force); err != nil {
			return err
		}
	}
	return nil
}
