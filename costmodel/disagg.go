package costmodel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/splitscope/splitscope/costmodel/arch"
	"github.com/splitscope/splitscope/costmodel/serve"
	"github.com/splitscope/splitscope/model"
)

// Disaggregated serving (model.Disagg): a prefill pool and a decode pool, each a set of engine
// instances with its own split. The run is simulated pool after pool, as the requests flow:
//
//  1. The prefill pool serves every request as a prompt with one output token (the prefill
//     instance's max_tokens = 1 in vLLM's disaggregated proxy,
//     examples/online_serving/disaggregated_serving; Dynamo's prefill workers likewise).
//  2. Each prompt's KV cache is sent to a decode instance when its prefill ends: every GPU of
//     the prefill instance sends its shard, every GPU of the decode instance receives its own,
//     over the link between the pools (NVLink inside a node; across nodes a GPU's share of its
//     node's NICs, RDMA as NIXL and Mooncake's transfer engine use). The sends of one prefill
//     instance queue behind each other on its links; the receivers' links are not contended.
//  3. The decode pool admits each request when its cache has arrived, with the whole prompt
//     cached (serve.Request.Cached: the engine computes only the prompt's last token, as vLLM's
//     NixlConnector leaves it to the decode instance) and generates every output token; the
//     request reaches it through the proxy and its front end again.
//
// TTFT is from the request's sending to the decode instance's first token: prefill, queueing in
// both pools, the transfer and one decode step (what a client of the proxy sees). An open loop
// runs the pools one after the other; a closed loop (Workload.Concurrency) or conversations
// (Workload.Turns), where a client's next request waits for the decode pool's answer to its
// last, run both in one clock (serve.RunPools, disaggClosed), the same engines and transfers; a
// conversation's turns go to one prefill instance, whose prefix cache holds its prompt so far
// (the answers, decoded on the other pool, are prefilled again). Not modelled: prefill blocks
// held until the transfer ends, and transfers contending at the decode side.

// kvShardBytes is the bytes of a prompt of n tokens' KV cache (and its linear layers' state)
// that the fullest GPU of p's instance holds: the largest stage's share, split over its TP.
func (p *plan) kvShardBytes(c *servingCost, n int) float64 {
	tok := float64(n)
	per := func(sh arch.Shape) float64 {
		keep := tok
		if w := float64(sh.Window); w > 0 {
			keep = math.Min(tok, w)
		}
		if p.cpx.n > 1 {
			// The cache is sharded by token over the CP ranks, each sending its own share.
			keep /= float64(p.cpx.n)
		}
		return (sh.KVCacheOnGPU(p.t)*keep + sh.StateOnGPU(p.t)) * c.kvb
	}
	most := 0.0
	for r := range c.kinds {
		most = math.Max(most, p.k.Sum(c.kinds[r], per))
	}
	return most
}

// disaggLink is the link the pools' GPUs exchange KV caches over: the cluster's link inside a
// node, else a GPU's share of its node's NICs (the pools take whole nodes, model.Disagg).
func disaggLink(c model.Cluster) model.Link {
	if c.GPUs > c.NodeSize() {
		l := c.Inter
		l.Bandwidth *= float64(c.NICsPerNode) / float64(c.NodeSize())
		return l
	}
	return c.IntraLink()
}

