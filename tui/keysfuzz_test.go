package tui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/boxtab"
	"github.com/splitscope/splitscope/tui/boxtab/boxtest"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
	"github.com/splitscope/splitscope/tui/static"
)

var altD = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}, Alt: true}

// The reported crash (issue 21): ↓ enter ← alt+d on a panel field, the cursor on the value's
// last rune, panicked in bubbles' deleteWordForward. Now it deletes that rune.
func TestAltDOnTheLastRuneDeletesIt(t *testing.T) {
	m := ready(t, 80, 24, nil)
	m, _ = press(m, "down", "enter", "left")
	before := m.input.Value()
	t.Logf("field %s, text %q", m.fields[m.sel].name, before)
	n, _ := m.Update(altD)
	m = n.(Model)
	if want := before[:len(before)-1]; m.input.Value() != want || m.input.Position() != len(want) || !m.editing {
		t.Errorf("alt+d on the last rune of %q: text %q, cursor %d, editing %v; want %q, cursor %d, still editing",
			before, m.input.Value(), m.input.Position(), m.editing, want, len(want))
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyEnd}, altD, {Type: tea.KeyHome}, altD, altD} {
		n, _ = m.Update(k) // at the end, and on an empty text: nothing to delete
		m = n.(Model)
	}
	if m.input.Value() != "" || !m.editing {
		t.Errorf("alt+d from the start: %q, editing %v", m.input.Value(), m.editing)
	}
}

// deleteWordForward deletes the spaces after the cursor and the word after them, nothing more.
func TestDeleteWordForward(t *testing.T) {
	for _, c := range []struct {
		text string
		pos  int
		want string
	}{
		{"ab", 1, "a"},       // the last rune (bubbles v1.0.0 panicked)
		{"ab c", 1, "a c"},   // the last rune of a word (bubbles deleted " c" too)
		{"abc d", 1, "a d"},  // inside a word
		{"a  b c", 1, "a c"}, // the spaces, then the word
		{"a b ", 3, "a b"},   // trailing spaces only
		{"ab", 2, "ab"},      // at the end: nothing
		{"", 0, ""},
		{"été 4", 1, "é 4"}, // runes, not bytes
	} {
		in := newInput()
		in.Focus()
		in.SetValue(c.text)
		in.SetCursor(c.pos)
		deleteWordForward(&in)
		if in.Value() != c.want || in.Position() != min(c.pos, len([]rune(c.want))) {
			t.Errorf("%q at %d: %q, cursor %d; want %q", c.text, c.pos, in.Value(), in.Position(), c.want)
		}
	}
}

// The explorer's key handling, fuzzed: a sequence of bytes decodes (keysFuzz.msg) into the
// messages a terminal and the program send an explorer (keys of every kind, with alt, pasted or
// several runes at once; mouse presses, releases, motion and wheels anywhere; window sizes from
// 0×0 to 400×120; the results of the evaluation, the comparison and the commands' frames, notes
// and box probes; a classroom's lead, counts, reveals and tallies), and each is sent to one of
// the explorers fuzzStarts builds (local, French, served, a class's teacher and student, a
// lesson, serving, a box with GPUs). Nothing may panic, and View renders after every message.
// TestKeySequences runs a fixed, seeded set of sequences in CI; FuzzKeys lets go test -fuzz
// search for more (the corpus that found a bug stays in testdata/fuzz/FuzzKeys).

