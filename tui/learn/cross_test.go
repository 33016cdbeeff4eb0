package learn

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// evaluated is a scenario's Data with the Compare tab's comparison of it.
func evaluated(t *testing.T, s model.Scenario) (common.Data, common.Compare) {
	t.Helper()
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}, compare.Build(s)
}

// defaultTrain is the explorer's first screen: llama-3-70b training on 32 H100s, TP 8 × PP 4,
// global batch 32, where PP only overtakes TP only from m = 8 and no longer fits from m = 16.
func defaultTrain(t *testing.T) model.Scenario {
	s := tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Train, 32, 8, 4)
	s.Workload.GlobalBatch = 32
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// The crossover claims of the Learn texts: "PP only overtakes TP only from m = 8[, until it no
// longer fits at m = 16][; TP only no longer fits from m = …][; TP only is back ahead from m = …]".
var (
	reCrossEN = regexp.MustCompile(`PP only overtakes TP only from m = (\d+)(?:, until it no longer fits at m = (\d+))?(?:; TP only no longer fits from m = (\d+))?(?:; TP only is back ahead from m = (\d+))?`)
	reCrossFR = regexp.MustCompile(`PP seul dépasse TP seul dès m = (\d+)(?:, jusqu'à m = (\d+) où il ne tient plus en mémoire)?(?:\x{00a0}; TP seul ne tient plus dès m = (\d+))?(?:\x{00a0}; TP seul repasse devant dès m = (\d+))?`)
)

