package export

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// node is an element of a parsed SVG.
type node struct {
	name   string
	attr   map[string]string
	text   string
	kids   []*node
	parent *node
}

// parseSVG parses data strictly: any XML error fails the test.
func parseSVG(t *testing.T, data []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	root := &node{name: "#document"}
	cur := root
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			n := &node{name: el.Name.Local, attr: map[string]string{}, parent: cur}
			for _, a := range el.Attr {
				n.attr[a.Name.Local] = a.Value
			}
			cur.kids = append(cur.kids, n)
			cur = n
		case xml.EndElement:
			cur = cur.parent
		case xml.CharData:
			cur.text += string(el)
		}
	}
	if cur != root {
		t.Fatal("unclosed elements")
	}
	if len(root.kids) != 1 || root.kids[0].name != "svg" {
		t.Fatalf("root element: want one <svg>, got %d elements", len(root.kids))
	}
	return root.kids[0]
}

func (n *node) hasClass(c string) bool { return slices.Contains(strings.Fields(n.attr["class"]), c) }

// find lists the elements under n (n included) named name with class c ("" for any).
func (n *node) find(name, c string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(x *node) {
		if x.name == name && (c == "" || x.hasClass(c)) {
			out = append(out, x)
		}
		for _, k := range x.kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// allText is the text of every <text> under n, one per line.
func (n *node) allText() string {
	var b strings.Builder
	for _, x := range n.find("text", "") {
		b.WriteString(x.text + "\n")
	}
	return b.String()
}

func (n *node) float(t *testing.T, key string) float64 {
	t.Helper()
	s, ok := n.attr[key]
	if !ok {
		t.Fatalf("<%s class=%q> has no %s", n.name, n.attr["class"], key)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, s, err)
	}
	return v
}

func renderSVG(t *testing.T, s model.Scenario, r costmodel.Report, opt SVGOptions) ([]byte, *node) {
	t.Helper()
	var b bytes.Buffer
	if err := SVG(&b, s, r, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), parseSVG(t, b.Bytes())
}

func TestSVGStructure(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			s, r := evaluate(t, fx.edit)
			tl := r.Timeline
			raw, root := renderSVG(t, s, r, SVGOptions{})
			if bytes.Contains(raw, []byte("NaN")) || bytes.Contains(raw, []byte("Inf")) {
				t.Error("SVG contains a non-finite number")
			}
			if root.attr["width"] != "1600" || !strings.HasPrefix(root.attr["viewBox"], "0 0 1600 ") {
				t.Errorf("svg width %q viewBox %q, want 1600 wide", root.attr["width"], root.attr["viewBox"])
			}
			if h := root.float(t, "height"); h < 500 || h > 1200 {
				t.Errorf("height %v px, want a slide's (500-1200)", h)
			}
			if titles := root.find("title", ""); len(titles) == 0 || titles[0].text != static.Header(s) {
				t.Errorf("first <title> is not the scenario header")
			}

			// One lane per stage, one rect per op (or per box of ops when aggregated: see
			// TestSVGAggregation), each in its stage's lane.
			lanes := root.find("g", "lane")
			if len(lanes) != tl.Stages {
				t.Fatalf("%d lane groups, want %d stages", len(lanes), tl.Stages)
			}
			for i, l := range lanes {
				if l.attr["data-stage"] != strconv.Itoa(i) {
					t.Errorf("lane %d has data-stage %q", i, l.attr["data-stage"])
				}
			}
			ops, boxes := root.find("rect", "op"), root.find("rect", "ops")
			notes := root.find("text", "aggregation-note")
			if fx.agg {
				if len(ops) != 0 || len(boxes) == 0 || len(notes) == 0 {
					t.Fatalf("aggregated: %d op rects, %d boxes, %d note lines; want 0, some, some", len(ops), len(boxes), len(notes))
				}
				ops = boxes
			} else {
				if len(boxes) != 0 || len(notes) != 0 {
					t.Fatalf("not aggregated, yet %d boxes and %d note lines", len(boxes), len(notes))
				}
				if len(ops) != len(tl.Ops) {
					t.Fatalf("%d op rects, want %d ops", len(ops), len(tl.Ops))
				}
				checkOpAttrs(t, ops, tl)
			}
			kinds := map[string]int{}
			for _, op := range ops {
				if op.parent == nil || !op.parent.hasClass("lane") || op.parent.attr["data-stage"] != op.attr["data-stage"] {
					t.Fatalf("op rect of stage %s is not in its lane", op.attr["data-stage"])
				}
				k := op.attr["data-kind"]
				if !op.hasClass(k) {
					t.Errorf("op class %q lacks its kind %q", op.attr["class"], k)
				}
				n := 1
				if fx.agg {
					n = int(op.float(t, "data-ops"))
				}
				kinds[k] += n
			}
			want := map[string]int{}
			for _, op := range tl.Ops {
				switch {
				case tl.Mode == model.Infer && op.Token == 0:
					want["prefill"]++
				case tl.Mode == model.Infer:
					want["decode"]++
				default:
					want[op.Kind.String()]++
				}
			}
			for k, n := range want {
				if kinds[k] != n {
					t.Errorf("%d ops of kind %s drawn, want %d", kinds[k], k, n)
				}
			}

			// The time axis: 1-2-5 ticks from 0 to at most the makespan, in one unit.
			axes := root.find("g", "axis")
			if len(axes) != 1 {
				t.Fatalf("%d time axes, want 1", len(axes))
			}
			ax := axes[0]
			x0, x1, span := ax.float(t, "data-x0"), ax.float(t, "data-x1"), ax.float(t, "data-t1")
			if math.Abs(span-tl.Makespan) > 1e-6*tl.Makespan {
				t.Errorf("axis ends at %v s, makespan %v s", span, tl.Makespan)
			}
			if !(x1-x0 > 800) {
				t.Errorf("chart x range %v..%v too narrow", x0, x1)
			}
			ticks := ax.find("g", "tick")
			if len(ticks) < 3 || len(ticks) > 20 {
				t.Fatalf("%d ticks", len(ticks))
			}
			var tv []float64
			unit := ""
			for i, tk := range ticks {
				tv = append(tv, tk.float(t, "data-t"))
				lab := tk.find("text", "")[0].text
				if i == 0 {
					if lab != "0" {
						t.Errorf("first tick label %q, want 0", lab)
					}
					continue
				}
				f := strings.Fields(lab)
				if len(f) != 2 || !slices.Contains([]string{"ns", "µs", "ms", "s"}, f[1]) {
					t.Errorf("tick label %q: want a number and a unit", lab)
					continue
				}
				if unit == "" {
					unit = f[1]
				} else if f[1] != unit {
					t.Errorf("tick labels mix units %s and %s", unit, f[1])
				}
			}
			step := tv[1] - tv[0]
			if tv[0] != 0 {
				t.Errorf("first tick at %v", tv[0])
			}
			mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
			if !slices.ContainsFunc([]float64{1, 2, 5}, func(m float64) bool { return math.Abs(m-mant) < 1e-6 }) {
				t.Errorf("tick step %v is not 1, 2 or 5 × 10^k", step)
			}
			last := tv[len(tv)-1]
			if last > tl.Makespan*(1+1e-9) {
				t.Errorf("last tick %v past the makespan %v", last, tl.Makespan)
			}
			if last+step <= tl.Makespan*(1-1e-9) {
				t.Errorf("ticks stop at %v, a step short of the makespan %v", last, tl.Makespan)
			}

			// Every op lies where the axis puts its start and end, within 1 px.
			xOf := func(s float64) float64 { return x0 + s/tl.Makespan*(x1-x0) }
			var lastOp *node
			lastEnd := -1.0
			sumSVG, sumTL := 0.0, 0.0
			for _, op := range ops {
				st, en := op.float(t, "data-start"), op.float(t, "data-end")
				x, w := op.float(t, "x"), op.float(t, "width")
				if math.Abs(x-xOf(st)) > 1 || math.Abs(x+w-xOf(en)) > 1 {
					t.Fatalf("op %s..%s s drawn at x %v..%v, axis says %v..%v", op.attr["data-start"], op.attr["data-end"], x, x+w, xOf(st), xOf(en))
				}
				if en > lastEnd {
					lastEnd, lastOp = en, op
				}
				if fx.agg {
					sumSVG += op.float(t, "data-busy")
				} else {
					sumSVG += en - st
				}
			}
			for _, op := range tl.Ops {
				sumTL += op.End - op.Start
			}
			if math.Abs(sumSVG-sumTL) > 1e-5*sumTL {
				t.Errorf("ops drawn cover %v s, the timeline's %v s", sumSVG, sumTL)
			}
			if math.Abs(lastEnd-tl.Makespan) <= 1e-6*tl.Makespan {
				if end := lastOp.float(t, "x") + lastOp.float(t, "width"); math.Abs(end-x1) > 1 {
					t.Errorf("the last op ends at x %v, the axis at %v", end, x1)
				}
			}

			// Labels inside ops only while they are few.
			labels := root.find("text", "op-label")
			if len(tl.Ops) > labelMaxOp && len(labels) > 0 {
				t.Errorf("%d op labels on a timeline of %d ops", len(labels), len(tl.Ops))
			}
			if len(tl.Ops) <= 100 && len(labels) == 0 {
				t.Errorf("no micro-batch numbers on a timeline of %d ops", len(tl.Ops))
			}

			// Legend.
			leg := root.find("g", "legend")
			if len(leg) != 1 {
				t.Fatalf("%d legends, want 1", len(leg))
			}
			txt := leg[0].allText()
			for _, w := range []string{"idle (bubble)", "compute"} {
				if !strings.Contains(txt, w) {
					t.Errorf("legend lacks %q:\n%s", w, txt)
				}
			}
			if tl.Mode == model.Infer {
				if !strings.Contains(txt, "prefill") || !strings.Contains(txt, "decode") {
					t.Errorf("inference legend lacks prefill/decode:\n%s", txt)
				}
			} else if !strings.Contains(txt, "F  forward") || !strings.Contains(txt, "B  backward") {
				t.Errorf("training legend lacks F/B:\n%s", txt)
			}
			if hasW := slices.ContainsFunc(tl.Ops, func(o schedule.Op) bool { return o.Kind == schedule.W }); hasW != strings.Contains(txt, "W  weight") {
				t.Errorf("W ops %v, W in legend %v", hasW, !hasW)
			}
			if (s.Layout.TP > 1) != strings.Contains(txt, "TP all-reduce") {
				t.Errorf("TP=%d but legend TP all-reduce %v", s.Layout.TP, !(s.Layout.TP > 1))
			}

			// Caption: the simulated bubble and its closed form.
			capt := ""
			for _, c := range root.find("text", "caption") {
				capt += c.text + " "
			}
			closed, applies := r.ClosedFormBubble()
			if !strings.Contains(capt, static.Percent(r.BubbleFraction)) || (applies && !strings.Contains(capt, static.Percent(closed))) {
				t.Errorf("caption lacks the bubble %s and closed form %s: %q", static.Percent(r.BubbleFraction),
					static.Percent(closed), capt)
			}
			// Serving with as many requests as stages has no closed form: none is printed.
			if !applies && (strings.Contains(capt, "fill") || strings.Contains(capt, "closed")) {
				t.Errorf("caption sets a closed form that does not apply against the bubble: %q", capt)
			}
		})
	}
}

