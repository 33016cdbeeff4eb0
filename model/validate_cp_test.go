package model

import (
	"strings"
	"testing"
)

// cpScenario is validScenario with TP 8 × CP 2 × PP 1 on the two nodes (the CP pair spans them).
func cpScenarioV() Scenario {
	s := validScenario()
	s.Layout.PP, s.Layout.CP = 1, 2
	return s
}

func TestValidateCP(t *testing.T) {
	if err := cpScenarioV().Validate(); err != nil {
		t.Fatalf("TP 8 × CP 2 on 16 GPUs: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*Scenario)
		want string
	}{
		{"seq not in 2·cp chunks", func(s *Scenario) { s.Workload.Seq = 4098 },
			"cp = 2: must split seq (4098) into 2·cp equal chunks (causal load balance): nearest valid cp 1"},
		{"seq not in 2·cp chunks, nearest above", func(s *Scenario) { s.Workload.Seq = 4100; s.Layout.CP = 4; s.Cluster.GPUs = 32 },
			"cp = 4: must split seq (4100) into 2·cp equal chunks (causal load balance): nearest valid cp 5"},
		{"ulysses beyond the KV heads", func(s *Scenario) { s.Layout.TP = 1; s.Layout.CP = 16; s.Layout.CPComm = CPUlysses },
			"cp = 16: with cp-comm ulysses must divide heads / tp (64 / 1) and kv-heads / tp (8 / 1): Ulysses is bounded by the KV heads; nearest valid cp 8"},
		{"product", func(s *Scenario) { s.Layout.CP = 4 },
			"dp = 1: tp × cp × pp × dp must equal gpus: 8 × 4 × 1 × 1 ≠ 16"},
		{"serving: ulysses beyond the KV heads", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.TP, s.Layout.CP, s.Layout.CPComm = 1, 16, CPUlysses
		}, "cp = 16: with cp-comm ulysses must divide heads / tp (64 / 1) and kv-heads / tp (8 / 1)"},
		{"serving: cp not dividing the gpus", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.CP = 3
		}, "cp = 3: must divide gpus (16): tp × cp × pp × dp = gpus; one of 1, 2, 4, 8, 16"},
		{"serving: cp with disagg", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.TP, s.Layout.Disagg = 4, Disagg{PrefillGPUs: 8}
		}, "cp = 2: must be 1 with --disagg"},
		{"serving: prefill-cp not dividing the prefill pool", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.CP, s.Layout.DP, s.Layout.Disagg = 0, 1, Disagg{PrefillGPUs: 8, PrefillCP: 3}
		}, "prefill-cp = 3: prefill-tp × prefill-cp × prefill-pp (8 × 3 × 1) must divide the prefill pool's 8 GPUs"},
		{"serving: prefill-cp out of range", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.CP, s.Layout.DP, s.Layout.Disagg = 0, 1, Disagg{PrefillGPUs: 8, PrefillCP: -2}
		}, "prefill-cp = -2: must be 0 (none) or between 1 and"},
		{"serving: prefill ulysses beyond the KV heads", func(s *Scenario) {
			s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1024, 128, 8
			s.Layout.CP, s.Layout.DP, s.Layout.CPComm = 0, 1, CPUlysses
			s.Layout.Disagg = Disagg{PrefillGPUs: 16, PrefillTP: 1, PrefillCP: 16}
			s.Cluster.GPUs = 32
			s.Layout.TP, s.Layout.DP = 8, 2
		}, "prefill-cp = 16: with cp-comm ulysses must divide heads / tp (64 / 1) and kv-heads / tp (8 / 1)"},
		{"cp range", func(s *Scenario) { s.Layout.CP = -1 }, "cp = -1: must be between 1 and"},
		{"cp-comm range", func(s *Scenario) { s.Layout.CPComm = 9 }, "cp-comm = 9: must be one of ring, all-gather, ulysses, hybrid"},
		{"CP group straddles nodes unevenly", func(s *Scenario) {
			s.Layout.TP = 2
			s.Layout.CP = 3
			s.Layout.DP = 1
			s.Cluster.GPUs = 24
			s.Workload.Seq = 4098
		},
			"cp = 3: tp × cp (6) must divide gpus-per-node (8)"},
		{"sequence parallel shares", func(s *Scenario) {
			s.Layout.SequenceParallel = true
			s.Workload.Seq = 4100
			s.Layout.TP = 4
			s.Layout.DP = 2
		},
			"seq = 4100: must be a multiple of tp × cp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := cpScenarioV()
			c.edit(&s)
			err := s.Validate()
			if err == nil {
				t.Fatalf("valid; want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestValidateCPServing: a serving CP needs no 2·cp split of the prompt (the engine pads its
// chunks), so a prompt of any length is valid.
func TestValidateCPServing(t *testing.T) {
	s := cpScenarioV()
	s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 1023, 128, 8
	if err := s.Validate(); err != nil {
		t.Fatalf("serving TP 8 × CP 2 on 16 GPUs, a 1023-token prompt: %v", err)
	}
}

// A prefill pool with CP: its instances are TP × CP × PP, DP what is left; the decode pool has
// none.
func TestDisaggPrefillCP(t *testing.T) {
	s := cpScenarioV()
	s.Workload.Mode, s.Workload.PromptTokens, s.Workload.GenTokens, s.Workload.Requests = Infer, 16384, 128, 8
	s.Layout.CP, s.Layout.DP, s.Layout.Disagg = 0, 1, Disagg{PrefillGPUs: 8, PrefillTP: 4, PrefillCP: 2}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	pre, dec := s.DisaggPools()
	if pre.Layout.TP != 4 || pre.Layout.CP != 2 || pre.Layout.DP != 1 || dec.Layout.CPSize() != 1 || dec.Layout.DP != 1 {
		t.Errorf("prefill %+v; decode %+v", pre.Layout, dec.Layout)
	}
}

func TestCPGPUs(t *testing.T) {
	l := Layout{TP: 2, PP: 3, DP: 5}
	if l.GPUs() != 30 {
		t.Errorf("CP unset: %d GPUs", l.GPUs())
	}
	l.CP = 4
	if l.GPUs() != 120 {
		t.Errorf("TP 2 × CP 4 × PP 3 × DP 5: %d GPUs, want 120", l.GPUs())
	}
}
