package assets

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/splitscope/splitscope/model"
)

// Scenario files.
//
// A scenario file is a YAML mapping whose keys are the command line's scenario flags with
// underscores (micro_batch for --micro-batch), plus an optional title:
//
//	# splitscope scenario: the TP-vs-PP tour, step 7
//	title: NVLink against PCIe
//	model: llama-2-13b        # preset IDs (splitscope presets) for model, gpu, intra and inter
//	gpu: h100-pcie
//	gpus: 8
//	intra: pcie5
//	tp: 8
//	batch: 64
//
// Only model and gpu are required; every other key takes the command line's default, derived
// the same way (model.ResolveSizes): TP the largest that fits a node and the model, DP
// gpus / (TP × PP), the batch 64 raised to a whole number of micro-batches, intra the GPU's
// native link, nics_per_node the GPUs per node, and so on.

//go:embed scenarios/tour/*.yaml
var scenarioFS embed.FS

// TourDir is the embedded folder of the tour's scenario files, NN-name.yaml in tour order.
const TourDir = "scenarios/tour"

// maxScenarioErrors is how many problems of one scenario file ParseScenario reports.
const maxScenarioErrors = 10

// yamlLine picks the line out of a yaml.v3 syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// topMapping reads a YAML file down to its top mapping. On a problem it returns nil with the line
// and the message to report: the parser's own (as "not YAML: …", at the line it names), empty
// (the file holds nothing), or what the top must be ("a scenario must be a mapping …") and the kind
// it is instead.
func topMapping(data []byte, empty, must string) (*yaml.Node, int, string) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// "yaml: line 3: did not find expected key": keep the line where the message has one.
		msg, line := err.Error(), 0
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = "not YAML: " + m[2]
		}
		return nil, line, msg
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, 1, empty
	}
	top := resolve(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		return nil, top.Line, must + ", not a " + kindName(top)
	}
	return top, 0, ""
}

// ErrUnknownTourStep is wrapped by TourScenario when no tour step has the name asked for.
var ErrUnknownTourStep = errors.New("unknown tour step")

// ScenarioFile is a parsed scenario file: the scenario and its optional title.
type ScenarioFile struct {
	Title    string
	Scenario model.Scenario
	// Set lists the keys the file gives (title aside), in file order, each with its value as the
	// command line would take it: the command line applies them as flags under the ones typed.
	Set []Setting
	// Question is the step's question to answer before its numbers show (nil: none).
	Question *Question
	// Caption and Tab are a lesson step's text by language and the tab it opens on (lesson.go);
	// nil and "" in other files.
	Caption map[string]string
	Tab     string
}

// Setting is one key of a scenario file and its value, normalised: preset IDs and enum values in
// their canonical spelling, numbers in Go's shortest form. Line is the key's line in the file,
// so that a problem found later (an invalid scenario) can still name the file, line and key.
type Setting struct {
	Key, Value string
	Line       int
}

// Flag is the command-line flag of the key: the key with '-' for '_'.
func (s Setting) Flag() string { return strings.ReplaceAll(s.Key, "_", "-") }

// keyKind is what a scenario key holds.
type keyKind int

const (
	kText keyKind = iota
	kModel
	kGPU
	kLink
	kMode
	kSchedule
	kPrecision
	kRecompute
	kCollectives
	kTPOverlap
	kOffload
	kSPGather
	kRankOrder
	kEPDispatch
	kCPComm
	kInt
	kFloat
	kBool
	kWeights  // a --weights format or bits
	kKVCache  // bf16, fp16 or fp8
	kEngine   // a serving engine's id (model.Engines)
	kDuration // a time: "500ms", "2s", or a number of seconds
	kSize     // a size in bytes: "512GiB", "512G", or a number of bytes
	kQuestion // a mapping: see Question
	kDisagg   // "P:D": the GPUs of the prefill and decode pools (model.ParseDisagg), or off
	// Speculative decoding (specscenario.go): an acceptance (a rate or a list), a method, a
	// draft model (a preset or a config.json, as model).
	kSpecAccept
	kSpecMethod
	kSpecDraft
)

// ScenarioKeys lists every key a scenario file may hold, in the order MarshalScenario writes them.
func ScenarioKeys() []string {
	out := make([]string, len(scenarioKeys))
	for i, k := range scenarioKeys {
		out[i] = k.name
	}
	return out
}

type scenarioKey struct {
	name string
	kind keyKind
}

