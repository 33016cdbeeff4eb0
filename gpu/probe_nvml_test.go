//go:build linux && cgo

package gpu

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/dl"
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"

	"github.com/splitscope/splitscope/model"
)

// failAll sets every nil …Func field of a moq mock (mock.Interface, mock.Device) to a function
// that fails the test, so a call the probe should not make is reported instead of panicking.
func failAll(t *testing.T, m any, label string) {
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if !strings.HasSuffix(sf.Name, "Func") || f.Kind() != reflect.Func || !f.IsNil() {
			continue
		}
		name := label + "." + strings.TrimSuffix(sf.Name, "Func")
		f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
			t.Errorf("unexpected call %s", name)
			out := make([]reflect.Value, f.Type().NumOut())
			for k := range out {
				out[k] = reflect.Zero(f.Type().Out(k))
			}
			if n := len(out); n > 0 && f.Type().Out(n-1) == reflect.TypeFor[nvml.Return]() {
				out[n-1] = reflect.ValueOf(nvml.ERROR_UNKNOWN)
			}
			return out
		}))
	}
}

func setBus[T ~int8 | ~uint8](dst *[32]T, s string) {
	for i := range len(s) {
		dst[i] = T(s[i])
	}
}

func pci(bus string) nvml.PciInfo {
	var p nvml.PciInfo
	setBus(&p.BusId, bus)
	return p
}

// fakeGPU describes one device of a hand-made mock.
type fakeGPU struct {
	name        string
	mem         uint64
	bus         string
	maxGen, gen int
	maxW, w     int
	nvlinks     []fakeLink // nil: NVLink not supported
	fail        map[string]nvml.Return
}

type fakeLink struct {
	version uint32 // nvmlNvlinkVersion_t
	remote  string
}

// fakeBox is a mock NVML with these GPUs; topo and p2p say what lies between two of them.
type fakeBox struct {
	gpus []fakeGPU
	topo func(i, j int) nvml.GpuTopologyLevel
	p2p  func(i, j int) nvml.GpuP2PStatus // reads (and writes, unless p2pWrite says otherwise)
	// p2pWrite is the write status when it differs from the read status (nil: the same).
	p2pWrite func(i, j int) nvml.GpuP2PStatus
}

