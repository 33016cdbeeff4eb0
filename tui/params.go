package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// field is one adjustable scenario parameter of the panel. Its name is the CLI flag, so a
// model.FieldError names the row it belongs to.
type field struct {
	name  string
	label string
	// show says whether the row applies to the scenario (prompt/gen only in inference, …).
	show func(s *model.Scenario) bool
	get  func(s *model.Scenario) string
	// step moves the value one notch (dir = ±1) through sensible values.
	step func(s *model.Scenario, p *assets.Presets, dir int)
	// set parses a typed value.
	set func(s *model.Scenario, p *assets.Presets, text string) error
}

func always(*model.Scenario) bool     { return true }
func training(s *model.Scenario) bool { return s.Workload.Mode == model.Train }
func serving(s *model.Scenario) bool  { return s.Workload.Mode == model.Infer }

// rankOrderShown: the rank order's row shows where the orders Search tries place the split
// differently (tp-dp-pp against tp-pp-dp: costmodel.SearchRankOrders), or when set away from its
// default (auto included), so the panel stays short where the usual choice cannot matter; once
// shown, it steps through every order that places the split differently.
func rankOrderShown(s *model.Scenario) bool {
	l := s.Layout
	return l.RankOrder != model.RankOrderTPDPPP || l.Auto&model.AutoRankOrder != 0 ||
		len(costmodel.SearchRankOrders(*s)) > 1
}

// rankOrderField is the rank order's row: ←/→ cycle through the orders that place the current
// split differently (model.DistinctRankOrders, one of each alike set, the default first) and
// auto after them; typing takes any order ParseRankOrder reads, or auto.
func rankOrderField() field {
	bit := model.AutoRankOrder
	isAuto := func(s *model.Scenario) bool { return s.Layout.Auto&bit != 0 }
	return field{name: "rank-order", label: "rank order", show: rankOrderShown,
		get: func(s *model.Scenario) string {
			if isAuto(s) {
				return autoValue + " → " + s.Layout.RankOrder.String()
			}
			return s.Layout.RankOrder.String()
		},
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			orders := model.DistinctRankOrders(s.Arch, s.Layout, s.Cluster.NodeSize())
			cur := len(orders)
			if !isAuto(s) {
				// The current order's place: its own, or that of the order placing it alike.
				cur = slices.IndexFunc(orders, func(o model.RankOrder) bool {
					return model.SameRankPlacement(s.Arch, s.Layout, o, s.Layout.RankOrder, s.Cluster.NodeSize())
				})
				if cur < 0 {
					cur = 0
				}
			}
			next := cycle(cur, len(orders)+1, dir)
			if next == len(orders) {
				s.Layout.Auto |= bit
				return
			}
			s.Layout.Auto &^= bit
			s.Layout.RankOrder = orders[next]
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			if strings.EqualFold(strings.TrimSpace(text), autoValue) {
				s.Layout.Auto |= bit
				return nil
			}
			o, err := model.ParseRankOrder(text)
			if err != nil {
				return fmt.Errorf("%q: %s, or %s", text, model.RankOrderForm, autoValue)
			}
			s.Layout.RankOrder = o
			s.Layout.Auto &^= bit
			return nil
		}}
}

// interleaving shows the chunks row only where it means something: the interleaved schedule.
func interleaving(s *model.Scenario) bool {
	return training(s) && s.Layout.Schedule == model.Interleaved
}

// intField builds a field over an int, stepping with next and accepting typed integers ≥ 1.
func intField(name, label string, show func(*model.Scenario) bool, ptr func(*model.Scenario) *int,
	next func(s *model.Scenario, v, dir int) int, after func(*model.Scenario)) field {
	if after == nil {
		after = func(*model.Scenario) {}
	}
	return field{
		name: name, label: label, show: show,
		get: func(s *model.Scenario) string { return strconv.Itoa(*ptr(s)) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			p := ptr(s)
			*p = next(s, *p, dir)
			after(s)
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			v, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || v < 1 {
				return fmt.Errorf("%q is not a whole number ≥ 1", text)
			}
			*ptr(s) = v
			after(s)
			return nil
		},
	}
}

// cpShown: the CP row shows from sequences (training) or prompts (serving, aggregated) of 8K
// tokens, where search tries CP, or when CP is set.
func cpShown(s *model.Scenario) bool {
	if s.Layout.CPSize() > 1 {
		return true
	}
	if training(s) {
		return s.Workload.Seq >= 8192
	}
	return !s.Layout.Disagg.On() && s.Workload.Prompts().Mean >= 8192
}

// setCP sets CP (1 stored as 0) and derives DP from what TP × CP × PP leaves, when it divides.
func setCP(s *model.Scenario, v int) {
	if v <= 1 {
		v = 0
	}
	s.Layout.CP = v
	l := &s.Layout
	if n := l.TP * l.CPSize() * l.PP; n >= 1 && s.Cluster.GPUs%n == 0 {
		l.DP = s.Cluster.GPUs / n
	}
}

