package assets

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestScenarioHostMemory: host_memory reads a size, sets the cluster's host memory, is written
// back by MarshalScenario, and a bad one names the line and the key.
func TestScenarioHostMemory(t *testing.T) {
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseScenario("s.yaml", []byte("model: llama-3-70b\ngpu: h100-sxm\nhost_memory: 512G\n"), p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scenario.Cluster.HostMemoryBytes != 512*model.GiB {
		t.Errorf("host memory %v, want 512 GiB", f.Scenario.Cluster.HostMemoryBytes)
	}
	out := string(MarshalScenario(f.Scenario, ""))
	if !strings.Contains(out, "host_memory: 512GiB\n") {
		t.Errorf("MarshalScenario lacks host_memory:\n%s", out)
	}
	again, err := ParseScenario("again.yaml", []byte(out), p)
	if err != nil || again.Scenario.Cluster.HostMemoryBytes != 512*model.GiB {
		t.Errorf("read back: %v, %v", again.Scenario.Cluster.HostMemoryBytes, err)
	}
	// The default is not written.
	f.Scenario.Cluster.HostMemoryBytes = 0
	if out := string(MarshalScenario(f.Scenario, "")); strings.Contains(out, "host_memory") {
		t.Errorf("the default written:\n%s", out)
	}
	_, err = ParseScenario("bad.yaml", []byte("model: llama-3-70b\ngpu: h100-sxm\nhost_memory: [1]\n"), p)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "host_memory") {
		t.Errorf("host_memory: [1]: %v", err)
	}
	_, err = ParseScenario("bad.yaml", []byte("model: llama-3-70b\ngpu: h100-sxm\nhost_memory: 0\n"), p)
	if err == nil || !strings.Contains(err.Error(), "must be a size of host memory per node") {
		t.Errorf("host_memory: 0: %v", err)
	}
}
