package costmodel

import "github.com/splitscope/splitscope/model"

// Evaluate validates the scenario, simulates one step and returns the report with its timeline.
func Evaluate(s model.Scenario) (Report, error) { return Report{}, errNotYet }

// EvaluateFast is Evaluate without building the timeline: the path Search uses.
func EvaluateFast(s model.Scenario) (Report, error) { return Report{}, errNotYet }

// Search enumerates every layout of the scenario's GPUs and ranks the feasible ones.
func Search(base model.Scenario, opt SearchOptions) (SearchResult, error) {
	return SearchResult{}, errNotYet
}
