package export

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/static"
)

// TestTextWidthCoversDejaVu compares textWidth with the advance widths of DejaVu Sans, the
// font the SVG names first, added up from DejaVuSans.ttf and DejaVuSans-Bold.ttf (2.37): the
// estimate must not be narrower (text would overflow) nor more than 10% wider (text would be
// cut for nothing).
func TestTextWidthCoversDejaVu(t *testing.T) {
	for _, tc := range []struct {
		s        string
		size     float64
		bold     bool
		measured float64 // px
	}{
		{"megatron-1t (128 layers, 1009.3B params) · 3072× h100-sxm (384 nodes × 8) · nvlink4 / ib-ndr ×8 NICs · train bf16 seq 4096 batch 3072", 26, true, 2006.32},
		{"One lane per pipeline stage. Each box is one micro-batch's forward (F) or backward (B, W) on that stage, numbered by micro-batch; gaps are idle time.", 15, false, 1139.28},
		{"WWW mmm iii ... 0123456789 µs → ≈ ★", 17, true, 378.24},
		{"Chronologie du pipeline · étape · œuvre ÀÉÇ", 22, false, 490.03},
	} {
		got := textWidth(tc.s, tc.size, tc.bold)
		if got < tc.measured || got > 1.1*tc.measured {
			t.Errorf("textWidth(%.20q…, %v, bold %v) = %.1f px, DejaVu Sans %.1f px", tc.s, tc.size, tc.bold, got, tc.measured)
		}
	}
	if w := textWidth("漢字", 10, false); w < 20 {
		t.Errorf("two ideographs at 10 px: %v px, want at least a full em each", w)
	}
}

func TestEllipsizeAndWrap(t *testing.T) {
	s := "the quick brown fox jumps over the lazy dog"
	for _, width := range []float64{5, 40, 100, 200, 1000} {
		e := ellipsize(s, 16, false, width)
		if textWidth(e, 16, false) > width {
			t.Errorf("ellipsize to %v px: %q is %v px", width, e, textWidth(e, 16, false))
		}
		if e != s && e != "" && !strings.HasSuffix(e, ellipsis) {
			t.Errorf("cut text %q does not end with …", e)
		}
		if e != s && e != "" && !strings.HasPrefix(s, strings.TrimSuffix(e, ellipsis)) {
			t.Errorf("cut text %q is not a prefix of the text", e)
		}
		lines := wrap(s, 16, false, width)
		for _, l := range lines {
			if textWidth(l, 16, false) > width {
				t.Errorf("wrap at %v px: line %q is %v px", width, l, textWidth(l, 16, false))
			}
		}
		if width >= textWidth("jumps", 16, false) && strings.Join(lines, " ") != s {
			t.Errorf("wrap at %v px lost words: %q", width, lines)
		}
	}
	if e := ellipsize(s, 16, false, 1000); e != s {
		t.Errorf("text that fits was cut: %q", e)
	}
}

// textBox is where a <text> lies, by its anchor and measured width.
func textBox(t *testing.T, n *node) (left, right float64) {
	t.Helper()
	x, size := n.float(t, "x"), n.float(t, "font-size")
	w := textWidth(n.text, size, n.attr["font-weight"] == "bold")
	switch n.attr["text-anchor"] {
	case "middle":
		return x - w/2, x + w/2
	case "end":
		return x - w, x
	}
	return x, x + w
}

// checkTextInside fails unless every text line of the picture lies inside its canvas, and the
// lines of the title, captions and notes do not overlap.
func checkTextInside(t *testing.T, root *node) {
	t.Helper()
	width, height := root.float(t, "width"), root.float(t, "height")
	for _, n := range root.find("text", "") {
		l, r := textBox(t, n)
		if l < 0 || r > width || n.float(t, "y") > height {
			t.Errorf("text %q (%s px) spans x %.1f..%.1f at y %v: outside the %vx%v canvas", n.text, n.attr["font-size"], l, r, n.attr["y"], width, height)
		}
	}
	var col []*node
	for _, n := range root.find("text", "") {
		if n.attr["x"] == strconv.Itoa(margin) && n.attr["text-anchor"] == "" {
			col = append(col, n)
		}
	}
	for i := 1; i < len(col); i++ {
		if dy := col[i].float(t, "y") - col[i-1].float(t, "y"); dy < col[i].float(t, "font-size") {
			t.Errorf("lines %q and %q are %v px apart", col[i-1].text, col[i].text, dy)
		}
	}
}

