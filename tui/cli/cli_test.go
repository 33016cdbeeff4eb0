package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// runArgs runs the command line and returns the exit code, stdout and stderr.
func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

// contractFlags are the flags architecture.md lists for every command, plus the calibration ones.
var contractFlags = []string{
	"model", "layers", "hidden", "heads", "kv-heads", "ffn", "vocab", "seq", "gpu", "gpus",
	"gpus-per-node", "intra", "inter", "nics-per-node", "tp", "pp", "dp", "chunks", "schedule",
	"mode", "batch", "micro-batch", "precision", "recompute", "sequence-parallel", "zero",
	"prompt", "gen", "requests", "box", "json", "unfused-attention", "serial-dp",
	"compute-eff", "memory-eff", "intra-eff", "inter-eff", "reserve-gib", "calibration",
}

// Required preset IDs from architecture.md.
var (
	requiredModels = strings.Fields("gpt3-175b llama-2-7b llama-2-13b llama-2-70b llama-3-8b llama-3-70b llama-3.1-405b mixtral-8x7b qwen2.5-72b")
	requiredGPUs   = strings.Fields("v100-sxm a100-sxm-40gb a100-sxm-80gb a100-pcie-80gb h100-sxm h100-pcie h200-sxm b200 l40s rtx-4090 rtx-3090 mi300x")
	requiredLinks  = strings.Fields("nvlink2 nvlink3 nvlink4 nvlink5 pcie3 pcie4 pcie5 ib-hdr ib-ndr ib-xdr roce-100 roce-200 roce-400 eth-100")
)

func TestBadInputExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"tp does not divide heads", []string{"report", "--tp", "3"}, []string{"--tp 3: ", "must divide heads (64)"}},
		{"zero GPUs", []string{"report", "--gpus", "0"}, []string{"--gpus 0: "}},
		{"unknown model", []string{"report", "--model", "gpt-5"}, append([]string{"--model gpt-5: unknown model"}, requiredModels...)},
		{"unknown gpu", []string{"--gpu", "tpu-v5"}, []string{"--gpu tpu-v5: unknown GPU", "h100-sxm", "mi300x"}},
		{"unknown link", []string{"report", "--intra", "nvlink9"}, []string{"--intra nvlink9: unknown link", "nvlink4", "pcie5"}},
		{"bad precision", []string{"report", "--precision", "int4"}, []string{"--precision int4: one of bf16, fp16, fp8, fp32"}},
		{"bad schedule", []string{"report", "--schedule", "pipedream"}, []string{"--schedule pipedream: one of", "zb-h1"}},
		{"bad mode in json mode", []string{"report", "--mode", "serve", "--json"}, []string{"--mode serve: one of train, infer"}},
		{"flag parse", []string{"report", "--gpus", "eight"}, []string{"splitscope: --gpus eight: must be a whole number between 1 and 1048576\n"}},
		{"unknown flag", []string{"report", "--tensor", "8"}, []string{"unknown flag: --tensor"}},
		{"unknown command", []string{"reprot"}, []string{`unknown command "reprot"`, "report"}},
		{"extra argument", []string{"report", "llama"}, []string{"takes no arguments"}},
		{"box file missing", []string{"report", "--box", "no-such-node0.json"}, []string{"--box no-such-node0.json: cannot read the file: no such file"}},
		{"negative reserve", []string{"report", "--reserve-gib", "-1"}, []string{"--reserve-gib -1: "}},
		{"prefix hit above 1", []string{"report", "--mode", "infer", "--prefix-hit", "1.5"}, []string{"--prefix-hit 1.5: ", "from 0"}},
		{"too many turns", []string{"report", "--mode", "infer", "--turns", "999"}, []string{"--turns 999: ", "to 256 turns"}},
		{"think without turns", []string{"report", "--mode", "infer", "--think", "30s"}, []string{"--think 30: ", "--turns above 1"}},
		{"negative host tier", []string{"report", "--mode", "infer", "--kv-host-gib", "-2"}, []string{"--kv-host-gib -2: ", "GiB of host memory per GPU"}},
		{"prefill ep not dividing", []string{"report", "--mode", "infer", "--model", "mixtral-8x7b", "--gpus", "16", "--tp", "2", "--disagg", "8:8", "--prefill-tp", "2", "--prefill-ep", "3"}, []string{"--prefill-ep 3: ", "must divide"}},
		{"disagg not P:D", []string{"report", "--mode", "infer", "--gpus", "8", "--disagg", "half"}, []string{"--disagg half: ", "P:D"}},
		{"disagg pools not the GPUs", []string{"report", "--mode", "infer", "--gpus", "8", "--disagg", "3:4"}, []string{"--disagg 3:4: ", "P + D must equal gpus (8)"}},
		{"disagg in training", []string{"report", "--gpus", "8", "--disagg", "4:4"}, []string{"--disagg 4:4: ", "serving only"}},
		{"disagg prefill tp", []string{"report", "--mode", "infer", "--model", "llama-3-8b", "--gpus", "8", "--tp", "1", "--disagg", "4:4", "--prefill-tp", "3"}, []string{"--prefill-tp 3: "}},
		{"eff above one", []string{"report", "--compute-eff", "1.5"}, []string{"--compute-eff 1.5: "}},
		{"batch not a multiple", []string{"report", "--batch", "63", "--micro-batch", "2"}, []string{"--batch 63: "}},
		{"tp times pp does not divide gpus", []string{"report", "--gpus", "8", "--pp", "3", "--tp", "2"}, []string{"--tp 2: tp × pp (2 × 3) must divide gpus (8)"}},
		{"bad objective", []string{"search", "--objective", "speed"}, []string{"--objective speed: one of time, throughput, latency, memory"}},
		{"negative top", []string{"search", "--top", "-1"}, []string{"--top -1: "}},
	} {
		t.Run(tc.name, func(t *testing.T) { requireBadInput(t, tc.args, tc.want) })
	}
}

