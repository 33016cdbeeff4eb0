package static

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel/calibrate"
	"github.com/splitscope/splitscope/model"
)

// LinkLabel is a link's ID, with the calibration file its parameters come from when it has one:
// "nvlink3", "nvlink3 (calibrated: box.yaml)".
func LinkLabel(l model.Link) string {
	if l.Calibrated == "" {
		return l.ID
	}
	return fmt.Sprintf("%s (calibrated: %s)", l.ID, l.Calibrated)
}

// Calibration is what `splitscope calibrate` shows: the runs it read, the GPU preset they map
// to, the fit and where the calibration was written.
type Calibration struct {
	GPU      model.GPU
	Runs     []model.NCCLRun
	Fit      calibrate.Result
	Base     model.Cluster // the preset links the fit started from (Intra, Inter, NICsPerNode)
	Warnings []string
	Out      string // the file written, "" for none
}

// usTime formats microseconds as nccl-tests does: 2 decimals below 100, 1 below 10,000, none above.
func usTime(s float64) string {
	us := s * 1e6
	switch {
	case us >= 10000:
		return fmt.Sprintf("%.0f", us)
	case us >= 100:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.2f", us)
}

// paramValue is a parameter in the unit of its key, to four significant digits.
func paramValue(p calibrate.Param, v float64) string {
	return strconv.FormatFloat(roundSig(p.InKeyUnits(v), 4), 'f', -1, 64)
}

func signedPercent(e float64) string { return fmt.Sprintf("%+.1f%%", 100*e) }

// RenderCalibration prints what calibrate read, the fitted parameters beside the presets', and
// each row measured against the model before and after the fit.
func RenderCalibration(w io.Writer, c Calibration) error {
	ew := &errWriter{w: w}
	rows := 0
	files := map[string]bool{}
	for _, r := range c.Runs {
		rows += len(r.Rows)
		files[r.File] = true
	}
	ew.line(fmt.Sprintf("calibrate: %d %s, %d %s, %d rows on %s", len(files), plural(len(files), "log", "logs"),
		len(c.Runs), plural(len(c.Runs), "run", "runs"), rows, c.GPU.ID))
	for _, r := range c.Runs {
		ew.line(fmt.Sprintf("  %s:%d  %s, %d ranks on %d %s (%s), %d rows; the operation from %s",
			r.File, r.Line, r.Op, r.Ranks, r.Nodes(), plural(r.Nodes(), "node", "nodes"), r.GPUName, len(r.Rows), r.OpFrom))
		if r.NCCLAlgo != "" {
			ew.line(fmt.Sprintf("      NCCL_ALGO=%s (line %d)", r.NCCLAlgo, r.NCCLAlgoLine))
		}
	}

	for _, side := range []struct {
		role, where string
		link        model.Link
		fitted      bool
		none        string
	}{
		{"intra", "inside a node", c.Base.Intra, c.Fit.IntraFitted, "not fitted (no run on one node)"},
		{"inter", "between nodes", c.Base.Inter, c.Fit.InterFitted, "not fitted (no run across nodes)"},
	} {
		ew.line("")
		if !side.fitted {
			ew.line(fmt.Sprintf("%s, %s: %s", side.link.ID, side.where, side.none))
			continue
		}
		head := fmt.Sprintf("%s, %s (%s per GPU", side.link.ID, side.where, Bandwidth(side.link.Bandwidth))
		if side.role == "inter" {
			head = fmt.Sprintf("%s, %s (%s per NIC, %d NICs per node", side.link.ID, side.where, Bandwidth(side.link.Bandwidth), c.Base.NICsPerNode)
		}
		n := 0
		for _, r := range c.Fit.Rows {
			if (r.Group.Nodes > 1) == (side.role == "inter") {
				n++
			}
		}
		ew.line(fmt.Sprintf("%s): fitted on %d rows", head, n))
		ew.line(fmt.Sprintf("  %-19s %10s %10s  %-16s %s", "parameter", "preset", "fitted", "allowed", "rows it moves"))
		for _, p := range c.Fit.Params {
			if p.Role != side.role {
				continue
			}
			allowed := paramValue(p.Param, p.Range.Min) + " to " + paramValue(p.Param, p.Range.Max)
			preset := paramValue(p.Param, p.Preset)
			switch {
			case p.Status == calibrate.NotApplicable:
				preset = "–"
			case p.Preset == 0:
				preset = "none"
			}
			switch p.Status {
			case calibrate.Fitted:
				note := strconv.Itoa(p.Rows)
				if p.Bound != "" {
					note += fmt.Sprintf("  ! at its %s bound", p.Bound)
				}
				ew.line(fmt.Sprintf("  %-19s %10s %10s  %-16s %s", p.Param.Key(), preset, paramValue(p.Param, p.Value), allowed, note))
			default:
				ew.line(fmt.Sprintf("  %-19s %10s %10s  %-16s %s", p.Param.Key(), preset, "–", "", "not fitted: "+p.Status.String()))
			}
		}
	}

	ew.line("")
	ew.line("rows: measured (the faster of out-of-place and in-place) against the model, with the presets and fitted")
	last := -1
	for _, row := range c.Fit.Rows {
		if row.Run != last && row.Run >= 0 && row.Run < len(c.Runs) {
			last = row.Run
			r := c.Runs[row.Run]
			ew.line(fmt.Sprintf("%s: %s, %d ranks on %d %s", filepath.Base(r.File), r.Op, r.Ranks, r.Nodes(), plural(r.Nodes(), "node", "nodes")))
			ew.line(fmt.Sprintf("  %5s %14s %12s %12s %7s %12s %7s  %s", "line", "size (B)", "measured µs", "presets µs", "error", "fitted µs", "error", "algorithm"))
		}
		ew.line(fmt.Sprintf("  %5d %14.0f %12s %12s %7s %12s %7s  %s/%s", row.Line, row.Bytes, usTime(row.Seconds),
			usTime(row.Preset.Seconds), signedPercent(row.PresetError()), usTime(row.Fitted.Seconds), signedPercent(row.FittedError()),
			row.Fitted.Algo, row.Fitted.Proto))
	}
	worst := ""
	var we float64
	for _, r := range c.Fit.Rows {
		if e := abs(r.FittedError()); e >= we {
			we, worst = e, fmt.Sprintf("%.0f B at %s:%d", r.Bytes, filepath.Base(r.File), r.Line)
		}
	}
	ew.line(fmt.Sprintf("mean error over %d rows: presets %.2f%%, fitted %.2f%% (worst %.1f%%: %s)",
		c.Fit.After.N, 100*c.Fit.Before.Mean, 100*c.Fit.After.Mean, 100*c.Fit.After.Max, worst))
	if len(c.Warnings) > 0 {
		ew.line("")
		ew.line("warnings")
		for _, w := range c.Warnings {
			ew.line("  ! " + w)
		}
	}
	if c.Out != "" {
		ew.line("")
		ew.line(fmt.Sprintf("wrote %s: use it with --calibration %s", c.Out, c.Out))
	}
	return ew.err
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CalibrationNotes are the comments a calibration file carries for its links: the parameters not
// fitted and why, those at a bound.
func CalibrationNotes(fit calibrate.Result) []string {
	var out []string
	for _, p := range fit.Params {
		switch {
		case p.Status != calibrate.Fitted && p.Status != calibrate.NotApplicable:
			out = append(out, fmt.Sprintf("%s: %s not fitted (%s): the preset's", p.Role, p.Param.Key(), p.Status))
		case p.Bound != "":
			out = append(out, fmt.Sprintf("%s: %s stopped at its %s bound (%s)", p.Role, p.Param.Key(), p.Bound,
				strings.TrimSpace(paramValue(p.Param, p.Value))))
		}
	}
	return out
}