// fuzzKeys are the keys a sequence mostly presses: every key the explorer and its tabs bind,
// and the ones the text input binds.
var fuzzKeys = func() []tea.KeyMsg {
	ks := []tea.KeyMsg{
		{Type: tea.KeyUp}, {Type: tea.KeyDown}, {Type: tea.KeyLeft}, {Type: tea.KeyRight},
		{Type: tea.KeyEnter}, {Type: tea.KeyEsc}, {Type: tea.KeyTab}, {Type: tea.KeyShiftTab},
		{Type: tea.KeyBackspace}, {Type: tea.KeyDelete}, {Type: tea.KeyHome}, {Type: tea.KeyEnd},
		{Type: tea.KeyPgUp}, {Type: tea.KeyPgDown}, {Type: tea.KeySpace, Runes: []rune{' '}},
		{Type: tea.KeyCtrlU}, {Type: tea.KeyCtrlK}, {Type: tea.KeyCtrlW}, {Type: tea.KeyCtrlA},
		{Type: tea.KeyCtrlE}, {Type: tea.KeyCtrlD}, {Type: tea.KeyCtrlH}, {Type: tea.KeyCtrlF},
		{Type: tea.KeyCtrlB}, {Type: tea.KeyCtrlN}, {Type: tea.KeyCtrlP},
		{Type: tea.KeyLeft, Alt: true}, {Type: tea.KeyRight, Alt: true}, {Type: tea.KeyBackspace, Alt: true},
		{Type: tea.KeyDelete, Alt: true}, {Type: tea.KeyCtrlLeft}, {Type: tea.KeyCtrlRight},
		altD, {Type: tea.KeyRunes, Runes: []rune{'f'}, Alt: true}, {Type: tea.KeyRunes, Runes: []rune{'b'}, Alt: true},
	}
	for _, r := range "0123456789?gwpPsxyFRhjklq+-.=[]{}<>,;/:abcdefimnortuvzBCDEGHIJKLMNOSTUVWXYZ" {
		ks = append(ks, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return ks
}()

// fuzzNav are the keys that move around, pressed more often than the others.
var fuzzNav = []tea.KeyMsg{{Type: tea.KeyUp}, {Type: tea.KeyDown}, {Type: tea.KeyDown}, {Type: tea.KeyLeft},
	{Type: tea.KeyRight}, {Type: tea.KeyEnter}, {Type: tea.KeyEsc}, {Type: tea.KeyTab}}

// fuzzPending bounds the commands a sequence keeps to run (the program runs them all; a
// sequence runs the newest fuzzPending when it says so).
const fuzzPending = 16

// fuzzSpecial is every key type Bubble Tea has: the control keys, delete, and the named ones.
var fuzzSpecial = func() []tea.KeyType {
	var ts []tea.KeyType
	for t := tea.KeyType(0); t <= 31; t++ {
		ts = append(ts, t)
	}
	ts = append(ts, tea.KeyDelete)
	for t := tea.KeyRunes; t >= tea.KeyF20; t-- {
		ts = append(ts, t)
	}
	return ts
}()

// fuzzRunes are runes typed beyond the bound keys: wide, combining, emoji, the replacement
// rune a terminal reads invalid UTF-8 as, controls.
var fuzzRunes = []rune("é€漢👍\u0301\u200d\ufffd\x00\x1b\n\t\u00a0 -e+E")

// fuzzSizes are the window sizes a sequence sets: none, tiny, just under and at 80×24, large.
var fuzzSizes = [][2]int{{0, 0}, {1, 1}, {10, 3}, {40, 10}, {79, 23}, {80, 24}, {81, 25}, {100, 30}, {120, 40}, {200, 60}, {400, 120}, {80, 200}, {300, 5}}

// keysFuzz decodes bytes into messages and sends them to an explorer.
type keysFuzz struct {
	data   []byte
	at     int
	trace  []string // what was sent, for the failure's message
	sweeps int      // the serving comparisons it may still compute
}

func (f *keysFuzz) next() byte {
	if f.at >= len(f.data) {
		return 0
	}
	f.at++
	return f.data[f.at-1]
}

// msg decodes the next message; ok is false at the end of the data. op, when not nil, is not a
// message but something the program does: run the evaluation, run the pending commands. A byte
// below 0x80 is a key of fuzzKeys (one byte a key, so that one mutation makes any key); a byte
// from 0x80 is one of the rest, its bits saying which and how, the bytes after it what.
func (f *keysFuzz) msg(m *Model) (tea.Msg, func(*Model, []tea.Cmd) []tea.Msg, bool) {
	if f.at >= len(f.data) {
		return nil, nil, false
	}
	b := f.next()
	if b < 0x80 {
		return fuzzKeys[int(b)%len(fuzzKeys)], nil, true
	}
	op := b & 0x7f
	v, w := op/12%2 == 1, op/24%2 == 1 // the variants
	switch op % 12 {
	case 0:
		return tea.KeyMsg{Type: fuzzSpecial[int(f.next())%len(fuzzSpecial)], Alt: v}, nil, true
	case 1:
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{fuzzRunes[int(f.next())%len(fuzzRunes)]}, Alt: v}, nil, true
	case 2: // several runes in one message: typed fast, sent together over SSH, or pasted
		n := int(f.next()%12) + 1
		rs := make([]rune, n)
		for i := range rs {
			if c := f.next(); c < 0x80 {
				rs[i] = rune(c)
			} else {
				rs[i] = fuzzRunes[int(c)%len(fuzzRunes)]
			}
		}
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: rs, Paste: v, Alt: w}, nil, true
	case 3:
		x, y, k := int(f.next()), int(f.next()), f.next()
		if m.width > 0 && m.height > 0 && !w { // mostly inside the window
			x, y = x%(m.width+2), y%(m.height+2)
		}
		if !v { // mostly a click or a wheel
			return tea.MouseMsg{X: x, Y: y, Button: []tea.MouseButton{tea.MouseButtonLeft, tea.MouseButtonWheelUp,
				tea.MouseButtonWheelDown}[k%3], Action: tea.MouseActionPress}, nil, true
		}
		return tea.MouseMsg{X: x, Y: y, Button: tea.MouseButton(k % 12), Action: tea.MouseAction(k / 12 % 3),
			Shift: k&0x10 != 0, Alt: k&0x20 != 0, Ctrl: k&0x40 != 0}, nil, true
	case 4:
		if v {
			return tea.WindowSizeMsg{Width: int(f.next()) * 2, Height: int(f.next())}, nil, true
		}
		sz := fuzzSizes[int(f.next())%len(fuzzSizes)]
		return tea.WindowSizeMsg{Width: sz[0], Height: sz[1]}, nil, true
	case 5: // the program runs the evaluation and (but in the variant, it takes longer) the comparison
		if v {
			return nil, func(m *Model, _ []tea.Cmd) []tea.Msg { return fuzzEval(m) }, true
		}
		return nil, func(m *Model, _ []tea.Cmd) []tea.Msg {
			if m.cur.Workload.Mode == model.Infer {
				// A serving scenario's comparison sweeps the arrival rate (a second of work):
				// a sequence computes as many as it may, then has its evaluations only.
				if f.sweeps--; f.sweeps < 0 {
					return fuzzEval(m)
				}
			}
			return fuzzSettle(m, nil)
		}, true
	case 6:
		return common.FrameMsg(time.Unix(1e9, int64(f.next())*int64(common.FrameInterval))), nil, true
	case 7: // the program runs the commands the messages returned (those that end soon)
		return nil, func(_ *Model, cmds []tea.Cmd) []tea.Msg { return runNow(tea.Batch(cmds...)) }, true
	case 8:
		return f.classMsg(m), nil, true
	case 9:
		return f.otherMsg(m), nil, true
	case 10:
		k := fuzzKeys[int(f.next())%len(fuzzKeys)]
		k.Alt = true
		return k, nil, true
	default:
		return fuzzNav[int(f.next())%len(fuzzNav)], nil, true
	}
}