func TestEveryFieldErrorOnItsOwnLine(t *testing.T) {
	code, _, errs := runArgs(t, "report", "--tp", "3", "--zero", "5", "--chunks", "0")
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, w := range []string{
		"splitscope: --tp 3: must divide heads (64): one of 1, 2, 4, 8, 16, 32, 64\n",
		"splitscope: --zero 5: must be between 0 and 3\n",
		"splitscope: --chunks 0: must be between 1 and 64\n",
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks line %q:\n%s", w, errs)
		}
	}
}

func TestPresets(t *testing.T) {
	code, out, errs := runArgs(t, "presets")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	for _, id := range append(append([]string{"h100-sxm"}, requiredModels...), requiredLinks...) {
		if !strings.Contains(out, id) {
			t.Errorf("presets lacks %s", id)
		}
	}
}

func TestPresetsJSON(t *testing.T) {
	code, out, errs := runArgs(t, "presets", "--json")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	var doc struct {
		Models []map[string]any `json:"models"`
		GPUs   []map[string]any `json:"gpus"`
		Links  []map[string]any `json:"links"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	ids := func(rows []map[string]any) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			id, _ := r["id"].(string)
			m[id] = true
		}
		return m
	}
	for name, c := range map[string]struct {
		rows []map[string]any
		want []string
	}{"models": {doc.Models, requiredModels}, "gpus": {doc.GPUs, requiredGPUs}, "links": {doc.Links, requiredLinks}} {
		have := ids(c.rows)
		for _, id := range c.want {
			if !have[id] {
				t.Errorf("%s lacks %s", name, id)
			}
		}
	}
	for _, l := range doc.Links {
		if _, ok := l["kind"].(string); !ok {
			t.Errorf("link %v: kind is not a name", l["id"])
		}
	}
}

func TestReportHelpListsEveryFlag(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--help")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	for _, f := range contractFlags {
		re := regexp.MustCompile(`(?m)^\s+(-\w, )?--` + regexp.QuoteMeta(f) + `( \S+)?\s+\S`)
		if !re.MatchString(out) {
			t.Errorf("report --help lacks --%s (with an explanation):\n%s", f, out)
		}
	}
	// Each help string says its default: pflag prints it unless it is the zero value.
	root := newRootCmd(&bytes.Buffer{})
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		switch f.DefValue {
		case "0", "", "false", "[]":
			if !strings.Contains(f.Usage, "default") {
				t.Errorf("--%s: help names no default: %q", f.Name, f.Usage)
			}
		}
	})
}

func TestSearchHelp(t *testing.T) {
	code, out, _ := runArgs(t, "search", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"--top", "--objective", "--max-micro-batch", "--max-chunks", "--tp, --pp, --dp, --micro-batch, --schedule and --chunks, when typed, fix that size"} {
		if !strings.Contains(out, w) {
			t.Errorf("search --help lacks %q", w)
		}
	}
	// The serving tie order, goodput's included, in the objective's own text.
	var objective string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--objective string") {
			objective = l
		}
	}
	for _, w := range []string{"goodput", "In inference all but memory rank the SLO first, then the figure with ties within 1% broken by p90 end-to-end latency, then fewer GPUs a replica, then memory"} {
		if !strings.Contains(objective, w) {
			t.Errorf("search --help's --objective lacks %q: %s", w, objective)
		}
	}
	if !strings.Contains(out, "(time, throughput, latency and goodput alike)") {
		t.Error("search --help does not say which serving objectives share the tie order")
	}
}

// scenarioFor builds the scenario the scenario flags describe, without running a command.
func scenarioFor(t *testing.T, args ...string) (model.Scenario, error) {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	sf := &scenarioFlags{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	sf.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return sf.scenario(p, false)
}

func TestScenarioDefaults(t *testing.T) {
	s, err := scenarioFor(t)
	if err != nil {
		t.Fatal(err)
	}
	if s.Arch.ID != "llama-3-70b" || s.Cluster.GPU.ID != "h100-sxm" || s.Cluster.GPUs != 32 || s.Cluster.GPUsPerNode != 8 {
		t.Errorf("model/gpu: %s %s %d/%d", s.Arch.ID, s.Cluster.GPU.ID, s.Cluster.GPUs, s.Cluster.GPUsPerNode)
	}
	if s.Cluster.Intra.ID != s.Cluster.GPU.NativeLink || s.Cluster.Intra.ID != "nvlink4" || s.Cluster.Inter.ID != "ib-ndr" || s.Cluster.NICsPerNode != 8 {
		t.Errorf("links: %s %s ×%d", s.Cluster.Intra.ID, s.Cluster.Inter.ID, s.Cluster.NICsPerNode)
	}
	// TP inside each node, PP across the four nodes.
	want := model.Layout{TP: 8, PP: 4, DP: 1, Chunks: 1, MicroBatch: 1, Schedule: model.OneFOneB}
	if s.Layout != want {
		t.Errorf("layout %+v, want %+v", s.Layout, want)
	}
	wl := model.Workload{Mode: model.Train, Seq: 4096, GlobalBatch: 32, PromptTokens: 1024, GenTokens: 256, Requests: 8, Precision: model.BF16}
	if s.Workload != wl {
		t.Errorf("workload %+v, want %+v", s.Workload, wl)
	}
	if s.ReserveBytes != model.DefaultReserveBytes {
		t.Errorf("reserve %g", s.ReserveBytes)
	}
}

func TestScenarioDerived(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(s model.Scenario) bool
	}{
		{"two nodes: PP across them", []string{"--gpus", "16"}, func(s model.Scenario) bool {
			return s.Layout.TP == 8 && s.Layout.PP == 2 && s.Layout.DP == 1 && s.Workload.GlobalBatch == 32
		}},
		{"one node", []string{"--gpus", "8"}, func(s model.Scenario) bool {
			return s.Layout.TP == 8 && s.Layout.PP == 1 && s.Layout.DP == 1
		}},
		{"pp takes GPUs from tp", []string{"--gpus", "8", "--pp", "2"}, func(s model.Scenario) bool { return s.Layout.TP == 4 && s.Layout.DP == 1 }},
		{"dp given", []string{"--gpus", "16", "--dp", "4"}, func(s model.Scenario) bool { return s.Layout.TP == 4 && s.Layout.PP == 1 && s.Layout.DP == 4 }},
		{"tp given", []string{"--gpus", "8", "--tp", "2"}, func(s model.Scenario) bool { return s.Layout.PP == 1 && s.Layout.DP == 4 }},
		{"batch raised to a multiple", []string{"--gpus", "8", "--micro-batch", "3", "--tp", "4"}, func(s model.Scenario) bool {
			return s.Layout.DP == 2 && s.Workload.GlobalBatch == 36
		}},
		{"batch raised when smaller", []string{"--gpus", "8", "--micro-batch", "16", "--tp", "1"}, func(s model.Scenario) bool {
			return s.Workload.GlobalBatch == 128
		}},
		{"interleaved batch splits into a multiple of pp", []string{"--gpus", "8", "--pp", "4", "--schedule", "interleaved", "--chunks", "2", "--micro-batch", "3"},
			func(s model.Scenario) bool { return s.MicroBatches()%4 == 0 && s.Workload.GlobalBatch == 36 }},
		{"serving keeps the requests (no split to round to)", []string{"--gpus", "8", "--mode", "infer", "--tp", "1"}, func(s model.Scenario) bool {
			return s.Workload.Requests == 8 && s.Layout.DP == 8 && s.Layout.MicroBatch == 1
		}},
		{"model fields override the preset", []string{"--model", "llama-2-7b", "--layers", "8"}, func(s model.Scenario) bool {
			return s.Arch.ID == "llama-2-7b" && s.Arch.Layers == 8 && s.Arch.Hidden == 4096
		}},
		{"heads carry kv-heads on a multi-head model", []string{"--model", "llama-2-7b", "--heads", "16"}, func(s model.Scenario) bool {
			return s.Arch.Heads == 16 && s.Arch.KVHeads == 16
		}},
		{"tp keeps kv-heads compatible", []string{"--model", "llama-3-70b", "--kv-heads", "2", "--heads", "48", "--hidden", "6144", "--ffn", "24576"},
			func(s model.Scenario) bool { return s.Layout.TP == 8 }},
		{"tp divides ffn", []string{"--ffn", "28670"}, func(s model.Scenario) bool { return s.Layout.TP == 2 }},
		{"calibration", []string{"--compute-eff", "0.5", "--memory-eff", "0.6", "--intra-eff", "0.7", "--inter-eff", "0.4", "--reserve-gib", "2.5"},
			func(s model.Scenario) bool {
				return s.Cluster.GPU.ComputeEff == 0.5 && s.Cluster.GPU.MemoryEff == 0.6 && s.Cluster.Intra.Efficiency == 0.7 &&
					s.Cluster.Inter.Efficiency == 0.4 && s.ReserveBytes == 2.5*model.GiB
			}},
		{"zero calibration keeps the preset", []string{"--compute-eff", "0"}, func(s model.Scenario) bool { return s.Cluster.GPU.ComputeEff > 0 }},
		{"an A100 streams its matmuls at Ampere's efficiency", []string{"--gpu", "a100-sxm-80gb"}, func(s model.Scenario) bool {
			return s.Cluster.GPU.GEMMMemoryEff == 0.77 && s.Cluster.GPU.GEMMStreamEff() == 0.77 && s.Cluster.GPU.MemoryEff == 0.85
		}},
		{"--memory-eff replaces the matmuls' streaming too", []string{"--gpu", "a100-sxm-80gb", "--memory-eff", "0.6"}, func(s model.Scenario) bool {
			return s.Cluster.GPU.MemoryEff == 0.6 && s.Cluster.GPU.GEMMStreamEff() == 0.6
		}},
		{"intra given", []string{"--intra", "pcie5", "--nics-per-node", "4"}, func(s model.Scenario) bool {
			return s.Cluster.Intra.ID == "pcie5" && s.Cluster.NICsPerNode == 4
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scenarioFor(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Errorf("scenario: layout %+v workload %+v arch %+v", s.Layout, s.Workload, s.Arch)
			}
		})
	}
}

func TestDefaultTP(t *testing.T) {
	a := model.Arch{Heads: 64, KVHeads: 8, FFN: 28672}
	for _, tc := range []struct {
		n, perNode int
		a          model.Arch
		want       int
	}{
		{8, 8, a, 8},
		{16, 8, a, 8},
		{4, 8, a, 4},
		{6, 8, a, 2},
		{16, 16, a, 16}, // tp a multiple of kv-heads
		{8, 8, model.Arch{Heads: 12, KVHeads: 12, FFN: 48}, 4}, // 8 does not divide 12
		{8, 8, model.Arch{Heads: 32, KVHeads: 6, FFN: 64}, 2},  // 4 and 8 neither divide 6 nor are multiples of it
		{0, 8, a, 1},
	} {
		if got := defaultTP(tc.n, tc.perNode, tc.a); got != tc.want {
			t.Errorf("defaultTP(%d, %d, %+v) = %d, want %d", tc.n, tc.perNode, tc.a, got, tc.want)
		}
	}
}

// TestReportEndToEnd needs costmodel.Evaluate and costmodel.Search, which land separately: it
// fails while they are stubs. It checks that `report --json` follows the JSON contract of
// architecture.md, that a scenario over memory is a result (exit 0), and that the text report and
// search run.
func TestReportEndToEnd(t *testing.T) {
	t.Run("report --json", func(t *testing.T) {
		code, out, errs := runArgs(t, "report", "--json")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, errs)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON: %v\n%s", err, out)
		}
		for _, path := range []string{
			"layout.tp", "layout.pp", "layout.dp", "layout.chunks", "layout.micro_batch", "layout.micro_batches", "layout.schedule", "layout.recompute", "layout.sequence_parallel", "layout.zero",
			"step_time_s",
			"breakdown_s.compute", "breakdown_s.recompute", "breakdown_s.tp_comm", "breakdown_s.pp_comm",
			"breakdown_s.dp_comm", "breakdown_s.bubble", "breakdown_s.optimizer",
			"bubble_fraction", "comm_fraction", "model_tflops_per_gpu", "hw_tflops_per_gpu", "mfu", "tokens_per_s",
			"memory.weights", "memory.gradients", "memory.optimizer", "memory.activations", "memory.kv_cache",
			"memory.reserved", "memory.total", "memory.capacity", "memory.fits",
			"warnings", "closed_form_bubble", "stages", "pp_sends.bytes_per_gpu", "pp_sends.send_s", "pp_sends.time_s", "pp_sends.in_idle",
		} {
			if _, ok := lookup(doc, path); !ok {
				t.Errorf("report --json lacks %s", path)
			}
		}
		if w, _ := lookup(doc, "warnings"); w == nil {
			t.Errorf("warnings is null, want an array")
		}
		if tp, _ := lookup(doc, "layout.tp"); tp != float64(8) {
			t.Errorf("layout.tp = %v, want 8", tp)
		}
		if st, _ := lookup(doc, "step_time_s"); st == nil || st.(float64) <= 0 {
			t.Errorf("step_time_s = %v", st)
		}
		if _, ok := doc["inference"]; ok {
			t.Errorf("training report has an inference object")
		}
		// The figures the text prints beside the Report's fields: the closed form, each stage's
		// busy share, the sends (the default layout has 4 stages).
		if cf, _ := lookup(doc, "closed_form_bubble"); cf == nil || cf.(float64) <= 0 {
			t.Errorf("closed_form_bubble = %v, want training's (p−1)/(m+p−1)", cf)
		}
		if st, _ := lookup(doc, "stages"); st == nil || len(st.([]any)) != 4 {
			t.Errorf("stages = %v, want 4", st)
		} else if b, _ := lookup(st.([]any)[0].(map[string]any), "busy_share"); b == nil || b.(float64) <= 0 || b.(float64) > 1 {
			t.Errorf("stages[0].busy_share = %v", b)
		}
		if idle, _ := lookup(doc, "pp_sends.in_idle"); idle != false {
			t.Errorf("training: pp_sends.in_idle = %v", idle)
		}
	})
	t.Run("infer --json", func(t *testing.T) {
		code, out, errs := runArgs(t, "report", "--mode", "infer", "--json")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, errs)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON: %v", err)
		}
		for _, path := range []string{"inference.ttft_s", "inference.tpot_s", "inference.tokens_per_s", "closed_form_bubble", "pp_sends.time_s"} {
			if _, ok := lookup(doc, path); !ok {
				t.Errorf("infer report lacks %s", path)
			}
		}
		// Serving with more requests than stages has no closed form; its sends sit in the idle.
		if cf, _ := lookup(doc, "closed_form_bubble"); cf != nil {
			t.Errorf("serving 8 requests on 4 stages: closed_form_bubble = %v, want null", cf)
		}
		if idle, _ := lookup(doc, "pp_sends.in_idle"); idle != true {
			t.Errorf("serving: pp_sends.in_idle = %v", idle)
		}
	})
	t.Run("over memory is a result", func(t *testing.T) {
		code, out, errs := runArgs(t, "report", "--model", "llama-3.1-405b", "--json")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, errs)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON: %v", err)
		}
		if fits, _ := lookup(doc, "memory.fits"); fits != false {
			t.Errorf("405B training on 8 GPUs: memory.fits = %v, want false", fits)
		}
	})
	t.Run("text report and bare command", func(t *testing.T) {
		for _, args := range [][]string{{"report"}, {}} {
			code, out, errs := runArgs(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d; stderr:\n%s", args, code, errs)
			}
			for _, w := range []string{"llama-3-70b", "TP=8 PP=4 DP=1 1f1b m=32 b=1", "step time", "memory per GPU"} {
				if !strings.Contains(out, w) {
					t.Errorf("%v: output lacks %q:\n%s", args, w, out)
				}
			}
		}
	})
	t.Run("search", func(t *testing.T) {
		code, out, errs := runArgs(t, "search", "--model", "llama-3-8b", "--top", "3")
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, errs)
		}
		if !strings.Contains(out, "rank") {
			t.Errorf("search output lacks the ranking:\n%s", out)
		}
		// The starting layout's problems are no error: search sweeps micro-batches itself.
		if code, _, errs := runArgs(t, "search", "--model", "llama-3-8b", "--micro-batch", "3", "--top", "1"); code != 0 {
			t.Errorf("search --micro-batch 3: exit %d; stderr:\n%s", code, errs)
		}
		code, out, errs = runArgs(t, "search", "--model", "llama-3-8b", "--json", "--top", "3")
		if code != 0 {
			t.Fatalf("search --json: exit %d; stderr:\n%s", code, errs)
		}
		var doc struct {
			Candidates []map[string]any `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON: %v", err)
		}
		if len(doc.Candidates) == 0 {
			t.Fatal("no candidates")
		}
		seenInfeasible, feasible := false, 0
		for _, c := range doc.Candidates {
			f, ok := c["feasible"].(bool)
			if _, ok2 := c["reason"].(string); !ok || !ok2 {
				t.Fatalf("candidate lacks feasible/reason: %v", c)
			}
			if _, ok := lookup(c, "layout.tp"); !ok {
				t.Errorf("candidate lacks layout.tp")
			}
			if f {
				feasible++
				if seenInfeasible {
					t.Errorf("feasible candidate after an infeasible one")
				}
			} else {
				seenInfeasible = true
			}
		}
		if feasible == 0 || feasible > 3 {
			t.Errorf("%d feasible candidates with --top 3", feasible)
		}
	})
}

