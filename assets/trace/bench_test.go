package trace

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// synthetic builds a Kineto-shaped trace of about size bytes: per step a CPU op, its launch and
// its kernel (GEMM, attention, element-wise, an NCCL all-reduce with collective args), as the
// real traces interleave them.
func synthetic(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(`{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8}, "traceEvents": [`)
	names := []string{
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)",
		"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float>>(int, at::native::BinaryFunctor, at::detail::Array<char*, 3>)",
	}
	ts := 1.7e15
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %.3f, "dur": 12.5, "args": {"External id": %d, "Record function id": 0, "Input Dims": [[4096, 8192], [8192, 8192]], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Concrete Inputs": ["", ""], "Sequence number": %d, "Fwd thread id": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 4.1, "args": {"External id": %d, "cbid": 211, "correlation": %d}},
  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"},`, ts, i, i, ts+1, i, i, i, ts+20)
		if i%10 == 9 {
			fmt.Fprintf(&b, `
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 9, "ts": %.3f, "dur": 55.25, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 9, "correlation": %d, "registers per thread": 96, "shared memory": 0, "blocks per SM": 0.1, "warps per SM": 1.5, "grid": [16, 1, 1], "block": [640, 1, 1], "est. achieved occupancy %%": 0, "Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "Group size": 8, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}}`, ts+20, i, i)
		} else {
			fmt.Fprintf(&b, `
  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": 18.75, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 168, "shared memory": 213248, "blocks per SM": 1, "warps per SM": 12, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %%": 19}}`, names[i%3], ts+20, i, i)
		}
		ts += 40
	}
	b.WriteString("\n], \"traceName\": \"synthetic\"}\n")
	return b.Bytes()
}

// BenchmarkRead100MB reads a 100 MB trace (the issue asks ≤ 2 s and bounded memory: B/op is the
// kernels kept, not the text).
func BenchmarkRead100MB(b *testing.B) {
	data := synthetic(100 << 20)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := Read("synthetic.json", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if tr.Kernels == 0 {
			b.Fatal("no kernels")
		}
	}
}

// TestSynthetic checks the benchmark's trace reads as built: one kernel per step, a tenth NCCL.
func TestSynthetic(t *testing.T) {
	data := synthetic(1 << 20)
	tr, err := Read("synthetic.json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	steps := bytes.Count(data, []byte(`"cat": "cpu_op"`))
	if len(tr.GEMMs) == 0 || tr.GEMMs[0] != (model.TraceGEMM{Op: "aten::mm", M: 4096, N: 8192, K: 8192, Dtype: "c10::BFloat16", Dur: 18.75e-6}) {
		t.Errorf("GEMMs %d, the first %+v", len(tr.GEMMs), tr.GEMMs)
	}
	if tr.Kernels != steps || len(tr.Collectives) != steps/10 || tr.Collectives[0].Bytes != 2<<20 {
		t.Errorf("%d kernels, %d collectives of %g bytes for %d steps", tr.Kernels, len(tr.Collectives), tr.Collectives[0].Bytes, steps)
	}
}
