package published

import (
	"fmt"
	"sort"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// One GEMM alone by shape: XLA's measured cuBLAS table for H100 and the check of the model's
// GEMM curve (costmodel.GEMMTFLOPS) against it.

// GEMMRow is one published measurement of one GEMM shape: M, N, K (batch 1) and TFLOP/s.
type GEMMRow struct {
	M, N, K int
	TFLOPS  float64
}

// XLAH100GEMMs is XLA's default matmul performance table for sm_90 (H100 SXM), bf16 inputs
// and output, batch 1: the 48 shapes of its first two pages as stored at tensorflow/tensorflow
// commit 9bebee8 (value = FLOP/s, rounded here to 0.1 TFLOP/s) [XLA, §8.1].
func XLAH100GEMMs() []GEMMRow {
	return []GEMMRow{
		{1024, 4096, 512, 340.7}, {4096, 2048, 4096, 764.1}, {512, 4096, 4096, 653.1},
		{4096, 256, 1024, 216.1}, {1024, 256, 512, 41.8}, {512, 512, 2048, 115.3},
		{512, 256, 4096, 92.2}, {256, 2048, 4096, 288.3}, {256, 256, 1024, 17.8},
		{2048, 1024, 4096, 659.1}, {4096, 4096, 1024, 681.1}, {1024, 4096, 256, 214.7},
		{1024, 1024, 1024, 246.7}, {256, 4096, 1024, 229.0}, {1024, 256, 256, 24.0},
		{1024, 512, 1024, 141.9}, {2048, 4096, 2048, 717.5}, {2048, 512, 4096, 455.7},
		{256, 512, 256, 12.5}, {2048, 2048, 1024, 492.1}, {1024, 2048, 2048, 526.3},
		{4096, 512, 512, 239.2}, {2048, 256, 2048, 232.6}, {512, 2048, 512, 143.7},
		{512, 1024, 2048, 221.1}, {2048, 1024, 512, 239.2}, {256, 512, 512, 22.8},
		{4096, 512, 256, 138.7}, {512, 2048, 256, 82.2}, {1024, 1024, 256, 82.6},
		{512, 4096, 1024, 374.9}, {4096, 256, 4096, 398.9}, {4096, 512, 2048, 527.4},
		{4096, 4096, 4096, 786.0}, {512, 256, 1024, 39.7}, {2048, 256, 512, 80.9},
		{512, 2048, 4096, 463.2}, {256, 256, 4096, 86.7}, {2048, 4096, 256, 300.3},
		{2048, 1024, 1024, 378.6}, {1024, 1024, 4096, 465.6}, {256, 4096, 4096, 435.8},
		{256, 512, 2048, 62.5}, {1024, 4096, 2048, 633.1}, {1024, 512, 4096, 318.8},
		{256, 2048, 256, 47.7}, {4096, 2048, 512, 448.1}, {2048, 256, 256, 46.2},
	}
}

// gemmFewTiles is the output size below which a GEMM has fewer 128×128 tiles than a quarter of
// an H100's 132 SMs: most SMs idle unless cuBLAS splits K, which the curve does not model, so
// those rows are held to a looser tolerance.
const gemmFewTiles = 132 / 4 * 128 * 128

// GEMMChecks compares the curve with the published GEMM table on the H100 preset: each shape
// within 25% (45% with fewer output tiles than a quarter of the SMs).
func GEMMChecks(h100 model.GPU) []Check {
	var out []Check
	for _, r := range XLAH100GEMMs() {
		c := Check{Group: "gemm", Case: gemmCase(r), Published: r.TFLOPS,
			Predicted: costmodel.GEMMTFLOPS(h100, model.BF16, float64(r.M), float64(r.N), float64(r.K)),
			Unit:      "TFLOP/s", Tolerance: 0.25, Note: "[XLA]"}
		if r.M*r.N < gemmFewTiles {
			c.Tolerance, c.Note = 0.45, "[XLA] under 33 output tiles of 128×128 for 132 SMs (split-K not modelled)"
		}
		out = append(out, c)
	}
	return out
}

func gemmCase(r GEMMRow) string { return fmt.Sprintf("H100 bf16 %d×%d×%d", r.M, r.N, r.K) }

// Ampere's matmuls streaming their weights [NMLB, §8.1]: vLLM's fp16 linear layers at 1 to 64
// tokens, timed by Neural Magic's layer benchmark over 10,000 back-to-back calls, on an A100
// (SXM 80GB taken: U) and an A10. The fit of §8.1 (0.768 and 0.760 of the datasheet bandwidth)
// is the presets' gemm_memory_eff 0.77 for Ampere; these rows check the curve against it.

// LinearRow is one measured linear layer: its input and output features (K, N), the tokens (M)
// and the tokens per second the benchmark printed.
type LinearRow struct {
	K, N, M    int
	TokensPerS float64
}

// AmpereLinearRows are the fp16 rows at 1 to 64 tokens of the six shapes of 50 MB or more, by
// GPU preset (a10g stands for the A10: the same GA102 at the same 600 GB/s), from
// results_a100/results.csv (commit d8f848d) and layer_benchmarking/results_a10/results.csv
// (commit 246a351), tokens/s rounded to 0.1.
func AmpereLinearRows() map[string][]LinearRow {
	return map[string][]LinearRow{
		"a100-sxm-80gb": {
			{4096, 12288, 1, 14784.6}, {4096, 12288, 4, 60699.7}, {4096, 12288, 8, 121008.5}, {4096, 12288, 16, 240624.5}, {4096, 12288, 32, 478432.3},
			{4096, 12288, 48, 706518.3}, {4096, 12288, 64, 943117.2}, {4096, 6144, 1, 27808.2}, {4096, 6144, 4, 111696.4}, {4096, 6144, 8, 221681.2},
			{4096, 6144, 16, 439709.2}, {4096, 6144, 32, 838424.3}, {4096, 6144, 48, 1276690.3}, {4096, 6144, 64, 1705535.0}, {5120, 15360, 1, 9436.2},
			{5120, 15360, 4, 37449.5}, {5120, 15360, 8, 72782.1}, {5120, 15360, 16, 142332.8}, {5120, 15360, 32, 298511.5}, {5120, 15360, 48, 444819.3},
			{5120, 15360, 64, 588395.9}, {5120, 7168, 1, 19301.5}, {5120, 7168, 4, 72374.6}, {5120, 7168, 8, 142295.3}, {5120, 7168, 16, 292680.4},
			{5120, 7168, 32, 601560.6}, {5120, 7168, 48, 888671.0}, {5120, 7168, 64, 1166671.4}, {7168, 9216, 1, 11758.0}, {7168, 9216, 4, 45109.3},
			{7168, 9216, 8, 89040.6}, {7168, 9216, 16, 174695.7}, {7168, 9216, 32, 368675.8}, {7168, 9216, 48, 547150.0}, {7168, 9216, 64, 723624.9},
			{8192, 10240, 1, 9330.1}, {8192, 10240, 4, 35552.1}, {8192, 10240, 8, 70104.5}, {8192, 10240, 16, 137581.0}, {8192, 10240, 32, 291994.9},
			{8192, 10240, 48, 436018.3}, {8192, 10240, 64, 582794.1},
		},
		"a10g": {
			{4096, 12288, 1, 4607.2}, {4096, 12288, 4, 19328.9}, {4096, 12288, 8, 38498.1}, {4096, 12288, 16, 72198.9}, {4096, 12288, 32, 120738.7},
			{4096, 12288, 48, 205893.5}, {4096, 12288, 64, 258212.6}, {4096, 6144, 1, 9273.8}, {4096, 6144, 4, 37985.1}, {4096, 6144, 8, 75969.9},
			{4096, 6144, 16, 120249.2}, {4096, 6144, 32, 260261.1}, {4096, 6144, 48, 392473.2}, {4096, 6144, 64, 514487.8}, {5120, 15360, 1, 2982.9},
			{5120, 15360, 4, 11890.2}, {5120, 15360, 8, 23721.7}, {5120, 15360, 16, 46910.6}, {5120, 15360, 32, 91080.4}, {5120, 15360, 48, 128146.6},
			{5120, 15360, 64, 169582.9}, {5120, 7168, 1, 6308.9}, {5120, 7168, 4, 24586.4}, {5120, 7168, 8, 48927.9}, {5120, 7168, 16, 97210.2},
			{5120, 7168, 32, 185031.0}, {5120, 7168, 48, 275982.9}, {5120, 7168, 64, 367257.2}, {7168, 9216, 1, 3539.8}, {7168, 9216, 4, 13927.5},
			{7168, 9216, 8, 27825.6}, {7168, 9216, 16, 55841.3}, {7168, 9216, 32, 107336.2}, {7168, 9216, 48, 159539.3}, {7168, 9216, 64, 210296.8},
			{8192, 10240, 1, 2715.0}, {8192, 10240, 4, 10831.1}, {8192, 10240, 8, 21584.7}, {8192, 10240, 16, 42803.7}, {8192, 10240, 32, 82812.3},
			{8192, 10240, 48, 123632.1}, {8192, 10240, 64, 163501.6},
		},
	}
}

// AmpereGEMMChecks compares the GEMM curve (costmodel.GEMMSeconds, fp16) on each GPU preset
// with the measured layer times: each within 15% (two of the A10's, at 16 and 32 tokens, are
// about 17% over the mean of their neighbours at fewer and more tokens: the benchmark's noise,
// one run a shape).
func AmpereGEMMChecks(gpus map[string]model.GPU) []Check {
	rows := AmpereLinearRows()
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Check
	for _, id := range ids {
		g, ok := gpus[id]
		if !ok {
			continue
		}
		for _, r := range rows[id] {
			out = append(out, Check{Group: "gemm-ampere", Case: fmt.Sprintf("%s fp16 M=%d K=%d N=%d", id, r.M, r.K, r.N),
				Published: float64(r.M) / r.TokensPerS,
				Predicted: costmodel.GEMMSeconds(g, model.FP16, float64(r.M), float64(r.N), float64(r.K)),
				Unit:      "s", Tolerance: 0.15, Note: "[NMLB] vLLM's linear layer, cuBLAS"})
		}
	}
	return out
}
