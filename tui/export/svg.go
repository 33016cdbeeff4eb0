// Package export writes a scenario's results as files to take away: the Pipeline timeline and
// the Tensor breakdown as one self-contained SVG for slides, and the report with the TP-vs-PP
// comparison table as Markdown. Every renderer is a pure function of its arguments that writes
// to an io.Writer; English and French texts live in one map (Texts).
package export

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/schedule"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/overlay"
	"github.com/splitscope/splitscope/tui/static"
)

// SVGOptions tunes SVG. The zero value writes English.
type SVGOptions struct {
	// Lang picks the texts: "fr" for French, anything else English.
	Lang string
	// Texts overrides texts by key (see Texts for the keys).
	Texts map[string]string
	// Title is the scenario file's title, written above the scenario; "" for none.
	Title string
	// Overlay is a measured trace drawn under the timeline beside the model's (nil: none).
	Overlay *overlay.Overlay
}

// Geometry of the picture, in px: a 1600 px wide slide; the height follows the content (about
// 900 px for a few stages, 1,200 for 64).
const (
	svgWidth     = 1600
	margin       = 40
	labelGap     = 14  // between the lane labels and the chart
	totalRoom    = 120 // right of the tensor bars, for their totals
	maxLaneH     = 44
	minLaneH     = 4
	lanesArea    = 300 // px the lanes take up to 37 stages
	maxLanesArea = 512 // px they take at most: 8 px a lane from 37 to 64 stages
	maxLanes     = 128 // lanes drawn at most: past it, one stage in k
	barH         = 46
	barGap       = 12
	labelMaxOp   = 2000 // timelines with more ops get no text inside their boxes
)

// Colours, the terminal theme's.
const (
	colF       = "#64B5F6"
	colB       = "#81C784"
	colW       = "#FFD54F"
	colFOdd    = "#1E88E5"
	colBOdd    = "#43A047"
	colWOdd    = "#FFB300"
	colPrefill = "#64B5F6"
	colDecode  = "#4DB6AC"
	colIdle    = "#EEEEEE"
	colCompute = "#64B5F6"
	colComm    = "#EF5350"
	colMemory  = "#B39DDB"
	colText    = "#212121"
	colSub     = "#555555"
	colAxis    = "#757575"
	colGrid    = "#D6D6D6"
)

// SVG writes the Pipeline timeline and the Tensor breakdown of r as one SVG picture: a title
// with the scenario, one lane per pipeline stage with one rect per op (or, for long timelines,
// per run of ops: see aggregate) and a time axis, one layer on one GPU to scale with the
// all-reduce formula filled in, and a legend. Every text line fits in the 1600 px width.
func SVG(w io.Writer, s model.Scenario, r costmodel.Report, opt SVGOptions) error {
	c := &svgCanvas{t: newTexts(opt.Lang, opt.Texts)}
	c.labelW = c.labelWidth(r)
	c.x0 = margin + c.labelW + labelGap
	c.x1 = svgWidth - margin
	y := c.title(s, r, opt.Title)
	y = c.pipeline(s, r, y+28)
	if opt.Overlay != nil {
		y = c.overlay(opt.Overlay, y+36)
	}
	y = c.tensor(s, r, y+44)
	y = c.legend(s, r, y+36)
	h := int(math.Ceil(y)) + margin

	var head bytes.Buffer
	fmt.Fprintf(&head, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&head, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" fill="%s">`+"\n",
		svgWidth, h, svgWidth, h, fontFamily, colText)
	fmt.Fprintf(&head, "<title>%s</title>\n", esc(c.t.num(static.Header(s))))
	fmt.Fprintf(&head, `<rect class="background" x="0" y="0" width="%d" height="%d" fill="#FFFFFF"/>`+"\n", svgWidth, h)
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	c.b.WriteString("</svg>\n")
	_, err := w.Write(c.b.Bytes())
	return err
}

// svgCanvas accumulates the body of the picture.
type svgCanvas struct {
	b      bytes.Buffer
	t      texts
	x0, x1 float64 // the chart's x range: time 0 and the makespan (the bars' scale starts at x0)
	labelW float64 // the width of the label column, left of x0
	agg    bool    // the timeline is drawn as boxes of ops (aggregate), not one rect per op
}

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// num formats a coordinate: two decimals at most, no trailing zeros.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// sec formats a time for a data attribute: seconds, 7 significant digits.
func sec(x float64) string { return strconv.FormatFloat(x, 'g', 7, 64) }

type textOpt struct {
	size   float64
	weight string // "bold" or ""
	fill   string // "" for the default
	anchor string // "start", "middle", "end"
	class  string
	max    float64 // when > 0, the text is cut to this width with "…"
}

