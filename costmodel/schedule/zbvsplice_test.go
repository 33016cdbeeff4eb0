package schedule

import (
	"fmt"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestZBVSplice: ZB-V's order for m micro-batches built from the greedy's on a short run with
// steady periods inserted (orderOf.zbv) is the greedy's own order for m.
func TestZBVSplice(t *testing.T) {
	for p := 1; p <= 12; p++ {
		for m := 2*p + 3; m <= 4*p+8; m++ {
			greedy, err := zbvOrders(p, m)
			if err != nil {
				t.Fatal(err)
			}
			in := Train{Schedule: model.ZBV, Stages: p, Chunks: 2, Micro: m}
			order, per, err := buildOrder(&in)
			if err != nil {
				t.Fatal(err)
			}
			for r := range p {
				if fmt.Sprint(order[r*per:(r+1)*per]) != fmt.Sprint(greedy[r]) {
					t.Fatalf("p=%d m=%d rank %d: the spliced order is not the greedy's", p, m, r)
				}
			}
		}
	}
}