// checkOpAttrs fails unless the op rects carry exactly the timeline's ops, one each, with the
// data attributes scripts read: data-stage, data-micro, data-kind, data-start, data-end (and
// data-chunk, data-token where they apply).
func checkOpAttrs(t *testing.T, rects []*node, tl *costmodel.Timeline) {
	t.Helper()
	var got, want []string
	for _, n := range rects {
		got = append(got, strings.Join([]string{n.attr["data-stage"], n.attr["data-micro"], n.attr["data-kind"],
			n.attr["data-start"], n.attr["data-end"], n.attr["data-chunk"], n.attr["data-token"]}, "/"))
	}
	for _, op := range tl.Ops {
		infer := tl.Mode == model.Infer
		chunk, token := "", ""
		if tl.Chunks > 1 {
			chunk = strconv.Itoa(op.Chunk)
		}
		if infer {
			token = strconv.Itoa(op.Token)
		}
		want = append(want, strings.Join([]string{strconv.Itoa(op.Stage), strconv.Itoa(op.Micro), opKind(op, infer),
			sec(op.Start), sec(op.End), chunk, token}, "/"))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("op rects' data attributes differ from the timeline's ops")
	}
}

func TestSVGLaneLabels(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			s, r := evaluate(t, fx.edit)
			_, root := renderSVG(t, s, r, SVGOptions{})
			labels := root.find("text", "lane-label")
			if len(labels) == 0 {
				t.Fatal("no lane labels")
			}
			first := labels[0].text
			gpus := static.Ints(r.Timeline.StageGPUs[0])
			if !strings.HasPrefix(first, "S0 · GPU") || !strings.HasSuffix(first, " "+gpus) {
				t.Errorf("first lane label %q, want S0 · GPUs %s", first, gpus)
			}
			if r.Timeline.Stages <= 8 && len(labels) != r.Timeline.Stages {
				t.Errorf("%d lane labels for %d stages", len(labels), r.Timeline.Stages)
			}
			// Labels do not overlap: baselines at least a font size apart.
			for i := 1; i < len(labels); i++ {
				dy := labels[i].float(t, "y") - labels[i-1].float(t, "y")
				if dy < labels[i].float(t, "font-size") {
					t.Fatalf("lane labels %q and %q %v px apart", labels[i-1].text, labels[i].text, dy)
				}
			}
		})
	}
}

