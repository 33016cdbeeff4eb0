package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxHostMemoryBytes bounds a node's host memory (--host-memory, a box file, a scenario file):
// 1 PiB, far above any machine's.
const MaxHostMemoryBytes = 1 << 50

// HostMemoryAllowed says what --host-memory and the host_memory key take.
const HostMemoryAllowed = "must be a size of host memory per node above 0 and at most 1 PiB: bytes (549755813888), " +
	"or a number with a unit, KiB/MiB/GiB/TiB or K/M/G/T (powers of 1024, as free and Slurm count), KB/MB/GB/TB (powers of 1000), e.g. 512GiB"

// byteUnits are the units ParseByteSize knows, lower case.
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// ParseByteSize reads a size: a number of bytes, or a number with a unit (512GiB, 512G, 1.5TiB,
// 600GB); K, M, G and T are powers of 1024, as free -g and Slurm's --mem read them, KB … TB
// powers of 1000. Spaces between number and unit are allowed; the unit's case is not read. The
// size must be above 0, finite and at most MaxHostMemoryBytes.
func ParseByteSize(text string) (float64, error) {
	t := strings.TrimSpace(text)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%s", HostMemoryAllowed)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s", HostMemoryAllowed)
	}
	v *= mult
	if !(v >= 1 && v <= MaxHostMemoryBytes) {
		return 0, fmt.Errorf("%s", HostMemoryAllowed)
	}
	return math.Round(v), nil
}

// FormatByteSize writes bytes the way ParseByteSize reads them back: GiB when a whole number of
// MiB, else bytes ("512GiB", "0.5GiB", "123456789").
func FormatByteSize(b float64) string {
	if b >= 1<<20 && math.Mod(b, 1<<20) == 0 {
		return strconv.FormatFloat(b/GiB, 'f', -1, 64) + "GiB"
	}
	return strconv.FormatFloat(b, 'f', 0, 64)
}
