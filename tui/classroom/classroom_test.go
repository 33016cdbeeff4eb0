package classroom

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/tui/theme"
)

func TestQuestionQuantitiesKnown(t *testing.T) {
	for name := range assets.QuestionQuantities {
		if _, ok := QuestionValue(name, costmodel.Report{StepTime: 1, Inference: &costmodel.Inference{}}); !ok {
			t.Errorf("%s: the explorer cannot compute it", name)
		}
	}
	if _, ok := QuestionValue("no_such_quantity", costmodel.Report{}); ok {
		t.Error("an unknown quantity has a value")
	}
}

func TestTallyLineNumbers(t *testing.T) {
	if x := Median([]float64{1, 2, 10}); x != 2 {
		t.Errorf("median %g", x)
	}
	if x := Median([]float64{1, 2, 4, 10}); x != 3 {
		t.Errorf("median %g", x)
	}
	if _, _, ok := MiddleHalf([]float64{1, 2, 3}); ok {
		t.Error("a middle half of three answers")
	}
	if lo, hi, ok := MiddleHalf([]float64{100, 200, 250, 400}); !ok || lo != 200 || hi != 250 {
		t.Errorf("middle half %g–%g %v, want 200–250", lo, hi, ok)
	}
}

// Typing a number: digits, one separator (a comma as the French write it), at most 12
// characters, backspace; other keys are not the question's.
func TestTypeKeyAndNumber(t *testing.T) {
	typed := ""
	for _, k := range []string{"4", "3", ",", ".", "8"} {
		typed, _ = TypeKey(typed, k)
	}
	if typed != "43,8" {
		t.Fatalf("typed %q, want 43,8", typed)
	}
	if x, ok := Number(typed); !ok || x != 43.8 {
		t.Errorf("Number(%q) = %g %v", typed, x, ok)
	}
	if _, ok := TypeKey(typed, "."); ok {
		t.Error("a second separator was taken")
	}
	if typed, _ = TypeKey(typed, "backspace"); typed != "43," {
		t.Errorf("backspace left %q", typed)
	}
	if _, ok := TypeKey("1", "enter"); ok {
		t.Error("enter was taken as a digit")
	}
	long := strings.Repeat("9", 12)
	if got, ok := TypeKey(long, "9"); !ok || got != long {
		t.Errorf("past 12 characters: %q %v", got, ok)
	}
	if _, ok := Number(""); ok {
		t.Error("nothing typed is a number")
	}
	if c, ok := ChoiceKey("2", 3); !ok || c != 1 {
		t.Errorf("ChoiceKey 2 of 3 = %d %v", c, ok)
	}
	for _, k := range []string{"4", "0", "a", "enter"} {
		if _, ok := ChoiceKey(k, 3); ok {
			t.Errorf("ChoiceKey %q of 3 taken", k)
		}
	}
}

func choiceQuestion() *assets.Question {
	return &assets.Question{
		Text: map[string]string{"en": "how much is bubble?"}, Answer: "bubble_fraction", Unit: "%",
		Choices: []assets.Choice{
			{Label: map[string]string{"en": "about 10%"}, Value: 10},
			{Label: map[string]string{"en": "about half"}, Value: 50},
			{Label: map[string]string{"en": "almost all of it"}, Value: 90},
		},
	}
}

func plainStyles() *theme.Styles {
	st := theme.For(lipgloss.NewRenderer(nil))
	return &st
}

// The teacher's tally names the choices where they fit, numbers them where not, and counts
// only the choices the hub counted.
func TestTallyLine(t *testing.T) {
	tl := Tally{Question: choiceQuestion(), Lang: "en", Msg: TallyMsg{Answered: 3, Of: 4, Choices: []int{1, 2}}, Model: 43.8, Known: true}
	st := plainStyles()
	want := "3 answered of 4: about 10% ×1 · about half ×2 · almost all of it ×0 · model: 2 about half · R reveals"
	if l := ansi.Strip(tl.Line(st, 200, false)); l != want {
		t.Errorf("wide:\n got %q\nwant %q", l, want)
	}
	if l := ansi.Strip(tl.Line(st, 60, false)); !strings.HasPrefix(l, "3 answered of 4: 1 ×1 · 2 ×2 · 3 ×0 · model: 2") {
		t.Errorf("narrow: %q", l)
	}
	tl.Revealed, tl.Known = true, false
	if l := ansi.Strip(tl.Line(st, 200, true)); l != "3 answered of 4: model: … · revealed" {
		t.Errorf("brief, revealed, not evaluated: %q", l)
	}
}

