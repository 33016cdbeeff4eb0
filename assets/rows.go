package assets

import (
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// calibrationKey is the optional top-level block of a preset file that holds YAML anchors
// (shared calibration numbers) for the rows to merge in with "<<: *name". It is not read
// directly: only what rows merge from it counts.
const calibrationKey = "calibration"

// readRows parses one preset file: a mapping whose listKey holds the rows (each a mapping) and
// which may hold a calibration block. It reports file-level problems and returns false when
// there are no rows to check.
func readRows(fsys fs.FS, file, listKey string, errs *Errors) ([]*row, bool) {
	fileErr := func(line int, format string, args ...any) {
		*errs = append(*errs, &Error{File: file, Row: -1, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		fileErr(0, "%v", err)
		return nil, false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		fileErr(0, "%v", err)
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		fileErr(0, "empty file: want a mapping with %q: a list of rows", listKey)
		return nil, false
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		fileErr(top.Line, "the file must be a mapping with %q: a list of rows (and optionally %q:)", listKey, calibrationKey)
		return nil, false
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case listKey:
			if list != nil {
				fileErr(k.Line, "%q appears twice", listKey)
				continue
			}
			list = resolve(v)
		case calibrationKey:
		default:
			fileErr(k.Line, "unknown top-level key %q (allowed: %s, %s)", k.Value, listKey, calibrationKey)
		}
	}
	if list == nil {
		fileErr(top.Line, "missing %q: a list of rows", listKey)
		return nil, false
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		fileErr(list.Line, "%q must be a non-empty list of rows", listKey)
		return nil, false
	}
	rows := make([]*row, len(list.Content))
	for i, n := range list.Content {
		rows[i] = &row{file: file, index: i, node: resolve(n), line: n.Line,
			nodes: map[string]*yaml.Node{}, bad: map[string]bool{}}
	}
	return rows, true
}

// row collects one row's fields and problems. Problems are stamped with the row's id when the
// row is finished, so that a message about any field can name the row.
type row struct {
	file  string
	index int
	line  int
	node  *yaml.Node
	id    string
	nodes map[string]*yaml.Node // value node of each field present, merged ones included
	bad   map[string]bool       // fields already reported, so each is reported once
	errs  []*Error
}

// fail reports a bad field value (value as written or as computed).
func (r *row) fail(field, value, format string, args ...any) {
	line := r.line
	if n, ok := r.nodes[field]; ok {
		line = n.Line
	}
	if value == "" {
		value = `""`
	}
	r.bad[field] = true
	r.errs = append(r.errs, &Error{File: r.file, Row: r.index, Line: line, Field: field, Value: value,
		Msg: fmt.Sprintf(format, args...)})
}

// failField reports a problem with a field that has no value to show (missing, unknown key).
func (r *row) failField(field string, line int, format string, args ...any) {
	r.bad[field] = true
	r.errs = append(r.errs, &Error{File: r.file, Row: r.index, Line: line, Field: field,
		Msg: fmt.Sprintf(format, args...)})
}

// failRow reports a problem with the row as a whole.
func (r *row) failRow(format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Row: r.index, Line: r.line, Msg: fmt.Sprintf(format, args...)})
}

// finish moves the row's problems to errs and reports whether the row is good.
func (r *row) finish(errs *Errors) bool {
	for _, e := range r.errs {
		e.ID = r.id
	}
	*errs = append(*errs, r.errs...)
	return len(r.errs) == 0
}

// decode fills dst (a pointer to a struct whose yaml tags are the file's field names) from the
// row, reporting unknown, repeated, missing and unreadable fields.
func (r *row) decode(dst any, required []string) {
	if r.node.Kind != yaml.MappingNode {
		r.failRow("a row must be a mapping of field: value, not a %s", kindName(r.node))
		for _, f := range required {
			r.bad[f] = true
		}
		return
	}
	sv := reflect.ValueOf(dst).Elem()
	fields := fieldIndex(sv.Type())
	names := allFields(dst)
	pairs := r.pairs(r.node, 0)
	// Read the id first so that it is known even if the row has other problems.
	slices.SortStableFunc(pairs, func(a, b [2]*yaml.Node) int {
		return btoi(b[0].Value == "id") - btoi(a[0].Value == "id")
	})
	for _, kv := range pairs {
		k, v := kv[0], resolve(kv[1])
		name := k.Value
		idx, known := fields[name]
		if !known {
			r.failField(name, k.Line, "unknown field (known: %s)", strings.Join(names, ", "))
			continue
		}
		r.nodes[name] = v
		fv := sv.Field(idx)
		if fv.Kind() == reflect.Struct {
			r.decodeGroup(name, v, fv) // a group of fields (a model's mla:, linear_attn:)
			continue
		}
		if !r.decodeValue(name, v, fv) {
			continue
		}
		if name == "id" {
			r.id = fv.String()
		}
	}
	for _, f := range required {
		if _, ok := r.nodes[f]; !ok && !r.bad[f] {
			r.failField(f, r.line, "missing (required)")
		}
	}
}