// epChoices are the EP sizes a scenario can have: divisors of DP that divide the experts.
func epChoices(s *model.Scenario) []int {
	var out []int
	for _, d := range model.Divisors(max(s.Layout.DP, 1)) {
		if s.Arch.Experts > 0 && s.Arch.Experts%d == 0 {
			out = append(out, d)
		}
	}
	return out
}

// etpChoices are the ETP sizes a MoE scenario can have: divisors of TP for which EP × TP/ETP
// divides the experts.
func etpChoices(s *model.Scenario) []int {
	var out []int
	for _, d := range model.Divisors(max(s.Layout.TP, 1)) {
		if s.Arch.Experts > 0 && s.Arch.Experts%(s.Layout.EPSize()*max(s.Layout.TP, 1)/d) == 0 {
			out = append(out, d)
		}
	}
	return out
}

// setETP stores an ETP size, TP as the layout's 0.
func setETP(s *model.Scenario, v int) {
	if v >= s.Layout.TP {
		v = 0
	}
	s.Layout.ETP = v
}

// setEP stores an EP size, 1 as the layout's 0.
func setEP(s *model.Scenario, v int) {
	if v == 1 {
		v = 0
	}
	s.Layout.EP = v
}

// pow2 steps through powers of two (from any value, to the next one up or down), 1…hi.
func pow2(hi int) func(*model.Scenario, int, int) int {
	return func(_ *model.Scenario, v, dir int) int {
		n := 1
		if dir > 0 {
			for n <= v {
				n *= 2
			}
			return min(n, hi)
		}
		for n*2 < v {
			n *= 2
		}
		return max(n, 1)
	}
}

// linear steps by d, at least lo.
func linear(d, lo int) func(*model.Scenario, int, int) int {
	return func(_ *model.Scenario, v, dir int) int { return max(v+dir*d, lo) }
}

// among steps to the neighbouring value of a sorted list computed from the scenario.
func among(list func(*model.Scenario) []int) func(*model.Scenario, int, int) int {
	return func(s *model.Scenario, v, dir int) int {
		vals := list(s)
		if len(vals) == 0 {
			return v
		}
		if dir > 0 {
			for _, x := range vals {
				if x > v {
					return x
				}
			}
			return vals[len(vals)-1]
		}
		for i := len(vals) - 1; i >= 0; i-- {
			if vals[i] < v {
				return vals[i]
			}
		}
		return vals[0]
	}
}

// cycle steps through n choices.
func cycle(i, n, dir int) int { return ((i+dir)%n + n) % n }

// deriveDP sets DP = GPUs / (TP × PP) when that divides; otherwise DP stays and the scenario is
// invalid (tp × pp × dp ≠ gpus), which the edit then explains.
func deriveDP(s *model.Scenario) {
	l := &s.Layout
	gpus := s.Cluster.GPUs
	if p := l.Disagg.PrefillGPUs; p > 0 && p < gpus {
		gpus -= p // disaggregated: the layout is the decode pool's
	}
	if n := l.TP * l.CPSize() * l.PP; l.TP >= 1 && l.PP >= 1 && gpus%n == 0 {
		l.DP = gpus / n
	}
}

// disaggChoices are the prefill pool sizes the panel steps through: 0 (one pool), then every
// size that leaves the decode pool a GPU, in whole nodes when the GPUs span nodes.
func disaggChoices(s *model.Scenario) []int {
	gpus, gpn := s.Cluster.GPUs, max(s.Cluster.NodeSize(), 1)
	out := []int{0}
	step := 1
	if gpus > gpn {
		step = gpn
	}
	for p := step; p < gpus; p += step {
		out = append(out, p)
	}
	return out
}

// setDisagg stores a prefill pool of p GPUs (0: one pool), the decode pool's DP derived again; a
// closed loop gives way, as the pools serve open loops only.
func setDisagg(s *model.Scenario, p int) {
	s.Layout.Disagg.PrefillGPUs = p
	if p == 0 {
		s.Layout.Disagg = model.Disagg{}
	} else {
		s.Workload.Concurrency = 0
	}
	deriveDP(s)
}

// prefillTPField is the prefill pool's TP (with pools only): the layout's TP until set.
func prefillTPField() field {
	tp := func(s *model.Scenario) int { t, _ := s.PrefillSizes(); return t }
	return field{name: "prefill-tp", label: "prefill TP", show: func(s *model.Scenario) bool { return serving(s) && s.Layout.Disagg.On() },
		get: func(s *model.Scenario) string { return strconv.Itoa(tp(s)) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			s.Layout.Disagg.PrefillTP = among(func(s *model.Scenario) []int {
				return model.Divisors(max(s.Layout.Disagg.PrefillGPUs, 1))
			})(s, tp(s), dir)
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			v, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || v < 1 {
				return fmt.Errorf("%q is not a whole number ≥ 1", text)
			}
			s.Layout.Disagg.PrefillTP = v
			return nil
		}}
}

