package published

import (
	"fmt"
	"strconv"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// Disaggregated against aggregated serving (model.Disagg, costmodel/disagg.go), as people who
// ran both published it: each pair served by the model twice, the plain engine and the split
// pools, and the gain (disaggregated ÷ aggregated, of the mean TTFT and of the mean time per
// output token) compared with the published one. Hold-outs all: nothing in the model was fitted
// on them. Every tag is cited in docs/references.md §0 and §3.7.
//
// The check is the bar: the direction on every row (does splitting the pools make the
// figure better or worse), and the gain within 25% where the published workload is reproducible;
// a row that is direction-only says why (DirectionOnly).
type DisaggRun struct {
	ID, Source string
	Engine     string // model.Engines profile ("" vLLM V1)
	Model, GPU string
	Precision  string
	Weights    string // stored weight format where it differs from Precision
	// Prompt and Gen are the measured mean lengths (fixed-length prompts: sonnet's sampler).
	Prompt, Gen int
	Requests    int
	Rate        float64 // requests/s, Poisson
	// The aggregated deployment: AggGPUs GPUs in instances of AggTP, the benchmark's requests
	// spread over them.
	AggGPUs, AggTP int
	// The disaggregated deployment: PrefillGPUs then DecodeGPUs, instances of PrefillTP and
	// DecodeTP. NodeGPUs: GPUs a node (each pool on its own nodes, the KV caches over Inter,
	// NICsPerNode NICs a node); 0: one node.
	PrefillGPUs, DecodeGPUs, PrefillTP, DecodeTP int
	NodeGPUs, NICsPerNode                        int
	Inter                                        string
	// Published whole-run means, seconds: TTFT and TPOT (excluding the first token) of each,
	// and the disaggregated run's median TPOT.
	AggTTFT, AggTPOT, DisTTFT, DisTPOT float64
	DisTPOTP50                         float64
	// AggContext is the aggregated deployment's served context where it selects the engine's
	// schedule: vLLM V0 chunks the prompts (decodes first, 512 tokens a step) of a context over
	// 32K, which is what --enable-chunked-prefill did in vLLM 0.6 (its max_num_batched_tokens
	// then defaulting to 512, vllm/engine/arg_utils.py); 0: the model's own.
	AggContext int
	// DirectionOnly, where set, says why the gain is not checked within 25% (only its side of 1);
	// Direction adds the rule below.
	DirectionOnly string
	Notes         string
}

// disaggTol is the bar on a gain.
const disaggTol = 0.25

// decodeStall is the published disaggregated run's mean TPOT over its median past which the run
// is checked for direction only: the decode instance stalled while it took in KV caches (vLLM
// V0's KV connectors receive a request's cache inside the decode instance's step, before its
// forward, so every running sequence waits for the transfer), which the model's decode pool does
// not do (costmodel/disagg.go: transfers contend only at the sender). The stall shows in the
// mean, not the median (a few long gaps among many step-long ones); 1.5 is the rule's bound.
const decodeStall = 1.5

// Direction says why the run's gains are checked for direction only ("" when they are
// checked within disaggTol): DirectionOnly, or the decode instance's stall (decodeStall).
func (r DisaggRun) Direction() string {
	if r.DirectionOnly != "" {
		return r.DirectionOnly
	}
	if r.DisTPOTP50 > 0 && r.DisTPOT > decodeStall*r.DisTPOTP50 {
		return fmt.Sprintf("the decode instance stalled on receiving KV caches (published TPOT mean %.1f ms, %.1f× its median %.1f ms; over %.1f× is not modelled)",
			1e3*r.DisTPOT, r.DisTPOT/r.DisTPOTP50, 1e3*r.DisTPOTP50, decodeStall)
	}
	return ""
}

// qwen7BInt4 is the pair of runs on A10s with Qwen2.5-7B-Instruct-GPTQ-Int4 (MCK-A10): vLLM 0.6
// (U: the release of the runs' date, November 2024; V0, chunked prefill off: the model's 32K
// context is not over 32K), the A10 replayed as the a10g preset (the A10's memory and
// bandwidth; its tensor rate an upper bound, U), the non-disaggregated
// server on one A10, the disaggregated one a prefill instance on one A10 and a decode instance
// on an A10 of another node, the KV caches over Mooncake's transfer engine on one RDMA NIC
// (the NIC's speed is not published: 100 Gb/s RoCE, U); vLLM's benchmark_serving on sonnet
// prompts (prefix 50, 200 prompts, 6 output tokens), the prompt lengths the runs' totals ÷ 200.
func qwen7BInt4(id string, prompt int, rate, aggTTFTms, aggTPOTms, disTTFTms, disTPOTms, disTPOTp50ms float64) DisaggRun {
	return DisaggRun{ID: id, Source: "MCK-A10", Engine: "vllm-v0", Model: "qwen2.5-7b", GPU: "a10g", Precision: "fp16", Weights: "int4",
		Prompt: prompt, Gen: 6, Requests: 200, Rate: rate, AggGPUs: 1, AggTP: 1,
		PrefillGPUs: 1, DecodeGPUs: 1, PrefillTP: 1, DecodeTP: 1, NodeGPUs: 1, NICsPerNode: 1, Inter: "roce-100",
		AggTTFT: aggTTFTms / 1e3, AggTPOT: aggTPOTms / 1e3, DisTTFT: disTTFTms / 1e3, DisTPOT: disTPOTms / 1e3,
		DisTPOTP50: disTPOTp50ms / 1e3}
}

// DisaggRuns are validate's disaggregated-against-aggregated pairs.
var DisaggRuns = []DisaggRun{
	// 1024-token prompts at 2 requests/s: 202,314 prompt tokens over 200 requests.
	qwen7BInt4("mck-a10-qwen7b-in1024-r2", 1012, 2, 461.52, 99.97, 1272.55, 52.74, 12.46),
	// 256-token prompts at 2 to 8 requests/s: 49,054 prompt tokens over 200 requests.
	qwen7BInt4("mck-a10-qwen7b-in256-r2", 245, 2, 63.68, 14.87, 103.54, 12.02, 11.49),
	qwen7BInt4("mck-a10-qwen7b-in256-r4", 245, 4, 74.93, 19.09, 122.52, 13.30, 11.52),
	qwen7BInt4("mck-a10-qwen7b-in256-r6", 245, 6, 91.94, 27.47, 155.67, 16.28, 11.62),
	qwen7BInt4("mck-a10-qwen7b-in256-r8", 245, 8, 120.43, 42.95, 238.67, 24.58, 12.26),
	// The same disaggregated runs against the one A10 with --enable-chunked-prefill.
	chunked(qwen7BInt4("mck-a10-qwen7b-in1024-r2-chunked", 1012, 2, 429.37, 56.57, 1272.55, 52.74, 12.46)),
	chunked(qwen7BInt4("mck-a10-qwen7b-in256-r2-chunked", 245, 2, 64.55, 14.29, 103.54, 12.02, 11.49)),
	chunked(qwen7BInt4("mck-a10-qwen7b-in256-r4-chunked", 245, 4, 76.65, 17.46, 122.52, 13.30, 11.52)),
	chunked(qwen7BInt4("mck-a10-qwen7b-in256-r6-chunked", 245, 6, 92.19, 22.06, 155.67, 16.28, 11.62)),
	chunked(qwen7BInt4("mck-a10-qwen7b-in256-r8-chunked", 245, 8, 120.73, 33.93, 238.67, 24.58, 12.26)),
}

// chunked is a pair whose aggregated side ran vLLM V0 with --enable-chunked-prefill.
func chunked(r DisaggRun) DisaggRun {
	r.AggContext = 131072
	r.Notes = "aggregated with --enable-chunked-prefill"
	return r
}

// disaggScenarios are a pair's aggregated and disaggregated scenarios.
func disaggScenarios(r DisaggRun, p ServePresets) (agg, dis model.Scenario, err error) {
	var ps ServePresets = p
	if a, ok := moreArch(r.Model); ok {
		ps = archPresets{p, a}
	}
	base := ServeRun{Model: r.Model, GPU: r.GPU, GPUs: r.AggGPUs, TP: r.AggTP, PP: 1, Precision: r.Precision,
		Prompt: r.Prompt, Gen: r.Gen, Requests: r.Requests, Rate: r.Rate, Weights: r.Weights}
	agg, err = serveScenario(base, ps)
	if err != nil {
		return agg, dis, err
	}
	agg.Workload.Engine = r.Engine
	if r.AggContext > 0 {
		agg.Arch.MaxSeq = r.AggContext
	}
	gpus := r.PrefillGPUs + r.DecodeGPUs
	base.GPUs, base.TP = gpus, r.DecodeTP
	dis, err = serveScenario(base, ps)
	if err != nil {
		return agg, dis, err
	}
	dis.Workload.Engine = r.Engine
	dis.Layout.DP = r.DecodeGPUs / r.DecodeTP
	dis.Layout.Disagg = model.Disagg{PrefillGPUs: r.PrefillGPUs, PrefillTP: r.PrefillTP}
	if r.NodeGPUs > 0 && r.NodeGPUs < gpus {
		inter, err := p.Link(r.Inter)
		if err != nil {
			return agg, dis, err
		}
		dis.Cluster.GPUsPerNode, dis.Cluster.Inter, dis.Cluster.NICsPerNode = r.NodeGPUs, inter, max(r.NICsPerNode, 1)
		if r.AggGPUs <= r.NodeGPUs {
			agg.Cluster.GPUsPerNode = r.NodeGPUs
		}
	}
	return agg, dis, nil
}

// DisaggReplay is a pair served by the model: the whole-run mean TTFT and TPOT of each side.
type DisaggReplay struct {
	Run                                DisaggRun
	AggTTFT, AggTPOT, DisTTFT, DisTPOT float64
	// KVTransferS is the model's mean transfer of one prompt's KV cache.
	KVTransferS float64
}

// Gains are the published and the model's disaggregated ÷ aggregated mean TTFT and TPOT.
func (x DisaggReplay) Gains() (pubTTFT, modelTTFT, pubTPOT, modelTPOT float64) {
	r := x.Run
	return ratio(r.DisTTFT, r.AggTTFT), ratio(x.DisTTFT, x.AggTTFT), ratio(r.DisTPOT, r.AggTPOT), ratio(x.DisTPOT, x.AggTPOT)
}

// ReplayDisagg serves every pair of DisaggRuns.
func ReplayDisagg(p ServePresets) ([]DisaggReplay, error) {
	out := make([]DisaggReplay, 0, len(DisaggRuns))
	for _, r := range DisaggRuns {
		agg, dis, err := disaggScenarios(r, p)
		if err != nil {
			return nil, fmt.Errorf("disaggregated run %s: %w", r.ID, err)
		}
		x := DisaggReplay{Run: r}
		for k, s := range []model.Scenario{agg, dis} {
			rep, err := costmodel.EvaluateFast(s)
			if err != nil {
				return nil, fmt.Errorf("disaggregated run %s: %w", r.ID, err)
			}
			inf := rep.Inference
			if inf == nil {
				return nil, fmt.Errorf("disaggregated run %s: no inference figures", r.ID)
			}
			ttft, tpot := inf.TTFT, inf.TPOT
			if c := inf.Confidence; c != nil {
				ttft, tpot = c.WholeTTFTMean, c.WholeTPOTMean
			}
			if k == 0 {
				x.AggTTFT, x.AggTPOT = ttft, tpot
			} else {
				x.DisTTFT, x.DisTPOT = ttft, tpot
				if d := inf.Disagg; d != nil {
					x.KVTransferS = d.KVTransferMeanS
				}
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// disaggChecks are validate's rows for DisaggRuns: each pair's TTFT and TPOT gain.
func disaggChecks(p ServePresets) ([]Check, error) {
	xs, err := ReplayDisagg(p)
	if err != nil {
		return nil, err
	}
	var out []Check
	for _, x := range xs {
		r := x.Run
		note := fmt.Sprintf("[%s] %s, %s: %d GPU(s) TP %d against %d:%d (TP %d / %d), %d→%d tokens at %s req/s",
			r.Source, r.Engine, r.GPU, r.AggGPUs, r.AggTP, r.PrefillGPUs, r.DecodeGPUs, r.PrefillTP, r.DecodeTP,
			r.Prompt, r.Gen, strconv.FormatFloat(r.Rate, 'g', -1, 64))
		if r.Notes != "" {
			note += "; " + r.Notes
		}
		pt, mt, pp, mp := x.Gains()
		for _, g := range []struct {
			name      string
			pub, pred float64
		}{{"TTFT", pt, mt}, {"TPOT", pp, mp}} {
			c := Check{Group: "serve-disagg", Case: r.ID + " disagg/agg " + g.name, Published: g.pub, Predicted: g.pred,
				Unit: "×", Tolerance: disaggTol, Note: note}
			if why := r.Direction(); why != "" {
				c.Group, c.Order, c.Tolerance = "serve-disagg-order", true, 0
				c.Note += "; direction only: " + why
			}
			out = append(out, c)
		}
	}
	return out, nil
}