func TestSVGTensor(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	_, root := renderSVG(t, s, r, SVGOptions{})
	sec := root.find("g", "tensor")
	if len(sec) != 1 {
		t.Fatalf("%d tensor sections", len(sec))
	}
	segs := sec[0].find("rect", "segment")
	if want := len(r.Detail.Layer.Forward) + len(r.Detail.Layer.Backward); len(segs) != want {
		t.Errorf("%d segments drawn, want %d", len(segs), want)
	}
	comm := sec[0].find("rect", "tp-comm")
	if want := countComm(r.Detail.Layer.Forward) + countComm(r.Detail.Layer.Backward); len(comm) != want || want == 0 {
		t.Errorf("%d TP comm segments drawn, want %d (> 0)", len(comm), want)
	}
	// To scale: widths proportional to durations, one scale for both bars.
	var scale float64
	for _, sg := range segs {
		d := sg.float(t, "data-end") - sg.float(t, "data-start")
		k := sg.float(t, "width") / d
		if scale == 0 {
			scale = k
		} else if math.Abs(k-scale) > 0.01*scale+0.02/d {
			t.Errorf("segment of %v s drawn %v px wide: scale %v, others %v", d, sg.float(t, "width"), k, scale)
		}
	}
	txt := sec[0].allText()
	d := r.Detail
	// The TP all-reduce: its algorithm (a ring of 2 on NVLink 4: NVLS needs 5 GPUs) and the
	// algorithm's formula with the collective model's numbers, ending in the modelled time.
	e, ok := static.ExplainUse(d.TPCollective)
	if !ok {
		t.Fatalf("no formula for %+v", d.TPCollective)
	}
	f := static.Formula(e)
	for _, w := range []string{
		"It runs as ring/Simple on 2 GPUs over nvlink4", "ring/Simple: T = 2(t−1)·h + 2(t−1)/t·S/(B·r)",
		"= 2·1.18 µs + " + decBytes(d.TPAllReduceBytes) + " / (360 GB/s × ", "= " + f.Numbers + " = " + static.Seconds(d.TPAllReduceS),
		"= " + decBytes(d.TPAllReduceBytes) + " in " + static.Seconds(d.TPAllReduceS), static.Percent(d.Layer.CommShare),
		"b·s·h·e = 1·4096·4096·2 B", "forward", "backward", "attention", "all-reduce",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("tensor section lacks %q:\n%s", w, txt)
		}
	}
	if strings.Contains(txt, "≈") || strings.Contains(txt, "simplified") {
		t.Errorf("the formula is the model's, yet flagged:\n%s", txt)
	}
	// A report whose time the formula does not give says so.
	r2 := r
	r2.Detail.TPCollective.Seconds *= 2
	_, root2 := renderSVG(t, s, r2, SVGOptions{})
	if txt := root2.find("g", "tensor")[0].allText(); !strings.Contains(txt, "(simplified: the model's "+static.Seconds(2*d.TPCollective.Seconds)+")") {
		t.Errorf("a formula that is not the model's is not flagged:\n%s", txt)
	}

	// TP = 1: no formula, the reason said.
	s, r = evaluate(t, fixtures[1].edit)
	_, root = renderSVG(t, s, r, SVGOptions{})
	txt = root.find("g", "tensor")[0].allText()
	if !strings.Contains(txt, "TP = 1") || strings.Contains(txt, "α =") {
		t.Errorf("TP = 1 tensor section:\n%s", txt)
	}
	if len(root.find("rect", "tp-comm")) != 0 {
		t.Error("TP comm segments drawn with TP = 1")
	}
}

