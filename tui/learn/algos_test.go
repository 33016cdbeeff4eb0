package learn

import (
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

func evaluate(t *testing.T, s model.Scenario) common.Data {
	t.Helper()
	r, err := costmodel.Evaluate(s)
	if err != nil {
		t.Fatal(err)
	}
	return common.Data{Scenario: s, Report: r}
}

// section renders one section of the document in both languages.
func section(t *testing.T, f Facts, sec Section) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, lang := range assets.Langs {
		tx, err := assets.Texts(lang)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Document(NewTexts(tx), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range doc {
			if b.Section == sec {
				out[lang] = PlainText([]Block{b})
			}
		}
	}
	return out
}

// wantAll checks that text holds every one of wants, written as the language of what (its first
// word: "fr H100×8") writes numbers.
func wantAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	lang, _, _ := strings.Cut(what, " ")
	tx, err := assets.Texts(lang)
	if err != nil {
		t.Fatal(err)
	}
	texts := NewTexts(tx)
	for _, w := range wants {
		if !strings.Contains(text, strings.ReplaceAll(texts.Numbers(w), "\u00a0", " ")) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// The algorithms section with today's numbers: on 8 H100s NVLS beats the ring and its bus
// bandwidth exceeds the link's; decoding runs the engine's one-shot, several times faster than
// NCCL; on four RTX 4090s over PCIe the box without peer-to-peer doubles the ring's traffic.
func TestAlgosSection(t *testing.T) {
	// 8 H100s, TP 8, training: NVLS.
	f := NewFacts(evaluate(t, tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 8, 8, 1)), common.Compare{}, false)
	a := f.Algos
	if !a.On || !a.HasNVLS || !a.NVLSOverLink || a.RingBeatsNVLSOnToday || !f.Coll.NVLS || f.Coll.Algo != "NVLS/Simple" || !f.Coll.Exact {
		t.Fatalf("H100×8: %+v %+v", a, f.Coll)
	}
	if !a.EngineApplies || a.DecEngineAlgo != "one-shot" || !strings.HasSuffix(a.DecRatio, "×") || a.DecRatio < "2" {
		t.Errorf("H100×8 decode: %+v", a)
	}
	for lang, text := range section(t, f, SecAlgos) {
		wantAll(t, lang+" H100×8", text, a.NVLSBus, a.Link, a.NVLSGain, a.Ring, a.NVLS, a.RingWire, a.DecNCCL, a.DecEngine, a.DecRatio, "NVLS/Simple")
	}
	for lang, text := range section(t, f, SecAllReduce) {
		wantAll(t, lang+" H100×8 all-reduce", text, "NVLS/Simple", "L + S/(B·η)", f.Coll.Numbers, f.TP.AR)
	}

	// Decoding on the same GPUs: the engine's kernel in the all-reduce section too.
	f = NewFacts(evaluate(t, tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Infer, 8, 8, 1)), common.Compare{}, false)
	if !f.Coll.OneShot || !f.Coll.Engine {
		t.Fatalf("decode: %+v", f.Coll)
	}
	for lang, text := range section(t, f, SecAllReduce) {
		wantAll(t, lang+" decode", text, "one-shot", "launch + (t−1)·S/B", f.Coll.Numbers, f.Algos.DecNCCL)
	}

	// Four RTX 4090s over PCIe: a GeForce box; staged through the host, twice the traffic.
	f = NewFacts(evaluate(t, tuitest.Scenario(t, "llama-3-8b", "rtx-4090", "pcie4", model.Infer, 4, 4, 1)), common.Compare{}, false)
	a = f.Algos
	if !a.GeForce || !a.PCIe || a.HasNVLS || a.NVLSLink || a.EngineApplies || a.EngineWhyNot != "link" {
		t.Fatalf("RTX 4090×4: %+v", a)
	}
	for lang, text := range section(t, f, SecAlgos) {
		wantAll(t, lang+" RTX 4090×4", text, "rtx-4090", a.RingWire, a.StagedWire, a.WireTime, a.StagedTime, "pcie4")
	}
	// H100s in groups of 4: NVLink SHARP is there, the group too small for it.
	f = NewFacts(evaluate(t, tuitest.Scenario(t, "llama-2-13b", "h100-sxm", "nvlink4", model.Train, 8, 4, 2)), common.Compare{}, false)
	if a := f.Algos; a.HasNVLS || !a.NVLSLink || a.NVLSMin != 5 {
		t.Errorf("H100 TP 4: %+v", a)
	}
	// TP 16 over two nodes: the engine's kernel needs one node.
	f = NewFacts(evaluate(t, tuitest.Scenario(t, "llama-3-70b", "h100-sxm", "nvlink4", model.Infer, 16, 16, 1)), common.Compare{}, false)
	if a := f.Algos; a.EngineApplies || a.EngineWhyNot != "nodes" || f.Coll.Nodes != 2 {
		t.Errorf("TP 16 on 2 nodes: %+v", a)
	}
	for lang, text := range section(t, f, SecAllReduce) {
		wantAll(t, lang+" 2 nodes", text, f.Coll.Algo, f.Coll.Numbers)
	}
	// TP = 1: nothing to compare.
	f = NewFacts(evaluate(t, tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 1, 8)), common.Compare{}, false)
	if f.Algos.On || f.Coll.On {
		t.Errorf("TP 1: %+v %+v", f.Algos, f.Coll)
	}
	for lang, text := range section(t, f, SecAlgos) {
		wantAll(t, lang+" TP 1", text, "TP = 1")
	}
}

// Peer-to-peer comes from the GPU preset: the GeForce cards have none, so their PCIe ring is
// staged through host memory and the section says the model times it so.
func TestGeForce(t *testing.T) {
	for id, want := range map[string]bool{"rtx-4090": true, "rtx-3090": true, "rtx-5090": true, "rtx-6000-ada": false, "l40s": false} {
		f := NewFacts(evaluate(t, tuitest.Scenario(t, "llama-3-8b", id, "pcie4", model.Infer, 4, 4, 1)), common.Compare{}, false)
		if f.Algos.GeForce != want || f.Algos.Staged != want || !f.Algos.PCIe {
			t.Errorf("%s: GeForce %v, staged %v, PCIe %v; want %v", id, f.Algos.GeForce, f.Algos.Staged, f.Algos.PCIe, want)
		}
		for lang, text := range section(t, f, SecAlgos) {
			if got := strings.Contains(text, map[string]string{"en": "times it staged", "fr": "chronomètre par l'hôte"}[lang]); got != want {
				t.Errorf("%s %s: says the model times it staged: %v, want %v", id, lang, got, want)
			}
		}
	}
}
