package assets

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

var wantTour = []string{"one-gpu", "pp-split", "bubble", "micro-batches", "tp-split", "all-reduce", "pcie",
	"tp-node-pp-across", "inference", "experts", "long-context"}

func TestTourSteps(t *testing.T) {
	if got := TourSteps(); !slices.Equal(got, wantTour) {
		t.Fatalf("TourSteps() = %v, want %v", got, wantTour)
	}
	p := mustLoad(t)
	for i, name := range wantTour {
		sf, err := TourScenario(name, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sf.Title == "" {
			t.Errorf("%s: no title", name)
		}
		if err := sf.Scenario.Validate(); err != nil {
			t.Errorf("%s: invalid scenario: %v", name, err)
		}
		// Every spelling of the step names the same file.
		file := fmt.Sprintf("%02d-%s", i+1, name)
		for _, alias := range []string{"tour/" + name, file, "tour/" + file + ".yaml", fmt.Sprint(i + 1), strings.ToUpper(name)} {
			other, err := TourScenario(alias, p)
			if err != nil {
				t.Errorf("TourScenario(%q): %v", alias, err)
			} else if !reflect.DeepEqual(other, sf) {
				t.Errorf("TourScenario(%q) differs from TourScenario(%q)", alias, name)
			}
		}
	}
	steps, err := TourScenarios(p)
	if err != nil || len(steps) != len(wantTour) {
		t.Fatalf("TourScenarios: %d steps, %v", len(steps), err)
	}
}

func TestTourScenarioUnknown(t *testing.T) {
	_, err := TourScenario("tour/nope", mustLoad(t))
	if !errors.Is(err, ErrUnknownTourStep) {
		t.Fatalf("err = %v, want ErrUnknownTourStep", err)
	}
	for _, w := range append([]string{`"tour/nope"`}, wantTour...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// TestTourLayouts pins what each step is about; costmodel's tour test checks the effects.
func TestTourLayouts(t *testing.T) {
	p := mustLoad(t)
	for _, tc := range []struct {
		step                            string
		model, gpu, intra               string
		gpus, tp, pp, dp, m, microBatch int
		mode                            model.Mode
	}{
		{"one-gpu", "llama-2-13b", "h100-sxm", "nvlink4", 1, 1, 1, 1, 8, 1, model.Train},
		{"pp-split", "llama-2-13b", "h100-sxm", "nvlink4", 8, 1, 8, 1, 1, 8, model.Train},
		{"bubble", "llama-2-13b", "h100-sxm", "nvlink4", 8, 1, 8, 1, 8, 1, model.Train},
		{"micro-batches", "llama-2-13b", "h100-sxm", "nvlink4", 8, 1, 8, 1, 64, 1, model.Train},
		{"tp-split", "llama-2-13b", "h100-sxm", "nvlink4", 8, 8, 1, 1, 64, 1, model.Train},
		{"all-reduce", "llama-2-13b", "h100-sxm", "nvlink4", 8, 8, 1, 1, 64, 1, model.Train},
		{"pcie", "llama-2-13b", "h100-pcie", "pcie5", 8, 8, 1, 1, 64, 1, model.Train},
		{"tp-node-pp-across", "llama-2-13b", "h100-sxm", "nvlink4", 16, 8, 2, 1, 64, 1, model.Train},
		{"inference", "llama-3-70b", "h100-sxm", "nvlink4", 8, 8, 1, 1, 8, 1, model.Infer},
		{"long-context", "gemma-3-27b", "h100-sxm", "nvlink4", 32, 8, 1, 1, 32, 1, model.Train},
	} {
		sf, err := TourScenario(tc.step, p)
		if err != nil {
			t.Fatal(err)
		}
		s := sf.Scenario
		got := fmt.Sprint(s.Arch.ID, s.Cluster.GPU.ID, s.Cluster.Intra.ID, s.Cluster.GPUs, s.Layout.TP, s.Layout.PP,
			s.Layout.DP, s.MicroBatches(), s.Layout.MicroBatch, s.Workload.Mode)
		want := fmt.Sprint(tc.model, tc.gpu, tc.intra, tc.gpus, tc.tp, tc.pp, tc.dp, tc.m, tc.microBatch, tc.mode)
		if got != want {
			t.Errorf("%s: got %s, want %s", tc.step, got, want)
		}
		if tc.step == "long-context" && (s.Layout.CP != 4 || s.Workload.Seq != 131072) {
			t.Errorf("long-context: CP %d at %d tokens, want CP 4 at 131072", s.Layout.CP, s.Workload.Seq)
		}
	}
}

func TestScenarioRoundTripTour(t *testing.T) {
	p := mustLoad(t)
	for _, name := range TourSteps() {
		sf, err := TourScenario(name, p)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, name, sf.Scenario, sf.Title, p)
	}
}

func roundTrip(t *testing.T, label string, s model.Scenario, title string, p *Presets) {
	t.Helper()
	data := MarshalScenario(s, title)
	back, err := ParseScenario(label+".yaml", data, p)
	if err != nil {
		t.Fatalf("%s: ParseScenario(MarshalScenario): %v\n%s", label, err, data)
	}
	if back.Title != title {
		t.Errorf("%s: title %q, want %q", label, back.Title, title)
	}
	if !reflect.DeepEqual(back.Scenario, s) {
		t.Errorf("%s: round trip differs:\n got %+v\nwant %+v\nfile:\n%s", label, back.Scenario, s, data)
	}
	if strings.Contains(string(data), "note:") {
		t.Errorf("%s: a preset scenario got a note:\n%s", label, data)
	}
}

// TestScenarioRoundTripRandom writes and reads back scenarios with every key changed at random:
// presets, architecture overrides, calibration, layout, workload and titles that need quoting.
func TestScenarioRoundTripRandom(t *testing.T) {
	p := mustLoad(t)
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) int { return r.IntN(n) }
	titles := []string{"", "plain title", "2024", "yes", "a: colon", "# not a comment", "quotes \"and\" 'these'",
		"français: débit et latence", "two\nlines", " padded "}
	for i := range 300 {
		s := model.Scenario{
			Arch: p.Models[pick(len(p.Models))],
			Cluster: model.Cluster{GPU: p.GPUs[pick(len(p.GPUs))], GPUs: 1 + pick(64), GPUsPerNode: 1 + pick(16),
				Intra: p.Links[pick(len(p.Links))], Inter: p.Links[pick(len(p.Links))], NICsPerNode: 1 + pick(16)},
			Layout: model.Layout{TP: 1 + pick(16), PP: 1 + pick(16), DP: 1 + pick(16), Chunks: 1 + pick(4),
				MicroBatch: 1 + pick(8), Schedule: model.Schedules()[pick(4)], SequenceParallel: pick(2) == 0,
				Recompute: model.Recompute(pick(3)), ZeRO: pick(4), UnfusedAttention: pick(2) == 0, SerialDP: pick(2) == 0,
				TPOverlap: model.TPOverlap(pick(3)), Offload: model.Offload(pick(4)), SPGather: model.SPGather(pick(2)),
				RankOrder: model.RankOrder(pick(model.NumRankOrders)), EPDispatch: model.EPDispatch(pick(2))},
			Workload: model.Workload{Mode: model.Mode(pick(2)), Seq: 1 + pick(1<<15), GlobalBatch: 1 + pick(4096),
				PromptTokens: 1 + pick(8192), GenTokens: 1 + pick(2048), Requests: 1 + pick(256), Precision: model.Precision(pick(4))},
			ReserveBytes: model.DefaultReserveBytes,
		}
		if pick(3) == 0 {
			s.Arch.Layers = 1 + pick(200)
		}
		if pick(3) == 0 {
			s.Arch.Heads = 1 + pick(128) // kv_heads left as it was: must not follow heads
		}
		if pick(3) == 0 {
			s.Arch.KVHeads = 1 + pick(16)
		}
		if pick(4) == 0 {
			s.Arch.Hidden, s.Arch.FFN, s.Arch.Vocab = 64*(1+pick(256)), 1+pick(1<<16), 1+pick(1<<18)
		}
		if pick(4) == 0 {
			s.Cluster.GPU.ComputeEff, s.Cluster.GPU.ComputeEffFP8 = 0.01+0.99*r.Float64(), 0 // compute_eff sets every precision's
			s.Cluster.GPU.MemoryEff, s.Cluster.GPU.GEMMMemoryEff = 0.5, 0                    // memory_eff sets the matmuls' streaming too
		}
		if pick(4) == 0 {
			s.Cluster.Intra.Efficiency, s.Cluster.Inter.Efficiency = r.Float64()+1e-9, 0.123456789
		}
		if pick(4) == 0 {
			s.ReserveBytes = r.Float64() * 8 * model.GiB
		}
		if s.Workload.Mode == model.Infer && s.Cluster.GPUs > 1 && pick(3) == 0 {
			s.Layout.Disagg = model.Disagg{PrefillGPUs: 1 + pick(s.Cluster.GPUs-1), PrefillTP: pick(3), PrefillPP: pick(2)}
		}
		if pa, err := p.Model(s.Arch.ID); err == nil {
			s.Arch.Changes = model.ArchChanges(pa, s.Arch) // a changed preset is read back as changed
		}
		roundTrip(t, fmt.Sprintf("random-%d", i), s, titles[i%len(titles)], p)
	}
}

func TestMarshalScenarioNotes(t *testing.T) {
	p := mustLoad(t)
	sf, err := TourScenario("pcie", p)
	if err != nil {
		t.Fatal(err)
	}
	s := sf.Scenario
	s.Arch.ID = "my-model"
	s.Cluster.GPU.MemoryBytes = 12 * model.GiB
	out := string(MarshalScenario(s, ""))
	for _, w := range []string{`note: model "my-model" is not a preset`, "note: gpu h100-pcie differs from the preset",
		"model: my-model", "layers: 40", "hidden: 5120"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "title:") {
		t.Errorf("empty title written:\n%s", out)
	}
}

func TestMarshalScenarioKeys(t *testing.T) {
	p := mustLoad(t)
	sf, err := TourScenario("tp-node-pp-across", p)
	if err != nil {
		t.Fatal(err)
	}
	out := string(MarshalScenario(sf.Scenario, sf.Title))
	var keys []string
	for _, l := range strings.Split(out, "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			keys = append(keys, k)
		}
	}
	want := []string{"title", "model", "gpu", "gpus", "gpus_per_node", "intra", "inter", "nics_per_node", "tp", "pp", "dp",
		"chunks", "micro_batch", "schedule", "mode", "seq", "batch", "precision", "recompute", "sequence_parallel",
		"zero", "unfused_attention", "serial_dp", "collectives", "prompt", "gen", "requests"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v\n%s", keys, want, out)
	}
	if !strings.HasPrefix(out, "# splitscope scenario") {
		t.Errorf("no header comment:\n%s", out)
	}
}

