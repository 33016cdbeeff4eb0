package static

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/model"
)

// ModelTitle names the model as every title does (model.Arch.Label), with its size when prose:
// "llama-3-70b (80 layers, 70.6B params)", "llama-3-70b (modified: layers 40; 40 layers, 36.3B
// params)": a model changed from its preset is never titled as the preset.
func ModelTitle(a model.Arch, prose bool) string {
	if !prose {
		return a.Label()
	}
	size := fmt.Sprintf("%d layers, %.1fB params", a.Layers, arch.Of(a).Params()/1e9)
	if a.ID != "" && a.Changes != "" {
		return fmt.Sprintf("%s (modified: %s; %s)", a.ID, a.Changes, size)
	}
	return fmt.Sprintf("%s (%s)", a.Label(), size)
}

// ScenarioLine describes the model, the GPUs, the links and the workload on one line:
// "llama-3-70b (80 layers, 70.6B params) · 8× h100-sxm · nvlink4 / ib-ndr · train bf16 seq 4096 batch 64".
func ScenarioLine(s model.Scenario) string {
	a, c, wl := s.Arch, s.Cluster, s.Workload
	parts := []string{ModelTitle(a, true)}

	gpus := fmt.Sprintf("%d× %s", c.GPUs, c.GPU.ID)
	if n := c.Nodes(); n > 1 {
		gpus += fmt.Sprintf(" (%d nodes × %d)", n, c.GPUsPerNode)
	}
	parts = append(parts, gpus)

	links := LinkLabel(c.Intra)
	if c.Nodes() > 1 {
		links += fmt.Sprintf(" / %s ×%d NICs", LinkLabel(c.Inter), c.NICsPerNode)
	} else {
		links += " / " + LinkLabel(c.Inter)
	}
	parts = append(parts, links)

	if wl.Mode == model.Infer {
		label := "infer " + WorkloadLabel(wl)
		// The checkpoint's own formats, where no flag set them (WorkloadLabel names the flags').
		layers, experts := s.ServeWeights()
		if wl.Weights == "" && layers != "" {
			label += " · weights " + layers + " (checkpoint)"
		}
		if experts != layers && a.Experts > 1 {
			label += " · experts " + experts
		}
		parts = append(parts, label)
	} else {
		parts = append(parts, fmt.Sprintf("train %s seq %d batch %d", wl.Precision, wl.Seq, wl.GlobalBatch))
	}
	return strings.Join(parts, " · ")
}

// LayoutLine describes the split: "TP=8 PP=1 DP=1 1f1b m=64 b=1", with the interleaving, the
// recompute policy, sequence parallelism and ZeRO stage when they are not the defaults.
// Inference has no schedule to name.
func LayoutLine(s model.Scenario) string {
	l := s.Layout
	var b strings.Builder
	if d := l.Disagg; d.On() {
		// Disaggregated: the prefill pool's split, then the decode pool's (the layout's).
		pre, _ := s.DisaggPools()
		fmt.Fprintf(&b, "prefill TP=%d PP=%d DP=%d", pre.Layout.TP, pre.Layout.PP, pre.Layout.DP)
		if pre.Layout.CPSize() > 1 {
			fmt.Fprintf(&b, " CP=%d %s", pre.Layout.CP, pre.Layout.CPComm)
		}
		if pre.Layout.EP > 1 {
			fmt.Fprintf(&b, " EP=%d", pre.Layout.EP)
		}
		b.WriteString(" · decode ")
	}
	fmt.Fprintf(&b, "TP=%d PP=%d DP=%d", l.TP, l.PP, l.DP)
	if l.CPSize() > 1 {
		fmt.Fprintf(&b, " CP=%d %s", l.CP, l.CPComm)
	}
	if l.EP > 1 {
		fmt.Fprintf(&b, " EP=%d", l.EP)
	}
	if s.Arch.Experts > 1 && l.ETP > 0 && l.ETP < l.TP {
		fmt.Fprintf(&b, " ETP=%d", l.ETP) // experts split over fewer GPUs than TP: folded into the all-to-all
	}
	if s.Arch.Experts > 1 && l.FoldSize() > 1 {
		fmt.Fprintf(&b, " imb=%.3g", costmodel.EPImbalance(l)) // the busiest GPU's tokens over the mean
		if l.EPDispatch == model.EPDispatchTwoHop {
			b.WriteString(" two-hop") // the all-to-alls cross nodes once a token and node
		}
	}
	if s.Workload.Mode != model.Infer {
		b.WriteString(" " + l.Schedule.String())
	}
	if l.Chunks > 1 {
		fmt.Fprintf(&b, " v=%d", l.Chunks)
	}
	if s.Workload.Mode != model.Infer {
		fmt.Fprintf(&b, " m=%d b=%d", s.MicroBatches(), l.MicroBatch)
	}
	if l.Recompute != model.RecomputeNone {
		b.WriteString(" recompute=" + l.Recompute.String())
	}
	if l.SequenceParallel {
		b.WriteString(" sp")
	}
	if l.ZeRO > 0 {
		fmt.Fprintf(&b, " zero=%d", l.ZeRO)
	}
	return b.String()
}