// bigScenario is scenario() on 3,072 GPUs in 384 nodes: the longest cluster part of a title.
func bigScenario(t *testing.T) model.Scenario {
	s := scenario(t)
	s.Cluster.GPUs, s.Layout.DP, s.Workload.GlobalBatch = 3072, 384, 3072
	return s
}

func TestSVGTextInsideCanvas(t *testing.T) {
	for _, fx := range fixtures {
		for _, lang := range []string{"en", "fr"} {
			t.Run(fx.name+"/"+lang, func(t *testing.T) {
				s, r := evaluate(t, fx.edit)
				_, root := renderSVG(t, s, r, SVGOptions{Lang: lang})
				checkTextInside(t, root)
			})
		}
	}
	s, r := megatron1T(t)
	for _, lang := range []string{"en", "fr"} {
		t.Run("megatron-1t/"+lang, func(t *testing.T) {
			_, root := renderSVG(t, s, r, SVGOptions{Lang: lang})
			checkTextInside(t, root)
		})
	}
	t.Run("long-texts", func(t *testing.T) {
		s, r := evaluate(t, func(*model.Scenario) {})
		long := strings.Repeat("a long override ", 40)
		over := map[string]string{}
		for _, k := range []string{"pipe.heading", "legend.F", "legend.pipeline", "tensor.fwd", "axis.time", "pipe.lane", "tensor.formula", "pipe.caption"} {
			over[k] = long
		}
		over["tensor.heading"] = strings.Repeat("W", 200)
		_, root := renderSVG(t, s, r, SVGOptions{Texts: over, Title: long})
		checkTextInside(t, root)
	})
}

// TestSVGTitle checks what a title gives up to fit: nothing when it fits at 16 px; the model's
// details, then the end of its ID, for a long one; a long scenario-file title wraps on two
// lines at most. Layout and batch always stay.
func TestSVGTitle(t *testing.T) {
	_, r := evaluate(t, func(*model.Scenario) {})
	title := func(root *node, class string) (lines []string) {
		for _, n := range root.find("text", class) {
			lines = append(lines, n.text)
		}
		return lines
	}

	// Every preset model on 3,072 GPUs: the whole line fits.
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	longest := ""
	for _, a := range p.Models {
		s := bigScenario(t)
		s.Arch = a
		_, root := renderSVG(t, s, r, SVGOptions{})
		checkTextInside(t, root)
		if got := title(root, "title"); !slices.Equal(got, []string{static.ScenarioLine(s)}) {
			t.Errorf("%s: title %q, want the whole scenario line", a.ID, got)
		}
		longest = max(longest, a.ID, a.Name)
	}

	// A model ID as long as a sentence: the details go, the ID is cut, the rest stays.
	s := bigScenario(t)
	s.Arch.ID = strings.Repeat("my-own-model-with-a-very-long-name-", 8)
	_, root := renderSVG(t, s, r, SVGOptions{})
	checkTextInside(t, root)
	got := strings.Join(title(root, "title"), " ")
	if strings.Contains(got, "layers") || !strings.Contains(got, ellipsis) || !strings.HasPrefix(got, "my-own-model") ||
		!strings.HasSuffix(got, "3072× h100-sxm (384 nodes × 8) · nvlink4 / ib-ndr ×8 NICs · train bf16 seq 4096 batch 3072") {
		t.Errorf("long model ID: title %q", got)
	}
	if sub := title(root, "subtitle"); len(sub) != 1 || !strings.HasPrefix(sub[0], static.LayoutLine(s)+" · ") {
		t.Errorf("subtitle %q, want the layout %q first", sub, static.LayoutLine(s))
	}

	// A scenario file's title above the scenario line, on two lines at most.
	s = bigScenario(t)
	_, root = renderSVG(t, s, r, SVGOptions{Title: "NVLink against PCIe"})
	if got := title(root, "title"); !slices.Equal(got, []string{"NVLink against PCIe"}) {
		t.Errorf("title %q", got)
	}
	if got := title(root, "scenario"); !slices.Equal(got, []string{static.ScenarioLine(s)}) {
		t.Errorf("scenario line under the title: %q", got)
	}
	long := strings.Repeat("Megatron 1T on the whole cluster, "+longest+", ", 12)
	_, root = renderSVG(t, s, r, SVGOptions{Title: long})
	checkTextInside(t, root)
	lines := title(root, "title")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], ellipsis) || !strings.HasPrefix(long, lines[0]) {
		t.Errorf("long title: %q, want two lines, the second cut", lines)
	}
	if got := title(root, "scenario"); len(got) != 1 || !strings.Contains(got[0], "batch 3072") {
		t.Errorf("scenario line under a long title: %q", got)
	}
	if root.find("title", "")[0].text != static.Header(s) {
		t.Error("the <title> element is not the scenario header")
	}
}