var scenarioKeys = []scenarioKey{
	{"title", kText},
	{"model", kModel},
	{"layers", kInt}, {"hidden", kInt}, {"heads", kInt}, {"kv_heads", kInt}, {"ffn", kInt}, {"vocab", kInt},
	{"gpu", kGPU}, {"compute_eff", kFloat}, {"memory_eff", kFloat},
	{"gpus", kInt}, {"gpus_per_node", kInt},
	{"intra", kLink}, {"intra_eff", kFloat}, {"inter", kLink}, {"inter_eff", kFloat}, {"nics_per_node", kInt},
	{"host_memory", kSize},
	{"tp", kInt}, {"pp", kInt}, {"dp", kInt}, {"ep", kInt}, {"ep_imbalance", kFloat}, {"ep_dispatch", kEPDispatch}, {"etp", kInt}, {"cp", kInt}, {"cp_comm", kCPComm}, {"chunks", kInt}, {"micro_batch", kInt},
	{"schedule", kSchedule},
	{"mode", kMode}, {"seq", kInt}, {"batch", kInt}, {"precision", kPrecision},
	{"recompute", kRecompute}, {"sequence_parallel", kBool}, {"zero", kInt},
	{"unfused_attention", kBool}, {"serial_dp", kBool}, {"collectives", kCollectives}, {"tp_overlap", kTPOverlap}, {"offload", kOffload}, {"sp_gather", kSPGather}, {"rank_order", kRankOrder},
	{"prompt", kInt}, {"gen", kInt}, {"requests", kInt},
	{"rate", kFloat}, {"concurrency", kInt}, {"seed", kInt}, {"max_seqs", kInt}, {"max_batch_tokens", kInt},
	{"weights", kWeights}, {"expert_weights", kWeights}, {"kv_cache", kKVCache}, {"engine", kEngine}, {"prefix_hit", kFloat}, {"turns", kInt}, {"think", kDuration}, {"kv_host_gib", kFloat}, {"disagg", kDisagg}, {"prefill_tp", kInt}, {"prefill_pp", kInt}, {"prefill_ep", kInt}, {"prefill_cp", kInt}, {"scheduler_recv_interval", kInt}, {"slo_ttft", kDuration}, {"slo_tpot", kDuration},
	{"spec_tokens", kInt}, {"spec_accept", kSpecAccept}, {"spec_method", kSpecMethod}, {"spec_draft", kSpecDraft},
	{"reserve_gib", kFloat},
	{"question", kQuestion}, // the tour's and the lessons', not settings
	{"caption", kQuestion},  // a lesson step's text (lesson.go)
	{"tab", kQuestion},      // the tab a lesson step opens on
}

// scenarioValues are the keys of one file, decoded.
type scenarioValues struct {
	file   string // the scenario file's name: a model: path is relative to its folder
	set    map[string]bool
	ints   map[string]int
	floats map[string]float64
	texts  map[string]string
	bools  map[string]bool
	title  string
	arch   model.Arch
	gpu    model.GPU
	links  map[string]model.Link // intra, inter
	mode   model.Mode
	sched  model.Schedule
	prec   model.Precision
	rc     model.Recompute
	coll   model.Collectives
	tpo    model.TPOverlap
	off    model.Offload
	spg    model.SPGather
	order  model.RankOrder
	epd    model.EPDispatch
	// specAcc and specDraft are spec_accept's and spec_draft's values.
	specAcc   *model.SpecAccept
	specDraft *model.Arch
	cpc       model.CPComm
}

