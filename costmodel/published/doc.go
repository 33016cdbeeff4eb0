// Package published holds every published or measured figure the cost model is checked on, each
// with its source tag (docs/references.md §0), and the checks themselves: Megatron-LM's Table 1
// and Korthikanti et al.'s Figure 1 on Selene (validation.go), nccl-tests and other collective
// sweeps (sweeps.go, commvalidation.go), published serving runs (servedata.go,
// servevalidation.go), measured vLLM and other engines' runs with their replays (vllmruns.go,
// moreruns.go) and XLA's H100 GEMM table (gemm.go). `splitscope validate`, its tests and the
// teaching pane print the same checks.
//
// It imports the engine (costmodel) and is imported by it never: costmodel's root holds the
// engine only, and scripts/check-layout.sh keeps it so. Like costmodel it is pure: the caller
// passes the presets (ServePresets, Selene); nothing here reads a file.
package published

// ratio is a / b, or 0 when b is not positive (as costmodel's).
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