// prefillCPField is the prefill pool's CP (with pools only, from 8K-token prompts or once
// set): stepped through the divisors of the prefill pool's GPUs over its TP; 1 stored as 0.
func prefillCPField() field {
	cp := func(s *model.Scenario) int { return max(s.Layout.Disagg.PrefillCP, 1) }
	set := func(s *model.Scenario, v int) {
		if v <= 1 {
			v = 0
		}
		s.Layout.Disagg.PrefillCP = v
	}
	return field{name: "prefill-cp", label: "prefill CP",
		show: func(s *model.Scenario) bool {
			return serving(s) && s.Layout.Disagg.On() && (s.Layout.Disagg.PrefillCP > 1 || s.Workload.Prompts().Mean >= 8192)
		},
		get: func(s *model.Scenario) string { return strconv.Itoa(cp(s)) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			set(s, among(func(s *model.Scenario) []int {
				tp, pp := s.PrefillSizes()
				return model.Divisors(max(s.Layout.Disagg.PrefillGPUs/max(tp*pp, 1), 1))
			})(s, cp(s), dir))
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			v, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || v < 1 {
				return fmt.Errorf("%q is not a whole number ≥ 1", text)
			}
			set(s, v)
			return nil
		}}
}

// disaggField is the panel's pools row: off, or P:D GPUs prefilling and decoding.
func disaggField() field {
	return field{name: "disagg", label: "pools (P:D)", show: serving,
		get: func(s *model.Scenario) string { return s.Layout.Disagg.String(s.Cluster.GPUs) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			setDisagg(s, among(disaggChoices)(s, s.Layout.Disagg.PrefillGPUs, dir))
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			p, err := model.ParseDisagg(text, s.Cluster.GPUs)
			if err != nil {
				return err
			}
			setDisagg(s, p)
			return nil
		}}
}

// setMicroBatches sets the global batch (requests in inference) to m micro-batches.
func setMicroBatches(s *model.Scenario, m int) {
	per := max(s.Layout.MicroBatch, 1) * max(s.Layout.DP, 1)
	if s.Workload.Mode == model.Infer {
		s.Workload.Requests = m * per
	} else {
		s.Workload.GlobalBatch = m * per
	}
}

// fitSplit shrinks PP, then TP, until TP × PP divides the GPUs (when the hardware changes as a
// whole: "use this box").
func fitSplit(s *model.Scenario) {
	l := &s.Layout
	for l.PP > 1 && s.Cluster.GPUs%(l.TP*l.PP) != 0 {
		l.PP--
	}
	for l.TP > 1 && s.Cluster.GPUs%(l.TP*l.PP) != 0 {
		l.TP--
	}
}

func presetField(name, label string, ids func(*assets.Presets) []string, get func(*model.Scenario) string,
	apply func(*model.Scenario, *assets.Presets, string) error) field {
	return field{
		name: name, label: label, show: always, get: get,
		step: func(s *model.Scenario, p *assets.Presets, dir int) {
			list := ids(p)
			cur := get(s)
			i := 0
			for j, id := range list {
				if id == cur {
					i = j
				}
			}
			_ = apply(s, p, list[cycle(i, len(list), dir)])
		},
		set: func(s *model.Scenario, p *assets.Presets, text string) error {
			return apply(s, p, strings.TrimSpace(text))
		},
	}
}

func enumField(name, label string, show func(*model.Scenario) bool, names []string,
	get func(*model.Scenario) int, set func(*model.Scenario, int)) field {
	return field{
		name: name, label: label, show: show,
		get:  func(s *model.Scenario) string { return names[min(max(get(s), 0), len(names)-1)] },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) { set(s, cycle(get(s), len(names), dir)) },
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			for i, n := range names {
				if strings.EqualFold(n, strings.TrimSpace(text)) {
					set(s, i)
					return nil
				}
			}
			return fmt.Errorf("%q: one of %s", text, strings.Join(names, ", "))
		},
	}
}

// autoValue is the panel's word for a knob left to search.
const autoValue = "auto"

// autoEnumField is enumField for a training knob that can also be auto: search chooses its value
// for the split (Layout.Auto's bit), and the row shows the choice, "auto → full". ←/→ cycle
// through the values and auto, after the last.
func autoEnumField(name, label string, show func(*model.Scenario) bool, names []string, bit model.AutoKnobs,
	get func(*model.Scenario) int, set func(*model.Scenario, int)) field {
	f := enumField(name, label, show, names, get, set)
	value := f.get
	isAuto := func(s *model.Scenario) bool { return s.Layout.Auto&bit != 0 }
	f.get = func(s *model.Scenario) string {
		if isAuto(s) {
			return autoValue + " → " + value(s)
		}
		return value(s)
	}
	f.step = func(s *model.Scenario, _ *assets.Presets, dir int) {
		cur := get(s)
		if isAuto(s) {
			cur = len(names)
		}
		next := cycle(cur, len(names)+1, dir)
		if next == len(names) {
			s.Layout.Auto |= bit
			return
		}
		s.Layout.Auto &^= bit
		set(s, next)
	}
	setText := f.set
	f.set = func(s *model.Scenario, p *assets.Presets, text string) error {
		if strings.EqualFold(strings.TrimSpace(text), autoValue) {
			s.Layout.Auto |= bit
			return nil
		}
		if err := setText(s, p, text); err != nil {
			return fmt.Errorf("%q: one of %s, %s", text, strings.Join(names, ", "), autoValue)
		}
		s.Layout.Auto &^= bit
		return nil
	}
	return f
}