// ParseScenario reads a scenario file named name (for messages) against the presets p. Every
// problem is reported (the first maxScenarioErrors, then how many more), as an Errors whose
// items name the file, the line and the key: an unknown
// key, a repeated one, a value of the wrong type, an unknown preset ID (listing the known ones),
// an unknown enum value, a missing model or gpu.
//
// The scenario is not validated (callers call its Validate and show those errors); keys left
// out take the command line's defaults. When TP × PP does not divide the GPUs and dp is not
// given, DP is left at 1 for Validate to report.
func ParseScenario(name string, data []byte, p *Presets) (ScenarioFile, error) {
	if p == nil {
		p = &Presets{}
	}
	var errs Errors
	failed := 0
	fail := func(line int, key, value, format string, args ...any) {
		if failed++; failed <= maxScenarioErrors {
			errs = append(errs, &Error{File: name, Row: -1, Line: line, Field: key, Value: value, Msg: fmt.Sprintf(format, args...)})
		}
	}
	// done caps the problems reported: a file of thousands of bad keys gives a screenful.
	done := func() error {
		if more := failed - len(errs); more > 0 {
			errs = append(errs, &Error{File: name, Row: -1, Msg: fmt.Sprintf("%d more problems not shown", more)})
		}
		return errs
	}
	top, line, msg := topMapping(data, "empty file: a scenario needs at least model: and gpu: (preset IDs)",
		"a scenario must be a mapping of key: value")
	if top == nil {
		fail(line, "", "", "%s", msg)
		return ScenarioFile{}, done()
	}

	v := scenarioValues{file: name, set: map[string]bool{}, ints: map[string]int{}, floats: map[string]float64{}, texts: map[string]string{},
		bools: map[string]bool{}, links: map[string]model.Link{}}
	var out ScenarioFile
	firstLine := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, n := top.Content[i], resolve(top.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			fail(k.Line, "<"+kindName(k)+">", "", "a key must be a plain word")
			continue
		}
		key := k.Value
		idx := slices.IndexFunc(scenarioKeys, func(sk scenarioKey) bool { return sk.name == key })
		if idx < 0 {
			fail(k.Line, key, "", "%s", unknownKeyMsg(key))
			continue
		}
		if first, dup := firstLine[key]; dup {
			fail(k.Line, key, "", "written twice (first on line %d)", first)
			continue
		}
		firstLine[key] = k.Line
		switch key {
		case "question":
			// A mapping of its own, not a flag: the command line never sees it.
			if q, ok := parseQuestion(n, fail); ok {
				out.Question = q
			}
			continue
		case "caption":
			if c, ok := parseCaption(n, fail); ok {
				out.Caption = c
			}
			continue
		case "tab":
			if t, ok := parseTab(n, fail); ok {
				out.Tab = t
			}
			continue
		}
		switch {
		case n.Kind == yaml.SequenceNode && scenarioKeys[idx].kind == kSpecAccept:
			// A per-position curve: spec_accept: [0.9, 0.8, 0.7].
		case n.Kind != yaml.ScalarNode:
			fail(n.Line, key, "<"+kindName(n)+">", "must be a single value")
			continue
		case n.Tag == "!!null":
			fail(n.Line, key, "", "has no value")
			continue
		}
		val, ok := v.decode(p, scenarioKeys[idx].kind, key, n, func(format string, args ...any) {
			fail(n.Line, key, n.Value, format, args...)
		})
		if !ok {
			continue
		}
		if key == "title" {
			out.Title = v.title
			continue
		}
		v.set[key] = true
		out.Set = append(out.Set, Setting{Key: key, Value: val, Line: k.Line})
	}
	for _, req := range []string{"model", "gpu"} {
		if _, seen := firstLine[req]; !seen {
			fail(top.Line, req, "", "missing (required): a %s preset ID", req)
		}
	}
	if failed > 0 {
		return ScenarioFile{}, done()
	}
	s, err := v.scenario(p)
	if err != nil {
		return ScenarioFile{}, err
	}
	out.Scenario = s
	return out, nil
}

// unknownKeyMsg says what is wrong with an unknown key, suggesting the key meant where it can.
func unknownKeyMsg(key string) string {
	known := ScenarioKeys()
	if u := strings.ReplaceAll(key, "-", "_"); u != key && slices.Contains(known, u) {
		return fmt.Sprintf("unknown key: write %s (keys use underscores where flags use dashes)", u)
	}
	best, bestD := "", 3
	for _, k := range known {
		// Lengths further apart than the distance sought cannot be closer: a long key costs nothing.
		if abs(len(key)-len(k)) >= bestD {
			continue
		}
		if d := editDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf("unknown key: did you mean %s? (known: %s)", best, strings.Join(known, ", "))
	}
	return "unknown key (known: " + strings.Join(known, ", ") + ")"
}