// text writes one line of text with its baseline at y.
func (c *svgCanvas) text(x, y float64, o textOpt, s string) {
	s = c.t.num(s) // every number drawn in the language's format (the captions are already)
	if o.max > 0 {
		s = ellipsize(s, o.size, o.weight == "bold", o.max)
	}
	b := &c.b
	b.WriteString(`<text`)
	if o.class != "" {
		fmt.Fprintf(b, ` class="%s"`, o.class)
	}
	fmt.Fprintf(b, ` x="%s" y="%s" font-size="%s"`, num(x), num(y), num(o.size))
	if o.weight != "" {
		fmt.Fprintf(b, ` font-weight="%s"`, o.weight)
	}
	if o.fill != "" {
		fmt.Fprintf(b, ` fill="%s"`, o.fill)
	}
	if o.anchor != "" && o.anchor != "start" {
		fmt.Fprintf(b, ` text-anchor="%s"`, o.anchor)
	}
	fmt.Fprintf(b, ">%s</text>\n", esc(s))
}

func (c *svgCanvas) rect(class string, x, y, w, h float64, fill, extra string) {
	fmt.Fprintf(&c.b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"%s/>`+"\n",
		class, num(x), num(y), num(w), num(h), fill, extra)
}

func (c *svgCanvas) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"/>`+"\n",
		num(x1), num(y1), num(x2), num(y2), stroke, num(width))
}

// ---- title ----

// title writes the scenario file's title (when there is one), the scenario and the layout with
// the step time, and returns the last baseline. Each fits the width: the scenario line gives up
// the model's details, then the model ID's end, before it wraps; layout and batch stay whole.
func (c *svgCanvas) title(s model.Scenario, r costmodel.Report, title string) float64 {
	width := float64(svgWidth - 2*margin)
	y := 52.0
	head := textOpt{size: 26, weight: "bold", class: "title"}
	if title != "" {
		o := textOpt{size: fitSize(title, 28, 20, width, true), weight: "bold", class: "title"}
		lines := wrap(title, o.size, true, width)
		if len(lines) > 2 {
			lines = []string{lines[0], ellipsize(lines[1]+" "+ellipsis, o.size, true, width)}
		}
		y = c.lines(margin, y, o, lines) + 32
		head = textOpt{size: 20, class: "scenario"}
	}
	lines := scenarioLines(s, &head, width)
	y = c.lines(margin, y, head, lines)
	key := "svg.step"
	if isInfer(s, r) {
		key = "svg.serve"
	}
	l2 := static.LayoutLine(s) + " · " + c.t.get(key, "t", static.Seconds(r.StepTime))
	return c.para(margin, y+30, width, textOpt{size: 18, fill: colSub, class: "subtitle"}, 14, l2)
}

// scenarioLines is static.ScenarioLine(s) fitted to width, o.size shrunk as needed but not
// below 16 px: whole; else without the model's details ("(80 layers, 70.6B params)"); else
// with the model ID cut short; else wrapped.
func scenarioLines(s model.Scenario, o *textOpt, width float64) []string {
	bold := o.weight == "bold"
	minSize := math.Min(16, o.size)
	full := static.ScenarioLine(s)
	id := static.ModelTitle(s.Arch, false) // the ID, and what was modified: never dropped
	short, rest := full, ""
	if i := strings.Index(full, " · "); i >= 0 {
		rest = full[i:]
		short = id + rest
	}
	for _, v := range []string{full, short} {
		if textWidth(v, minSize, bold) <= width {
			o.size = fitSize(v, o.size, minSize, width, bold)
			return []string{v}
		}
	}
	o.size = minSize
	if room := width - textWidth(rest, minSize, bold); rest != "" && room >= textWidth("mmmmmmmm"+ellipsis, minSize, bold) {
		return []string{ellipsize(id, minSize, bold, room) + rest}
	}
	return wrap(short, minSize, bold, width)
}

func isInfer(s model.Scenario, r costmodel.Report) bool {
	return s.Workload.Mode == model.Infer || r.Inference != nil
}

// ---- lanes ----

// laneGeom is the lanes' vertical layout.
type laneGeom struct {
	n           int
	top         float64
	h, pitch    float64
	labelSize   float64
	labelEvery  int
	opLabelSize float64 // 0: no labels inside ops
}

// lanes lays n lanes out from top: 300 px for a few stages, up to 8 px a lane past 37 of them
// (512 px for 64), never under minLaneH px.
func lanes(n int, top float64) laneGeom {
	g := laneGeom{n: max(n, 1), top: top}
	area := math.Min(math.Max(lanesArea, 8*float64(g.n)), maxLanesArea)
	g.pitch = math.Min(area/float64(g.n), maxLaneH*1.2)
	gap := math.Min(math.Max(g.pitch*0.18, 1), 8)
	g.h = math.Max(g.pitch-gap, minLaneH)
	g.pitch = g.h + gap
	g.labelSize = math.Min(math.Max(g.h*0.55, 11), 16)
	g.labelEvery = 1
	for _, k := range []int{1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 200, 256, 500, 1000} {
		g.labelEvery = k
		if float64(k)*g.pitch >= g.labelSize*1.15 {
			break
		}
	}
	if g.h >= 16 {
		g.opLabelSize = math.Min(g.h*0.5, 15)
	}
	return g
}

func (g laneGeom) y(i int) float64 { return g.top + float64(i)*g.pitch }
func (g laneGeom) bottom() float64 { return g.top + float64(g.n)*g.pitch - (g.pitch - g.h) }