// checkCrossClaim: a claim "PP ahead from m = a" holds where both layouts fit: from a to its
// bound (where PP only stops fitting, or TP only is back ahead), every point of the sweep has
// both layouts running with PP only ahead, except from where the claim says TP only no longer
// fits; where it says PP only no longer fits, it does not.
func checkCrossClaim(t *testing.T, name string, pts []common.CrossPoint, claim []string) {
	t.Helper()
	num := func(s string) int {
		if s == "" {
			return 0
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	from, until, tpGone, back := num(claim[1]), num(claim[2]), num(claim[3]), num(claim[4])
	stated := false
	for _, p := range pts {
		switch {
		case p.Micro < from:
			continue
		case back > 0 && p.Micro >= back:
			if !(p.TP > p.PP) {
				t.Errorf("%s: %q, yet at m = %d TP only is not ahead (%.0f against %.0f)", name, claim[0], p.Micro, p.TP, p.PP)
			}
			return
		case until > 0 && p.Micro >= until:
			if p.Micro == until && p.PP > 0 {
				t.Errorf("%s: %q, yet PP only fits at m = %d", name, claim[0], p.Micro)
			}
			return
		case tpGone > 0 && p.Micro >= tpGone:
			if p.Micro == tpGone && p.TP > 0 {
				t.Errorf("%s: %q, yet TP only fits at m = %d", name, claim[0], p.Micro)
			}
			if !(p.PP > 0) {
				t.Errorf("%s: %q, yet PP only no longer fits at m = %d", name, claim[0], p.Micro)
			}
		case !(p.TP > 0) || !(p.PP > 0):
			t.Errorf("%s: %q, yet at m = %d TP only %.0f, PP only %.0f tokens/s: the claim holds where one does not fit", name, claim[0], p.Micro, p.TP, p.PP)
		case p.PP < p.TP:
			t.Errorf("%s: %q, yet at m = %d TP only is ahead", name, claim[0], p.Micro)
		default:
			stated = stated || p.Micro == from
		}
	}
	if !stated {
		t.Errorf("%s: %q, but the sweep has no point at m = %d where PP only is ahead", name, claim[0], from)
	}
}

// TestCrossClaimHoldsWhereBothFit (issue 18, point 3): the Learn tab states the Compare tab's
// crossover with the Compare tab's rule (common.Crossovers and common.Bound): the claim holds only
// where both layouts fit. On the first screen PP only overtakes TP only from m = 8 and no longer
// fits from m = 16: the text says so, in English and French, and every stated claim is checked
// against the sweep.
func TestCrossClaimHoldsWhereBothFit(t *testing.T) {
	scenarios := map[string]model.Scenario{"default": defaultTrain(t)}
	for _, step := range []string{"pcie", "tp-node-pp-across", "bubble"} {
		p, err := assets.Load()
		if err != nil {
			t.Fatal(err)
		}
		f, err := assets.TourScenario(step, p)
		if err != nil {
			t.Fatal(err)
		}
		scenarios["tour/"+step] = f.Scenario
	}
	for name, s := range scenarios {
		d, cmp := evaluated(t, s)
		f := NewFacts(d, cmp, true)
		cs := common.Crossovers(cmp.Cross)
		ppWins := false
		for _, c := range cs {
			ppWins = ppWins || c.PPWon
		}
		for _, lang := range assets.Langs {
			doc, err := Document(textsOf(t, lang), f)
			if err != nil {
				t.Fatal(err)
			}
			text := PlainText(doc)
			re := map[string]*regexp.Regexp{"en": reCrossEN, "fr": reCrossFR}[lang]
			claim := re.FindStringSubmatch(text)
			if claim == nil {
				if ppWins {
					t.Errorf("%s %s: the Compare tab's chart has PP only overtaking TP only; the Learn tab does not say so", name, lang)
				}
				continue
			}
			checkCrossClaim(t, name+" "+lang, cmp.Cross, claim)
			if name == "default" && claim[2] == "" {
				t.Errorf("%s %s: %q, though PP only no longer fits from m = 16 on the first screen", name, lang, claim[0])
			}
		}
	}
}

// The inference caption bounds its claim the same way: requests at once, until PP only no longer
// fits; TP only gone; TP only back ahead.
func TestInferenceCaptionBoundsTheCrossover(t *testing.T) {
	s := tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Infer, 8, 8, 1)
	d, cmp := evaluated(t, s)
	tp, pp := cmp.Row(common.RowTPOnly), cmp.Row(common.RowPPOnly)
	if tp < 0 || pp < 0 || !cmp.Rows[tp].Feasible || !cmp.Rows[pp].Feasible {
		t.Fatalf("TP only and PP only must both run: %+v", cmp.Rows)
	}
	pts := func(tpv []float64, ppv ...float64) []common.CrossPoint {
		var out []common.CrossPoint
		for i := range tpv {
			out = append(out, common.CrossPoint{Micro: 1 << i, TP: tpv[i], PP: ppv[i]})
		}
		return out
	}
	cases := []struct {
		name   string
		pts    []common.CrossPoint
		en, fr string
	}{
		{"until PP only no longer fits", pts([]float64{30, 30, 30, 30, 30}, 10, 20, 28, 40, 0),
			"from 8 requests at once, until PP only no longer fits at 16.",
			"dès 8 requêtes à la fois sur le graphique, jusqu'à 16 où PP seul ne tient plus en mémoire."},
		{"TP only no longer fits", pts([]float64{30, 30, 30, 30, 0}, 10, 20, 28, 40, 50),
			"from 8 requests at once (TP only no longer fits from 16).",
			"dès 8 requêtes à la fois sur le graphique (TP seul ne tient plus dès 16)."},
		{"TP only back ahead", pts([]float64{30, 30, 30, 30, 30}, 10, 20, 28, 40, 20),
			"from 8 requests at once, until TP only is back ahead at 16.",
			"dès 8 requêtes à la fois sur le graphique, jusqu'à 16 où TP seul repasse devant."},
		{"to the end", pts([]float64{30, 30, 30, 30, 30}, 10, 20, 28, 40, 50),
			"from 8 requests at once.", "dès 8 requêtes à la fois sur le graphique."},
	}
	for _, tc := range cases {
		c := cmp
		c.Cross = tc.pts
		// The caption's crossover sentence is for a PP only that serves less than TP only.
		c.Rows = append([]common.CompareRow(nil), cmp.Rows...)
		c.Rows[pp].Report.TokensPerS = c.Rows[tp].Report.TokensPerS / 2
		f := NewFacts(d, c, true)
		for _, lang := range assets.Langs {
			_, lines, err := Caption(textsOf(t, lang), "inference", f, true, 1000)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(strings.Join(lines, " "), "\u00a0", " ")
			want := map[string]string{"en": tc.en, "fr": tc.fr}[lang]
			if !strings.Contains(got, want) {
				t.Errorf("%s %s: the caption lacks %q:\n%s", tc.name, lang, want, got)
			}
		}
	}
}
