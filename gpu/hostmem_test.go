package gpu

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/splitscope/splitscope/model"
)

// A DGX-like /proc/meminfo, cut down (the kernel writes about fifty lines).
const meminfoFixture = `MemTotal:       2113389096 kB
MemFree:        1987654321 kB
MemAvailable:   2012345678 kB
Buffers:          123456 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`

const node0Fixture = `Node 0 MemTotal:       1056694548 kB
Node 0 MemFree:        990000000 kB
Node 0 MemUsed:         66694548 kB
Node 0 HugePages_Total:     0
`

const node1Fixture = `Node 1 MemTotal:       1056694548 kB
Node 1 MemFree:        997654321 kB
`

func TestParseMeminfo(t *testing.T) {
	h, err := ParseMeminfo([]byte(meminfoFixture))
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalBytes != 2113389096*1024 || h.AvailableBytes != 2012345678*1024 {
		t.Errorf("got %+v, want MemTotal and MemAvailable in bytes", h)
	}
	// An old kernel has no MemAvailable: unknown, not 0.
	h, err = ParseMeminfo([]byte("MemTotal: 65536 kB\nMemFree: 1024 kB\n"))
	if err != nil || h.TotalBytes != 65536*1024 || h.AvailableBytes != Unknown {
		t.Errorf("without MemAvailable: %+v, %v", h, err)
	}
	for _, bad := range []string{"", "MemFree: 1 kB\n", "MemTotal: 0 kB\n", "MemTotal: lots kB\n", "MemTotal: 99999999999999999999 kB\n",
		"MemTotal: 9223372036854775807 kB\n", "MemTotal: 12 MB\n"} {
		if h, err := ParseMeminfo([]byte(bad)); err == nil {
			t.Errorf("%q: no error, got %+v", bad, h)
		}
	}
	n, err := ParseNodeMeminfo(0, []byte(node0Fixture))
	if err != nil || n != (NUMANode{Node: 0, TotalBytes: 1056694548 * 1024, FreeBytes: 990000000 * 1024}) {
		t.Errorf("node 0: %+v, %v", n, err)
	}
	// Node 1's lines do not answer for node 0.
	if n, err := ParseNodeMeminfo(0, []byte(node1Fixture)); err == nil {
		t.Errorf("node 0 read from node 1's file: %+v", n)
	}
}

func TestReadHostMemory(t *testing.T) {
	root := fstest.MapFS{
		"proc/meminfo":                          {Data: []byte(meminfoFixture)},
		"sys/devices/system/node/node1/meminfo": {Data: []byte(node1Fixture)},
		"sys/devices/system/node/node0/meminfo": {Data: []byte(node0Fixture)},
		"sys/devices/system/node/possible":      {Data: []byte("0-1\n")},
	}
	h, err := ReadHostMemory(root)
	if err != nil {
		t.Fatal(err)
	}
	want := HostMemory{TotalBytes: 2113389096 * 1024, AvailableBytes: 2012345678 * 1024, NUMA: []NUMANode{
		{Node: 0, TotalBytes: 1056694548 * 1024, FreeBytes: 990000000 * 1024},
		{Node: 1, TotalBytes: 1056694548 * 1024, FreeBytes: 997654321 * 1024}}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	// No NUMA directory (a container, an old kernel): the total alone.
	h, err = ReadHostMemory(fstest.MapFS{"proc/meminfo": {Data: []byte(meminfoFixture)}})
	if err != nil || h.NUMA != nil || h.TotalBytes != want.TotalBytes {
		t.Errorf("without NUMA: %+v, %v", h, err)
	}
	// No /proc, and a meminfo far too large, are errors that name the file.
	if _, err := ReadHostMemory(fstest.MapFS{}); err == nil || !strings.Contains(err.Error(), "/proc/meminfo") {
		t.Errorf("no /proc: %v", err)
	}
	huge := strings.Repeat("Filler: 1 kB\n", maxMeminfoBytes/8)
	if _, err := ReadHostMemory(fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: 1 kB\n" + huge)}}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized meminfo: %v", err)
	}
	// The probe records a failure as a warning, not as a failed probe.
	var b Box
	addHostMemory(&b, fstest.MapFS{})
	if b.HostMemory != nil || len(b.Warnings) != 1 || !strings.HasPrefix(b.Warnings[0], "host memory not read: /proc/meminfo") {
		t.Errorf("without /proc: %+v", b)
	}
}