// shownStages lists the stages that get a lane: all n of them, or one in k (S0, Sk, S2k…) when
// there are more than maxLanes; k is 1 when none is left out.
func shownStages(n int) (stages []int, k int) {
	k = (n + maxLanes - 1) / maxLanes
	k = max(k, 1)
	for i := 0; i < n; i += k {
		stages = append(stages, i)
	}
	return stages, k
}

// stageGPUs lists each stage's GPUs, from the timeline or else from the stage details.
func stageGPUs(r costmodel.Report, i int) []int {
	if tl := r.Timeline; tl != nil && i < len(tl.StageGPUs) {
		return tl.StageGPUs[i]
	}
	if i < len(r.Detail.Stages) {
		return r.Detail.Stages[i].GPUs
	}
	return nil
}

func numStages(r costmodel.Report) int {
	n := len(r.Detail.Stages)
	if tl := r.Timeline; tl != nil {
		n = max(n, tl.Stages)
		for _, op := range tl.Ops {
			n = max(n, op.Stage+1)
		}
	}
	return max(n, 1)
}

func (c *svgCanvas) laneLabel(i int, r costmodel.Report) string {
	gpus := stageGPUs(r, i)
	key := "pipe.lane"
	if len(gpus) == 1 {
		key = "pipe.lane1"
	}
	return c.t.get(key, "stage", strconv.Itoa(i), "gpus", static.Ints(gpus))
}

// labelWidth is the width of the label column: the widest lane or bar label, at most 360 px
// (longer labels are cut with "…").
func (c *svgCanvas) labelWidth(r costmodel.Report) float64 {
	shown, _ := shownStages(numStages(r))
	g := lanes(len(shown), 0)
	w := 0.0
	for i := 0; i < len(shown); i += g.labelEvery {
		w = math.Max(w, textWidth(c.laneLabel(shown[i], r), g.labelSize, false))
	}
	for _, k := range []string{"tensor.fwd", "tensor.bwd", "tensor.step", "axis.time"} {
		w = math.Max(w, textWidth(c.t.get(k), 16, false))
	}
	return math.Min(math.Max(w, 80), 360)
}

// ---- pipeline ----