// Header is the first line of a report: the scenario and its layout.
func Header(s model.Scenario) string { return ScenarioLine(s) + " · " + LayoutLine(s) }

// shareOfStep is x seconds as a percentage of r's step (Report.Share), or "-" without a step.
func shareOfStep(r costmodel.Report, x float64) string {
	if r.StepTime <= 0 {
		return "-"
	}
	return Percent(r.Share(x))
}

// BubbleClosedFormNote is what the bubble's share is set against, where a closed form applies
// (Report.ClosedFormBubble): "closed form 8.6%" in training; in serving "closed form 50.0%:
// fewer requests than stages" when a replica has fewer requests than stages (the pipeline
// cannot fill: (p − requests)/p, stages of equal time), and nothing otherwise, where serving
// has no closed form.
func BubbleClosedFormNote(r costmodel.Report) string {
	f, ok := r.ClosedFormBubble()
	switch {
	case !ok:
		return ""
	case r.Inference != nil:
		return "closed form " + Percent(f) + ": fewer requests than stages"
	}
	return "closed form " + Percent(f)
}

// RenderReport writes the report of one scenario: a header line, the step time and its
// breakdown, efficiency, inference latency (infer mode), memory per GPU, one row per pipeline
// stage and the warnings.
func RenderReport(w io.Writer, s model.Scenario, r costmodel.Report) error {
	ew := &errWriter{w: w}
	ew.line(Header(s))
	if l := ArchLine(s.Arch); l != "" {
		ew.line(l)
	}
	ew.line("")

	infer := s.Workload.Mode == model.Infer
	step := r.StepTime
	bd := r.Breakdown
	t := newTable("", false, true, true, false)
	if infer {
		t.add("serve time", Seconds(step), "", "prefill and decode of all requests")
	} else {
		t.add("step time", Seconds(step), "", "one optimizer step")
	}
	for _, row := range []struct {
		name string
		v    float64
		note string
	}{
		{"  compute", bd.Compute, ""},
		{"  recompute", bd.Recompute, ""},
		{"  tp comm", bd.TPComm, ""},

		{"  pp comm", bd.PPComm, ""},
		{"  dp comm", bd.DPComm, "exposed"},
		{"  offload", bd.Offload, "host traffic not hidden"},
		{"  bubble", bd.Bubble, ""},
		{"  optimizer", bd.Optimizer, optimizerNote(s)},
	} {
		if row.name == "  offload" && s.Layout.Offload == model.OffloadNone {
			continue
		}
		if row.name == "  pp comm" && r.PPSendsInIdle() && s.Layout.PP > 1 {
			// Serving: the sends have no part of their own; their time is in the idle below.
			t.add("  pp sends", Seconds(r.PPSendTime()), "", "in the bubble: a stage waits for its batch")
			continue
		}
		t.add(row.name, Seconds(row.v), shareOfStep(r, row.v), row.note)
		if row.name == "  tp comm" && (bd.EPComm > 0 || s.Layout.EP > 1) {
			t.add("  ep comm", Seconds(bd.EPComm), shareOfStep(r, bd.EPComm), "expert all-to-all")
		}
		if row.name == "  tp comm" && s.Layout.CPSize() > 1 {
			t.add("  cp comm", Seconds(bd.CPComm), shareOfStep(r, bd.CPComm), "context-parallel K/V ("+s.Layout.CPComm.String()+"), exposed")
		}
	}
	t.write(ew)
	ew.line("")

	e := newTable("", false, true, false)
	e.add("bubble", Percent(r.BubbleFraction), BubbleClosedFormNote(r))
	e.add("comm", Percent(r.CommFraction), "exposed communication / step")
	e.add("model TFLOP/s", FLOPS(r.ModelTFLOPS*1e12), "per GPU, without recompute")
	e.add("hw TFLOP/s", FLOPS(r.HWTFLOPS*1e12), "per GPU, with recompute")
	e.add("MFU", Percent(r.MFU), "model FLOP/s / peak")
	if infer {
		e.add("tokens/s", Count(r.TokensPerS), "generated tokens, all replicas")
	} else {
		e.add("tokens/s", Count(r.TokensPerS), "trained tokens, all replicas")
	}
	e.write(ew)

	if inf := r.Inference; inf != nil {
		ew.line("")
		renderServing(ew, inf)
		if inf.MeetsSLO != nil {
			verdict := "met"
			if !*inf.MeetsSLO {
				verdict = "missed"
			}
			note := ""
			if c := inf.Confidence; c != nil && c.Rising() {
				note = " · the queue keeps growing: missed in the end, whatever these say"
			} else if c != nil && c.Warning != "" {
				note = " · from a run too short or not steady: see the warning"
			}
			ew.line(fmt.Sprintf("  SLO %s: %s (p90 TTFT %s, p90 TPOT %s)%s", sloText(costmodel.WorkloadSLO(s.Workload)), verdict,
				Seconds(inf.TTFTP90), Seconds(inf.TPOTP90), note))
		}
	}

	if len(r.Collectives) > 0 {
		ew.line("")
		renderCollectives(ew, r.Collectives, infer)
	}

	ew.line("")
	renderMemory(ew, r.Memory)

	if len(r.Detail.Stages) > 0 {
		ew.line("")
		renderStages(ew, r, infer)
	}

	renderWarnings(ew, r.Warnings)
	return ew.err
}