func (fb fakeBox) lib(t *testing.T) (*mock.Interface, []*mock.Device) {
	devs := make([]*mock.Device, len(fb.gpus))
	index := func(d nvml.Device) int {
		for k, x := range devs {
			if d == nvml.Device(x) {
				return k
			}
		}
		t.Fatalf("unknown device %v", d)
		return -1
	}
	for i, g := range fb.gpus {
		ret := func(q string) nvml.Return {
			if r, ok := g.fail[q]; ok {
				return r
			}
			return nvml.SUCCESS
		}
		d := &mock.Device{
			GetNameFunc:    func() (string, nvml.Return) { return g.name, ret("name") },
			GetUUIDFunc:    func() (string, nvml.Return) { return fmt.Sprintf("GPU-%08x-0000", i), ret("uuid") },
			GetPciInfoFunc: func() (nvml.PciInfo, nvml.Return) { return pci(g.bus), ret("pci") },
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
				return nvml.Memory{Total: g.mem, Free: g.mem - 512<<20, Used: 512 << 20}, ret("memory")
			},
			GetMaxPcieLinkGenerationFunc:  func() (int, nvml.Return) { return g.maxGen, ret("pcie") },
			GetCurrPcieLinkGenerationFunc: func() (int, nvml.Return) { return g.gen, ret("pcie") },
			GetMaxPcieLinkWidthFunc:       func() (int, nvml.Return) { return g.maxW, ret("pcie") },
			GetCurrPcieLinkWidthFunc:      func() (int, nvml.Return) { return g.w, ret("pcie") },
			GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
				switch {
				case g.nvlinks == nil:
					return 0, nvml.ERROR_NOT_SUPPORTED
				case l >= len(g.nvlinks):
					return 0, nvml.ERROR_INVALID_ARGUMENT
				}
				return nvml.FEATURE_ENABLED, ret("nvlink")
			},
			GetNvLinkVersionFunc:       func(l int) (uint32, nvml.Return) { return g.nvlinks[l].version, ret("nvlink") },
			GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) { return pci(g.nvlinks[l].remote), ret("nvlink") },
			GetUtilizationRatesFunc: func() (nvml.Utilization, nvml.Return) {
				return nvml.Utilization{Gpu: 7, Memory: 2}, ret("utilization")
			},
			GetPowerUsageFunc: func() (uint32, nvml.Return) { return 61250, ret("power") },
			GetTemperatureFunc: func(s nvml.TemperatureSensors) (uint32, nvml.Return) {
				if s != nvml.TEMPERATURE_GPU {
					t.Errorf("temperature sensor %v", s)
				}
				return 35, ret("temperature")
			},
			GetP2PStatusFunc: func(o nvml.Device, c nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
				if r := ret("p2p"); r != nvml.SUCCESS {
					return 0, r
				}
				switch c {
				case nvml.P2P_CAPS_INDEX_READ:
					return fb.p2p(i, index(o)), nvml.SUCCESS
				case nvml.P2P_CAPS_INDEX_WRITE:
					if fb.p2pWrite != nil {
						return fb.p2pWrite(i, index(o)), nvml.SUCCESS
					}
					return fb.p2p(i, index(o)), nvml.SUCCESS
				}
				t.Errorf("p2p caps index %v", c)
				return 0, nvml.ERROR_INVALID_ARGUMENT
			},
			GetTopologyCommonAncestorFunc: func(o nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
				if r := ret("topology"); r != nvml.SUCCESS {
					return 0, r
				}
				return fb.topo(i, index(o)), nvml.SUCCESS
			},
		}
		devs[i] = d
	}
	m := &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "550.54.15", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 12040, nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (nvml.Device, nvml.Return) {
			if i < 0 || i >= len(devs) {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[i], nvml.SUCCESS
		},
	}
	failAll(t, m, "nvml")
	for i, d := range devs {
		failAll(t, d, fmt.Sprintf("device%d", i))
	}
	return m, devs
}

func okP2P(i, j int) nvml.GpuP2PStatus { return nvml.P2P_STATUS_OK }

func pcieGPUs(n int, name string, mem uint64, gen int) []fakeGPU {
	gs := make([]fakeGPU, n)
	for i := range gs {
		gs[i] = fakeGPU{name: name, mem: mem, bus: fmt.Sprintf("00000000:%02X:00.0", 0x17+0x20*i), maxGen: gen, gen: 1, maxW: 16, w: 16}
	}
	return gs
}