// A choice answers at once; alone it reveals, in class (holds) it waits. A number is typed,
// then answered by enter; enter on nothing is taken and answers nothing.
func TestQuizKey(t *testing.T) {
	q := choiceQuestion()
	z := Open()
	if z.Key(q, "right", false) || z.Answered {
		t.Error("← → are the tour's")
	}
	if !z.Key(q, "3", true) || !z.Answered || z.Choice != 2 || z.Revealed {
		t.Errorf("3 in class: %+v", z)
	}
	if z = Open(); !z.Key(q, "1", false) || !z.Revealed {
		t.Errorf("1 alone: %+v", z)
	}
	n := &assets.Question{Text: map[string]string{"en": "how many GiB?"}, Answer: "memory_gib", Unit: "GiB"}
	z = Open()
	if !z.Key(n, "enter", false) || z.Answered {
		t.Errorf("enter on nothing: %+v", z)
	}
	for _, k := range []string{"2", "4", "6", "enter"} {
		z.Key(n, k, false)
	}
	if !z.Answered || z.Number != 246 || !z.Revealed {
		t.Errorf("246 enter: %+v", z)
	}
}

// An answer stays with its step, in a copy; an open question is not filed.
func TestAnswersKeepRecall(t *testing.T) {
	var a Answers
	if r := a.Recall(3); r.Answered || r.Choice != -1 {
		t.Errorf("nothing filed: %+v", r)
	}
	b := a.Keep(2, Quiz{Choice: 1, Answered: true})
	if len(a) != 0 || len(b) != 3 || b.Recall(2).Choice != 1 || b.Recall(0).Choice != -1 {
		t.Errorf("kept: a %v b %v", a, b)
	}
	c := b.Keep(2, Open())
	if c.Recall(2).Choice != 1 {
		t.Error("an open question overwrote a filed answer")
	}
	d := b.Keep(2, Quiz{Choice: 0, Answered: true})
	if b.Recall(2).Choice != 1 || d.Recall(2).Choice != 0 {
		t.Error("Keep changed the earlier list")
	}
	if e := b.Keep(-1, Quiz{Answered: true}); len(e) != len(b) {
		t.Error("filed a step before the tour's first")
	}
}

// A student follows from the start; one who wandered off keeps the teacher's state for F and
// reads where the teacher is; a teacher goes where another teacher's LeadMsg says.
func TestClassFollowState(t *testing.T) {
	s := New(nil, func(Follow) {}, nil, nil)
	if !s.On() || !s.FollowingStudent() {
		t.Fatalf("a student's class: %+v", s)
	}
	if !s.OnLead(Lead{Tour: true, Step: 2}) || !s.Have || !s.Moved {
		t.Errorf("a following student goes to the teacher: %+v", s)
	}
	s.Wander()
	if s.OnLead(Lead{Tour: true, Step: 3}) {
		t.Error("a student who wandered off went to the teacher")
	}
	never := func(Lead) bool { return false }
	nine := func() int { return 9 }
	if text, ok := s.Wandered(never, nine); !ok || text != "teacher is on step 4/9" {
		t.Errorf("wandered: %q %v", text, ok)
	}
	if text, _ := s.Wandered(func(l Lead) bool { return l.Step == 3 }, nine); text != "teacher is on this step" {
		t.Errorf("back on the teacher's step: %q", text)
	}
	s.OnLead(Lead{})
	if text, _ := s.Wandered(never, nine); text != "teacher changed the scenario" {
		t.Errorf("the teacher left the tour: %q", text)
	}
	s.Rejoin()
	if _, ok := s.Wandered(never, nine); ok || !s.Following || s.Moved {
		t.Errorf("after F: %+v", s)
	}
	f, report := s.FollowReport()
	if !f.Following || f.Seq != s.Seq || f.Seq < 1 || report == nil {
		t.Errorf("follow report %+v", f)
	}

	teacher := New(func(Lead) {}, nil, nil, func(Reveal) {})
	if _, ok := teacher.CountsLine(); ok {
		t.Error("counts before the hub counted")
	}
	teacher.Counts = ClassMsg{Following: 12, Connected: 20}
	if text, ok := teacher.CountsLine(); !ok || text != " 12 follow · 20 connected" {
		t.Errorf("counts: %q", text)
	}
	if !teacher.OnLead(Lead{Tour: true, Step: 1}) {
		t.Error("a teacher did not follow another teacher's lead")
	}
	teacher.Tally = TallyMsg{Step: 1, Answered: 3, Of: 5, Choices: []int{2, 1}}
	if x := teacher.TallyOf(1); x.Answered != 3 || x.Count(1) != 1 || x.Count(5) != 0 {
		t.Errorf("this step's tally: %+v", x)
	}
	if x := teacher.TallyOf(2); x.Answered != 0 || x.Of != 5 || x.Step != 2 {
		t.Errorf("another step's tally: %+v", x)
	}
	if (&Class{}).On() {
		t.Error("an explorer alone is in class")
	}
}