// archRow is a read-only row that says part of the model's architecture, shown where it has
// one (value non-empty): ←/→ leave it, typing into it is refused, and its note (derivation)
// is the whole architecture line.
func archRow(name, label string, value func(model.Arch) string) field {
	return field{
		name: name, label: label,
		show: func(s *model.Scenario) bool { return value(s.Arch) != "" },
		get:  func(s *model.Scenario) string { return value(s.Arch) },
		step: func(*model.Scenario, *assets.Presets, int) {},
		set: func(*model.Scenario, *assets.Presets, string) error {
			return fmt.Errorf("the model's own %s: choose another model", label)
		},
	}
}

// archRows names the read-only architecture rows.
var archRows = []string{"experts", "shared-experts", "active", "attention"}

// fields lists the panel's rows, in order.
func fields() []field {
	divisorsOf := func(n func(*model.Scenario) int) func(*model.Scenario) []int {
		return func(s *model.Scenario) []int { return model.Divisors(max(n(s), 1)) }
	}
	return []field{
		presetField("model", "model", (*assets.Presets).ModelIDs,
			func(s *model.Scenario) string { return s.Arch.ID },
			func(s *model.Scenario, p *assets.Presets, id string) error {
				a, err := p.Model(id)
				if err != nil {
					return err
				}
				s.Arch = a
				return nil
			}),
		intField("layers", "layers", always, func(s *model.Scenario) *int { return &s.Arch.Layers }, linear(1, 1), nil),
		intField("hidden", "hidden", always, func(s *model.Scenario) *int { return &s.Arch.Hidden },
			func(s *model.Scenario, v, dir int) int {
				return max(v+dir*max(s.Arch.Heads, 1)*16, max(s.Arch.Heads, 1))
			}, nil),
		intField("heads", "heads", always, func(s *model.Scenario) *int { return &s.Arch.Heads },
			among(divisorsOf(func(s *model.Scenario) int { return s.Arch.Hidden })),
			func(s *model.Scenario) {
				if s.Arch.KVHeads > s.Arch.Heads || s.Arch.Heads%max(s.Arch.KVHeads, 1) != 0 {
					s.Arch.KVHeads = s.Arch.Heads
				}
			}),
		// The model's architecture, read-only (a MoE, MLA or windowed model only): the
		// routed experts, the shared ones, the parameters a token runs and the attention.
		archRow("experts", "experts", func(a model.Arch) string { e, _, _, _ := static.ArchRows(a); return e }),
		archRow("shared-experts", "shared experts", func(a model.Arch) string { _, sh, _, _ := static.ArchRows(a); return sh }),
		archRow("active", "active", func(a model.Arch) string { _, _, ac, _ := static.ArchRows(a); return ac }),
		archRow("attention", "attention", func(a model.Arch) string { _, _, _, at := static.ArchRows(a); return at }),
		intField("seq", "sequence", training, func(s *model.Scenario) *int { return &s.Workload.Seq }, pow2(1<<20), nil),
		presetField("gpu", "GPU", (*assets.Presets).GPUIDs,
			func(s *model.Scenario) string { return s.Cluster.GPU.ID },
			func(s *model.Scenario, p *assets.Presets, id string) error {
				g, err := p.GPU(id)
				if err != nil {
					return err
				}
				s.Cluster.GPU = g
				if l, err := p.Link(g.NativeLink); err == nil {
					s.Cluster.Intra = l
				}
				return nil
			}),
		intField("gpus", "GPUs", always, func(s *model.Scenario) *int { return &s.Cluster.GPUs }, pow2(model.MaxGPUs), nil),
		intField("gpus-per-node", "GPUs/node", always, func(s *model.Scenario) *int { return &s.Cluster.GPUsPerNode },
			pow2(64), func(s *model.Scenario) { s.Cluster.NICsPerNode = min(max(s.Cluster.GPUsPerNode, 1), 64) }),
		presetField("intra", "intra link", (*assets.Presets).LinkIDs,
			func(s *model.Scenario) string { return s.Cluster.Intra.ID },
			func(s *model.Scenario, p *assets.Presets, id string) error {
				l, err := p.Link(id)
				if err == nil {
					s.Cluster.Intra = l
				}
				return err
			}),
		presetField("inter", "inter link", (*assets.Presets).LinkIDs,
			func(s *model.Scenario) string { return s.Cluster.Inter.ID },
			func(s *model.Scenario, p *assets.Presets, id string) error {
				l, err := p.Link(id)
				if err == nil {
					s.Cluster.Inter = l
				}
				return err
			}),
		// TP and PP step through the divisors of the GPUs, whatever the other is: a step that
		// does not fit (TP 8 × PP 2 on 8 GPUs) is explained and the nearest split offered.
		intField("tp", "TP", always, func(s *model.Scenario) *int { return &s.Layout.TP },
			among(divisorsOf(func(s *model.Scenario) int { return s.Cluster.GPUs })), nil),
		intField("pp", "PP", always, func(s *model.Scenario) *int { return &s.Layout.PP },
			among(divisorsOf(func(s *model.Scenario) int { return s.Cluster.GPUs })), nil),
		// CP splits each sequence over a group of GPUs (training): shown from sequences of 8K
		// tokens, where search tries it too, or once set; 1 is stored as 0. A step that leaves the
		// split uneven is explained and the nearest split offered, as for TP and PP.
		{name: "cp", label: "CP (sequence)", show: cpShown,
			get: func(s *model.Scenario) string { return strconv.Itoa(s.Layout.CPSize()) },
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				setCP(s, among(divisorsOf(func(s *model.Scenario) int { return s.Cluster.GPUs }))(s, s.Layout.CPSize(), dir))
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				v, err := strconv.Atoi(strings.TrimSpace(text))
				if err != nil || v < 1 {
					return fmt.Errorf("%q is not a whole number ≥ 1", text)
				}
				setCP(s, v)
				return nil
			}},
		enumField("cp-comm", "CP exchange", func(s *model.Scenario) bool { return s.Layout.CPSize() > 1 },
			[]string{"ring", "all-gather", "ulysses", "hybrid"},
			func(s *model.Scenario) int { return int(s.Layout.CPComm) },
			func(s *model.Scenario, i int) { s.Layout.CPComm = model.CPComm(i) }),
		// DP is derived; a step or a typed value asks for that many replicas, and the edit
		// offers the split that gives them.
		intField("dp", "DP (derived)", always, func(s *model.Scenario) *int { return &s.Layout.DP },
			among(divisorsOf(func(s *model.Scenario) int { return s.Cluster.GPUs })), nil),
		// EP divides the experts among DP replicas (MoE models only); 1 is stored as 0.
		{name: "ep", label: "EP (experts)", show: func(s *model.Scenario) bool { return s.Arch.Experts > 1 },
			get: func(s *model.Scenario) string { return strconv.Itoa(s.Layout.EPSize()) },
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				setEP(s, among(epChoices)(s, s.Layout.EPSize(), dir))
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				v, err := strconv.Atoi(strings.TrimSpace(text))
				if err != nil || v < 1 {
					return fmt.Errorf("%q is not a whole number ≥ 1", text)
				}
				setEP(s, v)
				return nil
			}},
		// ETP splits each expert over fewer GPUs than TP (MoE models at TP > 1); TP is stored as 0.
		{name: "etp", label: "ETP (experts)", show: func(s *model.Scenario) bool { return s.Arch.Experts > 1 && s.Layout.TP > 1 },
			get: func(s *model.Scenario) string { return strconv.Itoa(min(s.Layout.ETPSize(), s.Layout.TP)) },
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				setETP(s, among(etpChoices)(s, min(s.Layout.ETPSize(), s.Layout.TP), dir))
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				v, err := strconv.Atoi(strings.TrimSpace(text))
				if err != nil || v < 1 {
					return fmt.Errorf("%q is not a whole number ≥ 1", text)
				}
				setETP(s, v)
				return nil
			}},
		// How the all-to-alls cross nodes: shown for a MoE model whose EP group leaves the node.
		enumField("ep-dispatch", "EP dispatch", func(s *model.Scenario) bool {
			return s.Arch.Experts > 1 && s.Layout.FoldSize() > 1 && s.Cluster.Nodes() > 1
		}, []string{"direct", "two-hop"},
			func(s *model.Scenario) int { return int(s.Layout.EPDispatch) },
			func(s *model.Scenario, i int) { s.Layout.EPDispatch = model.EPDispatch(i) }),
		intField("micro-batch", "micro-batch b", training, func(s *model.Scenario) *int { return &s.Layout.MicroBatch },
			pow2(1<<12), nil),
		// The global batch (requests in inference) is what the user sets; m = batch / (b × DP)
		// follows, and layout edits keep the batch.
		intField("batch", "global batch", training, func(s *model.Scenario) *int { return &s.Workload.GlobalBatch },
			pow2(model.MaxBatch), nil),
		intField("requests", "requests", serving, func(s *model.Scenario) *int { return &s.Workload.Requests },
			pow2(model.MaxBatch), nil),
		{name: "micro-batches", label: "micro-batches m", show: training,
			get: func(s *model.Scenario) string { return strconv.Itoa(s.MicroBatches()) },
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				setMicroBatches(s, pow2(1<<16)(s, max(s.MicroBatches(), 1), dir))
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				v, err := strconv.Atoi(strings.TrimSpace(text))
				if err != nil || v < 1 {
					return fmt.Errorf("%q is not a whole number ≥ 1", text)
				}
				setMicroBatches(s, v)
				return nil
			}},
		enumField("schedule", "schedule", training, []string{"1f1b", "gpipe", "interleaved", "zb-h1", "zb-v", "dualpipe", "dualpipev"},
			func(s *model.Scenario) int { return int(s.Layout.Schedule) },
			func(s *model.Scenario, i int) {
				s.Layout.Schedule = model.Schedule(i)
				if s.Layout.Schedule == model.Interleaved && s.Layout.Chunks < 2 {
					s.Layout.Chunks = 2
				}
				if s.Layout.Schedule != model.Interleaved {
					s.Layout.Chunks = 1
				}
			}),
		intField("chunks", "chunks v", interleaving, func(s *model.Scenario) *int { return &s.Layout.Chunks }, linear(1, 1), nil),
		enumField("mode", "mode", always, []string{"train", "infer"},
			func(s *model.Scenario) int { return int(s.Workload.Mode) },
			func(s *model.Scenario, i int) {
				s.Workload.Mode = model.Mode(i)
				// Training starts from micro-batches of one sequence; serving has none (the engine
				// batches what is running).
				s.Layout.MicroBatch = 1
			}),
		enumField("precision", "precision", always, []string{"bf16", "fp16", "fp8", "fp32"},
			func(s *model.Scenario) int { return int(s.Workload.Precision) },
			func(s *model.Scenario, i int) { s.Workload.Precision = model.Precision(i) }),
		autoEnumField("recompute", "recompute", training, []string{"none", "selective", "full"}, model.AutoRecompute,
			func(s *model.Scenario) int { return int(s.Layout.Recompute) },
			func(s *model.Scenario, i int) { s.Layout.Recompute = model.Recompute(i) }),
		autoEnumField("sequence-parallel", "seq. parallel", training, []string{"off", "on"}, model.AutoSequenceParallel,
			func(s *model.Scenario) int {
				if s.Layout.SequenceParallel {
					return 1
				}
				return 0
			},
			func(s *model.Scenario, i int) { s.Layout.SequenceParallel = i == 1 }),
		autoEnumField("sp-gather", "SP all-gather", training, []string{"redo", "keep"}, model.AutoSPGather,
			func(s *model.Scenario) int { return int(s.Layout.SPGather) },
			func(s *model.Scenario, i int) { s.Layout.SPGather = model.SPGather(i) }),
		autoEnumField("zero", "ZeRO stage", training, []string{"0", "1", "2", "3"}, model.AutoZeRO,
			func(s *model.Scenario) int { return s.Layout.ZeRO },
			func(s *model.Scenario, i int) { s.Layout.ZeRO = i }),
		autoEnumField("offload", "offload", training, []string{"none", "optimizer", "optim.+weights", "activations", "optim.+act.", "optim.+w.+act."}, model.AutoOffload,
			func(s *model.Scenario) int { return int(s.Layout.Offload) },
			func(s *model.Scenario, i int) { s.Layout.Offload = model.Offload(i) }),
		autoEnumField("dp-sync", "DP sync", training, []string{"overlap", "serial"}, model.AutoSerialDP,
			func(s *model.Scenario) int {
				if s.Layout.SerialDP {
					return 1
				}
				return 0
			},
			func(s *model.Scenario, i int) { s.Layout.SerialDP = i == 1 }),
		rankOrderField(),
		autoEnumField("tp-overlap", "TP overlap", training, []string{"none", "ring", "pipe"}, model.AutoTPOverlap,
			func(s *model.Scenario) int { return int(s.Layout.TPOverlap) },
			func(s *model.Scenario, i int) { s.Layout.TPOverlap = model.TPOverlap(i) }),
		intField("prompt", "prompt tokens", serving, func(s *model.Scenario) *int { return &s.Workload.PromptTokens }, pow2(model.MaxSeq), nil),
		intField("gen", "gen tokens", serving, func(s *model.Scenario) *int { return &s.Workload.GenTokens }, pow2(model.MaxGenTokens), nil),
		{name: "rate", label: "rate (req/s)", show: serving,
			get: func(s *model.Scenario) string {
				if s.Workload.Rate == 0 {
					return "at once"
				}
				return strconv.FormatFloat(s.Workload.Rate, 'g', 4, 64)
			},
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				s.Workload.Rate = stepRate(s.Workload.Rate, dir)
				if s.Workload.Rate > 0 {
					s.Workload.Concurrency = 0
				}
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				t := strings.TrimSpace(text)
				if t == "at once" {
					t = "0"
				}
				v, err := strconv.ParseFloat(t, 64)
				if err != nil || !(v >= 0 && v <= 1e6) {
					return fmt.Errorf("%q is not a rate from 0 (all at once) to 1e6 requests/s", text)
				}
				s.Workload.Rate = v
				if v > 0 {
					s.Workload.Concurrency = 0
				}
				return nil
			}},
		{name: "concurrency", label: "clients", show: serving,
			get: func(s *model.Scenario) string {
				if s.Workload.Concurrency == 0 {
					return "off"
				}
				return strconv.Itoa(s.Workload.Concurrency)
			},
			step: func(s *model.Scenario, _ *assets.Presets, dir int) {
				c := s.Workload.Concurrency
				switch {
				case dir < 0 && c <= 1:
					c = 0
				case c == 0 && dir > 0:
					c = 1
				default:
					c = pow2(model.MaxBatch)(s, c, dir)
				}
				s.Workload.Concurrency = c
				if c > 0 {
					s.Workload.Rate = 0
				}
			},
			set: func(s *model.Scenario, _ *assets.Presets, text string) error {
				t := strings.TrimSpace(text)
				if t == "off" {
					t = "0"
				}
				v, err := strconv.Atoi(t)
				if err != nil || v < 0 || v > model.MaxBatch {
					return fmt.Errorf("%q is not a number of clients from 0 (off) to %d", text, model.MaxBatch)
				}
				s.Workload.Concurrency = v
				if v > 0 {
					s.Workload.Rate = 0
				}
				return nil
			}},
		turnsField(),
		timeField("think", "think time", conversations, "none", []float64{0, 5, 15, 30, 60, 120, 300, 600}, func(s *model.Scenario) *float64 { return &s.Workload.ThinkS }),
		hostTierField(),
		disaggField(),
		prefillTPField(),
		prefillCPField(),
		sloField("slo-ttft", "SLO TTFT p90", []float64{0, 0.1, 0.2, 0.5, 1, 2, 5, 10}, func(s *model.Scenario) *float64 { return &s.Workload.SLOTTFT }),
		sloField("slo-tpot", "SLO TPOT p90", []float64{0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2}, func(s *model.Scenario) *float64 { return &s.Workload.SLOTPOT }),
		withDefault(textEnumField("weights", "weights", serving, []string{"", "fp8", "int8", "int4", "fp4", "mxfp4"},
			func(s *model.Scenario) *string { return &s.Workload.Weights }), checkpointLabel),
		textEnumField("kv-cache", "KV cache", serving, []string{"", "fp8"},
			func(s *model.Scenario) *string { return &s.Workload.KVCache }),
		engineField(serving),
		enumField("collectives", "TP all-reduce", serving, []string{"auto", "nccl", "engine"},
			func(s *model.Scenario) int { return int(s.Layout.Collectives) },
			func(s *model.Scenario, i int) { s.Layout.Collectives = model.Collectives(i) }),
	}
}