// TestSVGFoldsLanes checks a pipeline of more stages than maxLanes: one lane for one stage in
// k, said in the caption, the lanes still labelled without overlap, the picture of a sane height.
func TestSVGFoldsLanes(t *testing.T) {
	s, r := evaluate(t, func(s *model.Scenario) {
		s.Arch.Layers = 264
		s.Cluster.GPUs = 264
		s.Layout = model.Layout{TP: 1, PP: 264, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
		s.Workload.GlobalBatch = 8
	})
	if r.Timeline.Stages != 264 {
		t.Fatalf("%d stages, want 264", r.Timeline.Stages)
	}
	_, root := renderSVG(t, s, r, SVGOptions{})
	checkTextInside(t, root)
	lanes := root.find("g", "lane")
	if len(lanes) != 88 {
		t.Fatalf("%d lanes for 264 stages, want 88 (one in 3)", len(lanes))
	}
	for i, l := range lanes {
		if l.attr["data-stage"] != strconv.Itoa(3*i) {
			t.Fatalf("lane %d is stage %s, want %d", i, l.attr["data-stage"], 3*i)
		}
		for _, rc := range append(l.find("rect", "op"), l.find("rect", "ops")...) {
			if rc.attr["data-stage"] != l.attr["data-stage"] {
				t.Fatalf("lane of stage %s holds an op of stage %s", l.attr["data-stage"], rc.attr["data-stage"])
			}
		}
	}
	capt := ""
	for _, c := range root.find("text", "caption") {
		capt += c.text + " "
	}
	if !strings.Contains(capt, "p = 264 stages") || !strings.Contains(capt, "lanes show one stage in 3 (S0, S3…)") {
		t.Errorf("caption does not say lanes are folded: %q", capt)
	}
	labels := root.find("text", "lane-label")
	for i := 1; i < len(labels); i++ {
		if dy := labels[i].float(t, "y") - labels[i-1].float(t, "y"); dy < labels[i].float(t, "font-size") {
			t.Fatalf("lane labels %q and %q %v px apart", labels[i-1].text, labels[i].text, dy)
		}
	}
	if h := root.float(t, "height"); h > 1400 {
		t.Errorf("%v px tall", h)
	}
	if n := shapeCount(root); n > 5000 {
		t.Errorf("%d shapes", n)
	}

	// No fold up to maxLanes stages.
	for _, n := range []int{1, 64, maxLanes} {
		if got, k := shownStages(n); len(got) != n || k != 1 {
			t.Errorf("shownStages(%d) = %d lanes, k %d", n, len(got), k)
		}
	}
	if got, k := shownStages(maxLanes + 1); len(got) != (maxLanes+2)/2 || k != 2 || got[1] != 2 {
		t.Errorf("shownStages(%d) = %v, k %d", maxLanes+1, got, k)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 65536: "65,536", 1234567: "1,234,567", -4812: "-4,812"} {
		if got := thousands(n, ","); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	s, r := megatron1T(t)
	_, root := renderSVG(t, s, r, SVGOptions{Lang: "fr"})
	note := ""
	for _, n := range root.find("text", "aggregation-note") {
		note += n.text + " "
	}
	if !strings.Contains(note, "65\u202f536 opérations") {
		t.Errorf("French note %q lacks 65 536 with a narrow space", note)
	}
}
