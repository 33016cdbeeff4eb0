package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// commFlags are the flags comm takes besides the hardware.
type commFlags struct {
	op, minBytes, maxBytes, algo, proto string
	factor                              float64
}

func newCommCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	cf := &commFlags{}
	cmd := &cobra.Command{
		Use:   "comm",
		Short: "What nccl-tests would print on this hardware: time, algbw, busbw, algorithm and protocol per size",
		Long: `comm times one collective over every GPU of the hardware the flags describe (--gpu, --gpus,
--gpus-per-node, --intra, --inter, --nics-per-node, or --box), for sizes from --min-bytes to
--max-bytes multiplied by --step-factor, as nccl-tests' all_reduce_perf -b -e -f would: the time,
the algorithm bandwidth (size / time), the bus bandwidth (algbw × 2(n−1)/n for all-reduce,
(n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast and send/recv), and the
algorithm and protocol NCCL would run. --algo forces an algorithm, as NCCL_ALGO does (ring, tree,
nvls, nvls-tree, or the engines' one-shot and two-shot), and --proto a protocol, as NCCL_PROTO
does (ll, ll128, simple). One that cannot run on the hardware at any of the sizes is refused
(exit 2, with the reason: NVLS without an NVSwitch, one-shot without peer-to-peer); one that
runs at some sizes only (one-shot below 8 MiB) runs there, and the other rows are marked * and
name what ran instead, with the reason under the header. Sizes are bytes with an optional K, M,
G or T (binary: 1K = 1024).`,
		Example: `  splitscope comm --gpu h100-sxm --gpus 8
  splitscope comm --gpu h100-sxm --gpus 8 --algo ring --min-bytes 1M --max-bytes 16G
  splitscope comm --gpu h100-sxm --gpus 8 --algo one-shot --max-bytes 64M
  splitscope comm --gpu h100-sxm --gpus 8 --proto simple
  splitscope comm --gpu a100-sxm-80gb --gpus 32 --inter ib-hdr --op all-gather --json
  splitscope comm --box node0.json --box node1.json --inter ib-ndr
  splitscope comm --gpu a100-sxm-80gb --gpus 8 --calibration box.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runComm(stdout, cmd.ErrOrStderr(), sf, cf) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&cf.op, "op", "all-reduce", "operation: "+strings.Join(opNames(), ", "))
	fs.StringVar(&cf.minBytes, "min-bytes", "8", "smallest size `SIZE`, bytes (K, M, G, T: binary)")
	fs.StringVar(&cf.maxBytes, "max-bytes", "16G", "largest size `SIZE`, bytes (K, M, G, T: binary)")
	fs.Float64Var(&cf.factor, "step-factor", 2, "multiply the size by this each row, above 1")
	fs.StringVar(&cf.algo, "algo", "auto", "algorithm: auto (NCCL's choice), ring, tree, nvls, nvls-tree, or the inference engines' one-shot or two-shot all-reduce")
	fs.StringVar(&cf.proto, "proto", "auto", "protocol: auto (NCCL's choice), ll, ll128 or simple, as NCCL_PROTO")
	return cmd
}

func opNames() []string {
	var out []string
	for _, o := range collective.Ops() {
		out = append(out, o.String())
	}
	return out
}

// maxCommBytes bounds a size: 1 PiB.
const maxCommBytes = 1 << 50

// parseSize reads "8", "1K", "16M", "2G", "1T" (binary), also with a trailing "B" or "iB".
func parseSize(flag, text string) (float64, error) {
	t := strings.TrimSpace(text)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	mult := 1.0
	if n := len(t); n > 0 {
		switch strings.ToUpper(t[n-1:]) {
		case "K":
			mult = 1 << 10
		case "M":
			mult = 1 << 20
		case "G":
			mult = 1 << 30
		case "T":
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	b := v * mult
	if err != nil || !(b >= 1) || b > maxCommBytes || math.IsNaN(b) {
		return 0, &model.FieldError{Field: flag, Value: text, Allowed: "a size of 1 byte to 1P, bytes with an optional K, M, G or T (binary)"}
	}
	return math.Round(b), nil
}

// commRequest checks comm's own flags, every problem at once.
func (cf *commFlags) request() (collective.Op, float64, float64, collective.Algo, collective.Proto, error) {
	var errs model.ValidationError
	op, err := collective.ParseOp(cf.op)
	if err != nil {
		errs = append(errs, &model.FieldError{Field: "op", Value: cf.op, Allowed: "one of " + strings.Join(opNames(), ", ")})
	}
	lo, err := parseSize("min-bytes", cf.minBytes)
	if err != nil {
		errs = append(errs, err.(*model.FieldError))
	}
	hi, err := parseSize("max-bytes", cf.maxBytes)
	if err != nil {
		errs = append(errs, err.(*model.FieldError))
	}
	if lo > 0 && hi > 0 && hi < lo {
		errs = append(errs, &model.FieldError{Field: "max-bytes", Value: cf.maxBytes, Allowed: "must be at least --min-bytes " + cf.minBytes})
	}
	if !(cf.factor > 1) || cf.factor > 1024 {
		errs = append(errs, &model.FieldError{Field: "step-factor", Value: cf.factor, Allowed: "a number above 1 and at most 1024"})
	} else if lo > 0 && hi >= lo && math.Log(hi/lo)/math.Log(cf.factor)+1 > collective.MaxSweepRows {
		errs = append(errs, &model.FieldError{Field: "step-factor", Value: cf.factor,
			Allowed: fmt.Sprintf("too small for %s to %s: at most %d rows", cf.minBytes, cf.maxBytes, collective.MaxSweepRows)})
	}
	algo, err := collective.ParseAlgo(cf.algo)
	if err != nil || algo == collective.Direct {
		errs = append(errs, &model.FieldError{Field: "algo", Value: cf.algo, Allowed: "one of " + strings.Join(collective.AlgoNames(), ", ")})
	} else if (algo == collective.OneShot || algo == collective.TwoShot) && op != collective.AllReduce {
		errs = append(errs, &model.FieldError{Field: "algo", Value: cf.algo, Allowed: "one-shot and two-shot are all-reduce kernels: use them with --op all-reduce"})
	}
	proto, err := collective.ParseProto(cf.proto)
	if err != nil {
		errs = append(errs, &model.FieldError{Field: "proto", Value: cf.proto, Allowed: "one of " + strings.Join(collective.ProtoNames(), ", ")})
	}
	if len(errs) > 0 {
		return 0, 0, 0, 0, 0, errs
	}
	return op, lo, hi, algo, proto, nil
}

// refuseForced is the usage error for a forced algorithm or protocol that ran at none of the
// sizes: the flag that cannot be honoured, with the hardware's reason.
func refuseForced(cf *commFlags, op collective.Op, g collective.Group, f collective.Fabric, algo collective.Algo, proto collective.Proto, rows []collective.Point) error {
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		if r.Fallback == "" {
			return nil
		}
	}
	b := rows[0].Bytes
	field, value := "proto", cf.proto
	if algo != collective.Auto && collective.Unavailable(op, b, g, f, algo, collective.AnyProto) != "" {
		field, value = "algo", cf.algo
	}
	why := rows[0].Fallback
	if len(rows) > 1 && rows[len(rows)-1].Fallback != why {
		why += fmt.Sprintf(" (at %.0f B; at %.0f B: %s)", b, rows[len(rows)-1].Bytes, rows[len(rows)-1].Fallback)
	}
	return &model.FieldError{Field: field, Value: value, Allowed: why}
}

// runComm sweeps the collective on the flags' hardware. The scenario is built as search builds it
// (its layout is not comm's business); only the cluster is used.
func runComm(w, errw io.Writer, sf *scenarioFlags, cf *commFlags) error {
	op, lo, hi, algo, proto, err := cf.request()
	if err != nil {
		return err
	}
	p, err := sf.presets()
	if err != nil {
		return err
	}
	s, err := sf.scenario(p, true)
	var ve model.ValidationError
	if err != nil && !(errors.As(err, &ve) && ve.OnlyLayout()) {
		return err
	}
	c := s.Cluster
	g := collective.Group{Ranks: c.GPUs, Nodes: c.Nodes()}
	if op == collective.SendRecv {
		g = collective.Group{Ranks: 2, Nodes: 1} // sendrecv_perf: each rank to the next, one link each
		if c.Nodes() > 1 && c.GPUsPerNode == 1 {
			g.Nodes = 2
		}
	}
	f := collective.FabricOf(c)
	rows := collective.Sweep(op, lo, hi, cf.factor, g, f, algo, proto)
	if err := refuseForced(cf, op, g, f, algo, proto, rows); err != nil {
		return err
	}
	// stdout keeps the table or the JSON of the contract; what the hardware flags imply goes to
	// stderr.
	writeWarnings(errw, sf)
	if sf.json {
		return writeJSON(w, jsonComm(op, c, algo, proto, rows))
	}
	return static.RenderComm(w, op, c, algo, proto, rows)
}
