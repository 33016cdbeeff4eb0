package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel/collective"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/static"
	"github.com/splitscope/splitscope/tui/theme"
)

// readyLang is ready in a language.
func readyLang(t testing.TB, w, h int, lang string, edit func(*model.Scenario)) Model {
	t.Helper()
	s, p := testScenario(t)
	if edit != nil {
		edit(&s)
	}
	m := New(s, p, WithProbe(boxtest.NoGPU), WithLang(lang))
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return settle(next.(Model))
}

// Regenerate with: go test ./tui -update
func TestGoldenLearn(t *testing.T) {
	for _, lang := range assets.Langs {
		t.Run(lang+"_100x30", func(t *testing.T) {
			m := readyLang(t, 100, 30, lang, nil)
			next, _ := m.setTab(TabLearn)
			v := next.(Model).View()
			checkFrame(t, v, 100, 30)
			golden.RequireEqual(t, []byte(v))
		})
		// The whole document at the pane's width at 100 columns, to read every section.
		t.Run(lang+"_document", func(t *testing.T) {
			m := readyLang(t, 100, 30, lang, nil)
			p := learn.New(theme.Default(), mustTexts(t, lang))
			p.SetSize(m.lay.Content.W, 400)
			p.SetData(m.data)
			p.SetCompare(m.cmp)
			v := strings.TrimRight(p.View(), "\n ")
			golden.RequireEqual(t, []byte(v+"\n"))
		})
	}
}