// lookup follows a dotted path through decoded JSON objects.
func lookup(doc map[string]any, path string) (any, bool) {
	var cur any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestValidateCommand(t *testing.T) {
	code, out, errb := runArgs(t, "validate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"Table 1", "Figure 1", "nccl-tests", "Hold-out", "12 of 12 within tolerance",
		"Collectives on published sweeps", "sn-h200x8-allreduce-bench 16 GiB", "nvls/simple"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q", want)
		}
	}
	code, out, _ = runArgs(t, "validate", "--json")
	var v struct {
		Checks []struct {
			Group     string  `json:"group"`
			Published float64 `json:"published"`
			Predicted float64 `json:"predicted"`
		} `json:"checks"`
	}
	groups := map[string]int{}
	if code == 0 && json.Unmarshal([]byte(out), &v) == nil {
		for _, c := range v.Checks {
			groups[c.Group]++
		}
	}
	if groups["nccl"] != 20 || groups["fig1"] != 12 || groups["table1"] != 10 || groups["holdout"] != 2 || groups["comm"] < 40 {
		t.Errorf("validate --json: exit %d, checks per group %v", code, groups)
	}
}

// reportHeader runs report with args and returns the first line of its text output.
func reportHeader(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"report"}, args...)...)
	if code != 0 {
		t.Fatalf("report %v: exit %d; stderr:\n%s", args, code, errs)
	}
	return strings.SplitN(out, "\n", 2)[0]
}