func (c *svgCanvas) pipeline(s model.Scenario, r costmodel.Report, y float64) float64 {
	infer := isInfer(s, r)
	width := float64(svgWidth - 2*margin)
	fmt.Fprintf(&c.b, "<g class=\"section pipeline\">\n")
	defer c.b.WriteString("</g>\n")
	head := c.t.get("pipe.heading")
	c.text(margin, y+20, textOpt{size: 22, weight: "bold", class: "heading", max: width}, head)

	tl := r.Timeline
	hasTimeline := tl != nil && tl.Makespan > 0 && !math.IsInf(tl.Makespan, 0)
	n := numStages(r)
	shown, fold := shownStages(n)
	span := 1.0
	if hasTimeline {
		span = tl.Makespan
	}
	pxPerSec := (c.x1 - c.x0) / span
	// The ops of each lane, by start.
	laneOps := make([][]schedule.Op, len(shown))
	laneOf := make(map[int]int, len(shown))
	for li, st := range shown {
		laneOf[st] = li
	}
	if hasTimeline {
		for _, op := range tl.Ops {
			if li, ok := laneOf[op.Stage]; ok {
				laneOps[li] = append(laneOps[li], op)
			}
		}
		for _, ops := range laneOps {
			sort.SliceStable(ops, func(a, b int) bool { return ops[a].Start < ops[b].Start })
		}
	}
	agg := hasTimeline && aggregated(laneOps, pxPerSec)
	c.agg = agg

	subKey := "pipe.sub.train"
	if infer {
		subKey = "pipe.sub.infer"
	}
	if agg {
		subKey += ".agg"
	}
	y = c.para(margin, y+46, width, textOpt{size: 15, fill: colSub}, 12, c.t.get(subKey)) + 16

	if !hasTimeline {
		c.text(margin, y+24, textOpt{size: 16, fill: colSub, max: width}, c.t.get("pipe.none"))
		return y + 40
	}
	g := lanes(len(shown), y)
	xOf := func(t float64) float64 { return c.x0 + t/span*(c.x1-c.x0) }

	// Lane backgrounds: what no op covers reads as idle.
	c.b.WriteString("<g class=\"lane-backgrounds\">\n")
	for i := range shown {
		c.rect("idle", c.x0, g.y(i), c.x1-c.x0, g.h, colIdle, "")
	}
	c.b.WriteString("</g>\n")

	ticks := timeTicks(span, c.x1-c.x0)
	c.b.WriteString("<g class=\"grid\">\n")
	for _, tk := range ticks[1:] {
		x := xOf(tk.t)
		c.line(x, g.top, x, g.bottom(), colGrid, 1)
	}
	c.b.WriteString("</g>\n")

	var boxes [][]aggBox
	var grain, gap float64
	if agg {
		boxes, grain, gap = aggregate(laneOps, infer, pxPerSec)
	}
	labels := !agg && len(tl.Ops) <= labelMaxOp && g.opLabelSize > 0
	if labels {
		g.opLabelSize = opLabelSize(tl, g.opLabelSize, pxPerSec, infer)
	}
	for li, st := range shown {
		ly := g.y(li)
		if agg {
			// Boxes back to back touch at fractions of a pixel: crisp edges, or their anti-aliased
			// edges would draw a pale seam that reads as idle time.
			fmt.Fprintf(&c.b, "<g class=\"lane\" data-stage=\"%d\" shape-rendering=\"crispEdges\">\n", st)
		} else {
			fmt.Fprintf(&c.b, "<g class=\"lane\" data-stage=\"%d\">\n", st)
		}
		if li%g.labelEvery == 0 {
			c.text(c.x0-labelGap, ly+g.h/2+g.labelSize*0.35, textOpt{size: g.labelSize, anchor: "end", class: "lane-label", max: c.labelW},
				c.laneLabel(st, r))
		}
		if agg {
			for _, b := range boxes[li] {
				c.box(st, b, xOf, ly, g.h)
			}
		} else {
			for _, op := range laneOps[li] {
				c.op(tl, op, xOf, ly, g, infer, labels)
			}
		}
		c.b.WriteString("</g>\n")
	}

	// Time axis.
	ay := g.bottom() + 6
	fmt.Fprintf(&c.b, "<g class=\"axis\" data-x0=\"%s\" data-x1=\"%s\" data-t0=\"0\" data-t1=\"%s\">\n", num(c.x0), num(c.x1), sec(span))
	c.line(c.x0, ay, c.x1, ay, colAxis, 1)
	for _, tk := range ticks {
		x := xOf(tk.t)
		fmt.Fprintf(&c.b, "<g class=\"tick\" data-t=\"%s\">", sec(tk.t))
		c.line(x, ay, x, ay+6, colAxis, 1)
		c.text(x, ay+24, textOpt{size: 14, fill: colAxis, anchor: "middle"}, tk.label)
		c.b.WriteString("</g>\n")
	}
	c.text(c.x0-labelGap, ay+24, textOpt{size: 14, fill: colAxis, anchor: "end", max: c.labelW}, c.t.get("axis.time"))
	c.b.WriteString("</g>\n")
	cy := ay + 56

	// Aggregation: said in the picture, with its numbers.
	if agg {
		ops := 0
		for _, l := range laneOps {
			ops += len(l)
		}
		drawn, sep := shapes(boxes), c.t.get("num.sep")
		note := c.t.get("pipe.aggregated", "ops", thousands(ops, sep), "shapes", thousands(drawn, sep), "grain", num(grain), "gap", num(gap))
		fmt.Fprintf(&c.b, "<g class=\"aggregation\" data-ops=\"%d\" data-shapes=\"%d\" data-grain=\"%s\" data-gap=\"%s\">\n", ops, drawn, num(grain), num(gap))
		cy = c.para(margin, ay+50, width, textOpt{size: 15, fill: colSub, class: "aggregation-note"}, 13, note) + 30
		c.b.WriteString("</g>\n")
	}

	// Caption: the simulated bubble against its closed form.
	var capt string
	p := n
	m := tl.MicroBatches
	if m == 0 {
		m = r.Layout.MicroBatches
	}
	form := closedForm(infer, tl.Schedule)
	if infer {
		// Serving: the requests served (the timeline's batches in flight are no micro-batches).
		// The pipeline-fill closed form only where it applies (Report.ClosedFormBubble): with as
		// many requests as stages or more, serving has none to set against.
		key := "pipe.caption.in"
		closed, ok := r.ClosedFormBubble()
		if !ok {
			key = "pipe.caption.in.full"
		}
		capt = c.t.get(key, "stages", c.t.count("n.stage", p), "groups", c.t.count("n.group", s.Workload.Requests), "step", static.Seconds(r.StepTime),
			"sim", static.Percent(r.BubbleFraction), "form", form, "closed", static.Percent(closed))
	} else {
		v := ""
		if tl.Chunks > 1 {
			v = c.t.get("pipe.chunks", "v", strconv.Itoa(tl.Chunks))
		}
		capt = c.t.get("pipe.caption", "schedule", tl.Schedule.String(), "stages", c.t.count("n.stage", p), "micros", c.t.count("n.micro", m), "v", v,
			"step", static.Seconds(r.StepTime), "sim", static.Percent(r.BubbleFraction), "form", form,
			"closed", static.Percent(closedFormOf(r)))
	}
	if fold > 1 {
		capt += " · " + c.t.get("pipe.fold", "k", strconv.Itoa(fold))
	}
	if g.labelEvery > 1 {
		capt += " · " + c.t.get("pipe.folded", "k", strconv.Itoa(g.labelEvery*fold))
	}
	return c.para(margin, cy, width, textOpt{size: 17, weight: "bold", class: "caption"}, 13, capt)
}

// thousands writes n with its thousands grouped by sep: "65,536".
func thousands(n int, sep string) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + sep + s[i:]
	}
	return s
}

// closedForm names the textbook bubble the simulation is compared with.
func closedForm(infer bool, s model.Schedule) string {
	switch {
	case infer:
		return "max(p−requests, 0)/p"
	case s == model.Interleaved:
		return "(p−1)/(v·m+p−1)"
	case s == model.ZBH1:
		return "(p−1)(F+B−W) / step"
	case s == model.ZBV:
		return "(p−1)F / step (none within a rank's span)"
	case s == model.DualPipe:
		return "(p/2−1)(F&B+B−3W) / step"
	case s == model.DualPipeV:
		return "(p−1)(F&B+B−3W) / step"
	default:
		return "(p−1)/(m+p−1)"
	}
}