// renderCollectives lists the step's collectives: communicator, operation, size, group, the
// algorithm and protocol it runs, one call's time, how many calls and their total.
func renderCollectives(ew *errWriter, uses []costmodel.CollectiveUse, infer bool) {
	if infer {
		ew.line("collectives (one GPU of the busiest stage, the whole run, before overlap)")
	} else {
		ew.line("collectives (one GPU of the busiest stage, one step, before overlap)")
	}
	t := newTable("  ", false, false, true, false, false, true, true, true, false)
	for _, u := range uses {
		where := fmt.Sprintf("%d GPUs, %s", u.GPUs, u.Link)
		if u.Nodes > 1 {
			where = fmt.Sprintf("%d GPUs on %d nodes, %s", u.GPUs, u.Nodes, u.Link)
		}
		t.add(u.Comm, u.Op, Bytes(u.Bytes), where, u.Algorithm+"/"+u.Protocol, Seconds(u.Seconds),
			"× "+calls(u.Calls), "= "+Seconds(u.Total()), u.What)
	}
	t.write(ew)
}

// calls is a count of calls, whole below ten million.
func calls(n float64) string {
	if n >= 0 && n < 1e7 {
		return strconv.FormatFloat(math.Round(n), 'f', -1, 64)
	}
	return Count(n)
}