func abs(x int) int { return max(x, -x) }

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// decode reads one value of a known key, returning it normalised for the command line.
func (v *scenarioValues) decode(p *Presets, kind keyKind, key string, n *yaml.Node, bad func(string, ...any)) (string, bool) {
	text := strings.TrimSpace(n.Value)
	switch kind {
	case kText:
		v.title = n.Value
		return n.Value, true
	case kSpecAccept, kSpecMethod, kSpecDraft:
		return v.decodeSpec(p, kind, n, bad)
	case kWeights:
		if _, err := model.WeightBits(text); err != nil || n.Kind != yaml.ScalarNode {
			bad("%s", "must be one of "+strings.Join(model.WeightFormats, ", ")+", or bits per weight from 1 to 32")
			return "", false
		}
		v.texts[key] = text
		return text, true
	case kDuration:
		d, err := time.ParseDuration(text)
		if err != nil {
			x, ferr := strconv.ParseFloat(text, 64)
			if ferr != nil || n.Kind != yaml.ScalarNode || !(x >= 0 && x <= 1e6) {
				bad("must be a time such as 500ms or 2s, or a number of seconds from 0 to 1e6")
				return "", false
			}
			d = time.Duration(x * float64(time.Second))
		}
		if d < 0 {
			bad("must be a time of 0 (none) or more")
			return "", false
		}
		v.floats[key] = d.Seconds()
		return d.String(), true
	case kSize:
		b, err := model.ParseByteSize(text)
		if err != nil {
			bad("%s", model.HostMemoryAllowed)
			return "", false
		}
		v.floats[key] = b
		return model.FormatByteSize(b), true
	case kKVCache:
		if pr, err := model.ParsePrecision(text); err != nil || pr == model.FP32 {
			bad("must be bf16, fp16 or fp8")
			return "", false
		}
		v.texts[key] = text
		return text, true
	case kDisagg:
		if _, err := model.ParseDisagg(text, 0); err != nil || n.Kind != yaml.ScalarNode {
			bad("%s", "must be P:D, the GPUs of the prefill and decode pools (each ≥ 1), or off")
			return "", false
		}
		v.texts[key] = text
		return text, true
	case kEngine:
		if _, ok := model.Engine(text); !ok || text == "" {
			bad("must be one of %s", strings.Join(model.EngineIDs(), ", "))
			return "", false
		}
		v.texts[key] = text
		return text, true
	case kModel:
		a, ok := v.modelOf(p, text, bad)
		if !ok {
			return "", false
		}
		v.arch = a
		return a.ID, true
	case kGPU:
		g, err := p.GPU(text)
		if err != nil {
			bad("unknown GPU preset (known: %s)", strings.Join(p.GPUIDs(), ", "))
			return "", false
		}
		v.gpu = g
		return g.ID, true
	case kLink:
		l, err := p.Link(text)
		if err != nil {
			bad("unknown link preset (known: %s)", strings.Join(p.LinkIDs(), ", "))
			return "", false
		}
		v.links[key] = l
		return l.ID, true
	case kMode, kSchedule, kPrecision, kRecompute, kCollectives, kTPOverlap, kOffload, kSPGather, kRankOrder, kEPDispatch, kCPComm:
		var (
			s   fmt.Stringer
			err error
		)
		switch kind {
		case kMode:
			v.mode, err = model.ParseMode(text)
			s = v.mode
		case kSchedule:
			v.sched, err = model.ParseSchedule(text)
			s = v.sched
		case kPrecision:
			v.prec, err = model.ParsePrecision(text)
			s = v.prec
		case kCollectives:
			v.coll, err = model.ParseCollectives(text)
			s = v.coll
		case kTPOverlap:
			v.tpo, err = model.ParseTPOverlap(text)
			s = v.tpo
		case kOffload:
			v.off, err = model.ParseOffload(text)
			s = v.off
		case kSPGather:
			v.spg, err = model.ParseSPGather(text)
			s = v.spg
		case kRankOrder:
			v.order, err = model.ParseRankOrder(text)
			s = v.order
		case kEPDispatch:
			v.epd, err = model.ParseEPDispatch(text)
			s = v.epd
		case kCPComm:
			v.cpc, err = model.ParseCPComm(text)
			s = v.cpc
		default:
			v.rc, err = model.ParseRecompute(text)
			s = v.rc
		}
		if err != nil {
			allowed := err.Error()
			var fe *model.FieldError
			if errors.As(err, &fe) {
				allowed = fe.Allowed
			}
			bad("must be one of %s", allowed)
			return "", false
		}
		return s.String(), true
	case kInt:
		var x int
		if n.Tag != "!!int" || n.Decode(&x) != nil {
			bad("must be a whole number")
			return "", false
		}
		v.ints[key] = x
		return strconv.Itoa(x), true
	case kFloat:
		var x float64
		if (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&x) != nil {
			bad("must be a number")
			return "", false
		}
		v.floats[key] = x
		return fmtFloat(x), true
	case kBool:
		var x bool
		if n.Tag != "!!bool" || n.Decode(&x) != nil {
			bad("must be true or false")
			return "", false
		}
		v.bools[key] = x
		return strconv.FormatBool(x), true
	}
	return "", false
}

// intOr is the file's value of an int key, or def when the file leaves it out.
func (v *scenarioValues) intOr(key string, def int) int {
	if x, ok := v.ints[key]; ok {
		return x
	}
	return def
}