func TestParseScenarioDefaults(t *testing.T) {
	p := mustLoad(t)
	parse := func(src string) model.Scenario {
		t.Helper()
		sf, err := ParseScenario("d.yaml", []byte(src), p)
		if err != nil {
			t.Fatal(err)
		}
		return sf.Scenario
	}
	s := parse("model: llama-3-70b\ngpu: h100-sxm\n")
	if s.Cluster.GPUs != 32 || s.Cluster.GPUsPerNode != 8 || s.Cluster.Intra.ID != "nvlink4" || s.Cluster.Inter.ID != "ib-ndr" ||
		s.Cluster.NICsPerNode != 8 || s.ReserveBytes != model.DefaultReserveBytes {
		t.Errorf("cluster defaults: %+v", s.Cluster)
	}
	if want := (model.Layout{TP: 8, PP: 4, DP: 1, Chunks: 1, MicroBatch: 1}); s.Layout != want {
		t.Errorf("layout %+v, want %+v", s.Layout, want)
	}
	if want := (model.Workload{Seq: 4096, GlobalBatch: 32, PromptTokens: 1024, GenTokens: 256, Requests: 8}); s.Workload != want {
		t.Errorf("workload %+v, want %+v", s.Workload, want)
	}

	s = parse("model: llama-2-7b\ngpu: h100-pcie\ngpus: 16\ngpus_per_node: 4\nheads: 16\n")
	if s.Arch.Heads != 16 || s.Arch.KVHeads != 16 {
		t.Errorf("kv_heads does not follow heads on a multi-head model: %d/%d", s.Arch.Heads, s.Arch.KVHeads)
	}
	if s.Cluster.Intra.ID != "pcie5" || s.Cluster.NICsPerNode != 4 || s.Layout.TP != 4 || s.Layout.PP != 4 || s.Layout.DP != 1 {
		t.Errorf("derived: intra %s nics %d tp %d pp %d dp %d", s.Cluster.Intra.ID, s.Cluster.NICsPerNode, s.Layout.TP, s.Layout.PP, s.Layout.DP)
	}

	s = parse("model: llama-3-70b\ngpu: h100-sxm\ngpus: 8\ntp: 2\nmicro_batch: 3\n")
	if s.Layout.DP != 4 || s.Workload.GlobalBatch != 36 || s.Workload.Requests != 12 {
		t.Errorf("batch raised to a multiple: dp %d batch %d requests %d", s.Layout.DP, s.Workload.GlobalBatch, s.Workload.Requests)
	}

	s = parse("model: llama-3-70b\ngpu: h100-sxm\ngpus: 8\nmode: infer\ntp: 4\npp: 2\n")
	if s.Layout.MicroBatch != 1 || s.Workload.Requests != 8 {
		t.Errorf("inference, no groups: micro-batch %d requests %d", s.Layout.MicroBatch, s.Workload.Requests)
	}

	s = parse("model: llama-3-70b\ngpu: h100-sxm\ncompute_eff: 0.5\nintra_eff: 0\nreserve_gib: 2.5\n")
	pg, _ := p.GPU("h100-sxm")
	pl, _ := p.Link("nvlink4")
	if s.Cluster.GPU.ComputeEff != 0.5 || s.Cluster.GPU.MemoryEff != pg.MemoryEff || s.Cluster.Intra.Efficiency != pl.Efficiency ||
		s.ReserveBytes != 2.5*model.GiB {
		t.Errorf("calibration: %+v reserve %g", s.Cluster, s.ReserveBytes)
	}

	// Not validated: a split that does not divide the GPUs leaves DP at 1 for Validate to report.
	s = parse("model: llama-3-70b\ngpu: h100-sxm\ntp: 8\npp: 3\n")
	if s.Layout.DP != 1 || s.Validate() == nil {
		t.Errorf("tp 8 pp 3 on 8 GPUs: dp %d, validate %v", s.Layout.DP, s.Validate())
	}
}