// classMsg is what a classroom's server sends an explorer: a teacher's lead (a tour step or a
// scenario), the class's counts, a reveal, a tally.
func (f *keysFuzz) classMsg(m *Model) tea.Msg {
	steps := assets.TourSteps()
	step := int(f.next()) % (len(steps) + 1)
	switch f.next() % 5 {
	case 0:
		if step < len(steps) {
			if sf, err := assets.TourScenario(steps[step], m.presets); err == nil {
				return LeadMsg{Tour: true, Step: step, Scenario: sf.Scenario, Seq: int(f.next())}
			}
		}
		return LeadMsg{Scenario: m.cur, Seq: int(f.next())}
	case 1:
		s := m.cur
		s.Cluster.GPUs = int(f.next()) + 1
		return LeadMsg{Scenario: s, Seq: int(f.next())}
	case 2:
		return ClassMsg{Following: int(f.next()), Connected: int(f.next())}
	case 3:
		return RevealMsg{Step: step}
	default:
		n := int(f.next() % 5)
		return TallyMsg{Step: step, Answered: n, Of: int(f.next()), Choices: []int{n, 1, 0}[:f.next()%4%3],
			Numbers: []float64{1, 246, 1e9, 0}[:f.next()%5%4], Revealed: f.next()&1 != 0}
	}
}

