package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui"
)

// teacherKey is a new ed25519 key: its signer logs in, its public key goes in TeacherKeys.
func teacherKey(t *testing.T) (gossh.Signer, gossh.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return signer, sshPub
}

const (
	right = "\x1b[C"
	left  = "\x1b[D"
)

// The teacher (a teacher key) leads two students (the password): the tour's start and steps
// reach both; a student who moves on their own stops following and is told where the teacher
// is, while the other still follows; F rejoins; the teacher's footer counts who follows and who
// is connected, a student leaving included; a student connecting mid-lesson lands on the
// teacher's step.
func TestTeacherLeads(t *testing.T) {
	addr, pw, teacher, a, b := classroom(t)
	teacher.see(0, "Pipeline", "2 follow · 3 connected")
	a.see(0, "Pipeline")
	b.see(0, "Pipeline")

	ma, mb := a.mark(), b.mark()
	teacher.send("g")
	teacher.see(0, "tour 1/11")
	teacher.send(right)
	teacher.see(0, "tour 2/11")
	a.see(ma, "tour 2/11")
	b.see(mb, "tour 2/11")
	if s := a.screen(ma); strings.Contains(s, "F to follow") {
		t.Errorf("a following student is offered F: %q", s)
	}

	// a goes back a step on its own: it stops following; b does not.
	mt, ma := teacher.mark(), a.mark()
	a.send(left)
	a.see(ma, "tour 1/11", "teacher is on step 2/11 · F to follow")
	teacher.see(mt, "1 follow · 3 connected")
	ma, mb = a.mark(), b.mark()
	teacher.send(right)
	b.see(mb, "tour 3/11")
	a.see(ma, "teacher is on step 3/11 · F to follow")
	if s := a.screen(ma); strings.Contains(s, "tour 3/11") {
		t.Errorf("the student who wandered off moved with the teacher: %q", s)
	}

	// F: a is back on the teacher's step, and counted.
	mt, ma = teacher.mark(), a.mark()
	a.send("F")
	a.see(ma, "tour 3/11")
	teacher.see(mt, "2 follow · 3 connected")

	// b leaves: the counts drop.
	mt = teacher.mark()
	b.send("q")
	if err := b.exit(); err != nil {
		t.Fatal(err)
	}
	teacher.see(mt, "1 follow · 2 connected")

	// A student connecting now joins the lesson at its step.
	mt = teacher.mark()
	c := openAuth(t, addr, pw, nil, "")
	c.see(0, "tour 3/11")
	teacher.see(mt, "2 follow · 3 connected")

	// The teacher leaves the tour: the followers leave it too.
	ma = a.mark()
	teacher.send("\x1b")
	a.see(ma, "↑/↓ select")
	for _, tm := range []*term{teacher, a, c} {
		tm.send("q")
		if err := tm.exit(); err != nil {
			t.Fatal(err)
		}
	}
}

// An open class with a teacher key: students get in with no password and no key
// (keyboard-interactive with no question) or with any key, as students; the teacher's key
// makes the teacher.
func TestTeacherOpenClass(t *testing.T) {
	signer, pub := teacherKey(t)
	other, _ := teacherKey(t)
	srv, addr := start(t, func(c *Config) { c.TeacherKeys = []gossh.PublicKey{pub} }, nil)
	if !srv.Open() {
		t.Error("a teacher key closed the open class")
	}
	teacher := openAuth(t, addr, []gossh.AuthMethod{gossh.PublicKeys(signer)}, nil, "")
	teacher.see(0, "Pipeline", "0 follow · 1 connected")
	noKey := gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })
	s1 := openAuth(t, addr, []gossh.AuthMethod{noKey}, nil, "")
	s1.see(0, "Pipeline")
	teacher.see(0, "1 follow · 2 connected")
	s2 := openAuth(t, addr, []gossh.AuthMethod{gossh.PublicKeys(other)}, nil, "")
	s2.see(0, "Pipeline")
	teacher.see(0, "2 follow · 3 connected")
	if s := s2.screen(0); strings.Contains(s, "connected") {
		t.Errorf("a student's key made a teacher: %q", s)
	}
}