// scenario builds the scenario the keys describe, defaults filled in as on the command line.
func (v *scenarioValues) scenario(p *Presets) (model.Scenario, error) {
	arch, dev := v.arch, v.gpu
	// Architecture overrides. A multi-head preset stays multi-head when only heads changes.
	if v.set["heads"] && !v.set["kv_heads"] && arch.KVHeads == arch.Heads {
		arch.KVHeads = v.ints["heads"]
	}
	for key, dst := range map[string]*int{"layers": &arch.Layers, "hidden": &arch.Hidden, "heads": &arch.Heads,
		"kv_heads": &arch.KVHeads, "ffn": &arch.FFN, "vocab": &arch.Vocab} {
		*dst = v.intOr(key, *dst)
	}
	if preset, err := p.Model(arch.ID); err == nil {
		arch.Changes = model.ArchChanges(preset, arch) // titled as modified, not as the preset
	}

	intra, ok := v.links["intra"]
	if !ok {
		var err error
		if intra, err = p.Link(dev.NativeLink); err != nil {
			return model.Scenario{}, fmt.Errorf("assets: native link %q of gpu %s: %w", dev.NativeLink, dev.ID, err)
		}
	}
	inter, ok := v.links["inter"]
	if !ok {
		var err error
		if inter, err = p.Link(model.DefaultInter); err != nil {
			return model.Scenario{}, fmt.Errorf("assets: default inter-node link: %w", err)
		}
	}
	// Calibration overrides: 0 keeps the preset's value, as on the command line.
	for key, dst := range map[string]*float64{"compute_eff": &dev.ComputeEff, "memory_eff": &dev.MemoryEff,
		"intra_eff": &intra.Efficiency, "inter_eff": &inter.Efficiency} {
		if x := v.floats[key]; x != 0 {
			*dst = x
			switch key {
			case "compute_eff":
				dev.ComputeEffFP8 = 0 // one efficiency for every precision when given
			case "memory_eff":
				dev.GEMMMemoryEff = 0 // the matmuls' streaming too
			}
		}
	}
	reserve := float64(model.DefaultReserveBytes)
	if r := v.floats["reserve_gib"]; r != 0 {
		reserve = r * model.GiB // a bad value is left for Validate to report
	}

	gpus := v.intOr("gpus", model.DefaultGPUs)
	perNode := v.intOr("gpus_per_node", model.DefaultGPUsPerNode)
	s := model.Scenario{
		Arch: arch,
		Cluster: model.Cluster{GPU: dev, GPUs: gpus, GPUsPerNode: perNode, Intra: intra, Inter: inter,
			NICsPerNode: v.intOr("nics_per_node", perNode), HostMemoryBytes: v.floats["host_memory"]},
		ReserveBytes: reserve,
	}
	// With disaggregated serving the layout's sizes are the decode pool's: the GPUs the prefill
	// pool leaves (a P:D that does not add up to gpus is left for Validate, as a whole pool).
	prefill, _ := model.ParseDisagg(v.texts["disagg"], 0)
	pool := gpus
	if prefill > 0 && prefill < gpus {
		pool = gpus - prefill
	}
	sz, _ := model.ResolveSizes(model.SplitGPUs(pool, v.ints["cp"]), perNode, arch, v.sched, v.mode,
		model.Sizes{TP: v.ints["tp"], PP: v.ints["pp"], DP: v.ints["dp"], MicroBatch: v.ints["micro_batch"],
			Batch: v.ints["batch"], Requests: v.ints["requests"]},
		model.SizesGiven{TP: v.set["tp"], PP: v.set["pp"], DP: v.set["dp"], MicroBatch: v.set["micro_batch"],
			Batch: v.set["batch"], Requests: v.set["requests"]}, false)
	s.Layout = model.Layout{TP: sz.TP, PP: sz.PP, DP: sz.DP, Chunks: v.intOr("chunks", model.DefaultChunks),
		MicroBatch: sz.MicroBatch, Schedule: v.sched, SequenceParallel: v.bools["sequence_parallel"],
		Recompute: v.rc, ZeRO: v.ints["zero"], UnfusedAttention: v.bools["unfused_attention"],
		SerialDP: v.bools["serial_dp"], Collectives: v.coll, EP: v.ints["ep"], EPImbalance: v.floats["ep_imbalance"], ETP: v.ints["etp"], EPDispatch: v.epd, CP: v.ints["cp"], CPComm: v.cpc, TPOverlap: v.tpo, Offload: v.off, SPGather: v.spg, RankOrder: v.order,
		Disagg: model.Disagg{PrefillGPUs: prefill, PrefillTP: v.ints["prefill_tp"], PrefillPP: v.ints["prefill_pp"], PrefillEP: v.ints["prefill_ep"], PrefillCP: v.ints["prefill_cp"]}}
	s.Workload = model.Workload{Mode: v.mode, Seq: v.intOr("seq", model.DefaultSeq), GlobalBatch: sz.Batch,
		PromptTokens: v.intOr("prompt", model.DefaultPrompt), GenTokens: v.intOr("gen", model.DefaultGen),
		Requests: sz.Requests, Precision: v.prec, Rate: v.floats["rate"], Concurrency: v.ints["concurrency"],
		Seed: uint64(max(v.ints["seed"], 0)), MaxSeqs: v.ints["max_seqs"], MaxBatchTokens: v.ints["max_batch_tokens"],
		Weights: v.texts["weights"], ExpertWeights: v.texts["expert_weights"], KVCache: v.texts["kv_cache"], Engine: v.texts["engine"], SchedulerRecvInterval: v.ints["scheduler_recv_interval"], SLOTTFT: v.floats["slo_ttft"], SLOTPOT: v.floats["slo_tpot"], PrefixHit: v.floats["prefix_hit"],
		Turns: v.ints["turns"], ThinkS: v.floats["think"], KVHostGiB: v.floats["kv_host_gib"],
		SpecTokens: v.ints["spec_tokens"], SpecAccept: v.specAcc, SpecMethod: v.texts["spec_method"], SpecDraft: v.specDraft}
	return s, nil
}