func mustProbe(t *testing.T, lib nvml.Interface) Box {
	t.Helper()
	b, err := probe(lib)
	if err != nil {
		t.Fatal(err)
	}
	// What the probe writes, a box file reads back.
	data, err := MarshalBox(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseBox("probe.json", data)
	if err != nil {
		t.Fatalf("the probe's box does not parse: %v", err)
	}
	if !reflect.DeepEqual(again, b) {
		t.Errorf("box file round trip differs")
	}
	return b
}

func matrix(n int, f func(i, j int) string) [][]string {
	m := make([][]string, n)
	for i := range m {
		m[i] = make([]string, n)
		for j := range m[i] {
			if i == j {
				m[i][j] = "X"
			} else {
				m[i][j] = f(i, j)
			}
		}
	}
	return m
}

func TestProbeDGXA100(t *testing.T) {
	// go-nvml's DGX A100: 8 A100-SXM4-40GB. The mock sets identity and memory only, and its
	// GetPciInfo leaves BusId empty; the rest is set here as on a real DGX A100: PCIe 4 x16
	// (idle at gen 1), 12 NVLink 3 links per GPU, two to each of 6 NVSwitches, GPUs in pairs under
	// PCIe switches, four to a CPU socket.
	s := dgxa100.New()
	for _, d := range s.Devices {
		dev := d.(*dgxa100.Device)
		dev.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
			p := pci(strings.ToUpper("0000" + dev.PciBusID)) // NVML's 8-digit domain
			p.PciDeviceId = 0x20B010DE                       // A100-SXM4-40GB, as the mock's own GetPciInfo
			return p, nvml.SUCCESS
		}
		dev.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 4, nvml.SUCCESS }
		dev.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 1, nvml.SUCCESS }
		dev.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetNvLinkStateFunc = func(l int) (nvml.EnableState, nvml.Return) {
			if l >= 12 {
				return 0, nvml.ERROR_INVALID_ARGUMENT
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		}
		dev.GetNvLinkVersionFunc = func(l int) (uint32, nvml.Return) { return uint32(nvml.NVLINK_VERSION_3_1), nvml.SUCCESS }
		dev.GetNvLinkRemotePciInfoFunc = func(l int) (nvml.PciInfo, nvml.Return) {
			return pci(fmt.Sprintf("00000000:%02X:00.0", 0xC0+l/2)), nvml.SUCCESS
		}
		dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{}, nvml.SUCCESS }
		dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 52000, nvml.SUCCESS }
		dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 30, nvml.SUCCESS }
		dev.GetP2PStatusFunc = func(nvml.Device, nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			return nvml.P2P_STATUS_OK, nvml.SUCCESS
		}
		dev.GetTopologyCommonAncestorFunc = func(o nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			i, j := dev.Index, o.(*dgxa100.Device).Index
			switch {
			case i/2 == j/2:
				return nvml.TOPOLOGY_MULTIPLE, nvml.SUCCESS
			case i/4 == j/4:
				return nvml.TOPOLOGY_NODE, nvml.SUCCESS
			}
			return nvml.TOPOLOGY_SYSTEM, nvml.SUCCESS
		}
	}
	b := mustProbe(t, s)
	if b.Driver != "550.54.15" || b.CUDA != "12.4" || len(b.GPUs) != 8 || len(b.Warnings) != 0 {
		t.Fatalf("driver %q, CUDA %q, %d GPUs, warnings %q", b.Driver, b.CUDA, len(b.GPUs), b.Warnings)
	}
	for i, d := range b.GPUs {
		active := 0
		for _, l := range d.NVLinks {
			if l.Active && l.Version == 3 {
				active++
			}
		}
		if d.Index != i || d.Name != "Mock NVIDIA A100-SXM4-40GB" || d.MemTotal != 40<<30 || !strings.HasPrefix(d.UUID, "GPU-") ||
			d.BusID != fmt.Sprintf("00000000:%02X:00.0", i) || d.PCIeMaxGen != 4 || d.PCIeGen != 1 || d.PCIeW != 16 ||
			active != 12 || d.PowerW != 52 || d.TempC != 30 || d.Lost {
			t.Errorf("GPU %d: %+v", i, d)
		}
	}
	if want := matrix(8, func(i, j int) string { return "NV12" }); !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v, want NV12 between every pair", b.Topology)
	}
	if want := matrix(8, func(i, j int) string { return "OK" }); !reflect.DeepEqual(b.P2P, want) {
		t.Errorf("p2p %v", b.P2P)
	}
	if n := len(s.ShutdownCalls()); n != 1 {
		t.Errorf("Shutdown called %d times", n)
	}

	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-hdr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
	if c.GPU.ID != "a100-sxm-40gb" || c.GPU.MemoryBytes != 40<<30 || c.Intra != link(t, p, "nvlink3") || c.GPUs != 8 || c.GPUsPerNode != 8 {
		t.Errorf("cluster %s (%.0f bytes) over %s, %d GPUs", c.GPU.ID, c.GPU.MemoryBytes, c.Intra.ID, c.GPUs)
	}
}