func TestScenarioFlagTour(t *testing.T) {
	header := reportHeader(t, "--scenario", "tour/pcie")
	for _, w := range []string{"llama-2-13b", "8× h100-pcie", "pcie5 / ib-ndr", "TP=8 PP=1 DP=1"} {
		if !strings.Contains(header, w) {
			t.Errorf("header %q lacks %q", header, w)
		}
	}
	// A flag typed on the command line overrides the file; DP is derived again.
	header = reportHeader(t, "--scenario", "tour/pcie", "--tp", "4")
	if !strings.Contains(header, "TP=4 PP=1 DP=2") || !strings.Contains(header, "pcie5") {
		t.Errorf("--tp 4 over tour/pcie: header %q", header)
	}
	// The flags may come before the subcommand too, and any spelling of the step works.
	code, out, errs := runArgs(t, "--scenario", "tour/07-pcie", "--json")
	if code != 0 || !strings.Contains(out, `"tp": 8`) {
		t.Errorf("bare command with tour/07-pcie: exit %d; stderr:\n%s", code, errs)
	}
	for _, step := range assets.TourSteps() {
		if code, _, errs := runArgs(t, "report", "--scenario", "tour/"+step, "--json"); code != 0 {
			t.Errorf("tour/%s: exit %d; stderr:\n%s", step, code, errs)
		}
	}
}

func TestScenarioFlagBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "lesson.yaml", "model: llama-3-70b\ngpu: h100-sxm\ntpp: 4\nintra: nvlink9\n")
	invalid := writeFile(t, "v.yaml", "model: llama-3-70b\ngpu: h100-sxm\ntp: 3\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown tour step", []string{"report", "--scenario", "tour/nope"},
			append([]string{"splitscope: --scenario tour/nope: unknown tour step; one of tour/one-gpu, tour/pp-split"}, assets.TourSteps()...)},
		{"missing file", []string{"report", "--scenario", dir + "/none.yaml"}, []string{"--scenario " + dir + "/none.yaml: cannot read the file: no such file"}},
		{"bad file", []string{"report", "--scenario", bad}, []string{
			"splitscope: " + bad + " line 3: tpp: unknown key: did you mean tp?",
			"splitscope: " + bad + " line 4: intra = nvlink9: unknown link preset (known: ",
		}},
		{"bad file in search", []string{"search", "--scenario", bad}, []string{bad + " line 3: tpp"}},
		{"invalid scenario", []string{"report", "--scenario", invalid},
			[]string{"splitscope: " + invalid + " line 3: tp = 3: must divide heads (64)"}},
		{"bad lang", []string{"export", "--lang", "de", "--markdown", "-"}, []string{"splitscope: --lang de: one of en, fr"}},
		{"lang on presets", []string{"presets", "--lang", "de"}, []string{"--lang de: presets prints no teaching texts"}},
	} {
		t.Run(tc.name, func(t *testing.T) { requireBadInput(t, tc.args, tc.want) })
	}
}

