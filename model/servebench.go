package model

// What a serving benchmark saved, as plain data: assets/benchres reads the result files of vLLM's
// `vllm bench serve --save-result` (and the older benchmarks/benchmark_serving.py) and SGLang's
// `python -m sglang.bench_serving` (JSON Lines, one run a line); `validate --against` serves the
// run's workload in the model and sets its prediction beside each figure. Times are seconds,
// throughputs per second.

// ServeBench is one benchmark run: the scenario it describes and the figures it measured.
type ServeBench struct {
	// File is the file it was read from; Line its first line there (1 for a file of one run).
	File string
	Line int
	// Runs is how many runs the file holds (a JSON Lines file, or vLLM's --append-result).
	Runs int
	// Tool is the benchmark that wrote it: ToolVLLM, ToolSGLang or ToolTRTLLM.
	Tool string
	// Backend is the tool's --backend as written ("vllm", "openai-chat", "sglang", "trt", …);
	// Engine the serving engine it names as an Engines ID ("" when the backend does not say).
	Backend string
	Engine  string
	// Model is the model as the file names it (vLLM's model_id, SGLang's server_info.model_path),
	// "" when the file does not say.
	Model   string
	Dataset string
	// GPUName and GPUCount are what a run's metadata says of the hardware (vLLM's --metadata
	// gpu_name=… gpu_count=…, as some published runs add); "" and 0 when absent.
	GPUName  string
	GPUCount int
	// TP is the tensor-parallel size the server ran, when the file says (SGLang's
	// server_info.tp_size); 0 when absent.
	TP int
	// PP, MaxBatch and MaxTokens are what a trtllm-bench report prints of its runtime (PP Size,
	// Max Runtime Batch Size, Max Runtime Tokens); Weights and KVCache the formats its
	// quantization and KV cache dtype name (model.WeightFormats; "" when unquantized or not
	// said); 0 and "" when absent.
	PP, MaxBatch, MaxTokens int
	Weights, KVCache        string
	// ModelField and GPUField name where the file says the model and the GPU, for messages.
	ModelField, GPUField string
	// Rate is the offered requests/s, Poisson when Burstiness is 1 (0: every request at once,
	// the file's "inf"); Concurrency the clients' limit (0: none).
	Rate        float64
	Burstiness  float64
	Concurrency int
	// Prompts is the requests sent (num_prompts; 0 when the file does not say), Completed those
	// that finished; DurationS the run's length.
	Prompts   int
	Completed int
	DurationS float64
	// InputTokens and OutputTokens are the totals over the completed requests.
	InputTokens, OutputTokens int
	// InputLens and OutputLens are each request's lengths, when the file keeps them (vLLM's
	// --save-detailed, the older benchmark_serving.py always, SGLang's --output-details).
	InputLens, OutputLens []int
	// Prompt and Gen summarise the lengths: from the per-request lists when present, else the
	// totals over the completed requests, with the range a random dataset drew them from.
	Prompt, Gen BenchLengths
	// Metrics are the figures measured: TTFT, TPOT, ITL and E2E, each mean, median, std and
	// percentiles ascending, then the throughputs.
	Metrics []BenchMetric
	// Warnings are what a person should know about the run (requests that failed, bursty
	// arrivals, a backend without an engine profile).
	Warnings []string
}

// The benchmarks ServeBench is read from.
const (
	ToolVLLM   = "vllm bench serve"
	ToolSGLang = "sglang.bench_serving"
	ToolTRTLLM = "trtllm-bench"
)

// BenchLengths summarises one length (prompt or output tokens) of a run's requests.
type BenchLengths struct {
	Mean float64
	// Min and Max are the shortest and longest (0 when unknown); LogSigma the standard deviation
	// of the lengths' logarithm (0 when unknown or all equal).
	Min, Max int
	LogSigma float64
	// Uniform: the requests were drawn uniformly on [Min, Max] (a random dataset's range).
	Uniform bool
	// From says where the summary comes from ("input_lens", "total_input_tokens / completed", …).
	From string
}

// BenchMetric is one figure a run measured.
type BenchMetric struct {
	// Quantity is what was measured: "ttft", "tpot", "itl", "e2e" (seconds), or a throughput:
	// "requests_per_s", "output_tokens_per_s", "total_tokens_per_s", "input_tokens_per_s",
	// "per_user_output_tokens_per_s" (trtllm-bench's mean over the requests of each one's output
	// tokens over its latency), "per_gpu_output_tokens_per_s".
	Quantity string
	// Stat is the statistic of a latency over the requests: "mean", "median", "std", "p90",
	// "p99", "p99.9", …; "" for a throughput.
	Stat string
	// Field is the file's key it was read from ("p99_ttft_ms").
	Field string
	Value float64
}

// Name is the metric's name in output: "ttft_mean_s", "tpot_p99_s", "requests_per_s".
func (m BenchMetric) Name() string {
	if m.Stat == "" {
		return m.Quantity
	}
	return m.Quantity + "_" + m.Stat + "_s"
}
