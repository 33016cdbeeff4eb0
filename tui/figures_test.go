package tui

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/export"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/static"
)

// One number per quantity (issue 18, point 5): every surface that prints a figure prints the
// same string for it. Each scenario is rendered as a user sees it: the explorer (its strip in two
// lines and in one, its footer, its Pipeline tab, its Learn tab), `report` text and JSON, the
// Markdown and the SVG export; the shared figures are parsed out of each and compared. A surface that stops
// printing a figure it printed fails too, so that drift cannot hide behind a changed wording.

// figureScenarios are the scenarios the figures are compared on: the three training schedules,
// PCIe, several nodes, serving with a pipeline (with as many requests as stages and with fewer),
// and tour steps.
func figureScenarios(t *testing.T) []struct {
	name string
	edit func(*model.Scenario)
} {
	t.Helper()
	_, p := testScenario(t)
	tour := func(name string) func(*model.Scenario) {
		sf, err := assets.TourScenario(name, p)
		if err != nil {
			t.Fatal(err)
		}
		return func(s *model.Scenario) { *s = sf.Scenario }
	}
	pcie, err := p.GPU("h100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	pcie5, err := p.Link("pcie5")
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		edit func(*model.Scenario)
	}{
		{"1f1b", nil},
		{"interleaved", func(s *model.Scenario) {
			s.Layout.TP, s.Layout.PP, s.Layout.Chunks, s.Layout.Schedule = 2, 4, 2, model.Interleaved
		}},
		{"zb-h1", func(s *model.Scenario) { s.Layout.TP, s.Layout.PP, s.Layout.Schedule = 2, 4, model.ZBH1 }},
		{"pcie", func(s *model.Scenario) {
			s.Cluster.GPU, s.Cluster.Intra = pcie, pcie5
			s.Layout.TP, s.Layout.PP = 2, 4
		}},
		{"multi-node", func(s *model.Scenario) {
			s.Cluster.GPUs, s.Workload.GlobalBatch = 32, 32
			s.Layout.TP, s.Layout.PP = 8, 4
		}},
		{"infer-pp", func(s *model.Scenario) { s.Workload.Mode = model.Infer }},
		{"infer-fewer-requests", func(s *model.Scenario) {
			s.Workload.Mode, s.Workload.Requests = model.Infer, 4
			s.Layout.TP, s.Layout.PP = 1, 8
		}},
		{"tour/pp-split", tour("pp-split")},
		{"tour/bubble", tour("bubble")},
		{"tour/tp-node-pp-across", tour("tp-node-pp-across")},
	}
}

// figures collects, per figure, what each surface printed for it.
type figures map[string]map[string]string

func (f figures) add(t *testing.T, figure, surface, text string, re *regexp.Regexp, group int) {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil || m[group] == "" {
		t.Errorf("%s: %s prints no %s (/%s/)", figure, surface, figure, re)
		return
	}
	f.put(figure, surface, m[group])
}

func (f figures) put(figure, surface, v string) {
	if f[figure] == nil {
		f[figure] = map[string]string{}
	}
	f[figure][surface] = v
}