// inferDisagg serves the scenario's requests on its two pools (the file's comment).
func inferDisagg(s model.Scenario, record bool) (Report, error) {
	preS, decS := s.DisaggPools()
	pre, dec := newPlan(preS), newPlan(decS)
	w := s.Workload
	reqs, spans, err := serveRequests(w)
	if err != nil {
		return Report{}, err
	}

	link := disaggLink(s.Cluster)
	cp, cd := pre.servingCost(), dec.servingCost()
	replicas := max(pre.d, 1)
	ready := make([]float64, len(reqs))
	send := make([]float64, len(reqs))
	busy := make([]float64, replicas)
	// transfer sends request i's KV cache from prefill instance rep (the balancer's i mod d),
	// its prefill done at t, after that instance's earlier sends: when it is on the decode pool.
	transfer := func(rep, i int, t float64) float64 {
		n := reqs[i].Prompt
		bytes := math.Max(pre.kvShardBytes(cp, n), dec.kvShardBytes(cd, n))
		send[i] = sendTime(bytes, link)
		start := math.Max(t, busy[rep])
		busy[rep] = start + send[i]
		ready[i] = busy[rep]
		return ready[i]
	}
	pr := slices.Clone(reqs)
	for i := range pr {
		pr[i].Gen = 1
	}
	var rp, rd Report
	var resP, resD serve.Result
	var order []int
	if w.Concurrency > 0 || w.Turns > 1 {
		rp, resP, rd, resD, order, err = disaggClosed(pre, dec, reqs, pr, spans, record, transfer, ready)
		if err != nil {
			return Report{}, err
		}
	} else {
		// 1. Prompts on the prefill pool, one token each.
		rp, resP, err = pre.inferRun(false, pr, spans, w.Offline)
		if err != nil {
			return Report{}, fmt.Errorf("prefill pool: %w", err)
		}

		// 2. The KV caches, one prefill instance's sends after another's.
		for i := range reqs {
			if !resP.Rejected[i] {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(resP.Done[a], resP.Done[b]) })
		for _, i := range order {
			transfer(i%replicas, i, resP.Done[i])
		}

		// 3. Decodes on the decode pool, in the order the caches arrive.
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ready[a], ready[b]) })
		if dr := decodeRequests(reqs, order, ready); len(dr) > 0 {
			rd, resD, err = dec.inferRun(record, dr, nil, w.Offline)
			if err != nil {
				return Report{}, fmt.Errorf("decode pool: %w", err)
			}
		} else {
			rd = rp
		}
	}
	var sendSum float64
	for _, i := range order {
		sendSum += send[i]
	}

	// The requests as the client saw them. The sequences running are the decode pool's (its
	// batch, which sets TPOT): a request is in the prefill pool only for its prompt, and the two
	// pools' peaks added counted a request twice (more than a closed loop's clients).
	n := len(reqs)
	res := serve.Result{FirstToken: make([]float64, n), Done: make([]float64, n), Arrival: slices.Clone(resP.Arrival),
		Rejected: slices.Clone(resP.Rejected), Preemptions: resP.Preemptions + resD.Preemptions,
		MaxRunning: resD.MaxRunning, KVPeak: math.Max(resP.KVPeak, resD.KVPeak),
		Steps: resP.Steps + resD.Steps, PromptTokens: resP.PromptTokens, CacheHitTokens: resP.CacheHitTokens,
		PrefixPeak: resP.PrefixPeak} // the decode pool's prompts came over the link, not from a cache
	for j, i := range order {
		res.FirstToken[i], res.Done[i] = resD.FirstToken[j], resD.Done[j]
		res.Rejected[i] = resD.Rejected[j]
	}
	for i := range reqs {
		if res.Rejected[i] {
			res.FirstToken[i], res.Done[i] = resP.FirstToken[i], resP.Done[i]
			continue
		}
		res.Duration = max(res.Duration, res.Done[i])
	}
	if len(resD.ITL.Gap) > 0 {
		res.ITL = serve.Gaps{Gap: resD.ITL.Gap, Off: resD.ITL.Off, IDs: make([]int32, len(resD.ITL.IDs))}
		for k, j := range resD.ITL.IDs {
			res.ITL.IDs[k] = int32(order[j])
		}
	}
	if res.Duration > 0 {
		res.MeanInSystem = (resP.MeanInSystem*resP.Duration + resD.MeanInSystem*resD.Duration) / res.Duration
	}

	// The pools' own windows are not the client's: their warnings give way to the run's below.
	own := [2]string{}
	for k, pool := range []Report{rp, rd} {
		if pi := pool.Inference; pi != nil && pi.Confidence != nil {
			own[k] = pi.Confidence.Warning
		}
	}
	r := rd
	// The decode pool's GPUs follow the prefill pool's.
	for k := range r.Detail.Stages {
		r.Detail.Stages[k].GPUs = shifted(r.Detail.Stages[k].GPUs, preS.Cluster.GPUs)
	}
	if r.Timeline != nil {
		sg := make([][]int, len(r.Timeline.StageGPUs))
		for k, g := range r.Timeline.StageGPUs {
			sg[k] = shifted(g, preS.Cluster.GPUs)
		}
		r.Timeline.StageGPUs = sg
		// The Serve view's requests are decode replica 0's (the balancer's every d-th of the
		// decode order), as their clients saw them: from their sending, not their cache's arrival.
		r.Timeline.Requests = r.Timeline.Requests[:0]
		for j, i := range order {
			if j%max(dec.d, 1) == 0 && !res.Rejected[i] {
				r.Timeline.Requests = append(r.Timeline.Requests, ServeRequest{Arrival: res.Arrival[i],
					FirstToken: res.FirstToken[i], Done: res.Done[i], Gen: reqs[i].Gen})
			}
		}
	}
	inf := r.Inference
	if inf == nil {
		inf = &Inference{}
		r.Inference = inf
	}
	gpus := float64(s.Cluster.GPUs)
	open := w.Rate
	if w.Concurrency > 0 || len(spans) > 1 || w.Turns > 1 {
		open = 0
	}
	inf.Stages = nil
	if len(w.StageList()) > 0 {
		inf.Stages = serve.Stages(reqs, res, spans)
	}
	keep, conf := serve.Window(reqs, res, open)
	st := serve.SummarizeWindow(reqs, res, keep)
	inf.fill(st, res, gpus)
	inf.Confidence = nil
	if keep != nil {
		all := serve.Summarize(reqs, res)
		conf.WholeTTFTMean, conf.WholeTPOTMean = all.TTFTMean, all.TPOTMean
		inf.Confidence = &conf
	}
	inf.PrefillS = 0
	for i := range reqs {
		inf.PrefillS = max(inf.PrefillS, res.FirstToken[i])
	}
	fits := rp.Memory.Fits && rd.Memory.Fits
	if slo := WorkloadSLO(w); slo != (SLO{}) {
		meets := fits && st.Rejected == 0 && slo.Meets(*inf) && (inf.Confidence == nil || !inf.Confidence.Rising())
		inf.MeetsSLO = &meets
	}
	ptp, ppp := s.PrefillSizes()
	inf.Disagg = &DisaggDetail{PrefillGPUs: preS.Cluster.GPUs, DecodeGPUs: decS.Cluster.GPUs,
		PrefillTP: ptp, PrefillPP: ppp, PrefillCP: cpShown(preS.Layout), PrefillInstances: pre.d, DecodeInstances: dec.d,
		Link: link.ID, KVTransferMeanS: ratio(sendSum, float64(len(order))),
		PrefillBusy: busyShare(resP), DecodeBusy: busyShare(resD),
		PrefillTTFTMean: serve.Summarize(pr, resP).TTFTMean}
	r.StepTime = res.Duration
	r.TokensPerS = inf.TokensPerS
	if rp.Memory.Total/math.Max(rp.Memory.Capacity, 1) > r.Memory.Total/math.Max(r.Memory.Capacity, 1) {
		r.Memory = rp.Memory
	}
	r.Memory.Fits = fits
	r.ModelTFLOPS = ratio(rd.Detail.ModelFLOPs, res.Duration*gpus) / 1e12
	r.HWTFLOPS = r.ModelTFLOPS
	r.MFU = ratio(r.ModelTFLOPS*1e12, s.Cluster.GPU.Peak(w.Precision))
	var warns []string
	for k, pool := range []Report{rp, rd} {
		name := [2]string{"prefill pool: ", "decode pool: "}[k]
		for _, x := range pool.Warnings {
			if x == own[k] {
				continue
			}
			warns = append(warns, name+x)
		}
	}
	if inf.Confidence != nil && inf.Confidence.Warning != "" {
		warns = append(warns, inf.Confidence.Warning)
	}
	r.Warnings = warns
	return r, nil
}

