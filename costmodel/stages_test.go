package costmodel

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// stagedScenario is llama-3-8b on one L40S with lognormal lengths and a shared system prompt,
// arriving in the given stages.
func stagedScenario(t testing.TB, stages ...model.RateStage) model.Scenario {
	t.Helper()
	s := scenario(t, "llama-3-8b", "l40s", "pcie4", 1, 1, 1)
	s.Workload.Mode = model.Infer
	s.Workload.PromptTokens, s.Workload.GenTokens = model.DefaultPrompt, model.DefaultGen
	s.Workload.PromptDist = &model.LengthDist{Kind: model.LogNormal, Mean: 400, Sigma: 0.5, Max: 4096}
	s.Workload.GenDist = &model.LengthDist{Kind: model.LogNormal, Mean: 200, Sigma: 0.5, Max: 1024}
	s.Workload.SystemPrompt = 256
	if len(stages) > 0 {
		st := model.RateStages(stages)
		s.Workload.Stages = &st
		s.Workload.Requests = int(model.ExpectedRequests(stages))
	}
	return s
}

// A rate schedule is reported stage by stage: the light stage steady, the one past what one L40S
// serves (about 11 req/s here) "saturated: the queue grows at N req/s", in its row and in a
// warning; ITL and e2e p99 come with the whole run's figures.
func TestReportStages(t *testing.T) {
	s := stagedScenario(t, model.RateStage{Rate: 2, DurationS: 120}, model.RateStage{Rate: 8, DurationS: 120}, model.RateStage{Rate: 20, DurationS: 120})
	r, err := Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	inf := r.Inference
	if inf == nil || len(inf.Stages) != 3 || inf.Confidence != nil {
		t.Fatalf("inference %+v", inf)
	}
	if !(inf.ITL > 0 && inf.ITLP50 <= inf.ITLP90 && inf.ITLP90 <= inf.ITLP99 && inf.E2EP90 <= inf.E2EP99 && inf.E2EP99 > 0) {
		t.Errorf("ITL %g p50 %g p90 %g p99 %g, e2e p90 %g p99 %g", inf.ITL, inf.ITLP50, inf.ITLP90, inf.ITLP99, inf.E2EP90, inf.E2EP99)
	}
	light, heavy := inf.Stages[0], inf.Stages[2]
	if light.Saturated || strings.Contains(light.State, "saturated") || light.Requests < 180 || light.ITL.N == 0 {
		t.Errorf("light stage: %+v", light)
	}
	if !heavy.Saturated || !strings.HasPrefix(heavy.State, "saturated: the queue grows at ") || heavy.QueueGrowthPerS < 5 {
		t.Errorf("heavy stage: %+v", heavy)
	}
	var said int
	for _, w := range r.Warnings {
		if strings.Contains(w, "saturated: the queue grows at") {
			said++
			if !strings.HasPrefix(w, "stage 3 (20 req/s): saturated") {
				t.Errorf("warning %q", w)
			}
		}
	}
	if said != 1 {
		t.Errorf("%d saturated warnings in %q", said, r.Warnings)
	}
	// The same schedule without its heavy stage says nothing of saturation.
	s = stagedScenario(t, model.RateStage{Rate: 2, DurationS: 120}, model.RateStage{Rate: 4, Requests: 400})
	r, err = Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range r.Inference.Stages {
		if st.Saturated || strings.Contains(st.State, "saturated") {
			t.Errorf("light schedule, stage %d: %+v", i+1, st)
		}
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "saturated") {
			t.Errorf("light schedule: warning %q", w)
		}
	}
	if got := r.Inference.Stages[1].Requests; got != 400 {
		t.Errorf("stage 2 of 400 requests sent %d", got)
	}
}

// A single rate past capacity says "saturated: the queue grows at N req/s" with N its offered
// less its served rate; a light one does not.
func TestReportSaturatedSingleRate(t *testing.T) {
	s := stagedScenario(t)
	s.Workload.Rate, s.Workload.Requests = 20, 2400
	r, err := Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Inference.Confidence
	if c == nil || !c.Overloaded || c.QueueGrowthPerS < 5 || c.QueueGrowthPerS != c.Offered-c.Served {
		t.Fatalf("20 req/s: %+v", c)
	}
	if !strings.HasPrefix(c.Warning, "saturated: the queue grows at ") || !strings.Contains(c.SaturatedText(), "20 offered") {
		t.Errorf("warning %q", c.Warning)
	}
	s.Workload.Rate, s.Workload.Requests = 2, 400
	r, err = Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Inference.Confidence; c == nil || c.Overloaded || c.SaturatedText() != "" || strings.Contains(c.Warning, "saturated") {
		t.Errorf("2 req/s: %+v", c)
	}
}