// rates are the steps of the rate row, requests/s (0: all at once).
var rates = []float64{0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

// stepRate moves a rate to the neighbouring step.
func stepRate(v float64, dir int) float64 {
	if dir > 0 {
		for _, r := range rates {
			if r > v {
				return r
			}
		}
		return rates[len(rates)-1]
	}
	for i := len(rates) - 1; i >= 0; i-- {
		if rates[i] < v {
			return rates[i]
		}
	}
	return 0
}

// sloField is a latency target row (seconds; 0 shows "off"), stepping through steps and taking a
// typed time ("500ms", "0.5" seconds, "off").
func sloField(name, label string, steps []float64, ptr func(*model.Scenario) *float64) field {
	return timeField(name, label, serving, "off", steps, ptr)
}

// conversations shows the think row: serving conversations of more than one turn.
func conversations(s *model.Scenario) bool { return serving(s) && s.Workload.Turns > 1 }

// turnsField is the serving panel's turns row: 1 (single requests) to model.MaxTurns; back to 1
// clears the think time, which means nothing then.
func turnsField() field {
	set := func(s *model.Scenario, v int) {
		if v <= 1 {
			v, s.Workload.ThinkS = 0, 0
		}
		s.Workload.Turns = v
	}
	return field{name: "turns", label: "turns (chat)", show: func(s *model.Scenario) bool { return serving(s) && !s.Layout.Disagg.On() },
		get: func(s *model.Scenario) string { return strconv.Itoa(max(s.Workload.Turns, 1)) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			set(s, among(func(*model.Scenario) []int { return []int{1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128, model.MaxTurns} })(s, max(s.Workload.Turns, 1), dir))
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			v, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || v < 1 || v > model.MaxTurns {
				return fmt.Errorf("%q is not a number of turns from 1 to %d", text, model.MaxTurns)
			}
			set(s, v)
			return nil
		}}
}

// hostTierField is the serving panel's KV host tier row, GiB per GPU (0 shows "off").
func hostTierField() field {
	steps := []float64{0, 8, 16, 32, 64, 128, 256, 512, 1024}
	return field{name: "kv-host-gib", label: "KV host GiB", show: serving,
		get: func(s *model.Scenario) string {
			if s.Workload.KVHostGiB == 0 {
				return "off"
			}
			return strconv.FormatFloat(s.Workload.KVHostGiB, 'g', 4, 64)
		},
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			s.Workload.KVHostGiB = stepAmong(steps, s.Workload.KVHostGiB, dir)
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			t := strings.TrimSpace(text)
			if t == "off" {
				t = "0"
			}
			v, err := strconv.ParseFloat(t, 64)
			if err != nil || !(v >= 0 && v*model.GiB <= model.MaxHostMemoryBytes) {
				return fmt.Errorf("%q is not GiB of host memory per GPU from 0 (off) to %d", text, model.MaxHostMemoryBytes/model.GiB)
			}
			s.Workload.KVHostGiB = v
			return nil
		}}
}

