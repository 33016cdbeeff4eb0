package published

import (
	"fmt"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/arch"
	"math"

	"github.com/splitscope/splitscope/model"
)

// The serving simulator against the published runs of PublishedServing (docs/costmodel.md §
// Serving): each run rebuilt from the presets and served, then three kinds of check. Absolute:
// a run's time per output token, throughput or first-token time within a tolerance. Scaling:
// the ratio of two runs' throughputs (TP k against TP 1) within 25%, the bar. Order: which
// of two layouts serves more, or answers sooner, as published. Fitted: the three light-load
// TPOTs named by servingFitted (the step overhead and the kernel floor); the rest are hold-outs.

// ServePresets are the lookups the checks need (assets.Presets has them).
type ServePresets interface {
	Model(id string) (model.Arch, error)
	GPU(id string) (model.GPU, error)
	Link(id string) (model.Link, error)
}

// parts looks up a row's GPU and the links inside and across its nodes.
func parts(p ServePresets, gpu, intra, inter string) (model.GPU, model.Link, model.Link, error) {
	g, err := p.GPU(gpu)
	if err != nil {
		return model.GPU{}, model.Link{}, model.Link{}, err
	}
	in, err := p.Link(intra)
	if err != nil {
		return model.GPU{}, model.Link{}, model.Link{}, err
	}
	out, err := p.Link(inter)
	if err != nil {
		return model.GPU{}, model.Link{}, model.Link{}, err
	}
	return g, in, out, nil
}

// servingFitted are the runs the serving constants were fitted on.
var servingFitted = map[string]bool{"iog-h100pcie-8b-r1": true, "iog-4090-8b-r1": true, "nim-h100x2-70b-fp8-c1": true}

type serveMetric int

const (
	metTPOT serveMetric = iota
	metOut
	metTTFT
)

// serveCheck is an absolute check of one run.
type serveCheck struct {
	run    string
	metric serveMetric
	tol    float64
	note   string
}

// serveRatio compares the published num/den ratio of a metric with the model's: within tol
// (scaling), or on the same side of 1 (order: the published num beats den).
type serveRatio struct {
	num, den string
	metric   serveMetric
	tol      float64 // 0: an order check
	note     string
}

var serveChecks = []serveCheck{
	{"iog-h100pcie-8b-r1", metTPOT, 0.10, ""},
	{"iog-h100pcie-8b-r4", metTPOT, 0.10, ""},
	{"iog-h100pcie-8b-r8", metTPOT, 0.10, ""},
	{"iog-h100pcie-8b-r16", metTPOT, 0.10, ""},
	{"iog-4090-8b-r1", metTPOT, 0.10, ""},
	{"iog-4090-8b-r4", metTPOT, 0.10, ""},
	{"iog-4090-8b-r8", metTPOT, 0.10, ""},
	{"iog-h100pcie2-70b-r1", metTPOT, 0.15, "2×H100 PCIe, TP 2 over PCIe"},
	{"iog-h100pcie2-70b-fp8-r1", metTPOT, 0.20, "fp8 weights: vLLM's W8A8 kernels at batch 1 read slower than the roofline"},
	{"nim-h100x2-70b-fp8-c1", metTPOT, 0.10, ""},
	{"nim-h100x2-70b-fp8-c5", metTPOT, 0.10, ""},
	{"nim-h100x2-70b-fp8-c25", metTPOT, 0.10, ""},
	{"nim-h100x2-70b-fp8-c50", metTPOT, 0.10, ""},
	{"nim-h100x2-70b-fp8-c100", metTPOT, 0.10, "the KV cache's knee"},
	{"nim-h100x2-70b-fp8-c150", metTPOT, 0.10, ""},
	{"nim-h100x2-70b-fp8-c5", metOut, 0.10, ""},
	{"nim-h100x2-70b-fp8-c25", metOut, 0.10, ""},
	{"nim-h100x2-70b-fp8-c50", metOut, 0.10, ""},
	{"nim-h100x2-70b-fp8-c100", metOut, 0.12, "past the knee: the model's cache (90% of the GPU, less the rest) holds 7% fewer requests than TensorRT-LLM's (95% of what the weights leave)"},
	{"nim-h100x2-70b-fp8-c150", metOut, 0.12, "past the knee, as above"},
	{"trt09-h100-sxm-llama-2-7b-tp1-ttft2048", metTTFT, 0.25, "fp8 prefill"},
	{"trt09-h200-sxm-llama-2-7b-tp1-ttft2048", metTTFT, 0.25, "fp8 prefill"},
	{"trt09-a100-sxm-80gb-llama-2-7b-tp1-ttft2048", metTTFT, 0.10, ""},
	{"trt09-l40s-llama-2-7b-tp1-ttft2048", metTTFT, 0.25, "L40S's FP8 efficiency is the bf16 one (U)"},
	{"trt09-h200-sxm-llama-2-70b-tp4-ttft2048", metTTFT, 0.25, "fp8 prefill"},
	{"trt09-h100-sxm-llama-2-70b-tp8-ttft2048", metTTFT, 0.30, "fp8 prefill on 8 GPUs: 256 tokens each"},
	{"trt09-a100-sxm-80gb-llama-2-70b-tp8-ttft2048", metTTFT, 0.10, ""},
}

