// Package gpu reads the GPUs of this machine through NVML (linux && cgo builds; a stub says
// "built without NVML" elsewhere) into a Box, saves and loads boxes as JSON files, and turns one
// box per node into a model.Cluster: device names map to GPU presets, NVLink versions and the
// PCIe topology pick the intra-node link, memory capacity comes from the device.
package gpu

import "errors"

// ErrNoGPU means no NVIDIA GPU could be read: no driver, no library, no permission or no device.
// Probe wraps it with the reason.
var ErrNoGPU = errors.New("no NVIDIA GPU")

// Unknown marks a numeric field NVML could not report (ERROR_NOT_SUPPORTED and the like).
const Unknown = -1

// Box is what a probe found on one machine.
type Box struct {
	Host   string   `json:"host,omitempty"`
	Driver string   `json:"driver"` // driver version, "" if unknown
	CUDA   string   `json:"cuda"`   // CUDA driver API version, e.g. "12.4"
	GPUs   []Device `json:"gpus"`
	// P2P[i][j] is the peer-to-peer status between GPUs i and j: "OK", "NS" (not supported),
	// "X" on the diagonal, "?" unknown.
	P2P [][]string `json:"p2p"`
	// Topology[i][j] is their common ancestor as nvidia-smi topo -m names it: "X", "NV<n>"
	// (n NVLinks), "PIX" (same PCIe switch), "PXB" (several switches), "PHB" (host bridge),
	// "NODE" (same NUMA node), "SYS" (across sockets), "?" unknown.
	Topology [][]string `json:"topology"`
	// HostMemory is the machine's RAM (/proc/meminfo), nil when not read (a box saved before
	// splitscope read it, or a machine without /proc). Offload counts against its total, shared
	// by the box's GPUs; without it the default, model.DefaultHostMemoryPerGPU per GPU, is
	// assumed (and said).
	HostMemory *HostMemory `json:"host_memory,omitempty"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// Device is one GPU. Numeric fields hold Unknown when NVML did not say.
type Device struct {
	Index      int      `json:"index"`
	Name       string   `json:"name"`
	UUID       string   `json:"uuid"`
	BusID      string   `json:"bus_id"`
	MemTotal   int64    `json:"memory_total_bytes"`
	MemFree    int64    `json:"memory_free_bytes"`
	MemUsed    int64    `json:"memory_used_bytes"`
	PCIeMaxGen int      `json:"pcie_max_gen"`
	PCIeGen    int      `json:"pcie_gen"`
	PCIeMaxW   int      `json:"pcie_max_width"`
	PCIeW      int      `json:"pcie_width"`
	NVLinks    []NVLink `json:"nvlinks,omitempty"`
	UtilGPU    int      `json:"util_gpu_pct"`
	UtilMem    int      `json:"util_memory_pct"`
	PowerW     float64  `json:"power_w"`
	TempC      int      `json:"temperature_c"`
	// Lost marks a GPU that failed during the probe (ERROR_GPU_IS_LOST or another error that is
	// not "not supported"): it stays in the box with what was read before the failure, Unknown
	// elsewhere, "?" in the matrices, and ToCluster leaves it out with a warning.
	Lost bool `json:"lost,omitempty"`
}

// NVLink is one NVLink of a device.
type NVLink struct {
	Link   int  `json:"link"`
	Active bool `json:"active"`
	// Version is the NVLink generation (2 for V100, 3 for A100, 4 for H100/H200, 5 for B200),
	// Unknown if not reported. NVML reports an nvmlNvlinkVersion_t (A100: 4 or 5, "3.0"/"3.1");
	// the probe turns it into the generation.
	Version     int    `json:"version"`
	RemoteBusID string `json:"remote_bus_id,omitempty"`
}

// ActiveNVLinks counts the device's active NVLinks and the highest generation among them
// (Unknown if none reports one).
func (d Device) ActiveNVLinks() (active, version int) {
	version = Unknown
	for _, l := range d.NVLinks {
		if l.Active {
			active++
			version = max(version, l.Version)
		}
	}
	return active, version
}
