package costmodel

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// The search's confidence warning names the first flagged layout as the tables do, its CP too
// (it read TP=4 PP=1 DP=1 for TP 4 × CP 8).
func TestConfidenceWarningNamesCP(t *testing.T) {
	flagged := &Inference{Confidence: &ServeConfidence{Warning: "not steady"}}
	l := model.Layout{TP: 4, PP: 1, DP: 1, CP: 8, CPComm: model.CPRing}
	got := confidenceWarning([]Candidate{{Feasible: true, Layout: l, Report: Report{Inference: flagged}}})
	if !strings.Contains(got, "TP=4 PP=1 DP=1 CP=8 ring: not steady") {
		t.Errorf("warning %q does not name the layout with its CP", got)
	}
}
