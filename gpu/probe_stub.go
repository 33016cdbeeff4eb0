//go:build !linux || !cgo

package gpu

import "fmt"

// Probe reads this machine's GPUs through NVML; this build has no NVML (it needs Linux and cgo),
// so it always returns an error wrapping ErrNoGPU.
func Probe() (Box, error) {
	return Box{}, fmt.Errorf("%w: built without NVML (CGO_ENABLED=0 or not Linux)", ErrNoGPU)
}