// MarshalScenario writes s as a scenario file with an optional title: preset IDs for the model,
// the GPU and the links, explicit keys for the architecture fields and the calibration that
// differ from the presets', and every cluster, layout and workload key. ParseScenario reads it
// back to s. What a file cannot say (a GPU or link that is not a preset, a model field that has
// no key) is noted in a comment.
func MarshalScenario(s model.Scenario, title string) []byte {
	return marshalScenario(s, title, nil, nil, "")
}

// MarshalScenarioFile writes f as MarshalScenario does, its question too.
func MarshalScenarioFile(f ScenarioFile) []byte {
	return marshalScenario(f.Scenario, f.Title, f.Question, f.Caption, f.Tab)
}

func marshalScenario(s model.Scenario, title string, q *Question, caption map[string]string, tab string) []byte {
	p, err := loadEmbedded()
	if err != nil {
		p = &Presets{}
	}
	top := &yaml.Node{Kind: yaml.MappingNode}
	var notes []string
	add := func(key string, v any) {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
		val := &yaml.Node{}
		if err := val.Encode(v); err != nil { // cannot fail for strings, numbers and booleans
			val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(v)}
		}
		top.Content = append(top.Content, k, val)
	}
	if title != "" {
		add("title", title)
	}
	if len(caption) > 0 {
		c := &yaml.Node{Kind: yaml.MappingNode}
		for _, l := range Langs {
			if t, ok := caption[l]; ok {
				c.Content = append(c.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: l},
					&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t})
			}
		}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "caption"}, c)
	}
	if tab != "" {
		add("tab", tab)
	}
	if q != nil {
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "question"}, questionNode(q))
	}

	a := s.Arch
	if a.File != "" {
		add("model", a.File) // a config.json's model: the file it was read from
	} else {
		add("model", a.ID)
	}
	archKeys := []struct {
		key  string
		v, w int
	}{{"layers", a.Layers, 0}, {"hidden", a.Hidden, 0}, {"heads", a.Heads, 0}, {"kv_heads", a.KVHeads, 0},
		{"ffn", a.FFN, 0}, {"vocab", a.Vocab, 0}}
	if pa, err := p.Model(a.ID); err == nil {
		for i, w := range []int{pa.Layers, pa.Hidden, pa.Heads, pa.KVHeads, pa.FFN, pa.Vocab} {
			archKeys[i].w = w
		}
		headsDiffer := a.Heads != pa.Heads || a.KVHeads != pa.KVHeads
		for _, k := range archKeys {
			// heads and kv_heads go together: heads alone makes a multi-head preset's kv_heads follow.
			if k.v != k.w || (headsDiffer && (k.key == "heads" || k.key == "kv_heads")) {
				add(k.key, k.v)
			}
		}
		pa.Layers, pa.Hidden, pa.Heads, pa.KVHeads, pa.FFN, pa.Vocab = a.Layers, a.Hidden, a.Heads, a.KVHeads, a.FFN, a.Vocab
		pa.Changes = a.Changes // what those keys say, not a field of its own
		if pa != a {
			notes = append(notes, fmt.Sprintf("model %s differs from the preset in fields a scenario file cannot set", a.ID))
		}
	} else {
		for _, k := range archKeys {
			add(k.key, k.v)
		}
		if a.File == "" {
			notes = append(notes, fmt.Sprintf("model %q is not a preset: choose one (splitscope presets)", a.ID))
		}
	}

	c := s.Cluster
	add("gpu", c.GPU.ID)
	if pg, err := p.GPU(c.GPU.ID); err == nil {
		// compute_eff, when given, is the efficiency of every precision (the FP8 one included).
		if c.GPU.ComputeEff != pg.ComputeEff || c.GPU.ComputeEffFP8 != pg.ComputeEffFP8 {
			add("compute_eff", c.GPU.ComputeEff)
		}
		if c.GPU.MemoryEff != pg.MemoryEff {
			add("memory_eff", c.GPU.MemoryEff)
		}
		pg.ComputeEff, pg.MemoryEff = c.GPU.ComputeEff, c.GPU.MemoryEff
		if c.GPU.GEMMMemoryEff == 0 {
			pg.GEMMMemoryEff = 0 // a memory_eff given replaces the matmuls' streaming too
		}
		if c.GPU.ComputeEffFP8 == 0 {
			pg.ComputeEffFP8 = 0
		}
		if pg != c.GPU {
			notes = append(notes, fmt.Sprintf("gpu %s differs from the preset (memory, peaks or links): the file names the preset", c.GPU.ID))
		}
	} else {
		notes = append(notes, fmt.Sprintf("gpu %q is not a preset: choose one (splitscope presets)", c.GPU.ID))
	}
	add("gpus", c.GPUs)
	add("gpus_per_node", c.GPUsPerNode)
	for _, l := range []struct {
		key  string
		link model.Link
	}{{"intra", c.Intra}, {"inter", c.Inter}} {
		add(l.key, l.link.ID)
		if pl, err := p.Link(l.link.ID); err == nil {
			if l.link.Efficiency != pl.Efficiency {
				add(l.key+"_eff", l.link.Efficiency)
			}
			pl.Efficiency = l.link.Efficiency
			if pl != l.link {
				notes = append(notes, fmt.Sprintf("%s link %s differs from the preset: the file names the preset", l.key, l.link.ID))
			}
		} else {
			notes = append(notes, fmt.Sprintf("%s link %q is not a preset: choose one (splitscope presets)", l.key, l.link.ID))
		}
	}
	add("nics_per_node", c.NICsPerNode)
	if c.HostMemoryBytes > 0 {
		add("host_memory", model.FormatByteSize(c.HostMemoryBytes))
	}

	l, w := s.Layout, s.Workload
	add("tp", l.TP)
	add("pp", l.PP)
	add("dp", l.DP)
	if l.EP != 0 { // 1 too: "ep: 1" reads back as itself
		add("ep", l.EP)
	}
	if l.EPImbalance != 0 {
		add("ep_imbalance", l.EPImbalance)
	}
	if l.ETP != 0 {
		add("etp", l.ETP)
	}
	if l.EPDispatch != model.EPDispatchDirect {
		add("ep_dispatch", l.EPDispatch.String())
	}
	if l.CP != 0 { // 1 too: "cp: 1" reads back as itself
		add("cp", l.CP)
	}
	if l.CPSize() > 1 || l.CPComm != 0 {
		add("cp_comm", l.CPComm.String())
	}
	add("chunks", l.Chunks)
	add("micro_batch", l.MicroBatch)
	add("schedule", l.Schedule.String())
	add("mode", w.Mode.String())
	add("seq", w.Seq)
	add("batch", w.GlobalBatch)
	add("precision", w.Precision.String())
	add("recompute", l.Recompute.String())
	add("sequence_parallel", l.SequenceParallel)
	add("zero", l.ZeRO)
	add("unfused_attention", l.UnfusedAttention)
	add("serial_dp", l.SerialDP)
	add("collectives", l.Collectives.String())
	if l.TPOverlap != model.TPOverlapNone {
		add("tp_overlap", l.TPOverlap.String())
	}
	if l.Offload != model.OffloadNone {
		add("offload", l.Offload.String())
	}
	if l.SPGather != model.SPGatherRedo {
		add("sp_gather", l.SPGather.String())
	}
	if l.RankOrder != model.RankOrderTPDPPP {
		add("rank_order", l.RankOrder.String())
	}
	add("prompt", w.PromptTokens)
	add("gen", w.GenTokens)
	add("requests", w.Requests)
	if w.Mode == model.Infer {
		for _, kv := range []struct {
			key string
			v   any
			set bool
		}{{"rate", w.Rate, w.Rate > 0}, {"concurrency", w.Concurrency, w.Concurrency > 0}, {"seed", w.Seed, w.Seed > 0},
			{"max_seqs", w.MaxSeqs, w.MaxSeqs > 0}, {"max_batch_tokens", w.MaxBatchTokens, w.MaxBatchTokens > 0},
			{"weights", w.Weights, w.Weights != ""}, {"expert_weights", w.ExpertWeights, w.ExpertWeights != ""}, {"kv_cache", w.KVCache, w.KVCache != ""}, {"engine", w.Engine, w.Engine != ""},
			{"prefix_hit", w.PrefixHit, w.PrefixHit > 0}, {"turns", w.Turns, w.Turns > 0}, {"think", secondsText(w.ThinkS), w.ThinkS > 0}, {"kv_host_gib", w.KVHostGiB, w.KVHostGiB > 0}, {"disagg", l.Disagg.String(s.Cluster.GPUs), l.Disagg.On()}, {"prefill_tp", l.Disagg.PrefillTP, l.Disagg.On() && l.Disagg.PrefillTP > 0}, {"prefill_pp", l.Disagg.PrefillPP, l.Disagg.On() && l.Disagg.PrefillPP > 0}, {"prefill_ep", l.Disagg.PrefillEP, l.Disagg.On() && l.Disagg.PrefillEP > 0}, {"prefill_cp", l.Disagg.PrefillCP, l.Disagg.On() && l.Disagg.PrefillCP > 0},
			{"scheduler_recv_interval", w.SchedulerRecvInterval, w.SchedulerRecvInterval > 1}, {"slo_ttft", secondsText(w.SLOTTFT), w.SLOTTFT > 0}, {"slo_tpot", secondsText(w.SLOTPOT), w.SLOTPOT > 0}} {
			if kv.set {
				add(kv.key, kv.v)
			}
		}
		marshalSpec(w, add)
		if w.PromptDist != nil || w.GenDist != nil || w.SystemPrompt > 0 || w.Stages != nil {
			notes = append(notes, "the --workload file's length distributions, system prompt and stages are not written: give --workload beside --scenario")
		}
	}
	if s.ReserveBytes != model.DefaultReserveBytes {
		if s.ReserveBytes > 0 && !math.IsInf(s.ReserveBytes, 0) {
			add("reserve_gib", s.ReserveBytes/model.GiB)
		} else {
			notes = append(notes, fmt.Sprintf("reserve of %g bytes cannot be written (reserve_gib 0 means the 1 GiB default)", s.ReserveBytes))
		}
	}

	head := "splitscope scenario: splitscope --scenario FILE; flags typed on the command line override these keys"
	for _, n := range notes {
		head += "\nnote: " + n
	}
	top.Content[0].HeadComment = head
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{top}}); err != nil {
		return []byte("# splitscope scenario: " + err.Error() + "\n")
	}
	_ = enc.Close()
	return []byte(b.String())
}

