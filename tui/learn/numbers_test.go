package learn

import (
	"regexp"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

func textsOf(t *testing.T, lang string) *Texts {
	t.Helper()
	tx, err := assets.Texts(lang)
	if err != nil {
		t.Fatal(err)
	}
	return NewTexts(tx)
}

func TestNumberFormat(t *testing.T) {
	fr, en := textsOf(t, "fr"), textsOf(t, "en")
	for in, want := range map[string]string{
		"4.67\u00a0s":                    "4,67\u00a0s",
		"bulle 8.2% du pas":              "bulle 8,2\u00a0% du pas",
		"72.0\u00a0GiB sur 79.6 GiB":     "72,0\u00a0Gio sur 79,6 Gio",
		"41.9 MB / 450 GB/s = 93.1 µs":   "41,9 Mo / 450 Go/s = 93,1 µs",
		"3.35 TB/s, 812 MiB, 0 B, 24 kB": "3,35 To/s, 812 Mio, 0 o, 24 ko",
		"1.5 × 65.5 kB = 98.3 kB":        "1,5 × 65,5 ko = 98,3 ko",
		"412 TFLOP/s, 49.1 k jetons/s":   "412 TFLOP/s, 49,1 k jetons/s",
		// Names keep their points; a unit-like word without a number stays.
		"qwen2.5-72b, llama-3.1-8b sur h100-sxm": "qwen2.5-72b, llama-3.1-8b sur h100-sxm",
		"les passes F et B, les GB":              "les passes F et B, les GB",
		// Styled text: the escape sequences stay as they are.
		"\x1b[1m43.8%\x1b[0m": "\x1b[1m43,8\u00a0%\x1b[0m",
	} {
		if got := fr.Numbers(in); got != want {
			t.Errorf("fr %q: %q, want %q", in, got, want)
		}
		if got := en.Numbers(in); got != in {
			t.Errorf("en %q: %q, unchanged wanted", in, got)
		}
	}
	if fr.Unit("GiB") != "Gio" || en.Unit("GiB") != "GiB" || fr.Unit("%") != "%" {
		t.Errorf("units: fr GiB %q, en GiB %q", fr.Unit("GiB"), en.Unit("GiB"))
	}
}

// englishNumber is what the French texts must not hold: a decimal point in a number (not in a
// name), a percentage glued to its number, an English byte unit after a number.
var englishNumber = regexp.MustCompile(`(^|[\s(=/+×·:;,])\d+\.\d+|\d%|\d[\s\x{00a0}](B|KiB|MiB|GiB|TiB|kB|MB|GB|TB)(/s)?([^\pL]|$)`)

// Every French text, the Learn tab's document and the tour's captions over the tour's scenarios
// and a few more (serving, a GeForce box over PCIe, TP across nodes), with the Compare tab's
// rows, writes its numbers one way: a decimal comma, "8,2 %", Gio/Mio for binary units and Go/Mo
// for decimal ones; the English texts keep "4.67 s", "8.2%", "GiB".
func TestFrenchTextsWriteFrenchNumbers(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	files, err := assets.TourScenarios(p)
	if err != nil {
		t.Fatal(err)
	}
	var scenarios []model.Scenario
	for _, f := range files {
		scenarios = append(scenarios, f.Scenario)
	}
	scenarios = append(scenarios,
		tuitest.Scenario(t, "llama-3-8b", "rtx-4090", "pcie4", model.Infer, 4, 4, 1),
		tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Infer, 16, 16, 1),
		tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4),
		deepseekEP8(t), tuitest.Scenario(t, "mixtral-8x7b", "h100-sxm", "nvlink4", model.Train, 8, 8, 1))
	fr, en := textsOf(t, "fr"), textsOf(t, "en")
	sawComma, sawGio := false, false
	for _, s := range scenarios {
		r, err := costmodel.Evaluate(s)
		if err != nil {
			t.Fatal(err)
		}
		f := NewFacts(common.Data{Scenario: s, Report: r}, compare.Build(s), true)
		for _, lang := range []*Texts{fr, en} {
			doc, err := Document(lang, f)
			if err != nil {
				t.Fatal(err)
			}
			text := PlainText(doc)
			for _, step := range assets.TourSteps() {
				_, lines, err := Caption(lang, step, f, true, 10000)
				if err != nil {
					t.Fatal(err)
				}
				text += "\n" + strings.Join(lines, "\n")
			}
			if lang == en {
				if !strings.Contains(text, "GiB") || !regexp.MustCompile(`\d\.\d`).MatchString(text) {
					t.Errorf("%s: the English texts lost their GiB or their decimal points", s.Arch.ID)
				}
				continue
			}
			for _, line := range strings.Split(text, "\n") {
				if m := englishNumber.FindString(line); m != "" {
					t.Errorf("%s %d× %s: %q written the English way in %q", s.Arch.ID, s.Cluster.GPUs, s.Cluster.GPU.ID, m, line)
				}
			}
			sawComma = sawComma || regexp.MustCompile(`\d,\d`).MatchString(text)
			sawGio = sawGio || strings.Contains(text, " Gio")
		}
	}
	if !sawComma || !sawGio {
		t.Errorf("the French texts show no decimal comma (%v) or no Gio (%v)", sawComma, sawGio)
	}
}
