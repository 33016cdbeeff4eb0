package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// probeGPUs reads this machine's GPUs; tests replace it with a fake.
var probeGPUs = gpu.Probe

func newProbeCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var save string
	var force bool
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "GPUs and links found through NVML, the cluster they make and what fits on them; --json, --save FILE",
		Long: `probe reads this machine's NVIDIA GPUs through NVML: per GPU the name, memory, PCIe
generation and width, NVLinks, utilisation, power and temperature; the topology matrix (as
nvidia-smi topo -m prints it) and the peer-to-peer matrix; and the machine's host RAM from
/proc/meminfo (total, available, per NUMA node), which offload fills. It then shows the cluster
splitscope infers from them (GPU preset, count, intra-node link, host RAM per node and GPU) and
the capacity verdict for --model: its best layout on these GPUs and the largest preset model
that fits for inference and for training, each saying whether it fits on the GPUs alone or only
with offload, and then the host RAM per GPU it needs against the box's (--host-memory overrides
the box's).

Without a GPU, a driver or NVML (a CGO_ENABLED=0 build) it prints the reason on one line and
exits 0; with --json that is {"error": "<reason>"}. With --save there is then nothing to save:
exit 1, "nothing saved to FILE" on stderr. On success --json prints
{"box": {...}, "cluster": {...}, "warnings": [...], "capacity": {...}}.

--save FILE also writes the box for --box: %h in FILE is the host name, %n the node number
($SLURM_NODEID, else the host name), so that the cluster's launcher can run one probe per node
(srun splitscope probe --save node-%n.json). A file that exists is left alone unless --force
is given. With --box FILE, probe shows saved boxes instead of reading this machine.`,
		Example: `  splitscope probe
  splitscope probe --json
  srun --ntasks-per-node 1 splitscope probe --save node-%n.json
  splitscope probe --box node-0.json --model llama-3.1-405b`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProbe(stdout, cmd.ErrOrStderr(), sf, save, force)
		},
	}
	cmd.Flags().StringVar(&save, "save", "", "also write the box to `FILE`, for --box (%h host name, %n node number) (default none)")
	cmd.Flags().BoolVar(&force, "force", false, "replace the --save file if it exists (default off: refuse)")
	return cmd
}

// probeOutput is the `probe --json` document. Boxes is set only when several --box files are shown.
type probeOutput struct {
	Box      *gpu.Box        `json:"box"`
	Boxes    []gpu.Box       `json:"boxes,omitempty"`
	Cluster  *clusterOutput  `json:"cluster"`
	Warnings []string        `json:"warnings"`
	Capacity *capacityOutput `json:"capacity,omitempty"`
	Saved    string          `json:"saved,omitempty"`
}

// clusterOutput summarises the cluster inferred from the boxes: preset IDs, counts, and the
// memory per GPU, which comes from the device.
type clusterOutput struct {
	GPU         string  `json:"gpu"`
	GPUName     string  `json:"gpu_name"`
	MemoryBytes float64 `json:"memory_bytes"`
	GPUs        int     `json:"gpus"`
	GPUsPerNode int     `json:"gpus_per_node"`
	Nodes       int     `json:"nodes"`
	Intra       string  `json:"intra"`
	// P2P and PCIePath, for a PCIe intra link only: whether the GPUs reach each other's memory
	// (false: every transfer is staged through host memory) and the path between them ("switch",
	// "host", "socket").
	P2P         *bool  `json:"p2p,omitempty"`
	PCIePath    string `json:"pcie_path,omitempty"`
	Inter       string `json:"inter"`
	NICsPerNode int    `json:"nics_per_node"`
}

func jsonCluster(c model.Cluster) *clusterOutput {
	out := &clusterOutput{GPU: c.GPU.ID, GPUName: c.GPU.Name, MemoryBytes: c.GPU.MemoryBytes, GPUs: c.GPUs,
		GPUsPerNode: c.GPUsPerNode, Nodes: c.Nodes(), Intra: c.Intra.ID, Inter: c.Inter.ID, NICsPerNode: c.NICsPerNode}
	if c.Intra.Kind == model.PCIe {
		p2p := !c.IntraLink().Staged
		out.P2P, out.PCIePath = &p2p, c.Intra.PCIePath.String()
	}
	return out
}