// otherMsg is one of the rest: a stale result, a note and its clearing, the Compare tab's "take
// the best layout", the Box tab's "use this box".
func (f *keysFuzz) otherMsg(m *Model) tea.Msg {
	switch f.next() % 6 {
	case 0:
		return evaluate(m.rev-1, m.cur)()
	case 1:
		return noteMsg{text: "a note", err: f.next()&1 != 0}
	case 2:
		return clearNoteMsg{seq: m.noteSeq}
	case 3:
		l := m.cur.Layout
		l.TP, l.PP = 1<<(f.next()%5), 1<<(f.next()%4)
		return compare.TakeBetterMsg{Layout: l}
	case 4:
		return boxtab.UseBoxMsg{Box: boxtest.L40S4()}
	default:
		return compareMsg{rev: m.rev, cmp: common.Compare{Err: errors.New("compare failed")}}
	}
}

// runNow runs cmd's commands at once, as the program would, and returns, in their order, the
// messages of those that end within 5 ms (not the timers: frames, a note's clearing, polls).
func runNow(cmd tea.Cmd) []tea.Msg { return runWithin(cmd, 5*time.Millisecond) }

// runWithin is runNow with the time given.
func runWithin(cmd tea.Cmd, d time.Duration) []tea.Msg {
	start := func(c tea.Cmd) chan tea.Msg {
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		return ch
	}
	deadline := time.After(d)
	late := false
	var out []tea.Msg
	queue := []chan tea.Msg{}
	if cmd != nil {
		queue = append(queue, start(cmd))
	}
	for len(queue) > 0 {
		ch := queue[0]
		queue = queue[1:]
		var msg tea.Msg
		if late {
			select {
			case msg = <-ch:
			default:
				continue
			}
		} else {
			select {
			case msg = <-ch:
			case <-deadline:
				late = true
				select {
				case msg = <-ch:
				default:
					continue
				}
			}
		}
		var children []chan tea.Msg
		switch m := msg.(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			for _, c := range m {
				if c != nil {
					children = append(children, start(c))
				}
			}
		default:
			if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
				for i := range v.Len() { // tea.Sequence's message: its commands (run at once here)
					if c := v.Index(i).Interface().(tea.Cmd); c != nil {
						children = append(children, start(c))
					}
				}
				break
			}
			out = append(out, msg)
		}
		queue = append(children, queue...)
	}
	return out
}

// fuzzStarts are the explorers a sequence starts from (its first byte chooses): each evaluated,
// at 80×24 or 160×48. A local one writes what s and x save under dir.
var fuzzStarts = []struct {
	name string
	opts func(t testing.TB, p *assets.Presets) []Option
	edit func(*model.Scenario)
}{
	{"local", nil, nil},
	{"french", func(testing.TB, *assets.Presets) []Option { return []Option{WithLang("fr")} }, nil},
	{"served", func(testing.TB, *assets.Presets) []Option { return []Option{WithServed()} }, nil},
	{"teacher", func(testing.TB, *assets.Presets) []Option {
		return []Option{WithServed(), WithLead(func(Lead) {}), WithAnswers(func(Answer) {}, func(Reveal) {})}
	}, nil},
	{"student", func(testing.TB, *assets.Presets) []Option {
		return []Option{WithServed(), WithFollower(func(Follow) {}), WithAnswers(func(Answer) {}, func(Reveal) {})}
	}, nil},
	{"lesson", func(t testing.TB, p *assets.Presets) []Option { return []Option{WithLesson(lessonFiles(t, p))} }, nil},
	{"serving", nil, func(s *model.Scenario) {
		s.Workload.Mode = model.Infer
		s.Workload.Requests, s.Workload.Rate, s.Layout.MicroBatch = 16, 4, 1
	}},
	{"box", func(testing.TB, *assets.Presets) []Option {
		return []Option{WithProbe(boxtest.NewProbe(boxtest.L40S4()).Probe)}
	}, nil},
}

