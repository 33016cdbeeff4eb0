package assets

import (
	"bytes"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/model"
)

// Reading nccl-tests output (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, sendrecv_perf, broadcast_perf, alltoall_perf). One *_perf invocation
// prints:
//
//	# Collective test starting: all_reduce_perf             (nccl-tests 2.14 and later)
//	# nThread 1 nGpus 8 minBytes 32768 maxBytes 17179869184 step: 2(factor) warmup iters: 5 …
//	# Using devices
//	#  Rank  0 Group  0 Pid  4242 on   node01 device  0 [0x07] NVIDIA A100-SXM4-80GB
//	…
//	#                                                 out-of-place                       in-place
//	#       size    count   type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//	#        (B) (elements)                          (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//	       32768     8192  float     sum      -1    43.83    0.75    1.31      0    43.91    0.75    1.31      0
//	…
//	# Out of bounds values : 0 OK
//	# Avg bus bandwidth    : 101.4
//
// Older versions have no root column (and no redop for the operations without one) and call
// #wrong "error"; validation off prints N/A there. A file may hold several runs (a script running
// one test after another), each from its "# nThread" line. Lines that are neither the header nor
// the table are noise and skipped: NCCL INFO and WARN lines ("host:pid:tid [0] NCCL INFO …"),
// MPI's banners, the shell's command line. Launchers' prefixes are removed: srun --label ("3: "),
// Open MPI's --tag-output ("[1,0]<stdout>:"), kubectl's time stamps.

// Bounds on what one log may hold.
const (
	// MaxNCCLRows is the most result rows one file may have (a sweep of 8 B to 16 GiB by 2 is 32).
	MaxNCCLRows = 4096
	// MaxNCCLLineBytes is the longest line read; a longer one is not a log.
	MaxNCCLLineBytes = 1 << 20
	maxTimeUS        = 1e12 // 11 days: a time above it is not a measurement
)

// NCCLLogError is a problem with an nccl-tests log: the file, the line and what is wrong.
type NCCLLogError struct {
	File string
	Line int
	Msg  string
}

func (e *NCCLLogError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// testOps maps nccl-tests' program names to operations; the other programs it has are named so
// that a log of one is refused as such.
var testOps = map[string]model.CollOp{
	"all_reduce": model.CollAllReduce, "all_gather": model.CollAllGather,
	"reduce_scatter": model.CollReduceScatter, "sendrecv": model.CollSendRecv,
	"broadcast": model.CollBroadcast, "alltoall": model.CollAllToAll,
}

var unsupportedTests = []string{"reduce", "gather", "scatter", "hypercube"}

var (
	// Prefixes launchers and log collectors put before each line: srun --label ("3: "), Open
	// MPI's --tag-output ("[1,0]<stdout>:"), an RFC 3339 time stamp (kubectl logs --timestamps).
	reSrunLabel = regexp.MustCompile(`^\s*(?:\d+:\s|\[\d+,\d+\]<std(?:out|err)>:|\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?\s)`)
	reRank      = regexp.MustCompile(`^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s+(.+?)\s*$`)
	reTestName  = regexp.MustCompile(`\b([a-z]+(?:_[a-z]+)?)_perf(?:_mpi)?\b`)
	reNCCLAlgo  = regexp.MustCompile(`NCCL_ALGO(?:=|\s+set by environment to\s+)"?([^\s"']+)`)
	reStarting  = regexp.MustCompile(`^#\s*Collective test starting:\s*(\S+)`)
	reVersion   = regexp.MustCompile(`^#\s*nccl-tests version\s+(.+?)\s*$`)
)

// ncclMention is a name found on a line: a test program or an NCCL_ALGO value.
type ncclMention struct {
	text string
	line int
	from string // how it was found, for messages
}

// ncclTable is the column layout of a results table.
type ncclTable struct {
	line    int // the column header's line
	cols    []string
	size    int
	typ     int // -1 when absent
	redop   int
	root    int
	timings []int // the index of each placement's time column
	inFirst bool  // the in-place columns come first (the placement line says so)
}

// ncclParser holds the state of reading one file.
type ncclParser struct {
	file    string
	runs    []*model.NCCLRun
	cur     *model.NCCLRun
	tab     *ncclTable
	closed  bool // the current run's footer was read
	oob     bool
	inFirst bool
	// Mentions seen since the last run closed: they belong to the next run.
	pendTest, pendAlgo *ncclMention
	pendVersion        string
	// Of the current run.
	test       *ncclMention
	rankLines  map[int]int
	hostOrder  []string
	hostRanks  map[string]int
	zeroRows   int
	wrongRows  int
	lastRowLn  int
	footerLine int
	// lastText is the last line with text, where a run that ends without a footer ends.
	lastText int
	// Per closed run, in order: the line that named its test, and its table.
	tests  []*ncclMention
	tables []*ncclTable
}

// ParseNCCLLog reads one file of nccl-tests output, named name (in messages), and returns its runs
// in file order. A file that is empty, binary, not nccl-tests output, cut short (a header without
// rows, a row cut mid-line) or whose operation cannot be told is a *NCCLLogError naming the line.
func ParseNCCLLog(name string, data []byte) ([]model.NCCLRun, error) {
	p := &ncclParser{file: name}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, p.errf(1, "empty file: no nccl-tests output")
	}
	ln := 0
	for len(data) > 0 {
		ln++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(line) > MaxNCCLLineBytes {
			return nil, p.errf(ln, "a line of %d bytes: not a text log (lines are at most %d)", len(line), MaxNCCLLineBytes)
		}
		if bytes.IndexByte(line, 0) >= 0 {
			return nil, p.errf(ln, "binary data (a NUL byte): not a text log")
		}
		if err := p.line(ln, strings.TrimRight(string(line), "\r \t")); err != nil {
			return nil, err
		}
	}
	if err := p.closeRun(); err != nil {
		return nil, err
	}
	if len(p.runs) == 0 {
		return nil, p.errf(ln, `not nccl-tests output: no "# nThread … nGpus …" header line in %d lines`, ln)
	}
	out := make([]model.NCCLRun, len(p.runs))
	for i, r := range p.runs {
		if err := p.identify(r, len(p.runs) == 1); err != nil {
			return nil, err
		}
		out[i] = *r
	}
	return out, nil
}