// opKind is the op's class: F, B, W, or prefill / decode in inference.
func opKind(op schedule.Op, infer bool) string {
	if infer {
		if op.Token == 0 {
			return "prefill"
		}
		return "decode"
	}
	return op.Kind.String()
}

func opFill(kind string, chunk int) string {
	odd := chunk%2 == 1
	switch kind {
	case "F":
		if odd {
			return colFOdd
		}
		return colF
	case "B":
		if odd {
			return colBOdd
		}
		return colB
	case "W":
		if odd {
			return colWOdd
		}
		return colW
	case "prefill":
		return colPrefill
	case "decode":
		return colDecode
	}
	return "#BDBDBD"
}

// op writes one op's rect and, when it is wide enough, its micro-batch number inside it.
func (c *svgCanvas) op(tl *costmodel.Timeline, op schedule.Op, xOf func(float64) float64, ly float64, g laneGeom, infer, labels bool) {
	if math.IsNaN(op.Start) || math.IsNaN(op.End) || math.IsInf(op.Start, 0) || math.IsInf(op.End, 0) {
		return
	}
	kind := opKind(op, infer)
	x, xe := xOf(op.Start), xOf(math.Max(op.End, op.Start))
	wd := xe - x
	b := &c.b
	fmt.Fprintf(b, `<rect class="op %s" data-stage="%d" data-micro="%d" data-kind="%s" data-start="%s" data-end="%s"`,
		kind, op.Stage, op.Micro, kind, sec(op.Start), sec(op.End))
	if tl.Chunks > 1 {
		fmt.Fprintf(b, ` data-chunk="%d"`, op.Chunk)
	}
	if infer {
		fmt.Fprintf(b, ` data-token="%d"`, op.Token)
	}
	fmt.Fprintf(b, ` x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(x), num(ly), num(wd), num(g.h), opFill(kind, op.Chunk))
	if wd >= 4 {
		b.WriteString(` stroke="#FFFFFF" stroke-width="1"`)
	}
	if !labels {
		b.WriteString("/>\n")
		return
	}
	fmt.Fprintf(b, "><title>%s</title></rect>\n", esc(c.t.num(opTitle(op, kind))))
	lab := opLabel(op, kind)
	if size := g.opLabelSize; textWidth(lab, size, false)+6 <= wd {
		c.text(x+wd/2, ly+g.h/2+size*0.36, textOpt{size: size, anchor: "middle", class: "op-label"}, lab)
	}
}

// box writes one box of a lane's ops: one band per kind, stacked in kindOrder from the lane's
// top, each as tall as its kind's share of the box's time, with the count, span and busy time
// as data attributes. Boxes have no white outline: two boxes side by side are ops back to back.
func (c *svgCanvas) box(stage int, b aggBox, xOf func(float64) float64, ly, h float64) {
	// Edges rounded as num writes them, so that a box ends exactly where the next one starts.
	x, xe := math.Round(xOf(b.start)*100)/100, math.Round(xOf(b.end)*100)/100
	span := b.end - b.start
	y := ly
	for _, k := range b.kinds {
		share := 1 / float64(len(b.kinds))
		if span > 0 {
			share = math.Min(math.Max(k.busy/span, 0), 1)
		}
		fmt.Fprintf(&c.b, `<rect class="ops %s" data-stage="%d" data-kind="%s" data-ops="%d" data-start="%s" data-end="%s" data-busy="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
			k.kind, stage, k.kind, k.ops, sec(b.start), sec(b.end), sec(k.busy), num(x), num(y), num(xe-x), num(h*share), opFill(k.kind, 0))
		y += h * share
	}
}

// opLabelSize is one font size for every number inside the ops: the lane's, or a smaller one
// when that lets numbers fit that otherwise would not (two digits in narrow boxes).
func opLabelSize(tl *costmodel.Timeline, size, pxPerSec float64, infer bool) float64 {
	small := math.Max(size*0.8, 10)
	gained := 0
	for _, op := range tl.Ops {
		lab := opLabel(op, opKind(op, infer))
		w := (op.End - op.Start) * pxPerSec
		if textWidth(lab, size, false)+6 > w && textWidth(lab, small, false)+6 <= w {
			gained++
		}
	}
	if gained > 0 {
		return small
	}
	return size
}

func opLabel(op schedule.Op, kind string) string {
	switch kind {
	case "prefill":
		return "P" + strconv.Itoa(op.Micro)
	case "decode":
		return "D" + strconv.Itoa(op.Token)
	}
	return strconv.Itoa(op.Micro)
}

// opTitle is the op's tooltip, language-neutral but for its numbers, which the canvas writes in
// the language's format: "S1 · F3c1 · 12.3 ms → 45.6 ms".
func opTitle(op schedule.Op, kind string) string {
	var what string
	switch kind {
	case "prefill":
		what = fmt.Sprintf("P%d", op.Micro)
	case "decode":
		what = fmt.Sprintf("D%d g%d", op.Token, op.Micro)
	default:
		what = fmt.Sprintf("%s%d", kind, op.Micro)
		if op.Chunk > 0 {
			what += fmt.Sprintf("c%d", op.Chunk)
		}
	}
	return fmt.Sprintf("S%d · %s · %s → %s", op.Stage, what, static.Seconds(op.Start), static.Seconds(op.End))
}

