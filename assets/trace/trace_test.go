package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

var realTraces = []string{"hta-sampled-rank-0.json.gz", "hta-sampled-rank-1.json.gz", "hta-nccl-data-rank-0.json.gz", "hta-trace-diff-control-rank-3-of-8.json.gz"}

func readFile(t testing.TB, name string) model.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func rawEvents(t *testing.T, name string) (map[string]any, []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var evs []map[string]any
	for _, e := range doc["traceEvents"].([]any) {
		evs = append(evs, e.(map[string]any))
	}
	return doc, evs
}

// TestRealTraces reads HTA's real traces and checks what it kept against a second, independent
// read of the whole document: every GPU event counted, each class's time equal to the sum of its
// events' durations, busy plus idle covering each stream's span, the rank from distributedInfo.
func TestRealTraces(t *testing.T) {
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			tr := readFile(t, name)
			doc, evs := rawEvents(t, name)
			di := doc["distributedInfo"].(map[string]any)
			if tr.Rank != int(di["rank"].(float64)) || tr.WorldSize != int(di["world_size"].(float64)) {
				t.Errorf("rank %d of %d, distributedInfo says %v of %v", tr.Rank, tr.WorldSize, di["rank"], di["world_size"])
			}
			var want [model.NumKernelClasses]float64
			kernels, nccl := 0, 0
			for _, e := range evs {
				cat, _ := e["cat"].(string)
				c := model.KernelCopy
				switch cat {
				case "kernel":
					c = Classify(e["name"].(string))
				case "gpu_memcpy", "gpu_memset":
				default:
					continue
				}
				kernels++
				if c == model.KernelNCCL {
					nccl++
				}
				want[c] += e["dur"].(float64) * 1e-6
			}
			if tr.Kernels != kernels || tr.Events != len(evs) {
				t.Errorf("kept %d GPU events of %d, the document has %d of %d", tr.Kernels, tr.Events, kernels, len(evs))
			}
			got := tr.BusyTotal()
			for c := range want {
				if math.Abs(got[c]-want[c]) > 1e-9*max(1, want[c]) {
					t.Errorf("%v: %.9f s, the events sum to %.9f s", model.KernelClass(c), got[c], want[c])
				}
			}
			if len(tr.Collectives) != nccl || nccl == 0 {
				t.Errorf("%d collectives, %d NCCL kernels in the document", len(tr.Collectives), nccl)
			}
			n := 0
			for _, st := range tr.Streams {
				n += len(st.Intervals)
				busy := 0.0
				for _, b := range st.Busy {
					busy += b
				}
				// Kineto's timestamps are µs since the epoch: a kernel's end is exact to a ns or so.
				if st.Idle < 0 || st.Idle > tr.Span || busy+st.Idle < tr.Span-1e-9*float64(len(st.Intervals)) {
					t.Errorf("stream %d: busy %.6f + idle %.6f against a span of %.6f s", st.Stream, busy, st.Idle, tr.Span)
				}
				for i, iv := range st.Intervals {
					if iv.Start < -1e-12 || iv.End > tr.Span+1e-9 || iv.End < iv.Start || (i > 0 && iv.Start < st.Intervals[i-1].Start) {
						t.Fatalf("stream %d interval %d: %+v outside [0, %g] or out of order", st.Stream, i, iv, tr.Span)
					}
				}
			}
			if n != kernels {
				t.Errorf("%d intervals, %d GPU events", n, kernels)
			}
		})
	}
}