// decodeRequests are the requests in order as the decode pool receives them: whole prompts
// cached (the engine computes the last token), arriving when their cache is ready.
func decodeRequests(reqs []serve.Request, order []int, ready []float64) []serve.Request {
	dr := make([]serve.Request, len(order))
	for j, i := range order {
		q := reqs[i]
		dr[j] = serve.Request{Arrival: ready[i], Prompt: q.Prompt, Gen: q.Gen, Cached: q.Prompt, Stage: q.Stage}
	}
	return dr
}

// errCaptured stops a pool's inferRun once it has built its engine's configuration.
var errCaptured = errors.New("serving configuration captured")

// disaggClosed serves a closed loop on the two pools in one clock (serve.RunPools): a client's
// next request leaves when the decode pool's last token of its last one came. Each pool's
// engine is configured as inferRun configures it (captured before its run), and its report
// built by inferRun from its part of the run; the decode pool's part is handed back as the open
// loop's is: its requests (order) in the order their caches arrived.
func disaggClosed(pre, dec *plan, reqs, pr []serve.Request, spans []serve.Span, record bool,
	transfer func(rep, i int, t float64) float64, ready []float64) (rp Report, resP serve.Result, rd Report, resD serve.Result, order []int, err error) {
	w := pre.s.Workload
	var pools serve.Pools
	capture := func(cfg *serve.Config, cost *serve.StepCost) func(serve.Config, []serve.Request, serve.StepCost) (serve.Result, error) {
		return func(c serve.Config, _ []serve.Request, sc serve.StepCost) (serve.Result, error) {
			*cfg, *cost = c, sc
			return serve.Result{}, errCaptured
		}
	}
	all := make([]int, len(reqs))
	for i := range all {
		all[i] = i
	}
	pre.serveRun = capture(&pools.Prefill, &pools.PrefillCost)
	if _, _, err = pre.inferRun(false, pr, spans, w.Offline); !errors.Is(err, errCaptured) {
		return rp, resP, rd, resD, nil, fmt.Errorf("prefill pool: %w", err)
	}
	dec.serveRun = capture(&pools.Decode, &pools.DecodeCost)
	if _, _, err = dec.inferRun(record, decodeRequests(reqs, all, ready), nil, w.Offline); !errors.Is(err, errCaptured) {
		return rp, resP, rd, resD, nil, fmt.Errorf("decode pool: %w", err)
	}
	pools.Concurrency, pools.Ready = w.Concurrency, transfer
	resP, whole, decoded, err := serve.RunPools(pools, reqs)
	if err != nil {
		return rp, resP, rd, resD, nil, fmt.Errorf("costmodel: simulate serving: %w", err)
	}
	// Each pool's report from its part of the run.
	pre.serveRun = func(serve.Config, []serve.Request, serve.StepCost) (serve.Result, error) { return resP, nil }
	if rp, _, err = pre.inferRun(false, pr, spans, w.Offline); err != nil {
		return rp, resP, rd, resD, nil, fmt.Errorf("prefill pool: %w", err)
	}
	for i, ok := range decoded {
		if ok {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ready[a], ready[b]) })
	dr := decodeRequests(reqs, order, ready)
	if len(dr) == 0 {
		return rp, resP, rp, resD, order, nil
	}
	resD = whole
	n := len(order)
	resD.FirstToken, resD.Done, resD.Arrival, resD.Rejected = make([]float64, n), make([]float64, n), make([]float64, n), make([]bool, n)
	at := make([]int32, len(reqs))
	for j, i := range order {
		resD.FirstToken[j], resD.Done[j], resD.Arrival[j], resD.Rejected[j] = whole.FirstToken[i], whole.Done[i], whole.Arrival[i], whole.Rejected[i]
		at[i] = int32(j)
	}
	resD.ITL.IDs = make([]int32, len(whole.ITL.IDs))
	for k, i := range whole.ITL.IDs {
		resD.ITL.IDs[k] = at[i]
	}
	dec.serveRun = func(serve.Config, []serve.Request, serve.StepCost) (serve.Result, error) { return resD, nil }
	if rd, _, err = dec.inferRun(record, dr, nil, w.Offline); err != nil {
		return rp, resP, rd, resD, nil, fmt.Errorf("decode pool: %w", err)
	}
	return rp, resP, rd, resD, order, nil
}