// ---- time axis ----

type tick struct {
	t     float64
	label string
}

// niceStep is the 1-2-5 step that puts at most maxTicks steps in span.
func niceStep(span float64, maxTicks int) float64 {
	if !(span > 0) || math.IsInf(span, 0) || maxTicks < 1 {
		return 0
	}
	raw := span / float64(maxTicks)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// timeUnit is the unit a time axis over span is labelled in.
func timeUnit(span float64) (scale float64, name string) {
	switch {
	case span >= 1:
		return 1, "s"
	case span >= 1e-3:
		return 1e-3, "ms"
	case span >= 1e-6:
		return 1e-6, "µs"
	}
	return 1e-9, "ns"
}

// timeTicks are the ticks of an axis from 0 to span over width px: a 1-2-5 step, about one
// label per 110 px, every label in one unit. The last tick is at most span.
func timeTicks(span, width float64) []tick {
	step := niceStep(span, max(int(width/110), 1))
	if step == 0 {
		return []tick{{0, "0"}}
	}
	scale, unit := timeUnit(span)
	dec := max(0, int(math.Ceil(-math.Log10(step/scale)-1e-9)))
	var out []tick
	for i := 0; i <= 1000; i++ {
		v := float64(i) * step
		if v > span*(1+1e-9) {
			break
		}
		v = math.Min(v, span)
		lab := "0"
		if i > 0 {
			lab = strconv.FormatFloat(v/scale, 'f', dec, 64) + " " + unit
		}
		out = append(out, tick{v, lab})
	}
	return out
}

// ---- tensor ----

func segDur(s costmodel.Segment) float64 {
	d := s.End - s.Start
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		return 0
	}
	return d
}

func segsTotal(ss []costmodel.Segment) float64 {
	t := 0.0
	for _, s := range ss {
		t += segDur(s)
	}
	return t
}

func countComm(ss []costmodel.Segment) int {
	n := 0
	for _, s := range ss {
		if s.Kind == costmodel.SegTPComm {
			n++
		}
	}
	return n
}

func segFill(k costmodel.SegmentKind) string {
	switch k {
	case costmodel.SegTPComm, costmodel.SegEPComm:
		return colComm
	case costmodel.SegMemory:
		return colMemory
	}
	return colCompute
}

