package static

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/arch"
)

// tflops formats FLOP/s as a bare TFLOP/s number for a column headed "TFLOP/s"; 0 reads "-".
func tflops(x float64) string {
	if x == 0 {
		return "-"
	}
	return sig3(x / 1e12)
}

// SourceWidth is how many characters of a preset's source RenderPresets shows.
const SourceWidth = 60

// sourceTag is the start of a source note on one line: whitespace collapsed, cut at SourceWidth.
func sourceTag(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= SourceWidth {
		return string(r)
	}
	return string(r[:SourceWidth-1]) + "…"
}

// RenderPresets writes the embedded models, GPUs and links as three tables, each row with the
// start of its source note.
func RenderPresets(w io.Writer, p *assets.Presets) error {
	ew := &errWriter{w: w}

	ew.line(fmt.Sprintf("models (%d)", len(p.Models)))
	mt := newTable("  ", false, true, true, true, true, true, true, false, false)
	mt.add("id", "layers", "hidden", "heads/kv", "ffn", "vocab", "params", "experts", "source")
	for _, a := range p.Models {
		experts := "-"
		if a.Experts > 1 {
			experts = fmt.Sprintf("%d top-%d", a.Experts, a.ActiveExperts())
		}
		mt.add(a.ID, strconv.Itoa(a.Layers), strconv.Itoa(a.Hidden),
			fmt.Sprintf("%d/%d", a.Heads, a.KVHeads), strconv.Itoa(a.FFN), strconv.Itoa(a.Vocab),
			fmt.Sprintf("%.1fB", arch.Of(a).Params()/1e9), experts, sourceTag(a.Source))
	}
	mt.write(ew)

	ew.line("")
	ew.line(fmt.Sprintf("GPUs (%d)", len(p.GPUs)))
	gt := newTable("  ", false, true, true, true, true, false, false)
	gt.add("id", "BF16 TFLOP/s", "FP8 TFLOP/s", "memory", "HBM BW", "link", "source")
	for _, g := range p.GPUs {
		gt.add(g.ID, tflops(g.PeakBF16), tflops(g.PeakFP8), Bytes(g.MemoryBytes), Bandwidth(g.HBMBandwidth),
			g.NativeLink, sourceTag(g.Source))
	}
	gt.write(ew)

	ew.line("")
	ew.line(fmt.Sprintf("links (%d)", len(p.Links)))
	lt := newTable("  ", false, false, true, true, true, false)
	lt.add("id", "kind", "GB/s", "α µs", "eff", "source")
	for _, l := range p.Links {
		lt.add(l.ID, l.Kind.String(), strconv.FormatFloat(l.Bandwidth/1e9, 'f', 1, 64),
			strconv.FormatFloat(l.Latency*1e6, 'f', 1, 64), strconv.FormatFloat(l.Efficiency, 'f', 2, 64), sourceTag(l.Source))
	}
	lt.write(ew)
	ew.line("")
	ew.line("sources are cut at " + strconv.Itoa(SourceWidth) + " characters; presets --json has them in full")
	return ew.err
}
