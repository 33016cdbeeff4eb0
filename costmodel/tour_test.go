package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// TestTourScenarios evaluates every step of the guided tour (assets/scenarios/tour) and checks
// that each shows the effect its step teaches, so the files cannot drift from the story.
func TestTourScenarios(t *testing.T) {
	p := presets(t)
	rep := map[string]Report{}
	scen := map[string]model.Scenario{}
	for _, name := range assets.TourSteps() {
		sf, err := assets.TourScenario(name, p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Evaluate(sf.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep[name], scen[name] = r, sf.Scenario
		t.Logf("%-18s bubble %5.1f%%  comm %5.1f%%  step %7.3f s  memory %6.1f of %5.1f GiB  %v", name,
			100*r.BubbleFraction, 100*r.CommFraction, r.StepTime, r.Memory.Total/model.GiB, r.Memory.Capacity/model.GiB, r.Warnings)
	}
	if len(rep) != 11 {
		t.Fatalf("%d tour steps, want 11", len(rep))
	}

	// 1: one GPU, a model that does not fit; 2-8 fit.
	if rep["one-gpu"].Memory.Fits || rep["one-gpu"].Memory.Total <= rep["one-gpu"].Memory.Capacity {
		t.Errorf("one-gpu fits: %.1f of %.1f GiB", rep["one-gpu"].Memory.Total/model.GiB, rep["one-gpu"].Memory.Capacity/model.GiB)
	}
	for _, name := range assets.TourSteps()[1:] {
		if !rep[name].Memory.Fits {
			t.Errorf("%s does not fit in memory", name)
		}
	}

	// 2-4: the bubble shrinks as micro-batches fill the pipeline, near (p-1)/(m+p-1).
	pp, bubble, micro := rep["pp-split"].BubbleFraction, rep["bubble"].BubbleFraction, rep["micro-batches"].BubbleFraction
	if !(pp > bubble && bubble > micro) {
		t.Errorf("bubbles do not shrink: pp-split %.3f, bubble %.3f, micro-batches %.3f", pp, bubble, micro)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"pp-split", 7.0 / 8}, {"bubble", 7.0 / 15}, {"micro-batches", 7.0 / 71}} {
		if got := rep[c.name].BubbleFraction; math.Abs(got-c.want) > 0.05 {
			t.Errorf("%s: bubble %.3f, want about %.3f", c.name, got, c.want)
		}
	}

	// 5-6: TP has no bubble but communicates every layer.
	for _, name := range []string{"tp-split", "all-reduce"} {
		r := rep[name]
		if r.BubbleFraction > 0.01 || r.CommFraction < 0.1 || r.Detail.TPAllReduceBytes <= 0 {
			t.Errorf("%s: bubble %.3f comm %.3f all-reduce %g B", name, r.BubbleFraction, r.CommFraction, r.Detail.TPAllReduceBytes)
		}
	}

	// 7: the same TP over PCIe spends a much larger share of the step communicating.
	if nv, pc := rep["tp-split"].CommFraction, rep["pcie"].CommFraction; pc <= 1.5*nv {
		t.Errorf("pcie comm %.3f not above 1.5 × nvlink's %.3f", pc, nv)
	}
	if rep["pcie"].Detail.TPLink != "pcie5" || rep["tp-split"].Detail.TPLink != "nvlink4" {
		t.Errorf("TP links: %q, %q", rep["tp-split"].Detail.TPLink, rep["pcie"].Detail.TPLink)
	}

	// 8: TP stays inside a node; the PP boundary crosses nodes.
	r, s := rep["tp-node-pp-across"], scen["tp-node-pp-across"]
	for _, w := range r.Warnings {
		if strings.Contains(w, "spans") {
			t.Errorf("tp-node-pp-across warns: %s", w)
		}
	}
	if r.Detail.TPLink != s.Cluster.Intra.ID {
		t.Errorf("TP link %q, want the node's %q", r.Detail.TPLink, s.Cluster.Intra.ID)
	}
	node := func(gpu int) int { return gpu / s.Cluster.GPUsPerNode }
	if len(r.Detail.Stages) != 2 {
		t.Fatalf("%d stages, want 2", len(r.Detail.Stages))
	}
	for i, st := range r.Detail.Stages {
		for _, g := range st.GPUs {
			if node(g) != node(st.GPUs[0]) {
				t.Errorf("stage %d's TP group %v spans nodes", i, st.GPUs)
			}
		}
	}
	if node(r.Detail.Stages[0].GPUs[0]) == node(r.Detail.Stages[1].GPUs[0]) {
		t.Errorf("the PP boundary stays inside a node: %v / %v", r.Detail.Stages[0].GPUs, r.Detail.Stages[1].GPUs)
	}

	// 9: inference, 8 requests at once: latency metrics, every request served together.
	inf := rep["inference"]
	if inf.Inference == nil || inf.Inference.TTFT <= 0 || inf.Inference.TPOT <= 0 || inf.Inference.Completed != 8 ||
		inf.Inference.MaxConcurrency != 8 {
		t.Errorf("inference: %+v", inf.Inference)
	}

	// 11: long context. TP × CP fits where the same GPUs with the CP group as data parallelism
	// do not: CP divides the activations, DP does not; the ring's K/V exchange costs step time,
	// and ZeRO, over DP × CP, does not warn that it has no effect.
	lc, ls := rep["long-context"], scen["long-context"]
	if ls.Layout.CPSize() < 2 || ls.Layout.DP != 1 || ls.Workload.Seq < 65536 {
		t.Fatalf("long-context: CP %d DP %d at %d tokens", ls.Layout.CP, ls.Layout.DP, ls.Workload.Seq)
	}
	noCP := ls
	noCP.Layout.DP, noCP.Layout.CP = ls.Layout.CPSize(), 0
	nr, err := Evaluate(noCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("long-context without CP (DP %d): %.1f GiB, step %.1f s", noCP.Layout.DP, nr.Memory.Total/model.GiB, nr.StepTime)
	if nr.Memory.Fits || nr.Memory.Activations < 2*lc.Memory.Activations {
		t.Errorf("long-context: without CP %.1f GiB (activations %.1f GiB), fits %v; with CP %.1f GiB (activations %.1f GiB)",
			nr.Memory.Total/model.GiB, nr.Memory.Activations/model.GiB, nr.Memory.Fits, lc.Memory.Total/model.GiB, lc.Memory.Activations/model.GiB)
	}
	if lc.Breakdown.CPComm <= 0 || lc.Detail.Layer.CP == nil || lc.Detail.Layer.CP.Steps != ls.Layout.CPSize()-1 {
		t.Errorf("long-context: CP exchange %g s, detail %+v", lc.Breakdown.CPComm, lc.Detail.Layer.CP)
	}
	for _, w := range lc.Warnings {
		if strings.Contains(w, "no effect") {
			t.Errorf("long-context warns: %s", w)
		}
	}
}
