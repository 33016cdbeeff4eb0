package trainlog

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func metrics(l model.TrainLog) map[string]float64 {
	m := map[string]float64{}
	for _, x := range l.Metrics {
		m[x.Name] = x.Value
	}
	return m
}

func settings(l model.TrainLog) map[string]string {
	m := map[string]string{}
	for _, s := range l.Logged {
		m[s.Name] = s.Value
	}
	return m
}

// The real excerpts: each figure is the mean of the lines after the warm-up, worked out by hand
// from the file (README.md cites where each comes from).
func TestReadRealLogs(t *testing.T) {
	for _, c := range []struct {
		file       string
		tool       string
		iterations []int
		warmup     []int
		metrics    map[string]float64
		settings   map[string]string
	}{
		{"megatron/issue756-mixtral-8x7b-16xh100.log", model.ToolMegatron, []int{2, 3, 57, 58, 59}, nil,
			// (5630.1 + 5410.6 + 5450.5 + 5538.9 + 5410.9) / 5 ms; (231.9 + … + 241.3) / 5;
			// [Rank 1]'s max allocated, MiB.
			map[string]float64{"step_time_s": 5.4882, "tflops_per_gpu": 238.0, "peak_memory_bytes": 54250.98583984375 * (1 << 20)},
			map[string]string{"ep": "8", "ffn": "14336", "hidden": "4096", "batch": "128"}},
		{"torchtitan/pr1437-flex-debugmodel.log", model.ToolTorchtitan, []int{3, 4, 5, 6, 7, 8, 9, 10}, nil,
			// memory: 0.00GiB (no statistics on that device): not a figure.
			map[string]float64{"tokens_per_s_per_gpu": 34138, "tflops_per_gpu": 3.49875},
			map[string]string{}},
		{"torchtitan/pr1884-llama3-8b-cp2.log", model.ToolTorchtitan, []int{10}, []int{1},
			// Step 1 on four ranks is the warm-up; step 10 (steps 2–10) on rank 2; the memory
			// is the running peak.
			map[string]float64{"tokens_per_s_per_gpu": 5615, "tflops_per_gpu": 325.20, "peak_memory_bytes": 44.84 * (1 << 30)},
			map[string]string{}},
		{"torchtitan/pr1690-qwen3-32b-fsdp8.log", model.ToolTorchtitan, []int{50}, nil,
			map[string]float64{"tokens_per_s_per_gpu": 1874, "tflops_per_gpu": 389.87, "peak_memory_bytes": 81.85 * (1 << 30)},
			map[string]string{}},
	} {
		t.Run(c.file, func(t *testing.T) {
			l, err := Read(c.file, readTestdata(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if l.Tool != c.tool || fmt.Sprint(l.Iterations) != fmt.Sprint(c.iterations) || fmt.Sprint(l.Warmup) != fmt.Sprint(c.warmup) {
				t.Errorf("tool %q, iterations %v, warm-up %v; want %q, %v, %v", l.Tool, l.Iterations, l.Warmup, c.tool, c.iterations, c.warmup)
			}
			got := metrics(l)
			if len(got) != len(c.metrics) {
				t.Errorf("metrics %v, want %v", got, c.metrics)
			}
			for name, want := range c.metrics {
				if !near(got[name], want) {
					t.Errorf("%s = %g, want %g", name, got[name], want)
				}
			}
			if s := settings(l); fmt.Sprint(s) != fmt.Sprint(c.settings) {
				t.Errorf("settings %v, want %v", s, c.settings)
			}
		})
	}
}

// torchtitan's start-up lines give the model's sizes (the FFN derived as its FeedForward does:
// llama3 8B's 14336), the GPU and recomputation; with no step line the log is refused.
func TestReadTorchtitanStartup(t *testing.T) {
	data := readTestdata(t, "torchtitan/pr1625-llama3-8b-startup.log")
	_, err := Read("startup.log", data)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "no iteration line") {
		t.Fatalf("err = %v, want no iteration line", err)
	}
	step := "[rank0]:[titan] 2025-08-22 07:53:20,000 - root - INFO - step: 20  loss:  9.1  grad_norm:  1.2  memory: 60.50GiB(63.69%)  tps: 6,512  tflops: 377.15  mfu: 38.13%\n"
	l, err := Read("startup.log", append(append([]byte{}, data...), step...))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hidden": "4096", "layers": "32", "heads": "32", "kv-heads": "8", "vocab": "128256", "ffn": "14336", "recompute": "selective"}
	if s := settings(l); fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("settings %v, want %v", s, want)
	}
	if l.GPUName != "NVIDIA H100" {
		t.Errorf("GPU %q", l.GPUName)
	}
}