func TestProbeL40SAcrossSockets(t *testing.T) {
	// 4×L40S on PCIe 4, GPUs 0-1 under CPU socket 0, 2-3 under socket 1; no NVLink.
	sameSocket := func(i, j int) bool { return i/2 == j/2 }
	fb := fakeBox{
		gpus: pcieGPUs(4, "NVIDIA L40S", 46068<<20, 4),
		topo: func(i, j int) nvml.GpuTopologyLevel {
			if sameSocket(i, j) {
				return nvml.TOPOLOGY_NODE
			}
			return nvml.TOPOLOGY_SYSTEM
		},
		p2p: func(i, j int) nvml.GpuP2PStatus {
			if sameSocket(i, j) {
				return nvml.P2P_STATUS_OK
			}
			return nvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED
		},
	}
	lib, _ := fb.lib(t)
	b := mustProbe(t, lib)
	want := matrix(4, func(i, j int) string {
		if sameSocket(i, j) {
			return "NODE"
		}
		return "SYS"
	})
	if !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v, want %v", b.Topology, want)
	}
	if b.P2P[0][1] != "OK" || b.P2P[0][2] != "NS" || b.P2P[3][1] != "NS" {
		t.Errorf("p2p %v", b.P2P)
	}
	for _, d := range b.GPUs {
		if len(d.NVLinks) != 0 || d.PCIeMaxGen != 4 || d.PCIeGen != 1 || d.MemTotal != 46068<<20 || d.UtilGPU != 7 || d.PowerW != 61.25 {
			t.Errorf("GPU %d: %+v", d.Index, d)
		}
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "roce-200"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// NVML's "not supported" across the sockets: the ring's hops there are staged through host
	// memory, and the path is the sockets'.
	if c.GPU.ID != "l40s" || c.GPU.MemoryBytes != 46068<<20 || c.Intra.ID != "pcie4-sys-nop2p" || c.GPUs != 4 ||
		c.Intra.PCIePath != model.PathSocket || !c.Intra.Staged {
		t.Errorf("cluster %s (%.0f bytes) over %s (%s, staged %v), %d GPUs", c.GPU.ID, c.GPU.MemoryBytes, c.Intra.ID, c.Intra.PCIePath, c.Intra.Staged, c.GPUs)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "no peer-to-peer between GPUs 0 and 2") {
		t.Errorf("warnings %q", warns)
	}
}

func TestProbeRTX4090(t *testing.T) {
	fb := fakeBox{
		gpus: pcieGPUs(2, "NVIDIA GeForce RTX 4090", 24564<<20, 4),
		topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_HOSTBRIDGE },
		p2p:  func(i, j int) nvml.GpuP2PStatus { return nvml.P2P_STATUS_GPU_NOT_SUPPORTED },
	}
	lib, _ := fb.lib(t)
	b := mustProbe(t, lib)
	if want := matrix(2, func(i, j int) string { return "PHB" }); !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v", b.Topology)
	}
	if want := matrix(2, func(i, j int) string { return "NS" }); !reflect.DeepEqual(b.P2P, want) {
		t.Errorf("p2p %v", b.P2P)
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "eth-100"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// A GeForce card without P2P is no news (no warning); its link is staged all the same.
	if c.GPU.ID != "rtx-4090" || c.GPUs != 2 || c.Intra.ID != "pcie4-host-nop2p" || !c.GPU.NoP2P || !c.IntraLink().Staged ||
		c.GPU.MemoryBytes != 24564<<20 || len(warns) != 0 {
		t.Errorf("cluster %s ×%d over %s (no P2P %v); warnings %q", c.GPU.ID, c.GPUs, c.Intra.ID, c.GPU.NoP2P, warns)
	}
}

// strictLib is an NVML whose Init returns ret and whose every other function fails the test.
func strictLib(t *testing.T, ret nvml.Return) *mock.Interface {
	m := &mock.Interface{InitFunc: func() nvml.Return { return ret }}
	failAll(t, m, "nvml")
	return m
}

