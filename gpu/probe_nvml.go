//go:build linux && cgo

package gpu

import (
	"fmt"
	"os"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Probe reads this machine's GPUs through NVML. Without NVML (library missing, Init failing,
// zero devices) the error wraps ErrNoGPU with a one-line reason. A GPU that fails during the
// probe stays in the box, marked Lost, with a warning (see Device.Lost).
func Probe() (Box, error) {
	b, err := probe(nvml.New())
	if err == nil {
		if h, herr := os.Hostname(); herr == nil {
			b.Host = h
		}
		addHostMemory(&b, os.DirFS("/"))
	}
	return b, err
}

// initError is a failed nvml.Init: it wraps ErrNoGPU and the nvml.Return, and says why in words
// of its own. (Return.Error calls nvmlErrorString once the library is loaded; after a failed
// Init nothing of NVML is called, not even that.)
type initError struct {
	ret    nvml.Return
	reason string
}

func (e *initError) Error() string   { return ErrNoGPU.Error() + ": " + e.reason }
func (e *initError) Unwrap() []error { return []error{ErrNoGPU, e.ret} }

func initReason(ret nvml.Return) string {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return "libnvidia-ml.so.1 not found: no NVIDIA driver"
	case nvml.ERROR_NO_PERMISSION:
		return "NVML init: insufficient permissions"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return "NVML init: the NVIDIA driver is not loaded"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		return "NVML init: driver and library versions differ (reload the driver or reboot)"
	case nvml.ERROR_GPU_IS_LOST:
		return "NVML init: a GPU has fallen off the bus"
	case nvml.ERROR_FUNCTION_NOT_FOUND:
		return "NVML init: libnvidia-ml.so.1 is too old"
	}
	return fmt.Sprintf("NVML init failed (return code %d)", int32(ret))
}

// soft reports a query NVML cannot answer for this device or this user: the field stays
// Unknown and the probe carries on.
func soft(ret nvml.Return) bool {
	switch ret {
	case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_NO_PERMISSION, nvml.ERROR_FUNCTION_NOT_FOUND, nvml.ERROR_NO_DATA:
		return true
	}
	return false
}

// probe reads the GPUs through lib. After a failed Init it calls nothing else on lib (without
// libnvidia-ml even Shutdown kills the process).
//
// Per query: SUCCESS fills the field; ERROR_NOT_SUPPORTED, NO_PERMISSION, FUNCTION_NOT_FOUND and
// NO_DATA leave it Unknown ("?" in the matrices); any other error (ERROR_GPU_IS_LOST above all)
// marks the device Lost, adds a warning "GPU i lost during the probe: …" and stops querying that
// device. A lost GPU stays in the box, at its index, with what was read before the failure.
func probe(lib nvml.Interface) (b Box, err error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return Box{}, &initError{ret: ret, reason: initReason(ret)}
	}
	defer func() {
		if ret := lib.Shutdown(); ret != nvml.SUCCESS && err == nil {
			err = fmt.Errorf("nvml shutdown: %w", ret)
		}
	}()

	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		b.Driver = v
	} else if !soft(ret) {
		b.Warnings = append(b.Warnings, fmt.Sprintf("driver version: %v", ret))
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		b.CUDA = cudaVersion(v)
	} else if !soft(ret) {
		b.Warnings = append(b.Warnings, fmt.Sprintf("CUDA version: %v", ret))
	}

	count, ret := lib.DeviceGetCount()
	switch {
	case ret != nvml.SUCCESS:
		return Box{}, fmt.Errorf("%w: NVML device count: %v", ErrNoGPU, ret)
	case count <= 0:
		return Box{}, fmt.Errorf("%w: no NVIDIA GPU found", ErrNoGPU)
	}

	b.GPUs = make([]Device, count)
	devs := make([]nvml.Device, count)
	for i := range count {
		b.GPUs[i] = unknownDevice(i)
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			b.GPUs[i].Lost = true
			b.Warnings = append(b.Warnings, fmt.Sprintf("GPU %d lost during the probe: handle: %v", i, ret))
			continue
		}
		devs[i] = dev
		readDevice(&b, i, dev)
	}
	readPairs(&b, devs)
	return b, nil
}