// renderWarnings writes the warnings section, if there are warnings: one "  ! " line each.
func renderWarnings(ew *errWriter, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	ew.line("")
	ew.line("warnings")
	for _, wn := range warnings {
		ew.line("  ! " + wn)
	}
}

// optimizerNote says where the optimizer steps when it is offloaded.
func optimizerNote(s model.Scenario) string {
	if s.Workload.Mode == model.Train && s.Layout.Offload.Optimizer() {
		return "on the CPU, with the PCIe copies"
	}
	return ""
}

// Verdict is "fits" or "OVER by 12.3 GiB" (of GPU memory, or of host memory under offload).
func Verdict(m costmodel.Memory) string {
	if m.Fits {
		return "fits"
	}
	if m.Total <= m.Capacity && m.Host > m.HostCapacity {
		return "host memory OVER by " + Bytes(m.Host-m.HostCapacity)
	}
	return "OVER by " + Bytes(m.Total-m.Capacity)
}

func renderMemory(ew *errWriter, m costmodel.Memory) {
	ew.line(fmt.Sprintf("memory per GPU (fullest: stage %d)", m.Stage))
	t := newTable("  ", false, true, false)
	t.add("weights", Bytes(m.Weights))
	t.add("gradients", Bytes(m.Gradients))
	t.add("optimizer", Bytes(m.Optimizer))
	t.add("activations", Bytes(m.Activations))
	t.add("KV cache", Bytes(m.KVCache))
	t.add("reserved", Bytes(m.Reserved))
	used := ""
	if m.Capacity > 0 {
		used = " (" + Percent(m.Total/m.Capacity) + ")"
	}
	t.add("total", Bytes(m.Total), "of "+Bytes(m.Capacity)+used+": "+Verdict(m))
	if m.Host > 0 {
		what := "offloaded"
		if m.KVCache > 0 {
			what = "the KV cache's host tier"
		}
		t.add("host", Bytes(m.Host), what+", of "+Bytes(m.HostCapacity)+" (the node's host memory over its GPUs)")
	}
	t.write(ew)
}

func renderStages(ew *errWriter, r costmodel.Report, infer bool) {
	stages := r.Detail.Stages
	head := []string{"stage", "GPUs", "layers", "F ms", "B ms", "W ms", "busy", "busy %", "memory", ""}
	right := []bool{true, false, false, true, true, true, true, true, true, false}
	if infer {
		head = []string{"stage", "GPUs", "layers", "decode ms", "busy", "busy %", "memory", ""}
		right = []bool{true, false, false, true, true, true, true, false}
	}
	t := newTable("", right...)
	t.add(head...)
	for i, st := range stages {
		layers := strconv.Itoa(st.Layers)
		switch {
		case st.Embedding && st.Logits:
			layers += " +emb +logits"
		case st.Embedding:
			layers += " +emb"
		case st.Logits:
			layers += " +logits"
		}
		mem := Bytes(st.Memory.Total)
		verdict := ""
		if st.Memory.Capacity > 0 && !st.Memory.Fits {
			verdict = "OVER"
		}
		row := []string{strconv.Itoa(i), Ints(st.GPUs), layers, Millis(st.F)}
		if !infer {
			row = append(row, Millis(st.B), Millis(st.W))
		}
		busy := "-"
		if r.StepTime > 0 {
			busy = Percent(r.StageBusyShare(i))
		}
		row = append(row, Seconds(st.Busy), busy, mem, verdict)
		t.add(row...)
	}
	t.write(ew)
}