func (c *svgCanvas) tensor(s model.Scenario, r costmodel.Report, y float64) float64 {
	infer := isInfer(s, r)
	d := r.Detail
	t := max(s.Layout.TP, r.Layout.TP, 1)
	width := float64(svgWidth - 2*margin)
	c.b.WriteString("<g class=\"section tensor\">\n")
	defer c.b.WriteString("</g>\n")
	c.text(margin, y+20, textOpt{size: 22, weight: "bold", class: "heading", max: width}, c.t.get("tensor.heading"))
	subKey := "tensor.sub.train"
	if infer {
		subKey = "tensor.sub.infer"
	}
	if t <= 1 {
		subKey = strings.Replace(subKey, "sub.", "sub1.", 1)
	}
	link := d.TPLink
	if link == "" {
		link = s.Cluster.Intra.ID
	}
	sub := c.t.get(subKey, "t", strconv.Itoa(t), "link", link)
	if s.Arch.ID != "" {
		sub += " · " + s.Arch.Label()
	}
	y = c.para(margin, y+46, width, textOpt{size: 15, fill: colSub}, 12, sub) + 20

	type row struct {
		name  string
		segs  []costmodel.Segment
		total float64
	}
	var rows []row
	if len(d.Layer.Forward) > 0 {
		n := c.t.get("tensor.fwd")
		if infer {
			n = c.t.get("tensor.step")
		}
		rows = append(rows, row{n, d.Layer.Forward, segsTotal(d.Layer.Forward)})
	}
	if len(d.Layer.Backward) > 0 && !infer {
		rows = append(rows, row{c.t.get("tensor.bwd"), d.Layer.Backward, segsTotal(d.Layer.Backward)})
	}
	maxTotal := 0.0
	for _, rw := range rows {
		maxTotal = math.Max(maxTotal, rw.total)
	}
	if len(rows) == 0 || !(maxTotal > 0) {
		c.text(margin, y+20, textOpt{size: 16, fill: colSub}, c.t.get("tensor.none"))
		return y + 30
	}
	bx0, bx1 := c.x0, c.x1-totalRoom
	xOf := func(v float64) float64 { return bx0 + v/maxTotal*(bx1-bx0) }
	for _, rw := range rows {
		fmt.Fprintf(&c.b, "<g class=\"bar\">\n")
		c.text(c.x0-labelGap, y+barH/2+6, textOpt{size: 16, anchor: "end", class: "bar-label", max: c.labelW}, rw.name)
		at := 0.0
		for _, sg := range rw.segs {
			dur := segDur(sg)
			x, xe := xOf(at), xOf(at+dur)
			at += dur
			wd := xe - x
			fmt.Fprintf(&c.b, `<rect class="segment %s" data-start="%s" data-end="%s" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#FFFFFF" stroke-width="1.5"><title>%s</title></rect>`+"\n",
				sg.Kind, sec(at-dur), sec(at), num(x), num(y), num(wd), num(barH), segFill(sg.Kind), esc(c.t.num(sg.Label+" "+static.Seconds(dur))))
			name := c.t.seg(sg.Label)
			ds := static.Seconds(dur)
			fits := func(s string, size float64, bold bool) bool { return textWidth(s, size, bold)+8 <= wd }
			mid := x + wd/2
			switch {
			case fits(name, 15, true) && fits(ds, 13, false):
				c.text(mid, y+barH/2-3, textOpt{size: 15, anchor: "middle", weight: "bold"}, name)
				c.text(mid, y+barH/2+15, textOpt{size: 13, anchor: "middle"}, ds)
			case fits(ds, 13, false):
				c.text(mid, y+barH/2+5, textOpt{size: 13, anchor: "middle"}, ds)
			case fits(name, 12, false):
				c.text(mid, y+barH/2+5, textOpt{size: 12, anchor: "middle"}, name)
			}
		}
		tx := xOf(rw.total) + 10
		c.text(tx, y+barH/2+6, textOpt{size: 16, weight: "bold", max: svgWidth - margin - tx}, "= "+static.Seconds(rw.total))
		c.b.WriteString("</g>\n")
		y += barH + barGap
	}

	// The bars' time axis.
	ay := y - barGap + 6
	c.b.WriteString("<g class=\"bar-axis\">\n")
	c.line(bx0, ay, bx1, ay, colAxis, 1)
	for _, tk := range timeTicks(maxTotal, bx1-bx0) {
		x := xOf(tk.t)
		c.line(x, ay, x, ay+6, colAxis, 1)
		c.text(x, ay+24, textOpt{size: 14, fill: colAxis, anchor: "middle"}, tk.label)
	}
	c.b.WriteString("</g>\n")
	y = ay + 24

	// The numbers: comm share, one all-reduce, the ring formula.
	c.b.WriteString("<g class=\"numbers\">\n")
	defer c.b.WriteString("</g>\n")
	line := func(s string, o textOpt) {
		y = c.para(margin, y+30, width, o, 13, s)
	}
	if t <= 1 {
		line(c.t.get("tensor.tp1"), textOpt{size: 17, weight: "bold"})
		line(c.t.get("tensor.tp1.more"), textOpt{size: 16, fill: colSub})
		return y
	}
	stepShare := "n/a"
	if r.StepTime > 0 {
		stepShare = static.Percent(r.Breakdown.TPComm / r.StepTime)
	}
	what := c.t.get("tensor.what.train")
	if infer {
		what = c.t.get("tensor.what.infer")
	}
	line(c.t.get("tensor.share", "layer", static.Percent(d.Layer.CommShare), "step", stepShare, "what", what,
		"tp", static.Seconds(r.Breakdown.TPComm), "total", static.Seconds(r.StepTime)), textOpt{size: 17, weight: "bold"})
	count := c.t.get("tensor.count.train", "f", strconv.Itoa(countComm(d.Layer.Forward)), "b", strconv.Itoa(countComm(d.Layer.Backward)))
	if infer {
		count = c.t.get("tensor.count.infer", "f", strconv.Itoa(countComm(d.Layer.Forward)))
	}
	line(c.t.get("tensor.ar", "sym", arSymbol(s, d.TPAllReduceBytes), "S", decBytes(d.TPAllReduceBytes),
		"time", static.Seconds(d.TPAllReduceS), "count", count), textOpt{size: 17})
	// The algorithm the collective model runs it with, and that algorithm's formula with the
	// model's own terms, as the Tensor tab prints them.
	u := d.TPCollective
	e, ok := static.ExplainUse(u)
	if !ok {
		return y
	}
	f := static.Formula(e)
	by := c.t.get("tensor.by.nccl")
	if static.Engine(e.Algo) {
		by = c.t.get("tensor.by.engine")
	}
	group := c.t.get("tensor.group", "n", strconv.Itoa(u.GPUs))
	links := u.Fabric.Intra.ID
	if u.Nodes > 1 {
		group = c.t.get("tensor.group.nodes", "n", strconv.Itoa(u.GPUs), "nodes", strconv.Itoa(u.Nodes))
		links += " + " + u.Fabric.Inter.ID
	}
	line(c.t.get("tensor.coll", "algo", f.Name, "group", group, "link", links, "by", by), textOpt{size: 17})
	line(c.t.get("tensor.formula", "name", f.Name, "symbols", f.Symbols), textOpt{size: 17})
	filled := c.t.get("tensor.filled", "numbers", f.Numbers, "result", f.Result)
	if _, r, _ := static.UseResult(u); !e.Matches(r) {
		filled += "   " + c.t.get("tensor.note.simplified", "model", static.Seconds(u.Seconds))
	}
	line(filled, textOpt{size: 17, weight: "bold"})
	return y
}

