package published

import (
	"fmt"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// The calibration oracles of docs/costmodel.md against published figures (validation.go).
// Each prints its table with `go test -v`; `splitscope validate` prints the same.

func presets(t testing.TB) *assets.Presets {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustGPU(t testing.TB, p *assets.Presets, id string) model.GPU {
	t.Helper()
	g, err := p.GPU(id)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustLink(t testing.TB, p *assets.Presets, id string) model.Link {
	t.Helper()
	l, err := p.Link(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func selene(t testing.TB, p *assets.Presets) Selene {
	return Selene{A100: mustGPU(t, p, "a100-sxm-80gb"), NVLink3: mustLink(t, p, "nvlink3"), IBHDR: mustLink(t, p, "ib-hdr")}
}

// checks runs Validate once per test binary and returns the checks of one group.
func checks(t *testing.T, group string) []Check {
	t.Helper()
	all, err := Validate(selene(t, presets(t)))
	if err != nil {
		t.Fatal(err)
	}
	var out []Check
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-40s %12s %12s %8s  %s\n", "case", "published", "model", "err %", "note")
	for _, c := range all {
		if c.Group == group {
			out = append(out, c)
			fmt.Fprintf(&b, "%-40s %12.4g %12.4g %+8.1f  %s\n", c.Case, c.Published, c.Predicted, 100*c.RelErr(), c.Note)
		}
	}
	t.Log(b.String())
	if len(out) == 0 {
		t.Fatalf("no %s checks", group)
	}
	return out
}

// TestKorthikantiFigure1: all 12 per-GPU memory values of Figure 1 within 1%.
func TestKorthikantiFigure1(t *testing.T) {
	cs := checks(t, "fig1")
	if len(cs) != 12 {
		t.Fatalf("%d Figure 1 values, want 12", len(cs))
	}
	for _, c := range cs {
		if !c.Pass() {
			t.Errorf("%s: model %.4f GiB, paper %.4f GiB (%+.2f%%)", c.Case, c.Predicted, c.Published, 100*c.RelErr())
		}
	}
}

// TestNCCLAllReduceSweep: ring all-reduce within 25% of nccl-tests on 8×A100 from 1 MiB to 16 GiB.
func TestNCCLAllReduceSweep(t *testing.T) {
	n := 0
	for _, c := range checks(t, "nccl") {
		if c.Tolerance < 1 {
			n++
			if !c.Pass() {
				t.Errorf("%s: model %.1f µs, nccl-tests %.1f µs (%+.1f%%)", c.Case, 1e6*c.Predicted, 1e6*c.Published, 100*c.RelErr())
			}
		}
	}
	if n != 15 {
		t.Errorf("%d sweep points from 1 MiB to 16 GiB, want 15", n)
	}
}

// TestMegatronTable1: step time within 20% of the implied s/iter on at least 8 of 10 rows.
func TestMegatronTable1(t *testing.T) {
	cs := checks(t, "table1")
	within := 0
	for _, c := range cs {
		if c.Pass() {
			within++
		}
	}
	t.Logf("%d of %d rows within 20%%", within, len(cs))
	if len(cs) != 10 || within < 8 {
		t.Errorf("%d of %d rows within 20%% of the published step time (need 8 of 10)", within, len(cs))
	}
}

// TestKorthikanti530BMFU is the hold-out: MFU within 10% of the abstract's 42.1% and 54.2%.
func TestKorthikanti530BMFU(t *testing.T) {
	for _, c := range checks(t, "holdout") {
		if !c.Pass() {
			t.Errorf("%s: model %.3f, paper %.3f", c.Case, c.Predicted, c.Published)
		}
	}
}
