package model

// What a PyTorch profiler (Kineto) trace measured on one rank, as plain data: assets/trace reads
// the Chrome trace JSON a rank writes and keeps its GPU kernels, classified; the overlay draws
// them beside the model's timeline. Times are seconds from the trace's first kernel.

// KernelClass is what a GPU kernel does, from its name.
type KernelClass uint8

// Kernel classes. NumKernelClasses counts them.
const (
	KernelGEMM      KernelClass = iota // matrix multiplies: cuBLAS, CUTLASS, nvjet, xmma
	KernelAttention                    // flash attention, fmha, attention kernels
	KernelNCCL                         // NCCL collectives and send/recv
	KernelCopy                         // gpu_memcpy and gpu_memset
	KernelOther                        // element-wise, norms, reductions, everything else
	NumKernelClasses
)

func (c KernelClass) String() string {
	switch c {
	case KernelGEMM:
		return "gemm"
	case KernelAttention:
		return "attention"
	case KernelNCCL:
		return "nccl"
	case KernelCopy:
		return "memcpy"
	case KernelOther:
		return "other"
	}
	return "?"
}

// Comm reports whether the class is communication (NCCL); the others are the GPU's own work.
func (c KernelClass) Comm() bool { return c == KernelNCCL }

// Trace is one rank's profiler trace.
type Trace struct {
	// File is the file it was read from.
	File string
	// Rank is distributedInfo.rank, -1 when the trace does not say; WorldSize
	// distributedInfo.world_size, 0 when absent.
	Rank      int
	WorldSize int
	// Span is from the first kernel's start to the last kernel's end, seconds.
	Span float64
	// Kernels counts the GPU events kept (kernels, copies and sets); Events every event read.
	Kernels, Events int
	// Streams are the GPU streams that ran a kernel, by device then stream id.
	Streams []TraceStream
	// Collectives are the NCCL kernels, in file order.
	Collectives []TraceCollective
	// GEMMs are the GEMM kernels whose CPU op (linked by args "External id") recorded its
	// shapes (torch.profiler record_shapes=True), in file order; empty when none did.
	GEMMs []TraceGEMM
}

// TraceGEMM is one GEMM kernel with the shape of the matmul that launched it: an M×K by K×N
// product (a batched one counts its batch in M).
type TraceGEMM struct {
	Op      string // the CPU op: aten::mm, aten::addmm, aten::bmm, aten::linear …
	M, N, K float64
	// Dtype is the first input's type as the op recorded it ("c10::BFloat16", "float").
	Dtype string
	Dur   float64 // seconds
}

// TraceStream is one CUDA stream of one device.
type TraceStream struct {
	Device, Stream int
	// Busy is the time each class's kernels ran on the stream, seconds; Idle is the trace's span
	// less the time any kernel ran on it.
	Busy [NumKernelClasses]float64
	Idle float64
	// Intervals are the kernels in start order, times from the trace's first kernel.
	Intervals []TraceInterval
}

// TraceInterval is one kernel on a stream.
type TraceInterval struct {
	Start, End float64
	Class      KernelClass
	// Correlation is the kernel's args correlation (its launch's CUPTI id), 0 when absent.
	Correlation int64
}

// TraceCollective is one NCCL kernel: what the name and the args say of it.
type TraceCollective struct {
	// Op is the collective as the kernel names it, in CollOp's spelling where it maps
	// ("all-reduce", "all-gather", "reduce-scatter", "send-recv", "broadcast", "reduce",
	// "all-to-all"), else the kernel's word; Algorithm and Protocol as NCCL names them
	// ("RING", "TREE", "NVLS", …; "LL", "LL128", "SIMPLE"), "" when the name does not say.
	Op, Algorithm, Protocol string
	// Dtype is the args' dtype as written; Bytes the message (the larger of In and Out msg
	// nelems times the dtype's size), 0 when the args do not record it; GroupSize the
	// communicator's GPUs (args "Group size"), 0 when absent.
	Dtype     string
	Bytes     float64
	GroupSize int
	Start     float64
	Dur       float64
}

// BusyTotal is the time each class's kernels ran, summed over every stream.
func (t Trace) BusyTotal() [NumKernelClasses]float64 {
	var s [NumKernelClasses]float64
	for _, st := range t.Streams {
		for c, v := range st.Busy {
			s[c] += v
		}
	}
	return s
}