// tourFiles lists the embedded tour files (base names, NN-name.yaml), in order.
func tourFiles() []string {
	entries, err := fs.ReadDir(scenarioFS, TourDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}

// stepName is a tour file's step name: "07-pcie.yaml" -> "pcie".
func stepName(file string) string {
	base := strings.TrimSuffix(file, ".yaml")
	if i := strings.IndexByte(base, '-'); i > 0 && strings.Trim(base[:i], "0123456789") == "" {
		return base[i+1:]
	}
	return base
}

// TourSteps lists the embedded tour scenarios in order, by name: "one-gpu" is the file
// scenarios/tour/01-one-gpu.yaml.
func TourSteps() []string {
	files := tourFiles()
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = stepName(f)
	}
	return out
}

// TourScenario parses the embedded tour step named name: "pcie", "tour/pcie", "07-pcie" or its
// number, "7". An unknown name is an error wrapping ErrUnknownTourStep that lists the steps.
func TourScenario(name string, p *Presets) (ScenarioFile, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	want = strings.TrimPrefix(want, "tour/")
	want = strings.TrimSuffix(want, ".yaml")
	files := tourFiles()
	for i, f := range files {
		stem := strings.TrimSuffix(f, ".yaml")
		if want == stepName(f) || want == stem || want == strconv.Itoa(i+1) || want == fmt.Sprintf("%02d", i+1) {
			data, err := scenarioFS.ReadFile(path.Join(TourDir, f))
			if err != nil {
				return ScenarioFile{}, fmt.Errorf("assets: %w", err)
			}
			return ParseScenario(path.Join(TourDir, f), data, p)
		}
	}
	return ScenarioFile{}, fmt.Errorf("assets: tour step %q: %w (steps: %s)", name, ErrUnknownTourStep, strings.Join(TourSteps(), ", "))
}