func TestProbeInitFails(t *testing.T) {
	for _, c := range []struct {
		ret  nvml.Return
		want string
	}{
		{nvml.ERROR_LIBRARY_NOT_FOUND, "no NVIDIA GPU: libnvidia-ml.so.1 not found: no NVIDIA driver"},
		{nvml.ERROR_NO_PERMISSION, "no NVIDIA GPU: NVML init: insufficient permissions"},
		{nvml.ERROR_DRIVER_NOT_LOADED, "no NVIDIA GPU: NVML init: the NVIDIA driver is not loaded"},
		{nvml.ERROR_UNKNOWN, "no NVIDIA GPU: NVML init failed (return code 999)"},
	} {
		t.Run(c.want, func(t *testing.T) {
			m := strictLib(t, c.ret)
			b, err := probe(m)
			if !errors.Is(err, ErrNoGPU) || !errors.Is(err, c.ret) || err.Error() != c.want {
				t.Errorf("got %v, want %q wrapping ErrNoGPU and %d", err, c.want, int32(c.ret))
			}
			if len(b.GPUs) != 0 {
				t.Errorf("box %+v", b)
			}
			// Nothing but Init: no Shutdown either (failAll reports any other call).
			if len(m.InitCalls()) != 1 || len(m.ShutdownCalls()) != 0 {
				t.Errorf("Init ×%d, Shutdown ×%d", len(m.InitCalls()), len(m.ShutdownCalls()))
			}
		})
	}
}

func TestProbeZeroDevices(t *testing.T) {
	lib, _ := fakeBox{}.lib(t)
	_, err := probe(lib)
	if !errors.Is(err, ErrNoGPU) || err.Error() != "no NVIDIA GPU: no NVIDIA GPU found" {
		t.Errorf("got %v", err)
	}
	if len(lib.ShutdownCalls()) != 1 {
		t.Errorf("Shutdown ×%d, want 1 after a good Init", len(lib.ShutdownCalls()))
	}

	lib, _ = fakeBox{}.lib(t)
	lib.DeviceGetCountFunc = func() (int, nvml.Return) { return 0, nvml.ERROR_UNKNOWN }
	if _, err := probe(lib); !errors.Is(err, ErrNoGPU) || !strings.Contains(err.Error(), "NVML device count") {
		t.Errorf("count failing: %v", err)
	}

	lib, _ = fakeBox{gpus: pcieGPUs(1, "NVIDIA L40S", 46068<<20, 4)}.lib(t)
	lib.ShutdownFunc = func() nvml.Return { return nvml.ERROR_UNKNOWN }
	if _, err := probe(lib); err == nil || !strings.Contains(err.Error(), "nvml shutdown") {
		t.Errorf("shutdown failing: %v", err)
	}
}

