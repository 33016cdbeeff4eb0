package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/splitscope/splitscope/assets"
)

// commandPaths are every command a user can run, as typed after splitscope.
var commandPaths = [][]string{{}, {"report"}, {"search"}, {"presets"}, {"validate"}, {"probe"}, {"export"},
	{"comm"}, {"calibrate"}, {"completion", "bash"}, {"help"}}

// findCommand is the command that args run.
func findCommand(t *testing.T, path []string) *cobra.Command {
	t.Helper()
	root := newRootCmd(&bytes.Buffer{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	cmd, _, err := root.Find(path)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// flagArgs is the flag typed with a value of its type (the default: typed is what counts).
func flagArgs(f *pflag.Flag) []string {
	switch f.Value.Type() {
	case "bool":
		return []string{"--" + f.Name}
	case "stringArray":
		return []string{"--" + f.Name, "node0.json"}
	case "size":
		return []string{"--" + f.Name, "512GiB"}
	}
	v := f.DefValue
	if v == "" {
		v = "x"
	}
	return []string{"--" + f.Name, v}
}

// TestCommandsRefuseFlagsTheyDoNotUse types every shared flag to every command: a flag the
// command does not use is bad input that names the flag and the command; one it uses is not
// refused, and its help lists exactly the shared flags it takes.
func TestCommandsRefuseFlagsTheyDoNotUse(t *testing.T) {
	refused := 0
	for _, path := range commandPaths {
		name := strings.Join(path, " ")
		if name == "" {
			name = "splitscope"
		}
		cmd := findCommand(t, path)
		_, help, _ := runArgs(t, append(append([]string{}, path...), "--help")...)
		if len(path) == 1 && path[0] == "help" {
			help = "" // help's help is the root's
		}
		newRootCmd(&bytes.Buffer{}).PersistentFlags().VisitAll(func(f *pflag.Flag) {
			why := refusal(cmd, f.Name)
			listed := regexp.MustCompile(`(?m)^\s+(-\w, )?--` + regexp.QuoteMeta(f.Name) + `\s`).MatchString(help)
			// The help lists what the command takes with its own flags (validate --against).
			if help != "" && listed != (helpRefusal(cmd, f.Name) == "") {
				t.Errorf("%s --help lists --%s: %v, but the command takes it: %v", name, f.Name, listed, why == "")
			}
			if why == "" {
				return
			}
			refused++
			args := append(append([]string{}, path...), flagArgs(f)...)
			code, out, errs := runArgs(t, args...)
			if code != 2 || out != "" || !regexp.MustCompile(`splitscope: --`+regexp.QuoteMeta(f.Name)+`( \S+)?: `).MatchString(errs) || !strings.Contains(errs, strings.Fields(name)[0]) {
				t.Errorf("%q: exit %d, want 2 with a message naming --%s and %s; stdout %q, stderr:\n%s", args, code, f.Name, name, out, errs)
			}
		})
	}
	if refused < 80 {
		t.Errorf("only %d refusals: the table lost its rules", refused)
	}
}

func TestRefusalMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"presets", "--gpus", "4"}, "splitscope: --gpus 4: presets lists the embedded presets; it takes no scenario flags\n"},
		{[]string{"validate", "--model", "x"}, "splitscope: --model x: validate runs the published setups the model is checked on"},
		{[]string{"presets", "--gpus", "4", "--tp", "2"}, "splitscope: --gpus 4: presets lists the embedded presets; it takes no scenario flags\nsplitscope: --tp 2: presets"},
		{[]string{"--gpus", "4", "presets"}, "splitscope: --gpus 4: presets"},
		{[]string{"export", "--json", "--markdown", "-"}, "splitscope: --json: export writes SVG (--svg) and Markdown (--markdown), not JSON"},
		{[]string{"report", "--lang", "fr"}, "splitscope: --lang fr: report prints no teaching texts"},
		{[]string{"search", "--lang", "fr"}, "splitscope: --lang fr: search prints no teaching texts"},
		{[]string{"--json", "--lang", "fr"}, "splitscope: --lang fr: --json prints the report, which has no teaching texts"},
		{[]string{"probe", "--tp", "4"}, "splitscope: --tp 4: probe's capacity verdict tries every layout"},
		{[]string{"probe", "--schedule", "gpipe"}, "splitscope: --schedule gpipe: probe's capacity verdict tries every layout"},
		{[]string{"probe", "--gpus", "4"}, "splitscope: --gpus 4: conflicts with probe, which sets the GPU type"},
		{[]string{"probe", "--sequence-parallel", "--lang", "fr"}, "splitscope: --lang fr: probe prints no teaching texts"},
		{[]string{"report", "--print-scenario", "--json"}, "splitscope: --json: --print-scenario writes the scenario file (YAML) and evaluates nothing"},
		{[]string{"report", "--print-scenario", "--capacity"}, "splitscope: --capacity: --print-scenario"},
		{[]string{"search", "--max-micro-batch", "-1"}, "splitscope: --max-micro-batch -1: must be between 0 and"},
		{[]string{"search", "--max-chunks", "65"}, "splitscope: --max-chunks 65: must be between 0 and 64"},
		{[]string{"search", "--max-micro-batch", "4", "--micro-batch", "2"}, "splitscope: --max-micro-batch 4: --micro-batch 2 fixes the micro-batch size"},
		{[]string{"search", "--max-chunks", "4", "--chunks", "2"}, "splitscope: --max-chunks 4: --chunks 2 fixes the interleaving"},
		{[]string{"search", "--max-chunks", "4", "--schedule", "gpipe"}, "splitscope: --max-chunks 4: --schedule gpipe does not interleave"},
		{[]string{"search", "--max-chunks", "4", "--mode", "infer"}, "splitscope: --max-chunks 4: inference has no interleaving"},
	} {
		code, out, errs := runArgs(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	// The search bounds alone, and the flags each command takes, stay accepted.
	for _, args := range [][]string{
		{"search", "--max-micro-batch", "4", "--max-chunks", "2", "--top", "1"},
		{"search", "--max-chunks", "2", "--schedule", "interleaved", "--top", "1"},
		{"presets", "--json"},
		{"report", "--print-scenario"},
		{"export", "--lang", "fr", "--markdown", "-"},
	} {
		if code, _, errs := runArgs(t, args...); code != 0 {
			t.Errorf("%q: exit %d\n%s", args, code, errs)
		}
	}
}

// searchJSON runs search --json and returns its document.
func searchJSON(t *testing.T, args ...string) searchDoc {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"search", "--json", "--top", "0"}, args...)...)
	if code != 0 {
		t.Fatalf("search %q: exit %d\n%s", args, code, errs)
	}
	var d searchDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