func init() {
	// Every TensorRT-LLM 0.19 cell with the KV cache to spare is an absolute throughput check.
	for _, r := range PublishedServing {
		if r.Source == "TRT" && r.Engine == "TensorRT-LLM 0.19" && !(r.GPU == "h100-sxm" && r.TP == 1) {
			serveChecks = append(serveChecks, serveCheck{r.ID, metOut, 0.20, ""})
		}
		// And every TensorRT-LLM 1.0 cell, FP4 on Blackwell: absolute per GPU family, not only
		// ratios, each within 20%. The B200 rows set fp4OverFP8, the RTX PRO 6000 Llama 3.3 70B
		// PP 4 and 8 rows trtPPHostPerSeq and trtPPHostPerActive; PP 1 and 2 and Llama 3.1 405B's
		// PP 8 rows are hold-outs.
		if r.Source == "TRT" && r.Engine == "TensorRT-LLM 1.0" {
			c := serveCheck{r.ID, metOut, 0.20, "FP4 on Blackwell"}
			if r.GPU == "b200" {
				c.note += "; fitted (fp4OverFP8)"
			}
			if r.PP >= 4 && r.Model == "llama-3-70b" {
				c.note += "; fitted (trtPPHostPerSeq, trtPPHostPerActive)"
			}
			serveChecks = append(serveChecks, c)
		}
		if r.Engine == "TensorRT-LLM 03e27c7" {
			c := serveCheck{r.ID, metOut, 0.20, "hold-out"}
			serveChecks = append(serveChecks, c)
		}
	}
}