// torchtitan colours its fields (ANSI escapes between them); its configuration, printed as JSON
// (--debug.print_config) or echoed as TOML, gives the layout, the sequence and the batch.
func TestReadTorchtitanColoursAndConfig(t *testing.T) {
	log := "[rank0]:[titan] 2025-01-01 00:00:00,000 - root - INFO - Running with configs: {\n" +
		"[rank0]:  \"parallelism\": {\"data_parallel_replicate_degree\": 1, \"data_parallel_shard_degree\": 4, \"tensor_parallel_degree\": 2, \"pipeline_parallel_degree\": 1, \"context_parallel_degree\": 1},\n" +
		"[rank0]:  \"training\": {\"local_batch_size\": 2, \"seq_len\": 8192, \"mixed_precision_param\": \"bfloat16\"},\n" +
		"[rank0]:  \"metrics\": {\"log_freq\": 10}}\n"
	for _, step := range []int{1, 10, 20} {
		log += fmt.Sprintf("[rank0]:[titan] 2025-01-01 00:00:%02d,000 - root - INFO - \x1b[31mstep: %2d  \x1b[32mloss:  7.5  \x1b[33mgrad_norm:  1.0  \x1b[36mmemory: 50.00GiB(52.63%%)  \x1b[34mtps: 2,%03d  \x1b[36mtflops: 300.00  \x1b[35mmfu: 30.33%%\x1b[39m\n", step, step, step*10)
	}
	if !Detect([]byte(log)) {
		t.Fatal("not detected")
	}
	l, err := Read("titan.log", []byte(log))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tp": "2", "pp": "1", "cp": "1", "dp": "4", "zero": "3", "gpus": "8", "seq": "8192", "batch": "8", "micro-batch": "2", "precision": "bf16"}
	if s := settings(l); fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("settings\n %v\nwant\n %v", s, want)
	}
	// log_freq 10: step 10's interval (1, 10] does not include step 1, step 1's does.
	if fmt.Sprint(l.Warmup) != "[1]" || fmt.Sprint(l.Iterations) != "[10 20]" {
		t.Errorf("warm-up %v, iterations %v", l.Warmup, l.Iterations)
	}
	if m := metrics(l); !near(m["tokens_per_s_per_gpu"], 2150) || !near(m["tflops_per_gpu"], 300) || !near(m["peak_memory_bytes"], 50*(1<<30)) {
		t.Errorf("metrics %v", m)
	}
}

