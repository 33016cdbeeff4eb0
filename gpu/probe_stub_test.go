//go:build !linux || !cgo

package gpu

import (
	"errors"
	"testing"
)

func TestProbeStub(t *testing.T) {
	b, err := Probe()
	if !errors.Is(err, ErrNoGPU) || err.Error() != "no NVIDIA GPU: built without NVML (CGO_ENABLED=0 or not Linux)" {
		t.Errorf("got %v", err)
	}
	if len(b.GPUs) != 0 {
		t.Errorf("box %+v", b)
	}
}