// WorkloadLabel describes a serving workload: "bf16 prompt 1024 gen 256 requests 8 at 4 req/s".
func WorkloadLabel(wl model.Workload) string {
	prompt, gen := fmt.Sprint(wl.PromptTokens), fmt.Sprint(wl.GenTokens)
	if wl.PromptDist != nil {
		prompt = DistLabel(*wl.PromptDist)
	}
	if wl.GenDist != nil {
		gen = DistLabel(*wl.GenDist)
	}
	if wl.SystemPrompt > 0 {
		share := ""
		if wl.SystemShare > 0 && wl.SystemShare < 1 {
			share = " on " + Percent(wl.SystemShare)
		}
		prompt += fmt.Sprintf(" + %d system%s", wl.SystemPrompt, share)
	}
	out := fmt.Sprintf("%s prompt %s gen %s requests %d", wl.Precision, prompt, gen, wl.Requests)
	if wl.Turns > 1 {
		out = fmt.Sprintf("%s prompt %s gen %s conversations %d of %d turns (think %s)", wl.Precision, prompt, gen, wl.Requests, wl.Turns, Seconds(wl.ThinkS))
	}
	if st := wl.StageList(); len(st) > 0 {
		out = fmt.Sprintf("%s prompt %s gen %s in %d stages:", wl.Precision, prompt, gen, len(st))
		for i, x := range st {
			if i == 3 && len(st) > 4 {
				out += fmt.Sprintf(" … (%d more)", len(st)-3)
				break
			}
			if x.Requests > 0 {
				out += fmt.Sprintf(" %d at %s req/s", x.Requests, trimFloat(x.Rate))
			} else {
				out += fmt.Sprintf(" %s at %s req/s", Seconds(x.DurationS), trimFloat(x.Rate))
			}
			if i+1 < len(st) {
				out += ","
			}
		}
	}
	switch {
	case len(wl.StageList()) > 0:
	case wl.Rate > 0 && wl.Turns > 1:
		out += fmt.Sprintf(" at %s a second", trimFloat(wl.Rate))
	case wl.Rate > 0:
		out += fmt.Sprintf(" at %s req/s", trimFloat(wl.Rate))
	case wl.Concurrency > 0:
		out += fmt.Sprintf(" from %d clients", wl.Concurrency)
	default:
		out += " at once"
	}
	if wl.Weights != "" {
		out += " · weights " + wl.Weights
	}
	if wl.KVCache != "" {
		out += " · KV " + wl.KVCache
	}
	if wl.KVHostGiB > 0 {
		out += " · host KV " + trimFloat(wl.KVHostGiB) + " GiB/GPU"
	}
	return out
}

// DistLabel is a length distribution in a few characters: "uniform 128–2048", "~256 lognormal".
func DistLabel(d model.LengthDist) string {
	switch d.Kind {
	case model.Uniform:
		return fmt.Sprintf("uniform %d–%d", d.Min, d.Max)
	case model.Fixed:
		return trimFloat(d.Mean)
	}
	return fmt.Sprintf("~%s %s", trimFloat(d.Mean), d.Kind)
}

