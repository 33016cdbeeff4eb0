package main

import (
	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
)

// jsonReport prepares a report for `report --json`: the contract has "warnings": [], never null.
func jsonReport(r costmodel.Report) costmodel.Report {
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return r
}

// searchCandidate is one element of `search --json`: the report's fields plus the verdict.
type searchCandidate struct {
	costmodel.Report
	Feasible bool   `json:"feasible"`
	Reason   string `json:"reason"`
}

// searchOutput is the `search --json` document.
type searchOutput struct {
	Candidates []searchCandidate `json:"candidates"`
}

// jsonSearch lists the top feasible candidates (top ≤ 0: all) best first, then every infeasible
// one. A candidate rejected before evaluation still shows its layout.
func jsonSearch(s model.Scenario, res costmodel.SearchResult, top int) searchOutput {
	out := searchOutput{Candidates: []searchCandidate{}}
	shown := 0
	for _, c := range res.Candidates {
		if c.Feasible {
			if top > 0 && shown >= top {
				continue
			}
			shown++
		}
		r := jsonReport(c.Report)
		if r.Layout.TP == 0 {
			sc := s
			sc.Layout = c.Layout
			r.Layout = costmodel.LayoutSummary{TP: c.Layout.TP, PP: c.Layout.PP, DP: c.Layout.DP,
				Chunks: c.Layout.Chunks, MicroBatch: c.Layout.MicroBatch, MicroBatches: sc.MicroBatches(),
				Schedule: c.Layout.Schedule.String()}
		}
		out.Candidates = append(out.Candidates, searchCandidate{Report: r, Feasible: c.Feasible, Reason: c.Reason})
	}
	// Feasible first, whatever order Search used for the rest.
	feasible := out.Candidates[:0:0]
	var infeasible []searchCandidate
	for _, c := range out.Candidates {
		if c.Feasible {
			feasible = append(feasible, c)
		} else {
			infeasible = append(infeasible, c)
		}
	}
	out.Candidates = append(feasible, infeasible...)
	return out
}

// presetLink is a link with its kind spelled out ("nvlink"), not model.LinkKind's number.
type presetLink struct {
	model.Link
	Kind string `json:"kind"`
}

// presetsOutput is the `presets --json` document.
type presetsOutput struct {
	Models []model.Arch `json:"models"`
	GPUs   []model.GPU  `json:"gpus"`
	Links  []presetLink `json:"links"`
}

func jsonPresets(p *assets.Presets) presetsOutput {
	out := presetsOutput{Models: p.Models, GPUs: p.GPUs, Links: make([]presetLink, len(p.Links))}
	if out.Models == nil {
		out.Models = []model.Arch{}
	}
	if out.GPUs == nil {
		out.GPUs = []model.GPU{}
	}
	for i, l := range p.Links {
		out.Links[i] = presetLink{Link: l, Kind: l.Kind.String()}
	}
	return out
}
