package export

import (
	"regexp"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/static"
)

// Numbers written the English way, which a French export must not hold: a decimal point (not
// inside a name such as llama-3.1-8b or qwen2.5), a percentage glued to its number, an English
// byte unit after a number.
var (
	reEnglishDecimal = regexp.MustCompile(`(?:^|[^\pL\pN_.\-])\d+\.\d+`)
	reEnglishPercent = regexp.MustCompile(`\d%`)
	reEnglishUnit    = regexp.MustCompile(`\d[ \x{00a0}](?:[KMGTP]iB|[kMGTP]B|B)(?:/s)?(?:[^\pL\pN]|$)`)
	reFrenchDecimal  = regexp.MustCompile(`\d,\d`)
	reFrenchPercent  = regexp.MustCompile(`\d\x{00a0}%`)
	reFrenchUnit     = regexp.MustCompile(`\d[ \x{00a0}](?:[KMGTP]io|[kMGTP]o|o)(?:/s)?(?:[^\pL\pN]|$)`)
)

// checkFrenchNumbers: every number of text is written the French way ("4,67 s", "18,5 %",
// "72,0 Gio"), and the text has numbers of each kind of need, so that the check is not empty.
func checkFrenchNumbers(t *testing.T, what, text string, need ...*regexp.Regexp) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		for _, re := range []*regexp.Regexp{reEnglishDecimal, reEnglishPercent, reEnglishUnit} {
			if m := re.FindString(l); m != "" {
				t.Errorf("%s: %q written the English way in %q", what, strings.TrimSpace(m), l)
			}
		}
	}
	for _, re := range need {
		if !re.MatchString(text) {
			t.Errorf("%s: no number like /%s/: nothing checked", what, re)
		}
	}
}

// TestFrenchExportNumbers (issue 18): `export --markdown F --lang fr` and the French SVG write
// every number as the French teaching texts do (tui/learn's format, from assets/text/fr.yaml):
// decimal comma, "18,5 %", Gio, Mio, Go/s; tables, captions and tooltips included. English is
// unchanged.
func TestFrenchExportNumbers(t *testing.T) {
	for _, fx := range fixtures {
		switch fx.name {
		case "1f1b", "infer", "no-pipeline", "zb-h1", "gpipe-tp1":
		default:
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			s, r := evaluate(t, fx.edit)
			c := compare.Build(s)
			fr := Numbers("fr")
			step := static.Seconds(r.StepTime)

			md := renderMarkdown(t, s, r, c, "fr")
			checkFrenchNumbers(t, "markdown", md, reFrenchDecimal, reFrenchPercent, reFrenchUnit)
			if !strings.Contains(md, fr(step)) {
				t.Errorf("markdown: no step time %q", fr(step))
			}
			if want := fr(static.Bytes(r.Memory.Total)); !strings.Contains(md, "**"+want+"**") {
				t.Errorf("markdown: no memory total %q", want)
			}
			en := renderMarkdown(t, s, r, c, "en")
			if !strings.Contains(en, step) || !strings.Contains(en, "**"+static.Bytes(r.Memory.Total)+"**") || strings.Contains(en, "Gio") {
				t.Errorf("English markdown changed: step %q, total %q", step, static.Bytes(r.Memory.Total))
			}

			raw, root := renderSVG(t, s, r, SVGOptions{Lang: "fr"})
			var tips strings.Builder
			for _, n := range root.find("title", "") {
				tips.WriteString(n.text + "\n")
			}
			checkFrenchNumbers(t, "svg", root.allText(), reFrenchDecimal, reFrenchPercent)
			checkFrenchNumbers(t, "svg tooltips", tips.String(), reFrenchDecimal)
			if !strings.Contains(string(raw), "x=\"") || strings.Contains(string(raw), "x=\"0,") {
				t.Error("svg: coordinates touched")
			}
			_, enRoot := renderSVG(t, s, r, SVGOptions{Lang: "en"})
			if !strings.Contains(enRoot.allText(), step) || reFrenchDecimal.MatchString(enRoot.allText()) {
				t.Errorf("English SVG changed: step %q", step)
			}
		})
	}
	if s := Numbers("fr")("4.67 s, 18.5%, 72.0 GiB, 450 GB/s on llama-3.1-8b"); s != "4,67 s, 18,5\u00a0%, 72,0 Gio, 450 Go/s on llama-3.1-8b" {
		t.Errorf("Numbers(fr): %q", s)
	}
}