func (p *ncclParser) errf(line int, format string, args ...any) error {
	return &NCCLLogError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// line reads one line of the file.
func (p *ncclParser) line(ln int, s string) error {
	if loc := reSrunLabel.FindStringIndex(s); loc != nil && !isRowStart(s) {
		s = s[loc[1]:]
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	defer func() { p.lastText = ln }()
	if strings.HasPrefix(t, "#") {
		return p.comment(ln, t)
	}
	// A results row: the first field a whole number, inside a table.
	if p.cur != nil && p.tab != nil && !p.closed && isRowStart(t) {
		return p.row(ln, strings.Fields(t))
	}
	// Noise: the command line, NCCL's INFO lines, MPI's banners. Keep what names the test or
	// NCCL_ALGO.
	p.mentions(ln, t)
	return nil
}

// isRowStart reports whether a line starts with a whole number followed by a space: a row.
func isRowStart(s string) bool {
	f := strings.Fields(s)
	if len(f) < 2 {
		return len(f) == 1 && isUint(f[0])
	}
	return isUint(f[0])
}

func isUint(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mentions notes a test program or an NCCL_ALGO named on a line that is not the table.
func (p *ncclParser) mentions(ln int, t string) {
	if m := reNCCLAlgo.FindStringSubmatch(t); m != nil {
		mm := &ncclMention{text: m[1], line: ln}
		if p.cur != nil && !p.closed {
			p.cur.NCCLAlgo, p.cur.NCCLAlgoLine = mm.text, ln
		} else {
			p.pendAlgo = mm
		}
	}
	if p.cur != nil && !p.closed {
		return // a test named inside a run (an INFO line) is not the run's command
	}
	for _, m := range reTestName.FindAllStringSubmatch(t, -1) {
		if _, ok := testOps[m[1]]; ok || slices.Contains(unsupportedTests, m[1]) {
			p.pendTest = &ncclMention{text: m[1], line: ln, from: "the command line"}
		}
	}
}

// comment reads a line that starts with '#'.
func (p *ncclParser) comment(ln int, t string) error {
	if m := reStarting.FindStringSubmatch(t); m != nil {
		if mm := reTestName.FindStringSubmatch(m[1] + " "); mm != nil {
			p.pendTest = &ncclMention{text: mm[1], line: ln, from: `"# Collective test starting"`}
		} else {
			p.pendTest = &ncclMention{text: m[1], line: ln, from: `"# Collective test starting"`}
		}
		return nil
	}
	if m := reVersion.FindStringSubmatch(t); m != nil {
		p.pendVersion = m[1]
		return nil
	}
	body := strings.TrimSpace(strings.TrimPrefix(t, "#"))
	fields := strings.Fields(body)
	switch {
	case len(fields) > 0 && fields[0] == "nThread":
		return p.header(ln, fields)
	case p.cur == nil || p.closed:
		return nil // a comment outside a run
	case strings.HasPrefix(body, "Rank"):
		return p.rank(ln, t)
	case strings.Contains(body, "in-place"):
		// The placements' order over the columns ("in-place" is also inside "out-of-place").
		rest := strings.Replace(body, "out-of-place", "OOP", 1)
		o, i := strings.Index(rest, "OOP"), strings.Index(rest, "in-place")
		p.inFirst = i >= 0 && (o < 0 || i < o)
		return nil
	case slices.Contains(fields, "size") && slices.Contains(fields, "time"):
		return p.columns(ln, fields)
	case strings.HasPrefix(body, "Out of bounds values"):
		p.oob = strings.Contains(body, "FAILED")
		if p.oob {
			p.cur.Warnings = append(p.cur.Warnings, fmt.Sprintf("line %d: %s: some results were wrong; their times are used", ln, body))
		}
		return nil
	case strings.HasPrefix(body, "Avg bus bandwidth"):
		if i := strings.Index(body, ":"); i >= 0 {
			if v, err := strconv.ParseFloat(strings.TrimSpace(body[i+1:]), 64); err == nil && v >= 0 && !math.IsInf(v, 0) {
				p.cur.AvgBusBW = v * 1e9
			}
		}
		p.closed, p.footerLine = true, ln
		return nil
	}
	return nil
}

// header starts a run at its "# nThread" line.
func (p *ncclParser) header(ln int, fields []string) error {
	if err := p.closeRun(); err != nil {
		return err
	}
	kv := map[string]string{}
	for i := 0; i+1 < len(fields); i++ {
		kv[fields[i]] = fields[i+1]
	}
	for _, k := range []string{"nThread", "nGpus"} {
		v, err := strconv.Atoi(kv[k])
		if err != nil || v < 1 || v > model.MaxGPUs {
			return p.errf(ln, "header: %s %q: not a count of 1 to %d", k, kv[k], model.MaxGPUs)
		}
	}
	p.cur = &model.NCCLRun{File: p.file, Line: ln, Version: p.pendVersion}
	p.test, p.pendTest, p.pendVersion = p.pendTest, nil, ""
	if p.pendAlgo != nil {
		p.cur.NCCLAlgo, p.cur.NCCLAlgoLine = p.pendAlgo.text, p.pendAlgo.line
		p.pendAlgo = nil
	}
	p.tab, p.closed, p.oob, p.inFirst = nil, false, false, false
	p.rankLines, p.hostRanks, p.hostOrder = map[int]int{}, map[string]int{}, nil
	p.zeroRows, p.wrongRows, p.lastRowLn, p.footerLine = 0, 0, 0, 0
	return nil
}

// rank reads a "#  Rank N Group G Pid P on HOST device D [bus id] NAME" line.
func (p *ncclParser) rank(ln int, t string) error {
	m := reRank.FindStringSubmatch(t)
	if m == nil {
		return nil // "# Rank" in another sense; not a device line
	}
	if p.tab != nil {
		return p.errf(ln, "a rank line after the results table's header (line %d): two runs mixed in one log?", p.tab.line)
	}
	r, err := strconv.Atoi(m[1])
	if err != nil || r < 0 || r >= model.MaxGPUs {
		return p.errf(ln, "rank %q: not a rank number", m[1])
	}
	if first, dup := p.rankLines[r]; dup {
		return p.errf(ln, "rank %d listed twice (first on line %d): each process ran on its own, as nccl-tests built without MPI does; rebuild it with MPI=1 or run one process with -g", r, first)
	}
	if len(p.rankLines) >= model.MaxGPUs {
		return p.errf(ln, "more than %d ranks", model.MaxGPUs)
	}
	p.rankLines[r] = ln
	host := m[2]
	if _, ok := p.hostRanks[host]; !ok {
		p.hostOrder = append(p.hostOrder, host)
	}
	p.hostRanks[host]++
	name := m[3]
	switch {
	case p.cur.GPUName == "":
		p.cur.GPUName, p.cur.GPULine = name, ln
	case name != p.cur.GPUName:
		return p.errf(ln, "rank %d is a %s, rank on line %d a %s: calibrate one kind of GPU at a time", r, name, p.cur.GPULine, p.cur.GPUName)
	}
	return nil
}

// columns reads the results table's column header.
func (p *ncclParser) columns(ln int, fields []string) error {
	t := &ncclTable{line: ln, cols: fields, size: -1, typ: -1, redop: -1, root: -1, inFirst: p.inFirst}
	for i, f := range fields {
		switch f {
		case "size":
			t.size = i
		case "type":
			t.typ = i
		case "redop":
			t.redop = i
		case "root":
			t.root = i
		case "time":
			t.timings = append(t.timings, i)
		}
	}
	if t.size != 0 || len(t.timings) == 0 || len(t.timings) > 2 {
		return p.errf(ln, "a results table header nccl-tests does not print: %q", strings.Join(fields, " "))
	}
	for _, ti := range t.timings {
		if ti+3 >= len(fields) || fields[ti+1] != "algbw" || fields[ti+2] != "busbw" {
			return p.errf(ln, "a results table header nccl-tests does not print (time, algbw, busbw, #wrong): %q", strings.Join(fields, " "))
		}
	}
	if p.tab != nil && len(p.cur.Rows) > 0 {
		return p.errf(ln, "a second results table in the run of line %d", p.cur.Line)
	}
	p.tab = t
	return nil
}

// row reads one results row.
func (p *ncclParser) row(ln int, f []string) error {
	t := p.tab
	if len(f) < len(t.cols) {
		return p.errf(ln, "row cut short: %d of the %d columns of the table (header on line %d)", len(f), len(t.cols), t.line)
	}
	if len(f) > len(t.cols) {
		return p.errf(ln, "row of %d columns, the table (header on line %d) has %d: another line mixed into it?", len(f), t.line, len(t.cols))
	}
	if len(p.cur.Rows) >= MaxNCCLRows {
		return p.errf(ln, "more than %d rows", MaxNCCLRows)
	}
	size, err := strconv.ParseUint(f[t.size], 10, 64)
	if err != nil || size > 1<<50 {
		return p.errf(ln, "size %q: not a number of bytes up to 1 PiB", f[t.size])
	}
	r := model.NCCLRow{Line: ln, Bytes: float64(size), Root: -1}
	if t.typ >= 0 {
		r.Type = f[t.typ]
	}
	if t.redop >= 0 {
		r.Redop = f[t.redop]
	}
	if t.root >= 0 {
		root, err := strconv.Atoi(f[t.root])
		if err != nil || root < -1 {
			return p.errf(ln, "root %q: not a rank or -1", f[t.root])
		}
		r.Root = root
	}
	var tims []model.NCCLTiming
	for _, ti := range t.timings {
		tm, err := p.timing(ln, t.cols, f, ti)
		if err != nil {
			return err
		}
		tims = append(tims, tm)
	}
	r.OutOfPlace = tims[0]
	if len(tims) == 2 {
		r.InPlace, r.HasInPlace = tims[1], true
		if t.inFirst {
			r.OutOfPlace, r.InPlace = tims[1], tims[0]
		}
	}
	if r.OutOfPlace.Wrong > 0 || r.InPlace.Wrong > 0 {
		p.wrongRows++
	}
	if size == 0 {
		p.zeroRows++
		return nil
	}
	if !(r.Seconds() > 0) {
		return p.errf(ln, "a time of 0 µs for %d bytes: not a measurement", size)
	}
	p.cur.Rows = append(p.cur.Rows, r)
	p.lastRowLn = ln
	return nil
}

// timing reads the time, algbw, busbw and #wrong columns from index i.
func (p *ncclParser) timing(ln int, cols, f []string, i int) (model.NCCLTiming, error) {
	num := func(j int, scale, maxV float64) (float64, error) {
		v, err := strconv.ParseFloat(f[j], 64)
		if err != nil || !(v >= 0) || v > maxV {
			return 0, p.errf(ln, "%s %q: not a number from 0 to %g", cols[j], f[j], maxV)
		}
		return v * scale, nil
	}
	var tm model.NCCLTiming
	var err error
	if tm.Seconds, err = num(i, 1e-6, maxTimeUS); err != nil {
		return tm, err
	}
	if tm.AlgBW, err = num(i+1, 1e9, 1e9); err != nil {
		return tm, err
	}
	if tm.BusBW, err = num(i+2, 1e9, 1e9); err != nil {
		return tm, err
	}
	w := f[i+3]
	switch {
	case strings.EqualFold(w, "N/A"):
		tm.Wrong = -1
	case isUint(w):
		tm.Wrong, _ = strconv.Atoi(w)
	default:
		// Old versions print the maximum error as a float (0e+00).
		v, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsNaN(v) {
			return tm, p.errf(ln, "%s %q: not a count of wrong values", cols[i+3], w)
		}
		if v != 0 {
			tm.Wrong = 1
		}
	}
	return tm, nil
}

// closeRun checks the current run once its last line is read.
func (p *ncclParser) closeRun() error {
	r := p.cur
	if r == nil {
		return nil
	}
	p.cur = nil
	end := max(p.lastText, r.Line)
	if p.footerLine > 0 {
		end = p.footerLine
	}
	switch {
	case len(p.rankLines) == 0:
		return p.errf(r.Line, `the run has no "#  Rank N … on HOST device D [bus id] NAME" lines after its header: the GPUs and hosts are unknown`)
	case p.tab == nil:
		return p.errf(end, `truncated: the run of line %d has no results table ("#  size  count  type …")`, r.Line)
	case len(r.Rows) == 0 && p.zeroRows > 0:
		return p.errf(end, "the results table (line %d) has only rows of 0 bytes: nothing to fit", p.tab.line)
	case len(r.Rows) == 0:
		return p.errf(end, "truncated: the results table (line %d) has no rows", p.tab.line)
	}
	// The ranks: as many on every host, numbered 0 to n-1.
	r.Ranks = len(p.rankLines)
	for i := range r.Ranks {
		if _, ok := p.rankLines[i]; !ok {
			return p.errf(r.Line, "ranks listed: %d, but rank %d is missing: the header is incomplete", r.Ranks, i)
		}
	}
	r.Hosts = p.hostOrder
	per := p.hostRanks[p.hostOrder[0]]
	for _, h := range p.hostOrder {
		if p.hostRanks[h] != per {
			return p.errf(r.Line, "%d ranks on %s but %d on %s: the model needs as many GPUs on every node", per, p.hostOrder[0], p.hostRanks[h], h)
		}
	}
	if r.Ranks < 2 {
		return p.errf(r.Line, "a run of one rank measures no communication")
	}
	if p.footerLine == 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(`line %d: the run stops after its last row, without "# Avg bus bandwidth": its %d rows are used`, p.lastRowLn, len(r.Rows)))
	}
	if p.zeroRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d rows of 0 bytes skipped", p.zeroRows))
	}
	if p.wrongRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d rows with wrong results (#wrong > 0): their times are used", p.wrongRows))
	}
	p.runs = append(p.runs, r)
	// Keep the test named for this run, to identify it once the file is read.
	p.tests = append(p.tests, p.test)
	p.tables = append(p.tables, p.tab)
	p.test, p.tab = nil, nil
	return nil
}