// decodeValue decodes the single value v of field name into fv, reporting it when it cannot.
func (r *row) decodeValue(name string, v *yaml.Node, fv reflect.Value) bool {
	switch {
	case v.Kind != yaml.ScalarNode:
		r.fail(name, "<"+kindName(v)+">", "must be a single value")
		return false
	case v.Tag == "!!null":
		r.failField(name, v.Line, "has no value")
		return false
	}
	if !tagFits(fv.Kind(), v.Tag) {
		r.fail(name, v.Value, "%s", wantType(fv.Kind()))
		return false
	}
	if err := v.Decode(fv.Addr().Interface()); err != nil {
		r.fail(name, v.Value, "%s", wantType(fv.Kind()))
		return false
	}
	return true
}

// decodeGroup decodes a mapping of single values into the struct fv (yaml tags its names), each
// named "group.field" in messages.
func (r *row) decodeGroup(group string, v *yaml.Node, fv reflect.Value) {
	if v.Kind != yaml.MappingNode {
		r.fail(group, "<"+kindName(v)+">", "must be a mapping of %s", strings.Join(allFields(fv.Addr().Interface()), ", "))
		return
	}
	fields := fieldIndex(fv.Type())
	for _, kv := range r.pairs(v, 0) {
		k, sub := kv[0], resolve(kv[1])
		name := group + "." + k.Value
		idx, known := fields[k.Value]
		if !known {
			r.failField(name, k.Line, "unknown field (known: %s)", strings.Join(allFields(fv.Addr().Interface()), ", "))
			continue
		}
		r.nodes[name] = sub
		r.decodeValue(name, sub, fv.Field(idx))
	}
}

// pairs returns the key/value pairs of a mapping with YAML merge keys ("<<: *anchor") expanded.
// Keys written in the row win over merged ones, earlier merges over later ones, as in the YAML
// merge-key spec. A key written twice in the same mapping is reported.
func (r *row) pairs(m *yaml.Node, depth int) [][2]*yaml.Node {
	if depth > 8 {
		r.failField("<<", m.Line, "merges nest too deeply")
		return nil
	}
	var own, merged [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			r.failField("<"+kindName(k)+">", k.Line, "a field name must be a plain word")
			continue
		}
		if k.Tag == "!!merge" {
			v = resolve(v)
			var sources []*yaml.Node
			switch v.Kind {
			case yaml.MappingNode:
				sources = []*yaml.Node{v}
			case yaml.SequenceNode:
				for _, s := range v.Content {
					sources = append(sources, resolve(s))
				}
			}
			for _, s := range sources {
				if s.Kind != yaml.MappingNode {
					r.failField("<<", k.Line, "must merge a mapping (an alias such as *name to one)")
					continue
				}
				merged = append(merged, r.pairs(s, depth+1)...)
			}
			if len(sources) == 0 {
				r.failField("<<", k.Line, "must merge a mapping (an alias such as *name to one)")
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			r.failField(k.Value, k.Line, "written twice in one row (first on line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		own = append(own, [2]*yaml.Node{k, v})
	}
	for _, kv := range merged {
		if _, dup := seen[kv[0].Value]; !dup {
			seen[kv[0].Value] = kv[0].Line
			own = append(own, kv)
		}
	}
	return own
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// fieldIndex maps a struct's yaml tag names to field indexes.
func fieldIndex(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

// allFields lists every yaml field name of the struct dst points to, in declaration order.
func allFields(dst any) []string {
	t := reflect.TypeOf(dst).Elem()
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// tagFits reports whether a scalar's resolved YAML type suits a Go field. It is stricter than
// yaml.v3's decoder, which truncates 2.5 into an int and reads "yes" and quoted "32" as values.
func tagFits(k reflect.Kind, tag string) bool {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return tag == "!!int"
	case reflect.Float64, reflect.Float32:
		return tag == "!!int" || tag == "!!float"
	case reflect.Bool:
		return tag == "!!bool"
	default:
		return true
	}
}

func wantType(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "must be a whole number"
	case reflect.Float64, reflect.Float32:
		return "must be a number"
	case reflect.Bool:
		return "must be true or false"
	default:
		return "must be text"
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	default:
		return "node"
	}
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