func TestParseScenarioSettings(t *testing.T) {
	sf, err := ParseScenario("s.yaml", []byte("title: T\nmodel: LLaMA-3-70B\ngpu: h100-sxm\nschedule: ZB-H1\ntp: 0x4\nintra_eff: 1\nsequence_parallel: true\n"), mustLoad(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{{"model", "llama-3-70b", 2}, {"gpu", "h100-sxm", 3}, {"schedule", "zb-h1", 4}, {"tp", "4", 5},
		{"intra_eff", "1", 6}, {"sequence_parallel", "true", 7}}
	if !slices.Equal(sf.Set, want) {
		t.Errorf("Set = %v, want %v", sf.Set, want)
	}
	if sf.Set[5].Flag() != "sequence-parallel" {
		t.Errorf("Flag() = %q", sf.Set[5].Flag())
	}
	if sf.Title != "T" || sf.Scenario.Layout.TP != 4 || sf.Scenario.Layout.Schedule != model.ZBH1 {
		t.Errorf("parsed %+v", sf)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	p := mustLoad(t)
	const head = "model: llama-3-70b\ngpu: h100-sxm\n"
	for _, tc := range []struct {
		name, src string
		line      int
		key       string
		msg       []string
	}{
		{"unknown key", head + "tpp: 8\n", 3, "tpp", []string{"unknown key: did you mean tp?", "micro_batch"}},
		{"dashes", head + "micro-batch: 2\n", 3, "micro-batch", []string{"write micro_batch"}},
		{"far key", head + "\n\nbox: node.json\n", 5, "box", []string{"unknown key (known: title, model,"}},
		{"unknown model", "model: gpt-5\ngpu: h100-sxm\n", 1, "model", []string{"gpt-5", "unknown model preset", "llama-2-13b", "qwen2.5-72b"}},
		{"unknown gpu", "model: llama-3-70b\n\ngpu: tpu\n", 3, "gpu", []string{"unknown GPU preset", "h100-sxm", "mi300x"}},
		{"unknown link", head + "intra: nvlink9\n", 3, "intra", []string{"unknown link preset", "pcie5"}},
		{"int as text", head + "tp: eight\n", 3, "tp", []string{"tp = eight: must be a whole number"}},
		{"fraction for int", head + "gpus: 2.5\n", 3, "gpus", []string{"must be a whole number"}},
		{"quoted int", head + "gpus: \"8\"\n", 3, "gpus", []string{"must be a whole number"}},
		{"bool", head + "serial_dp: yes\n", 3, "serial_dp", []string{"must be true or false"}},
		{"float", head + "compute_eff: high\n", 3, "compute_eff", []string{"must be a number"}},
		{"enum", head + "schedule: pipedream\n", 3, "schedule", []string{"must be one of 1f1b, gpipe, interleaved, zb-h1"}},
		{"mode", head + "mode: serve\n", 3, "mode", []string{"must be one of train, infer"}},
		{"list", head + "tp:\n  - 8\n", 4, "tp", []string{"must be a single value"}},
		{"null", head + "tp:\n", 3, "tp", []string{"has no value"}},
		{"twice", head + "tp: 8\ntp: 4\n", 4, "tp", []string{"written twice (first on line 3)"}},
		{"missing gpu", "# a comment\nmodel: llama-3-70b\n", 2, "gpu", []string{"missing (required)"}},
		{"not a mapping", "- model: llama-3-70b\n", 1, "", []string{"must be a mapping"}},
		{"empty", "", 1, "", []string{"empty file"}},
		{"syntax", head + "c: d: e\n", 3, "", []string{"lesson.yaml line 3: not YAML: mapping values are not allowed in this context"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("lesson.yaml", []byte(tc.src), p)
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("err = %v, want one Error", err)
			}
			e := es[0]
			if e.File != "lesson.yaml" || e.Line != tc.line || e.Field != tc.key {
				t.Errorf("file %q line %d key %q, want lesson.yaml line %d key %q (%v)", e.File, e.Line, e.Field, tc.line, tc.key, e)
			}
			msg := err.Error()
			if tc.line > 0 && !strings.Contains(msg, fmt.Sprintf("lesson.yaml line %d: %s", tc.line, tc.key)) {
				t.Errorf("message %q does not name the file, line and key", msg)
			}
			for _, w := range tc.msg {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestParseScenarioEveryError(t *testing.T) {
	_, err := ParseScenario("many.yaml", []byte("model: nope\ntp: x\nzzz: 1\n"), mustLoad(t))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%d:%s", e.Line, e.Field))
	}
	if want := []string{"1:model", "2:tp", "3:zzz", "1:gpu"}; !slices.Equal(got, want) {
		t.Errorf("errors %v, want %v\n%v", got, want, err)
	}
}

func TestScenarioKeysAreFlags(t *testing.T) {
	// Every key but title is a flag with '_' for '-': the command line applies them as flags.
	for _, k := range ScenarioKeys() {
		if strings.Contains(k, "-") {
			t.Errorf("key %q has a dash", k)
		}
	}
	if ScenarioKeys()[0] != "title" {
		t.Errorf("first key %q", ScenarioKeys()[0])
	}
}