type searchLayout struct {
	TP, PP, DP, Chunks int
	MicroBatch         int    `json:"micro_batch"`
	Schedule           string `json:"schedule"`
	Recompute          string `json:"recompute"`
	SequenceParallel   bool   `json:"sequence_parallel"`
	ZeRO               int    `json:"zero"`
}

type searchDoc struct {
	Candidates []struct {
		Layout   searchLayout `json:"layout"`
		Feasible bool         `json:"feasible"`
	} `json:"candidates"`
	Warnings []string `json:"warnings"`
	Counts   struct {
		Space, Evaluated int
		PrunedMemory     int `json:"pruned_memory"`
		Dominated        int `json:"pruned_dominated"`
		Bound            int `json:"pruned_bound"`
	} `json:"counts"`
}

// TestSearchKnobsTypedOrAuto: a knob typed keeps its value in every candidate; auto or not
// typed, search tries each value (the counts say how many configurations); other commands
// refuse auto with exit 2.
func TestSearchKnobsTypedOrAuto(t *testing.T) {
	base := []string{"--model", "llama-3-70b", "--gpus", "32"}
	fixed := searchJSON(t, append(base, "--recompute", "full", "--zero", "1", "--sequence-parallel=false")...)
	swept := searchJSON(t, append(base, "--recompute", "auto", "--zero", "auto", "--sequence-parallel=auto")...)
	plain := searchJSON(t, base...)
	seen := map[string]bool{}
	for _, c := range fixed.Candidates {
		if c.Feasible && (c.Layout.Recompute != "full" || c.Layout.SequenceParallel || c.Layout.DP > 1 && c.Layout.ZeRO != 1) {
			t.Errorf("typed knobs not kept: %+v", c.Layout)
		}
	}
	for _, c := range swept.Candidates {
		if c.Feasible {
			seen[fmt.Sprintf("%s/%v/%d", c.Layout.Recompute, c.Layout.SequenceParallel, c.Layout.ZeRO)] = true
		}
	}
	if len(seen) < 3 {
		t.Errorf("auto knobs: the feasible candidates use only %v", seen)
	}
	if swept.Counts.Space <= fixed.Counts.Space || swept.Counts.Space != plain.Counts.Space ||
		swept.Counts.Evaluated+swept.Counts.PrunedMemory+swept.Counts.Dominated+swept.Counts.Bound != swept.Counts.Space {
		t.Errorf("counts: fixed %+v, auto %+v, not typed %+v", fixed.Counts, swept.Counts, plain.Counts)
	}
	for _, args := range [][]string{{"report", "--zero", "auto"}, {"report", "--recompute", "auto"}, {"report", "--sequence-parallel=auto", "--json"}} {
		code, _, errs := runArgs(t, args...)
		if code != 2 || !strings.Contains(errs, "auto is for search") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// TestSearchKeepsTheSizesTyped: search --tp 4 ranks only layouts with TP 4, and so on; a
// scenario file's layout fixes nothing.
func TestSearchKeepsTheSizesTyped(t *testing.T) {
	base := []string{"--model", "llama-2-13b", "--gpus", "16"}
	full := searchJSON(t, base...)
	tps := map[int]bool{}
	for _, c := range full.Candidates {
		tps[c.Layout.TP] = true
	}
	if len(tps) < 3 {
		t.Fatalf("the unconstrained search tries TP %v only", tps)
	}
	type layout = searchLayout
	for _, tc := range []struct {
		args []string
		keep func(l layout) bool
	}{
		{[]string{"--tp", "4"}, func(l layout) bool { return l.TP == 4 }},
		{[]string{"--pp", "2", "--dp", "2"}, func(l layout) bool { return l.PP == 2 && l.DP == 2 }},
		{[]string{"--micro-batch", "2"}, func(l layout) bool { return l.MicroBatch == 2 }},
		{[]string{"--micro-batch", "3", "--batch", "48"}, func(l layout) bool { return l.MicroBatch == 3 }},
		{[]string{"--schedule", "zb-h1"}, func(l layout) bool { return l.PP == 1 || l.Schedule == "zb-h1" }},
		{[]string{"--chunks", "2", "--pp", "4"}, func(l layout) bool { return l.PP == 4 && l.Schedule == "interleaved" && l.Chunks == 2 }},
	} {
		d := searchJSON(t, append(append([]string{}, base...), tc.args...)...)
		feasible := 0
		for _, c := range d.Candidates {
			if !tc.keep(c.Layout) {
				t.Errorf("%q: layout %+v breaks the sizes typed", tc.args, c.Layout)
				break
			}
			if c.Feasible {
				feasible++
			}
		}
		if feasible == 0 {
			t.Errorf("%q: no feasible layout", tc.args)
		}
	}
	// tour/pcie says tp: 8, pp: 1; search still tries every TP.
	d := searchJSON(t, "--scenario", "tour/pcie")
	tps = map[int]bool{}
	for _, c := range d.Candidates {
		tps[c.Layout.TP] = true
	}
	if len(tps) < 3 {
		t.Errorf("a scenario file's tp fixed the search: TP %v", tps)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--tp", "3", "--dp", "1", "--pp", "1", "--gpus", "3"}, "--tp 3: TP 3 does not divide the 64 heads"},
		{[]string{"search", "--tp", "8", "--pp", "8"}, "--tp 8: tp × pp (8 × 8) must divide gpus (32)"},
		{[]string{"search", "--tp", "0"}, "--tp 0: must be 1 or more"},
		{[]string{"search", "--mode", "infer", "--schedule", "gpipe"}, "--schedule gpipe: inference has no pipeline schedule"},
		{[]string{"search", "--pp", "1", "--schedule", "gpipe"}, "--pp 1: one stage has no pipeline to schedule"},
	} {
		requireBadInput(t, tc.args, []string{tc.want})
	}
}

// TestTypedFlagWarnings: a flag typed that the scenario's mode or size does not read is a warning
// (stderr, or JSON "warnings"); the same key from a scenario file is not.
func TestTypedFlagWarnings(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--mode", "infer", "--batch", "64", "--seq", "2048")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, w := range []string{
		"splitscope: warning: --batch has no effect in infer mode: serving runs --requests requests; drop it or use --mode train\n",
		"splitscope: warning: --seq has no effect in infer mode",
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	if strings.Contains(out, "--batch") {
		t.Errorf("the typed-flag warning went to stdout:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt", "100"}, "--prompt has no effect in train mode: training sequences are --seq tokens long"},
		{[]string{"--gen", "100"}, "--gen has no effect in train mode"},
		{[]string{"--requests", "16"}, "--requests has no effect in train mode: training runs --batch sequences per step"},
		{[]string{"--gpus", "8", "--inter-eff", "0.5"}, "--inter-eff has no effect: the 8 GPUs fit in one node of 8"},
		{[]string{"--gpus", "2", "--gpus-per-node", "1", "--tp", "1", "--intra-eff", "0.5"}, "--intra-eff has no effect: there is one GPU per node"},
	} {
		if got := reportWarnings(t, tc.args...); countContains(got, tc.want) != 1 {
			t.Errorf("%q: warnings %q lack %q", tc.args, got, tc.want)
		}
	}
	// A scenario file keeps every key (report --print-scenario writes batch and seq in inference).
	code, yaml, errs := runArgs(t, "report", "--mode", "infer", "--print-scenario")
	if code != 0 || !strings.Contains(yaml, "batch:") {
		t.Fatalf("print-scenario: exit %d, no batch key:\n%s%s", code, yaml, errs)
	}
	file := writeFile(t, "infer.yaml", yaml)
	if got := reportWarnings(t, "--scenario", file); len(got) != 0 {
		t.Errorf("keys from a scenario file warn: %q", got)
	}
}

func countContains(ws []string, sub string) int {
	n := 0
	for _, w := range ws {
		if strings.Contains(w, sub) {
			n++
		}
	}
	return n
}

// reportWarnings runs report --json and returns its warnings.
func reportWarnings(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"report", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("report %q: exit %d\n%s", args, code, errs)
	}
	if errs != "" {
		t.Errorf("report --json %q wrote to stderr:\n%s", args, errs)
	}
	var d struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d.Warnings
}