// megatronLog is a log in Megatron-LM's format (training.py, arguments.py, common_utils.py) of a
// Llama-3-8B layout with every argument the reader maps: iterations logged every 10 from 10 to
// last.
func megatronLog(last int, extra map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("using world size: 64, data-parallel size: 4, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 8, pipeline-model-parallel size: 2\n")
	b.WriteString("------------------------ arguments ------------------------\n")
	args := map[string]string{
		"bf16": "True", "context_parallel_size": "1", "expert_model_parallel_size": "1", "ffn_hidden_size": "14336",
		"fp16": "False", "fp8": "None", "global_batch_size": "256", "group_query_attention": "True", "hidden_size": "4096",
		"log_interval": "10", "micro_batch_size": "1", "num_attention_heads": "32", "num_experts": "None", "num_layers": "32",
		"num_layers_per_virtual_pipeline_stage": "4", "num_query_groups": "8", "pipeline_model_parallel_size": "2",
		"recompute_granularity": "selective", "seq_length": "8192", "sequence_parallel": "True",
		"tensor_model_parallel_size": "8", "use_distributed_optimizer": "True", "world_size": "64",
	}
	for k, v := range extra {
		args[k] = v
	}
	var lines []string
	for k, v := range args {
		lines = append(lines, fmt.Sprintf("  %s %s %s", k, strings.Repeat(".", max(48-len(k), 3)), v))
	}
	sortStrings(lines)
	b.WriteString(strings.Join(lines, "\n") + "\n")
	b.WriteString("-------------------- end of arguments ---------------------\n")
	for it := 10; it <= last; it += 10 {
		ms := 4000.0
		if it == 10 {
			ms = 9000 // the first interval, with iteration 1
		}
		fmt.Fprintf(&b, " [2025-01-01 00:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: 1.000000E-04 | global batch size:   256 | lm loss: 7.000000E+00 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
			it, last, it*256, ms, 400*4000/ms)
		if it == 10 {
			b.WriteString("[Rank 0] (after 10 iterations) memory (MB) | allocated: 30000.0 | max allocated: 61440.0 | reserved: 65000.0 | max reserved: 66000.0\n")
			b.WriteString("[Rank 8] (after 10 iterations) memory (MB) | allocated: 28000.0 | max allocated: 51200.0 | reserved: 60000.0 | max reserved: 62000.0\n")
		}
	}
	return b.Bytes()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && strings.ToLower(s[j]) < strings.ToLower(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Every argument maps to its setting; the first interval (iterations 1–10, --log-interval 10)
// is the warm-up; the peak is the fullest rank's max allocated.
func TestReadMegatronArguments(t *testing.T) {
	l, err := Read("run.log", megatronLog(50, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"gpus": "64", "dp": "4", "cp": "1", "tp": "8", "pp": "2", "ep": "1", "layers": "32", "hidden": "4096",
		"heads": "32", "kv-heads": "8", "ffn": "14336", "experts": "0", "seq": "8192", "micro-batch": "1", "batch": "256",
		"precision": "bf16", "recompute": "selective", "sequence-parallel": "true", "zero": "1", "chunks": "4"}
	if s := settings(l); fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("settings\n %v\nwant\n %v", s, want)
	}
	if fmt.Sprint(l.Warmup) != "[10]" || fmt.Sprint(l.Iterations) != "[20 30 40 50]" {
		t.Errorf("warm-up %v, iterations %v", l.Warmup, l.Iterations)
	}
	m := metrics(l)
	if !near(m["step_time_s"], 4) || !near(m["tflops_per_gpu"], 400) || !near(m["peak_memory_bytes"], 61440*(1<<20)) {
		t.Errorf("metrics %v", m)
	}
	// fp8 over bf16; no distributed optimizer; full recompute; the count of virtual stages.
	l, err = Read("run.log", megatronLog(30, map[string]string{"fp8": "hybrid", "use_distributed_optimizer": "False",
		"recompute_granularity": "full", "num_layers_per_virtual_pipeline_stage": "None", "virtual_pipeline_model_parallel_size": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	s := settings(l)
	if s["precision"] != "fp8" || s["zero"] != "0" || s["recompute"] != "full" || s["chunks"] != "2" {
		t.Errorf("settings %v", s)
	}
}

func TestReadBadInput(t *testing.T) {
	good := megatronLog(30, nil)
	edit := func(data []byte, from, to string) []byte {
		if !bytes.Contains(data, []byte(from)) {
			t.Fatalf("no %q to edit", from)
		}
		return bytes.Replace(data, []byte(from), []byte(to), 1)
	}
	lineOf := func(data []byte, s string) int {
		i := bytes.Index(data, []byte(s))
		if i < 0 {
			t.Fatalf("no %q", s)
		}
		return 1 + bytes.Count(data[:i], []byte{'\n'})
	}
	iter20 := lineOf(good, "iteration       20/")
	titan := readTestdata(t, "torchtitan/pr1690-qwen3-32b-fsdp8.log")
	cut := good[:bytes.Index(good, []byte("iteration       20/"))+60]
	for _, c := range []struct {
		name       string
		data       []byte
		line       int
		field, msg string
	}{
		{"empty", []byte(" \n"), 1, "", "empty file"},
		{"binary", append([]byte("iteration 1/ 2 |\n"), 0, 1, 2), 2, "", "binary data"},
		{"huge line", bytes.Repeat([]byte("x"), MaxLineBytes+1), 1, "", "longer than"},
		{"truncated", cut, iter20, "elapsed time per iteration (ms)", "missing"},
		{"no iteration lines", readTestdata(t, "torchtitan/pr1625-llama3-8b-startup.log"), 0, "", "no iteration line"},
		{"arguments only", good[:bytes.Index(good, []byte(" [2025"))], 0, "", "no iteration line"},
		{"text time", edit(good, "(ms): 4000.0", "(ms): fast"), iter20, "elapsed time per iteration (ms)", "not a positive number"},
		{"negative time", edit(good, "(ms): 4000.0", "(ms): -4000.0"), iter20, "elapsed time per iteration (ms)", "not a positive number"},
		{"no tps", edit(titan, "tps: 1,874", "tokens: 1,874"), 1, "tps", "missing"},
		{"two runs", append(append([]byte{}, good...), good[bytes.Index(good, []byte(" [2025")):]...), bytes.Count(good, []byte{'\n'}) + 1, "iteration", "a second run"},
		{"arguments disagree", edit(good, "iteration       20/", "  tensor_model_parallel_size ..... 4\n iteration       20/"), iter20, "tensor_model_parallel_size", "two runs"},
		{"bad argument", edit(good, "num_layers ...................................... 32", "num_layers ...................................... many"), lineOf(good, "  num_layers ..."), "num_layers", "whole number"},
		{"only warm-up", good[:bytes.Index(good, []byte(" [2025-01-01 00:00:00] iteration       20/"))], lineOf(good, "iteration       10/"), "", "only warm-up"},
		{"bad memory", edit(good, "max allocated: 61440.0", "max allocated: lots"), lineOf(good, "[Rank 0]"), "max allocated", "not a positive number"},
		{"two trainers", append(append([]byte{}, good...), titan...), bytes.Count(good, []byte{'\n'}) + 1, "", "one trainer's log per file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("run.log", c.data)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.File != "run.log" || e.Line != c.line || e.Field != c.field || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("%v: want line %d, field %q, %q", err, c.line, c.field, c.msg)
			}
			prefix := "run.log: "
			if c.line > 0 {
				prefix = fmt.Sprintf("run.log:%d: %s", c.line, c.field)
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("message %q does not start with %q", err, prefix)
			}
		})
	}
}

// Detect tells a log from a serving benchmark's JSON (or other text) by its first character and
// its lines.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		data string
		want bool
	}{
		{"", false}, {"  \n", false}, {`{"completed": 1}`, false}, {"[1, 2]", false}, {"\xef\xbb\xbf {", false},
		{"using world size: 8", true}, {" [2024-04-06 02:55:45] iteration 2/ 100 | consumed samples: 256 |", true},
		{"[rank0]:[titan] step: 1  loss: 2  tps: 3", true}, {"[Rank 1] (after 1 iterations) memory (MB) | max allocated: 1", true},
		{"random text", false}, {"[rank0]: hello", false}, {"# nccl-tests\n#  size  count", false},
	} {
		if got := Detect([]byte(c.data)); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.data, got, c.want)
		}
	}
}