// TourScenarios parses every tour step, in order.
func TourScenarios(p *Presets) ([]ScenarioFile, error) {
	var out []ScenarioFile
	for _, name := range TourSteps() {
		sf, err := TourScenario(name, p)
		if err != nil {
			return nil, err
		}
		out = append(out, sf)
	}
	return out, nil
}

// secondsText writes a time in seconds as a duration a scenario file and the flags read back.
func secondsText(x float64) string { return time.Duration(x * float64(time.Second)).String() }

// modelOf reads a model key's value: a preset, or a Hugging Face config.json (or its folder)
// relative to the scenario file's folder, added to the presets under its own ID.
func (v *scenarioValues) modelOf(p *Presets, text string, bad func(string, ...any)) (model.Arch, bool) {
	a, err := p.Model(text)
	if err != nil && p.ModelFile != nil && LooksLikeConfigPath(text) {
		path := text
		if !filepath.IsAbs(path) && v.file != "" {
			path = filepath.Join(filepath.Dir(v.file), path)
		}
		if a, err = p.ModelFile(path); err != nil {
			bad("%s", err.Error())
			return model.Arch{}, false
		}
		a.ID = p.AddModel(a)
	} else if err != nil {
		bad("unknown model preset (known: %s; or a config.json path)", strings.Join(p.ModelIDs(), ", "))
		return model.Arch{}, false
	}
	return a, true
}
