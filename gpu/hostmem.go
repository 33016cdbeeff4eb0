package gpu

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// HostMemory is the machine's RAM as Linux reports it (/proc/meminfo, and per NUMA node
// /sys/devices/system/node/node*/meminfo). Offloading (optimizer state, weights, activations
// kept in host memory) fills it; the GPUs of the box share it.
type HostMemory struct {
	// TotalBytes is MemTotal: the RAM the kernel manages. It is what splitscope counts offload
	// against (--host-memory overrides it).
	TotalBytes int64 `json:"total_bytes"`
	// AvailableBytes is MemAvailable at the time of the probe (Unknown if not reported).
	AvailableBytes int64 `json:"available_bytes"`
	// NUMA lists the NUMA nodes where the kernel reports them (none on a single-node kernel
	// without /sys/devices/system/node).
	NUMA []NUMANode `json:"numa,omitempty"`
}

// NUMANode is one NUMA node's memory.
type NUMANode struct {
	Node       int   `json:"node"`
	TotalBytes int64 `json:"total_bytes"`
	FreeBytes  int64 `json:"free_bytes"` // MemFree (Unknown if not reported)
}

// maxMeminfoBytes bounds a meminfo file read: the real ones are a few KiB.
const maxMeminfoBytes = 64 << 10

// maxNUMANodes bounds the NUMA nodes read (Linux allows 1024).
const maxNUMANodes = 1024

// ReadHostMemory reads /proc/meminfo and the NUMA nodes' meminfo files from root (os.DirFS("/")
// on a real machine; a fixture in tests). A missing or unreadable NUMA directory leaves NUMA
// empty; a missing or bad /proc/meminfo is an error.
func ReadHostMemory(root fs.FS) (HostMemory, error) {
	data, err := readBounded(root, "proc/meminfo")
	if err != nil {
		return HostMemory{}, err
	}
	h, err := ParseMeminfo(data)
	if err != nil {
		return HostMemory{}, fmt.Errorf("/proc/meminfo: %w", err)
	}
	dirs, err := fs.Glob(root, "sys/devices/system/node/node*")
	if err != nil || len(dirs) == 0 {
		return h, nil
	}
	for _, d := range dirs {
		id, err := strconv.Atoi(strings.TrimPrefix(path.Base(d), "node"))
		if err != nil || id < 0 || id >= maxNUMANodes {
			continue
		}
		data, err := readBounded(root, d+"/meminfo")
		if err != nil {
			continue
		}
		n, err := ParseNodeMeminfo(id, data)
		if err != nil {
			continue
		}
		h.NUMA = append(h.NUMA, n)
		if len(h.NUMA) == maxNUMANodes {
			break
		}
	}
	sort.Slice(h.NUMA, func(i, j int) bool { return h.NUMA[i].Node < h.NUMA[j].Node })
	return h, nil
}

// readBounded reads a file of root, refusing one over maxMeminfoBytes.
func readBounded(root fs.FS, name string) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMeminfoBytes+1))
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", name, err)
	}
	if len(data) > maxMeminfoBytes {
		return nil, fmt.Errorf("/%s: larger than %d KiB, not a meminfo file", name, maxMeminfoBytes>>10)
	}
	return data, nil
}

// ParseMeminfo reads /proc/meminfo's MemTotal and MemAvailable ("MemTotal:  263921364 kB").
// MemTotal is required; MemAvailable (Linux 3.14 and later) is Unknown when absent.
func ParseMeminfo(data []byte) (HostMemory, error) {
	kv := meminfoFields(data, "")
	total, ok := kv["MemTotal"]
	if !ok {
		return HostMemory{}, errors.New("no MemTotal line")
	}
	if total <= 0 {
		return HostMemory{}, errors.New("MemTotal is 0")
	}
	avail, ok := kv["MemAvailable"]
	if !ok {
		avail = Unknown
	}
	return HostMemory{TotalBytes: total, AvailableBytes: avail}, nil
}

// ParseNodeMeminfo reads a NUMA node's meminfo ("Node 0 MemTotal:  131941064 kB").
func ParseNodeMeminfo(node int, data []byte) (NUMANode, error) {
	kv := meminfoFields(data, fmt.Sprintf("Node %d ", node))
	total, ok := kv["MemTotal"]
	if !ok || total <= 0 {
		return NUMANode{}, fmt.Errorf("node %d: no MemTotal line", node)
	}
	free, ok := kv["MemFree"]
	if !ok {
		free = Unknown
	}
	return NUMANode{Node: node, TotalBytes: total, FreeBytes: free}, nil
}

// meminfoFields reads "KEY: N kB" lines (after prefix) into bytes. Lines it does not understand,
// and values that would overflow, are skipped.
func meminfoFields(data []byte, prefix string) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || len(f) > 2 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 {
			continue
		}
		mult := int64(1)
		if len(f) == 2 {
			if f[1] != "kB" {
				continue
			}
			mult = 1024
		}
		if n > (1<<62)/mult {
			continue
		}
		out[strings.TrimSpace(key)] = n * mult
	}
	return out
}

// addHostMemory reads root's host memory into b, or adds a warning saying why it could not.
func addHostMemory(b *Box, root fs.FS) {
	h, err := ReadHostMemory(root)
	if err != nil {
		b.Warnings = append(b.Warnings, "host memory not read: "+err.Error())
		return
	}
	b.HostMemory = &h
}