var (
	reStrip2PP   = regexp.MustCompile(`(?:bubble|idle) (\S+ \S+) = (\S+%), sends (\S+ \S+)`)
	reStrip2TP   = regexp.MustCompile(`all-reduces (\S+ \S+) = (\S+%)`)
	reStrip1PP   = regexp.MustCompile(`PP \d+ \([^)]*\) (?:bubble|idle) [█░]+ (\S+%)`)
	reFooter     = regexp.MustCompile(`(?:bubble|idle) (\S+%) · comm (\S+%)`)
	rePipeTrain  = regexp.MustCompile(`bubble (\S+%) simulated · (\S+%) closed form`)
	rePipeInfer  = regexp.MustCompile(`serve \S+ \S+ · idle (\S+%)(?: · closed form (\S+%))?`)
	rePipeStage  = regexp.MustCompile(`S(\d+) +[\d,\-]+ +\d+(?: \+embed)?(?: \+head)? +(\d+\.\d%)`)
	reRepBubble  = regexp.MustCompile(`(?m)^bubble +(\S+%)(?:  closed form (\S+%))?`)
	reRepComm    = regexp.MustCompile(`(?m)^comm +(\S+%)`)
	reRepTP      = regexp.MustCompile(`(?m)^  tp comm +(\S+ \S+) +(\S+%)`)
	reRepPP      = regexp.MustCompile(`(?m)^  pp (?:comm|sends) +(\S+ \S+)`)
	reRepStage   = regexp.MustCompile(`(?m)^ +(\d+) +[\d,\-]+ +\d+ .*? (\d+\.\d%) `)
	reRepSend    = regexp.MustCompile(`(?m)^  pp +send-recv +(\S+ \S+) +.*?(\S+ \S+) +× `)
	reRepSendSum = regexp.MustCompile(`(?m)^  pp +send-recv .*?× +\d+ += (\S+ \S+) `)
	reMDBubble   = regexp.MustCompile(`(?m)^\| bubble \| (\S+%) \| ([^|]*) \|$`)
	reMDBubbleT  = regexp.MustCompile(`(?m)^\| bubble \| \S+ \S+ \| (\S+%) \|$`)
	reMDComm     = regexp.MustCompile(`(?m)^\| exposed communication \| (\S+%) \|`)
	reMDTP       = regexp.MustCompile(`(?m)^\| TP communication \| (\S+ \S+) \| (\S+%) \|`)
	reMDPP       = regexp.MustCompile(`(?m)^\| (?:PP communication|PP sends [^|]*) \| (\S+ \S+) \|`)
	reMDClosed   = regexp.MustCompile(`closed form (\d+\.\d%)`)
	reSVGTrain   = regexp.MustCompile(`bubble (\S+%) simulated, closed form .*? = (\S+%)`)
	reSVGInfer   = regexp.MustCompile(`idle (\S+%) simulated(?:, pipeline fill .*? = (\S+%))?`)
	reLearnBusy  = regexp.MustCompile(`busiest stage \(S(\d+), busy (\S+%) of the step\)`)
	reLearnBub   = regexp.MustCompile(`(?:(?m:^)simulated += |the simulation measures |the busiest stage \(S\d+\) idles |no bubble \()(\S+%)`)
	reLearnForm  = regexp.MustCompile(`(?:= (\S+%) +\(closed form\)|over the step: (\S+%);)`)
	reLearnTP    = regexp.MustCompile(`over the step TP communication is (\S+ \S+), or (\S+%) of`)
	reLearnTPInf = regexp.MustCompile(`decode layer and (\S+%) of the serve time`)
	reTags       = regexp.MustCompile(`<[^>]*>`)
	reSpaces     = regexp.MustCompile(`\s+`)
	rePercentNum = regexp.MustCompile(`^\d+\.\d%$`)
)

// reportJSON is the part of `report --json` the figures are read from.
type reportJSON struct {
	Bubble    float64 `json:"bubble_fraction"`
	Comm      float64 `json:"comm_fraction"`
	Breakdown struct {
		TPComm float64 `json:"tp_comm"`
		PPComm float64 `json:"pp_comm"`
	} `json:"breakdown_s"`
	ClosedForm *float64 `json:"closed_form_bubble"`
	Stages     []struct {
		Stage     int     `json:"stage"`
		BusyShare float64 `json:"busy_share"`
	} `json:"stages"`
	PPSends *struct {
		BytesPerGPU float64 `json:"bytes_per_gpu"`
		SendS       float64 `json:"send_s"`
		TimeS       float64 `json:"time_s"`
		InIdle      bool    `json:"in_idle"`
	} `json:"pp_sends"`
}

