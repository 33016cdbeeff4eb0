package gpu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// MarshalBox writes a box file: the Box as indented JSON, fields in the order the types declare
// them, ending in a newline.
func MarshalBox(b Box) ([]byte, error) {
	out, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("box: %w", err)
	}
	return append(out, '\n'), nil
}

// ParseBox reads a box file (what `probe --save` writes: the Box as indented JSON). Unknown
// fields are errors. Every error names the file, the line and the field, e.g.
// "node-1.json:14: gpus[2].memory_total_bytes: must be a number above 0"; several problems are
// reported together, one per line.
func ParseBox(name string, data []byte) (Box, error) {
	var b Box
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Box{}, decodeError(name, data, err)
	}
	if end := dec.InputOffset(); len(bytes.TrimSpace(data[end:])) > 0 {
		rest := end + int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return Box{}, fmt.Errorf("%s:%d: unexpected text after the box (one JSON object per file)", name, lineAt(data, rest))
	}
	problems := validateBox(b)
	if len(problems) == 0 {
		return b, nil
	}
	shown := problems[:min(len(problems), maxProblems)]
	want := make([]string, len(shown))
	for i, p := range shown {
		want[i] = p.path
	}
	ix := indexJSON(data, want...)
	msgs := make([]string, len(shown), len(shown)+1)
	for i, p := range shown {
		msgs[i] = fmt.Sprintf("%s:%d: %s: %s", name, ix.lineOf(p.path), p.path, p.msg)
	}
	if more := len(problems) - len(shown); more > 0 {
		msgs = append(msgs, fmt.Sprintf("%s: %d more problems not shown", name, more))
	}
	return Box{}, errors.New(strings.Join(msgs, "\n"))
}

// maxProblems is how many problems of one box file are reported: a large broken box (a GPU
// list pasted many times over) should give a screenful, not a line per GPU.
const maxProblems = 10

// decodeError turns an encoding/json error into "file:line: field: what".
func decodeError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s:1: empty file: a box file is one JSON object (splitscope probe --save writes it)", name)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s:%d: unexpected end of file (truncated JSON?)", name, lineAt(data, int64(len(data))))
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%d: %s", name, lineAt(data, syn.Offset), syn.Error())
	case errors.As(err, &typ):
		ix := indexJSON(data)
		path, line := ix.at(typ.Offset)
		if path == "" {
			path, line = typ.Field, lineAt(data, typ.Offset)
		}
		if path == "" {
			return fmt.Errorf("%s:%d: must be %s, not %s", name, line, typeWord(typ.Type), typ.Value)
		}
		return fmt.Errorf("%s:%d: %s: must be %s, not %s", name, line, path, typeWord(typ.Type), typ.Value)
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if k, uerr := strconv.Unquote(key); uerr == nil {
			key = k
		}
		ix := indexJSON(data)
		for _, u := range ix.unknown {
			if u.key == key {
				return fmt.Errorf("%s:%d: %s: unknown field (known there: %s)", name, u.line, u.path, strings.Join(u.known, ", "))
			}
		}
		return fmt.Errorf("%s: %s: unknown field", name, key)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func typeWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// lineAt is the 1-based line of a byte offset, for a single look-up.
func lineAt(data []byte, off int64) int {
	off = max(min(off, int64(len(data))), 0)
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// lineTable answers many line look-ups in one text in logarithmic time each: the index builds a
// path for every value of a box, and counting newlines from the start for each would make a
// large box quadratic.
type lineTable []int64 // offsets of the newlines, ascending

func newLineTable(data []byte) lineTable {
	var t lineTable
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return t
		}
		t = append(t, int64(off+i))
		off += i + 1
	}
}

// line is the 1-based line of byte offset off: one more than the newlines before it.
func (t lineTable) line(off int64) int {
	return 1 + sort.Search(len(t), func(i int) bool { return t[i] >= off })
}

// jsonIndex maps the values of a syntactically valid JSON text to their paths
// ("gpus[2].memory_total_bytes") and lines, and lists the keys the Box type does not have.
type jsonIndex struct {
	nl      lineTable
	types   map[reflect.Type]map[string]reflect.Type // jsonFields, once per type
	want    map[string]bool                          // paths still wanted; nil: index everything
	lines   map[string]int
	spans   []jsonSpan
	unknown []unknownKey
}

// jsonSpan is a value: bytes (start, end] hold it (for scalars start is the end of the token
// before, so the colon and white space belong to the value).
type jsonSpan struct {
	path       string
	start, end int64
	depth      int
	line       int
}

type unknownKey struct {
	path, key string
	line      int
	known     []string
}