func TestSVGInferenceTensor(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) { s.Workload.Mode = model.Infer })
	_, root := renderSVG(t, s, r, SVGOptions{})
	txt := root.find("g", "tensor")[0].allText()
	for _, w := range []string{"decode step", "b·h·e", "per token"} {
		if !strings.Contains(txt, w) {
			t.Errorf("inference tensor section lacks %q:\n%s", w, txt)
		}
	}
	if strings.Contains(txt, "backward") {
		t.Errorf("inference tensor section shows a backward bar:\n%s", txt)
	}
}

func TestSVGEscapesText(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) { s.Arch.ID = `evil<&>"model'` })
	raw, root := renderSVG(t, s, r, SVGOptions{Texts: map[string]string{"pipe.heading": "Pipeline <b>&amp;</b>"}})
	if bytes.Contains(raw, []byte("evil<&>")) {
		t.Error("model ID written unescaped")
	}
	txt := root.allText()
	if !strings.Contains(txt, `evil<&>"model'`) {
		t.Errorf("escaped model ID does not read back:\n%s", txt)
	}
	if !strings.Contains(txt, "Pipeline <b>&amp;</b>") {
		t.Errorf("an overridden text does not read back as typed:\n%s", txt)
	}
	if root.find("title", "")[0].text != static.Header(s) {
		t.Error("title does not read back")
	}
}