// TestScenarioFileMatchesFlags checks that a scenario file and the same settings as flags give
// the same scenario, defaults included: assets.ParseScenario and the flags derive them alike.
func TestScenarioFileMatchesFlags(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--model", "llama-3-70b", "--gpu", "h100-sxm"},
		{"--model", "llama-2-7b", "--gpu", "a100-sxm-80gb", "--gpus", "32", "--pp", "2"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "16", "--dp", "4"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--micro-batch", "3", "--tp", "4"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--pp", "4", "--schedule", "interleaved", "--chunks", "2", "--micro-batch", "3"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--mode", "infer", "--tp", "4", "--pp", "2"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--mode", "infer", "--tp", "1", "--micro-batch", "2"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--mode", "infer", "--requests", "12", "--prompt", "512", "--gen", "64"},
		{"--model", "llama-2-7b", "--gpu", "l40s", "--heads", "16", "--layers", "8", "--gpus", "4", "--gpus-per-node", "4"},
		{"--model", "mixtral-8x7b", "--gpu", "h100-pcie", "--nics-per-node", "2", "--inter", "roce-400", "--gpus", "16"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--compute-eff", "0.5", "--intra-eff", "0.7", "--reserve-gib", "2.5",
			"--precision", "fp8", "--recompute", "selective", "--sequence-parallel", "--zero", "1", "--serial-dp", "--unfused-attention"},
		{"--model", "llama-3-70b", "--gpu", "h100-sxm", "--batch", "128", "--seq", "2048", "--memory-eff", "0.9", "--inter-eff", "0.6"},
	} {
		var yaml strings.Builder
		for i := 0; i < len(args); i++ {
			key := strings.ReplaceAll(strings.TrimPrefix(args[i], "--"), "-", "_")
			val := "true"
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				val = args[i+1]
				i++
			}
			yaml.WriteString(key + ": " + val + "\n")
		}
		fromFlags, err := scenarioFor(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		sf, err := assets.ParseScenario("f.yaml", []byte(yaml.String()), p)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !reflect.DeepEqual(sf.Scenario, fromFlags) {
			t.Errorf("%v:\nfile  %+v\nflags %+v", args, sf.Scenario, fromFlags)
		}
		viaFlag, err := scenarioFor(t, "--scenario", writeFile(t, "f.yaml", yaml.String()))
		if err != nil {
			t.Fatalf("--scenario for %v: %v", args, err)
		}
		if !reflect.DeepEqual(viaFlag, fromFlags) {
			t.Errorf("--scenario for %v:\nfile  %+v\nflags %+v", args, viaFlag, fromFlags)
		}
	}
}

