package assets

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

func readLog(t *testing.T, file string) []model.NCCLRun {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := ParseNCCLLog(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// The testdata logs: one node with NCCL's INFO lines, two nodes under srun --label with MPI's
// banner and NCCL_ALGO, and nccl-tests 2.0's format named by its file.
func TestParseNCCLLogs(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		op                   model.CollOp
		opFrom               string
		ranks, nodes, rows   int
		gpu, algo            string
		hosts                []string
		firstBytes, firstOOP float64 // bytes, µs
		firstIP              float64
		avgBusGBs            float64
	}{
		{file: "testdata/nccl-tests/a100-8x-all_reduce_perf.log", op: model.CollAllReduce, opFrom: "all_reduce_perf (line 1, the command line)",
			ranks: 8, nodes: 1, rows: 20, gpu: "NVIDIA A100-SXM4-80GB", hosts: []string{"dgx-a100-01"},
			firstBytes: 32768, firstOOP: 43.83, firstIP: 44.01, avgBusGBs: 121.805},
		{file: "testdata/nccl-tests/a100-2x8-all_reduce_perf.log", op: model.CollAllReduce, opFrom: `all_reduce_perf (line 9, "# Collective test starting")`,
			ranks: 16, nodes: 2, rows: 31, gpu: "NVIDIA A100-SXM4-80GB", algo: "Ring", hosts: []string{"gpu-a-01", "gpu-a-02"},
			firstBytes: 8, firstOOP: 96.20, firstIP: 96.49, avgBusGBs: 44.53},
		{file: "testdata/nccl-tests/v100-4x-allgather.txt", op: model.CollAllGather, opFrom: "v100-4x-allgather.txt (the file name)",
			ranks: 4, nodes: 1, rows: 25, gpu: "Tesla V100-SXM2-32GB", hosts: []string{"v100-box"},
			firstBytes: 8, firstOOP: 10.20, firstIP: 10.23, avgBusGBs: 23.36},
	} {
		t.Run(tc.file, func(t *testing.T) {
			runs := readLog(t, tc.file)
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			r := runs[0]
			if r.Op != tc.op || r.OpFrom != tc.opFrom {
				t.Errorf("op %s from %q, want %s from %q", r.Op, r.OpFrom, tc.op, tc.opFrom)
			}
			if r.Ranks != tc.ranks || r.Nodes() != tc.nodes || len(r.Rows) != tc.rows || r.GPUName != tc.gpu || r.NCCLAlgo != tc.algo {
				t.Errorf("%d ranks, %d nodes, %d rows, GPU %q, NCCL_ALGO %q; want %d, %d, %d, %q, %q",
					r.Ranks, r.Nodes(), len(r.Rows), r.GPUName, r.NCCLAlgo, tc.ranks, tc.nodes, tc.rows, tc.gpu, tc.algo)
			}
			if strings.Join(r.Hosts, ",") != strings.Join(tc.hosts, ",") {
				t.Errorf("hosts %v, want %v", r.Hosts, tc.hosts)
			}
			f := r.Rows[0]
			if f.Bytes != tc.firstBytes || !f.HasInPlace || math.Abs(f.OutOfPlace.Seconds*1e6-tc.firstOOP) > 1e-9 || math.Abs(f.InPlace.Seconds*1e6-tc.firstIP) > 1e-9 {
				t.Errorf("first row %+v", f)
			}
			if math.Abs(r.AvgBusBW/1e9-tc.avgBusGBs) > 0.01 {
				t.Errorf("avg bus bandwidth %v GB/s, want %v", r.AvgBusBW/1e9, tc.avgBusGBs)
			}
			if len(r.Warnings) > 0 {
				t.Errorf("warnings: %v", r.Warnings)
			}
			// Every row's bus bandwidth is its algorithm bandwidth times the operation's factor.
			for _, row := range r.Rows {
				if a := row.OutOfPlace.AlgBW; a >= 1e9 && math.Abs(row.OutOfPlace.BusBW/a/r.Op.BusFactor(r.Ranks)-1) > 0.01 {
					t.Errorf("line %d: busbw %v, algbw %v", row.Line, row.OutOfPlace.BusBW, a)
				}
			}
		})
	}
}

// A row's time is the faster of its placements.
func TestNCCLRowSeconds(t *testing.T) {
	runs := readLog(t, "testdata/nccl-tests/a100-8x-all_reduce_perf.log")
	var in, out int
	for _, r := range runs[0].Rows {
		want := min(r.OutOfPlace.Seconds, r.InPlace.Seconds)
		if r.Seconds() != want {
			t.Errorf("line %d: %v, want %v", r.Line, r.Seconds(), want)
		}
		if r.InPlace.Seconds < r.OutOfPlace.Seconds {
			in++
		} else {
			out++
		}
	}
	if in == 0 || out == 0 {
		t.Errorf("the log has %d rows faster in place and %d out of place: want some of each", in, out)
	}
}

// header is a run's start on 8 ranks of one host.
func header(ranks int, hosts ...string) string {
	if len(hosts) == 0 {
		hosts = []string{"box"}
	}
	var b strings.Builder
	b.WriteString("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
	per := ranks / len(hosts)
	for r := range ranks {
		b.WriteString("#  Rank " + itoa(r) + " Group  0 Pid  1000 on " + hosts[min(r/max(per, 1), len(hosts)-1)] + " device  " + itoa(r%max(per, 1)) + " [0x07] NVIDIA H100 80GB HBM3\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

const cols = `#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
`

// all-reduce rows on 8 ranks: busbw = algbw × 1.75.
const arRows = `     1048576        262144     float     sum      -1    53.10   19.75   34.56      0    52.95   19.80   34.65      0
     2097152        524288     float     sum      -1    60.12   34.88   61.05      0    60.40   34.72   60.76      0
     4194304       1048576     float     sum      -1    74.50   56.30   98.52      0    74.20   56.53   98.92      0
`

const footer = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 64.7\n#\n"

func TestParseNCCLVariants(t *testing.T) {
	t.Run("several runs in one file, each named by its command line", func(t *testing.T) {
		log := "$ ./build/all_reduce_perf -b 1M -e 4M -g 8\n" + header(8) + cols + arRows + footer +
			"$ ./build/reduce_scatter_perf -b 1M -e 4M -g 8\n" + header(8) + cols +
			"     1048576         32768     float     sum      -1    30.00   34.95   30.58      0    30.10   34.84   30.48      0\n" + footer
		runs, err := ParseNCCLLog("two.log", []byte(log))
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].Op != model.CollAllReduce || runs[1].Op != model.CollReduceScatter || len(runs[0].Rows) != 3 || len(runs[1].Rows) != 1 {
			t.Fatalf("%+v", runs)
		}
	})
	t.Run("the operation from the columns alone", func(t *testing.T) {
		runs, err := ParseNCCLLog("box-8.log", []byte(header(8)+cols+arRows+footer))
		if err != nil || runs[0].Op != model.CollAllReduce || !strings.Contains(runs[0].OpFrom, "the columns") {
			t.Fatalf("%v %+v", err, runs)
		}
		send := "     1048576        262144     float    none      -1    20.00   52.43   52.43    N/A    20.10   52.17   52.17    N/A\n"
		runs, err = ParseNCCLLog("box-8.log", []byte(header(8)+cols+send+footer))
		if err != nil || runs[0].Op != model.CollSendRecv || runs[0].Rows[0].OutOfPlace.Wrong != -1 {
			t.Fatalf("%v %+v", err, runs)
		}
		if ranks, nodes := runs[0].Measured(); ranks != 2 || nodes != 1 {
			t.Errorf("send/recv measured %d ranks on %d nodes, want a pair on one node", ranks, nodes)
		}
	})
	t.Run("in-place columns first, CRLF line ends, srun labels", func(t *testing.T) {
		swapped := strings.Replace(cols, "out-of-place                       in-place", "in-place                       out-of-place", 1)
		log := "$ ./all_reduce_perf -g 8\n" + header(8) + swapped + arRows + footer
		var b strings.Builder
		for _, l := range strings.Split(log, "\n") {
			b.WriteString("0: " + l + "\r\n")
		}
		runs, err := ParseNCCLLog("crlf.log", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		r := runs[0].Rows[0]
		if math.Abs(r.InPlace.Seconds*1e6-53.10) > 1e-9 || math.Abs(r.OutOfPlace.Seconds*1e6-52.95) > 1e-9 {
			t.Errorf("in place %v, out of place %v: want 53.10 µs and 52.95 µs", r.InPlace.Seconds, r.OutOfPlace.Seconds)
		}
	})
	t.Run("Open MPI's --tag-output and kubectl's time stamps", func(t *testing.T) {
		log := "$ ./all_reduce_perf -g 8\n" + header(8) + cols + arRows + footer
		for _, prefix := range []string{"[1,0]<stdout>:", "2025-03-04T10:11:12.123456789Z "} {
			var b strings.Builder
			for _, l := range strings.Split(log, "\n") {
				b.WriteString(prefix + l + "\n")
			}
			runs, err := ParseNCCLLog("x.log", []byte(b.String()))
			if err != nil || len(runs[0].Rows) != 3 || runs[0].Ranks != 8 {
				t.Fatalf("%q: %v %+v", prefix, err, runs)
			}
		}
	})
	t.Run("two hosts", func(t *testing.T) {
		rows := "     1048576        262144     float     sum      -1    90.00   11.65   21.84      0    90.10   11.64   21.82      0\n"
		runs, err := ParseNCCLLog("all_reduce_2n.log", []byte(header(16, "a", "b")+cols+rows+footer))
		if err != nil {
			t.Fatal(err)
		}
		if ranks, nodes := runs[0].Measured(); ranks != 16 || nodes != 2 {
			t.Errorf("measured %d ranks on %d nodes, want 16 on 2", ranks, nodes)
		}
	})
	t.Run("a run that stops early warns and keeps its rows", func(t *testing.T) {
		runs, err := ParseNCCLLog("all_reduce.log", []byte(header(8)+cols+arRows))
		if err != nil {
			t.Fatal(err)
		}
		if len(runs[0].Rows) != 3 || len(runs[0].Warnings) != 1 || !strings.Contains(runs[0].Warnings[0], "without \"# Avg bus bandwidth\"") {
			t.Errorf("%d rows, warnings %v", len(runs[0].Rows), runs[0].Warnings)
		}
	})
	t.Run("NCCL_ALGO on the command line", func(t *testing.T) {
		runs, err := ParseNCCLLog("x.log", []byte("NCCL_ALGO=Tree mpirun -np 8 ./all_reduce_perf\n"+header(8)+cols+arRows+footer))
		if err != nil || runs[0].NCCLAlgo != "Tree" || runs[0].NCCLAlgoLine != 1 {
			t.Fatalf("%v %+v", err, runs)
		}
		runs, err = ParseNCCLLog("x.log", []byte("NCCL_ALGO=^NVLS mpirun -np 8 ./all_reduce_perf\n"+header(8)+cols+arRows+footer))
		if err != nil || runs[0].NCCLAlgo != "^NVLS" || runs[0].NCCLAlgoLine != 1 {
			t.Fatalf("%v %+v", err, runs)
		}
	})
}

// Bad logs: each an error naming the file and the line.
func TestParseNCCLBadLogs(t *testing.T) {
	good := "$ ./all_reduce_perf -g 8\n" + header(8) + cols + arRows + footer
	// header(8) is lines 1-11; cols 12-14 (the column names on 13); arRows 15-17.
	const hdr = 11
	for _, tc := range []struct {
		name, file, log string
		line            int
		want            string
	}{
		{"empty", "e.log", "", 1, "empty file"},
		{"blank", "e.log", "\n \n\t\n", 1, "empty file"},
		{"garbage", "g.log", "hello\nthis is not a log\n12 monkeys\n", 3, "not nccl-tests output"},
		{"binary", "b.log", "# nThread 1 nGpus 8\n\x00\x01\x02", 2, "binary data"},
		{"header only", "all_reduce.log", header(8), hdr, "has no results table"},
		{"table without rows", "all_reduce.log", header(8) + cols, hdr + 3, "truncated: the results table (line " + itoa(hdr+2) + ") has no rows"},
		{"a row cut mid-line", "all_reduce.log", header(8) + cols + arRows + "     8388608       2097152     float     sum", hdr + 7, "row cut short: 4 of the 13 columns"},
		{"a row with a word for a number", "all_reduce.log", header(8) + cols + strings.Replace(arRows, "60.12", "6O.12", 1), hdr + 5, `time "6O.12": not a number`},
		{"noise inside a row", "all_reduce.log", header(8) + cols + "     1048576        262144     float     sum      -1    53.10   19.75   34.56      0    52.95   19.80   34.65      0 host:1:1 [0] NCCL INFO x\n", hdr + 4, "row of 18 columns"},
		{"no rank lines", "all_reduce.log", "# nThread 1 nGpus 8 minBytes 8 maxBytes 8\n" + cols + arRows, 1, "no \"#  Rank N"},
		{"a rank twice", "all_reduce.log", header(1) + header(1)[strings.Index(header(1), "#  Rank"):] + cols + arRows, 5, "rank 0 listed twice"},
		{"one rank", "all_reduce.log", header(1) + cols + arRows, 1, "one rank measures no communication"},
		{"uneven hosts", "all_reduce.log", strings.Replace(header(8, "a", "b"), "on b device  0", "on a device  0", 1) + cols + arRows, 1, "5 ranks on a but 3 on b"},
		{"an operation calibrate does not read", "x.log", "$ ./reduce_perf -g 8\n" + header(8) + cols + arRows, 1, "reduce_perf: calibrate reads"},
		{"a name the columns contradict", "x.log", "$ ./all_gather_perf -g 8\n" + header(8) + cols + arRows + footer, hdr + 5, "named all-gather"},
		{"all-gather or all-to-all?", "x.log", header(8) + cols +
			"     1048576         32768     float    none      -1    30.00   34.95   30.58      0    30.10   34.84   30.48      0\n", hdr + 2, "all-gather and all-to-all alike"},
		{"zero-byte rows only", "all_reduce.log", header(8) + cols + "           0             0     float     sum      -1     5.70    0.00    0.00      0     5.54    0.00    0.00      0\n", hdr + 4, "only rows of 0 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNCCLLog(tc.file, []byte(tc.log))
			var le *NCCLLogError
			if !errors.As(err, &le) {
				t.Fatalf("%v, want a *NCCLLogError", err)
			}
			if le.File != tc.file || le.Line != tc.line || !strings.Contains(le.Msg, tc.want) {
				t.Errorf("%v\nwant %s:%d: …%s…", err, tc.file, tc.line, tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.file+":") {
				t.Errorf("%q does not start with the file", err)
			}
		})
	}
	if _, err := ParseNCCLLog("all_reduce.log", []byte(good)); err != nil {
		t.Errorf("the good log: %v", err)
	}
	// Bounds: more rows than allowed, a line longer than allowed.
	many := header(8) + cols + strings.Repeat(strings.SplitN(arRows, "\n", 2)[0]+"\n", MaxNCCLRows+1)
	if _, err := ParseNCCLLog("all_reduce.log", []byte(many)); err == nil || !strings.Contains(err.Error(), "more than 4096 rows") {
		t.Errorf("%d rows: %v", MaxNCCLRows+1, err)
	}
	long := "#" + strings.Repeat("x", MaxNCCLLineBytes+1)
	if _, err := ParseNCCLLog("all_reduce.log", []byte(long)); err == nil || !strings.Contains(err.Error(), "not a text log") {
		t.Errorf("a long line: %v", err)
	}
}

// No input makes the parser panic, and every error names the file.
func FuzzParseNCCLLog(f *testing.F) {
	for _, file := range []string{"testdata/nccl-tests/a100-8x-all_reduce_perf.log", "testdata/nccl-tests/a100-2x8-all_reduce_perf.log", "testdata/nccl-tests/v100-4x-allgather.txt"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(header(8) + cols + arRows + footer))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ParseNCCLLog("f.log", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.log:") {
				t.Errorf("%q", err)
			}
			return
		}
		for _, r := range runs {
			if r.Ranks < 2 || len(r.Rows) == 0 {
				t.Errorf("run %+v", r)
			}
			for _, row := range r.Rows {
				if !(row.Seconds() > 0) || math.IsInf(row.Seconds(), 0) || !(row.Bytes > 0) {
					t.Errorf("row %+v", row)
				}
			}
		}
	})
}
