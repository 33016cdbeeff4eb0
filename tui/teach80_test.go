package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/theme"
)

// Teaching at 80×24: the footer keeps g, the tour's captions read whole, the strip has no empty
// field while a question is open (issue 18, point 7).

// While a tour question is open the strip hides the costs but still says where each split runs:
// the TP head names its link (the one the report names once the question is answered), with no
// empty field ("TP 8 ()", "node ·  ·"), on the one-line strip (80×24) and the two-line one.
func TestStripWithAQuestionOpenHasNoEmptyField(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m := ready(t, size.w, size.h, nil)
		m, _ = press(m, "g")
		for range assets.TourSteps() {
			m = settle(m)
			if !m.quizOpen() {
				t.Fatalf("%d×%d step %d: no open question", size.w, size.h, m.tour.at+1)
			}
			s := m.tour.files[m.tour.at].Scenario
			r, err := costmodel.Evaluate(s)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			strip := strings.Join(lines[1:1+m.lay.Strip.H], "\n")
			for _, empty := range []string{"()", "·  ·", "· ·"} {
				if strings.Contains(strip, empty) {
					t.Errorf("%d×%d step %d: an empty field %q in the strip:\n%s", size.w, size.h, m.tour.at+1, empty, strip)
				}
			}
			if s.Layout.TP > 1 && !strings.Contains(strip, r.Detail.TPLink) {
				t.Errorf("%d×%d step %d: the strip does not name the TP link %s:\n%s", size.w, size.h, m.tour.at+1, r.Detail.TPLink, strip)
			}
			m, _ = press(m, "right")
		}
	}
}

// Off the tour too: for TP inside a node, across nodes and none, the hidden strip names the link
// the report names.
func TestHiddenStripNamesTheReportsTPLink(t *testing.T) {
	base, _ := testScenario(t)
	for _, tc := range []struct{ gpus, tp, pp int }{{32, 8, 4}, {16, 16, 1}, {16, 4, 4}, {8, 2, 1}, {1, 1, 1}} {
		s := base
		s.Cluster.GPUs = tc.gpus
		s.Layout.TP, s.Layout.PP, s.Layout.DP = tc.tp, tc.pp, tc.gpus/(tc.tp*tc.pp)
		s.Arch.Heads, s.Arch.KVHeads, s.Arch.FFN = 64, 64, 16384
		r, err := costmodel.Evaluate(s)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		for _, h := range []int{1, 2} {
			strip := ansi.Strip(stripHidden(theme.Default(), s, 200, h))
			if strings.Contains(strip, "()") || strings.Contains(strip, "·  ·") {
				t.Errorf("%+v, %d lines: an empty field:\n%s", tc, h, strip)
			}
			if tc.tp > 1 && !strings.Contains(strip, r.Detail.TPLink) {
				t.Errorf("%+v, %d lines: no TP link %s:\n%s", tc, h, r.Detail.TPLink, strip)
			}
		}
	}
}

// footerKeys is the frame's key line: the one above the verdict.
func footerKeys(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	return lines[len(lines)-2]
}

