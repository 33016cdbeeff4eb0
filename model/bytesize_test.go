package model

import (
	"math"
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]float64{
		"512GiB": 512 * GiB, "512G": 512 * GiB, "512 gib": 512 * GiB, "549755813888": 512 * GiB, "0.5TiB": 512 * GiB,
		"600GB": 600e9, "64MiB": 64 << 20, "1K": 1024, "2tb": 2e12, "1PiB": 0, "1024T": 1 << 50,
	} {
		got, err := ParseByteSize(in)
		if want == 0 {
			if err == nil {
				t.Errorf("%q: %v, want an error (above 1 PiB)", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "0GiB", "-1G", "G", "12XB", "1e3", "NaN", "Inf", "1..2G", "1 2 G", "0.1"} {
		if got, err := ParseByteSize(bad); err == nil || !strings.Contains(err.Error(), "e.g. 512GiB") {
			t.Errorf("%q: %v, %v; want an error saying what is allowed", bad, got, err)
		}
	}
	for _, b := range []float64{512 * GiB, 1.5 * 1024 * GiB, 600e9, 64 << 20, 123456789} {
		if got, err := ParseByteSize(FormatByteSize(b)); err != nil || got != b {
			t.Errorf("FormatByteSize(%v) = %q reads back as %v, %v", b, FormatByteSize(b), got, err)
		}
	}
}

func TestValidateHostMemory(t *testing.T) {
	for _, h := range []float64{-1, math.NaN(), math.Inf(1), 2 * MaxHostMemoryBytes} {
		s := validScenario()
		s.Cluster.HostMemoryBytes = h
		err := s.Validate()
		ve, ok := err.(ValidationError)
		if !ok || len(ve) != 1 || ve[0].Field != "host-memory" {
			t.Errorf("host memory %v: %v", h, err)
		}
	}
	s := validScenario()
	s.Cluster.HostMemoryBytes = 64 * GiB
	if err := s.Validate(); err != nil {
		t.Errorf("64 GiB: %v", err)
	}
	if got := s.Cluster.HostMemoryPerGPU(); got != 64*GiB/float64(s.Cluster.NodeSize()) {
		t.Errorf("per GPU %v", got)
	}
}
