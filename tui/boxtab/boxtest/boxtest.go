// Package boxtest holds hand-made GPU boxes and fake probes for the Box tab's tests: no test of
// the explorer needs a GPU.
package boxtest

import (
	"fmt"
	"sync/atomic"

	"github.com/splitscope/splitscope/gpu"
)

// MiB is 2^20 bytes.
const MiB = 1 << 20

// L40S4 is a 4× L40S PCIe box across two CPU sockets: GPUs 0-1 share a PCIe switch on socket 0,
// GPUs 2-3 one on socket 1.
func L40S4() gpu.Box {
	b := gpu.Box{Host: "gpubox", Driver: "550.54.15", CUDA: "12.4"}
	bus := []string{"00000000:01:00.0", "00000000:02:00.0", "00000000:81:00.0", "00000000:82:00.0"}
	used := []int64{3210, 40960, 512, 0}
	util := []int{37, 96, 4, 0}
	power := []float64{121, 338, 64, 31}
	temp := []int{45, 71, 38, 33}
	for i := range 4 {
		b.GPUs = append(b.GPUs, gpu.Device{
			Index: i, Name: "NVIDIA L40S", UUID: fmt.Sprintf("GPU-5f1c0e%02d-7d2b-4c1e-9a0b-000000000000", i), BusID: bus[i],
			MemTotal: 46068 * MiB, MemUsed: used[i] * MiB, MemFree: (46068 - used[i]) * MiB,
			PCIeMaxGen: 4, PCIeGen: 4, PCIeMaxW: 16, PCIeW: 16,
			UtilGPU: util[i], UtilMem: util[i] / 2, PowerW: power[i], TempC: temp[i],
		})
	}
	b.Topology = [][]string{
		{"X", "PIX", "SYS", "SYS"},
		{"PIX", "X", "SYS", "SYS"},
		{"SYS", "SYS", "X", "PIX"},
		{"SYS", "SYS", "PIX", "X"},
	}
	b.P2P = [][]string{
		{"X", "OK", "NS", "NS"},
		{"OK", "X", "NS", "NS"},
		{"NS", "NS", "X", "OK"},
		{"NS", "NS", "OK", "X"},
	}
	// A two-socket workstation: 512 GiB of RAM, 256 GiB on each NUMA node.
	b.HostMemory = &gpu.HostMemory{TotalBytes: 512 << 30, AvailableBytes: 431 << 30, NUMA: []gpu.NUMANode{
		{Node: 0, TotalBytes: 256 << 30, FreeBytes: 200 << 30}, {Node: 1, TotalBytes: 256 << 30, FreeBytes: 231 << 30}}}
	return b
}

// Probe is a fake probe that returns a box whose GPU 0 utilisation changes between calls:
// Util[0], Util[1], … in turn (37% and 83% by default), so a test sees polling happen.
type Probe struct {
	Box   gpu.Box
	Util  []int
	calls atomic.Int64
}

// NewProbe fakes probing box.
func NewProbe(box gpu.Box) *Probe { return &Probe{Box: box, Util: []int{37, 83}} }

// Probe returns a copy of the box with the next utilisation on GPU 0. It is safe for concurrent
// use (probes run in commands).
func (p *Probe) Probe() (gpu.Box, error) {
	n := p.calls.Add(1)
	b := p.Box
	b.GPUs = append([]gpu.Device(nil), p.Box.GPUs...)
	if len(b.GPUs) > 0 && len(p.Util) > 0 {
		b.GPUs[0].UtilGPU = p.Util[int(n-1)%len(p.Util)]
	}
	return b, nil
}

// Calls is how many times Probe ran.
func (p *Probe) Calls() int { return int(p.calls.Load()) }

// NoGPU is a probe on a machine without NVIDIA GPUs.
func NoGPU() (gpu.Box, error) {
	return gpu.Box{}, fmt.Errorf("%w: libnvidia-ml.so.1 not found: no NVIDIA driver", gpu.ErrNoGPU)
}