// checkLog is what every read must satisfy: an error naming the file, or a run with figures,
// each finite and positive, and iterations in order.
func checkLog(t *testing.T, l model.TrainLog, err error) {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.File != "fuzz.log" || e.Line < 0 {
			t.Fatalf("error %v (%T) does not name the file", err, err)
		}
		return
	}
	if len(l.Iterations) == 0 || (l.Tool != model.ToolMegatron && l.Tool != model.ToolTorchtitan) {
		t.Fatalf("log %+v", l)
	}
	for i := 1; i < len(l.Iterations); i++ {
		if l.Iterations[i] <= l.Iterations[i-1] {
			t.Fatalf("iterations %v", l.Iterations)
		}
	}
	for _, m := range l.Metrics {
		if !(m.Value > 0) || math.IsInf(m.Value, 0) || m.Field == "" {
			t.Fatalf("metric %+v", m)
		}
	}
	seen := map[string]bool{}
	for _, s := range l.Logged {
		if seen[s.Name] || s.Value == "" || s.Line < 1 {
			t.Fatalf("setting %+v", s)
		}
		seen[s.Name] = true
	}
}

func seeds(t testing.TB) [][]byte {
	out := [][]byte{megatronLog(40, nil)}
	for _, name := range []string{"megatron/issue756-mixtral-8x7b-16xh100.log", "torchtitan/pr1884-llama3-8b-cp2.log", "torchtitan/pr1437-flex-debugmodel.log", "torchtitan/pr1625-llama3-8b-startup.log"} {
		out = append(out, readTestdata(t, name))
	}
	return out
}

// FuzzRead: both trainers' logs, seeded with the real excerpts and a built Megatron log.
func FuzzRead(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read("fuzz.log", data)
		checkLog(t, l, err)
	})
}

// TestReadMutations runs the fuzz target's check over every prefix of the seeds (a log cut at
// any byte) and over seeded random edits of the bytes the formats turn on, in every go test run
// (go test -fuzz finds more where the machine lets it run).
func TestReadMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("|:./,()[]=%0123456789-eE \n\x1b")
	for _, seed := range seeds(t) {
		for n := 0; n < len(seed); n += 1 + n/64 {
			l, err := Read("fuzz.log", seed[:n])
			checkLog(t, l, err)
		}
		for range 1500 {
			data := append([]byte{}, seed...)
			for range 1 + rng.IntN(4) {
				data[rng.IntN(len(data))] = alphabet[rng.IntN(len(alphabet))]
			}
			l, err := Read("fuzz.log", data)
			checkLog(t, l, err)
		}
	}
}

// BenchmarkReadMegatronLog reads a log of 10,000 logged iterations with its arguments.
func BenchmarkReadMegatronLog(b *testing.B) {
	data := megatronLog(100000, nil) // every 10th iteration: 10,000 lines
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("bench.log", data); err != nil {
			b.Fatal(err)
		}
	}
}