// identify sets the run's operation from, in order: the line naming the test (nccl-tests'
// "# Collective test starting", or the command line before the run), the file name (when the
// file holds one run), or the columns: the reduction and root, and busbw / algbw, which is the
// operation's bus factor [NT]. When a name is found the columns must agree with it.
func (p *ncclParser) identify(r *model.NCCLRun, only bool) error {
	i := slices.Index(p.runs, r)
	test, tab := p.tests[i], p.tables[i]
	ratio, ratioLine := busRatio(r.Rows)
	if test != nil {
		op, ok := testOps[test.text]
		if !ok {
			return p.errf(test.line, "%s_perf: calibrate reads all_reduce, all_gather, reduce_scatter, sendrecv, broadcast and alltoall logs", test.text)
		}
		r.Op, r.OpFrom = op, fmt.Sprintf("%s_perf (line %d, %s)", test.text, test.line, test.from)
	} else if op, name, ok := opFromFileName(p.file); ok && only {
		r.Op, r.OpFrom = op, fmt.Sprintf("%s (the file name)", name)
	} else {
		op, err := opFromColumns(r, tab, ratio)
		if err != nil {
			return p.errf(tab.line, "%s", err.Error())
		}
		r.Op, r.OpFrom = op, fmt.Sprintf("the columns (line %d: redop %s, root %d, busbw = algbw × %.3f)", tab.line, orNone(r.Rows[0].Redop), r.Rows[0].Root, ratio)
		return nil
	}
	// The name must agree with the columns.
	if ratio > 0 {
		ranks, _ := r.Measured()
		want := r.Op.BusFactor(ranks)
		if math.Abs(ratio/want-1) > 0.03 {
			return p.errf(ratioLine, "the run is named %s (%s) but its busbw is algbw × %.3f, where %s on %d ranks has × %.3f: check the file", r.Op, r.OpFrom, ratio, r.Op, r.Ranks, want)
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// busRatio is the median of busbw / algbw over the rows whose algbw is printed with at least three
// digits (≥ 1 GB/s), and the first of those rows; 0 when no row has.
func busRatio(rows []model.NCCLRow) (float64, int) {
	var rs []float64
	line := 0
	for _, r := range rows {
		if a, b := r.OutOfPlace.AlgBW, r.OutOfPlace.BusBW; a >= 1e9 && b >= 1e9 {
			rs = append(rs, b/a)
			if line == 0 {
				line = r.Line
			}
		}
	}
	if len(rs) == 0 {
		return 0, 0
	}
	sort.Float64s(rs)
	return rs[len(rs)/2], line
}

// opFromFileName finds the operation in a file name such as all_reduce_perf.log, allgather-2n.txt
// or rs_8xh100.log is not enough: the name must spell the operation out.
func opFromFileName(file string) (model.CollOp, string, bool) {
	base := strings.ToLower(path.Base(strings.ReplaceAll(file, "\\", "/")))
	flat := strings.NewReplacer("_", "", "-", "", ".", "", " ", "").Replace(base)
	var found []model.CollOp
	for _, k := range []struct {
		word string
		op   model.CollOp
	}{{"allreduce", model.CollAllReduce}, {"allgather", model.CollAllGather}, {"reducescatter", model.CollReduceScatter},
		{"sendrecv", model.CollSendRecv}, {"broadcast", model.CollBroadcast}, {"alltoall", model.CollAllToAll}} {
		if strings.Contains(flat, k.word) {
			found = append(found, k.op)
		}
	}
	if len(found) != 1 {
		return 0, "", false
	}
	return found[0], base, true
}

// opFromColumns tells the operation from the table: a reduction without a root is all-reduce or
// reduce-scatter, told apart by busbw / algbw (2(n−1)/n against (n−1)/n); no reduction and no
// root is send/recv (× 1) or all-gather / all-to-all ((n−1)/n, which the columns cannot tell
// apart); a root without a reduction is a broadcast.
func opFromColumns(r *model.NCCLRun, tab *ncclTable, ratio float64) (model.CollOp, error) {
	const unnamed = "cannot tell the operation: no line names the test (all_reduce_perf …) and the file name does not either; "
	if tab.redop < 0 {
		return 0, fmt.Errorf(unnamed + "the table has no redop column; keep the command line in the log or name the file after the test (all_gather_perf.log)")
	}
	redop, root := r.Rows[0].Redop, r.Rows[0].Root
	n := float64(r.Ranks)
	near := func(f float64) bool { return ratio > 0 && math.Abs(ratio/f-1) < 0.03 }
	switch {
	case redop != "none" && root < 0 && near(2*(n-1)/n):
		return model.CollAllReduce, nil
	case redop != "none" && root < 0 && near((n-1)/n):
		return model.CollReduceScatter, nil
	case redop == "none" && root < 0 && near(1) && !near((n-1)/n):
		return model.CollSendRecv, nil
	case redop == "none" && root >= 0 && near(1):
		return model.CollBroadcast, nil
	case redop == "none" && root < 0 && near((n-1)/n):
		return 0, fmt.Errorf(unnamed + "the columns fit all-gather and all-to-all alike; name the file after the test (all_gather_perf.log)")
	case ratio == 0:
		return 0, fmt.Errorf(unnamed + "no row is large enough (algbw ≥ 1 GB/s) to read the bus factor from; name the file after the test")
	}
	return 0, fmt.Errorf(unnamed+"redop %s, root %d and busbw = algbw × %.3f on %d ranks match no operation calibrate reads", orNone(redop), root, ratio, r.Ranks)
}