// runProbe probes (or, with --box, loads) the boxes and prints them, the cluster they make and
// the capacity verdict. No GPU is a result: the reason, exit 0.
func runProbe(w, errw io.Writer, sf *scenarioFlags, save string, force bool) error {
	p, err := sf.presets()
	if err != nil {
		return err
	}
	if save == "-" {
		return &model.FieldError{Field: "save", Value: save, Allowed: "must name a file: the report goes to standard output"}
	}
	var boxes []gpu.Box
	if len(sf.box) > 0 {
		if save != "" {
			return &model.FieldError{Field: "save", Value: save, Allowed: "writes a probed box; not with --box"}
		}
		if boxes, err = loadBoxes(sf.box); err != nil {
			return err
		}
	} else {
		b, err := probeGPUs()
		if err != nil {
			return probeFailed(w, errw, sf.json, save, err)
		}
		boxes = []gpu.Box{b}
	}

	out := probeOutput{Box: &boxes[0], Warnings: []string{}}
	if len(boxes) > 1 {
		out.Boxes = boxes
	}
	if save != "" {
		path, err := saveBox(save, boxes[0], force)
		if err != nil {
			return err
		}
		out.Saved = path
	}

	// The cluster and the capacity: the flags' scenario on these boxes. Layout problems of the
	// default split are no error (the verdict searches every layout).
	sf.boxes = boxes
	s, err := sf.scenario(p, true)
	var ve model.ValidationError
	var be *boxError
	var capRes *costmodel.CapacityResult
	switch {
	case err == nil || errors.As(err, &ve) && ve.OnlyLayout():
		c := costmodel.Capacity(s, p.Models, costmodel.SearchOptions{})
		capRes = &c
	case errors.As(err, &be):
		out.Warnings = append(out.Warnings, "no cluster inferred: "+be.err.Error())
	default:
		return err
	}
	out.Warnings = append(out.Warnings, sf.cliWarnings()...)

	if sf.json {
		if capRes != nil {
			out.Cluster = jsonCluster(s.Cluster)
			out.Capacity = jsonCapacity(s, *capRes, len(p.Models))
		}
		return writeJSON(w, out)
	}
	for i, b := range boxes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(sf.box) > 0 {
			fmt.Fprintf(w, "box %s\n", sf.box[i])
		}
		if err := static.RenderBox(w, b); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	if capRes == nil {
		return static.RenderCluster(w, nil, out.Warnings)
	}
	if err := static.RenderCluster(w, &s.Cluster, out.Warnings); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := static.RenderCapacity(w, s, *capRes, len(p.Models)); err != nil {
		return err
	}
	if out.Saved != "" {
		_, err = fmt.Fprintf(w, "\nsaved the box to %s (use it with --box %s)\n", out.Saved, out.Saved)
	}
	return err
}

// probeFailed reports a probe that found no GPU: the one-line reason (in JSON {"error": …}),
// exit 0, or exit 1 with --save, which had nothing to save. Any other failure still prints valid JSON with --json, and exits 1.
func probeFailed(w, errw io.Writer, asJSON bool, save string, err error) error {
	noGPU := errors.Is(err, gpu.ErrNoGPU)
	if asJSON {
		if werr := writeJSON(w, map[string]string{"error": err.Error()}); werr != nil {
			return werr
		}
	} else if noGPU {
		if _, werr := fmt.Fprintln(w, err.Error()); werr != nil {
			return werr
		}
	}
	if !noGPU {
		return fmt.Errorf("probe: %w", err)
	}
	if save != "" {
		// --save asked for a file and there is nothing to put in it: a failure (exit 1), said on
		// stderr so that stdout stays one JSON document with --json.
		return fmt.Errorf("nothing saved to %s: no GPU was found", save)
	}
	return nil
}

// saveBox writes the box to the --save path with its placeholders filled in and returns the
// path. A file there is replaced only with force.
func saveBox(pattern string, b gpu.Box, force bool) (string, error) {
	host := b.Host
	if host == "" {
		host, _ = os.Hostname()
	}
	path := expandSavePath(pattern, host, os.Getenv)
	data, err := gpu.MarshalBox(b)
	if err != nil {
		return "", fmt.Errorf("save box: %w", err)
	}
	if err := writeOutput(nil, output{"save", path}, data, force); err != nil {
		return "", err
	}
	return path, nil
}
