package gpu

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// largeBoxJSON is a box file of n GPUs written compactly, with no matrices: 100k GPUs fit in
// 3.6 MB, under the command line's 4 MiB limit on a box file.
func largeBoxJSON(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"driver":"550","gpus":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"index":%d,"name":"NVIDIA H100 80GB HBM3","memory_total_bytes":85899345920}`, i)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// largeBox is a box of n H100s built in memory, with no matrices.
func largeBox(n int) Box {
	b := Box{Driver: "550"}
	for i := range n {
		b.GPUs = append(b.GPUs, Device{Index: i, Name: "NVIDIA H100 80GB HBM3", MemTotal: 85899345920})
	}
	return b
}

// A box of 100k GPUs is refused, by ParseBox and by ToCluster, with an error that names the
// file (or the box) and the field, not a flag nobody typed.
func TestLargeBoxRejected(t *testing.T) {
	const n = 100_000
	_, err := ParseBox("huge.json", largeBoxJSON(n))
	want := fmt.Sprintf("huge.json:1: gpus: lists %d GPUs: a box is one node, at most %d GPUs (one file per node: probe --save on each)", n, model.MaxGPUsPerNode)
	if err == nil || err.Error() != want {
		t.Errorf("ParseBox: %v\nwant %s", err, want)
	}

	p := presets(t)
	_, _, err = ToCluster([]Box{largeBox(n)}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	want = fmt.Sprintf("box: %d GPUs: a box is one node, at most %d GPUs", n, model.MaxGPUsPerNode)
	if err == nil || err.Error() != want {
		t.Errorf("ToCluster: %v\nwant %s", err, want)
	}
}

// The largest box accepted parses, and makes a cluster, matrices or not.
func TestLargestBoxAccepted(t *testing.T) {
	p := presets(t)
	n := model.MaxGPUsPerNode
	b, err := ParseBox("big.json", largeBoxJSON(n))
	if err != nil {
		t.Fatal(err)
	}
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil || c.GPUs != n || c.GPUsPerNode != n || c.GPU.ID != "h100-sxm" {
		t.Fatalf("cluster %d GPUs (%d per node) of %s: %v", c.GPUs, c.GPUsPerNode, c.GPU.ID, err)
	}
	wantWarning(t, warns, "PCIe topology unknown")

	// With a full matrix of NVLinks: the link is read from the n² pairs.
	nv := nvBox("NVIDIA H100 80GB HBM3", n, 80*gib, 4, 18)
	if c, _, err = ToCluster([]Box{nv}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0); err != nil || c.Intra.ID != "nvlink4" {
		t.Errorf("NVLink box of %d: intra %s, %v", n, c.Intra.ID, err)
	}
}

// A box with a problem on every GPU reports the first maxProblems and how many more.
func TestBoxProblemsCapped(t *testing.T) {
	data := bytes.ReplaceAll(largeBoxJSON(500), []byte(`"memory_total_bytes":85899345920`), []byte(`"memory_total_bytes":0`))
	_, err := ParseBox("zero.json", data)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxProblems+1 || lines[0] != "zero.json:1: gpus[0].memory_total_bytes: must be a number above 0" ||
		lines[maxProblems] != fmt.Sprintf("zero.json: %d more problems not shown", 500-maxProblems) {
		t.Errorf("%d lines:\n%s", len(lines), err)
	}
}

// The figures in the report: a 100k-GPU box file refused, a 1024-GPU box merged.
func BenchmarkParseBox100k(b *testing.B) {
	data := largeBoxJSON(100_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseBox("huge.json", data); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkToCluster100k(b *testing.B) {
	p, err := assets.Load()
	if err != nil {
		b.Fatal(err)
	}
	box := []Box{largeBox(100_000)}
	for b.Loop() {
		_, _, _ = ToCluster(box, p.GPUs, p.Links, model.Link{}, 0)
	}
}

func BenchmarkToClusterNVLink1024(b *testing.B) {
	p, err := assets.Load()
	if err != nil {
		b.Fatal(err)
	}
	box := []Box{nvBox("NVIDIA H100 80GB HBM3", model.MaxGPUsPerNode, 80*gib, 4, 18)}
	for b.Loop() {
		if _, _, err := ToCluster(box, p.GPUs, p.Links, model.Link{}, 0); err != nil {
			b.Fatal(err)
		}
	}
}