// fuzzStart builds start i, at 80×24 (or 160×48 when large).
func fuzzStart(t testing.TB, i int, large bool, dir string) Model {
	t.Helper()
	st := fuzzStarts[i%len(fuzzStarts)]
	s, p := testScenario(t)
	if st.edit != nil {
		st.edit(&s)
	}
	work := fuzzWork()
	opts := []Option{WithProbe(boxtest.NoGPU), WithWorkSlots(work)}
	if st.opts != nil {
		opts = append(opts, st.opts(t, p)...)
	}
	m := New(s, p, opts...)
	m.saveDir = dir
	w, h := 80, 24
	if large {
		w, h = 160, 48
	}
	newest := m.newest
	t.Cleanup(func() {
		newest.Store(-1) // no revision is the newest: each waiting command gives its place up
		<-work
	})
	n, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = n.(Model)
	for _, msg := range fuzzSettle(&m, nil) {
		n, _ = m.Update(msg)
		m = n.(Model)
	}
	return m
}

// fuzzMemo keeps the evaluations and comparisons fuzzSettle computes (the scenarios the
// sequences reach repeat). The explorers have none of their own: a command waiting in fuzzWork
// would hold its scenario's place in it.
var fuzzMemo = NewMemo()

// fuzzSettle is the messages of the evaluation and the comparison of m's current revision, as
// its commands would send them (kept in fuzzMemo).
func fuzzSettle(m *Model, _ []tea.Cmd) []tea.Msg {
	rev, s := m.rev, m.cur
	cmp, _ := fuzzMemo.cmp.get(s, func() (compareMsg, bool) { return buildCompare(rev, s)().(compareMsg), true })
	cmp.rev = rev
	return append(fuzzEval(m), cmp)
}

// fuzzEval is the message of the evaluation of m's current revision alone.
func fuzzEval(m *Model) []tea.Msg {
	rev, s := m.rev, m.cur
	ev, _ := fuzzMemo.eval.get(s, func() (resultMsg, bool) { return evaluate(rev, s)().(resultMsg), true })
	ev.rev = rev
	return []tea.Msg{ev}
}

// fuzzWork is an explorer's place to compute in (WithWorkSlots), taken while t runs: the
// evaluations and comparisons its commands start wait (a sequence has them from fuzzSettle, at
// the moment it says), and when t ends they go, stale, and compute nothing.
func fuzzWork() chan struct{} {
	work := make(chan struct{}, 1)
	work <- struct{}{}
	return work
}

// drive sends data's messages to m, rendering after each; a panic fails t with the messages
// that led to it. It computes at most sweeps comparisons of a serving scenario.
func drive(t testing.TB, m Model, data []byte, sweeps int) (sent int) {
	t.Helper()
	f := &keysFuzz{data: data, sweeps: sweeps}
	var pending []tea.Cmd // the commands the messages returned, the newest fuzzPending
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v\nafter %d messages:\n%s\n%s", r, sent, strings.Join(f.trace, "\n"), debug.Stack())
		}
	}()
	for {
		msg, op, ok := f.msg(&m)
		if !ok {
			return sent
		}
		msgs := []tea.Msg{msg}
		if op != nil {
			msgs, pending = op(&m, pending), nil
		}
		for _, msg := range msgs {
			f.trace = append(f.trace, describe(msg))
			next, cmd := m.Update(msg)
			m = next.(Model)
			sent++
			if cmd != nil {
				pending = append(pending, cmd)
				pending = pending[max(0, len(pending)-fuzzPending):]
			}
			if m.quitting {
				return sent // the program ends: nothing more reaches the explorer
			}
			v := m.View()
			if v == "" && m.width > 0 && m.height > 0 {
				t.Fatalf("empty view after:\n%s", strings.Join(f.trace, "\n"))
			}
			if m.width >= 40 && m.height >= 10 { // TestTooSmallIsPolite's smallest
				lines := strings.Split(v, "\n")
				bad := len(lines) != m.height
				for _, l := range lines {
					bad = bad || lipgloss.Width(l) > m.width
				}
				if bad {
					t.Fatalf("%d×%d: the view does not fit after:\n%s\n%s", m.width, m.height, strings.Join(f.trace, "\n"), v)
				}
			}
		}
	}
}

