package static

import "github.com/splitscope/splitscope/costmodel"

// ReportJSON is the `report --json` document's report part: the Report's own fields and the
// figures the text report prints that the Report holds only through its methods (one definition
// each, costmodel/report.go), so that the JSON and the text print one number per quantity.
// search --json embeds the plain Report: its candidates come from the fast path, without the
// collectives the sends' time is taken from.
type ReportJSON struct {
	costmodel.Report
	ReportFigures
}

// ReportFigures are the figures of ReportJSON beyond the Report's fields.
type ReportFigures struct {
	// ClosedFormBubble is the textbook bubble fraction the simulated one is set against, where
	// one applies (Report.ClosedFormBubble): always in training, in serving only when a replica
	// has fewer requests than stages; null otherwise.
	ClosedFormBubble *float64 `json:"closed_form_bubble"`
	// Stages is one row per pipeline stage, as the text report's stage table.
	Stages []StageJSON `json:"stages"`
	// PPSends is what the pipeline sends across a stage boundary; null without a pipeline.
	PPSends *PPSendsJSON `json:"pp_sends"`
}

// StageJSON is one pipeline stage: its GPUs (DP replica 0's TP group), its layers, its busy time
// and that time's share of the step (Report.StageBusyShare), the memory of one of its GPUs.
type StageJSON struct {
	Stage       int     `json:"stage"`
	GPUs        []int   `json:"gpus"`
	Layers      int     `json:"layers"`
	Embedding   bool    `json:"embedding"`
	Logits      bool    `json:"logits"`
	BusyS       float64 `json:"busy_s"`
	BusyShare   float64 `json:"busy_share"`
	MemoryBytes float64 `json:"memory_bytes"`
	Fits        bool    `json:"fits"`
}

// PPSendsJSON: one GPU's send across a stage boundary (its 1/TP share of the activations,
// Report.PPSendBytesPerGPU) and that send's time; the sends' time over the step (the whole run
// in serving) before overlap, one GPU of the busiest stage (Report.PPSendTime); and whether that
// time sits in the idle (Report.PPSendsInIdle: serving, where breakdown_s.pp_comm is 0 and the
// sends are inside breakdown_s.bubble) rather than in breakdown_s.pp_comm (training: what the
// step waits on them).
type PPSendsJSON struct {
	BytesPerGPU float64 `json:"bytes_per_gpu"`
	SendS       float64 `json:"send_s"`
	TimeS       float64 `json:"time_s"`
	InIdle      bool    `json:"in_idle"`
}

// JSONReport is r as `report --json` writes it: "warnings" [] (never null), "stages" [] without
// stages, and the figures above.
func JSONReport(r costmodel.Report) ReportJSON {
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	out := ReportJSON{Report: r, ReportFigures: ReportFigures{Stages: []StageJSON{}}}
	if f, ok := r.ClosedFormBubble(); ok {
		out.ReportFigures.ClosedFormBubble = &f
	}
	for i, st := range r.Detail.Stages {
		gpus := st.GPUs
		if gpus == nil {
			gpus = []int{}
		}
		out.ReportFigures.Stages = append(out.ReportFigures.Stages, StageJSON{Stage: i, GPUs: gpus, Layers: st.Layers, Embedding: st.Embedding,
			Logits: st.Logits, BusyS: st.Busy, BusyShare: r.StageBusyShare(i), MemoryBytes: st.Memory.Total, Fits: st.Memory.Fits})
	}
	if r.Layout.PP > 1 {
		out.ReportFigures.PPSends = &PPSendsJSON{BytesPerGPU: r.PPSendBytesPerGPU(), SendS: r.Detail.P2PS, TimeS: r.PPSendTime(), InIdle: r.PPSendsInIdle()}
	}
	return out
}