func mustTexts(t testing.TB, lang string) map[string]string {
	t.Helper()
	tx, err := assets.Texts(lang)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestGoldenTour takes every step of the guided tour at 100×30 and at the minimum size, 80×24,
// in both languages: the step's tab, its caption with the step's own numbers, the tour's footer.
func TestGoldenTour(t *testing.T) {
	steps := assets.TourSteps()
	if len(steps) < 8 {
		t.Fatalf("%d tour steps", len(steps))
	}
	for _, size := range []struct{ w, h int }{{100, 30}, {MinWidth, MinHeight}} {
		suffix := ""
		if size.w != 100 {
			suffix = fmt.Sprintf("_%dx%d", size.w, size.h)
		}
		for _, lang := range assets.Langs {
			m := readyLang(t, size.w, size.h, lang, nil)
			m, _ = press(m, "g")
			for i, step := range steps {
				m = settle(m)
				t.Run(fmt.Sprintf("%s_%02d-%s%s", lang, i+1, step, suffix), func(t *testing.T) {
					if !m.tour.on || m.tour.at != i {
						t.Fatalf("tour on %v at %d, want step %d", m.tour.on, m.tour.at, i)
					}
					if want := tourTabs[step]; m.tab != want {
						t.Errorf("step %s shows tab %d, want %d", step, m.tab, want)
					}
					checkFrame(t, m.View(), size.w, size.h) // the question open: TestTourQuestions
					m = answerRight(t, m)                   // the golden frame is the step revealed
					v := m.View()
					checkFrame(t, v, size.w, size.h)
					if !strings.Contains(v, fmt.Sprintf("tour %d/%d · ←/→ · g or esc leaves", i+1, len(steps))) {
						t.Error("the footer does not say where the tour is")
					}
					if strings.Contains(v, "learn: ") || strings.Contains(v, "…\u00a0") {
						t.Errorf("a caption failed:\n%s", v)
					}
					// The caption fits its box: no line was cut.
					_, lines, err := learn.Caption(m.texts, step, m.learn.Facts(), m.tourReady(), size.w-4)
					if err != nil || !m.tourReady() || len(lines)+1 > m.captionRows() {
						t.Errorf("caption: %d lines and the answer for %d rows, ready %v, %v", len(lines), m.captionRows(), m.tourReady(), err)
					}
					golden.RequireEqual(t, []byte(v))
				})
				m, _ = press(m, "right")
			}
		}
	}
}

// Each tour step's caption quotes the numbers of that step's own evaluation.
func TestTourCaptionsQuoteTheirStep(t *testing.T) {
	m := readyLang(t, 100, 30, "en", nil)
	m, _ = press(m, "g")
	for range assets.TourSteps() {
		m = settle(m)
		_, lines, err := learn.Caption(m.texts, m.tour.steps[m.tour.at], m.learn.Facts(), m.tourReady(), 1000)
		if err != nil || !m.tourReady() {
			t.Fatalf("step %d: ready %v, %v", m.tour.at, m.tourReady(), err)
		}
		v := strings.Join(lines, " ")
		r := m.data.Report
		switch step := m.tour.steps[m.tour.at]; step {
		case "one-gpu":
			for _, want := range []string{static.Bytes(r.Memory.Total), static.Bytes(r.Memory.Weights), static.Bytes(r.Memory.Optimizer)} {
				if !strings.Contains(v, want) {
					t.Errorf("%s: caption lacks %q", step, want)
				}
			}
		case "bubble", "micro-batches":
			p, mb := r.Layout.PP, r.Layout.MicroBatches
			want := fmt.Sprintf("%s of the step", static.Percent(r.BubbleFraction))
			if step == "micro-batches" {
				want = "a bubble of " + static.Percent(r.BubbleFraction)
			}
			if !strings.Contains(v, want) || !strings.Contains(v, fmt.Sprintf("%d of %d slots", p-1, mb+p-1)) {
				t.Errorf("%s: caption lacks %q or the slots %d of %d:\n%s", step, want, p-1, mb+p-1, v)
			}
		case "all-reduce", "pcie":
			if !strings.Contains(v, static.Seconds(r.Detail.TPAllReduceS)) {
				t.Errorf("%s: caption lacks the all-reduce time %s", step, static.Seconds(r.Detail.TPAllReduceS))
			}
		}
		m, _ = press(m, "right")
	}
}

// The numbers the Learn tab quotes are the Report's, formatted as every renderer formats them:
// if the text and the model drift apart, this fails.
func TestLearnNumbersAreTheReports(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	scenarios := map[string]model.Scenario{}
	base, _ := testScenario(t)
	scenarios["base"] = base
	inter := base
	inter.Layout.Schedule, inter.Layout.Chunks = model.Interleaved, 2
	scenarios["interleaved"] = inter
	zb := base
	zb.Layout.Schedule = model.ZBH1
	scenarios["zb-h1"] = zb
	zero := base
	zero.Layout.ZeRO, zero.Layout.TP, zero.Layout.DP = 1, 2, 2
	scenarios["zero-1 dp 2"] = zero
	for _, name := range assets.TourSteps() {
		f, err := assets.TourScenario(name, p)
		if err != nil {
			t.Fatal(err)
		}
		scenarios["tour "+name] = f.Scenario
	}
	for name, s := range scenarios {
		for _, lang := range assets.Langs {
			t.Run(name+"_"+lang, func(t *testing.T) {
				m := readyLang(t, 120, 40, lang, func(x *model.Scenario) { *x = s })
				if m.evalErr != nil || !m.cmpOK {
					t.Fatalf("evaluation: %v, compare %v", m.evalErr, m.cmpOK)
				}
				doc, err := learn.Document(learn.NewTexts(mustTexts(t, lang)), m.learn.Facts())
				if err != nil {
					t.Fatal(err)
				}
				text := learn.PlainText(doc)
				checkLearnNumbers(t, text, lang, m.data, m.cmp)
			})
		}
	}
}

func checkLearnNumbers(t *testing.T, text, lang string, d common.Data, cmp common.Compare) {
	t.Helper()
	r, s := d.Report, d.Scenario
	texts := learn.NewTexts(mustTexts(t, lang))
	want := func(what, s string) {
		t.Helper()
		s = strings.ReplaceAll(texts.Numbers(s), "\u00a0", " ") // "4,67 s", "8,2 %", "72,0 Gio" in French
		if !strings.Contains(text, s) {
			t.Errorf("%s: the text lacks %q", what, s)
		}
	}
	l := r.Layout
	infer := s.Workload.Mode == model.Infer
	// The bubble: p, m, the closed form and the simulation.
	if l.PP > 1 {
		want("p", fmt.Sprintf("p = %d", l.PP))
		m := l.MicroBatches
		if r.Timeline != nil && r.Timeline.MicroBatches > 0 {
			m = r.Timeline.MicroBatches
		}
		want("m", fmt.Sprintf("m = %d", m))
		want("closed form", static.Percent(r.Detail.BubbleClosedForm))
		if !infer && l.Schedule != model.ZBH1.String() {
			v := max(l.Chunks, 1)
			want("(p−1)/m", fmt.Sprintf("%d/%d = %s", l.PP-1, v*m, static.Percent(float64(l.PP-1)/float64(v*m))))
			if lang == "fr" {
				want("idle slots", fmt.Sprintf("inactif %d ", l.PP-1))
				want("slots", fmt.Sprintf("sur %d", v*m+l.PP-1))
			} else {
				want("slots", fmt.Sprintf("%d of %d", l.PP-1, v*m+l.PP-1))
			}
		}
	}
	want("simulated bubble", static.Percent(r.BubbleFraction))
	// The ring all-reduce: t, S, B, α and the result, the shares.
	if l.TP > 1 {
		want("t", fmt.Sprintf("t = %d", l.TP))
		want("2(t−1)", fmt.Sprintf("2(t−1) = %d", 2*(l.TP-1)))
		want("S", "S = "+strings.ReplaceAll(learn.DecBytes(r.Detail.TPAllReduceBytes), "\u00a0", " "))
		want("T", static.Seconds(r.Detail.TPAllReduceS))
		// The algorithm that runs it, and its formula with the collective model's numbers.
		u := r.Detail.TPCollective
		if e, ok := static.ExplainUse(u); ok {
			f := static.Formula(e)
			want("algorithm", f.Name)
			want("formula", "= "+f.Numbers)
			if e.Algo == collective.Ring || e.Algo == collective.Tree {
				want("B", "B = "+static.Bandwidth(r.Detail.TPLinkBW))
				want("α", "α = "+static.Seconds(r.Detail.TPLinkAlpha))
			}
		} else {
			t.Errorf("no formula for the TP collective %+v", u)
		}
		want("link", r.Detail.TPLink)
		want("layer share", static.Percent(r.Detail.Layer.CommShare))
		want("step share", static.Percent(r.Breakdown.TPComm/r.StepTime))
	}
	// Memory: every part of the fullest GPU.
	mem := r.Memory
	want("total", static.Bytes(mem.Total))
	want("capacity", static.Bytes(mem.Capacity))
	want("weights", static.Bytes(mem.Weights))
	want("reserve", static.Bytes(mem.Reserved))
	if infer {
		want("KV cache", static.Bytes(mem.KVCache))
	} else {
		want("gradients", static.Bytes(mem.Gradients))
		want("optimizer", static.Bytes(mem.Optimizer))
		want("activations", static.Bytes(mem.Activations))
		want("params", static.Count(r.Detail.Stages[mem.Stage].ParamsOnGPU))
	}
	if !mem.Fits {
		want("over", static.Bytes(mem.Total-mem.Capacity))
	}
	// The winner: the feasible contender with the most tokens per second.
	win := -1
	for i, row := range cmp.Rows {
		if row.Feasible && (win < 0 || row.Report.TokensPerS > cmp.Rows[win].Report.TokensPerS) {
			win = i
		}
	}
	if win >= 0 {
		w := cmp.Rows[win]
		want("winner", fmt.Sprintf("TP %d × PP %d × DP %d", w.Layout.TP, w.Layout.PP, w.Layout.DP))
		want("winner's tokens/s", static.Count(w.Report.TokensPerS))
		for i, row := range cmp.Rows {
			if i != win && row.Feasible {
				want(row.Name+" tokens/s", static.Count(row.Report.TokensPerS))
			}
		}
	}
}

// The Learn tab's templates run for every kind of scenario in every language (no PP, no TP,
// inference, not fitting, nothing feasible, comparison pending or failed).
func TestLearnTemplatesRunEverywhere(t *testing.T) {
	edits := map[string]func(*model.Scenario){
		"no pp":    func(s *model.Scenario) { s.Layout.TP, s.Layout.PP = 8, 1 },
		"no tp":    func(s *model.Scenario) { s.Layout.TP, s.Layout.PP = 1, 8 },
		"gpipe":    func(s *model.Scenario) { s.Layout.Schedule = model.GPipe },
		"seq par":  func(s *model.Scenario) { s.Layout.SequenceParallel = true },
		"infer":    func(s *model.Scenario) { s.Workload.Mode, s.Layout.MicroBatch = model.Infer, 4 },
		"one gpu":  func(s *model.Scenario) { s.Cluster.GPUs, s.Cluster.GPUsPerNode, s.Layout.TP, s.Layout.PP = 1, 1, 1, 1 },
		"tp 16":    func(s *model.Scenario) { s.Cluster.GPUs, s.Layout.TP, s.Layout.PP = 16, 8, 2 },
		"recomp":   func(s *model.Scenario) { s.Layout.Recompute = model.RecomputeFull },
		"zero 3":   func(s *model.Scenario) { s.Layout.ZeRO, s.Layout.TP, s.Layout.PP, s.Layout.DP = 3, 1, 1, 8 },
		"infer pp": func(s *model.Scenario) { s.Workload.Mode, s.Layout.MicroBatch = model.Infer, 8 },
	}
	for name, edit := range edits {
		for _, lang := range assets.Langs {
			m := readyLang(t, 120, 40, lang, edit)
			if m.evalErr != nil {
				t.Fatalf("%s: %v", name, m.evalErr)
			}
			texts := learn.NewTexts(mustTexts(t, lang))
			f := m.learn.Facts()
			for _, cmp := range []struct {
				c     common.Compare
				ready bool
			}{{m.cmp, true}, {common.Compare{}, false}, {common.Compare{Err: fmt.Errorf("boom")}, true},
				{common.Compare{Rows: []common.CompareRow{{Name: compare.NameTP, Reason: "tp 3: must divide heads"}}}, true}} {
				f := learn.NewFacts(m.data, cmp.c, cmp.ready)
				if _, err := learn.Document(texts, f); err != nil {
					t.Errorf("%s %s: %v", name, lang, err)
				}
			}
			for _, step := range assets.TourSteps() {
				for _, ready := range []bool{true, false} {
					if _, _, err := learn.Caption(texts, step, f, ready, 96); err != nil {
						t.Errorf("%s %s %s: %v", name, lang, step, err)
					}
				}
			}
			m.data.Stale = true
			m.learn.SetData(m.data)
			next, _ := m.setTab(TabLearn)
			if v := next.(Model).View(); !strings.Contains(v, map[string]string{"en": "invalid", "fr": "invalide"}[lang]) {
				t.Errorf("%s %s: a stale Learn tab does not say so", name, lang)
			}
		}
	}
}

// Both languages have every text the tab and the tour use.
func TestTextsHaveEveryKey(t *testing.T) {
	for _, lang := range assets.Langs {
		own, err := assets.TextLang(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range learn.Keys(assets.TourSteps()) {
			if _, ok := own[k]; !ok {
				t.Errorf("%s lacks %s", lang, k)
			}
		}
	}
}

// The "why?" key: from a tab to its section of the Learn tab, and back.
func TestWhyJumpsToTheExplanation(t *testing.T) {
	m := ready(t, 100, 30, nil)
	for tab, sec := range whySections {
		next, _ := m.setTab(tab)
		got, _ := press(next.(Model), "w")
		if got.tab != TabLearn {
			t.Fatalf("w on tab %d went to tab %d", tab, got.tab)
		}
		if off, start := got.learn.Offset(), got.learn.Start(sec); off != start {
			t.Errorf("w on tab %d: Learn shows line %d, section %s starts at %d", tab, off, sec, start)
		}
		v := got.View()
		head := []string{"Prefill and decode", "Speculative decoding", "The pipeline bubble", "The TP all-reduce", "Ring, NVLS, one-shot", "Where the memory goes", "Why the Compare tab's winner wins"}[sec]
		if !strings.Contains(v, head) {
			t.Errorf("w on tab %d: %q is not on screen:\n%s", tab, head, v)
		}
		back, _ := press(got, "w")
		if back.tab != tab {
			t.Errorf("w on the Learn tab went to %d, want back to %d", back.tab, tab)
		}
	}
	// The Learn tab scrolls with pgdn/pgup and ] [.
	next, _ := m.setTab(TabLearn)
	m = next.(Model)
	m.learn.ScrollTo(learn.SecBubble)
	off := m.learn.Offset()
	m, _ = press(m, "]")
	if m.learn.Offset() <= off {
		t.Error("] did not scroll the Learn tab")
	}
	m, _ = press(m, "[")
	if m.learn.Offset() != off {
		t.Errorf("[ scrolled back to %d, want %d", m.learn.Offset(), off)
	}
}

// The tour moves with ←/→ (the parameter panel's ←/→ are suspended), and Esc gives the user back
// exactly the scenario, tab and selection they had, even one they had edited.
func TestTourLeavesTheUsersScenario(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m = selectField(t, m, "micro-batches")
	m, _ = press(m, "right")
	m = settle(m)
	next, _ := m.setTab(TabMemory)
	m = next.(Model)
	before, sel := m.cur, m.sel
	m, _ = press(m, "g")
	if !m.tour.on || m.cur == before {
		t.Fatal("g did not start the tour")
	}
	first := m.cur
	m, _ = press(m, "left") // already at the first step
	if m.tour.at != 0 || m.cur != first {
		t.Errorf("← at the first step moved to %d", m.tour.at)
	}
	for i := 1; i < len(m.tour.steps)+2; i++ {
		m, _ = press(m, "right")
		m = settle(m)
	}
	if m.tour.at != len(m.tour.steps)-1 {
		t.Errorf("→ past the end: step %d", m.tour.at)
	}
	last, _ := assets.TourScenario(m.tour.steps[m.tour.at], m.presets)
	if m.cur != last.Scenario {
		t.Error("→ changed a parameter instead of moving the tour")
	}
	m, _ = press(m, "esc")
	if m.tour.on || m.cur != before || m.tab != TabMemory || m.sel != sel {
		t.Errorf("after esc: tour %v, scenario restored %v, tab %d, sel %d (want %d)", m.tour.on, m.cur == before, m.tab, m.sel, sel)
	}
	m = settle(m)
	if m.data.Scenario != before || strings.Contains(m.View(), "tour 1/") || strings.Contains(m.View(), "esc leaves") {
		t.Error("the user's scenario is not what is shown after the tour")
	}
}

// TestTourFlow drives the real program: start the tour, step with → to the last step, leave with
// Esc; the final model has the user's scenario back.
func TestTourFlow(t *testing.T) {
	s, p := testScenario(t)
	tm := teatest.NewTestModel(t, New(s, p, WithProbe(boxtest.NoGPU), WithLang("fr")), teatest.WithInitialTermSize(100, 30))
	// waitFor waits for output holding every string; what one wait reads, the next does not see.
	waitFor := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("step ")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	n := len(assets.TourSteps())
	// The step's question hides the caption until it is answered; answering reveals it.
	waitFor(fmt.Sprintf("tour 1/%d", n), "combien de Gio lui faut-il")
	for _, r := range "250" {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("vous avez dit 250 Gio, le modèle dit", "Entraîner llama-2-13b sur un seul h100-sxm")
	for i := 2; i <= n; i++ {
		tm.Send(tea.KeyMsg{Type: tea.KeyRight})
		waitFor(fmt.Sprintf("tour %d/%d", i, n))
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor("↑/↓ select", "TP 4 inside the node")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	fm := tm.FinalModel(t).(Model)
	if fm.tour.on || fm.cur != s || fm.tab != TabPipeline {
		t.Errorf("after the tour: on %v, scenario back %v, tab %d", fm.tour.on, fm.cur == s, fm.tab)
	}
}

// Presentation: no parameter panel, the high-contrast theme, taller lanes; it fits 100×30 and
// comes back.
func TestPresentation(t *testing.T) {
	m := ready(t, 100, 30, nil)
	before := m.View()
	m, cmd := press(m, "P")
	if !m.presentation || !m.present || m.lay.Params.W != 0 {
		t.Fatal("P did not hide the parameter panel")
	}
	if cmd == nil {
		t.Error("the rebuilt panes' clock was not armed")
	}
	m, _ = press(m, "space") // pause, so the view is still
	for tab := range m.panes {
		next, _ := m.setTab(tab)
		checkFrame(t, next.(Model).View(), 100, 30)
	}
	v := m.View()
	if strings.Contains(v, "micro-batches m") {
		t.Error("the parameter panel is still drawn")
	}
	// The lanes are taller than in the normal view: more rows carry ops.
	if lanes(v) <= lanes(before) {
		t.Errorf("presentation lanes %d rows, normal %d", lanes(v), lanes(before))
	}
	golden.RequireEqual(t, []byte(v))
	m, _ = press(m, "P")
	if m.presentation || m.present || m.lay.Params.W == 0 {
		t.Error("P again did not come back")
	}
}

// lanes counts the rows of the Pipeline chart that carry ops.
func lanes(v string) int {
	n := 0
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "│F") || strings.Contains(l, "│·") || strings.Contains(l, "│B") {
			n++
		}
	}
	return n
}

// s writes the scenario to splitscope-<model>-<n>.yaml, never over an existing file, and says so
// in the footer until the note's timer clears it.
func TestSaveWritesTheScenario(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m.saveDir = t.TempDir()
	for n := 1; n <= 2; n++ {
		var cmd tea.Cmd
		m, cmd = press(m, "s")
		if cmd == nil {
			t.Fatal("s ran no command")
		}
		msg := cmd()
		note, ok := msg.(noteMsg)
		want := filepath.Join(m.saveDir, fmt.Sprintf("splitscope-llama-2-13b-%d.yaml", n))
		if !ok || note.err || !strings.Contains(note.text, want) {
			t.Fatalf("save %d: %#v", n, msg)
		}
		data, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := assets.ParseScenario(want, data, m.presets)
		if err != nil {
			t.Fatal(err)
		}
		if sf.Scenario.Layout != m.cur.Layout || sf.Scenario.Arch.ID != m.cur.Arch.ID || sf.Scenario.Cluster.GPUs != m.cur.Cluster.GPUs {
			t.Errorf("saved %+v, want %+v", sf.Scenario.Layout, m.cur.Layout)
		}
		next, tick := m.Update(msg)
		m = next.(Model)
		if !strings.Contains(m.View(), "saved to ") || tick == nil {
			t.Error("the footer does not say where the scenario went")
		}
		next, _ = m.Update(clearNoteMsg{seq: m.noteSeq})
		m = next.(Model)
		if strings.Contains(m.View(), "saved to ") {
			t.Error("the note stays after its timer")
		}
	}
	// An older timer does not clear a newer note.
	next, _ := m.Update(noteMsg{text: "saved to x"})
	m = next.(Model)
	next, _ = m.Update(clearNoteMsg{seq: m.noteSeq - 1})
	if !strings.Contains(next.(Model).View(), "saved to x") {
		t.Error("a stale timer cleared the note")
	}
}

// x writes the SVG picture and the Markdown report next to the saved scenarios.
func TestExportWritesBothFiles(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m.saveDir = t.TempDir()
	m, cmd := press(m, "x")
	if cmd == nil {
		t.Fatal("x ran no command")
	}
	if note, ok := cmd().(noteMsg); !ok || note.err {
		t.Fatalf("export: %#v", note)
	}
	for _, ext := range []string{".svg", ".md"} {
		b, err := os.ReadFile(filepath.Join(m.saveDir, "splitscope-llama-2-13b-1"+ext))
		if err != nil || len(b) < 100 {
			t.Errorf("%s: %d bytes, %v", ext, len(b), err)
		}
	}
}

// x never overwrites: with -1.md taken by a file of the user's, it writes -2.svg and -2.md and
// leaves the user's file as it was.
func TestExportPicksAFreeName(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m.saveDir = t.TempDir()
	mine := filepath.Join(m.saveDir, "splitscope-llama-2-13b-1.md")
	if err := os.WriteFile(mine, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cmd := press(m, "x")
	note, ok := cmd().(noteMsg)
	if !ok || note.err || !strings.Contains(note.text, "-2.md") || !strings.Contains(note.text, "-2.svg") {
		t.Fatalf("export: %#v", note)
	}
	if b, _ := os.ReadFile(mine); string(b) != "precious" {
		t.Errorf("the user's file was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(m.saveDir, "splitscope-llama-2-13b-1.svg")); err == nil {
		t.Error("an -1.svg was left beside the user's -1.md")
	}
	for _, ext := range []string{".svg", ".md"} {
		if _, err := os.Stat(filepath.Join(m.saveDir, "splitscope-llama-2-13b-2"+ext)); err != nil {
			t.Errorf("-2%s: %v", ext, err)
		}
	}
	// A second x writes a third pair: nothing written in this run is overwritten either.
	_, cmd = press(m, "x")
	if note, _ := cmd().(noteMsg); !strings.Contains(note.text, "-3.md") {
		t.Errorf("second export: %#v", note)
	}
}

// WithLang: French texts on the Learn tab, English for an unknown language.
func TestWithLang(t *testing.T) {
	for lang, want := range map[string]string{"fr": "La bulle du pipeline", "fr_FR.UTF-8": "La bulle du pipeline",
		"en": "The pipeline bubble", "": "The pipeline bubble", "xx": "The pipeline bubble"} {
		m := readyLang(t, 120, 40, lang, nil)
		next, _ := m.setTab(TabLearn)
		if v := next.(Model).View(); !strings.Contains(v, want) {
			t.Errorf("lang %q: no %q", lang, want)
		}
	}
}

// The tour fits every size, with and without presentation mode; its captions are whole from 100
// columns on.
func TestTourFitsEverySize(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}} {
		for _, present := range []bool{false, true} {
			m := ready(t, sz[0], sz[1], nil)
			if present {
				m, _ = press(m, "P")
			}
			m, _ = press(m, "g")
			cut := 0
			for range m.tour.steps {
				m = settle(m)
				checkFrame(t, m.View(), sz[0], sz[1])
				_, lines, _ := learn.Caption(m.texts, m.tour.steps[m.tour.at], m.learn.Facts(), true, sz[0]-4)
				if len(lines) > m.captionRows() {
					cut++
				}
				m, _ = press(m, "right")
			}
			if sz[0] >= 100 && cut > 0 {
				t.Errorf("%d×%d: %d captions longer than their box", sz[0], sz[1], cut)
			}
			t.Logf("%d×%d presentation %v: %d captions cut", sz[0], sz[1], present, cut)
		}
	}
}

// x during the tour heads the picture with the step's title.
func TestExportInTheTourCarriesTheStepTitle(t *testing.T) {
	m := ready(t, 100, 30, nil)
	m.saveDir = t.TempDir()
	m, _ = press(m, "g")
	m = settle(m)
	title := m.tour.files[m.tour.at].Title
	_, cmd := press(m, "x")
	if note, _ := cmd().(noteMsg); note.err {
		t.Fatalf("export: %s", note.text)
	}
	b, err := os.ReadFile(filepath.Join(m.saveDir, fileStem(m.cur)+"-1.svg"))
	if err != nil || title == "" || !strings.Contains(string(b), title) {
		t.Errorf("the SVG lacks the step title %q (%v)", title, err)
	}
}