// TestDefaultsAndTourAreQuiet: the default report warns about nothing, and a tour step only
// about its lesson, never about a setting.
func TestDefaultsAndTourAreQuiet(t *testing.T) {
	code, out, errs := runArgs(t, "report")
	if code != 0 || errs != "" || strings.Contains(out, "warnings") {
		t.Errorf("the default report warns: exit %d, stderr %q\n%s", code, errs, out)
	}
	if w := reportWarnings(t); len(w) != 0 {
		t.Errorf("the default report --json warns: %q", w)
	}
	setting := func(w string) bool {
		return strings.Contains(w, "has no effect") || strings.Contains(w, "tensor cores") || strings.Contains(w, "intra link")
	}
	for _, step := range assets.TourSteps() {
		for _, w := range reportWarnings(t, "--scenario", "tour/"+step) {
			if setting(w) {
				t.Errorf("tour/%s: %q", step, w)
			}
		}
	}
	// A saved box is the hardware as probed: its links contradict nothing.
	box := writeFile(t, "ws1.json", rtx4090Box)
	for _, w := range reportWarnings(t, "--box", box, "--model", "llama-2-7b") {
		if setting(w) {
			t.Errorf("--box: %q", w)
		}
	}
}

// TestSettingWarningsReachEveryOutput: the cost model's warnings are one list that report (text
// and JSON), search and export all show.
func TestSettingWarningsReachEveryOutput(t *testing.T) {
	const want = "intra link nvlink4 on mi300x: its GPUs are joined by xgmi, not nvlink4; set the intra link to xgmi"
	hw := []string{"--gpu", "mi300x", "--intra", "nvlink4", "--model", "llama-2-7b", "--gpus", "8"}
	if got := reportWarnings(t, hw...); countContains(got, want) != 1 {
		t.Errorf("report --json: %q", got)
	}
	for _, args := range [][]string{
		append([]string{"report"}, hw...),
		append([]string{"search", "--top", "1"}, hw...),
		append([]string{"export", "--markdown", "-"}, hw...),
	} {
		code, out, errs := runArgs(t, args...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%q: exit %d, output lacks %q:\n%s%s", args, code, want, out, errs)
		}
	}
	if d := searchJSON(t, hw...); countContains(d.Warnings, want) != 1 {
		t.Errorf("search --json warnings: %q", d.Warnings)
	}
	// A layout warning every candidate shares is the search's own.
	code, out, errs := runArgs(t, "search", "--gpus", "8", "--model", "llama-2-7b", "--dp", "1", "--zero", "1", "--top", "1")
	if code != 0 || !strings.Contains(out, "  ! ZeRO 1 has no effect with DP = 1") {
		t.Errorf("search --dp 1 --zero 1: exit %d:\n%s%s", code, out, errs)
	}
}