func TestProbeGPULost(t *testing.T) {
	// 3×H100 PCIe; the second falls off the bus when its memory is read.
	gs := pcieGPUs(3, "NVIDIA H100 PCIe", 81559<<20, 5)
	gs[1].fail = map[string]nvml.Return{"memory": nvml.ERROR_GPU_IS_LOST}
	fb := fakeBox{gpus: gs, p2p: okP2P, topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_NODE }}
	lib, devs := fb.lib(t)
	// After the lost read, nothing more is asked of device 1.
	for _, f := range []*func() (int, nvml.Return){&devs[1].GetMaxPcieLinkGenerationFunc, &devs[1].GetCurrPcieLinkGenerationFunc} {
		*f = func() (int, nvml.Return) { t.Error("lost GPU queried again"); return 0, nvml.ERROR_GPU_IS_LOST }
	}
	devs[1].GetP2PStatusFunc = nil
	devs[1].GetTopologyCommonAncestorFunc = nil
	failAll(t, devs[1], "lost device")
	b := mustProbe(t, lib)
	if len(b.GPUs) != 3 {
		t.Fatalf("%d GPUs", len(b.GPUs))
	}
	d := b.GPUs[1]
	if !d.Lost || d.Name != "NVIDIA H100 PCIe" || d.BusID == "" || d.MemTotal != Unknown || d.PCIeGen != Unknown || d.PowerW != Unknown {
		t.Errorf("lost GPU: %+v", d)
	}
	if b.GPUs[0].Lost || b.GPUs[2].Lost || b.GPUs[2].MemTotal != 81559<<20 {
		t.Errorf("the others: %+v %+v", b.GPUs[0], b.GPUs[2])
	}
	if len(b.Warnings) != 1 || !strings.HasPrefix(b.Warnings[0], "GPU 1 lost during the probe: memory: ERROR_GPU_IS_LOST") {
		t.Errorf("warnings %q", b.Warnings)
	}
	want := matrix(3, func(i, j int) string {
		if i == 1 || j == 1 {
			return "?"
		}
		return "NODE"
	})
	if !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v, want %v", b.Topology, want)
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "GPU 1 (NVIDIA H100 PCIe) was lost during the probe; left out")
	if c.GPUs != 2 || c.GPU.ID != "h100-pcie" || c.Intra.ID != "pcie5-host" {
		t.Errorf("cluster %s ×%d over %s", c.GPU.ID, c.GPUs, c.Intra.ID)
	}
}

func TestProbeNotSupported(t *testing.T) {
	// NVLink, PCIe, topology, P2P and power all ERROR_NOT_SUPPORTED: Unknown fields, no warning,
	// and the cluster falls back on the preset's PCIe link.
	gs := pcieGPUs(2, "NVIDIA A100 80GB PCIe", 81920<<20, 4)
	for i := range gs {
		gs[i].fail = map[string]nvml.Return{
			"pcie": nvml.ERROR_NOT_SUPPORTED, "topology": nvml.ERROR_NOT_SUPPORTED, "p2p": nvml.ERROR_NOT_SUPPORTED,
			"power": nvml.ERROR_NOT_SUPPORTED, "temperature": nvml.ERROR_NO_PERMISSION, "utilization": nvml.ERROR_FUNCTION_NOT_FOUND,
		}
	}
	fb := fakeBox{gpus: gs, p2p: okP2P, topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_SINGLE }}
	lib, _ := fb.lib(t)
	lib.SystemGetCudaDriverVersionFunc = func() (int, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	b := mustProbe(t, lib)
	if len(b.Warnings) != 0 || b.CUDA != "" || b.Driver != "550.54.15" {
		t.Errorf("warnings %q, CUDA %q, driver %q", b.Warnings, b.CUDA, b.Driver)
	}
	for _, d := range b.GPUs {
		if d.Lost || d.MemTotal != 81920<<20 || len(d.NVLinks) != 0 || d.PCIeMaxGen != Unknown || d.PCIeGen != Unknown ||
			d.PCIeMaxW != Unknown || d.PCIeW != Unknown || d.PowerW != Unknown || d.TempC != Unknown || d.UtilGPU != Unknown {
			t.Errorf("GPU %d: %+v", d.Index, d)
		}
	}
	if want := matrix(2, func(i, j int) string { return "?" }); !reflect.DeepEqual(b.Topology, want) || !reflect.DeepEqual(b.P2P, want) {
		t.Errorf("topology %v, p2p %v", b.Topology, b.P2P)
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "PCIe generation unknown; assuming PCIe 4 (a100-pcie-80gb's bus)")
	wantWarning(t, warns, "PCIe topology unknown")
	if c.GPU.ID != "a100-pcie-80gb" || c.Intra.ID != "pcie4" {
		t.Errorf("cluster %s over %s", c.GPU.ID, c.Intra.ID)
	}

	// An unexpected error on a telemetry query marks the GPU too (consistently: any error that is
	// not "unsupported" means the device cannot be trusted).
	gs = pcieGPUs(2, "NVIDIA L40S", 46068<<20, 4)
	gs[0].fail = map[string]nvml.Return{"power": nvml.ERROR_UNKNOWN}
	lib, _ = fakeBox{gpus: gs, p2p: okP2P, topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_NODE }}.lib(t)
	b = mustProbe(t, lib)
	if !b.GPUs[0].Lost || b.GPUs[0].MemTotal != 46068<<20 || len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "GPU 0 lost during the probe: power: ERROR_UNKNOWN") {
		t.Errorf("GPU 0 %+v; warnings %q", b.GPUs[0], b.Warnings)
	}
}

