package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

// boxFlags are the scenario flags that boxes replace: giving one with --box is bad input.
var boxFlags = []string{"gpu", "gpus", "gpus-per-node", "intra"}

// boxConflicts lists the hardware flags given beside --box (probe refuses them: flagRules).
func (f *scenarioFlags) boxConflicts() model.ValidationError {
	var errs model.ValidationError
	for _, name := range boxFlags {
		if f.changed(name) {
			errs = append(errs, &model.FieldError{Field: name, Value: f.fs.Lookup(name).Value.String(),
				Allowed: "conflicts with --box, which sets the GPU type, the GPU count, GPUs per node and the intra-node link"})
		}
	}
	return errs
}

// boxCluster turns the boxes into the cluster: the --box files are read on first use. inter is
// the --inter link (calibrated) that joins several boxes. The warnings land in f.boxWarnings.
func (f *scenarioFlags) boxCluster(p *assets.Presets, inter model.Link) (model.Cluster, error) {
	if f.boxes == nil {
		boxes, err := loadBoxes(f.box)
		if err != nil {
			return model.Cluster{}, err
		}
		f.boxes = boxes
	}
	nics := 0 // ToCluster's default, as without --box: one NIC per GPU of a node
	if f.changed("nics-per-node") {
		nics = f.nicsPerNode
	}
	c, warnings, err := gpu.ToCluster(f.boxes, p.GPUs, p.Links, inter, nics)
	if err != nil {
		return model.Cluster{}, &boxError{err: err}
	}
	if f.changed("nics-per-node") {
		c.NICsPerNode = f.nicsPerNode // a bad value is for validation to name
	}
	f.boxWarnings = warnings
	return c, nil
}

// boxError is a box that does not make a cluster (bad input, exit 2).
type boxError struct{ err error }

func (e *boxError) Error() string { return "--box: " + e.err.Error() }
func (e *boxError) Unwrap() error { return e.err }

// loadBoxes reads and parses box files. A file that cannot be read (or is no regular file, or is
// too large: readInputFile) is a --box field error; one that does not parse is an inputError
// whose message (gpu.ParseBox's) names file, line and field.
func loadBoxes(paths []string) ([]gpu.Box, error) {
	boxes := make([]gpu.Box, 0, len(paths))
	for _, path := range paths {
		data, err := readInputFile("box", path)
		if err != nil {
			return nil, err
		}
		b, err := gpu.ParseBox(path, data)
		if err != nil {
			return nil, &inputError{err: err}
		}
		boxes = append(boxes, b)
	}
	return boxes, nil
}

// writeWarnings prints the command line's warnings (cliWarnings: what ToCluster said about the
// boxes, the typed flags the scenario does not read), one "splitscope: warning:" line each.
func writeWarnings(w io.Writer, sf *scenarioFlags) {
	for _, wn := range sf.cliWarnings() {
		fmt.Fprintf(w, "splitscope: warning: %s\n", wn)
	}
}

// expandSavePath fills the placeholders of a probe --save path, so that one command run on every
// node by the cluster's launcher (srun, mpirun, pdsh) writes one file per node: %h is the host
// name, %n the node number ($SLURM_NODEID, else the host name), %% a percent sign.
func expandSavePath(pattern, host string, getenv func(string) string) string {
	if !strings.Contains(pattern, "%") {
		return pattern
	}
	node := getenv("SLURM_NODEID")
	if node == "" {
		node = host
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c != '%' || i+1 == len(pattern) {
			b.WriteByte(c)
			continue
		}
		switch pattern[i+1] {
		case 'h':
			b.WriteString(host)
		case 'n':
			b.WriteString(node)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return b.String()
}

// hostMemoryHelp is --host-memory's help.
var hostMemoryHelp = fmt.Sprintf("`SIZE` of host memory per node, what offloaded optimizer state, weights and activations fill, shared by the node's GPUs: "+
	"512GiB, 512G (G, GiB: ×1024³), 600GB (×1000³) or bytes; overrides a box's /proc/meminfo total (default: the box's with --box or probe, else %d GiB per GPU)",
	model.DefaultHostMemoryPerGPU/model.GiB)

// hostMemFlag is --host-memory: one node's host memory in bytes, 0 when not given.
type hostMemFlag struct{ v float64 }

func (h *hostMemFlag) String() string {
	if h.v <= 0 {
		return ""
	}
	return model.FormatByteSize(h.v)
}

func (h *hostMemFlag) Set(s string) error {
	b, err := model.ParseByteSize(s)
	if err != nil {
		return err
	}
	h.v = b
	return nil
}

func (h *hostMemFlag) Type() string { return "size" }