// TestRankOrderFlag: --rank-order sets the order (report --json says it); search tries both
// where they place the split differently unless it is typed; a word it does not know, or auto
// outside search, is bad input naming the flag.
func TestRankOrderFlag(t *testing.T) {
	base := []string{"--model", "llama-3-70b", "--gpus", "16", "--batch", "32"}
	var doc struct {
		Layout struct {
			RankOrder string `json:"rank_order"`
		} `json:"layout"`
	}
	code, out, errs := runArgs(t, append([]string{"report", "--json", "--tp", "2", "--pp", "4", "--rank-order", "tp-pp-dp"}, base...)...)
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Layout.RankOrder != "tp-pp-dp" {
		t.Errorf("report --rank-order tp-pp-dp: exit %d, %v, layout %+v: %s", code, err, doc.Layout, errs)
	}
	type orderDoc struct {
		Candidates []struct {
			Layout struct {
				TP, PP, DP int
				RankOrder  string `json:"rank_order"`
			} `json:"layout"`
			Feasible bool `json:"feasible"`
		} `json:"candidates"`
		Counts struct{ Space int } `json:"counts"`
	}
	search := func(args ...string) orderDoc {
		t.Helper()
		code, out, errs := runArgs(t, append(append([]string{"search", "--json"}, base...), args...)...)
		var d orderDoc
		if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil {
			t.Fatalf("search %q: exit %d, %v: %s", args, code, err, errs)
		}
		return d
	}
	// Training: the default order wins every split here (the DP sync is the larger traffic, and
	// tp-pp-dp sends it over the network), but both are counted and tried.
	fixed, swept := search("--rank-order", "tp-dp-pp"), search("--rank-order", "auto")
	for _, c := range fixed.Candidates {
		if c.Layout.RankOrder != "tp-dp-pp" {
			t.Errorf("typed tp-dp-pp, candidate %+v", c.Layout)
		}
	}
	if swept.Counts.Space <= fixed.Counts.Space {
		t.Errorf("auto: space %d against %d typed", swept.Counts.Space, fixed.Counts.Space)
	}
	// Serving: no DP traffic, and tp-pp-dp keeps the pipeline's sends inside a node.
	orders := map[string]bool{}
	for _, c := range search("--mode", "infer").Candidates {
		if c.Feasible {
			orders[c.Layout.RankOrder] = true
		}
	}
	if !orders["tp-pp-dp"] || !orders["tp-dp-pp"] {
		t.Errorf("serving: orders %v among the feasible", orders)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--rank-order", "pp-tp-pp"}, "pp is given twice"},
		{[]string{"report", "--rank-order", "tp-ep-pp-dp"}, "ep must be next to dp (nearest valid tp-pp-ep-dp)"},
		{[]string{"report", "--rank-order", "tp-xp-dp-pp"}, `"xp" is not an axis`},
		{[]string{"report", "--rank-order", "tp-cp-dp"}, "pp is missing"},
		{[]string{"report", "--rank-order", "auto"}, "auto is for search"},
	} {
		if code, _, errs := runArgs(t, tc.args...); code != 2 || !strings.Contains(errs, "--rank-order") || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.args, code, errs, tc.want)
		}
	}
	// Any nesting reads: CP-first and Llama 3's tp-cp-pp-dp (the same as tp-pp-dp).
	for _, o := range []struct{ in, out string }{{"tp-cp-pp-dp", "tp-pp-dp"}, {"tp-cp-ep-dp-pp", "tp-dp-pp"}, {"pp-tp-dp", "pp-tp-cp-dp"}} {
		code, out, errs := runArgs(t, append([]string{"report", "--json", "--tp", "2", "--pp", "4", "--rank-order", o.in}, base...)...)
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Layout.RankOrder != o.out {
			t.Errorf("report --rank-order %s: exit %d, %v, layout %+v (want %s): %s", o.in, code, err, doc.Layout, o.out, errs)
		}
	}
}