// TestRealNCCL checks the collectives of the trace whose kernels carry Kineto's collective args.
func TestRealNCCL(t *testing.T) {
	tr := readFile(t, "hta-nccl-data-rank-0.json.gz")
	count := map[string]int{}
	for _, c := range tr.Collectives {
		count[c.Op+" "+c.Algorithm+" "+c.Protocol+" "+c.Dtype]++
		if c.GroupSize != 2 {
			t.Errorf("%+v: group size, want 2 (Group size)", c)
		}
		if c.Bytes <= 0 || c.Dur <= 0 {
			t.Errorf("%+v: no size or time", c)
		}
	}
	want := map[string]int{"all-reduce RING LL Float": 15, "broadcast RING LL Float": 3, "broadcast RING LL Long": 3}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("collectives %v, want %v", count, want)
	}
	// The first all-reduce: "In msg nelems": 6637568 floats, 2636.669 µs.
	first := tr.Collectives[0]
	for _, c := range tr.Collectives {
		if c.Op == "all-reduce" {
			first = c
			break
		}
	}
	if first.Bytes != 6637568*4 || math.Abs(first.Dur-2636.669e-6) > 1e-12 {
		t.Errorf("first all-reduce: %g bytes in %g s, want %d in 2636.669 µs", first.Bytes, first.Dur, 6637568*4)
	}
	// The sampled traces' send/recv kernels carry no collective args: sized 0, named by the kernel.
	for _, c := range readFile(t, "hta-sampled-rank-1.json.gz").Collectives {
		if c.Op != "send-recv" || c.Algorithm != "RING" || c.Protocol != "SIMPLE" || c.Bytes != 0 {
			t.Errorf("sampled rank 1: %+v, want send-recv RING SIMPLE of unknown size", c)
		}
	}
}

func TestParseNCCL(t *testing.T) {
	for _, c := range []struct{ name, op, algo, proto string }{
		{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "all-reduce", "RING", "LL"},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "all-reduce", "RING", "LL"},
		{"ncclDevKernel_AllGather_RING_LL128(ncclDevKernelArgsStorage<4096ul>)", "all-gather", "RING", "LL128"},
		{"ncclDevKernel_ReduceScatter_Sum_f32_NVLS_SIMPLE(ncclDevKernelArgsStorage<4096ul>)", "reduce-scatter", "NVLS", "SIMPLE"},
		{"ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE(x)", "all-reduce", "NVLS_TREE", "SIMPLE"},
		{"ncclDevKernel_AllReduce_Sum_f16_COLLNET_DIRECT_SIMPLE(x)", "all-reduce", "COLLNET_DIRECT", "SIMPLE"},
		{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "send-recv", "", ""},
		{"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "broadcast", "RING", "LL"},
	} {
		op, algo, proto := ParseNCCL(c.name)
		if op != c.op || algo != c.algo || proto != c.proto {
			t.Errorf("%s: %q %q %q, want %q %q %q", c.name, op, algo, proto, c.op, c.algo, c.proto)
		}
		if Classify(c.name) != model.KernelNCCL {
			t.Errorf("%s: not NCCL", c.name)
		}
	}
}