// arSymbol is the all-reduce's size as a product with the numbers in, "b·s·h·e = 1·4096·8192·2 B"
// in training, "b·h·e = …" for one decode token; just the symbols when the product is not S.
func arSymbol(s model.Scenario, bytes float64) string {
	b, h, e := s.Layout.MicroBatch, s.Arch.Hidden, s.Workload.Precision.Bytes()
	if isInferScenario(s) {
		// b: the sequences of the decode step drawn (the run's mean decode batch).
		b = int(math.Round(bytes / (float64(h) * e)))
		if float64(b*h)*e == bytes {
			return fmt.Sprintf("b·h·e = %d·%d·%s B", b, h, strconv.FormatFloat(e, 'g', -1, 64))
		}
		return "b·h·e"
	}
	sq := s.Workload.Seq
	if float64(b*sq*h)*e == bytes {
		return fmt.Sprintf("b·s·h·e = %d·%d·%d·%s B", b, sq, h, strconv.FormatFloat(e, 'g', -1, 64))
	}
	return "b·s·h·e"
}

// closedFormOf is training's closed-form bubble (Report.ClosedFormBubble; it always applies).
func closedFormOf(r costmodel.Report) float64 {
	f, _ := r.ClosedFormBubble()
	return f
}

func isInferScenario(s model.Scenario) bool { return s.Workload.Mode == model.Infer }

// decBytes formats bytes with decimal prefixes, like link bandwidths: "67.1 MB".
func decBytes(b float64) string { return static.DecBytes(b) }

// ---- legend ----

type swatch struct {
	fill, label string
}

func (c *svgCanvas) legend(s model.Scenario, r costmodel.Report, y float64) float64 {
	infer := isInfer(s, r)
	hasW, hasMem, hasComm := false, false, false
	if tl := r.Timeline; tl != nil {
		for _, op := range tl.Ops {
			if op.Kind == schedule.W {
				hasW = true
				break
			}
		}
	}
	for _, ss := range [][]costmodel.Segment{r.Detail.Layer.Forward, r.Detail.Layer.Backward} {
		for _, sg := range ss {
			hasMem = hasMem || sg.Kind == costmodel.SegMemory
			hasComm = hasComm || sg.Kind == costmodel.SegTPComm || sg.Kind == costmodel.SegEPComm
		}
	}
	var pipe, tens []swatch
	if infer {
		pipe = append(pipe, swatch{colPrefill, c.t.get("legend.prefill")}, swatch{colDecode, c.t.get("legend.decode")})
	} else {
		pipe = append(pipe, swatch{colF, c.t.get("legend.F")}, swatch{colB, c.t.get("legend.B")})
		if hasW || s.Layout.Schedule == model.ZBH1 || s.Layout.Schedule == model.ZBV || s.Layout.Schedule == model.DualPipe || s.Layout.Schedule == model.DualPipeV {
			pipe = append(pipe, swatch{colW, c.t.get("legend.W")})
		}
		if tl := r.Timeline; tl != nil && tl.Chunks > 1 && !c.agg {
			key := "legend.chunk"
			switch s.Layout.Schedule {
			case model.DualPipe:
				key = "legend.reverse"
			case model.ZBV, model.DualPipeV:
				key = "legend.chunkV"
			}
			pipe = append(pipe, swatch{colFOdd, c.t.get(key)})
		}
	}
	pipe = append(pipe, swatch{colIdle, c.t.get("legend.idle")})
	tens = append(tens, swatch{colCompute, c.t.get("legend.compute")})
	if hasMem {
		tens = append(tens, swatch{colMemory, c.t.get("legend.memory")})
	}
	if hasComm || max(s.Layout.TP, r.Layout.TP) > 1 {
		tens = append(tens, swatch{colComm, c.t.get("legend.comm")})
	}

	c.b.WriteString("<g class=\"legend\">\n")
	defer c.b.WriteString("</g>\n")
	const sw, size = 22.0, 16.0
	width := float64(svgWidth - 2*margin)
	x := float64(margin)
	place := func(need float64) {
		if x+need > svgWidth-margin && x > margin {
			x = margin
			y += 34
		}
	}
	for gi, grp := range []struct {
		title string
		items []swatch
	}{{c.t.get("legend.pipeline"), pipe}, {c.t.get("legend.tensor"), tens}} {
		if gi > 0 {
			x += 30
		}
		title := ellipsize(grp.title, size, true, width)
		tw := textWidth(title, size, true) + 14
		place(tw)
		c.text(x, y+sw/2+size*0.36, textOpt{size: size, weight: "bold", fill: colSub, class: "legend-title"}, title)
		x += tw
		for _, it := range grp.items {
			label := ellipsize(it.label, size, false, width-sw-8)
			need := sw + 8 + textWidth(label, size, false) + 26
			place(need)
			fmt.Fprintf(&c.b, "<g class=\"legend-item\">")
			c.rect("swatch", x, y, sw, sw, it.fill, ` stroke="#9E9E9E" stroke-width="1"`)
			c.text(x+sw+8, y+sw/2+size*0.36, textOpt{size: size}, label)
			c.b.WriteString("</g>\n")
			x += need
		}
	}
	return y + sw
}