// g, the key that teaches, is in the footer on every tab, with the parameter panel shown or
// hidden, at the minimum size (80×24) and larger; in the tour, the footer says where it is and
// that g (or esc) leaves, with ? always there.
func TestFooterKeepsTheTourKey(t *testing.T) {
	if MinWidth != 80 || MinHeight != 24 {
		t.Fatalf("minimum size %d×%d: this test checks 80×24 as the minimum", MinWidth, MinHeight)
	}
	for _, size := range []struct{ w, h int }{{MinWidth, MinHeight}, {100, 30}, {120, 40}} {
		m := ready(t, size.w, size.h, nil)
		for _, present := range []bool{false, true} {
			if present {
				m, _ = press(m, "p")
			}
			for tab := range m.panes {
				next, _ := m.setTab(tab)
				keys := footerKeys(next.(Model).View())
				for _, want := range []string{"g tour", "? all keys"} {
					if !strings.Contains(keys, want) {
						t.Errorf("%d×%d tab %d, panel hidden %v: no %q in the footer %q", size.w, size.h, tab+1, present, want, keys)
					}
				}
			}
		}
		m, _ = press(m, "p", "g")
		for i := range assets.TourSteps() {
			m = settle(m)
			for _, answered := range []bool{false, true} {
				if answered {
					m = answerRight(t, m)
				}
				keys := footerKeys(m.View())
				head := fmt.Sprintf("tour %d/%d · ←/→ · g or esc leaves", i+1, len(assets.TourSteps()))
				for _, want := range []string{head, "? all keys"} {
					if !strings.Contains(keys, want) {
						t.Errorf("%d×%d tour step %d, answered %v: no %q in the footer %q", size.w, size.h, i+1, answered, want, keys)
					}
				}
				if strings.Contains(keys, "…") {
					t.Errorf("%d×%d tour step %d: a key cut in the footer %q", size.w, size.h, i+1, keys)
				}
			}
			m, _ = press(m, "right")
		}
		if m, _ = press(m, "g"); m.tour.on {
			t.Errorf("%d×%d: g in the tour does not leave it", size.w, size.h)
		}
	}
}

// At widths a classroom's line leaves (the footer shares its line with it), the key line keeps
// g tour and ? all keys, dropping the others first, q quit last.
func TestShortHelpKeepsTourAndHelpWhenNarrow(t *testing.T) {
	m := ready(t, 80, 24, nil)
	for _, w := range []int{80, 60, 40, 30, 24} {
		line := ansi.Strip(m.shortHelp(w))
		if ansi.StringWidth(line) > w {
			t.Errorf("width %d: %q is wider", w, line)
		}
		for _, want := range []string{"g tour", "? all keys"} {
			if !strings.Contains(line, want) {
				t.Errorf("width %d: no %q in %q", w, want, line)
			}
		}
		if w >= 40 && !strings.Contains(line, "q quit") {
			t.Errorf("width %d: q quit dropped before the other keys: %q", w, line)
		}
	}
}

// captionText is the tour's caption box in a frame, its lines unwrapped into one: the text
// between the box's top border (" i/N · title") and its bottom one, spaces collapsed.
func captionText(t *testing.T, view string, at, of int) string {
	t.Helper()
	lines := strings.Split(ansi.Strip(view), "\n")
	head := fmt.Sprintf("╭─ %d/%d · ", at, of)
	for i, l := range lines {
		if !strings.HasPrefix(l, head) {
			continue
		}
		var words []string
		for _, b := range lines[i+1:] {
			if strings.HasPrefix(b, "╰") {
				return strings.Join(words, " ")
			}
			words = append(words, strings.Fields(strings.Trim(b, "│"))...)
		}
	}
	t.Fatalf("no caption box %q in\n%s", head, ansi.Strip(view))
	return ""
}

// unwrapped is text with its spaces (non-breaking ones too) and line breaks collapsed.
func unwrapped(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(s), "\u00a0", " ")), " ")
}