func TestClassify(t *testing.T) {
	for name, want := range map[string]model.KernelClass{
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1":     model.KernelGEMM,
		"nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT":                                          model.KernelGEMM,
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(Params)":  model.KernelGEMM,
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn":                        model.KernelGEMM,
		"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)":  model.KernelAttention,
		"fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel)": model.KernelAttention,
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>":  model.KernelOther,
		"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>":        model.KernelOther,
		"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)":         model.KernelNCCL,
	} {
		if got := Classify(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// tiny is a minimal trace of two kernels on one stream.
const tiny = `{"distributedInfo": {"rank": 3, "world_size": 8}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 5, "dur": 1, "args": {"Input Dims": [[1, 2]]}},
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "ts": 10, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "ts": 20, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2, "In msg nelems": 1024, "Out msg nelems": 1024, "dtype": "BFloat16", "Group size": 8}}
]}`

func TestTiny(t *testing.T) {
	tr, err := Read("tiny.json", strings.NewReader(tiny))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Rank != 3 || tr.WorldSize != 8 || tr.Kernels != 2 || math.Abs(tr.Span-20e-6) > 1e-15 {
		t.Fatalf("%+v", tr)
	}
	st := tr.Streams[0]
	if math.Abs(st.Busy[model.KernelGEMM]-4e-6) > 1e-15 || math.Abs(st.Busy[model.KernelNCCL]-10e-6) > 1e-15 || math.Abs(st.Idle-6e-6) > 1e-15 {
		t.Errorf("busy %v idle %g", st.Busy, st.Idle)
	}
	c := tr.Collectives[0]
	if c.Bytes != 2048 || c.GroupSize != 8 || c.Op != "all-reduce" {
		t.Errorf("%+v", c)
	}
}

// TestGEMMShapes: a GEMM kernel takes the shape of the CPU op with its External id, whichever
// comes first in the file; ops whose dims do not make a matmul are left out.
func TestGEMMShapes(t *testing.T) {
	doc := `{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "ts": 10, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 11, "External id": 5}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 5, "dur": 1, "args": {"External id": 5, "Input Dims": [[4096], [4096, 1024], [1024, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "ts": 20, "dur": 1, "args": {"External id": 6, "Input Dims": [[2, 128, 4096], [14336, 4096], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""]}},
 {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256", "ts": 30, "dur": 8, "args": {"device": 0, "stream": 7, "correlation": 12, "External id": 6}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 40, "dur": 1, "args": {"External id": 7, "Input Dims": [[64, 32], [31, 16]]}},
 {"ph": "X", "cat": "kernel", "name": "ampere_bf16_s16816gemm", "ts": 50, "dur": 2, "args": {"device": 0, "stream": 7, "External id": 7}}
]}`
	tr, err := Read("g.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.TraceGEMM{
		{Op: "aten::addmm", M: 4096, N: 4096, K: 1024, Dtype: "c10::BFloat16", Dur: 4e-6},
		{Op: "aten::linear", M: 256, N: 14336, K: 4096, Dtype: "c10::BFloat16", Dur: 8e-6},
	}
	if fmt.Sprint(tr.GEMMs) != fmt.Sprint(want) {
		t.Errorf("GEMMs %+v, want %+v", tr.GEMMs, want)
	}
	if c := tr.Streams[0].Intervals[0].Correlation; c != 11 {
		t.Errorf("correlation %d, want 11", c)
	}
}

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

// TestBadInput: each bad file is refused naming the file and where (the JSON path or byte).
func TestBadInput(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "empty file"},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00", "binary data"},
		{"array", `[{"ph": "X"}]`, "a JSON array"},
		{"not JSON", `hello`, "not JSON"},
		{"number", `42`, "not a JSON object"},
		{"no events", `{"schemaVersion": 1, "distributedInfo": {"rank": 0}}`, "traceEvents: missing"},
		{"events not array", `{"traceEvents": {"a": 1}}`, "traceEvents: '{': it must be an array"},
		{"truncated", tiny[:len(tiny)/2], "traceEvents[1]: cut short"},
		{"truncated gz", gz(tiny)[:60], "cut short"},
		{"cpu only", `{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]}`, "traceEvents: no GPU kernel"},
		{"no dur", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "args": {"stream": 7}}]}`, "traceEvents[0].dur: missing"},
		{"no stream", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"device": 0}}]}`, "traceEvents[0].args.stream: missing"},
		{"stream type", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"stream": "7"}}]}`, "traceEvents[0].args.stream: a JSON string where a int belongs"},
		{"negative dur", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": -2, "args": {"stream": 7}}]}`, "traceEvents[0].dur: -2"},
		{"ts type", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "1", "dur": 2}]}`, "traceEvents[0].ts: a JSON string"},
		{"rank", `{"distributedInfo": {"rank": -1}, "traceEvents": []}`, "distributedInfo.rank: -1"},
		{"rank type", `{"distributedInfo": {"rank": "0"}, "traceEvents": []}`, "distributedInfo.rank: a JSON string"},
		{"trailing", `{"traceEvents": []} {"x": 1}`, "text after the trace object"},
		{"twice", `{"traceEvents": [], "traceEvents": []}`, "traceEvents: given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("bad.json", strings.NewReader(c.data))
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if !strings.HasPrefix(err.Error(), "bad.json: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q, want bad.json: …%s…", err, c.want)
			}
		})
	}
}

// spaces reads as an endless run of spaces: a file larger than the bound.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestHuge(t *testing.T) {
	defer func(b int64) { maxBytes = b }(maxBytes)
	maxBytes = 1 << 20
	for _, c := range []struct{ name, head string }{
		{"huge.json", `{"traceEvents": [`},
		{"huge-key.json", `{"deviceProperties": [`},
		{"huge-string.json", `{"traceEvents": [{"name": "`},
	} {
		_, err := Read(c.name, io.MultiReader(strings.NewReader(c.head), spaces{}))
		if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") || !strings.Contains(err.Error(), "larger than 1 MiB") {
			t.Errorf("%v, want the bound named", err)
		}
	}
	// Compressed, the bound is on the JSON text.
	_, err := Read("huge.json.gz", strings.NewReader(gz(`{"traceEvents": [`+strings.Repeat(" ", 2<<20)+`]}`)))
	if err == nil || !strings.Contains(err.Error(), "huge.json.gz: traceEvents: larger than 1 MiB") {
		t.Errorf("%v, want the bound named", err)
	}
}

// check is what the fuzz target and the mutation test assert of any input: no panic, an *Error
// naming the file, or a trace whose numbers are finite and whose classes add up.
func check(t *testing.T, data []byte) {
	tr, err := Read("f.json", bytes.NewReader(data))
	if err != nil {
		var te *Error
		if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), "f.json: ") {
			t.Fatalf("error %v: not an *Error naming the file", err)
		}
		return
	}
	if tr.Kernels <= 0 || math.IsNaN(tr.Span) || math.IsInf(tr.Span, 0) || tr.Span < 0 {
		t.Fatalf("kernels %d span %g", tr.Kernels, tr.Span)
	}
	for _, st := range tr.Streams {
		for _, b := range st.Busy {
			if math.IsNaN(b) || math.IsInf(b, 0) || b < 0 {
				t.Fatalf("busy %v", st.Busy)
			}
		}
		if math.IsNaN(st.Idle) || st.Idle < 0 {
			t.Fatalf("idle %g", st.Idle)
		}
	}
}

func seeds(t testing.TB) [][]byte {
	out := [][]byte{[]byte(tiny)}
	data, err := os.ReadFile(filepath.Join("testdata", "hta-nccl-data-rank-0.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	// The first 40 events of the real trace, closed as a document, and its header.
	i := bytes.Index(plain, []byte(`"traceEvents"`))
	cut := i
	for n := 0; n < 40 && cut >= 0; n++ {
		j := bytes.Index(plain[cut+1:], []byte("\n  {"))
		if j < 0 {
			break
		}
		cut += 1 + j
	}
	head := append([]byte{}, plain[:cut]...)
	head = bytes.TrimRight(head, " \n,")
	head = append(head, []byte("\n]}")...)
	return append(out, head)
}

func FuzzRead(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { check(t, data) })
}

// TestMutations runs the fuzz target's check on every prefix of the seeds and on seeded random
// edits of them (go test -fuzz is too slow on a shared machine to run in the suite).
func TestMutations(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	bits := []byte(`{}[]",:0123456789.-e ntfaulx\` + "\x00\xff")
	for _, s := range seeds(t) {
		step := max(1, len(s)/500)
		for n := 0; n < len(s); n += step {
			check(t, s[:n])
		}
		for k := 0; k < 3000; k++ {
			m := append([]byte{}, s...)
			for e := 0; e <= rng.Intn(4); e++ {
				i := rng.Intn(len(m))
				switch rng.Intn(3) {
				case 0:
					m[i] = bits[rng.Intn(len(bits))]
				case 1:
					m = append(m[:i], m[min(i+1+rng.Intn(8), len(m)):]...)
				default:
					m = append(m[:i], append([]byte{bits[rng.Intn(len(bits))]}, m[i:]...)...)
				}
				if len(m) == 0 {
					break
				}
			}
			check(t, m)
		}
	}
}

// TestRealGEMMShapes reads the real trace recorded with record_shapes (rank 3 of 8 on A100s,
// Kineto of 2022): its kernels' External id is their launch's correlation, not their op's, so
// each GEMM kernel takes the shapes of the innermost matmul op around its cudaLaunchKernel on
// the launching thread. An independent read of the document (every kernel launched inside an
// aten::mm, addmm, bmm, baddbmm or linear with shapes: 2,418, 30 of them elementwise fills that
// are not GEMMs) gives the 2,388 here.
func TestRealGEMMShapes(t *testing.T) {
	tr := readFile(t, "hta-trace-diff-control-rank-3-of-8.json.gz")
	if tr.Rank != 3 || tr.WorldSize != 8 || tr.Kernels != 8568+654+228 || tr.Events != 109123 {
		t.Errorf("rank %d of %d, %d GPU events of %d", tr.Rank, tr.WorldSize, tr.Kernels, tr.Events)
	}
	if len(tr.GEMMs) != 2388 {
		t.Fatalf("%d GEMM kernels with shapes, want 2388", len(tr.GEMMs))
	}
	ops := map[string]int{}
	sum := 0.0
	for _, g := range tr.GEMMs {
		ops[g.Op]++
		sum += g.Dur
		if g.Dtype != "float" || !(g.M > 0 && g.N > 0 && g.K > 0) {
			t.Fatalf("GEMM %+v: an fp32 model's matmuls have float inputs and positive M, N, K", g)
		}
	}
	if fmt.Sprint(ops) != "map[aten::addmm:744 aten::bmm:90 aten::mm:1554]" {
		t.Errorf("ops %v", ops)
	}
	// The first: the first backward matmul of the trace, aten::mm [[1024, 100], [100, 256]] (a
	// cutlass tensor-op SGEMM of 7 µs).
	if g := tr.GEMMs[0]; g.Op != "aten::mm" || g.M != 1024 || g.N != 256 || g.K != 100 || math.Abs(g.Dur-7e-6) > 1e-12 {
		t.Errorf("first GEMM %+v", g)
	}
	if math.Abs(sum-0.082692) > 1e-9 {
		t.Errorf("GEMM time %.9f s, want 0.082692", sum)
	}
	// Its collectives: 42 SendRecv and 18 AllReduce kernels of NCCL before 2.19.
	coll := map[string]int{}
	for _, c := range tr.Collectives {
		coll[c.Op]++
	}
	if len(tr.Collectives) != 60 || coll["all-reduce"] != 18 {
		t.Errorf("collectives %v", coll)
	}
}

// TestGEMMShapesByLaunch: a kernel whose External id is its correlation (Kineto of 2022) takes
// the innermost matmul op around its launch on the same thread, whichever comes first in the
// file; a launch on another thread, or outside every matmul, gives none.
func TestGEMMShapesByLaunch(t *testing.T) {
	doc := `{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 100, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 900, "External id": 900}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 3, "Input Dims": [[8, 4096], [1024, 4096], [1024]], "Input type": ["float", "float", "float"]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 40, "args": {"External id": 4, "Input Dims": [[1024], [8, 4096], [4096, 1024]], "Input type": ["float", "float", "float"]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 3, "args": {"External id": 900, "correlation": 900}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 60, "dur": 10, "args": {"External id": 5, "Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 65, "dur": 3, "args": {"External id": 901, "correlation": 901}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_32x32_nn", "ts": 110, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 901, "External id": 901}},
 {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 2, "ts": 61, "dur": 1, "args": {"correlation": 902}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_32x32_tn", "ts": 120, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 902, "External id": 902}}
]}`
	tr, err := Read("l.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.TraceGEMM{
		{Op: "aten::addmm", M: 8, N: 1024, K: 4096, Dtype: "float", Dur: 4e-6},
		{Op: "aten::mm", M: 64, N: 16, K: 32, Dtype: "float", Dur: 1e-6},
	}
	if fmt.Sprint(tr.GEMMs) != fmt.Sprint(want) {
		t.Errorf("GEMMs %+v, want %+v", tr.GEMMs, want)
	}
}