// cudaVersion formats NVML's CUDA driver version: 12040 → "12.4".
func cudaVersion(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// nvlinkGeneration turns an nvmlNvlinkVersion_t (what nvmlDeviceGetNvLinkVersion returns: 1.0,
// 2.0, 2.2, 3.0, 3.1, 4.0, 5.0, 6.0 as 1..8) into the NVLink generation.
func nvlinkGeneration(v uint32) int {
	switch nvml.NvlinkVersion(v) {
	case nvml.NVLINK_VERSION_1_0:
		return 1
	case nvml.NVLINK_VERSION_2_0, nvml.NVLINK_VERSION_2_2:
		return 2
	case nvml.NVLINK_VERSION_3_0, nvml.NVLINK_VERSION_3_1:
		return 3
	case nvml.NVLINK_VERSION_4_0:
		return 4
	case nvml.NVLINK_VERSION_5_0:
		return 5
	case nvlinkVersion6:
		return 6
	}
	return Unknown
}

// nvlinkVersion6 is NVML_NVLINK_VERSION_6_0 (8) of NVML 13's nvml.h. go-nvml v0.13.0-1, the
// newest release whose cgo build prints no deprecation warnings, predates that header.
const nvlinkVersion6 nvml.NvlinkVersion = nvml.NVLINK_VERSION_5_0 + 1

// busID reads a PCI bus id out of NVML's C char array.
func busID[T ~int8 | ~uint8](a [32]T) string {
	var sb strings.Builder
	for _, c := range a {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

// normBusID makes bus ids comparable: "00000000:07:00.0" and "0000:07:00.0" → "0:07:00.0".
func normBusID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	dom, rest, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	dom = strings.TrimLeft(dom, "0")
	if dom == "" {
		dom = "0"
	}
	return dom + ":" + rest
}

// devReader runs one device's queries until one fails hard.
type devReader struct {
	b *Box
	d *Device
}

// ok reports whether a query succeeded. A soft failure leaves the field Unknown; any other marks
// the device lost (once) with a warning.
func (r devReader) ok(what string, ret nvml.Return) bool {
	if ret == nvml.SUCCESS {
		return true
	}
	if !soft(ret) && !r.d.Lost {
		r.d.Lost = true
		r.b.Warnings = append(r.b.Warnings, fmt.Sprintf("GPU %d lost during the probe: %s: %v; kept with what was read, left out of the cluster", r.d.Index, what, ret))
	}
	return false
}

func readDevice(b *Box, i int, dev nvml.Device) {
	d := &b.GPUs[i]
	r := devReader{b, d}
	steps := []func(){
		func() {
			if v, ret := dev.GetName(); r.ok("name", ret) && v != "" {
				d.Name = v
			}
		},
		func() {
			if v, ret := dev.GetUUID(); r.ok("uuid", ret) {
				d.UUID = v
			}
		},
		func() {
			if p, ret := dev.GetPciInfo(); r.ok("pci info", ret) {
				d.BusID = busID(p.BusId)
			}
		},
		func() {
			if m, ret := dev.GetMemoryInfo(); r.ok("memory", ret) {
				d.MemTotal, d.MemFree, d.MemUsed = int64(m.Total), int64(m.Free), int64(m.Used)
			}
		},
		func() {
			if v, ret := dev.GetMaxPcieLinkGeneration(); r.ok("pcie max generation", ret) {
				d.PCIeMaxGen = v
			}
		},
		func() {
			if v, ret := dev.GetCurrPcieLinkGeneration(); r.ok("pcie generation", ret) {
				d.PCIeGen = v
			}
		},
		func() {
			if v, ret := dev.GetMaxPcieLinkWidth(); r.ok("pcie max width", ret) {
				d.PCIeMaxW = v
			}
		},
		func() {
			if v, ret := dev.GetCurrPcieLinkWidth(); r.ok("pcie width", ret) {
				d.PCIeW = v
			}
		},
		func() { readNVLinks(r, dev) },
		func() {
			if u, ret := dev.GetUtilizationRates(); r.ok("utilization", ret) {
				d.UtilGPU, d.UtilMem = int(u.Gpu), int(u.Memory)
			}
		},
		func() {
			if mw, ret := dev.GetPowerUsage(); r.ok("power", ret) {
				d.PowerW = float64(mw) / 1000
			}
		},
		func() {
			if c, ret := dev.GetTemperature(nvml.TEMPERATURE_GPU); r.ok("temperature", ret) {
				d.TempC = int(c)
			}
		},
	}
	for _, step := range steps {
		if d.Lost {
			return
		}
		step()
	}
}

// readNVLinks walks the links until NVML says there are no more (NOT_SUPPORTED on link 0: no
// NVLink at all; INVALID_ARGUMENT: past the device's last link).
func readNVLinks(r devReader, dev nvml.Device) {
	d := r.d
	for l := range nvml.NVLINK_MAX_LINKS {
		st, ret := dev.GetNvLinkState(l)
		if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT || !r.ok(fmt.Sprintf("nvlink %d state", l), ret) {
			return
		}
		link := NVLink{Link: l, Active: st == nvml.FEATURE_ENABLED, Version: Unknown}
		if link.Active {
			if v, ret := dev.GetNvLinkVersion(l); r.ok(fmt.Sprintf("nvlink %d version", l), ret) {
				link.Version = nvlinkGeneration(v)
			}
			if !d.Lost {
				if p, ret := dev.GetNvLinkRemotePciInfo(l); r.ok(fmt.Sprintf("nvlink %d remote", l), ret) {
					link.RemoteBusID = busID(p.BusId)
				}
			}
		}
		d.NVLinks = append(d.NVLinks, link)
		if d.Lost {
			return
		}
	}
}

var topologyNames = map[nvml.GpuTopologyLevel]string{
	nvml.TOPOLOGY_INTERNAL:   "X",
	nvml.TOPOLOGY_SINGLE:     "PIX",
	nvml.TOPOLOGY_MULTIPLE:   "PXB",
	nvml.TOPOLOGY_HOSTBRIDGE: "PHB",
	nvml.TOPOLOGY_NODE:       "NODE",
	nvml.TOPOLOGY_SYSTEM:     "SYS",
}

// readPairs fills the P2P and topology matrices for the devices read (nil or lost: "?").
func readPairs(b *Box, devs []nvml.Device) {
	n := len(devs)
	b.P2P, b.Topology = square(n), square(n)
	usable := func(i int) bool { return devs[i] != nil && !b.GPUs[i].Lost }
	pairWarn := func(i, j int, what string, ret nvml.Return) {
		if !soft(ret) {
			b.Warnings = append(b.Warnings, fmt.Sprintf("GPUs %d and %d: %s: %v", i, j, what, ret))
		}
	}
	for i := range n {
		b.P2P[i][i], b.Topology[i][i] = "X", "X"
		if !usable(i) {
			continue
		}
		for j := range n {
			if j == i || !usable(j) {
				continue
			}
			b.P2P[i][j] = p2pStatus(devs[i], devs[j], func(ret nvml.Return) { pairWarn(i, j, "p2p status", ret) })
			if j < i {
				continue
			}
			lvl, ret := devs[i].GetTopologyCommonAncestor(devs[j])
			if ret != nvml.SUCCESS {
				pairWarn(i, j, "topology", ret)
				continue
			}
			if name, ok := topologyNames[lvl]; ok {
				b.Topology[i][j], b.Topology[j][i] = name, name
			}
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if usable(i) && usable(j) {
				if k := sharedNVLinks(b.GPUs, i, j); k > 0 {
					nv := fmt.Sprintf("NV%d", k)
					b.Topology[i][j], b.Topology[j][i] = nv, nv
				}
			}
		}
	}
}

// p2pStatus is the peer-to-peer status from a to b as the box writes it: "OK" when NVML says
// a can both read and write b's memory (what NCCL checks before it uses P2P), "NS" when either
// is not supported, "?" when NVML cannot say. warn gets a query's hard failure.
func p2pStatus(a, b nvml.Device, warn func(nvml.Return)) string {
	out := "OK"
	for _, caps := range []nvml.GpuP2PCapsIndex{nvml.P2P_CAPS_INDEX_READ, nvml.P2P_CAPS_INDEX_WRITE} {
		st, ret := a.GetP2PStatus(b, caps)
		switch {
		case ret != nvml.SUCCESS:
			warn(ret)
			return "?"
		case st == nvml.P2P_STATUS_OK:
		case st == nvml.P2P_STATUS_UNKNOWN:
			out = "?"
		default:
			return "NS"
		}
	}
	return out
}

// sharedNVLinks is the number of active NVLinks between GPUs i and j: the links of i whose
// remote is j, plus, through NVSwitches, the fewer of i's and j's links to the switches both
// reach (a remote bus id that is not a GPU of the box is taken for a switch; DGX A100: 12 links
// per GPU to 6 switches, so NV12 between every pair, as nvidia-smi topo -m shows).
func sharedNVLinks(gpus []Device, i, j int) int {
	isGPU := map[string]bool{}
	for _, d := range gpus {
		if d.BusID != "" {
			isGPU[normBusID(d.BusID)] = true
		}
	}
	switches := func(d Device) map[string]int {
		m := map[string]int{}
		for _, l := range d.NVLinks {
			if r := normBusID(l.RemoteBusID); l.Active && l.RemoteBusID != "" && !isGPU[r] {
				m[r]++
			}
		}
		return m
	}
	direct := func(a, b Device) int {
		n := 0
		if b.BusID == "" {
			return 0
		}
		for _, l := range a.NVLinks {
			if l.Active && l.RemoteBusID != "" && normBusID(l.RemoteBusID) == normBusID(b.BusID) {
				n++
			}
		}
		return n
	}
	n := max(direct(gpus[i], gpus[j]), direct(gpus[j], gpus[i]))
	si, sj := switches(gpus[i]), switches(gpus[j])
	vi, vj := 0, 0
	for s, c := range si {
		if cj, ok := sj[s]; ok {
			vi += c
			vj += cj
		}
	}
	return n + min(vi, vj)
}