func trimFloat(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// renderServing is the serving run's figures: latency percentiles, throughput, the KV cache.
func renderServing(ew *errWriter, inf *costmodel.Inference) {
	ew.line(fmt.Sprintf("serving as %s (%d requests served, %d refused · %d engine steps · at most %d sequences and %d tokens a step)",
		engineName(inf.Engine), inf.Completed, inf.Rejected, inf.Steps, inf.MaxSeqs, inf.MaxBatchTokens))
	lt := newTable("  ", false, true, true, true, true, false)
	lt.add("", "mean", "p50", "p90", "p99", "")
	lt.add("TTFT", Seconds(inf.TTFT), Seconds(inf.TTFTP50), Seconds(inf.TTFTP90), Seconds(inf.TTFTP99), "time to first token")
	lt.add("TPOT", Seconds(inf.TPOT), Seconds(inf.TPOTP50), Seconds(inf.TPOTP90), Seconds(inf.TPOTP99), "time per output token after the first")
	if inf.ITL > 0 {
		lt.add("ITL", Seconds(inf.ITL), Seconds(inf.ITLP50), Seconds(inf.ITLP90), Seconds(inf.ITLP99), "each gap between tokens (TPOT: each request's mean gap)")
	}
	lt.add("e2e", Seconds(inf.E2EMean), Seconds(inf.E2EP50), Seconds(inf.E2EP90), Seconds(inf.E2EP99), "arrival to last token")
	lt.write(ew)
	if c := inf.Confidence; c != nil {
		if sat := c.SaturatedText(); sat != "" {
			ew.line("  " + sat + ": these latencies only reflect how long the run lasted")
		}
		renderConfidence(ew, c)
	}
	if len(inf.Stages) > 0 {
		renderStagesServed(ew, inf.Stages)
	}
	tt := newTable("  ", false, true, false)
	tt.add("output tokens/s", Count(inf.OutputTokensPerS), fmt.Sprintf("all replicas; %s per GPU", Count(inf.OutputTokensPerSPerGPU)))
	tt.add("total tokens/s", Count(inf.TotalTokensPerS), "prompt and output")
	tt.add("requests/s", trimFloat(inf.RequestsPerS), "")
	tt.add("KV cache", Count(inf.KVCacheTokens)+" tokens", fmt.Sprintf("a replica; peak fill %s, %d preemptions, at most %d sequences running",
		Percent(inf.KVCachePeakFraction), inf.Preemptions, inf.MaxConcurrency))
	if inf.PrefixHitRate > 0 || inf.PrefixCachePeakFraction > 0 {
		tt.add("prefix cache", Percent(inf.PrefixHitRate)+" hit", fmt.Sprintf("of the prompt tokens admitted, their prefill skipped; shared prefixes held at most %s of the KV blocks",
			Percent(inf.PrefixCachePeakFraction)))
	}
	if inf.KVHostTokens > 0 {
		tt.add("host tier", Count(inf.KVHostTokens)+" tokens", fmt.Sprintf("a replica's KV in host memory: %s of the prompt tokens admitted loaded back from it over PCIe, not prefilled",
			Percent(inf.HostHitRate)))
	}
	floor := "one sequence alone, every stage: TPOT's floor"
	if inf.Spec != nil {
		floor = "one sequence alone, every stage, without speculation (which yields more than a token a step)"
	}
	tt.add("decode step", Seconds(inf.DecodeStepS), floor)
	if d := inf.Disagg; d != nil {
		split := fmt.Sprintf("TP %d × PP %d", d.PrefillTP, d.PrefillPP)
		if d.PrefillCP > 1 {
			split = fmt.Sprintf("TP %d × CP %d × PP %d", d.PrefillTP, d.PrefillCP, d.PrefillPP)
		}
		tt.add("prefill pool", fmt.Sprintf("%d GPUs", d.PrefillGPUs), fmt.Sprintf("%s of %s; busiest stage %s busy; its own TTFT %s (prompt alone, before the transfer)",
			fmt.Sprintf("%d %s", d.PrefillInstances, plural(d.PrefillInstances, "instance", "instances")), split, Percent(d.PrefillBusy), Seconds(d.PrefillTTFTMean)))
		tt.add("decode pool", fmt.Sprintf("%d GPUs", d.DecodeGPUs), fmt.Sprintf("%s; busiest stage %s busy", fmt.Sprintf("%d %s", d.DecodeInstances, plural(d.DecodeInstances, "instance", "instances")), Percent(d.DecodeBusy)))
		tt.add("KV transfer", Seconds(d.KVTransferMeanS), fmt.Sprintf("a prompt's cache, prefill to decode over %s (mean; queued per prefill instance)", d.Link))
	}
	if sp := inf.Spec; sp != nil {
		tt.add("speculation", fmt.Sprintf("%.2f tokens a step", sp.TokensPerStep), SpecLine(sp))
	}
	tt.write(ew)
}

// SpecLine says what speculative decoding did: K, the method, the acceptance and the drafter's
// share of a decode step.
func SpecLine(sp *costmodel.SpecStats) string {
	return fmt.Sprintf("K=%d %s, acceptance %s (1 + %.2f expected), drafter %s of a decode step", sp.Tokens, sp.Method, sp.Accept,
		sp.ExpectedAccepted, Percent(sp.DrafterShare))
}

// renderStagesServed is a rate schedule's table: each stage's rate and requests, its latencies
// over its own steady window, its served rate, and whether it was steady or saturated.
func renderStagesServed(ew *errWriter, stages []costmodel.ServeStage) {
	ew.line("  by stage (each over its own steady window; the figures above are the whole run's):")
	t := newTable("  ", true, true, true, true, true, true, true, true, true, true, false)
	t.add("stage", "req/s", "requests", "TTFT mean", "p90", "ITL mean", "p90", "e2e mean", "p90", "served req/s", "")
	for i, st := range stages {
		itl, itl90 := "-", "-"
		if st.ITL.N > 0 {
			itl, itl90 = Seconds(st.ITL.Mean), Seconds(st.ITL.P90)
		}
		t.add(fmt.Sprint(i+1), trimFloat(st.Rate), fmt.Sprint(st.Requests), Seconds(st.TTFT.Mean), Seconds(st.TTFT.P90), itl, itl90,
			Seconds(st.E2E.Mean), Seconds(st.E2E.P90), trimFloat(st.ServedPerS), st.State)
	}
	t.write(ew)
}

// renderConfidence says which requests an open-loop run's latencies are measured over and how
// sure they are (its warning is among the report's warnings).
func renderConfidence(ew *errWriter, c *costmodel.ServeConfidence) {
	ew.line(fmt.Sprintf("  measured over the %d requests that arrived from %s to %s (%d of warm-up and %d of drain left out)",
		c.Measured, Seconds(c.WarmupEndS), Seconds(c.DrainStartS), c.WarmupRequests, c.DrainRequests))
	if c.Batches == 0 {
		ew.line("  95% interval: none, too few requests for batch means")
		return
	}
	state := "steady"
	switch {
	case c.Rising():
		state = "NOT steady, growing"
	case !c.Steady:
		state = "NOT steady"
	}
	ew.line(fmt.Sprintf("  queue %s (%.1f then %.1f requests in the system) · 95%% interval (%d batch means): TTFT mean ±%s p90 ±%s, TPOT mean ±%s p90 ±%s",
		state, c.InSystemFirst, c.InSystemSecond, c.Batches, Seconds(c.TTFTMeanHW), Seconds(c.TTFTP90HW), Seconds(c.TPOTMeanHW), Seconds(c.TPOTP90HW)))
}

// RenderRateSweep prints a rate sweep: one row per offered rate, then the goodput.
func RenderRateSweep(w io.Writer, s model.Scenario, sw costmodel.RateSweep) error {
	ew := &errWriter{w: w}
	ew.line(strings.Replace(Header(s), " at once", " at the rates below", 1))
	ew.line("")
	ew.line(fmt.Sprintf("rate sweep: Poisson arrivals (seed %d), at each rate %d requests or %.0f s of arrivals where that is more (at most %d); "+
		"all %d at once they are served at %s req/s",
		s.Workload.Seed, sw.Requests, sw.ProbeSeconds, costmodel.MaxProbeRequests, s.Workload.Requests, trimFloat(sw.Capacity)))
	ew.line("latencies over each run's steady window (warm-up and drain left out)")
	t := newTable("", true, true, true, true, true, true, true, true, true, true, false)
	t.add("offered", "requests", "served", "out tok/s", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90", "TPOT p99", "")
	t.add("req/s", "", "req/s", "", "", "", "", "", "", "", "")
	for _, pt := range sw.Points {
		inf := pt.Inference
		mark := ""
		switch {
		case !pt.Fits:
			mark = "does not fit"
		case inf.Rejected > 0:
			mark = fmt.Sprintf("%d refused", inf.Rejected)
		case inf.Confidence != nil && inf.Confidence.Rising():
			mark = "queue grows"
		case sw.SLO != (costmodel.SLO{}) && pt.MeetsSLO:
			mark = "meets the SLO"
		}
		t.add(trimFloat(pt.Rate), strconv.Itoa(pt.Requests), trimFloat(inf.RequestsPerS), Count(inf.OutputTokensPerS),
			Seconds(inf.TTFTP50), Seconds(inf.TTFTP90), Seconds(inf.TTFTP99),
			Seconds(inf.TPOTP50), Seconds(inf.TPOTP90), Seconds(inf.TPOTP99), mark)
	}
	t.write(ew)
	ew.line("")
	switch {
	case sw.SLO == (costmodel.SLO{}):
		ew.line("no SLO given (--slo-ttft, --slo-tpot): no goodput")
	case sw.GoodputPoint == nil:
		ew.line(fmt.Sprintf("goodput: none: even %s req/s misses %s", trimFloat(sw.Points[0].Rate), sloText(sw.SLO)))
	default:
		g := sw.GoodputPoint.Inference
		ew.line(fmt.Sprintf("goodput: %s req/s (%s output tok/s) meet %s: p90 TTFT %s, p90 TPOT %s",
			trimFloat(sw.Goodput), Count(g.OutputTokensPerS), sloText(sw.SLO), Seconds(g.TTFTP90), Seconds(g.TPOTP90)))
		if c := g.Confidence; c != nil && c.Batches > 0 {
			ew.line(fmt.Sprintf("  95%%: %s to %s req/s (the same search with p90 TTFT ±%s and p90 TPOT ±%s, the run's intervals over %d requests)",
				trimFloat(sw.GoodputLow), trimFloat(sw.GoodputHigh), Seconds(c.TTFTP90HW), Seconds(c.TPOTP90HW), c.Measured))
		}
		if c := g.Confidence; c != nil && c.Warning != "" {
			ew.line("  warning: " + c.Warning)
		}
	}
	return ew.err
}

func sloText(o costmodel.SLO) string {
	var parts []string
	if o.TTFT > 0 {
		parts = append(parts, "p90 TTFT ≤ "+Seconds(o.TTFT))
	}
	if o.TPOT > 0 {
		parts = append(parts, "p90 TPOT ≤ "+Seconds(o.TPOT))
	}
	return strings.Join(parts, " and ")
}

// ToFitText says the fastest change that makes a scenario fit, or that none tried does.
func ToFitText(f *costmodel.FitChange) string {
	if f == nil {
		return "no single change makes it fit: recompute, sequence parallelism, ZeRO, lighter weights, another split or 2–4× the GPUs were tried"
	}
	text := fmt.Sprintf("to fit: %s → step %s, %s of %s", f.What, Seconds(f.StepTime), Bytes(f.Memory), Bytes(f.Capacity))
	if f.Host > 0 {
		// Offload is paid for in host RAM: say how much, against the GPU's share of its node's.
		text += fmt.Sprintf(", and %s host RAM per GPU", Bytes(f.Host))
		if f.Scenario.Cluster.HostMemoryBytes <= 0 {
			text += fmt.Sprintf(" (%s per GPU assumed: --host-memory sets it)", Bytes(f.HostCapacity))
		} else {
			text += fmt.Sprintf(" (of its %s)", Bytes(f.HostCapacity))
		}
	}
	return text
}

// RenderToFit prints ToFitText after a report that does not fit.
func RenderToFit(w io.Writer, f *costmodel.FitChange) error {
	ew := &errWriter{w: w}
	ew.line("")
	ew.line(ToFitText(f))
	return ew.err
}

// engineName is the engine's name as the report says it ("vLLM V1"), its id if unknown.
func engineName(id string) string {
	if e, ok := model.Engine(id); ok {
		return e.Name
	}
	return id
}
