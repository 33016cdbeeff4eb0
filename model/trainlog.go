package model

// TrainLog is one training run read from its log (Megatron-LM's or torchtitan's): what the log
// says of the scenario, and the figures it measured, averaged over the logged iterations after
// the warm-up.
type TrainLog struct {
	// File is the file it was read from.
	File string
	// Tool is the trainer that wrote it: ToolMegatron or ToolTorchtitan.
	Tool string
	// Logged holds each setting the log states, under splitscope's flag name ("tp", "layers",
	// "seq", "precision", …), with the log's name for it and its line; each name at most once.
	Logged []TrainSetting
	// GPUName is the GPU as the log names it (torchtitan's "CUDA capacity: NVIDIA H100 with
	// 94.99GiB memory"), "" when it does not.
	GPUName string
	// Iterations are the logged iterations averaged (the last of each logged interval), in order;
	// Warmup those skipped as the warm-up.
	Iterations []int
	Warmup     []int
	// Metrics are the figures measured, averaged over Iterations (peak memory: the largest
	// logged); only those the log has.
	Metrics []TrainMetric
	// Warnings are what a person should know about the run (skipped iterations, ranks that
	// disagree).
	Warnings []string
}

// The trainers TrainLog is read from.
const (
	ToolMegatron   = "Megatron-LM"
	ToolTorchtitan = "torchtitan"
)

// TrainSetting is one setting a training log states.
type TrainSetting struct {
	// Name is splitscope's flag for it ("tp", "pp", "dp", "cp", "ep", "chunks", "gpus",
	// "layers", "hidden", "heads", "kv-heads", "ffn", "vocab", "experts", "seq", "batch",
	// "micro-batch", "precision", "recompute", "sequence-parallel", "zero").
	Name string
	// Value is as the flag takes it ("8", "bf16", "selective", "true").
	Value string
	// Field is the log's name for it ("tensor_model_parallel_size"), Raw its value as written
	// and Line where.
	Field string
	Raw   string
	Line  int
}

// Setting is the setting named name (a flag name), ok false when the log does not state it.
func (t TrainLog) Setting(name string) (TrainSetting, bool) {
	for _, s := range t.Logged {
		if s.Name == name {
			return s, true
		}
	}
	return TrainSetting{}, false
}

// TrainMetric is one figure a training run measured.
type TrainMetric struct {
	// Name is the figure in output: "step_time_s", "tflops_per_gpu" (model TFLOP/s per GPU, by
	// the trainer's own FLOP count), "tokens_per_s_per_gpu", "peak_memory_bytes" (the fullest
	// GPU's peak, as PyTorch's allocator counts it).
	Name string
	// Field is the log's name for it ("elapsed time per iteration (ms)").
	Field string
	Value float64
}
