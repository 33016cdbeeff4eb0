package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Serving flags: each bad value exits 2 naming its flag; the JSON carries the percentiles.
func TestServingFlags(t *testing.T) {
	base := []string{"report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "1"}
	bad := writeFile(t, "bad.yaml", "prompt: {dist: uniform, min: 10}\ngen: {dist: foo}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "NaN"}, "--rate NaN"},
		{[]string{"--rate", "-2"}, "--rate -2"},
		{[]string{"--rate", "3", "--concurrency", "4"}, "--concurrency 4: give --rate"},
		{[]string{"--concurrency", "-1"}, "--concurrency -1"},
		{[]string{"--weights", "int3"}, "--weights int3"},
		{[]string{"--kv-cache", "fp32"}, "--kv-cache fp32"},
		{[]string{"--max-seqs", "0"}, "--max-seqs 0"},
		{[]string{"--max-batch-tokens", "-5"}, "--max-batch-tokens -5"},
		{[]string{"--seed", "x"}, "--seed x"},
		{[]string{"--scheduler-recv-interval", "1001"}, "--scheduler-recv-interval 1001: must be 0 to 1000 decode steps"},
		{[]string{"--scheduler-recv-interval", "-1"}, "--scheduler-recv-interval -1"},
		{[]string{"--workload", bad}, "bad.yaml line 1: prompt: min..max 10..0"},
		{[]string{"--workload", "/dev/zero"}, "--workload /dev/zero: must be a regular file"},
		{[]string{"--slo-ttft", "-1s"}, "--slo-ttft -1: must be a time from 0 (none) to 1e6 s"},
		{[]string{"--slo-tpot", "fast"}, "--slo-tpot fast"},
		{[]string{"--sweep-rate", "--rate", "2"}, "--rate 2: --sweep-rate chooses the rates"},
		{[]string{"--sweep-rate", "--concurrency", "2"}, "concurrency"},
	} {
		code, _, errs := runArgs(t, append(append([]string{}, base...), tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	code, out, errs := runArgs(t, append(append([]string{}, base...), "--slo-ttft", "1s", "--slo-tpot", "1ms")...)
	if code != 0 || !strings.Contains(out, "SLO p90 TTFT ≤ 1.00 s and p90 TPOT ≤ 1.00 ms: missed") {
		t.Errorf("report with an SLO: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runArgs(t, "report", "--model", "llama-3-8b", "--rate", "3")
	if code != 0 || !strings.Contains(errs, "--rate has no effect in train mode") {
		t.Errorf("train with --rate: exit %d, %q", code, errs)
	}

	w := writeFile(t, "w.yaml", "prompt: {dist: uniform, min: 100, max: 300}\ngen: {dist: lognormal, mean: 64, sigma: 0.5}\n")
	code, out, errs = runArgs(t, append(append([]string{}, base...), "--requests", "200", "--rate", "5", "--workload", w,
		"--weights", "fp8", "--kv-cache", "fp8", "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Inference map[string]json.RawMessage `json:"inference"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	inf := map[string]float64{} // the figures; "confidence" is an object (an open loop's steady window)
	for k, v := range doc.Inference {
		var f float64
		if json.Unmarshal(v, &f) == nil {
			inf[k] = f
		}
	}
	if _, ok := doc.Inference["confidence"]; !ok {
		t.Errorf("inference at --rate 5 lacks its confidence: %v", inf)
	}
	for _, k := range []string{"ttft_s", "tpot_s", "tokens_per_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s",
		"tpot_p50_s", "tpot_p90_s", "tpot_p99_s", "e2e_p50_s", "e2e_p90_s", "output_tokens_per_s",
		"total_tokens_per_s", "output_tokens_per_s_per_gpu", "requests_per_s", "kv_cache_peak_fraction",
		"preemptions", "max_concurrency"} {
		if _, ok := inf[k]; !ok {
			t.Errorf("inference lacks %s: %v", k, inf)
		}
	}
	if inf["completed"] != 200 || !(inf["ttft_p50_s"] <= inf["ttft_p90_s"] && inf["ttft_p90_s"] <= inf["ttft_p99_s"]) ||
		inf["total_tokens_per_s"] <= inf["output_tokens_per_s"] {
		t.Errorf("inconsistent figures: %v", inf)
	}
}

// The rate sweep: 16 rates, served throughput rising to the capacity, and a goodput that meets
// the SLO; search ranks serving layouts by goodput.
func TestSweepRateAndGoodput(t *testing.T) {
	code, out, errs := runArgs(t, "report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "l40s", "--gpus", "1",
		"--requests", "300", "--sweep-rate", "--slo-ttft", "500ms", "--slo-tpot", "50ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sw struct {
		Capacity float64 `json:"capacity_requests_per_s"`
		Points   []struct {
			Rate      float64        `json:"rate"`
			Inference map[string]any `json:"inference"`
			Meets     bool           `json:"meets_slo"`
		} `json:"points"`
		Goodput float64 `json:"goodput_rate"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 16 || sw.Capacity <= 0 || sw.Goodput <= 0 || sw.Goodput > 1.5*sw.Capacity {
		t.Fatalf("%d points, capacity %g, goodput %g", len(sw.Points), sw.Capacity, sw.Goodput)
	}
	if !sw.Points[0].Meets || sw.Points[len(sw.Points)-1].Meets {
		t.Errorf("the lightest load should meet the SLO and 150%% of capacity miss it: %v / %v", sw.Points[0].Meets, sw.Points[15].Meets)
	}
	code, out, errs = runArgs(t, "report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "l40s", "--gpus", "1",
		"--requests", "300", "--sweep-rate", "--slo-tpot", "50ms")
	if code != 0 || !strings.Contains(out, "goodput: ") || !strings.Contains(out, "meets the SLO") {
		t.Errorf("text sweep: exit %d\n%s%s", code, out, errs)
	}

	code, out, errs = runArgs(t, "search", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "l40s", "--gpus", "2",
		"--requests", "200", "--objective", "goodput", "--slo-ttft", "1s", "--slo-tpot", "60ms", "--json")
	if code != 0 {
		t.Fatalf("search goodput: exit %d: %s", code, errs)
	}
	var res struct {
		Candidates []struct {
			Feasible bool    `json:"feasible"`
			Goodput  float64 `json:"goodput_rate"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.Candidates); i++ {
		if a, b := res.Candidates[i-1], res.Candidates[i]; a.Feasible && b.Feasible && b.Goodput > a.Goodput {
			t.Errorf("candidate %d has goodput %g above %g before it", i, b.Goodput, a.Goodput)
		}
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Goodput <= 0 {
		t.Errorf("no goodput: %s", out)
	}
	code, _, errs = runArgs(t, "search", "--mode", "infer", "--model", "llama-3-8b", "--gpus", "2", "--objective", "goodput")
	if code != 2 || !strings.Contains(errs, "needs a latency target") {
		t.Errorf("goodput without SLO: exit %d, %q", code, errs)
	}
}

// A workload file's rate schedule: the report prints the stage table, the JSON the stages, the
// ITL and the e2e p99; --rate beside it says it has no effect, and --sweep-rate refuses it.
func TestServingStages(t *testing.T) {
	base := []string{"report", "--mode", "infer", "--model", "llama-3-8b", "--gpu", "l40s", "--gpus", "1"}
	w := writeFile(t, "stages.yaml", "prompt: {dist: lognormal, mean: 400, sigma: 0.5, max: 4096}\ngen: {dist: lognormal, mean: 200, sigma: 0.5, max: 1024}\n"+
		"system_prompt: 256\nstages:\n  - {rate: 2, duration: 120s}\n  - {rate: 20, duration: 120s}\n")
	code, out, errs := runArgs(t, append(append([]string{}, base...), "--workload", w, "--rate", "3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"+ 256 system", "in 2 stages: 2.00 min at 2 req/s, 2.00 min at 20 req/s", "\n  ITL ",
		"by stage (each over its own steady window", "saturated: the queue grows at ", "--rate has no effect: the workload file's stages replace --rate and --requests"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("lacks %q:\n%s%s", want, out, errs)
		}
	}
	code, out, errs = runArgs(t, append(append([]string{}, base...), "--workload", w, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Inference struct {
			ITL    float64 `json:"itl_s"`
			ITLP99 float64 `json:"itl_p99_s"`
			E2EP99 float64 `json:"e2e_p99_s"`
			Stages []struct {
				Rate      float64 `json:"rate"`
				Requests  int     `json:"requests"`
				Saturated bool    `json:"saturated"`
				Growth    float64 `json:"queue_growth_requests_per_s"`
				ITL       struct {
					Mean float64 `json:"mean"`
					P90  float64 `json:"p90"`
				} `json:"itl_s"`
			} `json:"stages"`
		} `json:"inference"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	inf := doc.Inference
	if inf.ITL <= 0 || inf.ITLP99 < inf.ITL || inf.E2EP99 <= 0 || len(inf.Stages) != 2 || inf.Stages[0].Saturated || !inf.Stages[1].Saturated ||
		inf.Stages[1].Growth <= 0 || inf.Stages[0].ITL.Mean <= 0 || inf.Stages[1].Rate != 20 {
		t.Errorf("JSON: %+v", inf)
	}
	code, _, errs = runArgs(t, append(append([]string{}, base...), "--workload", w, "--sweep-rate")...)
	if code != 2 || !strings.Contains(errs, "its 2 stages set the rates") {
		t.Errorf("--sweep-rate with stages: exit %d, %q", code, errs)
	}
}
