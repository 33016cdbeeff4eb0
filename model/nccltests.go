package model

// What an nccl-tests log says (NVIDIA/nccl-tests: all_reduce_perf and the other *_perf
// programs), as plain data: assets reads the logs (assets.ParseNCCLLog), costmodel/calibrate
// fits the collective model's links to them. Times are seconds, bandwidths bytes/s.

// NCCLRun is one nccl-tests run: the output of one *_perf invocation.
type NCCLRun struct {
	File string
	// Line is the run's "# nThread" line.
	Line int
	Op   CollOp
	// OpFrom says how the operation was told: the line that names the test, the file name, or
	// the columns.
	OpFrom string
	// Ranks is the number of "# Rank" lines; Hosts the hosts they run on, in rank order, so
	// len(Hosts) is the number of nodes and Ranks / len(Hosts) the GPUs used on each.
	Ranks int
	Hosts []string
	// GPUName is the device name of the ranks ("NVIDIA A100-SXM4-80GB"), GPULine where it is.
	GPUName string
	GPULine int
	// NCCLAlgo is an NCCL_ALGO seen on the command line or in NCCL's INFO lines ("" if none),
	// NCCLAlgoLine where.
	NCCLAlgo     string
	NCCLAlgoLine int
	// Version is the nccl-tests version line, when printed ("2.18.3 nccl-headers=23003 …").
	Version string
	Rows    []NCCLRow
	// AvgBusBW is the footer's average bus bandwidth, bytes/s (0 when the run has no footer).
	AvgBusBW float64
	// Warnings are what a person should know about the run: rows that failed validation, a run
	// that stopped early, rows of size 0 skipped.
	Warnings []string
}

// Nodes is the number of hosts the ranks run on.
func (r NCCLRun) Nodes() int { return max(len(r.Hosts), 1) }

// Measured is the communicator the run timed: its ranks and the nodes they span. sendrecv_perf
// sends from each rank to the next one: a pair of GPUs, on two nodes when the run spans nodes
// (the crossing pair is the slowest).
func (r NCCLRun) Measured() (ranks, nodes int) {
	if r.Op == CollSendRecv {
		return 2, min(r.Nodes(), 2)
	}
	return r.Ranks, r.Nodes()
}

// NCCLRow is one line of the results table.
type NCCLRow struct {
	Line  int
	Bytes float64
	Type  string
	Redop string // "" when the table has no redop column
	Root  int    // -1 when none
	// OutOfPlace and InPlace are the two timings; HasInPlace is false for a table with one.
	OutOfPlace, InPlace NCCLTiming
	HasInPlace          bool
}

// NCCLTiming is one placement's columns: time in seconds, algorithm and bus bandwidth in
// bytes/s, and #wrong (-1 when the log says N/A).
type NCCLTiming struct {
	Seconds, AlgBW, BusBW float64
	Wrong                 int
}

// Seconds is the row's time: the faster of its out-of-place and in-place timings. Both run the
// same algorithm over the same bytes, and noise (another process, a late launch) only ever adds
// time, so the faster is the better measure of what the collective costs.
func (r NCCLRow) Seconds() float64 {
	t := r.OutOfPlace.Seconds
	if r.HasInPlace && r.InPlace.Seconds > 0 && (t <= 0 || r.InPlace.Seconds < t) {
		t = r.InPlace.Seconds
	}
	return t
}