func TestBoxHostMemoryRoundTrip(t *testing.T) {
	b := fullBox()
	b.HostMemory = &HostMemory{TotalBytes: 512 << 30, AvailableBytes: 400 << 30, NUMA: []NUMANode{{Node: 0, TotalBytes: 512 << 30, FreeBytes: Unknown}}}
	data, err := MarshalBox(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"host_memory": {`)) {
		t.Errorf("the box file lacks host_memory:\n%s", data)
	}
	got, err := ParseBox("b.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, b) {
		t.Errorf("round trip: got %+v, want %+v", got.HostMemory, b.HostMemory)
	}
	for _, tc := range []struct{ edit, want string }{
		{`"total_bytes": 549755813888`, `host_memory.total_bytes: must be a number of bytes above 0`},
		{`"available_bytes": 429496729600`, `host_memory.available_bytes: must be -1 (unknown) or a number of bytes from 0 to total_bytes`},
		{`"node": 0`, `host_memory.numa[0].node: must be a NUMA node number`},
		{`"free_bytes": -1`, `host_memory.numa[0].free_bytes: must be -1 (unknown)`},
	} {
		key, _, _ := strings.Cut(tc.edit, ":")
		bad := strings.Replace(string(data), tc.edit, key+": -7", 1)
		if bad == string(data) {
			t.Fatalf("%s not in the box file", tc.edit)
		}
		if _, err := ParseBox("b.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = -7: got %v, want %q", key, err, tc.want)
		}
	}
}

func TestToClusterHostMemory(t *testing.T) {
	p := presets(t)
	links, gpus := p.Links, p.GPUs
	b := nvBox("NVIDIA A100-SXM4-80GB", 8, 81920*1024*1024, 3, 12)
	b.Host = "node-1"
	c, _, err := ToCluster([]Box{b}, gpus, links, model.Link{}, 0)
	if err != nil || c.HostMemoryBytes != 0 || !c.HostMemoryDefault() {
		t.Errorf("a box without host memory: %v bytes (want 0, the default), %v", c.HostMemoryBytes, err)
	}
	b.HostMemory = &HostMemory{TotalBytes: 64 << 30, AvailableBytes: Unknown}
	c, _, err = ToCluster([]Box{b}, gpus, links, model.Link{}, 0)
	if err != nil || c.HostMemoryBytes != 64<<30 {
		t.Errorf("a box with 64 GiB: %v bytes, %v", c.HostMemoryBytes, err)
	}
	// Two nodes: the smaller one counts, and the difference is said.
	b2 := b
	b2.Host, b2.HostMemory = "node-2", &HostMemory{TotalBytes: 48 << 30, AvailableBytes: Unknown}
	ib := link(t, p, "ib-ndr")
	c, warns, err := ToCluster([]Box{b, b2}, gpus, links, ib, 0)
	if err != nil || c.HostMemoryBytes != 48<<30 || !strings.Contains(strings.Join(warns, "\n"), "host memory differs; the smallest, 48.0 GiB") {
		t.Errorf("two nodes: %v bytes, %q, %v", c.HostMemoryBytes, warns, err)
	}
}

// TestDocsBoxExample: the sample box in docs/ loads, says its host memory, and is what probe
// --save writes (MarshalBox gives its bytes back).
func TestDocsBoxExample(t *testing.T) {
	data, err := os.ReadFile("../docs/box-example.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBox("box-example.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if b.HostMemory == nil || b.HostMemory.TotalBytes <= 0 || len(b.HostMemory.NUMA) == 0 {
		t.Fatalf("the sample box has no host memory: %+v", b.HostMemory)
	}
	again, err := MarshalBox(b)
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("docs/box-example.json is not what probe --save writes (MarshalBox); diff it against:\n%s", again)
	}
	p := presets(t)
	c, _, err := ToCluster([]Box{b}, p.GPUs, p.Links, model.Link{}, 0)
	if err != nil || c.HostMemoryBytes != float64(b.HostMemory.TotalBytes) {
		t.Errorf("cluster host memory %v, want the box's %d (%v)", c.HostMemoryBytes, b.HostMemory.TotalBytes, err)
	}
}