func TestEveryFigureIsOneNumberOnEverySurface(t *testing.T) {
	for _, sc := range figureScenarios(t) {
		t.Run(strings.ReplaceAll(sc.name, "/", "-"), func(t *testing.T) {
			big := ready(t, 200, 60, sc.edit)   // the strip in two lines, the whole stage table
			small := ready(t, 110, 24, sc.edit) // the strip in one line
			s := big.data.Scenario
			infer := s.Workload.Mode == model.Infer
			if !big.hasData || !small.hasData {
				t.Fatalf("no result: %v", big.note)
			}
			// The CLI's evaluation (report and export evaluate the scenario themselves).
			r, err := costmodel.Evaluate(s)
			if err != nil {
				t.Fatal(err)
			}
			f := figures{}

			// The explorer.
			view := big.View()
			lines := strings.Split(view, "\n")
			strip := strings.Join(lines[1:1+big.lay.Strip.H], "\n")
			footer := lines[len(lines)-1]
			if s.Layout.PP > 1 {
				m := reStrip2PP.FindStringSubmatch(strip)
				if m == nil {
					t.Fatalf("the strip names no bubble and sends:\n%s", strip)
				}
				f.put("bubble", "strip", m[2])
				f.put("pp sends", "strip", m[3])
				f.add(t, "bubble", "strip (one line)", strings.Split(small.View(), "\n")[1], reStrip1PP, 1)
			}
			if s.Layout.TP > 1 {
				if m := reStrip2TP.FindStringSubmatch(strip); m == nil {
					t.Errorf("the strip names no all-reduce time:\n%s", strip)
				} else {
					f.put("tp comm", "strip", m[1])
					f.put("tp comm share", "strip", m[2])
				}
			}
			f.add(t, "bubble", "footer", footer, reFooter, 1)
			f.add(t, "comm", "footer", footer, reFooter, 2)
			closed, applies := r.ClosedFormBubble()
			if infer {
				m := rePipeInfer.FindStringSubmatch(view)
				if m == nil {
					t.Fatalf("the Pipeline tab's header has no idle share:\n%s", view)
				}
				f.put("bubble", "pipeline", m[1])
				if m[2] != "" {
					f.put("closed form", "pipeline", m[2])
				}
			} else {
				f.add(t, "bubble", "pipeline", view, rePipeTrain, 1)
				f.add(t, "closed form", "pipeline", view, rePipeTrain, 2)
			}
			for _, m := range rePipeStage.FindAllStringSubmatch(view, -1) {
				f.put("stage "+m[1]+" busy", "pipeline", m[2])
			}

			// The Learn tab: its explanations quote the same figures.
			doc, err := learn.Document(learn.NewTexts(mustTexts(t, "en")), big.learn.Facts())
			if err != nil {
				t.Fatal(err)
			}
			lt := strings.ReplaceAll(learn.PlainText(doc), "\u00a0", " ")
			f.add(t, "bubble", "learn", lt, reLearnBub, 1)
			if m := reLearnForm.FindStringSubmatch(lt); m != nil {
				f.put("closed form", "learn", m[1]+m[2])
			}
			if s.Layout.PP > 1 && !infer {
				m := reLearnBusy.FindStringSubmatch(lt)
				if m == nil {
					t.Errorf("stage busy: learn prints no busiest stage's share (/%s/)", reLearnBusy)
				} else {
					f.put("stage "+m[1]+" busy", "learn", m[2])
				}
			}
			if s.Layout.TP > 1 {
				if infer {
					f.add(t, "tp comm share", "learn", lt, reLearnTPInf, 1)
				} else {
					f.add(t, "tp comm", "learn", lt, reLearnTP, 1)
					f.add(t, "tp comm share", "learn", lt, reLearnTP, 2)
				}
			}

			// report, text.
			var rep bytes.Buffer
			if err := static.RenderReport(&rep, s, r); err != nil {
				t.Fatal(err)
			}
			text := rep.String()
			f.add(t, "bubble", "report", text, reRepBubble, 1)
			if m := reRepBubble.FindStringSubmatch(text); m != nil && m[2] != "" {
				f.put("closed form", "report", m[2])
			}
			f.add(t, "comm", "report", text, reRepComm, 1)
			if s.Layout.TP > 1 {
				f.add(t, "tp comm", "report", text, reRepTP, 1)
				f.add(t, "tp comm share", "report", text, reRepTP, 2)
			}
			if s.Layout.PP > 1 {
				f.add(t, "pp sends", "report", text, reRepPP, 1)
			}
			for _, m := range reRepStage.FindAllStringSubmatch(text, -1) {
				f.put("stage "+m[1]+" busy", "report", m[2])
			}

			// report --json: the document the CLI writes (static.JSONReport), decoded.
			raw, err := json.Marshal(static.JSONReport(r))
			if err != nil {
				t.Fatal(err)
			}
			var js reportJSON
			if err := json.Unmarshal(raw, &js); err != nil {
				t.Fatal(err)
			}
			f.put("bubble", "json", static.Percent(js.Bubble))
			f.put("comm", "json", static.Percent(js.Comm))
			if s.Layout.TP > 1 {
				f.put("tp comm", "json", static.Seconds(js.Breakdown.TPComm))
			}
			if js.ClosedForm != nil {
				f.put("closed form", "json", static.Percent(*js.ClosedForm))
			}
			for _, st := range js.Stages {
				f.put("stage "+strconv.Itoa(st.Stage)+" busy", "json", static.Percent(st.BusyShare))
			}
			if len(js.Stages) != len(r.Detail.Stages) {
				t.Errorf("json: %d stages, the report has %d", len(js.Stages), len(r.Detail.Stages))
			}
			if s.Layout.PP > 1 {
				if js.PPSends == nil {
					t.Fatal("json: no pp_sends with a pipeline")
				}
				ps := js.PPSends
				if ps.InIdle != infer || js.Breakdown.PPComm != 0 && infer {
					t.Errorf("json: pp_sends.in_idle %v, pp_comm %g in %s", ps.InIdle, js.Breakdown.PPComm, s.Workload.Mode)
				}
				// The step's pp figure: what the step waits on the sends in training (pp comm),
				// the sends inside the idle in serving (pp sends).
				if infer {
					f.put("pp sends", "json", static.Seconds(ps.TimeS))
					f.add(t, "pp sends total", "report", text, reRepPP, 1)
				} else {
					f.put("pp sends", "json", static.Seconds(js.Breakdown.PPComm))
					// One send, as report's collectives table has it (in serving that table's is the
					// run's mean step, the JSON's a decode step: checkSendSizes).
					f.add(t, "pp send size", "report", text, reRepSend, 1)
					f.add(t, "pp send time", "report", text, reRepSend, 2)
					f.put("pp send size", "json", static.Bytes(ps.BytesPerGPU))
					f.put("pp send time", "json", static.Seconds(ps.SendS))
				}
				f.add(t, "pp sends total", "report collectives", text, reRepSendSum, 1)
				f.put("pp sends total", "json", static.Seconds(ps.TimeS))
			} else if js.PPSends != nil {
				t.Errorf("json: pp_sends %+v without a pipeline", *js.PPSends)
			}

			// export --markdown.
			var md bytes.Buffer
			if err := export.Markdown(&md, s, r, big.cmp, "en"); err != nil {
				t.Fatal(err)
			}
			mdText := md.String()
			f.add(t, "bubble", "markdown", mdText, reMDBubble, 1)
			f.add(t, "bubble", "markdown breakdown", mdText, reMDBubbleT, 1)
			if m := reMDBubble.FindStringSubmatch(mdText); m != nil {
				if c := reMDClosed.FindStringSubmatch(m[2]); c != nil {
					f.put("closed form", "markdown", c[1])
				}
			}
			f.add(t, "comm", "markdown", mdText, reMDComm, 1)
			if s.Layout.TP > 1 {
				f.add(t, "tp comm", "markdown", mdText, reMDTP, 1)
				f.add(t, "tp comm share", "markdown", mdText, reMDTP, 2)
			}
			if s.Layout.PP > 1 {
				f.add(t, "pp sends", "markdown", mdText, reMDPP, 1)
			}

			// export --svg: its caption, tags dropped.
			var svg bytes.Buffer
			if err := export.SVG(&svg, s, r, export.SVGOptions{Lang: "en"}); err != nil {
				t.Fatal(err)
			}
			svgText := html.UnescapeString(reSpaces.ReplaceAllString(reTags.ReplaceAllString(svg.String(), " "), " "))
			if infer {
				m := reSVGInfer.FindStringSubmatch(svgText)
				if m == nil {
					t.Fatalf("the SVG's caption has no idle share")
				}
				f.put("bubble", "svg", m[1])
				if m[2] != "" {
					f.put("closed form", "svg", m[2])
				}
			} else {
				f.add(t, "bubble", "svg", svgText, reSVGTrain, 1)
				f.add(t, "closed form", "svg", svgText, reSVGTrain, 2)
			}

			// Each figure: one string on every surface that prints it, and the surfaces that
			// must print it do.
			must := map[string][]string{
				"bubble": {"footer", "pipeline", "report", "json", "markdown", "markdown breakdown", "svg", "learn"},
				"comm":   {"footer", "report", "json", "markdown"},
			}
			if s.Layout.PP > 1 {
				must["bubble"] = append(must["bubble"], "strip", "strip (one line)")
				must["pp sends"] = []string{"strip", "report", "json", "markdown"}
				must["pp sends total"] = []string{"report collectives", "json"}
			}
			if s.Layout.TP > 1 {
				must["tp comm"] = []string{"strip", "report", "json", "markdown"}
				must["tp comm share"] = []string{"strip", "report", "markdown", "learn"}
				if !infer {
					must["tp comm"] = append(must["tp comm"], "learn")
				}
			}
			if applies {
				must["closed form"] = []string{"pipeline", "report", "json", "markdown", "svg", "learn"}
			} else if len(f["closed form"]) > 0 {
				// Serving with requests enough to fill the pipeline has no closed form: none is
				// set against its bubble (no "closed form 0.0%").
				t.Errorf("a closed form that does not apply is printed: %v", f["closed form"])
			}
			for i := range r.Detail.Stages {
				must["stage "+strconv.Itoa(i)+" busy"] = []string{"pipeline", "report", "json"}
			}
			for figure, surfaces := range must {
				for _, sf := range surfaces {
					if _, ok := f[figure][sf]; !ok {
						t.Errorf("%s: %s does not print it", figure, sf)
					}
				}
			}
			for figure, by := range f {
				vals := map[string][]string{}
				for sf, v := range by {
					vals[v] = append(vals[v], sf)
				}
				if len(vals) > 1 {
					t.Errorf("%s: %d numbers for one quantity: %v", figure, len(vals), vals)
				}
				if strings.HasSuffix(figure, "busy") || figure == "bubble" || figure == "comm" {
					for v := range vals {
						if !rePercentNum.MatchString(v) {
							t.Errorf("%s: %q is no percentage", figure, v)
						}
					}
				}
			}
			// The figures are the Report's own, through its one definition of each.
			want := map[string]string{"bubble": static.Percent(r.BubbleFraction), "comm": static.Percent(r.CommFraction)}
			if applies {
				want["closed form"] = static.Percent(closed)
			}
			for i := range r.Detail.Stages {
				want["stage "+strconv.Itoa(i)+" busy"] = static.Percent(r.StageBusyShare(i))
			}
			for figure, w := range want {
				for sf, v := range f[figure] {
					if v != w {
						t.Errorf("%s: %s prints %s, the report's is %s", figure, sf, v, w)
					}
				}
			}
			checkSendSizes(t, s, big.cmp.Rows, mdText)
		})
	}
}

