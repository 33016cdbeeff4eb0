package model

import "testing"

func TestRoundUpTo(t *testing.T) {
	for _, tc := range []struct{ v, per, want int }{
		{64, 1, 64}, {64, 3, 66}, {64, 128, 128}, {64, 0, 64}, {8, 8, 8}, {9, 8, 16},
	} {
		if got := RoundUpTo(tc.v, tc.per); got != tc.want {
			t.Errorf("RoundUpTo(%d, %d) = %d, want %d", tc.v, tc.per, got, tc.want)
		}
	}
}

func TestResolveSizes(t *testing.T) {
	a := Arch{Heads: 64, KVHeads: 8, FFN: 28672, Layers: 80}
	for _, tc := range []struct {
		name      string
		gpus      int
		sched     Schedule
		mode      Mode
		v         Sizes
		given     SizesGiven
		forSearch bool
		want      Sizes
		split     string
	}{
		{"all defaults", 8, OneFOneB, Train, Sizes{}, SizesGiven{}, false, Sizes{TP: 8, PP: 1, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"four nodes: TP in a node, PP across", 32, OneFOneB, Train, Sizes{}, SizesGiven{}, false, Sizes{TP: 8, PP: 4, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"nodes not full: PP 1", 12, OneFOneB, Train, Sizes{}, SizesGiven{}, false, Sizes{TP: 4, PP: 1, DP: 3, MicroBatch: 1, Batch: 33, Requests: 9}, ""},
		{"more nodes than layers: PP 1", 800, OneFOneB, Train, Sizes{}, SizesGiven{}, false, Sizes{TP: 8, PP: 1, DP: 100, MicroBatch: 1, Batch: 100, Requests: 100}, ""},
		{"tp given: PP 1", 32, OneFOneB, Train, Sizes{TP: 8}, SizesGiven{TP: true}, false, Sizes{TP: 8, PP: 1, DP: 4, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"pp takes GPUs from tp", 8, OneFOneB, Train, Sizes{PP: 2}, SizesGiven{PP: true}, false, Sizes{TP: 4, PP: 2, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"dp given", 16, OneFOneB, Train, Sizes{DP: 4}, SizesGiven{DP: true}, false, Sizes{TP: 4, PP: 1, DP: 4, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"interleaved batch", 8, Interleaved, Train, Sizes{PP: 4, MicroBatch: 3}, SizesGiven{PP: true, MicroBatch: true}, false,
			Sizes{TP: 2, PP: 4, DP: 1, MicroBatch: 3, Batch: 36, Requests: 9}, ""},
		{"inference: no groups", 8, OneFOneB, Infer, Sizes{TP: 4, PP: 2}, SizesGiven{TP: true, PP: true}, false,
			Sizes{TP: 4, PP: 2, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"given values kept", 8, OneFOneB, Infer, Sizes{TP: 8, MicroBatch: 2, Batch: 7, Requests: 5}, SizesGiven{TP: true, MicroBatch: true, Batch: true, Requests: true}, false,
			Sizes{TP: 8, PP: 1, DP: 1, MicroBatch: 2, Batch: 7, Requests: 5}, ""},
		{"tp does not divide", 8, OneFOneB, Train, Sizes{TP: 3}, SizesGiven{TP: true}, false, Sizes{TP: 3, PP: 1, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, "tp"},
		{"pp does not divide", 8, OneFOneB, Train, Sizes{PP: 3}, SizesGiven{PP: true}, false, Sizes{TP: 8, PP: 3, DP: 1, MicroBatch: 1, Batch: 32, Requests: 8}, "pp"},
		{"search starts from one stage", 16, OneFOneB, Infer, Sizes{TP: 3, PP: 3, MicroBatch: 3}, SizesGiven{}, true,
			Sizes{TP: 8, PP: 1, DP: 2, MicroBatch: 1, Batch: 32, Requests: 8}, ""},
		{"search keeps the sizes it fixes", 16, OneFOneB, Infer, Sizes{TP: 4, PP: 2, MicroBatch: 3}, SizesGiven{TP: true, PP: true, MicroBatch: true}, true,
			Sizes{TP: 4, PP: 2, DP: 2, MicroBatch: 3, Batch: 36, Requests: 8}, ""},
		{"search with a fixed DP raises the batch", 64, OneFOneB, Train, Sizes{DP: 64}, SizesGiven{DP: true}, true,
			Sizes{TP: 1, PP: 1, DP: 64, MicroBatch: 1, Batch: 64, Requests: 64}, ""},
	} {
		got, split := ResolveSizes(tc.gpus, 8, a, tc.sched, tc.mode, tc.v, tc.given, tc.forSearch)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		switch {
		case tc.split == "" && split != nil:
			t.Errorf("%s: split %v", tc.name, split)
		case tc.split != "" && (split == nil || split.Field != tc.split):
			t.Errorf("%s: split %v, want one on %s", tc.name, split, tc.split)
		}
	}
}
