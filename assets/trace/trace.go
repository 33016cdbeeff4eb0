// Package trace reads a PyTorch profiler trace: the Chrome trace JSON that Kineto writes for one
// rank (torch.profiler's export_chrome_trace or tensorboard_trace_handler, plain or .json.gz),
// into model.Trace: the GPU kernels (and copies and sets) per device and stream, each classified
// by its name as GEMM, attention, NCCL collective, copy or other, the NCCL kernels' operation,
// algorithm, protocol and message size, and the rank. It reads a stream token by token and keeps
// one event at a time, so a trace of hundreds of MiB costs the memory of its kernels, its
// matmul ops' shapes and its kernel launches (a small record each) only.
//
// The format, from Kineto's own writer (pytorch/kineto, libkineto/src/output_json.cpp,
// ChromeTraceLogger): one JSON object {"schemaVersion", "deviceProperties", "distributedInfo"
// ({"backend", "rank", "world_size", …} where torch.distributed ran), "traceEvents": [ … ],
// "traceName", …}. Each event is {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"} with
// ts and dur in microseconds (fractions for nanoseconds); a GPU kernel has cat "kernel", a copy
// "gpu_memcpy", a set "gpu_memset", and args {"device", "stream", "correlation", "External id",
// …}. Kineto copies a collective's metadata from the record_param_comms CPU op onto its NCCL
// kernel's args: "Collective name", "dtype", "In msg nelems", "Out msg nelems", "Group size",
// "Process Group Name", "Process Group Ranks" (its kInMsgNelems … constants). A kernel's
// "External id" is its CPU op's where the profiler linked them; in the traces of 2022 (PyTorch
// 1.12, 1.13) it is the launch's "correlation", and the op is the one around the launch
// (cuda_runtime cudaLaunchKernel, with that correlation) on the launching thread. NCCL names its
// kernels ncclKernel_<Op>_<ALGO>_<PROTO>_<RedOp>_<type> (NCCL 2.x before 2.19) and
// ncclDevKernel_<Op>_<RedOp>_<type>_<ALGO>_<PROTO> (later; ncclDevKernel_SendRecv and
// ncclDevKernel_Generic carry no algorithm). The real traces under testdata are cited in its
// README.
//
// Every problem is an *Error naming the file and the JSON path (traceEvents[12].dur) or the byte
// offset where the text stopped being a trace.
package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// Bounds on what one trace may hold.
const (
	// MaxBytes bounds the JSON text, after decompression: a profiler trace of a few steps of a
	// large model is hundreds of MiB.
	MaxBytes = 1 << 30
	// MaxKernels bounds the GPU events kept: their intervals are the reader's memory.
	MaxKernels = 4 << 20
	// maxTs bounds a timestamp (µs; Kineto's are since the Unix epoch, 1.7e15 in 2023) and
	// maxDur a duration (µs, eleven days): larger is not a measurement.
	maxTs  = 1e17
	maxDur = 1e12
)

// Error is a problem with a trace: the file, the JSON path ("" when the file as a whole), the
// byte offset in the JSON text where it was found (0 when none) and what is wrong.
type Error struct {
	File   string
	Path   string
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Offset > 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	return b.String()
}

var errTooLarge = errors.New("too large")

// maxBytes is MaxBytes, lowered by the tests.
var maxBytes int64 = MaxBytes