// stepAmong is the next of the ascending steps above v (dir > 0, the last at most) or below it
// (0 at least).
func stepAmong(steps []float64, v float64, dir int) float64 {
	if dir > 0 {
		for _, x := range steps {
			if x > v {
				return x
			}
		}
		return steps[len(steps)-1]
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i] < v {
			return steps[i]
		}
	}
	return 0
}

// timeField is a row over a time in seconds (0 shows zero), stepping through steps and taking a
// typed time ("500ms", "0.5" seconds, zero's text).
func timeField(name, label string, show func(*model.Scenario) bool, zero string, steps []float64, ptr func(*model.Scenario) *float64) field {
	return field{
		name: name, label: label, show: show,
		get: func(s *model.Scenario) string {
			if *ptr(s) == 0 {
				return zero
			}
			return static.Seconds(*ptr(s))
		},
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			*ptr(s) = stepAmong(steps, *ptr(s), dir)
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			t := strings.TrimSpace(text)
			if t == zero || t == "0" {
				*ptr(s) = 0
				return nil
			}
			d, err := time.ParseDuration(t)
			v := d.Seconds()
			if err != nil {
				v, err = strconv.ParseFloat(t, 64)
			}
			if err != nil || !(v >= 0 && v <= 1e6) {
				return fmt.Errorf("%q is not a time such as 500ms or 2s (%s: none)", text, zero)
			}
			*ptr(s) = v
			return nil
		},
	}
}