func TestProbeMixed(t *testing.T) {
	// 2×A100 PCIe joined by a 12-link NVLink bridge, 2×L40S; all under one host bridge.
	gs := append(pcieGPUs(2, "NVIDIA A100 80GB PCIe", 81920<<20, 4), pcieGPUs(2, "NVIDIA L40S", 46068<<20, 4)...)
	gs[2].bus, gs[3].bus = "00000000:A1:00.0", "00000000:C1:00.0"
	for i := range 2 {
		other := gs[1-i].bus
		for range 12 {
			gs[i].nvlinks = append(gs[i].nvlinks, fakeLink{version: uint32(nvml.NVLINK_VERSION_3_0), remote: strings.ToLower(other[4:])})
		}
	}
	fb := fakeBox{gpus: gs, p2p: okP2P, topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_HOSTBRIDGE }}
	lib, _ := fb.lib(t)
	b := mustProbe(t, lib)
	want := matrix(4, func(i, j int) string {
		if i < 2 && j < 2 {
			return "NV12"
		}
		return "PHB"
	})
	if !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v, want %v", b.Topology, want)
	}
	if v := b.GPUs[0].NVLinks[0]; !v.Active || v.Version != 3 {
		t.Errorf("nvlink %+v", v)
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, warns, "mixed GPUs (2× NVIDIA A100 80GB PCIe, 2× NVIDIA L40S)")
	wantWarning(t, warns, "memory bandwidth of l40s")
	l40s, _ := p.GPU("l40s")
	if c.GPU.HBMBandwidth != l40s.HBMBandwidth || c.GPU.MemoryBytes != 46068<<20 || c.Intra.ID != "pcie4-host" {
		t.Errorf("cluster %+v over %s", c.GPU, c.Intra.ID)
	}
}

func TestNVLinkGeneration(t *testing.T) {
	for v, want := range map[nvml.NvlinkVersion]int{
		nvml.NVLINK_VERSION_2_0: 2, nvml.NVLINK_VERSION_2_2: 2, nvml.NVLINK_VERSION_3_0: 3, nvml.NVLINK_VERSION_3_1: 3,
		nvml.NVLINK_VERSION_4_0: 4, nvml.NVLINK_VERSION_5_0: 5, 8: 6, // 8: NVML_NVLINK_VERSION_6_0 in NVML 13
		nvml.NVLINK_VERSION_INVALID: Unknown, 99: Unknown,
	} {
		if got := nvlinkGeneration(uint32(v)); got != want {
			t.Errorf("nvlinkGeneration(%d) = %d, want %d", v, got, want)
		}
	}
	if got := cudaVersion(12040); got != "12.4" {
		t.Errorf("cudaVersion(12040) = %q", got)
	}
	if got := cudaVersion(11080); got != "11.8" {
		t.Errorf("cudaVersion(11080) = %q", got)
	}
	if normBusID("00000000:07:00.0") != normBusID("0000:07:00.0") {
		t.Error("bus ids with 8- and 4-digit domains differ")
	}
}