// The teacher's tally: two students answer the step's choice question differently and wait;
// the teacher's caption counts both; R reveals the model's answer on both students' screens.
func TestTeacherTallyReveals(t *testing.T) {
	_, _, teacher, a, b, logs := classroomLog(t)
	teacher.see(0, "2 follow · 3 connected")
	ma, mb := a.mark(), b.mark()
	teacher.send("g")
	teacher.see(0, "tour 1/11")
	teacher.send(right) // step 2 asks with choices
	teacher.see(0, "tour 2/11", "0 answered of 2")
	a.see(ma, "tour 2/11")
	b.see(mb, "tour 2/11")

	mt, ma, mb := teacher.mark(), a.mark(), b.mark()
	a.send("1")
	b.send("2")
	a.see(ma, "answered: 1 about 10% · waiting for the teacher's reveal")
	b.see(mb, "answered: 2 about half · waiting for the teacher's reveal")
	// The model's answer is known before the reveal (a loaded machine evaluates the step late).
	teacher.see(mt, "×1 · 2 ", "×1 · 3 ", "×0", "2 answered of 2: model: ", "model: 3")

	mt, ma, mb = teacher.mark(), a.mark(), b.mark()
	teacher.send("R")
	a.see(ma, "the model says")
	b.see(mb, "the model says")
	teacher.see(mt, "2 answered of 2", "revealed")
	// The server's log keeps the step's answers beside the model's.
	want := "class: step 2/11 · 8 stages, the batch as one micro-batch: how much of the step is bubble? · " +
		"2 answered of 2: about 10% ×1 · about half ×1 · almost all of it ×0 · model: 3 almost all of it\n"
	for deadline := time.Now().Add(wait); !strings.Contains(logs.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the server's log:\n%s\nwant a line ending %q", logs.String(), want)
			break
		}
	}
	for _, tm := range []*term{teacher, a, b} {
		tm.send("q")
		if err := tm.exit(); err != nil {
			t.Fatal(err)
		}
	}
}

// classroom serves a class behind a password with one teacher key, and opens the teacher's
// session and two students'; pw logs more students in.
func classroom(t *testing.T) (addr string, pw []gossh.AuthMethod, teacher, a, b *term) {
	t.Helper()
	addr, pw, teacher, a, b, _ = classroomLog(t)
	return addr, pw, teacher, a, b
}

// classroomLog is classroom with the server's log.
func classroomLog(t *testing.T) (addr string, pw []gossh.AuthMethod, teacher, a, b *term, logs *syncBuf) {
	t.Helper()
	signer, pub := teacherKey(t)
	logs = &syncBuf{}
	_, addr = start(t, func(c *Config) {
		c.Password = "lesson"
		c.TeacherKeys = []gossh.PublicKey{pub}
		c.Log = logs
	}, nil)
	pw = []gossh.AuthMethod{gossh.Password("lesson")}
	teacher = openAuth(t, addr, []gossh.AuthMethod{gossh.PublicKeys(signer)}, nil, "")
	a = openAuth(t, addr, pw, nil, "")
	b = openAuth(t, addr, pw, nil, "")
	return addr, pw, teacher, a, b, logs
}

// A number answered in one write (keys batched by the connection, as a fast typist's are: one
// key message of several runes) is the number typed; the teacher's tally takes both students'
// numbers, their median and, with four or more, their middle half.
func TestClassNumberTally(t *testing.T) {
	_, _, teacher, a, b := classroom(t)
	teacher.see(0, "2 follow · 3 connected")
	ma, mb := a.mark(), b.mark()
	teacher.send("g") // step 1 asks for a number of GiB
	teacher.see(0, "tour 1/11", "0 answered of 2")
	a.see(ma, "tour 1/11")
	b.see(mb, "tour 1/11")
	mt, ma, mb := teacher.mark(), a.mark(), b.mark()
	a.send("246\r")
	b.send("100\r")
	a.see(ma, "answered: 246 GiB")
	b.see(mb, "answered: 100 GiB")
	teacher.see(mt, "2 answered of 2: median 173 GiB · model: 246 GiB")
	for _, tm := range []*term{teacher, a, b} {
		tm.send("q")
		if err := tm.exit(); err != nil {
			t.Fatal(err)
		}
	}
}

// A lesson of the teacher's own (Config.Options with tui.WithLesson, as serve --lesson DIR
// gives) is every session's tour: the teacher leads its steps and the students follow.
func TestServedLesson(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	step := func(title string) assets.LessonFile {
		return assets.LessonFile{Name: title + ".yaml", Data: []byte("title: " + title + "\ncaption: {en: \"{{.GPUs}} GPUs here.\"}\n" +
			"model: llama-2-7b\ngpu: h100-sxm\ngpus: 8\ntp: 8\n")}
	}
	steps, err := assets.ParseLesson([]assets.LessonFile{step("Our first"), step("Our second")}, p)
	if err != nil {
		t.Fatal(err)
	}
	signer, pub := teacherKey(t)
	_, addr := start(t, func(c *Config) {
		c.Password = "lesson"
		c.TeacherKeys = []gossh.PublicKey{pub}
		c.Options = append(c.Options, tui.WithLesson(steps))
	}, nil)
	teacher := openAuth(t, addr, []gossh.AuthMethod{gossh.PublicKeys(signer)}, nil, "")
	student := openAuth(t, addr, []gossh.AuthMethod{gossh.Password("lesson")}, nil, "")
	teacher.see(0, "1 follow · 2 connected")
	ms := student.mark()
	teacher.send("g")
	teacher.see(0, "tour 1/2", "Our first")
	student.see(ms, "tour 1/2", "Our first", "8 GPUs here.")
	ms = student.mark()
	teacher.send(right)
	student.see(ms, "tour 2/2", "Our second")
	for _, tm := range []*term{teacher, student} {
		tm.send("q")
		if err := tm.exit(); err != nil {
			t.Fatal(err)
		}
	}
}