var serveRatios = []serveRatio{
	// TP scaling, within 25%.
	{"trt019-h200-sxm-70b-fp8-tp2-128-128", "trt019-h200-sxm-70b-fp8-tp1-128-128", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp4-128-128", "trt019-h200-sxm-70b-fp8-tp1-128-128", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp8-128-128", "trt019-h200-sxm-70b-fp8-tp1-128-128", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp2-1000-1000", "trt019-h200-sxm-70b-fp8-tp1-1000-1000", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp4-1000-1000", "trt019-h200-sxm-70b-fp8-tp1-1000-1000", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp8-1000-1000", "trt019-h200-sxm-70b-fp8-tp1-1000-1000", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp2-2048-2048", "trt019-h200-sxm-70b-fp8-tp1-2048-2048", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp4-2048-2048", "trt019-h200-sxm-70b-fp8-tp1-2048-2048", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp8-2048-2048", "trt019-h200-sxm-70b-fp8-tp1-2048-2048", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp8-5000-500", "trt019-h200-sxm-70b-fp8-tp1-5000-500", metOut, 0.25, ""},
	{"trt019-h200-sxm-70b-fp8-tp8-2048-128", "trt019-h200-sxm-70b-fp8-tp1-2048-128", metOut, 0.25, ""},
	{"trt019-h100-sxm-70b-fp8-tp8-128-128", "trt019-h100-sxm-70b-fp8-tp2-128-128", metOut, 0.25, ""},
	{"trt019-h100-sxm-70b-fp8-tp8-1000-1000", "trt019-h100-sxm-70b-fp8-tp2-1000-1000", metOut, 0.25, ""},
	{"trt019-h100-sxm-70b-fp8-tp8-2048-2048", "trt019-h100-sxm-70b-fp8-tp2-2048-2048", metOut, 0.25, ""},

	// Orders: who serves more, or answers sooner.
	{"trt019-h100-sxm-70b-fp8-tp2-128-2048", "trt019-h100-sxm-70b-fp8-tp1-128-2048", metOut, 0,
		"one H100 holds the fp8 70B with almost no KV cache: TP 2 serves 8× more"},
	{"trt10-rtxpro-70b-fp4-pp2-128-128", "trt10-rtxpro-70b-fp4-pp1-128-128", metOut, 0, "PCIe, pipeline stages added"},
	{"trt10-rtxpro-70b-fp4-pp4-128-128", "trt10-rtxpro-70b-fp4-pp2-128-128", metOut, 0, ""},
	{"trt10-rtxpro-70b-fp4-pp8-128-128", "trt10-rtxpro-70b-fp4-pp4-128-128", metOut, 0, ""},
	{"trt10-rtxpro-70b-fp4-pp2-2048-2048", "trt10-rtxpro-70b-fp4-pp1-2048-2048", metOut, 0, ""},
	{"trt10-rtxpro-70b-fp4-pp4-2048-2048", "trt10-rtxpro-70b-fp4-pp2-2048-2048", metOut, 0, ""},
	{"trt10-rtxpro-70b-fp4-pp8-2048-2048", "trt10-rtxpro-70b-fp4-pp4-2048-2048", metOut, 0, ""},
	{"iog-h100pcie2-70b-r1", "iog-h100pcie2-70b-fp8-r1", metTPOT, 0, "fp8 weights decode faster"},
}

// serveScenario rebuilds a published run from the presets.
// serveInference evaluates a replayed run's scenario and returns its serving figures; what
// names the run in errors ("measured run X").
func serveInference(eval func(model.Scenario) (costmodel.Report, error), s model.Scenario, what string) (*costmodel.Inference, error) {
	rep, err := eval(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if rep.Inference == nil {
		return nil, fmt.Errorf("%s: no inference figures", what)
	}
	return rep.Inference, nil
}

func serveScenario(r ServeRun, p ServePresets) (model.Scenario, error) {
	a, err := p.Model(r.Model)
	if err != nil {
		return model.Scenario{}, err
	}
	g, err := p.GPU(r.GPU)
	if err != nil {
		return model.Scenario{}, err
	}
	intraID := r.Intra
	if intraID == "" {
		intraID = g.NativeLink
	}
	intra, err := p.Link(intraID)
	if err != nil {
		return model.Scenario{}, err
	}
	inter, err := p.Link(model.DefaultInter)
	if err != nil {
		return model.Scenario{}, err
	}
	prec, err := model.ParsePrecision(r.Precision)
	if err != nil {
		return model.Scenario{}, err
	}
	maxSeqs, maxTokens := r.MaxSeqs, r.MaxBatchTokens
	engine := ""
	if r.TRTBench {
		maxSeqs, maxTokens = trtBenchLimits(a, g, r)
		engine = "trtllm"
	}
	s := model.Scenario{Arch: a, ReserveBytes: model.DefaultReserveBytes,
		Cluster: model.Cluster{GPU: g, GPUs: r.GPUs, GPUsPerNode: r.GPUs, Intra: intra, Inter: inter, NICsPerNode: 1},
		Layout:  model.Layout{TP: r.TP, PP: r.PP, DP: r.GPUs / (r.TP * r.PP), Chunks: 1, MicroBatch: 1},
		Workload: model.Workload{Mode: model.Infer, PromptTokens: r.Prompt, GenTokens: r.Gen, Requests: r.Requests,
			Precision: prec, Rate: r.Rate, Concurrency: r.Concurrency, MaxSeqs: maxSeqs, MaxBatchTokens: maxTokens,
			Weights: r.Weights, KVCache: r.KV, Engine: engine, Offline: r.Source == "TRT"}}
	return s, nil
}

func (m serveMetric) of(r ServeRun, inf costmodel.Inference) (published, predicted float64) {
	// A published benchmark averages every request of its run, warm-up and drain included: so
	// does the model's figure it is compared with.
	ttft, tpot := inf.TTFT, inf.TPOT
	if c := inf.Confidence; c != nil {
		ttft, tpot = c.WholeTTFTMean, c.WholeTPOTMean
	}
	switch m {
	case metOut:
		return r.OutTokS, inf.OutputTokensPerS
	case metTTFT:
		return r.TTFT, ttft
	}
	return r.TPOT, tpot
}

func (m serveMetric) unit() (name, unit string) {
	switch m {
	case metOut:
		return "output tok/s", "tok/s"
	case metTTFT:
		return "TTFT", "s"
	}
	return "TPOT", "s"
}

// ServeChecks serves every published run the checks name and compares.
func ServeChecks(p ServePresets) ([]Check, error) {
	runs := map[string]ServeRun{}
	for _, r := range PublishedServing {
		runs[r.ID] = r
	}
	served := map[string]costmodel.Inference{}
	serveRun := func(id string) (ServeRun, costmodel.Inference, error) {
		r, ok := runs[id]
		if !ok {
			return ServeRun{}, costmodel.Inference{}, fmt.Errorf("serve check %s: no such published run", id)
		}
		if inf, ok := served[id]; ok {
			return r, inf, nil
		}
		s, err := serveScenario(r, p)
		if err != nil {
			return r, costmodel.Inference{}, fmt.Errorf("serve check %s: %w", id, err)
		}
		rep, err := costmodel.EvaluateFast(s)
		if err != nil {
			return r, costmodel.Inference{}, fmt.Errorf("serve check %s: %w", id, err)
		}
		if rep.Inference == nil {
			return r, costmodel.Inference{}, fmt.Errorf("serve check %s: no inference figures", id)
		}
		served[id] = *rep.Inference
		return r, *rep.Inference, nil
	}
	var out []Check
	for _, c := range serveChecks {
		r, inf, err := serveRun(c.run)
		if err != nil {
			return nil, err
		}
		pub, pred := c.metric.of(r, inf)
		name, unit := c.metric.unit()
		note := fmt.Sprintf("[%s] %s", r.Source, r.Engine)
		if servingFitted[r.ID] && c.metric == metTPOT {
			note += "; fitted"
		}
		if c.note != "" {
			note += "; " + c.note
		}
		out = append(out, Check{Group: "serve", Case: r.ID + " " + name, Published: pub, Predicted: pred, Unit: unit,
			Tolerance: c.tol, Note: note})
	}
	for _, c := range serveRatios {
		a, ia, err := serveRun(c.num)
		if err != nil {
			return nil, err
		}
		b, ib, err := serveRun(c.den)
		if err != nil {
			return nil, err
		}
		pa, ma := c.metric.of(a, ia)
		pb, mb := c.metric.of(b, ib)
		name, _ := c.metric.unit()
		ck := Check{Group: "serve-ratio", Case: fmt.Sprintf("%s / %s %s", a.ID, b.ID, name), Published: ratio(pa, pb),
			Predicted: ratio(ma, mb), Unit: "×", Tolerance: c.tol, Note: fmt.Sprintf("[%s]", a.Source)}
		if c.tol == 0 {
			ck.Group, ck.Order = "serve-order", true
		}
		if c.note != "" {
			ck.Note += " " + c.note
		}
		out = append(out, ck)
	}
	vc, err := vllmChecks(p)
	if err != nil {
		return nil, err
	}
	mc, err := moreChecks(p)
	if err != nil {
		return nil, err
	}
	sc, err := s2rChecks(p)
	if err != nil {
		return nil, err
	}
	dc, err := disaggChecks(p)
	if err != nil {
		return nil, err
	}
	return append(append(append(append(out, vc...), sc...), mc...), dc...), nil
}

// trtBenchLimits are the max batch size (a micro-batch's, with PP) and max tokens a step that
// trtllm-bench throughput sets when not told (tensorrt_llm/bench/build/tuning.py,
// calc_engine_setting and finetune_setting, TRT): the requests of ISL + OSL tokens whose KV
// cache fits in 95% of what the GPUs' memory leaves after the weights (bytes a weight by the
// checkpoint: NVFP4 0.5, FP8 1, else 2; the KV cache's likewise), at most 4096, divided among
// the PP micro-batches and rounded up (to 32 under 256, with 64 the least; to 128 under 1024;
// else 256); max tokens that batch × (1 + ISL/OSL), at most 32768, rounded up (256 under 4096,
// with 2048 the least; 512 under 8192; else 1024).
func trtBenchLimits(a model.Arch, g model.GPU, r ServeRun) (maxBatch, maxTokens int) {
	elem := func(f string) float64 {
		switch f {
		case "fp4":
			return 0.5
		case "fp8":
			return 1
		}
		return 2
	}
	gib := float64(model.GiB)
	perToken := 2 * float64(a.Layers) * float64(max(r.TP, a.KVHeads)) * a.HeadDim() * elem(r.KV) / gib
	avail := g.MemoryBytes/gib*float64(r.TP*r.PP) - arch.Of(a).Params()*elem(r.Weights)/gib
	reqs := max(avail*0.95/(perToken*float64(r.Prompt+r.Gen)), 0)
	rawBS := math.Min(reqs, 4096) / float64(r.PP)
	rawTok := math.Min(rawBS*(1+float64(r.Prompt)/float64(max(r.Gen, 1))), 32768)
	up := func(x, step float64) int { return int(step * math.Ceil(x/step)) }
	switch {
	case rawBS < 256:
		maxBatch = max(64, up(rawBS, 32))
	case rawBS < 1024:
		maxBatch = up(rawBS, 128)
	default:
		maxBatch = up(rawBS, 256)
	}
	switch {
	case rawTok < 4096:
		maxTokens = max(2048, up(rawTok, 256))
	case rawTok < 8192:
		maxTokens = up(rawTok, 512)
	default:
		maxTokens = up(rawTok, 1024)
	}
	return maxBatch, maxTokens
}