// TestProbeRealGPU runs only where libnvidia-ml.so.1 loads (never in CI).
func TestProbeRealGPU(t *testing.T) {
	lib := dl.New("libnvidia-ml.so.1", dl.RTLD_LAZY)
	if err := lib.Open(); err != nil {
		t.Skip("this test needs libnvidia-ml.so.1")
	}
	lib.Close()
	b, err := Probe()
	if err != nil {
		t.Skipf("no GPU to read: %v", err)
	}
	data, _ := MarshalBox(b)
	t.Logf("%s", data)
	if _, err := ParseBox("real.json", data); err != nil {
		t.Error(err)
	}
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster: %d× %s (%.1f GiB) over %s; warnings %q", c.GPUs, c.GPU.ID, c.GPU.MemoryBytes/(1<<30), c.Intra.ID, warns)
	if slices.ContainsFunc(b.GPUs, func(d Device) bool { return d.Lost }) {
		t.Logf("lost GPUs: %q", b.Warnings)
	}
}

// NCCL uses peer-to-peer only when a GPU can both read and write the other's memory: the probe
// writes "OK" for that alone, "NS" when either is not supported, "?" when NVML cannot say.
func TestProbeP2PReadAndWrite(t *testing.T) {
	fb := fakeBox{
		gpus: pcieGPUs(3, "NVIDIA L40S", 46068<<20, 4),
		topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_MULTIPLE },
		p2p:  okP2P,
		p2pWrite: func(i, j int) nvml.GpuP2PStatus {
			switch {
			case i == 2 || j == 2:
				return nvml.P2P_STATUS_UNKNOWN
			case i == 1:
				return nvml.P2P_STATUS_DISABLED_BY_REGKEY
			}
			return nvml.P2P_STATUS_OK
		},
	}
	lib, _ := fb.lib(t)
	b := mustProbe(t, lib)
	want := [][]string{{"X", "OK", "?"}, {"NS", "X", "?"}, {"?", "?", "X"}}
	if !reflect.DeepEqual(b.P2P, want) {
		t.Errorf("p2p %v, want %v", b.P2P, want)
	}
	if want := matrix(3, func(i, j int) string { return "PXB" }); !reflect.DeepEqual(b.Topology, want) {
		t.Errorf("topology %v", b.Topology)
	}
	// The cluster: GPUs under switches (PXB), one pair without P2P: the PCIe 4 link, staged.
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Intra.ID != "pcie4-nop2p" || c.Intra.PCIePath != model.PathSwitch || !c.Intra.Staged {
		t.Errorf("intra %s (%s, staged %v)", c.Intra.ID, c.Intra.PCIePath, c.Intra.Staged)
	}
	wantWarning(t, warns, "no peer-to-peer between GPUs 0 and 1")
}

// A GeForce box whose driver enables P2P (a patched kernel module) reports "OK" everywhere: the
// probe is the box's fact, so the cluster models peer-to-peer although the preset has none.
func TestProbeGeForceWithP2P(t *testing.T) {
	fb := fakeBox{
		gpus: pcieGPUs(4, "NVIDIA GeForce RTX 5090", 32607<<20, 5),
		topo: func(i, j int) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_SINGLE },
		p2p:  okP2P,
	}
	lib, _ := fb.lib(t)
	b := mustProbe(t, lib)
	p := presets(t)
	c, warns, err := ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.GPU.ID != "rtx-5090" || c.GPU.NoP2P || c.Intra.ID != "pcie5" || c.IntraLink().Staged {
		t.Errorf("cluster %s (no P2P %v) over %s (staged %v)", c.GPU.ID, c.GPU.NoP2P, c.Intra.ID, c.IntraLink().Staged)
	}
	wantWarning(t, warns, "NVML reports peer-to-peer between every pair of GPUs, which rtx-5090 lacks")

	// The same box with the stock driver: NVML says nothing either way ("?"), so the preset's
	// fact stands: no peer-to-peer, the link staged through host memory.
	b.P2P = matrix(4, func(i, j int) string { return "?" })
	c, _, err = ToCluster([]Box{b}, p.GPUs, p.Links, link(t, p, "ib-ndr"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !c.GPU.NoP2P || !c.IntraLink().Staged || c.Intra.Staged {
		t.Errorf("stock driver: no P2P %v, cluster link staged %v, preset link staged %v", c.GPU.NoP2P, c.IntraLink().Staged, c.Intra.Staged)
	}
}