func TestSVGFrench(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	_, root := renderSVG(t, s, r, SVGOptions{Lang: "fr"})
	txt := root.allText()
	for _, w := range []string{"Chronologie du pipeline", "Parallélisme de tenseurs", "Il s'exécute en ring/Simple sur 2 GPU par nvlink4", "passe avant", "inactif (bulle)", "S0 · GPU 0, 1"} {
		if !strings.Contains(txt, w) {
			t.Errorf("French SVG lacks %q:\n%s", w, txt)
		}
	}
	if strings.Contains(txt, "Pipeline timeline") {
		t.Error("French SVG has English headings")
	}
	// Overrides apply on top of the language.
	_, root = renderSVG(t, s, r, SVGOptions{Lang: "fr", Texts: map[string]string{"pipe.heading": "Mon pipeline"}})
	if !strings.Contains(root.allText(), "Mon pipeline") {
		t.Error("Texts override ignored")
	}
}

func TestSVGNoTimeline(t *testing.T) {
	s, r := evaluate(t, func(*model.Scenario) {})
	r.Timeline = nil
	_, root := renderSVG(t, s, r, SVGOptions{})
	if len(root.find("rect", "op")) != 0 || !strings.Contains(root.allText(), "No timeline") {
		t.Error("a report without timeline should say so")
	}
	if len(root.find("g", "legend")) != 1 {
		t.Error("no legend")
	}
}