// textEnumField is a row over a string setting with a few values; "" shows as "= precision"
// (the workload's --precision), as the command line's default.
func textEnumField(name, label string, show func(*model.Scenario) bool, values []string, ptr func(*model.Scenario) *string) field {
	shown := func(v string) string {
		if v == "" {
			return asPrecision
		}
		return v
	}
	index := func(s *model.Scenario) int {
		for i, v := range values {
			if v == *ptr(s) {
				return i
			}
		}
		return 0
	}
	return field{
		name: name, label: label, show: show,
		get: func(s *model.Scenario) string { return shown(*ptr(s)) },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			*ptr(s) = values[cycle(index(s), len(values), dir)]
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			t := strings.ToLower(strings.TrimSpace(text))
			for _, v := range values {
				if t == v || t == shown(v) {
					*ptr(s) = v
					return nil
				}
			}
			names := make([]string, len(values))
			for i, v := range values {
				names[i] = shown(v)
			}
			return fmt.Errorf("%q is not one of %s", text, strings.Join(names, ", "))
		},
	}
}

// asPrecision is how a text field shows its empty value: the precision's format.
const asPrecision = "= precision"

// withDefault shows a text field's empty value as label(s) says it (what the engine uses then)
// instead of "= precision", where label gives one.
func withDefault(f field, label func(*model.Scenario) string) field {
	get := f.get
	f.get = func(s *model.Scenario) string {
		v := get(s)
		if l := label(s); l != "" && v == asPrecision {
			return l
		}
		return v
	}
	return f
}