// shifted is GPU ids moved up by n (the decode pool's, after the prefill pool's n GPUs).
func shifted(ids []int, n int) []int {
	out := make([]int, len(ids))
	for i, g := range ids {
		out[i] = g + n
	}
	return out
}

// busyShare is the busiest stage of replica 0's share of the run.
func busyShare(res serve.Result) float64 {
	most := 0.0
	for _, b := range res.Busy {
		most = math.Max(most, b)
	}
	return ratio(most, res.Duration)
}

// maxDisaggSplits bounds the prefill pool sizes a search tries on a large cluster: fractions of
// the nodes, in eighths.
const maxDisaggSplits = 7

// disaggOptions are the pool splits a serving search enumerates (SearchFix.Disagg, DisaggAuto):
// one pool (the zero Disagg) unless the pools are fixed, then each prefill pool size (whole nodes
// across nodes: every node count up to 16 nodes, else eighths of them) with each prefill TP that
// splits the model and stays inside a node, the prefill pool one pipeline stage (prompts need no
// pipeline to fit where decode fits).
func disaggOptions(base model.Scenario, fix SearchFix) []model.Disagg {
	if base.Workload.Mode != model.Infer || (!fix.DisaggAuto && !fix.Disagg.On()) {
		return []model.Disagg{{}}
	}
	gpus, gpn := base.Cluster.GPUs, max(base.Cluster.NodeSize(), 1)
	var sizes []int
	switch {
	case fix.Disagg.On():
		sizes = []int{fix.Disagg.PrefillGPUs}
	case gpus <= gpn:
		for p := 1; p < gpus; p++ {
			sizes = append(sizes, p)
		}
	default:
		nodes := gpus / gpn
		if nodes <= 16 {
			for n := 1; n < nodes; n++ {
				sizes = append(sizes, n*gpn)
			}
			break
		}
		for k := 1; k <= maxDisaggSplits; k++ {
			if n := nodes * k / (maxDisaggSplits + 1); n >= 1 && n < nodes && (len(sizes) == 0 || sizes[len(sizes)-1] != n*gpn) {
				sizes = append(sizes, n*gpn)
			}
		}
	}
	var out []model.Disagg
	if !fix.Disagg.On() {
		out = append(out, model.Disagg{}) // one pool, beside the splits
	}
	for _, p := range sizes {
		for _, t := range model.Divisors(min(p, gpn)) {
			if fix.Disagg.PrefillTP > 0 && t != fix.Disagg.PrefillTP || tpProblem(base.Arch, t) != "" {
				continue
			}
			for _, cp := range prefillCPs(base, fix, p, t, gpn) {
				out = append(out, model.Disagg{PrefillGPUs: p, PrefillTP: t, PrefillCP: cp})
			}
		}
	}
	return out
}

// prefillCPs are the prefill pool's CP sizes a search tries on p GPUs at TP t: the fixed one
// (0 for none) where it divides them; else none, and where the mean prompt is cpMinSeq tokens or
// more (as aggregated serving's cpSizes), every divisor c of p/t that keeps cpMinTokens of a
// prompt on a GPU and whose TP × CP block tiles the nodes. The prefill pool is where a long
// prompt's time goes: CP there cuts TTFT, and the decode pool is untouched.
func prefillCPs(base model.Scenario, fix SearchFix, p, t, gpn int) []int {
	if c := fix.Disagg.PrefillCP; c > 0 {
		if p%(t*c) != 0 {
			return nil
		}
		return []int{c}
	}
	out := []int{0}
	prompt := int(base.Workload.Prompts().Mean)
	if prompt < cpMinSeq {
		return out
	}
	for _, c := range model.Divisors(p / t) {
		tc := t * c
		if c > 1 && prompt/c >= cpMinTokens && (p <= gpn || gpn%tc == 0 || tc%gpn == 0) {
			out = append(out, c)
		}
	}
	return out
}
