package cli

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// confidenceJSON is the part of a serving run's confidence the text prints.
type confidenceJSON struct {
	Steady          bool    `json:"steady"`
	InSystemFirst   float64 `json:"in_system_first_half"`
	InSystemSecond  float64 `json:"in_system_second_half"`
	Warning         string  `json:"warning"`
	SuggestRequests int     `json:"suggest_requests"`
}

// TestSearchConfidenceTextAndJSON: search in serving carries its runs' confidence the same way
// in its text and its JSON: the search's warning about runs too short is one string in both,
// and each candidate whose run warns lists that warning among its own, as report does.
func TestSearchConfidenceTextAndJSON(t *testing.T) {
	args := []string{"search", "--mode", "infer", "--model", "llama-2-13b", "--gpu", "rtx-4090", "--gpus", "8", "--requests", "200", "--rate", "2", "--top", "3"}
	code, text, errs := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := runArgs(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var doc struct {
		Candidates []struct {
			Feasible  bool     `json:"feasible"`
			Warnings  []string `json:"warnings"`
			Inference *struct {
				Confidence *confidenceJSON `json:"confidence"`
			} `json:"inference"`
		} `json:"candidates"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	warned := 0
	for i, c := range doc.Candidates {
		if !c.Feasible {
			continue
		}
		if c.Inference == nil || c.Inference.Confidence == nil {
			t.Fatalf("candidate %d: no confidence in an open-loop serving run", i)
		}
		if w := c.Inference.Confidence.Warning; w != "" {
			warned++
			if !strings.Contains(strings.Join(c.Warnings, "\n"), w) {
				t.Errorf("candidate %d: its confidence warns %q, its warnings do not: %q", i, w, c.Warnings)
			}
		}
	}
	if warned == 0 {
		t.Fatal("the premise: 200 requests at 2 req/s are too few for some layout's run")
	}
	var inJSON string
	for _, w := range doc.Warnings {
		if strings.Contains(w, "serving runs not to be trusted") {
			inJSON = w
		}
	}
	if inJSON == "" {
		t.Fatalf("search --json's warnings say nothing of the runs' confidence: %q", doc.Warnings)
	}
	if !strings.Contains(text, "  ! "+inJSON+"\n") {
		t.Errorf("search's text does not carry the JSON's warning %q:\n%s", inJSON, text)
	}
}

// TestSweepRateConfidenceTextAndJSON: report --sweep-rate's text and JSON agree on each rate's
// steadiness (the text's "queue grows" is the JSON's not steady, more in the system in the
// second half), the goodput, its 95% bounds, and the goodput run's warning.
func TestSweepRateConfidenceTextAndJSON(t *testing.T) {
	args := []string{"report", "--sweep-rate", "--mode", "infer", "--model", "llama-2-13b", "--gpu", "rtx-4090", "--gpus", "8",
		"--tp", "4", "--dp", "2", "--pp", "1", "--slo-ttft", "500ms", "--slo-tpot", "50ms", "--requests", "200"}
	code, text, errs := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := runArgs(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var doc struct {
		Points []struct {
			Rate      float64 `json:"rate"`
			Fits      bool    `json:"fits"`
			Inference struct {
				Rejected   int             `json:"rejected"`
				Confidence *confidenceJSON `json:"confidence"`
			} `json:"inference"`
		} `json:"points"`
		Goodput      float64 `json:"goodput_rate"`
		Low          float64 `json:"goodput_rate_low"`
		High         float64 `json:"goodput_rate_high"`
		GoodputPoint *struct {
			Inference struct {
				Confidence *confidenceJSON `json:"confidence"`
			} `json:"inference"`
		} `json:"goodput_point"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	g4 := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	lines := strings.Split(text, "\n")
	grows := 0
	for _, p := range doc.Points {
		var row string
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == g4(p.Rate) {
				row = l
			}
		}
		if row == "" {
			t.Errorf("rate %s: no row in the text", g4(p.Rate))
			continue
		}
		c := p.Inference.Confidence
		if c == nil {
			t.Errorf("rate %s: no confidence in the JSON", g4(p.Rate))
			continue
		}
		rising := !c.Steady && c.InSystemSecond > c.InSystemFirst
		if p.Fits && p.Inference.Rejected == 0 && rising != strings.HasSuffix(row, "queue grows") {
			t.Errorf("rate %s: JSON steady %v (%.1f then %.1f in the system), the text's row: %s", g4(p.Rate), c.Steady, c.InSystemFirst, c.InSystemSecond, row)
		}
		if rising {
			grows++
		}
	}
	if grows == 0 {
		t.Error("the premise: the sweep goes past the rate this deployment serves")
	}
	if doc.GoodputPoint == nil {
		t.Fatal("the premise: some rate meets the SLO")
	}
	want := regexp.MustCompile(`(?m)^goodput: (\S+) req/s`).FindStringSubmatch(text)
	if want == nil || want[1] != g4(doc.Goodput) {
		t.Errorf("goodput: text %v, JSON %s", want, g4(doc.Goodput))
	}
	bounds := regexp.MustCompile(`(?m)^  95%: (\S+) to (\S+) req/s`).FindStringSubmatch(text)
	if bounds == nil || bounds[1] != g4(doc.Low) || bounds[2] != g4(doc.High) {
		t.Errorf("goodput's 95%% bounds: text %v, JSON %s to %s", bounds, g4(doc.Low), g4(doc.High))
	}
	w := ""
	if c := doc.GoodputPoint.Inference.Confidence; c != nil {
		w = c.Warning
	}
	if got := strings.Contains(text, "  warning: "); got != (w != "") || w != "" && !strings.Contains(text, "  warning: "+w) {
		t.Errorf("the goodput run's warning: JSON %q, the text has a warning line: %v", w, got)
	}
}