func words(text string, w int) []string { return strings.Split(ansi.Wordwrap(text, w, ""), "\n") }

func plainText(key, said, model string) string { return key + "|" + said + "|" + model }

// The open question's lines: the choices with the teacher's counts and tally in place of the
// hint; the student's wait in place of both; a number's input with its hint beside, or below
// when it does not fit.
func TestQuestionLines(t *testing.T) {
	st := plainStyles()
	v := Question{Styles: st, Question: choiceQuestion(), Lang: "en", How: plainText("tour.quiz.choose", "", ""), Quiz: Open(), Wrap: words}
	got := ansi.Strip(strings.Join(v.Lines(200), "\n"))
	if want := "how much is bubble?\n1 about 10% · 2 about half · 3 almost all of it\ntour.quiz.choose||"; got != want {
		t.Errorf("alone:\n got %q\nwant %q", got, want)
	}
	v.Counts, v.ShowCounts, v.Tally = TallyMsg{Choices: []int{4}}, true, "TALLY"
	got = ansi.Strip(strings.Join(v.Lines(200), "\n"))
	if want := "how much is bubble?\n1 about 10% ×4 · 2 about half ×0 · 3 almost all of it ×0\nTALLY"; got != want {
		t.Errorf("teacher:\n got %q\nwant %q", got, want)
	}
	v.ShowCounts, v.Tally = false, ""
	v.Quiz = Quiz{Choice: 1, Answered: true}
	v.Wait = WaitLine(st, plainText, v.Question, "en", v.Quiz)
	if got = ansi.Strip(strings.Join(v.Lines(200), "\n")); got != "how much is bubble?\ntour.quiz.wait|2 about half|" {
		t.Errorf("student waiting: %q", got)
	}
	if WaitLine(st, plainText, v.Question, "en", Quiz{Choice: 1, Answered: true, Revealed: true}) != "" {
		t.Error("a wait line after the reveal")
	}

	n := Question{Styles: st, Question: &assets.Question{Text: map[string]string{"en": "GiB?"}, Unit: "GiB"}, Lang: "en",
		How: plainText("tour.quiz.type", "", ""), Unit: "Gio", Quiz: Quiz{Typed: "24"}, Wrap: words}
	if got = ansi.Strip(strings.Join(n.Lines(200), "\n")); got != "GiB?\n› 24▏ Gio   tour.quiz.type||" {
		t.Errorf("number, wide: %q", got)
	}
	if got = ansi.Strip(strings.Join(n.Lines(20), "\n")); got != "GiB?\n› 24▏ Gio\ntour.quiz.type||" {
		t.Errorf("number, narrow: %q", got)
	}
}

// The caption's rows: four wide, five narrow, more when the caption needs them, never more
// than the room the panes above give; its last line cut with "…" when the room is short.
func TestCaptionRowsAndCut(t *testing.T) {
	for _, c := range []struct{ width, height, helpH, need, room, want int }{
		{120, 40, 1, 0, 20, 4}, {80, 40, 1, 0, 20, 5}, {80, 40, 1, 9, 20, 9},
		{80, 40, 1, 9, 6, 6}, {80, 12, 1, 0, 20, 1}, {80, 24, 1, 3, -2, 1},
	} {
		if got := CaptionRows(c.width, c.height, c.helpH, c.need, c.room); got != c.want {
			t.Errorf("CaptionRows(%d×%d, help %d, need %d, room %d) = %d, want %d", c.width, c.height, c.helpH, c.need, c.room, got, c.want)
		}
	}
	got := CutCaption([]string{"one", "two", "three"}, 2, 40)
	if strings.Join(got, "|") != " one| two …" {
		t.Errorf("cut: %q", got)
	}
	if got := CutCaption([]string{"one"}, 2, 40); len(got) != 1 || got[0] != " one" {
		t.Errorf("uncut: %q", got)
	}
	if h := CaptionHead(2, 9, "Bubbles", 40); h != " 3/9 · Bubbles " {
		t.Errorf("head %q", h)
	}
	if h := CaptionHead(2, 9, "A very long title indeed", 12); ansi.StringWidth(h) > 10 || !strings.HasSuffix(h, "…") {
		t.Errorf("narrow head %q", h)
	}
	if StepAt(-3, 9) != 0 || StepAt(12, 9) != 8 || StepAt(4, 9) != 4 {
		t.Error("StepAt does not clamp to the tour")
	}
}