// limited reads at most max bytes from r and fails with errTooLarge past them, every time after.
type limited struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if l.over {
		return 0, errTooLarge
	}
	if l.n >= l.max {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.over = true
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.max-l.n {
		p = p[:l.max-l.n]
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}

// event is the part of a trace event the reader looks at; args are parsed for GPU events only.
type event struct {
	Ph   string          `json:"ph"`
	Cat  string          `json:"cat"`
	Name string          `json:"name"`
	Ts   *float64        `json:"ts"`
	Dur  *float64        `json:"dur"`
	Args json.RawMessage `json:"args"`
}

// kernelEvent is a GPU event decoded with its args at once (event and kernelArgs).
type kernelEvent struct {
	Ph   string      `json:"ph"`
	Cat  string      `json:"cat"`
	Name string      `json:"name"`
	Ts   *float64    `json:"ts"`
	Dur  *float64    `json:"dur"`
	Args *kernelArgs `json:"args"`
}

// kernelArgs are a GPU event's args the reader uses.
type kernelArgs struct {
	Device      *int     `json:"device"`
	Stream      *int     `json:"stream"`
	Correlation int64    `json:"correlation"`
	ExternalID  int64    `json:"External id"`
	CollName    string   `json:"Collective name"`
	Dtype       string   `json:"dtype"`
	InNelems    *float64 `json:"In msg nelems"`
	OutNelems   *float64 `json:"Out msg nelems"`
	GroupSize   *int     `json:"Group size"`
}

// opArgs are a CPU op's args the reader uses: the shapes of a matmul, when recorded.
type opArgs struct {
	ExternalID int64     `json:"External id"`
	Dims       [][]int64 `json:"Input Dims"`
	Types      []string  `json:"Input type"`
}

// cpuOp is a CPU op with the args the reader uses, and where it ran (its thread and interval)
// for the kernels of traces that link a kernel to its op through its launch only.
type cpuOp struct {
	Cat  string          `json:"cat"`
	Name string          `json:"name"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Ts   *float64        `json:"ts"`
	Dur  *float64        `json:"dur"`
	Args opArgs          `json:"args"`
}

// runtimeCall is a CUDA runtime or driver call: a kernel launch names its thread, its time and
// the correlation its kernel carries.
type runtimeCall struct {
	Name string          `json:"name"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Ts   *float64        `json:"ts"`
	Args struct {
		Correlation int64 `json:"correlation"`
	} `json:"args"`
}

// threadKey is a CPU thread, its pid and tid as written.
func threadKey(pid, tid json.RawMessage) string { return string(pid) + "/" + string(tid) }

// opSpan is a matmul op with its shapes on one thread, [start, end] in µs.
type opSpan struct {
	start, end float64
	g          model.TraceGEMM
}

// launchAt is where a kernel was launched: the thread (an index into the trace's threads) and
// the time (µs), under the launch's correlation. A trace holds millions: a small record each, in
// one array, not a map.
type launchAt struct {
	corr   int64
	thread int32
	ts     float64
}

// launchList is a trace's launches, found by correlation once read (byCorr).
type launchList struct {
	at      []launchAt
	threads map[string]int32 // threadKey → index
	names   []string         // index → threadKey
	sorted  bool
}

func (l *launchList) add(corr int64, pid, tid []byte, ts float64) {
	key := string(pid) + "/" + string(tid)
	i, ok := l.threads[key]
	if !ok {
		if l.threads == nil {
			l.threads = map[string]int32{}
		}
		i = int32(len(l.names))
		l.threads[key] = i
		l.names = append(l.names, key)
	}
	l.at = append(l.at, launchAt{corr: corr, thread: i, ts: ts})
}

// byCorr is the launch with correlation corr (the first, where one repeats).
func (l *launchList) byCorr(corr int64) (launchAt, bool) {
	if !l.sorted {
		// Kineto numbers launches in order: usually sorted already.
		if !slices.IsSortedFunc(l.at, func(a, b launchAt) int { return cmp.Compare(a.corr, b.corr) }) {
			slices.SortStableFunc(l.at, func(a, b launchAt) int { return cmp.Compare(a.corr, b.corr) })
		}
		l.sorted = true
	}
	i, ok := slices.BinarySearchFunc(l.at, corr, func(a launchAt, c int64) int { return cmp.Compare(a.corr, c) })
	if !ok {
		return launchAt{}, false
	}
	return l.at[i], true
}

// launchFields reads a kernel launch's pid, tid, ts and args.correlation from its text without
// decoding it (a trace holds one a kernel); ok is false when one is missing or not as Kineto
// writes them, and the caller decodes the event instead.
func launchFields(raw []byte) (pid, tid []byte, ts float64, corr int64, ok bool) {
	value := func(key string) []byte {
		i := bytes.Index(raw, []byte(`"`+key+`":`))
		if i < 0 {
			return nil
		}
		v := bytes.TrimLeft(raw[i+len(key)+3:], " \t\r\n")
		end := bytes.IndexAny(v, ",}")
		if end < 0 {
			return nil
		}
		return bytes.TrimRight(v[:end], " \t\r\n")
	}
	pid, tid = value("pid"), value("tid")
	tsText, corrText := value("ts"), value("correlation")
	if len(pid) == 0 || len(tid) == 0 || len(tsText) == 0 || len(corrText) == 0 || pid[0] == '"' || tid[0] == '"' {
		return nil, nil, 0, 0, false
	}
	ts, err := strconv.ParseFloat(string(tsText), 64)
	if err != nil {
		return nil, nil, 0, 0, false
	}
	corr, err = strconv.ParseInt(string(corrText), 10, 64)
	if err != nil {
		return nil, nil, 0, 0, false
	}
	return pid, tid, ts, corr, true
}

// gemmName is a quick look for a matmul op's name in an event's text, before decoding it.
func gemmName(raw []byte) bool {
	for _, n := range gemmNames {
		if bytes.Contains(raw, n) {
			return true
		}
	}
	return false
}

var gemmNames = [][]byte{[]byte(`"aten::mm"`), []byte(`"aten::addmm"`), []byte(`"aten::bmm"`), []byte(`"aten::baddbmm"`), []byte(`"aten::linear"`)}

// gemmOps are the CPU ops whose shapes give a GEMM kernel's M, N and K.
var gemmOps = map[string]bool{"aten::mm": true, "aten::addmm": true, "aten::bmm": true, "aten::baddbmm": true, "aten::linear": true}

// pendingGEMM is a GEMM kernel waiting for its CPU op's shapes (which may come later in the file):
// its External id and its launch's correlation.
type pendingGEMM struct {
	ext, corr int64
	dur       float64
}

type distInfo struct {
	Rank      *int `json:"rank"`
	WorldSize int  `json:"world_size"`
}

type streamKey struct{ dev, stream int }

// Read parses the trace named name (in messages) from r, plain JSON or gzip-compressed. A file
// that is empty, binary, too large, cut short, not JSON, not a Chrome trace object or without
// traceEvents, or whose GPU events lack a time or a stream, is an *Error.
func Read(name string, r io.Reader) (model.Trace, error) {
	fail := func(path string, off int64, format string, args ...any) (model.Trace, error) {
		return model.Trace{}, &Error{File: name, Path: path, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	failAt := func(path string, off int64, format string, args ...any) error {
		return &Error{File: name, Path: path, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	rawLim := &limited{r: r, max: maxBytes}
	raw := bufio.NewReaderSize(rawLim, 64<<10)
	var src io.Reader = raw
	if magic, _ := raw.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return fail("", 0, "not a gzip file: %v", err)
		}
		src = zr
	}
	lim := &limited{r: src, max: maxBytes}
	br := bufio.NewReaderSize(lim, 256<<10)
	readFail := func(name, path string, off int64, err error) (model.Trace, error) {
		if rawLim.over || lim.over {
			err = errTooLarge // whatever the decoder made of the cut
		}
		return readError(name, path, off, err)
	}
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return readFail(name, "", 0, err)
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fail("", int64(i)+1, "binary data (a NUL byte): not a profiler trace (Chrome trace JSON)")
	}
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) { // a byte-order mark
		head = head[3:]
		_, _ = br.Discard(3)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return fail("", 0, "empty file: a profiler trace is a JSON object with traceEvents (torch.profiler export_chrome_trace)")
	}
	dec := json.NewDecoder(br)
	tok, err := dec.Token()
	if err != nil {
		return readFail(name, "", dec.InputOffset(), err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		what := fmt.Sprintf("not a JSON object (it starts with %s)", describe(tok))
		if ok && d == '[' {
			what = "a JSON array (Chrome's bare event list)"
		}
		return fail("", 0, "%s: a PyTorch profiler trace is an object {\"traceEvents\": [...], \"distributedInfo\": ...}", what)
	}

	t := model.Trace{Rank: -1}
	streams := map[streamKey]*model.TraceStream{}
	seenEvents := false
	shapesOf := map[int64]model.TraceGEMM{}
	// Kineto of 2022 (the traces of PyTorch 1.12 and 1.13, HTA's test data) gives a kernel and
	// its launch the launch's correlation as their External id, not their op's: such a kernel
	// takes the shapes of the innermost matmul op around its launch on the launching thread.
	opsOn := map[string][]opSpan{}
	var launches launchList
	ops := 0
	var gemms []pendingGEMM
	t0 := math.Inf(1)
	end := math.Inf(-1)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return readFail(name, "", dec.InputOffset(), err)
		}
		key, _ := tok.(string)
		switch key {
		case "traceEvents":
			if seenEvents {
				return fail("traceEvents", dec.InputOffset(), "given twice")
			}
			seenEvents = true
			tok, err := dec.Token()
			if err != nil {
				return readFail(name, "traceEvents", dec.InputOffset(), err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return fail("traceEvents", dec.InputOffset(), "%s: it must be an array of events", describe(tok))
			}
			// The events are scanned on one goroutine and handled on another, in order, a batch
			// at a time (a 100 MB trace's text is scanned while its last batch is decoded); the
			// handler keeps every record, the scanner only the batches in flight.
			handle := func(raw []byte, path string, off int64) error {
				t.Events++
				if bytes.Contains(raw, []byte("Input Dims")) && bytes.Contains(raw, []byte("cpu_op")) {
					// A CPU op with its shapes: a matmul's are kept for its GEMM kernel; one this
					// reader cannot use is left out, not refused.
					if len(shapesOf) < MaxKernels && gemmName(raw) {
						var op cpuOp
						if json.Unmarshal(raw, &op) == nil && op.Cat == "cpu_op" && gemmOps[op.Name] {
							if g, ok := gemmShape(op.Name, op.Args); ok {
								if op.Args.ExternalID != 0 {
									shapesOf[op.Args.ExternalID] = g
								}
								if op.Ts != nil && op.Dur != nil && *op.Dur >= 0 && ops < MaxKernels {
									k := threadKey(op.Pid, op.Tid)
									opsOn[k] = append(opsOn[k], opSpan{start: *op.Ts, end: *op.Ts + *op.Dur, g: g})
									ops++
								}
							}
						}
					}
					return nil
				}
				if bytes.Contains(raw, []byte("LaunchKernel")) && (bytes.Contains(raw, []byte(`"cuda_runtime"`)) || bytes.Contains(raw, []byte(`"cuda_driver"`))) {
					// A kernel's launch: where and when, for a kernel whose op is known by it only.
					if len(launches.at) >= MaxKernels {
						return nil
					}
					if pid, tid, ts, corr, ok := launchFields(raw); ok {
						if corr != 0 {
							launches.add(corr, pid, tid, ts)
						}
						return nil
					}
					var rc runtimeCall
					if json.Unmarshal(raw, &rc) == nil && rc.Ts != nil && rc.Args.Correlation != 0 && strings.Contains(rc.Name, "LaunchKernel") {
						launches.add(rc.Args.Correlation, rc.Pid, rc.Tid, *rc.Ts)
					}
					return nil
				}
				if !bytes.Contains(raw, []byte("kernel")) && !bytes.Contains(raw, []byte("gpu_mem")) {
					return nil
				}
				// The event and its args in one pass; the two-step decoding (event, then args)
				// only to name the field of a bad one.
				var kev kernelEvent
				if json.Unmarshal(raw, &kev) != nil || kev.Args == nil {
					kev = kernelEvent{}
				}
				var ev event
				if kev.Args == nil {
					if err := json.Unmarshal(raw, &ev); err != nil {
						return failAt(path+fieldOf(err), off, "%s", jsonMsg(err))
					}
				} else {
					ev = event{Ph: kev.Ph, Cat: kev.Cat, Name: kev.Name, Ts: kev.Ts, Dur: kev.Dur}
				}
				class, gpu := gpuClass(ev.Cat)
				if !gpu || (ev.Ph != "X" && ev.Ph != "") {
					return nil
				}
				if t.Kernels == MaxKernels {
					return failAt(path, off, "more than %d GPU events in one trace", MaxKernels)
				}
				if ev.Ts == nil {
					return failAt(path+".ts", off, "missing: a %s event needs its start (µs)", ev.Cat)
				}
				if ev.Dur == nil {
					return failAt(path+".dur", off, "missing: a %s event needs its duration (µs)", ev.Cat)
				}
				if *ev.Ts < 0 || *ev.Ts > maxTs {
					return failAt(path+".ts", off, "%g: a start must be in [0, %g] µs", *ev.Ts, maxTs)
				}
				if *ev.Dur < 0 || *ev.Dur > maxDur {
					return failAt(path+".dur", off, "%g: a duration must be in [0, %g] µs", *ev.Dur, maxDur)
				}
				var a kernelArgs
				if kev.Args != nil {
					a = *kev.Args
				} else {
					if len(ev.Args) == 0 {
						return failAt(path+".args", off, "missing: a %s event's args name its device and stream", ev.Cat)
					}
					if err := json.Unmarshal(ev.Args, &a); err != nil {
						return failAt(path+".args"+fieldOf(err), off, "%s", jsonMsg(err))
					}
				}
				if a.Stream == nil {
					return failAt(path+".args.stream", off, "missing: a %s event runs on a stream", ev.Cat)
				}
				dev := 0
				if a.Device != nil {
					dev = *a.Device
				}
				if class == model.KernelOther {
					class = Classify(ev.Name)
				}
				start, stop := *ev.Ts, *ev.Ts+*ev.Dur
				t0, end = min(t0, start), max(end, stop)
				k := streamKey{dev, *a.Stream}
				st := streams[k]
				if st == nil {
					st = &model.TraceStream{Device: dev, Stream: *a.Stream}
					streams[k] = st
				}
				st.Intervals = append(st.Intervals, model.TraceInterval{Start: start, End: stop, Class: class, Correlation: a.Correlation})
				if class == model.KernelGEMM && (a.ExternalID != 0 || a.Correlation != 0) {
					gemms = append(gemms, pendingGEMM{ext: a.ExternalID, corr: a.Correlation, dur: *ev.Dur * 1e-6})
				}
				st.Busy[class] += *ev.Dur * 1e-6
				t.Kernels++
				if class == model.KernelNCCL {
					c := model.TraceCollective{Start: start, Dur: *ev.Dur, Dtype: a.Dtype}
					c.Op, c.Algorithm, c.Protocol = ParseNCCL(ev.Name)
					if a.CollName != "" && (c.Op == "" || c.Op == "generic") {
						c.Op = collName(a.CollName)
					}
					if a.GroupSize != nil && *a.GroupSize > 0 {
						c.GroupSize = *a.GroupSize
					}
					if n := maxPtr(a.InNelems, a.OutNelems); n > 0 {
						if size := DtypeBytes(a.Dtype); size > 0 {
							c.Bytes = n * size
						}
					}
					t.Collectives = append(t.Collectives, c)
				}
				return nil
			}
			if err := scanEvents(dec, handle); err != nil {
				if se, ok := err.(*scanError); ok {
					return readFail(name, se.path, se.off, se.err)
				}
				return model.Trace{}, err
			}
			if _, err := dec.Token(); err != nil { // the closing ]
				return readFail(name, "traceEvents", dec.InputOffset(), err)
			}
		case "distributedInfo":
			var di distInfo
			if err := dec.Decode(&di); err != nil {
				return readFail(name, "distributedInfo", dec.InputOffset(), err)
			}
			if di.Rank != nil {
				if *di.Rank < 0 || *di.Rank >= 1<<20 {
					return fail("distributedInfo.rank", dec.InputOffset(), "%d: a rank is in [0, %d)", *di.Rank, 1<<20)
				}
				t.Rank = *di.Rank
			}
			if di.WorldSize < 0 || di.WorldSize > 1<<20 {
				return fail("distributedInfo.world_size", dec.InputOffset(), "%d: a world size is in [0, %d]", di.WorldSize, 1<<20)
			}
			t.WorldSize = di.WorldSize
		default:
			if err := skip(dec); err != nil {
				return readFail(name, key, dec.InputOffset(), err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return readFail(name, "", dec.InputOffset(), err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return readFail(name, "", dec.InputOffset(), err)
		}
		return fail("", dec.InputOffset(), "text after the trace object (%s)", describe(tok))
	}
	if !seenEvents {
		return fail("traceEvents", 0, "missing: not a PyTorch profiler trace (Chrome trace JSON keeps its events under traceEvents)")
	}
	if t.Kernels == 0 {
		return fail("traceEvents", 0, "no GPU kernel (cat \"kernel\", \"gpu_memcpy\" or \"gpu_memset\") among %d events: a trace of CPU activity only (profile with ProfilerActivity.CUDA)", t.Events)
	}
	t.File = name
	t.Span = (end - t0) * 1e-6
	t.Streams = make([]model.TraceStream, 0, len(streams))
	for _, st := range streams {
		finish(st, t0, end)
		t.Streams = append(t.Streams, *st)
	}
	sort.Slice(t.Streams, func(i, j int) bool {
		a, b := t.Streams[i], t.Streams[j]
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		return a.Stream < b.Stream
	})
	for _, spans := range opsOn {
		// By start, the outer of two ops that start together first: the innermost op around a
		// launch is then the last one that starts before it and has not ended.
		sort.Slice(spans, func(i, j int) bool {
			if spans[i].start != spans[j].start {
				return spans[i].start < spans[j].start
			}
			return spans[i].end > spans[j].end
		})
	}
	for _, g := range gemms {
		sh, ok := shapesOf[g.ext]
		if l, launched := launches.byCorr(g.corr); (launched && g.ext == g.corr) || !ok {
			// An External id that is the launch's correlation names no op: the op around the
			// launch, when the trace has the launch.
			sh, ok = opAround(opsOn, launches.names, l, launched && g.corr != 0)
		}
		if ok {
			sh.Dur = g.dur
			t.GEMMs = append(t.GEMMs, sh)
		}
	}
	for i := range t.Collectives {
		t.Collectives[i].Start = (t.Collectives[i].Start - t0) * 1e-6
		t.Collectives[i].Dur *= 1e-6
	}
	return t, nil
}

// opAround is the shape of the innermost matmul op around the launch with correlation corr on
// its thread: of the ops that started by the launch, the last few (an op's own nesting: linear,
// addmm) are looked at for one that has not ended.
func opAround(opsOn map[string][]opSpan, threads []string, l launchAt, launched bool) (model.TraceGEMM, bool) {
	if !launched {
		return model.TraceGEMM{}, false
	}
	spans := opsOn[threads[l.thread]]
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start > l.ts }) - 1
	for j := i; j >= 0 && j > i-8; j-- {
		if spans[j].end >= l.ts {
			return spans[j].g, true
		}
	}
	return model.TraceGEMM{}, false
}

// gemmShape reads M, N and K from a matmul op's input dims (PyTorch's argument order):
// aten::mm [M,K] [K,N]; aten::addmm bias [M,K] [K,N]; aten::bmm [B,M,K] [B,K,N]; aten::baddbmm
// bias [B,M,K] [B,K,N]; aten::linear [..., K] [N,K] (leading dims multiply into M).
func gemmShape(op string, a opArgs) (model.TraceGEMM, bool) {
	d := a.Dims
	first := func(i int) []int64 {
		if i < len(d) {
			return d[i]
		}
		return nil
	}
	g := model.TraceGEMM{Op: op}
	prod := func(x []int64) float64 {
		p := 1.0
		for _, v := range x {
			p *= float64(v)
		}
		return p
	}
	var x, w []int64
	typ := 0
	switch op {
	case "aten::mm", "aten::bmm":
		x, w = first(0), first(1)
	case "aten::addmm", "aten::baddbmm":
		x, w, typ = first(1), first(2), 1
	case "aten::linear":
		x, w = first(0), first(1)
		if len(x) < 2 || len(w) != 2 {
			return g, false
		}
		g.M, g.K, g.N = prod(x[:len(x)-1]), float64(x[len(x)-1]), float64(w[0])
		if float64(w[1]) != g.K {
			return g, false
		}
	}
	if op != "aten::linear" {
		n := len(x)
		if n < 2 || len(w) != n || n > 3 || x[n-1] != w[n-2] {
			return g, false
		}
		g.M, g.K, g.N = prod(x[:n-1]), float64(x[n-1]), float64(w[n-1])
	}
	if typ < len(a.Types) {
		g.Dtype = a.Types[typ]
	}
	ok := g.M > 0 && g.N > 0 && g.K > 0 && g.M*g.N*g.K < 1e18
	return g, ok
}

// finish sorts a stream's intervals, moves them to seconds from t0 and sums its idle time.
func finish(st *model.TraceStream, t0, end float64) {
	iv := st.Intervals
	sort.SliceStable(iv, func(i, j int) bool { return iv[i].Start < iv[j].Start })
	covered, reach := 0.0, math.Inf(-1)
	for i := range iv {
		s, e := iv[i].Start, iv[i].End
		if e > reach {
			covered += e - max(s, reach)
			reach = e
		}
		iv[i].Start, iv[i].End = (s-t0)*1e-6, (e-t0)*1e-6
	}
	st.Idle = max((end-t0-covered)*1e-6, 0)
}

// gpuClass says whether an event category is a GPU event the reader keeps, and its class when the
// category decides it (copies and sets); kernels are classified by name.
func gpuClass(cat string) (model.KernelClass, bool) {
	switch strings.ToLower(cat) {
	case "kernel":
		return model.KernelOther, true
	case "gpu_memcpy", "gpu_memset":
		return model.KernelCopy, true
	}
	return 0, false
}

// The words in a kernel's name that say what it is, lower case, checked in this order: NCCL
// first, attention before GEMM (fmha_cutlassF is attention).
var (
	attentionWords = []string{"flash", "fmha", "attn", "attention", "sdpa", "mha_", "paged_kv", "flashinfer"}
	gemmWords      = []string{"gemm", "cutlass", "cublas", "xmma", "nvjet", "matmul", "cijk_", "_mma_", "wgmma", "s1688", "s16816", "h16816", "hmma"}
)

// Classify names a GPU kernel's class from its name: NCCL (nccl…), attention (flash, fmha,
// attn, …), GEMM (gemm, cutlass, cublas, sm90_xmma, nvjet, …) or other.
func Classify(name string) model.KernelClass {
	n := strings.ToLower(name)
	if strings.HasPrefix(strings.TrimPrefix(n, "void "), "nccl") || strings.Contains(n, "nccldevkernel") || strings.Contains(n, "ncclkernel") {
		return model.KernelNCCL
	}
	for _, w := range attentionWords {
		if strings.Contains(n, w) {
			return model.KernelAttention
		}
	}
	for _, w := range gemmWords {
		if strings.Contains(n, w) {
			return model.KernelGEMM
		}
	}
	return model.KernelOther
}

// ncclOps maps NCCL's operation words to CollOp's names.
var ncclOps = map[string]string{
	"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
	"sendrecv": "send-recv", "broadcast": "broadcast", "reduce": "reduce", "alltoall": "all-to-all",
	"send": "send-recv", "recv": "send-recv", "generic": "generic",
}

var ncclAlgos = []string{"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "RING", "TREE", "PAT", "COLLNET"}
var ncclProtos = map[string]bool{"LL": true, "LL128": true, "SIMPLE": true}

// ParseNCCL reads an NCCL kernel's name: the operation in CollOp's spelling, and the algorithm and
// protocol NCCL chose ("" where the name does not say). Both NCCL namings are read:
// ncclKernel_AllReduce_RING_LL_Sum_float(…) and ncclDevKernel_AllReduce_Sum_bf16_RING_LL(…).
func ParseNCCL(name string) (op, algo, proto string) {
	n := strings.TrimPrefix(strings.TrimSpace(name), "void ")
	if i := strings.IndexAny(n, "(<"); i >= 0 {
		n = n[:i]
	}
	for _, p := range []string{"ncclDevKernel_", "ncclKernel_"} {
		if strings.HasPrefix(n, p) {
			n = n[len(p):]
			break
		}
	}
	parts := strings.Split(n, "_")
	if len(parts) == 0 || parts[0] == "" {
		return "", "", ""
	}
	op = ncclOps[strings.ToLower(parts[0])]
	if op == "" {
		op = strings.ToLower(parts[0])
	}
	rest := "_" + strings.Join(parts[1:], "_") + "_"
	for _, a := range ncclAlgos {
		if strings.Contains(rest, "_"+a+"_") {
			algo = a
			break
		}
	}
	for _, p := range parts[1:] {
		if ncclProtos[p] {
			proto = p
		}
	}
	return op, algo, proto
}

// collName maps args' "Collective name" (allreduce, _allgather_base, reduce_scatter_tensor, …)
// to CollOp's spelling where it can.
func collName(s string) string {
	k := strings.ToLower(strings.ReplaceAll(strings.Trim(s, "_"), "_", ""))
	for _, w := range []string{"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "sendrecv", "send", "recv", "reduce"} {
		if strings.HasPrefix(k, w) {
			return ncclOps[w]
		}
	}
	return strings.ToLower(s)
}

// DtypeBytes is the size of one element of a dtype as Kineto writes it (c10's ScalarType names:
// "Float", "BFloat16", "Half", "Long", …, or torch's "bfloat16"), 0 when unknown.
func DtypeBytes(dtype string) float64 {
	switch strings.ToLower(strings.TrimPrefix(dtype, "torch.")) {
	case "double", "float64", "long", "int64", "complexfloat", "complex64", "uint64":
		return 8
	case "float", "float32", "int", "int32", "uint32", "complexhalf":
		return 4
	case "bfloat16", "half", "float16", "short", "int16", "uint16":
		return 2
	case "byte", "char", "bool", "int8", "uint8", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz":
		return 1
	case "complexdouble", "complex128":
		return 16
	}
	return 0
}

func maxPtr(a, b *float64) float64 {
	v := 0.0
	if a != nil && *a > v {
		v = *a
	}
	if b != nil && *b > v {
		v = *b
	}
	if v > 1e15 {
		return 0
	}
	return v
}

// skip reads one JSON value token by token.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// readError turns a read or decode error into an *Error at path.
func readError(name, path string, off int64, err error) (model.Trace, error) {
	msg := jsonMsg(err)
	if ue, ok := err.(*json.UnmarshalTypeError); ok && ue.Field != "" {
		if path == "" {
			path = ue.Field
		} else {
			path += "." + ue.Field
		}
	}
	return model.Trace{}, &Error{File: name, Path: path, Offset: off, Msg: msg}
}

// jsonMsg says what a decoding error means for a person.
func jsonMsg(err error) string {
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("larger than %d MiB of JSON, the limit for a trace", maxBytes>>20)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "cut short: the file ends inside the trace (a truncated copy, or a profiler that did not finish writing)"
	case errors.As(err, &se):
		if strings.Contains(se.Error(), "\\x00") {
			return "binary data (a NUL byte): not a profiler trace (Chrome trace JSON)"
		}
		return "not JSON: " + se.Error()
	case errors.As(err, &ue):
		return fmt.Sprintf("a JSON %s where a %s belongs", ue.Value, ue.Type)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return "a damaged gzip file: " + err.Error()
	}
	return err.Error()
}

// fieldOf is ".field" for a type error inside a value, "" otherwise.
func fieldOf(err error) string {
	var ue *json.UnmarshalTypeError
	if errors.As(err, &ue) && ue.Field != "" {
		return "." + ue.Field
	}
	return ""
}

// describe names a JSON token in a message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return "'" + v.String() + "'"
	case string:
		q := strconv.Quote(v)
		if len(q) > 40 {
			q = q[:37] + "…"
		}
		return "the string " + q
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// scanError is a decoding error at an event: its path and offset.
type scanError struct {
	path string
	off  int64
	err  error
}

func (e *scanError) Error() string { return e.path + ": " + e.err.Error() }

// eventBatch is a run of events' text, each with its offset after it.
type eventBatch struct {
	buf    []byte
	ends   []int
	offs   []int64
	first  int   // the index of the first event
	err    error // the decoding error after the last event, if any
	errOff int64
}

// batchEvents is how many events a batch holds.
const batchEvents = 512

// scanEvents reads the events of the traceEvents array dec is in (its opening [ read) and hands
// each to handle, in order, with its path and the offset after it: dec scans them on a goroutine
// of its own, a batch at a time (at most a few batches in flight), while handle decodes the
// batch before. The first error, of either, ends it; dec is not read once it returns.
func scanEvents(dec *json.Decoder, handle func(raw []byte, path string, off int64) error) error {
	batches := make(chan *eventBatch, 4)
	free := make(chan *eventBatch, 6)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(batches)
		var raw json.RawMessage
		for i := 0; ; {
			var b *eventBatch
			select {
			case b = <-free:
			default:
				b = &eventBatch{}
			}
			b.buf, b.ends, b.offs, b.first, b.err = b.buf[:0], b.ends[:0], b.offs[:0], i, nil
			more := true
			for len(b.ends) < batchEvents {
				if more = dec.More(); !more {
					break
				}
				raw = raw[:0]
				if err := dec.Decode(&raw); err != nil {
					b.err, b.errOff, more = err, dec.InputOffset(), false
					break
				}
				b.buf = append(b.buf, raw...)
				b.ends = append(b.ends, len(b.buf))
				b.offs = append(b.offs, dec.InputOffset())
				i++
			}
			select {
			case batches <- b:
			case <-stop:
				return
			}
			if !more {
				return
			}
		}
	}()
	finish := func(err error) error {
		close(stop)
		for range batches { // the scanner's last batch, if it was sending one
		}
		<-done
		return err
	}
	for b := range batches {
		start := 0
		for k, end := range b.ends {
			if err := handle(b.buf[start:end], "traceEvents["+strconv.Itoa(b.first+k)+"]", b.offs[k]); err != nil {
				return finish(err)
			}
			start = end
		}
		if b.err != nil {
			return finish(&scanError{path: "traceEvents[" + strconv.Itoa(b.first+len(b.ends)) + "]", off: b.errOff, err: b.err})
		}
		select {
		case free <- b:
		default:
		}
	}
	return finish(nil)
}