// checkSendSizes: what one GPU sends across a stage boundary is the same in the Markdown's
// Compare table as in `report --json`'s pp_sends for that very layout and, in training, as in
// `report`'s collectives: one GPU's 1/TP share, the same size and time. (Serving's collectives
// are the run's mean step; the Compare's and the JSON's send is a decode step's.)
func checkSendSizes(t *testing.T, s model.Scenario, rows []common.CompareRow, md string) {
	t.Helper()
	infer := s.Workload.Mode == model.Infer
	seen := 0
	for _, row := range rows {
		if !row.Feasible || row.Layout.PP <= 1 {
			continue
		}
		c := s
		c.Layout = row.Layout
		r, err := costmodel.Evaluate(c)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(static.JSONReport(r))
		if err != nil {
			t.Fatal(err)
		}
		var js reportJSON
		if err := json.Unmarshal(raw, &js); err != nil {
			t.Fatal(err)
		}
		if js.PPSends == nil {
			t.Errorf("%s: report --json has no pp_sends", row.Name)
			continue
		}
		fromJSON := static.Bytes(js.PPSends.BytesPerGPU) + " in " + static.Seconds(js.PPSends.SendS)
		if !infer {
			var rep bytes.Buffer
			if err := static.RenderReport(&rep, c, r); err != nil {
				t.Fatal(err)
			}
			m := reRepSend.FindStringSubmatch(rep.String())
			if m == nil {
				t.Errorf("%s: report lists no pp send-recv:\n%s", row.Name, rep.String())
				continue
			}
			if fromText := m[1] + " in " + m[2]; fromText != fromJSON {
				t.Errorf("%s: report's pp send-recv is %s, its JSON's pp_sends %s", row.Name, fromText, fromJSON)
			}
		}
		want := "per stage boundary, " + fromJSON
		if !strings.Contains(md, want) {
			i := strings.Index(md, "per stage boundary, ")
			got := ""
			if i >= 0 {
				got = md[i:min(len(md), i+60)]
			}
			t.Errorf("%s: the Markdown's stage send is not report's %q (one GPU's): %q", row.Name, want, got)
		}
		seen++
	}
	if seen == 0 && slices.ContainsFunc(rows, func(r common.CompareRow) bool { return r.Feasible && r.Layout.PP > 1 }) {
		t.Error("no stage send compared")
	}
}
