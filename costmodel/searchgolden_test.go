package costmodel

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSearchGolden = flag.Bool("update", false, "rewrite costmodel/testdata/search-*.golden")

// TestSearchMoEGolden pins Search's whole result on MoE models of mixed and uniform layers
// (DeepSeek-V3 on 256 H100s, Mixtral 8x7B on 64): the best layout, its step time, the counts of
// what was evaluated and pruned, and a digest of every candidate's layout and report in order.
// Search's speed-ups (memos, hoisted work) must change none of it; a change meant to move the
// model's numbers rewrites the golden with -update, and the diff shows what moved.
func TestSearchMoEGolden(t *testing.T) {
	for _, c := range []struct {
		name, model string
		gpus, batch int
	}{
		{"deepseek-v3-256", "deepseek-v3", 256, 1024},
		{"mixtral-8x7b-64", "mixtral-8x7b", 64, 512},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := presets(t)
			a, err := p.Model(c.model)
			if err != nil {
				t.Fatal(err)
			}
			s := scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", c.gpus, 8, 1)
			s.Arch = a
			s.Workload.Seq, s.Workload.GlobalBatch = 4096, c.batch
			res, err := Search(s, SearchOptions{})
			if err != nil || res.Feasible == 0 {
				t.Fatalf("search: %v, %d feasible", err, res.Feasible)
			}
			got := searchDigest(t, res)
			path := filepath.Join("testdata", "search-"+c.name+".golden")
			if *updateSearchGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("Search's result moved (-update rewrites it when intended):\ngot:\n%swant:\n%s", got, want)
			}
		})
	}
}

// searchDigest is a result's readable head (counts, the best layout and its step time to the
// last bit), a SHA-256 of every candidate, warning and count as JSON (floats round-trip), and
// one of the candidates alone.
func searchDigest(t *testing.T, res SearchResult) string {
	t.Helper()
	var b strings.Builder
	best := res.Candidates[0]
	fmt.Fprintf(&b, "counts %+v\n", res.Counts)
	fmt.Fprintf(&b, "feasible %d of %d candidates\n", res.Feasible, len(res.Candidates))
	fmt.Fprintf(&b, "best %+v\n", best.Layout)
	fmt.Fprintf(&b, "step %.17g s, memory %.17g B\n", best.Report.StepTime, best.Report.Memory.Total)
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "sha256 %x\n", sha256.Sum256(js))
	// The candidates alone: a change that only prunes differently moves the counts, not these.
	cs, err := json.Marshal(res.Candidates)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "candidates sha256 %x\n", sha256.Sum256(cs))
	return b.String()
}
