package gpu

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
)

// rtx4090Box is a box file written by hand, as a user might: two RTX 4090s on one PCIe host
// bridge, no peer-to-peer, one GPU with unknown utilisation.
const rtx4090Box = `{
  "host": "ws1", "driver": "550.54.15", "cuda": "12.4",
  "gpus": [
    {"index": 0, "name": "NVIDIA GeForce RTX 4090", "uuid": "GPU-0a1b", "bus_id": "00000000:01:00.0",
     "memory_total_bytes": 25757220864, "memory_free_bytes": 25300000000, "memory_used_bytes": 457220864,
     "pcie_max_gen": 4, "pcie_gen": 1, "pcie_max_width": 16, "pcie_width": 16,
     "util_gpu_pct": 0, "util_memory_pct": 0, "power_w": 21.5, "temperature_c": 34},
    {"index": 1, "name": "NVIDIA GeForce RTX 4090", "uuid": "GPU-4e5f", "bus_id": "00000000:02:00.0",
     "memory_total_bytes": 25757220864, "memory_free_bytes": 25300000000, "memory_used_bytes": 457220864,
     "pcie_max_gen": 4, "pcie_gen": 4, "pcie_max_width": 16, "pcie_width": 16,
     "util_gpu_pct": -1, "util_memory_pct": -1, "power_w": -1, "temperature_c": 36}
  ],
  "p2p": [["X", "NS"], ["NS", "X"]],
  "topology": [["X", "PHB"], ["PHB", "X"]]
}
`

// FuzzParseBox feeds ParseBox any bytes: it must not panic; a refusal names the file on every
// line and stays a screenful; a box it accepts writes back to the same box and makes a cluster
// (or a reason) without panicking. Run it with -fuzzminimizetime 2s: a box's JSON is long, and
// the fuzzer's default minimizes each new input for up to 60 s, so the run seems stalled (30 s
// with 2 s: 275,000 inputs; with the default: about 20).
func FuzzParseBox(f *testing.F) {
	for _, b := range []Box{fullBox(), nvBox("NVIDIA H100 80GB HBM3", 8, 80*gib, 4, 18),
		pcieBox("NVIDIA L40S", 4, 46068*1024*1024, 4, func(i, j int) string { return "SYS" })} {
		data, err := MarshalBox(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{rtx4090Box, "", "{}", "[]", `{"gpus":[{"name":"x","memory_total_bytes":1}]}`,
		`{"gpus":[{"name":"x","memory_total_bytes":1,"colour":1}]}`, `{"gpus":[],"p2p":[["X"]]}`} {
		f.Add([]byte(s))
	}
	p, err := assets.Load()
	if err != nil {
		f.Fatal(err)
	}
	ndr, err := p.Link("ib-ndr")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBox("fuzz.json", data)
		if err != nil {
			lines := strings.Split(err.Error(), "\n")
			if len(lines) > maxProblems+1 {
				t.Errorf("%d lines of errors", len(lines))
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "fuzz.json") {
					t.Errorf("error line %q does not name the file", l)
				}
			}
			return
		}
		again, err := MarshalBox(b)
		if err != nil {
			t.Fatalf("MarshalBox of an accepted box: %v", err)
		}
		b2, err := ParseBox("again.json", again)
		if err != nil {
			t.Fatalf("the box written back does not parse: %v\n%s", err, again)
		}
		if third, _ := MarshalBox(b2); !bytes.Equal(third, again) {
			t.Fatalf("round trip differs:\n%s\n%s", again, third)
		}
		c, _, err := ToCluster([]Box{b}, p.GPUs, p.Links, ndr, 0)
		if err != nil {
			return
		}
		if c.GPUs < 1 || c.GPUsPerNode != c.GPUs || !(c.GPU.MemoryBytes > 0) ||
			!(c.Intra.Bandwidth > 0) || math.IsInf(c.Intra.Bandwidth, 0) {
			t.Errorf("cluster %+v", c)
		}
	})
}