// describe is a message in a line of the failure's message.
func describe(msg tea.Msg) string {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if msg.Paste {
			return fmt.Sprintf("key %q pasted", msg.String())
		}
		return fmt.Sprintf("key %q", msg.String())
	case resultMsg:
		return fmt.Sprintf("result rev %d (%s)", msg.rev, static.Header(msg.s))
	case compareMsg:
		return fmt.Sprintf("compare rev %d", msg.rev)
	case LeadMsg:
		return fmt.Sprintf("lead tour %v step %d seq %d (%s)", msg.Tour, msg.Step, msg.Seq, static.Header(msg.Scenario))
	case boxtab.UseBoxMsg:
		return "use box " + msg.Box.Host
	}
	return fmt.Sprintf("%T %+v", msg, msg)
}

// fuzzBytes encodes keys (as press names them) as the bytes keysFuzz decodes to them, so that a
// sequence can start in a given mode.
func fuzzBytes(t testing.TB, keys ...string) []byte {
	t.Helper()
	var out []byte
	for _, k := range keys {
		if k == "settle" {
			out = append(out, 0x80|5)
			continue
		}
		if name, ok := strings.CutPrefix(k, "to:"); ok { // ↓ to the row, from the first
			sc, _ := testScenario(t)
			all, n := fields(), -1
			for i, f := range visibleFields(all, &sc) {
				if all[f].name == name {
					n = i
				}
			}
			if n < 0 {
				t.Fatalf("no row %s", name)
			}
			for range n {
				out = append(out, fuzzBytes(t, "down")...)
			}
			continue
		}
		found := false
		for i, fk := range fuzzKeys {
			if fk.String() == k || (k == "space" && fk.Type == tea.KeySpace) {
				out, found = append(out, byte(i)), true
				break
			}
		}
		if !found {
			t.Fatalf("no fuzz key %q", k)
		}
	}
	return out
}

// fuzzRandom is n random steps: a third move around (fuzzNav's keys), a third press any key of
// fuzzKeys, a third are another message, with the bytes it may read.
func fuzzRandom(rng *rand.Rand, n int) []byte {
	var out []byte
	for range n {
		switch rng.IntN(3) {
		case 0:
			out = append(out, fuzzNavBytes[rng.IntN(len(fuzzNavBytes))])
		case 1:
			out = append(out, byte(rng.IntN(len(fuzzKeys))))
		default:
			out = append(out, 0x80|byte(rng.IntN(0x80)), byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32()))
		}
	}
	return out
}

// fuzzNavBytes are the bytes of fuzzNav's keys.
var fuzzNavBytes = func() []byte {
	var out []byte
	for _, k := range fuzzNav {
		for i, fk := range fuzzKeys {
			if fk.String() == k.String() {
				out = append(out, byte(i))
				break
			}
		}
	}
	return out
}()

// fuzzModes are the modes a CI sequence starts in (then random messages follow): each tab, the
// help page, typing in the panel, the tour with its question (and the teacher's reveal), the why?
// key, the panel hidden, presentation mode, the scenario's file and the report (on screen when
// served), the Compare tab's best layout taken, the Box tab's box used, a refused value and an
// edit that cannot apply (their offers), the panel's lower rows.
var fuzzModes = [][]string{
	{}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"?"}, {"enter"}, {"down", "down", "enter", "left"},
	{"g", "settle"}, {"g", "settle", "1", "2", "enter", "right", "settle"}, {"w"}, {"p"}, {"P"},
	{"s"}, {"x"}, {"3", "b", "settle"}, {"5", "u", "settle"}, {"g", "settle", "R"},
	{"to:tp", "enter", "3", "enter"}, {"to:pp", "right", "right", "right"}, down(12), down(18), down(24),
}