// Every caption of the embedded tour, in English and French, reads whole at 80×24 (the minimum
// size) and at 120×40: the question while it is open (with its choices and how to answer), then
// the answer beside the model's and the whole caption with the step's numbers, all its words in order, nothing cut.
func TestTourCaptionsReadWholeAt80x24(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		for _, lang := range assets.Langs {
			m := readyLang(t, size.w, size.h, lang, nil)
			m, _ = press(m, "g")
			n := len(assets.TourSteps())
			for i, step := range assets.TourSteps() {
				m = settle(m)
				name := fmt.Sprintf("%s %d×%d step %d", lang, size.w, size.h, i+1)
				q := m.question()
				if q == nil || !m.quizOpen() {
					t.Fatalf("%s: no open question", name)
				}
				v := m.View()
				checkFrame(t, v, size.w, size.h)
				want := []string{q.In(lang), m.quizText("tour.quiz.type", "", "")} // and how to answer
				if len(q.Choices) > 0 {
					want[1] = m.quizText("tour.quiz.choose", "", "")
				}
				for j, c := range q.Choices {
					want = append(want, fmt.Sprintf("%d %s", j+1, c.In(lang)))
				}
				got := captionText(t, v, i+1, n)
				for _, w := range want {
					if !strings.Contains(got, unwrapped(w)) {
						t.Errorf("%s: the question's %q is not whole in the caption %q", name, unwrapped(w), got)
					}
				}
				m = answerRight(t, m)
				v = m.View()
				checkFrame(t, v, size.w, size.h)
				_, lines, err := learn.Caption(m.texts, step, m.learn.Facts(), m.tourReady(), 10000)
				if err != nil || !m.tourReady() {
					t.Fatalf("%s: ready %v, %v", name, m.tourReady(), err)
				}
				got = captionText(t, v, i+1, n)
				for _, w := range []string{m.revealLine(), strings.Join(lines, " ")} {
					if !strings.Contains(got, unwrapped(w)) {
						t.Errorf("%s: %q is not whole in the caption %q", name, unwrapped(w), got)
					}
				}
				if strings.Contains(got, "…") {
					t.Errorf("%s: the caption is cut: %q", name, got)
				}
				m, _ = press(m, "right")
			}
		}
	}
}

// The teacher's footer at 80×24 beside the classroom's counts: on every tour step, the step, its
// keys, R while the question is open and ? all keys, nothing cut; outside the tour, g tour.
func TestTeacherFooterAt80x24(t *testing.T) {
	s, p := testScenario(t)
	m := New(s, p, WithProbe(boxtest.NoGPU), WithServed(), WithLead(func(Lead) {}), WithAnswers(nil, func(Reveal) {}))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = settle(next.(Model))
	m, _ = send(m, ClassMsg{Following: 12, Connected: 30})
	for _, want := range []string{"12 follow · 30 connected · ", "g tour", "? all keys"} {
		if keys := footerKeys(m.View()); !strings.Contains(keys, want) {
			t.Errorf("no %q in the teacher's footer %q", want, keys)
		}
	}
	m, _ = press(m, "g")
	for i := range assets.TourSteps() {
		m = settle(m)
		want := []string{fmt.Sprintf("tour %d/%d", i+1, len(assets.TourSteps())), "←/→", "g/esc leaves", "? all keys"}
		if m.quizOpen() {
			want = append(want, "R reveals")
		}
		keys := footerKeys(m.View())
		for _, w := range want {
			if !strings.Contains(keys, w) {
				t.Errorf("step %d: no %q in the teacher's footer %q", i+1, w, keys)
			}
		}
		if strings.Contains(keys, "…") {
			t.Errorf("step %d: the teacher's footer is cut: %q", i+1, keys)
		}
		checkFrame(t, m.View(), 80, 24)
		m, _ = press(m, "right")
	}
}

// A student who wandered off in the tour, at 80×24: beside "teacher is on step i/N · F to follow",
// the footer keeps the step, g/esc and ? all keys (how to answer is in the caption too).
func TestWanderingStudentFooterAt80x24(t *testing.T) {
	s, p := testScenario(t)
	m := New(s, p, WithProbe(boxtest.NoGPU), WithServed(), WithFollower(func(Follow) {}))
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = settle(next.(Model))
	m, _ = send(m, tourLead(t, 1))
	m = settle(m)
	m, _ = press(m, "right") // wanders off to step 3
	m = settle(m)
	keys := footerKeys(m.View())
	for _, want := range []string{"teacher is on step 2/", "F to follow", "tour 3/", "g/esc leaves", "? all keys"} {
		if !strings.Contains(keys, want) {
			t.Errorf("no %q in the student's footer %q", want, keys)
		}
	}
	if strings.Contains(keys, "…") {
		t.Errorf("the student's footer is cut: %q", keys)
	}
}