// indexJSON indexes data. Given the paths wanted, it stops as soon as it has seen them all (a
// problem near the top of a large box needs no walk through the rest); a path absent from the
// text needs the whole walk, which finds the closest ancestor present.
func indexJSON(data []byte, want ...string) *jsonIndex {
	ix := &jsonIndex{nl: newLineTable(data), lines: map[string]int{}, types: map[reflect.Type]map[string]reflect.Type{}}
	if len(want) > 0 {
		ix.want = map[string]bool{}
		for _, w := range want {
			ix.want[w] = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	_ = ix.value(dec, "", 0, reflect.TypeFor[Box]()) // a broken text leaves a partial index
	return ix
}

// errIndexed stops the walk once every wanted path is indexed.
var errIndexed = errors.New("every wanted path indexed")

// record notes the line of a path's first appearance, and returns errIndexed when that was the
// last path wanted.
func (ix *jsonIndex) record(path string, line int) error {
	if _, seen := ix.lines[path]; seen {
		return nil
	}
	ix.lines[path] = line
	if ix.want[path] {
		delete(ix.want, path)
		if len(ix.want) == 0 {
			return errIndexed
		}
	}
	return nil
}

func (ix *jsonIndex) value(dec *json.Decoder, path string, depth int, t reflect.Type) error {
	before := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	end := dec.InputOffset()
	delim, ok := tok.(json.Delim)
	if !ok {
		return ix.add(path, before, end, depth, end-1)
	}
	start := end - 1
	switch delim {
	case '{':
		fields := ix.fields(t)
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			kpath := key
			if path != "" {
				kpath = path + "." + key
			}
			keyLine := ix.nl.line(dec.InputOffset() - 1)
			if err := ix.record(kpath, keyLine); err != nil {
				return err
			}
			var ft reflect.Type
			if fields != nil {
				var known bool
				if ft, known = fields[key]; !known {
					names := make([]string, 0, len(fields))
					for n := range fields {
						names = append(names, n)
					}
					slices.Sort(names)
					ix.unknown = append(ix.unknown, unknownKey{path: kpath, key: key, line: keyLine, known: names})
				}
			}
			if err := ix.value(dec, kpath, depth+1, ft); err != nil {
				return err
			}
		}
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := ix.value(dec, fmt.Sprintf("%s[%d]", path, i), depth+1, et); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return err
	}
	return ix.add(path, start, dec.InputOffset(), depth, start)
}

func (ix *jsonIndex) add(path string, start, end int64, depth int, at int64) error {
	line := ix.nl.line(at)
	ix.spans = append(ix.spans, jsonSpan{path: path, start: start, end: end, depth: depth, line: line})
	return ix.record(path, line)
}

// at is the deepest value holding byte offset off (encoding/json's error offsets point just past
// a scalar, or just inside a list or object).
func (ix *jsonIndex) at(off int64) (string, int) {
	best := -1
	for i, s := range ix.spans {
		if s.start < off && off <= s.end && (best < 0 || s.depth > ix.spans[best].depth) {
			best = i
		}
	}
	if best < 0 {
		return "", 0
	}
	return ix.spans[best].path, ix.spans[best].line
}

// lineOf is the line of a path, or of its closest ancestor present in the text (a missing field
// is reported on the line of the object that lacks it).
func (ix *jsonIndex) lineOf(path string) int {
	for path != "" {
		if l, ok := ix.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	if l, ok := ix.lines[""]; ok {
		return l
	}
	return 1
}

// fields is jsonFields(t), computed once per type: a box holds many objects of one type.
func (ix *jsonIndex) fields(t reflect.Type) map[string]reflect.Type {
	if t == nil {
		return nil
	}
	m, ok := ix.types[t]
	if !ok {
		m = jsonFields(t)
		ix.types[t] = m
	}
	return m
}

// jsonFields maps the JSON names of a struct type's fields to their types (nil if t is not a
// struct).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	m := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

type boxProblem struct{ path, msg string }

// validateBox checks what JSON decoding cannot: required fields, ranges and matrix shapes.
func validateBox(b Box) []boxProblem {
	var ps []boxProblem
	add := func(path, format string, a ...any) {
		ps = append(ps, boxProblem{path, fmt.Sprintf(format, a...)})
	}
	switch n := len(b.GPUs); {
	case n == 0:
		add("gpus", "must list at least one GPU")
	case n > model.MaxGPUsPerNode:
		// Refused whole: what each GPU holds does not matter.
		add("gpus", "lists %d GPUs: a box is one node, at most %d GPUs (one file per node: probe --save on each)", n, model.MaxGPUsPerNode)
		return ps
	}
	for i, d := range b.GPUs {
		p := fmt.Sprintf("gpus[%d].", i)
		if strings.TrimSpace(d.Name) == "" {
			add(p+"name", "must not be empty")
		}
		if d.MemTotal <= 0 && !(d.Lost && d.MemTotal == Unknown) {
			add(p+"memory_total_bytes", "must be a number above 0")
		}
		for _, f := range []struct {
			key string
			v   int64
		}{
			{"memory_free_bytes", d.MemFree}, {"memory_used_bytes", d.MemUsed},
			{"pcie_max_gen", int64(d.PCIeMaxGen)}, {"pcie_gen", int64(d.PCIeGen)},
			{"pcie_max_width", int64(d.PCIeMaxW)}, {"pcie_width", int64(d.PCIeW)},
			{"temperature_c", int64(d.TempC)},
		} {
			if f.v < Unknown {
				add(p+f.key, "must be -1 (unknown) or a number ≥ 0")
			}
		}
		for _, f := range []struct {
			key string
			v   int
		}{{"util_gpu_pct", d.UtilGPU}, {"util_memory_pct", d.UtilMem}} {
			if f.v < Unknown || f.v > 100 {
				add(p+f.key, "must be -1 (unknown) or a percentage from 0 to 100")
			}
		}
		if math.IsNaN(d.PowerW) || math.IsInf(d.PowerW, 0) || (d.PowerW < 0 && d.PowerW != Unknown) {
			add(p+"power_w", "must be -1 (unknown) or a number of watts ≥ 0")
		}
		for j, l := range d.NVLinks {
			q := fmt.Sprintf("%snvlinks[%d].", p, j)
			if l.Link < 0 {
				add(q+"link", "must be a link number ≥ 0")
			}
			if l.Version != Unknown && (l.Version < 1 || l.Version > 9) {
				add(q+"version", "must be -1 (unknown) or an NVLink generation from 1 to 9")
			}
		}
	}
	if h := b.HostMemory; h != nil {
		if h.TotalBytes <= 0 || h.TotalBytes > model.MaxHostMemoryBytes {
			add("host_memory.total_bytes", "must be a number of bytes above 0 and at most 2^50 (1 PiB)")
		}
		if h.AvailableBytes < Unknown || h.AvailableBytes > h.TotalBytes && h.TotalBytes > 0 {
			add("host_memory.available_bytes", "must be -1 (unknown) or a number of bytes from 0 to total_bytes")
		}
		seen := map[int]bool{}
		for i, nd := range h.NUMA {
			q := fmt.Sprintf("host_memory.numa[%d].", i)
			if nd.Node < 0 || nd.Node >= maxNUMANodes || seen[nd.Node] {
				add(q+"node", "must be a NUMA node number from 0 to %d, each once", maxNUMANodes-1)
			}
			seen[nd.Node] = true
			if nd.TotalBytes <= 0 || nd.TotalBytes > model.MaxHostMemoryBytes {
				add(q+"total_bytes", "must be a number of bytes above 0 and at most 2^50 (1 PiB)")
			}
			if nd.FreeBytes < Unknown || nd.FreeBytes > nd.TotalBytes && nd.TotalBytes > 0 {
				add(q+"free_bytes", "must be -1 (unknown) or a number of bytes from 0 to total_bytes")
			}
		}
	}
	n := len(b.GPUs)
	checkMatrix := func(name string, m [][]string, valid func(string) bool, allowed string) {
		if m == nil {
			return
		}
		if len(m) != n {
			add(name, "must be %d×%d (a row and a column per GPU), has %d rows", n, n, len(m))
			return
		}
		for i, row := range m {
			if len(row) != n {
				add(fmt.Sprintf("%s[%d]", name, i), "must have %d entries (one per GPU), has %d", n, len(row))
				continue
			}
			for j, v := range row {
				if !valid(v) {
					add(fmt.Sprintf("%s[%d][%d]", name, i, j), "must be one of %s, not %q", allowed, v)
				}
			}
		}
	}
	checkMatrix("p2p", b.P2P, func(s string) bool { return slices.Contains([]string{"OK", "NS", "X", "?"}, s) }, "OK, NS, X, ?")
	checkMatrix("topology", b.Topology, validTopology, "X, NV<n>, PIX, PXB, PHB, NODE, SYS, ?")
	return ps
}

func validTopology(s string) bool {
	switch s {
	case "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?":
		return true
	}
	return nvCount(s) > 0
}

// nvCount is n for "NV<n>" (n ≥ 1) and 0 otherwise.
func nvCount(s string) int {
	rest, ok := strings.CutPrefix(s, "NV")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return 0
	}
	return n
}

// unknownDevice is device i with every field Unknown (the name "unknown").
func unknownDevice(i int) Device {
	return Device{
		Index: i, Name: "unknown",
		MemTotal: Unknown, MemFree: Unknown, MemUsed: Unknown,
		PCIeMaxGen: Unknown, PCIeGen: Unknown, PCIeMaxW: Unknown, PCIeW: Unknown,
		UtilGPU: Unknown, UtilMem: Unknown, PowerW: Unknown, TempC: Unknown,
	}
}

// square is an n×n matrix of "?".
func square(n int) [][]string {
	m := make([][]string, n)
	for i := range m {
		m[i] = make([]string, n)
		for j := range m[i] {
			m[i][j] = "?"
		}
	}
	return m
}