func TestTimeTicks(t *testing.T) {
	for _, tc := range []struct {
		span  float64
		want  []string
		width float64
	}{
		{2.69, []string{"0", "0.5 s", "1.0 s", "1.5 s", "2.0 s", "2.5 s"}, 1360},
		{0.94, []string{"0", "100 ms", "200 ms", "300 ms", "400 ms", "500 ms", "600 ms", "700 ms", "800 ms", "900 ms"}, 1360},
		{4.25e-3, []string{"0", "0.5 ms", "1.0 ms", "1.5 ms", "2.0 ms", "2.5 ms", "3.0 ms", "3.5 ms", "4.0 ms"}, 1240},
		{161e-6, []string{"0", "20 µs", "40 µs", "60 µs", "80 µs", "100 µs", "120 µs", "140 µs", "160 µs"}, 1240},
		{10, []string{"0", "5 s", "10 s"}, 300},
	} {
		var got []string
		for _, tk := range timeTicks(tc.span, tc.width) {
			got = append(got, tk.label)
			if tk.t > tc.span {
				t.Errorf("span %v: tick at %v", tc.span, tk.t)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("span %v: ticks %q, want %q", tc.span, got, tc.want)
		}
	}
}

var placeholder = regexp.MustCompile(`\{[a-z0-9]+\}`)

func TestTexts(t *testing.T) {
	for k, fr := range french {
		en, ok := english[k]
		if !ok {
			t.Errorf("French key %q has no English text", k)
			continue
		}
		pe, pf := placeholder.FindAllString(en, -1), placeholder.FindAllString(fr, -1)
		slices.Sort(pe)
		slices.Sort(pf)
		if !slices.Equal(slices.Compact(pe), slices.Compact(pf)) {
			t.Errorf("%s: English placeholders %v, French %v", k, pe, pf)
		}
	}
	for k := range english {
		if _, ok := french[k]; !ok {
			t.Errorf("key %q has no French text", k)
		}
	}
	for _, lang := range []string{"fr", "FR", "fr_FR.UTF-8", "fr-CA"} {
		if Texts(lang)["pipe.heading"] != french["pipe.heading"] {
			t.Errorf("Texts(%q) is not French", lang)
		}
	}
	for _, lang := range []string{"", "en", "de", "C", "free"} {
		if Texts(lang)["pipe.heading"] != english["pipe.heading"] {
			t.Errorf("Texts(%q) is not English", lang)
		}
	}
	m := Texts("en")
	m["pipe.heading"] = "changed"
	if english["pipe.heading"] == "changed" {
		t.Error("Texts returned the package's map")
	}
	if got := newTexts("en", nil).get("md.over", "over", "1 GiB"); got != "over by 1 GiB" {
		t.Errorf("placeholder fill: %q", got)
	}
}

// TestSVG2025Legend: the 2025 schedules' SVGs say what the darker ops are (the V's way back,
// DualPipe's other direction) and draw W.
func TestSVG2025Legend(t *testing.T) {
	for _, c := range []struct {
		s    model.Schedule
		want string
	}{{model.ZBV, "way back"}, {model.DualPipe, "the other direction"}, {model.DualPipeV, "way back"}} {
		s, r := evaluate(t, func(s *model.Scenario) { s.Layout.Schedule = c.s })
		raw, _ := renderSVG(t, s, r, SVGOptions{})
		if !bytes.Contains(raw, []byte(c.want)) || !bytes.Contains(raw, []byte("weight")) {
			t.Errorf("%v: SVG legend lacks %q or W", c.s, c.want)
		}
	}
}