// checkpointLabel is the weights row's default for a model whose checkpoint has its own formats:
// "fp8 (checkpoint)", "mxfp4 experts (checkpoint)".
func checkpointLabel(s *model.Scenario) string {
	c := s.Arch.Checkpoint
	switch {
	case c.Weights != "" && c.Experts != "" && c.Experts != c.Weights:
		return c.Weights + ", " + c.Experts + " experts (checkpoint)"
	case c.Weights != "":
		return c.Weights + " (checkpoint)"
	case c.Experts != "":
		return c.Experts + " experts (checkpoint)"
	}
	return ""
}

// visibleFields returns the indices of the fields that apply to the scenario.
func visibleFields(all []field, s *model.Scenario) []int {
	var out []int
	for i, f := range all {
		if f.show(s) {
			out = append(out, i)
		}
	}
	return out
}

// engineField is the serving engine whose defaults the run follows (model.Engines); "" is vllm.
func engineField(show func(*model.Scenario) bool) field {
	// The default first, then the others as model.Engines lists them.
	values := []string{"vllm"}
	for _, id := range model.EngineIDs() {
		if id != "vllm" {
			values = append(values, id)
		}
	}
	index := func(s *model.Scenario) int {
		for i, v := range values {
			if v == s.Workload.Engine {
				return i
			}
		}
		return 0
	}
	return field{
		name: "engine", label: "engine", show: show,
		get: func(s *model.Scenario) string { return values[index(s)] },
		step: func(s *model.Scenario, _ *assets.Presets, dir int) {
			s.Workload.Engine = values[cycle(index(s), len(values), dir)]
			if s.Workload.Engine == "vllm" {
				s.Workload.Engine = ""
			}
		},
		set: func(s *model.Scenario, _ *assets.Presets, text string) error {
			t := strings.ToLower(strings.TrimSpace(text))
			if _, ok := model.Engines[t]; !ok {
				return fmt.Errorf("%q is not an engine: %s", text, strings.Join(values, ", "))
			}
			if t == "vllm" {
				t = ""
			}
			s.Workload.Engine = t
			return nil
		},
	}
}