func TestPrintScenario(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--scenario", "tour/tp-node-pp-across", "--print-scenario")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	tour, err := assets.TourScenario("tp-node-pp-across", p)
	if err != nil {
		t.Fatal(err)
	}
	if want := string(assets.MarshalScenario(tour.Scenario, tour.Title)); out != want {
		t.Errorf("--print-scenario:\n%s\nwant\n%s", out, want)
	}
	for _, w := range []string{"title: TP inside the node, PP across nodes", "tp: 8", "pp: 2", "dp: 1", "inter: ib-ndr"} {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}

	// The printed file evaluates as the flags did; a typed --tp re-derives its explicit dp.
	file := writeFile(t, "printed.yaml", out)
	if a, b := reportHeader(t, "--scenario", file), reportHeader(t, "--scenario", "tour/tp-node-pp-across"); a != b {
		t.Errorf("printed file %q, tour step %q", a, b)
	}
	if h := reportHeader(t, "--scenario", file, "--tp", "4"); !strings.Contains(h, "TP=4 PP=2 DP=2") {
		t.Errorf("--tp 4 over a printed file: %q", h)
	}

	// Flags alone print too, with every override.
	code, out, _ = runArgs(t, "report", "--model", "llama-2-7b", "--layers", "8", "--compute-eff", "0.5", "--print-scenario")
	if code != 0 || !strings.Contains(out, "layers: 8\n") || !strings.Contains(out, "compute_eff: 0.5\n") || strings.Contains(out, "title:") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestScenarioWithBox(t *testing.T) {
	// The boxes set the hardware: the file's gpu, gpus, gpus_per_node and intra give way.
	box := writeFile(t, "ws1.json", rtx4090Box)
	file := writeFile(t, "f.yaml", "model: llama-2-7b\ngpu: h100-sxm\ngpus: 8\nintra: nvlink4\nmode: infer\n")
	header := reportHeader(t, "--scenario", file, "--box", box)
	for _, w := range []string{"llama-2-7b", "2× rtx-4090", "pcie4", "TP=2"} {
		if !strings.Contains(header, w) {
			t.Errorf("header %q lacks %q", header, w)
		}
	}
}

func TestLanguage(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "en"},
		{map[string]string{"LANG": "fr_FR.UTF-8"}, "fr"},
		{map[string]string{"LANG": "fr_CA.UTF-8", "LC_ALL": "C"}, "en"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "fr_BE.UTF-8"}, "fr"},
		{map[string]string{"LANG": "en_GB.UTF-8", "LC_MESSAGES": "fr_FR"}, "fr"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANG": "FR"}, "fr"},
	} {
		if got := langFromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("langFromEnv(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}

	parse := func(args ...string) *scenarioFlags {
		sf := &scenarioFlags{}
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		sf.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return sf
	}
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "fr_FR.UTF-8")
	if got := parse().language(); got != "fr" {
		t.Errorf("LANG=fr_FR.UTF-8: language() = %q", got)
	}
	if got := parse("--lang", "EN").language(); got != "en" {
		t.Errorf("--lang EN: language() = %q", got)
	}
	if err := parse("--lang", "fr").checkLang(); err != nil {
		t.Errorf("--lang fr: %v", err)
	}
	if err := parse("--lang", "de").checkLang(); err == nil {
		t.Errorf("--lang de accepted")
	}
}

// requireBadInput runs args and requires exit 2, nothing on stdout, every wanted text on stderr
// and every stderr line prefixed "splitscope: ".
func requireBadInput(t *testing.T, args, want []string) {
	t.Helper()
	code, out, errs := runArgs(t, args...)
	if code != 2 {
		t.Errorf("exit %d, want 2; stderr:\n%s", code, errs)
	}
	if out != "" {
		t.Errorf("stdout not empty on bad input:\n%s", out)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		if !strings.HasPrefix(l, "splitscope: ") && !strings.HasPrefix(l, "run '") {
			t.Errorf("stderr line %q lacks the splitscope: prefix", l)
		}
	}
}