func down(n int) []string { return strings.Split(strings.Repeat("down ", n-1)+"down", " ") }

// TestKeySequences sends seeded random sequences to every start in every mode: nothing panics,
// and every view renders. The seeds are fixed, so a failure repeats; its message lists the
// sequence.
func TestKeySequences(t *testing.T) {
	const perMode, length = 1, 45
	if len(fuzzKeys) > 0x80 {
		t.Fatalf("%d keys: a byte below 0x80 names each", len(fuzzKeys))
	}
	rng := rand.New(rand.NewPCG(21, 6))
	dir := t.TempDir()
	sequences, msgs := 0, 0
	for start := range fuzzStarts {
		for mi, mode := range fuzzModes {
			for i := range perMode {
				large := (mi+i)%2 == 1
				m := fuzzStart(t, start, large, dir)
				data := append(fuzzBytes(t, mode...), fuzzRandom(rng, length)...)
				sweeps := 0 // the serving comparisons, where they show: Compare and Learn
				if len(mode) > 0 && (mode[0] == "3" || mode[0] == "6") {
					sweeps = 1
				}
				msgs += drive(t, m, data, sweeps)
				sequences++
			}
		}
	}
	t.Logf("%d sequences, %d messages", sequences, msgs)
}

// maxFuzzBytes bounds one input: a few hundred messages.
const maxFuzzBytes = 600

// FuzzKeys is TestKeySequences for go test -fuzz: the first byte picks the start (its high bit
// the large window), the rest is the sequence. Run it with
//
//	go test ./tui -run '^$' -fuzz FuzzKeys -fuzztime 5m
//
// Without -fuzz it runs the seeds and testdata/fuzz/FuzzKeys, where an input that found a bug
// stays.
func FuzzKeys(f *testing.F) {
	// testdata/fuzz/FuzzKeys/issue-21-alt-d is issue 21's crash: ↓ enter ← alt+d.
	rng := rand.New(rand.NewPCG(21, 6))
	for start := range fuzzStarts {
		for mi, mode := range fuzzModes {
			seed := []byte{byte(start) | byte(mi%2)<<7}
			seed = append(seed, fuzzBytes(f, mode...)...)
			f.Add(append(seed, fuzzRandom(rng, 16)...))
		}
	}
	dir := filepath.Join(f.TempDir(), "missing") // s and x fail to write: nothing piles up
	for i := range fuzzStarts {
		// Each start's comparison once, before the inputs (each has 10 s): the serving one
		// sweeps the rate for a second or more. The inputs compute no other serving comparison.
		fuzzStart(f, i, false, dir)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > maxFuzzBytes {
			return
		}
		drive(t, fuzzStart(t, int(data[0]&0x7f), data[0]&0x80 != 0, dir), data[1:], 0)
	})
}

// ctrl+v while typing runs no clipboard tool (it pasted nothing: its message never reached the
// input) and so starts no process on a serving machine; a pasted text, as terminals send it,
// types as usual.
func TestCtrlVRunsNoClipboardTool(t *testing.T) {
	m := fuzzStart(t, 2, false, t.TempDir()) // served
	m, _ = press(m, "enter")
	n, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	m = n.(Model)
	for _, msg := range runWithin(cmd, time.Second) { // the clipboard tool's answer, not the cursor's blink
		if name := fmt.Sprintf("%T", msg); strings.HasPrefix(name, "textinput.paste") {
			t.Errorf("ctrl+v ran bubbles' clipboard paste: %s %v", name, msg)
		}
	}
	m, _ = press(m, "esc", "enter")
	n, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("24"), Paste: true})
	if v := n.(Model).input.Value(); v != "24" {
		t.Errorf("a pasted 24 over the selected text: %q", v)
	}
}
