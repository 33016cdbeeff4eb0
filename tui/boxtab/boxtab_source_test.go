package boxtab

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/theme"
)

func TestSavedBoxIsNotCalledLive(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	m := New(theme.Default(), boxtest.NewProbe(boxtest.L40S4()).Probe, p)
	m.SetSize(120, 34)
	m.SetSource("node-1.json")
	m.Update(m.SetActive(true)()) // the first probe, run synchronously
	head := strings.SplitN(m.View(), "\n", 2)[0]
	if !strings.Contains(head, "saved box node-1.json") || strings.Contains(head, "live") {
		t.Errorf("header of a saved box: %q", head)
	}
}
